//! Books known on this device: catalog entries given a local id of our own (the id the UI and
//! the CLI pass around), with what is needed to download them again — the page-stream template
//! with bookmark-moving parameters removed, the acquisition link, the cover — and the reader's
//! relation to them (last opened, last page, pinned to stay offline).
//!
//! Owns the `books` table. What is downloaded, and how far, belongs to `carrel_engine::download_stack`.

use rusqlite::{params, OptionalExtension, Row};
use serde::{Deserialize, Serialize};

use crate::book_identity;
use carrel_foundation::rows;
use carrel_foundation::store::{Store, StoreError};

/// How a book is read, and so how it is downloaded.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, ts_rs::TS)]
#[serde(rename_all = "snake_case")]
pub enum BookFormat {
    Comic,
    Epub,
    Pdf,
    Other,
}

impl BookFormat {
    pub fn as_str(self) -> &'static str {
        match self {
            BookFormat::Comic => "comic",
            BookFormat::Epub => "epub",
            BookFormat::Pdf => "pdf",
            BookFormat::Other => "other",
        }
    }
    fn parse(s: &str) -> BookFormat {
        match s {
            "comic" => BookFormat::Comic,
            "epub" => BookFormat::Epub,
            "pdf" => BookFormat::Pdf,
            _ => BookFormat::Other,
        }
    }
}

/// A catalog entry to remember, as found in a feed.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct CatalogBook {
    pub catalog_id: String,
    pub title: String,
    pub authors: Vec<String>,
    pub format: BookFormat,
    /// Page-stream URL template (`{pageNumber}`, maybe `{maxWidth}`), bookmark parameters removed.
    pub stream_template: Option<String>,
    pub page_count: Option<u32>,
    /// 1 when the server numbers pages from 1.
    pub page_base: u8,
    /// The pages' own URLs, when the catalog lists them instead of giving a template.
    #[serde(default)]
    pub page_list: Vec<String>,
    pub file_url: Option<String>,
    pub file_type: Option<String>,
    pub file_length: Option<u64>,
    pub cover_url: Option<String>,
    /// Where the server keeps the reading position (OPDS progression), if it offers one.
    #[serde(default)]
    pub progression_url: Option<String>,
    /// Komga's read-progress address of the book, for books from a Komga server.
    #[serde(default)]
    pub read_progress_url: Option<String>,
}

impl CatalogBook {
    /// An entry known by `catalog_id` with nothing but its title and format: no authors, no
    /// pages, no file, no cover, no reading position on the server.
    pub fn bare(catalog_id: &str, title: &str, format: BookFormat) -> Self {
        CatalogBook {
            catalog_id: catalog_id.into(),
            title: title.into(),
            authors: Vec::new(),
            format,
            stream_template: None,
            page_count: None,
            page_base: 0,
            page_list: Vec::new(),
            file_url: None,
            file_type: None,
            file_length: None,
            cover_url: None,
            progression_url: None,
            read_progress_url: None,
        }
    }
}

/// A book on this device's list.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Book {
    pub id: i64,
    pub server_id: i64,
    pub catalog_id: String,
    pub title: String,
    pub authors: String,
    pub format: BookFormat,
    pub stream_template: Option<String>,
    pub page_count: Option<i64>,
    pub page_base: i64,
    /// The pages' own URLs (empty for template streams and whole-file books).
    pub page_list: Vec<String>,
    pub file_url: Option<String>,
    pub file_type: Option<String>,
    pub file_length: Option<i64>,
    pub cover_url: Option<String>,
    pub pinned: bool,
    pub last_opened_ms: Option<i64>,
    pub last_page: Option<i64>,
    /// Where the server keeps the reading position (OPDS progression), if it offers one.
    pub progression_url: Option<String>,
    /// Komga's read-progress address of the book (see `carrel_reading::komga`).
    pub read_progress_url: Option<String>,
    /// When `last_page` was last set by reading (here or on the server), unix milliseconds.
    pub position_ms: Option<i64>,
}

impl Book {
    /// Whether the book is downloaded page by page (page streaming or a list of page images)
    /// rather than as one file.
    pub fn streams_pages(&self) -> bool {
        (self.stream_template.is_some() || !self.page_list.is_empty())
            && self.page_count.unwrap_or(0) > 0
    }

    /// Whether the book is one of the reader's own files imported from this device (its file
    /// address is a `file:` one, see `carrel_catalog::local_books`): nothing is ever downloaded
    /// for it, and its file is on the device or missing, never on its way.
    pub fn is_local_file(&self) -> bool {
        self.file_url
            .as_deref()
            .is_some_and(|u| u.get(..5).is_some_and(|s| s.eq_ignore_ascii_case("file:")))
    }
}

const COLUMNS: &str = "id, server_id, catalog_id, title, authors, format, stream_template, page_count, \
     page_base, file_url, file_type, file_length, cover_url, pinned, last_opened_ms, last_page, page_list, progression_url, \
     read_progress_url, position_ms";

fn from_row(r: &Row<'_>) -> rusqlite::Result<Book> {
    Ok(Book {
        id: r.get(0)?,
        server_id: r.get(1)?,
        catalog_id: r.get(2)?,
        title: r.get(3)?,
        authors: r.get(4)?,
        format: BookFormat::parse(&r.get::<_, String>(5)?),
        stream_template: r.get(6)?,
        page_count: r.get(7)?,
        page_base: r.get(8)?,
        file_url: r.get(9)?,
        file_type: r.get(10)?,
        file_length: r.get(11)?,
        cover_url: r.get(12)?,
        pinned: r.get(13)?,
        last_opened_ms: r.get(14)?,
        last_page: r.get(15)?,
        page_list: r
            .get::<_, Option<String>>(16)?
            .and_then(|json| serde_json::from_str(&json).ok())
            .unwrap_or_default(),
        progression_url: r.get(17)?,
        read_progress_url: r.get(18)?,
        position_ms: r.get(19)?,
    })
}

#[derive(Debug, thiserror::Error)]
pub enum BookError {
    #[error("no book with id {0} on this device")]
    NotFound(i64),
    #[error(transparent)]
    Store(#[from] StoreError),
}

/// Records (or refreshes) a catalog entry and returns its local book. The local id of an entry
/// never changes once given, and an entry reached through another view of the catalog (another
/// sort, filter or search) is the same book: see [`crate::book_identity`].
pub fn remember(store: &Store, server_id: i64, entry: &CatalogBook) -> Result<Book, BookError> {
    let now = store.now_ms();
    let authors = entry.authors.join(", ");
    let identity = book_identity::canonical_id(&entry.catalog_id);
    let key = match_key_of(entry);
    store.write(|tx| {
        let known = known_in(tx, server_id, &identity, key.as_deref()).map_err(|e| BookError::Store(store.sql_error(e)))?;
        let page_list = (!entry.page_list.is_empty()).then(|| serde_json::to_string(&entry.page_list).expect("a list of strings serialises"));
        let values = params![
            server_id,
            identity,
            entry.title,
            authors,
            entry.format.as_str(),
            entry.stream_template,
            entry.page_count,
            entry.page_base,
            entry.file_url,
            entry.file_type,
            entry.file_length.map(|l| l as i64),
            entry.cover_url,
            now,
            page_list,
            entry.progression_url,
            entry.read_progress_url,
            key,
            known,
        ];
        let sql = match known {
            // Refreshed in place: its local id (and the id it was first seen under) stay.
            Some(_) => format!(
                "UPDATE books SET title = ?3, authors = ?4, format = ?5, stream_template = ?6,
                    page_count = coalesce(?7, CASE WHEN ?6 IS NULL THEN page_count END),
                    page_base = ?8, file_url = ?9, file_type = ?10, file_length = ?11, cover_url = ?12,
                    page_list = ?14, progression_url = ?15, read_progress_url = ?16, match_key = ?17, identity_v = 1
                 WHERE id = ?18 AND server_id = ?1 AND ?2 IS NOT NULL AND ?13 IS NOT NULL
                 RETURNING {COLUMNS}"
            ),
            None => format!(
                "INSERT INTO books (id, server_id, catalog_id, title, authors, format, stream_template, page_count,
                                    page_base, file_url, file_type, file_length, cover_url, created_at_ms, page_list,
                                    progression_url, read_progress_url, match_key, identity_v)
                 SELECT (SELECT last + 1 FROM id_high_water WHERE name = 'books'),
                         ?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15, ?16, ?17, 1
                 WHERE ?18 IS NULL
                 RETURNING {COLUMNS}"
            ),
        };
        tx.query_row(&sql, values, from_row).map_err(|e| BookError::Store(store.sql_error(e)))
    })
}

/// Records a catalog entry only if it is not known yet; a known book is returned unchanged.
pub fn remember_if_new(
    store: &Store,
    server_id: i64,
    entry: &CatalogBook,
) -> Result<Book, BookError> {
    let identity = book_identity::canonical_id(&entry.catalog_id);
    let key = match_key_of(entry);
    let known = store
        .read(|c| {
            let Some(id) = known_in(c, server_id, &identity, key.as_deref())? else {
                return Ok(None);
            };
            c.query_row(
                &format!("SELECT {COLUMNS} FROM books WHERE id = ?1"),
                [id],
                from_row,
            )
            .optional()
        })
        .map_err(|e| BookError::Store(store.sql_error(e)))?;
    match known {
        Some(book) => Ok(book),
        None => remember(store, server_id, entry),
    }
}

fn match_key_of(entry: &CatalogBook) -> Option<String> {
    book_identity::match_key(
        entry.stream_template.as_deref(),
        entry.file_url.as_deref(),
        entry.page_list.first().map(String::as_str),
    )
}

/// The book of `server_id` with this canonical id, else with this match key.
fn known_in(
    c: &rusqlite::Connection,
    server_id: i64,
    identity: &str,
    key: Option<&str>,
) -> rusqlite::Result<Option<i64>> {
    let by_id = c
        .query_row(
            "SELECT id FROM books WHERE server_id = ?1 AND catalog_id = ?2",
            params![server_id, identity],
            |r| r.get(0),
        )
        .optional()?;
    if by_id.is_some() {
        return Ok(by_id);
    }
    let Some(key) = key else { return Ok(None) };
    c.query_row(
        "SELECT id FROM books WHERE server_id = ?1 AND match_key = ?2 ORDER BY id LIMIT 1",
        params![server_id, key],
        |r| r.get(0),
    )
    .optional()
}

pub fn get(store: &Store, id: i64) -> Result<Book, BookError> {
    let sql = format!("SELECT {COLUMNS} FROM books WHERE id = ?1");
    rows::optional(store, &sql, [id], from_row)?.ok_or(BookError::NotFound(id))
}

/// Notes that the reader opened the book at `page` now.
pub fn mark_opened(store: &Store, id: i64, page: Option<i64>) -> Result<(), BookError> {
    store.write(|tx| mark_opened_in(store, tx, id, page).map(|_| ()))
}

/// [`mark_opened`] inside a write transaction the caller holds; returns the time it noted.
pub fn mark_opened_in(
    store: &Store,
    tx: &rusqlite::Transaction<'_>,
    id: i64,
    page: Option<i64>,
) -> Result<i64, BookError> {
    let now = store.now_ms();
    update_in(
        store,
        tx,
        id,
        "UPDATE books SET last_opened_ms = ?2, last_page = coalesce(?3, last_page) WHERE id = ?1",
        params![id, now, page],
    )?;
    Ok(now)
}

/// Runs `sql`, an update of the book `id`, inside `tx`; `NotFound` when no book has that id.
fn update_in(
    store: &Store,
    tx: &rusqlite::Transaction<'_>,
    id: i64,
    sql: &str,
    params: impl rusqlite::Params,
) -> Result<(), BookError> {
    let n = tx
        .execute(sql, params)
        .map_err(|e| BookError::Store(store.sql_error(e)))?;
    if n == 0 {
        return Err(BookError::NotFound(id));
    }
    Ok(())
}

/// Records how many pages a book has, when only its file says (a comic archive).
pub fn set_page_count(store: &Store, id: i64, count: i64) -> Result<(), BookError> {
    store.write(|tx| {
        let sql = "UPDATE books SET page_count = ?2 WHERE id = ?1";
        update_in(store, tx, id, sql, params![id, count])
    })
}

pub fn set_pinned(store: &Store, id: i64, pinned: bool) -> Result<(), BookError> {
    store.write(|tx| {
        let sql = "UPDATE books SET pinned = ?2 WHERE id = ?1";
        update_in(store, tx, id, sql, params![id, pinned])
    })
}

/// Whether a book is pinned ("Keep offline"); `None` for a book not on the list. One column
/// read, not the whole row.
pub fn is_pinned(store: &Store, id: i64) -> Result<Option<bool>, StoreError> {
    carrel_foundation::rows::optional(store, "SELECT pinned FROM books WHERE id = ?1", [id], |r| {
        r.get(0)
    })
}

/// The `limit` most recently opened books, newest first.
pub fn recently_opened(store: &Store, limit: u32) -> Result<Vec<Book>, StoreError> {
    recently_opened_where(store, "last_opened_ms IS NOT NULL", limit)
}

/// The `limit` most recently opened books not read to their end (`finished_ms`, kept by
/// `reading::position_sync`), newest first: the books to continue reading.
pub fn recently_opened_unfinished(store: &Store, limit: u32) -> Result<Vec<Book>, StoreError> {
    recently_opened_where(
        store,
        "last_opened_ms IS NOT NULL AND finished_ms IS NULL",
        limit,
    )
}

/// The `limit` most recently opened books of those `condition` picks, newest first.
fn recently_opened_where(
    store: &Store,
    condition: &str,
    limit: u32,
) -> Result<Vec<Book>, StoreError> {
    let sql = format!(
        "SELECT {COLUMNS} FROM books WHERE {condition} ORDER BY last_opened_ms DESC LIMIT ?1"
    );
    rows::all(store, &sql, [limit], from_row)
}

/// Every book id on this device's list.
pub fn all_ids(store: &Store) -> Result<Vec<i64>, StoreError> {
    rows::all(store, "SELECT id FROM books", [], |r| r.get(0))
}

impl carrel_foundation::error::Failure for BookError {
    fn kind(&self) -> carrel_foundation::error::ErrorKind {
        match self {
            BookError::NotFound(_) => carrel_foundation::error::ErrorKind::NotFound,
            BookError::Store(_) => carrel_foundation::error::ErrorKind::Storage,
        }
    }
}
