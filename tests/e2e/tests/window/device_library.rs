//! "On this device" sorted and filtered as the reader chooses (the core answers, the grid draws
//! only what is in view), and a feed's facets shown as a bar above its items.

use std::path::Path;

use carrel_e2e::{default_timeout, App, TestCase};
use fixture_server::{BookKind, RunningServer};

use super::carrel_cli::cli;
use super::support::{
    app_on_server, book_entries, books, first_line, launch, sel, start_server, texts,
    wait_for_element,
};

/// Adds `server` to the library on `data` (as "lib"), keeps every book of `/opds/books` on the
/// device and returns each book's id in the library with its fixture book's title.
fn keep_all(data: &Path, server: &RunningServer) -> Vec<(i64, String)> {
    cli(data, &["server", "add", "lib", &server.url("/opds")]);
    let feed: serde_json::Value =
        serde_json::from_str(&cli(data, &["--json", "browse", "lib", "/opds/books"])).unwrap();
    let books: Vec<(i64, String)> = book_entries(&feed)
        .into_iter()
        .map(|e| {
            (
                e["book_id"].as_i64().unwrap(),
                e["title"].as_str().unwrap().to_owned(),
            )
        })
        .collect();
    assert_eq!(books.len(), server.books().len(), "{feed}");
    for (id, _) in &books {
        cli(data, &["store", &id.to_string()]);
    }
    books
}

/// The titles the grid shows, in the grid's order (by each item's place in the whole list).
fn shown(app: &App) -> Vec<String> {
    let titles = app
        .execute(
            "const items = [...document.querySelectorAll('[data-testid=\"on-device-grid\"] li.item')];
             items.sort((a, b) => Number(a.getAttribute('aria-posinset')) - Number(b.getAttribute('aria-posinset')));
             return items.map((li) => li.querySelector('[data-testid=\"on-device-item\"] .title').innerText);",
            vec![],
        )
        .unwrap();
    titles
        .as_array()
        .unwrap()
        .iter()
        .map(|t| first_line(t.as_str().unwrap_or_default()))
        .collect()
}

/// Waits until the grid shows `expected`, in that order.
fn wait_shown(app: &App, expected: &[String], what: &str) {
    let mut last = Vec::new();
    let outcome = app.wait_until(what, default_timeout(), |_| {
        last = shown(app);
        Ok((last == expected).then_some(()))
    });
    if outcome.is_err() {
        panic!("{what}: the grid shows {last:?}, not {expected:?}");
    }
}

/// Chooses `value` in the drop-down list with test id `id`.
fn choose(app: &App, id: &str, value: &str) {
    app.wait_for(&format!("{} option[value=\"{value}\"]", sel(id)))
        .unwrap()
        .click()
        .unwrap();
}

/// Titles in the order "Title" sorts them here: case and accents aside, punctuation a gap,
/// numbers as numbers (the fixture's titles differ early enough for this to agree).
fn by_title(titles: &[String]) -> Vec<String> {
    let key = |t: &str| {
        t.to_lowercase()
            .replace('é', "e")
            .split(|c: char| !c.is_alphanumeric())
            .filter(|w| !w.is_empty())
            .map(|w| match w.parse::<u32>() {
                Ok(n) => format!("{n:010}"),
                Err(_) => w.to_owned(),
            })
            .collect::<Vec<_>>()
            .join(" ")
    };
    let mut sorted = titles.to_vec();
    sorted.sort_by_key(|t| key(t));
    sorted
}

#[test]
fn the_books_on_this_device_are_sorted_and_filtered_as_the_reader_chooses() {
    let case = TestCase::start();
    let server = start_server(books(7));
    let books = keep_all(case.data_dir(), &server);
    let titles: Vec<String> = books.iter().map(|(_, t)| t.clone()).collect();
    // One book read to its end.
    let (read_id, read_title) = books[1].clone();
    cli(case.data_dir(), &["mark", &read_id.to_string(), "read"]);

    let app = launch(&case);
    app.wait_for(&sel("on-device-nav"))
        .unwrap()
        .click()
        .unwrap();
    app.wait_for_displayed(&sel("on-device-grid")).unwrap();
    let ascending = by_title(&titles);
    wait_shown(&app, &ascending, "every book, by title");

    // Reversed.
    app.find(&sel("on-device-descending"))
        .unwrap()
        .click()
        .unwrap();
    let descending: Vec<String> = ascending.iter().rev().cloned().collect();
    wait_shown(&app, &descending, "every book, by title, reversed");
    app.find(&sel("on-device-descending"))
        .unwrap()
        .click()
        .unwrap();
    wait_shown(&app, &ascending, "back to ascending");

    // Only the EPUBs.
    let epubs: Vec<String> = server
        .books()
        .iter()
        .filter(|b| b.kind == BookKind::Epub)
        .map(|b| b.title.clone())
        .collect();
    assert!(!epubs.is_empty() && epubs.len() < titles.len());
    choose(&app, "on-device-format", "epub");
    wait_shown(&app, &by_title(&epubs), "the EPUBs only");
    wait_for_element(
        &app,
        &sel("on-device-count"),
        "the count of books shown",
        |t| t.contains(&format!("{} of {}", epubs.len(), titles.len())),
    );
    choose(&app, "on-device-format", "all");

    // Only the book read.
    choose(&app, "on-device-read", "read");
    wait_shown(&app, &[read_title.clone()], "the book read only");
    choose(&app, "on-device-read", "unread");
    let unread: Vec<String> = ascending
        .iter()
        .filter(|t| **t != read_title)
        .cloned()
        .collect();
    wait_shown(&app, &unread, "the books not read");
    choose(&app, "on-device-read", "all");
    wait_shown(&app, &ascending, "every book again");

    // A text, in other case and without its accents: a series' name.
    let series = server.books()[0].series.clone();
    let in_series: Vec<String> = server
        .books()
        .iter()
        .filter(|b| b.series == series)
        .map(|b| b.title.clone())
        .collect();
    let typed = series.to_uppercase().replace('É', "E");
    app.find(&sel("on-device-filter"))
        .unwrap()
        .send_keys(&typed)
        .unwrap();
    wait_shown(&app, &by_title(&in_series), "the books of one series");
    app.find(&sel("on-device-filter")).unwrap().clear().unwrap();
    wait_shown(&app, &ascending, "every book once the text is cleared");

    // The choice is kept for the next visit.
    choose(&app, "on-device-sort", "series");
    app.find(&sel("on-device-descending"))
        .unwrap()
        .click()
        .unwrap();
    app.wait_for(&sel("home-nav")).unwrap().click().unwrap();
    app.wait_for(&sel("on-device-nav"))
        .unwrap()
        .click()
        .unwrap();
    app.wait_for_displayed(&sel("on-device-grid")).unwrap();
    let sort = app
        .execute(
            "return document.querySelector('[data-testid=\"on-device-sort\"]').value;",
            vec![],
        )
        .unwrap();
    assert_eq!(sort.as_str(), Some("series"), "the order chosen, kept");
    app.close().unwrap();
    server.stop();
}

/// The pressed state of each facet of the bar, with its title.
fn facets(app: &App) -> Vec<(String, bool)> {
    let got = app
        .execute(
            "return [...document.querySelectorAll('[data-testid=\"facet\"]')]
                 .map((b) => [b.innerText.trim(), b.getAttribute('aria-pressed') === 'true']);",
            vec![],
        )
        .unwrap();
    serde_json::from_value(got).unwrap()
}

/// Waits until the bar's facets are `expected`: each title with whether it is pressed, in order.
fn wait_for_facets(app: &App, what: &str, expected: &[(&str, bool)]) {
    let expected: Vec<(String, bool)> = expected
        .iter()
        .map(|&(title, pressed)| (title.to_owned(), pressed))
        .collect();
    app.wait_until(what, default_timeout(), |_| {
        Ok((facets(app) == expected).then_some(()))
    })
    .unwrap();
}

/// The ids of the books the feed shows, in order.
fn feed_books(app: &App) -> Vec<i64> {
    let got = app
        .execute(
            "return [...document.querySelectorAll('[data-testid=\"catalog-book\"]')]
                 .map((b) => Number(b.dataset.bookId));",
            vec![],
        )
        .unwrap();
    serde_json::from_value(got).unwrap()
}

#[test]
fn a_feeds_facets_are_a_bar_with_the_view_shown_chosen_and_another_opens_in_its_place() {
    let case = TestCase::start();
    let (server, app) = app_on_server(&case, books(7), "Facets", None);
    let item = wait_for_element(&app, &sel("server-item"), "the server", |t| {
        t.contains("Facets")
    });
    item.find(&sel("server-open")).unwrap().click().unwrap();
    let comics = wait_for_element(&app, &sel("catalog-nav-entry"), "the Comics entry", |t| {
        first_line(t) == "Comics"
    });
    comics.click().unwrap();
    let bar = app.wait_for_displayed(&sel("facet-bar")).unwrap();
    let group = bar.find(&sel("facet-group")).unwrap();
    assert_eq!(
        group.attribute("aria-label").unwrap().as_deref(),
        Some("Sort")
    );
    wait_for_facets(
        &app,
        "the facets",
        &[("Title", true), ("Newest first", false)],
    );
    // Facets are not folders.
    let folders: Vec<String> = app
        .find_all(&sel("catalog-nav-entry"))
        .unwrap()
        .iter()
        .map(|e| first_line(&e.inner_text().unwrap()))
        .collect();
    assert!(
        !folders.iter().any(|f| f == "Newest first" || f == "Title"),
        "{folders:?}"
    );
    let by_title = feed_books(&app);
    assert!(by_title.len() >= 2, "{by_title:?}");

    let newest = app
        .find_all(&sel("facet"))
        .unwrap()
        .into_iter()
        .find(|f| f.inner_text().unwrap().trim() == "Newest first")
        .unwrap();
    newest.click().unwrap();
    wait_for_facets(
        &app,
        "the newest first",
        &[("Title", false), ("Newest first", true)],
    );
    let mut reversed = by_title.clone();
    reversed.reverse();
    app.wait_until("the books newest first", default_timeout(), |_| {
        Ok((feed_books(&app) == reversed).then_some(()))
    })
    .unwrap();
    assert!(server.stats().hits("/opds/comics?sort=newest") >= 1);
    // The view replaced the feed in the path: one step, still "Comics".
    let crumbs = texts(&app, &sel("breadcrumb"));
    assert_eq!(
        crumbs.last().map(String::as_str),
        Some("Comics"),
        "{crumbs:?}"
    );
    app.close().unwrap();
    server.stop();
}
