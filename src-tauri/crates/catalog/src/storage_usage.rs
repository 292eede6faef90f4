//! How much of the disk Carrel uses, per library server: the books kept on the device, their
//! covers kept for the windows, and the catalog pages kept for offline browsing.
//!
//! Owns nothing; reads the `books/` and `covers/` folders and the store.

use std::collections::HashMap;

use rusqlite::Row;
use serde::Serialize;

use crate::cover_cache;
use carrel_foundation::part_files::PartFiles;
use carrel_foundation::store::Store;
use carrel_library::catalog_cache;
use carrel_library::servers;

#[derive(Debug, Clone, PartialEq, Eq, Serialize, ts_rs::TS)]
pub struct StorageUsage {
    /// Everything: the servers' bytes plus files of books no longer known (collected at the
    /// next start of the downloads).
    pub total_bytes: u64,
    /// Every server, by name, with the bytes it uses on this device.
    pub per_server: Vec<ServerUsage>,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, ts_rs::TS)]
pub struct ServerUsage {
    pub server_id: i64,
    pub name: String,
    pub bytes: u64,
}

pub fn usage(store: &Store) -> Result<StorageUsage, carrel_library::error::Error> {
    let server_of: HashMap<i64, i64> = carrel_foundation::rows::all(
        store,
        "SELECT id, server_id FROM books",
        [],
        |r: &Row<'_>| Ok((r.get(0)?, r.get(1)?)),
    )?;
    let mut per_server: HashMap<i64, u64> = HashMap::new();
    let mut total = 0u64;
    let mut add = |book_id: Option<i64>, bytes: u64| {
        total += bytes;
        if let Some(server) = book_id.and_then(|id| server_of.get(&id)) {
            *per_server.entry(*server).or_default() += bytes;
        }
    };
    let files = PartFiles::new(store.data_dir().books());
    if let Ok(entries) = std::fs::read_dir(store.data_dir().books()) {
        for entry in entries.flatten() {
            if let Some(id) = entry
                .file_name()
                .to_str()
                .and_then(|n| n.parse::<i64>().ok())
            {
                add(Some(id), files.book_size(id));
            }
        }
    }
    for (book_id, bytes) in cover_cache::cached_sizes(store.data_dir()) {
        add(Some(book_id), bytes);
    }
    for (server_id, bytes) in catalog_cache::bytes_per_server(store)? {
        total += bytes;
        *per_server.entry(server_id).or_default() += bytes;
    }
    let per_server = servers::list(store)?
        .into_iter()
        .map(|s| ServerUsage {
            bytes: per_server.get(&s.id).copied().unwrap_or(0),
            server_id: s.id,
            name: s.name,
        })
        .collect();
    Ok(StorageUsage {
        total_bytes: total,
        per_server,
    })
}
