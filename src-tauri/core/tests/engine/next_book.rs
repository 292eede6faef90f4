//! From one book to the next: a book's neighbours in its series (by number, then in a series
//! feed's order), each with whether it is on the device and its download; books read to their
//! end — finished here or marked read by hand — and marked unread again, the marks sent to the
//! server's progression document, to Komga's read progress and queued for the KOReader sync
//! server; "continue reading" leaves read books out.

use std::collections::BTreeMap;

use carrel_core::{
    catalog::book_view::{self},
    catalog::client::CatalogItem,
    catalog::series_read_ahead,
    engine::book_downloads::{self, BookState},
    library::books::{self, Book},
    reading::kosync,
    reading::position_sync::{self, FlushReport},
    ErrorKind, Failure,
};
use fixture_server::Config;

use crate::support::{
    fast_config, feed_book_ids, http, komga_keeping_positions, komga_series_library, listed_book,
    saga, Env,
};

const PAGES: u32 = 3;

fn ids(n: &series_read_ahead::Neighbours) -> (Option<i64>, Option<i64>) {
    (
        n.previous.as_ref().map(|b| b.book_id),
        n.next.as_ref().map(|b| b.book_id),
    )
}

#[tokio::test]
async fn a_books_neighbours_are_the_books_before_and_after_it_in_series_order() {
    let fixture = fixture_server::Server::start(Config {
        books: 6,
        comic_pages: (1..=6).map(|id| (id, PAGES)).collect(),
        ..Default::default()
    })
    .unwrap();
    let env = Env::new();
    let b = saga(&env, &fixture, PAGES);
    let of = |book: &Book| series_read_ahead::neighbours(&env.store, book.id).unwrap();

    // The first has no previous book; the next is number 2, only on the server.
    let first = of(&b[0]);
    assert_eq!(first.series.as_deref(), Some("Saga"));
    assert_eq!(ids(&first), (None, Some(b[1].id)));
    let next = first.next.unwrap();
    assert_eq!((next.title.as_str(), next.number), ("Comic 2", Some(2.0)));
    assert!(!next.on_device && !next.finished);
    assert_eq!(next.status.state, BookState::Remote);
    // In between, by number whatever the order they became known in.
    assert_eq!(ids(&of(&b[2])), (Some(b[1].id), Some(b[3].id)));
    // The book without a number comes last: nothing after it.
    assert_eq!(ids(&of(&b[4])), (Some(b[3].id), None));
    // A book in no known series has neither.
    let alone = of(&b[5]);
    assert_eq!((alone.series, ids(&of(&b[5]))), (None, (None, None)));
    let missing = series_read_ahead::neighbours(&env.store, 999_999).unwrap_err();
    assert_eq!(missing.kind(), ErrorKind::NotFound);

    // Book 2 stored by a sync: on the device. Book 4 queued: its download waits.
    book_downloads::store_book(&env.store, b[1].id).unwrap();
    env.sync(fast_config()).await;
    book_downloads::store_book(&env.store, b[3].id).unwrap();
    let next = of(&b[0]).next.unwrap();
    assert!(next.on_device, "{next:?}");
    assert_eq!(next.status.state, BookState::Stored);
    let parts = &next.status.progress;
    assert!(
        parts.total_parts > 0 && parts.stored_parts == parts.total_parts,
        "{parts:?}"
    );
    let waiting = of(&b[2]).next.unwrap();
    assert!(!waiting.on_device);
    assert_eq!(waiting.status.state, BookState::Queued);
    assert_eq!(waiting.status.progress.stored_parts, 0);

    // Marked read, the next book says so.
    series_read_ahead::mark_read(&env.store, b[1].id, true).unwrap();
    assert!(of(&b[0]).next.unwrap().finished);
    assert!(of(&b[2]).previous.unwrap().finished);
}

/// Komga's OPDS 1.2 names no series in its entries: neighbours come from the series feed
/// browsed, in its order across its pages.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn neighbours_follow_a_komga_series_feed_where_entries_name_no_series() {
    let (_fixture, env, server) = komga_series_library(PAGES);
    let client = env.client();
    let all = feed_book_ids(&client, &server, "/opds/books").await;
    let before = series_read_ahead::neighbours(&env.store, all[0]).unwrap();
    assert_eq!((before.series.clone(), ids(&before)), (None, (None, None)));

    let list = client.browse(&server, Some("/opds/series")).await.unwrap();
    let mut feeds = Vec::new();
    for e in &list.entries {
        if let CatalogItem::Navigation { title, href, .. } = e {
            feeds.push((title.clone(), feed_book_ids(&client, &server, href).await));
        }
    }
    feeds.sort_by_key(|(_, books)| std::cmp::Reverse(books.len()));
    let (name, series) = &feeds[0];
    assert!(series.len() >= 3, "{feeds:?}");
    for (at, id) in series.iter().enumerate() {
        let n = series_read_ahead::neighbours(&env.store, *id).unwrap();
        assert_eq!(n.series.as_ref(), Some(name));
        let expected = (
            at.checked_sub(1).map(|p| series[p]),
            series.get(at + 1).copied(),
        );
        assert_eq!(ids(&n), expected, "book {at} of {series:?}");
        assert!(
            n.next.iter().all(|b| b.number.is_none()),
            "no number made up"
        );
    }
}

/// Flushes the positions waiting (one is sent) and gives the server's progression document
/// of book 1: its position (one-based) and its total progression.
async fn sent_progression(
    env: &Env,
    fixture: &fixture_server::RunningServer,
) -> (Option<i64>, Option<f64>) {
    assert_eq!(flush(env).await.sent, 1);
    let theirs = fixture.progression(1).unwrap();
    let at = &theirs["locator"]["locations"];
    (at["position"].as_i64(), at["totalProgression"].as_f64())
}

async fn flush(env: &Env) -> FlushReport {
    position_sync::flush(&env.store, &http(), &env.credentials)
        .await
        .unwrap()
}

fn read(env: &Env, id: i64) -> bool {
    book_view::details(&env.store, id).unwrap().read
}

fn continuing(env: &Env) -> Vec<i64> {
    book_view::continue_reading(&env.store, None)
        .unwrap()
        .into_iter()
        .map(|d| d.book_id)
        .collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn marked_read_the_progression_document_is_at_the_end_and_marked_unread_at_the_start() {
    let fixture = fixture_server::Server::start(Config {
        books: 2,
        comic_pages: [(1, 20)].into(),
        reading_positions: Some(BTreeMap::new()),
        ..Config::default()
    })
    .unwrap();
    let (env, server) = Env::with_fixture(&fixture);
    let book = listed_book(&env, &server, 1).await;
    position_sync::record(&env.store, book, 4).unwrap();
    assert_eq!(continuing(&env), [book]);

    series_read_ahead::mark_read(&env.store, book, true).unwrap();
    assert!(read(&env, book));
    assert_eq!(books::get(&env.store, book).unwrap().last_page, Some(19));
    assert!(continuing(&env).is_empty(), "a read book is not continued");
    // Queued for the KOReader sync server too (sent there once an account is set up).
    assert!(kosync::pending(&env.store)
        .unwrap()
        .iter()
        .any(|(id, _, _)| *id == book));
    assert_eq!(
        sent_progression(&env, &fixture).await,
        (Some(20), Some(1.0))
    );

    std::thread::sleep(std::time::Duration::from_millis(5));
    series_read_ahead::mark_read(&env.store, book, false).unwrap();
    assert!(!read(&env, book));
    assert_eq!(books::get(&env.store, book).unwrap().last_page, Some(0));
    assert_eq!(continuing(&env), [book]);
    assert_eq!(sent_progression(&env, &fixture).await, (Some(1), Some(0.0)));
    assert!(position_sync::pending(&env.store).unwrap().is_empty());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn komga_hears_read_as_completed_and_unread_as_its_read_progress_deleted() {
    let fixture = komga_keeping_positions();
    let env = Env::new();
    let server = env.add_server("Komga", &fixture.url("/opds"));
    let book = listed_book(&env, &server, 1).await;

    series_read_ahead::mark_read(&env.store, book, true).unwrap();
    assert_eq!(flush(&env).await.sent, 1);
    let theirs = fixture
        .reading_position(1)
        .expect("Komga has the book read");
    assert_eq!((theirs.index, theirs.read_progress_patches), (19, 1));
    let (_, doc) = fetch_json(&fixture.url("/api/v1/books/1")).await;
    assert_eq!(doc["readProgress"]["completed"], true);
    // Its own mark does not come back as a newer position.
    assert_eq!(
        position_sync::newest(&env.store, &http(), &env.credentials, book)
            .await
            .unwrap(),
        None
    );

    std::thread::sleep(std::time::Duration::from_millis(5));
    series_read_ahead::mark_read(&env.store, book, false).unwrap();
    assert_eq!(flush(&env).await.sent, 1);
    assert_eq!(
        fixture.reading_position(1),
        None,
        "unread: Komga forgets it"
    );
    let (_, doc) = fetch_json(&fixture.url("/api/v1/books/1")).await;
    assert!(doc["readProgress"].is_null(), "{doc}");
}

async fn fetch_json(url: &str) -> (u16, serde_json::Value) {
    let answer = reqwest::get(url).await.unwrap();
    let status = answer.status().as_u16();
    (status, answer.json().await.unwrap())
}

#[tokio::test]
async fn a_book_read_to_its_end_is_read_until_a_page_before_it_is_saved() {
    let fixture = fixture_server::Server::start(Config {
        books: 2,
        comic_pages: [(1, PAGES)].into(),
        ..Default::default()
    })
    .unwrap();
    let (env, server) = Env::with_fixture(&fixture);
    let template = fixture.url("/books/1/pages/{pageNumber}");
    let comic = env.comic(&server, "1", PAGES, &template).id;

    series_read_ahead::record_position(&env.store, comic, 1).unwrap();
    assert!(!read(&env, comic));
    assert_eq!(continuing(&env), [comic]);
    series_read_ahead::record_position(&env.store, comic, i64::from(PAGES) - 1).unwrap();
    assert!(read(&env, comic), "its last page: read");
    assert!(continuing(&env).is_empty());
    // Read again from the start: unread, continued again.
    series_read_ahead::record_position(&env.store, comic, 0).unwrap();
    assert!(!read(&env, comic));
    assert_eq!(continuing(&env), [comic]);

    // An EPUB: read at 99 %, not at 98 %; marked unread, it starts over.
    let epub = books::remember(
        &env.store,
        server.id,
        &books::CatalogBook {
            file_url: Some(fixture.url("/books/2/file")),
            file_type: Some("application/epub+zip".into()),
            ..books::CatalogBook::bare("urn:epub", "A Novel", books::BookFormat::Epub)
        },
    )
    .unwrap()
    .id;
    let cfi = "epubcfi(/6/14!/4/2/1:0)";
    series_read_ahead::record_epub_position(&env.store, epub, cfi, 0.98, None).unwrap();
    assert!(!read(&env, epub));
    series_read_ahead::record_epub_position(&env.store, epub, cfi, 0.99, None).unwrap();
    assert!(read(&env, epub));
    series_read_ahead::mark_read(&env.store, epub, false).unwrap();
    assert!(!read(&env, epub));
    assert_eq!(
        carrel_core::reading::epub_positions::position(&env.store, epub).unwrap(),
        None
    );
    // Marked read after reading some: its place is kept, counted as the end.
    series_read_ahead::record_epub_position(&env.store, epub, cfi, 0.4, None).unwrap();
    series_read_ahead::mark_read(&env.store, epub, true).unwrap();
    let kept = carrel_core::reading::epub_positions::position(&env.store, epub)
        .unwrap()
        .unwrap();
    assert_eq!((kept.cfi.as_str(), kept.fraction), (cfi, 1.0));
    assert!(read(&env, epub));
    assert!(!continuing(&env).contains(&epub));
}

/// A series marked at once: every book of it known here is read (or unread), each mark sent to
/// the server as a single mark is; a book in no series is refused.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_series_marked_read_marks_every_book_of_it_and_sends_each_mark() {
    let fixture = fixture_server::Server::start(Config {
        books: 3,
        comic_pages: [(1, 4), (2, 5), (3, 6)].into(),
        reading_positions: Some(BTreeMap::new()),
        ..Config::default()
    })
    .unwrap();
    let (env, server) = Env::with_fixture(&fixture);
    let mut series = Vec::new();
    for id in 1..=3 {
        series.push(listed_book(&env, &server, id).await);
    }
    let last = |id: u32| {
        let at = fixture.progression(id).unwrap();
        at["locator"]["locations"]["totalProgression"].as_f64()
    };

    let marked = series_read_ahead::mark_series_read(&env.store, series[1], true).unwrap();
    assert_eq!(marked.series, fixture.book(1).unwrap().series);
    assert_eq!(marked.book_ids, series, "every book, in series order");
    assert!(series.iter().all(|id| read(&env, *id)));
    assert_eq!(
        books::get(&env.store, series[2]).unwrap().last_page,
        Some(5)
    );
    assert!(continuing(&env).is_empty());
    assert_eq!(flush(&env).await.sent, 3);
    assert_eq!(
        (last(1), last(2), last(3)),
        (Some(1.0), Some(1.0), Some(1.0))
    );

    std::thread::sleep(std::time::Duration::from_millis(5));
    let marked = series_read_ahead::mark_series_read(&env.store, series[0], false).unwrap();
    assert_eq!(marked.book_ids, series);
    assert!(series.iter().all(|id| !read(&env, *id)));
    assert_eq!(flush(&env).await.sent, 3);
    assert_eq!(
        (last(1), last(2), last(3)),
        (Some(0.0), Some(0.0), Some(0.0))
    );

    // A book no entry places in a series, and a book not on the list.
    let alone = env.comic(
        &server,
        "alone",
        2,
        &fixture.url("/books/1/pages/{pageNumber}"),
    );
    let refused = series_read_ahead::mark_series_read(&env.store, alone.id, true).unwrap_err();
    assert_eq!(refused.kind(), ErrorKind::InvalidInput);
    assert!(!read(&env, alone.id));
    let missing = series_read_ahead::mark_series_read(&env.store, 999_999, true).unwrap_err();
    assert_eq!(missing.kind(), ErrorKind::NotFound);
}
