//! `carrel-catalog`, layer 7 of 7 of Carrel's core, the top: browsing libraries.
//!
//! Browsing libraries: the catalog client (polite fetches, local ids, offline copies), covers,
//! books as the windows show them, search on the device and across servers, storage usage, "keep
//! all offline" batches, read-ahead per series, removing a server with everything it brought,
//! books imported from the reader's own files (`local_books`), and library folders whose books
//! are imported and kept up to date as their files change (`library_folders`).
//!
//! Does not: draw anything (the front ends do), download (`carrel-engine`) or read books
//! (`carrel-reading`). Depends on the six layers below it; nothing in the core depends on it
//! but the `carrel-core` facade.

/// `From` each of the library's record errors named (the store's, a server's, a book's) for an
/// error of this crate that keeps them in one `carrel_library::Error` variant, so `?` takes them
/// as they come and they reach the window with the kind the library gives them.
macro_rules! from_library_errors {
    ($error:ident::$variant:ident: $($from:ty),+) => {
        $(impl From<$from> for $error {
            fn from(e: $from) -> Self {
                $error::$variant(carrel_library::Error::from(e))
            }
        })+
    };
}

pub mod book_view;
pub mod client;
pub mod cover_cache;
pub mod device_library;
pub mod download_batches;
pub mod feed_facets;
pub mod library_folders;
pub mod library_search;
pub mod local_books;
pub mod series_feeds;
pub mod series_read_ahead;
pub mod server_removal;
pub mod storage_usage;
