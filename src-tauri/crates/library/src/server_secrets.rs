//! A server together with its secrets: added or updated with its password (or token) in the
//! secret store, the key a Kavita address carries in its path kept there too and never in
//! SQLite, and both read back for a request. Neither half is kept without the other: a secret
//! that cannot be stored leaves no server behind.

use rusqlite::params;
use url::Url;

use crate::credentials::{CredentialError, Credentials, Secret};
use crate::error::Error;
use crate::servers::{
    add, get, list, remove, update, validate, with_current, NewServer, Server, ServerError,
};
use carrel_foundation::address_secrets;
use carrel_foundation::store::{Store, StoreError};

/// What to do with a server's saved password when its settings change.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum PasswordChange {
    Keep,
    Forget,
    Set(Secret),
}

impl PasswordChange {
    /// The reader's field: absent keeps the password, empty forgets it, anything else sets it.
    pub fn from_field(field: Option<String>) -> PasswordChange {
        match field {
            None => PasswordChange::Keep,
            Some(p) if p.is_empty() => PasswordChange::Forget,
            Some(p) => PasswordChange::Set(Secret::new(p)),
        }
    }
}

/// [`update`], and the password changed in the secret store. The input is checked before the
/// secret store is touched.
pub fn update_with_secret(
    store: &Store,
    credentials: &Credentials,
    id: i64,
    input: &NewServer,
    password: &PasswordChange,
) -> Result<Server, Error> {
    // Everything that can refuse the update is checked before the secret store changes.
    let (input, path_key) = concealing_path_key(input);
    let input = &input;
    let current = get(store, id)?;
    let valid = validate(&with_current(input, &current))?;
    let taken: bool = carrel_foundation::rows::value(
        store,
        "SELECT EXISTS(SELECT 1 FROM servers WHERE name = ?1 AND id <> ?2 AND kind = 'opds')",
        params![valid.name, id],
    )?;
    if taken {
        return Err(ServerError::DuplicateName(valid.name).into());
    }
    match password {
        PasswordChange::Keep => {}
        PasswordChange::Forget => credentials.delete(&credentials.server_account(id))?,
        PasswordChange::Set(secret) => credentials.set(&credentials.server_account(id), secret)?,
    }
    // A session won with the old password (or none) is not this password's.
    if !matches!(password, PasswordChange::Keep) || path_key.is_some() {
        credentials.delete(&credentials.session_account(id))?;
    }
    keep_path_key(credentials, id, path_key.as_ref())?;
    Ok(update(store, id, input)?)
}

/// Saves a new server and, when given, its password in the secret store. If the secret
/// cannot be kept the server is not kept either: a half-added server would fail later with
/// a confusing "authentication needed".
pub fn add_with_secret(
    store: &Store,
    credentials: &Credentials,
    input: &NewServer,
    secret: Option<&Secret>,
) -> Result<Server, Error> {
    let (input, path_key) = concealing_path_key(input);
    let server = add(store, &input)?;
    let kept = secret
        .map(|secret| credentials.set(&credentials.server_account(server.id), secret))
        .transpose()
        .and_then(|_| keep_path_key(credentials, server.id, path_key.as_ref()));
    if let Err(e) = kept {
        remove(store, server.id)?;
        credentials.delete(&credentials.server_account(server.id))?;
        return Err(e.into());
    }
    Ok(server)
}

/// The input with the key a Kavita address carries in its path replaced by the placeholder
/// ([`address_secrets::conceal_url`]), and the key: the key goes to the secret store, never
/// into SQLite.
fn concealing_path_key(input: &NewServer) -> (NewServer, Option<Secret>) {
    let Ok(url) = Url::parse(input.url.trim()) else {
        return (input.clone(), None);
    };
    match address_secrets::conceal_url(&url) {
        (kept, Some(key)) => (
            NewServer {
                url: kept.to_string(),
                ..input.clone()
            },
            Some(Secret::new(key)),
        ),
        _ => (input.clone(), None),
    }
}

fn keep_path_key(
    credentials: &Credentials,
    id: i64,
    key: Option<&Secret>,
) -> Result<(), CredentialError> {
    match key {
        Some(key) => credentials.set(&credentials.path_key_account(id), key),
        None => Ok(()),
    }
}

/// The key a server's addresses carry in their path (Kavita), from the secret store, when its
/// catalog address has the placeholder for one.
pub fn path_key(credentials: &Credentials, server: &Server) -> Result<Option<Secret>, Error> {
    let wants_key =
        Url::parse(&server.url).is_ok_and(|u| address_secrets::has_path_key_placeholder(&u));
    if !wants_key {
        return Ok(None);
    }
    Ok(credentials.get(&credentials.path_key_account(server.id))?)
}

/// The password or token saved for a server, if any.
pub fn secret(credentials: &Credentials, server: &Server) -> Result<Option<Secret>, Error> {
    Ok(credentials.get(&credentials.server_account(server.id))?)
}

/// Moves the key of every server whose catalog address still carries it in its path (Kavita,
/// added before keys were kept as secrets) into the secret store, and replaces it with the
/// placeholder in every address kept for that server: the server, its books, their tasks,
/// "keep all offline" batches and the kept catalog pages (whose documents are concealed the
/// same way). Runs when a library is opened; a server whose key cannot be stored keeps its
/// address as it was and is tried again at the next start.
pub fn conceal_path_keys(store: &Store, credentials: &Credentials) -> Result<usize, Error> {
    let mut concealed = 0;
    for server in list(store)? {
        let Ok(url) = Url::parse(&server.url) else {
            continue;
        };
        let Some(key) = address_secrets::path_key(&url) else {
            continue;
        };
        credentials.set(
            &credentials.path_key_account(server.id),
            &Secret::new(key.clone()),
        )?;
        let placeholder = address_secrets::PATH_KEY_PLACEHOLDER;
        store.write(|tx| {
            let sql = |statement: &str| {
                tx.execute(statement, params![server.id, key, placeholder])
                    .map_err(|e| store.sql_error(e))
            };
            sql("UPDATE servers SET url = replace(url, ?2, ?3) WHERE id = ?1")?;
            sql("UPDATE books SET catalog_id = replace(catalog_id, ?2, ?3),
                     stream_template = replace(stream_template, ?2, ?3),
                     file_url = replace(file_url, ?2, ?3),
                     cover_url = replace(cover_url, ?2, ?3),
                     page_list = replace(page_list, ?2, ?3),
                     progression_url = replace(progression_url, ?2, ?3),
                     read_progress_url = replace(read_progress_url, ?2, ?3),
                     match_key = replace(match_key, ?2, ?3)
                 WHERE server_id = ?1")?;
            sql("UPDATE tasks SET url = replace(url, ?2, ?3) WHERE server_id = ?1")?;
            sql(
                "UPDATE download_batches SET source_url = replace(source_url, ?2, ?3)
                 WHERE server_id = ?1",
            )?;
            let kept: Vec<(String, String, Vec<u8>)> = {
                let mut stmt = tx
                    .prepare("SELECT url, final_url, body FROM catalog_cache WHERE server_id = ?1")
                    .map_err(|e| store.sql_error(e))?;
                let rows = stmt
                    .query_map([server.id], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)))
                    .and_then(|rows| rows.collect::<rusqlite::Result<Vec<_>>>())
                    .map_err(|e| store.sql_error(e));
                rows?
            };
            for (url, final_url, body) in kept {
                tx.execute(
                    "UPDATE catalog_cache SET url = ?3, final_url = ?4, body = ?5
                     WHERE server_id = ?1 AND url = ?2",
                    params![
                        server.id,
                        url,
                        url.replace(&key, placeholder),
                        final_url.replace(&key, placeholder),
                        address_secrets::conceal_text(&body, &key).as_ref()
                    ],
                )
                .map_err(|e| store.sql_error(e))?;
            }
            Ok::<_, StoreError>(())
        })?;
        concealed += 1;
    }
    Ok(concealed)
}
