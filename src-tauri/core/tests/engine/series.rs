//! Read-ahead per series: the next unread books of a series queued while one is read, in
//! series order and not prioritary; stored by a real sync; finished books the read-ahead brought
//! removed once their days are up (a book the reader pinned stays); a book whose entry names no
//! series says so. A server's default read-ahead: taken by a series read without a read-ahead of
//! its own, never over a series' own read-ahead or a series the reader stopped, off until set.

use std::sync::Arc;

use carrel_core::{
    catalog::series_read_ahead::{self, SeriesError, ServerDefault},
    engine::book_downloads::{self, BookState},
    engine::download_stack::{self, TaskKind},
    foundation::clock::ManualClock,
    foundation::store::Store,
    library::books::{self, Book},
    ErrorKind, Failure,
};
use fixture_server::{Config, RunningServer};

use crate::support::{fast_config, feed_books, komga_series_library, saga, Env};

const PAGES: u32 = 3;
const DAY_MS: i64 = 24 * 60 * 60 * 1000;

/// Six comics of three pages.
fn start() -> RunningServer {
    fixture_server::Server::start(Config {
        books: 6,
        comic_pages: (1..=6).map(|id| (id, PAGES)).collect(),
        ..Default::default()
    })
    .expect("the fixture server starts")
}

/// The fixture (see [`start`]) and a new data dir with its books (see [`saga`]).
fn saga_library() -> (RunningServer, Env, Vec<books::Book>) {
    let fixture = start();
    let env = Env::new();
    let b = saga(&env, &fixture, PAGES);
    (fixture, env, b)
}

/// The read-ahead the series of book `id` has, if any.
fn read_ahead_of(env: &Env, id: i64) -> Option<series_read_ahead::SeriesReadAhead> {
    series_read_ahead::show(&env.store, id).unwrap().read_ahead
}

/// The books waiting in the stack, in the order they will be taken.
fn queued(store: &Store) -> Vec<(i64, bool)> {
    let mut seen = Vec::new();
    for t in download_stack::pending_in_pop_order(store, 10_000).unwrap() {
        if t.kind != TaskKind::Resource && !seen.iter().any(|(b, _)| *b == t.book_id) {
            seen.push((t.book_id, t.prioritary));
        }
    }
    seen
}

fn state(store: &Store, book: &Book) -> BookState {
    book_downloads::status(store, &books::get(store, book.id).unwrap())
        .unwrap()
        .state
}

#[tokio::test]
async fn the_next_unread_books_are_queued_in_series_order_and_stored_by_a_sync() {
    let (_fixture, env, b) = saga_library();

    let view = series_read_ahead::keep(&env.store, b[0].id, 2, None).unwrap();
    assert_eq!(view.series, "Saga");
    let order: Vec<i64> = view.books.iter().map(|x| x.book_id).collect();
    // Numbered books in their order, the one without a number last; book 6 is not in it.
    assert_eq!(order, [b[0].id, b[1].id, b[2].id, b[3].id, b[4].id]);
    // The next two after book 1, book 2 first, neither prioritary.
    assert_eq!(queued(&env.store), [(b[1].id, false), (b[2].id, false)]);

    // Turning pages in book 1 queues nothing more.
    series_read_ahead::record_position(&env.store, b[0].id, 1).unwrap();
    assert_eq!(queued(&env.store).len(), 2);

    let (_finish, _sink) = env.sync(fast_config()).await;
    assert_eq!(state(&env.store, &b[1]), BookState::Stored);
    assert_eq!(state(&env.store, &b[2]), BookState::Stored);
    assert_eq!(state(&env.store, &b[3]), BookState::Remote);

    // Book 2 read to its last page: book 3 is on the device already, book 4 comes next.
    let applied =
        series_read_ahead::record_position(&env.store, b[1].id, i64::from(PAGES) - 1).unwrap();
    assert_eq!(applied.queued, [b[3].id]);
    let view = series_read_ahead::show(&env.store, b[1].id).unwrap();
    assert!(view.books[1].finished && view.books[1].kept_by_read_ahead);
    // Kept by the read-ahead: "books kept on the device" leaves them be.
    book_downloads::evict_unkept(&env.store, 0).unwrap();
    assert_eq!(state(&env.store, &b[2]), BookState::Stored);
    // A book of the read-ahead the reader removes is let go, not brought back at the next page.
    book_downloads::remove_book(&env.store, b[2].id).unwrap();
    let applied = series_read_ahead::record_position(&env.store, b[1].id, 1).unwrap();
    assert!(applied.queued.is_empty(), "{applied:?}");
    assert_eq!(state(&env.store, &b[2]), BookState::Remote);
}

#[tokio::test]
async fn finished_books_the_read_ahead_brought_go_after_their_days_and_a_book_pinned_by_the_reader_stays(
) {
    let fixture = start();
    let clock = ManualClock::new(1_700_000_000_000);
    let env = Env::with_clock(Arc::new(clock.clone()));
    let b = saga(&env, &fixture, PAGES);
    // The reader keeps book 3 offline themselves.
    books::set_pinned(&env.store, b[2].id, true).unwrap();
    book_downloads::store_book(&env.store, b[2].id).unwrap();

    series_read_ahead::keep(&env.store, b[0].id, 2, Some(1)).unwrap();
    env.sync(fast_config()).await;
    for book in [&b[1], &b[2]] {
        assert_eq!(state(&env.store, book), BookState::Stored);
        series_read_ahead::record_position(&env.store, book.id, i64::from(PAGES) - 1).unwrap();
    }

    // Less than a day later nothing goes.
    clock.advance_ms(DAY_MS / 2);
    let applied = series_read_ahead::record_position(&env.store, b[3].id, 0).unwrap();
    assert!(applied.removed.is_empty());

    clock.advance_ms(DAY_MS);
    let applied = series_read_ahead::record_position(&env.store, b[3].id, 1).unwrap();
    assert_eq!(applied.removed, [b[1].id]);
    assert_eq!(state(&env.store, &b[1]), BookState::Remote);
    assert!(!books::get(&env.store, b[1].id).unwrap().pinned);
    assert_eq!(state(&env.store, &b[2]), BookState::Stored);
    assert!(books::get(&env.store, b[2].id).unwrap().pinned);
}

#[test]
fn a_book_whose_entry_names_no_series_has_no_read_ahead_and_says_so() {
    let (_fixture, env, b) = saga_library();
    let err = series_read_ahead::keep(&env.store, b[5].id, 2, None).unwrap_err();
    assert!(matches!(err, SeriesError::NoSeries(_)), "{err}");
    assert_eq!(err.kind(), ErrorKind::InvalidInput);
    assert!(err.to_string().contains("Comic 6"), "{err}");
    // Reading it queues nothing.
    series_read_ahead::record_position(&env.store, b[5].id, 0).unwrap();
    assert!(queued(&env.store).is_empty());
    // Out of range.
    assert!(matches!(
        series_read_ahead::keep(&env.store, b[0].id, 0, None),
        Err(SeriesError::BadKeepNext(0))
    ));
    assert!(matches!(
        series_read_ahead::keep(&env.store, b[0].id, 51, None),
        Err(SeriesError::BadKeepNext(51))
    ));
}

#[test]
fn a_book_the_server_says_was_read_to_its_end_is_not_kept_ahead() {
    let (_fixture, env, b) = saga_library();
    // Book 2 was read to its last page on another device (the page stream's `pse:lastRead`).
    env.store
        .write(|tx| {
            tx.execute(
                "UPDATE books SET pse_last_read = ?2 WHERE id = ?1",
                rusqlite::params![b[1].id, i64::from(PAGES) - 1],
            )
            .map_err(|e| env.store.sql_error(e))
        })
        .unwrap();
    let view = series_read_ahead::keep(&env.store, b[0].id, 2, None).unwrap();
    assert!(view.books[1].finished, "{view:?}");
    assert_eq!(queued(&env.store), [(b[2].id, false), (b[3].id, false)]);
}

#[test]
fn with_no_default_reading_a_series_without_a_read_ahead_queues_nothing() {
    let (fixture, env, b) = saga_library();
    // Another server's default is not this one's.
    let other = env.add_server("Other", &fixture.url("/opds?other"));
    series_read_ahead::set_server_default(&env.store, other.id, 3, None).unwrap();

    assert_eq!(
        series_read_ahead::server_default(&env.store, b[0].server_id).unwrap(),
        None
    );
    for page in 0..i64::from(PAGES) {
        let applied = series_read_ahead::record_position(&env.store, b[0].id, page).unwrap();
        assert!(applied.queued.is_empty(), "{applied:?}");
    }
    assert!(queued(&env.store).is_empty());
    let view = series_read_ahead::show(&env.store, b[0].id).unwrap();
    assert_eq!(
        (view.read_ahead, view.server_default, view.stopped),
        (None, None, false)
    );
    // Off again is off: nothing to end, nothing queued.
    assert_eq!(
        series_read_ahead::set_server_default(&env.store, b[0].server_id, 0, None).unwrap(),
        None
    );
    series_read_ahead::record_position(&env.store, b[1].id, 0).unwrap();
    assert!(queued(&env.store).is_empty());
}

#[tokio::test]
async fn the_servers_default_applies_to_a_series_read_without_a_read_ahead_of_its_own() {
    let (_fixture, env, b) = saga_library();
    let server = b[0].server_id;

    let set = series_read_ahead::set_server_default(&env.store, server, 2, Some(7)).unwrap();
    let default = ServerDefault {
        keep_next: 2,
        remove_after_days: Some(7),
    };
    assert_eq!(set, Some(default));
    assert_eq!(
        series_read_ahead::server_default(&env.store, server).unwrap(),
        Some(default)
    );
    // Setting it queues nothing by itself: the series is not being read.
    assert!(queued(&env.store).is_empty());
    let view = series_read_ahead::show(&env.store, b[0].id).unwrap();
    assert_eq!(view.read_ahead, None);
    assert_eq!(view.server_default, Some(default));

    // Reading book 1 gives the series the default's read-ahead: books 2 and 3 come, not prioritary.
    let applied = series_read_ahead::record_position(&env.store, b[0].id, 0).unwrap();
    assert_eq!(applied.queued, [b[1].id, b[2].id]);
    assert_eq!(queued(&env.store), [(b[1].id, false), (b[2].id, false)]);
    let read_ahead = read_ahead_of(&env, b[0].id).expect("the series has the default's read-ahead");
    assert_eq!(
        (
            read_ahead.keep_next,
            read_ahead.remove_after_days,
            read_ahead.from_server_default
        ),
        (2, Some(7), true)
    );
    env.sync(fast_config()).await;
    assert_eq!(state(&env.store, &b[1]), BookState::Stored);
    assert_eq!(state(&env.store, &b[2]), BookState::Stored);

    // A changed default changes the read-ahead it made.
    series_read_ahead::set_server_default(&env.store, server, 3, None).unwrap();
    let applied = series_read_ahead::record_position(&env.store, b[0].id, 1).unwrap();
    assert_eq!(applied.queued, [b[3].id]);
    let read_ahead = read_ahead_of(&env, b[0].id).unwrap();
    assert_eq!(
        (read_ahead.keep_next, read_ahead.remove_after_days),
        (3, None)
    );

    // Turned off, it ends the read-ahead it made; what it stored stays (pinned).
    assert_eq!(
        series_read_ahead::set_server_default(&env.store, server, 0, None).unwrap(),
        None
    );
    let view = series_read_ahead::show(&env.store, b[0].id).unwrap();
    assert_eq!(
        (view.read_ahead, view.server_default, view.stopped),
        (None, None, false)
    );
    assert_eq!(state(&env.store, &b[1]), BookState::Stored);
    assert!(books::get(&env.store, b[1].id).unwrap().pinned);
    book_downloads::remove_book(&env.store, b[3].id).unwrap();
    let applied = series_read_ahead::record_position(&env.store, b[2].id, 0).unwrap();
    assert!(applied.queued.is_empty(), "{applied:?}");
    assert_eq!(state(&env.store, &b[3]), BookState::Remote);

    // Out of range, and a server that is not there.
    assert!(matches!(
        series_read_ahead::set_server_default(&env.store, server, 51, None),
        Err(SeriesError::BadKeepNext(51))
    ));
    assert!(matches!(
        series_read_ahead::set_server_default(&env.store, server, 2, Some(3651)),
        Err(SeriesError::BadRemoveAfter(3651))
    ));
    let err = series_read_ahead::set_server_default(&env.store, 9999, 2, None).unwrap_err();
    assert_eq!(err.kind(), ErrorKind::NotFound, "{err}");
}

#[test]
fn a_series_own_read_ahead_overrides_the_servers_default() {
    let (_fixture, env, b) = saga_library();
    let server = b[0].server_id;
    series_read_ahead::keep(&env.store, b[0].id, 1, None).unwrap();
    series_read_ahead::set_server_default(&env.store, server, 3, Some(0)).unwrap();

    // The series keeps one book ahead, as the reader set, not three.
    series_read_ahead::record_position(&env.store, b[0].id, 1).unwrap();
    assert_eq!(queued(&env.store), [(b[1].id, false)]);
    let read_ahead = read_ahead_of(&env, b[0].id).unwrap();
    assert_eq!(
        (
            read_ahead.keep_next,
            read_ahead.remove_after_days,
            read_ahead.from_server_default
        ),
        (1, None, false)
    );

    // A changed default leaves it be; so does the default turned off.
    series_read_ahead::set_server_default(&env.store, server, 5, None).unwrap();
    assert_eq!(read_ahead_of(&env, b[0].id).unwrap().keep_next, 1);
    series_read_ahead::set_server_default(&env.store, server, 0, None).unwrap();
    let read_ahead = read_ahead_of(&env, b[0].id);
    assert_eq!(read_ahead.map(|w| w.keep_next), Some(1));
    // Reading on moves it along as before.
    let applied = series_read_ahead::record_position(&env.store, b[1].id, 0).unwrap();
    assert_eq!(applied.queued, [b[2].id]);
    assert_eq!(queued(&env.store).len(), 2);

    // A read-ahead the default made becomes the series' own once the reader sets it.
    series_read_ahead::stop(&env.store, b[0].id).unwrap();
    series_read_ahead::set_server_default(&env.store, server, 2, None).unwrap();
    series_read_ahead::keep(&env.store, b[0].id, 4, None).unwrap();
    let read_ahead = read_ahead_of(&env, b[0].id).unwrap();
    assert_eq!(
        (read_ahead.keep_next, read_ahead.from_server_default),
        (4, false)
    );
    series_read_ahead::set_server_default(&env.store, server, 0, None).unwrap();
    assert_eq!(read_ahead_of(&env, b[0].id).map(|w| w.keep_next), Some(4));
}

#[test]
fn a_series_the_reader_stopped_stays_stopped_under_the_servers_default() {
    let (_fixture, env, b) = saga_library();
    let server = b[0].server_id;
    series_read_ahead::set_server_default(&env.store, server, 2, None).unwrap();
    series_read_ahead::record_position(&env.store, b[0].id, 0).unwrap();
    assert_eq!(queued(&env.store).len(), 2);

    // The reader stops the series: reading on brings nothing more, the default notwithstanding.
    series_read_ahead::stop(&env.store, b[0].id).unwrap();
    let view = series_read_ahead::show(&env.store, b[0].id).unwrap();
    assert!(view.read_ahead.is_none() && view.stopped, "{view:?}");
    for book in [&b[0], &b[1], &b[2]] {
        let applied = series_read_ahead::record_position(&env.store, book.id, 1).unwrap();
        assert!(applied.queued.is_empty(), "{applied:?}");
    }
    assert_eq!(queued(&env.store), [(b[1].id, false), (b[2].id, false)]);
    assert!(read_ahead_of(&env, b[2].id).is_none());
    // Set again, nor changed, the default brings it back.
    series_read_ahead::set_server_default(&env.store, server, 4, None).unwrap();
    series_read_ahead::record_position(&env.store, b[2].id, 2).unwrap();
    assert_eq!(queued(&env.store).len(), 2);
    assert!(read_ahead_of(&env, b[0].id).is_none());

    // A read-ahead the reader sets for it again lifts the stop.
    let view = series_read_ahead::keep(&env.store, b[2].id, 1, None).unwrap();
    assert!(!view.stopped && view.read_ahead.is_some(), "{view:?}");
    assert_eq!(queued(&env.store).len(), 3);
}

/// Komga's OPDS 1.2 (as the fixture plays it) names no series in a book's entry; its series
/// feed lists a series' books by number under the series' name. A book is in the series its
/// series feed lists it in, in the feed's order across pages; a feed naming no series later does
/// not take that away; a book no series feed listed still has no series.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_series_is_known_from_its_series_feed_where_entries_name_none() {
    let (_fixture, env, server) = komga_series_library(PAGES);
    let client = env.client();

    // The list of all books: no entry names a series.
    let all = feed_books(&client, &server, "/opds/books").await;
    assert_eq!(all.len(), 12);
    assert!(all.iter().all(|(_, s)| s.is_none()), "{all:?}");
    let err = series_read_ahead::show(&env.store, all[0].0).unwrap_err();
    assert!(matches!(err, SeriesError::NoSeries(_)), "{err}");

    // The series list leads to each series' own feed; the largest spans several pages.
    let list = client.browse(&server, Some("/opds/series")).await.unwrap();
    let mut feeds = Vec::new();
    for e in &list.entries {
        if let carrel_core::catalog::client::CatalogItem::Navigation { title, href, .. } = e {
            assert!(href.contains("/opds/v1.2/series/"), "{href}");
            let books = feed_books(&client, &server, href).await;
            feeds.push((title.clone(), books));
        }
    }
    feeds.sort_by_key(|(_, books)| std::cmp::Reverse(books.len()));
    let (name, books) = &feeds[0];
    assert!(books.len() >= 3, "{feeds:?}");
    assert!(
        books
            .iter()
            .all(|(_, s)| s.as_deref() == Some(name.as_str())),
        "{books:?}"
    );
    let ids: Vec<i64> = books.iter().map(|(id, _)| *id).collect();

    let view = series_read_ahead::show(&env.store, ids[1]).unwrap();
    assert_eq!(&view.series, name);
    let order: Vec<i64> = view.books.iter().map(|b| b.book_id).collect();
    assert_eq!(order, ids, "the series feed's order, page after page");
    assert!(
        view.books.iter().all(|b| b.series_index.is_none()),
        "no number is made up"
    );
    // Titles the fixture numbers ("Name #n") follow the same order: the feed is by number.
    let titles: Vec<&str> = view.books.iter().map(|b| b.title.as_str()).collect();
    let numbers: Vec<u32> = titles
        .iter()
        .map(|t| t.rsplit('#').next().unwrap().parse().unwrap())
        .collect();
    assert!(numbers.windows(2).all(|w| w[0] < w[1]), "{titles:?}");

    // Listed again by a feed that names no series: the series stays, and so does its order.
    feed_books(&client, &server, "/opds/books").await;
    let again = series_read_ahead::show(&env.store, ids[0]).unwrap();
    let order: Vec<i64> = again.books.iter().map(|b| b.book_id).collect();
    assert_eq!(order, ids);

    // The read-ahead works on it as on numbered series.
    series_read_ahead::keep(&env.store, ids[0], 2, None).unwrap();
    assert_eq!(queued(&env.store), [(ids[1], false), (ids[2], false)]);
}
