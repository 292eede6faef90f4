//! The library window itself: start-up, its geometry, more windows, the keyboard.
//!
//! Under `dbus-run-session` no keyring service runs, so the app keeps passwords in the data
//! dir's `secrets.json`; the tests rely on that.

use std::path::Path;
use std::time::Duration;

use carrel_e2e::{data, save_docs_screenshot, submit_server_dialog, testid, App, TestCase};

const WINDOW_TITLES: [&str; 2] = ["Carrel", "Carrel (dev)"];

fn sel(id: &str) -> String {
    testid(id)
}

/// Opens the add-server dialog, fills the fields given, and presses Save.
fn submit_server(app: &App, name: &str, url: &str, login: Option<(&str, &str)>) {
    submit_server_dialog(app, name, url, login).unwrap();
}

/// Fails when `secret` appears in the database or its journal files.
fn assert_not_in_database_files(data_dir: &Path, secret: &str) {
    let files = data::files_starting_with(data_dir, "carrel.db");
    assert!(
        !files.is_empty(),
        "no carrel.db* file in {}",
        data_dir.display()
    );
    for file in files {
        let bytes = std::fs::read(&file).unwrap();
        assert!(
            !data::contains_bytes(&bytes, secret.as_bytes()),
            "the password is stored in clear in {}",
            file.display()
        );
    }
}

#[test]
fn the_window_opens_on_the_empty_library() {
    let case = TestCase::start();
    let app = case.launch();

    let text = app
        .wait_for_text(&sel("empty-library"), "No library yet — add a server")
        .unwrap();
    assert!(
        text.contains("No library yet — add a server"),
        "empty library says {text:?}"
    );
    let title = app.title().unwrap();
    assert!(
        WINDOW_TITLES.contains(&title.as_str()),
        "the window title is {title:?}"
    );
    save_docs_screenshot(&app, "empty-library.png").unwrap();

    app.close().unwrap();
}

/// Waits for the element with test id `id` to show, then for the message in it (`what`), and
/// returns it.
fn shown_message(app: &App, id: &str, what: &str) -> String {
    let shown = app.wait_for_displayed(&sel(id)).unwrap();
    app.wait_until(what, carrel_e2e::default_timeout(), |_| {
        let text = shown.inner_text()?;
        Ok((!text.trim().is_empty()).then_some(text))
    })
    .unwrap()
}

#[test]
fn the_add_server_dialog_rejects_a_bad_url() {
    let case = TestCase::start();
    let app = case.launch();

    submit_server(&app, "Home", "not a url", None);
    let message = shown_message(&app, "server-url-error", "a message in the URL error");
    assert!(
        app.find(&sel("add-server-dialog"))
            .unwrap()
            .is_visible()
            .unwrap(),
        "the dialog closed on a bad URL (error shown: {message:?})"
    );
    save_docs_screenshot(&app, "add-server-bad-url.png").unwrap();

    app.find(&sel("server-cancel")).unwrap().click().unwrap();
    app.wait_for_hidden(&sel("add-server-dialog")).unwrap();
    assert!(
        !app.exists(&sel("server-item")).unwrap(),
        "a server was listed after cancelling"
    );
    app.close().unwrap();

    assert_eq!(
        data::count_rows(case.data_dir(), "servers"),
        0,
        "a server row was saved"
    );
}

#[test]
fn a_saved_server_survives_a_restart() {
    const PASSWORD: &str = "s3cret-pass-phrase";
    let case = TestCase::start();

    let app = case.launch();
    submit_server(
        &app,
        "Attic",
        "http://127.0.0.1:9/opds",
        Some(("reader", PASSWORD)),
    );
    app.wait_for_text(&sel("server-item"), "Attic").unwrap();
    app.close().unwrap();
    assert_not_in_database_files(case.data_dir(), PASSWORD);

    let app = case.launch();
    app.wait_for_text(&sel("server-item"), "Attic").unwrap();
    app.close().unwrap();

    assert_not_in_database_files(case.data_dir(), PASSWORD);
    let secrets = case.data_dir().join("secrets.json");
    assert!(
        secrets.is_file(),
        "{} does not exist: with no keyring running (dbus-run-session) the password belongs there",
        secrets.display()
    );
    let mode = data::mode(&secrets);
    assert_eq!(mode, 0o600, "secrets.json has mode {mode:o}, not 600");
}

#[test]
fn the_window_remembers_its_size() {
    const SIZE: (f64, f64) = (900.0, 640.0);
    const SLACK: f64 = 40.0;
    let close_to = |rect: carrel_e2e::Rect| {
        (rect.width - SIZE.0).abs() <= SLACK && (rect.height - SIZE.1).abs() <= SLACK
    };
    let case = TestCase::start();

    let app = case.launch();
    let resized = app.set_window_size(SIZE.0, SIZE.1).unwrap();
    assert!(
        close_to(resized),
        "asked for 900x640, the window became {resized:?}"
    );
    // The app saves its geometry 0.4 s after the last resize.
    std::thread::sleep(Duration::from_millis(1000));
    app.close().unwrap();

    let app = case.launch();
    let restored = app.window_rect().unwrap();
    assert!(
        close_to(restored),
        "saved at 900x640, the window reopened as {restored:?}"
    );
    app.close().unwrap();
}

#[test]
fn a_corrupt_database_is_reported_not_replaced() {
    let case = TestCase::start();
    let db = data::database_path(case.data_dir());
    let garbage: Vec<u8> = (0..100)
        .flat_map(|i| {
            format!("line {i:03}: this is not an SQLite database, do not touch it\n").into_bytes()
        })
        .collect();
    std::fs::write(&db, &garbage).unwrap();

    let app = case.launch();
    let text = shown_message(&app, "startup-error", "a message in the start-up error");
    let lower = text.to_lowercase();
    assert!(
        lower.contains("database") || lower.contains("folder"),
        "the start-up error does not mention the database or the folder: {text:?}"
    );
    app.close().unwrap();

    assert!(
        std::fs::read(&db).unwrap() == garbage,
        "{} was changed",
        db.display()
    );
}

/// The harness itself against the real webview, independent of the UI: a page put in place by
/// script is found, typed into, clicked, hidden, and photographed. When this fails the window
/// tests above cannot be trusted either.
#[test]
fn the_harness_drives_the_webview() {
    let case = TestCase::start();
    let app = case.launch();
    let page = r#"
        document.body.innerHTML = '<p data-testid="note">hello <b>there</b></p>'
            + '<input data-testid="field" value="old">'
            + '<button data-testid="hide">hide</button>'
            + '<dialog data-testid="box"><p>inside</p></dialog>'
            + '<span data-testid="clipped">clipped label</span>';
        document.querySelector('[data-testid="clipped"]').style.overflow = 'hidden';
        document.querySelector('[data-testid="hide"]').addEventListener('click', () => {
            document.querySelector('[data-testid="note"]').style.display = 'none';
        });
        return document.querySelectorAll('[data-testid]').length;
    "#;
    assert_eq!(app.execute(page, vec![]).unwrap(), serde_json::json!(5));

    let note = app.wait_for(&sel("note")).unwrap();
    assert_eq!(note.text().unwrap(), "hello there");
    assert_eq!(
        note.attribute("data-testid").unwrap().as_deref(),
        Some("note")
    );
    assert!(note.is_displayed().unwrap());

    // On screen, though WebKitWebDriver's own check says otherwise (see `webdriver`'s doc).
    let clipped = app.find(&sel("clipped")).unwrap();
    assert!(clipped.is_visible().unwrap());
    assert_eq!(clipped.inner_text().unwrap(), "clipped label");
    app.wait_for_text(&sel("clipped"), "clipped label").unwrap();

    let field = app.find(&sel("field")).unwrap();
    field.fill("Home — ünïcode").unwrap();
    assert_eq!(
        field.property("value").unwrap(),
        serde_json::json!("Home — ünïcode")
    );

    let dialog = app.find(&sel("box")).unwrap();
    assert!(
        !dialog.is_displayed().unwrap(),
        "a closed <dialog> counts as hidden"
    );
    assert!(
        !dialog.is_visible().unwrap(),
        "a closed <dialog> counts as hidden"
    );
    app.execute(
        "arguments[0].showModal(); return null",
        vec![dialog.as_arg()],
    )
    .unwrap();
    assert!(
        dialog.is_displayed().unwrap(),
        "an open <dialog> counts as displayed"
    );
    app.wait_for_displayed(&sel("box")).unwrap();
    app.execute("arguments[0].close(); return null", vec![dialog.as_arg()])
        .unwrap();

    app.find(&sel("hide")).unwrap().click().unwrap();
    app.wait_for_hidden(&sel("note")).unwrap();
    let missing = app.find(&sel("nothing")).unwrap_err();
    assert!(
        missing.is_not_found(),
        "expected `no such element`, got {missing}"
    );
    assert!(app.try_find(&sel("nothing")).unwrap().is_none());

    let png = app.screenshot_png().unwrap();
    assert!(
        png.starts_with(b"\x89PNG\r\n\x1a\n"),
        "the screenshot is not a PNG"
    );
    let shot = case.artifact_path("-screenshot.png");
    app.save_screenshot(&shot).unwrap();
    assert!(shot.is_file());
    std::fs::remove_file(shot).unwrap();
    app.close().unwrap();
}
