//! The library servers the reader has added: their names, catalog URLs, usernames, the
//! politeness interval between requests and whether a self-signed certificate is accepted.
//! Validates what the reader typed before anything is saved. Passwords are not here: see
//! [`crate::credentials`], and [`crate::server_secrets`] for a server saved with its secrets.

use rusqlite::{params, OptionalExtension, Row};
use serde::{Deserialize, Serialize};
use url::Url;

use carrel_foundation::error::ErrorKind;
use carrel_foundation::store::{Store, StoreError};

/// The longest server name accepted, in characters.
pub const MAX_NAME_CHARS: usize = 80;
/// The longest minimum interval between two requests to a server.
pub const MAX_INTERVAL_MS: i64 = 60_000;

#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum ServerError {
    #[error("give the server a name")]
    EmptyName,
    #[error("the name is too long (at most {MAX_NAME_CHARS} characters)")]
    NameTooLong,
    #[error("{0}")]
    InvalidUrl(String),
    #[error("the interval between requests must be between 0 and {MAX_INTERVAL_MS} ms")]
    InvalidInterval,
    #[error("a server named \"{0}\" exists already")]
    DuplicateName(String),
    /// The catalog's address is a saved server's already (named here).
    #[error("you already have this server: {0}")]
    DuplicateUrl(String),
    #[error("no server named \"{0}\"")]
    NotFound(String),
    #[error(transparent)]
    Store(#[from] StoreError),
}

impl carrel_foundation::error::Failure for ServerError {
    fn kind(&self) -> carrel_foundation::error::ErrorKind {
        match self {
            ServerError::EmptyName
            | ServerError::NameTooLong
            | ServerError::InvalidUrl(_)
            | ServerError::InvalidInterval => ErrorKind::InvalidInput,
            ServerError::DuplicateName(_) | ServerError::DuplicateUrl(_) => ErrorKind::Conflict,
            ServerError::NotFound(_) => ErrorKind::NotFound,
            ServerError::Store(_) => ErrorKind::Storage,
        }
    }

    fn field(&self) -> Option<carrel_foundation::error::ErrorField> {
        match self {
            ServerError::EmptyName | ServerError::NameTooLong | ServerError::DuplicateName(_) => {
                Some(carrel_foundation::error::ErrorField::Name)
            }
            ServerError::InvalidUrl(_) | ServerError::DuplicateUrl(_) => {
                Some(carrel_foundation::error::ErrorField::Url)
            }
            ServerError::InvalidInterval => {
                Some(carrel_foundation::error::ErrorField::MinIntervalMs)
            }
            ServerError::NotFound(_) | ServerError::Store(_) => None,
        }
    }
}

/// A saved library server.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, ts_rs::TS)]
pub struct Server {
    pub id: i64,
    pub name: String,
    /// The catalog's root feed.
    pub url: String,
    pub username: Option<String>,
    /// Minimum time between the starts of two requests to this server.
    pub min_interval_ms: i64,
    pub created_at_ms: i64,
    /// Why downloads from this server are paused ("authentication needed"), if they are.
    pub paused_reason: Option<String>,
    /// The reader chose to accept this server's certificate even when no authority vouches
    /// for it (a self-signed certificate on a server they run). Off unless chosen.
    pub trust_self_signed: bool,
    /// The saved secret is an API key, sent as `X-API-Key` (Komga's), never as a password.
    pub api_key: bool,
}

/// What the reader typed in the "Add server" dialog.
#[derive(Debug, Clone, Default, Deserialize)]
pub struct NewServer {
    pub name: String,
    pub url: String,
    #[serde(default)]
    pub username: Option<String>,
    #[serde(default)]
    pub min_interval_ms: Option<i64>,
    /// Accept the server's certificate even if it is self-signed. Absent: off when adding,
    /// unchanged when updating.
    #[serde(default)]
    pub trust_self_signed: Option<bool>,
    /// The secret given is an API key (signs in alone, without a username). Absent: off when
    /// adding, unchanged when updating.
    #[serde(default)]
    pub api_key: Option<bool>,
}

impl NewServer {
    /// A server by its name and address, every other field absent.
    pub fn named(name: &str, url: &str) -> NewServer {
        NewServer {
            name: name.into(),
            url: url.into(),
            ..Default::default()
        }
    }
}

/// A server that passed validation, ready to save.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ValidServer {
    pub name: String,
    pub url: Url,
    pub username: Option<String>,
    pub min_interval_ms: i64,
    pub trust_self_signed: bool,
    pub api_key: bool,
}

/// Checks and normalises the reader's input: a non-empty name, an `http(s)` URL with a host
/// and no credentials in it (those have their own fields).
pub fn validate(input: &NewServer) -> Result<ValidServer, ServerError> {
    let name = input.name.trim();
    if name.is_empty() {
        return Err(ServerError::EmptyName);
    }
    if name.chars().count() > MAX_NAME_CHARS {
        return Err(ServerError::NameTooLong);
    }
    let url = validate_url(&input.url)?;
    let api_key = input.api_key.unwrap_or(false);
    // An API key signs in alone: a username beside it would make it a password.
    let username = input
        .username
        .as_deref()
        .map(str::trim)
        .filter(|u| !u.is_empty() && !api_key)
        .map(str::to_owned);
    let min_interval_ms = input.min_interval_ms.unwrap_or(0);
    if !(0..=MAX_INTERVAL_MS).contains(&min_interval_ms) {
        return Err(ServerError::InvalidInterval);
    }
    Ok(ValidServer {
        name: name.to_owned(),
        url,
        username,
        min_interval_ms,
        trust_self_signed: input.trust_self_signed.unwrap_or(false),
        api_key,
    })
}

/// Parses a catalog URL as typed by a reader.
pub fn validate_url(raw: &str) -> Result<Url, ServerError> {
    let raw = raw.trim();
    if raw.is_empty() {
        return Err(ServerError::InvalidUrl(
            "enter the address of the server's OPDS catalog".into(),
        ));
    }
    let url = Url::parse(raw).map_err(|_| {
        ServerError::InvalidUrl(
            "this is not a web address; it should look like https://books.example.org/opds".into(),
        )
    })?;
    match url.scheme() {
        "http" | "https" => {}
        other => {
            return Err(ServerError::InvalidUrl(format!(
                "\"{other}:\" addresses are not supported; use http:// or https://"
            )))
        }
    }
    if url.host_str().is_none_or(str::is_empty) {
        return Err(ServerError::InvalidUrl(
            "the address has no server name".into(),
        ));
    }
    if !url.username().is_empty() || url.password().is_some() {
        return Err(ServerError::InvalidUrl(
            "put the username and password in their own fields, not in the address".into(),
        ));
    }
    Ok(url)
}

fn from_row(row: &Row<'_>) -> rusqlite::Result<Server> {
    Ok(Server {
        id: row.get("id")?,
        name: row.get("name")?,
        url: row.get("url")?,
        username: row.get("username")?,
        min_interval_ms: row.get("min_interval_ms")?,
        created_at_ms: row.get("created_at_ms")?,
        paused_reason: row.get("paused_reason")?,
        trust_self_signed: row.get("trust_self_signed")?,
        api_key: row.get("api_key")?,
    })
}

const COLUMNS: &str = "id, name, url, username, min_interval_ms, created_at_ms, paused_reason, trust_self_signed, api_key";

/// Validates and saves a new server.
pub fn add(store: &Store, input: &NewServer) -> Result<Server, ServerError> {
    let valid = validate(input)?;
    let now = store.now_ms();
    store.write(|tx| {
        let exists: bool = tx
            .query_row("SELECT EXISTS(SELECT 1 FROM servers WHERE name = ?1 AND kind = 'opds')", [&valid.name], |r| r.get(0))
            .map_err(|e| store.sql_error(e))?;
        if exists {
            return Err(ServerError::DuplicateName(valid.name.clone()));
        }
        // One catalog and account, one server: the same address (a trailing slash aside),
        // signed in the same way, is not added twice. Another account on the same catalog (a
        // household's second reader) is a server of its own.
        let same_catalog: Option<String> = tx
            .query_row(
                "SELECT name FROM servers
                 WHERE kind = 'opds' AND rtrim(url, '/') = rtrim(?1, '/') AND username IS ?2 AND api_key = ?3
                 LIMIT 1",
                params![valid.url.as_str(), valid.username, valid.api_key],
                |r| r.get(0),
            )
            .optional()
            .map_err(|e| store.sql_error(e))?;
        if let Some(name) = same_catalog {
            return Err(ServerError::DuplicateUrl(name));
        }
        let server = tx
            .query_row(
                &format!(
                    "INSERT INTO servers (id, name, url, username, min_interval_ms, created_at_ms, trust_self_signed, api_key)
                     VALUES ((SELECT last + 1 FROM id_high_water WHERE name = 'servers'), ?1, ?2, ?3, ?4, ?5, ?6, ?7)
                     RETURNING {COLUMNS}"
                ),
                params![
                    valid.name,
                    valid.url.as_str(),
                    valid.username,
                    valid.min_interval_ms,
                    now,
                    valid.trust_self_signed,
                    valid.api_key
                ],
                from_row,
            )
            .map_err(|e| store.sql_error(e))?;
        Ok(server)
    })
}

/// The name of a server the reader gave none: the catalog's own `title` when it has one, else
/// the host of `url` (with its port when the host is only an address or `localhost`), made
/// unique among the saved servers' names (the host added in brackets, then a number).
pub fn default_name(store: &Store, title: Option<&str>, url: &str) -> Result<String, ServerError> {
    let host = Url::parse(url.trim()).ok().and_then(|u| {
        let host = u.host_str()?.trim_start_matches("www.").to_owned();
        let bare = matches!(u.host(), Some(url::Host::Ipv4(_) | url::Host::Ipv6(_)))
            || host == "localhost";
        Some(match u.port() {
            Some(port) if bare => format!("{host}:{port}"),
            _ => host,
        })
    });
    let cut = |text: &str| text.chars().take(MAX_NAME_CHARS).collect::<String>();
    let title = title
        .map(|t| t.split_whitespace().collect::<Vec<_>>().join(" "))
        .filter(|t| !t.is_empty());
    let base = cut(title.as_deref().or(host.as_deref()).unwrap_or("Library"));
    let taken = list(store)?
        .into_iter()
        .map(|s| s.name)
        .collect::<std::collections::HashSet<_>>();
    let mut candidates = vec![base.clone()];
    if let (Some(_), Some(host)) = (&title, &host) {
        candidates.push(cut(&format!("{base} ({host})")));
    }
    candidates.extend((2..100).map(|n| {
        let suffix = format!(" {n}");
        let room = MAX_NAME_CHARS - suffix.chars().count();
        format!("{}{suffix}", base.chars().take(room).collect::<String>())
    }));
    Ok(candidates
        .into_iter()
        .find(|name| !taken.contains(name))
        .unwrap_or(base))
}

/// Every saved server, by name.
pub fn list(store: &Store) -> Result<Vec<Server>, ServerError> {
    let sql =
        format!("SELECT {COLUMNS} FROM servers WHERE kind = 'opds' ORDER BY name COLLATE NOCASE");
    Ok(carrel_foundation::rows::all(store, &sql, [], from_row)?)
}

pub fn get_by_name(store: &Store, name: &str) -> Result<Server, ServerError> {
    let sql = format!("SELECT {COLUMNS} FROM servers WHERE name = ?1 AND kind = 'opds'");
    carrel_foundation::rows::optional(store, &sql, [name], from_row)?
        .ok_or_else(|| ServerError::NotFound(name.to_owned()))
}

pub fn get(store: &Store, id: i64) -> Result<Server, ServerError> {
    let sql = format!("SELECT {COLUMNS} FROM servers WHERE id = ?1");
    carrel_foundation::rows::optional(store, &sql, [id], from_row)?
        .ok_or_else(|| ServerError::NotFound(format!("#{id}")))
}

/// The name the device source is saved under (windows show their own words for it).
pub const DEVICE_SOURCE_NAME: &str = "This device";
/// The device source's address: not a network address, and never fetched.
pub const DEVICE_SOURCE_URL: &str = "device:";

/// The device source's row, if it was made.
fn device_row(c: &rusqlite::Connection) -> rusqlite::Result<Option<Server>> {
    c.query_row(
        &format!("SELECT {COLUMNS} FROM servers WHERE kind = 'device'"),
        [],
        from_row,
    )
    .optional()
}

/// The source of the books imported from the reader's own files ("This device"), created the
/// first time it is asked for. It is a row of `servers` (books and their tasks belong to a
/// server) of kind `device`, which [`list`] and [`get_by_name`] never return: nothing that
/// talks to servers (sync, catalog browsing, the servers' settings) sees it. [`get`] returns
/// it, for the book views that name a book's source.
pub fn device_source(store: &Store) -> Result<Server, ServerError> {
    let known = store.read(device_row).map_err(|e| store.sql_error(e))?;
    if let Some(server) = known {
        return Ok(server);
    }
    let now = store.now_ms();
    store.write(|tx| {
        // Made in the same transaction that looks: two processes importing at once make one.
        let known = device_row(tx).map_err(|e| store.sql_error(e))?;
        if let Some(server) = known {
            return Ok(server);
        }
        tx.query_row(
            &format!(
                "INSERT INTO servers (id, kind, name, url, created_at_ms)
                 VALUES ((SELECT last + 1 FROM id_high_water WHERE name = 'servers'), 'device', ?1, ?2, ?3)
                 RETURNING {COLUMNS}"
            ),
            params![DEVICE_SOURCE_NAME, DEVICE_SOURCE_URL, now],
            from_row,
        )
        .map_err(|e| store.sql_error(e).into())
    })
}

/// Whether `server_id` is the device source (see [`device_source`]).
pub fn is_device_source(store: &Store, server_id: i64) -> Result<bool, StoreError> {
    carrel_foundation::rows::value(
        store,
        "SELECT EXISTS (SELECT 1 FROM servers WHERE id = ?1 AND kind = 'device')",
        [server_id],
    )
}

/// How many servers are paused (the executor watches this to wake when one resumes).
pub fn paused_count(store: &Store) -> Result<i64, StoreError> {
    carrel_foundation::rows::value(
        store,
        "SELECT count(*) FROM servers WHERE paused_reason IS NOT NULL",
        [],
    )
}

/// Pauses downloads from a server (`Some(reason)`) or resumes them (`None`).
pub fn set_paused(store: &Store, id: i64, reason: Option<&str>) -> Result<(), StoreError> {
    store.execute(
        "UPDATE servers SET paused_reason = ?2 WHERE id = ?1",
        params![id, reason],
    )?;
    Ok(())
}

/// Sets the minimum interval between the starts of two requests to a server.
pub fn set_min_interval(store: &Store, name: &str, interval_ms: i64) -> Result<(), ServerError> {
    if !(0..=MAX_INTERVAL_MS).contains(&interval_ms) {
        return Err(ServerError::InvalidInterval);
    }
    let n = store.execute(
        "UPDATE servers SET min_interval_ms = ?2 WHERE name = ?1",
        params![name, interval_ms],
    )?;
    if n == 0 {
        return Err(ServerError::NotFound(name.to_owned()));
    }
    Ok(())
}

/// What an update leaves as it was: an absent interval or certificate choice keeps the
/// server's current one.
pub(crate) fn with_current(input: &NewServer, current: &Server) -> NewServer {
    NewServer {
        min_interval_ms: input.min_interval_ms.or(Some(current.min_interval_ms)),
        trust_self_signed: input.trust_self_signed.or(Some(current.trust_self_signed)),
        api_key: input.api_key.or(Some(current.api_key)),
        ..input.clone()
    }
}

/// Validates and saves new settings of a server (name, URL, username, interval, certificate
/// choice), checked as [`add`] checks them. An absent interval or certificate choice keeps
/// the current one.
pub fn update(store: &Store, id: i64, input: &NewServer) -> Result<Server, ServerError> {
    let current = get(store, id)?;
    let valid = validate(&with_current(input, &current))?;
    store.write(|tx| {
        let taken: bool = tx
            .query_row(
                "SELECT EXISTS(SELECT 1 FROM servers WHERE name = ?1 AND id <> ?2 AND kind = 'opds')",
                params![valid.name, id],
                |r| r.get(0),
            )
            .map_err(|e| store.sql_error(e))?;
        if taken {
            return Err(ServerError::DuplicateName(valid.name.clone()));
        }
        tx.query_row(
            &format!(
                "UPDATE servers SET name = ?2, url = ?3, username = ?4, min_interval_ms = ?5, trust_self_signed = ?6,
                     api_key = ?7
                 WHERE id = ?1 RETURNING {COLUMNS}"
            ),
            params![
                id,
                valid.name,
                valid.url.as_str(),
                valid.username,
                valid.min_interval_ms,
                valid.trust_self_signed,
                valid.api_key
            ],
            from_row,
        )
        .optional()
        .map_err(|e| store.sql_error(e))?
        .ok_or_else(|| ServerError::NotFound(format!("#{id}")))
    })
}

/// Lets downloads from a paused server ("authentication needed") run again, e.g. after the
/// reader gave new credentials.
pub fn resume(store: &Store, id: i64) -> Result<(), ServerError> {
    get(store, id)?;
    set_paused(store, id, None)?;
    Ok(())
}

/// Removes a server by name and returns what was removed.
pub fn remove(store: &Store, id: i64) -> Result<Server, ServerError> {
    store.write(|tx| {
        tx.query_row(
            &format!("DELETE FROM servers WHERE id = ?1 RETURNING {COLUMNS}"),
            [id],
            from_row,
        )
        .optional()
        .map_err(|e| store.sql_error(e))?
        .ok_or_else(|| ServerError::NotFound(format!("#{id}")))
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::credentials::{Credentials, Secret};
    use crate::server_secrets::{
        add_with_secret, conceal_path_keys, path_key, secret, update_with_secret, PasswordChange,
    };
    use carrel_foundation::store::test_support::temp_store as store;
    use carrel_foundation::{clock::ManualClock, data_dir::DataDir};
    use std::sync::Arc;

    #[test]
    fn the_same_catalog_is_not_added_twice() {
        let (_t, s) = store();
        add(
            &s,
            &NewServer::named("Home library", "http://127.0.0.1:9810/opds/v1.2/"),
        )
        .unwrap();
        let again = add(
            &s,
            &NewServer::named("Other", "http://127.0.0.1:9810/opds/v1.2"),
        )
        .unwrap_err();
        assert!(matches!(&again, ServerError::DuplicateUrl(name) if name == "Home library"));
        assert_eq!(
            again.to_string(),
            "you already have this server: Home library"
        );
        assert_eq!(
            carrel_foundation::error::Failure::field(&again),
            Some(carrel_foundation::error::ErrorField::Url),
            "said under the address"
        );
        add(
            &s,
            &NewServer::named("Elsewhere", "http://127.0.0.1:9811/opds/v1.2/"),
        )
        .unwrap();
        let second_reader = NewServer {
            username: Some("bea".into()),
            ..NewServer::named("Bea's", "http://127.0.0.1:9810/opds/v1.2/")
        };
        add(&s, &second_reader).expect("another account on the same catalog");
    }

    #[test]
    fn a_server_without_a_name_takes_its_catalogs_title_else_its_host() {
        let (_t, s) = store();
        let url = "http://127.0.0.1:9810/opds/v1.2/";
        assert_eq!(
            default_name(&s, Some(" Codex\n  Library "), url).unwrap(),
            "Codex Library"
        );
        assert_eq!(default_name(&s, None, url).unwrap(), "127.0.0.1:9810");
        assert_eq!(
            default_name(&s, Some(""), "https://www.books.example.org/opds").unwrap(),
            "books.example.org"
        );
        add(&s, &NewServer::named("Codex", "http://nas:9810/opds/v1.2/")).unwrap();
        assert_eq!(
            default_name(&s, Some("Codex"), url).unwrap(),
            "Codex (127.0.0.1:9810)",
            "a name taken is told apart by the host"
        );
        let long = "x".repeat(200);
        assert_eq!(
            default_name(&s, Some(&long), url).unwrap().chars().count(),
            MAX_NAME_CHARS
        );
    }

    #[test]
    fn a_kavita_key_kept_in_addresses_moves_to_the_secret_store() {
        let (t, s) = store();
        let creds = Credentials::file_only(&DataDir::new(t.path()), "carrel-test");
        let key = "7f3c2a1e-90ab-4cde-8f00-123456789abc";
        let server = add(
            &s,
            &NewServer::named("Kavita", &format!("http://nas.local:5000/api/opds/{key}")),
        )
        .unwrap();
        s.write(|tx| {
            tx.execute(
                "INSERT INTO books (id, server_id, catalog_id, title, format, file_url, created_at_ms)
                 VALUES (1, ?1, 'urn:1', 'One', 'epub', ?2, 0)",
                params![server.id, format!("http://nas.local:5000/api/opds/{key}/series/1/volume/1/chapter/1/download/a.epub")],
            )
            .unwrap();
            tx.execute(
                "INSERT INTO catalog_cache (server_id, url, final_url, body, fetched_at_ms)
                 VALUES (?1, ?2, ?2, ?3, 0)",
                params![
                    server.id,
                    format!("http://nas.local:5000/api/opds/{key}"),
                    format!("<feed><link href=\"/api/opds/{key}/libraries\"/></feed>").into_bytes()
                ],
            )
            .unwrap();
            Ok::<_, StoreError>(())
        })
        .unwrap();
        assert_eq!(conceal_path_keys(&s, &creds).unwrap(), 1);
        let kept = get(&s, server.id).unwrap();
        assert_eq!(kept.url, "http://nas.local:5000/api/opds/~apikey~");
        assert_eq!(path_key(&creds, &kept).unwrap().unwrap().expose(), key);
        let file_url: String = s
            .read(|c| c.query_row("SELECT file_url FROM books WHERE id = 1", [], |r| r.get(0)))
            .unwrap();
        assert!(
            file_url.contains("/api/opds/~apikey~/series/1"),
            "{file_url}"
        );
        let (url, body): (String, Vec<u8>) = s
            .read(|c| {
                c.query_row("SELECT url, body FROM catalog_cache", [], |r| {
                    Ok((r.get(0)?, r.get(1)?))
                })
            })
            .unwrap();
        assert!(!url.contains(key) && !String::from_utf8(body).unwrap().contains(key));
        assert_eq!(conceal_path_keys(&s, &creds).unwrap(), 0, "done once");
    }

    #[test]
    fn rejects_what_is_not_a_catalog_address() {
        for bad in [
            "not a url",
            "",
            "   ",
            "ftp://example.org/opds",
            "file:///etc/passwd",
            "https://user:pw@example.org/",
        ] {
            let err = validate(&NewServer::named("Home", bad)).unwrap_err();
            assert!(
                matches!(err, ServerError::InvalidUrl(_)),
                "{bad:?} gave {err:?}"
            );
        }
    }

    #[test]
    fn accepts_and_normalises_a_good_server() {
        let v = validate(&NewServer {
            name: "  Home  ".into(),
            url: " http://127.0.0.1:8080/opds ".into(),
            username: Some("  ".into()),
            min_interval_ms: None,
            trust_self_signed: None,
            api_key: None,
        })
        .unwrap();
        assert_eq!(v.name, "Home");
        assert_eq!(v.url.as_str(), "http://127.0.0.1:8080/opds");
        assert_eq!(v.username, None);
        assert!(
            !v.trust_self_signed,
            "certificates are checked unless the reader says otherwise"
        );
    }

    #[test]
    fn empty_or_long_names_are_refused() {
        assert!(matches!(
            validate(&NewServer::named(" ", "http://a/")),
            Err(ServerError::EmptyName)
        ));
        let long = "x".repeat(MAX_NAME_CHARS + 1);
        assert!(matches!(
            validate(&NewServer::named(&long, "http://a/")),
            Err(ServerError::NameTooLong)
        ));
    }

    #[test]
    fn the_device_source_is_made_once_and_never_listed_among_the_servers() {
        let (_t, s) = store();
        let device = device_source(&s).unwrap();
        assert_eq!(device_source(&s).unwrap().id, device.id);
        assert_eq!(device.url, DEVICE_SOURCE_URL);
        assert!(is_device_source(&s, device.id).unwrap());
        assert!(list(&s).unwrap().is_empty());
        assert_eq!(paused_count(&s).unwrap(), 0);
        // A server may take the device source's name; by name, only servers are found.
        let server = add(
            &s,
            &NewServer::named(DEVICE_SOURCE_NAME, "http://127.0.0.1:9/opds"),
        )
        .unwrap();
        assert!(server.id > device.id && !is_device_source(&s, server.id).unwrap());
        assert_eq!(get_by_name(&s, DEVICE_SOURCE_NAME).unwrap().id, server.id);
        assert_eq!(
            list(&s).unwrap().iter().map(|x| x.id).collect::<Vec<_>>(),
            [server.id]
        );
        // By id, for the book views that name a book's source, it is there.
        assert_eq!(get(&s, device.id).unwrap().name, DEVICE_SOURCE_NAME);
    }

    #[test]
    fn add_list_remove_round_trip() {
        let (_t, s) = store();
        let a = add(
            &s,
            &NewServer::named("Komga", "https://komga.example.org/opds/v1.2/catalog"),
        )
        .unwrap();
        add(&s, &NewServer::named("calibre", "http://calibre.lan/opds")).unwrap();
        assert_eq!(a.created_at_ms, 42);
        let names: Vec<_> = list(&s).unwrap().into_iter().map(|s| s.name).collect();
        assert_eq!(names, ["calibre", "Komga"]);
        assert!(matches!(
            add(&s, &NewServer::named("Komga", "http://other/")),
            Err(ServerError::DuplicateName(_))
        ));
        assert_eq!(remove(&s, a.id).unwrap().id, a.id);
        assert!(matches!(
            get_by_name(&s, "Komga"),
            Err(ServerError::NotFound(_))
        ));
        assert!(matches!(remove(&s, a.id), Err(ServerError::NotFound(_))));
    }

    #[test]
    fn update_checks_like_add_and_changes_the_password_as_asked() {
        let (_t, s) = store();
        let creds = Credentials::file_only(s.data_dir(), "test");
        let home = add_with_secret(
            &s,
            &creds,
            &NewServer {
                username: Some("me".into()),
                min_interval_ms: Some(250),
                ..NewServer::named("Home", "http://a/opds")
            },
            Some(&Secret::new("old")),
        )
        .unwrap();
        add(&s, &NewServer::named("Other", "http://b/opds")).unwrap();
        let update_to = |name: &str, url: &str| {
            let new = NewServer::named(name, url);
            update_with_secret(&s, &creds, home.id, &new, &PasswordChange::Forget)
        };
        assert!(matches!(
            update_to("Other", "http://a/opds"),
            Err(crate::error::Error::Server(ServerError::DuplicateName(_)))
        ));
        assert!(matches!(
            update_to("Home", "ftp://a/"),
            Err(crate::error::Error::Server(ServerError::InvalidUrl(_)))
        ));
        assert_eq!(
            secret(&creds, &home).unwrap().unwrap().expose(),
            "old",
            "a refused update changes nothing"
        );
        let renamed = update_with_secret(
            &s,
            &creds,
            home.id,
            &NewServer {
                username: Some("me".into()),
                ..NewServer::named(" Attic ", "http://a:8080/opds")
            },
            &PasswordChange::Keep,
        )
        .unwrap();
        assert_eq!(
            (renamed.name.as_str(), renamed.url.as_str()),
            ("Attic", "http://a:8080/opds")
        );
        assert_eq!(renamed.min_interval_ms, 250, "an absent interval is kept");
        assert_eq!(secret(&creds, &home).unwrap().unwrap().expose(), "old");
        let type_password = |field: &str| {
            let attic = NewServer::named("Attic", "http://a/opds");
            let password = PasswordChange::from_field(Some(field.into()));
            update_with_secret(&s, &creds, home.id, &attic, &password).unwrap()
        };
        type_password("new");
        assert_eq!(secret(&creds, &home).unwrap().unwrap().expose(), "new");
        type_password("");
        assert_eq!(secret(&creds, &home).unwrap(), None);
        assert!(matches!(
            update(
                &s,
                home.id,
                &NewServer {
                    min_interval_ms: Some(60_001),
                    ..NewServer::named("Attic", "http://a/opds")
                }
            ),
            Err(ServerError::InvalidInterval)
        ));
        assert!(matches!(
            update(&s, 999, &NewServer::named("X", "http://x/")),
            Err(ServerError::NotFound(_))
        ));
        set_paused(&s, home.id, Some("authentication needed")).unwrap();
        resume(&s, home.id).unwrap();
        assert_eq!(get(&s, home.id).unwrap().paused_reason, None);
        assert!(matches!(resume(&s, 999), Err(ServerError::NotFound(_))));
    }

    #[test]
    fn trusting_a_self_signed_certificate_is_chosen_per_server_and_kept_until_changed() {
        let (_t, s) = store();
        let plain = add(&s, &NewServer::named("Plain", "https://a.example.org/opds")).unwrap();
        assert!(!plain.trust_self_signed);
        let own = add(
            &s,
            &NewServer {
                trust_self_signed: Some(true),
                ..NewServer::named("Own", "https://nas.lan/opds")
            },
        )
        .unwrap();
        assert!(own.trust_self_signed);
        assert!(
            !get(&s, plain.id).unwrap().trust_self_signed,
            "one server's choice is not another's"
        );
        let renamed = update(
            &s,
            own.id,
            &NewServer::named("Own NAS", "https://nas.lan/opds"),
        )
        .unwrap();
        assert!(
            renamed.trust_self_signed,
            "an absent choice keeps the current one"
        );
        let revoked = update(
            &s,
            own.id,
            &NewServer {
                trust_self_signed: Some(false),
                ..NewServer::named("Own NAS", "https://nas.lan/opds")
            },
        )
        .unwrap();
        assert!(!revoked.trust_self_signed);
        assert_eq!(
            list(&s)
                .unwrap()
                .iter()
                .filter(|v| v.trust_self_signed)
                .count(),
            0
        );
        let refused = s.execute(
            "UPDATE servers SET trust_self_signed = 2 WHERE id = ?1",
            [own.id],
        );
        assert!(refused.is_err(), "the column holds a yes or a no only");
    }

    #[test]
    fn two_data_dirs_never_share_a_secret() {
        let t = tempfile::tempdir().unwrap();
        let one = Store::open(
            &DataDir::new(t.path().join("one")),
            Arc::new(ManualClock::new(0)),
        )
        .unwrap();
        let two = Store::open(
            &DataDir::new(t.path().join("two")),
            Arc::new(ManualClock::new(0)),
        )
        .unwrap();
        let c1 = Credentials::file_only(one.data_dir(), "test");
        let c2 = Credentials::file_only(two.data_dir(), "test");
        assert_ne!(c1.server_account(1), c2.server_account(1));
        // And an installation keeps its id across restarts.
        assert_eq!(
            c1.server_account(1),
            Credentials::file_only(one.data_dir(), "test").server_account(1)
        );
    }

    #[test]
    fn an_invalid_server_saves_nothing() {
        let (_t, s) = store();
        assert!(add(&s, &NewServer::named("Bad", "not a url")).is_err());
        assert!(list(&s).unwrap().is_empty());
    }
}
