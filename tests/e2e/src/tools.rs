//! Finding what the window tests need outside this crate — an X display, a session bus, the
//! app binary, tauri-driver and WebKitWebDriver — and failing loudly, with what to install or
//! run, when one is missing. A window test never skips: a missing tool is a panic, not a silent
//! pass.

use std::ffi::OsStr;
use std::path::{Path, PathBuf};

/// How to run the window tests, quoted in every "missing" message.
pub const HOW_TO_RUN: &str = "run `make test`, or by hand: `cargo build -p carrel` (after \
`npm --prefix ui run build`), `cargo install tauri-driver --locked --root .tools`, then \
`xvfb-run -a dbus-run-session -- cargo test -p carrel-e2e -- --test-threads=1`";

/// The workspace root (two levels above this crate).
pub fn workspace_root() -> PathBuf {
    let manifest = Path::new(env!("CARGO_MANIFEST_DIR"));
    manifest
        .parent()
        .and_then(Path::parent)
        .expect("the e2e crate lives at <workspace>/tests/e2e")
        .to_path_buf()
}

/// Everything a launch needs, resolved once per launch.
#[derive(Debug, Clone)]
pub struct Tools {
    /// The app binary, absolute.
    pub app: PathBuf,
    pub tauri_driver: PathBuf,
    pub webkit_webdriver: PathBuf,
}

impl Tools {
    /// Resolves every tool, panicking with instructions when one is missing.
    pub fn require() -> Tools {
        require_display();
        Tools {
            app: app_binary(),
            tauri_driver: tauri_driver(),
            webkit_webdriver: webkit_webdriver(),
        }
    }
}

/// Panics unless an X display is set.
pub fn require_display() {
    let set = std::env::var_os("DISPLAY").is_some_and(|d| !d.is_empty());
    if !set {
        panic!(
            "DISPLAY is not set: the window tests need an X server (Xvfb is enough). \
             Install xvfb (`apt-get install xvfb xauth dbus-x11`) and {HOW_TO_RUN}"
        );
    }
}

/// Panics unless a session bus is set (the tray and notification tests talk to the desktop
/// over it).
pub fn require_session_bus() {
    let set = std::env::var_os("DBUS_SESSION_BUS_ADDRESS").is_some_and(|a| !a.is_empty());
    if !set {
        panic!(
            "DBUS_SESSION_BUS_ADDRESS is not set: the tray and notification tests need a session \
             bus. Run them under `dbus-run-session` (package dbus-x11 or dbus-daemon); {HOW_TO_RUN}"
        );
    }
}

/// The app binary: `CARREL_APP`, else `$CARGO_TARGET_DIR/debug/carrel`, else
/// `<workspace>/target/debug/carrel`. Panics when it does not exist.
pub fn app_binary() -> PathBuf {
    let root = workspace_root();
    let (path, from) = match non_empty_env("CARREL_APP") {
        Some(p) => (absolute(&root, Path::new(&p)), "CARREL_APP"),
        None => match non_empty_env("CARGO_TARGET_DIR") {
            Some(t) => (
                absolute(&root, Path::new(&t)).join("debug/carrel"),
                "CARGO_TARGET_DIR",
            ),
            None => (root.join("target/debug/carrel"), "the default target dir"),
        },
    };
    if !path.is_file() {
        panic!(
            "the Carrel binary {} (from {from}) does not exist. Build it with \
             `npm --prefix ui run build && cargo build -p carrel`, or point CARREL_APP at it; {HOW_TO_RUN}",
            path.display()
        );
    }
    path.canonicalize().unwrap_or(path)
}

/// tauri-driver: `TAURI_DRIVER`, else `<workspace>/.tools/bin/tauri-driver`, else on `PATH`.
/// Panics when none exists.
pub fn tauri_driver() -> PathBuf {
    let root = workspace_root();
    if let Some(p) = non_empty_env("TAURI_DRIVER") {
        let path = absolute(&root, Path::new(&p));
        if !path.is_file() {
            panic!(
                "TAURI_DRIVER is {} but no such file exists. Install tauri-driver with \
                 `cargo install tauri-driver --locked --root {}`",
                path.display(),
                root.join(".tools").display()
            );
        }
        return path;
    }
    let local = root.join(".tools/bin/tauri-driver");
    if local.is_file() {
        return local;
    }
    find_on_path("tauri-driver").unwrap_or_else(|| {
        panic!(
            "tauri-driver is not installed (looked at {} and on PATH). Install it with \
             `cargo install tauri-driver --locked --root {}`, or set TAURI_DRIVER; {HOW_TO_RUN}",
            local.display(),
            root.join(".tools").display()
        )
    })
}

/// WebKitWebDriver: `WEBKIT_WEBDRIVER`, else on `PATH`. Panics when missing.
pub fn webkit_webdriver() -> PathBuf {
    if let Some(p) = non_empty_env("WEBKIT_WEBDRIVER") {
        let path = PathBuf::from(p);
        if !path.is_file() {
            panic!(
                "WEBKIT_WEBDRIVER is {} but no such file exists",
                path.display()
            );
        }
        return path;
    }
    find_on_path("WebKitWebDriver").unwrap_or_else(|| {
        panic!(
            "WebKitWebDriver is not on PATH. On Debian/Ubuntu install it with \
             `apt-get install webkit2gtk-driver`; {HOW_TO_RUN}"
        )
    })
}

fn non_empty_env(name: &str) -> Option<String> {
    std::env::var(name).ok().filter(|v| !v.trim().is_empty())
}

fn absolute(root: &Path, p: &Path) -> PathBuf {
    if p.is_absolute() {
        p.to_path_buf()
    } else {
        root.join(p)
    }
}

/// The first executable file called `name` in `PATH`.
pub fn find_on_path(name: impl AsRef<OsStr>) -> Option<PathBuf> {
    use std::os::unix::fs::PermissionsExt;
    let path = std::env::var_os("PATH")?;
    std::env::split_paths(&path)
        .map(|dir| dir.join(name.as_ref()))
        .find(|candidate| {
            candidate
                .metadata()
                .is_ok_and(|m| m.is_file() && m.permissions().mode() & 0o111 != 0)
        })
}
