//! Removing a server with everything Carrel keeps for it: its password and session, its row
//! (its books and downloads go with it), the files of its books and their kept covers.

use crate::{
    catalog::cover_cache,
    foundation::part_files::PartFiles,
    foundation::store::Store,
    library::credentials::Credentials,
    library::error::Error,
    library::servers::{self, Server},
};

/// Removes a server with everything it brought: its password first (a secret is never left
/// behind a removed server), then its row (its books and downloads go with it), then the
/// files of its books and their kept covers.
pub fn remove_with_secret(
    store: &Store,
    credentials: &Credentials,
    id: i64,
) -> Result<Server, Error> {
    let server = servers::get(store, id)?;
    credentials.delete(&credentials.server_account(server.id))?;
    credentials.delete(&credentials.session_account(server.id))?;
    credentials.delete(&credentials.path_key_account(server.id))?;
    let book_ids: Vec<i64> = store
        .read(|c| {
            let mut stmt = c.prepare_cached("SELECT id FROM books WHERE server_id = ?1")?;
            let rows = stmt.query_map([server.id], |r| r.get(0))?;
            rows.collect::<rusqlite::Result<Vec<i64>>>()
        })
        .map_err(|e| store.sql_error(e))?;
    let server = servers::remove(store, server.id)?;
    let files = PartFiles::new(store.data_dir().books());
    for id in book_ids {
        if let Err(e) = files.remove_book(id) {
            tracing::warn!(book = id, cause = %e, "could not delete a removed server's book files; they are collected later");
        }
        cover_cache::forget(store.data_dir(), id);
    }
    Ok(server)
}
