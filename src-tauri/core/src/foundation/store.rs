//! The SQLite database of one data dir: opening it safely, its pragmas, the migrations compiled
//! into the binary, and the two connections a process uses — one writer, one reader.
//!
//! Owns no domain rules: the modules that own a table (servers, settings, ...) write their own
//! SQL through [`Store::write`] and [`Store::read`].
//!
//! Opening never destroys data. An unwritable dir, a file that is not a Carrel database, or a
//! database written by a newer Carrel each give a clear [`StoreError`]; nothing is recreated.

use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::Duration;

use rusqlite::{Connection, OpenFlags, Transaction, TransactionBehavior};

use crate::foundation::clock::SharedClock;
use crate::foundation::data_dir::DataDir;

/// Migrations in order; `PRAGMA user_version` counts how many are applied.
const MIGRATIONS: &[(&str, &str)] = &[
    (
        "0001_servers",
        include_str!("../../migrations/0001_servers.sql"),
    ),
    (
        "0002_downloads",
        include_str!("../../migrations/0002_downloads.sql"),
    ),
    (
        "0003_catalog_cache",
        include_str!("../../migrations/0003_catalog_cache.sql"),
    ),
    (
        "0004_page_lists",
        include_str!("../../migrations/0004_page_lists.sql"),
    ),
    (
        "0005_task_indexes",
        include_str!("../../migrations/0005_task_indexes.sql"),
    ),
    (
        "0006_server_tls",
        include_str!("../../migrations/0006_server_tls.sql"),
    ),
    (
        "0007_id_high_water",
        include_str!("../../migrations/0007_id_high_water.sql"),
    ),
    (
        "0008_position_sync",
        include_str!("../../migrations/0008_position_sync.sql"),
    ),
    (
        "0009_epub_positions",
        include_str!("../../migrations/0009_epub_positions.sql"),
    ),
    (
        "0010_position_targets",
        include_str!("../../migrations/0010_position_targets.sql"),
    ),
    (
        "0011_echo_and_server_tasks",
        include_str!("../../migrations/0011_echo_and_server_tasks.sql"),
    ),
    (
        "0013_book_identity",
        include_str!("../../migrations/0013_book_identity.sql"),
    ),
    (
        "0014_download_batches",
        include_str!("../../migrations/0014_download_batches.sql"),
    ),
    (
        "0015_kosync",
        include_str!("../../migrations/0015_kosync.sql"),
    ),
    (
        "0016_api_keys",
        include_str!("../../migrations/0016_api_keys.sql"),
    ),
    (
        "0017_task_positions",
        include_str!("../../migrations/0017_task_positions.sql"),
    ),
    (
        "0018_series_windows",
        include_str!("../../migrations/0018_series_windows.sql"),
    ),
    (
        "0019_slot_waiters",
        include_str!("../../migrations/0019_slot_waiters.sql"),
    ),
    (
        "0020_series_defaults",
        include_str!("../../migrations/0020_series_defaults.sql"),
    ),
    (
        "0021_series_from_feeds",
        include_str!("../../migrations/0021_series_from_feeds.sql"),
    ),
    (
        "0022_failed_tasks_index",
        include_str!("../../migrations/0022_failed_tasks_index.sql"),
    ),
];

/// The schema version this build writes.
pub const SCHEMA_VERSION: i64 = MIGRATIONS.len() as i64;

/// Pages of write-ahead log after which a commit copies the log into the database.
const WAL_AUTOCHECKPOINT_PAGES: i64 = 4000;

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
    clock: SharedClock,
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
        Ok(Store {
            inner: Arc::new(Inner {
                dir: dir.clone(),
                writer: Mutex::new(writer),
                reader: Mutex::new(reader),
                clock,
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
    pub fn write<T, E>(&self, f: impl FnOnce(&Transaction<'_>) -> Result<T, E>) -> Result<T, E>
    where
        E: From<StoreError>,
    {
        let mut conn = lock(&self.inner.writer);
        let path = self.inner.dir.database();
        let tx = conn
            .transaction_with_behavior(TransactionBehavior::Immediate)
            .map_err(|e| StoreError::from_sqlite(e, &path))?;
        let value = f(&tx)?;
        tx.commit().map_err(|e| StoreError::from_sqlite(e, &path))?;
        Ok(value)
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

    /// Runs `f` on the read connection (which refuses writes).
    pub fn read<T, E>(&self, f: impl FnOnce(&Connection) -> Result<T, E>) -> Result<T, E> {
        let conn = lock(&self.inner.reader);
        f(&conn)
    }

    /// Maps a SQLite error met inside [`Store::write`]/[`Store::read`] to a [`StoreError`].
    pub fn sql_error(&self, err: rusqlite::Error) -> StoreError {
        StoreError::from_sqlite(err, &self.inner.dir.database())
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
    // The log is copied into the database every 4,000 pages (16 MiB) rather than SQLite's
    // 1,000: a download rewrites the same few pages of the stack task after task, and a longer
    // log copies each of them once per checkpoint instead of four times (the claim and settle
    // of a 1 KiB page measured 190 + 400 µs → 140 + 340 µs in `make bench`).
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::foundation::clock;

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
                    c.query_row("PRAGMA journal_mode", [], |r| r.get(0))?,
                    c.query_row("PRAGMA user_version", [], |r| r.get(0))?,
                    c.query_row("PRAGMA foreign_keys", [], |r| r.get(0))?,
                ))
            })
            .unwrap();
        assert_eq!(mode, "wal");
        assert_eq!(version, SCHEMA_VERSION);
        assert_eq!(fk, 1);
        let checkpoint: i64 = store
            .write(|tx| {
                tx.query_row("PRAGMA wal_autocheckpoint", [], |r| r.get(0))
                    .map_err(|e| store.sql_error(e))
            })
            .unwrap();
        assert_eq!(checkpoint, WAL_AUTOCHECKPOINT_PAGES);
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
        crate::library::settings::set(&store, &crate::library::settings::DownloadsPaused(true))
            .unwrap();
        let mode = |p: &std::path::Path| std::fs::metadata(p).unwrap().permissions().mode() & 0o777;
        assert_eq!(mode(d.root()), 0o700);
        for name in ["carrel.db", "carrel.db-wal", "carrel.db-shm"] {
            assert_eq!(mode(&d.root().join(name)), 0o600, "{name}");
        }
    }
}
