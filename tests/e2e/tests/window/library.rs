//! The library, end to end: the real window against a real library server (the in-process
//! `fixture-server`), the way a reader uses it — add a server, browse and search it, keep a
//! book offline and watch it arrive; browse from the kept copy when the server is away; two app
//! processes on one data dir sharing one downloader; a server that wants a password; a book
//! marked read and unread from its details (its tile's "Read" mark, "Continue reading").
//!
//! Run: `xvfb-run -a dbus-run-session -- cargo test -p carrel-e2e -- library --test-threads=1`
//! after `npm run --prefix ui build && cargo build -p carrel -p carrel-cli`. Under
//! `dbus-run-session` no keyring answers, so the app keeps passwords in `secrets.json`
//! (`CARREL_SECRETS=file` says so explicitly). With `CARREL_E2E_SCREENSHOTS=docs/screenshots`
//! the screenshot test writes the pictures of the README.

use std::collections::BTreeMap;
use std::path::Path;
use std::time::{Duration, Instant};

use crate::support::{
    books, first_line, go, launch, saved_servers, sel, start_server, texts, wait_for_element,
    wait_for_feed,
};
use carrel_e2e::{data, default_timeout, save_docs_screenshot, App, Element, TestCase};
use fixture_server::{Config, Faults, RunningServer};
use serde_json::Value;

/// How long a book may take to arrive once asked for.
const DOWNLOAD_TIMEOUT: Duration = Duration::from_secs(60);
/// How often the tests look at the window while something moves.
const SAMPLE: Duration = Duration::from_millis(50);

// ---- finding things by what they say ------------------------------------------------------------

/// The titles of the books in the catalog grid, in order.
fn book_titles(app: &App) -> Vec<String> {
    texts(app, &sel("catalog-book"))
        .iter()
        .map(|t| first_line(t))
        .collect()
}

fn breadcrumbs(app: &App) -> Vec<String> {
    texts(
        app,
        &format!("{} {}", sel("breadcrumbs"), sel("breadcrumb")),
    )
}

// ---- what a reader does ---------------------------------------------------------------------------

/// Adds a server through the "Add server" dialog and waits until the sidebar lists it.
fn add_server(app: &App, name: &str, url: &str, login: Option<(&str, &str)>) {
    carrel_e2e::submit_server_dialog(app, name, url, login).unwrap();
    app.wait_for_hidden(&sel("add-server-dialog"))
        .unwrap_or_else(|e| {
            let error = texts(app, &sel("server-form-error"));
            panic!("the Add server dialog stayed open ({error:?}): {e}")
        });
    app.wait_for_text(&sel("server-item"), name).unwrap();
}

/// Opens a server's catalog from the sidebar and waits for its root feed.
fn open_server(app: &App, name: &str) {
    let item = wait_for_element(app, &sel("server-item"), "the server in the sidebar", |t| {
        t.contains(name)
    });
    item.find(&sel("server-open")).unwrap().click().unwrap();
    app.wait_for_displayed(&sel("browse-view")).unwrap();
    wait_for_feed(app);
}

/// Follows the navigation entry titled `title` and waits for its feed.
fn follow(app: &App, title: &str) {
    let entry = wait_for_element(
        app,
        &sel("catalog-nav-entry"),
        &format!("a navigation entry {title:?}"),
        |t| first_line(t) == title,
    );
    entry.click().unwrap();
    app.wait_until(
        &format!("the breadcrumbs to end at {title:?}"),
        default_timeout(),
        |_| {
            Ok(breadcrumbs(app)
                .last()
                .is_some_and(|c| c == title)
                .then_some(()))
        },
    )
    .unwrap_or_else(|e| panic!("{e}; breadcrumbs: {:?}", breadcrumbs(app)));
    wait_for_feed(app);
}

/// The tile of the book titled `title` in the grid shown.
fn book_tile<'a>(app: &'a App, title: &str) -> Element<'a> {
    wait_for_element(
        app,
        &sel("catalog-book"),
        &format!("the book {title:?} in the grid"),
        |t| first_line(t) == title,
    )
}

/// Opens the details of the book titled `title`; returns its id in the app.
fn open_details(app: &App, title: &str) -> i64 {
    let tile = book_tile(app, title);
    let id: i64 = tile
        .attribute("data-book-id")
        .unwrap()
        .expect("a book tile has data-book-id")
        .parse()
        .unwrap();
    tile.click().unwrap();
    let panel = format!("{}[data-book-id=\"{id}\"]", sel("book-details"));
    app.wait_for_displayed(&panel).unwrap();
    app.wait_for_text(&sel("details-title"), title).unwrap();
    id
}

/// The state (`data-state`) and text of the badge in the details panel; `None` while there is
/// none (or it is being redrawn).
fn details_badge(app: &App) -> Option<(String, String)> {
    let read = || -> carrel_e2e::Result<Option<(String, String)>> {
        let selector = format!("{} {}", sel("book-details"), sel("book-state-badge"));
        let Some(badge) = app.try_find(&selector)? else {
            return Ok(None);
        };
        let state = badge.attribute("data-state")?.unwrap_or_default();
        Ok(Some((state, badge.inner_text()?.trim().to_string())))
    };
    match read() {
        Ok(found) => found,
        Err(e) if e.is_not_found() => None,
        Err(e) => panic!("cannot read the book's badge: {e}"),
    }
}

/// Picks a theme in Settings and waits until the page wears it.
fn set_theme(app: &App, theme: &str) {
    go(app, "settings-nav", "settings-view");
    let input = sel(&format!("settings-theme-{theme}"));
    app.wait_for(&input).unwrap();
    app.find(&format!("label:has(> {input})"))
        .unwrap()
        .click()
        .unwrap();
    app.wait_until(&format!("the {theme} theme"), default_timeout(), |c| {
        let now = c.execute(
            "return document.documentElement.dataset.theme || ''",
            vec![],
        )?;
        Ok((now == theme).then_some(()))
    })
    .unwrap();
}

// ---- the server's side ----------------------------------------------------------------------------

/// Waits until the details shown say fixture book `book` of `server` is on the device; a
/// time-out says the badge and the pages asked for.
fn wait_until_stored(app: &App, what: &str, server: &RunningServer, book: u32) {
    app.wait_until(what, DOWNLOAD_TIMEOUT, |_| {
        Ok(details_badge(app)
            .filter(|(state, _)| state == "stored")
            .map(|_| ()))
    })
    .unwrap_or_else(|e| {
        panic!(
            "{e}; badge {:?}, pages asked for {:?}",
            details_badge(app),
            page_hits(server, book)
        )
    });
}

/// Requests for each page of fixture book `book`, by page number as in the URL.
fn page_hits(server: &RunningServer, book: u32) -> BTreeMap<u32, u64> {
    let prefix = format!("/books/{book}/pages/");
    let mut hits = BTreeMap::new();
    for client in server.stats().clients.values() {
        for (url, n) in &client.hits {
            let Some(rest) = url.strip_prefix(&prefix) else {
                continue;
            };
            let page: u32 = rest
                .split(['?', '/'])
                .next()
                .and_then(|p| p.parse().ok())
                .unwrap_or_else(|| panic!("a page URL without a page number: {url}"));
            *hits.entry(page).or_insert(0) += n;
        }
    }
    hits
}

/// Fails unless every page of a `pages`-page book was asked for exactly once.
fn assert_each_page_once(hits: &BTreeMap<u32, u64>, pages: u32, what: &str) {
    let expected: Vec<u32> = (0..pages).collect();
    let asked: Vec<u32> = hits.keys().copied().collect();
    assert_eq!(
        asked, expected,
        "{what}: the pages asked for are not exactly 0..{pages}: {hits:?}"
    );
    let repeated: Vec<(&u32, &u64)> = hits.iter().filter(|(_, n)| **n != 1).collect();
    assert!(
        repeated.is_empty(),
        "{what}: pages asked for more than once: {repeated:?} (all: {hits:?})"
    );
}

/// The last word of a series name, to search for ("Salt & Cinder" → "Cinder").
fn search_word(series: &str) -> String {
    series
        .split_whitespace()
        .rev()
        .find(|w| w.chars().all(char::is_alphanumeric) && w.len() >= 4)
        .unwrap_or_else(|| panic!("no word to search for in {series:?}"))
        .to_string()
}

// ---- the command line -----------------------------------------------------------------------------

/// `carrel-cli --json status` on `data_dir`: the executor lease's holder (when held).
fn lease_holder(data_dir: &Path) -> Option<String> {
    let out = crate::carrel_cli::cli(data_dir, &["--json", "status"]);
    let json: Value = serde_json::from_str(&out)
        .unwrap_or_else(|e| panic!("carrel-cli --json status printed no JSON ({e}): {out}"));
    json["lease"]["holder"].as_str().map(str::to_string)
}

/// The pid of the app's process.
fn pid_of(app: &App) -> i32 {
    app.process()
        .unwrap_or_else(|| panic!("the app's process was not found below its driver"))
        .pid
}

/// The `[pid N@` part of a holder id naming process `pid`.
fn names_pid(holder: &str, pid: i32) -> bool {
    holder.contains(&format!("[pid {pid}@"))
}

// ---- the tests ------------------------------------------------------------------------------------

#[test]
fn browse_search_and_keep_a_book_offline() {
    const BOOK: u32 = 2;
    const PAGES: u32 = 12;
    let case = TestCase::start();
    // Every answer 40 ms late and pages at about 200 KB/s: a dozen pages take a few seconds,
    // long enough to watch the download move.
    let server = start_server(Config {
        books: 12,
        comic_pages: [(BOOK, PAGES)].into(),
        faults: Faults {
            latency_ms: 40,
            bandwidth: Some(200_000),
            ..Faults::default()
        },
        ..Config::default()
    });
    let book = server.book(BOOK).unwrap();
    let app = launch(&case);

    add_server(&app, "Fixture Library", &server.url("/opds"), None);
    open_server(&app, "Fixture Library");
    assert_eq!(breadcrumbs(&app), ["Fixture Library"]);
    let sections: Vec<String> = texts(&app, &sel("catalog-nav-entry"))
        .iter()
        .map(|t| first_line(t))
        .collect();
    assert_eq!(
        sections,
        ["All books", "Comics", "Ebooks", "Series"],
        "the root feed's sections"
    );

    // Two levels down: Series, then the book's series.
    follow(&app, "Series");
    follow(&app, &book.series);
    assert_eq!(
        breadcrumbs(&app),
        ["Fixture Library", "Series", book.series.as_str()],
        "the breadcrumbs show the path followed"
    );
    let heading = app.find("#browse-title").unwrap().inner_text().unwrap();
    assert_eq!(heading.trim(), book.series, "the feed's heading");
    let in_series: Vec<String> = server
        .books()
        .into_iter()
        .filter(|b| b.series_id == book.series_id)
        .map(|b| b.title)
        .collect();
    let shown = book_titles(&app);
    let mut shown_sorted = shown.clone();
    shown_sorted.sort();
    let mut expected = in_series.clone();
    expected.sort();
    assert_eq!(shown_sorted, expected, "the series feed lists its books");

    // `/` goes to the search box; a word of the title finds the book.
    let word = search_word(&book.series);
    app.find("body").unwrap().send_keys("/").unwrap();
    app.wait_until("the search box to have focus", default_timeout(), |c| {
        let id = c.execute(
            "return document.activeElement && document.activeElement.id",
            vec![],
        )?;
        Ok((id == "catalog-search").then_some(()))
    })
    .unwrap();
    let search = app.find(&sel("search-input")).unwrap();
    search.send_keys(&word).unwrap();
    search.send_keys("\u{E007}").unwrap();
    app.wait_until("the search's breadcrumb", default_timeout(), |_| {
        Ok(breadcrumbs(&app)
            .last()
            .is_some_and(|c| c.contains(&word))
            .then_some(()))
    })
    .unwrap_or_else(|e| panic!("{e}; breadcrumbs: {:?}", breadcrumbs(&app)));
    wait_for_feed(&app);
    let results = book_titles(&app);
    assert!(
        results.contains(&book.title),
        "searching {word:?} did not find {:?}: {results:?}",
        book.title
    );
    assert!(
        results
            .iter()
            .all(|t| t.to_lowercase().contains(&word.to_lowercase())),
        "searching {word:?} found other books: {results:?}"
    );
    app.wait_for_text("#browse-title", &format!("Results for “{word}”"))
        .unwrap();

    // The book's details, then Keep offline.
    let book_id = open_details(&app, &book.title);
    let (state, label) = details_badge(&app).expect("the details show the book's state");
    assert_eq!((state.as_str(), label.as_str()), ("remote", "Remote"));
    let summary = app
        .find(&sel("details-summary"))
        .unwrap()
        .inner_text()
        .unwrap();
    assert_eq!(summary.trim(), book.summary, "the details' summary");
    app.wait_for(&sel("keep-offline")).unwrap().click().unwrap();

    // The downloads show it moving; the details' badge ends on "On device".
    go(&app, "downloads-nav", "downloads-view");
    let parts_of = format!("of {PAGES} pages");
    let active = format!("{}[data-book-id=\"{book_id}\"]", sel("active-download"));
    let queued = format!("{}[data-book-id=\"{book_id}\"]", sel("download-queue-item"));
    let mut progress: Vec<String> = Vec::new();
    let mut states: Vec<String> = Vec::new();
    let started = Instant::now();
    // What the downloads say about the book: the parts of the task in flight, or its line in
    // the queue.
    let sample = || -> carrel_e2e::Result<Vec<String>> {
        let mut said = Vec::new();
        if let Some(a) = app.try_find(&active)? {
            for parts in a.find_all(&sel("active-parts"))? {
                said.push(parts.inner_text()?);
            }
        }
        if let Some(q) = app.try_find(&queued)? {
            said.push(q.inner_text()?);
        }
        Ok(said)
    };
    loop {
        match sample() {
            Ok(said) => {
                for text in said {
                    if text.contains(&parts_of) && progress.last() != Some(&text) {
                        progress.push(text);
                    }
                }
            }
            Err(e) if e.is_not_found() => {}
            Err(e) => panic!("cannot read the downloads: {e}"),
        }
        if let Some((state, _)) = details_badge(&app) {
            if states.last() != Some(&state) {
                states.push(state.clone());
            }
            if state == "stored" {
                break;
            }
        }
        assert!(
            started.elapsed() < DOWNLOAD_TIMEOUT,
            "the book was not on the device within {DOWNLOAD_TIMEOUT:?}; badge states {states:?}, \
             progress seen {progress:?}, pages asked for {:?}",
            page_hits(&server, BOOK)
        );
        std::thread::sleep(SAMPLE);
    }
    let took = started.elapsed();
    eprintln!(
        "carrel-e2e: stored in {:.1} s; badge went {states:?}; the downloads said {progress:?}",
        took.as_secs_f64()
    );
    assert!(
        !progress.is_empty(),
        "the downloads never showed the book's pages arriving (\"… {parts_of}\")"
    );
    assert!(
        progress
            .iter()
            .any(|p| !p.contains(&format!("{PAGES} {parts_of}"))),
        "the downloads only ever showed the book complete: {progress:?}"
    );
    let (_, label) = details_badge(&app).unwrap();
    assert_eq!(label, "On device", "the badge once stored");
    assert!(
        app.try_find(&active).unwrap().is_none(),
        "the book is still shown downloading after it was stored"
    );
    app.wait_for_displayed(&sel("downloads-empty")).unwrap();
    assert!(
        !app.exists(&sel("keep-offline")).unwrap(),
        "a kept book still offers Keep offline"
    );
    app.wait_for_displayed(&sel("remove-from-device")).unwrap();

    // Each page was fetched once, and only pages: no second copy as a whole file.
    assert_each_page_once(&page_hits(&server, BOOK), PAGES, "the book kept offline");
    assert_eq!(
        server.stats().hits(&format!("/books/{BOOK}/file")),
        0,
        "a comic streamed by pages was also downloaded as a file"
    );

    // On this device lists it.
    go(&app, "on-device-nav", "on-device-view");
    wait_for_element(
        &app,
        &sel("on-device-item"),
        "the book on this device",
        |t| t.contains(&book.title),
    );
    app.close().unwrap();
}

#[test]
fn the_library_browses_from_the_cache_when_the_server_is_away() {
    let case = TestCase::start();
    let server = start_server(books(12));
    let app = launch(&case);

    add_server(&app, "Away Library", &server.url("/opds"), None);
    open_server(&app, "Away Library");
    follow(&app, "All books");
    let online = book_titles(&app);
    assert_eq!(online.len(), 12, "All books lists every book: {online:?}");
    assert!(
        !app.exists(&sel("offline-banner")).unwrap(),
        "the offline banner shows while the server answers"
    );
    let count = app
        .find(&sel("browse-count"))
        .unwrap()
        .inner_text()
        .unwrap();

    server.stop();

    // Up to the root and down again: both come from the kept copy.
    let root = wait_for_element(&app, &sel("breadcrumb"), "the root's breadcrumb", |t| {
        t.trim() == "Away Library"
    });
    root.click().unwrap();
    wait_for_feed(&app);
    app.wait_for_displayed(&sel("offline-banner")).unwrap();
    assert_eq!(breadcrumbs(&app), ["Away Library"]);
    follow(&app, "All books");
    let banner = app.wait_for_displayed(&sel("offline-banner")).unwrap();
    let text = banner.inner_text().unwrap();
    assert!(
        text.contains("Offline") && text.contains("last seen"),
        "the offline banner says {text:?}"
    );
    assert_eq!(
        book_titles(&app),
        online,
        "the kept copy lists other books than the server did"
    );
    assert_eq!(
        app.find(&sel("browse-count"))
            .unwrap()
            .inner_text()
            .unwrap(),
        count
    );
    assert!(
        !app.exists(&sel("browse-error")).unwrap(),
        "an error shows instead of the kept copy"
    );
    app.wait_for_displayed(&format!("{} {}", sel("server-item"), sel("server-offline")))
        .unwrap();

    // Trying again while the server is still away keeps the copy on screen.
    app.find(&sel("offline-retry")).unwrap().click().unwrap();
    wait_for_feed(&app);
    app.wait_until(
        "the kept copy again after trying again",
        default_timeout(),
        |c| {
            let banner = c.try_find(&sel("offline-banner"))?;
            let shown = match banner {
                Some(b) => b.is_visible()?,
                None => false,
            };
            Ok((shown && book_titles(&app) == online).then_some(()))
        },
    )
    .unwrap_or_else(|e| panic!("{e}; the grid shows {:?}", book_titles(&app)));
    assert!(!app.exists(&sel("browse-error")).unwrap());
    app.close().unwrap();
}

#[test]
fn two_app_processes_share_one_executor() {
    const SMALL: u32 = 1;
    const SMALL_PAGES: u32 = 10;
    const BIG: u32 = 2;
    const BIG_PAGES: u32 = 40;
    let case = TestCase::start();
    let server = start_server(Config {
        books: 6,
        comic_pages: [(SMALL, SMALL_PAGES), (BIG, BIG_PAGES)].into(),
        faults: Faults {
            latency_ms: 20,
            ..Faults::default()
        },
        ..Config::default()
    });
    let small = server.book(SMALL).unwrap();
    let big = server.book(BIG).unwrap();

    // App 1 starts first and takes the downloads.
    let first = launch(&case);
    let first_pid = pid_of(&first);
    go(&first, "downloads-nav", "downloads-view");
    first
        .wait_until("app 1 to run the downloads", default_timeout(), |c| {
            let state = c.find(&sel("executor-status"))?.attribute("data-state")?;
            Ok(state.filter(|s| s != "standby" && s != "stopped"))
        })
        .unwrap();
    let holder = lease_holder(case.data_dir()).expect("somebody holds the executor lease");
    assert!(
        names_pid(&holder, first_pid),
        "the lease holder {holder:?} is not app 1 (pid {first_pid})"
    );

    // App 2 on the same data dir (a webview profile of its own, started with --new-instance:
    // without it, it would bring app 1's window forward and end) stands by.
    let second = case.launch_with(carrel_e2e::LaunchOptions {
        profile_dir: None,
        name: Some(format!("{}-second", case.name())),
        args: vec!["--new-instance".into()],
        ..case.options().env("CARREL_SECRETS", "file")
    });
    let second_pid = pid_of(&second);
    assert_ne!(first_pid, second_pid);
    go(&second, "downloads-nav", "downloads-view");
    let line = second
        .wait_until("app 2 to stand by", default_timeout(), |c| {
            let status = c.find(&sel("executor-status"))?;
            let standby = status.attribute("data-state")?.as_deref() == Some("standby");
            standby.then(|| status.inner_text()).transpose()
        })
        .unwrap();
    assert!(
        names_pid(&line, first_pid),
        "app 2's downloads do not name app 1 as the downloader: {line:?}"
    );

    // App 2 keeps a book offline; app 1 downloads it, once.
    add_server(&second, "Shared", &server.url("/opds"), None);
    open_server(&second, "Shared");
    follow(&second, "All books");
    open_details(&second, &small.title);
    second
        .wait_for(&sel("keep-offline"))
        .unwrap()
        .click()
        .unwrap();
    let started = Instant::now();
    wait_until_stored(&second, "the first book on the device", &server, SMALL);
    eprintln!(
        "carrel-e2e: the first book was stored in {:.1} s",
        started.elapsed().as_secs_f64()
    );
    assert_each_page_once(&page_hits(&server, SMALL), SMALL_PAGES, "the first book");
    let holder = lease_holder(case.data_dir()).expect("somebody holds the executor lease");
    assert!(
        names_pid(&holder, first_pid),
        "the downloads moved away from app 1: {holder:?}"
    );

    // A bigger, slower book; app 1 dies half-way through it.
    server.set_faults(Faults {
        latency_ms: 150,
        path_prefix: Some(format!("/books/{BIG}/pages/")),
        ..Faults::default()
    });
    second.find(&sel("close-details")).unwrap().click().unwrap();
    open_details(&second, &big.title);
    second
        .wait_for(&sel("keep-offline"))
        .unwrap()
        .click()
        .unwrap();
    // The downloads beside the book's details: app 2 still stands by.
    go(&second, "downloads-nav", "downloads-view");
    assert_eq!(
        second
            .find(&sel("executor-status"))
            .unwrap()
            .attribute("data-state")
            .unwrap()
            .as_deref(),
        Some("standby"),
        "app 2 runs the downloads while app 1 holds the lease"
    );
    let started = Instant::now();
    loop {
        let asked = page_hits(&server, BIG).len();
        if asked >= 5 {
            break;
        }
        assert!(
            started.elapsed() < DOWNLOAD_TIMEOUT,
            "app 1 did not start on the second book: pages asked for {:?}",
            page_hits(&server, BIG)
        );
        std::thread::sleep(SAMPLE);
    }
    let before_kill = page_hits(&server, BIG);
    // SAFETY: kill(2) has no memory-safety preconditions; the pid is app 1's, alive until now.
    let killed = unsafe { libc::kill(first_pid, libc::SIGKILL) };
    assert_eq!(killed, 0, "could not kill app 1 (pid {first_pid})");
    let killed_at = Instant::now();
    eprintln!(
        "carrel-e2e: killed app 1 after {} of {BIG_PAGES} pages were asked for",
        before_kill.len()
    );

    // App 2 takes over: it runs the downloads, and asks for the pages that are missing.
    second
        .wait_until(
            "app 2 to take the downloads over",
            Duration::from_secs(15),
            |_| {
                let state = second
                    .find(&sel("executor-status"))?
                    .attribute("data-state")?;
                Ok(state.filter(|s| s != "standby" && s != "stopped"))
            },
        )
        .unwrap_or_else(|e| panic!("{e}; the lease: {:?}", lease_holder(case.data_dir())));
    let took_over = killed_at.elapsed();
    let resumed = loop {
        if page_hits(&server, BIG).values().sum::<u64>() > before_kill.values().sum::<u64>() {
            break killed_at.elapsed();
        }
        assert!(
            killed_at.elapsed() < Duration::from_secs(15),
            "no page of the second book was asked for within 15 s of app 1's death; \
             the lease: {:?}",
            lease_holder(case.data_dir())
        );
        std::thread::sleep(SAMPLE);
    };
    eprintln!(
        "carrel-e2e: app 2 ran the downloads {:.1} s after app 1 died and asked for a page after {:.1} s",
        took_over.as_secs_f64(),
        resumed.as_secs_f64()
    );
    let holder = lease_holder(case.data_dir()).expect("app 2 holds the executor lease");
    assert!(
        names_pid(&holder, second_pid),
        "the lease holder {holder:?} is not app 2 (pid {second_pid})"
    );
    assert!(
        took_over <= Duration::from_secs(11),
        "app 2 took {took_over:?} to take over (the lease lasts 10 s)"
    );

    wait_until_stored(&second, "the second book on the device", &server, BIG);
    let hits = page_hits(&server, BIG);
    assert_eq!(
        hits.keys().copied().collect::<Vec<_>>(),
        (0..BIG_PAGES).collect::<Vec<_>>(),
        "the pages asked for: {hits:?}"
    );
    let repeated: Vec<(&u32, &u64)> = hits.iter().filter(|(_, n)| **n > 1).collect();
    assert!(
        repeated.len() <= 1 && repeated.iter().all(|(_, n)| **n == 2),
        "more than the page in flight was asked for again: {repeated:?}"
    );
    second.wait_for_displayed(&sel("downloads-empty")).unwrap();
    assert!(
        !second.exists(&sel("download-failed-item")).unwrap(),
        "a download failed: {:?}",
        texts(&second, &sel("download-failed-item"))
    );

    second.close().unwrap();
    // App 1 is gone already; its driver and what is left of its webview are cleaned up here.
    if let Err(e) = first.close() {
        eprintln!("carrel-e2e: closing the killed app 1: {e}");
    }
}

#[test]
fn a_server_that_wants_a_password_prompts_for_it() {
    const USER: &str = "reader";
    const PASSWORD: &str = "s3cret-library-pass";
    let case = TestCase::start();
    let mut config = Config {
        books: 6,
        ..Config::default()
    };
    config.behavior.auth = Some(format!("{USER}:{PASSWORD}"));
    let server = start_server(config);
    let app = case.launch_with(
        case.options()
            .env("CARREL_SECRETS", "file")
            .env("CARREL_LOG", "debug"),
    );

    add_server(&app, "Locked", &server.url("/opds"), None);
    let item = wait_for_element(&app, &sel("server-item"), "the server", |t| {
        t.contains("Locked")
    });
    item.find(&sel("server-open")).unwrap().click().unwrap();
    let dialog = app.wait_for_displayed(&sel("credentials-dialog")).unwrap();
    let said = dialog.inner_text().unwrap();
    assert!(said.contains("Locked"), "the sign-in dialog says {said:?}");
    assert!(
        app.find_all(&sel("catalog-book")).unwrap().is_empty(),
        "books showed before signing in"
    );
    app.find(&sel("credentials-username"))
        .unwrap()
        .fill(USER)
        .unwrap();
    app.find(&sel("credentials-password"))
        .unwrap()
        .fill(PASSWORD)
        .unwrap();
    app.find(&sel("credentials-save")).unwrap().click().unwrap();
    app.wait_for_hidden(&sel("credentials-dialog"))
        .unwrap_or_else(|e| {
            panic!(
                "{e}; the dialog says {:?}",
                texts(&app, &sel("credentials-error"))
            )
        });
    wait_for_feed(&app);
    assert!(
        !app.exists(&sel("browse-auth")).unwrap(),
        "the catalog still asks for a sign-in"
    );
    follow(&app, "All books");
    let titles = book_titles(&app);
    let expected: Vec<String> = server.books().into_iter().map(|b| b.title).collect();
    assert_eq!(titles.len(), expected.len(), "books shown: {titles:?}");
    for title in &expected {
        assert!(titles.contains(title), "{title:?} is missing: {titles:?}");
    }
    let stats = server.stats();
    assert!(stats.hits("/opds/books") >= 1);

    let log = app.log_text();
    app.close().unwrap();
    assert!(
        log.contains(" DEBUG "),
        "the app did not log at debug level, so the log says nothing: {}",
        &log[log.len().saturating_sub(2000)..]
    );
    let debug_lines = log.lines().filter(|l| l.contains(" DEBUG ")).count();
    eprintln!(
        "carrel-e2e: looked for the password in {} log lines ({debug_lines} at debug level)",
        log.lines().count()
    );
    let basic = base64::Engine::encode(
        &base64::engine::general_purpose::STANDARD,
        format!("{USER}:{PASSWORD}"),
    );
    for needle in [PASSWORD, basic.as_str()] {
        assert!(
            !log.contains(needle),
            "the log contains the password ({needle})"
        );
    }
    let files = data::files_starting_with(case.data_dir(), "carrel.db");
    assert!(
        !files.is_empty(),
        "no carrel.db* in {}",
        case.data_dir().display()
    );
    for file in files {
        let bytes = std::fs::read(&file).unwrap();
        for needle in [PASSWORD, basic.as_str()] {
            assert!(
                !data::contains_bytes(&bytes, needle.as_bytes()),
                "{} contains the password ({needle})",
                file.display()
            );
        }
    }
    let secrets = case.data_dir().join("secrets.json");
    assert!(
        secrets.is_file() && data::mode(&secrets) == 0o600,
        "the password is not kept in a private secrets.json"
    );
}

#[test]
fn screenshots_of_the_library_light_and_dark() {
    const READING: u32 = 1;
    const KEPT: u32 = 4;
    let case = TestCase::start();
    let server = start_server(Config {
        books: 12,
        comic_pages: [(READING, 40), (KEPT, 36)].into(),
        ..Config::default()
    });
    let reading = server.book(READING).unwrap();
    let kept = server.book(KEPT).unwrap();
    let described = server.book(5).unwrap();
    let app = launch(&case);
    app.set_window_size(1440.0, 900.0).unwrap();

    add_server(&app, "Home Library", &server.url("/opds"), None);
    open_server(&app, "Home Library");
    follow(&app, "All books");
    wait_for_covers(&app, &sel("catalog-grid"));
    // Books crawl from now on (the covers are kept already), so the downloads stay mid-way
    // while the pictures are taken.
    server.set_faults(Faults {
        latency_ms: 1500,
        path_prefix: Some("/books/".into()),
        ..Faults::default()
    });
    let reading_id = open_details(&app, &reading.title);
    app.wait_for(&sel("read-book")).unwrap().click().unwrap();
    // Reading starts at once: the reader opens on the comic while its pages download.
    app.wait_for_displayed(&sel("comic-reader")).unwrap();
    app.find(&sel("reader-back")).unwrap().click().unwrap();
    app.wait_for_absent(&sel("comic-reader")).unwrap();
    if app.exists(&sel("book-details")).unwrap() {
        app.find(&sel("close-details")).unwrap().click().unwrap();
        app.wait_for_absent(&sel("book-details")).unwrap();
    }
    open_details(&app, &kept.title);
    app.wait_for(&sel("keep-offline")).unwrap().click().unwrap();
    app.wait_until("the kept book to be queued", default_timeout(), |_| {
        Ok(details_badge(&app)
            .filter(|(state, _)| state == "queued" || state == "downloading")
            .map(|_| ()))
    })
    .unwrap();
    app.find(&sel("close-details")).unwrap().click().unwrap();
    app.wait_for_absent(&sel("book-details")).unwrap();

    for theme in ["light", "dark"] {
        set_theme(&app, theme);

        // Home: the server and the book being read.
        go(&app, "home-nav", "library-view");
        let item = format!("{}[data-book-id=\"{reading_id}\"]", sel("continue-item"));
        app.wait_for_displayed(&item).unwrap();
        app.wait_for_text(&sel("server-card"), "Home Library")
            .unwrap();
        wait_for_covers(&app, &sel("continue-item"));
        app.wait_for_absent(&sel("toast")).unwrap();
        save_docs_screenshot(&app, &format!("library-{theme}.png")).unwrap();

        // A feed's grid of covers, and a book's details beside it.
        open_server(&app, "Home Library");
        follow(&app, "All books");
        wait_for_covers(&app, &sel("catalog-grid"));
        open_details(&app, &described.title);
        app.wait_for_displayed(&sel("details-summary")).unwrap();
        wait_for_covers(&app, &sel("book-details"));
        save_docs_screenshot(&app, &format!("details-{theme}.png")).unwrap();
        app.find(&sel("close-details")).unwrap().click().unwrap();
        app.wait_for_absent(&sel("book-details")).unwrap();

        // The downloads, mid-way.
        go(&app, "downloads-nav", "downloads-view");
        let active = app.wait_for_displayed(&sel("active-download")).unwrap();
        let parts = active
            .find(&sel("active-parts"))
            .unwrap()
            .inner_text()
            .unwrap();
        assert!(
            parts.contains(" of "),
            "the download in flight says {parts:?}"
        );
        let bar = active.find(&sel("active-progress")).unwrap();
        assert!(
            bar.attribute("aria-valuenow").unwrap().is_some(),
            "the bar of the download in flight measures nothing: {:?}",
            bar.attribute("aria-valuetext").unwrap()
        );
        let waiting = wait_for_element(&app, &sel("download-queue-item"), "a book waiting", |t| {
            t.contains(&kept.title) || t.contains(&reading.title)
        });
        assert!(waiting.is_visible().unwrap());
        save_docs_screenshot(&app, &format!("downloads-{theme}.png")).unwrap();
        let background = app
            .execute(
                "return getComputedStyle(document.body).backgroundColor",
                vec![],
            )
            .unwrap();
        eprintln!("carrel-e2e: {theme} background {background}");
    }
    app.close().unwrap();
}

/// Waits until every cover under `scope` that is on screen has loaded or settled on its
/// placeholder, and at least one of them shows a picture. (Covers load lazily: the ones scrolled
/// out of sight wait.)
fn wait_for_covers(app: &App, scope: &str) {
    const SCRIPT: &str = "const covers = [...document.querySelectorAll(arguments[0])].filter(c => {
            const r = c.getBoundingClientRect();
            return r.width > 0 && r.bottom > 0 && r.top < window.innerHeight;
        });
        return {
            shown: covers.length,
            loaded: covers.filter(c => c.dataset.state === 'loaded').length,
            loading: covers.filter(c => c.dataset.state === 'loading').length,
        };";
    let covers = format!("{scope} {}", sel("book-cover"));
    let mut last = Value::Null;
    app.wait_until(
        &format!("the covers in `{scope}` to load"),
        Duration::from_secs(30),
        |c| {
            last = c.execute(SCRIPT, vec![Value::from(covers.as_str())])?;
            let loaded = last["loaded"].as_u64().unwrap_or(0);
            let loading = last["loading"].as_u64().unwrap_or(1);
            Ok((loaded > 0 && loading == 0).then_some(()))
        },
    )
    .unwrap_or_else(|e| panic!("{e}; covers on screen: {last}"));
}

/// "Search everywhere": one query asks every server at once; a quick server's books show while a
/// slow one is still searching; the books Carrel knows are found on the device; a result opens
/// its details.
#[test]
fn one_search_asks_every_server_and_shows_answers_as_they_come() {
    let case = TestCase::start();
    let quick = start_server(Config {
        books: 6,
        seed: 1,
        ..Config::default()
    });
    // Each answer from the slow server takes seconds: its group says "Searching…" meanwhile.
    let slow = start_server(Config {
        books: 6,
        seed: 2,
        faults: Faults {
            latency_ms: 2_500,
            ..Faults::default()
        },
        ..Config::default()
    });
    let book = quick.books()[0].clone();
    let word = search_word(&book.title);
    let app = launch(&case);
    add_server(&app, "Quick", &quick.url("/opds"), None);
    add_server(&app, "Slow", &slow.url("/opds"), None);

    go(&app, "search-nav", "search-view");
    app.wait_until("the search box to have focus", default_timeout(), |c| {
        let id = c.execute(
            "return document.activeElement && document.activeElement.id",
            vec![],
        )?;
        Ok((id.as_str() == Some("everywhere-search")).then_some(()))
    })
    .unwrap();
    let input = app.find(&sel("everywhere-search-input")).unwrap();
    input.send_keys(&format!("{word}\u{E007}")).unwrap();

    let group = |name: &str| {
        format!(
            "{}[data-server-id=\"{}\"]",
            sel("search-group"),
            server_id(&app, name)
        )
    };
    // The quick server has answered while the slow one still searches.
    app.wait_until("the quick server's answer", default_timeout(), |c| {
        let Some(g) = c.try_find(&group("Quick"))? else {
            return Ok(None);
        };
        Ok((g.attribute("data-state")?.as_deref() == Some("results")).then_some(()))
    })
    .unwrap();
    let slow_state = app
        .find(&group("Slow"))
        .unwrap()
        .attribute("data-state")
        .unwrap();
    assert_eq!(
        slow_state.as_deref(),
        Some("searching"),
        "the slow server was still searching"
    );
    let quick_titles: Vec<String> = texts(
        &app,
        &format!("{} {}", group("Quick"), sel("search-server-book")),
    )
    .iter()
    .map(|t| first_line(t))
    .collect();
    assert!(quick_titles.contains(&book.title), "{quick_titles:?}");
    app.wait_until("the slow server's answer", Duration::from_secs(30), |c| {
        let g = c.find(&group("Slow"))?;
        Ok((g.attribute("data-state")?.as_deref() == Some("results")).then_some(()))
    })
    .unwrap();
    save_docs_screenshot(&app, "search-everywhere-light.png").unwrap();

    // Kept offline, the book is found on the device even with its server gone.
    let tile = wait_for_element(
        &app,
        &format!("{} {}", group("Quick"), sel("search-server-book")),
        "the quick server's book",
        |t| first_line(t) == book.title,
    );
    tile.click().unwrap();
    app.wait_for_text(&sel("details-title"), &book.title)
        .unwrap();
    app.wait_for(&sel("keep-offline")).unwrap().click().unwrap();
    app.wait_until("the book to be stored", DOWNLOAD_TIMEOUT, |_| {
        Ok(details_badge(&app)
            .filter(|(state, _)| state == "stored")
            .map(|_| ()))
    })
    .unwrap();
    drop(quick);
    let input = app.find(&sel("everywhere-search-input")).unwrap();
    input.clear().unwrap();
    input.send_keys(&format!("{word}\u{E007}")).unwrap();
    let local = wait_for_element(
        &app,
        &sel("search-local-book"),
        "the book found on the device",
        |t| t.lines().any(|l| l.trim() == book.title),
    );
    local.click().unwrap();
    app.wait_for_text(&sel("details-title"), &book.title)
        .unwrap();
    // The quick server is gone: its group answers from the kept results and says so.
    app.wait_for_displayed(&format!("{} {}", group("Quick"), sel("search-offline")))
        .unwrap();
}

/// The id the sidebar gives the server named `name`.
fn server_id(app: &App, name: &str) -> String {
    let item = wait_for_element(app, &sel("server-item"), "the server in the sidebar", |t| {
        t.contains(name)
    });
    item.attribute("data-server-id")
        .unwrap()
        .expect("a server item has data-server-id")
}

/// "Keep all offline" on a feed of several pages: one batch in Downloads, paused and resumed
/// there, until every book of the feed is on the device.
#[test]
fn keep_a_whole_feed_offline_as_one_batch() {
    let case = TestCase::start();
    // Slow enough to pause the batch before it ends.
    let server = start_server(Config {
        books: 7,
        feed_page_size: 3,
        faults: Faults {
            latency_ms: 150,
            ..Faults::default()
        },
        ..Config::default()
    });
    let app = launch(&case);
    add_server(&app, "Fixture Library", &server.url("/opds"), None);
    open_server(&app, "Fixture Library");
    follow(&app, "All books");
    app.wait_for(&sel("keep-all-offline"))
        .unwrap()
        .click()
        .unwrap();
    app.wait_for_text(&sel("toast"), "of “All books” offline")
        .unwrap();
    // Dismissed, as a reader would: it sits over the bottom of the page the batch is listed on.
    app.find(&format!("{} button[aria-label=\"Dismiss\"]", sel("toast")))
        .unwrap()
        .click()
        .unwrap();
    app.wait_for_hidden(&sel("toast")).unwrap();

    go(&app, "downloads-nav", "downloads-view");
    let batch = sel("download-batch");
    app.wait_for_text(
        &format!("{batch} {}", sel("batch-line")),
        "of 7 books on this device",
    )
    .unwrap();
    // The list moves while books arrive: a click that landed beside the button is made again,
    // as a reader would.
    let paused = |c: &carrel_e2e::Client| -> carrel_e2e::Result<bool> {
        Ok(c.find(&batch)?.attribute("data-paused")?.as_deref() == Some("true"))
    };
    for attempt in 1..=3 {
        app.wait_for(&sel("batch-pause")).unwrap().click().unwrap();
        let seen = app.wait_until("the batch to be paused", Duration::from_secs(5), |c| {
            Ok(paused(c)?.then_some(()))
        });
        match seen {
            Ok(()) => break,
            Err(e) if attempt == 3 => panic!("{e}"),
            Err(_) => {}
        }
    }
    let paused_line = app
        .find(&format!("{batch} {}", sel("batch-line")))
        .unwrap()
        .inner_text()
        .unwrap();
    assert!(paused_line.contains("paused"), "{paused_line}");
    // Resumed the same way: the button may still be disabled while the pause settles, or the
    // list may move under the click.
    for attempt in 1..=3 {
        app.wait_for(&sel("batch-resume")).unwrap().click().unwrap();
        let seen = app.wait_until("the batch to be resumed", Duration::from_secs(5), |c| {
            Ok((!paused(c)?).then_some(()))
        });
        match seen {
            Ok(()) => break,
            Err(e) if attempt == 3 => panic!("{e}"),
            Err(_) => {}
        }
    }
    app.wait_until(
        "every book of the feed on the device",
        DOWNLOAD_TIMEOUT,
        |c| {
            let line = c
                .find(&format!("{batch} {}", sel("batch-line")))?
                .inner_text()?;
            Ok(line.contains("7 of 7 books on this device").then_some(()))
        },
    )
    .unwrap();
    assert!(
        server.stats().global_max_in_flight <= 1,
        "one request at a time"
    );
}

/// A server added by what a person knows — its host and port — shows what was found before it
/// is saved, is saved with the catalog its web page links, and browses at once.
#[test]
fn a_server_added_by_its_host_and_port_finds_its_catalog() {
    let case = TestCase::start();
    let server = start_server(books(3));
    let app = launch(&case);
    carrel_e2e::open_server_dialog(&app).unwrap();
    app.wait_for(&sel("server-url"))
        .unwrap()
        .fill(&format!("127.0.0.1:{}", server.port()))
        .unwrap();
    let found = app
        .wait_for_text(&sel("server-found"), "OPDS 1.2 at")
        .unwrap();
    assert_eq!(
        found.trim(),
        format!("Found OPDS 1.2 at {}", server.url("/opds")),
        "the whole address is shown"
    );
    assert_eq!(
        server.stats().hits("/opds"),
        1,
        "found by looking, nothing saved yet"
    );
    app.find(&sel("server-cancel")).unwrap().click().unwrap(); // nothing kept
    app.wait_for_hidden(&sel("add-server-dialog")).unwrap();
    add_server(&app, "Home", &format!("127.0.0.1:{}", server.port()), None);
    open_server(&app, "Home");
    let sections: Vec<String> = texts(&app, &sel("catalog-nav-entry"))
        .iter()
        .map(|t| first_line(t))
        .collect();
    assert!(
        sections.contains(&"All books".to_string()),
        "the root feed: {sections:?}"
    );
    // Saved with the catalog's address, not the one typed.
    assert_first_saved_at(&app, &server.url("/opds"));
}

/// Asserts that the first server saved has the address `url`.
fn assert_first_saved_at(app: &App, url: &str) {
    let listed = saved_servers(app);
    assert_eq!(listed[0]["url"].as_str(), Some(url), "{listed:?}");
}

/// A library whose web page names a catalog on another host (127.0.0.2): the dialog shows the
/// whole address found and saves nothing until the reader says yes; the other host receives no
/// password meanwhile.
#[test]
fn a_catalog_on_another_host_is_shown_and_saved_only_after_a_yes() {
    let case = TestCase::start();
    let elsewhere = start_server(Config {
        books: 2,
        host: [127, 0, 0, 2].into(),
        behavior: fixture_server::Behavior {
            auth: Some("alice:wonderland".into()),
            ..Default::default()
        },
        ..Config::default()
    });
    let library = start_server(Config {
        books: 2,
        behavior: fixture_server::Behavior {
            auth: Some("alice:wonderland".into()),
            catalog_link: Some(elsewhere.url("/opds")),
            ..Default::default()
        },
        ..Config::default()
    });
    let app = launch(&case);
    carrel_e2e::submit_server_dialog(
        &app,
        "Home",
        &format!("127.0.0.1:{}", library.port()),
        Some(("alice", "wonderland")),
    )
    .unwrap();
    let warning = app
        .wait_for_text(&sel("server-elsewhere"), &elsewhere.url("/opds"))
        .unwrap();
    assert!(warning.contains("another server"), "{warning}");
    // Save before the yes: nothing saved, the dialog stays and says why.
    app.execute(
        "document.querySelector('[data-testid=\"server-save\"]').scrollIntoView({ block: 'nearest' });",
        vec![],
    )
    .unwrap();
    app.find(&sel("server-save")).unwrap().click().unwrap();
    app.wait_for_text(&sel("server-url-error"), &elsewhere.url("/opds"))
        .unwrap();
    let listed = saved_servers(&app);
    assert_eq!(listed.len(), 0, "nothing saved before the yes");
    assert_eq!(
        elsewhere.stats().credentials_received,
        Vec::<String>::new(),
        "no password went to the other host"
    );
    app.find(&sel("server-accept-catalog"))
        .unwrap()
        .click()
        .unwrap();
    app.find(&sel("server-save")).unwrap().click().unwrap();
    app.wait_for_hidden(&sel("add-server-dialog")).unwrap();
    app.wait_for_text(&sel("server-item"), "Home").unwrap();
    assert_first_saved_at(&app, &elsewhere.url("/opds"));
}

#[test]
fn a_series_keeps_its_next_books_on_the_device_from_the_details_panel() {
    const PAGES: u32 = 3;
    let server = start_server(Config {
        books: 12,
        comic_pages: (1..=12).map(|id| (id, PAGES)).collect(),
        ..Config::default()
    });
    // A series of three books or more, in the server's numbering.
    let books = server.books();
    let mut series: Vec<_> = books
        .iter()
        .filter(|b| books.iter().filter(|o| o.series_id == b.series_id).count() >= 3)
        .cloned()
        .collect();
    let first_series = series.first().expect("a series of three books").series_id;
    series.retain(|b| b.series_id == first_series);
    series.sort_by_key(|b| b.number);

    let case = TestCase::start();
    let app = launch(&case);
    add_server(&app, "Fixture Library", &server.url("/opds"), None);
    open_server(&app, "Fixture Library");
    follow(&app, "Series");
    follow(&app, &series[0].series);
    open_details(&app, &series[0].title);

    // Off by default; "the next 2 unread books" keeps the two after this one.
    let choice = app.wait_for_displayed(&sel("series-keep-next")).unwrap();
    assert_eq!(choice.property("value").unwrap().as_str(), Some("0"));
    app.execute(
        "const s = document.querySelector('[data-testid=\"series-keep-next\"]');
         s.value = '2'; s.dispatchEvent(new Event('change', { bubbles: true }));",
        vec![],
    )
    .unwrap();
    let done = format!("2 of {} books of this series on this device", series.len());
    app.wait_until("the next two books on the device", DOWNLOAD_TIMEOUT, |c| {
        let note = c.find(&sel("series-read-ahead-note"))?.inner_text()?;
        Ok(note.contains(&done).then_some(()))
    })
    .unwrap_or_else(|e| {
        panic!(
            "{e}; the window says {:?}",
            texts(&app, &sel("series-read-ahead-note"))
        )
    });
    app.wait_for_displayed(&sel("series-remove-after")).unwrap();
    // The grid follows, even for a book stored between two views of the downloads.
    let stored_tiles = format!(
        "{} {}[data-state=\"stored\"]",
        sel("catalog-book"),
        sel("tile-state-badge")
    );
    app.wait_until(
        "the grid to mark both books stored",
        default_timeout(),
        |c| Ok((c.find_all(&stored_tiles)?.len() == 2).then_some(())),
    )
    .unwrap();
    save_docs_screenshot(&app, "series-read-ahead-light.png").unwrap();
    // The two after it, every page once; this one and those further on, nothing.
    for b in &series[1..3] {
        assert_each_page_once(&page_hits(&server, b.id), PAGES, &b.title);
    }
    assert!(
        page_hits(&server, series[0].id).is_empty(),
        "the book shown was downloaded"
    );
    if let Some(further) = series.get(3) {
        assert!(
            page_hits(&server, further.id).is_empty(),
            "a book beyond the window was downloaded"
        );
    }
}

/// "Start Carrel when you log in" writes an XDG autostart entry that starts this very program,
/// and turned off removes it.
#[test]
fn starting_at_login_is_an_autostart_entry_for_this_program() {
    let case = TestCase::start();
    let config = tempfile::tempdir().unwrap();
    let app = case.launch_with(
        case.options()
            .env("CARREL_SECRETS", "file")
            .env("XDG_CONFIG_HOME", config.path()),
    );
    go(&app, "settings-nav", "settings-view");
    let toggle = sel("settings-start-at-login");
    app.wait_until("the login switch to be known", default_timeout(), |c| {
        Ok((c.find(&toggle)?.property("disabled")? == Value::Bool(false)).then_some(()))
    })
    .unwrap();
    let entry = config.path().join("autostart/carrel.desktop");
    assert!(!entry.exists(), "on before it was asked for");
    app.find(&toggle).unwrap().click().unwrap();
    app.wait_until("the autostart entry", default_timeout(), |_| {
        Ok(entry.exists().then_some(()))
    })
    .unwrap();
    let text = std::fs::read_to_string(&entry).unwrap();
    let exe = app
        .process()
        .and_then(|p| p.exe.clone())
        .expect("the app's process and its program");
    assert!(
        text.contains(&format!("\nExec=\"{}\"\n", exe.display())),
        "the entry does not start {}: {text}",
        exe.display()
    );
    app.find(&toggle).unwrap().click().unwrap();
    app.wait_until("the entry removed", default_timeout(), |_| {
        Ok((!entry.exists()).then_some(()))
    })
    .unwrap();
}

/// Opens the details of book `id` from its tile (found by id: a stored book's tile says "On
/// device" before its title).
fn open_details_of(app: &App, id: i64, title: &str) {
    let tile = format!("{}[data-book-id=\"{id}\"]", sel("catalog-book"));
    app.wait_for_displayed(&tile).unwrap();
    app.find(&tile).unwrap().click().unwrap();
    let panel = format!("{}[data-book-id=\"{id}\"]", sel("book-details"));
    app.wait_for_displayed(&panel).unwrap();
    app.wait_for_text(&sel("details-title"), title).unwrap();
}

/// Whether the tile of book `id` in the grid shows the "Read" mark.
fn tile_says_read(app: &App, id: i64) -> bool {
    let badge = format!(
        "{}[data-book-id=\"{id}\"] {}",
        sel("catalog-book"),
        sel("tile-read-badge")
    );
    app.try_find(&badge)
        .unwrap()
        .is_some_and(|b| b.inner_text().unwrap().trim() == "Read")
}

/// Mark as read in a book's details: the panel and the grid say so at once, and "Continue
/// reading" on Home leaves it out; Mark as unread brings it back.
#[test]
fn mark_a_book_read_and_unread_from_its_details() {
    const BOOK: u32 = 1;
    let case = TestCase::start();
    let server = start_server(Config {
        books: 4,
        comic_pages: [(BOOK, 12)].into(),
        ..Config::default()
    });
    let book = server.book(BOOK).unwrap();
    let app = launch(&case);
    add_server(&app, "Home Library", &server.url("/opds"), None);
    open_server(&app, "Home Library");
    follow(&app, "All books");

    // Opened once, the book is one to continue reading.
    let id = open_details(&app, &book.title);
    assert!(!tile_says_read(&app, id), "not read yet");
    app.wait_for_text(&sel("details-read"), "Not read yet")
        .unwrap();
    app.wait_for(&sel("read-book")).unwrap().click().unwrap();
    app.wait_for_displayed(&sel("comic-reader")).unwrap();
    app.find(&sel("reader-back")).unwrap().click().unwrap();
    app.wait_for_absent(&sel("comic-reader")).unwrap();
    let item = format!("{}[data-book-id=\"{id}\"]", sel("continue-item"));
    let home = |app: &App| {
        if app.exists(&sel("book-details")).unwrap() {
            app.find(&sel("close-details")).unwrap().click().unwrap();
            app.wait_for_absent(&sel("book-details")).unwrap();
        }
        go(app, "home-nav", "library-view");
        app.wait_for_absent(&sel("continue-loading")).unwrap();
    };
    home(&app);
    app.wait_for_displayed(&item).unwrap();

    // Mark as read: the panel and the tile say so at once; Home no longer lists it.
    open_server(&app, "Home Library");
    follow(&app, "All books");
    open_details_of(&app, id, &book.title);
    let mark = app.wait_for(&sel("mark-read")).unwrap();
    assert_eq!(mark.inner_text().unwrap().trim(), "Mark as read");
    mark.click().unwrap();
    app.wait_for_text(&sel("details-read"), "Read").unwrap();
    app.wait_for_text(&sel("mark-read"), "Mark as unread")
        .unwrap();
    app.wait_until("the tile to say Read", default_timeout(), |_| {
        Ok(tile_says_read(&app, id).then_some(()))
    })
    .unwrap();
    assert!(
        !app.exists(&sel("details-action-error")).unwrap(),
        "no error"
    );
    home(&app);
    app.wait_for_displayed(&sel("continue-empty")).unwrap();
    assert!(!app.exists(&item).unwrap(), "a read book is not continued");

    // The feed, read again, still says Read; Mark as unread brings the book back.
    open_server(&app, "Home Library");
    follow(&app, "All books");
    app.wait_until("the tile to say Read", default_timeout(), |_| {
        Ok(tile_says_read(&app, id).then_some(()))
    })
    .unwrap();
    open_details_of(&app, id, &book.title);
    app.wait_for(&sel("mark-read")).unwrap().click().unwrap();
    app.wait_for_text(&sel("details-read"), "Not read yet")
        .unwrap();
    app.wait_until("the tile to lose its Read mark", default_timeout(), |_| {
        Ok((!tile_says_read(&app, id)).then_some(()))
    })
    .unwrap();
    home(&app);
    app.wait_for_displayed(&item).unwrap();
}
