//! Sessions servers give after a password was accepted, so the password is not sent (and
//! checked with the server's slow hash) on every request: Codex's `sessionid` cookie, Komga's
//! `KOMGA-SESSION` / `SESSION` cookie, an `X-Auth-Token` header.
//!
//! A session is a credential: kept in this process's memory and, where the client was given
//! the installation's secret store ([`ServerSessions::keep_in`]), in that store too — the OS
//! keyring or the 0600 secrets file, never SQLite — so the next process (the CLI, the app
//! started again) signs in without the password. Never logged (no `Debug` of its value), sent
//! only to the origin it came from, and only while the password it was won with is still the
//! server's: the record keeps a SHA-256 of that password, never the password, and a changed
//! password or a removed server deletes the record. A refused session is dropped (in memory and
//! in the store) and the password sent once, the new session kept.
//!
//! Owns the session table and its records in the secret store; knows nothing of requests'
//! bodies.

use std::collections::{HashMap, HashSet};
use std::sync::{Arc, Mutex};

use reqwest::header::{self, HeaderMap, HeaderValue};
use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};
use url::Url;

use crate::credentials::{Credentials, Secret};

/// The cookies that carry a session on the servers Carrel knows.
const SESSION_COOKIES: &[&str] = &[
    "sessionid",
    "KOMGA-SESSION",
    "SESSION",
    "remember-me",
    "session",
];

/// A session, as kept in memory and (as JSON) in the secret store.
#[derive(Clone, Serialize, Deserialize)]
struct Session {
    origin: String,
    /// SHA-256 of the password the session was won with: another password, another session.
    won_with: String,
    cookie: Option<String>,
    auth_token: Option<String>,
}

fn fingerprint(secret: &Secret) -> String {
    Sha256::digest(secret.expose().as_bytes())
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect()
}

/// Sessions per server id, shared by the clones of an `carrel_http::http_fetch::HttpClient`.
#[derive(Clone, Default)]
pub struct ServerSessions {
    table: Arc<Mutex<HashMap<i64, Session>>>,
    /// Where sessions outlive this process, when given.
    store: Option<Arc<Credentials>>,
    /// Servers whose kept record was already looked for by this process.
    looked: Arc<Mutex<HashSet<i64>>>,
}

impl std::fmt::Debug for ServerSessions {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ServerSessions")
            .field("servers", &self.lock().len())
            .finish()
    }
}

/// What to send instead of the password.
pub struct SessionHeaders {
    pub cookie: Option<String>,
    pub auth_token: Option<String>,
}

impl ServerSessions {
    /// Sessions that outlive this process: kept in (and read back from) this secret store.
    pub fn keep_in(credentials: Arc<Credentials>) -> ServerSessions {
        ServerSessions {
            store: Some(credentials),
            ..Default::default()
        }
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, HashMap<i64, Session>> {
        self.table.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// The record another process (or an earlier run) kept, read once per server.
    fn load_kept(&self, server_id: i64) {
        let Some(store) = &self.store else { return };
        if !self
            .looked
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .insert(server_id)
        {
            return;
        }
        match store.get(&store.session_account(server_id)) {
            Ok(Some(record)) => match serde_json::from_str::<Session>(record.expose()) {
                Ok(session) => {
                    self.lock().entry(server_id).or_insert(session);
                }
                Err(_) => tracing::warn!(
                    server = server_id,
                    "a kept session could not be read; signing in again"
                ),
            },
            Ok(None) => {}
            Err(e) => {
                tracing::warn!(server = server_id, cause = %e, "kept sessions cannot be read; signing in with the password")
            }
        }
    }

    /// The session to send to `url` of server `server_id`, if one is kept for its origin and
    /// was won with `secret`.
    pub fn for_request(
        &self,
        server_id: i64,
        url: &Url,
        secret: &Secret,
    ) -> Option<SessionHeaders> {
        self.load_kept(server_id);
        let mut table = self.lock();
        let session = table.get(&server_id)?;
        if session.won_with != fingerprint(secret) {
            table.remove(&server_id);
            drop(table);
            self.delete_kept(server_id);
            return None;
        }
        if session.origin != url.origin().ascii_serialization() {
            return None;
        }
        Some(SessionHeaders {
            cookie: session.cookie.clone(),
            auth_token: session.auth_token.clone(),
        })
    }

    /// Keeps the session a response to a password-signed request to `url` carries, if any.
    pub fn keep_from(&self, server_id: i64, url: &Url, secret: &Secret, headers: &HeaderMap) {
        let cookies: Vec<String> = headers
            .get_all(header::SET_COOKIE)
            .iter()
            .filter_map(|v| v.to_str().ok())
            .filter_map(|v| v.split(';').next())
            .filter_map(|pair| pair.trim().split_once('='))
            .filter(|(name, value)| {
                !value.is_empty() && SESSION_COOKIES.iter().any(|s| s.eq_ignore_ascii_case(name))
            })
            .map(|(name, value)| format!("{name}={value}"))
            .collect();
        let auth_token = headers
            .get("x-auth-token")
            .and_then(|v| v.to_str().ok())
            .filter(|v| !v.is_empty())
            .map(str::to_owned);
        if cookies.is_empty() && auth_token.is_none() {
            return;
        }
        let session = Session {
            origin: url.origin().ascii_serialization(),
            won_with: fingerprint(secret),
            cookie: (!cookies.is_empty()).then(|| cookies.join("; ")),
            auth_token,
        };
        if let Some(store) = &self.store {
            let record = serde_json::to_string(&session).expect("a session serialises to JSON");
            if let Err(e) = store.set(&store.session_account(server_id), &Secret::new(record)) {
                tracing::warn!(server = server_id, cause = %e, "the session is kept for this run only");
            }
        }
        self.lock().insert(server_id, session);
    }

    /// Drops the server's session (it was refused, the password changed, the server went).
    pub fn forget(&self, server_id: i64) {
        self.lock().remove(&server_id);
        self.delete_kept(server_id);
    }

    fn delete_kept(&self, server_id: i64) {
        if let Some(store) = &self.store {
            if let Err(e) = store.delete(&store.session_account(server_id)) {
                tracing::warn!(server = server_id, cause = %e, "a refused session could not be deleted from the secret store");
            }
        }
    }
}

impl SessionHeaders {
    /// Adds the session to a request.
    pub fn apply(&self, mut request: reqwest::RequestBuilder) -> reqwest::RequestBuilder {
        if let Some(c) = self
            .cookie
            .as_deref()
            .and_then(|c| HeaderValue::from_str(c).ok())
        {
            request = request.header(header::COOKIE, c);
        }
        if let Some(t) = self
            .auth_token
            .as_deref()
            .and_then(|t| HeaderValue::from_str(t).ok())
        {
            request = request.header("x-auth-token", t);
        }
        request
    }
}
