//! The PDF reader beyond its pages, end to end: search in the book (Ctrl+F), bookmarks
//! (Ctrl+D) and highlights with notes on a page's text, kept by the book and exported, in the
//! real window reading a PDF made by ReportLab and served by the fixture server.
//!
//! Run: `xvfb-run -a dbus-run-session -- cargo test -p carrel-e2e pdf_depth:: -- --test-threads=1`
//! after `npm run --prefix ui build && cargo build -p carrel`.

use carrel_e2e::{default_timeout, save_docs_screenshot, App, TestCase};
use fixture_server::{Config, RunningServer};
use serde_json::{json, Value};

use crate::support::{
    app_on_server, chord, exported_markdown, given_file, highlight_selection, highlight_with_note,
    invoke, listed_note, make_test_pdf, mouse_at, open_comic_reader, open_details, press, sel,
    CTRL, RIGHT, SHIFT,
};

const BOOK: u32 = 1;
/// The test book's pages: each has "Page N" and "of 6" on it, so "page" is found 6 times.
const PAGES: u32 = 6;

/// The app with the fixture server's first book a PDF, opened in the reader at page 1.
fn open_pdf() -> (TestCase, RunningServer, App, i64) {
    let case = TestCase::start();
    let pdf = make_test_pdf("book", &PAGES.to_string());
    let config = Config {
        books: 3,
        files: [(BOOK, given_file("application/pdf", "pdf", pdf))].into(),
        ..Config::default()
    };
    let (server, app) = app_on_server(&case, config, "calibre", None);
    let title = server.book(BOOK).unwrap().title;
    let id = open_details(&app, &title, true);
    read(&app, id);
    (case, server, app, id)
}

/// From the book's details: Read (or Continue reading), and the first page's text laid over it.
fn read(app: &App, id: i64) {
    open_comic_reader(app, id);
    app.wait_for(&sel("pdf-text-layer")).unwrap();
}

/// A key pressed with Ctrl held down.
fn ctrl(app: &App, key: &str) {
    chord(app, &[CTRL], &[key], "press a Ctrl chord");
}

fn annotations(app: &App, id: i64) -> Vec<Value> {
    invoke(app, "list_annotations", json!({ "bookId": id }))["ok"]
        .as_array()
        .cloned()
        .unwrap_or_default()
}

/// The page (1-based) the search marks as the place shown, once it is drawn on it.
fn current_mark_page(app: &App) -> u32 {
    app.wait_until("the place shown marked on its page", default_timeout(), |_| {
        let page = app.execute(
            "const mark = document.querySelector('[data-testid=\"pdf-search-current\"]');
             const layer = mark && mark.closest('[data-testid=\"pdf-page-layer\"]');
             const box = mark && mark.getBoundingClientRect();
             return layer && box.width > 0 && box.height > 0 ? Number(layer.dataset.page) + 1 : null;",
            vec![],
        )?;
        Ok(page.as_u64().map(|p| p as u32))
    })
    .unwrap()
}

#[test]
fn ctrl_f_finds_every_page_of_a_word_in_a_pdf_and_enter_moves_between_them() {
    let (_case, server, app, _id) = open_pdf();
    // Reading page 3 when the search opens: Esc comes back to it.
    press(&app, &["\u{E014}", "\u{E014}"]); // ArrowRight twice
    app.wait_for_text(&sel("page-indicator"), "Page 3 of 6")
        .unwrap();
    ctrl(&app, "f");
    let field = app.wait_for_displayed(&sel("pdf-search-field")).unwrap();
    field.send_keys("PAGE\u{E007}").unwrap(); // Enter
    app.wait_for_displayed(&format!(
        "{}[data-count=\"{PAGES}\"]",
        sel("pdf-search-count")
    ))
    .unwrap();
    assert_eq!(
        app.find(&sel("pdf-search-count")).unwrap().text().unwrap(),
        "6 results"
    );
    // Listed by page, each with the words around it.
    let groups = app
        .execute(
            "return [...document.querySelectorAll('[data-testid=\"pdf-search\"] h3')].map((h) => h.textContent);",
            vec![],
        )
        .unwrap();
    assert_eq!(
        groups,
        json!(["Page 1", "Page 2", "Page 3", "Page 4", "Page 5", "Page 6"])
    );
    let hits: Vec<String> = app
        .find_all(&sel("pdf-search-hit"))
        .unwrap()
        .iter()
        .map(|h| h.text().unwrap())
        .collect();
    assert!(hits[3].contains("Page 4"), "{hits:?}");
    save_docs_screenshot(&app, "pdf-search.png").unwrap();

    // Enter: the first place, on page 1, marked there; Enter again: page 2; Shift+Enter: back.
    field.send_keys("\u{E007}").unwrap();
    app.wait_for_text(&sel("page-indicator"), "Page 1 of 6")
        .unwrap();
    assert_eq!(current_mark_page(&app), 1);
    field.send_keys("\u{E007}").unwrap();
    app.wait_for_text(&sel("page-indicator"), "Page 2 of 6")
        .unwrap();
    assert_eq!(current_mark_page(&app), 2);
    field.send_keys("\u{E008}\u{E007}\u{E008}").unwrap(); // Shift+Enter
    app.wait_for_text(&sel("page-indicator"), "Page 1 of 6")
        .unwrap();
    assert_eq!(current_mark_page(&app), 1);
    app.wait_for_displayed(&format!("{}[aria-current=\"true\"]", sel("pdf-search-hit")))
        .unwrap();

    // Esc: the search closes and the reader is back on page 3, nothing marked.
    field.send_keys("\u{E00C}").unwrap();
    app.wait_for_hidden(&sel("pdf-search")).unwrap();
    app.wait_for_text(&sel("page-indicator"), "Page 3 of 6")
        .unwrap();
    assert!(app.find_all(&sel("pdf-search-current")).unwrap().is_empty());
    app.close().unwrap();
    server.stop();
}

#[test]
fn a_pdf_bookmark_and_a_highlight_with_a_note_survive_closing_the_book() {
    let (_case, server, app, id) = open_pdf();
    press(&app, &["\u{E014}"]); // ArrowRight: page 2
    app.wait_for_text(&sel("page-indicator"), "Page 2 of 6")
        .unwrap();
    ctrl(&app, "d");
    app.wait_for_displayed(&format!("{}[aria-pressed=\"true\"]", sel("pdf-bookmark")))
        .unwrap();
    // Page 2's text laid over it.
    app.wait_for(
        "[data-testid=\"pdf-page-layer\"][data-page=\"1\"] [data-testid=\"pdf-text-layer\"] span",
    )
    .unwrap();

    // "Page 2" selected on the page's text, as a drag would select it.
    app.execute(
        "const layer = document.querySelector('[data-testid=\"pdf-page-layer\"][data-page=\"1\"] [data-testid=\"pdf-text-layer\"]');
         const span = [...layer.querySelectorAll('span')].find((s) => s.textContent.includes('Page 2'));
         const text = span.firstChild;
         const start = text.textContent.indexOf('Page 2');
         const range = document.createRange();
         range.setStart(text, start);
         range.setEnd(text, start + 'Page 2'.length);
         const selection = document.getSelection();
         selection.removeAllRanges();
         selection.addRange(range);
         span.dispatchEvent(new PointerEvent('pointerup', { bubbles: true }));",
        vec![],
    )
    .unwrap();
    highlight_with_note(&app, "pdf", "The second page", "green");
    let saved = app
        .wait_until("the highlight saved", default_timeout(), |_| {
            let list = annotations(&app, id);
            Ok((list.len() == 2 && list.iter().any(|a| a["kind"] == "highlight")).then_some(list))
        })
        .unwrap();
    let highlight = saved.iter().find(|a| a["kind"] == "highlight").unwrap();
    assert_eq!(highlight["quote"], "Page 2");
    assert_eq!(highlight["note"], "The second page");
    assert_eq!(highlight["colour"], "green");
    assert_eq!(highlight["locator"]["type"], "pdf");
    assert_eq!(highlight["locator"]["page"], 1);
    assert_eq!(highlight["locator"]["quote"]["exact"], "Page 2");
    let rects = highlight["locator"]["rects"].as_array().unwrap();
    assert!(!rects.is_empty(), "{highlight}");
    let bookmark = saved.iter().find(|a| a["kind"] == "bookmark").unwrap();
    assert_eq!(bookmark["locator"]["page"], 1);
    assert_eq!(bookmark["chapter"], "Part 2");
    app.wait_for_displayed(&sel("pdf-highlight")).unwrap();

    // Closed and opened again: both listed, the highlight drawn over "Page 2" on its page.
    app.find(&sel("reader-back")).unwrap().click().unwrap();
    app.wait_for_hidden(&sel("comic-reader")).unwrap();
    read(&app, id);
    app.wait_for_text(&sel("page-indicator"), "Page 2 of 6")
        .unwrap();
    app.wait_for_displayed(&format!("{}[aria-pressed=\"true\"]", sel("pdf-bookmark")))
        .unwrap();
    let drawn = app.wait_for_displayed(&sel("pdf-highlight")).unwrap();
    assert_eq!(
        drawn.attribute("data-id").unwrap(),
        Some(highlight["id"].to_string())
    );
    // A click on the highlight on the page opens it with its note; pink changes its colour, and
    // the page does not turn.
    let centre = app
        .execute(
            "const box = document.querySelector('[data-testid=\"pdf-highlight\"]').getBoundingClientRect();
             return [box.left + box.width / 2, box.top + box.height / 2];",
            vec![],
        )
        .unwrap();
    mouse_at(
        &app,
        centre[0].as_f64().unwrap(),
        centre[1].as_f64().unwrap(),
        true,
    );
    app.wait_for_displayed(&sel("pdf-highlight-popover"))
        .unwrap();
    let written = app
        .execute(
            "return document.querySelector('[data-testid=\"pdf-highlight-note\"]').value;",
            vec![],
        )
        .unwrap();
    assert_eq!(written, "The second page");
    app.find(&sel("pdf-highlight-pink"))
        .unwrap()
        .click()
        .unwrap();
    app.wait_until("the highlight now pink", default_timeout(), |_| {
        Ok(annotations(&app, id)
            .iter()
            .any(|a| {
                a["kind"] == "highlight" && a["colour"] == "pink" && a["note"] == "The second page"
            })
            .then_some(()))
    })
    .unwrap();
    app.wait_for_text(&sel("page-indicator"), "Page 2 of 6")
        .unwrap();
    app.find(&sel("pdf-annotations-toggle"))
        .unwrap()
        .click()
        .unwrap();
    app.wait_for_displayed(&sel("pdf-annotations")).unwrap();
    let items = app.find_all(&sel("pdf-annotation")).unwrap();
    assert_eq!(items.len(), 2);
    assert_eq!(listed_note(&app, "pdf"), "The second page");
    save_docs_screenshot(&app, "pdf-highlights.png").unwrap();

    // The Markdown export holds the quote, its page and the note.
    let markdown = exported_markdown(&app, "pdf");
    assert!(markdown.contains("Page 2"), "{markdown}");
    assert!(markdown.contains("The second page"), "{markdown}");
    assert!(markdown.contains("p. 2"), "{markdown}");

    // A click on the bookmark in the list goes to its page.
    press(&app, &["\u{E00C}"]); // Esc: the export closes
    app.wait_for_hidden(&sel("pdf-export")).unwrap();
    app.execute(
        "document.querySelector('[data-testid=\"pdf-annotations-toggle\"]').focus();",
        vec![],
    )
    .unwrap();
    press(&app, &["\u{E011}"]); // Home: page 1
    app.wait_for_text(&sel("page-indicator"), "Page 1 of 6")
        .unwrap();
    app.find(&format!(
        "{}[data-kind=\"bookmark\"] button",
        sel("pdf-annotation")
    ))
    .unwrap()
    .click()
    .unwrap();
    app.wait_for_text(&sel("page-indicator"), "Page 2 of 6")
        .unwrap();
    app.close().unwrap();
    server.stop();
}

/// A PDF's text selected from the keyboard alone: Ctrl+Shift+→ selects the page's first word,
/// H offers to highlight it, and the highlight is kept with its quote and drawn.
#[test]
fn a_pdf_text_selected_with_the_keyboard_is_highlighted() {
    let (_case, server, app, id) = open_pdf();
    chord(&app, &[CTRL, SHIFT], &[RIGHT], "press Ctrl+Shift+Right");
    let selected = app
        .execute("return document.getSelection().toString();", vec![])
        .unwrap();
    assert_eq!(selected, "Page");
    // Still on page 1: Shift+→ selected, it did not turn.
    app.wait_for_text(&sel("page-indicator"), "Page 1 of 6")
        .unwrap();
    highlight_selection(&app, "pdf", "blue");
    let saved = app
        .wait_until("the highlight saved", default_timeout(), |_| {
            Ok(annotations(&app, id)
                .into_iter()
                .find(|a| a["kind"] == "highlight"))
        })
        .unwrap();
    assert_eq!(saved["quote"], "Page");
    assert_eq!(saved["colour"], "blue");
    assert_eq!(saved["locator"]["page"], 0);
    app.wait_for_displayed(&sel("pdf-highlight")).unwrap();
    app.close().unwrap();
    server.stop();
}
