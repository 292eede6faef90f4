//! "Keep all offline": a whole series, a feed (with its `next` pages) or a search kept as one
//! batch, in reading order, through the same one polite download stream as everything else.
//!
//! Making a batch walks the feed page by page (bounded: [`MAX_FEED_PAGES`] pages,
//! [`MAX_BATCH_BOOKS`] books), remembers its books in the order the server lists them, pins
//! them, and queues those not stored yet — not prioritary, the first book on top — through
//! [`book_downloads::keep_books`]. The books keep their own tasks in the stack, so a batch
//! survives restarts and crashes like any download, and what the reader opens meanwhile still
//! comes first. A batch can be paused (its books' background tasks leave the stack; what is
//! stored stays), resumed (queued again where they stopped), cancelled (paused for good, its
//! unfinished books unpinned; finished ones stay kept) or moved to the top.
//!
//! A batch counts only what it still has to bring: a book the reader cancelled or removed from
//! the device (no longer kept, nothing of it waiting) has left it, and resuming the batch does
//! not bring it back. A batch with nothing left is done: listed as such while books of it are on
//! the device, forgotten when none is.
//!
//! Owns the `download_batches` and `download_batch_books` tables. Walks catalogs through
//! [`crate::client`]; the stack is [`carrel_engine::download_stack`]'s.

use std::collections::HashSet;

use rusqlite::params;
use serde::Serialize;

use crate::client::{CatalogClient, CatalogError, CatalogItem, CatalogPage};
use carrel_engine::book_downloads::{self, BookState, DownloadRequestError, KeepOutcome};
use carrel_engine::download_stack;
use carrel_foundation::error::ErrorKind;
use carrel_foundation::store::{Store, StoreError};
use carrel_library::books;
use carrel_library::servers::{self, Server};

/// The most feed pages a batch follows (`next` links).
pub const MAX_FEED_PAGES: usize = 100;
/// The most books one batch holds.
pub const MAX_BATCH_BOOKS: usize = 5_000;

#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum BatchError {
    #[error(transparent)]
    Catalog(#[from] CatalogError),
    #[error("there is no book to keep in “{0}”")]
    NoBooks(String),
    #[error("no batch of downloads with id {0}")]
    NotFound(i64),
    #[error(transparent)]
    Request(#[from] DownloadRequestError),
    #[error(transparent)]
    Other(#[from] carrel_library::error::Error),
}

impl carrel_foundation::error::Failure for BatchError {
    fn kind(&self) -> carrel_foundation::error::ErrorKind {
        match self {
            BatchError::Catalog(e) => e.kind(),
            BatchError::NoBooks(_) => ErrorKind::InvalidInput,
            BatchError::NotFound(_) => ErrorKind::NotFound,
            BatchError::Request(e) => e.kind(),
            BatchError::Other(e) => e.kind(),
        }
    }
}

from_library_errors!(BatchError::Other: StoreError);

/// Where a feed's books came from, for the batch's title and address.
#[derive(Debug, Clone)]
enum Source<'a> {
    Feed(Option<&'a str>),
    Search(&'a str),
}

/// A batch as the downloads page shows it.
#[derive(Debug, Clone, PartialEq, Serialize, ts_rs::TS)]
pub struct BatchView {
    pub id: i64,
    pub server_id: i64,
    pub server_name: String,
    pub title: String,
    pub source_url: String,
    pub created_at_ms: i64,
    pub paused: bool,
    /// Books in the batch.
    pub books: usize,
    /// Books whole on the device.
    pub stored: usize,
    /// Books waiting or downloading.
    pub waiting: usize,
    /// Books whose download failed for good (the reader may retry them).
    pub failed: usize,
    /// Books the batch still has to bring: waiting, failed, or held while it is paused.
    pub left: usize,
    /// Books that left the batch: cancelled or removed from the device by the reader (no longer
    /// kept, nothing waiting), or that the server gives no way to download.
    pub dropped: usize,
    /// Bytes stored for the batch's books.
    pub bytes: u64,
    /// What making the batch found (only when it was just made).
    #[serde(skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub made: Option<KeepOutcome>,
}

/// Keeps every book of a feed of `server` offline — its root when `feed` is `None` — following
/// its `next` pages.
pub async fn keep_feed(
    client: &CatalogClient<'_>,
    server: &Server,
    feed: Option<&str>,
) -> Result<BatchView, BatchError> {
    make(client, server, Source::Feed(feed)).await
}

/// Keeps every book a search of `server` finds offline, following the results' `next` pages.
pub async fn keep_search(
    client: &CatalogClient<'_>,
    server: &Server,
    query: &str,
) -> Result<BatchView, BatchError> {
    make(client, server, Source::Search(query)).await
}

async fn make(
    client: &CatalogClient<'_>,
    server: &Server,
    source: Source<'_>,
) -> Result<BatchView, BatchError> {
    let first = match &source {
        Source::Feed(feed) => client.browse(server, *feed).await?,
        Source::Search(query) => client.search(server, query).await?,
    };
    let title = match &source {
        Source::Feed(_) => first.title.clone(),
        Source::Search(query) => format!("Search: {}", query.trim()),
    };
    let source_url = first.feed_url.clone();
    let ids = walk(client, server, first).await?;
    if ids.is_empty() {
        return Err(BatchError::NoBooks(title));
    }
    let server_id = server.id;
    // Recording the batch is database work: off the async threads, in one step.
    client
        .store
        .call(move |store| record(store, server_id, &title, &source_url, &ids))
        .await
}

/// Queues the books of a new batch and records the batch, in reading order.
fn record(
    store: &Store,
    server_id: i64,
    title: &str,
    source_url: &str,
    ids: &[i64],
) -> Result<BatchView, BatchError> {
    let made = book_downloads::keep_books(store, ids)?;
    let now = store.now_ms();
    let id = store.write(|tx| {
        let id: i64 = tx
            .query_row(
                "INSERT INTO download_batches (server_id, title, source_url, created_at_ms) VALUES (?1, ?2, ?3, ?4) RETURNING id",
                params![server_id, title, source_url, now],
                |r| r.get(0),
            )
            .map_err(|e| store.sql_error(e))?;
        for (ord, book) in ids.iter().enumerate() {
            tx.execute(
                "INSERT INTO download_batch_books (batch_id, book_id, ord) VALUES (?1, ?2, ?3)",
                params![id, book, ord as i64],
            )
            .map_err(|e| store.sql_error(e))?;
        }
        Ok::<_, StoreError>(id)
    })?;
    let mut view = view(store, id)?;
    view.made = Some(made);
    Ok(view)
}

/// The books of `first` and of the pages after it, in order, each once.
async fn walk(
    client: &CatalogClient<'_>,
    server: &Server,
    first: CatalogPage,
) -> Result<Vec<i64>, BatchError> {
    let mut ids = Vec::new();
    let mut seen = HashSet::new();
    let mut visited = HashSet::new();
    let mut page = first;
    for _ in 0..MAX_FEED_PAGES {
        visited.insert(page.feed_url.clone());
        for item in &page.entries {
            if let CatalogItem::Book { book_id, .. } = item {
                if seen.insert(*book_id) {
                    ids.push(*book_id);
                    if ids.len() == MAX_BATCH_BOOKS {
                        return Ok(ids);
                    }
                }
            }
        }
        // A `next` that loops back ends the walk.
        let Some(next) = page.next.take().filter(|n| !visited.contains(n)) else {
            break;
        };
        page = client.browse(server, Some(&next)).await?;
    }
    Ok(ids)
}

/// Every batch, newest first. A batch with nothing left to bring and nothing of it on the
/// device (its books all cancelled or removed) is over: it is forgotten rather than listed.
pub fn list(store: &Store) -> Result<Vec<BatchView>, BatchError> {
    let ids: Vec<i64> = carrel_foundation::rows::all(
        store,
        "SELECT id FROM download_batches ORDER BY created_at_ms DESC, id DESC",
        [],
        |r| r.get(0),
    )?;
    let mut out = Vec::with_capacity(ids.len());
    for id in ids {
        let batch = view(store, id)?;
        if batch.left == 0 && batch.stored == 0 {
            forget(store, id)?;
        } else {
            out.push(batch);
        }
    }
    Ok(out)
}

fn forget(store: &Store, id: i64) -> Result<(), BatchError> {
    store.execute("DELETE FROM download_batches WHERE id = ?1", [id])?;
    Ok(())
}

/// One batch with its progress.
pub fn view(store: &Store, id: i64) -> Result<BatchView, BatchError> {
    type Row = (i64, String, String, bool, i64);
    let row: Option<Row> = carrel_foundation::rows::optional(
        store,
        "SELECT server_id, title, source_url, paused, created_at_ms FROM download_batches WHERE id = ?1",
        [id],
        |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?, r.get(4)?)),
    )?;
    let (server_id, title, source_url, paused, created_at_ms) =
        row.ok_or(BatchError::NotFound(id))?;
    let server_name = servers::get(store, server_id)
        .map_err(carrel_library::error::Error::from)?
        .name;
    let mut out = BatchView {
        id,
        server_id,
        server_name,
        title,
        source_url,
        created_at_ms,
        paused,
        books: 0,
        stored: 0,
        waiting: 0,
        failed: 0,
        left: 0,
        dropped: 0,
        bytes: 0,
        made: None,
    };
    for book_id in books_of(store, id)? {
        let book = books::get(store, book_id).map_err(carrel_library::error::Error::from)?;
        let status = book_downloads::status(store, &book)?;
        out.books += 1;
        out.bytes += status.progress.bytes;
        match status.state {
            BookState::Stored => out.stored += 1,
            BookState::Queued | BookState::Downloading => out.waiting += 1,
            BookState::Failed { .. } => out.failed += 1,
            BookState::Remote if still_wanted(&book) => {}
            BookState::Remote => out.dropped += 1,
        }
    }
    out.left = out.books - out.stored - out.dropped;
    Ok(out)
}

/// Whether a book with nothing stored or waiting is still the batch's to bring: kept (the
/// batch pinned it; cancelling or removing it unpins it) and downloadable.
fn still_wanted(book: &books::Book) -> bool {
    book.pinned && (book.streams_pages() || book.file_url.is_some())
}

/// The batch's books it still has to bring, in reading order (see [`still_wanted`]).
fn books_left(store: &Store, id: i64) -> Result<Vec<i64>, BatchError> {
    let mut left = Vec::new();
    for book_id in books_of(store, id)? {
        let book = books::get(store, book_id).map_err(carrel_library::error::Error::from)?;
        if still_wanted(&book) && !book_downloads::progress(store, &book)?.is_complete() {
            left.push(book_id);
        }
    }
    Ok(left)
}

/// The batch's books in reading order.
fn books_of(store: &Store, id: i64) -> Result<Vec<i64>, BatchError> {
    let ids = carrel_foundation::rows::all(
        store,
        "SELECT book_id FROM download_batch_books WHERE batch_id = ?1 ORDER BY ord",
        [id],
        |r| r.get(0),
    )?;
    Ok(ids)
}

fn set_paused(store: &Store, id: i64, paused: bool) -> Result<(), BatchError> {
    let n = store.execute(
        "UPDATE download_batches SET paused = ?2 WHERE id = ?1",
        params![id, paused],
    )?;
    if n == 0 {
        return Err(BatchError::NotFound(id));
    }
    Ok(())
}

/// Pauses a batch: its books' background downloads leave the stack (a page the reader waits
/// for stays); what is stored stays, and so do the pins.
pub fn pause(store: &Store, id: i64) -> Result<BatchView, BatchError> {
    set_paused(store, id, true)?;
    download_stack::drop_background(store, &books_of(store, id)?)?;
    view(store, id)
}

/// Resumes a paused batch: the books it still has to bring are queued again, in reading order
/// (each goes on from what it has stored); a book cancelled or removed meanwhile stays so.
pub fn resume(store: &Store, id: i64) -> Result<BatchView, BatchError> {
    set_paused(store, id, false)?;
    book_downloads::keep_books(store, &books_left(store, id)?)?;
    view(store, id)
}

/// Moves the batch's waiting books to the top of the stack, its first book first.
pub fn move_to_top(store: &Store, id: i64) -> Result<BatchView, BatchError> {
    let books = books_of(store, id)?;
    if books.is_empty() {
        view(store, id)?;
    }
    for book in books.iter().rev() {
        book_downloads::move_book_to_top(store, *book)?;
    }
    view(store, id)
}

/// Cancels a batch: its unfinished books stop downloading and are no longer kept; the books
/// already whole stay on the device (still kept). The batch is forgotten.
pub fn cancel(store: &Store, id: i64) -> Result<(), BatchError> {
    let books = books_of(store, id)?;
    view(store, id)?;
    download_stack::drop_background(store, &books)?;
    for &book_id in &books {
        let book = books::get(store, book_id).map_err(carrel_library::error::Error::from)?;
        if !book_downloads::progress(store, &book)?.is_complete()
            && !in_other_batch(store, id, book_id)?
        {
            books::set_pinned(store, book_id, false).map_err(carrel_library::error::Error::from)?;
        }
    }
    store.execute("DELETE FROM download_batches WHERE id = ?1", [id])?;
    Ok(())
}

fn in_other_batch(store: &Store, batch: i64, book: i64) -> Result<bool, BatchError> {
    Ok(carrel_foundation::rows::optional(
        store,
        "SELECT 1 FROM download_batch_books WHERE book_id = ?1 AND batch_id <> ?2 LIMIT 1",
        params![book, batch],
        |_| Ok(()),
    )?
    .is_some())
}
