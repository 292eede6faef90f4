//! Reading positions shared with the server's OPDS progression documents: sent after a save,
//! kept in the outbox while the server is away, the newer of two positions winning a conflict,
//! never moved by downloads, and the server's newer position offered when a book is opened.

use std::collections::BTreeMap;
use std::sync::Arc;

use carrel_core::{
    engine::book_downloads,
    foundation::clock::ManualClock,
    foundation::timestamps,
    library::books,
    library::servers::Server,
    reading::epub_positions,
    reading::position_sync::{self, FlushReport, PositionSource},
};
use fixture_server::{Config, RunningServer};
use serde_json::json;

use crate::support::{fast_config, http, komga_keeping_positions, listed_book, Env};

fn start(port: u16) -> RunningServer {
    fixture_server::Server::start(Config {
        port,
        books: 2,
        comic_pages: [(1, 20)].into(),
        reading_positions: Some(BTreeMap::new()),
        ..Config::default()
    })
    .expect("the fixture server starts")
}

/// Browses the fixture's book list; returns the local id of its book 1 (a 20-page comic).
async fn first_comic(env: &Env, server: &Server) -> i64 {
    listed_book(env, server, 1).await
}

/// What a flush of one position did: `sent` (the server has it), `server_newer` (it gave way
/// to a newer one there) or `failed` (kept for later).
fn one(outcome: &str) -> FlushReport {
    let mut report = FlushReport::default();
    *match outcome {
        "sent" => &mut report.sent,
        "server_newer" => &mut report.server_newer,
        "failed" => &mut report.failed,
        other => panic!("no flush outcome {other}"),
    } = 1;
    report
}

/// A new data dir with `fixture` added as a server: the local id of its book 1 (a 20-page
/// comic) once its book list is browsed.
async fn reading_first_comic(fixture: &RunningServer) -> (Env, i64) {
    let (env, server) = Env::with_fixture(&fixture);
    let book = first_comic(&env, &server).await;
    (env, book)
}

/// The positions waiting in the outbox.
fn pending(env: &Env) -> Vec<position_sync::Pending> {
    position_sync::pending(&env.store).unwrap()
}

/// The server's position of `book` when it is newer than this device's.
async fn newest(env: &Env, book: i64) -> Option<position_sync::ServerPosition> {
    position_sync::newest(&env.store, &http(), &env.credentials, book)
        .await
        .unwrap()
}

/// [`newest`], taken as this device's position.
async fn take_newer(env: &Env, book: i64) -> Option<position_sync::ServerPosition> {
    position_sync::take_newer(&env.store, &http(), &env.credentials, book)
        .await
        .unwrap()
}

async fn flush(env: &Env) -> FlushReport {
    position_sync::flush(&env.store, &http(), &env.credentials)
        .await
        .unwrap()
}

fn server_page(fixture: &RunningServer) -> Option<i64> {
    fixture.progression(1)?["locator"]["locations"]["position"]
        .as_i64()
        .map(|p| p - 1)
}

fn locator(modified_ms: i64, position: i64) -> serde_json::Value {
    json!({
        "modified": timestamps::format_rfc3339(modified_ms),
        "device": { "id": "another-reader", "name": "Elsewhere" },
        "locator": { "locations": { "position": position, "totalProgression": 0.5 } }
    })
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_saved_position_reaches_the_servers_progression_document() {
    let fixture = start(0);
    let (env, book) = reading_first_comic(&fixture).await;
    assert_eq!(
        books::get(&env.store, book)
            .unwrap()
            .progression_url
            .as_deref(),
        Some(fixture.url("/books/1/progression").as_str())
    );

    position_sync::record(&env.store, book, 6).unwrap();
    position_sync::record(&env.store, book, 7).unwrap();
    assert_eq!(pending(&env).len(), 1, "one row per book");
    assert_eq!(books::get(&env.store, book).unwrap().last_page, Some(7));

    assert_eq!(flush(&env).await, one("sent"));
    assert_eq!(server_page(&fixture), Some(7));
    let doc = fixture.progression(1).unwrap();
    assert_eq!(
        doc["locator"]["locations"]["totalProgression"].as_f64(),
        Some(7.0 / 20.0)
    );
    assert!(doc["device"]["id"]
        .as_str()
        .is_some_and(|id| !id.is_empty()));
    assert!(pending(&env).is_empty());
    let stats = fixture.stats();
    assert_eq!(stats.hits("/books/1/progression"), 1);
    assert_eq!(stats.progressions[&1].puts, 1);

    // Nothing waits: a second flush sends nothing.
    assert_eq!(flush(&env).await, FlushReport::default());
    assert_eq!(fixture.stats().hits("/books/1/progression"), 1);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_page_that_is_not_the_books_is_refused_and_changes_nothing() {
    use carrel_core::Failure;
    let fixture = start(0);
    let (env, book) = reading_first_comic(&fixture).await;
    position_sync::record(&env.store, book, 5).unwrap();
    let count = books::get(&env.store, book).unwrap().page_count.unwrap();
    for page in [-1, count, count + 100, i64::MIN] {
        let err = position_sync::record(&env.store, book, page).unwrap_err();
        assert_eq!(
            err.kind(),
            carrel_core::ErrorKind::InvalidInput,
            "{page}: {err}"
        );
    }
    assert_eq!(
        books::get(&env.store, book).unwrap().last_page,
        Some(5),
        "the position stays"
    );
    assert_eq!(pending(&env).len(), 1);
    assert_eq!(pending(&env)[0].page, Some(5));
    fixture.stop();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_position_saved_offline_waits_in_the_outbox_until_the_server_is_back() {
    let fixture = start(0);
    let port = fixture.port();
    let (env, book) = reading_first_comic(&fixture).await;
    fixture.stop();

    position_sync::record(&env.store, book, 11).unwrap();
    assert_eq!(flush(&env).await, one("failed"));
    assert_eq!(flush(&env).await, one("failed"));
    let waiting = pending(&env);
    assert_eq!(waiting.len(), 1);
    assert_eq!(
        (waiting[0].book_id, waiting[0].page, waiting[0].attempts),
        (book, Some(11), 2)
    );
    assert!(waiting[0].last_error.is_some());

    // The same server comes back on the same address.
    let back = start(port);
    assert_eq!(flush(&env).await, one("sent"));
    assert_eq!(server_page(&back), Some(11));
    assert!(pending(&env).is_empty());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn on_a_conflict_the_newer_position_wins() {
    let fixture = start(0);
    let (env, book) = reading_first_comic(&fixture).await;

    // Another device read further, later: its position stays and this device takes it.
    let later = env.store.now_ms() + 3_600_000;
    fixture.set_progression(1, Some(locator(later, 15)));
    position_sync::record(&env.store, book, 3).unwrap();
    assert_eq!(flush(&env).await, one("server_newer"));
    assert_eq!(server_page(&fixture), Some(14));
    assert_eq!(fixture.stats().progressions[&1].conflicts, 1);
    assert_eq!(books::get(&env.store, book).unwrap().last_page, Some(14));
    assert!(pending(&env).is_empty());

    // An older position on the server gives way to this device's.
    fixture.set_progression(1, Some(locator(env.store.now_ms() - 86_400_000, 2)));
    position_sync::record(&env.store, book, 9).unwrap();
    assert_eq!(flush(&env).await, one("sent"));
    assert_eq!(server_page(&fixture), Some(9));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn background_downloads_never_touch_the_servers_position() {
    let fixture = start(0);
    let (env, book) = reading_first_comic(&fixture).await;
    fixture.reset_stats();

    book_downloads::store_book(&env.store, book).unwrap();
    book_downloads::open_book(&env.store, book, Some(5)).unwrap();
    env.sync(fast_config()).await;
    assert_eq!(flush(&env).await, FlushReport::default());

    let stats = fixture.stats();
    assert!(
        stats.hits("/books/1/file") + stats.hits("/books/1/pages/5") > 0,
        "the book was downloaded"
    );
    assert_eq!(stats.hits("/books/1/progression"), 0);
    assert!(fixture.progression(1).is_none());
    assert!(pending(&env).is_empty());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn opening_a_book_offers_the_servers_position_when_it_is_newer() {
    let fixture = start(0);
    let (env, book) = reading_first_comic(&fixture).await;

    // No position anywhere yet.
    assert_eq!(newest(&env, book).await, None);

    position_sync::record(&env.store, book, 4).unwrap();
    fixture.set_progression(1, Some(locator(env.store.now_ms() - 60_000, 10)));
    assert_eq!(
        newest(&env, book).await,
        None,
        "the server's is older than this device's"
    );

    fixture.set_progression(1, Some(locator(env.store.now_ms() + 60_000, 17)));
    let theirs = newest(&env, book)
        .await
        .expect("the server's newer position");
    assert_eq!(
        (theirs.page, theirs.source),
        (16, PositionSource::Progression)
    );

    // Unreachable: opening goes on with this device's position.
    fixture.stop();
    assert_eq!(newest(&env, book).await, None);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn without_a_progression_document_the_page_streams_last_read_is_offered() {
    let fixture = fixture_server::Server::start(Config {
        books: 2,
        comic_pages: [(1, 20)].into(),
        reading_positions: Some([(1, 12)].into()),
        ..Config::default()
    })
    .unwrap();
    let (env, book) = reading_first_comic(&fixture).await;
    let path = env.dir.database();
    rusqlite::Connection::open(path)
        .unwrap()
        .execute(
            "UPDATE books SET progression_url = NULL WHERE id = ?1",
            [book],
        )
        .unwrap();

    let theirs = newest(&env, book).await.unwrap();
    assert_eq!(
        (theirs.page, theirs.source),
        (12, PositionSource::PageStream)
    );
    // Read-only: saving without a progression document queues nothing.
    position_sync::record(&env.store, book, 13).unwrap();
    assert!(pending(&env).is_empty());
    assert_eq!(newest(&env, book).await, None);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_epub_position_travels_with_its_cfi_and_the_servers_newer_one_is_taken() {
    let fixture = fixture_server::Server::start(Config {
        books: 3,
        reading_positions: Some(BTreeMap::new()),
        ..Config::default()
    })
    .unwrap();
    let (env, server) = Env::with_fixture(&fixture);
    let epub = listed_book(&env, &server, 3).await;
    assert_eq!(
        books::get(&env.store, epub).unwrap().format,
        books::BookFormat::Epub
    );

    position_sync::record_epub(&env.store, epub, "epubcfi(/6/8!/4/2/10/1:42)", 0.4, None).unwrap();
    let waiting = pending(&env);
    assert_eq!(
        (waiting[0].page, waiting[0].cfi.as_deref()),
        (None, Some("epubcfi(/6/8!/4/2/10/1:42)"))
    );
    assert_eq!(flush(&env).await, one("sent"));
    let sent = fixture.progression(3).expect("the server has the position");
    assert_eq!(
        sent["locator"]["locations"]["fragments"],
        json!(["epubcfi(/6/8!/4/2/10/1:42)"])
    );
    assert_eq!(
        sent["locator"]["locations"]["totalProgression"].as_f64(),
        Some(0.4)
    );
    assert!(
        sent["locator"]["locations"].get("position").is_none(),
        "an EPUB position has no page"
    );

    // The same position coming back is not "newer elsewhere".
    assert_eq!(newest(&env, epub).await, None);

    // Another device read on, later: opening takes its CFI.
    fixture.set_progression(
        3,
        Some(json!({
            "modified": timestamps::format_rfc3339(env.store.now_ms() + 60_000),
            "device": { "id": "another-reader", "name": "Elsewhere" },
            "locator": { "locations": { "totalProgression": 0.7, "fragments": ["epubcfi(/6/12!/4/2/1:0)"] } }
        })),
    );
    let theirs = take_newer(&env, epub).await.expect("newer");
    assert_eq!(
        (theirs.cfi.as_deref(), theirs.progression),
        (Some("epubcfi(/6/12!/4/2/1:0)"), Some(0.7))
    );
    let kept = epub_positions::position(&env.store, epub).unwrap().unwrap();
    assert_eq!(
        (kept.cfi.as_str(), kept.fraction),
        ("epubcfi(/6/12!/4/2/1:0)", 0.7)
    );
    assert_eq!(newest(&env, epub).await, None, "taken");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn opening_a_book_without_reading_does_not_outdate_the_servers_position() {
    let fixture = start(0);
    let (env, book) = reading_first_comic(&fixture).await;
    position_sync::record(&env.store, book, 2).unwrap();
    let read_at = books::get(&env.store, book)
        .unwrap()
        .position_ms
        .expect("reading sets the position's time");

    // Another device moves on after this one read; this one then only opens the book.
    fixture.set_progression(1, Some(locator(read_at + 1_000, 9)));
    book_downloads::open_book(&env.store, book, None).unwrap();
    let theirs = take_newer(&env, book).await;
    assert_eq!(theirs.map(|t| t.page), Some(8));
    let now = books::get(&env.store, book).unwrap();
    assert_eq!(now.last_page, Some(8));
    // Taken as of the server's time, but never later than this device's clock.
    let taken_at = now.position_ms.unwrap();
    assert!(
        taken_at > read_at && taken_at <= read_at + 1_000,
        "{taken_at} vs {read_at}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_komga_server_gets_positions_through_its_read_progress_api() {
    let fixture = komga_keeping_positions();
    {
        // Pages stream from under Komga's OPDS route; reading is what moves Komga's position.
        let env = Env::new();
        let server = env.add_server("Komga", &fixture.url("/opds"));
        let book = first_comic(&env, &server).await;
        let known = books::get(&env.store, book).unwrap();
        assert_eq!(known.progression_url, None);
        assert_eq!(
            known.read_progress_url.as_deref(),
            Some(fixture.url("/api/v1/books/1/read-progress").as_str())
        );
        book_downloads::open_book(&env.store, book, Some(5)).unwrap();
        env.sync(fast_config()).await;
        assert!(fixture.stats().hits("/opds/v1.2/books/1/pages/5") > 0);
        assert_eq!(fixture.reading_position(1), None);
    }

    // Another device, reading two hours ago (its clock only moves forward).
    let wall = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_millis() as i64;
    let clock = Arc::new(ManualClock::new(wall - 7_200_000));
    let env = Env::with_clock(clock.clone());
    let server = env.add_server("Komga", &fixture.url("/opds"));
    let book = first_comic(&env, &server).await;

    // A page read here is sent, one-based.
    position_sync::record(&env.store, book, 6).unwrap();
    assert_eq!(flush(&env).await, one("sent"));
    let theirs = fixture.reading_position(1).unwrap();
    assert_eq!((theirs.index, theirs.read_progress_patches), (6, 1));
    assert_eq!(newest(&env, book).await, None, "same page");

    // The next page read here goes out too, although this device's clock is behind the stamp
    // Komga gave the last one: Komga's position is this device's own echo, not a newer one.
    clock.advance_ms(20_000);
    position_sync::record(&env.store, book, 7).unwrap();
    assert_eq!(flush(&env).await, one("sent"));
    let theirs = fixture.reading_position(1).unwrap();
    assert_eq!((theirs.index, theirs.read_progress_patches), (7, 2));
    assert_eq!(newest(&env, book).await, None, "its own echo");

    // Read further on another device (Komga stamps to the second: a later second): opening
    // takes Komga's page.
    std::thread::sleep(std::time::Duration::from_millis(1100));
    fixture.set_reading_position(1, Some(14));
    let taken = take_newer(&env, book).await.unwrap();
    assert_eq!(
        (taken.page, taken.source),
        (14, PositionSource::ReadProgress)
    );
    assert_eq!(books::get(&env.store, book).unwrap().last_page, Some(14));

    // A save older than Komga's gives way to it; a newer one is sent.
    clock.set_ms(wall - 3_600_000);
    position_sync::record(&env.store, book, 3).unwrap();
    assert_eq!(flush(&env).await, one("server_newer"));
    assert_eq!(fixture.reading_position(1).unwrap().index, 14);
    assert_eq!(books::get(&env.store, book).unwrap().last_page, Some(14));
    clock.set_ms(wall + 3_600_000);
    position_sync::record(&env.store, book, 19).unwrap();
    assert_eq!(flush(&env).await, one("sent"));
    let theirs = fixture.reading_position(1).unwrap();
    assert_eq!((theirs.index, theirs.read_progress_patches), (19, 3));
    assert!(pending(&env).is_empty());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn positions_never_go_to_an_address_off_the_servers_origin() {
    let library = start(0);
    // Another machine on the network that a hostile feed points at.
    let elsewhere = start(0);
    let env = Env::new();
    let server = env.add_server("Fixture", &library.url("/opds"));
    let remember = |id: &str, progression: Option<String>, read_progress: Option<String>| {
        books::remember(
            &env.store,
            server.id,
            &books::CatalogBook {
                stream_template: Some(library.url("/books/1/pages/{pageNumber}")),
                page_count: Some(20),
                progression_url: progression,
                read_progress_url: read_progress,
                ..books::CatalogBook::bare(id, id, books::BookFormat::Comic)
            },
        )
        .unwrap()
        .id
    };
    let progression = remember("urn:p", Some(elsewhere.url("/books/1/progression")), None);
    let komga = remember(
        "urn:k",
        None,
        Some(elsewhere.url("/api/v1/books/1/read-progress")),
    );
    elsewhere.reset_stats();
    position_sync::record(&env.store, progression, 5).unwrap();
    position_sync::record(&env.store, komga, 6).unwrap();
    flush(&env).await;
    assert!(newest(&env, progression).await.is_none());
    assert!(newest(&env, komga).await.is_none());
    assert_eq!(
        elsewhere.stats().total_requests,
        0,
        "nothing was sent to another host"
    );
    assert!(pending(&env).is_empty(), "nothing kept to retry forever");
}
