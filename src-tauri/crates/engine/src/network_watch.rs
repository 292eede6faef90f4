//! Watching the system's network through NetworkManager on D-Bus (Linux desktops): its
//! `Connectivity` and `Metered` properties, read at start and followed through
//! `PropertiesChanged`, recorded in [`crate::network`] for the executor of any process.
//!
//! NetworkManager lives on the system bus; `CARREL_NETWORK_BUS` names another bus address (the
//! tests run a NetworkManager of their own on a private bus). Without NetworkManager the watcher
//! says so once and stops: nothing is recorded and downloads run as they always did.
//!
//! Runs on a thread of its own: libdbus calls block.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::thread::JoinHandle;
use std::time::Duration;

use dbus::arg::{PropMap, RefArg};
use dbus::blocking::stdintf::org_freedesktop_dbus::{Properties, PropertiesPropertiesChanged};
use dbus::blocking::Connection;
use dbus::message::SignalArgs;

use crate::network;
use carrel_foundation::process_holders;
use carrel_foundation::store::Store;

/// Where NetworkManager answers.
pub const SERVICE: &str = "org.freedesktop.NetworkManager";
pub const PATH: &str = "/org/freedesktop/NetworkManager";
pub const INTERFACE: &str = "org.freedesktop.NetworkManager";
/// The environment variable naming another bus than the system's.
pub const BUS_VARIABLE: &str = "CARREL_NETWORK_BUS";

/// How long one call to NetworkManager may take.
const CALL_TIMEOUT: Duration = Duration::from_secs(2);
/// How often the thread looks at its stop flag.
const TICK: Duration = Duration::from_millis(200);

/// `NMMetered`: 1 yes, 3 guessed yes (0 unknown, 2 no, 4 guessed no).
fn is_metered(value: u32) -> bool {
    matches!(value, 1 | 3)
}

/// `NMConnectivityState`: 1 none, 2 portal, 3 limited are not online; 4 full and 0 unknown
/// (NetworkManager does not check) are.
fn is_online(value: u32) -> bool {
    matches!(value, 0 | 4)
}

/// A running watcher; stopping it (or dropping it) forgets what it recorded.
pub struct NetworkWatch {
    stop: Arc<AtomicBool>,
    thread: Option<JoinHandle<()>>,
    /// Whether NetworkManager answered (`None` until the first look).
    found: Arc<Mutex<Option<bool>>>,
}

impl NetworkWatch {
    /// Starts watching on the system bus, or on `CARREL_NETWORK_BUS` when it is set.
    pub fn start(store: Store) -> NetworkWatch {
        let address = std::env::var(BUS_VARIABLE).ok().filter(|a| !a.is_empty());
        Self::start_on(store, address)
    }

    /// Starts watching on the bus at `address` (the system bus when `None`).
    pub fn start_on(store: Store, address: Option<String>) -> NetworkWatch {
        let stop = Arc::new(AtomicBool::new(false));
        let found = Arc::new(Mutex::new(None));
        let observer = process_holders::new_holder_id("network");
        let thread = {
            let (stop, found) = (stop.clone(), found.clone());
            std::thread::Builder::new()
                .name("carrel-network".into())
                .spawn(move || {
                    let outcome = watch(&store, &observer, address.as_deref(), &stop, &found);
                    if let Err(e) = outcome {
                        tracing::info!(cause = %e, "no NetworkManager to ask about the network; downloads do not follow it");
                        set(&found, false);
                    }
                    if let Err(e) = network::forget(&store, &observer) {
                        tracing::warn!(cause = %e, "could not forget the network's state");
                    }
                })
                .ok()
        };
        NetworkWatch {
            stop,
            thread,
            found,
        }
    }

    /// Whether NetworkManager answered; `None` while the watcher has not looked yet.
    pub fn found(&self) -> Option<bool> {
        *self.found.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// Stops watching and forgets what was recorded.
    pub fn stop(mut self) {
        self.halt();
    }

    fn halt(&mut self) {
        self.stop.store(true, Ordering::SeqCst);
        if let Some(thread) = self.thread.take() {
            let _ = thread.join();
        }
    }
}

impl Drop for NetworkWatch {
    fn drop(&mut self) {
        self.halt();
    }
}

fn set(found: &Mutex<Option<bool>>, value: bool) {
    *found.lock().unwrap_or_else(|p| p.into_inner()) = Some(value);
}

fn watch(
    store: &Store,
    observer: &str,
    address: Option<&str>,
    stop: &AtomicBool,
    found: &Mutex<Option<bool>>,
) -> Result<(), dbus::Error> {
    let conn = match address {
        Some(address) => Connection::new_address(address)?,
        None => Connection::new_system()?,
    };
    let proxy = conn.with_proxy(SERVICE, PATH, CALL_TIMEOUT);
    let mut metered = is_metered(proxy.get::<u32>(INTERFACE, "Metered")?);
    let mut online = is_online(proxy.get::<u32>(INTERFACE, "Connectivity")?);
    // Recorded before it says it found NetworkManager: whoever waits for the first look then
    // reads what it saw.
    record(store, observer, online, metered);
    set(found, true);
    // Changes, as NetworkManager announces them.
    let changes: Arc<Mutex<Vec<PropMap>>> = Arc::new(Mutex::new(Vec::new()));
    let rule = PropertiesPropertiesChanged::match_rule(Some(&SERVICE.into()), Some(&PATH.into()))
        .static_clone();
    {
        let changes = changes.clone();
        conn.add_match(
            rule,
            move |signal: PropertiesPropertiesChanged, _: &Connection, _: &dbus::Message| {
                if signal.interface_name == INTERFACE {
                    changes
                        .lock()
                        .unwrap_or_else(|p| p.into_inner())
                        .push(signal.changed_properties);
                }
                true
            },
        )?;
    }
    while !stop.load(Ordering::SeqCst) {
        conn.process(TICK)?;
        let pending = std::mem::take(&mut *changes.lock().unwrap_or_else(|p| p.into_inner()));
        if pending.is_empty() {
            continue;
        }
        for props in pending {
            if let Some(v) = props.get("Metered").and_then(|v| v.0.as_u64()) {
                metered = is_metered(v as u32);
            }
            if let Some(v) = props.get("Connectivity").and_then(|v| v.0.as_u64()) {
                online = is_online(v as u32);
            }
        }
        record(store, observer, online, metered);
    }
    Ok(())
}

fn record(store: &Store, observer: &str, online: bool, metered: bool) {
    if let Err(e) = network::observe(store, observer, online, metered) {
        tracing::warn!(cause = %e, "could not record the network's state");
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn network_manager_values_read_as_nm_defines_them() {
        assert!(is_metered(1) && is_metered(3));
        assert!(!is_metered(0) && !is_metered(2) && !is_metered(4));
        assert!(is_online(4) && is_online(0));
        assert!(!is_online(1) && !is_online(2) && !is_online(3));
    }
}
