//! The last good copy of every catalog document (feeds, OpenSearch descriptions) fetched from a
//! server, kept in the store under the address it was asked for, so a catalog the reader has
//! seen can still be shown when the server cannot be reached.
//!
//! Only documents that parsed are kept (a login page served with 200 never replaces a feed).
//! Each server keeps its [`MAX_PER_SERVER`] most recently fetched documents.
//!
//! Owns the `catalog_cache` table; knows nothing of HTTP or OPDS.

use rusqlite::params;
use url::Url;

use carrel_foundation::store::{Store, StoreError};

/// How many documents a server keeps; the oldest go first.
pub const MAX_PER_SERVER: i64 = 1_000;

/// A document as it was fetched.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CachedDocument {
    pub bytes: Vec<u8>,
    /// Where it was found after redirects; its relative links resolve against this.
    pub final_url: Url,
    pub fetched_at_ms: i64,
}

/// Keeps (or replaces) the copy of `url` of a server.
pub fn put(
    store: &Store,
    server_id: i64,
    url: &str,
    document: &CachedDocument,
) -> Result<(), StoreError> {
    store.write(|tx| {
        tx.execute(
            "INSERT INTO catalog_cache (server_id, url, final_url, body, fetched_at_ms) VALUES (?1, ?2, ?3, ?4, ?5)
             ON CONFLICT (server_id, url) DO UPDATE SET final_url = excluded.final_url, body = excluded.body,
                 fetched_at_ms = excluded.fetched_at_ms",
            params![server_id, url, document.final_url.as_str(), document.bytes, document.fetched_at_ms],
        )
        .map_err(|e| store.sql_error(e))?;
        let count: i64 = tx
            .query_row("SELECT count(*) FROM catalog_cache WHERE server_id = ?1", [server_id], |r| r.get(0))
            .map_err(|e| store.sql_error(e))?;
        if count > MAX_PER_SERVER {
            tx.execute(
                "DELETE FROM catalog_cache WHERE server_id = ?1 AND url IN (
                     SELECT url FROM catalog_cache WHERE server_id = ?1 ORDER BY fetched_at_ms ASC LIMIT ?2)",
                params![server_id, count - MAX_PER_SERVER],
            )
            .map_err(|e| store.sql_error(e))?;
        }
        Ok(())
    })
}

/// The kept copy of `url` of a server, if any.
pub fn get(store: &Store, server_id: i64, url: &str) -> Result<Option<CachedDocument>, StoreError> {
    let row: Option<(Vec<u8>, String, i64)> = carrel_foundation::rows::optional(
        store,
        "SELECT body, final_url, fetched_at_ms FROM catalog_cache WHERE server_id = ?1 AND url = ?2",
        params![server_id, url],
        |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)),
    )?;
    Ok(row.and_then(|(bytes, final_url, fetched_at_ms)| {
        Some(CachedDocument {
            bytes,
            final_url: Url::parse(&final_url).ok()?,
            fetched_at_ms,
        })
    }))
}

/// Bytes of kept documents, per server id.
pub fn bytes_per_server(store: &Store) -> Result<Vec<(i64, u64)>, StoreError> {
    carrel_foundation::rows::all(
        store,
        "SELECT server_id, sum(length(body)) FROM catalog_cache GROUP BY server_id",
        [],
        |r| Ok((r.get::<_, i64>(0)?, r.get::<_, i64>(1)?.max(0) as u64)),
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::servers::{self, NewServer};
    use carrel_foundation::clock::ManualClock;
    use carrel_foundation::data_dir::DataDir;
    use std::sync::Arc;

    fn doc(body: &str, at: i64) -> CachedDocument {
        CachedDocument {
            bytes: body.as_bytes().to_vec(),
            final_url: Url::parse("http://example.org/opds/").unwrap(),
            fetched_at_ms: at,
        }
    }

    #[test]
    fn a_document_is_replaced_and_the_oldest_go_beyond_the_cap() {
        let t = tempfile::tempdir().unwrap();
        let store = Store::open(&DataDir::new(t.path()), Arc::new(ManualClock::new(0))).unwrap();
        let server =
            servers::add(&store, &NewServer::named("S", "http://example.org/opds")).unwrap();
        assert_eq!(
            get(&store, server.id, "http://example.org/opds").unwrap(),
            None
        );
        put(&store, server.id, "http://example.org/opds", &doc("one", 1)).unwrap();
        put(&store, server.id, "http://example.org/opds", &doc("two", 2)).unwrap();
        assert_eq!(
            get(&store, server.id, "http://example.org/opds").unwrap(),
            Some(doc("two", 2))
        );
        for i in 0..MAX_PER_SERVER + 5 {
            put(
                &store,
                server.id,
                &format!("http://example.org/f/{i}"),
                &doc("x", 10 + i),
            )
            .unwrap();
        }
        assert_eq!(
            get(&store, server.id, "http://example.org/opds").unwrap(),
            None,
            "the oldest went first"
        );
        assert!(get(
            &store,
            server.id,
            &format!("http://example.org/f/{}", MAX_PER_SERVER + 4)
        )
        .unwrap()
        .is_some());
        let per_server = bytes_per_server(&store).unwrap();
        assert_eq!(per_server, vec![(server.id, MAX_PER_SERVER as u64)]);
    }
}
