//! Reading through the real window what real servers serve as whole files: a CBZ (Python's
//! zipfile) and a PDF (ReportLab) added to calibre's content server and to Calibre-Web, neither
//! of which streams pages. The real `carrel-cli` adds the server and walks its catalog on a data
//! dir; the real app (the window tests' harness: tauri-driver under Xvfb and a session bus) is
//! then launched on that data dir, opens each book's details, presses Read, and must paint page 1
//! ("Page 1 of N") and, after End, page N.

use std::path::{Path, PathBuf};
use std::process::Command;

use carrel_e2e::{default_timeout, testid, App, LaunchOptions};

use crate::support::{self, Cli, Installed};
use crate::{calibre_server, calibre_web};

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
    app.wait_until(&format!("page {} to paint", page + 1), default_timeout(), |c| {
        let shown = c.execute(
            "const img = document.querySelector('[data-testid=\"page-image\"]');
             return img && img.complete && !img.classList.contains('hidden') && img.naturalWidth > 0 ? img.dataset.page : null;",
            vec![],
        )?;
        Ok((shown.as_str() == Some(page.to_string().as_str())).then_some(()))
    })
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

/// Opens book `id`'s details, presses Read, and checks its first and last pages paint.
fn read_first_and_last_page(app: &App, id: i64, pages: u32) {
    app.execute(
        "window.location.hash = `#/book/${arguments[0]}`; window.location.reload();",
        vec![serde_json::json!(id)],
    )
    .unwrap();
    app.wait_for_displayed(&format!(
        "{}[data-book-id=\"{id}\"]",
        testid("book-details")
    ))
    .unwrap();
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
    let walk = support::walk(&cli, "calibre", 40);
    let comic = only_id(&walk, "Interop Comic 01");
    let pdf = only_id(&walk, PDF_TITLE);
    let app = launch(&cli);
    read_first_and_last_page(&app, comic, COMIC_PAGES);
    read_first_and_last_page(&app, pdf, PDF_PAGES);
    app.close().unwrap();
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
    let walk = support::walk(&cli, "cw", 60);
    let comic = only_id(&walk, "Interop Comic 01");
    let pdf = only_id(&walk, PDF_TITLE);
    let app = launch(&cli);
    read_first_and_last_page(&app, comic, COMIC_PAGES);
    read_first_and_last_page(&app, pdf, PDF_PAGES);
    app.close().unwrap();
}
