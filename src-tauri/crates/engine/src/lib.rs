//! `carrel-engine`, layer 5 of 7 of Carrel's core: the download engine.
//!
//! The download engine: the persistent stack of tasks, the lease that makes one process its
//! consumer, the executor that consumes it (claims, Range resume, checkpoints, preemption,
//! backoff), what a download may take, the events it reports, the producers that push tasks
//! for a book, the downloads page, and what the network allows. Where parts live on disk is
//! `carrel_foundation::part_files`.
//!
//! Does not: serve pages or files to the reader or sync positions (`carrel-reading`), browse
//! catalogs or choose what to keep offline (`carrel-catalog`). Depends on the four layers below
//! it; Cargo refuses any use of a layer above.

pub mod book_downloads;
pub mod download_limits;
pub mod download_stack;
pub mod downloads_view;
pub mod executor;
pub mod executor_lease;
pub mod network;
pub mod network_watch;
pub mod page_range;
pub mod progress;
