//! Library folders: folders on this computer whose books are part of the library. Every book
//! file under one (EPUB, PDF, CBZ, CBR, CB7, CBT) is imported by reference, taken in again when
//! it changes and dropped from the library when it goes; a folder removed takes its books out
//! of the library. The files themselves are never written, moved or deleted.
//!
//! Owns the `library_folders` and `library_folder_files` tables, the scan of one folder
//! ([`scan`], reported through a [`ScanProgress`] sink) and the [`FolderWatcher`], which keeps
//! every folder's books up to date while the app runs. Does not read books: importing one file
//! and forgetting one book are [`crate::local_books`]'s.
//!
//! A scan compares what it finds with what the last one recorded (each file's size and
//! modification time), so an unchanged folder costs a walk and no import. A folder that cannot
//! be read (a drive not plugged in) changes nothing: its books are not taken for gone.

use std::collections::{BTreeSet, HashMap};
use std::path::{Component, Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::{self, RecvTimeoutError};
use std::sync::Arc;
use std::thread::JoinHandle;
use std::time::{Duration, Instant, UNIX_EPOCH};

use carrel_foundation::error::{ErrorKind, Failure};
use carrel_foundation::store::{Store, StoreError};
use rusqlite::{params, OptionalExtension};
use serde::Serialize;

use crate::local_books::{self, ImportError, ImportMode};

/// The file name extensions of the books a scan takes in (compared without case).
pub const BOOK_EXTENSIONS: &[&str] = &["epub", "cbz", "cbr", "cb7", "cbt", "pdf"];

/// Files taken in (or dropped) per write transaction: a scan of 10,000 files makes fifty
/// commits, not 10,000, and the writer is free between two batches for the executor and the
/// windows.
pub const BATCH_FILES: usize = 200;

/// How long the watcher waits after the last change it heard before it looks: a file copied in
/// by pieces, or a folder of books moved in, is taken in once.
pub const WATCH_DEBOUNCE: Duration = Duration::from_millis(1000);

/// The longest the watcher lets changes wait while more keep coming (a long copy).
const WATCH_MAX_DELAY: Duration = Duration::from_secs(5);

/// How long after the watcher starts its first look at every folder waits: the app's first
/// screen is painted before a walk of the folders competes with it for the disk and the CPU.
const START_SCAN_DELAY: Duration = Duration::from_secs(3);

/// The fewest milliseconds between two progress reports of one scan (its last is always sent).
const REPORT_GAP: Duration = Duration::from_millis(100);

/// A library folder as the windows and the CLI show it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, ts_rs::TS)]
pub struct LibraryFolder {
    pub id: i64,
    /// The folder, absolute.
    pub path: String,
    pub added_at_ms: i64,
    /// When a scan last went through the whole folder; `None` before the first.
    pub last_scan_ms: Option<i64>,
    /// The books of the library found in it.
    pub book_count: i64,
}

/// What one scan did.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, ts_rs::TS)]
pub struct ScanSummary {
    pub folder_id: i64,
    /// Book files found in the folder.
    pub found: u64,
    /// Files taken into the library for the first time.
    pub imported: u64,
    /// Files taken in again because they changed.
    pub updated: u64,
    /// Books dropped from the library because their file is gone.
    pub dropped: u64,
    /// Files that could not be taken in (not a book, damaged); tried again when they change.
    pub failed: u64,
    /// The scan was stopped before its end; what it did is kept, the rest waits for the next.
    pub cancelled: bool,
}

/// A scan's progress, as a window shows it ("Scanning… 1,234 of 10,000").
#[derive(Debug, Clone, PartialEq, Eq, Serialize, ts_rs::TS)]
#[serde(tag = "kind", rename_all = "snake_case")]
#[ts(rename = "LibraryScanEvent")]
pub enum ScanEvent {
    /// The folder is being walked; `found` book files so far.
    Walking { folder_id: i64, found: u64 },
    /// Files being taken in: `done` of `total` new or changed files, `current` the one at hand
    /// (its path inside the folder).
    Importing {
        folder_id: i64,
        done: u64,
        total: u64,
        current: String,
    },
    /// The scan ended (or was cancelled; see the summary).
    Finished { summary: ScanSummary },
    /// The scan could not go through the folder; nothing was changed.
    Failed { folder_id: i64, message: String },
}

/// Where a scan reports its progress (see ripgrep's `Sink`): the shell forwards it to the
/// windows, the CLI prints it, tests record it. Called on the scanning thread.
pub trait ScanProgress: Send + Sync {
    fn report(&self, event: ScanEvent);
}

/// A sink that drops every report.
pub struct NoProgress;

impl ScanProgress for NoProgress {
    fn report(&self, _event: ScanEvent) {}
}

#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum FolderError {
    #[error("{path} is not a folder")]
    NotAFolder { path: String },
    #[error("cannot read the folder {path}: {reason}")]
    Unreadable { path: String, reason: String },
    #[error("{path} is already a library folder")]
    AlreadyAdded { path: String },
    #[error("no library folder {0}")]
    NotFound(String),
    #[error("cannot watch the library folders: {0}")]
    Watch(String),
    #[error(transparent)]
    Store(#[from] StoreError),
    #[error(transparent)]
    Book(#[from] ImportError),
}

impl Failure for FolderError {
    fn kind(&self) -> ErrorKind {
        match self {
            FolderError::NotAFolder { .. } => ErrorKind::InvalidInput,
            FolderError::Unreadable { .. } | FolderError::Watch(_) => ErrorKind::Storage,
            FolderError::AlreadyAdded { .. } => ErrorKind::Conflict,
            FolderError::NotFound(_) => ErrorKind::NotFound,
            FolderError::Store(_) => ErrorKind::Storage,
            FolderError::Book(e) => e.kind(),
        }
    }
}

type Result<T, E = FolderError> = std::result::Result<T, E>;

const FOLDER_COLUMNS: &str = "f.id, f.path, f.added_at_ms, f.last_scan_ms,
     (SELECT count(DISTINCT book_id) FROM library_folder_files WHERE folder_id = f.id AND book_id IS NOT NULL)";

fn folder_row(r: &rusqlite::Row<'_>) -> rusqlite::Result<LibraryFolder> {
    Ok(LibraryFolder {
        id: r.get(0)?,
        path: r.get(1)?,
        added_at_ms: r.get(2)?,
        last_scan_ms: r.get(3)?,
        book_count: r.get(4)?,
    })
}

/// Every library folder, by path.
pub fn list(store: &Store) -> Result<Vec<LibraryFolder>> {
    carrel_foundation::rows::all(
        store,
        &format!("SELECT {FOLDER_COLUMNS} FROM library_folders f ORDER BY f.path"),
        [],
        folder_row,
    )
    .map_err(Into::into)
}

/// One library folder by its id.
pub fn get(store: &Store, id: i64) -> Result<LibraryFolder> {
    let sql = format!("SELECT {FOLDER_COLUMNS} FROM library_folders f WHERE f.id = ?1");
    carrel_foundation::rows::optional(store, &sql, [id], folder_row)?
        .ok_or_else(|| FolderError::NotFound(id.to_string()))
}

/// A library folder by its id or its path (as given, or as the folder it names).
pub fn find(store: &Store, id_or_path: &str) -> Result<LibraryFolder> {
    if let Ok(id) = id_or_path.parse::<i64>() {
        if let Ok(folder) = get(store, id) {
            return Ok(folder);
        }
    }
    let given = Path::new(id_or_path);
    let absolute = std::fs::canonicalize(given)
        .ok()
        .or_else(|| std::path::absolute(given).ok());
    list(store)?
        .into_iter()
        .find(|f| {
            Path::new(&f.path) == given
                || absolute.as_deref().is_some_and(|a| Path::new(&f.path) == a)
        })
        .ok_or_else(|| FolderError::NotFound(id_or_path.to_owned()))
}

/// The folder shown as `path` could not be read.
fn unreadable(path: &str) -> impl Fn(std::io::Error) -> FolderError + '_ {
    move |e| FolderError::Unreadable {
        path: path.to_owned(),
        reason: e.to_string(),
    }
}

/// Adds a folder (made absolute, its links resolved) to the library; its books come in with
/// its first [`scan`].
pub fn add(store: &Store, path: &Path) -> Result<LibraryFolder> {
    let shown = path.display().to_string();
    let resolved = std::fs::canonicalize(path).map_err(unreadable(&shown))?;
    if !resolved.is_dir() {
        return Err(FolderError::NotAFolder { path: shown });
    }
    let text = resolved
        .to_str()
        .ok_or_else(|| FolderError::Unreadable {
            path: shown.clone(),
            reason: "its name is not valid Unicode".into(),
        })?
        .to_owned();
    let now = store.now_ms();
    let id = store.write(|tx| {
        let added = tx
            .prepare_cached(
                "INSERT INTO library_folders (path, added_at_ms) VALUES (?1, ?2)
                 ON CONFLICT (path) DO NOTHING RETURNING id",
            )
            .and_then(|mut s| {
                s.query_row(params![text, now], |r| r.get::<_, i64>(0))
                    .optional()
            })
            .map_err(|e| store.sql_error(e))?;
        added.ok_or(FolderError::AlreadyAdded { path: text.clone() })
    })?;
    get(store, id)
}

/// What removing a folder did.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, ts_rs::TS)]
pub struct RemovedFolder {
    pub folder: LibraryFolder,
    /// Books dropped from the library with it.
    pub books_dropped: u64,
}

/// Removes a library folder: its books leave the library (unless another library folder holds
/// the same file); the files stay where they are, untouched.
pub fn remove(store: &Store, id: i64) -> Result<RemovedFolder> {
    let folder = get(store, id)?;
    let books: Vec<i64> = store.write(|tx| {
        let books = tx
            .prepare_cached(
                "SELECT DISTINCT book_id FROM library_folder_files
                 WHERE folder_id = ?1 AND book_id IS NOT NULL",
            )
            .and_then(|mut s| {
                s.query_map([id], |r| r.get(0))?
                    .collect::<rusqlite::Result<Vec<i64>>>()
            })
            .map_err(|e| store.sql_error(e))?;
        tx.execute("DELETE FROM library_folders WHERE id = ?1", [id])
            .map_err(|e| store.sql_error(e))?;
        Ok::<_, FolderError>(books)
    })?;
    let dropped = drop_unheld(
        store,
        books,
        "a removed library folder's book stays in the library",
    )?;
    Ok(RemovedFolder {
        folder,
        books_dropped: dropped,
    })
}

fn folder_exists(store: &Store, folder_id: i64) -> Result<bool> {
    let sql = "SELECT EXISTS (SELECT 1 FROM library_folders WHERE id = ?1)";
    Ok(carrel_foundation::rows::value(store, sql, [folder_id])?)
}

/// Drops from the library each of these books no library folder holds a file of any more.
/// A book that cannot be dropped stays, logged with `stays` (what it means for the reader);
/// only a failure to look is an error. Returns the books dropped.
fn drop_unheld(store: &Store, books: impl IntoIterator<Item = i64>, stays: &str) -> Result<u64> {
    let mut dropped = 0;
    for book in books {
        if still_held(store, book)? {
            continue;
        }
        match forget_book(store, book) {
            Ok(()) => dropped += 1,
            Err(e) => tracing::warn!(book, cause = %e, "{stays}"),
        }
    }
    Ok(dropped)
}

/// Whether a library folder still holds a file of this book.
fn still_held(store: &Store, book: i64) -> Result<bool> {
    let sql = "SELECT EXISTS (SELECT 1 FROM library_folder_files WHERE book_id = ?1)";
    Ok(carrel_foundation::rows::value(store, sql, [book])?)
}

/// A book file found by a walk.
#[derive(Debug, Clone)]
struct FoundFile {
    path: String,
    size: i64,
    mtime_ms: i64,
}

/// A file as the last scan recorded it.
#[derive(Debug, Clone, Copy)]
struct KnownFile {
    size: i64,
    mtime_ms: i64,
    book_id: Option<i64>,
}

/// Whether a file name has a book's extension.
pub fn is_book_file(path: &Path) -> bool {
    path.extension()
        .and_then(|e| e.to_str())
        .is_some_and(|e| BOOK_EXTENSIONS.iter().any(|b| e.eq_ignore_ascii_case(b)))
}

fn is_hidden(name: &std::ffi::OsStr) -> bool {
    name.as_encoded_bytes().first() == Some(&b'.')
}

fn mtime_ms(meta: &std::fs::Metadata) -> i64 {
    meta.modified()
        .ok()
        .and_then(|t| t.duration_since(UNIX_EPOCH).ok())
        .map_or(0, |d| i64::try_from(d.as_millis()).unwrap_or(i64::MAX))
}

/// Walks `root` for book files: links followed (a loop is skipped), hidden files and folders
/// left out, unreadable corners skipped. Fails only when the root itself cannot be read.
fn walk(
    root: &Path,
    folder_id: i64,
    sink: &dyn ScanProgress,
    cancel: &AtomicBool,
) -> Result<Option<Vec<FoundFile>>> {
    let shown = root.display().to_string();
    let meta = std::fs::metadata(root).map_err(unreadable(&shown))?;
    if !meta.is_dir() {
        return Err(FolderError::NotAFolder { path: shown });
    }
    std::fs::read_dir(root).map_err(unreadable(&shown))?;
    let mut found = Vec::new();
    let mut reported = Instant::now();
    let walker = walkdir::WalkDir::new(root)
        .follow_links(true)
        .sort_by_file_name()
        .into_iter()
        .filter_entry(|e| e.depth() == 0 || !is_hidden(e.file_name()));
    for entry in walker {
        if cancel.load(Ordering::Relaxed) {
            return Ok(None);
        }
        let entry = match entry {
            Ok(e) => e,
            Err(e) => {
                tracing::debug!(cause = %e, "a library folder's entry skipped");
                continue;
            }
        };
        if !entry.file_type().is_file() || !is_book_file(entry.path()) {
            continue;
        }
        let Some(path) = entry.path().to_str() else {
            tracing::warn!(path = %entry.path().display(), "a book whose name is not valid Unicode is left out");
            continue;
        };
        let Ok(meta) = entry.metadata() else { continue };
        found.push(FoundFile {
            path: path.to_owned(),
            size: i64::try_from(meta.len()).unwrap_or(i64::MAX),
            mtime_ms: mtime_ms(&meta),
        });
        if reported.elapsed() >= REPORT_GAP {
            reported = Instant::now();
            sink.report(ScanEvent::Walking {
                folder_id,
                found: found.len() as u64,
            });
        }
    }
    sink.report(ScanEvent::Walking {
        folder_id,
        found: found.len() as u64,
    });
    Ok(Some(found))
}

fn known_files(store: &Store, folder_id: i64) -> Result<HashMap<String, KnownFile>> {
    carrel_foundation::rows::all(
        store,
        "SELECT path, size, mtime_ms, book_id FROM library_folder_files WHERE folder_id = ?1",
        [folder_id],
        |r| {
            Ok((
                r.get::<_, String>(0)?,
                KnownFile {
                    size: r.get(1)?,
                    mtime_ms: r.get(2)?,
                    book_id: r.get(3)?,
                },
            ))
        },
    )
    .map_err(Into::into)
}

/// What became of one file, recorded with its batch.
struct Outcome {
    file: FoundFile,
    book_id: Option<i64>,
    failure: Option<String>,
}

/// Goes through one library folder: new book files are imported by reference, changed ones
/// taken in again, and the books of files gone are dropped from the library. Runs on the
/// calling thread (a blocking one): each batch of [`BATCH_FILES`] files is one write
/// transaction. `cancel` stops it between two files, keeping what was done. A folder that
/// cannot be read fails with nothing changed.
pub fn scan(
    store: &Store,
    folder_id: i64,
    sink: &dyn ScanProgress,
    cancel: &AtomicBool,
) -> Result<ScanSummary> {
    let result = scan_folder(store, folder_id, sink, cancel);
    match &result {
        Ok(summary) => sink.report(ScanEvent::Finished {
            summary: summary.clone(),
        }),
        Err(e) => sink.report(ScanEvent::Failed {
            folder_id,
            message: e.to_string(),
        }),
    }
    result
}

fn scan_folder(
    store: &Store,
    folder_id: i64,
    sink: &dyn ScanProgress,
    cancel: &AtomicBool,
) -> Result<ScanSummary> {
    let folder = get(store, folder_id)?;
    let root = PathBuf::from(&folder.path);
    let mut summary = ScanSummary {
        folder_id,
        ..ScanSummary::default()
    };
    let Some(found) = walk(&root, folder_id, sink, cancel)? else {
        summary.cancelled = true;
        return Ok(summary);
    };
    summary.found = found.len() as u64;
    let mut known = known_files(store, folder_id)?;
    let mut work = Vec::new();
    for file in found {
        match known.remove(&file.path) {
            None => work.push((file, None)),
            Some(k) if k.size != file.size || k.mtime_ms != file.mtime_ms => {
                work.push((file, Some(k)))
            }
            Some(_) => {}
        }
    }
    // What is left of `known` is gone from the folder. Gone files are dropped after the new
    // ones are taken in, so a file moved within the folder is its book re-linked (the same
    // book, its position and notes kept) rather than a book dropped and another made.
    let gone: Vec<(String, Option<i64>)> = known.into_iter().map(|(p, k)| (p, k.book_id)).collect();

    let total = work.len() as u64;
    let mut reported = Instant::now() - REPORT_GAP;
    let mut done = 0u64;
    for batch in work.chunks(BATCH_FILES) {
        let mut outcomes = Vec::with_capacity(batch.len());
        for (file, before) in batch {
            if cancel.load(Ordering::Relaxed) {
                summary.cancelled = true;
                break;
            }
            if reported.elapsed() >= REPORT_GAP || done + 1 == total {
                reported = Instant::now();
                sink.report(ScanEvent::Importing {
                    folder_id,
                    done,
                    total,
                    current: inside(&root, &file.path),
                });
            }
            let outcome = take_in(store, file, before.and_then(|k| k.book_id));
            match (&outcome, before) {
                (Some(Outcome { failure: None, .. }), None) => summary.imported += 1,
                (Some(Outcome { failure: None, .. }), Some(_)) => summary.updated += 1,
                _ => summary.failed += 1,
            }
            outcomes.extend(outcome);
            done += 1;
        }
        record(store, folder_id, &outcomes)?;
        if !folder_exists(store, folder_id)? {
            // Removed while this scan ran: what it took in leaves with it.
            for book in outcomes.iter().filter_map(|o| o.book_id) {
                if !still_held(store, book)? {
                    forget_book(store, book)?;
                }
            }
            return Err(FolderError::NotFound(folder_id.to_string()));
        }
        if summary.cancelled {
            return Ok(summary);
        }
    }
    if total > 0 {
        sink.report(ScanEvent::Importing {
            folder_id,
            done,
            total,
            current: String::new(),
        });
    }
    for batch in gone.chunks(BATCH_FILES) {
        if cancel.load(Ordering::Relaxed) {
            summary.cancelled = true;
            return Ok(summary);
        }
        summary.dropped += drop_gone(store, folder_id, batch)?;
    }
    let now = store.now_ms();
    store.execute(
        "UPDATE library_folders SET last_scan_ms = ?2 WHERE id = ?1",
        params![folder_id, now],
    )?;
    if summary.imported + summary.updated + summary.dropped > 0 {
        store.wake_waiters();
    }
    Ok(summary)
}

/// A path inside the folder, as a window shows it.
fn inside(root: &Path, path: &str) -> String {
    Path::new(path)
        .strip_prefix(root)
        .map(|p| p.display().to_string())
        .unwrap_or_else(|_| path.to_owned())
}

/// Imports a new or changed file. A file that is not (or no longer) a book is recorded with
/// why, so it is tried again only once it changes; a changed file's former book stays, marked
/// changed, in case the file was caught half written. Any other failure (the disk, the
/// database) records nothing, so the next scan tries again. `None`: nothing to record.
fn take_in(store: &Store, file: &FoundFile, before: Option<i64>) -> Option<Outcome> {
    match import_file(store, Path::new(&file.path)) {
        Ok(book) => Some(Outcome {
            file: file.clone(),
            book_id: Some(book),
            failure: None,
        }),
        Err(e) if e.kind() == ErrorKind::InvalidInput => {
            tracing::info!(path = %file.path, cause = %e, "a library folder's file is not a book");
            if let Some(book) = before {
                if let Err(e) = local_books::check(store, book) {
                    tracing::warn!(book, cause = %e, "a changed file's book was not checked");
                }
            }
            Some(Outcome {
                file: file.clone(),
                book_id: before,
                failure: Some(e.to_string()),
            })
        }
        Err(e) => {
            tracing::warn!(path = %file.path, cause = %e, "a library folder's file was not taken in; tried again at the next scan");
            None
        }
    }
}

/// Records one batch of files taken in, in one transaction.
fn record(store: &Store, folder_id: i64, outcomes: &[Outcome]) -> Result<()> {
    if outcomes.is_empty() {
        return Ok(());
    }
    store.write(|tx| {
        let mut stmt = tx
            .prepare_cached(
                "INSERT INTO library_folder_files (folder_id, path, size, mtime_ms, book_id, failure)
                 SELECT ?1, ?2, ?3, ?4, (SELECT id FROM books WHERE id = ?5), ?6
                 WHERE EXISTS (SELECT 1 FROM library_folders WHERE id = ?1)
                 ON CONFLICT (folder_id, path) DO UPDATE SET size = excluded.size,
                     mtime_ms = excluded.mtime_ms, book_id = excluded.book_id,
                     failure = excluded.failure",
            )
            .map_err(|e| store.sql_error(e))?;
        for o in outcomes {
            stmt.execute(params![
                folder_id,
                o.file.path,
                o.file.size,
                o.file.mtime_ms,
                o.book_id,
                o.failure
            ])
            .map_err(|e| store.sql_error(e))?;
        }
        Ok(())
    })
}

/// Forgets one batch of files gone from the folder, in one transaction, then drops their books
/// from the library (unless another folder holds the same file). Returns the books dropped.
fn drop_gone(store: &Store, folder_id: i64, gone: &[(String, Option<i64>)]) -> Result<u64> {
    store.write(|tx| {
        let mut stmt = tx
            .prepare_cached("DELETE FROM library_folder_files WHERE folder_id = ?1 AND path = ?2")
            .map_err(|e| store.sql_error(e))?;
        for (path, _) in gone {
            stmt.execute(params![folder_id, path])
                .map_err(|e| store.sql_error(e))?;
        }
        Ok::<_, FolderError>(())
    })?;
    let books: BTreeSet<i64> = gone.iter().filter_map(|(_, b)| *b).collect();
    drop_unheld(
        store,
        books,
        "a book whose file is gone stays in the library",
    )
}

// ---- One file in, one book out: through the local books module. ----

/// Imports a file by reference (a changed file is read again as the same book; a file moved
/// here is its book re-linked) and returns its book.
fn import_file(store: &Store, path: &Path) -> Result<i64, ImportError> {
    Ok(local_books::import(store, path, ImportMode::Reference)?.book_id)
}

/// Drops a book from the library: its row and its link in the data folder, never the file.
fn forget_book(store: &Store, book: i64) -> Result<()> {
    match local_books::forget(store, book) {
        Ok(()) | Err(ImportError::NotLocal(_)) => Ok(()),
        Err(e) => Err(e.into()),
    }
}

// ---- Watching ----

enum WatchMessage {
    Changed(notify::Result<notify::Event>),
    FoldersChanged,
    Rescan(i64),
    Stop,
}

/// Keeps every library folder's books up to date while it lives: it scans each folder once
/// [`START_SCAN_DELAY`] after it starts (what changed while Carrel was closed), then again about [`WATCH_DEBOUNCE`] after
/// files change in it. Scans run one at a time on a thread of its own, reported to the sink.
/// Dropping it cancels a scan under way and stops the watching.
pub struct FolderWatcher {
    messages: mpsc::Sender<WatchMessage>,
    cancel: Arc<AtomicBool>,
    thread: Option<JoinHandle<()>>,
}

impl FolderWatcher {
    /// Starts watching every library folder of `store`.
    pub fn start(store: Store, sink: Arc<dyn ScanProgress>) -> Result<FolderWatcher> {
        let (tx, rx) = mpsc::channel();
        let events = tx.clone();
        let watcher = notify::recommended_watcher(move |event| {
            let _ = events.send(WatchMessage::Changed(event));
        })
        .map_err(|e| FolderError::Watch(e.to_string()))?;
        let cancel = Arc::new(AtomicBool::new(false));
        let watching = Watching {
            store,
            sink,
            watcher,
            watched: HashMap::new(),
            cancel: cancel.clone(),
        };
        let thread = std::thread::Builder::new()
            .name("library-folders".into())
            .spawn(move || watching.run(rx))
            .map_err(|e| FolderError::Watch(e.to_string()))?;
        Ok(FolderWatcher {
            messages: tx,
            cancel,
            thread: Some(thread),
        })
    }

    /// A folder was added or removed: watch the folders as they are now.
    pub fn folders_changed(&self) {
        let _ = self.messages.send(WatchMessage::FoldersChanged);
    }

    /// Scans a folder now (after the scan under way, if any).
    pub fn rescan(&self, folder_id: i64) {
        let _ = self.messages.send(WatchMessage::Rescan(folder_id));
    }
}

impl Drop for FolderWatcher {
    fn drop(&mut self) {
        self.cancel.store(true, Ordering::Relaxed);
        let _ = self.messages.send(WatchMessage::Stop);
        if let Some(thread) = self.thread.take() {
            let _ = thread.join();
        }
    }
}

/// The watcher's thread: what it watches and what it scans.
struct Watching {
    store: Store,
    sink: Arc<dyn ScanProgress>,
    watcher: notify::RecommendedWatcher,
    /// Folder ids by the path watched.
    watched: HashMap<PathBuf, i64>,
    cancel: Arc<AtomicBool>,
}

impl Watching {
    fn run(mut self, messages: mpsc::Receiver<WatchMessage>) {
        let mut dirty: BTreeSet<i64> = BTreeSet::new();
        // When the dirty folders are scanned, and the latest that may be put off to.
        let mut due: Option<(Instant, Instant)> = None;
        self.watch_folders();
        dirty.extend(self.watched.values().copied());
        if !dirty.is_empty() {
            let first = Instant::now() + START_SCAN_DELAY;
            due = Some((first, first));
        }
        loop {
            let message = match due {
                Some((at, _)) => {
                    messages.recv_timeout(at.saturating_duration_since(Instant::now()))
                }
                None => messages.recv().map_err(|_| RecvTimeoutError::Disconnected),
            };
            match message {
                Ok(WatchMessage::Changed(Ok(event))) => {
                    if !matters(&event.kind) {
                        continue;
                    }
                    let mut touched = false;
                    for path in &event.paths {
                        for id in self.folders_of(path) {
                            dirty.insert(id);
                            touched = true;
                        }
                    }
                    if touched {
                        let now = Instant::now();
                        let latest = due.map_or(now + WATCH_MAX_DELAY, |(_, l)| l);
                        due = Some(((now + WATCH_DEBOUNCE).min(latest), latest));
                    }
                }
                Ok(WatchMessage::Changed(Err(e))) => {
                    tracing::warn!(cause = %e, "watching the library folders");
                    // Events may have been lost: look at every folder.
                    dirty.extend(self.watched.values().copied());
                    let now = Instant::now();
                    due = Some((now + WATCH_DEBOUNCE, now + WATCH_MAX_DELAY));
                }
                Ok(WatchMessage::FoldersChanged) => self.watch_folders(),
                Ok(WatchMessage::Rescan(id)) => {
                    self.watch_folders();
                    dirty.insert(id);
                    let now = Instant::now();
                    due = Some((now, now));
                }
                Ok(WatchMessage::Stop) | Err(RecvTimeoutError::Disconnected) => return,
                Err(RecvTimeoutError::Timeout) => {
                    due = None;
                    for id in std::mem::take(&mut dirty) {
                        if self.cancel.load(Ordering::Relaxed) {
                            return;
                        }
                        match scan(&self.store, id, self.sink.as_ref(), &self.cancel) {
                            Ok(summary) => tracing::debug!(?summary, "library folder scanned"),
                            Err(FolderError::NotFound(_)) => {}
                            Err(e) => {
                                tracing::warn!(folder = id, cause = %e, "a library folder was not scanned")
                            }
                        }
                    }
                }
            }
        }
    }

    /// Watches every library folder (and stops watching those removed).
    fn watch_folders(&mut self) {
        use notify::Watcher;
        let folders = match list(&self.store) {
            Ok(f) => f,
            Err(e) => {
                tracing::warn!(cause = %e, "the library folders could not be read");
                return;
            }
        };
        let wanted: HashMap<PathBuf, i64> = folders
            .into_iter()
            .map(|f| (PathBuf::from(f.path), f.id))
            .collect();
        let stale: Vec<PathBuf> = self
            .watched
            .keys()
            .filter(|p| !wanted.contains_key(*p))
            .cloned()
            .collect();
        for path in stale {
            let _ = self.watcher.unwatch(&path);
            self.watched.remove(&path);
        }
        for (path, id) in wanted {
            if self.watched.contains_key(&path) {
                continue;
            }
            match self.watcher.watch(&path, notify::RecursiveMode::Recursive) {
                Ok(()) => {
                    self.watched.insert(path, id);
                }
                Err(e) => {
                    tracing::warn!(folder = id, cause = %e, "a library folder is not watched")
                }
            }
        }
    }

    /// The library folders a changed path is in (one inside another: both), unless it is
    /// hidden there.
    fn folders_of(&self, path: &Path) -> Vec<i64> {
        self.watched
            .iter()
            .filter_map(|(root, id)| {
                let rest = path.strip_prefix(root).ok()?;
                let hidden = rest
                    .components()
                    .any(|c| matches!(c, Component::Normal(n) if is_hidden(n)));
                (!hidden).then_some(*id)
            })
            .collect()
    }
}

/// Whether an event can change what a folder holds (reading a file cannot).
fn matters(kind: &notify::EventKind) -> bool {
    use notify::event::{AccessKind, AccessMode, MetadataKind, ModifyKind};
    use notify::EventKind;
    match kind {
        EventKind::Access(AccessKind::Close(AccessMode::Write)) => true,
        EventKind::Access(_) => false,
        EventKind::Modify(ModifyKind::Metadata(MetadataKind::AccessTime)) => false,
        _ => true,
    }
}

#[cfg(test)]
#[path = "library_folders_tests.rs"]
mod tests;
