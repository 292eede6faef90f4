//! What the window tests of several areas share: finding things by their test id and by what
//! they say, the app on a test's data dir, the fixture server, moving between views and waiting
//! for a feed to load.

use std::time::Duration;

use carrel_e2e::{default_timeout, testid, App, Element, TestCase};
use fixture_server::{Config, RunningServer, Server};
use serde_json::json;

/// How often a text is read again while the page redraws.
const SAMPLE: Duration = Duration::from_millis(50);

/// The CSS selector of a test id.
pub fn sel(id: &str) -> String {
    testid(id)
}

/// The app on the test's data dir, passwords in the data dir's file.
pub fn launch(case: &TestCase) -> App {
    case.launch_with(case.options().env("CARREL_SECRETS", "file"))
}

pub fn start_server(config: Config) -> RunningServer {
    Server::start(config).expect("start the fixture server")
}

/// The first line of an element's text, trimmed.
pub fn first_line(text: &str) -> String {
    text.lines()
        .map(str::trim)
        .find(|l| !l.is_empty())
        .unwrap_or("")
        .to_string()
}

/// Waits up to `timeout` until an element matching `selector` is visible and its text satisfies
/// `matches`; the failure says what every such element said.
pub fn wait_for_element_within<'a>(
    app: &'a App,
    selector: &str,
    what: &str,
    timeout: Duration,
    matches: impl Fn(&str) -> bool,
) -> Element<'a> {
    let mut seen: Vec<String> = Vec::new();
    let found = app.wait_until(what, timeout, |_| {
        seen.clear();
        for e in app.find_all(selector)? {
            let text = e.inner_text()?;
            if matches(&text) && e.is_visible()? {
                return Ok(Some(e));
            }
            seen.push(text);
        }
        Ok(None)
    });
    found.unwrap_or_else(|e| panic!("{e}; `{selector}` elements said {seen:?}"))
}

/// [`wait_for_element_within`] the usual time.
pub fn wait_for_element<'a>(
    app: &'a App,
    selector: &str,
    what: &str,
    matches: impl Fn(&str) -> bool,
) -> Element<'a> {
    wait_for_element_within(app, selector, what, default_timeout(), matches)
}

/// The visible texts of every element matching `selector`, in order. Read again when the page
/// redraws under the reading (a stale element).
pub fn texts(app: &App, selector: &str) -> Vec<String> {
    let read = || -> carrel_e2e::Result<Vec<String>> {
        app.find_all(selector)?
            .iter()
            .map(|e| Ok(e.inner_text()?.trim().to_string()))
            .collect()
    };
    let mut attempts = 0;
    loop {
        match read() {
            Ok(texts) => return texts,
            Err(e) if e.is_not_found() && attempts < 20 => attempts += 1,
            Err(e) => panic!("cannot read the texts of `{selector}`: {e}"),
        }
        std::thread::sleep(SAMPLE);
    }
}

/// Clicks a navigation button and waits for its view.
pub fn go(app: &App, nav: &str, view: &str) {
    app.wait_for(&sel(nav)).unwrap().click().unwrap();
    app.wait_for_displayed(&sel(view)).unwrap();
}

/// Waits up to `timeout` until the feed shown has finished loading (entries, or an error, an
/// empty state or a sign-in asked for).
pub fn wait_for_feed_within(app: &App, timeout: Duration) {
    app.wait_until("the feed to load", timeout, |c| {
        if c.exists(&sel("browse-loading"))? {
            return Ok(None);
        }
        for id in [
            "catalog-nav-entry",
            "catalog-book",
            "browse-error",
            "browse-empty",
            "browse-auth",
        ] {
            if c.exists(&sel(id))? {
                return Ok(Some(()));
            }
        }
        Ok(None)
    })
    .unwrap();
}

/// [`wait_for_feed_within`] the usual time.
pub fn wait_for_feed(app: &App) {
    wait_for_feed_within(app, default_timeout());
}

/// The servers saved, as the window's `list_servers` gives them.
pub fn saved_servers(app: &App) -> Vec<serde_json::Value> {
    let listed = app
        .execute_async(
            "const done = arguments[arguments.length - 1];
             window.__TAURI_INTERNALS__.invoke('list_servers').then(done, (e) => done(JSON.stringify(e)));",
            vec![],
        )
        .unwrap();
    serde_json::from_value(listed).unwrap()
}

/// Adds a server through the "Add server" dialog and waits for it in the sidebar.
pub fn add_server(app: &App, name: &str, url: &str) {
    carrel_e2e::submit_server_dialog(app, name, url, None).unwrap();
    app.wait_for_hidden(&sel("add-server-dialog")).unwrap();
    app.wait_for_text(&sel("server-item"), name).unwrap();
}

/// Presses `keys` (WebDriver key values) as the keyboard would: into whatever has focus.
pub fn press(app: &App, keys: &[&str]) {
    let mut actions = Vec::new();
    for key in keys {
        actions.push(json!({ "type": "keyDown", "value": key }));
        actions.push(json!({ "type": "keyUp", "value": key }));
    }
    app.command(
        "POST",
        "/actions",
        Some(json!({ "actions": [{ "type": "key", "id": "keyboard", "actions": actions }] })),
        "perform key actions",
    )
    .unwrap();
}

/// Follows the open server's "All books", once its root feed lists it.
pub fn follow_all_books(app: &App) {
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
}

/// The grid's first tile whose text `is_it` accepts, once there is one (`what` names it in the
/// time-out error); and the id of its book in the app.
pub fn wait_for_tile<'a>(
    app: &'a App,
    what: &str,
    is_it: impl Fn(&str) -> bool,
) -> (Element<'a>, i64) {
    let tile = app
        .wait_until(what, default_timeout(), |_| {
            for tile in app.find_all(&sel("catalog-book"))? {
                if is_it(&tile.inner_text()?) {
                    return Ok(Some(tile));
                }
            }
            Ok(None)
        })
        .unwrap();
    let id: i64 = tile
        .attribute("data-book-id")
        .unwrap()
        .expect("a tile has data-book-id")
        .parse()
        .unwrap();
    (tile, id)
}

/// Opens the server, follows "All books" when asked, clicks the tile of the book titled
/// `title` and waits for its details; returns its id in the app.
pub fn open_details(app: &App, title: &str, all_books: bool) -> i64 {
    open_details_after(app, title, all_books, |_| {})
}

/// [`open_details`], calling `before(id)` once the tile is found and before it is clicked.
pub fn open_details_after(
    app: &App,
    title: &str,
    all_books: bool,
    before: impl FnOnce(i64),
) -> i64 {
    app.wait_for(&sel("server-open")).unwrap().click().unwrap();
    if all_books {
        follow_all_books(app);
    }
    let (tile, id) = wait_for_tile(app, "the book in the grid", |text| text.contains(title));
    before(id);
    tile.click().unwrap();
    app.wait_for_displayed(&format!("{}[data-book-id=\"{id}\"]", sel("book-details")))
        .unwrap();
    id
}
