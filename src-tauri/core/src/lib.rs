//! Carrel's core: everything the reader app does that is not a window.
//!
//! The Tauri shell (`src-tauri`) and the headless `carrel-cli` are thin front ends over this
//! crate; nothing here depends on Tauri, webkit or a display, so `cargo test -p carrel-core`
//! runs anywhere.
//!
//! # Layout
//! - [`clock`]: the injected notion of "now" (system or manual), used for every timestamp and
//!   lease expiry so time-dependent rules are testable.
//! - [`image_type`]: what kind of image some bytes are (PNG, JPEG, GIF, WebP, AVIF…), from
//!   the bytes, never from what a server declares.
//! - [`timestamps`]: RFC 3339 dates to and from unix milliseconds (impossible dates refused).
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
//! - [`book_identity`]: one book, one local id, whichever view of a catalog it was reached
//!   through (view-only parameters of entry ids, the address of what is downloaded); merging
//!   the copies remembered before.
//! - [`download_stack`]: the persistent stack of download tasks — push-to-top, prioritary pop,
//!   fenced claims and settlements, file checkpoints.
//! - [`download_batches`]: "Keep all offline" — a series, a feed (with its next pages) or a
//!   search kept as one batch in reading order, with its progress, pause, resume, cancel and
//!   move to top.
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
//! - [`archive_pages`]: pages of comics kept as one archive file (CBZ, CBR, CB7, CBT), for
//!   the reader's window by book id and index: the file stored or waited for, pages read from
//!   it, the page count recorded.
//! - [`comic_archive`]: CBZ, CBR (RAR 4/5), CB7 and CBT comics read page by page from the
//!   archive (natural order, ComicInfo.xml), hostile archives refused.
//! - [`page_source`]: pages for the reader's window by book id and index: stored, else pushed
//!   prioritary and waited for (bounded).
//! - [`book_reader`]: which reader opens a book — comic, EPUB, PDF, or none (another app) —
//!   decided once from the page stream, media type and file name.
//! - [`book_source`]: a stored EPUB or PDF for the reader's window by book id (else queued
//!   prioritary and waited for, bounded), any stored file for another app, a PDF's page count.
//! - [`epub_positions`]: where the EPUB reader left each book (a CFI and the fraction read).
//! - [`library_search`]: finding books by title, author or series on this device (no server
//!   needed) and across every server's search at once, answers as they come.
//! - [`storage_usage`]: bytes used on the device, per server.
//! - [`position_sync`]: reading positions queued for the server (`position_outbox`) and sent to
//!   its OPDS progression documents; the server's newer position when a book is opened.
//! - [`kosync`]: KOReader sync — positions of books kept as files shared with KOReader devices
//!   and the servers that speak its protocol (document id, outbox, newer-wins).
//! - [`download_limits`]: what a whole-file download may take — the largest book, the
//!   catalog's declared length plus slack, the free space of the data dir's filesystem.
//! - [`executor`]: the one consumer of the stack: lease, heartbeat, failure policy, backoff,
//!   preemption, Range resume.
//! - [`http_fetch`]: the HTTP client, per-server auth, status triage, length checks.
//! - [`server_discovery`]: finding a server's catalog from a host, host:port or web address.
//! - [`server_sessions`]: the sessions servers give after a password was accepted, kept in
//!   memory per server and origin so the password is not sent with every request.
//! - [`server_throttle`]: one request in flight per server across processes, plus a minimum
//!   interval between request starts.
//! - [`book_identity`]: one book, one local id on a server: the keys an entry is matched on
//!   whichever feed, sort or search it came through, and the merge of older duplicates.
//! - [`error`]: the crate-wide error that wraps each module's own error enum.

pub mod archive_pages;
pub mod book_downloads;
pub mod book_identity;
pub mod book_reader;
pub mod book_source;
pub mod book_view;
pub mod books;
pub mod catalog;
pub mod catalog_cache;
pub mod clock;
pub mod comic_archive;
pub mod cover_cache;
pub mod credentials;
pub mod data_dir;
pub mod download_batches;
pub mod download_limits;
pub mod download_stack;
pub mod downloads_view;
pub mod epub_positions;
pub mod error;
pub mod executor;
pub mod executor_lease;
pub mod http_fetch;
pub mod image_type;
pub mod komga;
pub mod kosync;
pub mod library_search;
pub mod opds;
pub mod page_source;
pub mod part_files;
pub mod position_sync;
pub mod progress;
pub mod server_discovery;
pub mod server_sessions;
pub mod server_throttle;
pub mod servers;
pub mod settings;
pub mod storage_usage;
pub mod store;
pub mod timestamps;

pub use error::{Error, ErrorField, ErrorKind, Failure};

/// Opens the library of `dir` for a front end: the store with its schema up to date, then the
/// upgrades that take more than SQL — merging the copies of one book remembered under several
/// ids ([`book_identity::merge_duplicates`]; a failure there is logged and retried at the next
/// start, the library stays usable).
pub fn open_library(
    dir: &data_dir::DataDir,
    clock: clock::SharedClock,
) -> Result<store::Store, store::StoreError> {
    let store = store::Store::open(dir, clock)?;
    if let Err(e) = book_identity::merge_duplicates(&store) {
        tracing::warn!(cause = %e, "could not merge copies of books yet");
    }
    Ok(store)
}
