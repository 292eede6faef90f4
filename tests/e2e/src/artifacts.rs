//! What a failing window test leaves behind to look at: `tests/e2e/artifacts/<test>.png` (the
//! window's content), `<test>.html` (the DOM) and `<test>.log` (tauri-driver's, WebKitWebDriver's
//! and the app's output). The directory is git-ignored.

use std::path::{Path, PathBuf};

use crate::webdriver::{write_creating_dirs, Client};

/// `CARREL_E2E_ARTIFACTS`, else `<this crate>/artifacts`.
pub fn artifacts_dir() -> PathBuf {
    match std::env::var_os("CARREL_E2E_ARTIFACTS").filter(|v| !v.is_empty()) {
        Some(dir) => PathBuf::from(dir),
        None => Path::new(env!("CARGO_MANIFEST_DIR")).join("artifacts"),
    }
}

/// The running test's name as a file name: libtest names each test's thread after the test
/// (`module::test` becomes `module__test`). `"unnamed-test"` outside a named thread.
pub fn current_test_name() -> String {
    let thread = std::thread::current();
    match thread.name() {
        Some(name) if name != "main" => file_name(name),
        _ => "unnamed-test".to_string(),
    }
}

/// `name` with path separators and odd characters replaced, fit to be a file name.
pub fn file_name(name: &str) -> String {
    let cleaned: String = name
        .replace("::", "__")
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || "-_.".contains(c) {
                c
            } else {
                '_'
            }
        })
        .collect();
    cleaned.trim_start_matches('.').to_string()
}

/// Saves the screenshot, page source and log of a test under `name`; each part that cannot be
/// had is reported instead of stopping the others. Returns the files written.
pub fn capture(client: Option<&Client>, log: Option<&Path>, name: &str) -> Vec<PathBuf> {
    let dir = artifacts_dir();
    let mut written = Vec::new();
    if let Some(client) = client {
        let png = dir.join(format!("{name}.png"));
        match client.save_screenshot(&png) {
            Ok(()) => written.push(png),
            Err(e) => eprintln!("carrel-e2e: no screenshot for {name}: {e}"),
        }
        let html = dir.join(format!("{name}.html"));
        match client
            .page_source()
            .and_then(|source| write_creating_dirs(&html, source.as_bytes()))
        {
            Ok(()) => written.push(html),
            Err(e) => eprintln!("carrel-e2e: no page source for {name}: {e}"),
        }
    }
    if let Some(log) = log {
        let copy = dir.join(format!("{name}.log"));
        let saved = std::fs::create_dir_all(&dir).and_then(|()| std::fs::copy(log, &copy));
        match saved {
            Ok(_) => written.push(copy),
            Err(e) => eprintln!("carrel-e2e: could not copy the log of {name}: {e}"),
        }
    }
    written
}
