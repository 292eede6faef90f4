//! Rows a benchmark writes into its data dir itself, as a catalog screen would have: a server
//! nothing listens for (the benchmarks that play the executor's part never ask it), and a
//! catalog entry that says no more than its title and format.

use anyhow::Result;

use carrel_core::{
    foundation::store::Store,
    library::books::{BookFormat, CatalogBook},
    library::servers::{self, NewServer, Server},
};

/// A server at a loopback port nothing listens on (9, discard): named, never asked.
pub const SILENT_SERVER: &str = "http://127.0.0.1:9";

/// Adds the server at [`SILENT_SERVER`] to `store`.
pub fn silent_server(store: &Store) -> Result<Server> {
    Ok(servers::add(
        store,
        &NewServer {
            name: "Bench".into(),
            url: format!("{SILENT_SERVER}/opds"),
            ..Default::default()
        },
    )?)
}

/// A catalog entry known by `id` with nothing but its title and format: no pages, no file, no
/// cover, no reading position on the server.
pub fn catalog_entry(id: &str, title: &str, format: BookFormat) -> CatalogBook {
    CatalogBook {
        catalog_id: id.into(),
        title: title.into(),
        authors: Vec::new(),
        format,
        stream_template: None,
        page_count: None,
        page_base: 0,
        page_list: Vec::new(),
        file_url: None,
        file_type: None,
        file_length: None,
        cover_url: None,
        progression_url: None,
        read_progress_url: None,
    }
}
