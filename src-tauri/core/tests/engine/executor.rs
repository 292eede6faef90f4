//! The executor against a real HTTP server on loopback: what it fetches, in which order, how
//! often, and what it does when the server misbehaves.

use std::collections::BTreeMap;
use std::sync::Arc;
use std::time::{Duration, Instant};

use carrel_core::{
    engine::book_downloads::{self, BookState, BookStatus},
    engine::download_stack::{self, TaskKind, TaskState},
    engine::executor::{ExecutorConfig, Finish, RunMode},
    engine::progress::{DownloadEvent, ProgressSink, RecordingSink},
    foundation::part_files::PartFiles,
    library::books,
    library::servers::{self, Server},
};
use fixture_server::{Behavior, Config, Faults, RunningServer};

use crate::support::{fast_config, listed_ids, wait_for_event, wait_until, Env};

/// `config` with every answer `latency_ms` late.
fn slowed(config: Config, latency_ms: u64) -> Config {
    Config {
        faults: Faults {
            latency_ms,
            ..Default::default()
        },
        ..config
    }
}

fn start(config: Config) -> RunningServer {
    fixture_server::Server::start(config).expect("the fixture server starts")
}

/// A data dir with the fixture added as a server and its "All books" feed registered.
async fn library(fixture: &RunningServer) -> (Env, Server, BTreeMap<u32, i64>) {
    let (env, server) = Env::with_fixture(&fixture);
    let ids = listed_ids(&env, &server).await;
    (env, server, ids)
}

/// The fixture started with `config` and its books registered (see [`library`]).
async fn served(config: Config) -> (RunningServer, Env, Server, BTreeMap<u32, i64>) {
    let fixture = start(config);
    let (env, server, ids) = library(&fixture).await;
    (fixture, env, server, ids)
}

/// Two fixtures started with the configs given, added to one data dir as servers of the names
/// given, their books registered: each fixture with its catalog id number → local id.
async fn two_servers(
    first: (&str, Config),
    second: (&str, Config),
) -> (Env, [(RunningServer, BTreeMap<u32, i64>); 2]) {
    let fixtures = [start(first.1), start(second.1)];
    let env = Env::new();
    let servers = [
        env.add_server(first.0, &fixtures[0].url("/opds")),
        env.add_server(second.0, &fixtures[1].url("/opds")),
    ];
    let ids = [
        listed_ids(&env, &servers[0]).await,
        listed_ids(&env, &servers[1]).await,
    ];
    let [a, b] = fixtures;
    let [a_ids, b_ids] = ids;
    (env, [(a, a_ids), (b, b_ids)])
}

/// [`served`], with its first book asked to be stored.
async fn storing_first_book(config: Config) -> (RunningServer, Env, Server, BTreeMap<u32, i64>) {
    let (fixture, env, server, ids) = served(config).await;
    book_downloads::store_book(&env.store, ids[&1]).unwrap();
    (fixture, env, server, ids)
}

/// [`fast_config`] backing off from `min` to `max` after a failure.
fn backing_off(min: Duration, max: Duration) -> ExecutorConfig {
    ExecutorConfig {
        backoff_min: min,
        backoff_max: max,
        ..fast_config()
    }
}

/// Whether `event` says the executor backs off.
fn is_backoff(event: &DownloadEvent) -> bool {
    matches!(
        event,
        DownloadEvent::State(carrel_core::engine::progress::ExecutorState::Backoff { .. })
    )
}

fn done_positions(sink: &RecordingSink, kind: TaskKind) -> Vec<i64> {
    sink.events()
        .into_iter()
        .filter_map(|e| match e {
            DownloadEvent::TaskDone {
                kind: k, position, ..
            } if k == kind => Some(position),
            _ => None,
        })
        .collect()
}

/// The pages said done, as (book, position), in the order they were.
fn pages_done(sink: &RecordingSink) -> Vec<(i64, i64)> {
    sink.events()
        .into_iter()
        .filter_map(|e| match e {
            DownloadEvent::TaskDone {
                kind: TaskKind::Page,
                book_id,
                position,
                ..
            } => Some((book_id, position)),
            _ => None,
        })
        .collect()
}

fn page_path(book: u32, index: u32) -> String {
    format!("/books/{book}/pages/{index}")
}

fn page_hits(stats: &fixture_server::Stats, book: u32, index: u32) -> u64 {
    stats.hits_any_query(&page_path(book, index))
}

/// Waits until the fixture has answered `total` requests since its start (a download under
/// way); fails after 30 s.
async fn wait_for_requests(fixture: &RunningServer, total: u64) {
    wait_until(
        Duration::from_secs(30),
        "the download did not start",
        || fixture.stats().total_requests >= total,
    )
    .await;
}

/// Waits (at most ten seconds) until page `page` of book `id` is stored; fails with `failure`.
async fn wait_for_stored_page(env: &Env, id: i64, page: i64, failure: &str) {
    wait_until(Duration::from_secs(10), failure, || {
        download_stack::done_pages(&env.store, id)
            .unwrap()
            .contains(&page)
    })
    .await;
}

fn book_state(env: &Env, id: i64) -> BookState {
    book_status(env, id).state
}

/// What the library says of book `id`'s download: its state and progress.
fn book_status(env: &Env, id: i64) -> BookStatus {
    let book = books::get(&env.store, id).unwrap();
    book_downloads::status(&env.store, &book).unwrap()
}

/// Two comics of `pages` pages each.
fn two_comics(pages: u32) -> Config {
    two_comics_of(pages, pages)
}

/// Two comics, of `first` and `second` pages.
fn two_comics_of(first: u32, second: u32) -> Config {
    Config {
        books: 2,
        comic_pages: [(1, first), (2, second)].into(),
        ..Default::default()
    }
}

fn one_comic(pages: u32) -> Config {
    Config {
        books: 1,
        comic_pages: [(1, pages)].into(),
        ..Default::default()
    }
}

/// [`one_comic`] on a server that keeps reading positions and moves one to a page asked for
/// with `markRead=true` (a parameter in its page template).
fn one_comic_with_bookmarks(pages: u32) -> Config {
    Config {
        behavior: Behavior {
            bookmark_param: Some("markRead".into()),
            ..Default::default()
        },
        reading_positions: Some(BTreeMap::new()),
        ..one_comic(pages)
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn opening_page_40_of_60_fetches_it_first_then_the_pages_after_it_then_the_rest() {
    let (fixture, env, _, ids) = served(one_comic(60)).await;
    fixture.reset_stats();

    book_downloads::open_book(&env.store, ids[&1], Some(40)).unwrap();
    let (finish, sink) = env.sync(fast_config()).await;
    assert_eq!(finish, Finish::Idle);

    let order = done_positions(&sink, TaskKind::Page);
    let expected: Vec<i64> = (40..60).chain(0..40).collect();
    assert_eq!(order, expected);
    let stats = fixture.stats();
    let files = PartFiles::new(env.dir.books());
    for i in 0..60 {
        assert_eq!(page_hits(&stats, 1, i), 1, "page {i} fetched once");
        let stored = std::fs::read(files.find_page(ids[&1], i as i64).unwrap()).unwrap();
        assert_eq!(
            stored,
            fixture.page_bytes(1, i).unwrap(),
            "page {i} is byte-identical"
        );
    }
    assert_eq!(stats.global_max_in_flight, 1);
    let status = book_status(&env, ids[&1]);
    assert_eq!(status.state, BookState::Stored);
    assert_eq!(
        (status.progress.stored_parts, status.progress.total_parts),
        (60, 60)
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn storing_books_fetches_every_part_once_with_one_request_in_flight() {
    let (fixture, env, _, ids) = served(Config {
        books: 6,
        ..Default::default()
    })
    .await;
    fixture.reset_stats();
    for id in ids.values() {
        book_downloads::store_book(&env.store, *id).unwrap();
    }
    let (finish, sink) = env
        .sync(ExecutorConfig {
            checkpoint_bytes: 16 * 1024,
            ..fast_config()
        })
        .await;
    assert_eq!(finish, Finish::Idle);
    let stats = fixture.stats();
    assert_eq!(stats.global_max_in_flight, 1, "one polite stream");
    let files = PartFiles::new(env.dir.books());
    for (n, id) in &ids {
        let info = fixture.book(*n).unwrap();
        let book = books::get(&env.store, *id).unwrap();
        assert_eq!(
            book_downloads::status(&env.store, &book).unwrap().state,
            BookState::Stored,
            "{}",
            book.title
        );
        if book.streams_pages() {
            for i in 0..info.pages {
                assert_eq!(page_hits(&stats, *n, i), 1);
            }
        } else {
            let stored = std::fs::read(files.find_book_file(*id).unwrap()).unwrap();
            assert_eq!(stored, fixture.book_bytes(*n).unwrap());
            let file_bytes: u64 = stats.bytes(&format!("/books/{n}/file"));
            assert_eq!(file_bytes, info.length, "every byte of the file sent once");
        }
        assert!(files.find_cover(*id).is_some(), "the cover is kept too");
    }
    let stored_events = sink
        .events()
        .iter()
        .filter(|e| matches!(e, DownloadEvent::BookStored(_)))
        .count();
    assert_eq!(stored_events, ids.len());
}

/// Holds the run's thread when a page of book 1 is said done (right after its step to the
/// database) until the server has seen the request for the next page, for at most five seconds
/// (none after the first wait that timed out).
struct WaitsForTheNextRequest {
    fixture: Arc<RunningServer>,
    pages: u32,
    seen: std::sync::Mutex<Vec<(i64, bool)>>,
}

impl ProgressSink for WaitsForTheNextRequest {
    fn report(&self, event: DownloadEvent) {
        let DownloadEvent::TaskDone {
            kind: TaskKind::Page,
            position,
            ..
        } = event
        else {
            return;
        };
        if position + 1 >= i64::from(self.pages) {
            return;
        }
        let mut seen = self.seen.lock().unwrap();
        let patience = if seen.iter().all(|(_, s)| *s) {
            Duration::from_secs(5)
        } else {
            Duration::ZERO
        };
        let started = Instant::now();
        let next = u32::try_from(position + 1).unwrap();
        let asked = loop {
            if page_hits(&self.fixture.stats(), 1, next) > 0 {
                break true;
            }
            if started.elapsed() >= patience {
                break false;
            }
            std::thread::sleep(Duration::from_millis(1));
        };
        seen.push((position, asked));
    }
}

/// The request for a chain's next page goes out before the database step that marks the
/// last page (see `executor/page_ahead.rs`), so the server answers while the step runs — still
/// one request at a time, each page once. The sink holds the run's thread, so the request must
/// be on the wire before the step, not only sent to the connection's task: that takes one turn
/// of the run's runtime (the request's task, then the connection's, run before the run's). A
/// tokio or hyper that schedules otherwise makes this test fail (a five-second wait a page),
/// not pass.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_next_page_is_asked_for_before_the_last_one_is_held() {
    const PAGES: u32 = 8;
    let fixture = Arc::new(start(one_comic(PAGES)));
    let (env, _, ids) = library(&fixture).await;
    book_downloads::store_book(&env.store, ids[&1]).unwrap();
    let sink = Arc::new(WaitsForTheNextRequest {
        fixture: fixture.clone(),
        pages: PAGES,
        seen: Default::default(),
    });
    let ex = env.executor(fast_config(), sink.clone());
    let (_stop, rx) = tokio::sync::watch::channel(false);
    assert_eq!(ex.run(RunMode::UntilIdle, rx).await.unwrap(), Finish::Idle);
    let seen = sink.seen.lock().unwrap().clone();
    let expected: Vec<(i64, bool)> = (0..i64::from(PAGES) - 1).map(|p| (p, true)).collect();
    assert_eq!(
        seen, expected,
        "(page, its next one asked for before it was marked stored)"
    );
    let stats = fixture.stats();
    assert_eq!(stats.global_max_in_flight, 1, "one polite stream");
    for i in 0..PAGES {
        assert_eq!(page_hits(&stats, 1, i), 1, "page {i} fetched once");
    }
    assert_eq!(book_state(&env, ids[&1]), BookState::Stored);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_restart_never_downloads_a_finished_part_again() {
    let (fixture, env, _, ids) = storing_first_book(one_comic(12)).await;
    env.sync(fast_config()).await;
    fixture.reset_stats();
    // As if the process died after renaming each file but before marking it done.
    env.store
        .write(|tx| {
            tx.execute("UPDATE tasks SET state = 'pending' WHERE kind = 'page'", [])
                .map_err(|e| env.store.sql_error(e))
        })
        .unwrap();
    let (finish, _) = env.sync(fast_config()).await;
    assert_eq!(finish, Finish::Idle);
    assert_eq!(fixture.stats().total_requests, 0, "nothing fetched again");
    assert_eq!(book_state(&env, ids[&1]), BookState::Stored);
}

/// Pages stored in the background are synced to the disk in batches, their tasks marked done
/// only after. As after a power cut before a batch's sync (tasks still active with their sizes
/// recorded): a page left whole is taken without a request, one left short is fetched again.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_page_cut_short_before_its_batch_was_synced_is_fetched_again_and_a_whole_one_is_not() {
    let (fixture, env, _, ids) = storing_first_book(one_comic(12)).await;
    let (finish, _) = env.sync(fast_config()).await;
    assert_eq!(finish, Finish::Idle);
    let files = PartFiles::new(env.dir.books());
    let short = files.find_page(ids[&1], 4).unwrap();
    let whole = std::fs::read(&short).unwrap();
    std::fs::write(&short, &whole[..10]).unwrap();
    env.store
        .write(|tx| {
            tx.execute(
                "UPDATE tasks SET state = 'active', claimed_epoch = 0 WHERE kind = 'page' AND position IN (3, 4)",
                [],
            )
            .map_err(|e| env.store.sql_error(e))
        })
        .unwrap();
    fixture.reset_stats();
    let (finish, _) = env.sync(fast_config()).await;
    assert_eq!(finish, Finish::Idle);
    let stats = fixture.stats();
    assert_eq!(
        page_hits(&stats, 1, 4),
        1,
        "the short page is fetched again"
    );
    assert_eq!(stats.total_requests, 1, "and nothing else");
    for i in [3, 4] {
        let stored = std::fs::read(files.find_page(ids[&1], i).unwrap()).unwrap();
        assert_eq!(stored, fixture.page_bytes(1, i as u32).unwrap(), "page {i}");
    }
    assert_eq!(book_state(&env, ids[&1]), BookState::Stored);
}

/// The whole file stored for book `id`.
fn stored_file(env: &Env, id: i64) -> Vec<u8> {
    std::fs::read(PartFiles::new(env.dir.books()).find_book_file(id).unwrap()).unwrap()
}

/// Runs an executor until the stack is empty, saving its place every 4 KiB.
async fn sync_with_small_checkpoints(env: &Env) {
    let config = ExecutorConfig {
        checkpoint_bytes: 4 * 1024,
        ..fast_config()
    };
    assert_eq!(env.sync(config).await.0, Finish::Idle);
}

fn one_epub() -> Config {
    // Book ids divisible by 3 are EPUBs.
    Config {
        books: 3,
        ..Default::default()
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_broken_range_download_resumes_where_it_stopped_without_repeating_bytes() {
    let (fixture, env, _, ids) = served(Config {
        page_bytes: 64 * 1024,
        ..one_epub()
    })
    .await;
    let length = fixture.book(3).unwrap().length;
    fixture.reset_stats();
    fixture.set_faults(Faults {
        reset_mid_body: true,
        path_prefix: Some("/books/3/file".into()),
        next_requests: Some(1),
        ..Default::default()
    });
    book_downloads::store_book(&env.store, ids[&3]).unwrap();
    let chunk = 8 * 1024;
    let (finish, sink) = env
        .sync(ExecutorConfig {
            checkpoint_bytes: chunk,
            ..fast_config()
        })
        .await;
    assert_eq!(finish, Finish::Idle);
    assert!(
        sink.events().iter().any(|e| matches!(
            e,
            DownloadEvent::TaskFailed {
                will_retry: true,
                ..
            }
        )),
        "the reset was seen"
    );
    let stored = stored_file(&env, ids[&3]);
    assert_eq!(stored, fixture.book_bytes(3).unwrap());
    let sent = fixture.stats().bytes("/books/3/file");
    assert!(
        sent <= length + chunk,
        "sent {sent} bytes for a {length}-byte file (chunk {chunk})"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_resumed_download_of_a_changed_book_starts_over_instead_of_stitching_versions() {
    let (fixture, env, _, ids) = served(one_epub()).await;
    fixture.set_faults(Faults {
        truncate_body: true,
        path_prefix: Some("/books/3/file".into()),
        ..Default::default()
    });
    book_downloads::store_book(&env.store, ids[&3]).unwrap();
    // Download part of it, then stop.
    let (sink, stop, run) = env.spawn_executor(
        ExecutorConfig {
            checkpoint_bytes: 4 * 1024,
            backoff_min: Duration::from_secs(30),
            backoff_max: Duration::from_secs(30),
            ..fast_config()
        },
        RunMode::UntilIdle,
    );
    wait_for_event(&sink, "the truncated body was never seen", |e| {
        matches!(e, DownloadEvent::TaskFailed { .. })
    })
    .await;
    stop.send(true).unwrap();
    assert_eq!(run.await.unwrap(), Finish::Shutdown);
    let file_task = download_stack::tasks_of_book(&env.store, ids[&3])
        .unwrap()
        .into_iter()
        .find(|t| t.kind == TaskKind::File)
        .unwrap();
    let cp = download_stack::file_checkpoint(&env.store, file_task.id)
        .unwrap()
        .expect("a checkpoint");
    assert!(cp.offset > 0, "part of the old version is on disk");
    let old = fixture.book_bytes(3).unwrap();

    // The server now has another version of the book.
    fixture.clear_faults();
    let revised = fixture.revise_book(3).unwrap();
    assert_ne!(fixture.book_bytes(3).unwrap(), old);
    sync_with_small_checkpoints(&env).await;
    let stored = stored_file(&env, ids[&3]);
    assert_eq!(stored.len() as u64, revised.length);
    assert_eq!(
        stored,
        fixture.book_bytes(3).unwrap(),
        "only the new version's bytes"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_server_without_range_or_etag_still_gives_a_whole_identical_file() {
    let (fixture, env, _, ids) = served(Config {
        behavior: Behavior {
            range: false,
            etag: false,
            last_modified: false,
            ..Default::default()
        },
        ..one_epub()
    })
    .await;
    book_downloads::store_book(&env.store, ids[&3]).unwrap();
    sync_with_small_checkpoints(&env).await;
    let stored = stored_file(&env, ids[&3]);
    assert_eq!(stored, fixture.book_bytes(3).unwrap());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_gone_book_fails_with_its_reason_and_the_executor_goes_on() {
    let (fixture, env, _, ids) = served(two_comics(3)).await;
    fixture.set_gone(1, true);
    book_downloads::store_book(&env.store, ids[&1]).unwrap();
    book_downloads::store_book(&env.store, ids[&2]).unwrap();
    let (finish, _) = env.sync(fast_config()).await;
    assert_eq!(finish, Finish::Idle);
    match book_state(&env, ids[&1]) {
        BookState::Failed { reason } => assert!(reason.contains("410"), "{reason}"),
        other => panic!("expected failed, got {other:?}"),
    }
    assert_eq!(book_state(&env, ids[&2]), BookState::Stored);
    // The reader retries once the server has it again.
    fixture.set_gone(1, false);
    assert!(download_stack::retry_book(&env.store, ids[&1]).unwrap() >= 1);
    env.sync(fast_config()).await;
    assert_eq!(book_state(&env, ids[&1]), BookState::Stored);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_failing_server_puts_the_task_back_and_backs_off_without_failing_it() {
    let (fixture, env, _, ids) = served(one_comic(3)).await;
    fixture.set_faults(Faults {
        error_rate: 1.0,
        ..Default::default()
    });
    fixture.reset_stats();
    book_downloads::open_book(&env.store, ids[&1], Some(0)).unwrap();
    let (sink, stop, run) = env.spawn_executor(
        backing_off(Duration::from_millis(50), Duration::from_millis(400)),
        RunMode::UntilIdle,
    );
    tokio::time::sleep(Duration::from_millis(1500)).await;
    stop.send(true).unwrap();
    assert_eq!(run.await.unwrap(), Finish::Shutdown);
    let tasks = download_stack::tasks_of_book(&env.store, ids[&1]).unwrap();
    assert!(
        tasks.iter().all(|t| t.state == TaskState::Pending),
        "{tasks:?}"
    );
    assert!(
        tasks[0].failure.as_deref().unwrap_or("").contains("503"),
        "{:?}",
        tasks[0].failure
    );
    let attempts = page_hits(&fixture.stats(), 1, 0);
    // Backing off 50, 100, 200, 400, 400 ms (each with jitter in its upper half) leaves room
    // for a handful of tries in 1.5 s, never dozens.
    assert!((2..=10).contains(&attempts), "{attempts} tries in 1.5 s");
    let backoffs = sink.events().iter().filter(|e| is_backoff(e)).count();
    assert!(backoffs >= 2);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_push_wakes_a_backing_off_executor_at_once() {
    let (fixture, env, _, ids) = served(two_comics(2)).await;
    fixture.set_faults(Faults {
        error_rate: 1.0,
        path_prefix: Some("/books/1/".into()),
        ..Default::default()
    });
    book_downloads::open_book(&env.store, ids[&1], Some(0)).unwrap();
    let (sink, stop, run) = env.spawn_executor(
        backing_off(Duration::from_secs(120), Duration::from_secs(120)),
        RunMode::Forever,
    );
    wait_for_event(&sink, "never backed off", |e| is_backoff(e)).await;
    // A two-minute backoff is under way; the reader opens another book.
    book_downloads::open_book(&env.store, ids[&2], Some(1)).unwrap();
    wait_for_stored_page(&env, ids[&2], 1, "the push did not wake the executor").await;
    stop.send(true).unwrap();
    run.await.unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_server_that_cannot_be_reached_does_not_hold_up_another_servers_downloads() {
    let (env, [(down, away_ids), (_up, home_ids)]) =
        two_servers(("Away", one_comic(3)), ("Home", one_comic(3))).await;
    down.stop();
    // The book of the server that is gone is on top of the stack; the other one under it.
    book_downloads::store_book(&env.store, home_ids[&1]).unwrap();
    book_downloads::store_book(&env.store, away_ids[&1]).unwrap();
    let (sink, stop, run) = env.spawn_executor(
        // Far longer than the test: a run-wide backoff would stall everything.
        backing_off(Duration::from_secs(300), Duration::from_secs(300)),
        RunMode::Forever,
    );
    wait_until(
        Duration::from_secs(20),
        "the reachable server's book waited for the other server",
        || {
            download_stack::done_pages(&env.store, home_ids[&1])
                .unwrap()
                .len()
                >= 3
        },
    )
    .await;
    // The server that is gone was tried once, then left alone; the executor now waits for it.
    wait_for_event(&sink, "never said it backs off", |e| is_backoff(e)).await;
    let retried = |book: i64| {
        sink.events()
            .iter()
            .filter(|e| matches!(e, DownloadEvent::TaskFailed { book_id, will_retry: true, .. } if *book_id == book))
            .count()
    };
    assert_eq!(
        retried(away_ids[&1]),
        1,
        "one attempt at the server that is gone: {:?}",
        sink.events()
    );
    assert!(download_stack::done_pages(&env.store, away_ids[&1])
        .unwrap()
        .is_empty());
    stop.send(true).unwrap();
    assert_eq!(run.await.unwrap(), Finish::Shutdown);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_reader_asking_for_a_book_retries_its_server_at_once_while_another_server_works() {
    let (env, [(flaky, a_ids), (_busy, b_ids)]) = two_servers(
        ("Flaky", one_comic(2)),
        ("Busy", slowed(one_comic(60), 100)),
    )
    .await;
    // The flaky server fails its next request, then answers again.
    flaky.set_faults(Faults {
        error_rate: 1.0,
        next_requests: Some(1),
        ..Default::default()
    });
    book_downloads::store_book(&env.store, b_ids[&1]).unwrap();
    book_downloads::open_book(&env.store, a_ids[&1], Some(0)).unwrap();
    let (sink, stop, run) = env.spawn_executor(
        backing_off(Duration::from_secs(300), Duration::from_secs(300)),
        RunMode::Forever,
    );
    wait_for_event(&sink, "the flaky server never failed", |e| {
        matches!(
            e,
            DownloadEvent::TaskFailed {
                will_retry: true,
                ..
            }
        )
    })
    .await;
    // The busy server's book goes on; the reader opens the flaky server's book again.
    book_downloads::open_book(&env.store, a_ids[&1], Some(0)).unwrap();
    wait_for_stored_page(
        &env,
        a_ids[&1],
        0,
        "the flaky server was not tried again when the reader asked",
    )
    .await;
    let busy_done = download_stack::done_pages(&env.store, b_ids[&1])
        .unwrap()
        .len();
    assert!(
        busy_done < 60,
        "tried again while the other server still had work ({busy_done} of 60 done)"
    );
    stop.send(true).unwrap();
    assert_eq!(run.await.unwrap(), Finish::Shutdown);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn authentication_failures_pause_the_server_and_credentials_work() {
    let fixture = start(Config {
        behavior: Behavior {
            auth: Some("reader:open sesame".into()),
            ..Default::default()
        },
        ..one_comic(2)
    });
    let env = Env::new();
    // Without the password the catalog itself refuses.
    let server = env.add_server("Locked", &fixture.url("/opds"));
    let client = env.client();
    let err = client.browse(&server, None).await.unwrap_err();
    assert!(err.to_string().contains("authentication"), "{err}");
    servers::remove(&env.store, server.id).unwrap();
    let server = env.add_server_as("Locked", &fixture.url("/opds"), "reader", "open sesame");
    let ids = listed_ids(&env, &server).await;
    book_downloads::store_book(&env.store, ids[&1]).unwrap();
    // The password changes on the server: downloads pause for this server.
    fixture.set_behavior(Behavior {
        auth: Some("reader:new password".into()),
        ..Default::default()
    });
    let (finish, _) = env.sync(fast_config()).await;
    assert_eq!(
        finish,
        Finish::Idle,
        "paused servers' tasks wait; the executor does not spin"
    );
    let s = servers::get(&env.store, server.id).unwrap();
    assert_eq!(s.paused_reason.as_deref(), Some("authentication needed"));
    assert!(download_stack::has_pending(&env.store).unwrap());
    // Credentials fixed and the server resumed: the book completes.
    fixture.set_behavior(Behavior {
        auth: Some("reader:open sesame".into()),
        ..Default::default()
    });
    servers::set_paused(&env.store, server.id, None).unwrap();
    env.sync(fast_config()).await;
    assert_eq!(book_state(&env, ids[&1]), BookState::Stored);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn background_downloads_never_move_the_servers_bookmark() {
    let (fixture, env, _, ids) = served(one_comic_with_bookmarks(5)).await;
    let book = books::get(&env.store, ids[&1]).unwrap();
    assert!(
        !book
            .stream_template
            .as_deref()
            .unwrap()
            .contains("markRead"),
        "{:?}",
        book.stream_template
    );
    book_downloads::store_book(&env.store, ids[&1]).unwrap();
    env.sync(fast_config()).await;
    assert_eq!(
        book_downloads::status(&env.store, &book).unwrap().state,
        BookState::Stored
    );
    assert_eq!(
        fixture.reading_position(1),
        None,
        "the server's reading position did not move"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_prioritary_push_preempts_a_slow_background_file_download() {
    let (fixture, env, _, ids) = served(Config {
        books: 3,
        comic_pages: [(1, 2)].into(),
        ..Default::default()
    })
    .await;
    let length = fixture.book(3).unwrap().length;
    // A slow file: about three seconds for the EPUB.
    fixture.set_faults(Faults {
        bandwidth: Some((length / 3).max(1024)),
        path_prefix: Some("/books/3/file".into()),
        ..Default::default()
    });
    // Queued in the background (latest read), not prioritary.
    books::mark_opened(&env.store, ids[&3], None).unwrap();
    book_downloads::queue_latest_read(&env.store, 6).unwrap();
    let (sink, stop, run) = env.spawn_executor(
        ExecutorConfig {
            checkpoint_bytes: 1 << 20,
            ..fast_config()
        },
        RunMode::UntilIdle,
    );
    wait_for_event(&sink, "the file download never started", |e| {
        matches!(e, DownloadEvent::TaskBytes { .. })
    })
    .await;
    book_downloads::open_book(&env.store, ids[&1], Some(0)).unwrap();
    assert_eq!(run.await.unwrap(), Finish::Idle);
    drop(stop);
    let done: Vec<TaskKind> = sink
        .events()
        .into_iter()
        .filter_map(|e| match e {
            DownloadEvent::TaskDone { kind, .. }
                if kind != TaskKind::Book && kind != TaskKind::Resource =>
            {
                Some(kind)
            }
            _ => None,
        })
        .collect();
    assert_eq!(
        done,
        [TaskKind::Page, TaskKind::Page, TaskKind::File],
        "the opened book came first"
    );
    let stored = stored_file(&env, ids[&3]);
    assert_eq!(stored, fixture.book_bytes(3).unwrap());
    let sent = fixture.stats().bytes("/books/3/file");
    assert!(
        sent <= length + 64 * 1024,
        "the paused download resumed where it was: {sent} of {length}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn orphaned_files_are_collected_when_the_executor_starts() {
    let env = Env::new();
    let files = PartFiles::new(env.dir.books());
    carrel_core::foundation::part_files::write_atomically(
        &files.page_path(4242, 0, "png"),
        b"orphan",
    )
    .unwrap();
    let (finish, _) = env.sync(fast_config()).await;
    assert_eq!(finish, Finish::Idle);
    assert!(!files.book_dir(4242).exists());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn removing_a_book_deletes_its_tasks_and_files_together() {
    let (_fixture, env, _, ids) = storing_first_book(one_comic(3)).await;
    env.sync(fast_config()).await;
    let files = PartFiles::new(env.dir.books());
    assert!(files.find_page(ids[&1], 0).is_some());
    book_downloads::remove_book(&env.store, ids[&1]).unwrap();
    assert!(!files.book_dir(ids[&1]).exists());
    assert!(download_stack::tasks_of_book(&env.store, ids[&1])
        .unwrap()
        .is_empty());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn removing_a_book_stops_its_download_at_once_even_from_a_server_without_ranges() {
    let (fixture, env, _, ids) = served(Config {
        behavior: Behavior {
            range: false,
            ..Default::default()
        },
        ..one_epub()
    })
    .await;
    let length = fixture.book_bytes(3).unwrap().len() as u64;
    // Slow enough that the whole body would take minutes.
    fixture.set_faults(Faults {
        bandwidth: Some((length / 120).max(1)),
        path_prefix: Some("/books/3/file".into()),
        ..Default::default()
    });
    book_downloads::store_book(&env.store, ids[&3]).unwrap();
    let (sink, stop, run) = env.spawn_executor(fast_config(), RunMode::Forever);
    wait_for_event(
        &sink,
        "no bytes came",
        |e| matches!(e, DownloadEvent::TaskBytes { bytes, .. } if *bytes > 0),
    )
    .await;

    book_downloads::remove_book(&env.store, ids[&3]).unwrap();
    wait_until(
        Duration::from_secs(5),
        "the download of a removed book went on",
        || fixture.stats().global_in_flight == 0,
    )
    .await;
    assert!(!sink
        .events()
        .iter()
        .any(|e| matches!(e, DownloadEvent::BookStored(_))));
    assert!(!PartFiles::new(env.dir.books()).book_dir(ids[&3]).exists());
    stop.send(true).unwrap();
    assert_eq!(run.await.unwrap(), Finish::Shutdown);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_second_executor_on_the_same_data_dir_reports_the_holder() {
    let env = Env::new();
    let other = carrel_core::foundation::store::Store::open(
        &env.dir,
        carrel_core::foundation::clock::system(),
    )
    .unwrap();
    let sink = Arc::new(RecordingSink::default());
    let first = env.executor(fast_config(), sink.clone());
    let (stop, rx) = tokio::sync::watch::channel(false);
    let holder = first.holder().to_owned();
    let run = tokio::spawn(async move { first.run(RunMode::Forever, rx).await.unwrap() });
    wait_until(
        Duration::from_secs(5),
        "the first executor holds the lease",
        || {
            carrel_core::engine::executor_lease::holder_at(&other)
                .unwrap()
                .is_some()
        },
    )
    .await;
    let second = carrel_core::engine::executor::Executor::new(
        other,
        env.credentials.clone(),
        sink,
        fast_config(),
        "second".into(),
    )
    .unwrap();
    let (_s2, rx2) = tokio::sync::watch::channel(false);
    match second.run(RunMode::UntilIdle, rx2).await.unwrap() {
        Finish::LeaseHeld { holder: h, .. } => assert_eq!(h, holder),
        other => panic!("expected the lease to be held, got {other:?}"),
    }
    stop.send(true).unwrap();
    assert_eq!(run.await.unwrap(), Finish::Shutdown);
    // Released on shutdown: the second takes it at once.
    let (_s3, rx3) = tokio::sync::watch::channel(false);
    assert_eq!(
        second.run(RunMode::UntilIdle, rx3).await.unwrap(),
        Finish::Idle
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_book_whose_pages_come_as_a_list_downloads_page_by_page() {
    let fixture = start(one_comic_with_bookmarks(4));
    let (env, server) = Env::with_fixture(&fixture);
    // An OPDS 2 publication whose reading order lists its page images.
    let manifest = serde_json::json!({
        "metadata": { "identifier": "urn:list:1", "title": "Listed pages" },
        "links": [{ "rel": "self", "href": "/manifest.json", "type": "application/opds-publication+json" }],
        "readingOrder": (0..4).map(|i| serde_json::json!({ "href": format!("/books/1/pages/{i}?markRead=true"), "type": "image/png" })).collect::<Vec<_>>()
    });
    let base = url::Url::parse(&fixture.url("/manifest.json")).unwrap();
    let entry =
        carrel_core::opds::parse_publication(manifest.to_string().as_bytes(), &base).unwrap();
    let catalog = carrel_core::catalog::client::catalog_book(&entry, false);
    assert_eq!((catalog.page_count, catalog.page_list.len()), (Some(4), 4));
    let book = books::remember(&env.store, server.id, &catalog).unwrap();
    assert!(book.streams_pages());
    book_downloads::open_book(&env.store, book.id, Some(2)).unwrap();
    let (finish, sink) = env.sync(fast_config()).await;
    assert_eq!(finish, Finish::Idle);
    assert_eq!(done_positions(&sink, TaskKind::Page), [2, 3, 0, 1]);
    let files = PartFiles::new(env.dir.books());
    for i in 0..4 {
        let stored = std::fs::read(files.find_page(book.id, i as i64).unwrap()).unwrap();
        assert_eq!(stored, fixture.page_bytes(1, i).unwrap());
    }
    assert_eq!(
        fixture.reading_position(1),
        None,
        "the bookmark parameter was not sent"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_readers_page_goes_ahead_of_a_running_chain() {
    let (fixture, env, _, ids) = storing_first_book(slowed(two_comics_of(12, 6), 20)).await;
    let (sink, stop, run) = env.spawn_executor(fast_config(), RunMode::UntilIdle);
    wait_for_event(&sink, "two pages of the stored book", |e| {
        matches!(
            e,
            DownloadEvent::TaskDone {
                kind: TaskKind::Page,
                position: 1,
                ..
            }
        )
    })
    .await;
    book_downloads::open_book(&env.store, ids[&2], Some(3)).unwrap();
    let done_when_opened = done_positions(&sink, TaskKind::Page).len();
    assert_eq!(run.await.unwrap(), Finish::Idle);
    drop(stop);
    let order = pages_done(&sink);
    let first_opened = order.iter().position(|(b, _)| *b == ids[&2]).unwrap();
    let opened: Vec<i64> = order
        .iter()
        .filter(|(b, _)| *b == ids[&2])
        .map(|(_, p)| *p)
        .collect();
    assert_eq!(opened, [3, 4, 5, 0, 1, 2]);
    // At most the page in flight when the reader opened the book came between.
    assert!(
        first_opened <= done_when_opened + 1,
        "{order:?} ({done_when_opened} done when opened)"
    );
    assert!(
        order[first_opened..first_opened + 6]
            .iter()
            .all(|(b, _)| *b == ids[&2]),
        "the opened book ran without the stored book's chain cutting in: {order:?}"
    );
    assert_eq!(order.len(), 18);
    // The stored book's page asked for ahead when the reader opened the other (see
    // `executor/page_ahead.rs`) was read to its end and dropped before the opened book's first
    // request, and fetched again in its turn: at most that one page twice.
    let stats = fixture.stats();
    assert_eq!(stats.global_max_in_flight, 1, "one polite stream");
    let stored_book: u64 = (0..12).map(|i| page_hits(&stats, 1, i)).sum();
    assert!(
        (12..=13).contains(&stored_book),
        "{stored_book} pages fetched"
    );
    let opened_book: u64 = (0..6).map(|i| page_hits(&stats, 2, i)).sum();
    assert_eq!(opened_book, 6);
}

/// Records every event, and does something (the reader's doing) once, from the run's own
/// thread, when a given page of a book is said done: the book's next page is then already
/// claimed, and the page after it certain to be asked for ahead — of a claim that may take
/// something else.
struct ActsAfterAPage {
    events: RecordingSink,
    after: (i64, i64),
    act: Box<dyn Fn() + Send + Sync>,
    acted: std::sync::atomic::AtomicBool,
}

impl ActsAfterAPage {
    fn new(after: (i64, i64), act: impl Fn() + Send + Sync + 'static) -> Arc<ActsAfterAPage> {
        Arc::new(ActsAfterAPage {
            events: RecordingSink::default(),
            after,
            act: Box::new(act),
            acted: Default::default(),
        })
    }
}

impl ProgressSink for ActsAfterAPage {
    fn report(&self, event: DownloadEvent) {
        if let DownloadEvent::TaskDone {
            kind: TaskKind::Page,
            book_id,
            position,
            ..
        } = &event
        {
            if (*book_id, *position) == self.after
                && !self.acted.swap(true, std::sync::atomic::Ordering::SeqCst)
            {
                (self.act)();
            }
        }
        self.events.report(event);
    }
}

/// A page asked for ahead that the claim does not take (the reader opened another book of the
/// same server) is read to its end and dropped before the opened book's first request — one
/// request at a time — and fetched again when its turn comes: that page alone twice.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_page_asked_for_ahead_that_the_claim_does_not_take_is_fetched_again_in_its_turn() {
    let (fixture, env, _, ids) = storing_first_book(two_comics_of(12, 6)).await;
    let (store, opened) = (env.store.clone(), ids[&2]);
    let sink = ActsAfterAPage::new((ids[&1], 1), move || {
        book_downloads::open_book(&store, opened, Some(0)).unwrap();
    });
    let ex = env.executor(fast_config(), sink.clone());
    let (_stop, rx) = tokio::sync::watch::channel(false);
    assert_eq!(ex.run(RunMode::UntilIdle, rx).await.unwrap(), Finish::Idle);
    let order = pages_done(&sink.events);
    // Page 2 was claimed when the book was opened; page 3, asked for ahead, was not taken.
    let expected: Vec<(i64, i64)> = [(1, 0), (1, 1), (1, 2)]
        .into_iter()
        .chain((0..6).map(|p| (2, p)))
        .chain((3..12).map(|p| (1, p)))
        .map(|(b, p)| (ids[&b], p))
        .collect();
    assert_eq!(order, expected);
    let stats = fixture.stats();
    assert_eq!(stats.global_max_in_flight, 1, "one polite stream");
    for i in 0..12 {
        let twice = if i == 3 { 2 } else { 1 };
        assert_eq!(
            page_hits(&stats, 1, i),
            twice,
            "page {i} of the stored book"
        );
    }
    for i in 0..6 {
        assert_eq!(page_hits(&stats, 2, i), 1, "page {i} of the opened book");
    }
    assert_eq!(book_state(&env, ids[&1]), BookState::Stored);
    assert_eq!(book_state(&env, ids[&2]), BookState::Stored);
}

/// Nothing is asked for ahead while downloads are paused: the page claimed before the pause
/// is fetched, the one after it is not asked for until the reader resumes.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn no_page_is_asked_for_ahead_while_downloads_are_paused() {
    let (fixture, env, _, ids) = storing_first_book(one_comic(8)).await;
    let store = env.store.clone();
    let sink = ActsAfterAPage::new((ids[&1], 1), move || {
        carrel_core::engine::executor::set_paused(&store, true).unwrap();
    });
    let (stop, run) = env.spawn_executor_with(fast_config(), RunMode::Forever, sink.clone());
    wait_for_event(&sink.events, "the downloads paused", |e| {
        matches!(
            e,
            DownloadEvent::State(carrel_core::engine::progress::ExecutorState::Paused)
        )
    })
    .await;
    let stats = fixture.stats();
    assert_eq!(
        page_hits(&stats, 1, 2),
        1,
        "the page claimed before the pause"
    );
    assert_eq!(page_hits(&stats, 1, 3), 0, "a page asked for while paused");
    carrel_core::engine::executor::set_paused(&env.store, false).unwrap();
    wait_until(Duration::from_secs(30), "not stored", || {
        book_state(&env, ids[&1]) == BookState::Stored
    })
    .await;
    stop.send(true).unwrap();
    assert_eq!(run.await.unwrap(), Finish::Shutdown);
    let stats = fixture.stats();
    assert_eq!(stats.global_max_in_flight, 1);
    for i in 0..8 {
        assert_eq!(page_hits(&stats, 1, i), 1, "page {i}");
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_missing_page_fails_alone_and_the_chain_goes_on() {
    let fixture = start(one_comic(4));
    let (env, server) = Env::with_fixture(&fixture);
    let mut pages: Vec<String> = (0..4)
        .map(|i| fixture.url(&format!("/books/1/pages/{i}")))
        .collect();
    pages[1] = fixture.url("/books/1/pages/404");
    let book = books::remember(
        &env.store,
        server.id,
        &books::CatalogBook {
            page_count: Some(4),
            page_list: pages,
            ..books::CatalogBook::bare("urn:gap", "With a gap", books::BookFormat::Comic)
        },
    )
    .unwrap();
    book_downloads::open_book(&env.store, book.id, Some(0)).unwrap();
    let (finish, _) = env.sync(fast_config()).await;
    assert_eq!(finish, Finish::Idle);
    assert_eq!(
        download_stack::done_pages(&env.store, book.id).unwrap(),
        [0, 2, 3]
    );
    match book_downloads::status(&env.store, &book).unwrap().state {
        BookState::Failed { reason } => assert!(reason.contains("404"), "{reason}"),
        other => panic!("{other:?}"),
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn resuming_a_paused_server_wakes_the_executor() {
    let (_fixture, env, server, ids) = served(one_comic(2)).await;
    servers::set_paused(&env.store, server.id, Some("authentication needed")).unwrap();
    book_downloads::store_book(&env.store, ids[&1]).unwrap();
    let (sink, stop, run) = env.spawn_executor(fast_config(), RunMode::Forever);
    wait_for_event(&sink, "the executor idling", |e| {
        matches!(
            e,
            DownloadEvent::State(carrel_core::engine::progress::ExecutorState::Idle)
        )
    })
    .await;
    servers::set_paused(&env.store, server.id, None).unwrap();
    wait_for_event(&sink, "the book stored after the server resumed", |e| {
        matches!(e, DownloadEvent::BookStored(_))
    })
    .await;
    stop.send(true).unwrap();
    assert_eq!(run.await.unwrap(), Finish::Shutdown);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_cancelled_book_can_be_stored_again() {
    let (_fixture, env, _, ids) = storing_first_book(one_comic(3)).await;
    // Only the book's expansion runs: its first page waits.
    env.store
        .write(|tx| {
            tx.execute("UPDATE tasks SET state = 'done' WHERE kind = 'book'", [])
                .map_err(|e| env.store.sql_error(e))
        })
        .unwrap();
    book_downloads::cancel_book(&env.store, ids[&1]).unwrap();
    assert_eq!(
        book_downloads::store_book(&env.store, ids[&1]).unwrap(),
        book_downloads::StoreRequest::Queued
    );
    assert!(
        download_stack::has_pending(&env.store).unwrap(),
        "storing again queued something"
    );
    env.sync(fast_config()).await;
    assert_eq!(book_state(&env, ids[&1]), BookState::Stored);
}

/// The executor keeps the server's request slot from one page to the next while no one else
/// asks that server; a catalog request made meanwhile still goes at the next page, not after the
/// whole book, and the server never sees two requests at once.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_catalog_request_goes_between_two_pages_of_a_download() {
    const PAGES: u32 = 40;
    let (fixture, env, server, ids) = storing_first_book(slowed(one_comic(PAGES), 30)).await;
    let before = fixture.stats().total_requests;
    let (_sink, stop, run) = env.spawn_executor(fast_config(), RunMode::Forever);
    // Wait for the download to be under way.
    wait_for_requests(&fixture, before + 3).await;
    let client = env.client();
    client.browse(&server, Some("/opds/books")).await.unwrap();
    let pages_by_then = fixture.stats().total_requests - before - 1;
    assert!(
        pages_by_then < u64::from(PAGES) - 10,
        "the catalog request waited for {pages_by_then} of {PAGES} pages"
    );
    wait_until(Duration::from_secs(60), "the book was not stored", || {
        book_state(&env, ids[&1]) == BookState::Stored
    })
    .await;
    assert_eq!(fixture.stats().global_max_in_flight, 1);
    stop.send(true).unwrap();
    assert_eq!(run.await.unwrap(), Finish::Shutdown);
}

/// A run works on a thread of its own: the future that waits for it is the reader's handle on
/// it all the same. Dropped (a window's task aborted, a timeout), the run stops at its next
/// look rather than download on behind the caller's back, puts its task back, and a run
/// started again on the same executor (same holder, same fence) waits for it to end and then
/// finishes the book.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_run_whose_future_is_dropped_stops_downloading() {
    const PAGES: u32 = 60;
    let (fixture, env, _server, ids) = storing_first_book(slowed(one_comic(PAGES), 20)).await;
    let before = fixture.stats().total_requests;
    let ex = Arc::new(env.executor(fast_config(), Arc::new(RecordingSink::default())));
    let (_stop, rx) = tokio::sync::watch::channel(false);
    let run = tokio::spawn({
        let ex = ex.clone();
        async move { ex.run(RunMode::Forever, rx).await.unwrap() }
    });
    wait_for_requests(&fixture, before + 3).await;
    run.abort();
    assert!(run.await.unwrap_err().is_cancelled());
    // The request under way may end; nothing is asked after it.
    tokio::time::sleep(Duration::from_millis(300)).await;
    let settled = fixture.stats().total_requests;
    tokio::time::sleep(Duration::from_millis(600)).await;
    let later = fixture.stats().total_requests;
    assert_eq!(
        later,
        settled,
        "the run went on after its future was dropped ({} more requests)",
        later - settled
    );
    assert!(
        settled < before + u64::from(PAGES),
        "the book was stored before the run could be stopped"
    );
    // Nothing left active behind: the same executor finishes the book.
    let (_stop, rx) = tokio::sync::watch::channel(false);
    assert_eq!(ex.run(RunMode::UntilIdle, rx).await.unwrap(), Finish::Idle);
    assert_eq!(book_state(&env, ids[&1]), BookState::Stored);
}

/// A book stored may queue the next recently read one (the "books kept" setting): a run until
/// idle stores that one too rather than end with it queued. The stored book's last pages are
/// still syncing when the stack is first found empty; what their sync queues is looked at
/// before "nothing left" is decided.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_book_queued_when_the_last_one_is_stored_is_stored_in_the_same_run() {
    use carrel_core::library::settings::{self, BooksKept};
    let (fixture, env, _, ids) = served(slowed(two_comics_of(10, 3), 20)).await;
    settings::set(&env.store, &BooksKept(2)).unwrap();
    let (first, next) = (ids[&1], ids[&2]);
    // The first book's cover is on the device already: nothing follows its last page.
    let files = PartFiles::new(env.dir.books());
    carrel_core::foundation::part_files::write_atomically(
        &files.cover_path(first, "png"),
        &fixture.cover_bytes(1).unwrap(),
    )
    .unwrap();
    books::mark_opened(&env.store, first, None).unwrap();
    book_downloads::store_book(&env.store, first).unwrap();
    let (sink, _stop, run) = env.spawn_executor(fast_config(), RunMode::UntilIdle);
    wait_for_event(&sink, "the download never started", |e| {
        matches!(
            e,
            DownloadEvent::TaskStarted {
                kind: TaskKind::Page,
                ..
            }
        )
    })
    .await;
    // Read since the run started: queued by the first book's completion, not by the start.
    books::mark_opened(&env.store, next, None).unwrap();
    assert_eq!(run.await.unwrap(), Finish::Idle);
    assert_eq!(
        book_state(&env, next),
        BookState::Stored,
        "the book read since was left queued"
    );
}

/// A comic's pages awaiting their sync are marked before a large whole file starts (it may take
/// minutes: the comic is said stored first); a small file starts while they sync (when the
/// comic is said stored then depends on the disk). Either way both books end stored, each said
/// stored once.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_comic_is_said_stored_before_a_large_file_starts_and_once_whatever_the_file() {
    for (file_bytes, large) in [(6 << 20, true), (200 << 10, false)] {
        let mut pdf = b"%PDF-1.4\n".to_vec();
        pdf.resize(file_bytes, b' ');
        let (_fixture, env, _server, ids) = served(Config {
            books: 2,
            comic_pages: [(1, 6)].into(),
            files: [(
                2,
                fixture_server::GivenFile {
                    media_type: "application/pdf".into(),
                    extension: "pdf".into(),
                    bytes: pdf,
                },
            )]
            .into(),
            ..Default::default()
        })
        .await;
        let (comic, file) = (ids[&1], ids[&2]);
        assert_eq!(
            books::get(&env.store, file).unwrap().file_length,
            Some(file_bytes as i64),
            "the feed gives the file's length"
        );
        // The file pushed first: the comic, on top, goes first.
        book_downloads::store_book(&env.store, file).unwrap();
        book_downloads::store_book(&env.store, comic).unwrap();
        let (finish, sink) = env.sync(fast_config()).await;
        assert_eq!(finish, Finish::Idle);
        let events = sink.events();
        let said_stored = |book: i64| {
            events
                .iter()
                .enumerate()
                .filter(|(_, e)| matches!(e, DownloadEvent::BookStored(p) if p.book_id == book))
                .map(|(i, _)| i)
                .collect::<Vec<_>>()
        };
        let file_started = events
            .iter()
            .position(|e| {
                matches!(
                    e,
                    DownloadEvent::TaskStarted {
                        kind: TaskKind::File,
                        ..
                    }
                )
            })
            .expect("the file was fetched");
        let comic_stored = said_stored(comic);
        assert_eq!(comic_stored.len(), 1, "the comic is said stored once");
        assert_eq!(said_stored(file).len(), 1, "the file is said stored once");
        if large {
            assert!(
                comic_stored[0] < file_started,
                "the large file started before the comic was said stored"
            );
        }
        for book in [comic, file] {
            assert_eq!(book_state(&env, book), BookState::Stored);
        }
    }
}

/// The positions of `book`'s pages claimed by the run and not yet marked stored: active, no size
/// recorded. Without pages claimed ahead these are at most the page being fetched and its
/// follow-up; a claim ahead takes up to 15 more at once (and its pages put in place quietly wait
/// for their sizes too).
fn claimed_unstored_pages(store: &carrel_core::foundation::store::Store, book: i64) -> Vec<i64> {
    download_stack::tasks_of_book(store, book)
        .unwrap()
        .into_iter()
        .filter(|t| t.kind == TaskKind::Page && t.state == TaskState::Active && t.bytes.is_none())
        .map(|t| t.position)
        .collect()
}

/// Pages that come quickly are claimed ahead, several at a time, and put in place without a
/// transaction each (see `executor/claim_ahead.rs`). A run stopped in the middle of such a claim
/// ahead gives back the pages it claimed and did not reach, and marks the pages it put in place
/// done with their sizes: nothing is left active, every page done has the size of its file, and the
/// next run fetches only what is missing — each page once, but for the one asked for ahead when the
/// run stopped.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_run_stopped_within_a_stretch_of_pages_gives_back_what_it_claimed_and_loses_nothing() {
    let (fixture, env, _, ids) = served(one_comic(60)).await;
    let book = ids[&1];
    book_downloads::store_book(&env.store, book).unwrap();
    let (stop_tx, stop_rx) = tokio::sync::watch::channel(false);
    let stop_tx = Arc::new(stop_tx);
    let stopper = stop_tx.clone();
    let (store, claimed) = (env.store.clone(), Arc::new(std::sync::Mutex::new(None)));
    let seen = claimed.clone();
    let sink = ActsAfterAPage::new((book, 20), move || {
        *seen.lock().unwrap() = Some(claimed_unstored_pages(&store, book));
        let _ = stopper.send(true);
    });
    let ex = env.executor(fast_config(), sink.clone());
    assert_eq!(
        ex.run(RunMode::UntilIdle, stop_rx).await.unwrap(),
        Finish::Shutdown
    );
    // The stop came among pages claimed ahead: more pages were claimed than a page and its
    // follow-up.
    let claimed = claimed.lock().unwrap().clone().expect("page 20 was done");
    assert!(
        claimed.len() > 2,
        "no pages were claimed ahead when the run stopped: claimed {claimed:?}"
    );
    let active = download_stack::in_state(&env.store, TaskState::Active, 100).unwrap();
    assert!(active.is_empty(), "left active: {active:?}");
    let tasks = download_stack::tasks_of_book(&env.store, book).unwrap();
    let files = PartFiles::new(env.store.data_dir().books());
    let mut done = 0;
    for t in tasks.iter().filter(|t| t.kind == TaskKind::Page) {
        if t.state == TaskState::Done {
            done += 1;
            let path = files
                .find_page(book, t.position)
                .expect("a done page's file");
            let len = std::fs::metadata(&path).unwrap().len() as i64;
            assert_eq!(t.bytes, Some(len), "page {} done with its size", t.position);
        }
    }
    assert!(done >= 20, "{done} pages done before the stop");
    assert!(done < 60, "the run stopped before the end");
    // A page claimed and given back is pending at most once (the chain's next page).
    let pending = tasks
        .iter()
        .filter(|t| t.state == TaskState::Pending && t.kind == TaskKind::Page)
        .count();
    assert!(pending <= 1, "{pending} pages pending: {tasks:?}");

    let (_stop, rx) = tokio::sync::watch::channel(false);
    let ex = env.executor(fast_config(), Arc::new(RecordingSink::default()));
    assert_eq!(ex.run(RunMode::UntilIdle, rx).await.unwrap(), Finish::Idle);
    assert_eq!(book_state(&env, book), BookState::Stored);
    let stats = fixture.stats();
    let twice: Vec<u32> = (0..60).filter(|&i| page_hits(&stats, 1, i) > 1).collect();
    assert!(twice.len() <= 1, "pages fetched twice: {twice:?}");
    for i in 0..60 {
        assert!(page_hits(&stats, 1, i) >= 1, "page {i} fetched");
        let path = files.find_page(book, i as i64).expect("every page stored");
        assert_eq!(
            std::fs::read(path).unwrap(),
            fixture.page_bytes(1, i).unwrap(),
            "page {i}"
        );
    }
}

/// A page the reader asks for that the executor already claimed with pages claimed ahead (see
/// `executor/claim_ahead.rs`) comes next, as any page asked for does: the push is counted even
/// though the page's task is claimed, and the pages claimed ahead are given back with that page put
/// on the top of the stack.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_page_asked_for_within_a_stretch_claimed_ahead_comes_next() {
    let (fixture, env, _, ids) = served(one_comic(60)).await;
    let book = ids[&1];
    book_downloads::store_book(&env.store, book).unwrap();
    let store = env.store.clone();
    let claimed = Arc::new(std::sync::Mutex::new(None));
    let seen = claimed.clone();
    let sink = ActsAfterAPage::new((book, 20), move || {
        *seen.lock().unwrap() = Some(claimed_unstored_pages(&store, book));
        book_downloads::open_book(&store, book, Some(30)).unwrap();
    });
    let ex = env.executor(fast_config(), sink.clone());
    let (_stop, rx) = tokio::sync::watch::channel(false);
    assert_eq!(ex.run(RunMode::UntilIdle, rx).await.unwrap(), Finish::Idle);
    // Page 30 was asked for among pages claimed ahead: claimed already, with more than a page and
    // its follow-up.
    let claimed = claimed.lock().unwrap().clone().expect("page 20 was done");
    assert!(
        claimed.len() > 2 && claimed.contains(&30),
        "page 30 was not among the pages claimed ahead when the reader asked: claimed {claimed:?}"
    );
    let order: Vec<i64> = pages_done(&sink.events)
        .into_iter()
        .filter(|(b, _)| *b == book)
        .map(|(_, p)| p)
        .collect();
    let at = |page: i64| order.iter().position(|&p| p == page).unwrap();
    // Page 21 was claimed when the reader asked; page 30 follows it.
    assert!(at(30) <= at(20) + 2, "page 30 came late: {order:?}");
    assert_eq!(order.len(), 60, "{order:?}");
    assert_eq!(book_state(&env, book), BookState::Stored);
    let stats = fixture.stats();
    assert_eq!(stats.global_max_in_flight, 1, "one polite stream");
    let twice: Vec<u32> = (0..60).filter(|&i| page_hits(&stats, 1, i) > 1).collect();
    assert!(twice.len() <= 1, "pages fetched twice: {twice:?}");
}

/// A sink that does `act` (once) when the executor says it is `when`, from inside the
/// executor's report: the change lands between the executor's last look at the stack and its
/// wait, the narrowest place for a wake-up to be missed.
struct ActsWhen {
    when: carrel_core::engine::progress::ExecutorState,
    act: std::sync::Mutex<Option<Box<dyn FnOnce() + Send>>>,
    seen: RecordingSink,
}

impl ProgressSink for ActsWhen {
    fn report(&self, event: DownloadEvent) {
        if matches!(&event, DownloadEvent::State(s) if *s == self.when) {
            let act = self.act.lock().unwrap().take();
            if let Some(act) = act {
                act();
            }
        }
        self.seen.report(event);
    }
}

/// A book stored between the executor finding the stack empty and its wait is seen by that
/// wait: the executor does not sleep on work pushed in that moment.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_push_made_as_the_executor_goes_idle_is_not_missed() {
    use carrel_core::engine::progress::ExecutorState;
    let (_fixture, env, _, ids) = served(two_comics(2)).await;
    let (store, second) = (env.store.clone(), ids[&2]);
    let sink = Arc::new(ActsWhen {
        when: ExecutorState::Idle,
        act: std::sync::Mutex::new(Some(Box::new(move || {
            book_downloads::store_book(&store, second).unwrap();
        }))),
        seen: RecordingSink::default(),
    });
    let (stop, run) = env.spawn_executor_with(fast_config(), RunMode::Forever, sink.clone());
    wait_for_event(
        &sink.seen,
        "the book pushed as the executor went idle",
        |e| matches!(e, DownloadEvent::BookStored(b) if b.book_id == second),
    )
    .await;
    stop.send(true).unwrap();
    assert_eq!(run.await.unwrap(), Finish::Shutdown);
}

/// Downloads resumed between the executor finding them paused and its wait are seen by that
/// wait.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_resume_made_as_the_executor_pauses_is_not_missed() {
    use carrel_core::engine::executor;
    use carrel_core::engine::progress::ExecutorState;
    let (_fixture, env, _, ids) = served(one_comic(2)).await;
    executor::set_paused(&env.store, true).unwrap();
    book_downloads::store_book(&env.store, ids[&1]).unwrap();
    let store = env.store.clone();
    let sink = Arc::new(ActsWhen {
        when: ExecutorState::Paused,
        act: std::sync::Mutex::new(Some(Box::new(move || {
            executor::set_paused(&store, false).unwrap();
        }))),
        seen: RecordingSink::default(),
    });
    let (stop, run) = env.spawn_executor_with(fast_config(), RunMode::Forever, sink.clone());
    wait_for_event(&sink.seen, "the book resumed as the executor paused", |e| {
        matches!(e, DownloadEvent::BookStored(_))
    })
    .await;
    stop.send(true).unwrap();
    assert_eq!(run.await.unwrap(), Finish::Shutdown);
}
