//! The download executor: the one consumer of the download stack.
//!
//! [`Executor::run`] takes the [executor lease](crate::executor_lease) (or reports who holds
//! it), keeps it alive with a heartbeat, puts back tasks a dead holder left active, collects
//! orphaned files, queues the latest-read book, and then pops tasks one at a time — the
//! server sees one polite stream. Every write it makes is fenced by its lease epoch; when the
//! lease is lost it stops at once without touching the task.
//!
//! Failure policy: a failed `book`/`page`/`file` task goes back on the stack and the executor
//! backs off from its server (exponentially with jitter, 1 s up to 5 min, or at once when
//! something new is pushed) while the other servers' tasks go on; a local failure (the disk)
//! backs the whole run off; a failed `resource` is recorded and skipped; 404/410 fail the task with its reason;
//! 401/403 pause that server with "authentication needed". A prioritary push preempts a
//! non-prioritary whole-file download at its next chunk boundary (it is checkpointed and
//! resumed later).
//!
//! Reports through a [`ProgressSink`]. Owns no table: it drives [`crate::download_stack`],
//! [`carrel_foundation::part_files`] and [`carrel_http::http_fetch`].

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

mod file_download;
mod page_ahead;
mod stretch;

use page_ahead::{Ahead, FollowUp};

/// See [`ExecutorConfig::checkpoint_bytes`]; docs/ARCHITECTURE.md gives the measurements that
/// chose it.
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
        match self {
            ExecutorError::Store(_) | ExecutorError::Storage(_) => {
                carrel_foundation::error::ErrorKind::Storage
            }
            ExecutorError::NetworkHeld(_) => carrel_foundation::error::ErrorKind::Server,
            ExecutorError::Fetch(FetchError::Store(_)) => {
                carrel_foundation::error::ErrorKind::Storage
            }
            ExecutorError::Fetch(FetchError::Auth(_)) => carrel_foundation::error::ErrorKind::Auth,
            ExecutorError::Fetch(FetchError::Certificate(_)) => {
                carrel_foundation::error::ErrorKind::Certificate
            }
            ExecutorError::Fetch(_) => carrel_foundation::error::ErrorKind::Server,
            ExecutorError::Stack(_) => carrel_foundation::error::ErrorKind::Storage,
        }
    }
}

/// How long the executor reuses a server's address and credentials before reading them again.
const ACCESS_FRESH_FOR: Duration = Duration::from_secs(10);

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
    /// Held by the thread of the run under way (see [`Executor::run`]).
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
    progress_said: Option<(i64, Instant)>,
    /// The page the running task found in place or fetched, to hold (see [`Held`]).
    page: Option<PageToHold>,
    /// The next task, claimed in the trip to the database that held the last page.
    next_claim: Option<Result<Claimed, StackError>>,
    /// Where the chain of the running page goes next, read when it was claimed (see
    /// [`page_ahead`]).
    follow_up: Option<FollowUp>,
    /// The request for that page, sent while the running page's trip runs (see [`page_ahead`]).
    ahead: Option<Ahead>,
    /// Pages stored but not yet on the disk for sure, their tasks still active.
    held: Vec<Held>,
    /// When the oldest of `held` was stored.
    held_since: Option<Instant>,
    /// The batches before `held`, oldest first, syncing while the loop goes on (see [`Held`]).
    syncing: VecDeque<Syncing>,
    /// The pages on the disk of the book whose pages the run fetches, listed once when it
    /// comes to that book and kept up to date with what it writes (see [`Run::stored_page`]).
    pages_on_disk: Option<(i64, HashMap<i64, std::path::PathBuf>)>,
    /// The request slot kept from the last page or cover, for the next one of the same server
    /// (see [`carrel_http::server_throttle`]); let go before anything else.
    kept_slot: Option<SlotGuard>,
    /// The pages after the next one, claimed with it and not yet reached, in their order (see
    /// [`stretch`]).
    stretch: VecDeque<Task>,
    /// The push counter when the stretch was claimed: a push since ends it.
    stretch_pushes: i64,
    /// Pages put in place without a transaction (`(task id, bytes)`): their sizes go with the
    /// run's next transaction.
    unrecorded: Vec<(i64, i64)>,
    /// When the last trip's transaction (or one that recorded sizes) ended.
    recorded_at: Option<Instant>,
    /// When the last page's trip ended: pages come quickly when the next one's trip follows
    /// within [`stretch::QUIET_FOR`].
    trip_at: Option<Instant>,
}

/// A downloaded page is put in place at once (a window reads it from there once its size is
/// recorded: see [`download_stack::is_page_stored`] and [`stretch`]) but synced to the disk
/// with others: one sync for up to
/// [`HELD_MAX`] pages or [`HELD_FOR`], whichever comes first, made on a blocking thread while
/// the loop fetches the next pages (up to [`SYNCING_MAX`] batches at a time). Its task is marked
/// done only after that sync, so "done" still means "on the disk" after a power cut; a process
/// killed in between leaves the file in place and the task active, and the next run takes the
/// file (of the size recorded, or — a page of a stretch whose size was not recorded yet — not
/// empty) without fetching it again.
struct Held {
    task: Task,
    book: Book,
    path: std::path::PathBuf,
}

/// A page (or a cover) the running task got: put in place by the trip to the database that
/// holds its task (one trip between two pages: see [`Run::hold_page`]).
enum PageToHold {
    /// In place already (stored before a crash, not yet marked).
    Found(std::path::PathBuf),
    /// Fetched: these bytes go to this path.
    Fetched(std::path::PathBuf, Vec<u8>),
}

/// What the trip to the database between two pages did (see [`Run::hold_page`]).
struct PageTrip {
    /// The page's book has nothing left to chain to (the page is a part of it).
    last: bool,
    /// The next task, when the trip claimed it.
    next: Option<Claimed>,
    /// A look at the kept request slot, for the next task's request.
    look: Option<server_throttle::KeptLook>,
    /// What became of the stretch (see [`stretch`]).
    stretch: StretchTrip,
}

/// What a trip between two pages did with the stretch of pages claimed ahead.
enum StretchTrip {
    /// The page was put in place without a transaction; the next page is the stretch's first.
    Quiet,
    /// A transaction recorded the sizes waiting, held the page and went on to the stretch's
    /// first page.
    WentOn,
    /// A transaction recorded the sizes waiting and gave the stretch back (if there was one);
    /// these pages, claimed after the next task, are the new one (the push counter then).
    Claimed(Vec<Task>, i64),
}

/// Why the trip between two pages failed.
enum TripFailure {
    /// The page could not be put in place: the failure policy's, as any disk error.
    Write(std::io::Error),
    Stack(StackError),
}

impl From<StackError> for TripFailure {
    fn from(e: StackError) -> Self {
        TripFailure::Stack(e)
    }
}

impl From<StoreError> for TripFailure {
    fn from(e: StoreError) -> Self {
        TripFailure::Stack(e.into())
    }
}

/// A batch of held pages syncing on a blocking thread while the loop fetches the next ones;
/// its tasks are marked done once the sync is over (see [`Run::finish_oldest_sync`]).
struct Syncing {
    held: Vec<Held>,
    done: tokio::task::JoinHandle<std::io::Result<()>>,
}

/// See [`Held`].
const HELD_MAX: usize = 64;
/// See [`Held`].
const HELD_FOR: Duration = Duration::from_millis(250);
/// See [`Held`]. A book's last page starts the sync of its batch: the next book's last page
/// need not wait for it (nor a small file: see [`QUICK_FILE_BYTES`]); only a run's end, a large
/// file or a fifth batch does.
const SYNCING_MAX: usize = 4;
/// A whole file up to this size is fetched while the pages held before it sync: their books are
/// said stored after it, once their syncs are over. A larger file (or one of unknown size) may
/// take minutes: they are synced and marked before it starts. On loopback, waiting for a comic's
/// sync before each of two small EPUBs cost a tenth of the download row's time.
const QUICK_FILE_BYTES: i64 = 4 << 20;

/// See [`Run::progress_said`].
const PROGRESS_EVERY: Duration = Duration::from_millis(250);

/// A server the executor backs off from.
#[derive(Debug, Clone)]
struct ServerBackoff {
    /// Failures in a row.
    failures: u32,
    retry_at: Instant,
    reason: String,
    /// The push counter when it failed: a prioritary push after it retries at once.
    since_push: i64,
}

/// The servers in backoff: a server that cannot be reached does not hold up the others.
#[derive(Debug, Default)]
struct Backoffs(HashMap<i64, ServerBackoff>);

impl Backoffs {
    /// Notes a failure of `server` (`pushes`: the push counter then); returns how long its
    /// tasks now wait.
    fn failed(
        &mut self,
        server: i64,
        reason: &str,
        pushes: i64,
        config: &ExecutorConfig,
    ) -> Duration {
        let failures = self.0.get(&server).map_or(0, |b| b.failures) + 1;
        let delay = backoff_delay(config.backoff_min, config.backoff_max, failures);
        self.0.insert(
            server,
            ServerBackoff {
                failures,
                retry_at: Instant::now() + delay,
                reason: reason.to_owned(),
                since_push: pushes,
            },
        );
        delay
    }

    /// The servers still waiting, with the push counter from when they last failed.
    fn waiting_since(&self) -> Vec<(i64, i64)> {
        let now = Instant::now();
        self.0
            .iter()
            .filter(|(_, b)| b.retry_at > now)
            .map(|(id, b)| (*id, b.since_push))
            .collect()
    }

    /// The reader asked for something of `server`: it is tried again now (a failure then backs
    /// off for longer, as the failures in a row are kept).
    fn retry_server_now(&mut self, server: i64, pushes: i64) {
        if let Some(b) = self.0.get_mut(&server) {
            b.retry_at = Instant::now();
            b.since_push = pushes;
        }
    }

    fn succeeded(&mut self, server: i64) {
        self.0.remove(&server);
    }

    /// The servers whose tasks must still wait.
    fn waiting(&self) -> Vec<i64> {
        let now = Instant::now();
        let mut ids: Vec<i64> = self
            .0
            .iter()
            .filter(|(_, b)| b.retry_at > now)
            .map(|(id, _)| *id)
            .collect();
        ids.sort_unstable();
        ids
    }

    /// The server retried soonest among `servers` (its time may have come already).
    fn next_retry_among(&self, servers: &[i64]) -> Option<&ServerBackoff> {
        servers
            .iter()
            .filter_map(|id| self.0.get(id))
            .min_by_key(|b| b.retry_at)
    }

    fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    /// Something new was asked for: every server is tried again at once (a failure then backs
    /// off for longer, as the failures in a row are kept).
    fn retry_now(&mut self) {
        let now = Instant::now();
        for b in self.0.values_mut() {
            b.retry_at = b.retry_at.min(now);
        }
    }
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
    /// of the run there. The loop's database work (a trip between two pages, the claim, the
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
            progress_said: None,
            page: None,
            next_claim: None,
            follow_up: None,
            ahead: None,
            held: Vec::new(),
            held_since: None,
            syncing: VecDeque::new(),
            pages_on_disk: None,
            kept_slot: None,
            stretch: VecDeque::new(),
            stretch_pushes: 0,
            unrecorded: Vec::new(),
            recorded_at: None,
            trip_at: None,
            mode,
        };
        let mut result = run.work(mode, &mut shutdown).await;
        run.give_up_ahead().await;
        run.let_slot_go().await;
        // Whatever ended the run, the pages claimed ahead and not reached go back.
        run.give_back_next_claim().await;
        // Whatever ended the run, the pages stored are synced and marked (unless the lease is
        // gone: the next holder takes them from the disk).
        if let Err(e) = run.sync_held().await {
            if result.is_ok() && !matches!(result, Ok(Finish::LeaseLost)) {
                result = Err(e);
            }
        }
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

/// What the waiting executor watches: a push or a pause change wakes it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Watch {
    pushes: i64,
    paused: bool,
    /// Servers paused for authentication: resuming one makes its tasks claimable again.
    paused_servers: i64,
    /// The network (up, metered, allowed): a link coming back retries servers in backoff at
    /// once, and one no longer metered (or allowed) lets downloads run.
    network: Option<(bool, bool, bool)>,
}

fn watch_now(store: &Store) -> Result<Watch, StoreError> {
    Ok(Watch {
        pushes: download_stack::push_counter(store)?,
        paused: is_paused(store)?,
        paused_servers: carrel_library::servers::paused_count(store)?,
        network: crate::network::watched(store)?,
    })
}

/// What the loop's one trip to the database found.
enum Claimed {
    Paused,
    Nothing,
    /// The task, its book, and where its chain goes next (see [`page_ahead`]).
    Task(Task, Box<Result<Book, books::BookError>>, Option<FollowUp>),
}

fn claimed_task(store: &Store, task: Task) -> Claimed {
    let book = books::get(store, task.book_id);
    let next = book
        .as_ref()
        .ok()
        .and_then(|b| page_ahead::follow_up(store, b, &task));
    Claimed::Task(task, Box::new(book), next)
}

/// Whether a prioritary task of a server not in `skip` waits.
fn has_prioritary_pending(store: &Store, skip: &[i64]) -> bool {
    matches!(download_stack::peek(store, skip), Ok(Some(t)) if t.prioritary)
}

fn backoff_delay(min: Duration, max: Duration, failures: u32) -> Duration {
    let exp = min.saturating_mul(1u32 << failures.saturating_sub(1).min(16));
    let capped = exp.min(max);
    // Full jitter in the upper half: never hammer, never synchronise with other clients.
    let half = capped / 2;
    half + half.mul_f64(rand::random::<f64>())
}

/// Why [`Run::wait_for_change`] returned.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Wake {
    Changed,
    Timeout,
    Stop,
}

impl Run<'_> {
    async fn work(
        &mut self,
        mode: RunMode,
        shutdown: &mut Shutdown,
    ) -> Result<Finish, ExecutorError> {
        self.start_up().await?;
        if self.lost.load(Ordering::SeqCst) {
            return Ok(Finish::LeaseLost);
        }
        loop {
            if self.lost.load(Ordering::SeqCst) {
                return Ok(Finish::LeaseLost);
            }
            if *shutdown.borrow() {
                self.give_back_next_claim().await;
                return Ok(Finish::Shutdown);
            }
            // The reader asked for something of a server in backoff (opened a book, a window
            // wants a page): that server is tried again at once, even while others have work.
            if !self.backoffs.is_empty() {
                let pushes = self.ex.db(download_stack::push_counter).await?;
                if self.seen_pushes != Some(pushes) {
                    self.seen_pushes = Some(pushes);
                    let waiting: Vec<(i64, i64)> = self.backoffs.waiting_since();
                    let asked = self
                        .ex
                        .db(move |s| -> Result<Vec<i64>, StoreError> {
                            let mut asked = Vec::new();
                            for (server, since) in waiting {
                                if download_stack::prioritary_pushed_since(s, server, since)? {
                                    asked.push(server);
                                }
                            }
                            Ok(asked)
                        })
                        .await?;
                    for server in asked {
                        self.backoffs.retry_server_now(server, pushes);
                    }
                }
            }
            // A batch whose sync is over is marked done now, whatever comes next.
            if let Err(e) = self.reap_sync().await {
                self.give_back_next_claim().await;
                return lost_or(e);
            }
            let fence = self.fence.clone();
            let skip = self.backoffs.waiting();
            let skipped = skip.clone();
            // One trip to the database per task taken: the pause switch, the claim and the
            // claimed task's book — made by the trip that held the last page, if it could.
            let claimed = match self.next_claim.take() {
                Some(claimed) => claimed,
                None => {
                    // Sizes not yet recorded and a stretch not reached (after a trip that
                    // failed) are settled first, in the claim's transaction.
                    let sizes = self.unrecorded.clone();
                    let stretch: Vec<Task> = self.stretch.iter().cloned().collect();
                    let claimed = self
                        .ex
                        .db(move |s| -> Result<Claimed, StackError> {
                            // One transaction, its reads through the writer (see `Store::write`).
                            s.write(|tx| {
                                download_stack::record_sizes_in(s, tx, &fence, &sizes)?;
                                download_stack::give_back_run_in(s, tx, &fence, &stretch)?;
                                // Paused by the reader, or waiting for a link that is not metered.
                                if is_paused(s)? || crate::network::hold(s)?.is_some() {
                                    return Ok(Claimed::Paused);
                                }
                                Ok(match download_stack::claim_next_in(s, tx, &fence, &skip)? {
                                    None => Claimed::Nothing,
                                    Some(task) => claimed_task(s, task),
                                })
                            })
                        })
                        .await;
                    if claimed.is_ok() {
                        if !self.unrecorded.is_empty() {
                            // Readable now (see `stretch`).
                            self.ex.store.wake_waiters();
                        }
                        self.unrecorded.clear();
                        self.stretch.clear();
                    }
                    claimed
                }
            };
            // A request sent ahead serves the page claimed, or is over before anything else.
            let claimed_task = match &claimed {
                Ok(Claimed::Task(task, _, _)) => Some(task),
                _ => None,
            };
            self.settle_ahead(claimed_task, shutdown).await;
            let claimed = match claimed {
                Ok(Claimed::Paused) => {
                    self.let_slot_go().await;
                    if let Err(e) = self.sync_held().await {
                        return lost_or(e);
                    }
                    if matches!(mode, RunMode::UntilIdle) {
                        // A run until idle does not wait for the link to change.
                        if let Some(reason) = self.ex.db(crate::network::hold).await? {
                            return Err(ExecutorError::NetworkHeld(reason.to_owned()));
                        }
                    }
                    self.ex.report(DownloadEvent::State(ExecutorState::Paused));
                    // Whatever woke us, the loop's head decides what comes next.
                    self.wait_for_change(None, shutdown).await?;
                    continue;
                }
                Ok(Claimed::Nothing) => None,
                Ok(Claimed::Task(task, book, follow_up)) => {
                    self.follow_up = follow_up;
                    Some((task, *book))
                }
                Err(StackError::LeaseLost(_)) => return Ok(Finish::LeaseLost),
                // The database cannot be written (its disk is full): the stack stays as it is.
                Err(e) => return Err(ExecutorError::Storage(e.to_string())),
            };
            // The slot kept from the last request serves only another page or cover of the
            // same server; anything else (another server, a file, nothing left) lets it go. A
            // request ahead still here is the claimed page's own, on that slot.
            let keeps_slot = self.ahead.is_some()
                || claimed.as_ref().is_some_and(|(t, _)| {
                    matches!(t.kind, TaskKind::Page | TaskKind::Resource)
                        && self
                            .kept_slot
                            .as_ref()
                            .is_some_and(|s| s.server_id() == t.server_id)
                });
            if !keeps_slot {
                self.let_slot_go().await;
            }
            // Pages held wait for their sync no longer than the next task that is not a page
            // (their sync then starts while that task runs), a large whole file (which may take
            // minutes: they are synced and marked first; see `QUICK_FILE_BYTES`) or the end of
            // the stack (likewise).
            let quick_file = |b: &Result<Book, books::BookError>| {
                b.as_ref()
                    .is_ok_and(|b| b.file_length.is_some_and(|n| n <= QUICK_FILE_BYTES))
            };
            let synced = match claimed.as_ref().map(|(t, b)| (t.kind, b)) {
                None => self.sync_held().await,
                Some((TaskKind::File, b)) if !quick_file(b) => self.sync_held().await,
                Some((TaskKind::Page, _))
                    if self.held_since.is_none_or(|t| t.elapsed() < HELD_FOR) =>
                {
                    Ok(false)
                }
                Some(_) => self.start_sync().await.map(|()| false),
            };
            let synced = match synced {
                Ok(synced) => synced,
                Err(e) => {
                    if let Some((task, _)) = &claimed {
                        self.put_back(task.id).await;
                    }
                    return lost_or(e);
                }
            };
            if synced && claimed.is_none() {
                // A book said stored just now may have queued another (the latest read): the
                // stack is looked at again before anything is decided on "nothing left".
                continue;
            }
            let Some((task, book)) = claimed else {
                // Decided on the servers this claim skipped (a backoff may have ended since).
                if let Some(next) = self.backoffs.next_retry_among(&skipped) {
                    // Only servers in backoff have work left: wait for the first of them, or
                    // for something new to try.
                    let wait = next.retry_at.saturating_duration_since(Instant::now());
                    let reason = next.reason.clone();
                    let retry_at_ms = self.ex.store.now_ms() + wait.as_millis() as i64;
                    self.ex.report(DownloadEvent::State(ExecutorState::Backoff {
                        reason,
                        retry_at_ms,
                    }));
                    if self.wait_for_change(Some(wait), shutdown).await? == Wake::Changed {
                        self.backoffs.retry_now();
                    }
                    continue;
                }
                match mode {
                    RunMode::UntilIdle => {
                        // Idle means nothing left: a task still active here was stranded.
                        let active = self
                            .ex
                            .db(|s| download_stack::in_state(s, TaskState::Active, 100))
                            .await?;
                        if !active.is_empty() {
                            return Err(ExecutorError::Storage(format!(
                                "{} downloads were left unfinished",
                                active.len()
                            )));
                        }
                        return Ok(Finish::Idle);
                    }
                    RunMode::Forever => {
                        self.ex.report(DownloadEvent::State(ExecutorState::Idle));
                        self.wait_for_change(None, shutdown).await?;
                        continue;
                    }
                }
            };
            self.ex.report(DownloadEvent::State(ExecutorState::Running));
            self.ex.report(DownloadEvent::TaskStarted {
                task_id: task.id,
                book_id: task.book_id,
                kind: task.kind,
                position: task.position,
            });
            let outcome = {
                let stopped = self.stopped(shutdown);
                let execute = self.execute(&task, book);
                tokio::select! {
                    o = execute => Some(o),
                    () = stopped => None,
                }
            };
            let Some(outcome) = outcome else {
                // Lost the lease or asked to stop mid-task: the partial work is checkpointed
                // or discarded; put the task back if we still may.
                if !self.lost.load(Ordering::SeqCst) {
                    self.put_back(task.id).await;
                    return Ok(Finish::Shutdown);
                }
                return Ok(Finish::LeaseLost);
            };
            if let Some(finish) = self.settle(&task, outcome, shutdown).await? {
                return Ok(finish);
            }
        }
    }

    /// Ends when the run is asked to stop or loses its lease (looked at every `wake_poll`):
    /// what a step that may take a while (a request) is raced against.
    fn stopped(&self, shutdown: &Shutdown) -> impl std::future::Future<Output = ()> + 'static {
        let (lost, poll, mut stop) = (
            self.lost.clone(),
            self.ex.config.wake_poll,
            shutdown.clone(),
        );
        async move {
            tokio::select! {
                _ = stop.wait_for(|s| *s) => {}
                _ = async { while !lost.load(Ordering::SeqCst) { tokio::time::sleep(poll).await } } => {}
            }
        }
    }

    async fn start_up(&mut self) -> Result<(), ExecutorError> {
        let fence = self.fence.clone();
        match self
            .ex
            .db(move |s| download_stack::reconcile(s, &fence))
            .await
        {
            Ok(n) if n > 0 => {
                tracing::info!(tasks = n, "put back tasks a stopped executor left active")
            }
            Ok(_) => {}
            Err(StackError::LeaseLost(_)) => {
                self.lost.store(true, Ordering::SeqCst);
                return Ok(());
            }
            Err(e) => return Err(e.into()),
        }
        let files = self.ex.files.clone();
        let collected = self
            .ex
            .db(move |s| -> Result<Vec<std::path::PathBuf>, StoreError> {
                let known: HashSet<i64> = books::all_ids(s)?.into_iter().collect();
                let resumable: HashSet<i64> = download_stack::books_with_unfinished_files(s)?
                    .into_iter()
                    .collect();
                Ok(files
                    .collect_orphans(&known, &resumable)
                    .unwrap_or_else(|e| {
                        tracing::warn!(cause = %e, "could not collect orphaned files");
                        Vec::new()
                    }))
            })
            .await?;
        if !collected.is_empty() {
            tracing::info!(files = collected.len(), "collected orphaned files");
        }
        self.queue_latest_read().await;
        Ok(())
    }

    async fn queue_latest_read(&self) {
        let queued = self
            .ex
            .db(|s| {
                let n = settings::get::<BooksKept>(s)
                    .ok()
                    .flatten()
                    .unwrap_or_default()
                    .0;
                book_downloads::queue_latest_read(s, n)
            })
            .await;
        match queued {
            Ok(Some(book)) => tracing::info!(book, "queued a recently read book"),
            Ok(None) => {}
            Err(e) => tracing::warn!(cause = %e, "could not queue the latest read book"),
        }
    }

    /// Waits until something is pushed, the pause flag changes, `timeout` passes, or we must stop.
    async fn wait_for_change(
        &self,
        timeout: Option<Duration>,
        shutdown: &mut Shutdown,
    ) -> Result<Wake, ExecutorError> {
        let start = self.ex.db(watch_now).await?;
        let deadline = timeout.map(|t| Instant::now() + t);
        loop {
            if self.lost.load(Ordering::SeqCst) || *shutdown.borrow() {
                return Ok(Wake::Stop);
            }
            if deadline.is_some_and(|d| Instant::now() >= d) {
                return Ok(Wake::Timeout);
            }
            tokio::select! {
                _ = tokio::time::sleep(self.ex.config.wake_poll) => {}
                // A dropped sender can never ask to stop: keep polling at the usual pace.
                changed = shutdown.changed() => match changed {
                    Ok(()) => return Ok(Wake::Stop),
                    Err(_) => tokio::time::sleep(self.ex.config.wake_poll).await,
                },
            }
            if self.ex.db(watch_now).await? != start {
                return Ok(Wake::Changed);
            }
        }
    }

    fn report_done(&self, task: &Task, bytes: u64) {
        self.ex.report(DownloadEvent::TaskDone {
            task_id: task.id,
            book_id: task.book_id,
            kind: task.kind,
            position: task.position,
            bytes,
        });
        // Stored, and said: a window waiting for it may look now.
        self.ex.store.wake_waiters();
    }

    /// Applies the failure policy to a task's outcome. `Some` ends the run.
    async fn settle(
        &mut self,
        task: &Task,
        outcome: Result<(u64, Book), TaskError>,
        shutdown: &mut Shutdown,
    ) -> Result<Option<Finish>, ExecutorError> {
        let page = self.page.take();
        let outcome = match (outcome, page) {
            (Ok((bytes, book)), Some(page)) => {
                match self.hold_page(task, bytes, book, page).await {
                    Ok(settled) => return settled,
                    // Not in place: the failure policy's, as any disk error.
                    Err(e) => Err(TaskError::Disk(e)),
                }
            }
            (outcome, _) => outcome,
        };
        // Not a page held: the stretch claimed ahead (if any) ends here, before anything this
        // task chains to is pushed (see `stretch`).
        match self.end_stretch().await {
            Ok(()) => {}
            Err(StackError::LeaseLost(_)) => return Ok(Some(Finish::LeaseLost)),
            Err(e) => return Err(ExecutorError::Storage(e.to_string())),
        }
        let fence = self.fence.clone();
        let id = task.id;
        if outcome.is_err() {
            // A failure may be waited out (a backoff): not with the server's slot kept.
            self.let_slot_go().await;
        }
        let result = match outcome {
            Ok((bytes, book)) => {
                self.failures = 0;
                self.backoffs.succeeded(task.server_id);
                // Only a part can complete a book: "stored" is said once.
                let book_part = task.kind.is_part() && !book_downloads::is_file_part(&task.url);
                let due = !matches!(self.progress_said, Some((b, at)) if b == task.book_id && at.elapsed() < PROGRESS_EVERY);
                let t = task.clone();
                // One trip to the database per task done: what it chains to, its completion,
                // and where its book stands.
                let r = self
                    .ex
                    .db(move |s| -> Result<Option<BookProgress>, StackError> {
                        let follow_ups = book_downloads::next_parts(s, &book, &t)?;
                        download_stack::complete(s, &fence, id, bytes as i64, &follow_ups)?;
                        // Nothing left to chain to: the book may be complete, which is said
                        // whatever the time.
                        let count = book_part && (due || follow_ups.is_empty());
                        Ok(count
                            .then(|| book_downloads::progress(s, &book).ok())
                            .flatten())
                    })
                    .await;
                match r {
                    Ok(progress) => {
                        self.report_done(task, bytes);
                        if let Some(progress) = progress {
                            self.progress_said = Some((task.book_id, Instant::now()));
                            self.report_progress(progress).await;
                        }
                        Ok(())
                    }
                    Err(e) => Err(e),
                }
            }
            Err(TaskError::Preempted) => {
                tracing::info!(task = id, "paused a file download for a prioritary task");
                self.ex
                    .db(move |s| download_stack::requeue(s, &fence, id, None))
                    .await
            }
            Err(TaskError::Stack(e)) => Err(e),
            Err(TaskError::Fetch(FetchError::Auth(status))) => {
                let server = task.server_id;
                self.access.remove(&server);
                let reason = format!("authentication needed ({})", status.as_u16());
                self.report_failed(task, &reason, true);
                let r = self.ex.db(move |s| -> Result<(), StackError> {
                    carrel_library::servers::set_paused(s, server, Some("authentication needed"))?;
                    download_stack::requeue(s, &fence, id, Some(&reason))
                });
                r.await
            }
            Err(TaskError::Fetch(e))
                if task.kind == TaskKind::Resource
                    || matches!(
                        e,
                        FetchError::Gone(_) | FetchError::TooLarge(_) | FetchError::Oversized(_)
                    ) =>
            {
                // For good: a missing page, an oversized one, or a failed extra. A page's
                // chain goes on past it.
                let reason = e.to_string();
                self.report_failed(task, &reason, false);
                let t = task.clone();
                let failed = self
                    .ex
                    .db(move |s| {
                        let follow_ups = match books::get(s, t.book_id) {
                            Ok(book) if t.kind == TaskKind::Page => {
                                book_downloads::next_parts(s, &book, &t)?
                            }
                            _ => Vec::new(),
                        };
                        download_stack::fail(s, &fence, id, &reason, &follow_ups)
                    })
                    .await;
                // A window waiting for it is told at once that it will not come.
                self.ex.store.wake_waiters();
                failed
            }
            Err(e) => {
                // The server (or the disk) is probably away: back on the stack, and back off.
                if let TaskError::Fetch(FetchError::Certificate(_)) = &e {
                    // The reader may trust the server meanwhile: read its settings again.
                    self.access.remove(&task.server_id);
                }
                let reason = match &e {
                    TaskError::Disk(io) if part_files::is_disk_full(io) => {
                        "the disk is full".to_owned()
                    }
                    TaskError::Disk(io) => format!("cannot write the download: {io}"),
                    TaskError::NoRoom(reason) => reason.clone(),
                    TaskError::Fetch(f) => f.to_string(),
                    _ => "interrupted".to_owned(),
                };
                // Read before the failure is reported: a push made as soon as it is seen (the
                // reader asking again) must count as newer than the failure.
                let pushes = match &e {
                    TaskError::Fetch(_) => self
                        .ex
                        .db(download_stack::push_counter)
                        .await
                        .unwrap_or(i64::MAX),
                    _ => 0,
                };
                self.report_failed(task, &reason, true);
                let r = {
                    let reason = reason.clone();
                    self.ex
                        .db(move |s| download_stack::requeue(s, &fence, id, Some(&reason)))
                        .await
                };
                match r {
                    Err(StackError::LeaseLost(_)) => return Ok(Some(Finish::LeaseLost)),
                    // The task could not be put back (the database's disk is full too): stop
                    // rather than leave it active behind an executor that looks idle; the next
                    // run puts it back.
                    Err(other) => return Err(ExecutorError::Storage(format!("{reason}; {other}"))),
                    Ok(()) => {}
                }
                if let TaskError::Fetch(_) = &e {
                    // The server's trouble: its tasks wait, the other servers' go on (the
                    // loop's head waits once only servers in backoff have work left).
                    let delay =
                        self.backoffs
                            .failed(task.server_id, &reason, pushes, &self.ex.config);
                    tracing::warn!(task = id, server = task.server_id, %reason, delay_ms = delay.as_millis() as u64, "download failed; backing off from the server");
                    return Ok(None);
                }
                if self.mode == RunMode::UntilIdle {
                    return Err(ExecutorError::Storage(reason));
                }
                self.failures += 1;
                let delay = backoff_delay(
                    self.ex.config.backoff_min,
                    self.ex.config.backoff_max,
                    self.failures,
                );
                let retry_at_ms = self.ex.store.now_ms() + delay.as_millis() as i64;
                tracing::warn!(task = id, %reason, delay_ms = delay.as_millis() as u64, "download failed; backing off");
                self.ex.report(DownloadEvent::State(ExecutorState::Backoff {
                    reason,
                    retry_at_ms,
                }));
                // A push, the delay, or a stop: the loop's head decides what comes next.
                self.wait_for_change(Some(delay), shutdown).await?;
                return Ok(None);
            }
        };
        match result {
            Ok(()) => Ok(None),
            Err(StackError::LeaseLost(_)) => Ok(Some(Finish::LeaseLost)),
            Err(StackError::WrongState(t)) => {
                tracing::info!(
                    task = t,
                    "task vanished while running (its book was removed)"
                );
                Ok(None)
            }
            // The task could not be settled (the database's disk is full): it stays active
            // and the next run puts it back.
            Err(e) => Err(ExecutorError::Storage(e.to_string())),
        }
    }

    /// A page fetched (or found in place): one trip to the database puts it in place, holds its
    /// task for the next sync (see [`Held`]) and, unless a sync must come first or a server is
    /// in backoff, claims the next task — with a look at the kept request slot when that task
    /// is another page of the same server. Between two pages of a download that is one trip
    /// instead of four (write, hold, claim, look), each a hand-over to a blocking thread and
    /// back. The claim sees the stack as a trip of its own would a moment later: the loop's
    /// head takes it as it would its own claim. Before the trip, the page the chain goes on to
    /// is asked for, so that its answer comes while the trip runs (see [`page_ahead`]). Fails
    /// only when the page cannot be written.
    async fn hold_page(
        &mut self,
        task: &Task,
        bytes: u64,
        book: Book,
        page: PageToHold,
    ) -> Result<Result<Option<Finish>, ExecutorError>, std::io::Error> {
        let (path, body) = match page {
            PageToHold::Found(path) => (path, None),
            PageToHold::Fetched(path, body) => (path, Some(body)),
        };
        let claim = self.held.len() + 1 < HELD_MAX && self.backoffs.is_empty();
        let kept = self
            .kept_slot
            .as_ref()
            .map(|slot| (slot.server_id(), slot.holder().to_owned()));
        // Pages come quickly: this one may go in place without a transaction, the next page
        // claimed already (see `stretch`), and a trip that claims may claim a stretch.
        let recent = |at: Option<Instant>| at.is_some_and(|at| at.elapsed() < stretch::QUIET_FOR);
        let quick = recent(self.recorded_at) && recent(self.trip_at);
        let unrecorded_bytes: u64 = self.unrecorded.iter().map(|&(_, b)| b as u64).sum();
        // Looked at once, before the request ahead: the same look serves both. (Unable to
        // look — a busy disk — the trip's transaction says what is wrong, if anything.)
        let quiet = (claim
            && quick
            && task.kind == TaskKind::Page
            && unrecorded_bytes + bytes < CHECKPOINT_BYTES)
            .then(|| self.stretch.front().cloned())
            .flatten()
            .map(|next| stretch::QuietLook {
                pushes: self.stretch_pushes,
                task_id: task.id,
                next,
                kept: kept.clone(),
            })
            .and_then(
                |q| match stretch::quiet_look(&self.ex.store, &self.fence, &q) {
                    Ok(Some(look)) => Some((q, look)),
                    _ => None,
                },
            );
        // The chain's next page asked for now, while the trip runs (see `page_ahead`).
        let follow_up = self.follow_up.take().filter(|f| f.after == task.id);
        let looked = quiet.as_ref().and_then(|(_, look)| look.clone());
        let sent_ahead = follow_up.is_some_and(|next| self.send_ahead(&book, next, looked));
        let claim_stretch = quick && stretch::may_stretch(task);
        let stretch: Vec<Task> = self.stretch.iter().cloned().collect();
        let stretch_pushes = self.stretch_pushes;
        let sizes = self.unrecorded.clone();
        let (fence, id, at) = (self.fence.clone(), task.id, path.clone());
        let (b, t) = (book.clone(), task.clone());
        let trip = move |s: &Store| -> Result<PageTrip, TripFailure> {
            if let Some(body) = body {
                part_files::write_atomically_unsynced(&at, &body).map_err(TripFailure::Write)?;
            }
            if let Some((q, look)) = quiet {
                let follow_up = stretch
                    .get(1)
                    .map(|after| stretch::follow_up_in_stretch(&q.next, after))
                    .or_else(|| page_ahead::follow_up(s, &b, &q.next));
                return Ok(PageTrip {
                    last: false,
                    next: Some(Claimed::Task(q.next, Box::new(Ok(b)), follow_up)),
                    look,
                    stretch: StretchTrip::Quiet,
                });
            }
            // One transaction for all of it: its reads go through the writer's connection
            // (see `Store::write`), which has every page they need in its cache.
            s.write(|tx| {
                download_stack::record_sizes_in(s, tx, &fence, &sizes)?;
                let follow_ups = book_downloads::next_parts(s, &b, &t)?;
                // A part with nothing left to chain to: its book may be complete, which is
                // said once its sync is over — started at once (a cover waits for the batch).
                let last = follow_ups.is_empty() && t.kind.is_part();
                // Nothing claimed while paused (or when the switch cannot be read: the
                // loop's own claim says why).
                let paused = || -> Result<bool, StoreError> {
                    Ok(is_paused(s)? || crate::network::hold(s)?.is_some())
                };
                let looked = |next: &Task| match &kept {
                    Some((server, holder))
                        if next.server_id == *server
                            && matches!(next.kind, TaskKind::Page | TaskKind::Resource) =>
                    {
                        server_throttle::look_at_kept(s, *server, holder).ok()
                    }
                    _ => None,
                };
                if let Some(next) = stretch.first() {
                    // The stretch goes on when nothing came in between: the page's follow-up is
                    // its first page, already claimed.
                    let goes_on = claim
                        && !last
                        && matches!(paused(), Ok(false))
                        && download_stack::push_counter(s)? == stretch_pushes
                        && matches!(follow_ups.as_slice(), [f] if f.position == next.position && f.url == next.url)
                        && download_stack::still_claimed(s, &fence, &[next.id])?;
                    if goes_on {
                        download_stack::hold_in(s, tx, &fence, id, bytes as i64, &[])?;
                        let follow_up = stretch
                            .get(1)
                            .map(|after| stretch::follow_up_in_stretch(next, after))
                            .or_else(|| page_ahead::follow_up(s, &b, next));
                        return Ok(PageTrip {
                            last: false,
                            look: looked(next),
                            next: Some(Claimed::Task(next.clone(), Box::new(Ok(b)), follow_up)),
                            stretch: StretchTrip::WentOn,
                        });
                    }
                    // Given back before the page's follow-up is pushed again.
                    download_stack::give_back_run_in(s, tx, &fence, &stretch)?;
                }
                if !claim || last || !matches!(paused(), Ok(false)) {
                    download_stack::hold_in(s, tx, &fence, id, bytes as i64, &follow_ups)?;
                    return Ok(PageTrip {
                        last,
                        next: None,
                        look: None,
                        stretch: StretchTrip::Claimed(Vec::new(), 0),
                    });
                }
                let run_on = match follow_ups.as_slice() {
                    [f] if claim_stretch && f.kind == TaskKind::Page => {
                        book_downloads::pages_after(s, &b, t.position, f, stretch::STRETCH_AHEAD)?
                    }
                    _ => Vec::new(),
                };
                let (next, after) = download_stack::hold_then_claim_run_in(
                    s,
                    tx,
                    &fence,
                    id,
                    bytes as i64,
                    &follow_ups,
                    &run_on,
                    &[],
                )?;
                let pushes = if after.is_empty() {
                    0
                } else {
                    download_stack::push_counter(s)?
                };
                // The request slot kept for this server serves the next page if no one
                // else wants it: looked at now rather than in a trip of the request's own.
                let look = next.as_ref().and_then(looked);
                let next = Some(match next {
                    None => Claimed::Nothing,
                    Some(task) => match after.first() {
                        Some(first) => {
                            let follow_up = stretch::follow_up_in_stretch(&task, first);
                            Claimed::Task(task, Box::new(Ok(b)), Some(follow_up))
                        }
                        None => claimed_task(s, task),
                    },
                });
                Ok(PageTrip {
                    last,
                    next,
                    look,
                    stretch: StretchTrip::Claimed(after, pushes),
                })
            })
        };
        if sent_ahead {
            // The request sent ahead goes on the wire before the trip holds this thread: in one
            // turn of the runtime its task hands it to its connection's task, which writes it
            // out. The server answers while the trip runs. (The trip made on a blocking thread
            // instead cost more in hand-overs between threads than the overlap saved.)
            tokio::task::yield_now().await;
        }
        let trip = self.ex.db(trip).await;
        let trip = match trip {
            Ok(trip) => trip,
            Err(TripFailure::Write(e)) => return Err(e),
            Err(TripFailure::Stack(StackError::LeaseLost(_))) => {
                return Ok(Ok(Some(Finish::LeaseLost)))
            }
            Err(TripFailure::Stack(StackError::WrongState(t))) => {
                tracing::info!(
                    task = t,
                    "task vanished while running (its book was removed)"
                );
                return Ok(Ok(None));
            }
            // The task could not be held (the database's disk is full): it stays active and
            // the next run takes the page in place.
            Err(TripFailure::Stack(e)) => return Ok(Err(ExecutorError::Storage(e.to_string()))),
        };
        self.trip_at = Some(Instant::now());
        match trip.stretch {
            StretchTrip::Quiet => {
                self.stretch.pop_front();
                self.unrecorded.push((task.id, bytes as i64));
            }
            StretchTrip::WentOn => {
                self.stretch.pop_front();
                self.sizes_recorded();
            }
            StretchTrip::Claimed(after, pushes) => {
                self.stretch = after.into();
                self.stretch_pushes = pushes;
                self.sizes_recorded();
            }
        }
        self.failures = 0;
        self.backoffs.succeeded(task.server_id);
        if let Some((b, pages)) = self.pages_on_disk.as_mut() {
            if *b == task.book_id && task.kind == TaskKind::Page {
                pages.insert(task.position, path.clone());
            }
        }
        // In place, a window can read it: done as far as the reader can tell.
        self.report_done(task, bytes);
        self.held.push(Held {
            task: task.clone(),
            book,
            path,
        });
        self.held_since.get_or_insert_with(Instant::now);
        if let (Some(look), Some(slot)) = (trip.look, self.kept_slot.as_mut()) {
            slot.looked(look);
        }
        self.next_claim = trip.next.map(Ok);
        // Nothing left to chain to: the book may be complete, said once its sync is over.
        if trip.last || self.held.len() >= HELD_MAX {
            if let Err(e) = self.start_sync().await {
                return Ok(match e {
                    ExecutorError::Stack(StackError::LeaseLost(_)) => Ok(Some(Finish::LeaseLost)),
                    other => Err(other),
                });
            }
        }
        Ok(Ok(None))
    }

    /// Puts back a task the last page's trip claimed and the loop will not run (it stops).
    async fn give_back_next_claim(&mut self) {
        if let Some(Ok(Claimed::Task(task, _, _))) = self.next_claim.take() {
            if !self.lost.load(Ordering::SeqCst) {
                self.put_back(task.id).await;
            }
        }
        if !self.lost.load(Ordering::SeqCst) {
            if let Err(e) = self.end_stretch().await {
                tracing::warn!(cause = %e, "could not give back the pages claimed ahead; the next run does");
            }
        }
    }

    /// Puts a task this run claimed back on the stack where it was, with no failure to show
    /// (the run stops, or cannot go on). One that cannot be put back (the lease just lost, the
    /// database's disk full) is put back by the next run.
    async fn put_back(&self, task_id: i64) {
        let fence = self.fence.clone();
        if let Err(e) = self
            .ex
            .db(move |s| download_stack::requeue(s, &fence, task_id, None))
            .await
        {
            tracing::warn!(task = task_id, cause = %e, "could not put back a claimed task; the next run does");
        }
    }

    /// Syncs the held pages to the disk, then marks their tasks done (a transaction per batch)
    /// and says where their books stand (see [`Held`]); the batches already syncing are waited
    /// for (and marked) first. A batch that fails does not keep the others from being marked
    /// (unless the lease is lost): the first failure is returned once all are over. Returns
    /// whether anything was marked.
    async fn sync_held(&mut self) -> Result<bool, ExecutorError> {
        let any = !self.held.is_empty() || !self.syncing.is_empty();
        let mut first_failure = self.start_sync().await.err();
        if self.syncing.len() < SYNCING_MAX && !self.held.is_empty() {
            // The oldest batch failed before the held pages could start: they start now.
            if let Err(e) = self.start_sync().await {
                first_failure.get_or_insert(e);
            }
        }
        while !self.syncing.is_empty() {
            if matches!(
                first_failure,
                Some(ExecutorError::Stack(StackError::LeaseLost(_)))
            ) {
                // The next holder takes the files from the disk.
                self.syncing.clear();
                break;
            }
            if let Err(e) = self.finish_oldest_sync().await {
                first_failure.get_or_insert(e);
            }
        }
        match first_failure {
            Some(e) => Err(e),
            None => Ok(any),
        }
    }

    /// Starts syncing the held pages on a blocking thread while the loop goes on: the disk
    /// writes a batch while the next pages are fetched. With [`SYNCING_MAX`] batches syncing
    /// already, the oldest is waited for (and marked) first.
    async fn start_sync(&mut self) -> Result<(), ExecutorError> {
        if self.held.is_empty() {
            return Ok(());
        }
        if self.syncing.len() >= SYNCING_MAX {
            self.finish_oldest_sync().await?;
        }
        let held = std::mem::take(&mut self.held);
        self.held_since = None;
        let paths: Vec<_> = held.iter().map(|h| h.path.clone()).collect();
        let done = tokio::task::spawn_blocking(move || part_files::sync_written(&paths));
        self.syncing.push_back(Syncing { held, done });
        Ok(())
    }

    /// Marks the batches whose sync is over done, oldest first, without waiting for any.
    async fn reap_sync(&mut self) -> Result<(), ExecutorError> {
        while self.syncing.front().is_some_and(|s| s.done.is_finished()) {
            self.finish_oldest_sync().await?;
        }
        Ok(())
    }

    /// Waits for the oldest syncing batch, then marks its tasks done in one transaction and
    /// says where their books stand.
    async fn finish_oldest_sync(&mut self) -> Result<(), ExecutorError> {
        let Some(Syncing { held, done }) = self.syncing.pop_front() else {
            return Ok(());
        };
        if !done.is_finished() {
            // The wait may be long (a busy disk): pages put in place without a transaction are
            // readable meanwhile (see `stretch`).
            self.record_before_waiting().await;
            // No request is in flight while the disk syncs, which may take a while on a busy
            // disk: the server's slot is not kept idle meanwhile.
            self.let_slot_go().await;
        }
        let synced = done.await.map_err(std::io::Error::other).and_then(|r| r);
        if let Err(e) = synced {
            // Their sizes recorded before they go back: a later run checks each file found in
            // place against its size.
            self.record_before_waiting().await;
            // Not on the disk for sure: back on the stack (the files in place are taken
            // again without a download once they can be synced).
            let reason = format!("cannot write the download: {e}");
            tracing::warn!(%reason, pages = held.len(), "could not sync stored pages");
            // Not an id that now names a task held since (see below).
            let mut later: HashSet<i64> = self
                .held
                .iter()
                .chain(self.syncing.iter().flat_map(|b| &b.held))
                .map(|h| h.task.id)
                .collect();
            if let Some(Ok(Claimed::Task(next, _, _))) = &self.next_claim {
                later.insert(next.id);
            }
            later.extend(self.stretch.iter().map(|t| t.id));
            for h in held.iter().filter(|h| !later.contains(&h.task.id)) {
                let (fence, id, r) = (self.fence.clone(), h.task.id, reason.clone());
                let _ = self
                    .ex
                    .db(move |s| download_stack::requeue(s, &fence, id, Some(&r)))
                    .await;
            }
            return Err(ExecutorError::Storage(reason));
        }
        let fence = self.fence.clone();
        // Task ids are given again once the newest rows are deleted (a book removed while its
        // pages synced): an id of this batch that now names a task held since, not yet synced,
        // is not this batch's to mark.
        // Held since: this run's pages not yet marked, the batches still syncing included.
        let later = || {
            self.held
                .iter()
                .chain(self.syncing.iter().flat_map(|b| &b.held))
        };
        let ids: Vec<i64> = held
            .iter()
            .map(|h| h.task.id)
            .filter(|id| !later().any(|h| h.task.id == *id))
            .collect();
        // Each book a page was stored of, once, with its newest row (a cover is no part of
        // what "stored" counts: its book was said stored, if it is, with its last page) —
        // counted at most every `PROGRESS_EVERY` while more of its pages are held for the
        // next batch (the count reads every stored page of the book), and always when none
        // is: this batch may be the one that completes it.
        let part_of =
            |h: &Held| h.task.kind.is_part() && !book_downloads::is_file_part(&h.task.url);
        let mut books: Vec<Book> = Vec::new();
        for h in held.iter().rev().filter(|h| part_of(h)) {
            let said_lately = matches!(self.progress_said, Some((b, at)) if b == h.book.id && at.elapsed() < PROGRESS_EVERY);
            let more_held = later().any(|o| o.book.id == h.book.id && part_of(o));
            let counted = books.iter().any(|b| b.id == h.book.id);
            let wait = said_lately && more_held;
            if !counted && !wait {
                books.push(h.book.clone());
            }
        }
        // Pages put in place without a transaction have their sizes recorded first: a task is
        // marked done only with its size.
        let sizes = self.unrecorded.clone();
        let progress = self
            .ex
            .db(move |s| -> Result<Vec<BookProgress>, StackError> {
                // The progress read in the same transaction, through the writer's cache (see
                // `Store::write`).
                s.write(|tx| {
                    download_stack::record_sizes_in(s, tx, &fence, &sizes)?;
                    download_stack::complete_held_in(s, tx, &fence, &ids)?;
                    Ok(books
                        .iter()
                        .filter_map(|b| book_downloads::progress(s, b).ok())
                        .collect())
                })
            })
            .await
            .map_err(|e| match e {
                StackError::LeaseLost(l) => ExecutorError::Stack(StackError::LeaseLost(l)),
                // The pages are in place but cannot be marked (the database's disk is full):
                // their tasks stay active and the next run takes the files.
                other => ExecutorError::Storage(other.to_string()),
            })?;
        self.sizes_recorded();
        for p in progress {
            self.progress_said = Some((p.book_id, Instant::now()));
            self.report_progress(p).await;
        }
        Ok(())
    }

    fn report_failed(&self, task: &Task, reason: &str, will_retry: bool) {
        if book_downloads::is_file_part(&task.url) {
            // A part read ahead of its file: the window falls back to the whole file, which is
            // the download the reader sees.
            tracing::info!(task = task.id, %reason, will_retry, "a part of a file could not be read");
            return;
        }
        self.ex.report(DownloadEvent::TaskFailed {
            task_id: task.id,
            book_id: task.book_id,
            kind: task.kind,
            reason: reason.to_owned(),
            will_retry,
        });
    }

    /// Says where a book stands after one of its parts was stored; a book now complete may
    /// push an older one out.
    async fn report_progress(&mut self, progress: BookProgress) {
        if progress.is_complete() {
            self.ex.report(DownloadEvent::BookStored(progress));
            // "Books kept on the device" holds for every front end that downloads (the app and
            // `carrel-cli sync` alike): a stored book may push an older one out. Usually none
            // is, which a few reads tell.
            match self.ex.db(book_downloads::unkept_per_setting).await {
                Ok(unkept) if !unkept.is_empty() => {
                    // Removing books may take a while: not with the server's slot kept.
                    self.let_slot_go().await;
                    match self.ex.db(move |s| book_downloads::evict(s, &unkept)).await {
                        Ok(evicted) => tracing::info!(?evicted, "removed books no longer kept"),
                        Err(e) => {
                            tracing::warn!(cause = %e, "could not remove the books no longer kept")
                        }
                    }
                }
                Ok(_) => {}
                Err(e) => tracing::warn!(cause = %e, "could not remove the books no longer kept"),
            }
            self.queue_latest_read().await;
        } else {
            self.ex.report(DownloadEvent::Book(progress));
        }
    }

    /// The server's address and credentials, reread every few seconds so an edited server or
    /// password is used promptly.
    async fn server_access(&mut self, server_id: i64) -> Result<ServerAccess, TaskError> {
        if let Some((at, a)) = self.access.get(&server_id) {
            if at.elapsed() < ACCESS_FRESH_FOR {
                return Ok(a.clone());
            }
        }
        // Reading the credentials may wait on the keyring: not with the server's slot kept.
        self.let_slot_go().await;
        let creds = self.ex.credentials.clone();
        // On a blocking thread even from the run's own: the keyring may wait (a prompt, a
        // D-Bus timeout), and the run must still see a stop meanwhile.
        let access = self
            .ex
            .store
            .call(
                move |s| -> Result<ServerAccess, carrel_library::error::Error> {
                    let server = carrel_library::servers::get(s, server_id)?;
                    ServerAccess::load(&server, &creds)
                },
            )
            .await
            .map_err(|e| match e {
                carrel_library::error::Error::Server(
                    carrel_library::servers::ServerError::NotFound(_),
                ) => TaskError::Fetch(FetchError::Gone("the server was removed".into())),
                // A locked keyring or an unreadable secrets file: a local problem, retried.
                other => TaskError::Fetch(FetchError::Transient(format!(
                    "cannot prepare the request: {other}"
                ))),
            })?;
        self.access
            .insert(server_id, (Instant::now(), access.clone()));
        Ok(access)
    }

    /// Runs one task; returns the bytes stored and the follow-up tasks to push.
    async fn execute(
        &mut self,
        task: &Task,
        book: Result<Book, books::BookError>,
    ) -> Result<(u64, Book), TaskError> {
        let book = book.map_err(|e| match e {
            books::BookError::NotFound(_) => TaskError::Fetch(FetchError::Gone(e.to_string())),
            other => TaskError::Fetch(FetchError::Transient(other.to_string())),
        })?;
        let bytes = match task.kind {
            TaskKind::Book => 0,
            TaskKind::Page => self.fetch_page(task, &book).await?,
            TaskKind::Resource => self.fetch_cover(task, &book).await?,
            TaskKind::File => self.fetch_file(task, &book).await?,
        };
        Ok((bytes, book))
    }

    /// Gives back the request slot kept from the last request, if any.
    /// A request sent ahead holds the slot: it is let finish first (see [`page_ahead`]).
    async fn let_slot_go(&mut self) {
        self.let_ahead_finish().await;
        if let Some(slot) = self.kept_slot.take() {
            let server = slot.server_id();
            if let Err(e) = slot.release().await {
                tracing::warn!(cause = %e, server, "could not free a request slot; it expires by itself");
            }
        }
    }

    /// The stored file of a page, if any. Only this run writes pages while it holds the lease,
    /// so the book's folder is listed once (when the run comes to the book) rather than looked
    /// at under each name a page may have for every page (a lookup per name, most of them
    /// for names that do not exist); a page the list names is checked to be there still (a
    /// book removed meanwhile).
    fn stored_page(&mut self, book_id: i64, page: i64) -> Option<std::path::PathBuf> {
        if self
            .pages_on_disk
            .as_ref()
            .is_none_or(|(b, _)| *b != book_id)
        {
            match self.ex.files.stored_pages(book_id) {
                Ok(pages) => self.pages_on_disk = Some((book_id, pages)),
                Err(e) => {
                    tracing::warn!(book = book_id, cause = %e, "could not list a book's pages; looking for each");
                    self.pages_on_disk = None;
                    return self.ex.files.find_page(book_id, page);
                }
            }
        }
        let (_, pages) = self.pages_on_disk.as_ref()?;
        pages.get(&page).filter(|p| p.is_file()).cloned()
    }

    /// A page or cover found in place, stored before a crash and not yet marked: taken (to be
    /// held and synced with the next batch) without downloading it twice, and its size
    /// returned — unless a power cut left it short of the size its hold recorded, or empty
    /// when no size was recorded yet; then it is removed, to be fetched again.
    fn take_found(&mut self, task: &Task, existing: std::path::PathBuf) -> Option<u64> {
        let len = std::fs::metadata(&existing).map(|m| m.len()).unwrap_or(0);
        let short = match task.bytes {
            Some(recorded) => recorded as u64 != len,
            None => len == 0,
        };
        if short {
            tracing::info!(
                task = task.id,
                "a stored file is shorter than recorded; fetching it again"
            );
            let _ = std::fs::remove_file(&existing);
            return None;
        }
        self.page = Some(PageToHold::Found(existing));
        Some(len)
    }

    async fn fetch_page(&mut self, task: &Task, book: &Book) -> Result<u64, TaskError> {
        if let Some(existing) = self.stored_page(book.id, task.position) {
            if let Some(len) = self.take_found(task, existing) {
                self.drop_ahead().await;
                return Ok(len);
            }
        }
        // Asked for already, while the last page's trip ran (see `page_ahead`).
        if let Some(ahead) = self.ahead.take_if(|a| a.serves(task)) {
            let answer = ahead.answer();
            tokio::pin!(answer);
            let (fetched, slot) = if self.unrecorded.is_empty() {
                answer.await
            } else {
                // A slow answer: the pages put in place before it are recorded meanwhile, so
                // that a window waiting for one of them sees it (see `stretch`).
                tokio::select! {
                    a = &mut answer => a,
                    () = tokio::time::sleep(stretch::QUIET_FOR) => {
                        self.record_before_waiting().await;
                        answer.await
                    }
                }
            };
            if slot.is_some() {
                self.kept_slot = slot;
            }
            let fetched = fetched?;
            let path =
                self.ex
                    .files
                    .page_path(book.id, task.position, image_extension(&fetched.bytes));
            let len = fetched.bytes.len() as u64;
            self.page = Some(PageToHold::Fetched(path, fetched.bytes));
            return Ok(len);
        }
        // A request of its own, or one ahead let finish first, may wait: the pages put in
        // place before it are recorded first (see `stretch`).
        self.record_before_waiting().await;
        self.drop_ahead().await;
        let url = parse_url(&task.url)?;
        let access = self.server_access(task.server_id).await?;
        if let Some(range) = book_downloads::requested_range(&url) {
            // A part of the book's file, read before the file is stored (a page of a zip);
            // once the file is stored, nothing is left to fetch.
            if self.ex.files.find_book_file(book.id).is_some() {
                return Ok(0);
            }
            // A part takes a slot of its own.
            self.let_slot_go().await;
            let (fetched, _) = self
                .ex
                .http
                .get_part(
                    &self.ex.store,
                    &access,
                    &url,
                    &range,
                    self.ex.config.max_page_bytes,
                )
                .await?;
            let path = self.ex.files.page_path(book.id, task.position, "bytes");
            let len = fetched.bytes.len() as u64;
            self.page = Some(PageToHold::Fetched(path, fetched.bytes));
            return Ok(len);
        }
        let fetched = self
            .ex
            .http
            .get_bytes_keeping(
                &self.ex.store,
                &access,
                &url,
                self.ex.config.max_page_bytes,
                &mut self.kept_slot,
            )
            .await?;
        let ext = image_extension(&fetched.bytes);
        let path = self.ex.files.page_path(book.id, task.position, ext);
        let len = fetched.bytes.len() as u64;
        self.page = Some(PageToHold::Fetched(path, fetched.bytes));
        Ok(len)
    }

    /// A cover, held and synced with the pages' batch as a page is (see [`Held`]).
    async fn fetch_cover(&mut self, task: &Task, book: &Book) -> Result<u64, TaskError> {
        if let Some(existing) = self.ex.files.find_cover(book.id) {
            if let Some(len) = self.take_found(task, existing) {
                return Ok(len);
            }
        }
        let url = parse_url(&task.url)?;
        let access = self.server_access(task.server_id).await?;
        let fetched = self
            .ex
            .http
            .get_bytes_keeping(&self.ex.store, &access, &url, 32 << 20, &mut self.kept_slot)
            .await?;
        let path = self
            .ex
            .files
            .cover_path(book.id, image_extension(&fetched.bytes));
        let len = fetched.bytes.len() as u64;
        self.page = Some(PageToHold::Fetched(path, fetched.bytes));
        Ok(len)
    }
}

fn parse_url(raw: &str) -> Result<Url, TaskError> {
    Url::parse(raw).map_err(|e| {
        TaskError::Fetch(FetchError::Gone(format!(
            "the catalog gave a bad address: {e}"
        )))
    })
}

/// The file extension for image bytes, from the bytes themselves (servers declare wrong types).
fn image_extension(bytes: &[u8]) -> &'static str {
    match carrel_foundation::image_type::sniff_image_type(bytes) {
        Some("image/png") => "png",
        Some("image/jpeg") => "jpg",
        Some("image/gif") => "gif",
        Some("image/webp") => "webp",
        Some("image/avif") => "avif",
        Some("image/bmp") => "bmp",
        _ => "img",
    }
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
