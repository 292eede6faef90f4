//! Bookmarks and highlights the reader makes in EPUB and PDF books, each with an optional note:
//! the `annotations` table, its limits, and the order a book's annotations are shown in (their
//! place in the book, then when they were made).
//!
//! Annotations are kept by the book's identity as [`carrel_library::book_identity`] defines it,
//! not by its local id or its file: its server, its canonical catalog id and its match key. A
//! book removed from the device and downloaded again keeps them; so does the same book reached
//! under another id (another view of the catalog, or copies merged into one), since a book sees
//! every annotation made under its canonical id or its match key on its server. They go when
//! their server is removed.
//!
//! Owns the `annotations` table; every write goes through the store's one writer, and every
//! time comes from the store's clock. Exporting them is [`crate::annotation_export`]'s.

use std::cmp::Ordering;

use rusqlite::{params, OptionalExtension};
use serde::{Deserialize, Serialize};

use carrel_foundation::error::{ErrorKind, Failure};
use carrel_foundation::store::{Store, StoreError};
use carrel_library::book_identity;

use crate::epub_positions;

/// The longest note kept, in characters.
pub const MAX_NOTE_CHARS: usize = 10_000;
/// The longest quoted text kept, in characters.
pub const MAX_QUOTE_CHARS: usize = 4_000;
/// The longest locator kept (a CFI, or a PDF place written as JSON), in characters.
pub const MAX_LOCATOR_CHARS: usize = 2_000;

/// A bookmark marks a place; a highlight marks a passage, in a colour.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, ts_rs::TS)]
#[serde(rename_all = "snake_case")]
pub enum AnnotationKind {
    Bookmark,
    Highlight,
}

impl AnnotationKind {
    pub fn as_str(self) -> &'static str {
        match self {
            AnnotationKind::Bookmark => "bookmark",
            AnnotationKind::Highlight => "highlight",
        }
    }

    fn parse(s: &str) -> AnnotationKind {
        match s {
            "highlight" => AnnotationKind::Highlight,
            _ => AnnotationKind::Bookmark,
        }
    }
}

/// A highlight's colour.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, ts_rs::TS)]
#[ts(rename = "HighlightColour")]
#[serde(rename_all = "snake_case")]
pub enum Colour {
    Yellow,
    Green,
    Blue,
    Pink,
}

impl Colour {
    pub fn as_str(self) -> &'static str {
        match self {
            Colour::Yellow => "yellow",
            Colour::Green => "green",
            Colour::Blue => "blue",
            Colour::Pink => "pink",
        }
    }

    fn parse(s: &str) -> Option<Colour> {
        match s {
            "yellow" => Some(Colour::Yellow),
            "green" => Some(Colour::Green),
            "blue" => Some(Colour::Blue),
            "pink" => Some(Colour::Pink),
            _ => None,
        }
    }
}

/// Where an annotation is in its book.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ts_rs::TS)]
#[ts(rename = "AnnotationLocator")]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum Locator {
    /// In an EPUB: an EPUB CFI, a point (bookmark) or a range (highlight).
    Epub { cfi: String },
    /// In a PDF: the page (0-based index) and, for a highlight, the text and where it is drawn.
    Pdf {
        page: u32,
        /// The highlighted text with a little context, to find it again if the drawing changes.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        #[ts(optional)]
        quote: Option<TextQuote>,
        /// The highlight's rectangles on the page (none for a bookmark).
        #[serde(default)]
        rects: Vec<PageRect>,
    },
}

/// A passage as text: the exact text, and a few characters before and after it (as the W3C
/// annotation model's `TextQuoteSelector`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ts_rs::TS)]
pub struct TextQuote {
    pub exact: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub prefix: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub suffix: Option<String>,
}

/// A rectangle on a PDF page, in fractions of the page's width and height from its top left
/// corner (0 to 1), so it does not depend on the zoom.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize, ts_rs::TS)]
pub struct PageRect {
    pub x: f64,
    pub y: f64,
    pub width: f64,
    pub height: f64,
}

impl Locator {
    /// How the locator is kept: the CFI itself, or the PDF place as JSON.
    fn to_stored(&self) -> String {
        match self {
            Locator::Epub { cfi } => cfi.clone(),
            Locator::Pdf { .. } => serde_json::to_string(self).expect("a PDF locator serialises"),
        }
    }

    fn from_stored(text: &str) -> Locator {
        if text.starts_with("epubcfi(") {
            return Locator::Epub {
                cfi: text.to_owned(),
            };
        }
        serde_json::from_str(text).unwrap_or(Locator::Pdf {
            page: 0,
            quote: None,
            rects: Vec::new(),
        })
    }

    /// Where in the book it is, for ordering: EPUB places by their CFI's steps and offsets, PDF
    /// places by page, then top to bottom and left to right (a page's bookmark first).
    pub fn position(&self) -> Vec<u64> {
        match self {
            Locator::Epub { cfi } => {
                let mut key = vec![0];
                key.extend(cfi_steps(cfi));
                key
            }
            Locator::Pdf { page, rects, .. } => {
                let first = rects.iter().min_by(|a, b| {
                    (a.y, a.x)
                        .partial_cmp(&(b.y, b.x))
                        .unwrap_or(Ordering::Equal)
                });
                let fraction = |v: f64| (v.clamp(0.0, 1.0) * 1_000_000.0) as u64 + 1;
                match first {
                    Some(r) => vec![1, u64::from(*page), fraction(r.y), fraction(r.x)],
                    None => vec![1, u64::from(*page), 0, 0],
                }
            }
        }
    }
}

/// The numbers of an EPUB CFI in order — its steps and its character offset — where a range
/// counts from its start: `epubcfi(/6/4!/4/2,/1:3,/1:9)` is `[6, 4, 4, 2, 1, 3]`. Assertions in
/// brackets are skipped.
fn cfi_steps(cfi: &str) -> Vec<u64> {
    let body = cfi
        .strip_prefix("epubcfi(")
        .and_then(|c| c.strip_suffix(')'))
        .unwrap_or(cfi);
    // A range is `parent,start,end`: where it starts is the parent then the start.
    let mut parts = body.split(',');
    let parent = parts.next().unwrap_or("");
    let start = parts.next().unwrap_or("");
    let mut numbers = Vec::new();
    for part in [parent, start] {
        let mut depth = 0usize;
        let mut current: Option<u64> = None;
        for c in part.chars() {
            match c {
                '[' => {
                    depth += 1;
                    numbers.extend(current.take());
                }
                ']' => depth = depth.saturating_sub(1),
                _ if depth > 0 => {}
                '0'..='9' => {
                    let digit = u64::from(c as u8 - b'0');
                    current = Some(
                        current
                            .unwrap_or(0)
                            .saturating_mul(10)
                            .saturating_add(digit),
                    );
                }
                _ => numbers.extend(current.take()),
            }
        }
        numbers.extend(current.take());
    }
    numbers
}

/// A bookmark or highlight as the windows show it.
#[derive(Debug, Clone, PartialEq, Serialize, ts_rs::TS)]
#[serde(rename_all = "camelCase")]
pub struct Annotation {
    pub id: i64,
    pub kind: AnnotationKind,
    pub locator: Locator,
    /// The chapter's label in the book's table of contents, when it names one.
    pub chapter: Option<String>,
    /// The highlighted text.
    pub quote: Option<String>,
    pub note: Option<String>,
    /// A highlight's colour (`null` for a bookmark).
    pub colour: Option<Colour>,
    pub created_ms: i64,
    pub updated_ms: i64,
}

/// A new bookmark or highlight, as a reader window sends it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ts_rs::TS)]
#[serde(rename_all = "camelCase")]
#[ts(optional_fields = nullable)]
pub struct NewAnnotation {
    pub kind: AnnotationKind,
    pub locator: Locator,
    // Each `Option` may be absent: serde reads a missing one as `None`.
    pub chapter: Option<String>,
    pub quote: Option<String>,
    pub note: Option<String>,
    /// Required for a highlight, refused for a bookmark.
    pub colour: Option<Colour>,
}

/// A change to an annotation: its note is replaced by `note` (absent, `null` or blank: no note
/// any more); its colour becomes `colour` when one is given (a highlight's only).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, ts_rs::TS)]
#[serde(rename_all = "camelCase", default)]
#[ts(optional_fields = nullable)]
pub struct AnnotationUpdate {
    pub note: Option<String>,
    pub colour: Option<Colour>,
}

#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum AnnotationError {
    #[error("no book with id {0} on this device")]
    UnknownBook(i64),
    #[error("no bookmark or highlight with id {0}")]
    NotFound(i64),
    #[error("the note is too long: {chars} characters, at most {MAX_NOTE_CHARS}")]
    NoteTooLong { chars: usize },
    #[error("the highlighted text is too long: {chars} characters, at most {MAX_QUOTE_CHARS}")]
    QuoteTooLong { chars: usize },
    #[error("the place in the book is too long: {chars} characters, at most {MAX_LOCATOR_CHARS}")]
    LocatorTooLong { chars: usize },
    #[error("not a place in a book: {0}")]
    InvalidLocator(&'static str),
    #[error("a highlight needs a colour")]
    ColourMissing,
    #[error("a bookmark has no colour")]
    BookmarkColour,
    #[error(transparent)]
    Store(#[from] StoreError),
}

impl Failure for AnnotationError {
    fn kind(&self) -> ErrorKind {
        match self {
            AnnotationError::UnknownBook(_) | AnnotationError::NotFound(_) => ErrorKind::NotFound,
            AnnotationError::Store(_) => ErrorKind::Storage,
            _ => ErrorKind::InvalidInput,
        }
    }
}

/// A book's identity, as its annotations are kept under.
struct BookKey {
    server_id: i64,
    book_key: String,
    match_key: Option<String>,
}

fn book_key(
    store: &Store,
    c: &rusqlite::Connection,
    book_id: i64,
) -> Result<BookKey, AnnotationError> {
    c.query_row(
        "SELECT server_id, catalog_id, match_key FROM books WHERE id = ?1",
        [book_id],
        |r| {
            Ok(BookKey {
                server_id: r.get(0)?,
                // Rows not yet checked by the identity rules may hold a raw id.
                book_key: book_identity::canonical_id(&r.get::<_, String>(1)?),
                match_key: r.get(2)?,
            })
        },
    )
    .optional()
    .map_err(|e| AnnotationError::Store(store.sql_error(e)))?
    .ok_or(AnnotationError::UnknownBook(book_id))
}

/// A note or chapter as kept: `None` when blank; line ends made `\n`.
fn text_or_none(raw: Option<&str>) -> Option<String> {
    let raw = raw?;
    (!raw.trim().is_empty()).then(|| raw.replace("\r\n", "\n").replace('\r', "\n"))
}

fn check_note(note: Option<&str>) -> Result<(), AnnotationError> {
    let chars = note.map_or(0, |n| n.chars().count());
    if chars > MAX_NOTE_CHARS {
        return Err(AnnotationError::NoteTooLong { chars });
    }
    Ok(())
}

/// Checks a locator as a window sends it, and returns it as kept.
fn check_locator(locator: &Locator) -> Result<String, AnnotationError> {
    match locator {
        Locator::Epub { cfi } => {
            let chars = cfi.chars().count();
            if chars > MAX_LOCATOR_CHARS {
                return Err(AnnotationError::LocatorTooLong { chars });
            }
            if !epub_positions::valid_cfi(cfi) {
                return Err(AnnotationError::InvalidLocator(
                    "an EPUB place is an epubcfi(…)",
                ));
            }
        }
        Locator::Pdf { rects, .. } => {
            let fits = |v: f64| v.is_finite() && (-0.01..=1.01).contains(&v);
            if rects.iter().any(|r| {
                !(fits(r.x) && fits(r.y) && fits(r.width) && fits(r.height))
                    || r.width < 0.0
                    || r.height < 0.0
            }) {
                return Err(AnnotationError::InvalidLocator(
                    "a PDF highlight's rectangles are fractions of the page",
                ));
            }
        }
    }
    let stored = locator.to_stored();
    let chars = stored.chars().count();
    if chars > MAX_LOCATOR_CHARS {
        return Err(AnnotationError::LocatorTooLong { chars });
    }
    Ok(stored)
}

const COLUMNS: &str = "id, kind, locator, chapter, quote, note, colour, created_ms, updated_ms";

fn from_row(r: &rusqlite::Row<'_>) -> rusqlite::Result<Annotation> {
    Ok(Annotation {
        id: r.get(0)?,
        kind: AnnotationKind::parse(&r.get::<_, String>(1)?),
        locator: Locator::from_stored(&r.get::<_, String>(2)?),
        chapter: r.get(3)?,
        quote: r.get(4)?,
        note: r.get(5)?,
        colour: r
            .get::<_, Option<String>>(6)?
            .as_deref()
            .and_then(Colour::parse),
        created_ms: r.get(7)?,
        updated_ms: r.get(8)?,
    })
}

/// Adds a bookmark or highlight to a book, at the store's time.
pub fn add(
    store: &Store,
    book_id: i64,
    new: &NewAnnotation,
) -> Result<Annotation, AnnotationError> {
    let locator = check_locator(&new.locator)?;
    let note = text_or_none(new.note.as_deref());
    check_note(note.as_deref())?;
    let quote = text_or_none(new.quote.as_deref());
    if let Some(chars) = quote.as_deref().map(|q| q.chars().count()) {
        if chars > MAX_QUOTE_CHARS {
            return Err(AnnotationError::QuoteTooLong { chars });
        }
    }
    let chapter = epub_positions::chapter_title(new.chapter.as_deref());
    match (new.kind, new.colour) {
        (AnnotationKind::Highlight, None) => return Err(AnnotationError::ColourMissing),
        (AnnotationKind::Bookmark, Some(_)) => return Err(AnnotationError::BookmarkColour),
        _ => {}
    }
    let now = store.now_ms();
    store.write(|tx| {
        let key = book_key(store, tx, book_id)?;
        tx.query_row(
            &format!(
                "INSERT INTO annotations (server_id, book_key, match_key, kind, locator, chapter, quote, note,
                                          colour, created_ms, updated_ms)
                 VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?10)
                 RETURNING {COLUMNS}"
            ),
            params![
                key.server_id,
                key.book_key,
                key.match_key,
                new.kind.as_str(),
                locator,
                chapter,
                quote,
                note,
                new.colour.map(Colour::as_str),
                now,
            ],
            from_row,
        )
        .map_err(|e| AnnotationError::Store(store.sql_error(e)))
    })
}

/// Changes an annotation's note and, for a highlight, its colour (see [`AnnotationUpdate`]).
pub fn update(
    store: &Store,
    id: i64,
    change: &AnnotationUpdate,
) -> Result<Annotation, AnnotationError> {
    let note = text_or_none(change.note.as_deref());
    check_note(note.as_deref())?;
    let now = store.now_ms();
    store.write(|tx| {
        let kind: Option<String> = tx
            .query_row("SELECT kind FROM annotations WHERE id = ?1", [id], |r| {
                r.get(0)
            })
            .optional()
            .map_err(|e| AnnotationError::Store(store.sql_error(e)))?;
        let kind = AnnotationKind::parse(&kind.ok_or(AnnotationError::NotFound(id))?);
        if kind == AnnotationKind::Bookmark && change.colour.is_some() {
            return Err(AnnotationError::BookmarkColour);
        }
        tx.query_row(
            &format!(
                "UPDATE annotations SET note = ?2, colour = coalesce(?3, colour), updated_ms = ?4
                 WHERE id = ?1 RETURNING {COLUMNS}"
            ),
            params![id, note, change.colour.map(Colour::as_str), now],
            from_row,
        )
        .map_err(|e| AnnotationError::Store(store.sql_error(e)))
    })
}

/// Deletes an annotation.
pub fn delete(store: &Store, id: i64) -> Result<(), AnnotationError> {
    let n = store.write(|tx| {
        tx.execute("DELETE FROM annotations WHERE id = ?1", [id])
            .map_err(|e| AnnotationError::Store(store.sql_error(e)))
    })?;
    if n == 0 {
        return Err(AnnotationError::NotFound(id));
    }
    Ok(())
}

/// A book's bookmarks and highlights, in the order of the book (see [`Locator::position`]),
/// then oldest first.
pub fn list_for_book(store: &Store, book_id: i64) -> Result<Vec<Annotation>, AnnotationError> {
    let mut found = store.read(|c| {
        let key = book_key(store, c, book_id)?;
        let mut stmt = c
            .prepare_cached(&format!(
                "SELECT {COLUMNS} FROM annotations
                 WHERE server_id = ?1 AND (book_key = ?2 OR (?3 IS NOT NULL AND match_key = ?3))"
            ))
            .map_err(|e| AnnotationError::Store(store.sql_error(e)))?;
        let rows = stmt
            .query_map(
                params![key.server_id, key.book_key, key.match_key],
                from_row,
            )
            .and_then(|rows| rows.collect::<rusqlite::Result<Vec<_>>>())
            .map_err(|e| AnnotationError::Store(store.sql_error(e)))?;
        Ok::<_, AnnotationError>(rows)
    })?;
    sort_in_book_order(&mut found);
    Ok(found)
}

/// Sorts annotations by their place in the book, then oldest first.
pub fn sort_in_book_order(annotations: &mut [Annotation]) {
    annotations.sort_by_cached_key(|a| (a.locator.position(), a.created_ms, a.id));
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use carrel_foundation::clock::ManualClock;
    use carrel_foundation::data_dir::DataDir;
    use carrel_library::books::{self, BookFormat, CatalogBook};
    use carrel_library::servers::{self, NewServer};

    use super::*;

    fn open(dir: &tempfile::TempDir, clock: &ManualClock) -> Store {
        Store::open(&DataDir::new(dir.path()), Arc::new(clock.clone())).unwrap()
    }

    /// A store in a folder of its own, its clock at 1 000 ms, and one server in it.
    fn library() -> (tempfile::TempDir, ManualClock, Store, i64) {
        let dir = tempfile::tempdir().unwrap();
        let clock = ManualClock::new(1_000);
        let store = open(&dir, &clock);
        let server = server(&store);
        (dir, clock, store, server)
    }

    /// Middlemarch, as the server lists it.
    fn middlemarch(store: &Store, server: i64) -> books::Book {
        books::remember(store, server, &entry("urn:mm", "http://h/mm.epub")).unwrap()
    }

    fn server(store: &Store) -> i64 {
        servers::add(
            store,
            &NewServer {
                name: "Home".into(),
                url: "http://127.0.0.1:9/opds".into(),
                ..Default::default()
            },
        )
        .unwrap()
        .id
    }

    fn entry(catalog_id: &str, file_url: &str) -> CatalogBook {
        CatalogBook {
            catalog_id: catalog_id.into(),
            title: "Middlemarch".into(),
            authors: vec!["George Eliot".into()],
            format: BookFormat::Epub,
            stream_template: None,
            page_count: None,
            page_base: 0,
            page_list: Vec::new(),
            file_url: Some(file_url.into()),
            file_type: Some("application/epub+zip".into()),
            file_length: None,
            cover_url: None,
            progression_url: None,
            read_progress_url: None,
        }
    }

    fn highlight(cfi: &str, note: Option<&str>) -> NewAnnotation {
        NewAnnotation {
            kind: AnnotationKind::Highlight,
            locator: Locator::Epub { cfi: cfi.into() },
            chapter: Some("Prelude".into()),
            quote: Some("Who that cares much to know the history of man".into()),
            note: note.map(str::to_owned),
            colour: Some(Colour::Yellow),
        }
    }

    fn bookmark(cfi: &str) -> NewAnnotation {
        NewAnnotation {
            kind: AnnotationKind::Bookmark,
            locator: Locator::Epub { cfi: cfi.into() },
            chapter: None,
            quote: None,
            note: None,
            colour: None,
        }
    }

    #[test]
    fn a_new_annotation_and_a_change_may_leave_their_optional_fields_out() {
        let new: NewAnnotation = serde_json::from_value(serde_json::json!({
            "kind": "bookmark", "locator": { "type": "epub", "cfi": "epubcfi(/6/4!/4)" }
        }))
        .unwrap();
        assert_eq!(
            (new.chapter, new.quote, new.note, new.colour),
            (None, None, None, None)
        );
        let update: AnnotationUpdate = serde_json::from_value(serde_json::json!({})).unwrap();
        assert_eq!(update, AnnotationUpdate::default());
    }

    #[test]
    fn added_updated_and_deleted_with_the_stores_clock() {
        let (_dir, clock, store, server) = library();
        let book = middlemarch(&store, server);

        let new = highlight("epubcfi(/6/4!/4/2,/1:0,/1:12)", Some("  \n"));
        let a = add(&store, book.id, &new).unwrap();
        assert_eq!((a.created_ms, a.updated_ms), (1_000, 1_000));
        assert_eq!(a.note, None, "a blank note is no note");
        assert_eq!(a.colour, Some(Colour::Yellow));
        assert_eq!(a.chapter.as_deref(), Some("Prelude"));

        clock.advance_ms(500);
        let changed = update(
            &store,
            a.id,
            &AnnotationUpdate {
                note: Some("Saint Theresa\r\nand Dorothea".into()),
                colour: Some(Colour::Pink),
            },
        )
        .unwrap();
        assert_eq!(changed.note.as_deref(), Some("Saint Theresa\nand Dorothea"));
        assert_eq!(changed.colour, Some(Colour::Pink));
        assert_eq!((changed.created_ms, changed.updated_ms), (1_000, 1_500));
        // No colour given: it stays; the note is replaced (here, removed).
        let kept = update(&store, a.id, &AnnotationUpdate::default()).unwrap();
        assert_eq!((&kept.note, kept.colour), (&None, Some(Colour::Pink)));
        assert_eq!(list_for_book(&store, book.id).unwrap(), vec![kept]);

        delete(&store, a.id).unwrap();
        assert!(list_for_book(&store, book.id).unwrap().is_empty());
        assert!(matches!(
            delete(&store, a.id),
            Err(AnnotationError::NotFound(_))
        ));
        assert!(matches!(
            update(&store, a.id, &AnnotationUpdate::default()),
            Err(AnnotationError::NotFound(_))
        ));
        assert!(matches!(
            list_for_book(&store, 999),
            Err(AnnotationError::UnknownBook(999))
        ));
        assert!(matches!(
            add(&store, 999, &bookmark("epubcfi(/6/2!/4)")),
            Err(AnnotationError::UnknownBook(999))
        ));
    }

    #[test]
    fn limits_and_colours_are_refused_with_clear_errors() {
        let (_dir, _clock, store, server) = library();
        let book = middlemarch(&store, server);
        let cfi = "epubcfi(/6/4!/4/2/1:0)";

        let long_note = "é".repeat(MAX_NOTE_CHARS + 1);
        let e = add(&store, book.id, &highlight(cfi, Some(&long_note))).unwrap_err();
        assert!(matches!(e, AnnotationError::NoteTooLong { chars } if chars == MAX_NOTE_CHARS + 1));
        assert_eq!(e.kind(), ErrorKind::InvalidInput);
        assert!(e.to_string().contains("10000"), "{e}");
        // Exactly at the limit, in characters (not bytes): kept.
        let at_limit = "é".repeat(MAX_NOTE_CHARS);
        add(&store, book.id, &highlight(cfi, Some(&at_limit))).unwrap();

        let mut quoted = highlight(cfi, None);
        quoted.quote = Some("q".repeat(MAX_QUOTE_CHARS + 1));
        assert!(matches!(
            add(&store, book.id, &quoted),
            Err(AnnotationError::QuoteTooLong { .. })
        ));
        let long_cfi = format!("epubcfi({})", "/2".repeat(MAX_LOCATOR_CHARS));
        let e = add(&store, book.id, &bookmark(&long_cfi)).unwrap_err();
        assert!(matches!(e, AnnotationError::LocatorTooLong { .. }), "{e}");
        let pdf_long = NewAnnotation {
            kind: AnnotationKind::Highlight,
            locator: Locator::Pdf {
                page: 1,
                quote: Some(TextQuote {
                    exact: "x".repeat(MAX_LOCATOR_CHARS),
                    prefix: None,
                    suffix: None,
                }),
                rects: Vec::new(),
            },
            chapter: None,
            quote: None,
            note: None,
            colour: Some(Colour::Blue),
        };
        assert!(matches!(
            add(&store, book.id, &pdf_long),
            Err(AnnotationError::LocatorTooLong { .. })
        ));
        assert!(matches!(
            add(&store, book.id, &bookmark("/6/4!/4")),
            Err(AnnotationError::InvalidLocator(_))
        ));

        let mut uncoloured = highlight(cfi, None);
        uncoloured.colour = None;
        assert!(matches!(
            add(&store, book.id, &uncoloured),
            Err(AnnotationError::ColourMissing)
        ));
        let mut coloured = bookmark(cfi);
        coloured.colour = Some(Colour::Green);
        assert!(matches!(
            add(&store, book.id, &coloured),
            Err(AnnotationError::BookmarkColour)
        ));
        let mark = add(&store, book.id, &bookmark(cfi)).unwrap();
        let e = update(
            &store,
            mark.id,
            &AnnotationUpdate {
                note: None,
                colour: Some(Colour::Green),
            },
        )
        .unwrap_err();
        assert!(matches!(e, AnnotationError::BookmarkColour));
        let e = update(
            &store,
            mark.id,
            &AnnotationUpdate {
                note: Some(long_note),
                colour: None,
            },
        )
        .unwrap_err();
        assert!(matches!(e, AnnotationError::NoteTooLong { .. }));
        assert_eq!(AnnotationError::NotFound(1).kind(), ErrorKind::NotFound);
        assert_eq!(AnnotationError::UnknownBook(1).kind(), ErrorKind::NotFound);
    }

    #[test]
    fn a_books_annotations_come_in_the_books_order_then_oldest_first() {
        let (_dir, clock, store, server) = library();
        let book = middlemarch(&store, server);
        let places = [
            "epubcfi(/6/10!/4/2/1:0)",
            "epubcfi(/6/4!/4/10/1:5)",
            "epubcfi(/6/4!/4/2,/1:30,/1:40)",
            "epubcfi(/6/4!/4/2/1:3)",
            "epubcfi(/6/4[chap01]!/4[body01]/2/1:3)",
        ];
        let mut ids = Vec::new();
        for cfi in places {
            clock.advance_ms(10);
            ids.push(add(&store, book.id, &bookmark(cfi)).unwrap().id);
        }
        let order: Vec<i64> = list_for_book(&store, book.id)
            .unwrap()
            .iter()
            .map(|a| a.id)
            .collect();
        // /4/2/1:3 twice (the older first), then /4/2 from 30, then /4/10, then spine item 10.
        assert_eq!(order, vec![ids[3], ids[4], ids[2], ids[1], ids[0]]);

        let pdf = |page: u32, y: Option<f64>| NewAnnotation {
            kind: if y.is_some() {
                AnnotationKind::Highlight
            } else {
                AnnotationKind::Bookmark
            },
            locator: Locator::Pdf {
                page,
                quote: None,
                rects: y
                    .map(|y| PageRect {
                        x: 0.1,
                        y,
                        width: 0.5,
                        height: 0.02,
                    })
                    .into_iter()
                    .collect(),
            },
            chapter: None,
            quote: None,
            note: None,
            colour: y.map(|_| Colour::Green),
        };
        let other = books::remember(&store, server, &entry("urn:pdf", "http://h/x.pdf")).unwrap();
        let low = add(&store, other.id, &pdf(3, Some(0.8))).unwrap();
        let high = add(&store, other.id, &pdf(3, Some(0.1))).unwrap();
        let mark = add(&store, other.id, &pdf(3, None)).unwrap();
        let first = add(&store, other.id, &pdf(0, Some(0.9))).unwrap();
        let listed = list_for_book(&store, other.id).unwrap();
        assert_eq!(listed, vec![first, mark, high, low.clone()]);
        assert!(matches!(&low.locator, Locator::Pdf { page: 3, rects, .. } if rects.len() == 1));
    }

    #[test]
    fn annotations_survive_the_book_removed_and_downloaded_again() {
        let (_dir, _clock, store, server) = library();
        let book = middlemarch(&store, server);
        let new = highlight("epubcfi(/6/4!/4/2/1:0)", Some("Dorothea"));
        let made = add(&store, book.id, &new).unwrap();
        carrel_engine::book_downloads::store_book(&store, book.id).unwrap();

        carrel_engine::book_downloads::remove_book(&store, book.id).unwrap();
        assert_eq!(list_for_book(&store, book.id).unwrap(), vec![made.clone()]);
        carrel_engine::book_downloads::store_book(&store, book.id).unwrap();
        assert_eq!(list_for_book(&store, book.id).unwrap(), vec![made.clone()]);

        // Even a book forgotten altogether and found again in the catalog under a new local id,
        // through another view of it, has them back.
        store
            .execute("DELETE FROM books WHERE id = ?1", [book.id])
            .unwrap();
        let again = books::remember(
            &store,
            server,
            &entry("urn:mm", "http://h/mm.epub?sort=title"),
        )
        .unwrap();
        assert_ne!(again.id, book.id);
        assert_eq!(list_for_book(&store, again.id).unwrap(), vec![made]);
    }

    #[test]
    fn two_ids_of_one_book_see_the_same_annotations() {
        let (_dir, clock, store, server) = library();
        // Rows for one book, as remembered before the identity rules (then merged): one id
        // reached through two views, another id with the same file, and the first id with
        // another file (one book with the others only through the first).
        let insert = |id: i64, catalog_id: &str, file: &str, opened: Option<i64>| {
            store
                .execute(
                    "INSERT INTO books (id, server_id, catalog_id, title, format, file_url, created_at_ms,
                                        match_key, last_opened_ms)
                     VALUES (?1, ?2, ?3, 'Middlemarch', 'epub', ?4, 0, ?5, ?6)",
                    params![
                        id,
                        server,
                        catalog_id,
                        file,
                        book_identity::match_key(None, Some(file), None),
                        opened
                    ],
                )
                .unwrap();
        };
        insert(10, "/opds/books/5?orderBy=date", "http://h/dl/5", None);
        insert(
            11,
            "/opds/books/5?orderBy=title",
            "http://h/dl/5?sort=title",
            None,
        );
        insert(12, "/opds/other/5", "http://h/dl/5", None);
        insert(13, "/opds/books/6", "http://h/dl/6", None);
        // The one read last: the copy kept by the merge.
        insert(14, "/opds/books/5?q=eliot", "http://h/dl/5b", Some(9_000));

        let new = highlight("epubcfi(/6/4!/4/2/1:0)", Some("one"));
        let a = add(&store, 10, &new).unwrap();
        clock.advance_ms(1);
        let b = add(&store, 12, &bookmark("epubcfi(/6/8!/4/2/1:0)")).unwrap();
        for id in [10, 11, 12] {
            assert_eq!(
                list_for_book(&store, id).unwrap(),
                vec![a.clone(), b.clone()],
                "book {id}"
            );
        }
        assert_eq!(list_for_book(&store, 14).unwrap(), vec![a.clone()]);
        assert!(list_for_book(&store, 13).unwrap().is_empty());

        // Merged into one copy: the one kept sees every annotation of the others.
        assert_eq!(book_identity::merge_duplicates(&store).unwrap(), 3);
        let kept: Vec<i64> = store
            .read(|c| {
                c.prepare("SELECT id FROM books WHERE id IN (10, 11, 12, 14)")?
                    .query_map([], |r| r.get(0))?
                    .collect::<rusqlite::Result<Vec<i64>>>()
            })
            .unwrap();
        assert_eq!(kept, vec![14]);
        assert_eq!(list_for_book(&store, 14).unwrap(), vec![a, b]);
        assert!(list_for_book(&store, 13).unwrap().is_empty());
    }

    #[test]
    fn annotations_go_with_their_server() {
        let (_dir, _clock, store, server) = library();
        let book = middlemarch(&store, server);
        add(&store, book.id, &bookmark("epubcfi(/6/4!/4/2/1:0)")).unwrap();
        servers::remove(&store, server).unwrap();
        let left: i64 = store
            .read(|c| c.query_row("SELECT count(*) FROM annotations", [], |r| r.get(0)))
            .unwrap();
        assert_eq!(left, 0);
    }

    #[test]
    fn cfi_numbers_skip_assertions_and_start_ranges_at_their_start() {
        assert_eq!(
            cfi_steps("epubcfi(/6/4!/4/2,/1:3,/1:9)"),
            vec![6, 4, 4, 2, 1, 3]
        );
        assert_eq!(
            cfi_steps("epubcfi(/6/4[ch1]!/4[b]/2/1:3[yes,no])"),
            vec![6, 4, 4, 2, 1, 3]
        );
        assert_eq!(cfi_steps("epubcfi(/6/14!)"), vec![6, 14]);
    }
}
