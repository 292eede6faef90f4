//! What wakes a wait for something another part of Carrel stores (a page the reader's window
//! waits for): a count, watched with [`Store::changes`].
//!
//! - In this process, whoever stores what may be waited for says so with
//!   [`Store::wake_waiters`] once it is stored and reported: the executor, for every page or
//!   file it stores (and every task it settles). A waiter wakes at once, and finds the
//!   executor's own report of the page already made.
//! - Another process's commits (another Carrel holding the executor lease, `carrel-cli sync`)
//!   are seen the way the download stack already learns of another process's pushes: by a
//!   small read of the database, one for the whole store however many wait — SQLite's
//!   `PRAGMA data_version` on this store's writer connection, which changes when another
//!   connection commits and never for this store's own writes — every [`OUTSIDE_LOOK`], made
//!   by one thread that runs only while someone watches.
//!
//! A waiter subscribes **before** it first looks at what it waits for, then looks again after
//! every wake: a commit made between its look and its wait is never missed. Wakes carry no
//! meaning of their own (many are for other books); the look decides.
//!
//! [`Store::changes`]: crate::store::Store::changes
//! [`Store::wake_waiters`]: crate::store::Store::wake_waiters

use std::sync::{Arc, Mutex};
use std::time::Duration;

use tokio::sync::watch;

/// How often another process's commits are looked for while someone watches.
pub const OUTSIDE_LOOK: Duration = Duration::from_millis(4);

/// The count of commits, and whether the thread that sees other processes' runs.
pub(crate) struct Changes {
    count: Arc<watch::Sender<u64>>,
    watching: Arc<Mutex<bool>>,
}

impl Changes {
    pub(crate) fn new() -> Changes {
        Changes {
            count: Arc::new(watch::Sender::new(0)),
            watching: Arc::new(Mutex::new(false)),
        }
    }

    /// Something may have been stored (said in this process, or another process's commit seen
    /// by the watcher).
    pub(crate) fn committed(&self) {
        self.count.send_modify(|n| *n = n.wrapping_add(1));
    }

    /// A receiver of the count; the watcher of other processes' commits started if none runs,
    /// reading `data_version` (the store's `PRAGMA data_version`) every [`OUTSIDE_LOOK`].
    pub(crate) fn subscribe(
        &self,
        data_version: impl Fn() -> Option<i64> + Send + 'static,
    ) -> watch::Receiver<u64> {
        let receiver = self.count.subscribe();
        let mut watching = lock(&self.watching);
        if !*watching {
            let count = self.count.clone();
            let flag = self.watching.clone();
            // Read before the receiver is handed out: a commit made after this call returns is
            // seen however late the thread starts.
            let seen = data_version();
            let started = std::thread::Builder::new()
                .name("carrel-db-changes".into())
                .spawn(move || watch_outside(&count, &flag, data_version, seen));
            match started {
                Ok(_) => *watching = true,
                // This process's commits still wake; another's are then seen only by a look a
                // waiter makes for a reason of its own.
                Err(e) => tracing::warn!(cause = %e, "cannot watch other processes' commits"),
            }
        }
        receiver
    }

    #[cfg(test)]
    pub(crate) fn is_watching(&self) -> bool {
        *lock(&self.watching)
    }
}

fn lock(m: &Mutex<bool>) -> std::sync::MutexGuard<'_, bool> {
    m.lock().unwrap_or_else(|p| p.into_inner())
}

/// The watcher of other processes' commits: runs while anyone holds a receiver.
fn watch_outside(
    count: &watch::Sender<u64>,
    watching: &Mutex<bool>,
    data_version: impl Fn() -> Option<i64>,
    mut seen: Option<i64>,
) {
    loop {
        std::thread::sleep(OUTSIDE_LOOK);
        {
            let mut running = lock(watching);
            if count.receiver_count() == 0 {
                *running = false;
                return;
            }
        }
        let now = data_version();
        if now != seen {
            seen = now;
            count.send_modify(|n| *n = n.wrapping_add(1));
        }
    }
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use crate::clock::SystemClock;
    use crate::data_dir::DataDir;
    use crate::store::{Store, StoreError};

    fn open(dir: &tempfile::TempDir) -> Store {
        Store::open(&DataDir::new(dir.path()), Arc::new(SystemClock)).unwrap()
    }

    fn commit(store: &Store) {
        store
            .write(|tx| {
                tx.execute_batch("CREATE TABLE IF NOT EXISTS t (x); INSERT INTO t VALUES (1)")
                    .map_err(|e| store.sql_error(e))?;
                Ok::<_, StoreError>(())
            })
            .unwrap();
    }

    #[test]
    fn a_wake_in_this_process_is_a_change_at_once() {
        let dir = tempfile::tempdir().unwrap();
        let store = open(&dir);
        let changes = store.changes();
        commit(&store);
        assert!(!changes.has_changed().unwrap());
        store.wake_waiters();
        // No wait at all: the wake itself marked it.
        assert!(changes.has_changed().unwrap());
    }

    #[test]
    fn this_stores_own_commits_are_not_seen_as_another_process() {
        let dir = tempfile::tempdir().unwrap();
        let store = open(&dir);
        let before = store.data_version();
        commit(&store);
        assert_eq!(store.data_version(), before);
        commit(&open(&dir));
        assert_ne!(store.data_version(), before);
    }

    #[tokio::test]
    async fn another_process_commit_is_a_change_soon_after() {
        let dir = tempfile::tempdir().unwrap();
        let store = open(&dir);
        let other = open(&dir);
        let mut changes = store.changes();
        commit(&other);
        tokio::time::timeout(std::time::Duration::from_secs(30), changes.changed())
            .await
            .expect("seen")
            .unwrap();
    }

    #[test]
    fn the_watcher_of_other_processes_stops_when_no_one_watches() {
        let dir = tempfile::tempdir().unwrap();
        let store = open(&dir);
        drop(store.changes());
        let deadline = std::time::Instant::now() + std::time::Duration::from_secs(30);
        while store.changes_of().is_watching() {
            assert!(std::time::Instant::now() < deadline, "the watcher stopped");
            std::thread::sleep(super::OUTSIDE_LOOK);
        }
    }
}
