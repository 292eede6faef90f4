//! Reading through the real window what real servers serve as whole files: a CBZ (Python's
//! zipfile) and a PDF (ReportLab) added to calibre's content server and to Calibre-Web, neither
//! of which streams pages. The real `carrel-cli` adds the server and walks its catalog on a data
//! dir; the real app (the window tests' harness: tauri-driver under Xvfb and a session bus) is
//! then launched on that data dir, opens each book's details, presses Read, and must paint page 1
//! ("Page 1 of N") and, after End, page N. Against Codex, a series of two comics found through
//! its Series View: past #1's last page the end card names #2, and one more turn opens it.
//! calibre's Quick Start Guide (an EPUB calibre made) served by calibre's content server is
//! searched in the EPUB reader: Ctrl+F finds a word as many times as the book's text has it.

use std::path::{Path, PathBuf};
use std::process::Command;

use carrel_e2e::{default_timeout, testid, App, LaunchOptions};

use crate::support::{self, Cli, Installed};
use crate::{calibre_server, calibre_web, codex};

/// Pages of the comic and of the PDF.
const COMIC_PAGES: u32 = 6;
const PDF_PAGES: u32 = 5;
/// The title ReportLab writes into the PDF, which calibre takes as the book's.
const PDF_TITLE: &str = "A Reader's Test Book";

/// The comic and the PDF, made in `dir`.
fn make_books(dir: &Path) -> Vec<PathBuf> {
    let mut books = support::make_comics(Path::new("python3"), dir, 1, COMIC_PAGES);
    let pdf = dir.join("Reader Test Book.pdf");
    let script = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../e2e/scripts/make-test-pdf.py"
    );
    // Debian's Python with Debian's ReportLab (make setup-test installs python3-reportlab).
    let status = Command::new("/usr/bin/python3")
        .arg(script)
        .args(["book", pdf.to_str().unwrap(), &PDF_PAGES.to_string()])
        .status()
        .expect("run /usr/bin/python3");
    assert!(status.success(), "make-test-pdf.py failed: {status}");
    books.push(pdf);
    books
}

/// Launches the app on the CLI's data dir (secrets in the same 0600 file).
fn launch(cli: &Cli) -> App {
    App::launch_with(
        LaunchOptions::new(&cli.data)
            .env("CARREL_SECRETS", "file")
            .env("CARREL_LOG", "info"),
    )
    .expect("launch the app (CARREL_APP, TAURI_DRIVER and a display: make test-interop sets them)")
}

/// Waits until page `page` (0-based) is the one painted in single-page mode.
fn painted(app: &App, page: u32) {
    carrel_e2e::wait_for_painted_page(app, page)
        .unwrap_or_else(|e| panic!("page {} was not painted: {e}\n{}", page + 1, app.log_text()));
}

/// Clicks `selector` once it is there, again if the window drew it anew meanwhile (a panel that
/// loads its book twice at start-up replaces its buttons).
fn click(app: &App, selector: &str) {
    let deadline = std::time::Instant::now() + default_timeout();
    loop {
        match app.wait_for(selector).and_then(|e| e.click()) {
            Ok(()) => return,
            Err(e)
                if e.to_string().contains("stale element")
                    && std::time::Instant::now() < deadline =>
            {
                std::thread::sleep(std::time::Duration::from_millis(100));
            }
            Err(e) => panic!("clicking {selector}: {e}"),
        }
    }
}

/// Opens book `id`'s details: its address, then the page loaded anew on it. The reload runs once
/// the script has answered (a page unloading under a script WebDriver waits on fails it), and the
/// wait lasts until the new page is ready (errors while the old one unloads are waited through).
fn open_details(app: &App, id: i64) {
    app.execute(
        "window.carrelPageBeforeReload = true;
         window.location.hash = `#/book/${arguments[0]}`;
         setTimeout(() => location.reload(), 100);
         return null;",
        vec![serde_json::json!(id)],
    )
    .unwrap();
    let mut last = String::new();
    app.wait_until("the page to load anew", default_timeout(), |c| {
        match c.execute(
            "return !window.carrelPageBeforeReload && document.readyState === 'complete';",
            vec![],
        ) {
            Ok(ready) => Ok((ready == serde_json::json!(true)).then_some(())),
            Err(e) => {
                last = e.to_string();
                Ok(None)
            }
        }
    })
    .unwrap_or_else(|e| panic!("the page did not load anew: {e} (last error: {last})"));
    app.wait_for_displayed(&format!(
        "{}[data-book-id=\"{id}\"]",
        testid("book-details")
    ))
    .unwrap();
}

/// Opens book `id`'s details, presses Read, and checks its first and last pages paint.
fn read_first_and_last_page(app: &App, id: i64, pages: u32) {
    open_details(app, id);
    click(app, &testid("read-book"));
    app.wait_for_displayed(&format!(
        "{}[data-book-id=\"{id}\"]",
        testid("comic-reader")
    ))
    .unwrap();
    painted(app, 0);
    app.wait_for_text(&testid("page-indicator"), &format!("Page 1 of {pages}"))
        .unwrap();
    app.find("body").unwrap().send_keys("\u{E010}").unwrap(); // End
    app.wait_for_text(
        &testid("page-indicator"),
        &format!("Page {pages} of {pages}"),
    )
    .unwrap();
    painted(app, pages - 1);
    app.find("body").unwrap().send_keys("\u{E00C}").unwrap(); // Escape
}

fn only_id(walk: &support::Walk, title: &str) -> i64 {
    let ids = walk
        .ids_by_title
        .get(title)
        .unwrap_or_else(|| panic!("{title} not found: {:?}", walk.ids_by_title.keys()));
    assert_eq!(
        ids.len(),
        1,
        "{title} has several local identities: {ids:?}"
    );
    *ids.iter().next().unwrap()
}

#[test]
fn calibre_content_server_cbz_and_pdf_read_through_the_window() {
    let installed = Installed::load();
    let _calibre = support::calibre_lock();
    let dir = tempfile::tempdir().unwrap();
    let books = make_books(&dir.path().join("files"));
    let server = calibre_server::serve(&installed, dir, &books);
    let cli = Cli::new();
    cli.add_server("calibre", &format!("{}/opds", server.base), None);
    read_the_comic_and_the_pdf(&cli, "calibre", 40);
}

#[test]
fn calibre_web_cbz_and_pdf_read_through_the_window_signed_in() {
    let installed = Installed::load();
    let dir = tempfile::tempdir().unwrap();
    let books = make_books(&dir.path().join("files"));
    let server = calibre_web::serve(&installed, dir, &books);
    let cli = Cli::new();
    cli.add_server(
        "cw",
        &format!("{}/opds", server.base),
        Some(calibre_web::ADMIN),
    );
    read_the_comic_and_the_pdf(&cli, "cw", 60);
}

/// Finds the comic and the PDF of [`make_books`] on `server` (walking at most `depth`
/// feeds), then reads each to its last page in the window.
fn read_the_comic_and_the_pdf(cli: &Cli, server: &str, depth: usize) {
    let walk = support::walk(cli, server, depth);
    let comic = only_id(&walk, "Interop Comic 01");
    let pdf = only_id(&walk, PDF_TITLE);
    let app = launch(cli);
    read_first_and_last_page(&app, comic, COMIC_PAGES);
    read_first_and_last_page(&app, pdf, PDF_PAGES);
    app.close().unwrap();
}

const RIGHT: &str = "\u{E014}";

/// Presses `key` as a reader does, on what has the focus (the end card's button once it shows).
fn press(app: &App, key: &str) {
    let actions = [
        serde_json::json!({ "type": "keyDown", "value": key }),
        serde_json::json!({ "type": "keyUp", "value": key }),
    ];
    app.command(
        "POST",
        "/actions",
        Some(serde_json::json!({ "actions": [{ "type": "key", "id": "keyboard", "actions": actions }] })),
        "perform key actions",
    )
    .unwrap();
}

/// The navigation entry of `feed` (a `carrel-cli browse` answer) titled `title`, whatever mark
/// precedes it (Codex writes "⊙ Series View"): its address.
fn navigation(feed: &serde_json::Value, title: &str) -> String {
    let named = |e: &serde_json::Value| {
        e["title"]
            .as_str()
            .is_some_and(|t| t.trim_start_matches(|c: char| !c.is_alphanumeric()) == title)
    };
    feed["entries"]
        .as_array()
        .unwrap()
        .iter()
        .find(|e| e["type"] == "navigation" && named(e))
        .and_then(|e| e["href"].as_str())
        .unwrap_or_else(|| panic!("no \"{title}\" in {feed:#}"))
        .to_owned()
}

/// Codex's series of two comics, found as a reader finds it: its Series View, then the series,
/// its issues in Codex's own order. #1 is opened in the real window and read to its last page;
/// one more turn forward shows the end card naming #2 as Codex gives it, and one more opens #2 at
/// page 1. `carrel-cli next` names #2 after #1 too.
#[test]
fn codex_series_end_card_names_the_next_issue_and_opens_it_at_page_1() {
    const PAGES: u32 = 4;
    let installed = Installed::load();
    let server = codex::start(&installed, 2, PAGES);
    let cli = Cli::new();
    cli.add_server("codex", &server.opds1(), Some(codex::ADMIN));

    let root = cli.json(&["browse", "codex"]);
    let series_view = cli.json(&["browse", "codex", &navigation(&root, "Series View")]);
    let series = cli.json(&[
        "browse",
        "codex",
        &navigation(&series_view, "Interop Series"),
    ]);
    let issues: Vec<&serde_json::Value> = series["entries"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|e| e["type"] == "book")
        .collect();
    assert_eq!(issues.len(), 2, "the series' issues: {series:#}");
    let (first, second) = (issues[0], issues[1]);
    let first_id = first["book_id"].as_i64().unwrap();
    let second_id = second["book_id"].as_i64().unwrap();
    let second_title = second["title"].as_str().unwrap().to_owned();
    // Codex puts the issue's number in its title ("Interop Series #2 Interop Comic 02"), and a
    // number of its own only where its entry gives one.
    assert!(
        first["title"].as_str().unwrap().contains("#1") && second_title.contains("#2"),
        "Codex's order of the series: {series:#}"
    );
    let number = second["series_index"].clone();

    // The CLI names #2 after #1.
    let next = cli.json(&["next", &first_id.to_string()]);
    assert_eq!(next["book_id"], second_id, "{next}");
    assert_eq!(next["title"], second_title.as_str(), "{next}");
    assert_eq!(next["number"], number, "{next}");
    assert_eq!(next["series"], "Interop Series", "{next}");
    let said = cli.ok(&["next", &first_id.to_string()]);
    assert!(
        said.trim_start().starts_with(&second_id.to_string()) && said.contains(&second_title),
        "carrel-cli next {first_id}: {said}"
    );

    // #1 in the window, to its last page, then one turn past it: the end card names #2.
    let app = launch(&cli);
    open_details(&app, first_id);
    click(&app, &testid("read-book"));
    let reader = |id: i64| format!("{}[data-book-id=\"{id}\"]", testid("comic-reader"));
    app.wait_for_displayed(&reader(first_id)).unwrap();
    painted(&app, 0);
    app.wait_for_text(&testid("page-indicator"), &format!("Page 1 of {PAGES}"))
        .unwrap();
    app.find("body").unwrap().send_keys("\u{E010}").unwrap(); // End
    app.wait_for_text(
        &testid("page-indicator"),
        &format!("Page {PAGES} of {PAGES}"),
    )
    .unwrap();
    painted(&app, PAGES - 1);
    press(&app, RIGHT);
    let card = format!("{}[data-which=\"next\"]", testid("reader-end-card"));
    app.wait_for_displayed(&card).unwrap();
    app.wait_for_displayed(&format!(
        "{}[data-book-id=\"{second_id}\"]",
        testid("reader-end-book")
    ))
    .unwrap_or_else(|e| {
        panic!(
            "the end card offers no #2 ({second_id}): {e}\n{}",
            app.log_text()
        )
    });
    app.wait_for_text(&testid("reader-end-book"), &second_title)
        .unwrap();
    let text = app.find(&card).unwrap().inner_text().unwrap();
    assert!(
        text.contains("Next in Interop Series"),
        "the end card names #2's series: {text}"
    );
    match number.as_f64() {
        Some(n) => assert!(
            text.contains(&format!("Number {n}")),
            "the end card gives #2's number {n}: {text}"
        ),
        None => assert!(
            app.find_all(&testid("reader-end-number"))
                .unwrap()
                .is_empty(),
            "a number Codex does not give: {text}"
        ),
    }

    // One more turn forward: #2 open at page 1.
    press(&app, RIGHT);
    app.wait_for_displayed(&reader(second_id)).unwrap();
    app.wait_for_text(&testid("reader-title"), &second_title)
        .unwrap();
    app.wait_for_text(&testid("page-indicator"), &format!("Page 1 of {PAGES}"))
        .unwrap();
    painted(&app, 0);
    assert!(
        app.find_all(&testid("reader-end-card")).unwrap().is_empty(),
        "the end card stayed over #2"
    );
    app.close().unwrap();
}

/// calibre's own Quick Start Guide (Debian's calibre ships it), a real EPUB calibre made.
const CALIBRE_GUIDE: &str = "/usr/share/calibre/quick_start/eng.epub";
const GUIDE_TITLE: &str = "Quick Start Guide";

/// How many times `word` is in the text of `epub`'s chapters (its `text/*.xhtml`, tags taken
/// away, case ignored), counted by Python from the file itself.
fn occurrences(epub: &Path, word: &str) -> u64 {
    let count = "import html, re, sys, zipfile\n\
        z = zipfile.ZipFile(sys.argv[1]); n = 0\n\
        for name in z.namelist():\n\
        \x20   if name.endswith('.xhtml') or name.endswith('.html'):\n\
        \x20       t = z.read(name).decode('utf-8')\n\
        \x20       t = re.sub(r'(?s)<head.*?</head>', '', t)\n\
        \x20       t = html.unescape(re.sub(r'<[^>]+>', '', t))\n\
        \x20       n += len(re.findall(re.escape(sys.argv[2]), t, re.I))\n\
        print(n)\n";
    support::python(count, &[epub.as_os_str(), std::ffi::OsStr::new(word)])
        .parse()
        .unwrap()
}

/// calibre's Quick Start Guide, served by calibre's content server, downloaded and opened in the
/// real window's EPUB reader: Ctrl+F finds "Kindle" as many times as the book's text has it,
/// Enter shows the first place (marked in the list), Esc closes the search.
#[test]
fn calibre_content_server_epub_searched_through_the_window() {
    const WORD: &str = "Kindle";
    let installed = Installed::load();
    let _calibre = support::calibre_lock();
    let dir = tempfile::tempdir().unwrap();
    let files = dir.path().join("files");
    std::fs::create_dir_all(&files).unwrap();
    let guide = files.join("Quick Start Guide.epub");
    std::fs::copy(CALIBRE_GUIDE, &guide)
        .unwrap_or_else(|e| panic!("{CALIBRE_GUIDE} (Debian's calibre ships it): {e}"));
    let expected = occurrences(&guide, WORD);
    assert!(expected > 1, "the guide names {WORD} {expected} times");
    let server = calibre_server::serve(&installed, dir, &[guide]);
    let cli = Cli::new();
    cli.add_server("calibre", &format!("{}/opds", server.base), None);
    let walk = support::walk(&cli, "calibre", 40);
    let id = only_id(&walk, GUIDE_TITLE);

    let app = launch(&cli);
    open_details(&app, id);
    click(&app, &testid("read-book"));
    app.wait_for_displayed(&format!(
        "{}[data-book-id=\"{id}\"][data-phase=\"ready\"]",
        testid("epub-reader")
    ))
    .unwrap();
    app.command(
        "POST",
        "/actions",
        Some(
            serde_json::json!({ "actions": [{ "type": "key", "id": "keyboard", "actions": [
            { "type": "keyDown", "value": "\u{E009}" },
            { "type": "keyDown", "value": "f" },
            { "type": "keyUp", "value": "f" },
            { "type": "keyUp", "value": "\u{E009}" },
        ] }] }),
        ),
        "press Ctrl+F",
    )
    .unwrap();
    let field = app
        .wait_for_displayed(&testid("epub-search-field"))
        .unwrap();
    field.send_keys(&format!("{WORD}\u{E007}")).unwrap();
    let status = app
        .wait_until("the whole book searched", default_timeout(), |c| {
            let text = c.find(&testid("epub-search-status"))?.inner_text()?;
            Ok((!text.contains("Searching")).then_some(text))
        })
        .unwrap();
    assert_eq!(
        app.find(&testid("epub-search-count"))
            .unwrap()
            .attribute("data-count")
            .unwrap(),
        Some(expected.to_string()),
        "{status}"
    );
    assert!(status.contains(&format!("{expected} results")), "{status}");
    let hits = app.find_all(&testid("epub-search-hit")).unwrap();
    assert_eq!(hits.len() as u64, expected);
    assert!(
        hits.iter()
            .all(|h| h.inner_text().unwrap().to_lowercase().contains("kindle")),
        "every place shows the word"
    );
    field.send_keys("\u{E007}").unwrap();
    app.wait_for_displayed(&format!(
        "{}[aria-current=\"true\"]",
        testid("epub-search-hit")
    ))
    .unwrap();
    field.send_keys("\u{E00C}").unwrap();
    app.wait_for_hidden(&testid("epub-search")).unwrap();
    app.close().unwrap();
}
