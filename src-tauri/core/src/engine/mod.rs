//! The download engine: the persistent stack of tasks, the lease that makes one process its
//! consumer, the executor that consumes it (claims, Range resume, checkpoints, preemption,
//! backoff), where parts live on disk, what a download may take, the events it reports, the
//! producers that push tasks for a book, the downloads page, and what the network allows.

pub mod book_downloads;
pub mod download_limits;
pub mod download_stack;
pub mod downloads_view;
pub mod executor;
pub mod executor_lease;
pub mod network;
pub mod network_watch;
pub mod progress;
