//! Sign-in sessions, as Codex, Komga and most servers keep them: a request that passes the
//! (deliberately slow) password check gets a session cookie, and later requests that carry it
//! are let in without the password being checked again.
//!
//! Codex (Django) answers a successful Basic sign-in with `Set-Cookie: sessionid=…; HttpOnly;
//! Path=/` and checks passwords with PBKDF2 (Django's default hasher, hundreds of thousands of
//! iterations): every password check costs the server real CPU, which is what this module
//! counts (`Stats::password_checks`). Sessions can be expired at will to test the way back.

use std::collections::HashSet;
use std::sync::Mutex;

use crate::state::lock;

/// The cookie's name, Django's (and so Codex's) default.
pub(crate) const COOKIE: &str = "sessionid";

#[derive(Default)]
pub(crate) struct Sessions {
    inner: Mutex<Inner>,
}

#[derive(Default)]
struct Inner {
    live: HashSet<String>,
    made: u64,
    password_checks: u64,
}

impl Sessions {
    /// Counts one password check (a Basic `Authorization` compared with the password).
    pub(crate) fn password_checked(&self) {
        lock(&self.inner).password_checks += 1;
    }

    pub(crate) fn password_checks(&self) -> u64 {
        lock(&self.inner).password_checks
    }

    /// A new session after a successful sign-in; the value goes in `Set-Cookie`.
    pub(crate) fn open(&self) -> String {
        let mut inner = lock(&self.inner);
        inner.made += 1;
        let id = format!("s{:016x}{:08x}", crate::util::now_unix().wrapping_mul(0x9e37_79b9_7f4a_7c15), inner.made);
        inner.live.insert(id.clone());
        id
    }

    /// Whether the request's `Cookie` header holds a live session.
    pub(crate) fn is_live(&self, cookie_header: &str) -> bool {
        let inner = lock(&self.inner);
        cookie_header
            .split(';')
            .filter_map(|pair| pair.trim().split_once('='))
            .any(|(name, value)| name == COOKIE && inner.live.contains(value))
    }

    /// Forgets every session (as a server restart or an expiry would).
    pub(crate) fn expire_all(&self) {
        lock(&self.inner).live.clear();
    }

    pub(crate) fn reset_counts(&self) {
        lock(&self.inner).password_checks = 0;
    }
}
