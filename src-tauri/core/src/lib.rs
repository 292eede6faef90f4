//! Carrel's core: everything the reader app does that is not a window.
//!
//! The Tauri shell (`src-tauri`) and the headless `carrel-cli` are thin front ends over this
//! crate; nothing here depends on Tauri, webkit or a display, so `cargo test -p carrel-core`
//! runs anywhere.
//!
//! # Layout
//! Seven layers, lowest first, each its own crate under `src-tauri/crates/`, re-exported here
//! under its layer's name. A crate's `Cargo.toml` names only the layers below it that it uses,
//! so an upward use is not a style mistake a test has to find: Cargo refuses the dependency
//! (a cycle, or a crate that is not there to name) and the code does not compile.
//!
//! 1. [`foundation`] (`carrel-foundation`) — what every layer stands on and that knows no
//!    library: the clock, the data dir, the SQLite store and its migrations, error kinds,
//!    dates, image and file types, the `books/` folder and its atomic writes (`part_files`),
//!    secrets in addresses, holders of cross-process rows.
//! 2. [`opds`] (`carrel-opds`) — catalogs as servers write them (OPDS 1.2 Atom, OPDS 2.0,
//!    OpenSearch, page streaming, URL templates), parsed from bytes; no HTTP, no store.
//! 3. [`library`] (`carrel-library`) — what the reader keeps: servers, their credentials and
//!    sessions, books and their identity, settings, the kept catalog pages.
//! 4. [`http`] (`carrel-http`) — talking to servers: the client with per-server auth and status
//!    triage, the one request slot per server, finding a catalog from an address.
//! 5. [`engine`] (`carrel-engine`) — the download engine: the persistent stack, the executor
//!    lease, the executor itself, limits, progress events, the producers, the
//!    downloads page.
//! 6. [`reading`] (`carrel-reading`) — what the reader's windows read: pages and whole files by
//!    book id, comic archives, which reader opens a book, positions and their sync (OPDS
//!    progression, Komga, KOReader sync).
//! 7. [`catalog`] (`carrel-catalog`) — browsing: the catalog client, covers, books as windows
//!    show them, search on the device and across servers, storage usage, "keep all offline"
//!    batches, removing a server with everything it brought.
//!
//! This crate adds only [`open_library`], which needs the store and the library both.

pub use carrel_catalog as catalog;
pub use carrel_engine as engine;
pub use carrel_foundation as foundation;
pub use carrel_http as http;
pub use carrel_library as library;
pub use carrel_opds as opds;
pub use carrel_reading as reading;

pub use foundation::error::{ErrorField, ErrorKind, Failure};
pub use library::Error;

/// Opens the library of `dir` for a front end: the store with its schema up to date, then the
/// upgrades that take more than SQL — keys kept in addresses moved to the secret store
/// ([`library::server_secrets::conceal_path_keys`]) and the copies of one book remembered under
/// several ids merged ([`library::book_identity::merge_duplicates`]). A failure of an upgrade is
/// logged and retried at the next start; the library stays usable.
pub fn open_library(
    dir: &foundation::data_dir::DataDir,
    clock: foundation::clock::SharedClock,
    credentials: &library::credentials::Credentials,
) -> Result<foundation::store::Store, foundation::store::StoreError> {
    let store = foundation::store::Store::open(dir, clock)?;
    if let Err(e) = library::server_secrets::conceal_path_keys(&store, credentials) {
        tracing::warn!(cause = %e, "could not move keys kept in addresses to the secret store yet");
    }
    if let Err(e) = library::book_identity::merge_duplicates(&store) {
        tracing::warn!(cause = %e, "could not merge copies of books yet");
    }
    Ok(store)
}
