//! Pages for the reader's window (`page_source`): a stored page is served from the device; a
//! missing one is pushed prioritary and served once the executor stores it; with the server
//! away it times out as offline-not-downloaded; pages outside the book are not found.

use std::time::Duration;

use carrel_core::{
    catalog::client::CatalogItem,
    engine::book_downloads,
    engine::download_stack::TaskKind,
    engine::executor::{Finish, RunMode},
    engine::progress::DownloadEvent,
    library::books,
    library::servers::Server,
    reading::page_source::{self, PageError, WaitPolicy},
};
use fixture_server::{Config, RunningServer};

use crate::support::{fast_config, Env};

fn start_comic(pages: u32) -> RunningServer {
    fixture_server::Server::start(Config {
        books: 1,
        comic_pages: [(1, pages)].into(),
        ..Default::default()
    })
    .expect("the fixture server starts")
}

/// The local id of the fixture's only book.
async fn register_comic(env: &Env, server: &Server) -> i64 {
    let client = env.client();
    let page = client.browse(server, Some("/opds/books")).await.unwrap();
    page.entries
        .into_iter()
        .find_map(|item| match item {
            CatalogItem::Book { book_id, .. } => Some(book_id),
            _ => None,
        })
        .expect("the fixture lists its comic")
}

/// A data dir with `fixture`'s catalog added and its comic known: the env and the comic's id.
async fn comic_known(fixture: &RunningServer) -> (Env, i64) {
    let (env, server) = Env::with_fixture(&fixture);
    let id = register_comic(&env, &server).await;
    (env, id)
}

/// [`comic_known`], the comic opened at its first page and every page stored.
async fn comic_stored(fixture: &RunningServer) -> (Env, i64) {
    let (env, id) = comic_known(fixture).await;
    book_downloads::open_book(&env.store, id, Some(0)).unwrap();
    let (finish, _) = env.sync(fast_config()).await;
    assert_eq!(finish, Finish::Idle);
    (env, id)
}

/// A comic of five pages stored whole (see [`comic_stored`]), then its server stopped: the
/// env, the comic's id, and the bytes the server had for page `page`.
async fn stored_with_server_gone(page: u32) -> (Env, i64, Vec<u8>) {
    let fixture = start_comic(5);
    let (env, id) = comic_stored(&fixture).await;
    let expected = fixture.page_bytes(1, page).unwrap();
    fixture.stop();
    (env, id, expected)
}

/// The bytes of page `page` of book `id`, served within 200 ms (from the device).
async fn served_at_once(env: &Env, id: i64, page: i64) -> Vec<u8> {
    page_source::page(&env.store, id, page, quick(200))
        .await
        .unwrap()
        .bytes
}

fn quick(timeout_ms: u64) -> WaitPolicy {
    WaitPolicy {
        poll: Duration::from_millis(20),
        timeout: Duration::from_millis(timeout_ms),
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_stored_page_is_served_from_the_device_with_its_sniffed_type() {
    let (env, id, expected) = stored_with_server_gone(3).await;

    let stored = page_source::stored_page(&env.store, id, 3)
        .unwrap()
        .expect("page 3 is on the device");
    assert_eq!(stored.bytes, expected);
    assert!(
        stored.content_type.starts_with("image/"),
        "{}",
        stored.content_type
    );
    // With the server gone, the page is still served at once.
    assert_eq!(served_at_once(&env, id, 3).await, expected);
}

/// A page whose header claims 50,000 × 50,000 pixels (a file of a kilobyte, 10 GB once decoded
/// by the window) is refused with a clear error before it is served; the book's other pages are
/// served as before.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_page_claiming_too_many_pixels_is_refused_before_it_is_served() {
    let (env, id, expected) = stored_with_server_gone(2).await;
    let stored = page_source::stored_path(&env.store, id, 3)
        .unwrap()
        .unwrap();
    std::fs::write(&stored, crate::support::png_claiming(50_000, 50_000)).unwrap();

    let refused = page_source::page(&env.store, id, 3, quick(200)).await;
    match refused {
        Err(e @ PageError::TooManyPixels(_)) => assert_eq!(
            e.to_string(),
            "the image is 50000×50000 pixels, more than 100 million"
        ),
        other => panic!("{:?}", other.map(|p| p.bytes.len())),
    }
    assert!(matches!(
        page_source::stored_page(&env.store, id, 3),
        Err(PageError::TooManyPixels(_))
    ));
    assert_eq!(served_at_once(&env, id, 2).await, expected);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_missing_page_is_pushed_prioritary_and_served_once_stored() {
    let fixture = start_comic(60);
    let (env, id) = comic_known(&fixture).await;
    books::mark_opened(&env.store, id, Some(7)).unwrap();
    assert!(page_source::stored_page(&env.store, id, 40)
        .unwrap()
        .is_none());

    // Asked for before the executor starts (it queues the latest read book as it starts): the
    // order of the two pushes is then not left to the machine's scheduling.
    carrel_core::engine::book_downloads::push_page(&env.store, id, 40).unwrap();
    let (sink, stop, run) = env.spawn_executor(fast_config(), RunMode::Forever);
    let served = page_source::page(&env.store, id, 40, quick(10_000))
        .await
        .unwrap();
    assert_eq!(served.bytes, fixture.page_bytes(1, 40).unwrap());
    let first_page = sink.events().into_iter().find_map(|e| match e {
        DownloadEvent::TaskDone {
            kind: TaskKind::Page,
            position,
            ..
        } => Some(position),
        _ => None,
    });
    assert_eq!(first_page, Some(40), "the page asked for is fetched first");
    // Asking for a page is not reading it: the reader's position stays.
    assert_eq!(books::get(&env.store, id).unwrap().last_page, Some(7));
    stop.send(true).unwrap();
    assert_eq!(run.await.unwrap(), Finish::Shutdown);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_page_of_a_book_on_a_stopped_server_times_out_as_offline_not_downloaded() {
    let fixture = start_comic(10);
    let (env, id) = comic_known(&fixture).await;
    fixture.stop();

    let (answer, took) = env
        .while_executor_runs(page_source::page(&env.store, id, 2, quick(600)))
        .await;
    let err = answer.unwrap_err();
    assert!(matches!(err, PageError::OfflineNotDownloaded), "{err:?}");
    assert_eq!(err.to_string(), "offline-not-downloaded");
    assert!(took >= Duration::from_millis(600));
    assert!(took < Duration::from_secs(5), "the wait is bounded");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn pages_outside_the_book_and_unknown_books_are_not_found() {
    let fixture = start_comic(10);
    let (env, id) = comic_known(&fixture).await;
    for page in [10, 11, -1] {
        let err = page_source::page(&env.store, id, page, quick(100))
            .await
            .unwrap_err();
        assert!(
            matches!(err, PageError::OutOfRange { count: 10, .. }),
            "{page}: {err:?}"
        );
    }
    let err = page_source::page(&env.store, id + 100, 0, quick(100))
        .await
        .unwrap_err();
    assert!(matches!(err, PageError::UnknownBook(_)), "{err:?}");
    // Nothing was queued for any of them.
    assert!(
        carrel_core::engine::download_stack::tasks_of_book(&env.store, id)
            .unwrap()
            .is_empty()
    );
}
