//! What every server module shares: the installed servers' locations (from
//! scripts/ensure-interop-servers), free ports, server processes killed with their whole process
//! group on drop, readiness waits, comic and ebook files made at test time, the real
//! `carrel-cli` binary on a temp data dir, a bounded walk of a catalog, and reference downloads.
//!
//! Owns no server knowledge: how to configure and start each server lives in its module.

use std::collections::{BTreeMap, BTreeSet, VecDeque};
use std::fs::File;
use std::io::Read;
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Output, Stdio};
use std::time::{Duration, Instant};

use serde_json::Value;

/// The servers' install locations, written by scripts/ensure-interop-servers.
pub struct Installed {
    vars: BTreeMap<String, String>,
}

impl Installed {
    pub fn load() -> Installed {
        let path = std::env::var_os("CARREL_INTEROP_ENV")
            .map(PathBuf::from)
            .unwrap_or_else(|| {
                let home = std::env::var_os("HOME").expect("HOME is not set");
                PathBuf::from(home).join(".cache/carrel/interop/interop.env")
            });
        let text = std::fs::read_to_string(&path).unwrap_or_else(|e| {
            panic!("the interop servers are not installed ({}: {e}): run scripts/ensure-interop-servers or `make test-interop`", path.display())
        });
        let vars = text
            .lines()
            .filter_map(|l| l.split_once('='))
            .map(|(k, v)| (k.trim().to_owned(), v.trim().to_owned()))
            .collect();
        Installed { vars }
    }

    pub fn get(&self, key: &str) -> PathBuf {
        let value = self.vars.get(key).unwrap_or_else(|| {
            panic!("{key} missing from interop.env: run scripts/ensure-interop-servers again")
        });
        let path = PathBuf::from(value);
        assert!(
            path.exists(),
            "{key}={} does not exist: run scripts/ensure-interop-servers again",
            path.display()
        );
        path
    }
}

pub fn free_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port()
}

/// A server process in a process group of its own; dropping it kills the whole group (worker
/// processes included) and reaps the leader, so no server outlives its test.
pub struct ServerProcess {
    pub name: &'static str,
    child: Child,
    pub log: PathBuf,
}

impl ServerProcess {
    pub fn spawn(name: &'static str, mut cmd: Command, log: PathBuf) -> ServerProcess {
        let out = File::create(&log).unwrap();
        let err = out.try_clone().unwrap();
        cmd.stdin(Stdio::null())
            .stdout(out)
            .stderr(err)
            .process_group(0);
        let child = cmd
            .spawn()
            .unwrap_or_else(|e| panic!("cannot start {name} ({:?}): {e}", cmd.get_program()));
        ServerProcess { name, child, log }
    }

    pub fn log_tail(&self) -> String {
        let text = std::fs::read_to_string(&self.log).unwrap_or_default();
        let lines: Vec<&str> = text.lines().collect();
        lines[lines.len().saturating_sub(40)..].join("\n")
    }

    /// Polls `url` until it answers with `accept(status)`; panics with the server's log when the
    /// process exits or `limit` passes. A readiness bound, not a speed assertion.
    /// Waits up to `limit` until this server, listening on loopback at `port`, answers 200 at
    /// `ready_path`: its base address.
    pub fn ready_on(&mut self, port: u16, ready_path: &str, limit: Duration) -> String {
        let base = format!("http://127.0.0.1:{port}");
        self.wait_ready(&format!("{base}{ready_path}"), limit, |s| s == 200);
        base
    }

    pub fn wait_ready(&mut self, url: &str, limit: Duration, accept: impl Fn(u16) -> bool) {
        let start = Instant::now();
        loop {
            if let Ok(Some(status)) = self.child.try_wait() {
                panic!(
                    "{} exited ({status}) before it was ready:\n{}",
                    self.name,
                    self.log_tail()
                );
            }
            if let Ok(status) = status_of(url) {
                if accept(status) {
                    return;
                }
            }
            if start.elapsed() > limit {
                panic!(
                    "{} not ready at {url} after {limit:?}:\n{}",
                    self.name,
                    self.log_tail()
                );
            }
            std::thread::sleep(Duration::from_millis(250));
        }
    }

    /// CPU seconds (user + system) the whole process group used so far, from /proc.
    pub fn cpu_seconds(&self) -> f64 {
        let pgid = self.child.id() as i32;
        let ticks = unsafe { libc::sysconf(libc::_SC_CLK_TCK) } as f64;
        let mut total = 0u64;
        for entry in std::fs::read_dir("/proc").unwrap().flatten() {
            let Ok(stat) = std::fs::read_to_string(entry.path().join("stat")) else {
                continue;
            };
            let Some(after) = stat.rsplit_once(')').map(|(_, a)| a) else {
                continue;
            };
            let f: Vec<&str> = after.split_whitespace().collect();
            // after ')': state ppid pgrp ... utime(12) stime(13) cutime cstime
            if f.len() > 14 && f[2].parse::<i32>().ok() == Some(pgid) {
                total += f[11].parse::<u64>().unwrap_or(0) + f[12].parse::<u64>().unwrap_or(0);
            }
        }
        total as f64 / ticks
    }
}

impl Drop for ServerProcess {
    fn drop(&mut self) {
        let pgid = self.child.id() as i32;
        unsafe {
            libc::kill(-pgid, libc::SIGTERM);
        }
        let deadline = Instant::now() + Duration::from_secs(5);
        while Instant::now() < deadline {
            if let Ok(Some(_)) = self.child.try_wait() {
                break;
            }
            std::thread::sleep(Duration::from_millis(50));
        }
        unsafe {
            libc::kill(-pgid, libc::SIGKILL);
        }
        let _ = self.child.wait();
    }
}

fn runtime() -> tokio::runtime::Runtime {
    tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap()
}

fn client() -> reqwest::Client {
    reqwest::Client::builder()
        .timeout(Duration::from_secs(60))
        .build()
        .unwrap()
}

pub fn status_of(url: &str) -> Result<u16, reqwest::Error> {
    runtime().block_on(async {
        Ok(client()
            .get(url)
            .timeout(Duration::from_secs(5))
            .send()
            .await?
            .status()
            .as_u16())
    })
}

/// GETs `url` (with HTTP Basic credentials when given): the status and the body.
pub fn fetch(url: &str, basic: Option<(&str, &str)>) -> (u16, Vec<u8>) {
    runtime().block_on(async {
        let mut req = client().get(url);
        if let Some((u, p)) = basic {
            req = req.basic_auth(u, Some(p));
        }
        let resp = req
            .send()
            .await
            .unwrap_or_else(|e| panic!("GET {url}: {e}"));
        let status = resp.status().as_u16();
        let body = resp
            .bytes()
            .await
            .unwrap_or_else(|e| panic!("GET {url} body: {e}"))
            .to_vec();
        (status, body)
    })
}

/// PUTs a JSON document with HTTP Basic credentials: the status and the body.
pub fn put_json(url: &str, basic: (&str, &str), body: &Value) -> (u16, String) {
    runtime().block_on(async {
        let resp = client()
            .put(url)
            .basic_auth(basic.0, Some(basic.1))
            .json(body)
            .send()
            .await
            .unwrap_or_else(|e| panic!("PUT {url}: {e}"));
        let status = resp.status().as_u16();
        (status, resp.text().await.unwrap_or_default())
    })
}

/// Makes `count` comic books (CBZ of `pages` PNG pages each, every page's pixels distinct) with
/// Python's zipfile and zlib: `<dir>/Interop Comic NN.cbz`.
pub fn make_comics(python: &Path, dir: &Path, count: u32, pages: u32) -> Vec<PathBuf> {
    let files = make_books(python, dir, "comics", &[count, pages], "cbz");
    assert_eq!(files.len(), count as usize);
    files
}

/// Makes `count` small EPUB books with Python's zipfile: `<dir>/Interop Novel NN.epub`.
pub fn make_epubs(python: &Path, dir: &Path, count: u32) -> Vec<PathBuf> {
    make_books(python, dir, "epubs", &[count], "epub")
}

/// Runs `make_books.py` to make `what` (with `numbers` after it) in `dir`: the files it made
/// there, named `*.<extension>`, in name order.
fn make_books(
    python: &Path,
    dir: &Path,
    what: &str,
    numbers: &[u32],
    extension: &str,
) -> Vec<PathBuf> {
    std::fs::create_dir_all(dir).unwrap();
    let out = Command::new(python)
        .arg("-c")
        .arg(include_str!("make_books.py"))
        .arg(what)
        .arg(dir)
        .args(numbers.iter().map(u32::to_string))
        .output()
        .unwrap_or_else(|e| panic!("cannot run {}: {e}", python.display()));
    assert!(
        out.status.success(),
        "making {what} failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let mut files: Vec<PathBuf> = std::fs::read_dir(dir)
        .unwrap()
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|e| e == extension))
        .collect();
    files.sort();
    files
}

/// What `script`, run by `python3 -c` with `args` after it, printed (trimmed); its failure
/// fails the test.
pub fn python(script: &str, args: &[&std::ffi::OsStr]) -> String {
    let out = Command::new("python3")
        .arg("-c")
        .arg(script)
        .args(args)
        .output()
        .expect("run python3");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout).trim().to_owned()
}

/// calibre refuses `calibredb add` while a calibre content server runs as the same user: the
/// content server's test holds this for its whole run, others while they call `calibredb`.
pub fn calibre_lock() -> std::sync::MutexGuard<'static, ()> {
    static CALIBRE: std::sync::Mutex<()> = std::sync::Mutex::new(());
    CALIBRE.lock().unwrap_or_else(|e| e.into_inner())
}

/// The calibre library `<dir>/library` with `books` added by the installed `calibredb`: its
/// path.
pub fn calibre_library_in(installed: &Installed, dir: &Path, books: &[PathBuf]) -> PathBuf {
    let calibredb = installed.get("CARREL_INTEROP_CALIBREDB");
    let lib = dir.join("library");
    calibre_library(&calibredb, &lib, books);
    lib
}

/// Each book of `stored` (a book id → its stored file) is byte-identical to what the server
/// serves at the book's acquisition URL (signed in as `basic`); `server` names it in failures.
pub fn assert_stored_as_served(
    cli: &Cli,
    stored: &BTreeMap<i64, PathBuf>,
    server: &str,
    basic: Option<(&str, &str)>,
) {
    for (id, path) in stored {
        let url = cli
            .book_column(*id, "file_url")
            .unwrap_or_else(|| panic!("a {server} book without an acquisition URL"));
        let (status, reference) = fetch(&url, basic);
        assert_eq!(status, 200, "GET {url}");
        let ours = read(path);
        assert!(
            ours == reference,
            "book {id} differs from {url}: {} vs {} bytes",
            ours.len(),
            reference.len()
        );
    }
}

/// The calibre library at `lib` with `books` added by Debian's `calibredb`.
pub fn calibre_library(calibredb: &Path, lib: &Path, books: &[PathBuf]) {
    std::fs::create_dir_all(lib).unwrap();
    let out = Command::new(calibredb)
        .arg("add")
        .arg("--with-library")
        .arg(lib)
        .args(books)
        .env("QT_QPA_PLATFORM", "offscreen")
        .env("HOME", lib.parent().unwrap())
        .stdin(Stdio::null())
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "calibredb add failed: {}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(
        lib.join("metadata.db").is_file(),
        "calibredb made no metadata.db"
    );
}

/// The real `carrel-cli` next to this test binary (target/<profile>/carrel-cli).
pub fn cli_binary() -> PathBuf {
    if let Some(p) = std::env::var_os("CARREL_CLI") {
        return PathBuf::from(p);
    }
    let exe = std::env::current_exe().unwrap();
    let bin = exe
        .parent()
        .and_then(Path::parent)
        .unwrap()
        .join("carrel-cli");
    assert!(
        bin.is_file(),
        "{} is missing: run `cargo build -p carrel-cli` first (make test-interop does)",
        bin.display()
    );
    bin
}

/// `carrel-cli` on a data dir of its own, with secrets in a 0600 file.
pub struct Cli {
    _tmp: tempfile::TempDir,
    pub data: PathBuf,
    bin: PathBuf,
}

impl Cli {
    pub fn new() -> Cli {
        let tmp = tempfile::tempdir().unwrap();
        let data = tmp.path().join("data");
        Cli {
            _tmp: tmp,
            data,
            bin: cli_binary(),
        }
    }

    pub fn command(&self, args: &[&str]) -> Command {
        let mut c = Command::new(&self.bin);
        c.arg("--data-dir").arg(&self.data).args(args);
        c.env("CARREL_SECRETS", "file")
            .env_remove("CARREL_DATA_DIR")
            .env("CARREL_LOG", "warn");
        c
    }

    pub fn run(&self, args: &[&str]) -> Output {
        self.command(args).stdin(Stdio::null()).output().unwrap()
    }

    pub fn ok(&self, args: &[&str]) -> String {
        let out = self.run(args);
        assert!(
            out.status.success(),
            "carrel-cli {args:?} failed ({}): {}",
            out.status,
            String::from_utf8_lossy(&out.stderr)
        );
        String::from_utf8(out.stdout).unwrap()
    }

    pub fn json(&self, args: &[&str]) -> Value {
        let mut all = vec!["--json"];
        all.extend_from_slice(args);
        let text = self.ok(&all);
        serde_json::from_str(&text)
            .unwrap_or_else(|e| panic!("carrel-cli {args:?}: not JSON ({e}): {text}"))
    }

    /// `server add NAME URL`, with a username and the password on standard input when given.
    pub fn add_server(&self, name: &str, url: &str, login: Option<(&str, &str)>) -> Value {
        let mut args = vec!["--json", "server", "add", name, url];
        if let Some((user, _)) = login {
            args.extend(["--username", user, "--password-stdin"]);
        }
        let mut child = self
            .command(&args)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        {
            use std::io::Write;
            let mut stdin = child.stdin.take().unwrap();
            if let Some((_, password)) = login {
                stdin.write_all(password.as_bytes()).unwrap();
            }
        }
        let out = child.wait_with_output().unwrap();
        assert!(
            out.status.success(),
            "server add {name} {url} failed: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        serde_json::from_slice(&out.stdout).unwrap()
    }

    /// Reads one column of the app's database, read-only (the CLI closed it).
    pub fn book_column(&self, book_id: i64, column: &str) -> Option<String> {
        let db = rusqlite::Connection::open_with_flags(
            self.data.join("carrel.db"),
            rusqlite::OpenFlags::SQLITE_OPEN_READ_ONLY,
        )
        .unwrap();
        db.query_row(
            &format!("SELECT CAST({column} AS TEXT) FROM books WHERE id = ?1"),
            [book_id],
            |r| r.get(0),
        )
        .unwrap()
    }

    pub fn local_book_count(&self) -> i64 {
        let db = rusqlite::Connection::open_with_flags(
            self.data.join("carrel.db"),
            rusqlite::OpenFlags::SQLITE_OPEN_READ_ONLY,
        )
        .unwrap();
        db.query_row("SELECT count(*) FROM books", [], |r| r.get(0))
            .unwrap()
    }

    /// `store` each book, then `sync --until-idle`; returns each book's stored file.
    pub fn keep_offline(&self, book_ids: &[i64]) -> BTreeMap<i64, PathBuf> {
        for id in book_ids {
            self.ok(&["store", &id.to_string()]);
        }
        let synced = self.ok(&["--json", "sync", "--until-idle"]);
        book_ids
            .iter()
            .map(|id| {
                let out = self.run(&["--json", "path", &id.to_string()]);
                if !out.status.success() {
                    panic!(
                        "book {id} is not stored after `sync --until-idle` ({}): {}\nsync: {synced}\nstatus: {}",
                        out.status,
                        String::from_utf8_lossy(&out.stderr).trim(),
                        self.ok(&["--json", "status"])
                    );
                }
                let v: Value = serde_json::from_slice(&out.stdout).unwrap();
                (*id, PathBuf::from(v["path"].as_str().unwrap()))
            })
            .collect()
    }
}

/// A book seen while walking a catalog.
#[derive(Debug, Clone)]
pub struct SeenBook {
    pub book_id: i64,
    pub title: String,
    pub format: String,
}

/// What a bounded walk of a catalog saw.
#[derive(Debug, Default)]
pub struct Walk {
    pub feeds: usize,
    pub books: BTreeMap<i64, SeenBook>,
    /// Book ids per title: more than one id for a title means one book got several identities.
    pub ids_by_title: BTreeMap<String, BTreeSet<i64>>,
    pub searchable_root: bool,
}

impl Walk {
    /// The book titled `title` was found, with one local identity whichever view it was seen
    /// through.
    pub fn assert_one_identity(&self, title: &str) {
        let ids = self.ids_by_title.get(title).unwrap_or_else(|| {
            panic!(
                "{title} not found in {} feeds: {:?}",
                self.feeds,
                self.ids_by_title.keys()
            )
        });
        assert_eq!(
            ids.len(),
            1,
            "{title} has several local identities: {ids:?}"
        );
    }
}

/// The titles of the books a CLI answer (a feed page or search results) lists.
pub fn book_titles(answer: &Value) -> Vec<&str> {
    answer["entries"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|e| e["type"] == "book")
        .map(|e| e["title"].as_str().unwrap())
        .collect()
}

/// Browses the root, then follows navigation and next links breadth-first, at most `bound`
/// feeds; every feed must parse (the CLI exits 0).
pub fn walk(cli: &Cli, server: &str, bound: usize) -> Walk {
    let mut walk = Walk::default();
    let mut seen = BTreeSet::new();
    let mut queue: VecDeque<Option<String>> = VecDeque::from([None]);
    while let Some(feed) = queue.pop_front() {
        if walk.feeds >= bound {
            break;
        }
        let page = match &feed {
            None => cli.json(&["browse", server]),
            Some(f) => cli.json(&["browse", server, f]),
        };
        walk.feeds += 1;
        if feed.is_none() {
            walk.searchable_root = page["searchable"].as_bool().unwrap_or(false);
        }
        let this = page["feed_url"].as_str().unwrap_or_default().to_owned();
        seen.insert(this);
        let mut links: Vec<String> = Vec::new();
        for e in page["entries"].as_array().unwrap() {
            match e["type"].as_str() {
                Some("book") => {
                    let b = SeenBook {
                        book_id: e["book_id"].as_i64().unwrap(),
                        title: e["title"].as_str().unwrap().to_owned(),
                        format: e["format"].as_str().unwrap_or_default().to_owned(),
                    };
                    walk.ids_by_title
                        .entry(b.title.clone())
                        .or_default()
                        .insert(b.book_id);
                    walk.books.insert(b.book_id, b);
                }
                Some("navigation") => links.push(e["href"].as_str().unwrap().to_owned()),
                _ => {}
            }
        }
        links.extend(page["next"].as_str().map(str::to_owned));
        for l in links {
            if seen.insert(l.clone()) {
                queue.push_back(Some(l));
            }
        }
    }
    walk
}

/// Reads a whole file.
pub fn read(path: &Path) -> Vec<u8> {
    let mut v = Vec::new();
    File::open(path)
        .unwrap_or_else(|e| panic!("{}: {e}", path.display()))
        .read_to_end(&mut v)
        .unwrap();
    v
}
