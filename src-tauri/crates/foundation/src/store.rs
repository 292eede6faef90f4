//! The SQLite database of one data dir: opening it safely, its pragmas, the migrations compiled
//! into the binary, and the connections a process uses — one writer, one reader, and one that
//! copies the write-ahead log into the database on a thread of its own (the log keeper).
//!
//! Owns no domain rules: the modules that own a table (servers, settings, ...) write their own
//! SQL through [`Store::write`] and [`Store::read`].
//!
//! Opening never destroys data. An unwritable dir, a file that is not a Carrel database, or a
//! database written by a newer Carrel each give a clear [`StoreError`]; nothing is recreated.

use std::cell::Cell;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU32, Ordering};
use std::sync::mpsc::{self, Receiver, SyncSender};
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::Duration;

use rusqlite::{Connection, OpenFlags, OptionalExtension, Transaction, TransactionBehavior};

use crate::clock::SharedClock;
use crate::data_dir::DataDir;

/// Migrations in order; `PRAGMA user_version` counts how many are applied.
const MIGRATIONS: &[(&str, &str)] = &[
    (
        "0001_servers",
        include_str!("../migrations/0001_servers.sql"),
    ),
    (
        "0002_downloads",
        include_str!("../migrations/0002_downloads.sql"),
    ),
    (
        "0003_catalog_cache",
        include_str!("../migrations/0003_catalog_cache.sql"),
    ),
    (
        "0004_page_lists",
        include_str!("../migrations/0004_page_lists.sql"),
    ),
    (
        "0005_task_indexes",
        include_str!("../migrations/0005_task_indexes.sql"),
    ),
    (
        "0006_server_tls",
        include_str!("../migrations/0006_server_tls.sql"),
    ),
    (
        "0007_id_high_water",
        include_str!("../migrations/0007_id_high_water.sql"),
    ),
    (
        "0008_position_sync",
        include_str!("../migrations/0008_position_sync.sql"),
    ),
    (
        "0009_epub_positions",
        include_str!("../migrations/0009_epub_positions.sql"),
    ),
    (
        "0010_position_targets",
        include_str!("../migrations/0010_position_targets.sql"),
    ),
    (
        "0011_echo_and_server_tasks",
        include_str!("../migrations/0011_echo_and_server_tasks.sql"),
    ),
    (
        "0013_book_identity",
        include_str!("../migrations/0013_book_identity.sql"),
    ),
    (
        "0014_download_batches",
        include_str!("../migrations/0014_download_batches.sql"),
    ),
    ("0015_kosync", include_str!("../migrations/0015_kosync.sql")),
    (
        "0016_api_keys",
        include_str!("../migrations/0016_api_keys.sql"),
    ),
    (
        "0017_task_positions",
        include_str!("../migrations/0017_task_positions.sql"),
    ),
    (
        "0018_series_windows",
        include_str!("../migrations/0018_series_windows.sql"),
    ),
    (
        "0019_slot_waiters",
        include_str!("../migrations/0019_slot_waiters.sql"),
    ),
    (
        "0020_series_defaults",
        include_str!("../migrations/0020_series_defaults.sql"),
    ),
    (
        "0021_series_from_feeds",
        include_str!("../migrations/0021_series_from_feeds.sql"),
    ),
    (
        "0022_failed_tasks_index",
        include_str!("../migrations/0022_failed_tasks_index.sql"),
    ),
    (
        "0023_tasks_by_server",
        include_str!("../migrations/0023_tasks_by_server.sql"),
    ),
    (
        "0024_epub_chapters",
        include_str!("../migrations/0024_epub_chapters.sql"),
    ),
    (
        "0025_read_marks",
        include_str!("../migrations/0025_read_marks.sql"),
    ),
    (
        "0026_annotations",
        include_str!("../migrations/0026_annotations.sql"),
    ),
    (
        "0027_device_books",
        include_str!("../migrations/0027_device_books.sql"),
    ),
    (
        "0028_library_folders",
        include_str!("../migrations/0028_library_folders.sql"),
    ),
    (
        "0029_series_read_ahead",
        include_str!("../migrations/0029_series_read_ahead.sql"),
    ),
];

/// The schema version this build writes.
pub const SCHEMA_VERSION: i64 = MIGRATIONS.len() as i64;

/// Pages of write-ahead log after which a commit copies the log into the database itself, on
/// the committing thread, so that the next commit starts the log over. The log keeper (see
/// [`LogKeeper`]) has copied nearly all of it by then: what is left is the few pages committed
/// since its last pass.
const WAL_AUTOCHECKPOINT_PAGES: i64 = 4000;

/// Commits after which the log keeper copies the log into the database. Counted, not timed:
/// an idle app's few commits (the executor's lease renewed every 2 s) cost no sync of the disk
/// until this many have been made.
const FOLD_EVERY_COMMITS: u32 = 128;

/// How long a connection waits on another writer before giving up with "database is locked".
const BUSY_TIMEOUT: Duration = Duration::from_secs(10);

#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum StoreError {
    #[error("cannot use the data folder {path}: {reason}")]
    Unwritable { path: PathBuf, reason: String },
    #[error("{path} is not a Carrel database or is damaged; it was left untouched")]
    Corrupt { path: PathBuf },
    #[error("{path} was written by a newer version of Carrel (schema {found}, this version knows {supported}); update Carrel to open it")]
    NewerSchema {
        path: PathBuf,
        found: i64,
        supported: i64,
    },
    #[error("the disk is full; nothing was lost, free some space and try again")]
    DiskFull,
    #[error(
        "updating {path} would leave rows of {table} pointing at nothing; it was left untouched"
    )]
    BrokenReferences { path: PathBuf, table: String },
    #[error("database error: {0}")]
    Sqlite(#[from] rusqlite::Error),
}

impl StoreError {
    /// Classifies a SQLite failure: a full disk or a damaged file deserve their own words.
    fn from_sqlite(err: rusqlite::Error, path: &Path) -> Self {
        use rusqlite::ErrorCode;
        match err.sqlite_error_code() {
            Some(ErrorCode::NotADatabase) | Some(ErrorCode::DatabaseCorrupt) => {
                StoreError::Corrupt {
                    path: path.to_owned(),
                }
            }
            Some(ErrorCode::DiskFull) => StoreError::DiskFull,
            Some(ErrorCode::CannotOpen)
            | Some(ErrorCode::ReadOnly)
            | Some(ErrorCode::PermissionDenied) => StoreError::Unwritable {
                path: path.to_owned(),
                reason: err.to_string(),
            },
            _ => StoreError::Sqlite(err),
        }
    }
}

/// A handle on one data dir's database. Cheap to clone; clones share the connections.
///
/// Two `Store`s opened on the same file behave like two processes: each has its own writer,
/// and SQLite's locking (plus `BEGIN IMMEDIATE`) orders them.
#[derive(Clone)]
pub struct Store {
    inner: Arc<Inner>,
}

struct Inner {
    dir: DataDir,
    writer: Mutex<Connection>,
    reader: Mutex<Connection>,
    keeper: LogKeeper,
    clock: SharedClock,
    /// Woken by every commit (see [`crate::store_changes`]).
    changes: crate::store_changes::Changes,
}

impl std::fmt::Debug for Store {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Store")
            .field("dir", &self.inner.dir)
            .finish_non_exhaustive()
    }
}

impl Store {
    /// Opens (creating if needed) the database of `dir` and brings its schema up to date.
    pub fn open(dir: &DataDir, clock: SharedClock) -> Result<Store, StoreError> {
        let root = dir.root();
        dir.make_private().map_err(|e| StoreError::Unwritable {
            path: root.to_owned(),
            reason: e.to_string(),
        })?;
        check_writable(root)?;
        let path = dir.database();
        let writer = open_connection(&path, false)?;
        migrate(&writer, &path)?;
        let reader = open_connection(&path, true)?;
        let keeper = LogKeeper::start(open_connection(&path, false)?, &path)?;
        Ok(Store {
            inner: Arc::new(Inner {
                dir: dir.clone(),
                writer: Mutex::new(writer),
                reader: Mutex::new(reader),
                keeper,
                clock,
                changes: crate::store_changes::Changes::new(),
            }),
        })
    }

    pub fn data_dir(&self) -> &DataDir {
        &self.inner.dir
    }

    pub fn clock(&self) -> &SharedClock {
        &self.inner.clock
    }

    pub fn now_ms(&self) -> i64 {
        self.inner.clock.now_ms()
    }

    /// Runs `f` in a `BEGIN IMMEDIATE` transaction on the writer connection and commits when
    /// it returns `Ok`. Immediate, so a read-then-write never fails with SQLITE_BUSY on upgrade.
    ///
    /// A [`Store::read`] of this store made inside `f` (on the same thread) reads through this
    /// transaction: it sees what `f` has written so far, takes no lock of its own, and reads
    /// from the writer's page cache, which stays valid from one write to the next — where the
    /// reader connection would find its cache stale after every write and read the changed
    /// pages again from the disk. A composite step (the executor's step between two pages)
    /// so reads and writes in one transaction.
    pub fn write<T, E>(&self, f: impl FnOnce(&Transaction<'_>) -> Result<T, E>) -> Result<T, E>
    where
        E: From<StoreError>,
    {
        debug_assert!(
            ReadsThrough::current(&self.inner).is_none(),
            "a write inside a write (or a read on the writer) of the same store waits for itself"
        );
        let mut conn = lock(&self.inner.writer);
        let path = self.inner.dir.database();
        let tx = conn
            .transaction_with_behavior(TransactionBehavior::Immediate)
            .map_err(|e| StoreError::from_sqlite(e, &path))?;
        let value = {
            let _reads_here = ReadsThrough::set(&self.inner, &tx);
            f(&tx)?
        };
        if tx.is_autocommit() {
            // SQLite ended the transaction itself (an I/O error, a full disk): what `f` did
            // after that was not one transaction. Not a success.
            return Err(StoreError::Sqlite(rusqlite::Error::SqliteFailure(
                rusqlite::ffi::Error::new(rusqlite::ffi::SQLITE_ABORT),
                Some("the transaction was rolled back by the database".into()),
            ))
            .into());
        }
        tx.commit().map_err(|e| StoreError::from_sqlite(e, &path))?;
        drop(conn);
        self.inner.keeper.committed();
        Ok(value)
    }

    /// Runs the one statement `sql` in a write transaction of its own (see [`Store::write`]);
    /// how many rows it changed.
    pub fn execute(&self, sql: &str, params: impl rusqlite::Params) -> Result<usize, StoreError> {
        self.write(|tx| tx.execute(sql, params).map_err(|e| self.sql_error(e)))
    }

    /// Runs `f` with this store on a thread made for blocking work, so that an async caller (the
    /// executor, a request, a window's command) never holds its runtime's thread while SQLite
    /// waits on the disk or on another process's lock. A panic in `f` is the caller's.
    pub async fn call<T: Send + 'static>(&self, f: impl FnOnce(&Store) -> T + Send + 'static) -> T {
        let store = self.clone();
        match tokio::task::spawn_blocking(move || f(&store)).await {
            Ok(v) => v,
            Err(e) if e.is_panic() => std::panic::resume_unwind(e.into_panic()),
            Err(_) => panic!("the runtime shut down under a store call"),
        }
    }

    /// Runs `f` on the read connection (which refuses writes), or inside the write transaction
    /// this thread has open on this store (see [`Store::write`]).
    pub fn read<T, E>(&self, f: impl FnOnce(&Connection) -> Result<T, E>) -> Result<T, E> {
        if let Some(tx) = ReadsThrough::current(&self.inner) {
            // SAFETY: set by `write` from the transaction it holds open on this thread (or by
            // `reading_on_writer` from the writer it holds locked), and cleared before that
            // transaction ends or that lock is let go (see `ReadsThrough`); only shared access.
            return f(unsafe { &*tx });
        }
        let conn = lock(&self.inner.reader);
        f(&conn)
    }

    /// Runs `f` with this store's reads (on this thread) made on the writer connection, outside
    /// any transaction: for a small read between two of this process's own writes (the look the
    /// executor takes at its request slot between two pages). The writer's page cache holds
    /// what it last wrote; the reader connection would find its cache stale after every write
    /// and read the changed pages again from the disk. A write inside `f` would wait for itself;
    /// the reads are not refused writes as the reader connection's are, so `f` reads only.
    /// Called where reads already go through the writer (inside a write), `f` simply runs.
    pub fn reading_on_writer<T>(&self, f: impl FnOnce() -> T) -> T {
        if ReadsThrough::current(&self.inner).is_some() {
            return f();
        }
        let conn = lock(&self.inner.writer);
        let _reads_here = ReadsThrough::on(&self.inner, &conn);
        f()
    }

    /// [`Store::reading_on_writer`] in one read transaction: every read of `f` sees the same
    /// commit (one consistent look), and SQLite finds the newest commit once for all of them
    /// rather than once per statement. A look of several reads that must agree (the
    /// executor's between two pages it holds without writing) rather than a read meant to see
    /// each commit as it comes. Called where reads already go through the writer, `f` runs in
    /// what is open.
    pub fn looking_on_writer<T>(
        &self,
        f: impl FnOnce() -> Result<T, StoreError>,
    ) -> Result<T, StoreError> {
        if ReadsThrough::current(&self.inner).is_some() {
            return f();
        }
        let conn = lock(&self.inner.writer);
        let path = self.inner.dir.database();
        conn.prepare_cached("BEGIN DEFERRED")
            .and_then(|mut s| s.execute([]))
            .map_err(|e| StoreError::from_sqlite(e, &path))?;
        // Ended whatever happens in `f` (a panic included): the writer's next write begins a
        // transaction of its own.
        struct EndRead<'c>(&'c Connection);
        impl Drop for EndRead<'_> {
            fn drop(&mut self) {
                if !self.0.is_autocommit() {
                    let _ = self.0.execute_batch("ROLLBACK");
                }
            }
        }
        let end = EndRead(&conn);
        let value = {
            let _reads_here = ReadsThrough::on(&self.inner, end.0);
            f()
        };
        let ended = end
            .0
            .prepare_cached("COMMIT")
            .and_then(|mut s| s.execute([]))
            .map_err(|e| StoreError::from_sqlite(e, &path));
        drop(end);
        let value = value?;
        ended?;
        Ok(value)
    }

    #[cfg(test)]
    pub(crate) fn changes_of(&self) -> &crate::store_changes::Changes {
        &self.inner.changes
    }

    /// Wakes every wait on [`Store::changes`] of this store: something they may wait for was
    /// just stored (and committed).
    pub fn wake_waiters(&self) {
        self.inner.changes.committed();
    }

    /// A watch of what this data dir stores: changes at each [`Store::wake_waiters`] of this
    /// store, and within [`crate::store_changes::OUTSIDE_LOOK`] of another process's commit
    /// (see [`crate::store_changes`]). Subscribe before looking at what is waited for, and look
    /// again after each change.
    pub fn changes(&self) -> tokio::sync::watch::Receiver<u64> {
        let store = self.clone();
        self.inner.changes.subscribe(move || store.data_version())
    }

    /// SQLite's `PRAGMA data_version` on the writer connection: changes when another
    /// connection commits (another process's; this store's reader never writes), never for
    /// this store's own writes.
    pub(crate) fn data_version(&self) -> Option<i64> {
        let conn = lock(&self.inner.writer);
        conn.query_row("PRAGMA data_version", [], |r| r.get(0)).ok()
    }

    /// Maps a SQLite error met inside [`Store::write`]/[`Store::read`] to a [`StoreError`].
    pub fn sql_error(&self, err: rusqlite::Error) -> StoreError {
        StoreError::from_sqlite(err, &self.inner.dir.database())
    }
}

thread_local! {
    /// The write transaction this thread has open (or the writer connection it holds for its
    /// reads), and the store it belongs to (see [`Store::write`], [`Store::reading_on_writer`]).
    static WRITING: Cell<Option<(*const Inner, *const Connection)>> = const { Cell::new(None) };
}

/// Sends this thread's reads of a store through the write transaction it has open on it (or
/// the writer connection it holds), for as long as it lives.
struct ReadsThrough {
    before: Option<(*const Inner, *const Connection)>,
}

impl ReadsThrough {
    fn set(inner: &Arc<Inner>, tx: &Transaction<'_>) -> ReadsThrough {
        ReadsThrough::on(inner, tx)
    }

    fn on(inner: &Arc<Inner>, conn: &Connection) -> ReadsThrough {
        let before = WRITING.with(|w| w.replace(Some((Arc::as_ptr(inner), conn as *const _))));
        ReadsThrough { before }
    }

    fn current(inner: &Arc<Inner>) -> Option<*const Connection> {
        WRITING
            .with(Cell::get)
            .filter(|(of, _)| std::ptr::eq(*of, Arc::as_ptr(inner)))
            .map(|(_, conn)| conn)
    }
}

impl Drop for ReadsThrough {
    fn drop(&mut self) {
        // Also on a panic in the transaction's closure: the pointer never outlives it.
        WRITING.with(|w| w.set(self.before));
    }
}

/// Copies the write-ahead log into the database (a passive checkpoint) on a thread and a
/// connection of its own, so that writers pay for little of it.
///
/// Left to SQLite, the commit that takes the log past its limit copies all of it on the
/// committing thread, with two syncs of the disk (the log's 16 MiB, then the database): a
/// download's run did that every few hundred tasks, a fifth of its thread's time. A passive
/// checkpoint never waits for writers and never makes them wait, but it cannot start the log
/// over while they keep committing (only a commit that finds all of it copied does): the
/// writer's own checkpoint still does that, at [`WAL_AUTOCHECKPOINT_PAGES`], and finds only
/// what was committed since the keeper's last pass left to copy and to sync.
///
/// Woken every [`FOLD_EVERY_COMMITS`] commits, asleep otherwise; it ends with the last handle
/// on its store.
struct LogKeeper {
    /// Dropped first when the store is (see `Drop`).
    nudge: Option<SyncSender<()>>,
    /// This process's writer's commits, counted since the store opened.
    commits: AtomicU32,
    thread: Option<std::thread::JoinHandle<()>>,
}

impl Drop for LogKeeper {
    /// Ends the keeper and waits for it: its connection is closed when the store's handles are
    /// gone, as the others are (the last connection to close folds the log into the database
    /// and removes it), not some time later.
    fn drop(&mut self) {
        drop(self.nudge.take());
        if let Some(thread) = self.thread.take() {
            let _ = thread.join();
        }
    }
}

impl LogKeeper {
    fn start(conn: Connection, path: &Path) -> Result<LogKeeper, StoreError> {
        let (nudge, nudged) = mpsc::sync_channel(1);
        let thread = std::thread::Builder::new()
            .name("carrel-db-log".into())
            .spawn(move || keep_log(&conn, &nudged))
            .map_err(|e| StoreError::Unwritable {
                path: path.to_owned(),
                reason: format!("cannot start the database's log keeper: {e}"),
            })?;
        Ok(LogKeeper {
            nudge: Some(nudge),
            commits: AtomicU32::new(0),
            thread: Some(thread),
        })
    }

    /// Called after each commit of this process's writer: every [`FOLD_EVERY_COMMITS`]th wakes
    /// the keeper, however late it woke for the last one (the count is never reset: a reset
    /// made when the keeper wakes would drop the commits made since the nudge, and a burst of
    /// them could then end short of the next nudge with its log never copied).
    fn committed(&self) {
        // Wrapping: the count's type is a multiple of FOLD_EVERY_COMMITS.
        let before = self.commits.fetch_add(1, Ordering::Relaxed);
        if before.wrapping_add(1) % FOLD_EVERY_COMMITS == 0 {
            // Full means the keeper has a wake-up waiting already.
            if let Some(nudge) = &self.nudge {
                let _ = nudge.try_send(());
            }
        }
    }
}

fn keep_log(conn: &Connection, nudged: &Receiver<()>) {
    // Asleep until enough is committed; over when the store is dropped.
    while nudged.recv().is_ok() {
        let copied = conn.query_row("PRAGMA wal_checkpoint(PASSIVE)", [], |r| {
            Ok((r.get::<_, i64>(1)?, r.get::<_, i64>(2)?))
        });
        match copied {
            Ok((log, copied)) => tracing::trace!(log, copied, "database log copied"),
            // Another process copying it at the same moment, a full disk: the next round (or
            // the writer's own checkpoint) copies it.
            Err(e) => tracing::debug!(error = %e, "could not copy the database log"),
        }
    }
}

fn lock(m: &Mutex<Connection>) -> MutexGuard<'_, Connection> {
    // A panic while holding the lock leaves the connection usable: SQLite rolls back an
    // unfinished transaction when the `Transaction` is dropped.
    m.lock().unwrap_or_else(|poisoned| poisoned.into_inner())
}

fn check_writable(root: &Path) -> Result<(), StoreError> {
    // A name of our own: several processes may open the same data dir at once.
    let tag: u32 = rand::random();
    let probe = root.join(format!(
        ".carrel-write-probe-{}-{tag:08x}",
        std::process::id()
    ));
    let result = std::fs::write(&probe, b"").and_then(|_| std::fs::remove_file(&probe));
    result.map_err(|e| StoreError::Unwritable {
        path: root.to_owned(),
        reason: e.to_string(),
    })
}

/// Prepared statements kept per connection (rusqlite keeps 16 by default).
const STATEMENT_CACHE: usize = 64;

fn open_connection(path: &Path, read_only: bool) -> Result<Connection, StoreError> {
    let flags = OpenFlags::SQLITE_OPEN_READ_WRITE
        | OpenFlags::SQLITE_OPEN_CREATE
        | OpenFlags::SQLITE_OPEN_NO_MUTEX
        | OpenFlags::SQLITE_OPEN_URI;
    let conn =
        Connection::open_with_flags(path, flags).map_err(|e| StoreError::from_sqlite(e, path))?;
    // The executor's few statements run for every task: keep them all prepared.
    conn.set_prepared_statement_cache_capacity(STATEMENT_CACHE);
    conn.busy_timeout(BUSY_TIMEOUT)
        .map_err(|e| StoreError::from_sqlite(e, path))?;
    // The first statement that reads the file tells a damaged or foreign file apart. Another
    // process switching a new file to WAL at the same moment answers "busy" without waiting
    // for the busy handler: asked again until the busy timeout.
    let deadline = std::time::Instant::now() + BUSY_TIMEOUT;
    let mode: String = loop {
        match conn.query_row("PRAGMA journal_mode = WAL", [], |r| r.get(0)) {
            Ok(mode) => break mode,
            Err(rusqlite::Error::SqliteFailure(e, _))
                if matches!(
                    e.code,
                    rusqlite::ErrorCode::DatabaseBusy | rusqlite::ErrorCode::DatabaseLocked
                ) && std::time::Instant::now() < deadline =>
            {
                std::thread::sleep(Duration::from_millis(20));
            }
            Err(e) => return Err(StoreError::from_sqlite(e, path)),
        }
    };
    if !mode.eq_ignore_ascii_case("wal") {
        return Err(StoreError::Unwritable {
            path: path.to_owned(),
            reason: format!("the database could not switch to WAL mode (got {mode})"),
        });
    }
    // The log starts over every 4,000 pages (16 MiB) rather than SQLite's 1,000: a download
    // rewrites the same few pages of the stack task after task, and a longer log copies each of
    // them once per checkpoint instead of four times (the claim and settle of a 1 KiB page
    // measured 190 + 400 µs → 140 + 340 µs in `make bench`). Most of the copying is the log
    // keeper's (see `LogKeeper`).
    conn.execute_batch(&format!(
        "PRAGMA synchronous = NORMAL;
         PRAGMA foreign_keys = ON;
         PRAGMA wal_autocheckpoint = {WAL_AUTOCHECKPOINT_PAGES};"
    ))
    .map_err(|e| StoreError::from_sqlite(e, path))?;
    if read_only {
        conn.execute_batch("PRAGMA query_only = ON;")
            .map_err(|e| StoreError::from_sqlite(e, path))?;
    }
    Ok(conn)
}

fn migrate(conn: &Connection, path: &Path) -> Result<(), StoreError> {
    let err = |e| StoreError::from_sqlite(e, path);
    // Foreign keys off while migrations run (SQLite's way to rebuild a table: with them on,
    // dropping the old table would delete every row that references it), checked before the
    // commit instead; the pragma does nothing inside a transaction, so it goes around it.
    conn.pragma_update(None, "foreign_keys", false)
        .map_err(err)?;
    let applied = migrate_in_transaction(conn, path);
    let restored = conn.pragma_update(None, "foreign_keys", true).map_err(err);
    applied.and(restored)
}

fn migrate_in_transaction(conn: &Connection, path: &Path) -> Result<(), StoreError> {
    let err = |e| StoreError::from_sqlite(e, path);
    // Immediate: two processes starting at once apply each migration exactly once.
    conn.execute_batch("BEGIN IMMEDIATE").map_err(err)?;
    let result = (|| {
        let found: i64 = conn
            .query_row("PRAGMA user_version", [], |r| r.get(0))
            .map_err(err)?;
        if found < 0 {
            return Err(StoreError::Corrupt {
                path: path.to_owned(),
            });
        }
        if found > SCHEMA_VERSION {
            return Err(StoreError::NewerSchema {
                path: path.to_owned(),
                found,
                supported: SCHEMA_VERSION,
            });
        }
        if found == 0 {
            // A fresh file must be empty: an unversioned database with tables is somebody else's.
            let tables: i64 = conn
                .query_row("SELECT count(*) FROM sqlite_schema", [], |r| r.get(0))
                .map_err(err)?;
            if tables > 0 {
                return Err(StoreError::Corrupt {
                    path: path.to_owned(),
                });
            }
        }
        for (index, (name, sql)) in MIGRATIONS.iter().enumerate().skip(found as usize) {
            tracing::info!(migration = name, "applying migration");
            conn.execute_batch(sql).map_err(err)?;
            conn.pragma_update(None, "user_version", index as i64 + 1)
                .map_err(err)?;
        }
        if found as usize >= MIGRATIONS.len() {
            // Nothing applied: no reference to check (a check reads every referencing table,
            // which a start must not pay for with a large library).
            return Ok(());
        }
        // Every reference still points at a row, else nothing of this run is kept.
        let broken: Option<String> = conn
            .query_row("PRAGMA foreign_key_check", [], |r| r.get(0))
            .optional()
            .map_err(err)?;
        if let Some(table) = broken {
            return Err(StoreError::BrokenReferences {
                path: path.to_owned(),
                table,
            });
        }
        Ok(())
    })();
    match result {
        Ok(()) => conn.execute_batch("COMMIT").map_err(err),
        Err(e) => {
            let _ = conn.execute_batch("ROLLBACK");
            Err(e)
        }
    }
}

/// What the tests of this crate and of the layers above share (feature `test-support`).
#[cfg(any(test, feature = "test-support"))]
pub mod test_support {
    use std::path::{Path, PathBuf};
    use std::sync::Arc;

    use super::Store;
    use crate::{clock::ManualClock, data_dir::DataDir};

    /// A store in a new temporary folder (gone when the folder is dropped), its clock at 42 ms.
    pub fn temp_store() -> (tempfile::TempDir, Store) {
        let dir = tempfile::tempdir().unwrap();
        let store = Store::open(&DataDir::new(dir.path()), Arc::new(ManualClock::new(42))).unwrap();
        (dir, store)
    }

    /// The database's files directly under `root` (`carrel.db` and its journal and WAL) whose
    /// bytes hold `needle`: a secret must be in none of them.
    pub fn database_files_holding(root: &Path, needle: &[u8]) -> Vec<PathBuf> {
        std::fs::read_dir(root)
            .unwrap()
            .map(|entry| entry.unwrap().path())
            .filter(|path| {
                path.file_name()
                    .is_some_and(|name| name.to_string_lossy().starts_with("carrel.db"))
            })
            .filter(|path| {
                let bytes = std::fs::read(path).unwrap();
                bytes.windows(needle.len()).any(|w| w == needle)
            })
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::clock;
    use rusqlite::OptionalExtension;
    use std::time::Instant;

    /// The one value `sql` selects.
    fn value<T: rusqlite::types::FromSql>(c: &Connection, sql: &str) -> rusqlite::Result<T> {
        c.query_row(sql, [], |r| r.get(0))
    }

    fn temp() -> (tempfile::TempDir, DataDir) {
        let t = tempfile::tempdir().unwrap();
        let d = DataDir::new(t.path().join("data"));
        (t, d)
    }

    #[test]
    fn opens_fresh_dir_with_wal_and_current_schema() {
        let (_t, dir) = temp();
        let store = Store::open(&dir, clock::system()).unwrap();
        let (mode, version, fk): (String, i64, i64) = store
            .read(|c| {
                Ok::<_, rusqlite::Error>((
                    value(c, "PRAGMA journal_mode")?,
                    value(c, "PRAGMA user_version")?,
                    value(c, "PRAGMA foreign_keys")?,
                ))
            })
            .unwrap();
        assert_eq!(mode, "wal");
        assert_eq!(version, SCHEMA_VERSION);
        assert_eq!(fk, 1);
        let checkpoint: i64 = store
            .write(|tx| value(tx, "PRAGMA wal_autocheckpoint").map_err(|e| store.sql_error(e)))
            .unwrap();
        assert_eq!(checkpoint, WAL_AUTOCHECKPOINT_PAGES);
    }

    /// A database at the schema before the migration `name`, left open for rows to be put in.
    fn database_before(dir: &DataDir, name: &str) -> Connection {
        let index = MIGRATIONS
            .iter()
            .position(|(migration, _)| *migration == name)
            .unwrap();
        std::fs::create_dir_all(dir.root()).unwrap();
        let conn = Connection::open(dir.database()).unwrap();
        conn.pragma_update(None, "foreign_keys", true).unwrap();
        for (_, sql) in &MIGRATIONS[..index] {
            conn.execute_batch(sql).unwrap();
        }
        conn.pragma_update(None, "user_version", index as i64)
            .unwrap();
        conn
    }

    /// A database at the schema before `0027_device_books`, with a server, its books, their
    /// tasks and what hangs off them.
    fn database_before_device_books(dir: &DataDir) {
        database_before(dir, "0027_device_books").execute_batch(
            "INSERT INTO servers (id, name, url, username, min_interval_ms, created_at_ms, paused_reason,
                                  trust_self_signed, api_key)
                 VALUES (3, 'Home', 'https://books.example/opds', 'ann', 250, 7, 'auth', 1, 1);
             INSERT INTO books (id, server_id, catalog_id, title, format, created_at_ms)
                 VALUES (10, 3, 'urn:a', 'A', 'comic', 8), (11, 3, 'urn:b', 'B', 'epub', 9);
             INSERT INTO tasks (book_id, server_id, kind, url, seq, state, created_at_ms, updated_at_ms)
                 VALUES (10, 3, 'page', 'https://books.example/p/0', 1, 'done', 1, 1),
                        (11, 3, 'file', 'https://books.example/b.epub', 2, 'pending', 1, 1);
             INSERT INTO book_meta (book_id, series) VALUES (10, 'S');
             INSERT INTO server_slots (server_id) VALUES (3);",
        )
        .unwrap();
    }

    #[test]
    fn rebuilding_the_servers_table_keeps_every_row_that_references_a_server() {
        let (_t, dir) = temp();
        database_before_device_books(&dir);
        let store = Store::open(&dir, clock::system()).unwrap();
        let counts: (i64, i64, i64, i64, i64, String, i64) = store
            .read(|c| {
                Ok::<_, rusqlite::Error>((
                    value(c, "SELECT count(*) FROM servers")?,
                    value(c, "SELECT count(*) FROM books WHERE server_id = 3")?,
                    value(c, "SELECT count(*) FROM tasks WHERE server_id = 3")?,
                    value(c, "SELECT count(*) FROM book_meta")?,
                    value(c, "SELECT count(*) FROM server_slots")?,
                    value(
                        c,
                        "SELECT kind || ' ' || name || ' ' || url || ' ' || username || ' ' || min_interval_ms
                             || ' ' || paused_reason || ' ' || trust_self_signed || ' ' || api_key
                         FROM servers WHERE id = 3",
                    )?,
                    value(c, "PRAGMA foreign_keys")?,
                ))
            })
            .unwrap();
        assert_eq!(
            counts,
            (
                1,
                2,
                2,
                1,
                1,
                "opds Home https://books.example/opds ann 250 auth 1 1".into(),
                1
            )
        );
        // Still one id never given twice, one name per server, a network address per server;
        // the device source is the one row that may have `device:`.
        store
            .write(|tx| {
                tx.execute(
                    "INSERT INTO servers (name, url, created_at_ms) VALUES ('Other', 'http://o.example/', 1)",
                    [],
                )?;
                let last: i64 = value(tx, "SELECT last FROM id_high_water WHERE name = 'servers'")?;
                assert_eq!(last, 4);
                assert!(tx
                    .execute("INSERT INTO servers (name, url, created_at_ms) VALUES ('Home', 'http://x.example/', 1)", [])
                    .is_err());
                assert!(tx
                    .execute("INSERT INTO servers (name, url, created_at_ms) VALUES ('Z', 'device:', 1)", [])
                    .is_err());
                tx.execute(
                    "INSERT INTO servers (kind, name, url, created_at_ms) VALUES ('device', 'Home', 'device:', 1)",
                    [],
                )?;
                assert!(tx
                    .execute("INSERT INTO servers (kind, name, url, created_at_ms) VALUES ('device', 'D', 'device:', 1)", [])
                    .is_err());
                // Foreign keys are on again: deleting a server still takes its books along.
                tx.execute("DELETE FROM servers WHERE id = 3", [])?;
                let books: i64 = value(tx, "SELECT count(*) FROM books")?;
                assert_eq!(books, 0);
                Ok::<_, StoreError>(())
            })
            .unwrap();
    }

    #[test]
    fn the_series_read_ahead_tables_keep_their_rows_under_their_new_names() {
        let (_t, dir) = temp();
        database_before(&dir, "0029_series_read_ahead")
            .execute_batch(
                "INSERT INTO servers (id, name, url, created_at_ms) VALUES (3, 'Home', 'https://books.example/opds', 7);
                 INSERT INTO books (id, server_id, catalog_id, title, format, created_at_ms)
                     VALUES (10, 3, 'urn:a', 'A', 'comic', 8), (11, 3, 'urn:b', 'B', 'comic', 9);
                 INSERT INTO series_windows (server_id, series, keep_next, remove_after_days, from_server_default)
                     VALUES (3, 'Saga', 2, 7, 1);
                 INSERT INTO series_window_books (book_id, finished_ms) VALUES (10, 500), (11, NULL);
                 INSERT INTO series_windows_stopped (server_id, series) VALUES (3, 'Other');",
            )
            .unwrap();
        let store = Store::open(&dir, clock::system()).unwrap();
        let rows: (String, String, String, i64) = store
            .read(|c| {
                Ok::<_, rusqlite::Error>((
                    value(
                        c,
                        "SELECT server_id || ' ' || series || ' ' || keep_next || ' ' || remove_after_days
                             || ' ' || from_server_default FROM series_read_ahead",
                    )?,
                    value(
                        c,
                        "SELECT group_concat(book_id || ':' || ifnull(finished_ms, '-'), ' ')
                         FROM (SELECT * FROM series_read_ahead_books ORDER BY book_id)",
                    )?,
                    value(c, "SELECT server_id || ' ' || series FROM series_read_ahead_stopped")?,
                    value(c, "SELECT count(*) FROM sqlite_schema WHERE name LIKE '%window%'")?,
                ))
            })
            .unwrap();
        assert_eq!(
            rows,
            (
                "3 Saga 2 7 1".to_owned(),
                "10:500 11:-".to_owned(),
                "3 Other".to_owned(),
                0
            )
        );
        // The rules came along: one row per series, and a server's or a book's rows go with it.
        store
            .write(|tx| {
                assert!(tx
                    .execute(
                        "INSERT INTO series_read_ahead (server_id, series, keep_next) VALUES (3, 'Saga', 1)",
                        [],
                    )
                    .is_err());
                assert!(tx
                    .execute(
                        "INSERT INTO series_read_ahead (server_id, series, keep_next) VALUES (3, 'New', 51)",
                        [],
                    )
                    .is_err());
                tx.execute("DELETE FROM books WHERE id = 10", [])?;
                let books: i64 = value(tx, "SELECT count(*) FROM series_read_ahead_books")?;
                assert_eq!(books, 1);
                tx.execute("DELETE FROM servers WHERE id = 3", [])?;
                let left: i64 = value(
                    tx,
                    "SELECT (SELECT count(*) FROM series_read_ahead) + (SELECT count(*) FROM series_read_ahead_books)
                         + (SELECT count(*) FROM series_read_ahead_stopped)",
                )?;
                assert_eq!(left, 0);
                Ok::<_, StoreError>(())
            })
            .unwrap();
    }

    #[test]
    fn a_migration_that_leaves_a_reference_dangling_is_not_kept() {
        let (_t, dir) = temp();
        database_before_device_books(&dir);
        // A book of a server that is not there: the check before the commit refuses the run.
        let conn = Connection::open(dir.database()).unwrap();
        conn.execute_batch(
            "PRAGMA foreign_keys = OFF;
             INSERT INTO books (id, server_id, catalog_id, title, format, created_at_ms)
                 VALUES (12, 99, 'urn:c', 'C', 'pdf', 1);",
        )
        .unwrap();
        drop(conn);
        let err = Store::open(&dir, clock::system()).unwrap_err();
        assert!(
            matches!(&err, StoreError::BrokenReferences { table, .. } if table == "books"),
            "{err:?}"
        );
        let conn = Connection::open(dir.database()).unwrap();
        let version: i64 = conn
            .query_row("PRAGMA user_version", [], |r| r.get(0))
            .unwrap();
        assert!(version < SCHEMA_VERSION);
    }

    #[test]
    fn reopening_keeps_data_and_does_not_reapply_migrations() {
        let (_t, dir) = temp();
        {
            let s = Store::open(&dir, clock::system()).unwrap();
            s.write(|tx| {
                tx.execute("INSERT INTO settings(key, value) VALUES ('k', 'v')", [])
                    .map_err(|e| s.sql_error(e))
            })
            .unwrap();
        }
        let s = Store::open(&dir, clock::system()).unwrap();
        let v: String = s
            .read(|c| {
                c.query_row("SELECT value FROM settings WHERE key = 'k'", [], |r| {
                    r.get(0)
                })
            })
            .unwrap();
        assert_eq!(v, "v");
    }

    #[test]
    fn a_file_that_is_not_a_database_is_reported_and_left_untouched() {
        let (_t, dir) = temp();
        std::fs::create_dir_all(dir.root()).unwrap();
        let garbage = b"this is my thesis, not a database.....................................................".repeat(20);
        std::fs::write(dir.database(), &garbage).unwrap();
        let err = Store::open(&dir, clock::system()).unwrap_err();
        assert!(matches!(err, StoreError::Corrupt { .. }), "{err:?}");
        assert!(err.to_string().contains("left untouched"));
        assert_eq!(std::fs::read(dir.database()).unwrap(), garbage);
    }

    #[test]
    fn an_unversioned_foreign_database_is_not_adopted() {
        let (_t, dir) = temp();
        std::fs::create_dir_all(dir.root()).unwrap();
        Connection::open(dir.database())
            .unwrap()
            .execute_batch("CREATE TABLE recipes(x)")
            .unwrap();
        let err = Store::open(&dir, clock::system()).unwrap_err();
        assert!(matches!(err, StoreError::Corrupt { .. }), "{err:?}");
    }

    #[test]
    fn a_newer_schema_is_refused_without_changes() {
        let (_t, dir) = temp();
        drop(Store::open(&dir, clock::system()).unwrap());
        Connection::open(dir.database())
            .unwrap()
            .pragma_update(None, "user_version", SCHEMA_VERSION + 5)
            .unwrap();
        let err = Store::open(&dir, clock::system()).unwrap_err();
        match err {
            StoreError::NewerSchema {
                found, supported, ..
            } => {
                assert_eq!(found, SCHEMA_VERSION + 5);
                assert_eq!(supported, SCHEMA_VERSION);
            }
            other => panic!("expected NewerSchema, got {other:?}"),
        }
        let v: i64 = Connection::open(dir.database())
            .unwrap()
            .query_row("PRAGMA user_version", [], |r| r.get(0))
            .unwrap();
        assert_eq!(v, SCHEMA_VERSION + 5);
    }

    #[test]
    fn an_unwritable_dir_is_reported() {
        let (t, _) = temp();
        // A data dir below a regular file can never be created, even as root.
        let blocker = t.path().join("file");
        std::fs::write(&blocker, b"x").unwrap();
        let dir = DataDir::new(blocker.join("data"));
        let err = Store::open(&dir, clock::system()).unwrap_err();
        assert!(matches!(err, StoreError::Unwritable { .. }), "{err:?}");
        assert!(err.to_string().contains("cannot use the data folder"));
    }

    #[test]
    fn many_processes_may_open_one_data_dir_at_once() {
        let (_t, dir) = temp();
        let threads: Vec<_> = (0..8)
            .map(|_| {
                let dir = dir.clone();
                std::thread::spawn(move || Store::open(&dir, clock::system()).map(|_| ()))
            })
            .collect();
        for t in threads {
            t.join().unwrap().unwrap();
        }
    }

    #[test]
    fn the_read_connection_refuses_writes() {
        let (_t, dir) = temp();
        let s = Store::open(&dir, clock::system()).unwrap();
        let r = s.read(|c| c.execute("INSERT INTO settings(key, value) VALUES ('a', 'b')", []));
        assert!(r.is_err());
    }

    #[cfg(unix)]
    #[test]
    fn the_data_dir_and_the_database_files_are_private() {
        use std::os::unix::fs::PermissionsExt;
        let (_t, d) = temp();
        // A folder and a database left readable by an older version are tightened too.
        std::fs::create_dir_all(d.root()).unwrap();
        std::fs::set_permissions(d.root(), std::fs::Permissions::from_mode(0o755)).unwrap();
        let store = Store::open(&d, clock::system()).unwrap();
        put(&store, "downloads.paused", "true");
        let mode = |p: &std::path::Path| std::fs::metadata(p).unwrap().permissions().mode() & 0o777;
        assert_eq!(mode(d.root()), 0o700);
        for name in ["carrel.db", "carrel.db-wal", "carrel.db-shm"] {
            assert_eq!(mode(&d.root().join(name)), 0o600, "{name}");
        }
    }

    fn put(store: &Store, key: &str, value: &str) {
        store
            .write(|tx| {
                tx.execute(
                    "INSERT OR REPLACE INTO settings(key, value) VALUES (?1, ?2)",
                    [key, value],
                )
                .map_err(|e| store.sql_error(e))
            })
            .unwrap();
    }

    fn setting(store: &Store, key: &str) -> Option<String> {
        store
            .read(|c| {
                c.query_row("SELECT value FROM settings WHERE key = ?1", [key], |r| {
                    r.get(0)
                })
                .optional()
            })
            .unwrap()
    }

    #[test]
    fn a_read_inside_a_write_reads_through_it_and_only_for_its_store() {
        let (_t, dir) = temp();
        let (_t2, other_dir) = temp();
        let store = Store::open(&dir, clock::system()).unwrap();
        let other = Store::open(&other_dir, clock::system()).unwrap();
        put(&other, "k", "other's");
        let seen = store
            .write(|tx| {
                tx.execute("INSERT INTO settings(key, value) VALUES ('k', 'mine')", [])
                    .map_err(|e| store.sql_error(e))?;
                // The reader connection cannot see an uncommitted row: this read went through
                // the transaction. Another store's read is its own.
                Ok::<_, StoreError>((setting(&store, "k"), setting(&other, "k")))
            })
            .unwrap();
        assert_eq!(seen, (Some("mine".into()), Some("other's".into())));
        // A write given up takes its reads with it; reads after it are the reader's again.
        let failed: Result<(), StoreError> = store.write(|tx| {
            tx.execute("UPDATE settings SET value = 'changed' WHERE key = 'k'", [])
                .map_err(|e| store.sql_error(e))?;
            assert_eq!(setting(&store, "k").as_deref(), Some("changed"));
            Err(StoreError::DiskFull)
        });
        assert!(failed.is_err());
        assert_eq!(setting(&store, "k").as_deref(), Some("mine"));
        let panicked = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            let _ = store.write(|_| -> Result<(), StoreError> { panic!("in a write") });
        }));
        assert!(panicked.is_err());
        assert_eq!(setting(&store, "k").as_deref(), Some("mine"));
        let writing = WRITING.with(Cell::get);
        assert!(writing.is_none(), "a write's connection outlived it");
    }

    /// Reads made on the writer see every commit, another process's included, and go back to
    /// the reader connection when the call ends.
    #[test]
    fn reads_on_the_writer_see_every_commit_and_end_with_the_call() {
        let (_t, dir) = temp();
        let store = Store::open(&dir, clock::system()).unwrap();
        // A second store on the same file: a connection of another process.
        let other_process = Store::open(&dir, clock::system()).unwrap();
        put(&store, "k", "mine");
        let on_reader = |s: &Store| -> bool { s.read(|c| value(c, "PRAGMA query_only")).unwrap() };
        assert!(on_reader(&store));
        store.reading_on_writer(|| {
            assert!(!on_reader(&store), "the read went to the reader connection");
            assert_eq!(setting(&store, "k").as_deref(), Some("mine"));
            put(&other_process, "k", "theirs");
            assert_eq!(
                setting(&store, "k").as_deref(),
                Some("theirs"),
                "a commit of another connection was not seen"
            );
            // Another store's reads are its own.
            assert!(on_reader(&other_process));
        });
        assert!(on_reader(&store));
        assert!(WRITING.with(Cell::get).is_none());
    }

    /// Dropping the store closes all its connections before it returns, the keeper's too:
    /// the last one to close folds the log into the database and removes it, as SQLite does.
    #[test]
    fn a_dropped_store_has_closed_its_files() {
        for round in 0..20 {
            let (_t, dir) = temp();
            let store = Store::open(&dir, clock::system()).unwrap();
            put(&store, "k", "v");
            drop(store);
            let log = dir.root().join("carrel.db-wal");
            assert!(!log.exists(), "round {round}: the log is still there");
        }
    }

    #[test]
    fn the_log_keeper_copies_commits_into_the_database_file_without_the_writer() {
        let (_t, dir) = temp();
        let store = Store::open(&dir, clock::system()).unwrap();
        put(&store, "copied", "yes");
        for i in 0..FOLD_EVERY_COMMITS {
            put(&store, "count", &i.to_string());
        }
        // `immutable=1` reads the database file alone, never the log: the row shows there only
        // once the log was copied into it. The writer copies it itself only past
        // WAL_AUTOCHECKPOINT_PAGES, far more than these commits wrote; the keeper does after
        // FOLD_EVERY_COMMITS.
        let uri = format!("file:{}?immutable=1", dir.database().display());
        // A pass that runs while the last commit is written copies the log up to the commit
        // before it (PASSIVE never waits), and the file then did not always show the row to a
        // reader of the file alone: one more round of commits, with nothing written after it,
        // wakes the keeper again. Never copying is still a failure.
        let mut second_round = Some(Instant::now() + Duration::from_secs(2));
        let deadline = Instant::now() + Duration::from_secs(10);
        loop {
            let file = Connection::open_with_flags(
                &uri,
                OpenFlags::SQLITE_OPEN_READ_ONLY | OpenFlags::SQLITE_OPEN_URI,
            )
            .unwrap();
            let found: Option<String> = file
                .query_row("SELECT value FROM settings WHERE key = 'copied'", [], |r| {
                    r.get(0)
                })
                .optional()
                // Not even the schema is there before the first copy.
                .unwrap_or(None);
            if found.as_deref() == Some("yes") {
                break;
            }
            if second_round.is_some_and(|at| Instant::now() >= at) {
                second_round = None;
                for i in 0..FOLD_EVERY_COMMITS {
                    put(&store, "count", &i.to_string());
                }
            }
            assert!(
                Instant::now() < deadline,
                "the commit was not copied into the database file within 10 s"
            );
            std::thread::sleep(Duration::from_millis(50));
        }
    }
}
