//! Books as the reader's windows show them: a book's details (what its catalog entry said, where
//! it stands on this device, whether it was read), the books on this device, and the books to
//! continue reading (opened and not read to their end).
//!
//! Owns the `book_meta` table — the descriptive fields of a catalog entry (authors as a list,
//! series, summary) that downloading does not need. Reads everything else through
//! [`carrel_library::books`], [`carrel_engine::book_downloads`] and [`carrel_library::servers`].

use std::collections::HashMap;

use rusqlite::params;
use serde::Serialize;

use crate::cover_cache;
use carrel_engine::book_downloads::{self, BookStatus};
use carrel_foundation::store::{Store, StoreError};
use carrel_library::books::{self, Book, BookFormat};
use carrel_library::servers;

/// How many books "continue reading" lists when the caller does not say.
pub const DEFAULT_CONTINUE_READING: u32 = 12;
/// The most it lists.
pub const MAX_CONTINUE_READING: u32 = 100;

/// What a catalog entry says about a book beyond what downloading it needs.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct BookMeta {
    pub authors: Vec<String>,
    pub series: Option<String>,
    pub series_index: Option<f64>,
    pub summary: Option<String>,
}

/// Records what the catalog entry said about a book (replacing what it said before). An entry
/// that names no series leaves be a series its series feed gave ([`remember_feed_series`]).
pub fn remember_meta(store: &Store, book_id: i64, meta: &BookMeta) -> Result<(), StoreError> {
    let authors = serde_json::to_string(&meta.authors).expect("a list of names serialises");
    store.execute(
        "INSERT INTO book_meta (book_id, authors, series, series_index, summary) VALUES (?1, ?2, ?3, ?4, ?5)
         ON CONFLICT (book_id) DO UPDATE SET authors = excluded.authors, summary = excluded.summary,
             series = CASE WHEN excluded.series IS NULL AND book_meta.series_source = 'feed'
                           THEN book_meta.series ELSE excluded.series END,
             series_index = CASE WHEN excluded.series IS NULL AND book_meta.series_source = 'feed'
                           THEN book_meta.series_index ELSE excluded.series_index END,
             series_order = CASE WHEN excluded.series IS NULL AND book_meta.series_source = 'feed'
                           THEN book_meta.series_order ELSE NULL END,
             series_source = CASE WHEN excluded.series IS NULL AND book_meta.series_source = 'feed'
                           THEN 'feed' ELSE 'entry' END",
        params![book_id, authors, meta.series, meta.series_index, meta.summary],
    )?;
    Ok(())
}

/// Records that a series feed lists the book (see `series_feeds`): the series, and its place
/// in the feed when the feed is in series order (`None` keeps the place known before, if the
/// series is the same). A series the book's own entry names stands.
pub fn remember_feed_series(
    store: &Store,
    book_id: i64,
    series: &str,
    order: Option<f64>,
) -> Result<(), StoreError> {
    store.execute(
        "INSERT INTO book_meta (book_id, authors, series, series_source, series_order)
         VALUES (?1, '[]', ?2, 'feed', ?3)
         ON CONFLICT (book_id) DO UPDATE SET series = excluded.series, series_index = NULL,
             series_source = 'feed',
             series_order = CASE WHEN excluded.series_order IS NULL AND book_meta.series IS excluded.series
                                 THEN book_meta.series_order ELSE excluded.series_order END
         WHERE book_meta.series IS NULL OR book_meta.series_source = 'feed'",
        params![book_id, series, order],
    )?;
    Ok(())
}

/// A `book_meta` row: authors (JSON), series, series index, summary.
type MetaRow = (String, Option<String>, Option<f64>, Option<String>);

/// What the catalog said about a book; for a book never seen in a feed (or seen before this
/// was kept), the authors the book list has and nothing more.
pub fn meta(store: &Store, book: &Book) -> Result<BookMeta, StoreError> {
    let row: Option<MetaRow> = carrel_foundation::rows::optional(
        store,
        "SELECT authors, series, series_index, summary FROM book_meta WHERE book_id = ?1",
        [book.id],
        |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?)),
    )?;
    Ok(match row {
        Some((authors, series, series_index, summary)) => BookMeta {
            authors: serde_json::from_str(&authors)
                .unwrap_or_else(|_| split_authors(&book.authors)),
            series,
            series_index,
            summary,
        },
        None => BookMeta {
            authors: split_authors(&book.authors),
            ..BookMeta::default()
        },
    })
}

/// The names in `books.authors` (joined with `, `), blanks left out.
pub(crate) fn split_authors(joined: &str) -> Vec<String> {
    joined
        .split(", ")
        .map(str::trim)
        .filter(|a| !a.is_empty())
        .map(str::to_owned)
        .collect()
}

/// One book as the details pane shows it.
#[derive(Debug, Clone, PartialEq, Serialize, ts_rs::TS)]
pub struct BookDetails {
    pub book_id: i64,
    pub server_id: i64,
    pub server_name: String,
    pub title: String,
    pub authors: Vec<String>,
    pub series: Option<String>,
    pub series_index: Option<f64>,
    pub summary: Option<String>,
    pub format: BookFormat,
    pub page_count: Option<i64>,
    pub file_type: Option<String>,
    pub file_length: Option<i64>,
    pub pinned: bool,
    /// The page the reader was last on, 0-based. Meaningless for a reflowable book (an EPUB):
    /// see [`BookDetails::text_place`].
    pub last_page: Option<i64>,
    /// How far the reader is in a book read as reflowable text (an EPUB): the fraction read and
    /// the chapter, where a page number means nothing. `None` for comics and PDFs, or an EPUB
    /// never read.
    pub text_place: Option<TextPlace>,
    pub last_opened_ms: Option<i64>,
    /// Read to its end (here or marked read; see [`carrel_reading::position_sync::mark_read`]).
    pub read: bool,
    pub has_cover: bool,
    pub status: BookStatus,
    /// A comic downloaded as one archive file (CBZ, CBR, CB7, CBT): the reader asks its pages
    /// from the archive, whose page count is known once the file is on the device.
    pub archive_comic: bool,
    /// The reader the book opens in (see [`carrel_reading::book_reader`]).
    pub reader: carrel_reading::book_reader::BookReader,
}

/// Where the reader is in a reflowable book.
#[derive(Debug, Clone, PartialEq, Serialize, ts_rs::TS)]
pub struct TextPlace {
    /// 0…1.
    pub fraction: f64,
    /// The chapter's title, when the book's table of contents names it.
    pub chapter: Option<String>,
}

fn details_of(
    store: &Store,
    book: Book,
    server_name: String,
) -> Result<BookDetails, carrel_library::error::Error> {
    let meta = meta(store, &book)?;
    let status = book_downloads::status(store, &book)?;
    let read = carrel_reading::position_sync::is_finished(store, book.id)?.unwrap_or(false);
    let archive_comic = carrel_reading::archive_pages::is_archive_comic(&book);
    let reader = carrel_reading::book_reader::reader_for(&book);
    let text_place = match reader {
        carrel_reading::book_reader::BookReader::Epub => {
            carrel_reading::epub_positions::position(store, book.id)?.map(|p| TextPlace {
                fraction: p.fraction,
                chapter: p.chapter,
            })
        }
        _ => None,
    };
    Ok(BookDetails {
        text_place,
        archive_comic,
        reader,
        book_id: book.id,
        server_id: book.server_id,
        server_name,
        has_cover: cover_cache::has_cover(store, &book),
        title: book.title,
        authors: meta.authors,
        series: meta.series,
        series_index: meta.series_index,
        summary: meta.summary,
        format: book.format,
        page_count: book.page_count,
        file_type: book.file_type,
        file_length: book.file_length,
        pinned: book.pinned,
        last_page: book.last_page,
        last_opened_ms: book.last_opened_ms,
        read,
        status,
    })
}

/// The details of one book.
pub fn details(store: &Store, book_id: i64) -> Result<BookDetails, carrel_library::error::Error> {
    let book = books::get(store, book_id)?;
    let server = servers::get(store, book.server_id)?;
    details_of(store, book, server.name)
}

/// The books most recently opened and not read to their end (newest first), at most `limit`
/// (default [`DEFAULT_CONTINUE_READING`], at most [`MAX_CONTINUE_READING`]).
pub fn continue_reading(
    store: &Store,
    limit: Option<u32>,
) -> Result<Vec<BookDetails>, carrel_library::error::Error> {
    let limit = limit
        .unwrap_or(DEFAULT_CONTINUE_READING)
        .min(MAX_CONTINUE_READING);
    let mut names: HashMap<i64, String> = HashMap::new();
    let mut out = Vec::new();
    for book in books::recently_opened_unfinished(store, limit)? {
        let name = match names.get(&book.server_id) {
            Some(n) => n.clone(),
            None => {
                let n = servers::get(store, book.server_id)?.name;
                names.insert(book.server_id, n.clone());
                n
            }
        };
        out.push(details_of(store, book, name)?);
    }
    Ok(out)
}

/// The books on this device: pinned ones (kept offline, even while still downloading) and
/// every book with at least one part stored, most recently touched first.
pub fn on_device(store: &Store) -> Result<Vec<BookStatus>, carrel_library::error::Error> {
    let mut out = Vec::new();
    for book in book_downloads::books_with_downloads(store)? {
        let status = book_downloads::status(store, &book)?;
        if book.pinned || status.progress.stored_parts > 0 {
            out.push(status);
        }
    }
    Ok(out)
}

/// Whether the device holds any book: one opened, or one with a part stored or on its way (a
/// reader's own file is a stored book). Never a listing: one lookup in the index of books
/// opened, and a look at the downloads that stops at the first one not failed (the failed
/// ones are few: retried or dropped), so the start does not grow with the library.
pub fn has_books_on_device(store: &Store) -> Result<bool, carrel_library::error::Error> {
    Ok(carrel_foundation::rows::value(
        store,
        "SELECT EXISTS (SELECT 1 FROM books WHERE last_opened_ms IS NOT NULL)
                     OR EXISTS (SELECT 1 FROM tasks WHERE state <> 'failed')",
        [],
    )?)
}

#[cfg(test)]
mod tests {
    use super::*;
    use carrel_foundation::clock::ManualClock;
    use carrel_foundation::data_dir::DataDir;
    use carrel_library::books::CatalogBook;
    use std::sync::Arc;

    /// A data dir with one server, "Home".
    fn home() -> (tempfile::TempDir, Store, servers::Server) {
        let t = tempfile::tempdir().unwrap();
        let store = Store::open(&DataDir::new(t.path()), Arc::new(ManualClock::new(5))).unwrap();
        let server = carrel_library::test_support::silent_server(&store, "Home");
        (t, store, server)
    }

    /// `entry` remembered as a book of `server`.
    fn remembered(store: &Store, server: &servers::Server, entry: CatalogBook) -> Book {
        books::remember(store, server.id, &entry).unwrap()
    }

    /// An EPUB of 1234 bytes whose file is `file` on the "Home" server.
    fn epub_entry(catalog_id: &str, title: &str, file: &str) -> CatalogBook {
        CatalogBook {
            file_url: Some(format!("http://127.0.0.1:9/b/{file}")),
            file_type: Some("application/epub+zip".into()),
            file_length: Some(1234),
            ..CatalogBook::bare(catalog_id, title, BookFormat::Epub)
        }
    }

    #[test]
    fn details_carry_the_catalogs_words_and_the_books_state() {
        let (_t, store, server) = home();
        let book = remembered(
            &store,
            &server,
            CatalogBook {
                authors: vec!["Doe, Jane".into(), "Roe".into()],
                cover_url: Some("http://127.0.0.1:9/c/1".into()),
                ..epub_entry("urn:1", "Salt & Cinder #2", "1")
            },
        );
        let before = details(&store, book.id).unwrap();
        assert_eq!(
            before.authors,
            ["Doe", "Jane", "Roe"],
            "without kept metadata the joined list is split"
        );
        remember_meta(
            &store,
            book.id,
            &BookMeta {
                authors: vec!["Doe, Jane".into(), "Roe".into()],
                series: Some("Salt & Cinder".into()),
                series_index: Some(2.0),
                summary: Some("A story.".into()),
            },
        )
        .unwrap();
        let d = details(&store, book.id).unwrap();
        assert_eq!(d.authors, ["Doe, Jane", "Roe"]);
        assert_eq!(d.series.as_deref(), Some("Salt & Cinder"));
        assert_eq!(d.server_name, "Home");
        assert!(d.has_cover);
        assert_eq!(d.status.state, book_downloads::BookState::Remote);
        assert!(on_device(&store).unwrap().is_empty());
        book_downloads::store_book(&store, book.id).unwrap();
        let listed = on_device(&store).unwrap();
        assert_eq!(listed.len(), 1);
        assert_eq!(listed[0].state, book_downloads::BookState::Queued);
        assert!(continue_reading(&store, None).unwrap().is_empty());
        book_downloads::open_book(&store, book.id, None).unwrap();
        assert_eq!(
            continue_reading(&store, Some(5)).unwrap()[0].book_id,
            book.id
        );
        assert!(matches!(
            details(&store, 999),
            Err(carrel_library::error::Error::Book(
                books::BookError::NotFound(999)
            ))
        ));
    }

    #[test]
    fn a_book_is_on_the_device_once_stored_on_its_way_or_opened_not_when_only_browsed() {
        let (_t, store, server) = home();
        assert!(!has_books_on_device(&store).unwrap());
        let book = remembered(
            &store,
            &server,
            CatalogBook {
                file_url: Some("http://127.0.0.1:9/b/1.cbz".into()),
                ..CatalogBook::bare("urn:1", "Browsed", BookFormat::Comic)
            },
        );
        assert!(
            !has_books_on_device(&store).unwrap(),
            "a book only seen in a catalog"
        );
        book_downloads::store_book(&store, book.id).unwrap();
        assert!(has_books_on_device(&store).unwrap(), "on its way");
        let set_tasks = |state: &str| {
            store
                .execute("UPDATE tasks SET state = ?1", [state])
                .unwrap()
        };
        set_tasks("done");
        assert!(has_books_on_device(&store).unwrap(), "stored");
        set_tasks("failed");
        assert!(
            !has_books_on_device(&store).unwrap(),
            "a download that failed keeps nothing"
        );
        book_downloads::remove_book(&store, book.id).unwrap();
        assert!(!has_books_on_device(&store).unwrap(), "removed");
        book_downloads::open_book(&store, book.id, None).unwrap();
        assert!(has_books_on_device(&store).unwrap(), "opened");
    }

    #[test]
    fn an_epub_read_says_how_far_in_percent_and_chapter_not_as_a_page() {
        let (_t, store, server) = home();
        let entry = epub_entry("urn:quick-start", "Quick Start Guide", "qs.epub");
        let book = remembered(&store, &server, entry);
        book_downloads::open_book(&store, book.id, None).unwrap();
        assert_eq!(continue_reading(&store, None).unwrap()[0].text_place, None);
        carrel_reading::position_sync::record_epub(
            &store,
            book.id,
            "epubcfi(/6/12!/4/2/1:0)",
            0.96,
            Some("  Chapter\n 4 "),
        )
        .unwrap();
        let read = &continue_reading(&store, None).unwrap()[0];
        assert_eq!(
            read.text_place,
            Some(TextPlace {
                fraction: 0.96,
                chapter: Some("Chapter 4".into())
            })
        );
        assert_eq!(
            details(&store, book.id).unwrap().text_place,
            read.text_place
        );
    }

    #[test]
    fn an_entrys_series_stands_over_a_feeds_and_a_silent_entry_keeps_the_feeds() {
        let (_t, store, server) = home();
        let series = |id: i64| -> (Option<String>, Option<f64>, Option<f64>) {
            store
                .read(|c| {
                    c.query_row(
                        "SELECT series, series_index, series_order FROM book_meta WHERE book_id = ?1",
                        [id],
                        |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)),
                    )
                })
                .unwrap()
        };
        let book = |n: u32| {
            let title = format!("Book {n}");
            let entry = CatalogBook {
                file_url: Some(format!("http://127.0.0.1:9/b/{n}")),
                ..CatalogBook::bare(&format!("urn:{n}"), &title, BookFormat::Comic)
            };
            remembered(&store, &server, entry).id
        };
        let (silent, named) = (book(1), book(2));
        let plain = BookMeta::default();
        remember_meta(&store, silent, &plain).unwrap();
        remember_feed_series(&store, silent, "Saga", Some(3.0)).unwrap();
        assert_eq!(series(silent), (Some("Saga".into()), None, Some(3.0)));
        // Seen again where the entry names nothing, and in the series feed sorted otherwise.
        remember_meta(&store, silent, &plain).unwrap();
        remember_feed_series(&store, silent, "Saga", None).unwrap();
        assert_eq!(series(silent), (Some("Saga".into()), None, Some(3.0)));
        // The entry names a series after all: it stands, and the feed's place goes.
        let told = BookMeta {
            series: Some("Saga Deluxe".into()),
            series_index: Some(1.0),
            ..BookMeta::default()
        };
        remember_meta(&store, silent, &told).unwrap();
        remember_feed_series(&store, silent, "Saga", Some(4.0)).unwrap();
        assert_eq!(
            series(silent),
            (Some("Saga Deluxe".into()), Some(1.0), None)
        );
        // A feed never replaces what an entry said.
        remember_meta(&store, named, &told).unwrap();
        remember_feed_series(&store, named, "Other", Some(0.0)).unwrap();
        assert_eq!(series(named), (Some("Saga Deluxe".into()), Some(1.0), None));
    }
}
