//! Whole book files for the EPUB and PDF readers' windows, by book id: the stored file when its
//! file task is done, else the file queued prioritary and waited for (bounded), so opening a
//! book shows it as soon as the server has sent it. Also the stored file of any whole-file book
//! for opening it with another app — only a book type's file whose bytes do not run, under its
//! type's extension ([`carrel_foundation::file_types`]); and a PDF's page count once its reader
//! has counted it (kept on the book, so its positions are pages of a known count, saved and
//! synced like a comic's).
//!
//! Only books whose reader ([`crate::book_reader`]) is the EPUB or the PDF reader are answered,
//! and only with the type their bytes prove (`%PDF-` for a PDF, a ZIP for an EPUB), never the
//! server's word. The file is found by book id in the book's folder, never from a path given
//! by a caller. Speaks through [`carrel_library::books`], [`carrel_engine::book_downloads`],
//! [`carrel_engine::download_stack`] and [`carrel_foundation::part_files`].

use std::path::{Path, PathBuf};

use crate::book_reader::{self, BookReader};
use crate::served_page::{PageError, WaitPolicy};
use carrel_engine::book_downloads::{self, DownloadRequestError};
use carrel_engine::download_stack::{self, TaskKind, TaskState};
use carrel_foundation::file_types;
use carrel_foundation::part_files::PartFiles;
use carrel_foundation::store::{Store, StoreError};
use carrel_library::books::{self, Book};

/// The type an EPUB is answered with.
pub const EPUB_TYPE: &str = "application/epub+zip";
/// The type a PDF is answered with.
pub const PDF_TYPE: &str = "application/pdf";

/// The largest file handed to a window: its reader holds the whole file in memory.
pub const MAX_BOOK_BYTES: u64 = 512 << 20;

/// The most pages a PDF's count may say (more is not a count a reader measured).
pub const MAX_PDF_PAGES: i64 = 100_000;

/// A stored book file ready to hand to the reader.
#[derive(Debug, Clone)]
pub struct BookFile {
    pub bytes: Vec<u8>,
    pub content_type: &'static str,
}

/// Why a book file cannot be answered. `NotPaged` is reused as "not a book this window reads";
/// the other variants mean what they mean for pages (unknown book, offline-not-downloaded,
/// failed, too large).
pub type BookFileError = PageError;

/// A book downloaded as one file (not streamed page by page).
fn whole_file_book(store: &Store, book_id: i64) -> Result<Book, BookFileError> {
    let book = books::get(store, book_id)?;
    if book.streams_pages() || book.file_url.is_none() {
        return Err(PageError::NotPaged(book_id));
    }
    Ok(book)
}

/// A whole-file book that the EPUB or the PDF reader shows, and which of them.
fn readable_book(store: &Store, book_id: i64) -> Result<BookReader, BookFileError> {
    let book = whole_file_book(store, book_id)?;
    match book_reader::reader_for(&book) {
        reader @ (BookReader::Epub | BookReader::Pdf) => Ok(reader),
        BookReader::Comic | BookReader::Other => Err(PageError::NotPaged(book_id)),
    }
}

/// The bytes as the reader gets them, once they prove to be what the reader reads: a server
/// that sends a web page or an error under a book's name gets a clear error, not a reader
/// fed the wrong thing.
fn answer(bytes: Vec<u8>, reader: BookReader) -> Result<BookFile, BookFileError> {
    let (content_type, proven) = match reader {
        // A PDF may have a little junk before its header; readers look in the first 1 KiB.
        BookReader::Pdf => (
            PDF_TYPE,
            bytes[..bytes.len().min(1024)]
                .windows(5)
                .any(|w| w == b"%PDF-"),
        ),
        _ => (EPUB_TYPE, bytes.starts_with(b"PK\x03\x04")),
    };
    if !proven {
        let what = if reader == BookReader::Pdf {
            "a PDF"
        } else {
            "an EPUB"
        };
        return Err(PageError::Failed(format!("the stored file is not {what}")));
    }
    Ok(BookFile {
        bytes,
        content_type,
    })
}

fn file_task(
    store: &Store,
    book_id: i64,
) -> Result<Option<(TaskState, Option<String>)>, StoreError> {
    Ok(download_stack::tasks_of_book(store, book_id)?
        .into_iter()
        .find(|t| t.kind == TaskKind::File)
        .map(|t| (t.state, t.failure)))
}

/// The stored EPUB or PDF if its file task is done and the file is on the device (no download).
pub fn stored_book(store: &Store, book_id: i64) -> Result<Option<BookFile>, BookFileError> {
    let reader = readable_book(store, book_id)?;
    match stored_path(store, book_id)? {
        Some(path) => read(&path)?.map(|bytes| answer(bytes, reader)).transpose(),
        None => Ok(None),
    }
}

fn stored_path(store: &Store, book_id: i64) -> Result<Option<PathBuf>, BookFileError> {
    if !matches!(file_task(store, book_id)?, Some((TaskState::Done, _))) {
        return Ok(None);
    }
    Ok(PartFiles::new(store.data_dir().books())
        .find_book_file(book_id)
        .filter(|p| p.is_file()))
}

/// The file's bytes; `None` when it was removed meanwhile (the book left the device).
fn read(path: &Path) -> Result<Option<Vec<u8>>, BookFileError> {
    // Sized before it is read: never a whole oversized file in memory.
    if let Ok(meta) = std::fs::metadata(path) {
        if meta.len() > MAX_BOOK_BYTES {
            return Err(PageError::TooLarge {
                bytes: meta.len(),
                limit: MAX_BOOK_BYTES,
            });
        }
    }
    match std::fs::read(path) {
        Ok(bytes) => Ok(Some(bytes)),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(None),
        Err(e) => Err(PageError::Io(e.to_string())),
    }
}

/// The stored file's path: from the device, else the file queued prioritary and waited for at
/// most `wait.timeout` (then [`PageError::OfflineNotDownloaded`]).
async fn wait_for_file(
    store: &Store,
    book_id: i64,
    wait: WaitPolicy,
) -> Result<PathBuf, BookFileError> {
    // Watched before the first look: the file stored after it wakes the wait.
    let mut changes = store.changes();
    if let Some(path) = stored_path(store, book_id)? {
        return Ok(path);
    }
    // Being downloaded already (the reader opened the book a moment ago): not asked again.
    if !matches!(file_task(store, book_id)?, Some((TaskState::Active, _))) {
        match book_downloads::open_book(store, book_id, None) {
            Ok(_) => {}
            Err(DownloadRequestError::Book(e)) => return Err(e.into()),
            Err(DownloadRequestError::Store(e)) => return Err(e.into()),
            // A book imported from this computer whose file is gone: said as it is.
            Err(e @ DownloadRequestError::LocalFileMissing(_)) => {
                return Err(PageError::Io(e.to_string()))
            }
            Err(_) => return Err(PageError::NotPaged(book_id)),
        }
    }
    // Each look: the file, else whether its download failed.
    wait.until_file(store, &mut changes, move |s| {
        if let Some(path) = stored_path(s, book_id)? {
            return Ok(Some(Ok(path)));
        }
        match file_task(s, book_id)? {
            Some((TaskState::Failed, reason)) => {
                Ok(Some(Err(reason.unwrap_or_else(|| "failed".into()))))
            }
            _ => Ok(None),
        }
    })
    .await
}

/// The EPUB or PDF: from the device, else its file queued prioritary and waited for at most
/// `wait.timeout` (then [`PageError::OfflineNotDownloaded`]).
pub async fn book(
    store: &Store,
    book_id: i64,
    wait: WaitPolicy,
) -> Result<BookFile, BookFileError> {
    let reader = readable_book(store, book_id)?;
    loop {
        let path = wait_for_file(store, book_id, wait).await?;
        // Removed between finding and reading it: looked for (and fetched) again.
        if let Some(bytes) = read(&path)? {
            return answer(bytes, reader);
        }
    }
}

/// The stored file of any whole-file book (whatever reader it has, or none), fetched first
/// when it is not on the device — for handing it to another app. Never a path from a caller.
///
/// Only a file that [`file_types::vet_for_another_app`] lets go is answered (a book type the
/// server declared, bytes that do not run), and under that type's extension: a file stored
/// under another name (`book.bin`, by an older version) is renamed first, so the system's
/// opener goes by the name and never guesses from the content.
pub async fn book_path(
    store: &Store,
    book_id: i64,
    wait: WaitPolicy,
) -> Result<PathBuf, BookFileError> {
    let book = whole_file_book(store, book_id)?;
    let path = wait_for_file(store, book_id, wait).await?;
    let file_type = book.file_type.clone();
    let url = book.file_url.clone().unwrap_or_default();
    tokio::task::spawn_blocking(move || named_for_another_app(&path, file_type.as_deref(), &url))
        .await
        .map_err(|e| PageError::Io(e.to_string()))?
}

/// The stored file under the extension it may be handed over with, or why it may not be.
fn named_for_another_app(
    path: &Path,
    file_type: Option<&str>,
    url: &str,
) -> Result<PathBuf, BookFileError> {
    let ext = file_types::vet_for_another_app(file_type, url, path)?;
    if path.extension().and_then(|e| e.to_str()) == Some(ext) {
        return Ok(path.to_path_buf());
    }
    let named = path.with_extension(ext);
    std::fs::rename(path, &named).map_err(|e| PageError::Io(e.to_string()))?;
    Ok(named)
}

/// Records how many pages a whole-file PDF has, as its reader counted them, so its positions
/// are pages of a known count (saved and synced like a comic's). A book whose pages the server
/// streams keeps the server's count.
pub fn record_pdf_pages(store: &Store, book_id: i64, pages: i64) -> Result<(), BookFileError> {
    if !(1..=MAX_PDF_PAGES).contains(&pages) {
        return Err(PageError::OutOfRange {
            page: pages,
            count: MAX_PDF_PAGES,
        });
    }
    if readable_book(store, book_id)? != BookReader::Pdf {
        return Err(PageError::NotPaged(book_id));
    }
    books::set_page_count(store, book_id, pages)?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_file_stored_under_a_neutral_name_is_handed_over_under_its_types_extension() {
        let dir = tempfile::tempdir().unwrap();
        let stored = dir.path().join("book.bin");
        let mut mobi = vec![0u8; 78];
        mobi[60..68].copy_from_slice(b"BOOKMOBI");
        std::fs::write(&stored, &mobi).unwrap();
        let named = named_for_another_app(
            &stored,
            Some("application/x-mobipocket-ebook"),
            "http://127.0.0.1:9/b/1/file",
        )
        .unwrap();
        assert_eq!(named, dir.path().join("book.mobi"));
        assert_eq!(std::fs::read(&named).unwrap(), mobi);
        assert!(!stored.exists());
        // Already so named: left as it is.
        assert_eq!(
            named_for_another_app(&named, Some("application/x-mobipocket-ebook"), "").unwrap(),
            named
        );
    }

    #[test]
    fn a_launcher_under_a_book_type_is_refused_and_left_unnamed() {
        let dir = tempfile::tempdir().unwrap();
        let stored = dir.path().join("book.bin");
        std::fs::write(&stored, "[Desktop Entry]\nType=Application\nExec=sh -c x\n").unwrap();
        let err =
            named_for_another_app(&stored, Some("application/x-mobipocket-ebook"), "").unwrap_err();
        assert!(matches!(err, PageError::Refused(_)), "{err:?}");
        assert!(stored.exists());
        assert!(!dir.path().join("book.mobi").exists());
    }
}
