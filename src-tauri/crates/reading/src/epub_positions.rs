//! Where the EPUB reader left each book: an EPUB CFI, the fraction read and the chapter's title
//! when the book names it (the `epub_positions` table, one row per book, the newest save
//! winning), and what a CFI the reader sends must look like. Saving goes through [`crate::position_sync::record_epub`], which also queues the
//! position for the servers in the same transaction; this module only owns the table.

use rusqlite::params;
use serde::Serialize;

use carrel_foundation::store::{Store, StoreError};

/// Where the EPUB reader left a book.
#[derive(Debug, Clone, PartialEq, Serialize, ts_rs::TS)]
#[serde(rename_all = "camelCase")]
pub struct EpubPosition {
    pub cfi: String,
    pub fraction: f64,
    /// The chapter's title in the book's table of contents, when it names one (a position
    /// taken from a server or another device has none).
    pub chapter: Option<String>,
    pub updated_at_ms: i64,
}

#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum EpubPositionError {
    #[error("no book with id {0} on this device")]
    UnknownBook(i64),
    #[error("not a reading position: {0}")]
    Invalid(&'static str),
    #[error(transparent)]
    Store(#[from] StoreError),
}

impl carrel_foundation::error::Failure for EpubPositionError {
    fn kind(&self) -> carrel_foundation::error::ErrorKind {
        match self {
            EpubPositionError::UnknownBook(_) => carrel_foundation::error::ErrorKind::NotFound,
            EpubPositionError::Invalid(_) => carrel_foundation::error::ErrorKind::InvalidInput,
            EpubPositionError::Store(_) => carrel_foundation::error::ErrorKind::Storage,
        }
    }
}

/// The longest CFI kept (real ones are a few hundred characters at most).
pub const MAX_CFI_LEN: usize = 4096;

/// Checks a CFI as the reader sends it: `epubcfi(…)`, printable, bounded.
pub fn valid_cfi(cfi: &str) -> bool {
    cfi.len() <= MAX_CFI_LEN
        && cfi.starts_with("epubcfi(")
        && cfi.ends_with(')')
        && !cfi.chars().any(char::is_control)
}

/// The longest chapter title kept, in characters.
pub const MAX_CHAPTER_CHARS: usize = 200;

/// A chapter title as the reader sends it, made fit to show: whitespace runs folded to one
/// space, control characters dropped, bounded; `None` when nothing is left.
pub fn chapter_title(raw: Option<&str>) -> Option<String> {
    let folded = raw?
        .split(|c: char| c.is_whitespace() || c.is_control())
        .filter(|w| !w.is_empty())
        .collect::<Vec<_>>()
        .join(" ");
    let bounded: String = folded.chars().take(MAX_CHAPTER_CHARS).collect();
    (!bounded.is_empty()).then_some(bounded)
}

/// Checks a position as the reader sends it.
pub(crate) fn check(cfi: &str, fraction: f64) -> Result<(), EpubPositionError> {
    if !valid_cfi(cfi) {
        return Err(EpubPositionError::Invalid("cfi"));
    }
    if !fraction.is_finite() || !(0.0..=1.0).contains(&fraction) {
        return Err(EpubPositionError::Invalid("fraction"));
    }
    Ok(())
}

/// Keeps a book's position inside the caller's transaction (the newest save wins).
pub(crate) fn upsert_in(
    store: &Store,
    tx: &rusqlite::Transaction<'_>,
    book_id: i64,
    cfi: &str,
    fraction: f64,
    chapter: Option<&str>,
    at_ms: i64,
) -> Result<(), StoreError> {
    tx.execute(
        "INSERT INTO epub_positions (book_id, cfi, fraction, updated_at_ms, chapter) VALUES (?1, ?2, ?3, ?4, ?5)
         ON CONFLICT (book_id) DO UPDATE SET cfi = excluded.cfi, fraction = excluded.fraction,
             updated_at_ms = excluded.updated_at_ms, chapter = excluded.chapter",
        params![book_id, cfi, fraction, at_ms, chapter],
    )
    .map_err(|e| store.sql_error(e))?;
    Ok(())
}

/// Where the reader left an EPUB, if it was ever saved.
pub fn position(store: &Store, book_id: i64) -> Result<Option<EpubPosition>, StoreError> {
    carrel_foundation::rows::optional(
        store,
        "SELECT cfi, fraction, updated_at_ms, chapter FROM epub_positions WHERE book_id = ?1",
        [book_id],
        |r| {
            Ok(EpubPosition {
                cfi: r.get(0)?,
                fraction: r.get(1)?,
                updated_at_ms: r.get(2)?,
                chapter: r.get(3)?,
            })
        },
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_bounded_printable_epub_cfis_are_positions() {
        assert!(valid_cfi("epubcfi(/6/4!/4/2/1:0)"));
        assert!(valid_cfi("epubcfi(/6/8!/4/2,/1:0,/3:12)"));
        for bad in [
            "",
            "/6/4!/4",
            "epubcfi(/6/4",
            "epubcfi(/6\n/4)",
            "javascript:alert(1)",
        ] {
            assert!(!valid_cfi(bad), "{bad:?}");
        }
        let long = format!("epubcfi({})", "/2".repeat(MAX_CFI_LEN));
        assert!(!valid_cfi(&long));
    }

    #[test]
    fn a_chapter_title_is_kept_on_one_bounded_line() {
        assert_eq!(
            chapter_title(Some("  Chapter\n\t4:  The\u{7}End ")).as_deref(),
            Some("Chapter 4: The End")
        );
        assert_eq!(chapter_title(Some(" \n ")), None);
        assert_eq!(chapter_title(None), None);
        let long = "é".repeat(MAX_CHAPTER_CHARS + 10);
        assert_eq!(
            chapter_title(Some(&long)).unwrap().chars().count(),
            MAX_CHAPTER_CHARS
        );
    }
}
