//! From one book to the next in the real window, on a series of the fixture server (four
//! comics and two EPUBs): the end card past a comic's last page and before its first, the last
//! book of a series, the end of an EPUB, a book and its whole series marked read from the grid's
//! menu, the comic reader's shifted spreads, and its image adjustments kept with the book.
//!
//! Run: `xvfb-run -a dbus-run-session -- cargo test -p carrel-e2e reading_flow -- --test-threads=1`
//! after `npm run --prefix ui build && cargo build -p carrel`.

use std::time::Duration;

use carrel_e2e::{default_timeout, save_docs_screenshot, App, TestCase};
use fixture_server::{BookInfo, Config, RunningServer};
use serde_json::json;

use crate::support::{
    add_server, book_id_of, chord, follow_all_books, launch, press, sel, start_server,
    wait_for_tile, DOWN, END, ENTER, F10, LEFT, RIGHT, SHIFT,
};

/// Fixture books 1, 2, 4 and 5 are the comics #1 to #4 of one series (4, 5, 6 and 3 pages);
/// 3 and 6 the EPUBs Book 1 and Book 2 of another.
fn series_server() -> RunningServer {
    let server = start_server(Config {
        books: 6,
        comic_pages: [(1, 4), (2, 5), (4, 6), (5, 3)].into(),
        ..Config::default()
    });
    let comics: Vec<BookInfo> = [1, 2, 4, 5].map(|id| server.book(id).unwrap()).into();
    assert!(
        comics.iter().all(|b| b.series_id == comics[0].series_id),
        "one series of comics"
    );
    assert_eq!(
        comics.iter().map(|b| b.number).collect::<Vec<_>>(),
        [1, 2, 3, 4]
    );
    let (a, b) = (server.book(3).unwrap(), server.book(6).unwrap());
    assert_eq!((a.series_id, a.number, b.number), (b.series_id, 1, 2));
    server
}

/// The series fixture, and the app with it added, its "All books" grid shown.
fn series_library(case: &TestCase) -> (RunningServer, App) {
    let server = series_server();
    let app = library(case, &server);
    (server, app)
}

/// The app on the test's data dir with the fixture added, its "All books" grid shown.
fn library(case: &TestCase, server: &RunningServer) -> App {
    let app = launch(case);
    app.set_window_size(1280.0, 860.0).unwrap();
    add_server(&app, "Fixture Library", &server.url("/opds"));
    app.wait_for(&sel("server-open")).unwrap().click().unwrap();
    follow_all_books(&app);
    // Every book of the feed listed: the series are known.
    app.wait_until("all six books", default_timeout(), |c| {
        Ok((c.find_all(&sel("catalog-book"))?.len() >= 6).then_some(()))
    })
    .unwrap();
    app
}

/// The selector of the grid's tile of the book titled `title`, once it is there; and its id.
fn tile_of(app: &App, title: &str) -> (String, i64) {
    let (_, id) = wait_for_tile(app, &format!("the tile of {title}"), |text| {
        text.lines().any(|l| l.trim() == title)
    });
    (
        format!("{}[data-book-id=\"{id}\"]", sel("catalog-book")),
        id,
    )
}

/// Opens the book titled `title` from the grid (its tile, then Read) in the comic reader.
fn open_comic(app: &App, title: &str) -> i64 {
    let (tile, id) = tile_of(app, title);
    app.find(&tile).unwrap().click().unwrap();
    app.wait_for_displayed(&format!("{}[data-book-id=\"{id}\"]", sel("book-details")))
        .unwrap();
    app.wait_for_displayed(&sel("read-book"))
        .unwrap()
        .click()
        .unwrap();
    app.wait_for_displayed(&format!("{}[data-book-id=\"{id}\"]", sel("comic-reader")))
        .unwrap();
    id
}

/// The pages on screen once all have loaded: `(index, src)` in reading order.
fn pages_on_screen(app: &App) -> Option<Vec<(u32, String)>> {
    let shown = app
        .execute(
            "const images = [...document.querySelectorAll('[data-testid=\"page-image\"]')];
             if (images.length === 0 || images.some((img) => !img.complete || img.naturalWidth === 0 || img.classList.contains('hidden'))) return null;
             return images.map((img) => [Number(img.dataset.pageIndex), img.getAttribute('src')]);",
            vec![],
        )
        .unwrap();
    shown.as_array().map(|pages| {
        pages
            .iter()
            .map(|p| {
                (
                    p[0].as_u64().unwrap() as u32,
                    p[1].as_str().unwrap_or_default().to_string(),
                )
            })
            .collect()
    })
}

/// Waits until exactly the pages `expected` of book `id` are on screen, loaded from their own
/// page addresses.
fn wait_for_pages(app: &App, id: i64, expected: &[u32]) {
    let mut last = None;
    app.wait_until(
        &format!("pages {expected:?} on screen"),
        default_timeout(),
        |_| {
            last = pages_on_screen(app);
            Ok(last.as_ref().and_then(|pages| {
                let indices: Vec<u32> = pages.iter().map(|(i, _)| *i).collect();
                (indices == expected).then_some(())
            }))
        },
    )
    .unwrap_or_else(|e| panic!("{e}; on screen: {last:?}"));
    for (index, src) in last.unwrap() {
        assert!(
            src.contains(&format!("{id}%2F{index}")),
            "page {index} of book {id} drawn from {src}"
        );
    }
}

fn wait_for_indicator(app: &App, text: &str) {
    app.wait_for_text(&sel("page-indicator"), text).unwrap();
}

fn focused_testid(app: &App) -> serde_json::Value {
    app.execute(
        "return document.activeElement?.dataset?.testid ?? null;",
        vec![],
    )
    .unwrap()
}

/// The end card's text once it shows `which` (`next` / `previous`) and, when given, the book
/// titled `offered`.
fn end_card(app: &App, which: &str, offered: Option<&str>) -> String {
    let card = format!("{}[data-which=\"{which}\"]", sel("reader-end-card"));
    app.wait_for_displayed(&card).unwrap();
    if let Some(title) = offered {
        app.wait_for_text(&sel("reader-end-book"), title).unwrap();
    }
    app.find(&card).unwrap().inner_text().unwrap()
}

fn no_end_card(app: &App) {
    app.wait_until("the end card to go", default_timeout(), |c| {
        Ok((!c.exists(&sel("reader-end-card"))?).then_some(()))
    })
    .unwrap();
}

/// Past #1's last page the card offers #2 (its Read button focused) and the next turn opens #2
/// at page 1; before #2's first page the card offers #1 and one more turn back opens #1 at its
/// last page. The last book of the series says the series is done and leads back to it.
#[test]
fn a_comics_end_card_leads_to_the_next_of_its_series_and_its_start_to_the_one_before() {
    let case = TestCase::start();
    let (server, app) = series_library(&case);
    let [first, second, _, last] = [1, 2, 4, 5].map(|id| server.book(id).unwrap());

    // (a) The end of #1: the card names #2, "Read #2" has the focus; → opens #2 at page 1.
    let first_id = open_comic(&app, &first.title);
    wait_for_pages(&app, first_id, &[0]);
    press(&app, &[END]);
    wait_for_indicator(&app, "Page 4 of 4");
    wait_for_pages(&app, first_id, &[3]);
    press(&app, &[RIGHT]);
    let text = end_card(&app, "next", Some(&second.title));
    assert!(
        text.contains(&format!("You finished {}", first.title))
            && text.contains(&format!("Next in {}", first.series))
            && text.contains("Number 2"),
        "the card names #2: {text}"
    );
    app.wait_until("Read #2 to have the focus", default_timeout(), |_| {
        Ok((focused_testid(&app) == json!("reader-end-read")).then_some(()))
    })
    .unwrap();
    assert_eq!(
        app.find(&sel("reader-end-read"))
            .unwrap()
            .inner_text()
            .unwrap()
            .trim(),
        format!("Read {}", second.title)
    );
    save_docs_screenshot(&app, "reader-end-card.png").unwrap();
    press(&app, &[RIGHT]);
    app.wait_for_text(&sel("reader-title"), &second.title)
        .unwrap();
    let second_id = book_id_of(&app, &sel("comic-reader"));
    wait_for_indicator(&app, "Page 1 of 5");
    wait_for_pages(&app, second_id, &[0]);
    no_end_card(&app);

    // (b) Before #2's first page: #1 offered; ← again opens #1 at its last page.
    press(&app, &[LEFT]);
    let text = end_card(&app, "previous", Some(&first.title));
    assert!(
        text.contains(&format!("The start of {}", second.title))
            && text.contains(&format!("Read {}", first.title)),
        "the card offers #1: {text}"
    );
    press(&app, &[LEFT]);
    app.wait_for_text(&sel("reader-title"), &first.title)
        .unwrap();
    wait_for_indicator(&app, "Page 4 of 4");
    wait_for_pages(&app, first_id, &[3]);
    no_end_card(&app);
    // Back to the grid.
    app.find(&sel("reader-back")).unwrap().click().unwrap();
    app.wait_for_hidden(&sel("comic-reader")).unwrap();

    // (c) The last book: the series is done, and the card leads back to it.
    let last_id = open_comic(&app, &last.title);
    wait_for_pages(&app, last_id, &[0]);
    press(&app, &[END]);
    wait_for_indicator(&app, "Page 3 of 3");
    press(&app, &[RIGHT]);
    let text = end_card(&app, "next", None);
    assert!(
        text.contains(&format!("That was the last book of {}", last.series)),
        "the card says the series is done: {text}"
    );
    assert!(
        app.find_all(&sel("reader-end-book")).unwrap().is_empty(),
        "no book offered: {text}"
    );
    app.wait_until("Back to have the focus", default_timeout(), |_| {
        Ok((focused_testid(&app) == json!("reader-end-back")).then_some(()))
    })
    .unwrap();
    // A turn forward stays on the card; its Back leads to the series' books.
    press(&app, &[RIGHT]);
    std::thread::sleep(Duration::from_millis(300));
    end_card(&app, "next", None);
    press(&app, &[ENTER]);
    app.wait_for_hidden(&sel("comic-reader")).unwrap();
    tile_of(&app, &last.title);
    tile_of(&app, &first.title);

    app.close().unwrap();
    server.stop();
}

/// Past the last page of an EPUB, a turn forward shows the card with the next EPUB of its
/// series, and the next turn opens it in the EPUB reader.
#[test]
fn an_epubs_end_card_opens_the_next_epub_of_its_series() {
    let case = TestCase::start();
    let (server, app) = series_library(&case);
    let (book1, book2) = (server.book(3).unwrap(), server.book(6).unwrap());
    let (tile, id) = tile_of(&app, &book1.title);
    app.find(&tile).unwrap().click().unwrap();
    app.wait_for_displayed(&sel("read-book"))
        .unwrap()
        .click()
        .unwrap();
    let ready = |id: i64| {
        format!(
            "{}[data-book-id=\"{id}\"][data-phase=\"ready\"]",
            sel("epub-reader")
        )
    };
    app.wait_for_displayed(&ready(id)).unwrap();

    // The last chapter from the contents, then page after page to the end.
    app.find(&sel("epub-toc-toggle")).unwrap().click().unwrap();
    app.wait_for_displayed(&sel("toc-entry")).unwrap();
    let entries = app.find_all(&sel("toc-entry")).unwrap();
    entries.last().unwrap().click().unwrap();
    std::thread::sleep(Duration::from_millis(800));
    let card = app.wait_until("the end card", Duration::from_secs(60), |c| {
        if c.exists(&sel("reader-end-card"))? {
            return Ok(Some(()));
        }
        press(&app, &[RIGHT]);
        std::thread::sleep(Duration::from_millis(350));
        Ok(None)
    });
    card.unwrap();
    let text = end_card(&app, "next", Some(&book2.title));
    assert!(
        text.contains(&format!("You finished {}", book1.title)),
        "{text}"
    );
    app.wait_until("Read to have the focus", default_timeout(), |_| {
        Ok((focused_testid(&app) == json!("reader-end-read")).then_some(()))
    })
    .unwrap();

    press(&app, &[RIGHT]);
    app.wait_until("the next EPUB in the reader", default_timeout(), |c| {
        for reader in c.find_all(&format!("{}[data-phase=\"ready\"]", sel("epub-reader")))? {
            if reader.attribute("data-book-id")?.as_deref() != Some(&id.to_string()) {
                return Ok(Some(()));
            }
        }
        Ok(None)
    })
    .unwrap();
    app.wait_for_text(&sel("epub-title"), &book2.title).unwrap();
    no_end_card(&app);

    app.close().unwrap();
    server.stop();
}

/// Whether the tile at `tile` shows the Read mark.
fn read_badge(app: &App, tile: &str) -> bool {
    app.exists(&format!("{tile} {}", sel("tile-read-badge")))
        .unwrap()
}

/// From the keyboard alone: a tile focused, Shift+F10 opens its menu, Enter marks the book read
/// and its Read mark shows; the menu's "Mark series as read" marks every book of the series.
#[test]
fn the_grid_menu_marks_a_book_read_and_its_whole_series() {
    let case = TestCase::start();
    let (server, app) = series_library(&case);
    let comics = [1, 2, 4, 5].map(|id| server.book(id).unwrap());
    let tiles: Vec<String> = comics.iter().map(|b| tile_of(&app, &b.title).0).collect();
    let epub_tile = tile_of(&app, &server.book(3).unwrap().title).0;
    assert!(tiles.iter().all(|t| !read_badge(&app, t)));

    // #2 marked read: Shift+F10 on its tile, the first item (Mark as read), Enter.
    let focus = |tile: &str| {
        app.execute(
            "document.querySelector(arguments[0]).focus();",
            vec![json!(tile)],
        )
        .unwrap();
    };
    focus(&tiles[1]);
    press_shift_f10(&app);
    app.wait_for_displayed(&sel("book-menu")).unwrap();
    assert_eq!(focused_testid(&app), json!("book-menu-read"));
    press(&app, &[ENTER]);
    app.wait_until("#2's Read mark", default_timeout(), |_| {
        Ok(read_badge(&app, &tiles[1]).then_some(()))
    })
    .unwrap();
    assert!(!read_badge(&app, &tiles[0]) && !read_badge(&app, &tiles[2]));

    // #3's menu: ↓ to "Mark series as read", Enter: every comic of the series is read.
    focus(&tiles[2]);
    press_shift_f10(&app);
    app.wait_for_displayed(&sel("book-menu")).unwrap();
    press(&app, &[DOWN]);
    assert_eq!(focused_testid(&app), json!("book-menu-series-read"));
    assert_eq!(
        app.find(&sel("book-menu-series-read"))
            .unwrap()
            .inner_text()
            .unwrap()
            .trim(),
        "Mark series as read"
    );
    press(&app, &[ENTER]);
    app.wait_until("every Read mark of the series", default_timeout(), |_| {
        Ok(tiles.iter().all(|t| read_badge(&app, t)).then_some(()))
    })
    .unwrap();
    assert!(
        !read_badge(&app, &epub_tile),
        "a book of another series is left as it was"
    );
    // The focus is back on the tile.
    assert_eq!(focused_testid(&app), json!("catalog-book"));

    // The details panel marks the series unread.
    app.find(&tiles[0]).unwrap().click().unwrap();
    app.wait_for_displayed(&sel("mark-series-unread"))
        .unwrap()
        .click()
        .unwrap();
    app.wait_until("no Read mark in the series", default_timeout(), |_| {
        Ok(tiles.iter().all(|t| !read_badge(&app, t)).then_some(()))
    })
    .unwrap();
    app.wait_for_text(&sel("details-read"), "Not read yet")
        .unwrap();

    app.close().unwrap();
    server.stop();
}

fn press_shift_f10(app: &App) {
    chord(app, &[SHIFT], &[F10], "perform key actions");
}

/// Two pages at a time, the third page (index 2) shows with the second as pages 2–3; "Shift
/// pages" on, the same page shows with the fourth, pages 3–4.
#[test]
fn shift_pages_moves_the_two_page_spreads_by_one() {
    let case = TestCase::start();
    let (server, app) = series_library(&case);
    let third = server.book(4).unwrap(); // #3, six pages
    let id = open_comic(&app, &third.title);
    wait_for_pages(&app, id, &[0]);
    app.find(&sel("layout-spread")).unwrap().click().unwrap();
    press(&app, &[RIGHT]);
    wait_for_pages(&app, id, &[1, 2]);
    wait_for_indicator(&app, "Pages 2–3 of 6");
    assert!(app.find_all(&sel("spread-offset")).unwrap().len() == 1);
    assert!(!spread_shifted(&app), "not shifted at first");

    // Shifted: page 2 stands alone and the pair starts at page 3.
    app.find(&sel("spread-offset")).unwrap().click().unwrap();
    press(&app, &[RIGHT]);
    wait_for_pages(&app, id, &[2, 3]);
    wait_for_indicator(&app, "Pages 3–4 of 6");
    assert!(spread_shifted(&app), "shifted");
    press(&app, &[LEFT]);
    wait_for_pages(&app, id, &[1]);
    press(&app, &[RIGHT, RIGHT]);
    wait_for_pages(&app, id, &[4, 5]);

    // Off again: back to the pairs from page 2.
    app.find(&sel("spread-offset")).unwrap().click().unwrap();
    wait_for_pages(&app, id, &[3, 4]);

    app.close().unwrap();
    server.stop();
}

/// The computed CSS filter of the page image on screen.
fn page_filter(app: &App) -> String {
    app.execute(
        "const img = document.querySelector('[data-testid=\"page-image\"]');
         return img ? getComputedStyle(img).filter : null;",
        vec![],
    )
    .unwrap()
    .as_str()
    .unwrap_or_default()
    .to_string()
}

fn slide(app: &App, testid: &str, value: u32) {
    app.execute(
        "const input = document.querySelector(arguments[0]);
         input.value = String(arguments[1]);
         input.dispatchEvent(new Event('input', { bubbles: true }));
         input.dispatchEvent(new Event('change', { bubbles: true }));",
        vec![json!(sel(testid)), json!(value)],
    )
    .unwrap();
}

/// Whether the "shift pages" toggle of the spread reads as pressed.
fn spread_shifted(app: &App) -> bool {
    let pressed = app
        .find(&sel("spread-offset"))
        .unwrap()
        .attribute("aria-pressed")
        .unwrap();
    match pressed.as_deref() {
        Some("true") => true,
        Some("false") => false,
        other => panic!("aria-pressed of the shift toggle: {other:?}"),
    }
}

/// Brightness and warmth set on a book stay with it: closed and opened again, its page is drawn
/// with the same filter; another book is drawn as scanned.
#[test]
fn image_adjustments_stay_with_the_book_when_it_is_opened_again() {
    let case = TestCase::start();
    let (server, app) = series_library(&case);
    let (first, second) = (server.book(1).unwrap(), server.book(2).unwrap());
    let id = open_comic(&app, &first.title);
    wait_for_pages(&app, id, &[0]);
    assert_eq!(page_filter(&app), "none");

    app.find(&sel("adjust-toggle")).unwrap().click().unwrap();
    app.wait_for_displayed(&sel("adjust-panel")).unwrap();
    slide(&app, "adjust-brightness", 120);
    slide(&app, "adjust-warmth", 50);
    let expected = "brightness(1.2) sepia(0.3) hue-rotate(-5deg)";
    app.wait_until("the adjusted filter", default_timeout(), |_| {
        Ok((page_filter(&app) == expected).then_some(()))
    })
    .unwrap_or_else(|e| panic!("{e}: {}", page_filter(&app)));

    // Closed and opened again: the same filter.
    press(&app, &["\u{E00C}"]); // Esc closes the panel
    app.wait_for_hidden(&sel("adjust-panel")).unwrap();
    app.find(&sel("reader-back")).unwrap().click().unwrap();
    app.wait_for_hidden(&sel("comic-reader")).unwrap();
    let again = open_comic(&app, &first.title);
    assert_eq!(again, id);
    wait_for_pages(&app, id, &[0]);
    app.wait_until("the filter kept", default_timeout(), |_| {
        Ok((page_filter(&app) == expected).then_some(()))
    })
    .unwrap_or_else(|e| panic!("{e}: {}", page_filter(&app)));

    // Another book is as scanned.
    app.find(&sel("reader-back")).unwrap().click().unwrap();
    app.wait_for_hidden(&sel("comic-reader")).unwrap();
    let other = open_comic(&app, &second.title);
    wait_for_pages(&app, other, &[0]);
    assert_eq!(page_filter(&app), "none");

    app.close().unwrap();
    server.stop();
}
