//! Rows a benchmark writes into its data dir itself, as a catalog screen would have: a server
//! nothing listens for (the benchmarks that play the executor's part never ask it). A catalog
//! entry that says no more than its title and format is `CatalogBook::bare`.

use anyhow::Result;

use carrel_core::{
    foundation::store::Store,
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
