//! Pages for the reader's window, by book id and page index (0-based): the stored page when it
//! is on the device, else the page pushed prioritary and waited for (bounded), so opening a
//! book anywhere shows its page as soon as the server sends it.
//!
//! Comics a server offers only as one archive file are served the same way, from the archive
//! ([`crate::archive_pages`]).
//!
//! A page counts as stored only once its task is done (the file is moved into place before the
//! task is marked done, so a done task's file is whole). The image type is sniffed from the
//! bytes, and a page whose header claims more pixels than a window is given is refused before
//! it is served ([`PageImage::checked`], which archive pages pass too). Owns no table; speaks
//! through [`carrel_library::books`], [`carrel_engine::book_downloads`],
//! [`carrel_engine::download_stack`] and [`carrel_foundation::part_files`].

use std::path::PathBuf;
use std::time::{Duration, Instant};

use carrel_engine::book_downloads::{self, DownloadRequestError};
use carrel_engine::download_stack::{self, Pushed, TaskState};
use carrel_foundation::file_types::HandoverError;
use carrel_foundation::image_type::{image_for_window, TooManyPixels};
use carrel_foundation::part_files::PartFiles;
use carrel_foundation::store::{Store, StoreError};
use carrel_library::books::{self, BookError};

/// How long [`page`] waits for a page that is not on the device, and how often it looks.
#[derive(Debug, Clone, Copy)]
pub struct WaitPolicy {
    pub poll: Duration,
    pub timeout: Duration,
}

impl WaitPolicy {
    /// How long the first looks are apart: most parts come within a few tens of milliseconds,
    /// and a looker that sleeps the whole `poll` adds half of it on average.
    const FIRST_POLL: Duration = Duration::from_millis(4);
    /// How long looks stay that close together.
    const FIRST_POLLS_FOR: Duration = Duration::from_millis(250);

    /// Sleeps until the next look of a wait that ends at `deadline`: briefly at first, then
    /// `poll`.
    pub async fn pause(&self, deadline: std::time::Instant) {
        let left = deadline.saturating_duration_since(std::time::Instant::now());
        let waited = self.timeout.saturating_sub(left);
        let next = if waited < Self::FIRST_POLLS_FOR {
            Self::FIRST_POLL.min(self.poll)
        } else {
            self.poll
        };
        tokio::time::sleep(next).await;
    }
}

impl Default for WaitPolicy {
    fn default() -> Self {
        WaitPolicy {
            poll: Duration::from_millis(20),
            timeout: Duration::from_secs(20),
        }
    }
}

/// A page ready to show.
#[derive(Debug, Clone)]
pub struct PageImage {
    pub bytes: Vec<u8>,
    /// Sniffed from the bytes; `application/octet-stream` when they are no known image.
    pub content_type: &'static str,
}

impl PageImage {
    /// A page's bytes as a window may be given them: its type sniffed, and refused when its
    /// header claims more pixels than a window is given (nothing is decoded to tell). Every
    /// page served, streamed or from an archive, comes through here.
    pub fn checked(bytes: Vec<u8>) -> Result<PageImage, PageError> {
        let content_type = image_for_window(&bytes)?.unwrap_or("application/octet-stream");
        Ok(PageImage {
            bytes,
            content_type,
        })
    }
}

#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum PageError {
    #[error("no book with id {0} on this device")]
    UnknownBook(i64),
    #[error("book {0} is not read page by page")]
    NotPaged(i64),
    #[error("page {page} does not exist: the book has {count} pages")]
    OutOfRange { page: i64, count: i64 },
    /// The page is not on the device and did not arrive in time (the server is away, or the
    /// downloads are paused).
    #[error("offline-not-downloaded")]
    OfflineNotDownloaded,
    /// The server refused the page (e.g. 404); its task failed with this reason.
    #[error("the page could not be downloaded: {0}")]
    Failed(String),
    #[error("cannot read the stored page: {0}")]
    Io(String),
    /// A stored file too large to hand to a window in one piece.
    #[error("the stored file is too large to open ({bytes} bytes, at most {limit})")]
    TooLarge { bytes: u64, limit: u64 },
    /// A stored whole file that is not handed to another app (it could run programs, or
    /// nothing says which kind of book it is).
    #[error(transparent)]
    Refused(#[from] HandoverError),
    /// An image whose header claims more pixels than a window is given
    /// ([`carrel_foundation::image_type::MAX_IMAGE_PIXELS`]).
    #[error(transparent)]
    TooManyPixels(#[from] TooManyPixels),
    #[error(transparent)]
    Store(#[from] StoreError),
}

impl carrel_foundation::error::Failure for PageError {
    fn kind(&self) -> carrel_foundation::error::ErrorKind {
        use carrel_foundation::error::ErrorKind;
        match self {
            PageError::UnknownBook(_) => ErrorKind::NotFound,
            PageError::NotPaged(_) | PageError::OutOfRange { .. } => ErrorKind::InvalidInput,
            // What the server sent is no page a window can show.
            PageError::OfflineNotDownloaded
            | PageError::Failed(_)
            | PageError::TooManyPixels(_) => ErrorKind::Server,
            PageError::Io(_) | PageError::TooLarge { .. } | PageError::Store(_) => {
                ErrorKind::Storage
            }
            PageError::Refused(e) => carrel_foundation::error::Failure::kind(e),
        }
    }
}

impl From<BookError> for PageError {
    fn from(e: BookError) -> Self {
        match e {
            BookError::NotFound(id) => PageError::UnknownBook(id),
            BookError::Store(e) => PageError::Store(e),
        }
    }
}

/// Checks that `page` is a page of a page-streamed book; returns the book's page count.
pub fn check_page(store: &Store, book_id: i64, page: i64) -> Result<i64, PageError> {
    let book = books::get(store, book_id)?;
    if !book.streams_pages() {
        return Err(PageError::NotPaged(book_id));
    }
    let count = book.page_count.unwrap_or(0);
    if page < 0 || page >= count {
        return Err(PageError::OutOfRange { page, count });
    }
    Ok(count)
}

/// The stored file of a page whose task is done, if any.
pub fn stored_path(store: &Store, book_id: i64, page: i64) -> Result<Option<PathBuf>, PageError> {
    if !download_stack::is_page_stored(store, book_id, page)? {
        return Ok(None);
    }
    Ok(PartFiles::new(store.data_dir().books()).find_page(book_id, page))
}

/// The stored page, if it is on the device (no download is started).
pub fn stored_page(store: &Store, book_id: i64, page: i64) -> Result<Option<PageImage>, PageError> {
    check_page(store, book_id, page)?;
    read_stored(store, book_id, page)
}

fn read_stored(store: &Store, book_id: i64, page: i64) -> Result<Option<PageImage>, PageError> {
    let Some(path) = stored_path(store, book_id, page)? else {
        return Ok(None);
    };
    match std::fs::read(&path) {
        Ok(bytes) => Ok(Some(PageImage::checked(bytes)?)),
        // Removed meanwhile (the book left the device): as if never stored.
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(None),
        Err(e) => Err(PageError::Io(e.to_string())),
    }
}

/// The page: from the device, else pushed prioritary (the executor, in this process or
/// another, fetches it) and waited for at most `wait.timeout`.
pub async fn page(
    store: &Store,
    book_id: i64,
    page: i64,
    wait: WaitPolicy,
) -> Result<PageImage, PageError> {
    // A comic kept as one archive file is read from the archive.
    if crate::archive_pages::is_archive_comic(&books::get(store, book_id)?) {
        return crate::archive_pages::page(store, book_id, page, wait).await;
    }
    check_page(store, book_id, page)?;
    if let Some(image) = read_stored(store, book_id, page)? {
        return Ok(image);
    }
    match book_downloads::push_page(store, book_id, page) {
        Ok(Pushed::AlreadyFailed(_)) => {
            return Err(PageError::Failed(failure(store, book_id, page)?))
        }
        Ok(_) => {}
        Err(DownloadRequestError::Book(e)) => return Err(e.into()),
        Err(DownloadRequestError::NoSuchPage { page, count }) => {
            return Err(PageError::OutOfRange { page, count })
        }
        Err(DownloadRequestError::Store(e)) => return Err(e.into()),
        Err(_) => return Err(PageError::NotPaged(book_id)),
    }
    let deadline = Instant::now() + wait.timeout;
    loop {
        wait.pause(deadline).await;
        // One look: the file and the task's state, read off the async thread.
        let look = store
            .call(
                move |s| -> Result<Result<Option<PageImage>, String>, PageError> {
                    if let Some(image) = read_stored(s, book_id, page)? {
                        return Ok(Ok(Some(image)));
                    }
                    match page_task(s, book_id, page)? {
                        Some((TaskState::Failed, failure)) => {
                            Ok(Err(failure.unwrap_or_else(|| "failed".into())))
                        }
                        _ => Ok(Ok(None)),
                    }
                },
            )
            .await?;
        match look {
            Ok(Some(image)) => return Ok(image),
            Err(reason) => return Err(PageError::Failed(reason)),
            Ok(None) => {}
        }
        if Instant::now() >= deadline {
            return Err(PageError::OfflineNotDownloaded);
        }
    }
}

fn page_task(
    store: &Store,
    book_id: i64,
    page: i64,
) -> Result<Option<(TaskState, Option<String>)>, PageError> {
    Ok(download_stack::page_task_state(store, book_id, page)?)
}

fn failure(store: &Store, book_id: i64, page: i64) -> Result<String, PageError> {
    Ok(page_task(store, book_id, page)?
        .and_then(|t| t.1)
        .unwrap_or_else(|| "failed".into()))
}
