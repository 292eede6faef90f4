//! "Keep all offline": a feed with several pages, kept as one batch in reading order; books
//! already stored skipped; pause, resume, move to top and cancel; the batch and its queue
//! surviving a new process (a new store handle on the same data dir). Also "books kept on the
//! device", which the executor applies when a book completes.

use carrel_core::{
    catalog::download_batches::{self, BatchError, BatchView},
    engine::book_downloads::{self, BookState},
    engine::download_stack::{self, TaskKind},
    foundation::store::Store,
    library::books,
    library::servers::Server,
};
use fixture_server::{Config, RunningServer};

use crate::support::{fast_config, feed_book_ids, Env};

fn start(config: Config) -> RunningServer {
    fixture_server::Server::start(config).expect("the fixture server starts")
}

/// A fixture of `books` books and nothing else set.
fn of_books(books: u32) -> RunningServer {
    start(Config {
        books,
        ..Default::default()
    })
}

/// A fresh library with `fixture`'s catalog added to it.
fn library_of(fixture: &RunningServer) -> (Env, Server) {
    let env = Env::new();
    let server = env.add_server("lib", &fixture.url("/opds"));
    (env, server)
}

/// What a batch still has to do: `(books, stored, waiting, left, dropped)`.
fn progress(view: &BatchView) -> (usize, usize, usize, usize, usize) {
    (
        view.books,
        view.stored,
        view.waiting,
        view.left,
        view.dropped,
    )
}

/// The `book` tasks waiting, in pop order.
fn queued_books(store: &Store) -> Vec<i64> {
    download_stack::pending_in_pop_order(store, 10_000)
        .unwrap()
        .into_iter()
        .filter(|t| t.kind == TaskKind::Book)
        .map(|t| t.book_id)
        .collect()
}

/// A data dir with `fixture`'s catalog, its books feed kept as one batch: the books in reading
/// order and the batch.
async fn books_kept(fixture: &RunningServer) -> (Env, Vec<i64>, BatchView) {
    let (env, server) = library_of(fixture);
    let client = env.client();
    let order = feed_book_ids(&client, &server, "/opds/books").await;
    let batch = download_batches::keep_feed(&client, &server, Some("/opds/books"))
        .await
        .unwrap();
    (env, order, batch)
}

#[tokio::test]
async fn a_feed_of_several_pages_is_kept_as_one_batch_in_reading_order() {
    // 23 books, 5 a page: the batch follows four `next` links.
    let fixture = start(Config {
        books: 23,
        feed_page_size: 5,
        ..Default::default()
    });
    let (env, server) = library_of(&fixture);
    let client = env.client();
    let order = feed_book_ids(&client, &server, "/opds/books").await;
    assert_eq!(order.len(), 23);

    // One book is already on the device: it is skipped, not fetched again.
    book_downloads::store_book(&env.store, order[3]).unwrap();
    env.sync(fast_config()).await;
    let hits_before = fixture.stats().total_requests;

    let batch = download_batches::keep_feed(&client, &server, Some("/opds/books"))
        .await
        .unwrap();
    assert_eq!(
        (batch.books, batch.stored, batch.waiting),
        (23, 1, 22),
        "{batch:?}"
    );
    let made = batch.made.clone().unwrap();
    assert_eq!((made.queued, made.already_stored), (22, 1));
    let mut expected: Vec<i64> = order.clone();
    expected.remove(3);
    assert_eq!(
        queued_books(&env.store),
        expected,
        "the first book on top, then the server's order"
    );
    for id in &order {
        assert!(
            books::get(&env.store, *id).unwrap().pinned,
            "every book of the batch is kept offline"
        );
    }

    // The reader opens another book meanwhile: its page comes before the whole batch.
    let other = order[20];
    book_downloads::open_book(&env.store, other, Some(0)).unwrap();
    let top = download_stack::pending_in_pop_order(&env.store, 1).unwrap();
    assert_eq!((top[0].book_id, top[0].prioritary), (other, true));

    // A new process on the same data dir sees the same batch and queue.
    let reopened = Store::open(&env.dir, env.store.clock().clone()).unwrap();
    let listed = download_batches::list(&reopened).unwrap();
    assert_eq!(listed.len(), 1);
    assert_eq!(
        (listed[0].books, listed[0].title.as_str()),
        (23, "All books")
    );

    // Paused: no background task of the batch is left; the reader's page stays.
    let paused = download_batches::pause(&env.store, batch.id).unwrap();
    assert!(paused.paused);
    assert_eq!(queued_books(&env.store), Vec::<i64>::new());
    let left: Vec<_> = download_stack::pending_in_pop_order(&env.store, 100).unwrap();
    assert!(
        left.iter().all(|t| t.book_id == other && t.prioritary),
        "{left:?}"
    );

    // Resumed: queued again in reading order; then everything arrives, once.
    let resumed = download_batches::resume(&env.store, batch.id).unwrap();
    assert!(!resumed.paused);
    assert_eq!(queued_books(&env.store), expected);
    env.sync(fast_config()).await;
    let done = download_batches::view(&env.store, batch.id).unwrap();
    assert_eq!(
        (done.stored, done.waiting, done.failed),
        (23, 0, 0),
        "{done:?}"
    );
    for id in &order {
        let book = books::get(&env.store, *id).unwrap();
        assert_eq!(
            book_downloads::status(&env.store, &book).unwrap().state,
            BookState::Stored
        );
    }
    let stats = fixture.stats();
    assert!(stats.total_requests > hits_before);
    assert!(
        stats.global_max_in_flight <= 1,
        "one request at a time: {}",
        stats.global_max_in_flight
    );
}

#[tokio::test]
async fn cancelling_a_batch_stops_its_downloads_and_unkeeps_only_its_unfinished_books() {
    let fixture = of_books(6);
    let (env, server) = library_of(&fixture);
    let client = env.client();
    let order = feed_book_ids(&client, &server, "/opds/books").await;
    book_downloads::store_book(&env.store, order[0]).unwrap();
    env.sync(fast_config()).await;

    let batch = download_batches::keep_feed(&client, &server, Some("/opds/books"))
        .await
        .unwrap();
    assert_eq!(queued_books(&env.store).len(), 5);
    download_batches::cancel(&env.store, batch.id).unwrap();
    assert!(queued_books(&env.store).is_empty());
    assert!(download_batches::list(&env.store).unwrap().is_empty());
    assert!(
        books::get(&env.store, order[0]).unwrap().pinned,
        "a whole book stays kept"
    );
    for id in &order[1..] {
        assert!(
            !books::get(&env.store, *id).unwrap().pinned,
            "an unfinished book is no longer kept"
        );
    }
    assert!(matches!(
        download_batches::view(&env.store, batch.id),
        Err(BatchError::NotFound(_))
    ));
    assert!(matches!(
        download_batches::pause(&env.store, 999),
        Err(BatchError::NotFound(999))
    ));
}

#[tokio::test]
async fn a_search_is_kept_and_a_batch_moves_to_the_top() {
    let fixture = of_books(12);
    let (env, server) = library_of(&fixture);
    let client = env.client();
    let first = download_batches::keep_feed(&client, &server, Some("/opds/books"))
        .await
        .unwrap();
    let wanted = fixture.books()[0].title.clone();
    let word = wanted
        .split_whitespace()
        .max_by_key(|w| w.len())
        .unwrap()
        .to_owned();
    let found = download_batches::keep_search(&client, &server, &word)
        .await
        .unwrap();
    assert_eq!(found.title, format!("Search: {word}"));
    assert!(found.books >= 1 && found.books < 12, "{found:?}");
    // The search's books (already in the first batch) went to the top; moving the first batch
    // up puts its first book back on top.
    download_batches::move_to_top(&env.store, first.id).unwrap();
    let order = feed_book_ids(&client, &server, "/opds/books").await;
    assert_eq!(queued_books(&env.store)[0], order[0]);
    // A search that finds nothing makes no batch.
    let none = download_batches::keep_search(&client, &server, "zzzqqqxx").await;
    assert!(matches!(none, Err(BatchError::NoBooks(_))), "{none:?}");
    assert_eq!(download_batches::list(&env.store).unwrap().len(), 2);
}

/// "Books kept on the device" is applied by the executor itself when a book completes, so every
/// front end that downloads (the app, `carrel-cli sync`) keeps to it.
#[tokio::test]
async fn the_executor_removes_books_no_longer_kept_when_a_book_completes() {
    use carrel_core::library::settings::{self, BooksKept};
    let fixture = start(Config {
        books: 3,
        comic_pages: [(1, 3), (2, 3), (3, 3)].into(),
        ..Default::default()
    });
    let (env, server) = library_of(&fixture);
    let client = env.client();
    let ids = feed_book_ids(&client, &server, "/opds/comics").await;
    assert!(ids.len() >= 2, "{ids:?}");
    settings::set(&env.store, &BooksKept(1)).unwrap();
    let stored = |id: i64| {
        book_downloads::progress(&env.store, &books::get(&env.store, id).unwrap())
            .unwrap()
            .stored_parts
    };

    book_downloads::open_book(&env.store, ids[0], Some(0)).unwrap();
    env.sync(fast_config()).await;
    assert_eq!(stored(ids[0]), 3, "the first book read is on the device");
    // A second book read (a moment later): only one is kept, the most recent.
    std::thread::sleep(std::time::Duration::from_millis(5));
    book_downloads::open_book(&env.store, ids[1], Some(0)).unwrap();
    env.sync(fast_config()).await;
    assert_eq!(stored(ids[1]), 3);
    assert_eq!(
        stored(ids[0]),
        0,
        "the older book left the device when the newer one completed"
    );
}

/// A book cancelled out of a batch stays cancelled: pausing and resuming the batch does not
/// queue it again, and a batch whose books were all cancelled (none stored) leaves the list.
#[tokio::test]
async fn a_book_cancelled_out_of_a_batch_stays_cancelled_and_an_empty_batch_ends() {
    let fixture = of_books(3);
    let (env, order, batch) = books_kept(&fixture).await;
    assert_eq!(queued_books(&env.store), order);

    book_downloads::cancel_book(&env.store, order[0]).unwrap();
    let view = download_batches::view(&env.store, batch.id).unwrap();
    assert_eq!(
        progress(&view),
        (3, 0, 2, 2, 1),
        "the batch counts what it still has to do: {view:?}"
    );
    download_batches::pause(&env.store, batch.id).unwrap();
    assert_eq!(
        download_batches::view(&env.store, batch.id).unwrap().left,
        2,
        "a paused batch still has its books to bring"
    );
    download_batches::resume(&env.store, batch.id).unwrap();
    assert_eq!(
        queued_books(&env.store),
        order[1..].to_vec(),
        "the cancelled book is not queued again"
    );
    assert!(!books::get(&env.store, order[0]).unwrap().pinned);

    for id in &order[1..] {
        book_downloads::cancel_book(&env.store, *id).unwrap();
    }
    assert!(
        download_batches::list(&env.store).unwrap().is_empty(),
        "nothing left to do and nothing stored: the batch is over"
    );
    assert!(queued_books(&env.store).is_empty());
}

/// A book removed from the device leaves its batch: the batch counts only what it still has to
/// bring, and once that is nothing it is done — nothing to pause, nothing queued on resume.
#[tokio::test]
async fn a_book_removed_from_the_device_leaves_its_batch_done_with_what_is_left() {
    let fixture = of_books(3);
    let (env, order, batch) = books_kept(&fixture).await;
    env.sync(fast_config()).await;
    assert_eq!(
        download_batches::view(&env.store, batch.id).unwrap().stored,
        3
    );

    book_downloads::remove_book(&env.store, order[2]).unwrap();
    let view = download_batches::view(&env.store, batch.id).unwrap();
    assert_eq!(progress(&view), (3, 2, 0, 0, 1), "{view:?}");
    let listed = download_batches::list(&env.store).unwrap();
    assert_eq!(
        listed.len(),
        1,
        "a done batch with books on the device stays, as done"
    );
    assert_eq!(listed[0].left, 0);
    download_batches::resume(&env.store, batch.id).unwrap();
    assert!(
        queued_books(&env.store).is_empty(),
        "the removed book is not brought back by its batch"
    );
}

/// A batch paused and resumed while its first book downloads (the running task dropped, then
/// queued again): each resume sets the executor going again, and every book ends stored.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_batch_paused_and_resumed_while_it_downloads_ends_stored() {
    use carrel_core::engine::executor::{Finish, RunMode};
    use carrel_core::engine::progress::{DownloadEvent, ExecutorState};
    let fixture = start(Config {
        books: 4,
        faults: fixture_server::Faults {
            latency_ms: 40,
            ..Default::default()
        },
        ..Default::default()
    });
    let (env, order, batch) = books_kept(&fixture).await;
    let (sink, stop, run) = env.spawn_executor(fast_config(), RunMode::Forever);
    for round in 0..3 {
        crate::support::wait_until(
            std::time::Duration::from_secs(10),
            &format!("round {round}: nothing downloaded"),
            || {
                sink.events()
                    .iter()
                    .filter(|e| matches!(e, DownloadEvent::TaskStarted { .. }))
                    .count()
                    > round
            },
        )
        .await;
        let idle = || {
            sink.events()
                .iter()
                .filter(|e| matches!(e, DownloadEvent::State(ExecutorState::Idle)))
                .count()
        };
        let idle_before = idle();
        download_batches::pause(&env.store, batch.id).unwrap();
        // The executor finds its running task gone and nothing left, and waits: the resume
        // comes then, as a reader's click would.
        crate::support::wait_until(
            std::time::Duration::from_secs(10),
            &format!("round {round}: the paused batch left the executor busy"),
            || idle() > idle_before,
        )
        .await;
        download_batches::resume(&env.store, batch.id).unwrap();
    }
    crate::support::wait_until(
        std::time::Duration::from_secs(20),
        "the resumed batch never ended stored",
        || download_batches::view(&env.store, batch.id).unwrap().stored == order.len(),
    )
    .await;
    stop.send(true).unwrap();
    assert_eq!(run.await.unwrap(), Finish::Shutdown);
    let stats = fixture.stats();
    assert!(
        stats.global_max_in_flight <= 1,
        "{}",
        stats.global_max_in_flight
    );
}
