//! Whole EPUBs for the EPUB reader's window (`book_source`): a stored EPUB is served
//! byte-identical from the device; a missing one is queued and served once stored; with the
//! server away it times out as offline-not-downloaded; comics are not answered; the reader's
//! CFI is kept per book.

use std::time::Duration;

use carrel_core::{
    catalog::client::CatalogItem,
    engine::book_downloads,
    engine::executor::Finish,
    library::books::BookFormat,
    library::servers::Server,
    reading::book_source,
    reading::epub_positions,
    reading::page_source::{PageError, WaitPolicy},
    reading::position_sync,
};
use fixture_server::{BookKind, RunningServer};

use crate::support::{fast_config, three_books, Env};

/// The local id and the fixture id of the fixture's first EPUB, and a comic's local id.
async fn register(env: &Env, server: &Server, fixture: &RunningServer) -> (i64, u32, i64) {
    let client = env.client();
    let page = client.browse(server, Some("/opds/books")).await.unwrap();
    let mut epub = None;
    let mut comic = None;
    for item in page.entries {
        if let CatalogItem::Book {
            book_id, format, ..
        } = item
        {
            match format {
                BookFormat::Epub if epub.is_none() => epub = Some(book_id),
                BookFormat::Comic if comic.is_none() => comic = Some(book_id),
                _ => {}
            }
        }
    }
    let fixture_epub = fixture
        .books()
        .into_iter()
        .find(|b| b.kind == BookKind::Epub)
        .expect("the fixture has an EPUB")
        .id;
    (
        epub.expect("the fixture lists an EPUB"),
        fixture_epub,
        comic.expect("the fixture lists a comic"),
    )
}

/// The fixture started (see [`three_books`]) and added to a new data dir, its books listed: see
/// [`register`].
async fn registered() -> (RunningServer, Env, (i64, u32, i64)) {
    let fixture = three_books();
    let (env, server) = Env::with_fixture(&fixture);
    let books = register(&env, &server, &fixture).await;
    (fixture, env, books)
}

/// Why the reader's window gets no book `id` within `timeout_ms`.
async fn refused(env: &Env, id: i64, timeout_ms: u64) -> PageError {
    book_source::book(&env.store, id, quick(timeout_ms))
        .await
        .unwrap_err()
}

fn quick(timeout_ms: u64) -> WaitPolicy {
    WaitPolicy {
        poll: Duration::from_millis(20),
        timeout: Duration::from_millis(timeout_ms),
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_stored_epub_is_served_byte_identical_as_an_epub() {
    let (fixture, env, (id, fixture_id, comic)) = registered().await;
    assert!(book_source::stored_book(&env.store, id).unwrap().is_none());
    book_downloads::open_book(&env.store, id, None).unwrap();
    let (finish, _) = env.sync(fast_config()).await;
    assert_eq!(finish, Finish::Idle);
    let expected = fixture.book_bytes(fixture_id).unwrap();
    fixture.stop();

    let stored = book_source::stored_book(&env.store, id)
        .unwrap()
        .expect("the EPUB is on the device");
    assert_eq!(stored.bytes, expected);
    assert_eq!(stored.content_type, "application/epub+zip");
    let served = book_source::book(&env.store, id, quick(200)).await.unwrap();
    assert_eq!(served.bytes, expected);
    // A comic is no EPUB, and an unknown book is unknown.
    let err = refused(&env, comic, 100).await;
    assert!(matches!(err, PageError::NotPaged(_)), "{err:?}");
    let err = refused(&env, id + 1000, 100).await;
    assert!(matches!(err, PageError::UnknownBook(_)), "{err:?}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_missing_epub_is_queued_and_served_once_stored() {
    let (fixture, env, (id, fixture_id, _)) = registered().await;
    let (served, _) = env
        .while_executor_runs(book_source::book(&env.store, id, quick(10_000)))
        .await;
    assert_eq!(
        served.unwrap().bytes,
        fixture.book_bytes(fixture_id).unwrap()
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_epub_of_a_stopped_server_times_out_as_offline_not_downloaded() {
    let (fixture, env, (id, _, _)) = registered().await;
    fixture.stop();
    let (answer, took) = env
        .while_executor_runs(book_source::book(&env.store, id, quick(600)))
        .await;
    let err = answer.unwrap_err();
    assert!(matches!(err, PageError::OfflineNotDownloaded), "{err:?}");
    assert!(took < Duration::from_secs(5), "the wait is bounded");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_readers_cfi_is_kept_per_book_and_the_newest_wins() {
    let (_fixture, env, (id, _, comic)) = registered().await;
    assert!(epub_positions::position(&env.store, id).unwrap().is_none());
    position_sync::record_epub(&env.store, id, "epubcfi(/6/4!/4/2/1:0)", 0.1, None).unwrap();
    position_sync::record_epub(&env.store, id, "epubcfi(/6/8!/4/10/1:17)", 0.42, None).unwrap();
    let kept = epub_positions::position(&env.store, id).unwrap().unwrap();
    assert_eq!(kept.cfi, "epubcfi(/6/8!/4/10/1:17)");
    assert!((kept.fraction - 0.42).abs() < 1e-9);
    assert!(epub_positions::position(&env.store, comic)
        .unwrap()
        .is_none());
    for (cfi, fraction) in [
        ("/6/4", 0.1),
        ("epubcfi(/6/4)", 1.5),
        ("epubcfi(/6/4)", f64::NAN),
    ] {
        assert!(
            position_sync::record_epub(&env.store, id, cfi, fraction, None).is_err(),
            "{cfi} {fraction}"
        );
    }
    assert!(position_sync::record_epub(&env.store, id + 1000, "epubcfi(/6/4)", 0.0, None).is_err());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_stored_file_larger_than_the_window_may_hold_is_refused_not_read() {
    let (_fixture, env, (id, _, _)) = registered().await;
    book_downloads::open_book(&env.store, id, None).unwrap();
    assert_eq!(env.sync(fast_config()).await.0, Finish::Idle);
    let path = carrel_core::foundation::part_files::PartFiles::new(env.dir.books())
        .find_book_file(id)
        .unwrap();
    // Grown past the cap without using the disk (a sparse file).
    std::fs::OpenOptions::new()
        .write(true)
        .open(&path)
        .unwrap()
        .set_len(book_source::MAX_BOOK_BYTES + 1)
        .unwrap();
    let err = refused(&env, id, 100).await;
    assert!(matches!(err, PageError::TooLarge { .. }), "{err:?}");
    assert!(err.to_string().contains("too large"), "{err}");
}
