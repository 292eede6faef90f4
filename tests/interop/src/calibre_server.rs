//! calibre's content server (Debian's `calibre`): a library made with `calibredb add`, served by
//! `calibre-server` on a free loopback port, OPDS at /opds. calibre allows one content server per
//! user at a time, so this module starts exactly one, and only this module starts one.

use std::path::Path;
use std::process::Command;
use std::time::Duration;

use crate::support::{self, Cli, Installed, ServerProcess};

pub struct CalibreServer {
    _process: ServerProcess,
    pub base: String,
    _dir: tempfile::TempDir,
}

/// Makes a library of `epubs` EPUBs and `comics` CBZs and serves it.
pub fn start(installed: &Installed, epubs: u32, comics: u32) -> CalibreServer {
    let dir = tempfile::tempdir().unwrap();
    let files = dir.path().join("files");
    let mut books = support::make_epubs(Path::new("python3"), &files, epubs);
    books.extend(support::make_comics(
        Path::new("python3"),
        &files,
        comics,
        4,
    ));
    serve(installed, dir, &books)
}

/// Makes a library of `books` (files made by the caller) in `dir` and serves it.
pub fn serve(
    installed: &Installed,
    dir: tempfile::TempDir,
    books: &[std::path::PathBuf],
) -> CalibreServer {
    let lib = support::calibre_library_in(installed, dir.path(), books);
    let server = installed.get("CARREL_INTEROP_CALIBRE_SERVER");
    let port = support::free_port();
    let mut cmd = Command::new(server);
    cmd.arg("--listen-on")
        .arg("127.0.0.1")
        .arg("--port")
        .arg(port.to_string())
        .arg(&lib);
    cmd.env("QT_QPA_PLATFORM", "offscreen")
        .env("HOME", dir.path())
        .env("CALIBRE_CONFIG_DIRECTORY", dir.path().join("config"));
    let mut process = ServerProcess::spawn("calibre-server", cmd, dir.path().join("server.log"));
    let base = process.ready_on(port, "/opds", Duration::from_secs(120));
    CalibreServer {
        _process: process,
        base,
        _dir: dir,
    }
}

#[test]
fn calibre_content_server_walk_search_and_keep_offline() {
    let installed = Installed::load();
    let _calibre = support::calibre_lock();
    let server = start(&installed, 3, 2);
    let cli = Cli::new();
    cli.add_server("calibre", &format!("{}/opds", server.base), None);

    // Every feed reachable from the root parses; every book is found, each with one identity
    // whichever view (newest, by title, by author, by series…) it was seen through.
    let walk = support::walk(&cli, "calibre", 80);
    assert!(walk.feeds > 3, "only {} feeds walked", walk.feeds);
    for n in 1..=3 {
        walk.assert_one_identity(&format!("Interop Novel {n:02}"));
    }
    for n in 1..=2 {
        walk.assert_one_identity(&format!("Interop Comic {n:02}"));
    }
    assert_eq!(
        cli.local_book_count(),
        5,
        "the walk made more local books than the library has"
    );

    // Search: the server's own OpenSearch.
    let found = cli.json(&["search", "calibre", "Novel 02"]);
    let titles = support::book_titles(&found);
    assert!(
        titles.contains(&"Interop Novel 02"),
        "search found {titles:?}"
    );
    assert!(
        !titles.contains(&"Interop Novel 01"),
        "search found {titles:?}"
    );

    // Kept offline: byte-identical to what the server serves at the same acquisition URL.
    let ids: Vec<i64> = walk.books.keys().copied().collect();
    let stored = cli.keep_offline(&ids);
    support::assert_stored_as_served(&cli, &stored, "calibre", None);
}
