//! What to download for a book, and when: the producers of the download stack.
//!
//! - **store book** (the reader keeps a book offline): a prioritary `book` task, unless the
//!   book is stored already;
//! - **open book at page N**: page N, prioritary; each page then pushes the next one not yet
//!   stored (N+1, …, the last, then 0, …, N−1), so the reader's page comes first, not page 0;
//! - **keep many offline** ([`keep_books`]): a whole series, feed or search, not prioritary,
//!   in the list's order;
//! - **latest read**: the first not-yet-stored book among the N most recently opened;
//! - **chained parts**: each finished part pushes the next ([`next_parts`]).
//!
//! Also a book's progress (stored/total parts), its removal with its files, cancelling and
//! retrying its downloads, and eviction: books neither pinned nor among the N most recently
//! opened leave the device ([`evict_unkept`]).
//! Owns no table; speaks through [`carrel_library::books`] and [`crate::download_stack`].

use std::collections::BTreeSet;

use rusqlite::params;
use serde::Serialize;

use crate::download_stack::{self, Pushed, Task, TaskKind, TaskSpec, TaskState};
use crate::page_range;
use crate::progress::BookProgress;
use carrel_foundation::part_files::PartFiles;
use carrel_foundation::store::{Store, StoreError};
use carrel_library::books::{self, Book, BookError};
use carrel_opds::{PageBase, PageStream};

#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum DownloadRequestError {
    #[error(transparent)]
    Book(#[from] BookError),
    #[error("page {page} does not exist: the book has {count} pages")]
    NoSuchPage { page: i64, count: i64 },
    #[error("{0} is not a page number")]
    NotAPage(i64),
    #[error("the server gives no way to download \"{0}\"")]
    NotDownloadable(String),
    #[error("cannot remove the files of book {book_id}: {reason}")]
    Files { book_id: i64, reason: String },
    #[error("the file of \"{0}\" is no longer where it was imported from; import it again")]
    LocalFileMissing(String),
    #[error(transparent)]
    Store(#[from] StoreError),
}

impl From<page_range::OutOfRange> for DownloadRequestError {
    fn from(e: page_range::OutOfRange) -> Self {
        DownloadRequestError::NoSuchPage {
            page: e.page,
            count: e.count,
        }
    }
}

impl carrel_foundation::error::Failure for DownloadRequestError {
    fn kind(&self) -> carrel_foundation::error::ErrorKind {
        use carrel_foundation::error::ErrorKind;
        match self {
            DownloadRequestError::Book(BookError::NotFound(_))
            | DownloadRequestError::LocalFileMissing(_) => ErrorKind::NotFound,
            DownloadRequestError::NoSuchPage { .. }
            | DownloadRequestError::NotAPage(_)
            | DownloadRequestError::NotDownloadable(_) => ErrorKind::InvalidInput,
            _ => ErrorKind::Storage,
        }
    }
}

/// What a store request did.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, ts_rs::TS)]
#[serde(rename_all = "snake_case")]
pub enum StoreRequest {
    Queued,
    AlreadyStored,
}

/// The URL of page `page` (0-based) of a page-streamed book, for background downloads (the
/// stored template carries no bookmark-moving parameter).
pub fn page_url(book: &Book, page: i64) -> Option<String> {
    if !book.page_list.is_empty() {
        let url = url::Url::parse(book.page_list.get(usize::try_from(page).ok()?)?).ok()?;
        return Some(carrel_opds::strip_bookmark_params(&url).to_string());
    }
    let stream = PageStream {
        template: book.stream_template.clone()?,
        count: u32::try_from(book.page_count?).ok()?,
        declared_type: None,
        last_read: None,
        last_read_date: None,
    };
    let base = if book.page_base == 1 {
        PageBase::OneBased
    } else {
        PageBase::ZeroBased
    };
    let page = u32::try_from(page).ok()?;
    stream
        .page_url(page, base, None)
        .ok()
        .map(|u| u.to_string())
}

fn page_spec(book: &Book, page: i64, prioritary: bool) -> Option<TaskSpec> {
    Some(TaskSpec {
        book_id: book.id,
        server_id: book.server_id,
        kind: TaskKind::Page,
        position: page,
        url: page_url(book, page)?,
        prioritary,
    })
}

fn book_spec(book: &Book, prioritary: bool) -> TaskSpec {
    TaskSpec {
        book_id: book.id,
        server_id: book.server_id,
        kind: TaskKind::Book,
        position: 0,
        url: String::new(),
        prioritary,
    }
}

fn file_spec(book: &Book, prioritary: bool) -> Option<TaskSpec> {
    // A file imported from the device is never downloaded (its address is a `file:` one).
    if book.is_local_file() {
        return None;
    }
    Some(TaskSpec {
        book_id: book.id,
        server_id: book.server_id,
        kind: TaskKind::File,
        position: 0,
        url: book.file_url.clone()?,
        prioritary,
    })
}

fn cover_spec(book: &Book) -> Option<TaskSpec> {
    Some(TaskSpec {
        book_id: book.id,
        server_id: book.server_id,
        kind: TaskKind::Resource,
        position: 0,
        url: book.cover_url.clone()?,
        prioritary: false,
    })
}

/// The reader asks to keep a book offline: pins it and queues it, prioritary.
pub fn store_book(store: &Store, book_id: i64) -> Result<StoreRequest, DownloadRequestError> {
    let book = books::get(store, book_id)?;
    books::set_pinned(store, book_id, true)?;
    if progress(store, &book)?.is_complete() {
        return Ok(StoreRequest::AlreadyStored);
    }
    if book.is_local_file() {
        return Err(DownloadRequestError::LocalFileMissing(book.title));
    }
    if !book.streams_pages() && book.file_url.is_none() {
        return Err(DownloadRequestError::NotDownloadable(book.title));
    }
    download_stack::push(store, &book_spec(&book, true))?;
    Ok(StoreRequest::Queued)
}

/// What [`keep_books`] did.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, ts_rs::TS)]
pub struct KeepOutcome {
    /// Books queued (not prioritary), the first of the list on top.
    pub queued: usize,
    /// Books already whole on the device.
    pub already_stored: usize,
    /// Books the server gives no way to download (kept in the list, never queued).
    pub not_downloadable: usize,
}

/// The reader keeps many books offline at once ("Keep all offline" on a series, a feed or a
/// search): pins every one and queues, **not** prioritary, those not stored yet, in one
/// transaction, so that `ids[0]` is taken first and the rest follow in the list's order — the
/// book being read and the pages a window waits for still come before them.
pub fn keep_books(store: &Store, ids: &[i64]) -> Result<KeepOutcome, DownloadRequestError> {
    let mut outcome = KeepOutcome::default();
    let mut specs = Vec::new();
    for &id in ids {
        let book = books::get(store, id)?;
        if progress(store, &book)?.is_complete() {
            outcome.already_stored += 1;
        } else if book.is_local_file() || (!book.streams_pages() && book.file_url.is_none()) {
            outcome.not_downloadable += 1;
        } else {
            specs.push(book_spec(&book, false));
        }
    }
    outcome.queued = specs.len();
    // `push_all` leaves its last task on top: the list's first book goes in last.
    specs.reverse();
    let now = store.now_ms();
    store.write(|tx| {
        for &id in ids {
            tx.execute("UPDATE books SET pinned = 1 WHERE id = ?1", [id])
                .map_err(|e| store.sql_error(e))?;
        }
        for spec in &specs {
            download_stack::push_in(tx, spec, now).map_err(|e| store.sql_error(e))?;
        }
        Ok::<_, StoreError>(())
    })?;
    Ok(outcome)
}

/// The reader opens a book at `page` (0-based): that page first, prioritary; the chain
/// brings the pages after it, then the rest. Books read as one file queue the file.
pub fn open_book(
    store: &Store,
    book_id: i64,
    page: Option<i64>,
) -> Result<Option<Pushed>, DownloadRequestError> {
    let book = books::get(store, book_id)?;
    let page = page.or(book.last_page).unwrap_or(0);
    if book.streams_pages() {
        page_range::check_book(&book, page)?;
    }
    books::mark_opened(store, book_id, Some(page))?;
    if book.is_local_file() {
        // On the device, or gone from it: nothing to download either way.
        let in_place = PartFiles::new(store.data_dir().books())
            .find_book_file(book_id)
            .is_some_and(|p| p.is_file());
        return if in_place && progress(store, &book)?.is_complete() {
            Ok(None)
        } else {
            Err(DownloadRequestError::LocalFileMissing(book.title))
        };
    }
    let spec = if book.streams_pages() {
        page_spec(&book, page, true)
    } else {
        file_spec(&book, true)
    };
    let Some(spec) = spec else {
        return Err(DownloadRequestError::NotDownloadable(book.title));
    };
    Ok(Some(download_stack::push(store, &spec)?))
}

/// The fragment that makes a task's address a part of a file: `…#bytes=START-END` (END
/// included) or `…#bytes=-N` (the last N bytes). Fragments never travel in requests: the
/// executor sends the range as a `Range` header and stores the part's bytes as they come.
const RANGE_FRAGMENT: &str = "bytes=";

/// The address of bytes `[start, end)` of a file (`end` `None`: the file's last `start` bytes).
pub fn part_of_file_url(file_url: &str, start: u64, end: Option<u64>) -> String {
    let base = file_url.split_once('#').map_or(file_url, |(b, _)| b);
    match end {
        Some(end) => format!("{base}#{RANGE_FRAGMENT}{start}-{}", end.saturating_sub(1)),
        None => format!("{base}#{RANGE_FRAGMENT}-{start}"),
    }
}

/// Whether a task's address is a part of a file (see [`part_of_file_url`]).
pub fn is_file_part(url: &str) -> bool {
    url.split_once('#')
        .is_some_and(|(_, fragment)| fragment.starts_with(RANGE_FRAGMENT))
}

/// The `Range` header value a task's address asks for, when it is a part of a file.
pub fn requested_range(url: &url::Url) -> Option<String> {
    let spec = url.fragment()?.strip_prefix(RANGE_FRAGMENT)?;
    let valid = match spec.split_once('-') {
        Some(("", n)) => n.parse::<u64>().is_ok_and(|n| n > 0),
        Some((a, b)) => matches!((a.parse::<u64>(), b.parse::<u64>()), (Ok(a), Ok(b)) if a <= b),
        None => false,
    };
    valid.then(|| format!("{RANGE_FRAGMENT}{spec}"))
}

/// A window reads a book's file before it is stored: pushes the parts of the file it needs
/// (`(position, address)`, see [`part_of_file_url`]) prioritary, the **last** on top, beside
/// the file's own task. Parts already asked for move to the top; stored ones are not asked for.
pub fn push_file_parts(
    store: &Store,
    book_id: i64,
    parts: &[(i64, String)],
) -> Result<Vec<Pushed>, DownloadRequestError> {
    let book = books::get(store, book_id)?;
    let files = PartFiles::new(store.data_dir().books());
    let specs: Vec<TaskSpec> = parts
        .iter()
        .filter(|(position, _)| files.find_page(book_id, *position).is_none())
        .map(|(position, url)| TaskSpec {
            book_id,
            server_id: book.server_id,
            kind: TaskKind::Page,
            position: *position,
            url: url.clone(),
            prioritary: true,
        })
        .collect();
    Ok(download_stack::push_all(store, &specs)?)
}

/// A window needs page `page` (0-based) of a page-streamed book now: pushes it prioritary,
/// without touching the reader's position (a window may ask for pages ahead of the one read).
/// The chain then brings the pages after it.
pub fn push_page(store: &Store, book_id: i64, page: i64) -> Result<Pushed, DownloadRequestError> {
    push_page_of(store, &books::get(store, book_id)?, page)
}

/// [`push_page`] for a book already read.
pub fn push_page_of(store: &Store, book: &Book, page: i64) -> Result<Pushed, DownloadRequestError> {
    page_range::check_book(book, page)?;
    let Some(spec) = page_spec(book, page, true) else {
        return Err(DownloadRequestError::NotDownloadable(book.title.clone()));
    };
    Ok(download_stack::push(store, &spec)?)
}

/// Queues (not prioritary) the first not-yet-stored book among the `n` most recently opened
/// that has nothing queued yet. Returns its id.
pub fn queue_latest_read(store: &Store, n: u32) -> Result<Option<i64>, DownloadRequestError> {
    for book in books::recently_opened(store, n)? {
        if progress(store, &book)?.is_complete() {
            continue;
        }
        let tasks = download_stack::tasks_of_book(store, book.id)?;
        if tasks
            .iter()
            .any(|t| matches!(t.state, TaskState::Pending | TaskState::Active))
        {
            continue;
        }
        if tasks
            .iter()
            .any(|t| t.state == TaskState::Failed && t.kind != TaskKind::Resource)
        {
            continue; // waits for the reader's retry
        }
        if book.is_local_file() || (!book.streams_pages() && book.file_url.is_none()) {
            continue;
        }
        download_stack::push(store, &book_spec(&book, false))?;
        return Ok(Some(book.id));
    }
    Ok(None)
}

/// The tasks a finished task pushes: a `book` task its first part (and its cover); a page
/// the next page not yet stored after it, wrapping around.
pub fn next_parts(store: &Store, book: &Book, task: &Task) -> Result<Vec<TaskSpec>, StoreError> {
    match task.kind {
        TaskKind::Book => {
            let mut specs = Vec::new();
            if book.cover_url.is_some()
                && carrel_foundation::part_files::PartFiles::new(store.data_dir().books())
                    .find_cover(book.id)
                    .is_none()
            {
                specs.extend(cover_spec(book));
            }
            // The first part goes on last, so it ends on top.
            if book.streams_pages() {
                let count = book.page_count.unwrap_or(0);
                let start = book.last_page.unwrap_or(0).clamp(0, (count - 1).max(0));
                if let Some(p) =
                    download_stack::next_missing_page(store, book.id, count, start - 1)?
                {
                    specs.extend(page_spec(book, p, task.prioritary));
                }
            } else {
                specs.extend(file_spec(book, task.prioritary));
            }
            Ok(specs)
        }
        TaskKind::Page => {
            let next = download_stack::next_missing_page(
                store,
                book.id,
                book.page_count.unwrap_or(0),
                task.position,
            )?
            .filter(|&p| p != task.position);
            Ok(next
                .and_then(|p| page_spec(book, p, task.prioritary))
                .into_iter()
                .collect())
        }
        TaskKind::File | TaskKind::Resource => Ok(Vec::new()),
    }
}

/// The pages a download of `book` goes on to after `first` (the follow-up of the page at
/// `from`), at most `n`: each the next page not stored after the one before, as each page's
/// follow-up would be once that page is stored — stopping where the chain comes back round to
/// `from` or to a page already among them.
pub fn pages_after(
    store: &Store,
    book: &Book,
    from: i64,
    first: &TaskSpec,
    n: usize,
) -> Result<Vec<TaskSpec>, StoreError> {
    let count = book.page_count.unwrap_or(0);
    let mut pages: Vec<TaskSpec> = Vec::with_capacity(n);
    let mut after = first.position;
    while pages.len() < n {
        let Some(p) = download_stack::next_missing_page(store, book.id, count, after)? else {
            break;
        };
        if p == from || p == first.position || pages.iter().any(|s| s.position == p) {
            break;
        }
        let Some(spec) = page_spec(book, p, first.prioritary) else {
            break;
        };
        pages.push(spec);
        after = p;
    }
    Ok(pages)
}

/// Where a book stands on this device.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, ts_rs::TS)]
#[serde(tag = "state", rename_all = "snake_case")]
pub enum BookState {
    /// Only on the server.
    Remote,
    /// Waiting in the stack.
    Queued,
    /// A part of it is being downloaded.
    Downloading,
    /// Every part is on the device.
    Stored,
    /// A part failed for good; the reader may retry.
    Failed { reason: String },
}

/// A book's state and progress.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, ts_rs::TS)]
pub struct BookStatus {
    #[serde(flatten)]
    pub state: BookState,
    #[serde(flatten)]
    pub progress: BookProgress,
}

pub fn status(store: &Store, book: &Book) -> Result<BookStatus, StoreError> {
    let progress = progress(store, book)?;
    let tasks = download_stack::tasks_of_book(store, book.id)?;
    let state = if progress.is_complete() {
        BookState::Stored
    } else if let Some(t) = tasks
        .iter()
        // A cover, or a part of the file read ahead of it, failing leaves the book as it is.
        .find(|t| {
            t.state == TaskState::Failed && t.kind != TaskKind::Resource && !is_file_part(&t.url)
        })
    {
        BookState::Failed {
            reason: t.failure.clone().unwrap_or_else(|| "failed".into()),
        }
    } else if tasks.iter().any(|t| t.state == TaskState::Active) {
        BookState::Downloading
    } else if tasks.iter().any(|t| t.state == TaskState::Pending) {
        BookState::Queued
    } else {
        BookState::Remote
    };
    Ok(BookStatus { state, progress })
}

/// Books that have downloads (any state) or are pinned, most recently touched first.
pub fn books_with_downloads(store: &Store) -> Result<Vec<Book>, carrel_library::error::Error> {
    let ids: Vec<i64> = store
        .read(|c| {
            let mut stmt = c.prepare_cached(
                "SELECT b.id FROM books b
                 WHERE b.pinned = 1 OR EXISTS (SELECT 1 FROM tasks t WHERE t.book_id = b.id)
                 ORDER BY coalesce(b.last_opened_ms, b.created_at_ms) DESC",
            )?;
            let rows = stmt.query_map([], |r| r.get(0))?;
            rows.collect::<rusqlite::Result<Vec<i64>>>()
        })
        .map_err(|e| store.sql_error(e))?;
    Ok(ids
        .into_iter()
        .map(|id| books::get(store, id))
        .collect::<Result<Vec<_>, _>>()?)
}

/// Books whose last part was stored after `since_ms` and that are whole on the device now,
/// with when that last part was stored, newest first, at most `limit`.
pub fn stored_since(
    store: &Store,
    since_ms: i64,
    limit: usize,
) -> Result<Vec<(Book, i64)>, carrel_library::error::Error> {
    // A book's parts, done in the span, grouped by book (the `(state, updated_at_ms)` index);
    // books not whole yet are passed over, so a few more are read than kept.
    let recent: Vec<(i64, i64)> = store
        .read(|c| {
            let mut stmt = c.prepare_cached(
                "SELECT book_id, max(updated_at_ms) AS at FROM tasks
                 WHERE state = 'done' AND updated_at_ms > ?1 AND kind IN ('page', 'file')
                 GROUP BY book_id ORDER BY at DESC LIMIT ?2",
            )?;
            let rows = stmt.query_map(params![since_ms, (limit * 4) as i64], |r| {
                Ok((r.get(0)?, r.get(1)?))
            })?;
            rows.collect::<rusqlite::Result<Vec<_>>>()
        })
        .map_err(|e| store.sql_error(e))?;
    let mut out = Vec::new();
    for (id, at) in recent {
        if out.len() == limit {
            break;
        }
        let book = books::get(store, id)?;
        if progress(store, &book)?.is_complete() {
            out.push((book, at));
        }
    }
    Ok(out)
}

/// Stored and total parts of a book.
pub fn progress(store: &Store, book: &Book) -> Result<BookProgress, StoreError> {
    // Counted by SQLite (the book's done parts through `tasks_book`): this runs after every
    // page a download stores.
    let (stored, bytes): (i64, i64) = store
        .read(|c| {
            c.prepare_cached(
                "SELECT count(*) FILTER (WHERE kind = ?2), coalesce(sum(bytes), 0) FROM tasks
                 WHERE book_id = ?1 AND kind IN ('page', 'file') AND state = 'done'",
            )?
            .query_row(params![book.id, part_kind(book).as_str()], |r| {
                Ok((r.get(0)?, r.get(1)?))
            })
        })
        .map_err(|e| store.sql_error(e))?;
    let total = if book.streams_pages() {
        book.page_count.unwrap_or(0) as u64
    } else {
        1
    };
    Ok(BookProgress {
        book_id: book.id,
        title: book.title.clone(),
        stored_parts: (stored.max(0) as u64).min(total),
        total_parts: total,
        bytes: bytes.max(0) as u64,
    })
}

fn part_kind(book: &Book) -> TaskKind {
    if book.streams_pages() {
        TaskKind::Page
    } else {
        TaskKind::File
    }
}

/// Removes a book from the device: its downloads (every task, any state) and its files
/// together, and unpins it. The book stays known under the same id, so it can be stored again.
pub fn remove_book(store: &Store, book_id: i64) -> Result<(), DownloadRequestError> {
    let files = PartFiles::new(store.data_dir().books());
    store.write(|tx| {
        let n = tx
            .execute("UPDATE books SET pinned = 0 WHERE id = ?1", [book_id])
            .map_err(|e| DownloadRequestError::Store(store.sql_error(e)))?;
        if n == 0 {
            return Err(DownloadRequestError::Book(BookError::NotFound(book_id)));
        }
        tx.execute("DELETE FROM tasks WHERE book_id = ?1", [book_id])
            .map_err(|e| DownloadRequestError::Store(store.sql_error(e)))?;
        Ok(())
    })?;
    files
        .remove_book(book_id)
        .map_err(|e| DownloadRequestError::Files {
            book_id,
            reason: e.to_string(),
        })
}

/// The reader stops a book's downloads: its unfinished downloads are dropped (pending, running
/// and failed ones) and it is unpinned; the parts already stored stay.
pub fn cancel_book(store: &Store, book_id: i64) -> Result<(), DownloadRequestError> {
    books::set_pinned(store, book_id, false)?;
    download_stack::drop_unfinished(store, book_id)?;
    Ok(())
}

/// The reader asks to try a book's failed downloads again: they go back on top.
pub fn retry_book(store: &Store, book_id: i64) -> Result<usize, DownloadRequestError> {
    books::get(store, book_id)?;
    Ok(download_stack::retry_book(store, book_id)?)
}

/// Moves a book's waiting downloads to the top of the stack (their own order kept).
pub fn move_book_to_top(store: &Store, book_id: i64) -> Result<usize, DownloadRequestError> {
    books::get(store, book_id)?;
    Ok(download_stack::move_book_to_top(store, book_id)?)
}

/// Removes from the device ([`remove_book`]) every book that has something on it and is kept
/// for no reason: not pinned, not among the `n` most recently opened, and with nothing waiting
/// or downloading (a book being fetched was asked for just now). The most recently opened book
/// always stays, even with `n = 0`: it may be open in the reader. Returns the removed ids.
pub fn evict_unkept(store: &Store, n: u32) -> Result<Vec<i64>, DownloadRequestError> {
    let unkept = unkept(store, n)?;
    evict(store, &unkept)
}

/// The books [`evict_unkept`] would remove now, read without writing anything: usually none,
/// and then nothing else need be done (the executor keeps its request slot).
pub fn unkept(store: &Store, n: u32) -> Result<Vec<i64>, DownloadRequestError> {
    let kept: BTreeSet<i64> = books::recently_opened(store, n.max(1))?
        .into_iter()
        .map(|b| b.id)
        .collect();
    let mut candidates: BTreeSet<i64> = store
        .read(|c| {
            let mut stmt = c.prepare_cached("SELECT DISTINCT book_id FROM tasks")?;
            let rows = stmt.query_map([], |r| r.get(0))?;
            rows.collect::<rusqlite::Result<BTreeSet<i64>>>()
        })
        .map_err(|e| store.sql_error(e))?;
    if let Ok(entries) = std::fs::read_dir(store.data_dir().books()) {
        candidates.extend(
            entries
                .flatten()
                .filter_map(|e| e.file_name().to_str()?.parse::<i64>().ok()),
        );
    }
    let mut unkept = Vec::new();
    for &id in candidates.difference(&kept) {
        // A folder of a book no longer known: the executor's orphan collection takes it.
        if books::is_pinned(store, id)? == Some(false) && !has_unfinished_tasks(store, id)? {
            unkept.push(id);
        }
    }
    Ok(unkept)
}

/// Whether a book has a task waiting or downloading.
fn has_unfinished_tasks(store: &Store, book_id: i64) -> Result<bool, StoreError> {
    store
        .read(|c| {
            c.prepare_cached(
                "SELECT EXISTS (SELECT 1 FROM tasks WHERE book_id = ?1 AND state IN ('pending', 'active'))",
            )?
            .query_row([book_id], |r| r.get(0))
        })
        .map_err(|e| store.sql_error(e))
}

/// Removes the books `ids` from the device (see [`evict_unkept`]), each decided again in the
/// transaction that removes its tasks: a "Keep offline" or a download started since (in
/// another window or process) is never undone. Returns the removed ids.
pub fn evict(store: &Store, ids: &[i64]) -> Result<Vec<i64>, DownloadRequestError> {
    let mut removed = Vec::new();
    for &id in ids {
        let evicted = store.write(|tx| {
            let still_evictable: bool = tx
                .query_row(
                    "SELECT NOT EXISTS (SELECT 1 FROM books WHERE id = ?1 AND pinned = 1)
                        AND NOT EXISTS (SELECT 1 FROM tasks WHERE book_id = ?1 AND state IN ('pending', 'active'))",
                    [id],
                    |r| r.get(0),
                )
                .map_err(|e| DownloadRequestError::Store(store.sql_error(e)))?;
            if still_evictable {
                tx.execute("DELETE FROM tasks WHERE book_id = ?1", [id])
                    .map_err(|e| DownloadRequestError::Store(store.sql_error(e)))?;
            }
            Ok::<_, DownloadRequestError>(still_evictable)
        })?;
        if evicted {
            PartFiles::new(store.data_dir().books())
                .remove_book(id)
                .map_err(|e| DownloadRequestError::Files {
                    book_id: id,
                    reason: e.to_string(),
                })?;
            removed.push(id);
        }
    }
    if !removed.is_empty() {
        tracing::info!(books = ?removed, "removed books no longer kept on the device");
    }
    Ok(removed)
}

/// [`evict_unkept`] with the reader's "books kept on the device" setting; run when a book
/// completes.
pub fn evict_per_setting(store: &Store) -> Result<Vec<i64>, DownloadRequestError> {
    let unkept = unkept_per_setting(store)?;
    evict(store, &unkept)
}

/// The books a "books kept on the device" setting of `n` would remove now, with their titles,
/// for the reader to confirm before it is saved: read without writing anything.
pub fn removed_if_kept(store: &Store, n: u32) -> Result<Vec<(i64, String)>, DownloadRequestError> {
    let mut out = Vec::new();
    for id in unkept(store, n)? {
        let title = books::get(store, id)
            .map(|b| b.title)
            .unwrap_or_else(|_| format!("Book {id}"));
        out.push((id, title));
    }
    Ok(out)
}

/// [`unkept`] with the reader's "books kept on the device" setting.
pub fn unkept_per_setting(store: &Store) -> Result<Vec<i64>, DownloadRequestError> {
    let n = carrel_library::settings::get::<carrel_library::settings::BooksKept>(store)?
        .unwrap_or_default()
        .0;
    unkept(store, n)
}

/// Saves the settings page ([`carrel_library::settings::save`]) and applies it to the device: the books
/// no longer kept are removed at once. The settings stand if removal fails; it runs again when
/// the next book is stored.
pub fn apply_settings(
    store: &Store,
    new: &carrel_library::settings::Settings,
) -> Result<carrel_library::settings::Settings, carrel_library::settings::SettingsError> {
    let saved = carrel_library::settings::save(store, new)?;
    if let Err(e) = evict_unkept(
        store,
        u32::try_from(saved.books_kept).unwrap_or(carrel_library::settings::DEFAULT_BOOKS_KEPT),
    ) {
        tracing::warn!(cause = %e, "could not remove the books no longer kept");
    }
    Ok(saved)
}
