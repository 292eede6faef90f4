//! Reading positions shared with the library server: the reader's saves are queued in the
//! `position_outbox` table (one row per book, the newest save replacing the row) and sent
//! through the server's request slot to the book's OPDS progression document
//! (`http://opds-spec.org/progression`, a Readium locator read with GET and written with PUT;
//! an EPUB's CFI travels in `locations.fragments`), or — for books of a Komga server without
//! one — to Komga's read-progress API ([`crate::komga`]). A row leaves the outbox only once the
//! server has it (or holds a newer position); an unreachable server keeps it, with the reason,
//! for the next [`flush`]. The newest position wins, by timestamp, in both directions.
//!
//! When a book is opened, [`newest`] tells whether the server knows a newer position than this
//! device (and [`take_newer`] makes it this device's): from the progression document or Komga,
//! else from the page stream's `pse:lastRead` remembered from the catalog (read-only; Carrel
//! never writes a position that way).
//!
//! A book is read once a position is saved at its end (its last page, or [`EPUB_FINISHED`] of an
//! EPUB) or the reader marks it so ([`mark_read`]); a position saved before the end makes it
//! unread again, as marking it unread does (the reader starts over: the first page, an EPUB's
//! start). A mark travels as a position does: the end or the start, and to Komga as its own
//! "read" (`completed`) or "unread" (its read progress deleted).
//!
//! Only [`record`], EPUB saves ([`record_epub`]) and marks ([`mark_read`]) queue anything:
//! downloads, page fetches and catalog visits never move the server's position. Owns the
//! `position_outbox` table and the books' `position_ms`, `finished_ms` and `pse_last_read`
//! columns.

use std::collections::HashMap;

use reqwest::StatusCode;
use rusqlite::{params, OptionalExtension};
use serde::Serialize;
use serde_json::Value;
use url::Url;

use crate::epub_positions::{self, EpubPosition, EpubPositionError};
use crate::komga;
use crate::locator;
pub use crate::read_state::is_finished;
pub use crate::server_position::{PositionSource, ServerPosition};
use carrel_engine::book_downloads::DownloadRequestError;
use carrel_foundation::store::Store;
use carrel_foundation::store::StoreError;
use carrel_foundation::timestamps::parse_rfc3339;
use carrel_http::http_fetch::{FetchError, HttpClient, ServerAccess};
use carrel_library::books::{self, Book, BookFormat};
use carrel_library::credentials::Credentials;
use carrel_library::error::Result;
use carrel_library::servers;
use carrel_opds::BookEntry;

/// Progression documents are a few hundred bytes.
const MAX_PROGRESSION_BYTES: u64 = 64 * 1024;
/// An EPUB read this far is read to its end.
pub const EPUB_FINISHED: f64 = 0.99;

/// What one [`flush`] did.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize)]
pub struct FlushReport {
    /// Positions the server now has.
    pub sent: u32,
    /// Positions dropped because the server held a newer one (which this device then took).
    pub server_newer: u32,
    /// Positions kept for later (the server could not be reached or refused).
    pub failed: u32,
    /// What was sent to the KOReader sync server, when one is set up.
    pub kosync: crate::kosync::KosyncReport,
}

/// Notes that the reader is at `page` (0-based) of the book now, and queues the position for
/// the server when the book has a progression document — both in one transaction. A page that
/// is not one of the book's (negative, or past its known count) changes nothing and is an
/// invalid-input error, whichever front end sent it.
pub fn record(
    store: &Store,
    book_id: i64,
    page: i64,
) -> std::result::Result<(), DownloadRequestError> {
    if page < 0 {
        return Err(DownloadRequestError::NotAPage(page));
    }
    store.write(|tx| {
        let now = books::mark_opened_in(store, tx, book_id, Some(page))?;
        let (has_target, count): (bool, Option<i64>) = tx
            .query_row(
                // The last page read makes the book read; any other, unread (read again).
                "UPDATE books SET position_ms = ?2,
                     finished_ms = CASE WHEN page_count > 0 AND ?3 + 1 >= page_count
                                        THEN coalesce(finished_ms, ?2) END
                 WHERE id = ?1
                 RETURNING progression_url IS NOT NULL OR read_progress_url IS NOT NULL, page_count",
                params![book_id, now, page],
                |r| Ok((r.get(0)?, r.get(1)?)),
            )
            .map_err(|e| store.sql_error(e))?;
        if let Some(count) = count.filter(|&c| c > 0 && page >= c) {
            // Rolled back with the transaction: the book keeps its position.
            return Err(DownloadRequestError::NoSuchPage { page, count });
        }
        crate::kosync::queue_in(store, tx, book_id, now)?;
        if !has_target {
            return Ok(());
        }
        let progression = count.filter(|c| *c > 0).map(|c| (page as f64 / c as f64).clamp(0.0, 1.0));
        queue_in(store, tx, book_id, Some(page), progression, None, None, now)?;
        Ok(())
    })
}

/// Saves where the reader is in an EPUB (the newest save wins) — with the chapter's title when
/// the book's table of contents names one — and, in the same transaction, queues it for the
/// book's progression document when it has one and for the KOReader sync server (see
/// [`crate::kosync`]).
pub fn record_epub(
    store: &Store,
    book_id: i64,
    cfi: &str,
    fraction: f64,
    chapter: Option<&str>,
) -> std::result::Result<EpubPosition, EpubPositionError> {
    epub_positions::check(cfi, fraction)?;
    let chapter = epub_positions::chapter_title(chapter);
    let book = match books::get(store, book_id) {
        Ok(book) => book,
        Err(books::BookError::NotFound(id)) => return Err(EpubPositionError::UnknownBook(id)),
        Err(books::BookError::Store(e)) => return Err(e.into()),
    };
    let now = store.now_ms();
    store.write(|tx| {
        epub_positions::upsert_in(store, tx, book_id, cfi, fraction, chapter.as_deref(), now)?;
        tx.execute(
            "UPDATE books SET finished_ms = CASE WHEN ?2 >= ?3 THEN coalesce(finished_ms, ?4) END
             WHERE id = ?1",
            params![book_id, fraction, EPUB_FINISHED, now],
        )
        .map_err(|e| store.sql_error(e))?;
        crate::kosync::queue_in(store, tx, book_id, now)?;
        // Sent to the server's progression document too (Komga's read progress takes pages only).
        if book.progression_url.is_some() {
            queue_in(
                store,
                tx,
                book_id,
                None,
                Some(fraction),
                Some(cfi),
                None,
                now,
            )?;
        }
        Ok::<_, StoreError>(())
    })?;
    Ok(EpubPosition {
        cfi: cfi.to_string(),
        fraction,
        chapter,
        updated_at_ms: now,
    })
}

/// Marks a book read (`read`) or unread by hand, now, and queues the mark for its servers, in
/// one transaction. Read: a paged book's position moves to its last page (when its page count is
/// known), an EPUB's saved position counts as read to its end. Unread: the reader starts over —
/// the first page, an EPUB without a saved position. Sent as a position at the end (or the start)
/// to the progression document and the KOReader sync server; to Komga as read, or its read
/// progress deleted. Front ends call `carrel_catalog::series_read_ahead::mark_read`, which also
/// applies the series' read-ahead.
pub fn mark_read(
    store: &Store,
    book_id: i64,
    read: bool,
) -> std::result::Result<(), books::BookError> {
    let book = books::get(store, book_id)?;
    let paged = book.format != BookFormat::Epub;
    let page = match (paged, read) {
        (true, true) => book.page_count.filter(|c| *c > 0).map(|c| c - 1),
        (true, false) => Some(0),
        (false, _) => None,
    };
    let now = store.now_ms();
    store.write(|tx| {
        let sql = |e| books::BookError::Store(store.sql_error(e));
        tx.execute(
            "UPDATE books SET finished_ms = ?2, position_ms = ?3, last_page = coalesce(?4, last_page)
             WHERE id = ?1",
            params![book_id, read.then_some(now), now, page],
        )
        .map_err(sql)?;
        if !paged && read {
            tx.execute(
                "UPDATE epub_positions SET fraction = 1.0, updated_at_ms = ?2 WHERE book_id = ?1",
                params![book_id, now],
            )
            .map_err(sql)?;
        } else if !paged {
            tx.execute("DELETE FROM epub_positions WHERE book_id = ?1", [book_id])
                .map_err(sql)?;
        }
        crate::kosync::queue_in(store, tx, book_id, now)?;
        if book.progression_url.is_some() || book.read_progress_url.is_some() {
            let progression = if read { 1.0 } else { 0.0 };
            queue_in(store, tx, book_id, page, Some(progression), None, Some(read), now)?;
        }
        Ok(())
    })
}

/// Queues a position in the outbox inside the caller's transaction, replacing the book's row.
/// `finished`: the position is a mark, read (`Some(true)`) or unread.
#[allow(clippy::too_many_arguments)]
pub(crate) fn queue_in(
    store: &Store,
    tx: &rusqlite::Transaction<'_>,
    book_id: i64,
    page: Option<i64>,
    progression: Option<f64>,
    cfi: Option<&str>,
    finished: Option<bool>,
    at_ms: i64,
) -> std::result::Result<(), StoreError> {
    tx.execute(
        "INSERT INTO position_outbox (book_id, page, progression, cfi, finished, updated_at_ms, attempts, last_error)
         VALUES (?1, ?2, ?3, ?4, ?5, ?6, 0, NULL)
         ON CONFLICT (book_id) DO UPDATE SET
            page = excluded.page, progression = excluded.progression, cfi = excluded.cfi,
            finished = excluded.finished, updated_at_ms = excluded.updated_at_ms, attempts = 0,
            last_error = NULL",
        params![book_id, page, progression, cfi, finished, at_ms],
    )
    .map_err(|e| store.sql_error(e))?;
    Ok(())
}

/// A position waiting in the outbox.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Pending {
    pub book_id: i64,
    pub page: Option<i64>,
    pub progression: Option<f64>,
    /// An EPUB position's CFI.
    pub cfi: Option<String>,
    /// A mark: read (`Some(true)`) or unread; `None` for a plain position.
    pub finished: Option<bool>,
    pub updated_at_ms: i64,
    pub attempts: i64,
    pub last_error: Option<String>,
}

/// The positions not yet sent, oldest first.
pub fn pending(store: &Store) -> Result<Vec<Pending>> {
    Ok(store
        .read(|c| {
            let mut stmt = c.prepare_cached(
                "SELECT book_id, page, progression, cfi, updated_at_ms, attempts, last_error, finished
                 FROM position_outbox ORDER BY updated_at_ms, book_id",
            )?;
            let rows = stmt.query_map([], |r| {
                Ok(Pending {
                    book_id: r.get(0)?,
                    page: r.get(1)?,
                    progression: r.get(2)?,
                    cfi: r.get(3)?,
                    updated_at_ms: r.get(4)?,
                    attempts: r.get(5)?,
                    last_error: r.get(6)?,
                    finished: r.get(7)?,
                })
            })?;
            rows.collect::<rusqlite::Result<Vec<_>>>()
        })
        .map_err(|e| store.sql_error(e))?)
}

/// Sends every queued position to its server, one request at a time through the server's slot.
/// Sent rows are deleted (unless a newer save replaced them meanwhile); failures stay with their
/// reason. Servers whose downloads are paused (authentication needed) are skipped.
pub async fn flush(
    store: &Store,
    http: &HttpClient,
    credentials: &Credentials,
) -> Result<FlushReport> {
    let mut report = FlushReport::default();
    let mut accesses: HashMap<i64, Option<ServerAccess>> = HashMap::new();
    // The database is worked on off the async threads, a short step at a time between requests.
    for row in store.call(pending).await? {
        let (book_id, at) = (row.book_id, row.updated_at_ms);
        let book = match store.call(move |s| books::get(s, book_id)).await {
            Ok(book) => book,
            Err(books::BookError::NotFound(_)) => continue,
            Err(e) => return Err(e.into()),
        };
        let Some(target) = Target::of(&book).filter(|t| t.can_send(&row)) else {
            store.call(move |s| forget(s, book_id, at)).await?;
            continue;
        };
        let access = match accesses.get(&book.server_id) {
            Some(known) => known.clone(),
            None => {
                let server_id = book.server_id;
                let loaded = match store.call(move |s| servers::get(s, server_id)).await {
                    Ok(server) if server.paused_reason.is_none() => {
                        Some(ServerAccess::load(&server, credentials)?)
                    }
                    Ok(_) => None,
                    Err(e) => return Err(e.into()),
                };
                accesses.insert(book.server_id, loaded.clone());
                loaded
            }
        };
        let Some(access) = access else { continue };
        let (Target::Progression(link) | Target::ReadProgress(link)) = target;
        if on_server_origin(link, &access).is_none() {
            // A feed may name any host (this machine, the LAN): positions go to the library's
            // own origin or nowhere.
            tracing::warn!(
                book = row.book_id,
                "the position address is not on the server's origin; not sent"
            );
            store.call(move |s| forget(s, book_id, at)).await?;
            continue;
        }
        let to = Sending {
            store,
            http,
            access: &access,
            book: &book,
            row: &row,
        };
        let sent = match target {
            Target::Progression(link) => send(to, link).await,
            Target::ReadProgress(link) => send_read_progress(to, link).await,
        };
        match sent {
            Ok(None) => {
                store.call(move |s| forget(s, book_id, at)).await?;
                report.sent += 1;
            }
            Ok(Some(theirs)) => {
                store
                    .call(move |s| {
                        forget(s, book_id, at)?;
                        adopt(s, &book, &theirs)
                    })
                    .await?;
                report.server_newer += 1;
            }
            Err(FetchError::Store(e)) => return Err(e.into()),
            Err(e) => {
                tracing::info!(book = book_id, cause = %e, "the reading position waits to be sent");
                let reason = e.to_string();
                store
                    .call(move |s| note_failure(s, book_id, at, &reason))
                    .await?;
                report.failed += 1;
            }
        }
    }
    // The KOReader sync server, when one is set up: its failures wait in its own queue and never
    // hold the library's positions back.
    match crate::kosync::KosyncClient::shared() {
        Ok(client) => match crate::kosync::flush(store, credentials, client).await {
            Ok(sent) => report.kosync = sent,
            Err(crate::kosync::KosyncError::Store(e)) => return Err(e.into()),
            Err(e) => {
                tracing::info!(cause = %e, "reading positions wait for the KOReader sync server")
            }
        },
        Err(e) => tracing::info!(cause = %e, "no client for the KOReader sync server"),
    }
    Ok(report)
}

/// A position address, if it is on the server's own origin (scheme, host, port).
fn on_server_origin(link: &str, access: &ServerAccess) -> Option<Url> {
    Url::parse(link)
        .ok()
        .filter(|u| carrel_http::http_fetch::same_origin(u, &access.origin))
}

/// Where a book's position is kept on its server.
#[derive(Debug, Clone, Copy)]
enum Target<'a> {
    /// An OPDS progression document.
    Progression(&'a str),
    /// Komga's read-progress API.
    ReadProgress(&'a str),
}

impl<'a> Target<'a> {
    fn of(book: &'a Book) -> Option<Self> {
        match (&book.progression_url, &book.read_progress_url) {
            (Some(link), _) => Some(Target::Progression(link)),
            (None, Some(link)) => Some(Target::ReadProgress(link)),
            (None, None) => None,
        }
    }

    /// Komga's read progress is a page (or a book read, or unread): an EPUB position cannot go
    /// there.
    fn can_send(&self, row: &Pending) -> bool {
        match self {
            Target::Progression(_) => true,
            Target::ReadProgress(_) => row.page.is_some() || row.finished.is_some(),
        }
    }
}

/// One queued position on its way to its book's server.
#[derive(Clone, Copy)]
struct Sending<'a> {
    store: &'a Store,
    http: &'a HttpClient,
    access: &'a ServerAccess,
    book: &'a Book,
    row: &'a Pending,
}

/// A position address read for sending; `what` names its kind in the error.
fn position_url(link: &str, what: &str) -> Result<Url, FetchError> {
    Url::parse(link).map_err(|e| FetchError::Gone(format!("unusable {what} address: {e}")))
}

/// Sends one position to Komga, unless Komga's own is newer (then `Ok(Some(theirs))`).
async fn send_read_progress(
    to: Sending<'_>,
    link: &str,
) -> Result<Option<ServerPosition>, FetchError> {
    let url = position_url(link, "read-progress")?;
    // Komga's clock stamps what it is sent: only a position another device set since (a stamp
    // other than the echo of this device's last one) is compared, and the newer wins.
    if let Some(theirs) = fetch_read_progress(to.store, to.http, to.access, &url, to.book).await? {
        if theirs.modified_ms > to.row.updated_at_ms {
            let (book_id, stamp) = (to.book.id, theirs.clone());
            let echo = to
                .store
                .call(move |s| is_echo(s, book_id, &stamp))
                .await
                .map_err(FetchError::Store)?;
            if !echo {
                return Ok(Some(theirs));
            }
        }
    }
    // Unread is Komga's read progress deleted; read without a known page, `completed` alone.
    let (method, body) = match (to.row.finished, to.row.page) {
        (Some(false), _) => (reqwest::Method::DELETE, Vec::new()),
        (Some(true), None) => (reqwest::Method::PATCH, komga::completed_body()),
        (_, page) => (
            reqwest::Method::PATCH,
            komga::progress_body(page.unwrap_or(0), to.book.page_count),
        ),
    };
    let answer = to
        .http
        .send_bytes(
            to.store,
            to.access,
            method,
            &url,
            "application/json",
            body,
            MAX_PROGRESSION_BYTES,
        )
        .await?;
    if !answer.status.is_success() {
        return Err(FetchError::Gone(format!(
            "the server refused the reading position ({})",
            answer.status.as_u16()
        )));
    }
    // Remember the stamp Komga gave it, to know it when it comes back.
    if let Some(echo) = fetch_read_progress(to.store, to.http, to.access, &url, to.book).await? {
        let book_id = to.book.id;
        to.store
            .call(move |s| remember_echo(s, book_id, echo.modified_ms))
            .await?;
    }
    Ok(None)
}

/// Whether Komga's position is the one this device sent last (by the stamp Komga gave it).
fn is_echo(store: &Store, book_id: i64, theirs: &ServerPosition) -> Result<bool, StoreError> {
    let echo: Option<i64> = store
        .read(|c| {
            c.query_row(
                "SELECT read_progress_echo_ms FROM books WHERE id = ?1",
                [book_id],
                |r| r.get(0),
            )
        })
        .map_err(|e| store.sql_error(e))?;
    Ok(theirs.source == PositionSource::ReadProgress && echo == Some(theirs.modified_ms))
}

fn remember_echo(store: &Store, book_id: i64, stamp_ms: i64) -> Result<(), FetchError> {
    store
        .execute(
            "UPDATE books SET read_progress_echo_ms = ?2 WHERE id = ?1",
            params![book_id, stamp_ms],
        )
        .map_err(FetchError::Store)?;
    Ok(())
}

/// Reads Komga's position of a book; `None` when it has none (or the book is gone).
async fn fetch_read_progress(
    store: &Store,
    http: &HttpClient,
    access: &ServerAccess,
    read_progress: &Url,
    book: &Book,
) -> Result<Option<ServerPosition>, FetchError> {
    let Some(book_url) = komga::book_url(read_progress.as_str()).and_then(|u| Url::parse(u).ok())
    else {
        return Ok(None);
    };
    match http
        .get_bytes(store, access, &book_url, MAX_PROGRESSION_BYTES)
        .await
    {
        Ok(fetched) => Ok(komga::parse_book(&fetched.bytes, book.page_count).map(
            |(page, modified_ms)| {
                page_position(book, page, modified_ms, PositionSource::ReadProgress)
            },
        )),
        Err(FetchError::Gone(_)) => Ok(None),
        Err(e) => Err(e),
    }
}

/// PUTs one position. `Ok(None)`: the server has it; `Ok(Some(theirs))`: the server refused it
/// (409) because it holds a position at least as new.
async fn send(to: Sending<'_>, link: &str) -> Result<Option<ServerPosition>, FetchError> {
    let url = position_url(link, "progression")?;
    let body = locator::document(
        to.row.page,
        to.row.progression,
        to.row.cfi.as_deref(),
        to.row.updated_at_ms,
        &to.store.call(device_id).await?,
    );
    let mut retried = false;
    loop {
        let answer = to
            .http
            .put_bytes(
                to.store,
                to.access,
                &url,
                locator::PROGRESSION_TYPE,
                body.clone(),
                MAX_PROGRESSION_BYTES,
            )
            .await?;
        if answer.status != StatusCode::CONFLICT {
            return Ok(None);
        }
        // The newest wins: look at the server's and keep whichever is newer.
        let theirs = fetch(to.store, to.http, to.access, &url, to.book).await?;
        match theirs {
            Some(theirs) if theirs.modified_ms >= to.row.updated_at_ms || retried => {
                return Ok(Some(theirs))
            }
            None if retried => {
                return Err(FetchError::Gone(
                    "the server refuses the reading position (409)".into(),
                ));
            }
            _ => retried = true,
        }
    }
}

/// GETs and reads a progression document; `None` when the server has no position (404, or a
/// document without one).
async fn fetch(
    store: &Store,
    http: &HttpClient,
    access: &ServerAccess,
    url: &Url,
    book: &Book,
) -> Result<Option<ServerPosition>, FetchError> {
    match http
        .get_bytes(store, access, url, MAX_PROGRESSION_BYTES)
        .await
    {
        Ok(fetched) => Ok(locator::parse(&fetched.bytes, book.page_count)),
        Err(FetchError::Gone(_)) => Ok(None),
        Err(e) => Err(e),
    }
}

/// The server's position of a book when it is newer than this device's (the time the reader
/// last moved in it here) and elsewhere in the book, so opening can start there. From the
/// progression document or Komga when the book has one, else from the catalog's `pse:lastRead`.
/// A server that cannot be reached (or refuses) gives `None`: opening never waits on it beyond
/// one request.
pub async fn newest(
    store: &Store,
    http: &HttpClient,
    credentials: &Credentials,
    book_id: i64,
) -> Result<Option<ServerPosition>> {
    let (book, epub) = store
        .call(move |s| -> Result<_> {
            let book = books::get(s, book_id)?;
            let epub = if book.format == BookFormat::Epub {
                epub_positions::position(s, book_id)?
            } else {
                None
            };
            Ok((book, epub))
        })
        .await?;
    // An EPUB without a saved position has a time only when it was marked (read or unread).
    let local_ms = match &epub {
        Some(position) => Some(position.updated_at_ms),
        None => book.position_ms,
    };
    let theirs = match Target::of(&book) {
        Some(target) => {
            let (Target::Progression(link) | Target::ReadProgress(link)) = target;
            let server_id = book.server_id;
            let server = store.call(move |s| servers::get(s, server_id)).await?;
            let access = ServerAccess::load(&server, credentials)?;
            let Some(url) = on_server_origin(link, &access) else {
                return Ok(None);
            };
            let fetched = match target {
                Target::Progression(_) => fetch(store, http, &access, &url, &book).await,
                Target::ReadProgress(_) => {
                    fetch_read_progress(store, http, &access, &url, &book).await
                }
            };
            match fetched {
                Ok(theirs) => theirs,
                Err(FetchError::Store(e)) => return Err(e.into()),
                Err(e) => {
                    tracing::info!(book = book_id, cause = %e, "the server's reading position is not available");
                    None
                }
            }
        }
        None => {
            let of = book.clone();
            store.call(move |s| page_stream_position(s, &of)).await?
        }
    };
    // Another device's position on the KOReader sync server competes: the newer one wins.
    let kosync = match crate::kosync::KosyncClient::shared() {
        Ok(client) => match crate::kosync::newest(store, credentials, client, &book).await {
            Ok(found) => found,
            Err(crate::kosync::KosyncError::Store(e)) => return Err(e.into()),
            Err(e) => {
                tracing::info!(book = book_id, cause = %e, "the KOReader sync position is not available");
                None
            }
        },
        Err(_) => None,
    };
    let theirs = match (theirs, kosync) {
        (Some(library), Some(k)) if library.modified_ms >= k.modified_ms => Some(library),
        (_, Some(k)) => Some(ServerPosition {
            page: k.page.unwrap_or(0),
            progression: Some(k.percentage),
            cfi: k.cfi,
            modified_ms: k.modified_ms,
            source: PositionSource::Kosync,
        }),
        (library, None) => library,
    };
    let elsewhere = |t: &ServerPosition| match (&epub, book.format) {
        (Some(here), _) => match (&t.cfi, t.progression) {
            (Some(cfi), _) => *cfi != here.cfi,
            (None, Some(fraction)) => (fraction - here.fraction).abs() > 0.001,
            (None, None) => false,
        },
        (None, BookFormat::Epub) => t.cfi.is_some() || t.progression.is_some_and(|f| f > 0.0),
        (None, _) => book.last_page != Some(t.page),
    };
    let Some(theirs) = theirs else {
        return Ok(None);
    };
    let stamp = theirs.clone();
    if store.call(move |s| is_echo(s, book_id, &stamp)).await? {
        return Ok(None);
    }
    Ok(Some(theirs).filter(|t| local_ms.is_none_or(|local| t.modified_ms > local) && elsewhere(t)))
}

/// As [`newest`], and the server's newer position becomes this device's: a comic's last page,
/// an EPUB's CFI (a position given only as a fraction is left to the reader to find).
pub async fn take_newer(
    store: &Store,
    http: &HttpClient,
    credentials: &Credentials,
    book_id: i64,
) -> Result<Option<ServerPosition>> {
    let Some(theirs) = newest(store, http, credentials, book_id).await? else {
        return Ok(None);
    };
    let taken = theirs.clone();
    store
        .call(move |s| adopt(s, &books::get(s, book_id)?, &taken))
        .await?;
    Ok(Some(theirs))
}

/// Remembers a catalog entry's `pse:lastRead` (and its date) for [`newest`].
pub fn remember_page_stream(store: &Store, book_id: i64, entry: &BookEntry) -> Result<()> {
    let stream = entry.stream.as_ref();
    let last_read = stream.and_then(|s| s.last_read).map(i64::from);
    let when = stream
        .and_then(|s| s.last_read_date.as_deref())
        .and_then(parse_rfc3339);
    store.execute(
        "UPDATE books SET pse_last_read = ?2, pse_last_read_ms = ?3 WHERE id = ?1",
        params![book_id, last_read, when],
    )?;
    Ok(())
}

fn page_stream_position(store: &Store, book: &Book) -> Result<Option<ServerPosition>> {
    let found: Option<(Option<i64>, Option<i64>)> = store
        .read(|c| {
            c.query_row(
                "SELECT pse_last_read, pse_last_read_ms FROM books WHERE id = ?1",
                [book.id],
                |r| Ok((r.get(0)?, r.get(1)?)),
            )
            .optional()
        })
        .map_err(|e| store.sql_error(e))?;
    let Some((Some(shown), when)) = found else {
        return Ok(None);
    };
    let page = (shown - book.page_base).max(0);
    let page = match book.page_count {
        Some(count) if count > 0 => page.min(count - 1),
        _ => page,
    };
    // Without a date the position counts only for a book never opened here.
    let modified_ms = when.unwrap_or(i64::MIN);
    Ok(Some(page_position(
        book,
        page,
        modified_ms,
        PositionSource::PageStream,
    )))
}

/// A server's position at `page` (0-based) of a paged book: how far through it is the page over
/// the book's page count, when that is known.
fn page_position(
    book: &Book,
    page: i64,
    modified_ms: i64,
    source: PositionSource,
) -> ServerPosition {
    ServerPosition {
        page,
        progression: book
            .page_count
            .filter(|c| *c > 0)
            .map(|c| page as f64 / c as f64),
        cfi: None,
        modified_ms,
        source,
    }
}

/// Takes the server's newer position as this device's: the last page of a paged book, the CFI
/// of an EPUB — each only where this device's is older.
fn adopt(store: &Store, book: &Book, theirs: &ServerPosition) -> Result<()> {
    // Kept as of now at the latest: a server clock ahead of this one must not make every later
    // save here look older. (An undated `pse:lastRead` counts as the oldest.)
    let at = theirs.modified_ms.clamp(0, store.now_ms());
    store.write(|tx| {
        // A save of this device's older than the position taken is not sent any more.
        tx.execute(
            "DELETE FROM position_outbox WHERE book_id = ?1 AND updated_at_ms <= ?2",
            params![book.id, at],
        )
        .map_err(|e| store.sql_error(e))?;
        if book.format != BookFormat::Epub {
            tx.execute(
                "UPDATE books SET last_page = ?2, position_ms = ?3 WHERE id = ?1 AND coalesce(position_ms, 0) <= ?3",
                params![book.id, theirs.page, at],
            )
            .map_err(|e| store.sql_error(e))?;
        } else if let Some(cfi) = &theirs.cfi {
            tx.execute(
                "INSERT INTO epub_positions (book_id, cfi, fraction, updated_at_ms) VALUES (?1, ?2, ?3, ?4)
                 ON CONFLICT (book_id) DO UPDATE SET cfi = excluded.cfi, fraction = excluded.fraction,
                     updated_at_ms = excluded.updated_at_ms, chapter = NULL
                 WHERE epub_positions.updated_at_ms <= excluded.updated_at_ms",
                params![book.id, cfi, theirs.progression.unwrap_or(0.0), at],
            )
            .map_err(|e| store.sql_error(e))?;
        }
        Ok(())
    })
}

/// Deletes a row the server has dealt with, unless a newer save replaced it meanwhile.
fn forget(store: &Store, book_id: i64, updated_at_ms: i64) -> Result<()> {
    store.execute(
        "DELETE FROM position_outbox WHERE book_id = ?1 AND updated_at_ms = ?2",
        params![book_id, updated_at_ms],
    )?;
    Ok(())
}

fn note_failure(store: &Store, book_id: i64, updated_at_ms: i64, reason: &str) -> Result<()> {
    store.execute(
        "UPDATE position_outbox SET attempts = attempts + 1, last_error = ?3
         WHERE book_id = ?1 AND updated_at_ms = ?2",
        params![book_id, updated_at_ms, reason],
    )?;
    Ok(())
}

/// This installation's device id for progression documents, made on first use.
fn device_id(store: &Store) -> Result<String, FetchError> {
    store.write(|tx| {
        let fresh =
            Value::String(format!("urn:carrel:device:{:016x}", rand::random::<u64>())).to_string();
        tx.execute(
            "INSERT OR IGNORE INTO settings (key, value) VALUES ('device_id', ?1)",
            [fresh],
        )
        .map_err(|e| store.sql_error(e))?;
        let value: String = tx
            .query_row(
                "SELECT value FROM settings WHERE key = 'device_id'",
                [],
                |r| r.get(0),
            )
            .map_err(|e| store.sql_error(e))?;
        Ok(serde_json::from_str::<String>(&value).unwrap_or(value))
    })
}
