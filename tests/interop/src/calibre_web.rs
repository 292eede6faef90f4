//! Calibre-Web (PyPI, pinned by scripts/ensure-interop-servers) over a calibre library made with
//! `calibredb add`. Its first start writes its settings database (app.db, user admin/admin123);
//! the test then sets the library path in app.db and starts it again on the same free port.
//! OPDS at /opds, HTTP Basic sign-in.

use std::path::Path;
use std::process::Command;
use std::time::Duration;

use crate::support::{self, Cli, Installed, ServerProcess};

pub const ADMIN: (&str, &str) = ("admin", "admin123");

fn spawn(venv: &Path, dir: &Path, port: u16, run: u32) -> ServerProcess {
    let mut cmd = Command::new(venv.join("bin/cps"));
    cmd.arg("-p")
        .arg(dir.join("app.db"))
        .arg("-i")
        .arg("127.0.0.1");
    cmd.env("CALIBRE_PORT", port.to_string())
        .env("HOME", dir)
        .env("CACHE_DIRECTORY", dir.join("cache"))
        .env("CALIBRE_DBPATH", dir);
    ServerProcess::spawn(
        "calibre-web",
        cmd,
        dir.join(format!("calibre-web-{run}.log")),
    )
}

/// A Calibre-Web serving a calibre library, signed in as [`ADMIN`].
pub struct CalibreWeb {
    _process: ServerProcess,
    pub base: String,
    _dir: tempfile::TempDir,
}

/// Makes a calibre library of `books` (files made by the caller) in `dir`, and serves it with
/// Calibre-Web once its first start wrote its settings.
pub fn serve(
    installed: &Installed,
    dir: tempfile::TempDir,
    books: &[std::path::PathBuf],
) -> CalibreWeb {
    let venv = installed.get("CARREL_INTEROP_CALIBREWEB_VENV");
    let lib = {
        let _calibre = support::calibre_lock();
        support::calibre_library_in(installed, dir.path(), books)
    };

    // First start: app.db is created; then the library path is set and the server started again.
    let port = support::free_port();
    let base = format!("http://127.0.0.1:{port}");
    {
        let mut first = spawn(&venv, dir.path(), port, 1);
        first.wait_ready(&format!("{base}/login"), Duration::from_secs(180), |s| {
            s == 200
        });
    }
    {
        let db = rusqlite::Connection::open(dir.path().join("app.db")).unwrap();
        let changed = db
            .execute(
                "UPDATE settings SET config_calibre_dir = ?1",
                [lib.to_str().unwrap()],
            )
            .unwrap();
        assert_eq!(changed, 1, "Calibre-Web's app.db has no settings row");
    }
    let mut server = spawn(&venv, dir.path(), port, 2);
    server.wait_ready(&format!("{base}/login"), Duration::from_secs(180), |s| {
        s == 200
    });
    CalibreWeb {
        _process: server,
        base,
        _dir: dir,
    }
}

#[test]
fn calibre_web_walk_search_and_keep_offline_signed_in() {
    let installed = Installed::load();
    let dir = tempfile::tempdir().unwrap();
    let files = dir.path().join("files");
    let mut books = support::make_epubs(Path::new("python3"), &files, 3);
    books.extend(support::make_comics(Path::new("python3"), &files, 1, 3));
    let server = serve(&installed, dir, &books);
    let base = server.base.clone();
    let (status, _) = support::fetch(&format!("{base}/opds"), None);
    assert_eq!(status, 401, "Calibre-Web's OPDS answered without a sign-in");

    let cli = Cli::new();
    cli.add_server("cw", &format!("{base}/opds"), Some(ADMIN));
    let walk = support::walk(&cli, "cw", 60);
    assert!(walk.feeds > 5, "only {} feeds walked", walk.feeds);
    for title in [
        "Interop Novel 01",
        "Interop Novel 02",
        "Interop Novel 03",
        "Interop Comic 01",
    ] {
        walk.assert_one_identity(title);
    }

    let found = cli.json(&["search", "cw", "Novel 03"]);
    let titles = support::book_titles(&found);
    assert!(
        titles.contains(&"Interop Novel 03"),
        "search found {titles:?}"
    );

    let ids: Vec<i64> = walk
        .ids_by_title
        .values()
        .map(|ids| *ids.iter().next().unwrap())
        .collect();
    let stored = cli.keep_offline(&ids);
    support::assert_stored_as_served(&cli, &stored, "Calibre-Web", Some(ADMIN));
}
