//! Pages for the reader's window, by book id and page index (0-based): the stored page when it
//! is on the device, else the page pushed prioritary and waited for (bounded), so opening a
//! book anywhere shows its page as soon as the server sends it.
//!
//! Comics a server offers only as one archive file are served the same way, from the archive
//! ([`crate::archive_pages`]).
//!
//! A page counts as stored once its task records the file's size
//! ([`carrel_engine::download_stack::is_page_stored`]): the executor records it only after the
//! page is in place whole, so a window reads it while its task is still awaiting the batch's
//! sync, before the task is marked done. The image type is sniffed from the
//! bytes, and a page whose header claims more pixels than a window is given is refused before
//! it is served ([`PageImage::checked`], which archive pages pass too). Owns no table; speaks
//! through [`carrel_library::books`], [`carrel_engine::book_downloads`],
//! [`carrel_engine::download_stack`] and [`carrel_foundation::part_files`].

use std::path::PathBuf;
use std::time::Instant;

use carrel_engine::book_downloads::{self, DownloadRequestError};
use carrel_engine::download_stack::{self, Pushed, TaskKind, TaskState};
use carrel_engine::page_range;
use carrel_foundation::part_files::PartFiles;
use carrel_foundation::store::Store;
use carrel_library::books::{self, Book};

pub use crate::served_page::{Changes, PageError, PageImage, WaitPolicy};

/// Checks that `page` is a page of a page-streamed book; returns the book's page count.
pub fn check_page(store: &Store, book_id: i64, page: i64) -> Result<i64, PageError> {
    check_book_page(&books::get(store, book_id)?, page)
}

/// [`check_page`] of a book already read.
pub fn check_book_page(book: &Book, page: i64) -> Result<i64, PageError> {
    if !book.streams_pages() {
        return Err(PageError::NotPaged(book.id));
    }
    Ok(page_range::check_book(book, page)?)
}

/// The stored file of a page, if its task records it stored (done, or stored with its size,
/// awaiting its sync).
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
    // The book is read once per request, and handed down.
    let book = books::get(store, book_id)?;
    // A comic kept as one archive file is read from the archive.
    if crate::archive_pages::is_archive_comic(&book) {
        return crate::archive_pages::page_of(store, book, page, wait).await;
    }
    check_book_page(&book, page)?;
    // Watched before the first look: a part stored after it wakes the wait.
    let mut changes = store.changes();
    if let Some(image) = read_stored(store, book_id, page)? {
        return Ok(image);
    }
    if !next_to_run(store, book_id, page)? {
        match book_downloads::push_page_of(store, &book, page) {
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
    }
    let deadline = Instant::now() + wait.timeout;
    loop {
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
        wait.until_change(&mut changes, deadline).await;
    }
}

/// Whether page `page`'s task is the next the executor takes already (opening the book pushed
/// it a moment ago): pushing it again would change nothing, so it is not.
fn next_to_run(store: &Store, book_id: i64, page: i64) -> Result<bool, PageError> {
    Ok(download_stack::peek(store, &[])?
        .is_some_and(|t| t.book_id == book_id && t.kind == TaskKind::Page && t.position == page))
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

#[cfg(test)]
mod tests {
    use std::sync::Arc;
    use std::time::Duration;

    use carrel_engine::executor_lease::{self, Acquire};
    use carrel_foundation::clock::SystemClock;
    use carrel_foundation::data_dir::DataDir;
    use carrel_library::books::{BookFormat, CatalogBook};
    use carrel_library::test_support::silent_server;

    use super::*;

    /// A data dir with a page-streamed book of 3 pages (its server never answers: the tests
    /// store the pages themselves, as the executor would).
    fn with_book(dir: &tempfile::TempDir) -> (Store, i64) {
        let store = open(dir);
        let server = silent_server(&store, "Home");
        let book = books::remember(
            &store,
            server.id,
            &CatalogBook {
                stream_template: Some("http://127.0.0.1:9/pages/{pageNumber}".into()),
                page_count: Some(3),
                ..CatalogBook::bare("urn:1", "Akira 1", BookFormat::Comic)
            },
        )
        .unwrap();
        (store, book.id)
    }

    /// Another handle on the same data dir: another process, as far as the store can tell.
    fn open(dir: &tempfile::TempDir) -> Store {
        Store::open(&DataDir::new(dir.path()), Arc::new(SystemClock)).unwrap()
    }

    /// Does what the executor does with a page: claims its task, puts the page in place, marks
    /// it done and wakes the waits of its store (another store's waits are not woken: they
    /// see the commit).
    fn store_page(store: &Store, book_id: i64, page: i64) {
        let Acquire::Acquired { fence, .. } =
            executor_lease::try_acquire(store, "executor", 60_000).unwrap()
        else {
            panic!("the lease is free");
        };
        let task = download_stack::claim_next(store, &fence, &[])
            .unwrap()
            .expect("the page waited for is on the stack");
        assert_eq!((task.book_id, task.position), (book_id, page));
        let path = PartFiles::new(store.data_dir().books()).page_path(book_id, page, "img");
        carrel_foundation::part_files::write_atomically(&path, b"page bytes").unwrap();
        download_stack::complete(store, &fence, task.id, 10, &[]).unwrap();
        store.wake_waiters();
    }

    /// Long enough that only a wake ends the wait before it: the tests bound their own wait
    /// far below it, and a waiter left to time out fails them.
    fn patient() -> WaitPolicy {
        WaitPolicy {
            poll: Duration::from_millis(20),
            timeout: Duration::from_secs(600),
        }
    }

    const WOKEN_WITHIN: Duration = Duration::from_secs(30);

    /// A window's wait for page `index` of `book`, on a task of its own.
    fn waiting_window(
        store: &Store,
        book: i64,
        index: i64,
    ) -> tokio::task::JoinHandle<Result<PageImage, PageError>> {
        let store = store.clone();
        tokio::spawn(async move { page(&store, book, index, patient()).await })
    }

    /// Returns once the wait's push is on the stack, as `store` sees it.
    async fn pushed(store: &Store) {
        while download_stack::peek(store, &[]).unwrap().is_none() {
            tokio::task::yield_now().await;
        }
    }

    /// What a wait gave, failing the test unless it was woken well before its time ran out.
    async fn woken(
        waiter: tokio::task::JoinHandle<Result<PageImage, PageError>>,
    ) -> Result<PageImage, PageError> {
        tokio::time::timeout(WOKEN_WITHIN, waiter)
            .await
            .expect("the waiter was woken")
            .unwrap()
    }

    /// A window waits for page `index` while it is stored through this process's store, or
    /// through another process's handle on the same data dir: the page comes to the window.
    async fn waiter_gets_the_page_stored(by_another_process: bool, index: i64) {
        let dir = tempfile::tempdir().unwrap();
        let (store, book) = with_book(&dir);
        let storing = if by_another_process {
            open(&dir)
        } else {
            store.clone()
        };
        let waiter = waiting_window(&store, book, index);
        // Its push is on the stack before the page is stored.
        pushed(&storing).await;
        store_page(&storing, book, index);
        let image = woken(waiter).await.unwrap();
        assert_eq!(image.bytes, b"page bytes");
    }

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn a_waiter_wakes_when_this_process_stores_its_page() {
        waiter_gets_the_page_stored(false, 1).await;
    }

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn a_waiter_wakes_when_another_process_stores_its_page() {
        waiter_gets_the_page_stored(true, 2).await;
    }

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn a_waiter_wakes_when_its_page_fails() {
        let dir = tempfile::tempdir().unwrap();
        let (store, book) = with_book(&dir);
        let waiter = waiting_window(&store, book, 0);
        pushed(&store).await;
        let Acquire::Acquired { fence, .. } =
            executor_lease::try_acquire(&store, "executor", 60_000).unwrap()
        else {
            panic!("the lease is free");
        };
        let task = download_stack::claim_next(&store, &fence, &[])
            .unwrap()
            .unwrap();
        download_stack::fail(&store, &fence, task.id, "404 not found", &[]).unwrap();
        store.wake_waiters();
        let failed = woken(waiter).await;
        assert!(
            matches!(&failed, Err(PageError::Failed(reason)) if reason == "404 not found"),
            "{failed:?}"
        );
    }

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn a_page_that_does_not_come_times_out_as_before() {
        let dir = tempfile::tempdir().unwrap();
        let (store, book) = with_book(&dir);
        let wait = WaitPolicy {
            poll: Duration::from_millis(20),
            timeout: Duration::from_millis(100),
        };
        let missing = page(&store, book, 1, wait).await;
        assert!(
            matches!(missing, Err(PageError::OfflineNotDownloaded)),
            "{missing:?}"
        );
        // Asked for once, and nothing more: a window asking again pushes nothing new.
        let pushes = download_stack::push_counter(&store).unwrap();
        let again = page(&store, book, 1, wait).await;
        assert!(matches!(again, Err(PageError::OfflineNotDownloaded)));
        assert_eq!(download_stack::push_counter(&store).unwrap(), pushes);
    }

    #[test]
    fn pages_outside_the_book_are_refused_by_the_one_rule() {
        let dir = tempfile::tempdir().unwrap();
        let (store, book) = with_book(&dir);
        assert_eq!(check_page(&store, book, 2).unwrap(), 3);
        for page in [-1, 3] {
            assert!(matches!(
                check_page(&store, book, page),
                Err(PageError::OutOfRange { count: 3, .. })
            ));
            assert!(matches!(
                book_downloads::push_page(&store, book, page),
                Err(DownloadRequestError::NoSuchPage { count: 3, .. })
            ));
            assert!(matches!(
                book_downloads::open_book(&store, book, Some(page)),
                Err(DownloadRequestError::NoSuchPage { count: 3, .. })
            ));
        }
    }
}
