//! One running Carrel: a tauri-driver of its own (so the app inherits the environment chosen
//! for this launch, `CARREL_DATA_DIR` first), a WebDriver session on the app's window, and
//! clean-up when it ends.
//!
//! [`App`] derefs to [`Client`], so every WebDriver command is a method of the app. Dropping it
//! (or [`App::close`], which also reports problems) deletes the session — the app closes — waits
//! for the app process to end, then stops tauri-driver as [`crate::process`] describes. When the
//! drop happens because the test panicked, the window's screenshot, DOM and the log are saved
//! first (see [`crate::artifacts`]).

use std::ffi::OsString;
use std::ops::Deref;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use serde_json::json;
use tempfile::{NamedTempFile, TempDir};

use crate::artifacts;
use crate::error::{Error, Result};
use crate::lock::DisplayLock;
use crate::process::{Driver, Proc};
use crate::tools::Tools;
use crate::webdriver::Client;

/// How long the first page may take to load after the session opens.
const LOAD_TIMEOUT: Duration = Duration::from_secs(30);
/// How long the app may take to exit once its session is deleted.
const EXIT_TIMEOUT: Duration = Duration::from_secs(10);

/// How to launch the app. [`LaunchOptions::new`] gives the defaults.
#[derive(Debug, Clone)]
pub struct LaunchOptions {
    /// The app's data dir (`CARREL_DATA_DIR`).
    pub data_dir: PathBuf,
    /// Where the webview keeps its own state (`XDG_DATA_HOME`, `XDG_CONFIG_HOME`,
    /// `XDG_CACHE_HOME` point inside it). `None`: a fresh temporary one for this launch, so
    /// nothing leaks between tests through the reader's real home folder.
    pub profile_dir: Option<PathBuf>,
    /// More environment for the app, applied last.
    pub env: Vec<(OsString, OsString)>,
    /// The name of the artifacts saved on failure; `None`: the running test's name.
    pub name: Option<String>,
    /// Command-line arguments for the app.
    pub args: Vec<String>,
}

impl LaunchOptions {
    pub fn new(data_dir: &Path) -> Self {
        LaunchOptions {
            data_dir: data_dir.to_path_buf(),
            profile_dir: None,
            env: Vec::new(),
            name: None,
            args: Vec::new(),
        }
    }

    /// Adds one environment variable for the app.
    pub fn env(mut self, key: impl Into<OsString>, value: impl Into<OsString>) -> Self {
        self.env.push((key.into(), value.into()));
        self
    }
}

/// The app, running, with a WebDriver session on its window.
pub struct App {
    client: Client,
    driver: Driver,
    data_dir: PathBuf,
    name: String,
    log: NamedTempFile,
    process: Option<Proc>,
    closed: bool,
    _profile: Option<TempDir>,
    _lock: DisplayLock,
}

impl App {
    /// Launches the app on `data_dir` and waits for its first page to load.
    ///
    /// Panics — never skips — when there is no display or a tool is missing; returns an error
    /// (with the end of the log) when they are there but the launch fails.
    pub fn launch(data_dir: &Path) -> Result<App> {
        App::launch_with(LaunchOptions::new(data_dir))
    }

    /// Launches the app as `options` say.
    pub fn launch_with(options: LaunchOptions) -> Result<App> {
        let lock = DisplayLock::acquire();
        let started = Instant::now();
        let tools = Tools::require();
        let name = options
            .name
            .clone()
            .unwrap_or_else(artifacts::current_test_name);

        let (profile_root, profile_tmp) = match &options.profile_dir {
            Some(dir) => (dir.clone(), None),
            None => {
                let tmp = tempfile::Builder::new()
                    .prefix("carrel-e2e-profile-")
                    .tempdir()
                    .map_err(|e| Error::io("cannot create a profile folder", e))?;
                (tmp.path().to_path_buf(), Some(tmp))
            }
        };
        let mut env: Vec<(OsString, OsString)> =
            vec![("CARREL_DATA_DIR".into(), options.data_dir.clone().into())];
        for (var, sub) in [
            ("XDG_DATA_HOME", "data"),
            ("XDG_CONFIG_HOME", "config"),
            ("XDG_CACHE_HOME", "cache"),
        ] {
            let dir = profile_root.join(sub);
            std::fs::create_dir_all(&dir)
                .map_err(|e| Error::io(format!("cannot create {}", dir.display()), e))?;
            env.push((var.into(), dir.into()));
        }
        env.push(("GDK_BACKEND".into(), "x11".into()));
        // No accessibility bus to start, no colour codes in the log.
        env.push(("NO_AT_BRIDGE".into(), "1".into()));
        env.push(("NO_COLOR".into(), "1".into()));
        // English, whatever this machine's locale: a test that wants another language says so
        // in its options (applied after these).
        env.push(("LANG".into(), "C.UTF-8".into()));
        for var in ["LANGUAGE", "LC_ALL", "LC_MESSAGES"] {
            env.push((var.into(), "".into()));
        }
        env.extend(options.env.iter().cloned());

        let log = tempfile::Builder::new()
            .prefix(&format!("carrel-e2e-{name}-"))
            .suffix(".log")
            .tempfile()
            .map_err(|e| Error::io("cannot create the driver log", e))?;
        let with_log = |e: Error, log: &NamedTempFile| {
            let saved = artifacts::capture(None, Some(log.path()), &name);
            let saved = saved
                .first()
                .map(|p| format!(" (whole log: {})", p.display()))
                .unwrap_or_default();
            Error::Process(format!(
                "{e}\n--- end of the driver and app log{saved} ---\n{}",
                tail(log.path(), 60)
            ))
        };

        let mut driver =
            Driver::start(&tools, &env, log.as_file()).map_err(|e| with_log(e, &log))?;
        let capabilities = json!({
            "alwaysMatch": { "tauri:options": { "application": tools.app, "args": options.args } }
        });
        let client = match Client::new_session(&driver.url(), capabilities) {
            Ok(c) => c,
            Err(e) => {
                let _ = driver.stop();
                return Err(with_log(e, &log));
            }
        };
        let process = driver
            .remember_descendants()
            .into_iter()
            .find(|p| p.exe.as_deref() == Some(tools.app.as_path()) || p.comm == "carrel");
        let app = App {
            client,
            driver,
            data_dir: options.data_dir,
            name: name.clone(),
            log,
            process,
            closed: false,
            _profile: profile_tmp,
            _lock: lock,
        };
        if let Err(e) = app.wait_for_load() {
            let e = with_log(e, &app.log);
            drop(app);
            return Err(e);
        }
        trace(&app.name, "launched", started);
        Ok(app)
    }

    fn wait_for_load(&self) -> Result<()> {
        self.client
            .wait_until("the first page to finish loading", LOAD_TIMEOUT, |c| {
                let state = c.execute("return document.readyState", vec![])?;
                Ok((state == "complete").then_some(()))
            })
    }

    /// The session's client (also reachable through `Deref`).
    pub fn client(&self) -> &Client {
        &self.client
    }

    pub fn data_dir(&self) -> &Path {
        &self.data_dir
    }

    /// The app's process, when it was found below WebKitWebDriver.
    pub fn process(&self) -> Option<&Proc> {
        self.process.as_ref()
    }

    /// The name failure artifacts are saved under.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// What tauri-driver, WebKitWebDriver and the app wrote so far.
    pub fn log_text(&self) -> String {
        std::fs::read_to_string(self.log.path()).unwrap_or_default()
    }

    /// Saves the window's screenshot, DOM and log under `name` in the artifacts folder now.
    pub fn capture_artifacts(&self, name: &str) -> Vec<PathBuf> {
        artifacts::capture(Some(&self.client), Some(self.log.path()), name)
    }

    /// Closes the app and stops its driver, reporting anything that did not end cleanly.
    pub fn close(mut self) -> Result<()> {
        self.shut_down()
    }

    fn shut_down(&mut self) -> Result<()> {
        if self.closed {
            return Ok(());
        }
        self.closed = true;
        let started = Instant::now();
        let mut problems = Vec::new();
        if let Err(e) = self.client.delete_session() {
            problems.push(format!("deleting the session: {e}"));
        }
        trace(&self.name, "session deleted", started);
        if let Some(process) = &self.process {
            let start = Instant::now();
            while process.is_alive() && start.elapsed() < EXIT_TIMEOUT {
                std::thread::sleep(Duration::from_millis(50));
            }
            if process.is_alive() {
                problems.push(format!(
                    "the app ({process}) was still running {:.0} s after its session ended",
                    EXIT_TIMEOUT.as_secs_f64()
                ));
            }
        }
        trace(&self.name, "app exited", started);
        if let Err(e) = self.driver.stop() {
            problems.push(e.to_string());
        }
        trace(&self.name, "driver stopped", started);
        if problems.is_empty() {
            Ok(())
        } else {
            Err(Error::Process(format!(
                "closing the app: {}",
                problems.join("; ")
            )))
        }
    }
}

impl Deref for App {
    type Target = Client;
    fn deref(&self) -> &Client {
        &self.client
    }
}

impl Drop for App {
    fn drop(&mut self) {
        if std::thread::panicking() && !self.closed {
            let written = self.capture_artifacts(&self.name.clone());
            for path in written {
                eprintln!("carrel-e2e: saved {}", path.display());
            }
        }
        if let Err(e) = self.shut_down() {
            eprintln!("carrel-e2e: {e}");
        }
    }
}

/// With `CARREL_E2E_TRACE` set, prints how long a launch or close step took.
fn trace(name: &str, step: &str, since: Instant) {
    if std::env::var_os("CARREL_E2E_TRACE").is_some_and(|v| !v.is_empty()) {
        eprintln!(
            "carrel-e2e: {name}: {step} after {:.2} s",
            since.elapsed().as_secs_f64()
        );
    }
}

/// The last `lines` lines of a text file.
fn tail(path: &Path, lines: usize) -> String {
    let text = std::fs::read_to_string(path).unwrap_or_default();
    let all: Vec<&str> = text.lines().collect();
    all[all.len().saturating_sub(lines)..].join("\n")
}
