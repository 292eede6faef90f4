//! The EPUB reader, end to end: the real window reading EPUBs downloaded from real library
//! servers on loopback — the fixture server's, and a hostile one built here whose chapter tries
//! to reach the app's IPC and the network.
//!
//! Run: `xvfb-run -a dbus-run-session -- cargo test -p carrel-e2e epub:: -- --test-threads=1`
//! after `npm run --prefix ui build && cargo build -p carrel`.

use std::io::{Read, Write};
use std::net::{TcpListener, TcpStream};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::Duration;

use carrel_e2e::{default_timeout, save_docs_screenshot, App, TestCase};
use fixture_server::{BookKind, Config, Server};
use serde_json::{json, Value};

use crate::support::{
    add_server, app_on_server, book_id_of, books, chord, click_to_hide, epub_zip,
    exported_markdown, given_file, highlight_selection, highlight_with_note, invoke, launch,
    listed_note, mouse_at, open_details, open_tile_details, press, sel, start_server, CTRL, RIGHT,
    SHIFT,
};
/// The text of the section foliate-js shows, `""` while there is none.
const SECTION_TEXT: &str = "const view = document.querySelector('foliate-view');
     const contents = view && view.renderer && view.renderer.getContents ? view.renderer.getContents() : [];
     const doc = contents[0] && contents[0].doc;
     return doc && doc.body ? doc.body.textContent : '';";

/// Opens the EPUB reader's reading settings and waits for the panel.
fn open_reading_settings(app: &App) {
    app.find(&sel("epub-settings-toggle"))
        .unwrap()
        .click()
        .unwrap();
    app.wait_for_displayed(&sel("epub-settings")).unwrap();
}

/// In the open reading settings, picks the book's theme `theme` (`light`, `sepia` or `dark`) and
/// waits until the reader has taken it.
fn pick_theme(app: &App, theme: &str) {
    app.wait_for_displayed(&sel(&format!("epub-theme-{theme}")))
        .unwrap()
        .click()
        .unwrap();
    app.wait_for(&format!(
        "{}[data-theme-choice=\"{theme}\"]",
        sel("epub-reader")
    ))
    .unwrap();
}

fn section_text(app: &App) -> String {
    app.execute(SECTION_TEXT, vec![])
        .unwrap()
        .as_str()
        .unwrap_or_default()
        .to_string()
}

fn wait_for_section_text(app: &App, needle: &str) -> String {
    app.wait_until(
        &format!("the section showing {needle:?}"),
        default_timeout(),
        |_| {
            let text = section_text(app);
            Ok(text.contains(needle).then_some(text))
        },
    )
    .unwrap()
}

fn open_reader(app: &App, id: i64) {
    app.wait_for_displayed(&sel("read-book"))
        .unwrap()
        .click()
        .unwrap();
    app.wait_for_displayed(&format!(
        "{}[data-book-id=\"{id}\"][data-phase=\"ready\"]",
        sel("epub-reader")
    ))
    .unwrap();
}

/// Back from the reader to the book's details.
fn close_reader(app: &App) {
    click_to_hide(app, "epub-back", "epub-reader");
}

/// The annotations of book `id`, as `list_annotations` gives them, once `done` accepts them.
fn wait_for_annotations(
    app: &App,
    id: i64,
    what: &str,
    done: impl Fn(&[Value]) -> bool,
) -> Vec<Value> {
    app.wait_until(what, default_timeout(), |_| {
        let answer = invoke(app, "list_annotations", json!({ "bookId": id }));
        let list = answer["ok"].as_array().cloned().unwrap_or_default();
        Ok(done(&list).then_some(list))
    })
    .unwrap()
}

/// The CFI foliate-js reports for what is on screen.
fn shown_cfi(app: &App) -> String {
    app.wait_until("a location", default_timeout(), |_| {
        let cfi = app.execute(
            "const view = document.querySelector('foliate-view');
             return view && view.lastLocation && view.lastLocation.cfi ? view.lastLocation.cfi : null;",
            vec![],
        )?;
        Ok(cfi.as_str().map(str::to_string))
    })
    .unwrap()
}

/// The place shown once the view has stopped moving: the same CFI read twice, half a second
/// apart (the first layout of a section may still move the view after its first location).
fn settled_cfi(app: &App) -> String {
    let mut last = shown_cfi(app);
    app.wait_until("the view settled", default_timeout(), |_| {
        std::thread::sleep(std::time::Duration::from_millis(500));
        let now = shown_cfi(app);
        let settled = now == last;
        last = now;
        Ok(settled.then(|| last.clone()))
    })
    .unwrap()
}

#[test]
fn an_epub_opens_takes_the_dark_theme_and_reopens_at_the_saved_cfi() {
    let case = TestCase::start();
    let server = start_server(books(3));
    let book = server
        .books()
        .into_iter()
        .find(|b| b.kind == BookKind::Epub)
        .expect("the fixture has an EPUB");
    let app = launch(&case);
    add_server(&app, "Fixture Library", &server.url("/opds"));
    let id = open_details(&app, &book.title, true);

    open_reader(&app, id);
    wait_for_section_text(&app, "Chapter");
    // Move into the book: the position is not its start.
    for _ in 0..3 {
        app.find(&sel("epub-next")).unwrap().click().unwrap();
        std::thread::sleep(Duration::from_millis(300));
    }
    app.execute("document.documentElement.dataset.theme = 'light';", vec![])
        .unwrap();
    wait_for_section_text(&app, "Chapter");
    save_docs_screenshot(&app, "reader-epub-light.png").unwrap();
    open_reading_settings(&app);
    pick_theme(&app, "dark");
    let background = app
        .wait_until("the dark theme in the book", default_timeout(), |_| {
            let bg = app.execute(
                "const doc = document.querySelector('foliate-view').renderer.getContents()[0].doc;
                 return getComputedStyle(doc.body).backgroundColor;",
                vec![],
            )?;
            Ok(bg
                .as_str()
                .filter(|bg| *bg == "rgb(22, 24, 29)")
                .map(str::to_string))
        })
        .unwrap();
    assert_eq!(background, "rgb(22, 24, 29)");
    app.execute("document.documentElement.dataset.theme = 'dark';", vec![])
        .unwrap();
    save_docs_screenshot(&app, "reader-epub-dark.png").unwrap();
    app.execute("delete document.documentElement.dataset.theme;", vec![])
        .unwrap();
    let before_close = shown_cfi(&app);
    close_reader(&app);

    let saved = app
        .wait_until("the saved position", default_timeout(), |_| {
            let answer = invoke(&app, "epub_position", json!({ "bookId": id }));
            Ok(answer["ok"]["cfi"]
                .as_str()
                .filter(|cfi| *cfi == before_close)
                .map(str::to_string))
        })
        .unwrap();
    assert!(saved.starts_with("epubcfi("), "{saved}");

    open_reader(&app, id);
    let start = app
        .find(&sel("epub-reader"))
        .unwrap()
        .attribute("data-start-cfi")
        .unwrap()
        .unwrap_or_default();
    assert_eq!(start, saved, "the reader opens at the saved position");
    assert_eq!(
        shown_cfi(&app),
        saved,
        "the position shown is exactly the one saved"
    );
    assert!(!section_text(&app).is_empty());

    // Going to a place by percent: back to the start of the book.
    app.find(&sel("epub-progress")).unwrap().click().unwrap();
    let field = app.wait_for_displayed(&sel("epub-goto")).unwrap();
    field
        .send_keys("\u{E003}\u{E003}\u{E003}0\u{E007}")
        .unwrap(); // Backspace ×3, 0, Enter
    app.wait_until("the first chapter", default_timeout(), |_| {
        Ok((shown_cfi(&app) != saved && section_text(&app).contains("Chapter 1")).then_some(()))
    })
    .unwrap();
    app.close().unwrap();
    server.stop();
}

// ---- a hostile book ----------------------------------------------------------------------

/// A listener that counts every connection made to it.
fn tripwire() -> (u16, Arc<AtomicUsize>) {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let port = listener.local_addr().unwrap().port();
    let hits = Arc::new(AtomicUsize::new(0));
    let counted = hits.clone();
    std::thread::spawn(move || {
        for stream in listener.incoming() {
            counted.fetch_add(1, Ordering::SeqCst);
            drop(stream);
        }
    });
    (port, hits)
}

const HOSTILE_TEXT: &str = "This chapter means no good";

fn hostile_epub(trap: u16) -> Vec<u8> {
    let opf = "<?xml version=\"1.0\" encoding=\"utf-8\"?>\n\
        <package xmlns=\"http://www.idpf.org/2007/opf\" version=\"3.0\" unique-identifier=\"uid\">\n\
        <metadata xmlns:dc=\"http://purl.org/dc/elements/1.1/\"><dc:identifier id=\"uid\">urn:hostile:1</dc:identifier>\
        <dc:title>Hostile Book</dc:title><dc:language>en</dc:language>\
        <meta property=\"dcterms:modified\">2026-01-01T00:00:00Z</meta></metadata>\n\
        <manifest><item id=\"nav\" href=\"nav.xhtml\" media-type=\"application/xhtml+xml\" properties=\"nav\"/>\
        <item id=\"c1\" href=\"chapter.xhtml\" media-type=\"application/xhtml+xml\" properties=\"scripted remote-resources\"/></manifest>\n\
        <spine><itemref idref=\"c1\"/></spine>\n</package>\n";
    let nav = "<?xml version=\"1.0\" encoding=\"utf-8\"?>\n<html xmlns=\"http://www.w3.org/1999/xhtml\" xmlns:epub=\"http://www.idpf.org/2007/ops\">\
        <head><title>Contents</title></head><body><nav epub:type=\"toc\"><ol><li><a href=\"chapter.xhtml\">One</a></li></ol></nav></body></html>\n";
    let chapter = format!(
        "<?xml version=\"1.0\" encoding=\"utf-8\"?>\n<html xmlns=\"http://www.w3.org/1999/xhtml\">\
         <head><title>One</title>\
         <link rel=\"stylesheet\" href=\"http://127.0.0.1:{trap}/style.css\"/></head>\
         <body><h1>Chapter One</h1><p>{HOSTILE_TEXT}.</p>\
         <img src=\"http://127.0.0.1:{trap}/img\" alt=\"\"/>\
         <script>\n//<![CDATA[\n\
         document.body.setAttribute('data-ran', '1');\n\
         for (const id of [1, 2, 3]) {{\n\
         try {{ if (window.__TAURI__) window.__TAURI__.core.invoke('remove_server', {{ id }}); }} catch (e) {{}}\n\
         try {{ if (window.parent.__TAURI__) window.parent.__TAURI__.core.invoke('remove_server', {{ id }}); }} catch (e) {{}}\n\
         try {{ window.parent.__TAURI_INTERNALS__.invoke('remove_server', {{ id }}); }} catch (e) {{}}\n\
         try {{ window.top.__TAURI_INTERNALS__.invoke('remove_server', {{ id }}); }} catch (e) {{}}\n\
         }}\n\
         try {{ fetch('http://127.0.0.1:{trap}/leak'); }} catch (e) {{}}\n\
         try {{ new Image().src = 'http://127.0.0.1:{trap}/script-img'; }} catch (e) {{}}\n\
         //]]>\n</script></body></html>\n"
    );
    epub_zip(&[
        ("content.opf", opf),
        ("nav.xhtml", nav),
        ("chapter.xhtml", &chapter),
    ])
}

/// A one-book OPDS server on loopback: `/opds` lists the book, `/book.epub` is the book.
fn hostile_server(epub: Vec<u8>) -> u16 {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let port = listener.local_addr().unwrap().port();
    let feed = format!(
        "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n\
         <feed xmlns=\"http://www.w3.org/2005/Atom\" xmlns:opds=\"http://opds-spec.org/2010/catalog\">\n\
         <id>urn:hostile:root</id><title>Hostile Library</title><updated>2026-01-01T00:00:00Z</updated>\n\
         <link rel=\"self\" href=\"/opds\" type=\"application/atom+xml;profile=opds-catalog;kind=acquisition\"/>\n\
         <link rel=\"start\" href=\"/opds\" type=\"application/atom+xml;profile=opds-catalog;kind=acquisition\"/>\n\
         <entry><title>Hostile Book</title><id>urn:hostile:book:1</id><updated>2026-01-01T00:00:00Z</updated>\
         <author><name>Nobody</name></author>\
         <link rel=\"http://opds-spec.org/acquisition\" type=\"application/epub+zip\" href=\"/book.epub\" length=\"{}\"/>\
         </entry>\n</feed>\n",
        epub.len()
    );
    let feed = Arc::new(feed.into_bytes());
    let epub = Arc::new(epub);
    std::thread::spawn(move || {
        for stream in listener.incoming().flatten() {
            let (feed, epub) = (feed.clone(), epub.clone());
            std::thread::spawn(move || serve(stream, &feed, &epub));
        }
    });
    port
}

fn serve(mut stream: TcpStream, feed: &[u8], epub: &[u8]) {
    let _ = stream.set_read_timeout(Some(Duration::from_secs(5)));
    let mut head = Vec::new();
    let mut byte = [0u8; 1];
    while !head.ends_with(b"\r\n\r\n") && head.len() < 16 * 1024 {
        match stream.read(&mut byte) {
            Ok(1) => head.push(byte[0]),
            _ => return,
        }
    }
    let head = String::from_utf8_lossy(&head);
    let mut words = head.split_whitespace();
    let method = words.next().unwrap_or_default();
    let path = words.next().unwrap_or_default();
    let (status, kind, body): (&str, &str, &[u8]) = match path {
        "/opds" => (
            "200 OK",
            "application/atom+xml;profile=opds-catalog;kind=acquisition",
            feed,
        ),
        "/book.epub" => ("200 OK", "application/epub+zip", epub),
        _ => ("404 Not Found", "text/plain", b"not here"),
    };
    let _ = write!(
        stream,
        "HTTP/1.1 {status}\r\nContent-Type: {kind}\r\nContent-Length: {}\r\nConnection: close\r\n\r\n",
        body.len()
    );
    if method != "HEAD" {
        let _ = stream.write_all(body);
    }
    let _ = stream.flush();
}

#[test]
fn a_hostile_epub_renders_without_reaching_the_ipc_or_the_network() {
    let case = TestCase::start();
    let (trap, hits) = tripwire();
    let port = hostile_server(hostile_epub(trap));
    let app = launch(&case);
    add_server(
        &app,
        "Hostile Library",
        &format!("http://127.0.0.1:{port}/opds"),
    );
    let servers_before = invoke(&app, "list_servers", json!({}));
    assert_eq!(
        servers_before["ok"].as_array().map(Vec::len),
        Some(1),
        "{servers_before}"
    );

    let id = open_details(&app, "Hostile Book", false);
    open_reader(&app, id);
    let text = wait_for_section_text(&app, HOSTILE_TEXT);
    assert!(text.contains("Chapter One"), "{text}");
    // Whatever the chapter could have started has had time to arrive.
    std::thread::sleep(Duration::from_secs(4));
    assert_eq!(
        hits.load(Ordering::SeqCst),
        0,
        "the book reached the network"
    );
    let ran = app
        .execute(
            "const doc = document.querySelector('foliate-view').renderer.getContents()[0].doc;
             return doc.body.getAttribute('data-ran');",
            vec![],
        )
        .unwrap();
    assert_eq!(ran, Value::Null, "the book's script ran");
    let servers_after = invoke(&app, "list_servers", json!({}));
    assert_eq!(servers_after, servers_before, "the server list changed");
    app.close().unwrap();
}

// ---- a book reaching other books -------------------------------------------------------------

/// An EPUB whose sections point at other books through Carrel's own protocols: a chapter with
/// pages of books 1 to 4 in `<img>` and their covers in CSS; a chapter whose declared type
/// foliate-js does not recognise (so it reaches the frame as the book's own bytes, a Blob); and
/// an SVG page — each also tries to fetch a page from a script.
fn book_reaching_other_books(trap: u16) -> Vec<u8> {
    let opf = "<?xml version=\"1.0\" encoding=\"utf-8\"?>\n\
        <package xmlns=\"http://www.idpf.org/2007/opf\" version=\"3.0\" unique-identifier=\"uid\">\n\
        <metadata xmlns:dc=\"http://purl.org/dc/elements/1.1/\"><dc:identifier id=\"uid\">urn:reacher:1</dc:identifier>\
        <dc:title>Reaching Book</dc:title><dc:language>en</dc:language>\
        <meta property=\"dcterms:modified\">2026-01-01T00:00:00Z</meta></metadata>\n\
        <manifest><item id=\"nav\" href=\"nav.xhtml\" media-type=\"application/xhtml+xml\" properties=\"nav\"/>\
        <item id=\"css\" href=\"style.css\" media-type=\"text/css\"/>\
        <item id=\"c1\" href=\"chapter.xhtml\" media-type=\"application/xhtml+xml\"/>\
        <item id=\"c2\" href=\"bytes.xhtml\" media-type=\"application/xhtml+xml; charset=utf-8\"/>\
        <item id=\"c3\" href=\"page.svg\" media-type=\"image/svg+xml\"/></manifest>\n\
        <spine><itemref idref=\"c1\"/><itemref idref=\"c2\"/><itemref idref=\"c3\"/></spine>\n</package>\n";
    let nav = "<?xml version=\"1.0\" encoding=\"utf-8\"?>\n<html xmlns=\"http://www.w3.org/1999/xhtml\" xmlns:epub=\"http://www.idpf.org/2007/ops\">\
        <head><title>Contents</title></head><body><nav epub:type=\"toc\"><ol><li><a href=\"chapter.xhtml\">One</a></li></ol></nav></body></html>\n";
    let mut images = String::new();
    let mut css = String::new();
    for id in 1..=4 {
        images.push_str(&format!("<img src=\"carrel-page://localhost/{id}/0\" alt=\"\"/><img src=\"carrel-page://localhost/{id}/1\" alt=\"\"/>"));
        css.push_str(&format!(
            ".c{id} {{ background-image: url(carrel-cover://localhost/{id}); }}\n"
        ));
    }
    let chapter = format!(
        "<?xml version=\"1.0\" encoding=\"utf-8\"?>\n<html xmlns=\"http://www.w3.org/1999/xhtml\">\
         <head><title>One</title><link rel=\"stylesheet\" href=\"style.css\"/>\
         <style>.s {{ background-image: url(carrel-page://localhost/2/2); }}</style></head>\
         <body><h1>Chapter One</h1><p class=\"s\">{REACHING_TEXT}.</p>{images}\
         <p><a id=\"out\" href=\"http://127.0.0.1:{trap}/followed\">a link to the web</a></p>\
         <div class=\"c1\">a</div><div class=\"c2\">b</div><div class=\"c3\">c</div><div class=\"c4\">d</div>\
         </body></html>\n"
    );
    let bytes_chapter = format!(
        "<?xml version=\"1.0\" encoding=\"utf-8\"?>\n<html xmlns=\"http://www.w3.org/1999/xhtml\">\
         <head><title>Two</title><style>body {{ background-image: url(carrel-cover://localhost/1); }}</style></head>\
         <body><h1>Chapter Two</h1><p>{BYTES_TEXT}.</p>\
         <img src=\"carrel-page://localhost/1/2\" alt=\"\"/><img src=\"carrel-page://localhost/2/2\" alt=\"\"/>\
         {}</body></html>\n",
        page_fetching_script(1)
    );
    let svg_page = format!(
        "<?xml version=\"1.0\" encoding=\"utf-8\"?>\n\
         <svg xmlns=\"http://www.w3.org/2000/svg\" xmlns:xlink=\"http://www.w3.org/1999/xlink\" viewBox=\"0 0 100 100\">\
         <style>rect {{ fill: url(carrel-page://localhost/1/3); }} svg {{ background-image: url(carrel-cover://localhost/2); }}</style>\
         <image xlink:href=\"carrel-page://localhost/2/3\" width=\"50\" height=\"50\"/>\
         <image href=\"carrel-page://localhost/1/1\" x=\"50\" width=\"50\" height=\"50\"/>\
         <foreignObject width=\"100\" height=\"100\"><div xmlns=\"http://www.w3.org/1999/xhtml\">\
         <img src=\"carrel-page://localhost/2/1\" alt=\"\"/></div></foreignObject>\
         <rect width=\"10\" height=\"10\"/>{}</svg>\n",
        page_fetching_script(2)
    );
    epub_zip(&[
        ("content.opf", opf),
        ("nav.xhtml", nav),
        ("style.css", &css),
        ("chapter.xhtml", &chapter),
        ("bytes.xhtml", &bytes_chapter),
        ("page.svg", &svg_page),
    ])
}

const REACHING_TEXT: &str = "This chapter reaches for other books";
const BYTES_TEXT: &str = "This chapter arrives as the book's bytes";

/// A script that tries to have Carrel fetch a page of book `id`.
fn page_fetching_script(id: u32) -> String {
    format!(
        "<script>\n//<![CDATA[\n\
         try {{ fetch('carrel-page://localhost/{id}/3'); }} catch (e) {{}}\n\
         try {{ new Image().src = 'carrel-page://localhost/{id}/3'; }} catch (e) {{}}\n\
         //]]>\n</script>"
    )
}

#[test]
fn a_book_cannot_make_carrel_download_another_book() {
    let case = TestCase::start();
    // The other books: comics on the fixture server, listed (so they have ids) but never opened.
    let server = Server::start(Config {
        books: 3,
        comic_pages: [(1, 4), (2, 4)].into(),
        ..Default::default()
    })
    .unwrap();
    let (trap, hits) = tripwire();
    let port = hostile_server(book_reaching_other_books(trap));
    let app = launch(&case);
    add_server(&app, "Fixture", &server.url("/opds"));
    let comic = open_details(&app, "", true);
    assert!(comic > 0);
    add_server(
        &app,
        "Hostile Library",
        &format!("http://127.0.0.1:{port}/opds"),
    );
    let servers = invoke(&app, "list_servers", json!({}));
    let hostile = servers["ok"]
        .as_array()
        .and_then(|all| all.iter().find(|s| s["name"] == "Hostile Library"))
        .and_then(|s| s["id"].as_i64())
        .expect("the hostile server is listed");
    // The app's own requests (covers of the grid) are done; from here on nothing may reach
    // the fixture server's books.
    std::thread::sleep(Duration::from_secs(2));
    server.reset_stats();
    app.wait_for(&format!(
        "{}[data-server-id=\"{hostile}\"] {}",
        sel("server-item"),
        sel("server-open")
    ))
    .unwrap()
    .click()
    .unwrap();
    let id = open_tile_details(&app, "the reaching book in the grid", "Hostile Book");
    open_reader(&app, id);
    wait_for_section_text(&app, REACHING_TEXT);
    // Whatever the chapter could have started has had time to arrive.
    std::thread::sleep(Duration::from_secs(4));
    let reached = reached_books(&server);
    assert!(
        reached.is_empty(),
        "the book made Carrel fetch another book's parts: {reached:?}"
    );
    // A link to the web in the book is not followed: no request, no new window.
    let windows = || {
        app.command("GET", "/window/handles", None, "window handles")
            .unwrap()
            .as_array()
            .map_or(0, Vec::len)
    };
    let windows_before = windows();
    let url_before = app.url().unwrap();
    // What the reader does with the link is seen: the link event, and any window.open.
    let seen = app
        .execute_async(
            "const done = arguments[arguments.length - 1];
             const view = document.querySelector('foliate-view');
             const links = [];
             const opened = [];
             view.addEventListener('external-link', (e) => links.push(e.detail.href));
             const open = window.open;
             window.open = (url) => { opened.push(String(url)); return null; };
             view.renderer.getContents()[0].doc.getElementById('out').click();
             setTimeout(() => { window.open = open; done({ links, opened }); }, 1000);",
            vec![],
        )
        .unwrap();
    assert_eq!(
        seen["links"].as_array().map(Vec::len),
        Some(1),
        "the click reached the reader: {seen}"
    );
    assert_eq!(
        seen["opened"],
        json!([]),
        "the reader opened the book's link: {seen}"
    );
    std::thread::sleep(Duration::from_secs(1));
    assert_eq!(
        hits.load(Ordering::SeqCst),
        0,
        "the book's link was followed"
    );
    assert_eq!(windows(), windows_before, "the book's link opened a window");
    assert_eq!(
        app.url().unwrap(),
        url_before,
        "the book's link navigated the window"
    );

    // The chapter foliate-js hands over as the book's bytes (a type it does not recognise)…
    app.execute_async(
        "const done = arguments[arguments.length - 1];
         document.querySelector('foliate-view').goTo(1).then(() => done(null), () => done(null));",
        vec![],
    )
    .unwrap();
    wait_for_section_text(&app, BYTES_TEXT);
    std::thread::sleep(Duration::from_secs(4));
    let reached = reached_books(&server);
    assert!(
        reached.is_empty(),
        "a chapter handed over as the book's bytes made Carrel fetch another book's parts: {reached:?}"
    );
    // …and the SVG page (foliate-js lays out no SVG in a reflowing book, so the test waits for
    // the frame to hold it rather than for the view to settle).
    app.execute(
        "document.querySelector('foliate-view').goTo(2); return null;",
        vec![],
    )
    .unwrap();
    app.wait_until("the SVG page in its frame", default_timeout(), |_| {
        let root = app.execute(
            "const view = document.querySelector('foliate-view');
             const doc = view.renderer.getContents()[0]?.doc;
             return doc && doc.documentElement ? doc.documentElement.localName : null;",
            vec![],
        )?;
        Ok((root == json!("svg")).then_some(()))
    })
    .unwrap();
    std::thread::sleep(Duration::from_secs(4));
    let reached = reached_books(&server);
    assert!(
        reached.is_empty(),
        "an SVG page made Carrel fetch another book's parts: {reached:?}"
    );

    let downloads = invoke(&app, "list_downloads", json!({}));
    let queued = downloads["ok"]["queue"]
        .as_array()
        .map(Vec::len)
        .unwrap_or(0);
    assert_eq!(queued, 0, "nothing queued: {downloads}");
    assert!(
        downloads["ok"]["active"].is_null(),
        "nothing downloading: {downloads}"
    );
    app.close().unwrap();
    server.stop();
}

/// The fixture's book addresses the app asked for since the last reset.
fn reached_books(server: &fixture_server::RunningServer) -> Vec<String> {
    let stats = server.stats();
    stats
        .clients
        .values()
        .flat_map(|c| c.hits.keys())
        .filter(|u| u.starts_with("/books/"))
        .cloned()
        .collect()
}

// ---- turning pages, columns, the reading settings --------------------------------------------

/// Words enough for a few two-column spreads.
fn paragraphs(chapter: &str, count: usize) -> String {
    (1..=count)
        .map(|n| {
            format!(
                "<p>{chapter}, paragraph {n}. The reader turns the page and the text goes on in the \
                 next column, one line after another, until the chapter comes to its end and the \
                 next one begins at the top of a new page, as a printed book would have it.</p>"
            )
        })
        .collect()
}

/// An EPUB of three chapters, each a few spreads long; the first links to the third, the second
/// starts with a page break before its heading (as calibre's conversions write them).
fn three_chapter_book() -> Vec<u8> {
    let opf = "<?xml version=\"1.0\" encoding=\"utf-8\"?>\n\
        <package xmlns=\"http://www.idpf.org/2007/opf\" version=\"3.0\" unique-identifier=\"uid\">\n\
        <metadata xmlns:dc=\"http://purl.org/dc/elements/1.1/\"><dc:identifier id=\"uid\">urn:three:1</dc:identifier>\
        <dc:title>Three Chapters</dc:title><dc:language>en</dc:language>\
        <meta property=\"dcterms:modified\">2026-01-01T00:00:00Z</meta></metadata>\n\
        <manifest><item id=\"nav\" href=\"nav.xhtml\" media-type=\"application/xhtml+xml\" properties=\"nav\"/>\
        <item id=\"css\" href=\"style.css\" media-type=\"text/css\"/>\
        <item id=\"c1\" href=\"one.xhtml\" media-type=\"application/xhtml+xml\"/>\
        <item id=\"c2\" href=\"two.xhtml\" media-type=\"application/xhtml+xml\"/>\
        <item id=\"c3\" href=\"three.xhtml\" media-type=\"application/xhtml+xml\"/></manifest>\n\
        <spine><itemref idref=\"c1\"/><itemref idref=\"c2\"/><itemref idref=\"c3\"/></spine>\n</package>\n";
    let nav = "<?xml version=\"1.0\" encoding=\"utf-8\"?>\n<html xmlns=\"http://www.w3.org/1999/xhtml\" xmlns:epub=\"http://www.idpf.org/2007/ops\">\
        <head><title>Contents</title></head><body><nav epub:type=\"toc\"><ol>\
        <li><a href=\"one.xhtml\">One</a></li><li><a href=\"two.xhtml\">Two</a></li><li><a href=\"three.xhtml\">Three</a></li>\
        </ol></nav></body></html>\n";
    let css = ".calibre { display: block; margin: 0 5pt; padding: 0; }\n\
        .chapter { page-break-before: always; }\n";
    let chapter = |title: &str, heading_class: &str, extra: &str, end: &str| {
        format!(
            "<?xml version=\"1.0\" encoding=\"utf-8\"?>\n<html xmlns=\"http://www.w3.org/1999/xhtml\" xmlns:epub=\"http://www.idpf.org/2007/ops\">\
             <head><title>{title}</title><link rel=\"stylesheet\" type=\"text/css\" href=\"style.css\"/></head>\
             <body class=\"calibre\"><h1 class=\"{heading_class}\">Chapter {title}</h1>{extra}{}{end}</body></html>\n",
            paragraphs(&format!("Chapter {title}"), 40)
        )
    };
    // Chapter one has a footnote: its reference near the top, the note itself at the end.
    let one = chapter(
        "One",
        "",
        "<p>Skip ahead: <a id=\"jump\" href=\"three.xhtml\">to chapter three</a>.</p>\
         <p>A claim worth a source<a id=\"noteref\" epub:type=\"noteref\" href=\"#note1\">1</a>.</p>",
        "<aside id=\"note1\" epub:type=\"footnote\"><p>The footnote's own words.</p></aside>",
    );
    let two = chapter("Two", "chapter", "", "");
    let three = chapter("Three", "", "", "");
    epub_zip(&[
        ("content.opf", opf),
        ("nav.xhtml", nav),
        ("style.css", css),
        ("one.xhtml", &one),
        ("two.xhtml", &two),
        ("three.xhtml", &three),
    ])
}

/// The fixture server with `three_chapter_book` as its one book, open in the reader, in a
/// window wide enough for two columns.
fn open_three_chapters() -> (TestCase, fixture_server::RunningServer, App) {
    let case = TestCase::start();
    let config = Config {
        books: 1,
        files: [(
            1,
            given_file("application/epub+zip", "epub", three_chapter_book()),
        )]
        .into(),
        ..Config::default()
    };
    let (server, app) = app_on_server(&case, config, "Fixture Library", Some((1400.0, 900.0)));
    let title = server.book(1).unwrap().title;
    let id = open_details(&app, &title, true);
    open_reader(&app, id);
    wait_for_section_text(&app, "Chapter One");
    (case, server, app)
}

/// Where the section's first heading is, from the left of the book's view, and the view's
/// width: `[x, width, heading]`.
fn heading_at(app: &App) -> (f64, f64, String) {
    let got = app
        .wait_until("a heading laid out", default_timeout(), |c| {
            let v = c.execute(
                "const view = document.querySelector('foliate-view');
                 const contents = view.renderer.getContents();
                 const doc = contents[0] && contents[0].doc;
                 const h = doc && doc.querySelector('h1');
                 if (!h) return null;
                 const frame = doc.defaultView.frameElement.getBoundingClientRect();
                 const box = h.getBoundingClientRect();
                 const at = view.getBoundingClientRect();
                 return [frame.left + box.left - at.left, at.width, h.textContent];",
                vec![],
            )?;
            Ok((!v.is_null()).then_some(v))
        })
        .unwrap();
    (
        got[0].as_f64().unwrap(),
        got[1].as_f64().unwrap(),
        got[2].as_str().unwrap().to_string(),
    )
}

/// Waits for the section showing `heading` to be laid out, then for the view to settle.
fn settled_on(app: &App, heading: &str) -> (f64, f64) {
    wait_for_section_text(app, heading);
    std::thread::sleep(Duration::from_millis(700));
    let (x, width, text) = heading_at(app);
    assert_eq!(text, heading);
    (x, width)
}

/// In two columns, every chapter starts at the top of the left one: opened, reached by turning
/// pages, or chosen in the contents — with or without a page break before its heading.
#[test]
fn every_chapter_starts_in_the_left_column_of_a_spread() {
    let (_case, server, app) = open_three_chapters();
    let columns = app
        .execute(
            "return document.querySelector('foliate-view').renderer.columnCount;",
            vec![],
        )
        .unwrap();
    assert_eq!(columns, json!(2), "two columns in a wide window");

    let (x, width) = settled_on(&app, "Chapter One");
    assert!(
        (0.0..width / 2.0).contains(&x),
        "chapter one starts in the left column: x {x} of {width}"
    );
    // Turned page by page into chapter two.
    let mut turns = 0;
    while !section_text(&app).contains("Chapter Two") {
        app.find(&sel("epub-next")).unwrap().click().unwrap();
        std::thread::sleep(Duration::from_millis(250));
        turns += 1;
        assert!(turns < 30, "chapter two never came");
    }
    let (x, width) = settled_on(&app, "Chapter Two");
    assert!(
        (0.0..width / 2.0).contains(&x),
        "chapter two (a page break before its heading) starts in the left column: x {x} of {width}"
    );
    for (entry, heading) in [(2, "Chapter Three"), (1, "Chapter Two"), (0, "Chapter One")] {
        app.find(&sel("epub-toc-toggle")).unwrap().click().unwrap();
        let entries = app.find_all(&sel("toc-entry")).unwrap();
        entries[entry].click().unwrap();
        let (x, width) = settled_on(&app, heading);
        assert!(
            (0.0..width / 2.0).contains(&x),
            "{heading} from the contents starts in the left column: x {x} of {width}"
        );
    }
    app.close().unwrap();
    server.stop();
}

/// The contents mark the chapter being read, and follow it when another is opened.
#[test]
fn the_contents_mark_the_chapter_being_read() {
    let (_case, server, app) = open_three_chapters();
    settled_on(&app, "Chapter One");
    let marked = |app: &App| -> Vec<usize> {
        app.find(&sel("epub-toc-toggle")).unwrap().click().unwrap();
        app.wait_for_displayed(&sel("epub-toc")).unwrap();
        let entries = app.find_all(&sel("toc-entry")).unwrap();
        entries
            .iter()
            .enumerate()
            .filter(|(_, e)| e.attribute("aria-current").unwrap().as_deref() == Some("location"))
            .map(|(i, _)| i)
            .collect()
    };
    assert_eq!(marked(&app), [0], "chapter one is marked");
    app.find_all(&sel("toc-entry")).unwrap()[2].click().unwrap();
    settled_on(&app, "Chapter Three");
    assert_eq!(marked(&app), [2], "chapter three is marked once it is read");
    app.close().unwrap();
    server.stop();
}

/// A real mouse click at `(x, y)` in the window (into the book's frame when it is there).
fn click_at(app: &App, x: f64, y: f64) {
    mouse_at(app, x, y, true);
}

/// The book's view on screen: `[left, top, width, height]`.
fn view_rect(app: &App) -> [f64; 4] {
    let v = app
        .execute(
            "const r = document.querySelector('foliate-view').getBoundingClientRect();
             return [r.left, r.top, r.width, r.height];",
            vec![],
        )
        .unwrap();
    [0, 1, 2, 3].map(|i| v[i].as_f64().unwrap())
}

/// Waits until the place shown is no longer `from`; returns the new one once the turn is over
/// (foliate-js takes no other turn for 100 ms after one).
fn moved_from(app: &App, from: &str, what: &str) -> String {
    let now = app
        .wait_until(what, default_timeout(), |_| {
            let now = shown_cfi(app);
            Ok((now != from).then_some(now))
        })
        .unwrap();
    std::thread::sleep(Duration::from_millis(400));
    now
}

/// The fraction of the book read, as the reader says it.
fn fraction(app: &App) -> f64 {
    app.execute(
        "const view = document.querySelector('foliate-view');
         return view.lastLocation ? view.lastLocation.fraction : -1;",
        vec![],
    )
    .unwrap()
    .as_f64()
    .unwrap()
}

/// A click on the right of the page turns it, on the left turns back, in the middle hides and
/// shows the bars; the reader's keys work after a click in the page (whose frame then has the
/// focus); a click on a link in the book follows it.
#[test]
fn clicks_on_the_page_turn_it_and_the_keys_work_after_them() {
    let (_case, server, app) = open_three_chapters();
    std::thread::sleep(Duration::from_millis(700));
    let [left, top, width, height] = view_rect(&app);
    let middle_y = top + height / 2.0;

    let start = shown_cfi(&app);
    click_at(&app, left + width * 0.9, middle_y);
    let after_right = moved_from(&app, &start, "a click on the right to turn the page");
    assert!(fraction(&app) > 0.0, "forward, not back");
    // The click left the focus in the book's frame: the keys still turn pages.
    let mut at = after_right;
    for (key, name) in [
        ("\u{E014}", "→"),
        ("\u{E00D}", "Space"),
        ("\u{E00F}", "Page Down"),
        ("\u{E015}", "↓"),
    ] {
        let before = fraction(&app);
        press(&app, &[key]);
        at = moved_from(&app, &at, &format!("{name} to turn the page"));
        assert!(fraction(&app) > before, "{name} went forward");
    }
    let before = fraction(&app);
    click_at(&app, left + width * 0.1, middle_y);
    at = moved_from(&app, &at, "a click on the left to turn back");
    assert!(fraction(&app) < before, "a click on the left goes back");
    press(&app, &["\u{E012}"]); // ←
    at = moved_from(&app, &at, "← to turn back");

    // The middle: the bars go, and come back; the text is laid out again for the room, at the
    // same place.
    let before = fraction(&app);
    assert!(app.find(&sel("epub-back")).unwrap().is_visible().unwrap());
    click_at(&app, left + width / 2.0, middle_y);
    app.wait_until("the bars to hide", Duration::from_secs(3), |_| {
        Ok((!app.find(&sel("epub-back"))?.is_visible()?).then_some(()))
    })
    .unwrap();
    std::thread::sleep(Duration::from_millis(500));
    assert!(
        (fraction(&app) - before).abs() < 0.05,
        "a click in the middle turns no page: {before} -> {} ({at})",
        fraction(&app)
    );
    std::thread::sleep(Duration::from_millis(800));
    let [left, top, width, height] = view_rect(&app);
    click_at(&app, left + width / 2.0, top + height / 2.0);
    app.wait_until("the bars to come back", Duration::from_secs(3), |_| {
        Ok(app.find(&sel("epub-back"))?.is_visible()?.then_some(()))
    })
    .unwrap();

    // Back to the start, where the link is: a click on it goes to chapter three.
    app.find(&sel("epub-toc-toggle")).unwrap().click().unwrap();
    app.find_all(&sel("toc-entry")).unwrap()[0].click().unwrap();
    wait_for_section_text(&app, "Chapter One");
    std::thread::sleep(Duration::from_millis(700));
    let link = app
        .execute(
            "const view = document.querySelector('foliate-view');
             const doc = view.renderer.getContents()[0].doc;
             const box = doc.getElementById('jump').getBoundingClientRect();
             const frame = doc.defaultView.frameElement.getBoundingClientRect();
             return [frame.left + box.left + box.width / 2, frame.top + box.top + box.height / 2];",
            vec![],
        )
        .unwrap();
    click_at(&app, link[0].as_f64().unwrap(), link[1].as_f64().unwrap());
    wait_for_section_text(&app, "Chapter Three");
    app.close().unwrap();
    server.stop();
}

/// WCAG's contrast ratio of the colours of `element`'s text and of what is behind it (its own
/// background over its ancestors' down to an opaque one).
const CONTRAST: &str = "const parse = (c) => {
       const m = c.match(/rgba?\\(([^)]+)\\)/);
       if (!m) return [0, 0, 0, 0];
       const p = m[1].split(/[ ,\\/]+/).filter(Boolean).map(Number);
       return [p[0], p[1], p[2], p.length > 3 ? p[3] : 1];
     };
     const over = (top, under) => {
       const a = top[3] + under[3] * (1 - top[3]);
       if (a === 0) return [0, 0, 0, 0];
       return [0, 1, 2].map((i) => (top[i] * top[3] + under[i] * under[3] * (1 - top[3])) / a).concat([a]);
     };
     const behind = (e) => {
       let colour = [0, 0, 0, 0];
       const layers = [];
       for (let n = e; n && n.nodeType === 1; n = n.parentElement) layers.push(parse(getComputedStyle(n).backgroundColor));
       layers.push([255, 255, 255, 1]);
       for (const layer of layers.reverse()) colour = over(layer, colour);
       return colour;
     };
     const luminance = (c) => {
       const [r, g, b] = c.slice(0, 3).map((v) => { v /= 255; return v <= 0.03928 ? v / 12.92 : Math.pow((v + 0.055) / 1.055, 2.4); });
       return 0.2126 * r + 0.7152 * g + 0.0722 * b;
     };
     const e = arguments[0];
     const back = behind(e);
     const text = over(parse(getComputedStyle(e).color), back);
     const [a, b] = [luminance(text), luminance(back)].sort((x, y) => y - x);
     return (a + 0.05) / (b + 0.05);";

/// The Font choice in the reading settings is readable in the light, sepia and dark themes and
/// under either look of the app: each choice its own control, text well apart from its ground,
/// and native parts drawn for the panel's dark ground.
#[test]
fn the_font_choice_is_readable_in_every_theme() {
    let (_case, server, app) = open_three_chapters();
    open_reading_settings(&app);
    for look in ["light", "dark"] {
        app.execute(
            "document.documentElement.dataset.theme = arguments[0];",
            vec![json!(look)],
        )
        .unwrap();
        for theme in ["light", "sepia", "dark"] {
            pick_theme(&app, theme);
            let choices = app
                .find_all(&format!("{} button", sel("epub-font")))
                .unwrap();
            assert_eq!(
                choices.len(),
                4,
                "each font a choice of its own on the panel ({look} app, {theme} book)"
            );
            for choice in &choices {
                let label = choice.inner_text().unwrap();
                assert!(choice.is_visible().unwrap(), "{label} is shown");
                let ratio = app
                    .execute(CONTRAST, vec![choice.as_arg()])
                    .unwrap()
                    .as_f64()
                    .unwrap();
                assert!(
                    ratio >= 4.5,
                    "{label:?} contrast {ratio:.2} in the {look} app, {theme} book"
                );
            }
            let scheme = app
                .execute(
                    "return getComputedStyle(document.querySelector('[data-testid=\"epub-settings\"]')).colorScheme;",
                    vec![],
                )
                .unwrap();
            assert_eq!(
                scheme,
                json!("dark"),
                "native controls drawn for the dark panel ({look} app)"
            );
        }
    }
    // A choice is made with a click and shows as chosen.
    let serif = app
        .find(&format!("{} button[data-font=\"serif\"]", sel("epub-font")))
        .unwrap();
    serif.click().unwrap();
    assert_eq!(
        serif.attribute("aria-pressed").unwrap().as_deref(),
        Some("true")
    );
    app.wait_until("the serif font in the book", default_timeout(), |c| {
        let family = c.execute(
            "const doc = document.querySelector('foliate-view').renderer.getContents()[0].doc;
             return getComputedStyle(doc.body).fontFamily;",
            vec![],
        )?;
        Ok((family.as_str() == Some("serif")).then_some(()))
    })
    .unwrap();
    // A font installed on this computer (as fontconfig lists it) is offered, and chosen it sets
    // the book's text, the serif choice behind it.
    let installed = app
        .wait_until("the installed fonts listed", default_timeout(), |c| {
            let families = c.execute(
                "return [...document.querySelectorAll('[data-testid=\"epub-system-font\"] option')]
                   .map((o) => o.value).filter((v) => v !== '');",
                vec![],
            )?;
            Ok(families
                .as_array()
                .filter(|f| !f.is_empty())
                .map(|f| f[0].as_str().unwrap().to_string()))
        })
        .unwrap();
    app.execute(
        "const select = document.querySelector('[data-testid=\"epub-system-font\"]');
         select.value = arguments[0];
         select.dispatchEvent(new Event('change', { bubbles: true }));",
        vec![json!(installed)],
    )
    .unwrap();
    // Compared without quotes: a name may be serialized quoted or not.
    let wanted = format!("{installed}, serif");
    app.wait_until("the installed font in the book", default_timeout(), |c| {
        let family = c.execute(
            "const doc = document.querySelector('foliate-view').renderer.getContents()[0].doc;
             return getComputedStyle(doc.body).fontFamily;",
            vec![],
        )?;
        let family = family.as_str().unwrap_or_default().replace(['"', '\''], "");
        Ok((family == wanted).then_some(()))
    })
    .unwrap();
    assert_eq!(
        serif.attribute("aria-pressed").unwrap().as_deref(),
        Some("false"),
        "the generic choice no longer shows as the font"
    );
    app.close().unwrap();
    server.stop();
}

// ---- search, highlights and notes ---------------------------------------------------------

/// Ctrl+F searches the whole book: "printed" is in every paragraph of the three chapters (40
/// each); Enter shows the first place, Esc closes the search back where the reader was.
#[test]
fn ctrl_f_finds_every_place_of_a_word_in_the_book() {
    let (_case, server, app) = open_three_chapters();
    let before = settled_cfi(&app);
    // Ctrl held down while F is pressed.
    chord(&app, &[CTRL], &["f"], "press Ctrl+F");
    let field = app.wait_for_displayed(&sel("epub-search-field")).unwrap();
    field.send_keys("printed\u{E007}").unwrap();
    app.wait_for_displayed(&format!("{}[data-count=\"120\"]", sel("epub-search-count")))
        .unwrap();
    let groups = app
        .execute(
            "return [...document.querySelectorAll('[data-testid=\"epub-search\"] h3')].map((h) => h.textContent);",
            vec![],
        )
        .unwrap();
    assert_eq!(groups, json!(["One", "Two", "Three"]));
    field.send_keys("\u{E007}").unwrap();
    app.wait_for_displayed(&format!(
        "{}[aria-current=\"true\"]",
        sel("epub-search-hit")
    ))
    .unwrap();
    // The place shown is filled in a colour of its own; the others are only outlined.
    assert_eq!(search_marks(&app, "[fill=\"#f97316\"]"), 1);
    assert!(search_marks(&app, "[fill=\"none\"]") > 1);
    // The sixth place (paragraph 6, in the right column) shown for the README's picture.
    field
        .send_keys("\u{E007}\u{E007}\u{E007}\u{E007}\u{E007}")
        .unwrap();
    app.wait_for_text(&sel("epub-search-status"), "6 of 120")
        .unwrap();
    assert_eq!(search_marks(&app, "[fill=\"#f97316\"]"), 1);
    save_docs_screenshot(&app, "epub-search.png").unwrap();
    field.send_keys("\u{E00C}").unwrap(); // Esc
    app.wait_for_hidden(&sel("epub-search")).unwrap();
    app.wait_until("back where the reader was", default_timeout(), |_| {
        Ok((shown_cfi(&app) == before).then_some(()))
    })
    .unwrap();
    app.close().unwrap();
    server.stop();
}

/// How many of the overlayer's drawings on the pages shown match `selector` (once there is one).
fn search_marks(app: &App, selector: &str) -> u64 {
    app.wait_until(
        &format!("the search marks {selector}"),
        default_timeout(),
        |_| {
            let count = app.execute(
                "const view = document.querySelector('foliate-view');
                 let n = 0;
                 for (const c of view.renderer.getContents())
                   if (c.overlayer && c.overlayer.element) n += c.overlayer.element.querySelectorAll('g' + arguments[0]).length;
                 return n;",
                vec![json!(selector)],
            )?;
            Ok(count.as_u64().filter(|n| *n > 0))
        },
    )
    .unwrap()
}

/// A note reference in the text opens its note over the page, and the page stays where it was.
#[test]
fn a_footnote_link_opens_the_note_in_a_popup() {
    let (_case, server, app) = open_three_chapters();
    let before = shown_cfi(&app);
    app.execute(
        "const view = document.querySelector('foliate-view');
         const doc = view.renderer.getContents()[0].doc;
         doc.getElementById('noteref').click();",
        vec![],
    )
    .unwrap();
    app.wait_for_displayed(&sel("epub-footnote")).unwrap();
    // The note is drawn by a view of its own inside the popup: its text is the note's alone.
    let note = app
        .wait_until("the note's text in the popup", default_timeout(), |_| {
            let text = app.execute(
                "const view = document.querySelector('[data-testid=\"epub-footnote\"] foliate-view');
                 const contents = view && view.renderer && view.renderer.getContents ? view.renderer.getContents() : [];
                 const doc = contents[0] && contents[0].doc;
                 return doc && doc.body ? doc.body.textContent : '';",
                vec![],
            )?;
            let text = text.as_str().unwrap_or_default().to_string();
            Ok(text.contains("The footnote's own words").then_some(text))
        })
        .unwrap();
    assert!(!note.contains("Chapter One, paragraph"), "{note}");
    // The note is at the chapter's end: the book's own view (after the popup's in the page)
    // stays where it was.
    let after = app
        .execute(
            "return document.querySelector('[data-testid=\"epub-stage\"] foliate-view').lastLocation.cfi;",
            vec![],
        )
        .unwrap();
    assert_eq!(
        after.as_str(),
        Some(before.as_str()),
        "the page did not move to the note"
    );
    click_to_hide(&app, "epub-footnote-close", "epub-footnote");
    app.close().unwrap();
    server.stop();
}

/// Selects `words` in the first paragraph shown that has them, as a drag would, and lets the
/// reader know (the highlight popover opens).
fn select_in_section(app: &App, words: &str) {
    app.execute(
        "const view = document.querySelector('foliate-view');
         const doc = view.renderer.getContents()[0].doc;
         const words = arguments[0];
         const p = [...doc.querySelectorAll('p')].find((p) => p.textContent.includes(words));
         const text = p.firstChild;
         const start = text.textContent.indexOf(words);
         const range = doc.createRange();
         range.setStart(text, start);
         range.setEnd(text, start + words.length);
         const selection = doc.getSelection();
         selection.removeAllRanges();
         selection.addRange(range);
         doc.dispatchEvent(new PointerEvent('pointerup', { bubbles: true }));",
        vec![json!(words)],
    )
    .unwrap();
}

/// Bookmarks and highlights are the book's, not its file's: removed from the device and
/// downloaded again, the book still has them, listed, and in the Markdown export.
#[test]
fn a_bookmark_and_a_highlight_survive_removing_the_book_and_downloading_it_again() {
    let (_case, server, app) = open_three_chapters();
    let id = book_id_of(&app, &sel("epub-reader"));
    chord(&app, &[CTRL], &["d"], "press Ctrl+D");
    app.wait_for_displayed(&format!("{}[aria-pressed=\"true\"]", sel("epub-bookmark")))
        .unwrap();
    select_in_section(&app, "paragraph 2");
    highlight_with_note(&app, "epub", "Kept by the book", "blue");
    wait_for_annotations(&app, id, "both kept", |list| list.len() == 2);
    close_reader(&app);

    // Removed from the device: its file is gone, its annotations are not.
    let answer = invoke(&app, "remove_book", json!({ "bookId": id }));
    assert!(answer.get("err").is_none(), "{answer}");
    let file_hits = server.stats().hits("/books/1/file");
    // Read again: downloaded again, and the bookmark and the highlight are there.
    open_reader(&app, id);
    assert!(
        server.stats().hits("/books/1/file") > file_hits,
        "the book was downloaded again"
    );
    app.find(&sel("epub-annotations-toggle"))
        .unwrap()
        .click()
        .unwrap();
    app.wait_for_displayed(&sel("epub-annotations")).unwrap();
    let kinds: Vec<String> = app
        .find_all(&sel("epub-annotation"))
        .unwrap()
        .iter()
        .map(|a| a.attribute("data-kind").unwrap().unwrap_or_default())
        .collect();
    let mut sorted = kinds.clone();
    sorted.sort();
    assert_eq!(sorted, ["bookmark", "highlight"], "{kinds:?}");
    assert_eq!(listed_note(&app, "epub"), "Kept by the book");
    let markdown = exported_markdown(&app, "epub");
    assert!(markdown.contains("paragraph 2"), "{markdown}");
    assert!(markdown.contains("Kept by the book"), "{markdown}");
    app.close().unwrap();
    server.stop();
}

/// Text selected gets the highlight popover; a highlight with a note is kept, listed in the
/// panel and drawn again when the book is opened again.
#[test]
fn a_highlight_with_a_note_survives_closing_and_reopening_the_book() {
    let (_case, server, app) = open_three_chapters();
    let id = book_id_of(&app, &sel("epub-reader"));
    select_in_section(&app, "paragraph 1");
    highlight_with_note(&app, "epub", "A note kept", "green");
    wait_for_annotations(&app, id, "the highlight saved", |list| {
        list.iter().any(|a| {
            a["note"] == "A note kept" && a["colour"] == "green" && a["quote"] == "paragraph 1"
        })
    });

    close_reader(&app);
    open_reader(&app, id);
    app.find(&sel("epub-annotations-toggle"))
        .unwrap()
        .click()
        .unwrap();
    assert_eq!(listed_note(&app, "epub"), "A note kept");
    // Drawn on the page again: the overlayer holds a highlight.
    app.wait_until("the highlight drawn", default_timeout(), |_| {
        let drawn = app.execute(
            "const view = document.querySelector('foliate-view');
             const contents = view.renderer.getContents();
             return contents.some((c) => c.overlayer && c.overlayer.element && c.overlayer.element.querySelector('g rect'));",
            vec![],
        )?;
        Ok(drawn.as_bool().filter(|b| *b).map(|_| ()))
    })
    .unwrap();
    app.close().unwrap();
    server.stop();
}

/// Text selected from the keyboard alone: Ctrl+Shift+→ selects the first words shown, word by
/// word, and H offers to highlight them; the highlight is kept with its quote.
#[test]
fn text_selected_with_the_keyboard_is_highlighted() {
    let (_case, server, app) = open_three_chapters();
    let id = book_id_of(&app, &sel("epub-reader"));
    shown_cfi(&app);
    chord(
        &app,
        &[CTRL, SHIFT],
        &[RIGHT, RIGHT],
        "press Ctrl+Shift+Right twice",
    );
    let selected = app
        .wait_until("text selected", default_timeout(), |_| {
            let text = app.execute(
                "const view = document.querySelector('[data-testid=\"epub-stage\"] foliate-view');
                 return view.renderer.getContents().map((c) => c.doc.getSelection().toString()).join('');",
                vec![],
            )?;
            let text = text.as_str().unwrap_or_default().trim().to_string();
            Ok((!text.is_empty()).then_some(text))
        })
        .unwrap();
    assert_eq!(selected, "Chapter One");
    highlight_selection(&app, "epub", "yellow");
    wait_for_annotations(&app, id, "the highlight saved", |list| {
        list.iter()
            .any(|a| a["quote"] == "Chapter One" && a["colour"] == "yellow")
    });
    app.close().unwrap();
    server.stop();
}
