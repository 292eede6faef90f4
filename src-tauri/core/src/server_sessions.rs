//! Sessions servers give after a password was accepted, so the password is not sent (and
//! checked with the server's slow hash) on every request: Codex's `sessionid` cookie, Komga's
//! `KOMGA-SESSION` / `SESSION` cookie, an `X-Auth-Token` header.
//!
//! A session is a credential: kept in this process's memory only, never logged (no `Debug` of
//! its value), sent only to the origin it came from, and only while the password it was won
//! with is still the server's (a changed password or a removed server drops it). A refused
//! session is dropped and the password sent once, the new session kept.
//!
//! Owns the in-memory session table; knows nothing of the secret store or of requests' bodies.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use reqwest::header::{self, HeaderMap, HeaderValue};
use url::Url;

use crate::credentials::Secret;

/// The cookies that carry a session on the servers Carrel knows.
const SESSION_COOKIES: &[&str] = &["sessionid", "KOMGA-SESSION", "SESSION", "remember-me", "session"];

struct Session {
    origin: String,
    /// The password the session was won with: another password means another session.
    won_with: Secret,
    cookie: Option<String>,
    auth_token: Option<String>,
}

/// Sessions per server id, shared by the clones of an [`crate::http_fetch::HttpClient`].
#[derive(Clone, Default)]
pub struct ServerSessions {
    table: Arc<Mutex<HashMap<i64, Session>>>,
}

impl std::fmt::Debug for ServerSessions {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ServerSessions").field("servers", &self.lock().len()).finish()
    }
}

/// What to send instead of the password.
pub struct SessionHeaders {
    pub cookie: Option<String>,
    pub auth_token: Option<String>,
}

impl ServerSessions {
    fn lock(&self) -> std::sync::MutexGuard<'_, HashMap<i64, Session>> {
        self.table.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// The session to send to `url` of server `server_id`, if one is kept for its origin and
    /// was won with `secret`.
    pub fn for_request(&self, server_id: i64, url: &Url, secret: &Secret) -> Option<SessionHeaders> {
        let mut table = self.lock();
        let session = table.get(&server_id)?;
        if session.won_with.expose() != secret.expose() {
            table.remove(&server_id);
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
            .filter(|(name, value)| !value.is_empty() && SESSION_COOKIES.iter().any(|s| s.eq_ignore_ascii_case(name)))
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
        self.lock().insert(
            server_id,
            Session {
                origin: url.origin().ascii_serialization(),
                won_with: secret.clone(),
                cookie: (!cookies.is_empty()).then(|| cookies.join("; ")),
                auth_token,
            },
        );
    }

    /// Drops the server's session (it was refused, the password changed, the server went).
    pub fn forget(&self, server_id: i64) {
        self.lock().remove(&server_id);
    }
}

impl SessionHeaders {
    /// Adds the session to a request.
    pub fn apply(&self, mut request: reqwest::RequestBuilder) -> reqwest::RequestBuilder {
        if let Some(c) = self.cookie.as_deref().and_then(|c| HeaderValue::from_str(c).ok()) {
            request = request.header(header::COOKIE, c);
        }
        if let Some(t) = self.auth_token.as_deref().and_then(|t| HeaderValue::from_str(t).ok()) {
            request = request.header("x-auth-token", t);
        }
        request
    }
}
