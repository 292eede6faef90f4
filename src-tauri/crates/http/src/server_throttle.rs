//! Politeness towards each library server, shared by every process of a data dir through the
//! store: never more than one request in flight to a server, and an optional minimum interval
//! between the starts of two requests.
//!
//! A request takes the server's slot (a row of `server_slots`) before it starts and gives it back
//! when its body is read or abandoned. Waiters are seen first: a request that finds the slot busy
//! marks it as wanted (and keeps marking it while it waits), and a request that finds it free but
//! wanted by another waiter lets that one go first — so a window's catalog request is not left
//! waiting behind a download that takes the slot again the moment it is free. A slot carries an
//! expiry, renewed while a long body streams, so a process killed mid-request frees it after
//! [`SLOT_TTL_MS`] — at once when it ran on this machine: the holder names its process as the
//! executor lease's holders do, and a slot whose process is gone is free (see
//! [`carrel_foundation::process_holders::holder_is_dead`]).
//!
//! A process that has more requests for the same server right after this one (the executor,
//! page after page) may keep the slot between them instead of giving it back and taking it
//! again ([`reuse_or_acquire`]): the next request looks (a read, no write) whether the slot is
//! still its own and wanted by no one else, and goes on with it (renewing its expiry every few
//! seconds, so a request on it has the time a fresh slot gives); otherwise it
//! gives it back and queues like any other. A waiter therefore waits no longer than it would
//! have — the request under way — and the keeper lets the slot go whenever it has nothing more
//! for that server. Kept only without a minimum interval (whose starts must be recorded).
//!
//! Owns `server_slots`; knows nothing of what is fetched.

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::OnceLock;
use std::time::Duration;

use rusqlite::{params, OptionalExtension};

use carrel_foundation::process_holders;
use carrel_foundation::store::{Store, StoreError};

/// How long a slot stays taken without renewal.
pub const SLOT_TTL_MS: i64 = 30_000;
/// How often a waiting request looks at the slot again.
const POLL: Duration = Duration::from_millis(15);
/// How long a waiter's mark counts without being renewed. A waiter renews it at every look
/// (every [`POLL`], a minimum interval's wait included); the margin covers a look delayed by a
/// busy disk, and one that gave up holds others back no longer than this.
const WANTED_FOR_MS: i64 = 250;

static NEXT_REQUEST: AtomicU64 = AtomicU64::new(1);

/// A held request slot. Give it back with [`SlotGuard::release`]; dropping it releases too.
#[derive(Debug)]
pub struct SlotGuard {
    store: Store,
    server_id: i64,
    holder: String,
    released: bool,
    /// A look at this slot taken ahead of its next request (see [`look_at_kept`]).
    looked: Option<KeptLook>,
}

/// What a waiting request sees.
enum TryTake {
    Taken,
    /// Busy or too early; look again after this long.
    Wait(Duration),
}

/// A `server_slots` row as `try_take` reads it: holder, expiry, last start, waiter, its mark.
type SlotRow = (Option<String>, i64, i64, Option<String>, i64);

fn try_take(
    store: &Store,
    server_id: i64,
    holder: &str,
    min_interval_ms: i64,
) -> Result<TryTake, StoreError> {
    let now = store.now_ms();
    store.write(|tx| {
        let row: Option<SlotRow> = tx
            .prepare_cached(
                "SELECT holder, expires_at_ms, last_start_ms, wanted_by, wanted_at_ms
                 FROM server_slots WHERE server_id = ?1",
            )
            .and_then(|mut stmt| {
                stmt.query_row([server_id], |r| {
                    Ok((r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?, r.get(4)?))
                })
                .optional()
            })
            .map_err(|e| store.sql_error(e))?;
        // Another request waiting (its mark fresh: a clock set back makes a mark from the
        // future stale too).
        let wanted_by_other = match &row {
            Some((_, _, _, Some(by), at)) => {
                by != holder && *at > now - WANTED_FOR_MS && *at <= now + WANTED_FOR_MS
            }
            _ => false,
        };
        // A clock set back (by hand, or stepped by time sync) must not make the slot wait for
        // it to catch up: an expiry further ahead than a slot ever lasts, or a start in the
        // future, are from before the clock moved.
        let (busy, last_start) = match &row {
            Some((Some(h), expires, last, _, _))
                if *expires > now && *expires <= now + SLOT_TTL_MS && !process_holders::holder_is_dead(h) =>
            {
                (true, *last)
            }
            Some((_, _, last, _, _)) => (false, *last),
            None => (false, 0),
        };
        let ready_at = last_start + min_interval_ms;
        // Free but too early for the server's minimum interval: waited like a busy slot (and
        // marked the same way, so the holder's next request does not slip in first).
        let too_early = ready_at > now && last_start <= now;
        if busy || wanted_by_other || too_early {
            if !wanted_by_other {
                // First in line: marked, so the holder's next request lets this one go first.
                tx.prepare_cached(
                    "UPDATE server_slots SET wanted_by = ?2, wanted_at_ms = ?3 WHERE server_id = ?1",
                )
                .and_then(|mut stmt| stmt.execute(params![server_id, holder, now]))
                .map_err(|e| store.sql_error(e))?;
            }
            let wait = if too_early && !busy {
                Duration::from_millis((ready_at - now) as u64).min(POLL)
            } else {
                POLL
            };
            return Ok(TryTake::Wait(wait));
        }
        // Taking it ends this request's wait: its mark (or a stale one) goes.
        tx.prepare_cached(
            "INSERT INTO server_slots (server_id, holder, expires_at_ms, last_start_ms) VALUES (?1, ?2, ?3, ?4)
             ON CONFLICT (server_id) DO UPDATE SET holder = excluded.holder,
                 expires_at_ms = excluded.expires_at_ms, last_start_ms = excluded.last_start_ms,
                 wanted_by = NULL, wanted_at_ms = 0",
        )
        .and_then(|mut stmt| stmt.execute(params![server_id, holder, now + SLOT_TTL_MS, now]))
        .map_err(|e| store.sql_error(e))?;
        Ok(TryTake::Taken)
    })
}

/// This process as a slot holder: `request[pid N@host]#tag`; each request adds `/<n>`.
fn process_holder() -> &'static str {
    static HOLDER: OnceLock<String> = OnceLock::new();
    HOLDER.get_or_init(|| process_holders::new_holder_id("request"))
}

/// Waits for the server's slot (and its minimum interval) and takes it.
pub async fn acquire(
    store: &Store,
    server_id: i64,
    min_interval_ms: i64,
) -> Result<SlotGuard, StoreError> {
    let holder = format!(
        "{}/{}",
        process_holder(),
        NEXT_REQUEST.fetch_add(1, Ordering::Relaxed)
    );
    loop {
        let h = holder.clone();
        let outcome = store
            .call(move |s| try_take(s, server_id, &h, min_interval_ms))
            .await?;
        match outcome {
            TryTake::Taken => {
                return Ok(SlotGuard {
                    store: store.clone(),
                    server_id,
                    holder,
                    released: false,
                    looked: None,
                })
            }
            TryTake::Wait(d) => tokio::time::sleep(d).await,
        }
    }
}

/// A kept slot serving another request gets a new expiry once its last one is this old, so a
/// request on a reused slot has (nearly) the time a freshly taken one has.
const RENEW_KEPT_AFTER_MS: i64 = 5_000;

/// What a look at a kept slot found.
#[derive(Debug, Clone, Copy, PartialEq)]
enum Kept {
    /// Still `holder`'s and wanted by no one else; its expiry renewed or not.
    Ours { renew: bool },
    /// Taken over, expired, or wanted by another request.
    Not,
}

/// Whether the slot `holder` holds may serve its next request at once (see the module): it is
/// still `holder`'s, not expired, and no one else's mark is fresh. A read, no write.
fn still_ours(store: &Store, server_id: i64, holder: &str) -> Result<Kept, StoreError> {
    let now = store.now_ms();
    let row: Option<(Option<String>, i64, Option<String>, i64)> = store
        .read(|c| {
            c.prepare_cached(
                "SELECT holder, expires_at_ms, wanted_by, wanted_at_ms FROM server_slots WHERE server_id = ?1",
            )?
            .query_row([server_id], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?)))
            .optional()
        })
        .map_err(|e| store.sql_error(e))?;
    Ok(match row {
        Some((Some(h), expires, wanted_by, wanted_at)) if h == holder => {
            let alive = expires > now && expires <= now + SLOT_TTL_MS;
            let wanted = wanted_by.is_some_and(|by| {
                by != holder && wanted_at > now - WANTED_FOR_MS && wanted_at <= now + WANTED_FOR_MS
            });
            if alive && !wanted {
                Kept::Ours {
                    renew: expires < now + SLOT_TTL_MS - RENEW_KEPT_AFTER_MS,
                }
            } else {
                Kept::Not
            }
        }
        _ => Kept::Not,
    })
}

/// The slot for a request to `server_id`: `kept` (the slot this process kept from its last
/// request) when it may serve at once (its expiry renewed every few seconds), else a slot taken
/// as [`acquire`] does (`kept` given back first, so a waiter it held back goes before it).
pub async fn reuse_or_acquire(
    store: &Store,
    server_id: i64,
    min_interval_ms: i64,
    kept: Option<SlotGuard>,
) -> Result<SlotGuard, StoreError> {
    if let Some(mut slot) = kept {
        if slot.server_id == server_id && min_interval_ms == 0 {
            let looked = slot
                .looked
                .take()
                .filter(|l| l.server_id == server_id && l.is_fresh(store.now_ms()));
            let kept = match looked {
                Some(look) => look.kept,
                None => {
                    let holder = slot.holder.clone();
                    store
                        .call(move |s| still_ours(s, server_id, &holder))
                        .await?
                }
            };
            match kept {
                Kept::Ours { renew: false } => return Ok(slot),
                Kept::Ours { renew: true } => {
                    slot.keep_alive().await?;
                    return Ok(slot);
                }
                Kept::Not => {}
            }
        }
        slot.release().await?;
    }
    acquire(store, server_id, min_interval_ms).await
}

/// How long a look taken ahead of a request ([`look_at_kept`]) stands for it: the request is
/// meant to follow at once, and one made later looks again.
const LOOK_FRESH_MS: i64 = 5;

/// A look at a kept slot taken ahead of its next request, in a database step its keeper
/// makes anyway (the executor, claiming its next page): [`reuse_or_acquire`] then goes on
/// without a step of its own. What it saw is what the request would have seen a moment later.
#[derive(Debug, Clone)]
pub struct KeptLook {
    server_id: i64,
    kept: Kept,
    at_ms: i64,
}

impl KeptLook {
    /// Whether the slot may serve the next request as it is (no renewal due).
    pub fn may_serve(&self) -> bool {
        self.kept == Kept::Ours { renew: false }
    }

    /// The server whose slot was looked at.
    pub fn server_id(&self) -> i64 {
        self.server_id
    }

    fn is_fresh(&self, now_ms: i64) -> bool {
        (self.at_ms..=self.at_ms + LOOK_FRESH_MS).contains(&now_ms)
    }
}

/// Looks whether the slot of `server_id` that `holder` keeps may serve its next request at
/// once (see [`reuse_or_acquire`]). Blocking: for a database step already under way.
pub fn look_at_kept(store: &Store, server_id: i64, holder: &str) -> Result<KeptLook, StoreError> {
    Ok(KeptLook {
        server_id,
        kept: still_ours(store, server_id, holder)?,
        at_ms: store.now_ms(),
    })
}

impl SlotGuard {
    /// The server whose slot this is.
    pub fn server_id(&self) -> i64 {
        self.server_id
    }

    /// Who holds it (for [`look_at_kept`]).
    pub fn holder(&self) -> &str {
        &self.holder
    }

    /// Hands the slot a look taken ahead of its next request (see [`look_at_kept`]).
    pub fn looked(&mut self, look: KeptLook) {
        self.looked = Some(look);
    }

    /// Extends the slot while a long body is still streaming.
    pub async fn keep_alive(&self) -> Result<(), StoreError> {
        let (server_id, holder) = (self.server_id, self.holder.clone());
        self.store
            .call(move |store| {
                let now = store.now_ms();
                store.write(|tx| {
                    tx.prepare_cached(
                        "UPDATE server_slots SET expires_at_ms = ?3 WHERE server_id = ?1 AND holder = ?2",
                    )
                    .and_then(|mut s| s.execute(params![server_id, holder, now + SLOT_TTL_MS]))
                    .map_err(|e| store.sql_error(e))?;
                    Ok(())
                })
            })
            .await
    }

    /// Gives the slot back (off the caller's async thread).
    pub async fn release(mut self) -> Result<(), StoreError> {
        self.released = true;
        let (server_id, holder) = (self.server_id, self.holder.clone());
        self.store
            .call(move |store| free(store, server_id, &holder))
            .await
    }
}

fn free(store: &Store, server_id: i64, holder: &str) -> Result<(), StoreError> {
    store.write(|tx| {
        tx.prepare_cached(
            "UPDATE server_slots SET holder = NULL, expires_at_ms = 0 WHERE server_id = ?1 AND holder = ?2",
        )
        .and_then(|mut s| s.execute(params![server_id, holder]))
        .map_err(|e| store.sql_error(e))?;
        Ok(())
    })
}

impl Drop for SlotGuard {
    fn drop(&mut self) {
        if !self.released {
            // Dropped without a release (an error's early return): freed here, at once.
            if let Err(e) = free(&self.store, self.server_id, &self.holder) {
                tracing::warn!(cause = %e, server = self.server_id, "could not free a request slot; it expires by itself");
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use carrel_foundation::{clock::ManualClock, data_dir::DataDir};
    use carrel_library::servers;
    use std::sync::Arc;

    /// Whether `who`, asking every 5 ms, takes the slot within a second.
    async fn takes_slot_within_a_second(store: &Store, server: i64, who: &str) -> bool {
        for _ in 0..200 {
            if takes(store, server, who) {
                return true;
            }
            tokio::time::sleep(Duration::from_millis(5)).await;
        }
        false
    }

    /// Whether `who` takes the server's slot at once (no minimum interval).
    fn takes(store: &Store, server: i64, who: &str) -> bool {
        matches!(try_take(store, server, who, 0).unwrap(), TryTake::Taken)
    }

    /// Whether `who` is told to wait for the server's slot (no minimum interval).
    fn must_wait(store: &Store, server: i64, who: &str) -> bool {
        matches!(try_take(store, server, who, 0).unwrap(), TryTake::Wait(_))
    }

    /// A request that keeps `slot` if no one else wants it, else queues for a new one; on a
    /// task of its own, so the test can play the other side meanwhile.
    fn keep_in_background(
        store: &Store,
        server: i64,
        slot: SlotGuard,
    ) -> tokio::task::JoinHandle<SlotGuard> {
        let store = store.clone();
        tokio::spawn(async move {
            reuse_or_acquire(&store, server, 0, Some(slot))
                .await
                .unwrap()
        })
    }

    fn store_with_server() -> (tempfile::TempDir, ManualClock, Store, i64) {
        let t = tempfile::tempdir().unwrap();
        let clock = ManualClock::new(1_000_000);
        let store = Store::open(&DataDir::new(t.path()), Arc::new(clock.clone())).unwrap();
        let server = servers::add(
            &store,
            &servers::NewServer {
                name: "Home".into(),
                url: "http://127.0.0.1:9/opds".into(),
                ..Default::default()
            },
        )
        .unwrap();
        (t, clock, store, server.id)
    }

    /// A holder id naming a process of this machine that has ended.
    fn dead_holder() -> String {
        let mut child = std::process::Command::new("true").spawn().unwrap();
        let pid = child.id();
        child.wait().unwrap();
        let alive = process_holders::new_holder_id("request");
        let host = alive.split_once('@').unwrap().1.split_once(']').unwrap().0;
        format!("request[pid {pid}@{host}]#00000001/7")
    }

    #[test]
    fn one_request_at_a_time_until_the_slot_expires() {
        let (_t, clock, store, server) = store_with_server();
        assert!(takes(&store, server, "other[pid 1@elsewhere]#1/1"));
        assert!(must_wait(&store, server, "mine"));
        clock.advance_ms(SLOT_TTL_MS + 1);
        assert!(takes(&store, server, "mine"));
    }

    #[test]
    fn a_request_waiting_for_the_slot_goes_before_the_holder_takes_it_again() {
        let (_t, clock, store, server) = store_with_server();
        let taken = |holder: &str| takes(&store, server, holder);
        assert!(taken("download/1"));
        // A window's request finds it busy: it waits, marked as wanted.
        assert!(!taken("window/1"));
        free(&store, server, "download/1").unwrap();
        // The download's next request finds it free but wanted: the window's goes first.
        clock.advance_ms(1);
        assert!(!taken("download/2"));
        assert!(taken("window/1"));
        // Now the download waits in line and goes next.
        assert!(!taken("download/2"));
        free(&store, server, "window/1").unwrap();
        assert!(!taken("someone/else"), "the download was first in line");
        assert!(taken("download/2"));
        // A waiter that gave up stops holding others back once its mark is old.
        assert!(!taken("window/2"));
        free(&store, server, "download/2").unwrap();
        assert!(!taken("download/3"));
        clock.advance_ms(WANTED_FOR_MS + 1);
        assert!(taken("download/3"));
    }

    #[test]
    fn a_request_waiting_out_the_minimum_interval_goes_before_the_holder_too() {
        let (_t, clock, store, server) = store_with_server();
        let taken = |holder: &str| {
            matches!(
                try_take(&store, server, holder, 100).unwrap(),
                TryTake::Taken
            )
        };
        assert!(taken("download/1"));
        free(&store, server, "download/1").unwrap();
        // Free, but too early: the window's request waits, marked.
        clock.advance_ms(10);
        assert!(!taken("window/1"));
        // The interval over, the download's next request still lets it go first.
        clock.advance_ms(100);
        assert!(!taken("download/2"));
        assert!(taken("window/1"));
    }

    #[test]
    fn a_clock_set_back_does_not_hold_the_slot_until_it_catches_up() {
        let (_t, clock, store, server) = store_with_server();
        assert!(matches!(
            try_take(&store, server, "other[pid 1@elsewhere]#1/1", 60_000).unwrap(),
            TryTake::Taken
        ));
        clock.set_ms(1_000_000 - 3_600_000);
        // The slot's expiry now lies beyond any slot's lifetime, and the interval's start in the
        // future.
        assert!(matches!(
            try_take(&store, server, "mine", 60_000).unwrap(),
            TryTake::Taken
        ));
        // From here on, time counts again from the new clock.
        assert!(must_wait(&store, server, "next"));
    }

    #[test]
    fn a_slot_held_by_a_process_that_died_is_free_at_once() {
        let (_t, clock, store, server) = store_with_server();
        let dead = dead_holder();
        assert!(process_holders::holder_is_dead(&dead));
        assert!(takes(&store, server, &dead));
        assert!(takes(&store, server, "mine"));
        // A request of a live process (this one) keeps its slot.
        clock.advance_ms(SLOT_TTL_MS + 1);
        let alive = format!("{}/1", process_holder());
        assert!(takes(&store, server, &alive));
        assert!(must_wait(&store, server, "mine"));
    }

    #[tokio::test]
    async fn a_kept_slot_serves_the_next_request_only_while_no_one_else_wants_it() {
        let (_t, clock, store, server) = store_with_server();
        let first = acquire(&store, server, 0).await.unwrap();
        let holder = first.holder.clone();
        // Nobody waiting: the same slot serves again.
        let again = reuse_or_acquire(&store, server, 0, Some(first))
            .await
            .unwrap();
        assert_eq!(again.holder, holder);
        // Another request finds it busy and marks it: the keeper gives it back and queues
        // behind that request.
        assert!(must_wait(&store, server, "window/1"));
        assert_eq!(still_ours(&store, server, &holder).unwrap(), Kept::Not);
        let keeper = keep_in_background(&store, server, again);
        let window_took = takes_slot_within_a_second(&store, server, "window/1").await;
        assert!(window_took, "the waiter went first");
        assert!(!keeper.is_finished(), "the keeper waits for the slot now");
        free(&store, server, "window/1").unwrap();
        let next = keeper.await.unwrap();
        assert_ne!(next.holder, holder, "taken anew");
        // Kept past a few seconds: renewed, so the next request has a slot's whole time.
        let h = next.holder.clone();
        assert_eq!(
            still_ours(&store, server, &h).unwrap(),
            Kept::Ours { renew: false }
        );
        clock.advance_ms(RENEW_KEPT_AFTER_MS + 1);
        assert_eq!(
            still_ours(&store, server, &h).unwrap(),
            Kept::Ours { renew: true }
        );
        let n = reuse_or_acquire(&store, server, 0, Some(next))
            .await
            .unwrap();
        assert_eq!(n.holder, h, "the same slot");
        assert_eq!(
            still_ours(&store, server, &h).unwrap(),
            Kept::Ours { renew: false }
        );
        // Expired (its process stalled): not kept.
        clock.advance_ms(SLOT_TTL_MS + 1);
        assert_eq!(still_ours(&store, server, &h).unwrap(), Kept::Not);
        let n = reuse_or_acquire(&store, server, 0, Some(n)).await.unwrap();
        assert_ne!(n.holder, h);
        // A minimum interval to keep: never kept.
        let h = n.holder.clone();
        clock.advance_ms(10);
        let m = reuse_or_acquire(&store, server, 5, Some(n)).await.unwrap();
        assert_ne!(m.holder, h);
        // Not a slot of another server.
        assert_eq!(
            still_ours(&store, server + 1, &m.holder).unwrap(),
            Kept::Not
        );
    }

    #[tokio::test]
    async fn a_look_taken_ahead_stands_only_for_the_request_right_after_it() {
        let (_t, clock, store, server) = store_with_server();
        let mut slot = acquire(&store, server, 0).await.unwrap();
        let holder = slot.holder.clone();
        // Looked at while no one wanted it; a window marks it a moment later. The request
        // right after the look goes on the look, as it would have a moment earlier.
        slot.looked(look_at_kept(&store, server, &holder).unwrap());
        assert!(must_wait(&store, server, "window/1"));
        let mut slot = reuse_or_acquire(&store, server, 0, Some(slot))
            .await
            .unwrap();
        assert_eq!(slot.holder, holder, "kept on the fresh look");
        assert!(slot.looked.is_none(), "a look serves one request");
        // A look older than a request that follows at once: looked at again, and the waiter
        // goes first.
        slot.looked(look_at_kept(&store, server, &holder).unwrap());
        clock.advance_ms(LOOK_FRESH_MS + 1);
        let keeper = keep_in_background(&store, server, slot);
        let window_took = takes_slot_within_a_second(&store, server, "window/1").await;
        assert!(
            window_took,
            "the stale look was not taken for the slot's state"
        );
        free(&store, server, "window/1").unwrap();
        assert_ne!(keeper.await.unwrap().holder, holder, "taken anew");
        // A look at another server's slot is not this one's.
        let mut slot = acquire(&store, server, 0).await.unwrap();
        let holder = slot.holder.clone();
        slot.looked(KeptLook {
            server_id: server + 1,
            kept: Kept::Ours { renew: false },
            at_ms: store.now_ms(),
        });
        assert!(must_wait(&store, server, "window/2"));
        let keeper = keep_in_background(&store, server, slot);
        let window_took = takes_slot_within_a_second(&store, server, "window/2").await;
        assert!(window_took);
        free(&store, server, "window/2").unwrap();
        assert_ne!(keeper.await.unwrap().holder, holder);
    }
}
