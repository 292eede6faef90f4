//! The downloads page: what the executor is doing, the download in flight with its speed, the
//! books waiting in the order they will run with an estimate of when each will be stored, the
//! books that failed, and the books finished lately ([`DONE_LISTED`] in the last
//! [`DONE_SPAN_MS`], since the reader last cleared them).
//!
//! Paused downloads say so as soon as the pause is written: the page reads the pause switch
//! from the store, and the executor's own report that it stopped (after the part under way)
//! changes nothing it shows.
//!
//! The stack, the lease and the books come from the store, so the page shows the truth whichever
//! process downloads. What only the executor's events tell — its state, the bytes of the file in
//! flight, how fast parts arrive — comes from a [`DownloadsMonitor`] fed by this process's
//! executor; it is used only while this process holds the lease.
//!
//! Every view also carries the [`library_revision`], for windows to notice servers, settings
//! and books on the device changed by another window or process.
//!
//! Owns no table: it reads [`crate::download_stack`], [`crate::executor_lease`],
//! [`crate::book_downloads`] and [`carrel_library::books`], and for the revision the servers and
//! settings tables.

use std::collections::{hash_map::DefaultHasher, HashMap, HashSet, VecDeque};
use std::hash::{Hash, Hasher};
use std::sync::Mutex;
use std::time::{Duration, Instant};

use serde::Serialize;

use crate::book_downloads::{self, BookStatus};
use crate::download_stack::{self, TaskKind, TaskState};
use crate::executor;
use crate::executor_lease;
use crate::progress::{DownloadEvent, ExecutorState, ProgressSink};
use carrel_foundation::store::Store;
use carrel_library::books::{self, Book};
use carrel_library::servers;
use carrel_library::settings::DoneDownloadsCleared;

/// The span over which the speed of the download in flight is measured.
pub const RATE_WINDOW: Duration = Duration::from_secs(3);
/// How many recent parts the estimates are based on.
const RECENT_PARTS: usize = 20;
/// How many pending tasks are looked at to list the waiting books.
const QUEUE_SCAN: u32 = 5_000;
/// The most waiting (and failed) books listed.
const MAX_LISTED: usize = 500;
/// The most finished books listed.
pub const DONE_LISTED: usize = 20;
/// How far back finished books are listed.
pub const DONE_SPAN_MS: i64 = 24 * 60 * 60 * 1000;

/// What this process's executor reported, as far as the downloads page needs it.
#[derive(Debug, Default)]
pub struct DownloadsMonitor {
    inner: Mutex<Monitor>,
}

#[derive(Debug, Default)]
struct Monitor {
    state: Option<ExecutorState>,
    active: Option<InFlight>,
    /// How long recent pages took, start to done.
    page_durations: VecDeque<Duration>,
    /// Recent transfers: bytes and the time they took.
    transfers: VecDeque<(u64, Duration)>,
    /// Books stored lately, and when (see [`LiveProgress::stored_lately`]).
    stored: VecDeque<(i64, Instant)>,
}

/// How long a book stored stays in [`LiveProgress::stored_lately`].
const STORED_LATELY: Duration = Duration::from_secs(60);

#[derive(Debug)]
struct InFlight {
    task_id: i64,
    started: Instant,
    bytes: u64,
    total: Option<u64>,
    /// (when, bytes so far): the samples within [`RATE_WINDOW`] and the one before them.
    samples: VecDeque<(Instant, u64)>,
}

/// The monitor's view at one moment.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct LiveProgress {
    /// The last state the executor reported.
    pub state: Option<ExecutorState>,
    pub active: Option<LiveTask>,
    /// The average time a recent page took.
    pub page_seconds: Option<f64>,
    /// Bytes per second over recent transfers.
    pub bytes_per_second: Option<f64>,
    /// Books stored in the last minute, oldest first. A small book can be queued and stored
    /// between two views of the downloads; a window learns of it from here.
    pub stored_lately: Vec<i64>,
}

#[derive(Debug, Clone, PartialEq)]
pub struct LiveTask {
    pub task_id: i64,
    pub bytes: u64,
    pub total: Option<u64>,
    pub rate_bytes_per_s: Option<f64>,
}

fn push_capped<T>(queue: &mut VecDeque<T>, value: T) {
    if queue.len() == RECENT_PARTS {
        queue.pop_front();
    }
    queue.push_back(value);
}

impl DownloadsMonitor {
    pub fn new() -> DownloadsMonitor {
        DownloadsMonitor::default()
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Monitor> {
        self.inner.lock().unwrap_or_else(|p| p.into_inner())
    }

    pub fn observe(&self, event: &DownloadEvent) {
        self.observe_at(event, Instant::now());
    }

    /// Notes an event that happened at `now`.
    pub fn observe_at(&self, event: &DownloadEvent, now: Instant) {
        let mut m = self.lock();
        match event {
            DownloadEvent::State(state) => {
                if !matches!(state, ExecutorState::Running) {
                    m.active = None;
                }
                m.state = Some(state.clone());
            }
            DownloadEvent::TaskStarted { task_id, .. } => {
                m.active = Some(InFlight {
                    task_id: *task_id,
                    started: now,
                    bytes: 0,
                    total: None,
                    samples: VecDeque::new(),
                });
            }
            DownloadEvent::TaskBytes {
                task_id,
                bytes,
                total,
                ..
            } => {
                let Some(active) = m.active.as_mut().filter(|a| a.task_id == *task_id) else {
                    return;
                };
                let gained = active.samples.back().and_then(|&(t, b)| {
                    Some((bytes.checked_sub(b)?, now.saturating_duration_since(t)))
                });
                active.bytes = *bytes;
                active.total = *total;
                active.samples.push_back((now, *bytes));
                if let Some(cutoff) = now.checked_sub(RATE_WINDOW) {
                    while active.samples.len() > 2 && active.samples[1].0 < cutoff {
                        active.samples.pop_front();
                    }
                }
                if let Some(transfer) = gained.filter(|(b, _)| *b > 0) {
                    push_capped(&mut m.transfers, transfer);
                }
            }
            DownloadEvent::TaskDone {
                task_id,
                kind,
                bytes,
                ..
            } => {
                let Some(active) = m.active.take_if(|a| a.task_id == *task_id) else {
                    return;
                };
                let took = now.saturating_duration_since(active.started);
                match kind {
                    TaskKind::Page => {
                        push_capped(&mut m.page_durations, took);
                        push_capped(&mut m.transfers, (*bytes, took));
                    }
                    TaskKind::File => {
                        // The last chunk, after the last progress report.
                        if let Some(&(t, b)) = active.samples.back() {
                            if let Some(rest) = bytes.checked_sub(b).filter(|r| *r > 0) {
                                push_capped(
                                    &mut m.transfers,
                                    (rest, now.saturating_duration_since(t)),
                                );
                            }
                        }
                    }
                    TaskKind::Book | TaskKind::Resource => {}
                }
            }
            DownloadEvent::TaskFailed { task_id, .. } => {
                m.active.take_if(|a| a.task_id == *task_id);
            }
            DownloadEvent::BookStored(progress) => {
                m.stored.retain(|(id, _)| *id != progress.book_id);
                push_capped(&mut m.stored, (progress.book_id, now));
            }
            DownloadEvent::Book(_) => {}
        }
    }

    pub fn snapshot(&self) -> LiveProgress {
        self.snapshot_at(Instant::now())
    }

    /// What the monitor knows at `now`.
    pub fn snapshot_at(&self, now: Instant) -> LiveProgress {
        let m = self.lock();
        let page_seconds = (!m.page_durations.is_empty()).then(|| {
            m.page_durations
                .iter()
                .map(Duration::as_secs_f64)
                .sum::<f64>()
                / m.page_durations.len() as f64
        });
        let (bytes, secs) = m
            .transfers
            .iter()
            .fold((0u64, 0f64), |(b, s), (bytes, took)| {
                (b + bytes, s + took.as_secs_f64())
            });
        let bytes_per_second = (secs >= 0.1).then(|| bytes as f64 / secs);
        LiveProgress {
            state: m.state.clone(),
            active: m.active.as_ref().map(|a| LiveTask {
                task_id: a.task_id,
                bytes: a.bytes,
                total: a.total,
                rate_bytes_per_s: rate(&a.samples, now),
            }),
            page_seconds,
            bytes_per_second,
            stored_lately: m
                .stored
                .iter()
                .filter(|(_, at)| now.saturating_duration_since(*at) < STORED_LATELY)
                .map(|(id, _)| *id)
                .collect(),
        }
    }
}

/// Bytes per second over the last [`RATE_WINDOW`]; zero when nothing arrived for a whole
/// window; `None` until two reports span a measurable time.
fn rate(samples: &VecDeque<(Instant, u64)>, now: Instant) -> Option<f64> {
    let &(last_t, last_b) = samples.back()?;
    if now.saturating_duration_since(last_t) > RATE_WINDOW {
        return Some(0.0);
    }
    let &(first_t, first_b) = samples.front()?;
    let span = last_t.saturating_duration_since(first_t).as_secs_f64();
    (span >= 0.1).then(|| last_b.saturating_sub(first_b) as f64 / span)
}

impl ProgressSink for DownloadsMonitor {
    fn report(&self, event: DownloadEvent) {
        self.observe(&event);
    }
}

/// The downloads page.
#[derive(Debug, Clone, PartialEq, Serialize, ts_rs::TS)]
pub struct DownloadsView {
    /// The reader paused every download (kept across restarts).
    pub paused: bool,
    pub executor: ExecutorView,
    /// The download in flight.
    pub active: Option<ActiveDownload>,
    /// Books waiting, in the order they will run.
    pub queue: Vec<QueuedBook>,
    pub failed: Vec<FailedBook>,
    /// Books stored lately, newest first (see [`done`]).
    pub done: Vec<DoneBook>,
    /// Changes whenever something the windows show beside the downloads changes — the servers,
    /// the settings, the books kept on the device — whichever window or process changed it.
    /// See [`library_revision`].
    pub library_revision: String,
    /// Books this process's executor stored in the last minute (see
    /// [`LiveProgress::stored_lately`]).
    pub stored_lately: Vec<i64>,
    /// Why downloads wait for the network (a metered link), if they do.
    pub network_hold: Option<String>,
    /// What downloads do on a metered link.
    pub metered_downloads: crate::network::MeteredDownloads,
}

/// Who downloads, and what it is doing.
#[derive(Debug, Clone, PartialEq, Serialize, ts_rs::TS)]
#[ts(rename = "ExecutorStatus")]
pub struct ExecutorView {
    /// The process holding the executor lease.
    pub holder: Option<String>,
    /// Whether that is this process.
    pub this_process: bool,
    #[serde(flatten)]
    pub status: ExecutorStatus,
}

#[derive(Debug, Clone, PartialEq, Serialize, ts_rs::TS)]
#[serde(tag = "state", rename_all = "snake_case")]
#[ts(rename = "ExecutorState")]
pub enum ExecutorStatus {
    Running,
    Idle,
    Paused,
    Backoff {
        reason: String,
        retry_at_ms: i64,
    },
    Stopped {
        reason: String,
    },
    /// Another process downloads; this one waits to take over.
    Standby,
}

impl From<ExecutorState> for ExecutorStatus {
    fn from(s: ExecutorState) -> Self {
        match s {
            ExecutorState::Running => ExecutorStatus::Running,
            ExecutorState::Idle => ExecutorStatus::Idle,
            ExecutorState::Paused => ExecutorStatus::Paused,
            ExecutorState::Backoff {
                reason,
                retry_at_ms,
            } => ExecutorStatus::Backoff {
                reason,
                retry_at_ms,
            },
            ExecutorState::Stopped { reason } => ExecutorStatus::Stopped { reason },
        }
    }
}

#[derive(Debug, Clone, PartialEq, Serialize, ts_rs::TS)]
pub struct ActiveDownload {
    pub book_id: i64,
    pub title: String,
    pub kind: TaskKind,
    pub position: i64,
    pub bytes: u64,
    pub total: Option<u64>,
    pub rate_bytes_per_s: Option<f64>,
    /// The book in flight: its stored and total parts.
    pub status: BookStatus,
    /// Seconds until this book is stored; `None` when unknown.
    pub eta_s: Option<u64>,
}

#[derive(Debug, Clone, PartialEq, Serialize, ts_rs::TS)]
pub struct QueuedBook {
    pub book_id: i64,
    pub title: String,
    pub status: BookStatus,
    pub prioritary: bool,
    /// Seconds until the book is stored, counting the download in flight and the books ahead
    /// of it; `None` when unknown (nothing measured yet, another process downloads, the
    /// server is paused, or a book ahead cannot be estimated).
    pub eta_s: Option<u64>,
}

/// A book whose download finished.
#[derive(Debug, Clone, PartialEq, Serialize, ts_rs::TS)]
pub struct DoneBook {
    pub book_id: i64,
    pub title: String,
    /// When its last part was stored, unix milliseconds.
    pub stored_at_ms: i64,
}

#[derive(Debug, Clone, PartialEq, Serialize, ts_rs::TS)]
pub struct FailedBook {
    pub book_id: i64,
    pub title: String,
    pub reason: String,
}

/// The downloads page now. `this_holder` is this process's executor holder id; `live` what its
/// executor reported (used only while it holds the lease).
pub fn view(
    store: &Store,
    live: &LiveProgress,
    this_holder: Option<&str>,
) -> Result<DownloadsView, carrel_library::error::Error> {
    let paused = executor::is_paused(store)?;
    let holder = executor_lease::holder_at(store)?.map(|(h, _)| h);
    let this_process = holder.is_some() && holder.as_deref() == this_holder;
    let status = match (&holder, this_process) {
        (Some(_), true) => live
            .state
            .clone()
            .map(ExecutorStatus::from)
            .unwrap_or(ExecutorStatus::Idle),
        (Some(_), false) => ExecutorStatus::Standby,
        (None, _) => ExecutorStatus::Stopped {
            reason: match &live.state {
                Some(ExecutorState::Stopped { reason }) => reason.clone(),
                _ => "no Carrel is downloading".into(),
            },
        },
    };
    // The switch, not the executor's report: the executor says it paused only once the part
    // under way is over, and nothing more starts meanwhile.
    let status = match status {
        ExecutorStatus::Running | ExecutorStatus::Idle | ExecutorStatus::Backoff { .. }
            if paused =>
        {
            ExecutorStatus::Paused
        }
        other => other,
    };
    let live = if this_process {
        live.clone()
    } else {
        LiveProgress::default()
    };

    let mut titles: HashMap<i64, Book> = HashMap::new();
    let mut book = |id: i64| -> Result<Book, carrel_library::error::Error> {
        if let Some(b) = titles.get(&id) {
            return Ok(b.clone());
        }
        let b = books::get(store, id)?;
        titles.insert(id, b.clone());
        Ok(b)
    };

    // The task this process's executor says it runs (its events), while the stack still has it
    // active: several are (pages put in place and waiting for their sync, pages claimed ahead
    // with the one running), and the newest of them is not always the one under way. Else (an
    // executor in another process) the newest active task.
    let running = live
        .active
        .as_ref()
        .map(|a| download_stack::task(store, a.task_id))
        .transpose()?
        .flatten()
        .filter(|t| t.state == TaskState::Active);
    let active_task = match running {
        _ if paused => None,
        Some(task) => Some(task),
        None => download_stack::in_state(store, TaskState::Active, 1)?
            .into_iter()
            .next(),
    };
    // Nothing is estimated while paused: nothing moves until the reader resumes.
    let mut ahead_s: Option<f64> = (!paused).then_some(0.0);
    let active = match &active_task {
        None => None,
        Some(task) => {
            let b = book(task.book_id)?;
            let file_total = b
                .file_length
                .map(|l| l.max(0) as u64)
                .filter(|_| task.kind == TaskKind::File);
            let (bytes, total, rate) = match live.active.as_ref().filter(|a| a.task_id == task.id) {
                Some(a) => (a.bytes, a.total.or(file_total), a.rate_bytes_per_s),
                None => match download_stack::file_checkpoint(store, task.id)? {
                    Some(cp) => (cp.offset, cp.total.or(file_total), None),
                    None => (0, file_total, None),
                },
            };
            let status = book_downloads::status(store, &b)?;
            ahead_s = match task.kind {
                TaskKind::File => total
                    .zip(rate.or(live.bytes_per_second))
                    .filter(|(_, r)| *r > 0.0)
                    .map(|(t, r)| t.saturating_sub(bytes) as f64 / r),
                TaskKind::Page => live
                    .page_seconds
                    .map(|p| p * remaining_parts(&status).saturating_sub(1) as f64 + p / 2.0),
                TaskKind::Book | TaskKind::Resource => Some(0.0),
            };
            Some(ActiveDownload {
                book_id: b.id,
                title: b.title.clone(),
                kind: task.kind,
                position: task.position,
                bytes,
                total,
                rate_bytes_per_s: rate,
                eta_s: ahead_s.map(|s| s.ceil() as u64),
                status,
            })
        }
    };

    let paused_servers: HashSet<i64> = servers::list(store)?
        .into_iter()
        .filter(|s| s.paused_reason.is_some())
        .map(|s| s.id)
        .collect();
    let mut seen: HashSet<i64> = active_task.iter().map(|t| t.book_id).collect();
    let mut waiting = Vec::new();
    let mut held = Vec::new();
    for task in download_stack::pending_in_pop_order(store, QUEUE_SCAN)? {
        if waiting.len() + held.len() >= MAX_LISTED {
            break;
        }
        if !seen.insert(task.book_id) {
            continue;
        }
        if paused_servers.contains(&task.server_id) {
            held.push(task);
        } else {
            waiting.push(task);
        }
    }
    let mut queue = Vec::with_capacity(waiting.len() + held.len());
    for task in &waiting {
        let b = book(task.book_id)?;
        let status = book_downloads::status(store, &b)?;
        let own = estimate(store, &b, &status, &live)?;
        ahead_s = ahead_s.zip(own).map(|(a, o)| a + o);
        queue.push(QueuedBook {
            book_id: b.id,
            title: b.title.clone(),
            status,
            prioritary: task.prioritary,
            eta_s: ahead_s.map(|s| s.ceil() as u64),
        });
    }
    // Waiting for the reader to sign in again: they run after everything else.
    for task in &held {
        let b = book(task.book_id)?;
        queue.push(QueuedBook {
            book_id: b.id,
            title: b.title.clone(),
            status: book_downloads::status(store, &b)?,
            prioritary: task.prioritary,
            eta_s: None,
        });
    }

    let mut failed = Vec::new();
    let mut failed_seen = HashSet::new();
    for task in download_stack::in_state(store, TaskState::Failed, MAX_LISTED as u32)? {
        if task.kind == TaskKind::Resource
            || book_downloads::is_file_part(&task.url)
            || !failed_seen.insert(task.book_id)
        {
            continue;
        }
        let b = book(task.book_id)?;
        failed.push(FailedBook {
            book_id: b.id,
            title: b.title,
            reason: task.failure.unwrap_or_else(|| "failed".into()),
        });
    }

    Ok(DownloadsView {
        done: done(store)?,
        library_revision: library_revision(store)?,
        stored_lately: live.stored_lately.clone(),
        network_hold: crate::network::hold(store)?.map(str::to_owned),
        metered_downloads: carrel_library::settings::get(store)?.unwrap_or_default(),
        paused,
        executor: ExecutorView {
            holder,
            this_process,
            status,
        },
        active,
        queue,
        failed,
    })
}

/// The books stored lately, newest first: at most [`DONE_LISTED`], in the last
/// [`DONE_SPAN_MS`] and since the reader last cleared the list ([`clear_done`]).
pub fn done(store: &Store) -> Result<Vec<DoneBook>, carrel_library::error::Error> {
    let cleared = carrel_library::settings::get::<DoneDownloadsCleared>(store)?
        .unwrap_or_default()
        .0;
    let since = cleared.max(store.now_ms() - DONE_SPAN_MS);
    Ok(book_downloads::stored_since(store, since, DONE_LISTED)?
        .into_iter()
        .map(|(book, at)| DoneBook {
            book_id: book.id,
            title: book.title,
            stored_at_ms: at,
        })
        .collect())
}

/// Empties the list of finished downloads: the books stored until now are no longer listed.
pub fn clear_done(store: &Store) -> Result<(), carrel_library::error::Error> {
    carrel_library::settings::set(store, &DoneDownloadsCleared(store.now_ms()))?;
    Ok(())
}

/// A fingerprint of what the windows show besides the downloads: every server as listed, the
/// settings (but the windows' own geometry, saved as they move), how many books are pinned,
/// and how many downloads there are with the newest id (books asked for, removed from the
/// device, evicted). Downloads progressing do not change it. Only meant to be compared with
/// an earlier value from the same process.
pub fn library_revision(store: &Store) -> Result<String, carrel_library::error::Error> {
    let hash = store
        .read(|c| -> rusqlite::Result<u64> {
            let mut h = DefaultHasher::new();
            let mut servers = c.prepare_cached(
                "SELECT id, name, url, username, min_interval_ms, paused_reason, trust_self_signed
                 FROM servers ORDER BY id",
            )?;
            let mut rows = servers.query([])?;
            while let Some(r) = rows.next()? {
                (
                    r.get::<_, i64>(0)?,
                    r.get::<_, String>(1)?,
                    r.get::<_, String>(2)?,
                    r.get::<_, Option<String>>(3)?,
                    r.get::<_, i64>(4)?,
                    r.get::<_, Option<String>>(5)?,
                    r.get::<_, i64>(6)?,
                )
                    .hash(&mut h);
            }
            0xff_u8.hash(&mut h);
            let mut settings = c.prepare_cached("SELECT key, value FROM settings WHERE key NOT LIKE 'window.%' ORDER BY key")?;
            let mut rows = settings.query([])?;
            while let Some(r) = rows.next()? {
                (r.get::<_, String>(0)?, r.get::<_, String>(1)?).hash(&mut h);
            }
            0xff_u8.hash(&mut h);
            let counts: (i64, i64, Option<i64>) = c.query_row(
                "SELECT (SELECT count(*) FROM books WHERE pinned = 1), count(*), max(id) FROM tasks",
                [],
                |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)),
            )?;
            counts.hash(&mut h);
            Ok(h.finish())
        })
        .map_err(|e| store.sql_error(e))?;
    Ok(format!("{hash:016x}"))
}

fn remaining_parts(status: &BookStatus) -> u64 {
    status
        .progress
        .total_parts
        .saturating_sub(status.progress.stored_parts)
}

/// Seconds a waiting book will take once its turn comes.
fn estimate(
    store: &Store,
    book: &Book,
    status: &BookStatus,
    live: &LiveProgress,
) -> Result<Option<f64>, carrel_library::error::Error> {
    let remaining = remaining_parts(status);
    if remaining == 0 {
        return Ok(Some(0.0));
    }
    if book.streams_pages() {
        return Ok(live.page_seconds.map(|p| p * remaining as f64));
    }
    let Some(rate) = live.bytes_per_second.filter(|r| *r > 0.0) else {
        return Ok(None);
    };
    let Some(length) = book.file_length.map(|l| l.max(0) as u64) else {
        return Ok(None);
    };
    let mut done = 0;
    for task in download_stack::tasks_of_book(store, book.id)? {
        if task.kind == TaskKind::File && task.state == TaskState::Pending {
            if let Some(cp) = download_stack::file_checkpoint(store, task.id)? {
                done = cp.offset;
            }
        }
    }
    Ok(Some(length.saturating_sub(done) as f64 / rate))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_rate_is_measured_over_the_last_window_and_falls_to_zero_when_stalled() {
        let m = DownloadsMonitor::new();
        let t0 = Instant::now();
        let at = |ms: u64| t0 + Duration::from_millis(ms);
        m.observe_at(&DownloadEvent::State(ExecutorState::Running), at(0));
        m.observe_at(
            &DownloadEvent::TaskStarted {
                task_id: 1,
                book_id: 9,
                kind: TaskKind::File,
                position: 0,
            },
            at(0),
        );
        let bytes = |bytes: u64| DownloadEvent::TaskBytes {
            task_id: 1,
            book_id: 9,
            bytes,
            total: Some(10_000_000),
        };
        // A resumed download: its first report is far from zero, and is no speed by itself.
        m.observe_at(&bytes(4_000_000), at(250));
        assert_eq!(
            m.snapshot_at(at(300)).active.unwrap().rate_bytes_per_s,
            None
        );
        // 100 kB every 250 ms, for 5 s: 400 kB/s.
        for i in 1..=20 {
            m.observe_at(&bytes(4_000_000 + i * 100_000), at(250 + i * 250));
        }
        let live = m.snapshot_at(at(5_260));
        let active = live.active.unwrap();
        assert_eq!(
            (active.task_id, active.bytes, active.total),
            (1, 6_000_000, Some(10_000_000))
        );
        let rate = active.rate_bytes_per_s.unwrap();
        assert!((rate - 400_000.0).abs() < 1.0, "{rate}");
        assert!((live.bytes_per_second.unwrap() - 400_000.0).abs() < 1.0);
        // Nothing for longer than the window: the speed is zero.
        assert_eq!(
            m.snapshot_at(at(9_000)).active.unwrap().rate_bytes_per_s,
            Some(0.0)
        );
        m.observe_at(
            &DownloadEvent::TaskDone {
                task_id: 1,
                book_id: 9,
                kind: TaskKind::File,
                position: 0,
                bytes: 10_000_000,
            },
            at(9_000),
        );
        assert_eq!(m.snapshot_at(at(9_000)).active, None);
    }

    #[test]
    fn books_stored_lately_are_named_for_a_minute() {
        let m = DownloadsMonitor::new();
        let t0 = Instant::now();
        let stored = |id: i64| {
            DownloadEvent::BookStored(crate::progress::BookProgress {
                book_id: id,
                title: format!("Book {id}"),
                stored_parts: 3,
                total_parts: 3,
                bytes: 300,
            })
        };
        m.observe_at(&stored(7), t0);
        m.observe_at(&stored(8), t0 + Duration::from_secs(30));
        m.observe_at(&stored(7), t0 + Duration::from_secs(40));
        assert_eq!(
            m.snapshot_at(t0 + Duration::from_secs(41)).stored_lately,
            [8, 7]
        );
        assert_eq!(
            m.snapshot_at(t0 + Duration::from_secs(95)).stored_lately,
            [7]
        );
        assert!(m
            .snapshot_at(t0 + Duration::from_secs(101))
            .stored_lately
            .is_empty());
    }

    #[test]
    fn page_times_average_over_recent_pages() {
        let m = DownloadsMonitor::new();
        let t0 = Instant::now();
        for (i, ms) in [100u64, 300, 200].into_iter().enumerate() {
            let start = t0 + Duration::from_secs(i as u64);
            let id = i as i64;
            m.observe_at(
                &DownloadEvent::TaskStarted {
                    task_id: id,
                    book_id: 1,
                    kind: TaskKind::Page,
                    position: id,
                },
                start,
            );
            m.observe_at(
                &DownloadEvent::TaskDone {
                    task_id: id,
                    book_id: 1,
                    kind: TaskKind::Page,
                    position: id,
                    bytes: 50_000,
                },
                start + Duration::from_millis(ms),
            );
        }
        let live = m.snapshot_at(t0 + Duration::from_secs(5));
        assert!((live.page_seconds.unwrap() - 0.2).abs() < 1e-9);
        assert!((live.bytes_per_second.unwrap() - 250_000.0).abs() < 1e-6);
        assert_eq!(live.active, None);
    }

    #[test]
    fn the_library_revision_follows_servers_and_settings_only() {
        use carrel_foundation::{clock::ManualClock, data_dir::DataDir};
        use carrel_library::settings::{self, Theme, WindowGeometry};
        use std::sync::Arc;

        let t = tempfile::tempdir().unwrap();
        let store = Store::open(&DataDir::new(t.path()), Arc::new(ManualClock::new(7))).unwrap();
        let input = |name: &str| servers::NewServer {
            name: name.into(),
            url: "http://127.0.0.1:8080/opds".into(),
            ..Default::default()
        };
        let empty = library_revision(&store).unwrap();
        assert_eq!(library_revision(&store).unwrap(), empty, "nothing changed");

        let server = servers::add(&store, &input("Home")).unwrap();
        let added = library_revision(&store).unwrap();
        assert_ne!(added, empty);
        assert_eq!(library_revision(&store).unwrap(), added);

        servers::update(&store, server.id, &input("Attic")).unwrap();
        let renamed = library_revision(&store).unwrap();
        assert_ne!(renamed, added);
        // Saved again unchanged: the same.
        servers::update(&store, server.id, &input("Attic")).unwrap();
        assert_eq!(library_revision(&store).unwrap(), renamed);

        settings::set(&store, &Theme::Dark).unwrap();
        let dark = library_revision(&store).unwrap();
        assert_ne!(dark, renamed);
        settings::set(&store, &Theme::Dark).unwrap();
        assert_eq!(library_revision(&store).unwrap(), dark);

        // A window moving is no change to the library.
        let geometry = WindowGeometry {
            x: 1.0,
            y: 2.0,
            width: 800.0,
            height: 600.0,
            maximized: false,
        };
        settings::set(&store, &geometry).unwrap();
        assert_eq!(library_revision(&store).unwrap(), dark);

        servers::remove(&store, servers::get_by_name(&store, "Attic").unwrap().id).unwrap();
        assert_ne!(library_revision(&store).unwrap(), dark);

        // It travels with every downloads view.
        let view = view(&store, &LiveProgress::default(), None).unwrap();
        assert_eq!(view.library_revision, library_revision(&store).unwrap());
    }
}
