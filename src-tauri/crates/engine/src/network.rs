//! What the network lets downloads do. A watcher of the system's network (see
//! [`crate::network_watch`], NetworkManager on Linux desktops) records here whether the
//! link is up and whether it is metered; the executor reads it at every claim:
//!
//! - on a metered link, downloads wait unless the reader allows them — the setting
//!   [`MeteredDownloads`]: `never`, `ask` (they wait until the reader says "download anyway",
//!   which holds until the link changes) or `always`;
//! - when the link comes back (or stops being metered), the executor wakes at once and tries
//!   servers in backoff again instead of waiting out a backoff of up to five minutes (the state
//!   is part of what the executor watches).
//!
//! The state names the process that observed it; a state whose process has died counts for
//! nothing, so a crashed app never leaves `carrel-cli sync` held. Without a watcher (no
//! NetworkManager) nothing is recorded and downloads run as they always did.
//!
//! Owns the `network.state` setting row (one observation per watching process); the reader's
//! [`MeteredDownloads`] is a setting of the settings page.

use serde::{Deserialize, Serialize};

use carrel_foundation::process_holders;
use carrel_foundation::store::{Store, StoreError};
pub use carrel_library::settings::MeteredDownloads;
use carrel_library::settings::{self, Setting};

/// The network as one watcher last observed it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct NetworkState {
    /// Connectivity to the internet (or unknown, which counts as up).
    pub online: bool,
    /// The link is metered (for sure or by the system's guess).
    pub metered: bool,
    /// The reader allowed downloads on this metered link ("download anyway").
    pub allowed: bool,
    /// The process watching the network (a holder id).
    pub observer: String,
    /// When the link last changed (unix ms).
    pub since_ms: i64,
}

/// What every watching process saw (the app and `carrel-cli sync` may both watch): each keeps
/// its own, so one that stops never takes another's away.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
struct Observations(Vec<NetworkState>);

impl Setting for Observations {
    const KEY: &'static str = "network.state";
}

/// Why downloads wait for the network, in the reader's words.
pub const METERED_HOLD: &str = "this connection is metered";

fn observations(store: &Store) -> Result<Vec<NetworkState>, StoreError> {
    Ok(settings::get::<Observations>(store)?.unwrap_or_default().0)
}

/// The network as the live watchers see it, the latest change first; `None` without one.
pub fn current(store: &Store) -> Result<Option<NetworkState>, StoreError> {
    Ok(observations(store)?
        .into_iter()
        .filter(|s| !process_holders::holder_is_dead(&s.observer))
        .max_by_key(|s| s.since_ms))
}

/// Records what the watcher `observer` sees. A change of the link (up/down, metered or not)
/// forgets a "download anyway" given for the link before. Returns whether anything changed.
pub fn observe(
    store: &Store,
    observer: &str,
    online: bool,
    metered: bool,
) -> Result<bool, StoreError> {
    let mut all = observations(store)?;
    // Watchers that died count no more.
    all.retain(|s| !process_holders::holder_is_dead(&s.observer));
    let mine = all.iter().position(|s| s.observer == observer);
    if let Some(m) = mine.map(|i| &all[i]) {
        if m.online == online && m.metered == metered {
            return Ok(false);
        }
    }
    // The allowance holds while the link is the same metered one (another watcher may have
    // seen it first).
    let same_link = |s: &NetworkState| s.allowed && s.metered && metered && s.online == online;
    let allowed = match mine {
        Some(i) => same_link(&all[i]),
        None => all.iter().any(same_link),
    };
    let state = NetworkState {
        online,
        metered,
        allowed,
        observer: observer.to_owned(),
        since_ms: store.now_ms(),
    };
    match mine {
        Some(i) => all[i] = state,
        None => all.push(state),
    }
    settings::set(store, &Observations(all))?;
    tracing::info!(online, metered, "the network changed");
    Ok(true)
}

/// The watcher `observer` stops: what it saw no longer counts.
pub fn forget(store: &Store, observer: &str) -> Result<(), StoreError> {
    let mut all = observations(store)?;
    let before = all.len();
    all.retain(|s| s.observer != observer);
    if all.len() != before {
        if all.is_empty() {
            settings::remove::<Observations>(store)?;
        } else {
            settings::set(store, &Observations(all))?;
        }
    }
    Ok(())
}

/// "Download anyway": downloads run on this metered link until it changes. `false` when the
/// link is not metered (nothing to allow).
pub fn allow_metered(store: &Store) -> Result<bool, StoreError> {
    if !current(store)?.is_some_and(|s| s.metered) {
        return Ok(false);
    }
    let mut all = observations(store)?;
    for s in all.iter_mut().filter(|s| s.metered) {
        s.allowed = true;
    }
    settings::set(store, &Observations(all))?;
    Ok(true)
}

/// Why downloads wait for the network now, if they do.
pub fn hold(store: &Store) -> Result<Option<&'static str>, StoreError> {
    match current(store)? {
        Some(state) => hold_on(store, &state),
        None => Ok(None),
    }
}

/// Why downloads wait on the link `state`, the reader's setting read only when it is metered.
fn hold_on(store: &Store, state: &NetworkState) -> Result<Option<&'static str>, StoreError> {
    if !state.metered {
        return Ok(None);
    }
    let policy = settings::get::<MeteredDownloads>(store)?.unwrap_or_default();
    Ok(match policy {
        MeteredDownloads::Always => None,
        MeteredDownloads::Ask if state.allowed => None,
        MeteredDownloads::Ask | MeteredDownloads::Never => Some(METERED_HOLD),
    })
}

/// What the executor watches of the network: the link and whether downloads wait for it (the
/// reader's setting included). A change wakes it (see the module docs).
pub fn watched(store: &Store) -> Result<Option<(bool, bool, bool)>, StoreError> {
    let Some(state) = current(store)? else {
        return Ok(None);
    };
    let held = hold_on(store, &state)?.is_some();
    Ok(Some((state.online, state.metered, held)))
}
