//! The comic reader, end to end: the real window reading a comic from a real library server (the
//! in-process `fixture-server`) with nothing downloaded yet.
//!
//! Run: `xvfb-run -a dbus-run-session -- cargo test -p carrel-e2e --test reader -- --test-threads=1`
//! after `npm run --prefix ui build && cargo build -p carrel`.

use std::time::{Duration, Instant};

use carrel_e2e::{default_timeout, testid, App, TestCase};
use fixture_server::{Config, Faults, RunningServer, Server};
use serde_json::json;

const BOOK: u32 = 1;
const PAGES: u32 = 60;

fn sel(id: &str) -> String {
    testid(id)
}

/// Pages of fixture book `BOOK` asked for so far, by page number as in the URL.
fn pages_asked(server: &RunningServer) -> Vec<u32> {
    let prefix = format!("/books/{BOOK}/pages/");
    let mut pages: Vec<u32> = server
        .stats()
        .clients
        .values()
        .flat_map(|c| c.hits.keys())
        .filter_map(|url| url.strip_prefix(&prefix))
        .filter_map(|rest| rest.split(['?', '/']).next()?.parse().ok())
        .collect();
    pages.sort_unstable();
    pages.dedup();
    pages
}

fn add_server(app: &App, name: &str, url: &str) {
    carrel_e2e::submit_server_dialog(app, name, url, None).unwrap();
    app.wait_for_hidden(&sel("add-server-dialog")).unwrap();
    app.wait_for_text(&sel("server-item"), name).unwrap();
}

/// Opens the server, follows "All books" and opens the details of the book titled `title`,
/// after `before(id)`; returns its id in the app.
fn open_details(app: &App, title: &str, before: impl FnOnce(i64)) -> i64 {
    app.wait_for(&sel("server-open")).unwrap().click().unwrap();
    let all = app
        .wait_until("the root feed", default_timeout(), |_| {
            for entry in app.find_all(&sel("catalog-nav-entry"))? {
                if entry.inner_text()?.contains("All books") {
                    return Ok(Some(entry));
                }
            }
            Ok(None)
        })
        .unwrap();
    all.click().unwrap();
    let tile = app
        .wait_until("the book in the grid", default_timeout(), |_| {
            for tile in app.find_all(&sel("catalog-book"))? {
                if tile.inner_text()?.contains(title) {
                    return Ok(Some(tile));
                }
            }
            Ok(None)
        })
        .unwrap();
    let id: i64 = tile.attribute("data-book-id").unwrap().expect("a tile has data-book-id").parse().unwrap();
    before(id);
    tile.click().unwrap();
    app.wait_for_displayed(&format!("{}[data-book-id=\"{id}\"]", sel("book-details"))).unwrap();
    id
}

#[test]
fn reading_a_comic_at_page_41_fetches_that_page_first_and_shows_it() {
    let case = TestCase::start();
    // Every page answer 300 ms late: the order in which pages are asked for is easy to see.
    let server = Server::start(Config {
        books: 1,
        comic_pages: [(BOOK, PAGES)].into(),
        faults: Faults {
            latency_ms: 300,
            path_prefix: Some(format!("/books/{BOOK}/pages/")),
            ..Faults::default()
        },
        ..Config::default()
    })
    .expect("start the fixture server");
    let title = server.book(BOOK).unwrap().title;
    let app = case.launch_with(case.options().env("CARREL_SECRETS", "file"));

    add_server(&app, "Fixture Library", &server.url("/opds"));
    // The reader stopped at page 41 last time (0-based 40); nothing is downloaded.
    let id = open_details(&app, &title, |id| {
        let answer = app
            .execute_async(
                "const done = arguments[arguments.length - 1];
                 window.__TAURI_INTERNALS__.invoke('save_position', { bookId: arguments[0], page: 40 })
                   .then(() => done('ok'), (e) => done(JSON.stringify(e)));",
                vec![json!(id)],
            )
            .unwrap();
        assert_eq!(answer, json!("ok"), "save_position");
    });
    app.wait_for_text(&sel("read-book"), "Continue reading").unwrap();
    assert!(pages_asked(&server).is_empty(), "no page was asked for before reading");

    app.find(&sel("read-book")).unwrap().click().unwrap();
    app.wait_for_displayed(&format!("{}[data-book-id=\"{id}\"]", sel("comic-reader"))).unwrap();

    // The first page asked for is page 40.
    let deadline = Instant::now() + default_timeout();
    let first = loop {
        let asked = pages_asked(&server);
        if !asked.is_empty() {
            break asked;
        }
        assert!(Instant::now() < deadline, "no page was asked for");
        std::thread::sleep(Duration::from_millis(20));
    };
    assert_eq!(first, [40], "the reader's page is asked for first");

    // It shows, and the indicator says where the reader is.
    app.wait_until("the page to show", default_timeout(), |c| {
        let width = c.execute(
            "const img = document.querySelector('[data-testid=\"page-image\"]');
             return img && img.complete && !img.classList.contains('hidden') ? img.naturalWidth : 0;",
            vec![],
        )?;
        Ok((width.as_u64().unwrap_or(0) > 0).then_some(()))
    })
    .unwrap();
    assert_eq!(app.find(&sel("page-image")).unwrap().attribute("data-page").unwrap().as_deref(), Some("40"));
    let indicator = app.find(&sel("page-indicator")).unwrap().inner_text().unwrap();
    assert_eq!(indicator.trim(), "Page 41 of 60");

    // The next page comes from the chain and the read-ahead, then a key turns to it.
    app.find("body").unwrap().send_keys("\u{E014}").unwrap(); // ArrowRight
    app.wait_for_text(&sel("page-indicator"), "Page 42 of 60").unwrap();
    let asked = pages_asked(&server);
    assert!(asked.contains(&41), "page 41 was fetched: {asked:?}");
    assert!(!asked.contains(&0), "the pages before the reader's come last: {asked:?}");

    app.close().unwrap();
    server.stop();
}
