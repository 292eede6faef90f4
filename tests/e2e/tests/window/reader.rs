//! The comic reader, end to end: the real window reading a comic from a real library server (the
//! in-process `fixture-server`) with nothing downloaded yet, and the end card that leads from a
//! book to the next of its series (and from its start to the one before).
//!
//! Run: `xvfb-run -a dbus-run-session -- cargo test -p carrel-e2e reader:: -- --test-threads=1`
//! after `npm run --prefix ui build && cargo build -p carrel`.

use std::time::{Duration, Instant};

use carrel_e2e::{default_timeout, save_docs_screenshot, App, TestCase};
use fixture_server::{Config, Faults, RunningServer, Server};
use serde_json::json;

use crate::support::{
    add_server, app_on_server, given_file, make_test_pdf, mouse_at, open_comic_reader,
    open_details, open_details_after, page_indicator, press, sel, start_server,
    wait_for_painted_page,
};

const BOOK: u32 = 1;
const PAGES: u32 = 60;
/// Fixture book `BOOK` a comic of `pages` pages, streamed page by page, and no other book.
fn comic(pages: u32) -> Config {
    Config {
        books: 1,
        comic_pages: [(BOOK, pages)].into(),
        ..Config::default()
    }
}

/// [`comic`] offered only as a CBZ file (no page streaming), as calibre offers comics.
fn whole_file_comic(pages: u32) -> Config {
    Config {
        behavior: fixture_server::Behavior {
            whole_file_comics: true,
            ..Default::default()
        },
        ..comic(pages)
    }
}

/// Fixture book `BOOK` the PDF `pdf`, among three books.
fn pdf_book(pdf: Vec<u8>) -> Config {
    Config {
        books: 3,
        files: [(BOOK, given_file("application/pdf", "pdf", pdf))].into(),
        ..Config::default()
    }
}

/// The app on a fixture server started with `config`, added as `name` (the window `size`
/// when given), and the details of fixture book `BOOK` open: the server, the app and the
/// book's id in the app.
fn book_details(
    case: &TestCase,
    config: Config,
    name: &str,
    size: Option<(f64, f64)>,
) -> (RunningServer, App, i64) {
    let (server, app) = app_on_server(case, config, name, size);
    let title = server.book(BOOK).unwrap().title;
    let id = open_details(&app, &title, true);
    (server, app, id)
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
#[test]
fn reading_a_comic_at_page_41_fetches_that_page_first_and_shows_it() {
    let case = TestCase::start();
    // Every page answer 300 ms late: the order in which pages are asked for is easy to see.
    let (server, app) = app_on_server(
        &case,
        Config {
            faults: Faults {
                latency_ms: 300,
                path_prefix: Some(format!("/books/{BOOK}/pages/")),
                ..Faults::default()
            },
            ..comic(PAGES)
        },
        "Fixture Library",
        None,
    );
    let title = server.book(BOOK).unwrap().title;
    // The reader stopped at page 41 last time (0-based 40); nothing is downloaded.
    let id = open_details_after(&app, &title, true, |id| {
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
    app.wait_for_text(&sel("read-book"), "Continue reading")
        .unwrap();
    assert!(
        pages_asked(&server).is_empty(),
        "no page was asked for before reading"
    );

    open_comic_reader(&app, id);

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
    assert_eq!(
        app.find(&sel("page-image"))
            .unwrap()
            .attribute("data-page")
            .unwrap()
            .as_deref(),
        Some("40")
    );
    assert_eq!(page_indicator(&app), "Page 41 of 60");

    // The next page comes from the chain and the read-ahead, then a key turns to it.
    app.find("body").unwrap().send_keys("\u{E014}").unwrap(); // ArrowRight
    app.wait_for_text(&sel("page-indicator"), "Page 42 of 60")
        .unwrap();
    let asked = pages_asked(&server);
    assert!(asked.contains(&41), "page 41 was fetched: {asked:?}");
    assert!(
        !asked.contains(&0),
        "the pages before the reader's come last: {asked:?}"
    );

    app.close().unwrap();
    server.stop();
}

#[test]
fn a_comic_read_further_on_another_device_opens_at_the_servers_page_and_sends_the_next_one_back() {
    let case = TestCase::start();
    let (server, app) = app_on_server(
        &case,
        Config {
            reading_positions: Some(Default::default()),
            ..comic(PAGES)
        },
        "Fixture Library",
        None,
    );
    let title = server.book(BOOK).unwrap().title;
    open_details_after(&app, &title, true, |_| {
        // Another device read up to page 31 a minute ago; this device never read the book.
        let earlier = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .unwrap()
            .as_millis() as i64
            - 60_000;
        server.set_progression(
            BOOK,
            Some(json!({
                "modified": carrel_core::foundation::timestamps::format_rfc3339(earlier),
                "device": { "id": "urn:another-reader", "name": "Tablet" },
                "locator": { "locations": { "position": 31, "totalProgression": 0.5 } }
            })),
        );
    });
    app.wait_for(&sel("read-book")).unwrap().click().unwrap();
    app.wait_for_text(&sel("page-indicator"), "Page 31 of 60")
        .unwrap();
    app.wait_for_text(&sel("toast"), "another device").unwrap();
    app.wait_until("page 31 to show", default_timeout(), |c| {
        let page = c.execute(
            "const img = document.querySelector('[data-testid=\"page-image\"]');
             return img && img.complete && img.naturalWidth > 0 ? img.dataset.page : null;",
            vec![],
        )?;
        Ok((page == json!("30")).then_some(()))
    })
    .unwrap();

    // Reading on from there: the server hears of the next page (sent a few seconds after).
    app.find("body").unwrap().send_keys("\u{E014}").unwrap(); // ArrowRight
    app.wait_for_text(&sel("page-indicator"), "Page 32 of 60")
        .unwrap();
    app.wait_until(
        "the server to have page 32",
        Duration::from_secs(30),
        |_| {
            let position = server
                .progression(BOOK)
                .and_then(|d| d["locator"]["locations"]["position"].as_i64());
            Ok((position == Some(32)).then_some(()))
        },
    )
    .unwrap();

    app.close().unwrap();
    server.stop();
}

/// The pages shown by the paged reader, in reading order, once every one of them has loaded:
/// `(index, left edge on the screen)`.
fn pages_on_screen(app: &App) -> Vec<(u32, f64)> {
    let shown = app
        .execute(
            "const images = [...document.querySelectorAll('[data-testid=\"page-image\"]')];
             if (images.some((img) => !img.complete || img.naturalWidth === 0 || img.classList.contains('hidden'))) return null;
             return images
               .map((img) => [Number(img.dataset.pageIndex), img.getBoundingClientRect().left]);",
            vec![],
        )
        .unwrap();
    shown
        .as_array()
        .map(|pages| {
            pages
                .iter()
                .map(|p| (p[0].as_u64().unwrap() as u32, p[1].as_f64().unwrap()))
                .collect()
        })
        .unwrap_or_default()
}

/// Waits until the pages shown, in reading order, are `expected`; returns their left edges.
fn wait_for_pages(app: &App, expected: &[u32]) -> Vec<f64> {
    let mut last = Vec::new();
    app.wait_until(
        &format!("pages {expected:?} on screen"),
        default_timeout(),
        |_| {
            last = pages_on_screen(app);
            let indices: Vec<u32> = last.iter().map(|(i, _)| *i).collect();
            Ok((indices == expected).then(|| last.iter().map(|(_, left)| *left).collect()))
        },
    )
    .unwrap_or_else(|e| panic!("{e}; on screen: {last:?}"))
}

/// Moves the page slider to `page` as a drag would, ending the drag when `release`.
fn slide_to(app: &App, page: u32, release: bool) {
    app.execute(
        "const slider = document.querySelector('[data-testid=\"page-slider\"]');
         slider.value = String(arguments[0]);
         slider.dispatchEvent(new Event('input', { bubbles: true }));
         if (arguments[1]) slider.dispatchEvent(new Event('change', { bubbles: true }));",
        vec![json!(page), json!(release)],
    )
    .unwrap();
}

#[test]
fn rtl_and_spread_modes_show_the_right_pages_in_the_right_places() {
    let (_case, server, app, _) = open_comic(8);

    // Two pages, right to left: page index 1 comes first, on the right.
    app.find(&sel("layout-spread")).unwrap().click().unwrap();
    app.find(&sel("direction-rtl")).unwrap().click().unwrap();
    slide_to(&app, 1, true);
    let lefts = wait_for_pages(&app, &[1, 2]);
    assert!(lefts[0] > lefts[1], "page 1 is right of page 2: {lefts:?}");
    assert_eq!(page_indicator(&app), "Pages 2–3 of 8");

    // Left to right: the same spread, page index 1 on the left.
    app.find(&sel("direction-ltr")).unwrap().click().unwrap();
    let lefts = wait_for_pages(&app, &[1, 2]);
    assert!(lefts[0] < lefts[1], "page 1 is left of page 2: {lefts:?}");

    // The slider previews the page under it while it moves.
    slide_to(&app, 5, false);
    let thumbnail = app.wait_for_displayed(&sel("slider-thumbnail")).unwrap();
    assert_eq!(
        thumbnail.attribute("data-page-index").unwrap().as_deref(),
        Some("5")
    );
    slide_to(&app, 1, true);
    app.wait_for_absent(&sel("slider-thumbnail")).unwrap();
    wait_for_pages(&app, &[1, 2]);

    // For the documentation: the spread fitted to the window, left to right in the light theme;
    // right to left in the dark one, the pointer over the slider previewing a page.
    app.find(&sel("fit-screen")).unwrap().click().unwrap();
    app.execute("document.documentElement.dataset.theme = 'light';", vec![])
        .unwrap();
    wait_for_pages(&app, &[1, 2]);
    save_docs_screenshot(&app, "reader-comic-light.png").unwrap();
    app.execute("document.documentElement.dataset.theme = 'dark';", vec![])
        .unwrap();
    app.find(&sel("direction-rtl")).unwrap().click().unwrap();
    app.wait_for(&format!("{}[aria-pressed=\"true\"]", sel("direction-rtl")))
        .unwrap();
    wait_for_pages(&app, &[1, 2]);
    app.execute(
        "const slider = document.querySelector('[data-testid=\"page-slider\"]');
         const rect = slider.getBoundingClientRect();
         slider.dispatchEvent(new PointerEvent('pointermove', {
           bubbles: true, clientX: rect.left + rect.width * 0.3, clientY: rect.top + rect.height / 2,
         }));",
        vec![],
    )
    .unwrap();
    let thumbnail = app.wait_for_displayed(&sel("slider-thumbnail")).unwrap();
    assert_eq!(
        thumbnail.attribute("data-page-index").unwrap().as_deref(),
        Some("5"),
        "30% from the left of a right-to-left slider"
    );
    app.wait_until("the preview to load", default_timeout(), |c| {
        let loaded = c.execute(
            "const img = document.querySelector('[data-testid=\"slider-thumbnail\"]');
             return !!img && img.complete && img.naturalWidth > 0;",
            vec![],
        )?;
        Ok((loaded == json!(true)).then_some(()))
    })
    .unwrap();
    save_docs_screenshot(&app, "reader-comic-dark.png").unwrap();
    app.execute(
        "document.querySelector('[data-testid=\"page-slider\"]').dispatchEvent(new PointerEvent('pointerleave'));",
        vec![],
    )
    .unwrap();
    app.wait_for_absent(&sel("slider-thumbnail")).unwrap();
    app.find(&sel("direction-ltr")).unwrap().click().unwrap();

    // A page turn moves by a spread; the cover stands alone.
    app.find("body").unwrap().send_keys("\u{E014}").unwrap(); // ArrowRight
    wait_for_pages(&app, &[3, 4]);
    app.find("body").unwrap().send_keys("\u{E011}").unwrap(); // Home
    wait_for_pages(&app, &[0]);
    assert_eq!(page_indicator(&app), "Page 1 of 8");

    app.close().unwrap();
    server.stop();
}

#[test]
fn the_vertical_strip_loads_pages_as_they_come_near_and_follows_the_page_in_view() {
    let (_case, server, app, id) = open_comic(30);

    app.find(&sel("layout-webtoon")).unwrap().click().unwrap();
    app.wait_for_displayed(&sel("page-strip")).unwrap();
    app.wait_for(&format!("{}[data-page-index=\"0\"]", sel("strip-image")))
        .unwrap();
    // The strip asks for a page only as it comes near (the downloads may fetch it meanwhile: the
    // window's own image for it is what waits).
    let last = format!("{}[data-page-index=\"29\"]", sel("strip-image"));
    assert!(
        !app.exists(&last).unwrap(),
        "the last page's image waits until it comes near"
    );

    // Scrolled by hand to page index 12: the indicator follows, and the position is saved.
    app.execute(
        "document.querySelector('[data-strip-page=\"12\"]').scrollIntoView({ block: 'start' });",
        vec![],
    )
    .unwrap();
    app.wait_for_text(&sel("page-indicator"), "Page 13 of 30")
        .unwrap();
    app.wait_for(&format!("{}[data-page-index=\"12\"]", sel("strip-image")))
        .unwrap();
    app.wait_until("the position to be saved", default_timeout(), |c| {
        let page = c.execute_async(
            "const done = arguments[arguments.length - 1];
             window.__TAURI_INTERNALS__.invoke('book_details', { bookId: arguments[0] })
               .then((book) => done(book.last_page), () => done(null));",
            vec![json!(id)],
        )?;
        Ok((page == json!(12)).then_some(()))
    })
    .unwrap();

    // The keys move the strip a page at a time.
    app.find("body").unwrap().send_keys("\u{E014}").unwrap(); // ArrowRight
    app.wait_for_text(&sel("page-indicator"), "Page 14 of 30")
        .unwrap();
    let top = app
        .execute(
            "const strip = document.querySelector('[data-testid=\"page-strip\"]');
             const page = document.querySelector('[data-strip-page=\"13\"]');
             return page.getBoundingClientRect().top - strip.getBoundingClientRect().top;",
            vec![],
        )
        .unwrap();
    assert!(
        top.as_f64().unwrap().abs() < 2.0,
        "page 14 is at the top of the strip: {top}"
    );

    app.close().unwrap();
    server.stop();
}

/// The page's picture on screen (a fitted image may be letterboxed): `[left, top, width, height]`.
const PICTURE: &str = "const img = document.querySelector('[data-testid=\"page-image\"]');
     const box = img.getBoundingClientRect();
     const scale = Math.min(box.width / img.naturalWidth, box.height / img.naturalHeight);
     const width = img.naturalWidth * scale;
     const height = img.naturalHeight * scale;
     return [box.left + (box.width - width) / 2, box.top + (box.height - height) / 2, width, height];";

fn picture(app: &App) -> [f64; 4] {
    let rect = app.execute(PICTURE, vec![]).unwrap();
    let values: Vec<f64> = rect
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v.as_f64().unwrap())
        .collect();
    [values[0], values[1], values[2], values[3]]
}

#[test]
fn the_wheel_and_a_swipe_turn_pages_and_ctrl_wheel_zooms_about_the_pointer() {
    let (_case, server, app, _) = open_comic(8);

    // The whole page in view: a wheel notch down turns to the next page.
    app.find(&sel("fit-screen")).unwrap().click().unwrap();
    app.wait_for(&format!("{}[aria-pressed=\"true\"]", sel("fit-screen")))
        .unwrap();
    app.execute(
        "const stage = document.querySelector('[data-testid=\"page-stage\"]');
         const rect = stage.getBoundingClientRect();
         stage.dispatchEvent(new WheelEvent('wheel', {
           bubbles: true, cancelable: true, deltaY: 120, clientX: rect.left + rect.width / 2, clientY: rect.top + rect.height / 2,
         }));",
        vec![],
    )
    .unwrap();
    app.wait_for_text(&sel("page-indicator"), "Page 2 of 8")
        .unwrap();
    wait_for_pages(&app, &[1]);

    // Ctrl+wheel up zooms to 200 % about the pointer, a quarter of the way down the stage: the
    // spot of the page under it stays under it. (Still narrower than the window at 200 %, the page
    // stays centred sideways, so the pointer is at the middle.)
    let before = picture(&app);
    let pointer = app
        .execute(
            "const rect = document.querySelector('[data-testid=\"page-stage\"]').getBoundingClientRect();
             return [rect.left + rect.width / 2, rect.top + rect.height / 4];",
            vec![],
        )
        .unwrap();
    let (px, py) = (pointer[0].as_f64().unwrap(), pointer[1].as_f64().unwrap());
    app.execute(
        "const stage = document.querySelector('[data-testid=\"page-stage\"]');
         stage.dispatchEvent(new WheelEvent('wheel', {
           bubbles: true, cancelable: true, ctrlKey: true, deltaY: -200, clientX: arguments[0], clientY: arguments[1],
         }));",
        vec![json!(px), json!(py)],
    )
    .unwrap();
    app.wait_for_text(&sel("zoom-reset"), "200 %").unwrap();
    app.wait_for(&format!("{}.zoomed", sel("page-stage")))
        .unwrap();
    let after = picture(&app);
    assert!(
        (after[2] - 2.0 * before[2]).abs() < 1.5,
        "twice as wide: {before:?} -> {after:?}"
    );
    assert!(
        (after[3] - 2.0 * before[3]).abs() < 1.5,
        "twice as tall: {before:?} -> {after:?}"
    );
    let (fx, fy) = ((px - before[0]) / before[2], (py - before[1]) / before[3]);
    let (ax, ay) = (after[0] + fx * after[2], after[1] + fy * after[3]);
    assert!(
        (ax - px).abs() < 2.0 && (ay - py).abs() < 2.0,
        "the spot under the pointer moved to ({ax}, {ay}) from ({px}, {py})"
    );

    // A mouse drag pans the zoomed page, and the page never leaves the view.
    let scrolled = app
        .execute(
            "const stage = document.querySelector('[data-testid=\"page-stage\"]');
             const top = stage.scrollTop;
             const at = (type, y) => stage.dispatchEvent(new PointerEvent(type, {
               bubbles: true, cancelable: true, pointerId: 1, pointerType: 'mouse', button: 0, clientX: 600, clientY: y,
             }));
             at('pointerdown', 500);
             at('pointermove', 5000);
             at('pointerup', 5000);
             return [top, stage.scrollTop];",
            vec![],
        )
        .unwrap();
    assert!(
        scrolled[0].as_f64().unwrap() > 0.0,
        "zoomed about a point low on the page, it scrolled: {scrolled}"
    );
    assert_eq!(
        scrolled[1].as_f64().unwrap(),
        0.0,
        "dragged down as far as it goes: the page's top at the top"
    );
    let dragged = picture(&app);
    let stage_top = app
        .execute("return document.querySelector('[data-testid=\"page-stage\"]').getBoundingClientRect().top;", vec![])
        .unwrap();
    assert!(
        (dragged[1] - stage_top.as_f64().unwrap()).abs() < 1.5,
        "the page's top meets the stage's: {dragged:?}"
    );

    // 0 goes back to the fit.
    app.find("body").unwrap().send_keys("0").unwrap();
    app.wait_for_text(&sel("zoom-reset"), "100 %").unwrap();
    app.wait_for_absent(&format!("{}.zoomed", sel("page-stage")))
        .unwrap();

    // A finger swiped to the left brings the page on the right: the next one.
    app.execute(
        "const stage = document.querySelector('[data-testid=\"page-stage\"]');
         const at = (type, x) => stage.dispatchEvent(new PointerEvent(type, {
           bubbles: true, cancelable: true, pointerId: 9, pointerType: 'touch', isPrimary: true, clientX: x, clientY: 400,
         }));
         at('pointerdown', 800);
         at('pointermove', 700);
         at('pointerup', 600);",
        vec![],
    )
    .unwrap();
    app.wait_for_text(&sel("page-indicator"), "Page 3 of 8")
        .unwrap();
    wait_for_pages(&app, &[2]);

    app.close().unwrap();
    server.stop();
}

/// A comic a server offers only as a CBZ file (calibre, Calibre-Web: no page streaming) opens
/// in the comic reader: the file downloads, the first page paints, "Page 1 of N", keys turn
/// pages, and closing and reopening comes back to the same page.
#[test]
fn a_comic_kept_as_one_cbz_file_opens_in_the_comic_reader() {
    let case = TestCase::start();
    let (server, app, id) = book_details(&case, whole_file_comic(9), "calibre", None);
    open_comic_reader(&app, id);
    wait_for_painted_page(&app, 0);
    app.wait_for_text(&sel("page-indicator"), "Page 1 of 9")
        .unwrap();
    app.find("body")
        .unwrap()
        .send_keys("\u{E014}\u{E014}")
        .unwrap(); // ArrowRight twice
    app.wait_for_text(&sel("page-indicator"), "Page 3 of 9")
        .unwrap();
    wait_for_painted_page(&app, 2);
    // The file came once (besides the parts read before it was stored); no page was asked of
    // the server one by one.
    let file_url = format!("/books/{BOOK}/file");
    let length = server.book(BOOK).unwrap().length;
    app.wait_until("the file to be stored", default_timeout(), |_| {
        Ok(stored_file(&case, id).then_some(()))
    })
    .unwrap();
    let asked = server.stats().rest_from(&file_url);
    assert!(
        asked.first() == Some(&0) && asked.windows(2).all(|w| w[0] < w[1]),
        "the file was asked for again from bytes it had: {asked:?}"
    );
    assert!(server.stats().bytes(&file_url) >= length + file_parts_bytes(&case, id));
    assert!(pages_asked(&server).is_empty());
    // Closed and opened again: back at page 3. The details read the book afresh once the
    // reader closes (it was opened meanwhile): clicked before that, "Read" may act on the
    // book as it was.
    app.find("body").unwrap().send_keys("\u{E00C}").unwrap(); // Escape
    app.wait_for_displayed(&format!("{}[data-book-id=\"{id}\"]", sel("book-details")))
        .unwrap();
    app.wait_for_text(&sel("read-book"), "Continue reading")
        .unwrap();
    open_comic_reader(&app, id);
    app.wait_for_text(&sel("page-indicator"), "Page 3 of 9")
        .unwrap();
    wait_for_painted_page(&app, 2);
    app.close().unwrap();
    server.stop();
}

/// The colour at the middle of the picture's left margin (where the page's own colour is), as
/// [r, g, b]: the page was drawn, not only given a size.
fn page_colour(app: &App) -> [u8; 3] {
    let got = app
        .execute_async(
            "const done = arguments[arguments.length - 1];
             const img = document.querySelector('[data-testid=\"page-image\"]');
             const c = document.createElement('canvas');
             c.width = img.naturalWidth; c.height = img.naturalHeight;
             const g = c.getContext('2d'); g.drawImage(img, 0, 0);
             const d = g.getImageData(Math.floor(c.width * 0.05), Math.floor(c.height / 2), 1, 1).data;
             done([d[0], d[1], d[2]]);",
            vec![],
        )
        .unwrap();
    let v: Vec<u8> = serde_json::from_value(got).unwrap();
    [v[0], v[1], v[2]]
}

#[test]
fn a_pdf_kept_as_one_file_opens_in_the_page_reader_with_its_contents() {
    let case = TestCase::start();
    let pdf = make_test_pdf("book", "6");
    let (server, app, id) = book_details(&case, pdf_book(pdf.clone()), "calibre", None);
    assert_eq!(
        app.wait_for(&sel("read-book"))
            .unwrap()
            .inner_text()
            .unwrap()
            .trim(),
        "Read"
    );
    open_comic_reader(&app, id);
    wait_for_painted_page(&app, 0);
    app.wait_for_text(&sel("page-indicator"), "Page 1 of 6")
        .unwrap();
    let first = page_colour(&app);
    app.find("body")
        .unwrap()
        .send_keys("\u{E014}\u{E014}")
        .unwrap(); // ArrowRight twice
    app.wait_for_text(&sel("page-indicator"), "Page 3 of 6")
        .unwrap();
    wait_for_painted_page(&app, 2);
    let third = page_colour(&app);
    assert_ne!(first, third, "each page is drawn in its own colour");
    assert!(
        first.iter().all(|&c| c > 100),
        "a pale page colour, not an empty picture: {first:?}"
    );

    // The outline is the book's contents: chapters and the parts under them.
    app.wait_for(&sel("reader-contents"))
        .unwrap()
        .click()
        .unwrap();
    let list = app
        .wait_for_text(&sel("reader-contents-list"), "Chapter 3")
        .unwrap();
    for entry in ["Chapter 1", "Part 2", "Chapter 2", "Part 6"] {
        assert!(list.contains(entry), "{entry} in {list:?}");
    }
    let chapter3 = app
        .find_all(&format!("{} button", sel("reader-contents-list")))
        .unwrap()
        .into_iter()
        .find(|b| b.inner_text().unwrap().contains("Chapter 3"))
        .expect("Chapter 3 in the contents");
    chapter3.click().unwrap();
    app.wait_for_text(&sel("page-indicator"), "Page 5 of 6")
        .unwrap();
    wait_for_painted_page(&app, 4);
    app.wait_for_hidden(&sel("reader-contents-list")).unwrap();

    // The file came once, whole, and no page was asked of the server.
    assert_eq!(server.stats().hits(&format!("/books/{BOOK}/file")), 1);
    assert!(pages_asked(&server).is_empty());
    // Closed and opened again: back at page 5.
    app.find("body").unwrap().send_keys("\u{E00C}").unwrap(); // Escape
    app.wait_for_displayed(&format!("{}[data-book-id=\"{id}\"]", sel("book-details")))
        .unwrap();
    app.wait_for_text(&sel("read-book"), "Continue reading")
        .unwrap();
    app.wait_for(&sel("read-book")).unwrap().click().unwrap();
    app.wait_for_text(&sel("page-indicator"), "Page 5 of 6")
        .unwrap();
    wait_for_painted_page(&app, 4);
    save_docs_screenshot(&app, "reader-pdf.png").unwrap();
    app.close().unwrap();
    // The page count measured by the reader is the book's, and its position a page of it.
    let db = carrel_e2e::data::open_database(case.data_dir());
    let (count, last): (i64, i64) = db
        .query_row(
            "SELECT page_count, last_page FROM books WHERE id = ?1",
            [id],
            |r| Ok((r.get(0)?, r.get(1)?)),
        )
        .unwrap();
    assert_eq!((count, last), (6, 4));
    assert_eq!(
        server.stats().hits(&format!("/books/{BOOK}/file")),
        1,
        "opened again from the device"
    );
    server.stop();
}

#[test]
fn a_hostile_pdf_shows_its_page_and_runs_nothing_it_carries() {
    let case = TestCase::start();
    // The address the file's links and forms point at: the server itself, so a request would show.
    let probe = Server::start(Config {
        books: 1,
        ..Config::default()
    })
    .expect("start the probe server");
    let pdf = make_test_pdf("hostile", &probe.url("/pwned"));
    let (server, app, id) = book_details(&case, pdf_book(pdf), "calibre", None);
    let window_title = app.execute("return document.title;", vec![]).unwrap();
    open_comic_reader(&app, id);
    wait_for_painted_page(&app, 0);
    app.wait_for_text(&sel("page-indicator"), "Page 1 of 1")
        .unwrap();
    // Time for anything the file carries to run, and a click on its links: on the page as shown,
    // its text laid over the picture.
    std::thread::sleep(Duration::from_millis(1500));
    app.find(&sel("page-stage")).unwrap().click().unwrap();
    std::thread::sleep(Duration::from_millis(500));
    // An alert raised by the file would make this call fail.
    let ran = app
        .execute(
            "return { marker: window.__carrelHostilePdf ?? null, title: document.title,
                      eval: (() => { try { return new Function('return 1')() === 1; } catch { return false; } })() };",
            vec![],
        )
        .unwrap();
    assert_eq!(
        ran["marker"],
        serde_json::Value::Null,
        "a script in the PDF ran: {ran}"
    );
    assert_eq!(
        ran["title"], window_title,
        "a script in the PDF changed the window: {ran}"
    );
    assert_eq!(
        ran["eval"], false,
        "the window may compile code from strings: {ran}"
    );
    let probed: Vec<String> = probe
        .stats()
        .clients
        .values()
        .flat_map(|c| c.hits.keys().cloned())
        .filter(|u| u.starts_with("/pwned"))
        .collect();
    assert!(
        probed.is_empty(),
        "the PDF's links or forms reached out: {probed:?}"
    );
    assert!(!app.log_text().contains("pdf script ran"));
    app.close().unwrap();
    server.stop();
    probe.stop();
}

#[test]
fn a_format_carrel_cannot_show_is_offered_to_the_systems_app_for_it() {
    let case = TestCase::start();
    // A Mobipocket file's header (a Palm database of type BOOK, creator MOBI), then a body.
    let mut mobi = vec![0u8; 78];
    mobi[..12].copy_from_slice(b"Carrel_test\0");
    mobi[60..68].copy_from_slice(b"BOOKMOBI");
    mobi.extend(std::iter::repeat_n(b'x', 4096));
    let server = start_server(Config {
        books: 3,
        files: [(
            BOOK,
            given_file("application/x-mobipocket-ebook", "mobi", mobi.clone()),
        )]
        .into(),
        ..Config::default()
    });
    // The system's default application for the file, as xdg-open finds it: a desktop entry that
    // copies what it is given next to the test.
    let home = tempfile::tempdir().unwrap();
    let opened = home.path().join("opened");
    let apps = home.path().join("share/applications");
    std::fs::create_dir_all(&apps).unwrap();
    std::fs::create_dir_all(home.path().join("config")).unwrap();
    std::fs::write(
        apps.join("carrel-e2e-opener.desktop"),
        format!("[Desktop Entry]\nType=Application\nName=Opener\nExec=/bin/cp %f {}\nMimeType=application/x-mobipocket-ebook;application/octet-stream;\n", opened.display()),
    )
    .unwrap();
    std::fs::write(
        home.path().join("config/mimeapps.list"),
        "[Default Applications]\napplication/x-mobipocket-ebook=carrel-e2e-opener.desktop\napplication/octet-stream=carrel-e2e-opener.desktop\n",
    )
    .unwrap();
    let title = server.book(BOOK).unwrap().title;
    let app = case.launch_with(
        case.options()
            .env("CARREL_SECRETS", "file")
            .env("XDG_DATA_HOME", home.path().join("share"))
            .env("XDG_CONFIG_HOME", home.path().join("config"))
            .env("XDG_CURRENT_DESKTOP", "X-Generic"),
    );
    add_server(&app, "calibre", &server.url("/opds"));
    let id = open_details(&app, &title, true);
    assert!(
        app.find_all(&sel("read-book")).unwrap().is_empty(),
        "no Read button that would do nothing"
    );
    app.wait_for_text(&sel("other-format-note"), "Carrel can’t show MOBI books")
        .unwrap();
    app.wait_for(&sel("open-in-another-app"))
        .unwrap()
        .click()
        .unwrap();
    let got = app
        .wait_until(
            "the other app to be given the file",
            default_timeout(),
            |_| {
                Ok(std::fs::read(&opened)
                    .ok()
                    .filter(|b| b.len() == mobi.len()))
            },
        )
        .unwrap();
    assert_eq!(
        got, mobi,
        "the other app got the file as the server sent it"
    );
    // Named by the type the server declared, so the system picks the app by the name.
    let stored = case
        .data_dir()
        .join("books")
        .join(id.to_string())
        .join("book.mobi");
    assert!(stored.is_file(), "{} is not stored", stored.display());
    assert_eq!(server.stats().hits(&format!("/books/{BOOK}/file")), 1);
    assert!(app
        .find_all(&sel("details-action-error"))
        .unwrap()
        .is_empty());
    app.close().unwrap();
    server.stop();
}

/// Whether the app stored a book's whole file.
fn stored_file(case: &TestCase, id: i64) -> bool {
    std::fs::read_dir(case.data_dir().join("books").join(id.to_string()))
        .map(|d| {
            d.flatten().any(|e| {
                e.file_name().to_string_lossy().starts_with("book.")
                    && !e.file_name().to_string_lossy().ends_with(".part")
            })
        })
        .unwrap_or(false)
}

/// Bytes of the parts of a book's file the app read before the file was stored.
fn file_parts_bytes(case: &TestCase, id: i64) -> u64 {
    std::fs::read_dir(
        case.data_dir()
            .join("books")
            .join(id.to_string())
            .join("pages"),
    )
    .map(|d| {
        d.flatten()
            .filter(|e| e.file_name().to_string_lossy().ends_with(".bytes"))
            .map(|e| e.metadata().unwrap().len())
            .sum()
    })
    .unwrap_or(0)
}

/// A 200-page CBZ on a slow server is read at page 150 long before its file is stored: the
/// window asks, the core fetches the zip's directory and that page's bytes (the file's
/// download giving way), and the page paints while most of the file is still on the server.
#[test]
fn page_150_of_a_large_cbz_paints_before_its_file_is_stored() {
    let case = TestCase::start();
    let (server, app) = app_on_server(&case, whole_file_comic(200), "calibre", None);
    let book = server.book(BOOK).unwrap();
    let id = open_details(&app, &book.title, true);
    // From now on the server sends about 400 KB a second: the whole file takes half a minute.
    server.set_faults(Faults {
        bandwidth: Some(400_000),
        ..Faults::default()
    });
    open_comic_reader(&app, id);
    app.wait_for_text(&sel("page-indicator"), "Page 1 of 200")
        .unwrap();
    slide_to(&app, 149, true);
    app.wait_for_text(&sel("page-indicator"), "Page 150 of 200")
        .unwrap();
    app.wait_until("page 150 to paint", default_timeout(), |c| {
        let shown = c.execute(
            "const img = document.querySelector('[data-testid=\"page-image\"]');
             return img && img.complete && !img.classList.contains('hidden') && img.naturalWidth > 0 ? img.dataset.page : null;",
            vec![],
        )?;
        Ok((shown.as_str() == Some("149")).then_some(()))
    })
    .unwrap();
    let file_url = format!("/books/{BOOK}/file");
    let sent = server.stats().bytes(&file_url);
    assert!(
        !stored_file(&case, id) && sent < book.length / 2,
        "page 150 painted after {sent} of the file's {} bytes",
        book.length
    );
    assert!(
        pages_asked(&server).is_empty(),
        "pages come from the file, not one by one"
    );
    // At full speed again the file completes; its bytes came once, besides the parts read.
    server.set_faults(Faults::default());
    app.wait_until("the file to be stored", Duration::from_secs(60), |_| {
        Ok(stored_file(&case, id).then_some(()))
    })
    .unwrap();
    // Each time the file gave way it was asked again from where its stored bytes ended: never
    // from an earlier byte. (The bytes sent may count more: an answer given up mid-way leaves
    // what was still in the sockets' buffers behind.)
    let asked = server.stats().rest_from(&file_url);
    assert!(
        asked.first() == Some(&0) && asked.windows(2).all(|w| w[0] < w[1]),
        "the file was asked for again from bytes it had: {asked:?}"
    );
    assert!(
        server.stats().bytes(&file_url) >= book.length + file_parts_bytes(&case, id),
        "fewer bytes sent than the file and its parts"
    );
    app.close().unwrap();
    server.stop();
}

// ---- the place across layouts, the keys after the slider, bars that make room ---------------

/// Opens fixture book `BOOK` (`pages` pages) in the comic reader at its first page: the test
/// case, the server, the app and the book's id in it.
fn open_comic(pages: u32) -> (TestCase, RunningServer, App, i64) {
    let case = TestCase::start();
    let (server, app, id) = book_details(
        &case,
        comic(pages),
        "Fixture Library",
        Some((1280.0, 860.0)),
    );
    open_comic_reader(&app, id);
    wait_for_pages(&app, &[0]);
    (case, server, app, id)
}

/// Waits until the strip shows its pages, then a while longer: the page it settles on.
fn settled_strip(app: &App) -> String {
    app.wait_for_displayed(&sel("page-strip")).unwrap();
    app.wait_until("the strip's pages to load", default_timeout(), |c| {
        let loaded = c.execute(
            "const images = [...document.querySelectorAll('[data-testid=\"strip-image\"]')];
             return images.length > 0 && images.every((img) => img.complete && img.naturalWidth > 0);",
            vec![],
        )?;
        Ok((loaded == json!(true)).then_some(()))
    })
    .unwrap();
    std::thread::sleep(Duration::from_millis(1500));
    page_indicator(app)
}

/// Switching between one page, two pages and the strip keeps the page read, from the last page
/// of a book and from a right-to-left spread alike.
#[test]
fn switching_layouts_keeps_the_page_read() {
    let (_case, server, app, _) = open_comic(3);

    // At the last page, into the strip and back.
    press(&app, &["\u{E010}"]); // End
    app.wait_for_text(&sel("page-indicator"), "Page 3 of 3")
        .unwrap();
    app.find(&sel("layout-webtoon")).unwrap().click().unwrap();
    assert_eq!(
        settled_strip(&app),
        "Page 3 of 3",
        "the strip opens at the page read"
    );
    let top = app
        .execute(
            "const strip = document.querySelector('[data-testid=\"page-strip\"]').getBoundingClientRect();
             const page = document.querySelector('[data-strip-page=\"2\"]').getBoundingClientRect();
             return page.top < strip.bottom && page.bottom > strip.top;",
            vec![],
        )
        .unwrap();
    assert_eq!(top, json!(true), "page 3 is in view in the strip");
    app.find(&sel("layout-single")).unwrap().click().unwrap();
    wait_for_pages(&app, &[2]);
    assert_eq!(page_indicator(&app), "Page 3 of 3");
    app.find(&sel("layout-spread")).unwrap().click().unwrap();
    wait_for_pages(&app, &[1, 2]);
    app.find(&sel("layout-webtoon")).unwrap().click().unwrap();
    let settled = settled_strip(&app);
    assert!(
        settled == "Page 2 of 3" || settled == "Page 3 of 3",
        "the strip opens at the spread read: {settled}"
    );
    app.close().unwrap();
    server.stop();

    // A right-to-left spread, pages 4–5 of 8.
    let (_case, server, app, _) = open_comic(8);
    app.find(&sel("layout-spread")).unwrap().click().unwrap();
    app.find(&sel("direction-rtl")).unwrap().click().unwrap();
    slide_to(&app, 3, true);
    wait_for_pages(&app, &[3, 4]);
    assert_eq!(page_indicator(&app), "Pages 4–5 of 8");
    app.find(&sel("layout-webtoon")).unwrap().click().unwrap();
    assert_eq!(settled_strip(&app), "Page 4 of 8");
    app.find(&sel("layout-spread")).unwrap().click().unwrap();
    wait_for_pages(&app, &[3, 4]);
    app.find(&sel("layout-single")).unwrap().click().unwrap();
    wait_for_pages(&app, &[3]);
    assert_eq!(page_indicator(&app), "Page 4 of 8");
    app.close().unwrap();
    server.stop();
}

/// Once the slider has been used — dragged with the mouse or moved with its own keys — Page
/// Down, ↓ and Space turn to the next page again, and Page Up to the previous one.
#[test]
fn the_readers_keys_turn_pages_after_the_slider_was_used() {
    let (_case, server, app, _) = open_comic(12);
    let slider = app.find(&sel("page-slider")).unwrap();
    let rect = app
        .execute(
            "const r = arguments[0].getBoundingClientRect(); return [r.left, r.top, r.width, r.height];",
            vec![slider.as_arg()],
        )
        .unwrap();
    let (left, top, width, height) = (
        rect[0].as_f64().unwrap(),
        rect[1].as_f64().unwrap(),
        rect[2].as_f64().unwrap(),
        rect[3].as_f64().unwrap(),
    );
    // A click on the slider a third of the way along.
    mouse_at(&app, left + width / 3.0, top + height / 2.0, true);
    let at = app
        .wait_until("the slider to move", default_timeout(), |_| {
            let text = page_indicator(&app);
            Ok((text != "Page 1 of 12").then_some(text))
        })
        .unwrap();
    let page: u32 = at
        .trim_start_matches("Page ")
        .split(' ')
        .next()
        .unwrap()
        .parse()
        .unwrap();
    for (key, name) in [
        ("\u{E00F}", "Page Down"),
        ("\u{E015}", "↓"),
        ("\u{E00D}", "Space"),
    ] {
        let before = page_indicator(&app);
        press(&app, &[key]);
        let expected = format!(
            "Page {} of 12",
            before
                .trim_start_matches("Page ")
                .split(' ')
                .next()
                .unwrap()
                .parse::<u32>()
                .unwrap()
                + 1
        );
        app.wait_for_text(&sel("page-indicator"), &expected)
            .unwrap_or_else(|e| panic!("{name} after the slider: {e}"));
    }
    assert_eq!(page_indicator(&app), format!("Page {} of 12", page + 3));
    press(&app, &["\u{E00E}"]); // Page Up
    app.wait_for_text(&sel("page-indicator"), &format!("Page {} of 12", page + 2))
        .unwrap();

    // The slider moved with its own keys, then the reader's.
    slider.send_keys("\u{E014}").unwrap(); // → on the slider: one page on
    app.wait_for_text(&sel("page-indicator"), &format!("Page {} of 12", page + 3))
        .unwrap();
    press(&app, &["\u{E00F}"]); // Page Down
    app.wait_for_text(&sel("page-indicator"), &format!("Page {} of 12", page + 4))
        .unwrap();
    press(&app, &["\u{E00D}"]); // Space
    app.wait_for_text(&sel("page-indicator"), &format!("Page {} of 12", page + 5))
        .unwrap();
    app.close().unwrap();
    server.stop();
}

/// Whether the reader's top bar and slider are on screen.
fn bars_shown(app: &App) -> bool {
    app.find(&sel("reader-back")).unwrap().is_visible().unwrap()
        && app.find(&sel("page-slider")).unwrap().is_visible().unwrap()
}

/// The toolbar and the slider give the page the whole window: they go when the mouse rests a
/// few seconds or the middle of the page is clicked, and come back when the mouse moves, on a
/// click in the middle, or when Tab brings the focus to them.
#[test]
fn the_bars_hide_when_the_mouse_rests_or_the_middle_is_clicked() {
    let (_case, server, app, _) = open_comic(8);
    let window = app
        .execute("return [window.innerWidth, window.innerHeight];", vec![])
        .unwrap();
    let (w, h) = (window[0].as_f64().unwrap(), window[1].as_f64().unwrap());
    mouse_at(&app, w / 2.0, h / 2.0, false);
    assert!(bars_shown(&app), "the bars are there at first");
    app.wait_until("the bars to hide", Duration::from_secs(8), |_| {
        Ok((!bars_shown(&app)).then_some(()))
    })
    .unwrap();
    let stage = app
        .execute(
            "const r = document.querySelector('[data-testid=\"page-stage\"]').getBoundingClientRect();
             return [r.top, r.bottom];",
            vec![],
        )
        .unwrap();
    assert!(
        stage[0].as_f64().unwrap() <= 1.0 && stage[1].as_f64().unwrap() >= h - 1.0,
        "the page has the whole window: {stage}"
    );

    // The mouse moves: back.
    mouse_at(&app, w / 2.0 + 40.0, h / 2.0 + 20.0, false);
    app.wait_until("the bars to come back", default_timeout(), |_| {
        Ok(bars_shown(&app).then_some(()))
    })
    .unwrap();
    // A click in the middle hides them, another brings them back; no page turns.
    mouse_at(&app, w / 2.0, h / 2.0, true);
    app.wait_until(
        "the bars to hide on a click",
        Duration::from_secs(2),
        |_| Ok((!bars_shown(&app)).then_some(())),
    )
    .unwrap();
    // (Apart by more than a double-click, which zooms.)
    std::thread::sleep(Duration::from_millis(800));
    mouse_at(&app, w / 2.0, h / 2.0, true);
    app.wait_until(
        "the bars to come back on a click",
        Duration::from_secs(2),
        |_| Ok(bars_shown(&app).then_some(())),
    )
    .unwrap();
    assert_eq!(page_indicator(&app), "Page 1 of 8");
    // Hidden again, Tab brings them back with the focus.
    std::thread::sleep(Duration::from_millis(800));
    mouse_at(&app, w / 2.0, h / 2.0, true);
    app.wait_until("the bars to hide", Duration::from_secs(2), |_| {
        Ok((!bars_shown(&app)).then_some(()))
    })
    .unwrap();
    press(&app, &["\u{E004}"]); // Tab
    app.wait_until(
        "the bars to come back on Tab",
        Duration::from_secs(2),
        |_| Ok(bars_shown(&app).then_some(())),
    )
    .unwrap();
    app.close().unwrap();
    server.stop();
}

// ---- the end of a book: the next of its series, and the one before ----------------------------

/// Waits for the reader to show the book titled `title`, its indicator saying `indicator` and
/// the pages `pages` (indices) on screen.
fn wait_for_book_at(app: &App, title: &str, indicator: &str, pages: &[u32]) {
    app.wait_for_text(&sel("reader-title"), title).unwrap();
    app.wait_for_text(&sel("page-indicator"), indicator)
        .unwrap();
    wait_for_pages(app, pages);
}

/// The end card's text once it shows the book titled `title`.
fn end_card_offering(app: &App, title: &str) -> String {
    app.wait_for_text(&sel("reader-end-book"), title).unwrap();
    app.find(&sel("reader-end-card"))
        .unwrap()
        .inner_text()
        .unwrap()
}

/// Past the last page of #1 of a series of three, a turn forward shows #2 on the end card and the
/// next opens #2 at its first page; before that first page a turn back shows #1 and one more turn
/// back opens #1 at its last page.
#[test]
fn the_end_of_a_comic_offers_the_next_of_its_series_and_the_start_the_one_before() {
    let case = TestCase::start();
    let (server, app) = app_on_server(
        &case,
        Config {
            books: 3,
            comic_pages: [(1, 5), (2, 6), (3, 4)].into(),
            ..Config::default()
        },
        "Fixture Library",
        Some((1280.0, 860.0)),
    );
    let first = server.book(1).unwrap();
    let second = server.book(2).unwrap();
    assert_eq!(first.series_id, second.series_id, "one series");
    let id = open_details(&app, &first.title, true);
    open_comic_reader(&app, id);
    wait_for_pages(&app, &[0]);

    // End, then one more turn: the card, #2 offered, its button focused.
    press(&app, &["\u{E010}"]); // End
    app.wait_for_text(&sel("page-indicator"), "Page 5 of 5")
        .unwrap();
    press(&app, &["\u{E014}"]); // ArrowRight
    let text = end_card_offering(&app, &second.title);
    assert!(
        text.contains(&format!("You finished {}", first.title)),
        "the card says the book is finished: {text}"
    );
    let focused = app
        .execute(
            "return document.activeElement?.dataset?.testid ?? null;",
            vec![],
        )
        .unwrap();
    assert_eq!(
        focused,
        json!("reader-end-read"),
        "the Read button has the focus"
    );

    // The next turn opens #2 at its first page.
    press(&app, &["\u{E014}"]); // ArrowRight
    wait_for_book_at(&app, &second.title, "Page 1 of 6", &[0]);
    assert!(
        app.find_all(&sel("reader-end-card")).unwrap().is_empty(),
        "no card over #2"
    );

    // Before its first page: #1's card, and one more turn back opens #1 at its last page.
    press(&app, &["\u{E012}"]); // ArrowLeft
    let text = end_card_offering(&app, &first.title);
    assert!(
        text.contains(&format!("Read {}", first.title)),
        "the card offers #1: {text}"
    );
    press(&app, &["\u{E012}"]); // ArrowLeft
    wait_for_book_at(&app, &first.title, "Page 5 of 5", &[4]);

    app.close().unwrap();
    server.stop();
}
