//! Carrel's core: everything the reader app does that is not a window.
//!
//! The Tauri shell (`src-tauri`) and the headless `carrel-cli` are thin front ends over this
//! crate; nothing here depends on Tauri, webkit or a display, so `cargo test -p carrel-core`
//! runs anywhere.
//!
//! # Layout
//! - [`clock`]: the injected notion of "now" (system or manual), used for every timestamp and
//!   lease expiry so time-dependent rules are testable.
//! - [`data_dir`]: where a Carrel installation keeps its data (`CARREL_DATA_DIR` or the platform
//!   data dir) and the files inside it.
//! - [`store`]: the SQLite database: opening, pragmas, compiled-in migrations, the single writer
//!   connection and the read connection. Owns no domain rules.
//! - [`servers`]: the library servers the reader added (name, URL, username, politeness interval)
//!   and validation of what the reader typed.
//! - [`credentials`]: server passwords, in the OS keyring or a 0600 file; never in SQLite.
//! - [`settings`]: small typed app settings (window geometry, ...) kept in the store.
//! - [`opds`]: OPDS 1.2 (Atom) feeds with the Page Streaming Extension and OpenSearch:
//!   parsed from bytes into navigation entries and books; no HTTP here.
//! - [`books`]: books known on this device under a local id: what is needed to download them
//!   and the reader's relation to them (opened, last page, pinned).
//! - [`download_stack`]: the persistent stack of download tasks — push-to-top, prioritary pop,
//!   fenced claims and settlements, file checkpoints.
//! - [`executor_lease`]: the lease row that makes one process the executor, with its epoch
//!   fence.
//! - [`part_files`]: where parts live on disk; atomic writes, resumable partial files, orphan
//!   collection.
//! - [`progress`]: the executor's events and the [`progress::ProgressSink`] they go to.
//! - [`book_downloads`]: the producers — store book, open book at page N, latest read,
//!   chained parts — and a book's stored/total progress and removal.
//! - [`catalog`]: browsing and searching a server's catalog; gives book entries local ids.
//! - [`executor`]: the one consumer of the stack: lease, heartbeat, failure policy, backoff,
//!   preemption, Range resume.
//! - [`http_fetch`]: the HTTP client, per-server auth, status triage, length checks.
//! - [`server_throttle`]: one request in flight per server across processes, plus a minimum
//!   interval between request starts.
//! - [`error`]: the crate-wide error that wraps each module's own error enum.

pub mod book_downloads;
pub mod books;
pub mod catalog;
pub mod clock;
pub mod credentials;
pub mod data_dir;
pub mod download_stack;
pub mod error;
pub mod executor;
pub mod executor_lease;
pub mod http_fetch;
pub mod opds;
pub mod part_files;
pub mod progress;
pub mod server_throttle;
pub mod servers;
pub mod settings;
pub mod store;

pub use error::{Error, ErrorKind};
