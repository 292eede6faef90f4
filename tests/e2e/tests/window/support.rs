//! What the window tests of several areas share: finding things by their test id and by what
//! they say, the app on a test's data dir, the fixture server, moving between views and waiting
//! for a feed to load, keys pressed together, the comic and PDF reader opened and its page
//! painted, a highlight's note and the Markdown export of a reader, and the books the tests make
//! (stored zips, EPUBs, PDFs).

use std::io::{Cursor, Write};
use std::time::Duration;

use carrel_e2e::{default_timeout, testid, App, Element, TestCase};
use fixture_server::{Config, Faults, GivenFile, RunningServer, Server};
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

/// The fixture's catalog of `count` books, nothing else set.
pub fn books(count: u32) -> Config {
    Config {
        books: count,
        ..Config::default()
    }
}

/// One comic (book 1) of `pages` pages, every request to the server `latency_ms` late: a
/// download that lasts long enough to watch it or act on it.
pub fn slow_comic(pages: u32, latency_ms: u64) -> Config {
    Config {
        books: 1,
        comic_pages: [(1, pages)].into(),
        faults: Faults {
            latency_ms,
            ..Faults::default()
        },
        ..Config::default()
    }
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

/// Calls the app's command `command` with `args` as the window would: `{ ok: value }` (null
/// for none) or `{ err: error }`.
pub fn invoke(app: &App, command: &str, args: serde_json::Value) -> serde_json::Value {
    app.execute_async(
        "const done = arguments[arguments.length - 1];
         window.__TAURI_INTERNALS__.invoke(arguments[0], arguments[1])
           .then((v) => done({ ok: v === undefined ? null : v }), (e) => done({ err: e }));",
        vec![json!(command), args],
    )
    .unwrap()
}

/// The book entries of a feed as `browse_catalog` (or `carrel-cli browse --json`) gives it.
pub fn book_entries(feed: &serde_json::Value) -> Vec<&serde_json::Value> {
    feed["entries"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|e| e["type"] == "book")
        .collect()
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

/// Presses `keys` one after another while `held` (modifiers, WebDriver key values) are held
/// down, then lets the modifiers go in the reverse order; `what` names the chord in an error.
pub fn chord(app: &App, held: &[&str], keys: &[&str], what: &str) {
    let mut actions = Vec::new();
    for key in held {
        actions.push(json!({ "type": "keyDown", "value": key }));
    }
    for key in keys {
        actions.push(json!({ "type": "keyDown", "value": key }));
        actions.push(json!({ "type": "keyUp", "value": key }));
    }
    for key in held.iter().rev() {
        actions.push(json!({ "type": "keyUp", "value": key }));
    }
    app.command(
        "POST",
        "/actions",
        Some(json!({ "actions": [{ "type": "key", "id": "keyboard", "actions": actions }] })),
        what,
    )
    .unwrap();
}

/// Moves the mouse to `(x, y)` in the window, clicking there when `click`.
pub fn mouse_at(app: &App, x: f64, y: f64, click: bool) {
    let mut actions = vec![
        json!({ "type": "pointerMove", "duration": 0, "origin": "viewport", "x": x.round() as i64, "y": y.round() as i64 }),
    ];
    if click {
        actions.push(json!({ "type": "pointerDown", "button": 0 }));
        actions.push(json!({ "type": "pointerUp", "button": 0 }));
    }
    app.command(
        "POST",
        "/actions",
        Some(json!({ "actions": [{ "type": "pointer", "id": "mouse", "parameters": { "pointerType": "mouse" }, "actions": actions }] })),
        "perform pointer actions",
    )
    .unwrap();
}

/// The WebDriver key values of the keys the tests press.
pub const TAB: &str = "\u{E004}";
pub const ENTER: &str = "\u{E007}";
pub const SHIFT: &str = "\u{E008}";
pub const CTRL: &str = "\u{E009}";
pub const ESCAPE: &str = "\u{E00C}";
pub const SPACE: &str = "\u{E00D}";
pub const END: &str = "\u{E010}";
pub const LEFT: &str = "\u{E012}";
pub const RIGHT: &str = "\u{E014}";
pub const DOWN: &str = "\u{E015}";
pub const F10: &str = "\u{E03A}";

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

/// Waits for the grid's tile whose text contains `title`, clicks it and waits for its details;
/// returns its id in the app.
pub fn open_tile_details(app: &App, what: &str, title: &str) -> i64 {
    let (tile, id) = wait_for_tile(app, what, |text| text.contains(title));
    tile.click().unwrap();
    wait_for_details(app, id);
    id
}

/// Waits for the details of book `id` shown.
pub fn wait_for_details(app: &App, id: i64) {
    app.wait_for_displayed(&format!("{}[data-book-id=\"{id}\"]", sel("book-details")))
        .unwrap();
}

/// The id in the app of the book the element matching `selector` shows (its `data-book-id`).
pub fn book_id_of(app: &App, selector: &str) -> i64 {
    app.find(selector)
        .unwrap()
        .attribute("data-book-id")
        .unwrap()
        .unwrap()
        .parse()
        .unwrap()
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
    wait_for_details(app, id);
    id
}

/// The fixture server, `books` books, and the app on it: the server added as `name`, the
/// window `size` (width, height) when given.
pub fn app_on_server(
    case: &TestCase,
    config: Config,
    name: &str,
    size: Option<(f64, f64)>,
) -> (RunningServer, App) {
    let server = start_server(config);
    let app = launch(case);
    if let Some((width, height)) = size {
        app.set_window_size(width, height).unwrap();
    }
    add_server(&app, name, &server.url("/opds"));
    (server, app)
}

/// From a book's details: Read (or Continue reading), and the comic reader (which also shows
/// PDFs) open on book `id`.
pub fn open_comic_reader(app: &App, id: i64) {
    app.wait_for(&sel("read-book")).unwrap().click().unwrap();
    app.wait_for_displayed(&format!("{}[data-book-id=\"{id}\"]", sel("comic-reader")))
        .unwrap();
}

/// Waits until the comic reader shows page `page` (from 0) painted, in single-page mode.
pub fn wait_for_painted_page(app: &App, page: u32) {
    carrel_e2e::wait_for_painted_page(app, page).unwrap();
}

/// Clicks the button with test id `button` and waits until what has test id `hidden` is hidden.
pub fn click_to_hide(app: &App, button: &str, hidden: &str) {
    app.find(&sel(button)).unwrap().click().unwrap();
    app.wait_for_hidden(&sel(hidden)).unwrap();
}

/// What the reader's page indicator says, trimmed.
pub fn page_indicator(app: &App) -> String {
    app.find(&sel("page-indicator"))
        .unwrap()
        .inner_text()
        .unwrap()
        .trim()
        .to_string()
}

/// Highlights the selection in `reader` ("epub" or "pdf") with the key `h`, in the popover's
/// colour `colour`.
pub fn highlight_selection(app: &App, reader: &str, colour: &str) {
    press(app, &["h"]);
    in_highlight_popover(app, reader, None, colour);
}

/// With text selected in a reader (`reader` is the test ids' prefix, `epub` or `pdf`): waits
/// for the highlight popover, writes `note` and picks `colour`, which saves the highlight.
pub fn highlight_with_note(app: &App, reader: &str, note: &str, colour: &str) {
    in_highlight_popover(app, reader, Some(note), colour);
}

/// Waits for `reader`'s highlight popover, writes `note` in it if there is one, and picks
/// `colour`, which saves the highlight.
fn in_highlight_popover(app: &App, reader: &str, note: Option<&str>, colour: &str) {
    let id = |what: &str| sel(&format!("{reader}-highlight-{what}"));
    app.wait_for_displayed(&id("popover")).unwrap();
    if let Some(note) = note {
        app.find(&id("add-note")).unwrap().click().unwrap();
        app.wait_for_displayed(&id("note"))
            .unwrap()
            .send_keys(note)
            .unwrap();
    }
    app.find(&id(colour)).unwrap().click().unwrap();
}

/// With a reader's annotations panel open: the text of the first note it lists, once shown.
pub fn listed_note(app: &App, reader: &str) -> String {
    app.wait_for_displayed(&format!(
        "{} {}",
        sel(&format!("{reader}-annotations")),
        sel(&format!("{reader}-annotation-note"))
    ))
    .unwrap()
    .text()
    .unwrap()
}

/// With a reader's annotations panel open: its Markdown export, opened and read.
pub fn exported_markdown(app: &App, reader: &str) -> String {
    app.find(&sel(&format!("{reader}-export-markdown")))
        .unwrap()
        .click()
        .unwrap();
    app.wait_for_displayed(&sel(&format!("{reader}-export-text")))
        .unwrap();
    let markdown = app
        .execute(
            &format!(
                "return document.querySelector('[data-testid=\"{reader}-export-text\"]').value;"
            ),
            vec![],
        )
        .unwrap();
    markdown.as_str().unwrap().to_string()
}

/// A book the fixture server serves as a file of its own.
pub fn given_file(media_type: &str, extension: &str, bytes: Vec<u8>) -> GivenFile {
    GivenFile {
        media_type: media_type.into(),
        extension: extension.into(),
        bytes,
    }
}

/// A PDF made by `scripts/make-test-pdf.py` (ReportLab, or object by object for the hostile
/// one): `kind` and its argument as the script takes them.
pub fn make_test_pdf(kind: &str, arg: &str) -> Vec<u8> {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("book.pdf");
    let script = concat!(env!("CARGO_MANIFEST_DIR"), "/scripts/make-test-pdf.py");
    // Debian's Python, which has Debian's ReportLab (the Makefile installs python3-reportlab).
    let status = std::process::Command::new("/usr/bin/python3")
        .arg(script)
        .args([kind, out.to_str().unwrap(), arg])
        .status()
        .expect("run /usr/bin/python3 (make setup-test installs it)");
    assert!(status.success(), "make-test-pdf.py {kind} failed: {status}");
    std::fs::read(&out).unwrap()
}

/// A zip of `entries` (name, bytes) in their order, every one stored uncompressed: as an EPUB
/// wants its `mimetype`, and as the test comics are made.
pub fn stored_zip<N: AsRef<str>, D: AsRef<[u8]>>(
    entries: impl IntoIterator<Item = (N, D)>,
) -> Vec<u8> {
    let mut writer = zip::ZipWriter::new(Cursor::new(Vec::new()));
    let options =
        zip::write::SimpleFileOptions::default().compression_method(zip::CompressionMethod::Stored);
    for (name, data) in entries {
        writer.start_file(name.as_ref(), options).unwrap();
        writer.write_all(data.as_ref()).unwrap();
    }
    writer.finish().unwrap().into_inner()
}

/// An EPUB: its `mimetype`, a container naming `OEBPS/content.opf`, then `files` (a name under
/// `OEBPS/` and its text) in order.
pub fn epub_zip(files: &[(&str, &str)]) -> Vec<u8> {
    let container = "<?xml version=\"1.0\"?>\n<container version=\"1.0\" xmlns=\"urn:oasis:names:tc:opendocument:xmlns:container\">\n\
        <rootfiles><rootfile full-path=\"OEBPS/content.opf\" media-type=\"application/oebps-package+xml\"/></rootfiles>\n</container>\n";
    let mut entries = vec![
        ("mimetype".to_string(), "application/epub+zip"),
        ("META-INF/container.xml".to_string(), container),
    ];
    entries.extend(
        files
            .iter()
            .map(|(name, text)| (format!("OEBPS/{name}"), *text)),
    );
    stored_zip(entries)
}

/// The CRC-32 (ISO-HDLC, as PNG and zip use it) of `bytes`.
pub fn crc32(bytes: &[u8]) -> u32 {
    let mut crc = 0xFFFF_FFFFu32;
    for byte in bytes {
        crc ^= u32::from(*byte);
        for _ in 0..8 {
            crc = if crc & 1 == 1 {
                (crc >> 1) ^ 0xEDB8_8320
            } else {
                crc >> 1
            };
        }
    }
    !crc
}
