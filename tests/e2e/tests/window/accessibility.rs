//! Accessibility, measured in the real window: axe-core (WCAG 2.0 and 2.1 A and AA, and axe's
//! best practices) run on every screen — Home, the Add server dialog, a catalog feed, search
//! results, a book's details, Books on this device, Downloads, Settings, the comic, PDF and EPUB
//! readers and the card at the end of a book — in the light theme and in the dark one; and a
//! reader who uses only the keyboard, from adding a server to keeping a book and changing a
//! setting, with the focus always to be seen.
//!
//! A `serious` or `critical` finding fails the test, as does any other finding not in
//! [`ALLOWED`] (with the reason it is accepted). Every finding is printed.
//!
//! Run: `xvfb-run -a dbus-run-session -- cargo test -p carrel-e2e accessibility -- --test-threads=1`
//! after `npm ci --prefix ui && npm run --prefix ui build && cargo build -p carrel`.

use std::time::Duration;

use crate::support::{
    add_server, chord, first_line, given_file, launch, make_test_pdf, press, sel, start_server,
    wait_for_element, wait_for_feed, END, ENTER, ESCAPE, LEFT, RIGHT, SHIFT, SPACE, TAB,
};
use carrel_e2e::accessibility::{run_axe, Violation};
use carrel_e2e::{default_timeout, App, TestCase};
use fixture_server::{BookInfo, Config, RunningServer};
use serde_json::{json, Value};

/// Findings below `serious` that are accepted, by rule id, each with why.
const ALLOWED: &[(&str, &str)] = &[];

/// What axe found on the screens visited, screen by screen and theme by theme.
#[derive(Default)]
struct Audit {
    findings: Vec<(String, &'static str, Violation)>,
    screens: usize,
}

impl Audit {
    /// Runs axe on what is shown, in the light theme and in the dark one.
    fn check(&mut self, app: &App, screen: &str) {
        for theme in ["light", "dark"] {
            set_theme(app, theme);
            let violations = run_axe(app)
                .unwrap_or_else(|e| panic!("axe-core did not run on {screen} ({theme}): {e}"));
            eprintln!(
                "carrel-e2e: axe on {screen} ({theme}): {} rule(s) broken",
                violations.len()
            );
            for v in violations {
                eprint!("carrel-e2e:   {v}");
                self.findings.push((screen.to_string(), theme, v));
            }
            self.screens += 1;
        }
        set_theme(app, "light");
    }

    /// Fails on any serious or critical finding and on any other not allowed; prints them all.
    fn assert_clean(&self) {
        let mut report = String::new();
        let mut failing = 0;
        for (screen, theme, v) in &self.findings {
            let allowed = !v.is_serious() && ALLOWED.iter().any(|(id, _)| *id == v.id);
            if !allowed {
                failing += 1;
            }
            report.push_str(&format!(
                "{} {screen} ({theme}): {v}",
                if allowed { "allowed" } else { "FAILS" }
            ));
        }
        eprintln!(
            "carrel-e2e: axe checked {} screens; findings:\n{report}",
            self.screens
        );
        assert!(
            failing == 0,
            "{failing} accessibility finding(s) on the screens visited:\n{report}"
        );
    }
}

/// Wears `theme` the way the app does (theme.ts: `data-theme` on the root, remembered in local
/// storage) and waits for the colours to settle.
fn set_theme(app: &App, theme: &str) {
    app.execute(
        "document.documentElement.dataset.theme = arguments[0];
         try { localStorage.setItem('carrel.theme', arguments[0]); } catch {}",
        vec![json!(theme)],
    )
    .unwrap();
    app.settle().unwrap();
}

// ---- moving around ---------------------------------------------------------------------------
fn open_server(app: &App) {
    app.wait_for(&sel("server-open")).unwrap().click().unwrap();
    app.wait_for_displayed(&sel("browse-view")).unwrap();
    wait_for_feed(app);
}

fn follow(app: &App, title: &str) {
    wait_for_element(
        app,
        &sel("catalog-nav-entry"),
        &format!("a navigation entry {title:?}"),
        |t| first_line(t) == title,
    )
    .click()
    .unwrap();
    app.wait_for_text(&sel("breadcrumbs"), title).unwrap();
    wait_for_feed(app);
    app.wait_for_displayed(&sel("catalog-book")).unwrap();
}

/// Opens the details of the book titled `title` in the grid shown; returns its id.
fn open_details(app: &App, title: &str) -> i64 {
    let tile = wait_for_element(app, &sel("catalog-book"), title, |t| first_line(t) == title);
    let id: i64 = tile
        .attribute("data-book-id")
        .unwrap()
        .unwrap()
        .parse()
        .unwrap();
    tile.click().unwrap();
    app.wait_for_displayed(&format!("{}[data-book-id=\"{id}\"]", sel("book-details")))
        .unwrap();
    app.wait_for_text(&sel("details-title"), title).unwrap();
    id
}

/// Waits for covers and pictures shown to finish loading, so they are checked as seen.
fn images_loaded(app: &App) {
    app.wait_until("the pictures to load", default_timeout(), |c| {
        let done = c.execute(
            "return [...document.images].every((i) => i.complete);",
            vec![],
        )?;
        Ok((done == json!(true)).then_some(()))
    })
    .unwrap();
}

/// Escape until the reader is gone (the first may close only a card or a panel over the page).
/// Opens the book titled `title` from the server's "All books" in the page reader, and waits
/// for its first page (of 3) to be shown.
fn read_from_all_books(app: &App, title: &str) {
    open_server(app);
    follow(app, "All books");
    let id = open_details(app, title);
    app.find(&sel("read-book")).unwrap().click().unwrap();
    app.wait_for_displayed(&format!("{}[data-book-id=\"{id}\"]", sel("comic-reader")))
        .unwrap();
    app.wait_for_text(&sel("page-indicator"), "Page 1 of 3")
        .unwrap();
    images_loaded(app);
}

fn leave_reader(app: &App) {
    app.wait_until("the reader to close", default_timeout(), |c| {
        if c.exists(&sel("book-details"))? && !c.exists(&sel("comic-reader"))? {
            return Ok(Some(()));
        }
        press(app, &[ESCAPE]);
        std::thread::sleep(Duration::from_millis(300));
        Ok(None)
    })
    .unwrap();
}

/// The app's window, at the size every check here is made in.
fn launch_audited(case: &TestCase) -> App {
    let app = launch(case);
    app.set_window_size(1280.0, 860.0).unwrap();
    app
}

/// A fixture of `books` books whose first is a comic of `pages` pages; and that first book.
fn first_book_a_comic(books: u32, pages: u32) -> (RunningServer, BookInfo) {
    let server = start_server(Config {
        books,
        comic_pages: [(1, pages)].into(),
        ..Config::default()
    });
    let first = server.book(1).unwrap();
    (server, first)
}

fn comic_file_server(pdf: Vec<u8>) -> RunningServer {
    // Book 1 and 2: a short comic series; 3: an EPUB (every third book); 4: a PDF.
    start_server(Config {
        books: 4,
        comic_pages: [(1, 3), (2, 3)].into(),
        files: [(4, given_file("application/pdf", "pdf", pdf))].into(),
        ..Config::default()
    })
}

// ---- the tests -----------------------------------------------------------------------------------

#[test]
fn every_library_screen_meets_wcag_aa_in_the_light_and_dark_themes() {
    let case = TestCase::start();
    let (server, first) = first_book_a_comic(6, 3);
    let app = launch_audited(&case);
    let mut audit = Audit::default();

    app.wait_for_displayed(&sel("add-server-button")).unwrap();
    audit.check(&app, "Home, no server yet");

    carrel_e2e::open_server_dialog(&app).unwrap();
    app.wait_for(&sel("server-url"))
        .unwrap()
        .fill(&server.url("/opds"))
        .unwrap();
    app.wait_for_text(&sel("server-found"), "OPDS").unwrap();
    audit.check(&app, "the Add server dialog");
    press(&app, &[ESCAPE]);
    app.wait_for_hidden(&sel("add-server-dialog")).unwrap();

    add_server(&app, "Fixture Library", &server.url("/opds"));
    app.find(&sel("home-nav")).unwrap().click().unwrap();
    app.wait_for_displayed(&sel("continue-reading")).unwrap();
    audit.check(&app, "Home");

    open_server(&app);
    audit.check(&app, "the catalog's root feed");
    follow(&app, "All books");
    images_loaded(&app);
    audit.check(&app, "a catalog feed of books");

    let word = first.title.split_whitespace().last().unwrap().to_string();
    let search = app.find(&sel("search-input")).unwrap();
    search.clear().unwrap();
    search.send_keys(&format!("{word}{ENTER}")).unwrap();
    app.wait_for_text("#browse-title", &word).unwrap();
    wait_for_feed(&app);
    images_loaded(&app);
    audit.check(&app, "the server's search results");

    let id = open_details(&app, &first.title);
    images_loaded(&app);
    audit.check(&app, "a book's details");
    app.wait_for(&sel("keep-offline")).unwrap().click().unwrap();
    app.wait_until("the book on the device", Duration::from_secs(60), |c| {
        let badge = format!("{} {}", sel("book-details"), sel("book-state-badge"));
        Ok(match c.try_find(&badge)? {
            Some(b) => (b.attribute("data-state")?.as_deref() == Some("stored")).then_some(()),
            None => None,
        })
    })
    .unwrap();
    audit.check(&app, "a book's details, kept offline");

    app.find(&sel("search-nav")).unwrap().click().unwrap();
    app.wait_for_displayed(&sel("search-view")).unwrap();
    app.wait_for(&sel("everywhere-search-input"))
        .unwrap()
        .send_keys(&format!("{word}{ENTER}"))
        .unwrap();
    app.wait_until("the server's answer", default_timeout(), |c| {
        let groups = c.find_all(&sel("search-group"))?;
        for g in &groups {
            if g.attribute("data-state")?.as_deref() == Some("searching") {
                return Ok(None);
            }
        }
        Ok((!groups.is_empty()).then_some(()))
    })
    .unwrap();
    images_loaded(&app);
    audit.check(&app, "Search everywhere's results");

    app.find(&sel("on-device-nav")).unwrap().click().unwrap();
    app.wait_for_displayed(&sel("on-device-view")).unwrap();
    app.wait_for_displayed(&format!("[data-book-id=\"{id}\"]"))
        .unwrap();
    images_loaded(&app);
    audit.check(&app, "Books on this device");

    app.find(&sel("downloads-nav")).unwrap().click().unwrap();
    app.wait_for_displayed(&sel("downloads-view")).unwrap();
    audit.check(&app, "Downloads");

    app.find(&sel("settings-nav")).unwrap().click().unwrap();
    app.wait_for_displayed(&sel("settings-view")).unwrap();
    app.wait_for_displayed(&sel("settings-theme-light")).ok();
    audit.check(&app, "Settings");

    app.close().unwrap();
    server.stop();
    audit.assert_clean();
}

#[test]
fn every_reader_meets_wcag_aa_in_the_light_and_dark_themes() {
    let case = TestCase::start();
    let server = comic_file_server(make_test_pdf("book", "3"));
    let title = |id: u32| server.book(id).unwrap().title;
    let app = launch_audited(&case);
    add_server(&app, "Fixture Library", &server.url("/opds"));
    let mut audit = Audit::default();

    // The comic, then past its last page: the end card.
    read_from_all_books(&app, &title(1));
    audit.check(&app, "the comic reader");
    press(&app, &[END]);
    app.wait_for_text(&sel("page-indicator"), "Page 3 of 3")
        .unwrap();
    press(&app, &[RIGHT]);
    app.wait_for_displayed(&sel("reader-end-card")).unwrap();
    audit.check(&app, "the end card of a comic");
    leave_reader(&app);

    // The PDF.
    read_from_all_books(&app, &title(4));
    audit.check(&app, "the PDF reader");
    leave_reader(&app);

    // The EPUB.
    open_server(&app);
    follow(&app, "All books");
    let id = open_details(&app, &title(3));
    app.find(&sel("read-book")).unwrap().click().unwrap();
    app.wait_for_displayed(&format!(
        "{}[data-book-id=\"{id}\"][data-phase=\"ready\"]",
        sel("epub-reader")
    ))
    .unwrap();
    audit.check(&app, "the EPUB reader");
    // A page turned in the EPUB is said as how far into the book it is.
    listen_to_announcements(&app);
    press(&app, &[RIGHT]);
    let mut said = Value::Null;
    app.wait_until("the EPUB's place to be said", default_timeout(), |c| {
        said = c.execute("return window.__said || [];", vec![])?;
        let found = said.as_array().is_some_and(|a| {
            a.iter().any(|s| {
                s.as_str()
                    .is_some_and(|s| s.trim().ends_with("% through the book"))
            })
        });
        Ok(found.then_some(()))
    })
    .unwrap_or_else(|e| panic!("{e}; the live region said {said}"));

    app.close().unwrap();
    server.stop();
    audit.assert_clean();
}

// ---- the keyboard alone --------------------------------------------------------------------------

/// What has the focus: its test id (or tag and text), and whether it is drawn focused (a
/// visible outline or a box shadow).
fn focused(app: &App) -> (String, bool) {
    let v: Value = app
        .execute(
            "const e = document.activeElement;
             if (!e || e === document.body) return ['body', false];
             // The ring may be drawn by the element or by a pseudo-element over it (a card's).
             const drawn = [null, '::before', '::after'].some((pseudo) => {
               const s = getComputedStyle(e, pseudo);
               const outline = s.outlineStyle !== 'none' && parseFloat(s.outlineWidth) > 0;
               const shadow = !!s.boxShadow && s.boxShadow !== 'none';
               return outline || shadow;
             });
             const name = e.dataset.testid || (e.tagName.toLowerCase() + ':' + (e.getAttribute('aria-label') || e.textContent || '').trim().slice(0, 40));
             return [name, drawn];",
            vec![],
        )
        .unwrap();
    (
        v[0].as_str().unwrap_or_default().to_string(),
        v[1].as_bool().unwrap_or(false),
    )
}

/// Presses Shift+Tab.
fn shift_tab(app: &App) {
    chord(app, &[SHIFT], &[TAB], "shift+tab");
}

/// Presses Tab (Shift+Tab when `back`) until the element matching `selector` has the focus,
/// checking on the way that every element focused is drawn so; panics after `max` presses.
fn tab_to(app: &App, selector: &str, back: bool, max: usize) {
    let mut path = Vec::new();
    for _ in 0..max {
        if back {
            shift_tab(app);
        } else {
            press(app, &[TAB]);
        }
        let (name, drawn) = focused(app);
        assert!(
            drawn || name == "body",
            "{name} has the focus but shows no outline or shadow (Tab path {path:?})"
        );
        path.push(name);
        let here = app
            .execute(
                "return !!document.activeElement && document.activeElement.matches(arguments[0]);",
                vec![json!(selector)],
            )
            .unwrap();
        if here == json!(true) {
            return;
        }
    }
    panic!("`{selector}` not reached by {max} presses of Tab; focus went {path:?}");
}

/// Types `text` into what has the focus, key by key.
fn type_keys(app: &App, text: &str) {
    let keys: Vec<String> = text.chars().map(|c| c.to_string()).collect();
    let keys: Vec<&str> = keys.iter().map(String::as_str).collect();
    press(app, &keys);
}

/// Keeps, in the page, everything the live region says from now on (`window.__said`).
fn listen_to_announcements(app: &App) {
    app.execute(
        "window.__said = [];
         const region = document.querySelector('[data-testid=\"live-announcer\"]');
         new MutationObserver(() => window.__said.push(region.textContent.trim()))
           .observe(region, { childList: true, characterData: true, subtree: true });",
        vec![],
    )
    .unwrap();
}

/// Waits until the live region has said `text` (since [`listen_to_announcements`]).
fn wait_said(app: &App, text: &str) {
    let mut said = Value::Null;
    app.wait_until(&format!("{text:?} to be said"), default_timeout(), |c| {
        said = c.execute("return window.__said || [];", vec![])?;
        let found = said.as_array().is_some_and(|a| {
            a.iter()
                .any(|s| s.as_str().is_some_and(|s| s.trim() == text))
        });
        Ok(found.then_some(()))
    })
    .unwrap_or_else(|e| panic!("{e}; the live region said {said}"));
}

fn assert_focus_on(app: &App, selector: &str, what: &str) {
    app.wait_until(what, default_timeout(), |c| {
        let here = c.execute(
            "return !!document.activeElement && document.activeElement.matches(arguments[0]);",
            vec![json!(selector)],
        )?;
        Ok((here == json!(true)).then_some(()))
    })
    .unwrap_or_else(|e| panic!("{e}; the focus is on {:?}", focused(app)));
}

#[test]
fn with_the_keyboard_alone_a_reader_adds_a_server_reads_keeps_a_book_and_changes_a_setting() {
    let case = TestCase::start();
    let (server, first) = first_book_a_comic(4, 4);
    let app = launch_audited(&case);
    app.wait_for_displayed(&sel("add-server-button")).unwrap();

    // Add the server: Tab to "Add server", Enter, type the address, Enter.
    tab_to(&app, &sel("add-server-button"), false, 30);
    press(&app, &[ENTER]);
    app.wait_for_displayed(&sel("add-server-dialog")).unwrap();
    // The dialog keeps the focus: Shift+Tab round and round never leaves it; Esc closes it
    // and gives the focus back to the button that opened it.
    let inside = format!("{0} *, {0}", sel("add-server-dialog"));
    assert_focus_on(&app, &inside, "the focus in the dialog");
    for _ in 0..12 {
        shift_tab(&app);
        assert_focus_on(&app, &inside, "the focus kept in the dialog");
    }
    press(&app, &[ESCAPE]);
    app.wait_for_hidden(&sel("add-server-dialog")).unwrap();
    assert_focus_on(
        &app,
        &sel("add-server-button"),
        "the focus back on Add server",
    );
    press(&app, &[ENTER]);
    app.wait_for_displayed(&sel("add-server-dialog")).unwrap();
    tab_to(&app, &sel("server-url"), false, 10);
    type_keys(&app, &server.url("/opds"));
    app.wait_for_text(&sel("server-found"), "OPDS").unwrap();
    press(&app, &[ENTER]);
    app.wait_for_hidden(&sel("add-server-dialog")).unwrap();
    app.wait_for_text(&sel("server-item"), "Carrel Fixture Library")
        .unwrap();

    // Into the server's catalog, then "All books".
    tab_to(&app, &sel("server-open"), false, 30);
    press(&app, &[ENTER]);
    app.wait_for_displayed(&sel("browse-view")).unwrap();
    wait_for_feed(&app);
    tab_to(&app, &sel("catalog-nav-entry"), false, 30);
    // The first entry is "All books"; Enter follows it.
    let (name, _) = focused(&app);
    let text = app
        .execute("return document.activeElement.innerText", vec![])
        .unwrap();
    assert!(
        text.as_str().unwrap_or_default().contains("All books"),
        "the first entry reached is {name}: {text}"
    );
    press(&app, &[ENTER]);
    app.wait_for_text(&sel("breadcrumbs"), "All books").unwrap();
    wait_for_feed(&app);

    // The first book: its details.
    tab_to(&app, &sel("catalog-book"), false, 30);
    let mut seen = Vec::new();
    for _ in 0..8 {
        let text = app
            .execute("return document.activeElement.innerText", vec![])
            .unwrap();
        let text = first_line(text.as_str().unwrap_or_default());
        if text == first.title {
            break;
        }
        seen.push(text);
        press(&app, &[RIGHT]);
    }
    press(&app, &[ENTER]);
    app.wait_for_displayed(&sel("book-details")).unwrap();
    app.wait_for_text(&sel("details-title"), &first.title)
        .unwrap_or_else(|e| panic!("{e}; the books passed: {seen:?}"));
    listen_to_announcements(&app);

    // Keep it offline: Tab on to the button, Enter; its arrival is said.
    tab_to(&app, &sel("keep-offline"), false, 10);
    press(&app, &[ENTER]);
    wait_said(&app, &format!("{} is ready to read offline", first.title));

    // Read: back to the button with Shift+Tab, Enter; the arrows and Space turn pages.
    tab_to(&app, &sel("read-book"), true, 10);
    press(&app, &[ENTER]);
    app.wait_for_displayed(&sel("comic-reader")).unwrap();
    app.wait_for_text(&sel("page-indicator"), "Page 1 of 4")
        .unwrap();
    press(&app, &[RIGHT]);
    app.wait_for_text(&sel("page-indicator"), "Page 2 of 4")
        .unwrap();
    press(&app, &[SPACE]);
    app.wait_for_text(&sel("page-indicator"), "Page 3 of 4")
        .unwrap();
    press(&app, &[LEFT]);
    app.wait_for_text(&sel("page-indicator"), "Page 2 of 4")
        .unwrap();
    // Each page turned to is said to a screen reader.
    for page in ["Page 2 of 4", "Page 3 of 4"] {
        wait_said(&app, page);
    }
    press(&app, &[ESCAPE]);
    app.wait_for_displayed(&sel("book-details")).unwrap();
    // The focus comes back to the book's details, where the reader left for the book.
    assert_focus_on(
        &app,
        &format!("{0}, {0} *", sel("book-details")),
        "the focus back in the book's details",
    );

    // A setting: back up to Settings with Shift+Tab, Enter, then the dark theme by arrows.
    tab_to(&app, &sel("settings-nav"), true, 60);
    press(&app, &[ENTER]);
    app.wait_for_displayed(&sel("settings-view")).unwrap();
    tab_to(&app, "input[name=\"theme\"]", false, 30);
    let before = app
        .execute(
            "return document.documentElement.dataset.theme || 'system'",
            vec![],
        )
        .unwrap();
    press(&app, &[RIGHT]);
    app.wait_until("another theme", default_timeout(), |c| {
        let now = c.execute(
            "return document.documentElement.dataset.theme || 'system'",
            vec![],
        )?;
        Ok((now != before).then_some(()))
    })
    .unwrap();

    app.close().unwrap();
    server.stop();
}
