//! A reader who reads only their own files, with no server saved: the first start shows the
//! first-run page (a server to add, or their own files to open); once a comic is imported —
//! by `carrel-cli import` beside the running window, then opened with `carrel FILE` — every
//! start is Home, the comic in Continue reading and a short invitation to add a server where
//! the server cards would be.

use carrel_e2e::TestCase;
use fixture_server::numbered_png;

use super::carrel_cli::cli;
use super::support::{launch, sel, stored_zip, wait_for_element, wait_for_painted_page};

#[test]
fn a_reader_of_their_own_files_starts_on_home_not_on_the_first_run_page() {
    let case = TestCase::start();
    let books = tempfile::tempdir().unwrap();
    let cbz = books.path().join("Tide Tables 02.cbz");
    std::fs::write(
        &cbz,
        stored_zip((1..=3).map(|n| (format!("{n:03}.png"), numbered_png(300, 450, n)))),
    )
    .unwrap();
    let cbz = cbz.to_str().unwrap().to_owned();

    // Nothing to read yet: the first-run page, offering the reader's own files too.
    let app = launch(&case);
    app.wait_for_displayed(&sel("empty-library")).unwrap();
    for offered in ["empty-add-server", "empty-open-files", "empty-add-folder"] {
        assert!(
            app.exists(&sel(offered)).unwrap(),
            "{offered} is not offered"
        );
    }
    assert!(!app.exists(&sel("home-servers-invite")).unwrap());

    // Imported beside the running window: the window turns to Home by itself.
    cli(case.data_dir(), &["import", &cbz]);
    app.wait_for_displayed(&sel("home-servers-invite"))
        .expect("Home once a book is on the device");
    assert!(!app.exists(&sel("empty-library")).unwrap());
    app.close().unwrap();

    // Opened as a file manager would, then closed.
    let mut options = case.options().env("CARREL_SECRETS", "file");
    options.args.push(cbz);
    let app = case.launch_with(options);
    app.wait_for_displayed(&sel("comic-reader")).unwrap();
    wait_for_painted_page(&app, 0);
    app.close().unwrap();

    // Started again: Home, the comic in Continue reading, a server offered but not asked for.
    let app = launch(&case);
    wait_for_element(
        &app,
        &sel("continue-item"),
        "the comic in Continue reading",
        |t| t.contains("Tide Tables"),
    );
    assert!(!app.exists(&sel("empty-library")).unwrap());
    assert!(!app.exists(&sel("empty-add-server")).unwrap());
    let invite = app.wait_for_displayed(&sel("home-servers-invite")).unwrap();
    assert!(
        invite.inner_text().unwrap().contains("Add server"),
        "the invitation says {:?}",
        invite.inner_text().unwrap()
    );
    app.find(&sel("home-add-server")).unwrap().click().unwrap();
    app.wait_for_displayed(&sel("add-server-dialog"))
        .expect("the Add server dialog from Home's invitation");
    app.close().unwrap();
}
