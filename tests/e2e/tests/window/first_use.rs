//! A new reader's first hour against real servers, end to end: adding a server the way the
//! dialog invites (a host and port, no name), a server that stops answering while it is
//! browsed, and searches that find nothing as calibre and Codex say it.
//!
//! Run: `xvfb-run -a dbus-run-session -- cargo test -p carrel-e2e -- first_use --test-threads=1`
//! after `npm run --prefix ui build && cargo build -p carrel`.

use std::time::{Duration, Instant};

use crate::support::{
    add_server, app_on_server, books, click_to_hide, first_line, launch, saved_servers, sel,
    start_server, texts, wait_for_element_within, wait_for_feed_within,
};
use carrel_e2e::{default_timeout, App, TestCase};
use fixture_server::{Behavior, Config, Faults};

/// Waits up to `timeout` until an element matching `selector` is visible.
fn wait_shown(app: &App, selector: &str, timeout: Duration) {
    app.wait_until(&format!("`{selector}` to show"), timeout, |c| {
        Ok(match c.try_find(selector)? {
            Some(e) => e.is_visible()?.then_some(()),
            None => None,
        })
    })
    .unwrap();
}

fn server_names(app: &App) -> Vec<String> {
    saved_servers(app)
        .iter()
        .map(|s| s["name"].as_str().unwrap().to_owned())
        .collect()
}

fn open_server(app: &App, name: &str) {
    let item = wait_for_element_within(
        app,
        &sel("server-item"),
        "the server in the sidebar",
        default_timeout(),
        |t| t.contains(name),
    );
    item.find(&sel("server-open")).unwrap().click().unwrap();
    app.wait_for_displayed(&sel("browse-view")).unwrap();
    wait_for_feed_within(app, default_timeout());
}

fn follow(app: &App, title: &str, timeout: Duration) {
    wait_for_element_within(
        app,
        &sel("catalog-nav-entry"),
        &format!("a navigation entry {title:?}"),
        default_timeout(),
        |t| first_line(t) == title,
    )
    .click()
    .unwrap();
    app.wait_until("the feed followed", timeout, |c| {
        let crumbs = c.find_all(&format!("{} {}", sel("breadcrumbs"), sel("breadcrumb")))?;
        let last = match crumbs.last() {
            Some(c) => c.inner_text()?,
            None => return Ok(None),
        };
        Ok((last.trim() == title).then_some(()))
    })
    .unwrap();
    wait_for_feed_within(app, timeout);
}

fn go_to_crumb(app: &App, title: &str) {
    wait_for_element_within(
        app,
        &sel("breadcrumb"),
        &format!("the breadcrumb {title:?}"),
        default_timeout(),
        |t| t.trim() == title,
    )
    .click()
    .unwrap();
}

/// The dialog's own invitation: a host and port without a scheme, no name, Enter. The server
/// is saved under its catalog's title; the same address again is refused under the address.
#[test]
fn a_server_typed_as_host_and_port_without_a_name_is_saved_under_its_catalogs_title() {
    let case = TestCase::start();
    let server = start_server(books(3));
    let app = launch(&case);
    let typed = format!("127.0.0.1:{}", server.port());

    carrel_e2e::open_server_dialog(&app).unwrap();
    let url = app.wait_for(&sel("server-url")).unwrap();
    url.fill(&typed).unwrap();
    app.wait_for_text(&sel("server-found"), "OPDS 1.2 at")
        .unwrap();
    app.find(&sel("server-url"))
        .unwrap()
        .send_keys("\u{E007}")
        .unwrap();
    app.wait_for_hidden(&sel("add-server-dialog"))
        .unwrap_or_else(|e| {
            let said: Vec<String> = app
                .find_all("[data-testid$=\"-error\"]")
                .unwrap()
                .iter()
                .map(|e| e.inner_text().unwrap_or_default())
                .collect();
            panic!("Save did nothing (the dialog says {said:?}): {e}")
        });
    app.wait_for_text(&sel("server-item"), "Carrel Fixture Library")
        .unwrap();
    assert_eq!(server_names(&app), ["Carrel Fixture Library"]);

    // The same server again: said under the address, and not added.
    carrel_e2e::open_server_dialog(&app).unwrap();
    app.wait_for(&sel("server-name"))
        .unwrap()
        .fill("Again")
        .unwrap();
    app.find(&sel("server-url")).unwrap().fill(&typed).unwrap();
    let said = app
        .wait_for_text(&sel("server-url-error"), "already have this server")
        .unwrap();
    assert_eq!(
        said.trim(),
        "You already have this server: Carrel Fixture Library."
    );
    app.find(&sel("server-url"))
        .unwrap()
        .send_keys("\u{E007}")
        .unwrap();
    std::thread::sleep(Duration::from_millis(500));
    assert!(app
        .find(&sel("add-server-dialog"))
        .unwrap()
        .is_visible()
        .unwrap());
    assert_eq!(server_names(&app), ["Carrel Fixture Library"]);
}

/// A server that stops answering without closing its connections (as a stopped process does):
/// after the first request that ran out of time, every click shows the kept copy at once; the
/// search everywhere says the server is not answering, by its name; and once the server
/// answers again the page shown comes back from it by itself.
#[test]
fn a_stalled_server_is_not_waited_for_on_every_click_and_comes_back_by_itself() {
    let case = TestCase::start();
    let (server, app) = app_on_server(&case, books(6), "Home library", None);
    open_server(&app, "Home library");
    follow(&app, "All books", default_timeout());
    follow(&app, "Browse by series", default_timeout());
    go_to_crumb(&app, "All books");
    wait_for_feed_within(&app, default_timeout());

    server.set_faults(Faults {
        latency_ms: 600_000,
        ..Faults::default()
    });
    // The first request to the stalled server waits for its time limit.
    go_to_crumb(&app, "Home library");
    wait_shown(&app, &sel("offline-banner"), Duration::from_secs(40));
    app.wait_for_displayed(&format!("{} {}", sel("server-item"), sel("server-offline")))
        .unwrap();

    // Known not to answer: the kept copies come at once.
    for step in ["All books", "Browse by series"] {
        let started = Instant::now();
        follow(&app, step, Duration::from_secs(40));
        wait_shown(&app, &sel("offline-banner"), Duration::from_secs(40));
        assert!(
            started.elapsed() < Duration::from_secs(5),
            "{step:?} took {:?} to show its kept copy",
            started.elapsed()
        );
    }

    // Search everywhere: the server is named, in words.
    app.find(&sel("search-nav")).unwrap().click().unwrap();
    app.wait_for_displayed(&sel("search-view")).unwrap();
    let started = Instant::now();
    app.wait_for(&sel("everywhere-search-input"))
        .unwrap()
        .send_keys("zzzqqq\u{E007}")
        .unwrap();
    let said = wait_for_element_within(
        &app,
        &sel("search-server-error"),
        "the stalled server's answer",
        Duration::from_secs(60),
        |t| !t.trim().is_empty(),
    )
    .inner_text()
    .unwrap();
    assert_eq!(said.trim(), "Home library is not answering.");
    assert!(
        started.elapsed() < Duration::from_secs(5),
        "the search waited {:?} for a server known not to answer",
        started.elapsed()
    );

    // It answers again: the page shown comes from it without the reader doing anything.
    server.clear_faults();
    open_server(&app, "Home library");
    app.wait_until(
        "the server's own page in place of the kept copy",
        Duration::from_secs(90),
        |c| {
            let banner = c.exists(&sel("offline-banner"))?;
            let flag = c.exists(&format!("{} {}", sel("server-item"), sel("server-offline")))?;
            Ok((!banner && !flag && c.exists(&sel("catalog-nav-entry"))?).then_some(()))
        },
    )
    .unwrap();
}

/// A search that matches nothing, as calibre's content server says it (`404 No books found`)
/// and as Codex says it (a feed with only its "Start of catalog" entry): both read "No books
/// match", in the server's own search and in Search everywhere, and neither is an error.
#[test]
fn a_search_that_finds_nothing_says_so_on_calibre_and_on_codex() {
    let case = TestCase::start();
    let calibre = Behavior {
        empty_search_404: true,
        ..Behavior::default()
    };
    let codex = Behavior {
        start_entry_in_feeds: true,
        ..Behavior::default()
    };
    let [calibre, codex] = [calibre, codex].map(|behavior| {
        start_server(Config {
            behavior,
            ..books(3)
        })
    });
    let app = launch(&case);
    add_server(&app, "calibre", &calibre.url("/opds"));
    add_server(&app, "Codex", &codex.url("/opds"));

    for name in ["calibre", "Codex"] {
        open_server(&app, name);
        let search = app.wait_for(&sel("search-input")).unwrap();
        search.clear().unwrap();
        search.send_keys("zzzqqq\u{E007}").unwrap();
        let said = wait_for_element_within(
            &app,
            &sel("browse-empty"),
            &format!("{name}'s empty search"),
            default_timeout(),
            |t| t.contains("zzzqqq"),
        )
        .inner_text()
        .unwrap();
        assert_eq!(
            first_line(&said),
            "No books match “zzzqqq”",
            "{name} says {said:?}"
        );
        assert!(
            !app.exists(&sel("browse-error")).unwrap(),
            "{name}'s empty search shows an error"
        );
    }

    app.find(&sel("search-nav")).unwrap().click().unwrap();
    app.wait_for_displayed(&sel("search-view")).unwrap();
    app.wait_for(&sel("everywhere-search-input"))
        .unwrap()
        .send_keys("zzzqqq\u{E007}")
        .unwrap();
    app.wait_until("both servers' answers", default_timeout(), |c| {
        let groups = c.find_all(&sel("search-group"))?;
        let mut answered = 0;
        for g in &groups {
            if g.attribute("data-state")?.as_deref() != Some("searching") {
                answered += 1;
            }
        }
        Ok((groups.len() == 2 && answered == 2).then_some(()))
    })
    .unwrap();
    let empty = texts(&app, &sel("search-server-empty"));
    assert_eq!(
        empty,
        ["No books match “zzzqqq”.", "No books match “zzzqqq”."]
    );
    assert!(!app.exists(&sel("search-server-error")).unwrap());
}

/// With no keyring (passwords kept in the data dir's file): Home says so only once a password
/// is kept there, and "Don't show again" is kept for the next start.
#[test]
fn the_keyring_notice_shows_only_for_a_password_kept_in_the_file_and_goes_for_good() {
    let case = TestCase::start();
    let open = start_server(books(2));
    let locked = start_server(Config {
        books: 2,
        behavior: Behavior {
            auth: Some("alice:wonderland".into()),
            ..Behavior::default()
        },
        ..Config::default()
    });
    let app = launch(&case);
    add_server(&app, "Open", &open.url("/opds"));
    assert_home_without_credentials_notice(&app, "the notice shows with no password kept");

    carrel_e2e::submit_server_dialog(
        &app,
        "Locked",
        &locked.url("/opds"),
        Some(("alice", "wonderland")),
    )
    .unwrap();
    app.wait_for_hidden(&sel("add-server-dialog")).unwrap();
    app.find(&sel("settings-nav")).unwrap().click().unwrap();
    app.find(&sel("home-nav")).unwrap().click().unwrap();
    let notice = app
        .wait_for_text(&sel("credentials-notice"), "keyring")
        .unwrap();
    assert!(notice.contains("kept in a file"), "{notice}");
    click_to_hide(&app, "credentials-notice-dismiss", "credentials-notice");
    app.close().unwrap();

    let app = launch(&case);
    assert_home_without_credentials_notice(
        &app,
        "dismissed for good, it shows again after a restart",
    );
    app.close().unwrap();
}

/// Opens Home and asserts that, half a second after it shows, no notice about where passwords
/// are kept is on it; `failure` says what it would mean.
fn assert_home_without_credentials_notice(app: &App, failure: &str) {
    app.wait_for(&sel("home-nav")).unwrap().click().unwrap();
    app.wait_for_displayed(&sel("continue-reading")).unwrap();
    std::thread::sleep(Duration::from_millis(500));
    assert!(
        !app.exists(&sel("credentials-notice")).unwrap(),
        "{failure}"
    );
}
