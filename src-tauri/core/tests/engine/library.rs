//! What the windows do to books and downloads beyond the producers: moving a book to the top,
//! cancelling it, evicting books no longer kept, the downloads page, and storage usage.

use std::sync::Arc;
use std::time::{Duration, Instant};

use carrel_core::{
    catalog::cover_cache,
    catalog::storage_usage,
    engine::book_downloads::{self, BookState, DownloadRequestError},
    engine::download_stack::{self, StackError, TaskKind, TaskSpec, TaskState},
    engine::downloads_view::{self, DownloadsMonitor, ExecutorStatus},
    engine::executor_lease::{self, Acquire, Fence},
    engine::progress::{DownloadEvent, ExecutorState},
    foundation::clock::ManualClock,
    foundation::part_files::{self, PartFiles},
    library::books::{self, Book, BookError},
    library::catalog_cache::{self, CachedDocument},
    library::servers::{self, Server},
    library::settings::{Settings, Theme},
};

use crate::support::Env;

/// Each book's own page stream (one stream is one book: see `book_identity`).
fn template(id: &str) -> String {
    format!("http://127.0.0.1:9/{id}/p/{{pageNumber}}")
}

fn page(book: &Book, position: i64, prioritary: bool) -> TaskSpec {
    TaskSpec {
        book_id: book.id,
        server_id: book.server_id,
        kind: TaskKind::Page,
        position,
        url: format!("http://127.0.0.1:9/b/{}/{position}", book.id),
        prioritary,
    }
}

fn lease(env: &Env, holder: &str) -> Fence {
    match executor_lease::try_acquire(&env.store, holder, 10_000).unwrap() {
        Acquire::Acquired { fence, .. } => fence,
        other => panic!("{other:?}"),
    }
}

fn pop_order(env: &Env) -> Vec<(i64, i64)> {
    download_stack::pending_in_pop_order(&env.store, 1000)
        .unwrap()
        .iter()
        .map(|t| (t.book_id, t.position))
        .collect()
}

/// Claims the top task, stores its page file and marks it done.
fn store_next(env: &Env, fence: &Fence) -> (i64, i64) {
    let t = download_stack::claim_next(&env.store, fence, &[])
        .unwrap()
        .expect("a task to claim");
    let files = PartFiles::new(env.dir.books());
    part_files::write_atomically(&files.page_path(t.book_id, t.position, "png"), &[7; 100])
        .unwrap();
    download_stack::complete(&env.store, fence, t.id, 100, &[]).unwrap();
    (t.book_id, t.position)
}

fn setup(books: &[(&str, u32)]) -> (Env, Server, Vec<Book>) {
    let env = Env::with_clock(Arc::new(ManualClock::new(1_000_000)));
    let server = env.add_server("S", "http://127.0.0.1:9/opds");
    let made = books
        .iter()
        .map(|(id, pages)| env.comic(&server, id, *pages, &template(id)))
        .collect();
    (env, server, made)
}

#[test]
fn moving_a_book_to_the_top_keeps_its_own_order_and_prioritary_tasks_first() {
    let (env, _s, b) = setup(&[("a", 10), ("b", 10), ("c", 10)]);
    let (a, bb, c) = (&b[0], &b[1], &b[2]);
    for spec in [
        page(a, 0, false),
        page(a, 1, false),
        page(bb, 0, false),
        page(bb, 1, false),
        page(c, 0, false),
    ] {
        download_stack::push(&env.store, &spec).unwrap();
    }
    assert_eq!(
        pop_order(&env),
        [(c.id, 0), (bb.id, 1), (bb.id, 0), (a.id, 1), (a.id, 0)]
    );
    assert_eq!(
        book_downloads::move_book_to_top(&env.store, a.id).unwrap(),
        2
    );
    assert_eq!(
        pop_order(&env),
        [(a.id, 1), (a.id, 0), (c.id, 0), (bb.id, 1), (bb.id, 0)]
    );
    download_stack::push(&env.store, &page(bb, 5, true)).unwrap();
    book_downloads::move_book_to_top(&env.store, c.id).unwrap();
    assert_eq!(
        pop_order(&env),
        [
            (bb.id, 5),
            (c.id, 0),
            (a.id, 1),
            (a.id, 0),
            (bb.id, 1),
            (bb.id, 0)
        ],
        "the reader's prioritary page still comes first"
    );
    assert!(matches!(
        book_downloads::move_book_to_top(&env.store, 999),
        Err(DownloadRequestError::Book(BookError::NotFound(999)))
    ));
}

#[test]
fn cancelling_a_book_drops_its_unfinished_downloads_and_keeps_what_is_stored() {
    let (env, _s, b) = setup(&[("a", 5), ("other", 3)]);
    let (a, other) = (&b[0], &b[1]);
    let fence = lease(&env, "test");
    download_stack::push(&env.store, &page(other, 0, false)).unwrap();
    for p in 0..4 {
        download_stack::push(&env.store, &page(a, p, false)).unwrap();
    }
    books::set_pinned(&env.store, a.id, true).unwrap();
    assert_eq!(store_next(&env, &fence), (a.id, 3));
    let failed = download_stack::claim_next(&env.store, &fence, &[])
        .unwrap()
        .unwrap();
    download_stack::fail(&env.store, &fence, failed.id, "gone (410)", &[]).unwrap();
    let running = download_stack::claim_next(&env.store, &fence, &[])
        .unwrap()
        .unwrap();
    assert_eq!((running.book_id, running.position), (a.id, 1));

    book_downloads::cancel_book(&env.store, a.id).unwrap();

    let left: Vec<(i64, TaskState)> = download_stack::tasks_of_book(&env.store, a.id)
        .unwrap()
        .into_iter()
        .map(|t| (t.position, t.state))
        .collect();
    assert_eq!(left, [(3, TaskState::Done)], "only the stored part stays");
    assert!(
        PartFiles::new(env.dir.books()).find_page(a.id, 3).is_some(),
        "and its file"
    );
    assert!(!books::get(&env.store, a.id).unwrap().pinned);
    // The running part finishes into nothing: no chained part follows.
    assert!(matches!(
        download_stack::complete(&env.store, &fence, running.id, 100, &[page(a, 2, false)]),
        Err(StackError::WrongState(_))
    ));
    assert_eq!(
        pop_order(&env),
        [(other.id, 0)],
        "other books are untouched"
    );
    let status =
        book_downloads::status(&env.store, &books::get(&env.store, a.id).unwrap()).unwrap();
    assert_eq!(
        (status.state, status.progress.stored_parts),
        (BookState::Remote, 1)
    );
    assert!(matches!(
        book_downloads::cancel_book(&env.store, 999),
        Err(DownloadRequestError::Book(BookError::NotFound(_)))
    ));
}

#[test]
fn books_neither_pinned_nor_recently_opened_leave_the_device() {
    let clock = ManualClock::new(1_000_000);
    let env = Env::with_clock(Arc::new(clock.clone()));
    let server = env.add_server("S", "http://127.0.0.1:9/opds");
    let fence = lease(&env, "test");
    let files = PartFiles::new(env.dir.books());
    // b1 … b5 opened in that order; each gets its first page stored.
    let mut opened = Vec::new();
    for i in 1..=5 {
        let pages = if i == 2 { 2 } else { 1 };
        let book = env.comic(
            &server,
            &format!("b{i}"),
            pages,
            &template(&format!("b{i}")),
        );
        clock.advance_ms(1_000);
        book_downloads::open_book(&env.store, book.id, Some(0)).unwrap();
        assert_eq!(store_next(&env, &fence), (book.id, 0));
        opened.push(book);
    }
    books::set_pinned(&env.store, opened[0].id, true).unwrap();
    // b2 still has a page waiting: it was asked for, it stays.
    download_stack::push(&env.store, &page(&opened[1], 1, false)).unwrap();
    // Never opened, stored through a finished task.
    let stray = env.comic(&server, "stray", 1, &template("stray"));
    download_stack::push(&env.store, &page(&stray, 0, false)).unwrap();
    store_next(&env, &fence);
    let ids: Vec<i64> = opened.iter().map(|b| b.id).collect();

    // What the settings page asks about first: the same books, with their titles, nothing removed.
    let asked = book_downloads::removed_if_kept(&env.store, 2).unwrap();
    assert_eq!(
        asked,
        [
            (ids[2], opened[2].title.clone()),
            (stray.id, stray.title.clone())
        ]
    );
    assert!(files.book_dir(ids[2]).exists(), "asking removes nothing");
    let removed = book_downloads::evict_unkept(&env.store, 2).unwrap();
    assert_eq!(removed, [ids[2], stray.id]);
    for id in [ids[2], stray.id] {
        assert!(!files.book_dir(id).exists(), "its files are gone");
        assert!(download_stack::tasks_of_book(&env.store, id)
            .unwrap()
            .is_empty());
        assert!(books::get(&env.store, id).is_ok(), "the book stays known");
    }
    for id in [ids[0], ids[1], ids[3], ids[4]] {
        assert!(files.find_page(id, 0).is_some(), "book {id} stays");
    }
    assert!(
        book_downloads::evict_unkept(&env.store, 2)
            .unwrap()
            .is_empty(),
        "nothing more to do"
    );

    // Lowering the setting to 0 keeps only the book open last (and pinned or waiting ones).
    let saved = carrel_core::engine::book_downloads::apply_settings(
        &env.store,
        &Settings {
            books_kept: 0,
            notifications: true,
            theme: Theme::System,
            metered_downloads: Default::default(),
            keep_running: false,
            language: None,
        },
    )
    .unwrap();
    assert_eq!(saved.books_kept, 0);
    assert!(!files.book_dir(ids[3]).exists());
    assert!(
        files.find_page(ids[4], 0).is_some(),
        "the book open last stays"
    );
    assert!(files.find_page(ids[0], 0).is_some(), "pinned");
    assert!(files.find_page(ids[1], 0).is_some(), "still downloading");
    assert_eq!(
        book_downloads::evict_per_setting(&env.store).unwrap(),
        Vec::<i64>::new()
    );
}

#[test]
fn the_downloads_page_lists_books_in_the_order_they_will_run() {
    let (env, _s, b) = setup(&[("a", 3), ("b", 2), ("c", 4), ("e", 1)]);
    let (a, bb, c, e) = (&b[0], &b[1], &b[2], &b[3]);
    let paused = env.add_server("P", "http://127.0.0.1:8/opds");
    let d = env.comic(&paused, "d", 2, "http://127.0.0.1:8/p/{pageNumber}");
    servers::set_paused(&env.store, paused.id, Some("authentication needed")).unwrap();
    let fence = lease(&env, "this-app");
    download_stack::push(&env.store, &page(e, 0, false)).unwrap();
    let t = download_stack::claim_next(&env.store, &fence, &[])
        .unwrap()
        .unwrap();
    download_stack::fail(
        &env.store,
        &fence,
        t.id,
        "the server no longer has this (410 Gone)",
        &[],
    )
    .unwrap();
    for spec in [
        page(a, 0, false),
        page(bb, 0, false),
        page(c, 0, false),
        page(&d, 0, false),
        page(bb, 1, true),
    ] {
        download_stack::push(&env.store, &spec).unwrap();
    }
    let running = download_stack::claim_next(&env.store, &fence, &[])
        .unwrap()
        .unwrap();
    assert_eq!((running.book_id, running.position), (bb.id, 1));

    // Pages took two seconds each, as this process's executor saw it.
    let monitor = DownloadsMonitor::new();
    let t0 = Instant::now();
    monitor.observe_at(&DownloadEvent::State(ExecutorState::Running), t0);
    for i in 0..3 {
        let at = t0 + Duration::from_secs(2 * i);
        let id = 1000 + i as i64;
        monitor.observe_at(
            &DownloadEvent::TaskStarted {
                task_id: id,
                book_id: 1,
                kind: TaskKind::Page,
                position: 0,
            },
            at,
        );
        monitor.observe_at(
            &DownloadEvent::TaskDone {
                task_id: id,
                book_id: 1,
                kind: TaskKind::Page,
                position: 0,
                bytes: 1000,
            },
            at + Duration::from_secs(2),
        );
    }
    let live = monitor.snapshot_at(t0 + Duration::from_secs(7));

    let view = downloads_view::view(&env.store, &live, Some("this-app")).unwrap();
    assert!(!view.paused);
    assert!(view.executor.this_process);
    assert_eq!(view.executor.holder.as_deref(), Some("this-app"));
    assert_eq!(view.executor.status, ExecutorStatus::Running);
    let active = view.active.as_ref().unwrap();
    assert_eq!(
        (active.book_id, active.kind, active.position),
        (bb.id, TaskKind::Page, 1)
    );
    let order: Vec<i64> = view.queue.iter().map(|q| q.book_id).collect();
    assert_eq!(
        order,
        [c.id, a.id, d.id],
        "the book in flight is not listed again; a paused server's book comes last"
    );
    assert_eq!(view.queue[0].status.state, BookState::Queued);
    assert!(!view.queue[0].prioritary);
    // b: two parts left, the one in flight half done (1 s) and one more (2 s); then c: four pages.
    let etas: Vec<Option<u64>> = view.queue.iter().map(|q| q.eta_s).collect();
    assert_eq!(etas, [Some(3 + 8), Some(3 + 8 + 6), None]);
    assert_eq!(view.failed.len(), 1);
    assert_eq!(view.failed[0].book_id, e.id);
    assert!(view.failed[0].reason.contains("410"));

    let json = serde_json::to_value(&view).unwrap();
    assert_eq!(json["executor"]["state"], "running");
    assert_eq!(json["queue"][0]["status"]["state"], "queued");
    assert_eq!(json["active"]["kind"], "page");

    // Paused by the reader: said at once, though the executor reports it only once the page
    // under way is over; nothing is estimated while nothing moves.
    carrel_core::engine::executor::set_paused(&env.store, true).unwrap();
    let pausing = downloads_view::view(&env.store, &live, Some("this-app")).unwrap();
    assert_eq!(pausing.executor.status, ExecutorStatus::Paused);
    assert_eq!(pausing.active, None, "no download is said to be under way");
    assert!(
        pausing.queue.iter().all(|q| q.eta_s.is_none()),
        "{:?}",
        pausing.queue
    );
    carrel_core::engine::executor::set_paused(&env.store, false).unwrap();

    // Seen from another process: standby, and no estimates from stale measurements.
    let other = downloads_view::view(&env.store, &live, Some("another-app")).unwrap();
    assert!(!other.executor.this_process);
    assert_eq!(other.executor.status, ExecutorStatus::Standby);
    assert!(other.queue.iter().all(|q| q.eta_s.is_none()));
    executor_lease::release(&env.store, &fence).unwrap();
    let nobody = downloads_view::view(&env.store, &live, Some("this-app")).unwrap();
    assert!(matches!(
        nobody.executor.status,
        ExecutorStatus::Stopped { .. }
    ));
    assert_eq!(nobody.executor.holder, None);
    carrel_core::engine::executor::set_paused(&env.store, true).unwrap();
    assert!(
        downloads_view::view(&env.store, &live, None)
            .unwrap()
            .paused
    );
}

#[test]
fn storage_usage_counts_books_covers_and_kept_pages_per_server() {
    let env = Env::new();
    let one = env.add_server("One", "http://127.0.0.1:9/opds");
    let two = env.add_server("Two", "http://127.0.0.1:8/opds");
    let empty = env.add_server("Empty", "http://127.0.0.1:7/opds");
    let x = env.comic(&one, "x", 3, &template("x"));
    let y = env.comic(&two, "y", 3, &template("y"));
    let files = PartFiles::new(env.dir.books());
    part_files::write_atomically(&files.page_path(x.id, 0, "png"), &[0; 100]).unwrap();
    part_files::write_atomically(&files.book_file_path(y.id, "epub"), &[0; 250]).unwrap();
    part_files::write_atomically(
        &cover_cache::cache_dir(&env.dir).join(format!("{}.png", x.id)),
        &[0; 30],
    )
    .unwrap();
    part_files::write_atomically(&files.page_path(999, 0, "png"), &[0; 5]).unwrap();
    catalog_cache::put(
        &env.store,
        two.id,
        "http://127.0.0.1:8/opds",
        &CachedDocument {
            bytes: b"<feed/>".to_vec(),
            final_url: url::Url::parse("http://127.0.0.1:8/opds").unwrap(),
            fetched_at_ms: 1,
        },
    )
    .unwrap();
    let usage = storage_usage::usage(&env.store).unwrap();
    let per: Vec<(i64, &str, u64)> = usage
        .per_server
        .iter()
        .map(|s| (s.server_id, s.name.as_str(), s.bytes))
        .collect();
    assert_eq!(
        per,
        [
            (empty.id, "Empty", 0),
            (one.id, "One", 130),
            (two.id, "Two", 257)
        ]
    );
    assert_eq!(
        usage.total_bytes,
        130 + 257 + 5,
        "files of unknown books count in the total"
    );
}

/// Several tasks are active at once while a download runs (pages in place waiting for their
/// sync, pages claimed ahead): the Downloads page shows the one this process's executor says
/// it runs, not the one updated last.
#[test]
fn the_downloads_page_shows_the_task_under_way_among_several_active() {
    let clock = Arc::new(ManualClock::new(1_000_000));
    let env = Env::with_clock(clock.clone());
    let server = env.add_server("S", "http://127.0.0.1:9/opds");
    let a = &env.comic(&server, "a", 6, &template("a"));
    let fence = lease(&env, "this-app");
    for p in (0..3).rev() {
        download_stack::push(&env.store, &page(a, p, true)).unwrap();
    }
    let first = download_stack::claim_next(&env.store, &fence, &[])
        .unwrap()
        .unwrap();
    let second = download_stack::claim_next(&env.store, &fence, &[])
        .unwrap()
        .unwrap();
    assert_eq!((first.position, second.position), (0, 1));
    // The second runs; the first, put in place, waits for its sync with its size recorded
    // after the second was claimed: updated last.
    clock.advance_ms(5);
    download_stack::mark_stored(&env.store, &fence, first.id, 1000, &[]).unwrap();
    let monitor = DownloadsMonitor::new();
    let t0 = Instant::now();
    monitor.observe_at(&DownloadEvent::State(ExecutorState::Running), t0);
    monitor.observe_at(
        &DownloadEvent::TaskStarted {
            task_id: second.id,
            book_id: a.id,
            kind: TaskKind::Page,
            position: 1,
        },
        t0,
    );
    let live = monitor.snapshot_at(t0 + Duration::from_millis(500));
    let view = downloads_view::view(&env.store, &live, Some("this-app")).unwrap();
    let active = view.active.as_ref().unwrap();
    assert_eq!((active.book_id, active.position), (a.id, 1));
    executor_lease::release(&env.store, &fence).unwrap();
}

/// The downloads page keeps the books finished lately — whole ones only, newest first, from the
/// last day — until the reader clears the list.
#[test]
fn finished_downloads_are_listed_newest_first_until_cleared() {
    use carrel_core::foundation::clock::Clock;
    let clock = ManualClock::new(1_000_000_000);
    let env = Env::with_clock(Arc::new(clock.clone()));
    let server = env.add_server("S", "http://127.0.0.1:9/opds");
    let old = env.comic(&server, "old", 1, &template("old"));
    let first = env.comic(&server, "first", 1, &template("first"));
    let half = env.comic(&server, "half", 2, &template("half"));
    let second = env.comic(&server, "second", 1, &template("second"));
    let fence = lease(&env, "this-app");
    let store_page = |book: &Book, position: i64| {
        download_stack::push(&env.store, &page(book, position, false)).unwrap();
        let t = download_stack::claim_next(&env.store, &fence, &[])
            .unwrap()
            .unwrap();
        download_stack::complete(&env.store, &fence, t.id, 100, &[]).unwrap();
    };
    store_page(&old, 0);
    clock.advance_ms(downloads_view::DONE_SPAN_MS + 1);
    store_page(&first, 0);
    clock.advance_ms(1_000);
    store_page(&half, 0);
    clock.advance_ms(1_000);
    store_page(&second, 0);
    let done = downloads_view::done(&env.store).unwrap();
    let listed: Vec<(i64, i64)> = done.iter().map(|d| (d.book_id, d.stored_at_ms)).collect();
    let now = clock.now_ms();
    assert_eq!(
        listed,
        [(second.id, now), (first.id, now - 2_000)],
        "whole books of the last day, newest first"
    );
    assert_eq!(done[0].title, second.title);
    let view = downloads_view::view(&env.store, &Default::default(), None).unwrap();
    assert_eq!(view.done, done);

    clock.advance_ms(1);
    downloads_view::clear_done(&env.store).unwrap();
    assert!(downloads_view::done(&env.store).unwrap().is_empty());
    clock.advance_ms(1);
    store_page(&half, 1);
    assert_eq!(
        downloads_view::done(&env.store)
            .unwrap()
            .iter()
            .map(|d| d.book_id)
            .collect::<Vec<_>>(),
        [half.id],
        "a book finished after the list was cleared"
    );
}
