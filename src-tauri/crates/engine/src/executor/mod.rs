//! The download executor: the one consumer of the download stack.
//!
//! [`Executor::run`] takes the [executor lease](crate::executor_lease) (or reports who holds
//! it), keeps it alive with a heartbeat, puts back tasks a dead holder left active, collects
//! orphaned files, queues the latest-read book, and then pops tasks one at a time — the
//! server sees one polite stream. Every write it makes is fenced by its lease epoch; when the
//! lease is lost it stops at once without touching the task.
//!
//! Failure policy: a failed `book`/`page`/`file` task goes back on the stack and the executor backs
//! off from its server (exponentially with jitter, 1 s up to 5 min, or at once when something new
//! is pushed) while the other servers' tasks go on; a local failure (the disk) backs the whole run
//! off; a failed `resource` is recorded and skipped; 404/410 fail the task with its reason; 401/403
//! pause that server with "authentication needed". A prioritary push preempts a non-prioritary
//! whole-file download within `ExecutorConfig::preempt_poll` (it is checkpointed and resumed
//! later).
//!
//! Reports through a [`ProgressSink`]. Owns no table: it drives [`crate::download_stack`],
//! [`carrel_foundation::part_files`] and [`carrel_http::http_fetch`].
//!
//! Its parts, each owning one job: [`run_loop`] (the loop and its waits), [`settle`] (what a
//! claim found, and the failure policy applied to a task's outcome), [`fetch`] (a task's
//! requests), [`file_download`] (whole files and their checkpoints), [`batched_sync`] (pages
//! synced to the disk in batches), [`backoff`] (the servers waited for after a failure),
//! [`books_kept`] (the books a stored book pushes out and brings in), [`page_ahead`] and
//! [`claim_ahead`] (the next pages asked for and claimed ahead).

use std::cell::Cell;
use std::collections::{HashMap, HashSet, VecDeque};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use futures_util::StreamExt;
use reqwest::{header, StatusCode};
use tokio::sync::watch;
use url::Url;

use crate::book_downloads;
use crate::download_limits::{self, ByteCap, MaxBookSize};
use crate::download_stack::{self, FileCheckpoint, StackError, Task, TaskKind, TaskState};
use crate::executor_lease::{self, Acquire, Fence, LeaseError};
use crate::progress::{BookProgress, DownloadEvent, ExecutorState, ProgressSink};
use carrel_foundation::part_files::{self, PartFiles, PartialFile};
use carrel_foundation::store::{Store, StoreError};
use carrel_http::http_fetch::{self, FetchError, Fetching, HttpClient, HttpConfig, ServerAccess};
use carrel_http::server_throttle::{self, SlotGuard};
use carrel_library::books::{self, Book};
use carrel_library::credentials::Credentials;
use carrel_library::settings::{self, BooksKept, DownloadsPaused};

mod backoff;
mod batched_sync;
mod books_kept;
mod claim_ahead;
mod fetch;
mod file_download;
mod page_ahead;
mod run_loop;
mod settle;

use backoff::*;
use batched_sync::*;
use fetch::*;
use run_loop::Watch;
use settle::*;

use page_ahead::{Ahead, FollowUp};

/// See [`ExecutorConfig::checkpoint_bytes`]; tests/bench/HISTORY.md gives the measurements
/// that chose it.
pub const CHECKPOINT_BYTES: u64 = 16 << 20;

#[derive(Debug, Clone)]
pub struct ExecutorConfig {
    pub lease_ttl_ms: i64,
    pub heartbeat: Duration,
    /// How often an idle or backing-off executor looks for new pushes.
    pub wake_poll: Duration,
    /// How often a running file download looks for a prioritary push that should preempt it
    /// (one indexed query, about 20 µs; the download keeps the machine awake anyway). Whether
    /// it was cancelled is looked at every `wake_poll`.
    pub preempt_poll: Duration,
    pub backoff_min: Duration,
    pub backoff_max: Duration,
    /// A whole-file download syncs its partial file and records how far it got every this many
    /// bytes (the sync runs beside the stream) and wherever an answer ends: a crash fetches at
    /// most twice this again.
    pub checkpoint_bytes: u64,
    pub max_page_bytes: u64,
    pub http: HttpConfig,
}

impl Default for ExecutorConfig {
    fn default() -> Self {
        ExecutorConfig {
            lease_ttl_ms: executor_lease::DEFAULT_TTL_MS,
            heartbeat: Duration::from_millis(executor_lease::DEFAULT_HEARTBEAT_MS as u64),
            wake_poll: Duration::from_millis(100),
            preempt_poll: Duration::from_millis(5),
            backoff_min: Duration::from_secs(1),
            backoff_max: Duration::from_secs(300),
            checkpoint_bytes: CHECKPOINT_BYTES,
            max_page_bytes: 64 << 20,
            http: HttpConfig::default(),
        }
    }
}

/// When [`Executor::run`] returns.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RunMode {
    /// Return when the stack is empty (the CLI's `sync --until-idle`).
    UntilIdle,
    /// Wait for pushes until shut down (the app).
    Forever,
}

/// Why [`Executor::run`] returned.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Finish {
    /// The stack is empty (only with [`RunMode::UntilIdle`]).
    Idle,
    /// The shutdown signal fired; the lease was released.
    Shutdown,
    /// Another process holds the lease.
    LeaseHeld { holder: String, expires_at_ms: i64 },
    /// The lease was taken over or could not be renewed; the executor stopped at once.
    LeaseLost,
}

#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum ExecutorError {
    #[error(transparent)]
    Store(#[from] StoreError),
    #[error(transparent)]
    Fetch(#[from] FetchError),
    #[error(transparent)]
    Stack(#[from] StackError),
    /// A run until idle stopped with work left because of this device (the disk): the tasks
    /// stay queued.
    #[error("downloads stopped with work left: {0}")]
    Storage(String),
    /// A run until idle stopped with work left because downloads wait for the network (a
    /// metered link): the tasks stay queued.
    #[error("downloads wait: {0}")]
    NetworkHeld(String),
}

impl carrel_foundation::error::Failure for ExecutorError {
    fn kind(&self) -> carrel_foundation::error::ErrorKind {
        use carrel_foundation::error::ErrorKind;
        match self {
            ExecutorError::Store(e) => e.kind(),
            ExecutorError::Fetch(e) => e.kind(),
            ExecutorError::Stack(e) => e.kind(),
            ExecutorError::Storage(_) => ErrorKind::Storage,
            ExecutorError::NetworkHeld(_) => ErrorKind::Server,
        }
    }
}

/// A shutdown signal: send `true` to stop.
pub type Shutdown = watch::Receiver<bool>;

/// Why a task did not complete.
#[derive(Debug)]
enum TaskError {
    Fetch(FetchError),
    Disk(std::io::Error),
    /// No room on this device for the file (a local failure, the task waits).
    NoRoom(String),
    Preempted,
    Stack(StackError),
}

impl From<FetchError> for TaskError {
    fn from(e: FetchError) -> Self {
        TaskError::Fetch(e)
    }
}
impl From<StackError> for TaskError {
    fn from(e: StackError) -> Self {
        TaskError::Stack(e)
    }
}
impl From<StoreError> for TaskError {
    fn from(e: StoreError) -> Self {
        TaskError::Fetch(FetchError::Store(e))
    }
}

#[derive(Clone)]
pub struct Executor {
    store: Store,
    credentials: Arc<Credentials>,
    http: HttpClient,
    files: PartFiles,
    sink: Arc<dyn ProgressSink>,
    config: ExecutorConfig,
    holder: String,
    /// UnsyncedPage by the thread of the run under way (see [`Executor::run`]).
    one_run: Arc<tokio::sync::Mutex<()>>,
}

/// State of one run, under one fence.
struct Run<'a> {
    ex: &'a Executor,
    fence: Fence,
    lost: Arc<AtomicBool>,
    access: HashMap<i64, (Instant, ServerAccess)>,
    /// Failures in a row that were not a server's (the disk): the whole run backs off.
    failures: u32,
    /// A run until idle stops at a local failure (with the task queued) rather than wait.
    mode: RunMode,
    /// Servers that failed: their tasks wait, the other servers' go on.
    backoffs: Backoffs,
    /// The push counter when the loop last looked, while servers are in backoff.
    seen_pushes: Option<i64>,
    /// The book whose progress was said last, and when: a book's progress is counted at most
    /// every [`PROGRESS_EVERY`] while it downloads (counting reads every page it has), and
    /// always when its last part is stored.
    progress_reported: Option<(i64, Instant)>,
    /// Books said stored since the books kept were last seen to (see [`books_kept`]).
    books_stored: u32,
    /// The next task, claimed in the database step that marked the last page stored.
    next_claim: Option<Result<Claimed, StackError>>,
    /// Where the chain of the running page goes next, read when it was claimed (see
    /// [`page_ahead`]).
    follow_up: Option<FollowUp>,
    /// The request for that page, sent while the running page's step runs (see [`page_ahead`]).
    ahead: Option<Ahead>,
    /// Pages stored but not yet on the disk for sure, their tasks still active.
    unsynced: Vec<UnsyncedPage>,
    /// When the oldest of `unsynced` was stored.
    unsynced_since: Option<Instant>,
    /// The batches before `unsynced`, oldest first, syncing while the loop goes on (see
    /// [`UnsyncedPage`]).
    syncing: VecDeque<Syncing>,
    /// The pages on the disk of the book whose pages the run fetches, listed once when it
    /// comes to that book and kept up to date with what it writes (see [`Run::stored_page`]).
    pages_on_disk: Option<(i64, HashMap<i64, std::path::PathBuf>)>,
    /// The request slot kept from the last page or cover, for the next one of the same server
    /// (see [`carrel_http::server_throttle`]); let go before anything else.
    kept_slot: Option<SlotGuard>,
    /// The pages after the next one, claimed with it and not yet reached, in their order (see
    /// [`claim_ahead`]).
    claimed_ahead: VecDeque<Task>,
    /// The push counter when the pages ahead were claimed: a push since ends it.
    claimed_ahead_pushes: i64,
    /// Pages put in place without a transaction (`(task id, bytes)`): their sizes go with the
    /// run's next transaction.
    unrecorded: Vec<(i64, i64)>,
    /// When the last step's transaction (or one that recorded sizes) ended.
    recorded_at: Option<Instant>,
    /// When the last page's step ended: pages come quickly when the next one's step follows
    /// within [`claim_ahead::QUIET_FOR`].
    page_step_at: Option<Instant>,
}

impl Executor {
    pub fn new(
        store: Store,
        credentials: Arc<Credentials>,
        sink: Arc<dyn ProgressSink>,
        config: ExecutorConfig,
        holder: String,
    ) -> Result<Executor, ExecutorError> {
        let files = PartFiles::new(store.data_dir().books());
        Ok(Executor {
            http: HttpClient::new(config.http)?.keeping_sessions_in(credentials.clone()),
            store,
            credentials,
            files,
            sink,
            config,
            holder,
            one_run: Arc::default(),
        })
    }

    pub fn holder(&self) -> &str {
        &self.holder
    }

    /// Runs `f` with the store: inline on the executor's own thread (see [`Executor::run`]),
    /// where nothing else waits while SQLite does, else on a blocking thread.
    async fn db<T: Send + 'static>(&self, f: impl FnOnce(&Store) -> T + Send + 'static) -> T {
        if ON_OWN_THREAD.with(Cell::get) {
            f(&self.store)
        } else {
            self.store.call(f).await
        }
    }

    /// Takes the lease and works the stack (see [`RunMode`]); returns at once with
    /// [`Finish::LeaseHeld`] if another process holds the lease.
    pub async fn run(&self, mode: RunMode, shutdown: Shutdown) -> Result<Finish, ExecutorError> {
        let holder = self.holder.clone();
        let ttl = self.config.lease_ttl_ms;
        let fence = match self
            .db(move |s| executor_lease::try_acquire(s, &holder, ttl))
            .await?
        {
            Acquire::Acquired { fence, took_over } => {
                tracing::info!(epoch = fence.epoch, took_over, "executor lease taken");
                fence
            }
            Acquire::Held {
                holder,
                expires_at_ms,
            } => {
                return Ok(Finish::LeaseHeld {
                    holder,
                    expires_at_ms,
                })
            }
        };
        let lost = Arc::new(AtomicBool::new(false));
        // Aborted when dropped, also when a task panics or the run is cancelled: a heartbeat
        // must never outlive its run and keep a lease nobody works under.
        let heartbeat = AbortOnDrop(self.spawn_heartbeat(fence.clone(), lost.clone()));
        let result = self
            .work_on_own_thread(fence.clone(), lost, mode, shutdown)
            .await;
        drop(heartbeat);
        match &result {
            Ok(Finish::LeaseLost) => {
                self.sink
                    .report(DownloadEvent::State(ExecutorState::Stopped {
                        reason: "another Carrel took over the downloads".into(),
                    }));
            }
            _ => {
                let f = fence.clone();
                if let Err(e) = self.db(move |s| executor_lease::release(s, &f)).await {
                    tracing::warn!(cause = %e, "could not release the executor lease; it expires by itself");
                }
            }
        }
        result
    }

    /// Works the stack on a thread of its own with a runtime of its own, and waits for the end
    /// of the run there. The loop's database work (a step between two pages, the claim, the
    /// settle) then runs inline on that thread instead of being handed to a blocking thread and
    /// back, and the requests' connections run on it too: no thread is woken for either. Only
    /// this run waits on that thread, so a busy database holds up nothing else (what may wait
    /// on something slower — the keyring — still goes to a blocking thread, so a stop is seen);
    /// the lease's heartbeat stays on the caller's runtime, where a long sync cannot delay it.
    /// The run has connections of its own (a connection lives on the runtime that opened it).
    ///
    /// Dropping the returned future stops the run as a shutdown does, at its next look (its
    /// task put back); a run started meanwhile on this executor waits until that one has ended,
    /// so two runs never work under one fence.
    async fn work_on_own_thread(
        &self,
        fence: Fence,
        lost: Arc<AtomicBool>,
        mode: RunMode,
        mut shutdown: Shutdown,
    ) -> Result<Finish, ExecutorError> {
        let one_run = tokio::select! {
            one_run = self.one_run.clone().lock_owned() => one_run,
            // Asked to stop while an earlier run on this executor ends.
            _ = async {
                if shutdown.wait_for(|s| *s).await.is_err() {
                    std::future::pending::<()>().await;
                }
            } => return Ok(Finish::Shutdown),
        };
        let ex = Executor {
            http: self.http.with_own_connections()?,
            ..self.clone()
        };
        // The run's own stop: the caller's, passed on, or this future's drop.
        let (stop_tx, stop_rx) = watch::channel(*shutdown.borrow());
        let stop = StopOnDrop(Some(stop_tx));
        let (done, mut finished) = tokio::sync::oneshot::channel();
        std::thread::Builder::new()
            .name("carrel-executor".into())
            .spawn(move || {
                let _one_run = one_run;
                let outcome = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
                    let runtime = tokio::runtime::Builder::new_current_thread()
                        .enable_all()
                        .build()
                        .map_err(|e| {
                            ExecutorError::Storage(format!("cannot start the downloads: {e}"))
                        })?;
                    ON_OWN_THREAD.with(|c| c.set(true));
                    let result = runtime.block_on(ex.work(fence, lost, mode, stop_rx));
                    // Work left on the runtime's blocking threads (a name being resolved, a
                    // partial file's sync) is not waited for long: the run is over.
                    runtime.shutdown_timeout(RUNTIME_LEFTOVERS);
                    result
                }));
                let _ = done.send(outcome);
            })
            .map_err(|e| ExecutorError::Storage(format!("cannot start the downloads: {e}")))?;
        let outcome = loop {
            tokio::select! {
                outcome = &mut finished => break outcome,
                changed = shutdown.changed() => match changed {
                    Ok(()) => stop.send(*shutdown.borrow()),
                    // A dropped sender can never ask to stop: only the run's end is left.
                    Err(_) => break (&mut finished).await,
                },
            }
        };
        stop.disarm();
        match outcome {
            Ok(Ok(result)) => result,
            Ok(Err(panic)) => std::panic::resume_unwind(panic),
            Err(_) => Err(ExecutorError::Storage(
                "the downloads' thread ended without a word".into(),
            )),
        }
    }

    /// One run's loop, and what it leaves in order when it ends.
    async fn work(
        &self,
        fence: Fence,
        lost: Arc<AtomicBool>,
        mode: RunMode,
        mut shutdown: Shutdown,
    ) -> Result<Finish, ExecutorError> {
        let mut run = Run {
            ex: self,
            fence,
            lost,
            access: HashMap::new(),
            failures: 0,
            backoffs: Backoffs::default(),
            seen_pushes: None,
            progress_reported: None,
            books_stored: 0,
            next_claim: None,
            follow_up: None,
            ahead: None,
            unsynced: Vec::new(),
            unsynced_since: None,
            syncing: VecDeque::new(),
            pages_on_disk: None,
            kept_slot: None,
            claimed_ahead: VecDeque::new(),
            claimed_ahead_pushes: 0,
            unrecorded: Vec::new(),
            recorded_at: None,
            page_step_at: None,
            mode,
        };
        let mut result = run.work(mode, &mut shutdown).await;
        run.give_up_ahead().await;
        run.let_slot_go().await;
        // Whatever ended the run, the pages claimed ahead and not reached go back.
        run.give_back_next_claim().await;
        // Whatever ended the run, the pages stored are synced and marked (unless the lease is
        // gone: the next holder takes them from the disk).
        if let Err(e) = run.sync_stored_pages().await {
            if result.is_ok() && !matches!(result, Ok(Finish::LeaseLost)) {
                result = Err(e);
            }
        }
        // The books stored last are followed by what they push out and bring in.
        run.keep_books_kept().await;
        result
    }

    /// Like [`Executor::run`], but waits for the lease while another process holds it.
    pub async fn run_waiting(
        &self,
        mode: RunMode,
        shutdown: Shutdown,
    ) -> Result<Finish, ExecutorError> {
        loop {
            match self.run(mode, shutdown.clone()).await? {
                Finish::LeaseHeld { .. } => {
                    let mut s = shutdown.clone();
                    tokio::select! {
                        _ = tokio::time::sleep(Duration::from_millis((self.config.lease_ttl_ms / 10).clamp(50, 1000) as u64)) => {}
                        _ = s.wait_for(|stop| *stop) => return Ok(Finish::Shutdown),
                    }
                }
                other => return Ok(other),
            }
        }
    }

    fn spawn_heartbeat(&self, fence: Fence, lost: Arc<AtomicBool>) -> tokio::task::JoinHandle<()> {
        let store = self.store.clone();
        let period = self.config.heartbeat;
        let ttl = self.config.lease_ttl_ms;
        tokio::spawn(async move {
            // Until when the lease is surely ours: a failed renewal (a busy or full disk) is
            // tried again, but past this point the holder stops, as another may take over.
            let mut valid_until = store.now_ms() + ttl;
            loop {
                tokio::time::sleep(period).await;
                let f = fence.clone();
                let renewed = store.call(move |s| executor_lease::renew(s, &f, ttl)).await;
                match renewed {
                    Ok(()) => valid_until = store.now_ms() + ttl,
                    Err(LeaseError::Lost(_)) => {
                        tracing::warn!(epoch = fence.epoch, "executor lease taken over; stopping");
                        lost.store(true, Ordering::SeqCst);
                        return;
                    }
                    Err(e) if store.now_ms() + (period.as_millis() as i64) < valid_until => {
                        tracing::warn!(cause = %e, "could not renew the executor lease; trying again");
                    }
                    Err(e) => {
                        tracing::error!(cause = %e, "cannot renew the executor lease; stopping");
                        lost.store(true, Ordering::SeqCst);
                        return;
                    }
                }
            }
        })
    }

    fn report(&self, event: DownloadEvent) {
        self.sink.report(event);
    }
}

/// Aborts a background task when dropped.
struct AbortOnDrop(tokio::task::JoinHandle<()>);

thread_local! {
    /// Set on the thread a run works on (see [`Executor::run`]).
    static ON_OWN_THREAD: Cell<bool> = const { Cell::new(false) };
}

/// A failure that ends the run: a lost lease is the run's end, not an error.
fn lost_or(e: ExecutorError) -> Result<Finish, ExecutorError> {
    match e {
        ExecutorError::Stack(StackError::LeaseLost(_)) => Ok(Finish::LeaseLost),
        other => Err(other),
    }
}

/// How long a run that has ended waits for work left on its runtime's blocking threads.
const RUNTIME_LEFTOVERS: Duration = Duration::from_millis(500);

/// A run's own stop signal: passes the caller's on, and stops the run when the future waiting
/// for it is dropped.
struct StopOnDrop(Option<watch::Sender<bool>>);

impl StopOnDrop {
    fn send(&self, stop: bool) {
        if let Some(tx) = &self.0 {
            let _ = tx.send(stop);
        }
    }

    fn disarm(mut self) {
        self.0 = None;
    }
}

impl Drop for StopOnDrop {
    fn drop(&mut self) {
        if let Some(tx) = self.0.take() {
            let _ = tx.send(true);
        }
    }
}

impl Drop for AbortOnDrop {
    fn drop(&mut self) {
        self.0.abort();
    }
}

/// Whether downloads are paused by the reader.
pub fn is_paused(store: &Store) -> Result<bool, StoreError> {
    Ok(settings::get::<DownloadsPaused>(store)?
        .unwrap_or_default()
        .0)
}

/// Pauses or resumes all downloads (survives restarts).
pub fn set_paused(store: &Store, paused: bool) -> Result<(), StoreError> {
    settings::set(store, &DownloadsPaused(paused))
}

#[cfg(test)]
mod tests {
    use super::file_download::file_extension;
    use super::*;

    #[test]
    fn backoff_grows_to_the_cap_with_jitter() {
        let min = Duration::from_secs(1);
        let max = Duration::from_secs(300);
        for failures in 1..30 {
            let d = backoff_delay(min, max, failures);
            let ceiling = min.saturating_mul(1 << (failures - 1).min(16)).min(max);
            assert!(
                d <= ceiling && d >= ceiling / 2,
                "{failures}: {d:?} vs {ceiling:?}"
            );
        }
        assert!(backoff_delay(min, max, 40) >= Duration::from_secs(150));
    }

    #[test]
    fn every_page_extension_written_is_one_a_page_is_looked_for_under() {
        let samples: [&[u8]; 7] = [
            b"\x89PNG\r\n\x1a\n....",
            b"\xff\xd8\xff\xe0....",
            b"GIF89a....",
            b"RIFF\0\0\0\0WEBPVP8 ",
            b"\0\0\0\x1cftypavif....",
            b"BM..........",
            b"not an image",
        ];
        for bytes in samples {
            let ext = image_extension(bytes);
            assert!(part_files::PAGE_EXTENSIONS.contains(&ext), "{ext}");
        }
        assert!(part_files::PAGE_EXTENSIONS.contains(&"bytes"));
    }

    #[test]
    fn file_types_map_to_extensions() {
        assert_eq!(file_extension(Some("application/epub+zip"), "/x"), "epub");
        assert_eq!(file_extension(None, "/books/1/file.CBZ?x=1"), "cbz");
        assert_eq!(
            file_extension(Some("application/octet-stream"), "/books/1/file"),
            "bin"
        );
    }
}
