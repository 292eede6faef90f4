//! What the Downloads page and Home say about what happens, end to end: pausing said at once,
//! one way of counting a book's pages, batches that count only what they still have to bring,
//! the list of finished downloads, and where an EPUB was left (a percentage and a chapter, not
//! a page).
//!
//! The set-up (a server's books remembered, books asked for) goes through the app's own
//! commands from the window, as its buttons would; what is checked is what the window shows.
//!
//! Run: `xvfb-run -a dbus-run-session -- cargo test -p carrel-e2e downloads:: -- --test-threads=1`
//! after `npm run --prefix ui build && cargo build -p carrel`.

use std::collections::BTreeMap;
use std::time::{Duration, Instant};

use crate::support::{self, book_entries, books, go, launch, sel, slow_comic, start_server};
use carrel_e2e::{default_timeout, App, TestCase};
use fixture_server::{Config, RunningServer};
use serde_json::{json, Value};

/// How long a book may take to arrive once asked for.
const DOWNLOAD_TIMEOUT: Duration = Duration::from_secs(60);

/// Calls one of the app's commands from the window; panics on a refusal.
fn invoke(app: &App, command: &str, args: Value) -> Value {
    let answer = support::invoke(app, command, args);
    match answer.get("ok") {
        Some(v) => v.clone(),
        None => panic!("{command} was refused: {answer}"),
    }
}

/// Adds a server through the "Add server" dialog; returns its id.
fn add_named_server(app: &App, name: &str, url: &str) -> i64 {
    carrel_e2e::submit_server_dialog(app, name, url, None).unwrap();
    app.wait_for_hidden(&sel("add-server-dialog")).unwrap();
    app.wait_for_text(&sel("server-item"), name).unwrap();
    invoke(app, "list_servers", json!({}))
        .as_array()
        .unwrap()
        .iter()
        .find(|s| s["name"] == name)
        .and_then(|s| s["id"].as_i64())
        .expect("a server id")
}

fn add_server(app: &App, url: &str) -> i64 {
    add_named_server(app, "Fixture Library", url)
}

/// The books of the server's "All books" feed, remembered by the app: (id, title, reader).
fn all_books(app: &App, server_id: i64, server: &RunningServer) -> Vec<(i64, String, String)> {
    let view = invoke(
        app,
        "browse_catalog",
        json!({ "serverId": server_id, "feedUrl": server.url("/opds/books") }),
    );
    book_entries(&view)
        .into_iter()
        .map(|e| {
            (
                e["book_id"].as_i64().unwrap(),
                e["title"].as_str().unwrap().to_owned(),
                e["reader"].as_str().unwrap().to_owned(),
            )
        })
        .collect()
}

/// The text of the first element matching `selector`, `None` while there is none.
fn text_of(app: &App, selector: &str) -> Option<String> {
    match app.try_find(selector) {
        Ok(Some(e)) => e.inner_text().ok(),
        _ => None,
    }
}

/// Home and the details panel say how far an EPUB is read as a person would — "96 % ·
/// Chapter 4" — not "Page 1", which is what opening it had recorded.
#[test]
fn an_epub_read_shows_its_percentage_and_chapter_not_a_page() {
    let case = TestCase::start();
    let server = start_server(books(3));
    let app = launch(&case);
    let server_id = add_server(&app, &server.url("/opds"));
    let (id, title, _) = all_books(&app, server_id, &server)
        .into_iter()
        .find(|(_, _, reader)| reader == "epub")
        .expect("the fixture serves an EPUB");
    // Opened (the reader's position starts at its first "page"), then read to 96 %.
    invoke(&app, "open_book", json!({ "bookId": id }));
    invoke(
        &app,
        "save_epub_position",
        json!({ "bookId": id, "cfi": "epubcfi(/6/8!/4/2/1:0)", "fraction": 0.96, "chapter": "Chapter 4" }),
    );
    go(&app, "downloads-nav", "downloads-view");
    go(&app, "home-nav", "library-view");
    let tile = app
        .wait_until("the EPUB under Continue reading", default_timeout(), |_| {
            for tile in app.find_all(&sel("continue-item"))? {
                let text = tile.inner_text()?;
                if text.contains(&title) {
                    return Ok(Some(tile));
                }
            }
            Ok(None)
        })
        .unwrap();
    let note = tile.inner_text().unwrap();
    assert!(note.contains("96 % · Chapter 4"), "{note}");
    assert!(!note.contains("Page"), "{note}");
    tile.click().unwrap();
    let facts = app
        .wait_for_text(
            &format!("{}[data-book-id=\"{id}\"] dl", sel("book-details")),
            "96 % · Chapter 4",
        )
        .unwrap();
    assert!(!facts.to_lowercase().contains("page 1"), "{facts}");
}

/// "Pause all" is said at once: no "Now downloading … min left" while the executor finishes
/// the page under way. Before it, the book in flight says its pages one way only.
#[test]
fn pausing_all_downloads_says_paused_at_once() {
    let case = TestCase::start();
    // Slow pages: the page under way when the pause comes takes a while to end.
    let server = start_server(slow_comic(60, 1_500));
    let app = launch(&case);
    let server_id = add_server(&app, &server.url("/opds"));
    let (id, _, _) = all_books(&app, server_id, &server).remove(0);
    invoke(&app, "store_book", json!({ "bookId": id }));
    go(&app, "downloads-nav", "downloads-view");
    let figures = app
        .wait_for_text(&sel("active-download"), "pages stored")
        .unwrap();
    assert!(
        !figures.contains("Page "),
        "the book line counts pages stored, not the page under way: {figures}"
    );
    // Paused in the middle of a page, with time to spare before the next view.
    app.wait_for(&sel("pause-all")).unwrap().click().unwrap();
    let clicked = Instant::now();
    app.wait_for(&sel("resume-all")).unwrap();
    // From the click on, for longer than a page takes: Paused, and nothing under way.
    while clicked.elapsed() < Duration::from_millis(3_500) {
        let status = text_of(&app, &sel("executor-status")).unwrap_or_default();
        let active = app.exists(&sel("active-download")).unwrap();
        assert!(
            status.contains("Paused") && !active,
            "{:?} after the pause: status {status:?}, a download shown: {active}",
            clicked.elapsed()
        );
        std::thread::sleep(Duration::from_millis(100));
    }
    let state = app
        .find(&sel("executor-status"))
        .unwrap()
        .attribute("data-state")
        .unwrap();
    assert_eq!(state.as_deref(), Some("paused"));
}

/// A batch counts only what it still has to bring: its only book cancelled, it leaves the list
/// (no "Pause" or "Download first" that would do nothing); a book of a finished batch removed
/// from the device, it stays done — nothing to pause, nothing brought back.
#[test]
fn a_batch_ends_when_nothing_is_left_to_bring() {
    let case = TestCase::start();
    // One book of many slow pages: cancelled while it downloads.
    let slow = start_server(slow_comic(40, 300));
    // Three small books: brought whole, then one removed.
    let small = start_server(Config {
        books: 3,
        comic_pages: BTreeMap::from([(1, 2), (2, 2), (3, 2)]),
        ..Config::default()
    });
    let app = launch(&case);
    let batch = sel("download-batch");
    let line = format!("{batch} {}", sel("batch-line"));

    let slow_id = add_named_server(&app, "Slow Library", &slow.url("/opds"));
    let one = all_books(&app, slow_id, &slow)[0].0;
    invoke(
        &app,
        "keep_feed_offline",
        json!({ "serverId": slow_id, "feedUrl": slow.url("/opds/books") }),
    );
    go(&app, "downloads-nav", "downloads-view");
    app.wait_for_text(&line, "0 of 1 book on this device")
        .unwrap();
    let cancel = format!(
        "{}[data-book-id=\"{one}\"] {}",
        sel("active-download"),
        sel("cancel-download")
    );
    app.wait_for(&cancel).unwrap().click().unwrap();
    // Gone from the list, not left with a Pause and a "Download first" that do nothing.
    app.wait_until(
        "the batch to leave the list",
        Duration::from_secs(10),
        |c| Ok((!c.exists(&batch)?).then_some(())),
    )
    .unwrap();

    let small_id = add_named_server(&app, "Small Library", &small.url("/opds"));
    let books = all_books(&app, small_id, &small);
    invoke(
        &app,
        "keep_feed_offline",
        json!({ "serverId": small_id, "feedUrl": small.url("/opds/books") }),
    );
    app.wait_until("the batch done", DOWNLOAD_TIMEOUT, |c| {
        let text = c.find(&line)?.inner_text()?;
        Ok(text.contains("3 of 3 books on this device").then_some(()))
    })
    .unwrap();
    // One book removed from the device: its batch holds two, both here, and is done.
    invoke(&app, "remove_book", json!({ "bookId": books[2].0 }));
    let after = app
        .wait_until("the batch to count what it holds", default_timeout(), |c| {
            let text = c.find(&line)?.inner_text()?;
            Ok(text.contains("2 of 2 books").then_some(text))
        })
        .unwrap();
    assert!(after.contains("done"), "{after}");
    assert!(
        !app.exists(&sel("batch-pause")).unwrap(),
        "nothing to pause"
    );
    assert!(!app.exists(&sel("batch-top")).unwrap());
    assert!(
        !app.exists(&sel("download-queue-item")).unwrap(),
        "nothing queued"
    );
}

/// Finished downloads leave a trace: the books stored lately, newest first, each with Open;
/// "Clear" empties the list.
#[test]
fn finished_downloads_are_listed_with_open_until_cleared() {
    let case = TestCase::start();
    let server = start_server(Config {
        books: 2,
        comic_pages: BTreeMap::from([(1, 2), (2, 2)]),
        ..Config::default()
    });
    let app = launch(&case);
    let server_id = add_server(&app, &server.url("/opds"));
    let books = all_books(&app, server_id, &server);
    go(&app, "downloads-nav", "downloads-view");
    let done = sel("download-done-item");
    for (id, _, _) in &books {
        invoke(&app, "store_book", json!({ "bookId": id }));
        app.wait_for(&format!("{done}[data-book-id=\"{id}\"]"))
            .unwrap();
    }
    let order: Vec<i64> = app
        .find_all(&done)
        .unwrap()
        .iter()
        .map(|e| {
            e.attribute("data-book-id")
                .unwrap()
                .unwrap()
                .parse()
                .unwrap()
        })
        .collect();
    assert_eq!(order, [books[1].0, books[0].0], "newest first");

    // Open reads the book.
    app.find(&format!(
        "{done}[data-book-id=\"{}\"] {}",
        books[0].0,
        sel("open-done")
    ))
    .unwrap()
    .click()
    .unwrap();
    app.wait_for_displayed(&format!(
        "{}[data-book-id=\"{}\"]",
        sel("comic-reader"),
        books[0].0
    ))
    .unwrap();

    app.wait_for(&sel("reader-back")).unwrap().click().unwrap();
    go(&app, "downloads-nav", "downloads-view");
    app.wait_for(&sel("clear-done")).unwrap().click().unwrap();
    app.wait_for_absent(&sel("done-downloads")).unwrap();
}
