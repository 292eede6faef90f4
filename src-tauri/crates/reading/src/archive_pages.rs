//! Pages of comics a server offers only as one archive file (CBZ, CBR, CB7, CBT — calibre's
//! content server and Calibre-Web have no page streaming), for the reader's window by book id
//! and page index, exactly as page-streamed comics are served by [`crate::page_source`].
//!
//! The book's file is the stored one (its file task done), else it is queued prioritary and
//! waited for (bounded: [`PageError::OfflineNotDownloaded`] when it does not come in time, so
//! the window can show the download's progress and ask again). Pages are read from the archive
//! by [`crate::comic_archive`], never unpacked to disk. An opened archive's table of contents
//! is kept for the few books read last, so a page turn reads one entry and nothing more.
//! The page count found is recorded on the book, so "Page N of M", progress sent to the server
//! and the details agree.
//!
//! A zip comic (CBZ) is read before its file is stored: the file's tail (its directory), then
//! the byte ranges of the page asked for and the two after it, each a prioritary part of the
//! file in the download stack — the same executor and one request slot, the file's download
//! giving way to them and resuming after ([`crate::remote_zip`]). A server that does
//! not send parts of files, or a directory too large for the tail, falls back to waiting for
//! the whole file. `ComicInfo.xml` (reading direction) is one more part, read with the tail.
//!
//! Owns no table (writes the book's page count through [`carrel_library::books`]).

use std::collections::VecDeque;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};
use std::time::{Instant, SystemTime};

use serde::Serialize;

use crate::comic_archive::{ArchiveError, ComicArchive, ComicInfo};
use crate::remote_zip::{RemoteZip, TailError, TAIL_BYTES};
use crate::served_page::{PageError, PageImage, WaitPolicy};
use carrel_engine::book_downloads::{self, DownloadRequestError};
use carrel_engine::download_stack::{self, Task, TaskKind, TaskState};
use carrel_foundation::part_files::PartFiles;
use carrel_foundation::store::Store;
use carrel_library::books::{self, Book, BookFormat};

/// How many opened archives are kept (their tables of contents, not their pages).
const KEPT: usize = 4;

/// Media types of comic archives (and the extensions of their acquisition links).
const ARCHIVE_TYPES: &[&str] = &[
    "application/vnd.comicbook+zip",
    "application/x-cbz",
    "application/vnd.comicbook-rar",
    "application/x-cbr",
    "application/x-cb7",
    "application/x-7z-compressed",
    "application/x-cbt",
    "application/x-tar",
    "application/zip",
    "application/x-rar-compressed",
    "application/vnd.rar",
];
const ARCHIVE_EXTENSIONS: &[&str] = &["cbz", "cbr", "cb7", "cbt"];

/// A comic read from its archive, as the reader needs it to open.
#[derive(Debug, Clone, PartialEq, Serialize, ts_rs::TS)]
pub struct ArchiveComic {
    pub book_id: i64,
    pub page_count: usize,
    /// From `ComicInfo.xml`: the book reads right to left (manga).
    pub right_to_left: bool,
    pub info: ComicInfo,
}

/// The media type the catalog gave the book's file, without parameters, in lower case.
fn declared_type(book: &Book) -> Option<String> {
    let t = book.file_type.as_deref()?;
    Some(
        t.split(';')
            .next()
            .unwrap_or("")
            .trim()
            .to_ascii_lowercase(),
    )
}

/// The extension of the file's name in its address, in lower case.
fn declared_extension(book: &Book) -> Option<String> {
    let url = url::Url::parse(book.file_url.as_deref()?).ok()?;
    let name = url.path_segments()?.next_back()?.to_ascii_lowercase();
    name.rsplit_once('.').map(|(_, e)| e.to_owned())
}

/// Whether a book is a comic downloaded as one archive file (not page-streamed).
pub fn is_archive_comic(book: &Book) -> bool {
    if book.streams_pages() || book.file_url.is_none() {
        return false;
    }
    if let Some(t) = declared_type(book).filter(|t| ARCHIVE_TYPES.contains(&t.as_str())) {
        // A plain zip is a comic only where the catalog says so.
        return book.format == BookFormat::Comic || t != "application/zip";
    }
    declared_extension(book).is_some_and(|e| ARCHIVE_EXTENSIONS.contains(&e.as_str()))
}

fn check(store: &Store, book_id: i64) -> Result<Book, PageError> {
    let book = books::get(store, book_id)?;
    if !is_archive_comic(&book) {
        return Err(PageError::NotPaged(book_id));
    }
    Ok(book)
}

/// The stored archive's path, when its file task (among the book's `tasks`) is done.
fn stored_in(store: &Store, book_id: i64, tasks: &[Task]) -> Option<PathBuf> {
    tasks
        .iter()
        .any(|t| t.kind == TaskKind::File && t.state == TaskState::Done)
        .then(|| PartFiles::new(store.data_dir().books()).find_book_file(book_id))
        .flatten()
}

/// The stored archive's path, when its file task is done.
fn stored_file(store: &Store, book_id: i64) -> Result<Option<PathBuf>, PageError> {
    let tasks = download_stack::tasks_of_book(store, book_id)?;
    Ok(stored_in(store, book_id, &tasks))
}

/// The stored archive, else its file queued prioritary and waited for.
async fn archive_file(store: &Store, book_id: i64, wait: WaitPolicy) -> Result<PathBuf, PageError> {
    // Watched before the first look: the file stored after it wakes the wait.
    let mut changes = store.changes();
    let tasks = download_stack::tasks_of_book(store, book_id)?;
    if let Some(path) = stored_in(store, book_id, &tasks) {
        return Ok(path);
    }
    if !file_asked(&tasks) {
        queue_file(store, book_id)?;
    }
    // Each look: the file, else whether its download failed.
    wait.until_file(store, &mut changes, move |s| {
        let tasks = download_stack::tasks_of_book(s, book_id)?;
        if let Some(path) = stored_in(s, book_id, &tasks) {
            return Ok(Some(Ok(path)));
        }
        Ok(tasks
            .iter()
            .find(|t| t.kind == TaskKind::File && t.state == TaskState::Failed)
            .map(|t| Err(t.failure.clone().unwrap_or_else(|| "failed".into()))))
    })
    .await
}

/// Whether the book's file is being downloaded, or is the next download, already (the reader
/// opened the book a moment ago): queueing it again would change nothing, so it is not.
fn file_asked(tasks: &[Task]) -> bool {
    tasks
        .iter()
        .any(|t| t.kind == TaskKind::File && t.state == TaskState::Active)
}

/// The few values used last, by key, newest last.
struct Recent<K, V>(VecDeque<(K, V)>);

impl<K: PartialEq, V: Clone> Recent<K, V> {
    const fn new() -> Self {
        Recent(VecDeque::new())
    }

    /// The value kept under `key`, now the newest.
    fn get(&mut self, key: &K) -> Option<V> {
        let at = self.0.iter().position(|(k, _)| k == key)?;
        let entry = self.0.remove(at)?;
        let value = entry.1.clone();
        self.0.push_back(entry);
        Some(value)
    }

    /// Keeps `value` under `key` (replacing what was there), forgetting the oldest past [`KEPT`].
    fn put(&mut self, key: K, value: V) {
        self.0.retain(|(k, _)| *k != key);
        self.0.push_back((key, value));
        while self.0.len() > KEPT {
            self.0.pop_front();
        }
    }
}

/// Opened archives by path, with the file's length and time they were opened at (an entry is
/// good while those are the file's).
type Opened = (u64, Option<SystemTime>, Arc<ComicArchive>);
static KEPT_ARCHIVES: Mutex<Recent<PathBuf, Opened>> = Mutex::new(Recent::new());

fn archive_error(e: ArchiveError) -> PageError {
    match e {
        ArchiveError::NoSuchPage { page, count } => PageError::OutOfRange {
            page: page as i64,
            count: count as i64,
        },
        ArchiveError::Io(e) => PageError::Io(e),
        other => PageError::Failed(other.to_string()),
    }
}

/// Opens (or finds kept) the archive at `path`, off the async workers.
async fn opened(path: &Path) -> Result<Arc<ComicArchive>, PageError> {
    let meta = std::fs::metadata(path).map_err(|e| PageError::Io(e.to_string()))?;
    let (len, modified) = (meta.len(), meta.modified().ok());
    let kept = KEPT_ARCHIVES
        .lock()
        .unwrap_or_else(|p| p.into_inner())
        .get(&path.to_owned());
    if let Some((_, _, archive)) = kept.filter(|(l, m, _)| *l == len && *m == modified) {
        return Ok(archive);
    }
    let owned = path.to_owned();
    let archive = tokio::task::spawn_blocking(move || ComicArchive::open(&owned))
        .await
        .map_err(|e| PageError::Io(e.to_string()))?
        .map_err(archive_error)?;
    let archive = Arc::new(archive);
    KEPT_ARCHIVES
        .lock()
        .unwrap_or_else(|p| p.into_inner())
        .put(path.to_owned(), (len, modified, archive.clone()));
    Ok(archive)
}

/// Where the parts of a zip read before its file is stored are kept, by position: the tail,
/// then each page at its index.
const TAIL_POSITION: i64 = -1;
const COMIC_INFO_POSITION: i64 = -2;
const DIRECTORY_POSITION: i64 = -3;
/// Pages read ahead of the one asked for, while the file is not stored.
const PARTS_AHEAD: i64 = 2;

/// Zips read from their tails, by data dir and book id, for the few books read last.
static REMOTE_ZIPS: Mutex<Recent<(PathBuf, i64), Arc<RemoteZip>>> = Mutex::new(Recent::new());

/// Whether the catalog says the book's file is a zip (by media type or extension): only those
/// are read before the file is stored.
fn is_zip(book: &Book) -> bool {
    declared_type(book).is_some_and(|t| {
        matches!(
            t.as_str(),
            "application/vnd.comicbook+zip" | "application/x-cbz" | "application/zip"
        )
    }) || declared_extension(book).as_deref() == Some("cbz")
}

/// Pushes the parts (`position`, address) — the last on top — and waits for the first one:
/// its bytes, or `None` when the whole file is to be read instead (it was stored meanwhile, or
/// the server sends no parts of files).
async fn part(
    store: &Store,
    book: &Book,
    wanted: i64,
    parts: Vec<(i64, String)>,
    wait: WaitPolicy,
) -> Result<Option<Vec<u8>>, PageError> {
    let files = PartFiles::new(store.data_dir().books());
    let read = |path: PathBuf| std::fs::read(path).map_err(|e| PageError::Io(e.to_string()));
    // Watched before the first look: a part stored after it wakes the wait.
    let mut changes = store.changes();
    if let Some(path) = files.find_page(book.id, wanted) {
        return Ok(Some(read(path)?));
    }
    book_downloads::push_file_parts(store, book.id, &parts).map_err(|e| match e {
        DownloadRequestError::Book(e) => PageError::from(e),
        DownloadRequestError::Store(e) => PageError::from(e),
        other => PageError::Failed(other.to_string()),
    })?;
    let deadline = Instant::now() + wait.timeout;
    loop {
        if let Some(path) = files.find_page(book.id, wanted) {
            return Ok(Some(read(path)?));
        }
        let tasks = download_stack::tasks_of_book(store, book.id)?;
        if stored_in(store, book.id, &tasks).is_some() {
            return Ok(None);
        }
        let failed = tasks.iter().find(|t| {
            t.kind == TaskKind::Page && t.position == wanted && t.state == TaskState::Failed
        });
        if let Some(t) = failed {
            tracing::info!(book = book.id, cause = ?t.failure, "parts of the file cannot be read; waiting for the whole file");
            return Ok(None);
        }
        if Instant::now() >= deadline {
            return Err(PageError::OfflineNotDownloaded);
        }
        wait.until_change(&mut changes, deadline).await;
    }
}

/// [`part`] for one part alone: the bytes `url` gives, kept at `position`.
async fn one_part(
    store: &Store,
    book: &Book,
    position: i64,
    url: String,
    wait: WaitPolicy,
) -> Result<Option<Vec<u8>>, PageError> {
    part(store, book, position, vec![(position, url)], wait).await
}

/// The zip of a book not stored yet, read from its tail (fetched once, kept), or `None` when it
/// cannot be read that way.
async fn remote_zip(
    store: &Store,
    book: &Book,
    wait: WaitPolicy,
) -> Result<Option<Arc<RemoteZip>>, PageError> {
    let Some(file_url) = book.file_url.as_deref().filter(|_| is_zip(book)) else {
        return Ok(None);
    };
    let key = (store.data_dir().root().to_owned(), book.id);
    let kept = REMOTE_ZIPS
        .lock()
        .unwrap_or_else(|p| p.into_inner())
        .get(&key);
    if let Some(zip) = kept {
        return Ok(Some(zip));
    }
    let tail_url = book_downloads::part_of_file_url(file_url, TAIL_BYTES, None);
    let Some(tail) = one_part(store, book, TAIL_POSITION, tail_url, wait).await? else {
        return Ok(None);
    };
    let parsed = parse_tail(tail.clone()).await?;
    let parsed = match parsed {
        // A directory larger than the tail: its first bytes are one more part.
        Err(TailError::DirectoryBefore { start, tail_start }) => {
            let url = book_downloads::part_of_file_url(file_url, start, Some(tail_start));
            let Some(head) = one_part(store, book, DIRECTORY_POSITION, url, wait).await? else {
                return Ok(None);
            };
            parse_tail([head, tail].concat()).await?
        }
        other => other,
    };
    let zip = match parsed {
        // Its ComicInfo.xml too (reading direction), when it has one.
        Ok(zip) => match zip.comic_info_range() {
            Some((start, end)) => {
                let url = book_downloads::part_of_file_url(file_url, start, Some(end));
                let Some(info) = one_part(store, book, COMIC_INFO_POSITION, url, wait).await?
                else {
                    return Ok(None);
                };
                Arc::new(zip.with_info(&info))
            }
            None => Arc::new(zip),
        },
        Err(e) => {
            tracing::info!(book = book.id, cause = %e, "the zip cannot be read before it is stored; waiting for the whole file");
            return Ok(None);
        }
    };
    REMOTE_ZIPS
        .lock()
        .unwrap_or_else(|p| p.into_inner())
        .put(key, zip.clone());
    Ok(Some(zip))
}

async fn parse_tail(tail: Vec<u8>) -> Result<Result<RemoteZip, TailError>, PageError> {
    tokio::task::spawn_blocking(move || RemoteZip::from_tail(tail))
        .await
        .map_err(|e| PageError::Io(e.to_string()))
}

/// Page `index` of a zip not stored yet, from its byte range (the two pages after it asked for
/// too), or `None` when the whole file is to be read instead.
async fn remote_page(
    store: &Store,
    book: &Book,
    zip: &Arc<RemoteZip>,
    index: usize,
    wait: WaitPolicy,
) -> Result<Option<Vec<u8>>, PageError> {
    let file_url = book.file_url.as_deref().unwrap_or_default();
    let count = zip.page_count();
    if index >= count {
        return Err(PageError::OutOfRange {
            page: index as i64,
            count: count as i64,
        });
    }
    let ahead = (index as i64 + PARTS_AHEAD).min(count as i64 - 1);
    let mut parts = Vec::new();
    // The furthest first: the page asked for ends on top.
    for p in (index as i64..=ahead).rev() {
        let (start, end) = zip.page_range(p as usize).map_err(archive_error)?;
        parts.push((
            p,
            book_downloads::part_of_file_url(file_url, start, Some(end)),
        ));
    }
    let Some(bytes) = part(store, book, index as i64, parts, wait).await? else {
        return Ok(None);
    };
    let zip = zip.clone();
    let page = tokio::task::spawn_blocking(move || zip.read_page(index, &bytes))
        .await
        .map_err(|e| PageError::Io(e.to_string()))?
        .map_err(archive_error)?;
    Ok(Some(page))
}

/// Queues the book's file prioritary (the reader opened it).
fn queue_file(store: &Store, book_id: i64) -> Result<(), PageError> {
    match book_downloads::open_book(store, book_id, None) {
        Ok(_) => Ok(()),
        Err(DownloadRequestError::Book(e)) => Err(e.into()),
        Err(DownloadRequestError::Store(e)) => Err(e.into()),
        // A book imported from this computer whose file is gone: said as it is.
        Err(e @ DownloadRequestError::LocalFileMissing(_)) => Err(PageError::Io(e.to_string())),
        Err(_) => Err(PageError::NotPaged(book_id)),
    }
}

/// Opens a comic kept as one archive: waits for its file (see the module), reads its table of
/// contents, and records its page count on the book.
pub async fn open(
    store: &Store,
    book_id: i64,
    wait: WaitPolicy,
) -> Result<ArchiveComic, PageError> {
    let book = check(store, book_id)?;
    let tasks = download_stack::tasks_of_book(store, book_id)?;
    if stored_in(store, book_id, &tasks).is_none() {
        if !file_asked(&tasks) {
            queue_file(store, book_id)?;
        }
        if let Some(zip) = remote_zip(store, &book, wait).await? {
            let count = zip.page_count();
            if book.page_count != Some(count as i64) {
                books::set_page_count(store, book_id, count as i64)?;
            }
            return Ok(ArchiveComic {
                book_id,
                page_count: count,
                right_to_left: zip.info.right_to_left,
                info: zip.info.clone(),
            });
        }
    }
    let path = archive_file(store, book_id, wait).await?;
    let archive = opened(&path).await?;
    let count = archive.page_count();
    if book.page_count != Some(count as i64) {
        books::set_page_count(store, book_id, count as i64)?;
    }
    Ok(ArchiveComic {
        book_id,
        page_count: count,
        right_to_left: archive.info.right_to_left,
        info: archive.info.clone(),
    })
}

/// Page `index` (0-based) of a comic kept as one archive.
pub async fn page(
    store: &Store,
    book_id: i64,
    index: i64,
    wait: WaitPolicy,
) -> Result<PageImage, PageError> {
    page_of(store, check(store, book_id)?, index, wait).await
}

/// [`page`] of a book already read (a comic kept as one archive).
pub(crate) async fn page_of(
    store: &Store,
    book: Book,
    index: i64,
    wait: WaitPolicy,
) -> Result<PageImage, PageError> {
    let book_id = book.id;
    if index < 0 {
        return Err(PageError::OutOfRange {
            page: index,
            count: 0,
        });
    }
    if stored_file(store, book_id)?.is_none() {
        queue_file(store, book_id)?;
        if let Some(zip) = remote_zip(store, &book, wait).await? {
            if let Some(bytes) = remote_page(store, &book, &zip, index as usize, wait).await? {
                return PageImage::checked(bytes);
            }
        }
    }
    let path = archive_file(store, book_id, wait).await?;
    let archive = opened(&path).await?;
    let bytes = tokio::task::spawn_blocking(move || archive.page(index as usize))
        .await
        .map_err(|e| PageError::Io(e.to_string()))?
        .map_err(archive_error)?;
    PageImage::checked(bytes)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn book(file_type: Option<&str>, url: &str, format: BookFormat) -> Book {
        Book {
            id: 1,
            server_id: 1,
            catalog_id: "x".into(),
            title: "t".into(),
            authors: String::new(),
            format,
            stream_template: None,
            page_count: None,
            page_base: 0,
            page_list: Vec::new(),
            file_url: Some(url.into()),
            file_type: file_type.map(str::to_owned),
            file_length: None,
            cover_url: None,
            pinned: false,
            last_opened_ms: None,
            last_page: None,
            progression_url: None,
            read_progress_url: None,
            position_ms: None,
        }
    }

    #[test]
    fn archive_comics_are_known_by_type_or_extension() {
        assert!(is_archive_comic(&book(
            Some("application/x-cbz"),
            "http://c/get/cbz/5",
            BookFormat::Comic
        )));
        assert!(is_archive_comic(&book(
            Some("application/vnd.comicbook-rar"),
            "http://c/5",
            BookFormat::Other
        )));
        assert!(is_archive_comic(&book(
            None,
            "http://c/opds/download/5/Saga%2001.CBR",
            BookFormat::Other
        )));
        assert!(is_archive_comic(&book(
            Some("application/zip"),
            "http://c/5.zip",
            BookFormat::Comic
        )));
        assert!(!is_archive_comic(&book(
            Some("application/zip"),
            "http://c/5.zip",
            BookFormat::Other
        )));
        assert!(!is_archive_comic(&book(
            Some("application/epub+zip"),
            "http://c/5.epub",
            BookFormat::Epub
        )));
        assert!(!is_archive_comic(&book(
            Some("application/pdf"),
            "http://c/5.pdf",
            BookFormat::Pdf
        )));
        let mut streamed = book(
            Some("application/x-cbz"),
            "http://c/5.cbz",
            BookFormat::Comic,
        );
        streamed.stream_template = Some("http://c/5/{pageNumber}".into());
        streamed.page_count = Some(10);
        assert!(
            !is_archive_comic(&streamed),
            "a page-streamed comic is read page by page"
        );
    }
}
