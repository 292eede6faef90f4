//! The EPUB reader, end to end: the real window reading EPUBs downloaded from real library
//! servers on loopback — the fixture server's, and a hostile one built here whose chapter tries
//! to reach the app's IPC and the network.
//!
//! Run: `xvfb-run -a dbus-run-session -- cargo test -p carrel-e2e epub:: -- --test-threads=1`
//! after `npm run --prefix ui build && cargo build -p carrel`.

use std::io::{Cursor, Read, Write};
use std::net::{TcpListener, TcpStream};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::Duration;

use carrel_e2e::{default_timeout, save_docs_screenshot, testid, App, TestCase};
use fixture_server::{BookKind, Config, Server};
use serde_json::{json, Value};

fn sel(id: &str) -> String {
    testid(id)
}

fn add_server(app: &App, name: &str, url: &str) {
    carrel_e2e::submit_server_dialog(app, name, url, None).unwrap();
    app.wait_for_hidden(&sel("add-server-dialog")).unwrap();
    app.wait_for_text(&sel("server-item"), name).unwrap();
}

/// Clicks the tile of the book titled `title` (following "All books" first when asked) and
/// waits for its details; returns its id in the app.
fn open_details(app: &App, title: &str, all_books: bool) -> i64 {
    app.wait_for(&sel("server-open")).unwrap().click().unwrap();
    if all_books {
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
    let id: i64 = tile
        .attribute("data-book-id")
        .unwrap()
        .expect("a tile has data-book-id")
        .parse()
        .unwrap();
    tile.click().unwrap();
    app.wait_for_displayed(&format!("{}[data-book-id=\"{id}\"]", sel("book-details")))
        .unwrap();
    id
}

/// The text of the section foliate-js shows, `""` while there is none.
const SECTION_TEXT: &str = "const view = document.querySelector('foliate-view');
     const contents = view && view.renderer && view.renderer.getContents ? view.renderer.getContents() : [];
     const doc = contents[0] && contents[0].doc;
     return doc && doc.body ? doc.body.textContent : '';";

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

fn invoke(app: &App, command: &str, args: Value) -> Value {
    app.execute_async(
        "const done = arguments[arguments.length - 1];
         window.__TAURI_INTERNALS__.invoke(arguments[0], arguments[1])
           .then((v) => done({ ok: v === undefined ? null : v }), (e) => done({ err: e }));",
        vec![json!(command), args],
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

#[test]
fn an_epub_opens_takes_the_dark_theme_and_reopens_at_the_saved_cfi() {
    let case = TestCase::start();
    let server = Server::start(Config {
        books: 3,
        ..Config::default()
    })
    .expect("start the fixture server");
    let book = server
        .books()
        .into_iter()
        .find(|b| b.kind == BookKind::Epub)
        .expect("the fixture has an EPUB");
    let app = case.launch_with(case.options().env("CARREL_SECRETS", "file"));
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
    app.find(&sel("epub-settings-toggle"))
        .unwrap()
        .click()
        .unwrap();
    app.wait_for_displayed(&sel("epub-theme-dark"))
        .unwrap()
        .click()
        .unwrap();
    app.wait_for(&format!(
        "{}[data-theme-choice=\"dark\"]",
        sel("epub-reader")
    ))
    .unwrap();
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
    app.find(&sel("epub-back")).unwrap().click().unwrap();
    app.wait_for_hidden(&sel("epub-reader")).unwrap();

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
    let container = "<?xml version=\"1.0\"?>\n<container version=\"1.0\" xmlns=\"urn:oasis:names:tc:opendocument:xmlns:container\">\n\
        <rootfiles><rootfile full-path=\"OEBPS/content.opf\" media-type=\"application/oebps-package+xml\"/></rootfiles>\n</container>\n";
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
    let mut writer = zip::ZipWriter::new(Cursor::new(Vec::new()));
    let options =
        zip::write::SimpleFileOptions::default().compression_method(zip::CompressionMethod::Stored);
    for (name, data) in [
        ("mimetype", "application/epub+zip".as_bytes()),
        ("META-INF/container.xml", container.as_bytes()),
        ("OEBPS/content.opf", opf.as_bytes()),
        ("OEBPS/nav.xhtml", nav.as_bytes()),
        ("OEBPS/chapter.xhtml", chapter.as_bytes()),
    ] {
        writer.start_file(name, options).unwrap();
        writer.write_all(data).unwrap();
    }
    writer.finish().unwrap().into_inner()
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
    let app = case.launch_with(case.options().env("CARREL_SECRETS", "file"));
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
    let container = "<?xml version=\"1.0\"?>\n<container version=\"1.0\" xmlns=\"urn:oasis:names:tc:opendocument:xmlns:container\">\n\
        <rootfiles><rootfile full-path=\"OEBPS/content.opf\" media-type=\"application/oebps-package+xml\"/></rootfiles>\n</container>\n";
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
    let mut writer = zip::ZipWriter::new(Cursor::new(Vec::new()));
    let options =
        zip::write::SimpleFileOptions::default().compression_method(zip::CompressionMethod::Stored);
    for (name, data) in [
        ("mimetype", "application/epub+zip".as_bytes()),
        ("META-INF/container.xml", container.as_bytes()),
        ("OEBPS/content.opf", opf.as_bytes()),
        ("OEBPS/nav.xhtml", nav.as_bytes()),
        ("OEBPS/style.css", css.as_bytes()),
        ("OEBPS/chapter.xhtml", chapter.as_bytes()),
        ("OEBPS/bytes.xhtml", bytes_chapter.as_bytes()),
        ("OEBPS/page.svg", svg_page.as_bytes()),
    ] {
        writer.start_file(name, options).unwrap();
        writer.write_all(data).unwrap();
    }
    writer.finish().unwrap().into_inner()
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
    let app = case.launch_with(case.options().env("CARREL_SECRETS", "file"));
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
    let tile = app
        .wait_until("the reaching book in the grid", default_timeout(), |_| {
            for tile in app.find_all(&sel("catalog-book"))? {
                if tile.inner_text()?.contains("Hostile Book") {
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
    tile.click().unwrap();
    app.wait_for_displayed(&format!("{}[data-book-id=\"{id}\"]", sel("book-details")))
        .unwrap();
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
