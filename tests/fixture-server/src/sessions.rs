//! Session mode: the fixture signs a client in the way Codex, Komga and Calibre-Web do — a
//! Basic password checked with a deliberately slow hash, then a `sessionid` cookie the client
//! may send instead. Counts password checks (shown on `/_stats`) so tests can tell a client
//! that keeps its session from one that sends the password every time.
//!
//! Owns the session table and the password-check counter; knows nothing of routes.

use std::collections::HashMap;
use std::hash::{DefaultHasher, Hash, Hasher};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Mutex;

/// How many rounds the slow hash runs: slow enough to be a real cost, as a server's is.
const HASH_ROUNDS: u32 = 20_000;

#[derive(Default)]
pub(crate) struct Sessions {
    /// Session id → requests it has answered.
    live: Mutex<HashMap<String, u32>>,
    password_checks: AtomicU64,
    next: AtomicU64,
}

impl Sessions {
    /// Checks a password the slow way, counting the check.
    pub(crate) fn check_password(&self, given: &[u8], expected: &[u8]) -> bool {
        self.password_checks.fetch_add(1, Ordering::Relaxed);
        slow_hash(given) == slow_hash(expected)
    }

    pub(crate) fn password_checks(&self) -> u64 {
        self.password_checks.load(Ordering::Relaxed)
    }

    /// A new session id.
    pub(crate) fn open(&self) -> String {
        let n = self.next.fetch_add(1, Ordering::Relaxed);
        let id = format!("s{n:08x}{:016x}", slow_hash(&n.to_le_bytes()));
        self.live
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .insert(id.clone(), 0);
        id
    }

    /// Whether the `Cookie` header carries a live session; a session that answered
    /// `max_uses` requests expires.
    pub(crate) fn accept(&self, cookie_header: &str, max_uses: Option<u32>) -> bool {
        let Some(id) = cookie_header
            .split(';')
            .filter_map(|c| c.trim().split_once('='))
            .find(|(name, _)| *name == "sessionid")
            .map(|(_, v)| v.to_string())
        else {
            return false;
        };
        let mut live = self.live.lock().unwrap_or_else(|p| p.into_inner());
        match live.get_mut(&id) {
            Some(uses) if max_uses.is_none_or(|m| *uses < m) => {
                *uses += 1;
                true
            }
            Some(_) => {
                live.remove(&id);
                false
            }
            None => false,
        }
    }
}

fn slow_hash(bytes: &[u8]) -> u64 {
    let mut h = 0u64;
    for round in 0..HASH_ROUNDS {
        let mut s = DefaultHasher::new();
        (h, round, bytes).hash(&mut s);
        h = s.finish();
    }
    h
}
