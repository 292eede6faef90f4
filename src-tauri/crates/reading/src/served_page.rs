//! What a window is served of a paged book: a page's image ([`PageImage`], checked before it is
//! given), why a page could not be ([`PageError`]), and how long a missing page is waited for
//! ([`WaitPolicy`]). Shared by streamed pages ([`crate::page_source`]) and pages read from a
//! comic's archive ([`crate::archive_pages`]).

use std::path::PathBuf;
use std::time::{Duration, Instant};

use carrel_engine::page_range;
use carrel_foundation::file_types::HandoverError;
use carrel_foundation::image_type::{image_for_window, TooManyPixels};
use carrel_foundation::store::{Store, StoreError};
use carrel_library::books::BookError;

/// How long [`crate::page_source::page`] waits for a page that is not on the device.
///
/// A wait is woken ([`Store::changes`]): this process's executor storing a part (or settling
/// its task) wakes it at once, another process's commit within
/// [`carrel_foundation::store_changes::OUTSIDE_LOOK`]. It looks once before waiting and again
/// after each wake, and nothing else: no look is made on a timer.
#[derive(Debug, Clone, Copy)]
pub struct WaitPolicy {
    /// Not used by the wait any more (it is woken, not paced); kept so that callers that set
    /// it still build.
    pub poll: Duration,
    pub timeout: Duration,
}

impl WaitPolicy {
    /// Waits until the store changes (see [`Store::changes`]) or `deadline` passes, whichever
    /// comes first: the caller then looks again, and gives up once past `deadline`.
    pub async fn until_change(&self, changes: &mut Changes, deadline: Instant) {
        let deadline = tokio::time::Instant::from_std(deadline);
        tokio::select! {
            changed = changes.changed() => {
                if changed.is_err() {
                    // The store is gone: nothing can wake the wait any more.
                    tokio::time::sleep_until(deadline).await;
                }
            }
            () = tokio::time::sleep_until(deadline) => {}
        }
    }

    /// A book's whole file (a comic's archive, an EPUB, a PDF) once `look` finds it stored, for
    /// at most `timeout` from now (then [`PageError::OfflineNotDownloaded`]); a download that
    /// failed is [`PageError::Failed`]. Each look runs off the async threads, once now and again
    /// after each change of `changes` (watched from before the caller's first look).
    pub async fn until_file(
        &self,
        store: &Store,
        changes: &mut Changes,
        look: impl Fn(&Store) -> Result<FileLook, PageError> + Clone + Send + 'static,
    ) -> Result<PathBuf, PageError> {
        let deadline = Instant::now() + self.timeout;
        loop {
            match store.call(look.clone()).await? {
                Some(Ok(path)) => return Ok(path),
                Some(Err(reason)) => return Err(PageError::Failed(reason)),
                None => {}
            }
            if Instant::now() >= deadline {
                return Err(PageError::OfflineNotDownloaded);
            }
            self.until_change(changes, deadline).await;
        }
    }
}

/// What one look for a book's file found: its path once stored, or why its download failed;
/// `None` while neither.
pub type FileLook = Option<Result<PathBuf, String>>;

/// What a wait watches: [`Store::changes`].
pub type Changes = tokio::sync::watch::Receiver<u64>;

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

impl From<page_range::OutOfRange> for PageError {
    fn from(e: page_range::OutOfRange) -> Self {
        PageError::OutOfRange {
            page: e.page,
            count: e.count,
        }
    }
}
