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
    let book_ids: Vec<i64> = carrel_foundation::rows::all(
        store,
        "SELECT id FROM books WHERE server_id = ?1",
        [server.id],
        |r| r.get(0),
    )?;
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
    use carrel_foundation::store::test_support::database_files_holding;
    use carrel_foundation::store::test_support::temp_store as store;
    use carrel_foundation::{clock::ManualClock, data_dir::DataDir};
    use carrel_library::credentials::Secret;
    use carrel_library::server_secrets::{add_with_secret, secret};
    use carrel_library::servers::{add, NewServer};
    use std::sync::Arc;

    #[test]
    fn a_password_goes_to_the_secret_store_never_to_sqlite() {
        let (t, s) = store();
        let creds = Credentials::file_only(s.data_dir(), "test");
        let new = NewServer {
            username: Some("reader".into()),
            ..NewServer::named("Home", "http://127.0.0.1:1/opds")
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
        let held = database_files_holding(t.path(), b"correct");
        assert!(held.is_empty(), "password found in {held:?}");
        let s = Store::open(&DataDir::new(t.path()), Arc::new(ManualClock::new(0))).unwrap();
        remove_with_secret(&s, &creds, server.id).unwrap();
        assert_eq!(secret(&creds, &server).unwrap(), None);
    }

    #[test]
    fn ids_of_removed_servers_are_never_given_again() {
        let (_t, s) = store();
        let creds = Credentials::file_only(s.data_dir(), "test");
        add(&s, &NewServer::named("A", "http://a/")).unwrap();
        let b = add_with_secret(
            &s,
            &creds,
            &NewServer::named("B", "http://b/"),
            Some(&Secret::new("for b only")),
        )
        .unwrap();
        remove_with_secret(&s, &creds, b.id).unwrap();
        let c = add(&s, &NewServer::named("C", "http://c/")).unwrap();
        assert!(c.id > b.id, "{} reused", c.id);
        assert_eq!(
            secret(&creds, &c).unwrap(),
            None,
            "B's password never reaches C"
        );
    }
}
