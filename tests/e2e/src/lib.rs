//! The harness of Carrel's window tests: it launches the real app under tauri-driver and
//! WebKitWebDriver (on an X display, Xvfb in CI) and drives its window over W3C WebDriver.
//!
//! ```no_run
//! use carrel_e2e::TestCase;
//!
//! let case = TestCase::start(); // one test on the display at a time, a fresh data dir
//! let app = case.launch(); // panics with the log when the app does not come up
//! app.wait_for(r#"[data-testid="add-server-button"]"#).unwrap().click().unwrap();
//! ```
//!
//! - [`accessibility`]: axe-core run on the page shown, the rules it breaks.
//! - [`webdriver`]: the client — [`Client`] and [`Element`], finding, waiting, typing, scripts,
//!   screenshots, the window's rect.
//! - [`app`]: [`App`], one launch of the app with its own tauri-driver; derefs to [`Client`].
//! - [`process`]: starting and stopping tauri-driver and whatever it left running.
//! - [`tools`]: finding the display, the app binary and the drivers — or panicking with what to
//!   install or run. A window test never skips.
//! - [`artifacts`]: the screenshot, DOM and log a failing test leaves in `tests/e2e/artifacts/`.
//! - [`data`]: inspecting a data dir (database, files, modes) after the app closed.
//! - [`lock`]: the display lock that keeps tests from overlapping on one display.
//!
//! Run: `xvfb-run -a dbus-run-session -- cargo test -p carrel-e2e -- --test-threads=1`, with
//! `CARREL_APP` / `TAURI_DRIVER` optionally naming the binaries (see [`tools`]).

pub mod accessibility;
pub mod app;
pub mod artifacts;
pub mod data;
pub mod error;
pub mod lock;
pub mod process;
pub mod tools;
pub mod webdriver;

use std::path::{Path, PathBuf};

use tempfile::TempDir;

pub use app::{App, LaunchOptions};
pub use error::{Error, Result};
pub use lock::DisplayLock;
pub use webdriver::{default_timeout, Client, Element, Rect};

/// The CSS selector of the element with `data-testid="<id>"`.
pub fn testid(id: &str) -> String {
    format!("[data-testid=\"{id}\"]")
}

/// Saves a screenshot of the window for the documentation as `<dir>/<file_name>`, where `dir`
/// is `CARREL_E2E_SCREENSHOTS` (e.g. `docs/screenshots`). Does nothing when that is unset, so
/// ordinary test runs do not touch the docs. Returns the path written.
pub fn save_docs_screenshot(client: &Client, file_name: &str) -> Result<Option<PathBuf>> {
    let Some(dir) = std::env::var_os("CARREL_E2E_SCREENSHOTS").filter(|d| !d.is_empty()) else {
        return Ok(None);
    };
    let dir = PathBuf::from(dir);
    let dir = if dir.is_absolute() {
        dir
    } else {
        tools::workspace_root().join(dir)
    };
    let path = dir.join(file_name);
    client.save_screenshot(&path)?;
    Ok(Some(path))
}

/// One window test: holds the display for its whole run, owns a fresh data dir (and a webview
/// profile shared by the test's launches, like one reader's home folder), and names the
/// artifacts after the test.
///
/// When the test fails, the data dir is kept (its path is printed) instead of being deleted.
pub struct TestCase {
    name: String,
    data_dir: Option<TempDir>,
    profile: TempDir,
    started: std::time::Instant,
    _lock: DisplayLock,
}

impl TestCase {
    /// Starts a test named after the running test's thread.
    pub fn start() -> TestCase {
        TestCase::named(&artifacts::current_test_name())
    }

    /// Starts a test whose artifacts are named `name`.
    pub fn named(name: &str) -> TestCase {
        let lock = DisplayLock::acquire();
        // Missing tools end the test here, before anything else happens.
        tools::Tools::require();
        let name = artifacts::file_name(name);
        let data_dir = tempfile::Builder::new()
            .prefix(&format!("carrel-e2e-{name}-"))
            .tempdir()
            .expect("create a temporary data dir");
        let profile = tempfile::Builder::new()
            .prefix("carrel-e2e-profile-")
            .tempdir()
            .expect("create a temporary profile dir");
        TestCase {
            name,
            data_dir: Some(data_dir),
            profile,
            started: std::time::Instant::now(),
            _lock: lock,
        }
    }

    pub fn name(&self) -> &str {
        &self.name
    }

    /// The test's data dir (empty at the start).
    pub fn data_dir(&self) -> &Path {
        self.data_dir
            .as_ref()
            .expect("the data dir lives as long as the test")
            .path()
    }

    /// The options [`TestCase::launch`] uses, to adjust before [`App::launch_with`].
    pub fn options(&self) -> LaunchOptions {
        LaunchOptions {
            data_dir: self.data_dir().to_path_buf(),
            profile_dir: Some(self.profile.path().to_path_buf()),
            env: Vec::new(),
            name: Some(self.name.clone()),
            args: Vec::new(),
        }
    }

    /// Launches the app on this test's data dir; panics (with the log) when it does not start.
    pub fn launch(&self) -> App {
        self.launch_with(self.options())
    }

    /// Launches the app with `options`; panics (with the log) when it does not start.
    pub fn launch_with(&self, options: LaunchOptions) -> App {
        App::launch_with(options).unwrap_or_else(|e| panic!("Carrel did not start: {e}"))
    }

    /// Where on-purpose screenshots of this test go when the caller has no better place.
    pub fn artifact_path(&self, suffix: &str) -> PathBuf {
        artifacts::artifacts_dir().join(format!("{}{suffix}", self.name))
    }
}

impl Drop for TestCase {
    fn drop(&mut self) {
        // Shown with `--nocapture`, and with the output of a failed test.
        eprintln!(
            "carrel-e2e: {} took {:.1} s",
            self.name,
            self.started.elapsed().as_secs_f64()
        );
        if std::thread::panicking() {
            if let Some(dir) = self.data_dir.take() {
                let kept = dir.keep();
                eprintln!(
                    "carrel-e2e: {} failed; its data dir is kept at {}",
                    self.name,
                    kept.display()
                );
            }
        }
    }
}

/// Waits until the comic reader (which also shows PDFs) shows page `page` (from 0) painted in
/// single-page mode: its image loaded, not hidden, with a size.
pub fn wait_for_painted_page(client: &Client, page: u32) -> Result<()> {
    client.wait_until(&format!("page {page} to paint"), default_timeout(), |c| {
        let shown = c.execute(
            "const img = document.querySelector('[data-testid=\"page-image\"]');
             return img && img.complete && !img.classList.contains('hidden') && img.naturalWidth > 0 ? img.dataset.page : null;",
            vec![],
        )?;
        Ok((shown.as_str() == Some(page.to_string().as_str())).then_some(()))
    })
}

/// Opens the "Add server" dialog from the sidebar and waits until it shows.
pub fn open_server_dialog(app: &App) -> Result<()> {
    app.wait_for(&testid("add-server-button"))?.click()?;
    app.wait_for_displayed(&testid("add-server-dialog"))?;
    Ok(())
}

/// What a reader does in the "Add server" dialog: opens it from the sidebar, fills the fields
/// given and presses Save. Whether the dialog then closes (or shows an error) is the caller's
/// to check.
pub fn submit_server_dialog(
    app: &App,
    name: &str,
    url: &str,
    login: Option<(&str, &str)>,
) -> Result<()> {
    open_server_dialog(app)?;
    app.wait_for(&testid("server-name"))?.fill(name)?;
    app.find(&testid("server-url"))?.fill(url)?;
    if let Some((username, password)) = login {
        app.find(&testid("server-username"))?.fill(username)?;
        app.find(&testid("server-password"))?.fill(password)?;
    }
    // A tall dialog in a small window scrolls: the button is brought into view first.
    app.execute(
        "document.querySelector('[data-testid=\"server-save\"]').scrollIntoView({ block: 'nearest' });",
        vec![],
    )?;
    app.find(&testid("server-save"))?.click()
}
