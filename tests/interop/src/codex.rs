//! Codex (PyPI, pinned by scripts/ensure-interop-servers) on a free loopback port: a copy of a
//! migrated database (admin/admin), a folder of CBZs made at test time added as a library and
//! imported at start-up. OPDS 1.2 at /opds/v1.2/, 2.0 at /opds/v2.0/, page streaming,
//! bookmarks at /opds/v2.0/comics/<pk>/position. Each password check Codex makes is counted
//! through a `sitecustomize` wrapped around Django's `check_password`.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, Instant};

use crate::support::{self, Cli, Installed, ServerProcess};

pub const ADMIN: (&str, &str) = ("admin", "admin");

pub struct Codex {
    pub process: ServerProcess,
    pub base: String,
    pub comics: Vec<PathBuf>,
    checks: PathBuf,
    _dir: tempfile::TempDir,
}

/// Wraps Django's `check_password` in every Python process Codex starts. Each process that
/// wrapped it appends its pid to `<counter>.installed`; one that could not appends the error to
/// `<counter>.failed`, which fails the test (a counter that never counts would read 0 checks).
const COUNTER: &str = r#"
import os
_checks = os.environ.get("CARREL_PASSWORD_CHECKS")
if _checks:
    try:
        from django.contrib.auth import hashers as _hashers
        _original = _hashers.check_password
        def check_password(*args, **kwargs):
            with open(_checks, "a") as f:
                f.write("check\n")
            return _original(*args, **kwargs)
        _hashers.check_password = check_password
        with open(_checks + ".installed", "a") as f:
            f.write("%d\n" % os.getpid())
    except BaseException as e:
        with open(_checks + ".failed", "a") as f:
            f.write("%d: %r\n" % (os.getpid(), e))
        raise
"#;

/// Starts Codex with `count` comics of `pages` pages each and waits until they are imported.
/// Codex serving `count` comics of `pages` pages (see [`start`]) and a CLI data dir with its
/// OPDS 1.2 catalog added as "codex", signed in as [`ADMIN`].
pub fn start_signed_in(count: u32, pages: u32) -> (Codex, Cli) {
    let codex = start(&Installed::load(), count, pages);
    let cli = Cli::new();
    cli.add_server("codex", &codex.opds1(), Some(ADMIN));
    (codex, cli)
}

pub fn start(installed: &Installed, count: u32, pages: u32) -> Codex {
    let venv = installed.get("CARREL_INTEROP_CODEX_VENV");
    let sqlite = installed.get("CARREL_INTEROP_SQLITE_DIR");
    let template = installed.get("CARREL_INTEROP_CODEX_TEMPLATE");
    let dir = tempfile::tempdir().unwrap();
    let comics = support::make_comics(
        Path::new("python3"),
        &dir.path().join("comics"),
        count,
        pages,
    );
    let config = dir.path().join("config");
    let cp = Command::new("cp")
        .arg("-a")
        .arg(&template)
        .arg(&config)
        .status()
        .unwrap();
    assert!(cp.success(), "copying the Codex database template failed");
    let port = support::free_port();
    std::fs::write(
        config.join("codex.toml"),
        format!("[server]\nhost = \"127.0.0.1\"\nport = {port}\nworkers = 1\n\n[logging]\nloglevel = \"INFO\"\nlog_to_file = false\n"),
    )
    .unwrap();
    let site = dir.path().join("site");
    std::fs::create_dir_all(&site).unwrap();
    std::fs::write(site.join("sitecustomize.py"), COUNTER).unwrap();
    let checks = dir.path().join("password-checks");
    std::fs::write(&checks, "").unwrap();
    let env = |c: &mut Command| {
        c.env("CODEX_CONFIG_DIR", &config)
            .env("LD_LIBRARY_PATH", &sqlite)
            .env("PYTHONPATH", &site)
            .env("CARREL_PASSWORD_CHECKS", &checks)
            .env("HOME", dir.path());
    };
    let mut add = Command::new(venv.join("bin/python"));
    add.arg("-c")
        .arg(include_str!("codex_library.py"))
        .arg(dir.path().join("comics"));
    env(&mut add);
    let out = add.output().unwrap();
    assert!(
        out.status.success(),
        "adding the Codex library failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );

    // The library step ran Python with the counter too: only Codex's own processes count now.
    let _ = std::fs::remove_file(marker(&checks, "installed"));
    assert_counter_installed(&checks, "adding the Codex library", false);

    let mut cmd = Command::new(venv.join("bin/codex"));
    env(&mut cmd);
    let mut process = ServerProcess::spawn("codex", cmd, dir.path().join("codex.log"));
    let base = process.ready_on(port, "/opds/v1.2/", Duration::from_secs(300));
    // Codex polls the new library at start-up; the import is done when it says so.
    let start = Instant::now();
    loop {
        let log = std::fs::read_to_string(&process.log).unwrap_or_default();
        if log.contains("comics imported") || log.contains("Imported library") {
            break;
        }
        assert!(
            start.elapsed() < Duration::from_secs(300),
            "Codex did not import its library:\n{}",
            process.log_tail()
        );
        std::thread::sleep(Duration::from_millis(250));
    }
    assert_counter_installed(&checks, "starting Codex", true);
    let codex = Codex {
        process,
        base,
        comics,
        checks,
        _dir: dir,
    };
    codex.reset_password_checks();
    codex
}

impl Codex {
    pub fn opds1(&self) -> String {
        format!("{}/opds/v1.2/", self.base)
    }

    /// The password checks Codex made since the last reset. Panics if a Codex process could
    /// not wrap `check_password`, so a count of 0 always means no check.
    pub fn password_checks(&self) -> usize {
        assert_counter_installed(&self.checks, "counting password checks", true);
        std::fs::read_to_string(&self.checks)
            .unwrap()
            .lines()
            .count()
    }

    pub fn reset_password_checks(&self) {
        std::fs::write(&self.checks, "").unwrap();
    }

    /// Sets Codex's bookmark of comic `pk` for admin through its OPDS 2 progression (a fraction).
    pub fn set_bookmark(&self, pk: u64, progression: f64) {
        let url = format!("{}/opds/v2.0/comics/{pk}/position", self.base);
        let (status, body) = support::put_json(
            &url,
            ADMIN,
            &serde_json::json!({ "progression": progression }),
        );
        assert_eq!(status, 200, "PUT {url}: {body}");
    }

    /// Codex's own bookmark of comic `pk` for admin, as its OPDS 2 progression answers it.
    pub fn bookmark(&self, pk: u64) -> (u16, String) {
        let (status, body) = support::fetch(
            &format!("{}/opds/v2.0/comics/{pk}/position", self.base),
            Some(ADMIN),
        );
        (status, String::from_utf8_lossy(&body).into_owned())
    }
}

fn marker(checks: &Path, kind: &str) -> PathBuf {
    let mut name = checks.as_os_str().to_owned();
    name.push(format!(".{kind}"));
    PathBuf::from(name)
}

/// Fails loudly when a Python process could not install the password-check counter, and, once
/// Codex runs (`codex_started`), when no process of Codex installed it.
fn assert_counter_installed(checks: &Path, when: &str, codex_started: bool) {
    if let Ok(failed) = std::fs::read_to_string(marker(checks, "failed")) {
        panic!(
            "{when}: the password-check counter could not wrap Django's check_password:\n{failed}"
        );
    }
    if codex_started {
        let installed = std::fs::read_to_string(marker(checks, "installed")).unwrap_or_default();
        assert!(
            !installed.trim().is_empty(),
            "{when}: no Codex process installed the password-check counter (no sitecustomize ran)"
        );
    }
}

/// The Codex primary key in a Codex acquisition URL (`…/opds/bin/c/<pk>/download/…`).
pub fn codex_pk(url: &str) -> u64 {
    let after = url
        .split("/c/")
        .nth(1)
        .unwrap_or_else(|| panic!("not a Codex comic URL: {url}"));
    after
        .split('/')
        .next()
        .unwrap()
        .parse()
        .unwrap_or_else(|_| panic!("no comic pk in {url}"))
}

/// The URL Codex streams page `page` (from 1) of local book `id` at, from the template Carrel
/// keeps (bookmark-moving parameters already removed).
fn page_url(cli: &Cli, codex: &Codex, id: i64, page: u32) -> String {
    let template = cli
        .book_column(id, "stream_template")
        .expect("Codex gave no page-streaming link");
    let base: u32 = cli.book_column(id, "page_base").unwrap().parse().unwrap();
    let url = template
        .replace("{pageNumber}", &(base + page - 1).to_string())
        .replace("{maxWidth}", "1024");
    if url.starts_with("http") {
        url
    } else {
        format!("{}{url}", codex.base)
    }
}

#[test]
fn codex_walk_search_keep_offline_pages_and_bookmarks() {
    let (codex, cli) = start_signed_in(4, 6);

    // Every feed reachable within the bound parses, and every comic is reachable.
    let walk = support::walk(&cli, "codex", 60);
    assert!(walk.feeds >= 5, "only {} feeds walked", walk.feeds);
    for n in 1..=4 {
        let title_part = format!("{n:02}");
        assert!(
            walk.books.values().any(|b| b.title.contains(&title_part)),
            "comic {n} not found in {} feeds: {:?}",
            walk.feeds,
            walk.ids_by_title.keys()
        );
    }
    for b in walk.books.values() {
        assert_eq!(b.format, "comic", "{b:?}");
    }

    // Search through Codex's OpenSearch.
    assert!(walk.searchable_root, "Codex's root feed offers no search");
    let found = cli.json(&["search", "codex", "Interop Comic 03"]);
    let books: Vec<&serde_json::Value> = found["entries"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|e| e["type"] == "book")
        .collect();
    assert!(!books.is_empty(), "search found nothing: {found}");
    assert!(
        books
            .iter()
            .any(|b| b["title"].as_str().unwrap().contains("03")),
        "{found}"
    );

    // One book per comic (the first id seen for each title).
    let mut per_title: Vec<(String, i64)> = walk
        .ids_by_title
        .iter()
        .map(|(t, ids)| (t.clone(), *ids.iter().next().unwrap()))
        .collect();
    per_title.sort();
    let first = per_title[0].1;
    let pk = codex_pk(
        &cli.book_column(first, "file_url")
            .expect("no acquisition URL"),
    );
    codex.set_bookmark(pk, 0.4);
    let before = codex.bookmark(pk);
    assert!(
        before.0 == 200 && before.1.contains("Page 3"),
        "Codex did not keep the bookmark: {before:?}"
    );

    // Kept offline: Codex streams its comics by page, so Carrel keeps the pages; each page is
    // byte-identical to what Codex serves at the same page URL.
    let ids: Vec<i64> = per_title.iter().map(|(_, id)| *id).collect();
    for id in &ids[..2] {
        cli.ok(&["store", &id.to_string()]);
    }
    cli.ok(&["sync", "--until-idle"]);
    for id in &ids[..2] {
        let pages: u32 = cli
            .book_column(*id, "page_count")
            .expect("no page count")
            .parse()
            .unwrap();
        assert_eq!(pages, 6, "book {id}");
        for p in 1..=pages {
            let page = cli.json(&["path", &id.to_string(), "--page", &p.to_string()]);
            let ours = support::read(Path::new(page["path"].as_str().unwrap()));
            let url = page_url(&cli, &codex, *id, p);
            let (status, reference) = support::fetch(&url, Some(ADMIN));
            assert_eq!(status, 200, "GET {url}");
            assert!(
                ours == reference,
                "book {id} page {p} differs from {url}: {} vs {} bytes",
                ours.len(),
                reference.len()
            );
        }
    }

    // A page opened through page streaming: the page file is what Codex streams for that page.
    let other = per_title[2].1;
    let other_pk = codex_pk(&cli.book_column(other, "file_url").unwrap());
    codex.set_bookmark(other_pk, 0.2);
    let other_before = codex.bookmark(other_pk);
    assert!(other_before.1.contains("Page 2"), "{other_before:?}");
    cli.ok(&["open", &other.to_string(), "--page", "3"]);
    cli.ok(&["sync", "--until-idle"]);
    let page = cli.json(&["path", &other.to_string(), "--page", "3"]);
    let ours = support::read(Path::new(page["path"].as_str().unwrap()));
    let url = page_url(&cli, &codex, other, 3);
    let (status, reference) = support::fetch(&url, Some(ADMIN));
    assert_eq!(status, 200, "GET {url}");
    assert!(
        ours == reference,
        "page 3 differs from {url}: {} vs {} bytes",
        ours.len(),
        reference.len()
    );

    // Background downloads never move Codex's bookmark: not the stored book, not the streamed one.
    let after = codex.bookmark(pk);
    assert_eq!(
        before, after,
        "keeping comic {pk} offline moved its bookmark"
    );
    assert_eq!(
        other_before,
        codex.bookmark(other_pk),
        "streaming the pages of comic {other_pk} moved its bookmark"
    );
}
