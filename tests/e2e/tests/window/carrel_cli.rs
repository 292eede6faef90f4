//! `carrel-cli` on a test's data dir, beside the running app, as a script or a second window
//! would use it: adding a fixture server to the library and asking for its first book to be
//! stored, which the app's executor then downloads.

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use carrel_e2e::tools;
use fixture_server::RunningServer;

/// `carrel-cli`: `CARREL_CLI`, else `$CARGO_TARGET_DIR/debug/carrel-cli`, else
/// `<workspace>/target/debug/carrel-cli`.
fn cli_binary() -> PathBuf {
    let root = tools::workspace_root();
    let non_empty = |name: &str| {
        std::env::var_os(name)
            .filter(|v| !v.is_empty())
            .map(PathBuf::from)
    };
    let absolute = |p: PathBuf| if p.is_absolute() { p } else { root.join(p) };
    let path = match (non_empty("CARREL_CLI"), non_empty("CARGO_TARGET_DIR")) {
        (Some(cli), _) => absolute(cli),
        (None, Some(target)) => absolute(target).join("debug/carrel-cli"),
        (None, None) => root.join("target/debug/carrel-cli"),
    };
    if !path.is_file() {
        panic!(
            "the CLI binary {} does not exist: build it with `cargo build -p carrel-cli`, or point \
             CARREL_CLI at it",
            path.display()
        );
    }
    path
}

/// Runs the CLI on `data_dir` and returns its standard output; fails on a non-zero exit.
pub(super) fn cli(data_dir: &Path, args: &[&str]) -> String {
    let out = Command::new(cli_binary())
        .arg("--data-dir")
        .arg(data_dir)
        .args(args)
        .env("CARREL_SECRETS", "file")
        .env_remove("CARREL_DATA_DIR")
        .env("CARREL_LOG", "warn")
        .stdin(Stdio::null())
        .output()
        .expect("run carrel-cli");
    assert!(
        out.status.success(),
        "carrel-cli {args:?} failed ({}): {}",
        out.status,
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).expect("the CLI writes UTF-8")
}

/// Adds `server` to the library on `data` (as "lib") and returns the id of its first book,
/// found by title in the server's catalog.
pub(super) fn add_server_and_find_first_book(data: &Path, server: &RunningServer) -> i64 {
    cli(data, &["server", "add", "lib", &server.url("/opds")]);
    let title = server.books()[0].title.clone();
    let feed: serde_json::Value =
        serde_json::from_str(&cli(data, &["--json", "browse", "lib", "/opds/books"])).unwrap();
    feed["entries"]
        .as_array()
        .unwrap()
        .iter()
        .find(|e| e["type"] == "book" && e["title"] == title.as_str())
        .and_then(|e| e["book_id"].as_i64())
        .unwrap_or_else(|| panic!("no book {title:?} in the feed: {feed}"))
}

/// Adds `server` to the library on `data` and asks for its first book to be stored; returns
/// the book's id.
pub(super) fn store_first_book(data: &Path, server: &RunningServer) -> i64 {
    let book_id = add_server_and_find_first_book(data, server);
    cli(data, &["store", &book_id.to_string()]);
    book_id
}
