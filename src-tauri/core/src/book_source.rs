//! Whole book files for the EPUB reader's window, by book id: the stored file when its file
//! task is done, else the file queued prioritary and waited for (bounded), so opening an EPUB
//! shows it as soon as the server has sent it. Also where the EPUB reader left each book: an
//! EPUB CFI and the fraction read (the `epub_positions` table).
//!
//! Only EPUBs are answered, always as `application/epub+zip`. The file is found by book id in
//! the book's folder (never from a path given by a caller). Speaks through [`crate::books`],
//! [`crate::book_downloads`], [`crate::download_stack`] and [`crate::part_files`].

use std::time::Instant;

use rusqlite::{params, OptionalExtension};
use serde::Serialize;

use crate::book_downloads::{self, DownloadRequestError};
use crate::books::{self, Book, BookFormat};
use crate::download_stack::{self, TaskKind, TaskState};
use crate::page_source::{PageError, WaitPolicy};
use crate::part_files::PartFiles;
use crate::store::{Store, StoreError};

/// The one type a book file is answered with.
pub const EPUB_TYPE: &str = "application/epub+zip";

/// The largest EPUB handed to a window: the reader holds the whole file in memory.
pub const MAX_EPUB_BYTES: u64 = 512 << 20;

/// A stored book file ready to hand to the reader.
#[derive(Debug, Clone)]
pub struct BookFile {
    pub bytes: Vec<u8>,
    pub content_type: &'static str,
}

/// Why a book file cannot be answered. `NotPaged` is reused as "not an EPUB"; the other
/// variants mean what they mean for pages (unknown book, offline-not-downloaded, failed).
pub type BookFileError = PageError;

fn check_epub(store: &Store, book_id: i64) -> Result<Book, BookFileError> {
    let book = books::get(store, book_id)?;
    let is_epub = book.format == BookFormat::Epub
        || book.file_type.as_deref().is_some_and(|t| t.eq_ignore_ascii_case(EPUB_TYPE));
    if !is_epub || book.streams_pages() || book.file_url.is_none() {
        return Err(PageError::NotPaged(book_id));
    }
    Ok(book)
}

fn file_task(store: &Store, book_id: i64) -> Result<Option<(TaskState, Option<String>)>, StoreError> {
    Ok(download_stack::tasks_of_book(store, book_id)?
        .into_iter()
        .find(|t| t.kind == TaskKind::File)
        .map(|t| (t.state, t.failure)))
}

/// The stored EPUB if its file task is done and the file is on the device (no download).
pub fn stored_book(store: &Store, book_id: i64) -> Result<Option<BookFile>, BookFileError> {
    check_epub(store, book_id)?;
    read_stored(store, book_id)
}

fn read_stored(store: &Store, book_id: i64) -> Result<Option<BookFile>, BookFileError> {
    if !matches!(file_task(store, book_id)?, Some((TaskState::Done, _))) {
        return Ok(None);
    }
    let Some(path) = PartFiles::new(store.data_dir().books()).find_book_file(book_id) else { return Ok(None) };
    // Sized before it is read: never a whole oversized file in memory.
    if let Ok(meta) = std::fs::metadata(&path) {
        if meta.len() > MAX_EPUB_BYTES {
            return Err(PageError::TooLarge {
                bytes: meta.len(),
                limit: MAX_EPUB_BYTES,
            });
        }
    }
    match std::fs::read(&path) {
        Ok(bytes) => Ok(Some(BookFile { bytes, content_type: EPUB_TYPE })),
        // Removed meanwhile (the book left the device): as if never stored.
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(None),
        Err(e) => Err(PageError::Io(e.to_string())),
    }
}

/// The EPUB: from the device, else its file queued prioritary and waited for at most
/// `wait.timeout` (then [`PageError::OfflineNotDownloaded`]).
pub async fn book(store: &Store, book_id: i64, wait: WaitPolicy) -> Result<BookFile, BookFileError> {
    check_epub(store, book_id)?;
    if let Some(file) = read_stored(store, book_id)? {
        return Ok(file);
    }
    match book_downloads::open_book(store, book_id, None) {
        Ok(_) => {}
        Err(DownloadRequestError::Book(e)) => return Err(e.into()),
        Err(DownloadRequestError::Store(e)) => return Err(e.into()),
        Err(_) => return Err(PageError::NotPaged(book_id)),
    }
    let deadline = Instant::now() + wait.timeout;
    loop {
        if let Some(file) = read_stored(store, book_id)? {
            return Ok(file);
        }
        if let Some((TaskState::Failed, reason)) = file_task(store, book_id)? {
            return Err(PageError::Failed(reason.unwrap_or_else(|| "failed".into())));
        }
        if Instant::now() >= deadline {
            return Err(PageError::OfflineNotDownloaded);
        }
        tokio::time::sleep(wait.poll).await;
    }
}

/// Where the EPUB reader left a book.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct EpubPosition {
    pub cfi: String,
    pub fraction: f64,
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

impl EpubPositionError {
    pub fn kind(&self) -> crate::ErrorKind {
        match self {
            EpubPositionError::UnknownBook(_) => crate::ErrorKind::NotFound,
            EpubPositionError::Invalid(_) => crate::ErrorKind::InvalidInput,
            EpubPositionError::Store(_) => crate::ErrorKind::Storage,
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

/// Saves where the reader is in an EPUB (the newest save wins), and queues it for the book's
/// progression document when it has one (see [`crate::position_sync`]).
pub fn save_position(store: &Store, book_id: i64, cfi: &str, fraction: f64) -> Result<EpubPosition, EpubPositionError> {
    if !valid_cfi(cfi) {
        return Err(EpubPositionError::Invalid("cfi"));
    }
    if !fraction.is_finite() || !(0.0..=1.0).contains(&fraction) {
        return Err(EpubPositionError::Invalid("fraction"));
    }
    let book = match books::get(store, book_id) {
        Ok(book) => book,
        Err(books::BookError::NotFound(id)) => return Err(EpubPositionError::UnknownBook(id)),
        Err(books::BookError::Store(e)) => return Err(e.into()),
    };
    let now = store.now_ms();
    store.write(|tx| {
        tx.execute(
            "INSERT INTO epub_positions (book_id, cfi, fraction, updated_at_ms) VALUES (?1, ?2, ?3, ?4)
             ON CONFLICT (book_id) DO UPDATE SET cfi = excluded.cfi, fraction = excluded.fraction,
                 updated_at_ms = excluded.updated_at_ms",
            params![book_id, cfi, fraction, now],
        )
        .map_err(|e| store.sql_error(e))?;
        // Sent to the server's progression document too (Komga's read progress takes pages only).
        if book.progression_url.is_some() {
            crate::position_sync::queue_in(store, tx, book_id, None, Some(fraction), Some(cfi), now)?;
        }
        Ok::<_, StoreError>(())
    })?;
    Ok(EpubPosition {
        cfi: cfi.to_string(),
        fraction,
        updated_at_ms: now,
    })
}

/// Where the reader left an EPUB, if it was ever saved.
pub fn position(store: &Store, book_id: i64) -> Result<Option<EpubPosition>, StoreError> {
    store
        .read(|c| {
            c.query_row(
                "SELECT cfi, fraction, updated_at_ms FROM epub_positions WHERE book_id = ?1",
                [book_id],
                |r| {
                    Ok(EpubPosition {
                        cfi: r.get(0)?,
                        fraction: r.get(1)?,
                        updated_at_ms: r.get(2)?,
                    })
                },
            )
            .optional()
        })
        .map_err(|e| store.sql_error(e))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_bounded_printable_epub_cfis_are_positions() {
        assert!(valid_cfi("epubcfi(/6/4!/4/2/1:0)"));
        assert!(valid_cfi("epubcfi(/6/8!/4/2,/1:0,/3:12)"));
        for bad in ["", "/6/4!/4", "epubcfi(/6/4", "epubcfi(/6\n/4)", "javascript:alert(1)"] {
            assert!(!valid_cfi(bad), "{bad:?}");
        }
        let long = format!("epubcfi({})", "/2".repeat(MAX_CFI_LEN));
        assert!(!valid_cfi(&long));
    }
}
