//! Series read-ahead: "keep the next N unread of this series on the device". While a book of a
//! series with a read-ahead is read, the next `keep_next` unread books after it, in series order,
//! are queued (not prioritary: the book being read and the pages a window waits for come first),
//! so the next issue is on the device before the reader reaches the last page of this one. A book
//! read to its end here is finished; a finished book the read-ahead brought is removed
//! `remove_after_days` after it was finished (never a book the reader pinned themselves). A book
//! the server says was read to its last page (the page stream's `pse:lastRead`, from another
//! device) is finished too.
//!
//! The series is what the server says (`book_meta.series` and `series_index`, from the OPDS
//! entry, or from the series feed that lists the book where entries name no series — Codex,
//! Komga's OPDS 1.2, see `series_feeds`); a book no entry or series feed places in a series has
//! no read-ahead, and says so — nothing is guessed from titles. Books without a number come after
//! numbered ones, in their order in the series feed, then in the order they became known.
//!
//! A server may have a default read-ahead ("keep the next N unread books of each series I read";
//! off by default, [`set_server_default`]). A series of that server without a read-ahead of its own
//! takes the default the first time one of its books is read: [`apply`] writes a read-ahead row for
//! it marked as the default's, so `show` lists it and it can be stopped like any other. Such a
//! read-ahead follows the default: a changed default changes it, a default turned off ends it (as
//! [`stop`] would, what it stored staying). A read-ahead the reader set for the series ([`keep`])
//! is the series' own and the default never touches it. A series the reader stopped is recorded
//! as stopped, and the default does not bring its read-ahead back; [`keep`] lifts that.
//!
//! The same order gives a book's neighbours ([`neighbours`]): the book before it and the book
//! after it in its series, for the end of a book ("next in the series").
//!
//! Owns `series_read_ahead`, `series_read_ahead_books`, `server_series_defaults` and
//! `series_read_ahead_stopped`. Applied by [`record_position`], [`record_epub_position`] and
//! [`mark_read`], which front ends call instead of saving the position (or the mark) alone, and
//! by [`keep`] when a read-ahead is set.

use rusqlite::params;
use serde::Serialize;

use carrel_engine::book_downloads::{self, BookState, BookStatus, DownloadRequestError};
use carrel_foundation::error::{ErrorKind, Failure};
use carrel_foundation::store::{Store, StoreError};
use carrel_library::books::{self, BookError, BookFormat};
use carrel_library::servers::{self, ServerError};
use carrel_reading::position_sync;

/// The most books a read-ahead keeps.
pub const MAX_KEEP_NEXT: u32 = 50;
/// The longest a finished book may be kept before it is removed (days).
pub const MAX_REMOVE_AFTER_DAYS: u32 = 3650;
const DAY_MS: i64 = 24 * 60 * 60 * 1000;

#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum SeriesError {
    #[error("the server names no series for \"{0}\": it has no read-ahead")]
    NoSeries(String),
    #[error("a read-ahead keeps 1 to {MAX_KEEP_NEXT} books ahead, not {0}")]
    BadKeepNext(u32),
    #[error("finished books are removed after 0 to {MAX_REMOVE_AFTER_DAYS} days, not {0}")]
    BadRemoveAfter(u32),
    #[error(transparent)]
    Download(#[from] DownloadRequestError),
    #[error(transparent)]
    Library(#[from] carrel_library::Error),
}

from_library_errors!(SeriesError::Library: StoreError, BookError, ServerError);

impl Failure for SeriesError {
    fn kind(&self) -> ErrorKind {
        match self {
            SeriesError::NoSeries(_)
            | SeriesError::BadKeepNext(_)
            | SeriesError::BadRemoveAfter(_) => ErrorKind::InvalidInput,
            SeriesError::Download(e) => e.kind(),
            SeriesError::Library(e) => e.kind(),
        }
    }
}

pub type Result<T, E = SeriesError> = std::result::Result<T, E>;

/// A series' read-ahead: how many unread books it keeps ahead, and when finished ones go.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, ts_rs::TS)]
#[ts(rename = "SeriesReadAheadSetting")]
pub struct SeriesReadAhead {
    pub keep_next: u32,
    pub remove_after_days: Option<u32>,
    /// Made by the server's default (and following it), not set for this series.
    pub from_server_default: bool,
}

/// A server's default read-ahead, taken by each series of the server read without a read-ahead
/// of its own.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, ts_rs::TS)]
#[ts(rename = "ServerSeriesDefault")]
pub struct ServerDefault {
    pub keep_next: u32,
    pub remove_after_days: Option<u32>,
}

/// One book of a series, in series order.
#[derive(Debug, Clone, PartialEq, Serialize, ts_rs::TS)]
pub struct SeriesBook {
    pub book_id: i64,
    pub title: String,
    pub series_index: Option<f64>,
    /// Read to its end on this device.
    pub finished: bool,
    /// Queued by the read-ahead (and removed once read and its days are up).
    pub kept_by_read_ahead: bool,
    pub status: BookStatus,
}

/// A book's series as [`show`] gives it.
#[derive(Debug, Clone, PartialEq, Serialize, ts_rs::TS)]
pub struct SeriesView {
    pub server_id: i64,
    pub series: String,
    /// `None`: no read-ahead (the series is read as any other book).
    pub read_ahead: Option<SeriesReadAhead>,
    /// The server's default read-ahead, if it has one: taken when a book of this series is read,
    /// unless the series has a read-ahead or was stopped.
    pub server_default: Option<ServerDefault>,
    /// The reader stopped this series' read-ahead: the server's default leaves it alone.
    pub stopped: bool,
    pub books: Vec<SeriesBook>,
}

/// The server and series of a book, when its entry names one.
fn series_of(store: &Store, book_id: i64) -> Result<Option<(i64, String)>> {
    let book = books::get(store, book_id)?;
    let series: Option<String> = carrel_foundation::rows::optional(
        store,
        "SELECT series FROM book_meta WHERE book_id = ?1",
        [book_id],
        |r| r.get(0),
    )?
    .flatten();
    Ok(series
        .map(|s| s.trim().to_owned())
        .filter(|s| !s.is_empty())
        .map(|s| (book.server_id, s)))
}

fn read_ahead_of(store: &Store, server_id: i64, series: &str) -> Result<Option<SeriesReadAhead>> {
    Ok(carrel_foundation::rows::optional(
        store,
        "SELECT keep_next, remove_after_days, from_server_default FROM series_read_ahead
                 WHERE server_id = ?1 AND series = ?2",
        params![server_id, series],
        |r| {
            Ok(SeriesReadAhead {
                keep_next: r.get(0)?,
                remove_after_days: r.get(1)?,
                from_server_default: r.get(2)?,
            })
        },
    )?)
}

/// The books of a series, in series order, with what the read-ahead needs to know of each.
struct Member {
    book_id: i64,
    title: String,
    series_index: Option<f64>,
    finished: bool,
    kept_by_read_ahead: bool,
    finished_ms: Option<i64>,
}

fn members(store: &Store, server_id: i64, series: &str) -> Result<Vec<Member>> {
    Ok(carrel_foundation::rows::all(
        store,
        "SELECT b.id, b.title, m.series_index, b.format, b.last_page, b.page_count,
                e.fraction, w.book_id IS NOT NULL, w.finished_ms,
                b.pse_last_read - b.page_base, b.finished_ms IS NOT NULL
         FROM book_meta m
         JOIN books b ON b.id = m.book_id
         LEFT JOIN epub_positions e ON e.book_id = b.id
         LEFT JOIN series_read_ahead_books w ON w.book_id = b.id
         WHERE m.series = ?2 AND b.server_id = ?1
         ORDER BY m.series_index IS NULL, m.series_index, m.series_order IS NULL, m.series_order, b.id",
        params![server_id, series],
        |r| {
            let format: String = r.get(3)?;
            let last_page: Option<i64> = r.get(4)?;
            let page_count: Option<i64> = r.get(5)?;
            let fraction: Option<f64> = r.get(6)?;
            // The server's own mark counts too: a page stream's last page read there.
            let server_page: Option<i64> = r.get(9)?;
            let at_end = |p: Option<i64>| matches!((p, page_count), (Some(p), Some(c)) if c > 0 && p + 1 >= c);
            let at_end_here = if format == BookFormat::Epub.as_str() {
                fraction.is_some_and(|f| f >= position_sync::EPUB_FINISHED)
            } else {
                at_end(last_page) || at_end(server_page)
            };
            // Finished here, or marked read.
            let read: bool = r.get(10)?;
            let finished = read || at_end_here;
            Ok(Member {
                book_id: r.get(0)?,
                title: r.get(1)?,
                series_index: r.get(2)?,
                finished,
                kept_by_read_ahead: r.get(7)?,
                finished_ms: r.get(8)?,
            })
        },
    )?)
}

/// Sets the read-ahead of `book_id`'s series (replacing its read-ahead) and applies it from that
/// book: the next `keep_next` unread books after it are queued.
pub fn keep(
    store: &Store,
    book_id: i64,
    keep_next: u32,
    remove_after_days: Option<u32>,
) -> Result<SeriesView> {
    check_read_ahead(keep_next, remove_after_days)?;
    let Some((server_id, series)) = series_of(store, book_id)? else {
        return Err(SeriesError::NoSeries(books::get(store, book_id)?.title));
    };
    // The series' own read-ahead from now on: the server's default no longer changes or ends it,
    // and a series stopped before is stopped no more.
    store.write(|tx| {
        tx.execute(
            "INSERT INTO series_read_ahead (server_id, series, keep_next, remove_after_days, from_server_default)
             VALUES (?1, ?2, ?3, ?4, 0)
             ON CONFLICT (server_id, series) DO UPDATE SET keep_next = excluded.keep_next,
                 remove_after_days = excluded.remove_after_days, from_server_default = 0",
            params![server_id, series, keep_next, remove_after_days],
        )
        .map_err(|e| store.sql_error(e))?;
        tx.execute(
            "DELETE FROM series_read_ahead_stopped WHERE server_id = ?1 AND series = ?2",
            params![server_id, series],
        )
        .map_err(|e| store.sql_error(e))?;
        Ok::<_, StoreError>(())
    })?;
    apply(store, book_id)?;
    show(store, book_id)
}

fn check_read_ahead(keep_next: u32, remove_after_days: Option<u32>) -> Result<()> {
    if keep_next == 0 || keep_next > MAX_KEEP_NEXT {
        return Err(SeriesError::BadKeepNext(keep_next));
    }
    if let Some(days) = remove_after_days.filter(|d| *d > MAX_REMOVE_AFTER_DAYS) {
        return Err(SeriesError::BadRemoveAfter(days));
    }
    Ok(())
}

/// Ends the read-ahead of `book_id`'s series. What it queued stays queued and what it stored stays
/// (pinned, as "keep offline" would have it); nothing more is queued or removed. The series is
/// recorded as stopped, so the server's default does not bring its read-ahead back.
pub fn stop(store: &Store, book_id: i64) -> Result<()> {
    let Some((server_id, series)) = series_of(store, book_id)? else {
        return Err(SeriesError::NoSeries(books::get(store, book_id)?.title));
    };
    end_read_ahead(store, server_id, &series, Ending::StoppedByReader)
}

/// Why a read-ahead ends.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Ending {
    /// The reader stopped it: recorded, so the server's default does not bring it back.
    StoppedByReader,
    /// The server's default was turned off: only a read-ahead the default made ends.
    DefaultOff,
}

/// Deletes a series' read-ahead and lets go of the books it brought (they stay, pinned).
fn end_read_ahead(store: &Store, server_id: i64, series: &str, ending: Ending) -> Result<()> {
    let ids: Vec<i64> = members(store, server_id, series)?
        .iter()
        .map(|m| m.book_id)
        .collect();
    store.write(|tx| {
        let sql = match ending {
            Ending::StoppedByReader => {
                "DELETE FROM series_read_ahead WHERE server_id = ?1 AND series = ?2"
            }
            // A read-ahead the reader set meanwhile is theirs: it stays.
            Ending::DefaultOff => {
                "DELETE FROM series_read_ahead WHERE server_id = ?1 AND series = ?2 AND from_server_default = 1"
            }
        };
        let ended = tx
            .execute(sql, params![server_id, series])
            .map_err(|e| store.sql_error(e))?;
        if ended > 0 || ending == Ending::StoppedByReader {
            for id in &ids {
                tx.execute("DELETE FROM series_read_ahead_books WHERE book_id = ?1", [id])
                    .map_err(|e| store.sql_error(e))?;
            }
        }
        if ending == Ending::StoppedByReader {
            tx.execute(
                "INSERT OR IGNORE INTO series_read_ahead_stopped (server_id, series) VALUES (?1, ?2)",
                params![server_id, series],
            )
            .map_err(|e| store.sql_error(e))?;
        }
        Ok::<_, StoreError>(())
    })?;
    Ok(())
}

/// The default read-ahead of a server; `None` when it has none (off, as it starts).
pub fn server_default(store: &Store, server_id: i64) -> Result<Option<ServerDefault>> {
    servers::get(store, server_id)?;
    Ok(carrel_foundation::rows::optional(
        store,
        "SELECT keep_next, remove_after_days FROM server_series_defaults WHERE server_id = ?1",
        [server_id],
        |r| {
            Ok(ServerDefault {
                keep_next: r.get(0)?,
                remove_after_days: r.get(1)?,
            })
        },
    )?)
}

/// Sets a server's default read-ahead: each series of the server read without a read-ahead of its
/// own keeps the next `keep_next` unread books, from the next position saved in it. `keep_next` 0
/// turns the default off. The read-aheads the default made follow it: changed to the new values,
/// or ended when it is turned off (what they stored stays, pinned). Read-aheads set for a series
/// are left as they are. Returns the default now in force.
pub fn set_server_default(
    store: &Store,
    server_id: i64,
    keep_next: u32,
    remove_after_days: Option<u32>,
) -> Result<Option<ServerDefault>> {
    servers::get(store, server_id)?;
    if keep_next == 0 {
        // The default first, so no series takes it while its read-aheads are ended.
        store.execute(
            "DELETE FROM server_series_defaults WHERE server_id = ?1",
            [server_id],
        )?;
        let adopted: Vec<String> = carrel_foundation::rows::all(
            store,
            "SELECT series FROM series_read_ahead WHERE server_id = ?1 AND from_server_default = 1",
            [server_id],
            |r| r.get(0),
        )?;
        for series in adopted {
            end_read_ahead(store, server_id, &series, Ending::DefaultOff)?;
        }
        return Ok(None);
    }
    check_read_ahead(keep_next, remove_after_days)?;
    store.write(|tx| {
        tx.execute(
            "INSERT INTO server_series_defaults (server_id, keep_next, remove_after_days) VALUES (?1, ?2, ?3)
             ON CONFLICT (server_id) DO UPDATE SET keep_next = excluded.keep_next,
                 remove_after_days = excluded.remove_after_days",
            params![server_id, keep_next, remove_after_days],
        )
        .map_err(|e| store.sql_error(e))?;
        tx.execute(
            "UPDATE series_read_ahead SET keep_next = ?2, remove_after_days = ?3
             WHERE server_id = ?1 AND from_server_default = 1",
            params![server_id, keep_next, remove_after_days],
        )
        .map_err(|e| store.sql_error(e))?;
        Ok::<_, StoreError>(())
    })?;
    Ok(Some(ServerDefault {
        keep_next,
        remove_after_days,
    }))
}

/// Whether the reader stopped the read-ahead of a series.
fn is_stopped(store: &Store, server_id: i64, series: &str) -> Result<bool> {
    Ok(carrel_foundation::rows::value(store, "SELECT EXISTS (SELECT 1 FROM series_read_ahead_stopped WHERE server_id = ?1 AND series = ?2)", params![server_id, series])?)
}

/// The read-ahead a series has, or the one it takes now from its server's default: a series without
/// a read-ahead and not stopped by the reader is given the default's values (once; the row is the
/// default's from then on). `None` when neither applies.
fn read_ahead_or_default(
    store: &Store,
    server_id: i64,
    series: &str,
) -> Result<Option<SeriesReadAhead>> {
    if let Some(read_ahead) = read_ahead_of(store, server_id, series)? {
        return Ok(Some(read_ahead));
    }
    let taken = store.execute(
        "INSERT INTO series_read_ahead (server_id, series, keep_next, remove_after_days, from_server_default)
         SELECT d.server_id, ?2, d.keep_next, d.remove_after_days, 1
         FROM server_series_defaults d
         WHERE d.server_id = ?1
           AND NOT EXISTS (SELECT 1 FROM series_read_ahead_stopped s
                           WHERE s.server_id = ?1 AND s.series = ?2)
         ON CONFLICT (server_id, series) DO NOTHING",
        params![server_id, series],
    )?;
    if taken > 0 {
        tracing::info!(series = %series, server = server_id, "a series takes its server's default read-ahead");
    }
    read_ahead_of(store, server_id, series)
}

/// A book's series, its read-ahead and its books in series order.
pub fn show(store: &Store, book_id: i64) -> Result<SeriesView> {
    let Some((server_id, series)) = series_of(store, book_id)? else {
        return Err(SeriesError::NoSeries(books::get(store, book_id)?.title));
    };
    let read_ahead = read_ahead_of(store, server_id, &series)?;
    let server_default = server_default(store, server_id)?;
    let stopped = is_stopped(store, server_id, &series)?;
    let books = members(store, server_id, &series)?
        .into_iter()
        .map(|m| {
            let status = book_downloads::status(store, &books::get(store, m.book_id)?)?;
            Ok(SeriesBook {
                book_id: m.book_id,
                title: m.title,
                series_index: m.series_index,
                finished: m.finished,
                kept_by_read_ahead: m.kept_by_read_ahead,
                status,
            })
        })
        .collect::<Result<Vec<_>>>()?;
    Ok(SeriesView {
        server_id,
        series,
        read_ahead,
        server_default,
        stopped,
        books,
    })
}

/// A book next to another in its series, as the end of a book shows it.
#[derive(Debug, Clone, PartialEq, Serialize, ts_rs::TS)]
#[ts(rename = "SeriesNeighbour")]
pub struct Neighbour {
    pub book_id: i64,
    pub title: String,
    /// Its number in the series, when the server gives one.
    pub number: Option<f64>,
    /// Read to its end (here, marked read, or to the last page on the server's page stream).
    pub finished: bool,
    /// Every part of it is on this device.
    pub on_device: bool,
    /// Its download: the state, and how many of its parts are stored when it is not whole.
    pub status: BookStatus,
}

/// The books before and after one in its series.
#[derive(Debug, Clone, PartialEq, Serialize, ts_rs::TS)]
#[ts(rename = "SeriesNeighbours")]
pub struct Neighbours {
    /// The series, when the server names one for the book.
    pub series: Option<String>,
    /// The book before, in series order; `None` for the first (or a book with no series).
    pub previous: Option<Neighbour>,
    /// The book after; `None` for the last (or a book with no series).
    pub next: Option<Neighbour>,
}

/// The previous and next books of `book_id`'s series in the server's order (numbers, then the
/// series feed's order, then the order they became known), from what this device knows of the
/// series: the entries and series feeds browsed. Nothing is asked of the server, so a book not
/// seen yet is not a neighbour.
pub fn neighbours(store: &Store, book_id: i64) -> Result<Neighbours> {
    let Some((server_id, series)) = series_of(store, book_id)? else {
        return Ok(Neighbours {
            series: None,
            previous: None,
            next: None,
        });
    };
    let members = members(store, server_id, &series)?;
    let at = members.iter().position(|m| m.book_id == book_id);
    let neighbour = |m: &Member| -> Result<Neighbour> {
        let status = book_downloads::status(store, &books::get(store, m.book_id)?)?;
        Ok(Neighbour {
            book_id: m.book_id,
            title: m.title.clone(),
            number: m.series_index,
            finished: m.finished,
            on_device: matches!(status.state, BookState::Stored),
            status,
        })
    };
    let previous = match at {
        Some(at) if at > 0 => Some(neighbour(&members[at - 1])?),
        _ => None,
    };
    let next = match at.and_then(|at| members.get(at + 1)) {
        Some(m) => Some(neighbour(m)?),
        None => None,
    };
    Ok(Neighbours {
        series: Some(series),
        previous,
        next,
    })
}

/// What [`apply`] did.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct Applied {
    /// Books queued now.
    pub queued: Vec<i64>,
    /// Finished books removed from the device now.
    pub removed: Vec<i64>,
}

/// Applies the read-ahead of `book_id`'s series, if it has one (or takes its server's default
/// now, see [`set_server_default`]): finished books are noted (and removed once their days are
/// up), and the next unread books after `book_id` are queued.
pub fn apply(store: &Store, book_id: i64) -> Result<Applied> {
    let mut applied = Applied::default();
    let Some((server_id, series)) = series_of(store, book_id)? else {
        return Ok(applied);
    };
    let Some(read_ahead) = read_ahead_or_default(store, server_id, &series)? else {
        return Ok(applied);
    };
    let now = store.now_ms();
    let members = members(store, server_id, &series)?;
    // Finished books the read-ahead brought: noted once, removed when their days are up. A book
    // read again from its start is unread again.
    for m in &members {
        if m.kept_by_read_ahead && !m.finished && m.finished_ms.is_some() {
            store.execute(
                "UPDATE series_read_ahead_books SET finished_ms = NULL WHERE book_id = ?1",
                [m.book_id],
            )?;
        }
        if !m.kept_by_read_ahead || !m.finished {
            continue;
        }
        let Some(finished_ms) = m.finished_ms else {
            store.execute("UPDATE series_read_ahead_books SET finished_ms = ?2 WHERE book_id = ?1 AND finished_ms IS NULL",
                params![m.book_id, now],
            )?;
            continue;
        };
        let due = read_ahead
            .remove_after_days
            .is_some_and(|days| now - finished_ms >= i64::from(days) * DAY_MS);
        // The book being read stays, whatever its days.
        if due && m.book_id != book_id {
            // Its files first: a removal that fails leaves the book tracked, tried again at the
            // next save, and the books ahead are queued all the same.
            if let Err(e) = book_downloads::remove_book(store, m.book_id) {
                tracing::warn!(book = m.book_id, cause = %e, "could not remove a finished book of a series");
                continue;
            }
            store.execute(
                "DELETE FROM series_read_ahead_books WHERE book_id = ?1",
                [m.book_id],
            )?;
            applied.removed.push(m.book_id);
        }
    }
    // The next unread books after the one being read, in series order.
    let Some(at) = members.iter().position(|m| m.book_id == book_id) else {
        return Ok(applied);
    };
    let next: Vec<&Member> = members[at + 1..]
        .iter()
        .filter(|m| !m.finished)
        .take(read_ahead.keep_next as usize)
        .collect();
    // (book, pinned by the reader, only on the server)
    let mut wanted = Vec::new();
    for m in next {
        let book = books::get(store, m.book_id)?;
        let remote = matches!(
            book_downloads::status(store, &book)?.state,
            BookState::Remote
        );
        if m.kept_by_read_ahead && !book.pinned {
            // The read-ahead brought it and the reader let it go (removed or cancelled it): left
            // alone.
            continue;
        }
        if remote || !m.kept_by_read_ahead && !book.pinned {
            wanted.push((m.book_id, book.pinned && !m.kept_by_read_ahead, remote));
        }
    }
    if wanted.is_empty() {
        return Ok(applied);
    }
    // Pinned so "books kept on the device" leaves them be; recorded as the read-ahead's so they are
    // unpinned and removed once read (a book the reader pinned is never recorded).
    store.write(|tx| {
        for (id, pinned, _) in &wanted {
            if !pinned {
                tx.execute(
                    "INSERT OR IGNORE INTO series_read_ahead_books (book_id) VALUES (?1)",
                    [id],
                )
                .map_err(|e| store.sql_error(e))?;
                tx.execute("UPDATE books SET pinned = 1 WHERE id = ?1", [id])
                    .map_err(|e| store.sql_error(e))?;
            }
        }
        Ok::<_, StoreError>(())
    })?;
    let to_queue: Vec<i64> = wanted
        .iter()
        .filter(|(_, _, remote)| *remote)
        .map(|(id, _, _)| *id)
        .collect();
    if !to_queue.is_empty() {
        book_downloads::keep_books(store, &to_queue)?;
        tracing::info!(series = %series, books = ?to_queue, "queued the next books of a series");
    }
    applied.queued = to_queue;
    Ok(applied)
}

/// Saves a paged book's position ([`position_sync::record`]) and applies its series' read-ahead.
/// A read-ahead that cannot be applied (a full disk) costs only the books it would have queued: the
/// position stands, and the next save tries again.
pub fn record_position(store: &Store, book_id: i64, page: i64) -> Result<Applied> {
    position_sync::record(store, book_id, page)?;
    Ok(apply_logged(store, book_id))
}

/// Saves an EPUB's position ([`position_sync::record_epub`]) and applies its series' read-ahead.
pub fn record_epub_position(
    store: &Store,
    book_id: i64,
    cfi: &str,
    fraction: f64,
    chapter: Option<&str>,
) -> Result<Applied, carrel_reading::epub_positions::EpubPositionError> {
    position_sync::record_epub(store, book_id, cfi, fraction, chapter)?;
    Ok(apply_logged(store, book_id))
}

/// Marks a book read or unread ([`position_sync::mark_read`]) and applies its series' read-ahead:
/// a book read is finished for the read-ahead as one read to its end is.
pub fn mark_read(store: &Store, book_id: i64, read: bool) -> Result<Applied> {
    position_sync::mark_read(store, book_id, read)?;
    Ok(apply_logged(store, book_id))
}

/// A series marked at once by [`mark_series_read`].
#[derive(Debug, Clone, PartialEq, Eq, Serialize, ts_rs::TS)]
pub struct SeriesMarked {
    /// The series, as the server names it.
    pub series: String,
    /// Every book of the series this device knows of, in series order, each marked.
    pub book_ids: Vec<i64>,
}

/// Marks every book of `book_id`'s series read (`read`) or unread, as [`mark_read`] marks one:
/// each mark queued for the book's servers (sent as single marks are), then the series' read-ahead
/// applied once, from `book_id`. The series is what this device knows of it (the entries and
/// series feeds browsed, as [`neighbours`] finds it): a book not seen yet is not marked.
/// [`SeriesError::NoSeries`] for a book in no known series.
pub fn mark_series_read(store: &Store, book_id: i64, read: bool) -> Result<SeriesMarked> {
    let Some((server_id, series)) = series_of(store, book_id)? else {
        return Err(SeriesError::NoSeries(books::get(store, book_id)?.title));
    };
    let book_ids: Vec<i64> = members(store, server_id, &series)?
        .iter()
        .map(|m| m.book_id)
        .collect();
    for id in &book_ids {
        position_sync::mark_read(store, *id, read)?;
    }
    apply_logged(store, book_id);
    Ok(SeriesMarked { series, book_ids })
}

fn apply_logged(store: &Store, book_id: i64) -> Applied {
    apply(store, book_id).unwrap_or_else(|e| {
        tracing::warn!(book = book_id, cause = %e, "could not apply the series' read-ahead");
        Applied::default()
    })
}
