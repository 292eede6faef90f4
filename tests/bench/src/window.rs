//! What the window benchmarks share: the real app (a release build) launched through the
//! window tests' harness (`carrel-e2e`: tauri-driver, WebKitWebDriver, the display lock), the
//! clocks that let a time measured inside the webview be compared with the moment the app's
//! process started, and the script that waits until a change is painted.
//!
//! Nothing here skips: without a display, the app binary, tauri-driver or WebKitWebDriver the
//! benchmark stops with what to install or run (the harness's messages).
//!
//! "Painted" means: the element is in the document and its images are loaded and decoded, then
//! the next animation frame has run and a task posted from it has run too — that task runs after
//! the frame's rendering update, so the change is on screen. Times are read with
//! `performance.now()` (or `performance.timeOrigin + performance.now()` for wall-clock times).

use std::path::{Path, PathBuf};
use std::time::{SystemTime, UNIX_EPOCH};

use anyhow::{bail, Context, Result};

use carrel_e2e::{App, LaunchOptions};

/// The window's size for every measurement (the display is 1600×1000 under `make bench`).
pub const WINDOW: (f64, f64) = (1280.0, 900.0);

/// The JavaScript function, defined in each script that needs it, that calls `then(ms)` once
/// what is on screen includes every change made so far: the next animation frame, then a task
/// posted from it (which runs after that frame's rendering update).
const AFTER_PAINT_JS: &str = "
  const afterPaint = (then) => requestAnimationFrame(() => {
    const channel = new MessageChannel();
    channel.port1.onmessage = () => then(performance.now());
    channel.port2.postMessage(null);
  });";

/// The JavaScript function `finish(value)`, defined in each script that watches the page until
/// something shows: answers `value` once (through `done`), then stops watching — the script's
/// `observer`, its `check` of every `load`, its `timer`.
const FINISH_ONCE_JS: &str = "
  let finished = false;
  const finish = (value) => {
    if (finished) return;
    finished = true;
    observer.disconnect();
    document.removeEventListener('load', check, true);
    clearTimeout(timer);
    done(value);
  };";

/// `template` with its `AFTER_PAINT` and `FINISH_ONCE` lines replaced by [`AFTER_PAINT_JS`] and
/// [`FINISH_ONCE_JS`].
pub fn script(template: &str) -> String {
    template
        .replace("AFTER_PAINT", AFTER_PAINT_JS)
        .replace("FINISH_ONCE", FINISH_ONCE_JS)
}

/// Makes sure the window benchmarks can run, before anything is measured: an X display, the app
/// binary and the drivers. When `CARREL_APP` is not set, the release build next to this binary
/// is the app (debug builds are far slower to start and would make the numbers meaningless).
pub fn require_tools() -> Result<PathBuf> {
    if std::env::var_os("CARREL_APP").is_none_or(|v| v.is_empty()) {
        let exe = std::env::current_exe().context("where this binary is")?;
        let app = exe.with_file_name("carrel");
        // The harness reads CARREL_APP on every launch; nothing else runs yet.
        std::env::set_var("CARREL_APP", &app);
    }
    // Panics, with what to install or run, when something is missing: a window benchmark never
    // skips.
    let tools = carrel_e2e::tools::Tools::require();
    if tools.app.components().any(|c| c.as_os_str() == "debug") {
        eprintln!(
            "warning: {} looks like a debug build; `cargo build --release -p carrel` for meaningful numbers",
            tools.app.display()
        );
    }
    Ok(tools.app)
}

/// Launches the app on `data_dir` with its own webview profile, passwords kept in a file (no
/// keyring prompt can get in the way), and the window at [`WINDOW`]'s size.
pub fn launch(data_dir: &Path, name: &str) -> Result<App> {
    let options = LaunchOptions {
        name: Some(name.to_owned()),
        ..LaunchOptions::new(data_dir).env("CARREL_SECRETS", "file")
    };
    App::launch_with(options).map_err(|e| anyhow::anyhow!("launching Carrel: {e}"))
}

/// Wall-clock time now, in milliseconds since the Unix epoch.
pub fn unix_ms() -> f64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map(|d| d.as_secs_f64() * 1e3)
        .unwrap_or(0.0)
}

/// The wall-clock time (ms since the Unix epoch) at which a process started, from its start time
/// in `/proc/<pid>/stat` (clock ticks after boot, counted on the boot-time clock). Good to one
/// clock tick (10 ms on Linux).
pub fn process_started_unix_ms(start_ticks: u64) -> Result<f64> {
    // SAFETY: sysconf has no preconditions.
    let hz = unsafe { libc::sysconf(libc::_SC_CLK_TCK) };
    if hz <= 0 {
        bail!("sysconf(_SC_CLK_TCK) failed");
    }
    let mut boot = libc::timespec {
        tv_sec: 0,
        tv_nsec: 0,
    };
    // SAFETY: `boot` is a valid timespec to write into.
    if unsafe { libc::clock_gettime(libc::CLOCK_BOOTTIME, &mut boot) } != 0 {
        bail!(
            "clock_gettime(CLOCK_BOOTTIME) failed: {}",
            std::io::Error::last_os_error()
        );
    }
    let now = unix_ms();
    let since_boot_ms = boot.tv_sec as f64 * 1e3 + boot.tv_nsec as f64 / 1e6;
    Ok(now - since_boot_ms + start_ticks as f64 * 1e3 / hz as f64)
}
