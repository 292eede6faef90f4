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
//! - [`settings`]: small typed app settings (window geometry, ...) kept in the store, and the
//!   reader's settings page as one value.
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
//! - [`catalog`]: browsing and searching a server's catalog; gives book entries local ids;
//!   falls back to the kept copy when the server cannot be reached.
//! - [`catalog_cache`]: the last good copy of every catalog document, for offline browsing.
//! - [`book_view`]: books as the windows show them — details, on this device, continue
//!   reading — and the descriptive fields of catalog entries.
//! - [`cover_cache`]: covers for the windows: the stored one, else fetched once and kept.
//! - [`downloads_view`]: the downloads page (executor, download in flight with its speed, the
//!   waiting books with estimates, failures) and the monitor of the executor's events behind it.
//! - [`page_source`]: pages for the reader's window by book id and index: stored, else pushed
//!   prioritary and waited for (bounded).
//! - [`book_source`]: a stored EPUB for the reader's window by book id (else queued prioritary
//!   and waited for, bounded), and the EPUB reader's saved position (a CFI) per book.
//! - [`storage_usage`]: bytes used on the device, per server.
//! - [`position_sync`]: reading positions queued for the server (`position_outbox`) and sent to
//!   its OPDS progression documents; the server's newer position when a book is opened.
//! - [`executor`]: the one consumer of the stack: lease, heartbeat, failure policy, backoff,
//!   preemption, Range resume.
//! - [`http_fetch`]: the HTTP client, per-server auth, status triage, length checks.
//! - [`server_sessions`]: the sessions servers give after a password was accepted, kept in
//!   memory per server and origin so the password is not sent with every request.
//! - [`server_throttle`]: one request in flight per server across processes, plus a minimum
//!   interval between request starts.
//! - [`book_identity`]: one book, one local id on a server: the keys an entry is matched on
//!   whichever feed, sort or search it came through, and the merge of older duplicates.
//! - [`error`]: the crate-wide error that wraps each module's own error enum.

pub mod book_downloads;
pub mod book_identity;
pub mod book_source;
pub mod book_view;
pub mod books;
pub mod catalog;
pub mod catalog_cache;
pub mod clock;
pub mod cover_cache;
pub mod credentials;
pub mod data_dir;
pub mod download_stack;
pub mod downloads_view;
pub mod error;
pub mod executor;
pub mod executor_lease;
pub mod http_fetch;
pub mod komga;
pub mod opds;
pub mod page_source;
pub mod part_files;
pub mod position_sync;
pub mod progress;
pub mod server_sessions;
pub mod server_throttle;
pub mod servers;
pub mod settings;
pub mod storage_usage;
pub mod store;

pub use error::{Error, ErrorKind};
