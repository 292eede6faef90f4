//! The executor lease: the one row that says which process consumes the download stack.
//!
//! Exactly one holder at a time across every window and process sharing a data dir. The lease
//! has a holder id, an expiry kept fresh by the holder's heartbeat, and an **epoch** that
//! increments at every acquisition by a new holder. Every write the executor makes is fenced by
//! its [`Fence`] (holder + epoch): when the row no longer matches, the write is refused with
//! [`LeaseLost`] and the executor stops without touching the task.
//!
//! Owns the `executor_lease` table; knows nothing of tasks or HTTP.

use rusqlite::{params, Transaction};
use serde::Serialize;

use carrel_foundation::process_holders::holder_is_dead;
use carrel_foundation::store::{Store, StoreError};

/// Default time a lease stays valid without a heartbeat.
pub const DEFAULT_TTL_MS: i64 = 10_000;
/// Default heartbeat period.
pub const DEFAULT_HEARTBEAT_MS: i64 = 2_000;

/// The lease was taken over (or released) since it was acquired: the caller must stop.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("the executor lease was lost (epoch {epoch} is no longer current)")]
pub struct LeaseLost {
    pub epoch: i64,
}

#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum LeaseError {
    #[error(transparent)]
    Lost(#[from] LeaseLost),
    #[error(transparent)]
    Store(#[from] StoreError),
}

impl carrel_foundation::error::Failure for LeaseError {
    /// A lost lease, a task in another state or a disk that failed: this device's storage.
    fn kind(&self) -> carrel_foundation::error::ErrorKind {
        carrel_foundation::error::ErrorKind::Storage
    }
}

/// Proof of holding the lease at a given epoch. Cheap to clone.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Fence {
    pub holder: String,
    pub epoch: i64,
}

impl Fence {
    /// Inside a write transaction: fails with [`LeaseLost`] unless this fence is still current.
    pub fn check(&self, tx: &Transaction<'_>) -> Result<(), FenceError> {
        if self.is_current(tx).map_err(FenceError::Sql)? {
            Ok(())
        } else {
            Err(FenceError::Lost(LeaseLost { epoch: self.epoch }))
        }
    }
}

impl Fence {
    /// Whether this fence still holds the lease, read on `c` (a write transaction's, for
    /// [`Fence::check`]; a read's, for a look that makes no transaction).
    pub fn is_current(&self, c: &rusqlite::Connection) -> rusqlite::Result<bool> {
        c.prepare_cached(
            "SELECT EXISTS (SELECT 1 FROM executor_lease WHERE id = 1 AND holder = ?1 AND epoch = ?2)",
        )?
        .query_row(params![self.holder, self.epoch], |r| r.get(0))
    }
}

/// What a fenced write can meet inside its transaction.
#[derive(Debug)]
pub enum FenceError {
    Lost(LeaseLost),
    Sql(rusqlite::Error),
}

/// The lease row as it stands.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct LeaseInfo {
    pub holder: Option<String>,
    pub epoch: i64,
    pub expires_at_ms: i64,
}

impl LeaseInfo {
    /// Whether somebody holds an unexpired lease at `now`.
    pub fn is_held_at(&self, now_ms: i64) -> bool {
        self.holder.is_some() && self.expires_at_ms > now_ms
    }
}

/// The outcome of [`try_acquire`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Acquire {
    /// We hold the lease. `took_over` is true when the previous holder's lease had expired
    /// without being released — its active tasks must be reconciled.
    Acquired { fence: Fence, took_over: bool },
    /// Somebody else holds it until `expires_at_ms`.
    Held { holder: String, expires_at_ms: i64 },
}

pub fn current(store: &Store) -> Result<LeaseInfo, StoreError> {
    store
        .read(|c| {
            c.query_row(
                "SELECT holder, epoch, expires_at_ms FROM executor_lease WHERE id = 1",
                [],
                |r| {
                    Ok(LeaseInfo {
                        holder: r.get(0)?,
                        epoch: r.get(1)?,
                        expires_at_ms: r.get(2)?,
                    })
                },
            )
        })
        .map_err(|e| store.sql_error(e))
}

/// Takes the lease if it is free, released or expired; atomically (`BEGIN IMMEDIATE`).
pub fn try_acquire(store: &Store, holder: &str, ttl_ms: i64) -> Result<Acquire, StoreError> {
    let now = store.now_ms();
    store.write(|tx| {
        let row: (Option<String>, i64, i64) = tx
            .query_row(
                "SELECT holder, epoch, expires_at_ms FROM executor_lease WHERE id = 1",
                [],
                |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)),
            )
            .map_err(|e| store.sql_error(e))?;
        let (current_holder, epoch, expires) = row;
        match current_holder {
            Some(h) if h == holder && expires > now => {
                // Already ours: just extend.
                tx.execute(
                    "UPDATE executor_lease SET expires_at_ms = ?1 WHERE id = 1",
                    [now + ttl_ms],
                )
                .map_err(|e| store.sql_error(e))?;
                Ok(Acquire::Acquired {
                    fence: Fence { holder: h, epoch },
                    took_over: false,
                })
            }
            Some(h) if expires > now && !holder_is_dead(&h) => Ok(Acquire::Held {
                holder: h,
                expires_at_ms: expires,
            }),
            previous => {
                let new_epoch = epoch + 1;
                tx.execute(
                    "UPDATE executor_lease SET holder = ?1, epoch = ?2, expires_at_ms = ?3 WHERE id = 1",
                    params![holder, new_epoch, now + ttl_ms],
                )
                .map_err(|e| store.sql_error(e))?;
                Ok(Acquire::Acquired {
                    fence: Fence {
                        holder: holder.to_owned(),
                        epoch: new_epoch,
                    },
                    took_over: previous.is_some(),
                })
            }
        }
    })
}

/// Extends the lease. Fails with [`LeaseLost`] when it was taken over or released; the holder
/// must then stop at once.
pub fn renew(store: &Store, fence: &Fence, ttl_ms: i64) -> Result<(), LeaseError> {
    let now = store.now_ms();
    store.write(|tx| {
        let n = tx
            .execute(
                "UPDATE executor_lease SET expires_at_ms = ?3 WHERE id = 1 AND holder = ?1 AND epoch = ?2",
                params![fence.holder, fence.epoch, now + ttl_ms],
            )
            .map_err(|e| store.sql_error(e))?;
        if n == 1 {
            Ok(())
        } else {
            Err(LeaseLost { epoch: fence.epoch }.into())
        }
    })
}

/// Gives the lease up so another process can take it at once. A no-op when already lost.
pub fn release(store: &Store, fence: &Fence) -> Result<(), StoreError> {
    store.execute(
        "UPDATE executor_lease SET holder = NULL, expires_at_ms = 0 WHERE id = 1 AND holder = ?1 AND epoch = ?2",
        params![fence.holder, fence.epoch],
    )?;
    Ok(())
}

/// The holder and expiry of an unexpired lease, if any.
pub fn holder_at(store: &Store) -> Result<Option<(String, i64)>, StoreError> {
    let info = current(store)?;
    let now = store.now_ms();
    Ok(info
        .is_held_at(now)
        .then(|| (info.holder.clone().unwrap_or_default(), info.expires_at_ms)))
}

#[cfg(test)]
mod tests {
    use super::*;
    use carrel_foundation::{
        clock::ManualClock,
        data_dir::DataDir,
        process_holders::{new_holder_id, this_host},
    };
    use std::sync::Arc;

    /// Two handles on one database file behave like two processes.
    fn two_handles() -> (tempfile::TempDir, ManualClock, Store, Store) {
        let t = tempfile::tempdir().unwrap();
        let clock = ManualClock::new(1_000_000);
        let dir = DataDir::new(t.path());
        let a = Store::open(&dir, Arc::new(clock.clone())).unwrap();
        let b = Store::open(&dir, Arc::new(clock.clone())).unwrap();
        (t, clock, a, b)
    }

    fn fence(a: Acquire) -> Fence {
        match a {
            Acquire::Acquired { fence, .. } => fence,
            other => panic!("expected the lease, got {other:?}"),
        }
    }

    #[test]
    fn only_one_holder_until_expiry_then_takeover_with_a_new_epoch() {
        let (_t, clock, a, b) = two_handles();
        let fa = fence(try_acquire(&a, "A", 10_000).unwrap());
        assert_eq!(fa.epoch, 1);
        match try_acquire(&b, "B", 10_000).unwrap() {
            Acquire::Held { holder, .. } => assert_eq!(holder, "A"),
            other => panic!("B should not get the lease: {other:?}"),
        }
        clock.advance_ms(9_999);
        assert!(matches!(
            try_acquire(&b, "B", 10_000).unwrap(),
            Acquire::Held { .. }
        ));
        clock.advance_ms(2);
        match try_acquire(&b, "B", 10_000).unwrap() {
            Acquire::Acquired { fence, took_over } => {
                assert_eq!(fence.epoch, 2);
                assert!(took_over);
            }
            other => panic!("B should take over: {other:?}"),
        }
        // A's heartbeat now fails: it must stop.
        assert!(matches!(renew(&a, &fa, 10_000), Err(LeaseError::Lost(_))));
    }

    #[test]
    fn a_dead_local_holder_is_taken_over_before_expiry() {
        let (_t, _clock, a, b) = two_handles();
        let mut child = std::process::Command::new("true").spawn().unwrap();
        let pid = child.id();
        child.wait().unwrap();
        let dead = format!("carrel-cli[pid {pid}@{}]#00000001", this_host());
        assert!(holder_is_dead(&dead));
        fence(try_acquire(&a, &dead, 10_000).unwrap());
        match try_acquire(&b, &new_holder_id("test"), 10_000).unwrap() {
            Acquire::Acquired { took_over, .. } => assert!(took_over),
            other => panic!("a dead holder's lease should be taken over: {other:?}"),
        }
        // A live holder (this very process, seen from another id) is not.
        let alive = new_holder_id("test");
        assert!(!holder_is_dead(&alive));
        assert!(!holder_is_dead("somebody[pid 1@elsewhere]#1"));
        assert!(!holder_is_dead("no pid here"));
    }

    #[test]
    fn a_heartbeat_keeps_the_lease() {
        let (_t, clock, a, b) = two_handles();
        let fa = fence(try_acquire(&a, "A", 10_000).unwrap());
        for _ in 0..10 {
            clock.advance_ms(2_000);
            renew(&a, &fa, 10_000).unwrap();
        }
        assert!(matches!(
            try_acquire(&b, "B", 10_000).unwrap(),
            Acquire::Held { .. }
        ));
    }

    #[test]
    fn a_released_lease_is_free_at_once_and_not_a_takeover() {
        let (_t, _clock, a, b) = two_handles();
        let fa = fence(try_acquire(&a, "A", 10_000).unwrap());
        release(&a, &fa).unwrap();
        match try_acquire(&b, "B", 10_000).unwrap() {
            Acquire::Acquired { fence, took_over } => {
                assert_eq!(fence.epoch, 2);
                assert!(!took_over);
            }
            other => panic!("{other:?}"),
        }
        assert_eq!(current(&a).unwrap().holder.as_deref(), Some("B"));
    }

    #[test]
    fn a_stale_fence_refuses_writes() {
        let (_t, clock, a, b) = two_handles();
        let fa = fence(try_acquire(&a, "A", 10_000).unwrap());
        clock.advance_ms(20_000);
        let _fb = fence(try_acquire(&b, "B", 10_000).unwrap());
        let r: Result<(), StoreError> = a.write(|tx| {
            assert!(matches!(fa.check(tx), Err(FenceError::Lost(_))));
            Ok(())
        });
        r.unwrap();
    }
}
