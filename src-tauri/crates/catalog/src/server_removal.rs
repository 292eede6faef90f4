//! Removing a server with everything Carrel keeps for it: its password and session, its row
//! (its books and downloads go with it), the files of its books and their kept covers.

use crate::cover_cache;
use carrel_foundation::{part_files::PartFiles, store::Store};
use carrel_library::{
    credentials::Credentials,
    error::Error,
    servers::{self, Server},
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

#[cfg(test)]
mod tests {
    use super::*;
    use carrel_foundation::{clock::ManualClock, data_dir::DataDir};
    use carrel_library::credentials::Secret;
    use carrel_library::servers::{add, add_with_secret, secret, NewServer};
    use std::sync::Arc;

    fn store() -> (tempfile::TempDir, Store) {
        let t = tempfile::tempdir().unwrap();
        let s = Store::open(&DataDir::new(t.path()), Arc::new(ManualClock::new(42))).unwrap();
        (t, s)
    }

    fn input(name: &str, url: &str) -> NewServer {
        NewServer {
            name: name.into(),
            url: url.into(),
            ..Default::default()
        }
    }

    #[test]
    fn a_password_goes_to_the_secret_store_never_to_sqlite() {
        let (t, s) = store();
        let creds = Credentials::file_only(s.data_dir(), "test");
        let new = NewServer {
            username: Some("reader".into()),
            ..input("Home", "http://127.0.0.1:1/opds")
        };
        let server = add_with_secret(
            &s,
            &creds,
            &new,
            Some(&Secret::new("correct horse battery")),
        )
        .unwrap();
        assert_eq!(
            secret(&creds, &server).unwrap().unwrap().expose(),
            "correct horse battery"
        );
        drop(s);
        for entry in std::fs::read_dir(t.path()).unwrap() {
            let path = entry.unwrap().path();
            if path
                .file_name()
                .unwrap()
                .to_string_lossy()
                .starts_with("carrel.db")
            {
                let bytes = std::fs::read(&path).unwrap();
                assert!(
                    !bytes.windows(7).any(|w| w == b"correct"),
                    "password found in {path:?}"
                );
            }
        }
        let s = Store::open(&DataDir::new(t.path()), Arc::new(ManualClock::new(0))).unwrap();
        remove_with_secret(&s, &creds, server.id).unwrap();
        assert_eq!(secret(&creds, &server).unwrap(), None);
    }

    #[test]
    fn ids_of_removed_servers_are_never_given_again() {
        let (_t, s) = store();
        let creds = Credentials::file_only(s.data_dir(), "test");
        add(&s, &input("A", "http://a/")).unwrap();
        let b = add_with_secret(
            &s,
            &creds,
            &input("B", "http://b/"),
            Some(&Secret::new("for b only")),
        )
        .unwrap();
        remove_with_secret(&s, &creds, b.id).unwrap();
        let c = add(&s, &input("C", "http://c/")).unwrap();
        assert!(c.id > b.id, "{} reused", c.id);
        assert_eq!(
            secret(&creds, &c).unwrap(),
            None,
            "B's password never reaches C"
        );
    }
}
