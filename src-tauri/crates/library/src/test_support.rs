//! What the tests of this crate's users share (feature `test-support`): a server that never
//! answers, and a comic streamed from it, for tests that store a book's parts themselves. Not
//! part of the API.

use carrel_foundation::store::Store;

use crate::books::{BookFormat, CatalogBook};
use crate::servers::{self, NewServer, Server};

/// A server named `name` at an address where nothing answers (port 9 of this machine): its
/// books have only the parts a test stores itself, and any fetch from it fails.
pub fn silent_server(store: &Store, name: &str) -> Server {
    servers::add(store, &NewServer::named(name, "http://127.0.0.1:9/opds")).unwrap()
}

/// The entry of a comic of `pages` pages streamed from a [`silent_server`] (its page addresses
/// under `/p/`), known as `catalog_id`.
pub fn streamed_comic(catalog_id: &str, title: &str, pages: u32) -> CatalogBook {
    CatalogBook {
        stream_template: Some("http://127.0.0.1:9/p/{pageNumber}".into()),
        page_count: Some(pages),
        ..CatalogBook::bare(catalog_id, title, BookFormat::Comic)
    }
}
