//! korrosync (crates.io), a KOReader sync server, against Carrel's KOReader sync: started on a
//! free loopback port with a database of its own, a user registered as KOReader registers one
//! (`POST /users/create`, the password's MD5 as the password), an EPUB from the fixture library
//! kept offline by the real `carrel-cli`, signed in and pushed with `carrel-cli kosync`, the
//! position saved through the core (no command saves an EPUB position). The server must hold it
//! under KOReader's document id (the partial MD5, computed here in Python as KOReader does),
//! another device's newer position put over plain HTTP must be the one Carrel takes, and a wrong
//! password and the server stopped must give the errors the README names.

use std::io::Write;
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::Duration;

use carrel_core::{
    catalog::series_read_ahead,
    foundation::{clock, data_dir, data_dir::DataDir},
    http::http_fetch::{HttpClient, HttpConfig},
    library::credentials::Credentials,
    reading::epub_positions,
    reading::position_sync::{self, PositionSource},
};
use serde_json::{json, Value};

use crate::support::{self, Cli, Installed, ServerProcess};

const USER: &str = "ada";
const PASSWORD: &str = "secret";
/// md5("secret"): what KOReader registers and signs in with for the password "secret".
const KEY: &str = "5ebe2294ecd0e0f08eab7690d2a6ee69";

struct Korrosync {
    process: ServerProcess,
    base: String,
    _dir: tempfile::TempDir,
}

fn start(installed: &Installed) -> Korrosync {
    let bin = installed.get("CARREL_INTEROP_KORROSYNC");
    let dir = tempfile::tempdir().unwrap();
    let port = support::free_port();
    let mut cmd = Command::new(bin);
    cmd.arg("serve")
        .env("KORROSYNC_DB_PATH", dir.path().join("db.redb"))
        .env("KORROSYNC_SERVER_ADDRESS", format!("127.0.0.1:{port}"))
        // Its limit per client address (2 a second by default) is for the open internet.
        .env("KORROSYNC_RATE_LIMIT_PER_SECOND", "1000")
        .env("KORROSYNC_RATE_LIMIT_BURST_SIZE", "1000");
    let mut process = ServerProcess::spawn("korrosync", cmd, dir.path().join("korrosync.log"));
    let base = process.ready_on(port, "/robots.txt", Duration::from_secs(30));
    Korrosync {
        process,
        base,
        _dir: dir,
    }
}

/// KOReader's partial MD5 of a file, as an independent Python implementation computes it
/// (koreader `frontend/util.lua`, `partialMD5`).
fn partial_md5(path: &Path) -> String {
    let script = "import hashlib, sys\nh = hashlib.md5()\nwith open(sys.argv[1], 'rb') as f:\n    for o in [0] + [1024 << (2 * i) for i in range(0, 11)]:\n        f.seek(o)\n        s = f.read(1024)\n        if not s:\n            break\n        h.update(s)\nprint(h.hexdigest())";
    support::python(script, &[path.as_os_str()])
}

/// `kosync login URL --username USER` with `password` on standard input.
fn login(cli: &Cli, url: &str, password: &str) -> std::process::Output {
    let mut child = cli
        .command(&["--json", "kosync", "login", url, "--username", USER])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    child
        .stdin
        .take()
        .unwrap()
        .write_all(password.as_bytes())
        .unwrap();
    child.wait_with_output().unwrap()
}

/// A request as KOReader's client sends it (its headers, signed in as the user): the status and
/// the JSON answer.
fn kosync_request(
    runtime: &tokio::runtime::Runtime,
    method: reqwest::Method,
    url: &str,
    body: Option<Value>,
) -> (u16, Value) {
    runtime.block_on(async {
        let mut request = reqwest::Client::new()
            .request(method, url)
            .header("accept", "application/vnd.koreader.v1+json")
            .header("x-auth-user", USER)
            .header("x-auth-key", KEY);
        if let Some(body) = body {
            request = request.json(&body);
        }
        let answer = request.send().await.unwrap();
        let status = answer.status().as_u16();
        (status, answer.json().await.unwrap_or(Value::Null))
    })
}

#[test]
fn an_epub_position_goes_to_korrosync_under_koreaders_id_and_another_devices_newer_one_comes_back()
{
    let installed = Installed::load();
    let sync = start(&installed);
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();

    // Registered as KOReader registers: the MD5 of the password is the password.
    let created = runtime.block_on(async {
        reqwest::Client::new()
            .post(format!("{}/users/create", sync.base))
            .json(&json!({ "username": USER, "password": KEY }))
            .send()
            .await
            .unwrap()
            .status()
            .as_u16()
    });
    assert_eq!(created, 201, "{}", sync.process.log_tail());

    // The library: the fixture's book 3 is an EPUB, kept offline by the real CLI.
    let library = fixture_server::Server::start(fixture_server::Config {
        books: 3,
        ..Default::default()
    })
    .expect("the fixture library starts");
    let cli = Cli::new();
    cli.add_server("lib", &library.url("/opds"), None);
    let page = cli.json(&["browse", "lib", "/opds/books"]);
    let book = page["entries"]
        .as_array()
        .unwrap()
        .iter()
        .find(|e| e["type"] == "book" && e["format"] == "epub")
        .and_then(|e| e["book_id"].as_i64())
        .unwrap_or_else(|| panic!("no EPUB listed: {page}"));
    let file = cli.keep_offline(&[book]).remove(&book).unwrap();
    let document = partial_md5(&file);

    // A wrong password is refused, and nothing is kept.
    let refused = login(&cli, &sync.base, "not the password");
    assert_eq!(refused.status.code(), Some(4));
    let said = String::from_utf8_lossy(&refused.stderr);
    assert!(
        said.contains("the sync server refused this user and password"),
        "{said}"
    );
    assert!(cli.json(&["kosync", "show"])["account"].is_null());
    let signed_in = login(&cli, &sync.base, PASSWORD);
    assert!(
        signed_in.status.success(),
        "{}",
        String::from_utf8_lossy(&signed_in.stderr)
    );
    let device_id = serde_json::from_slice::<Value>(&signed_in.stdout).unwrap()["device_id"]
        .as_str()
        .unwrap()
        .to_owned();

    // The EPUB read to 40 %, in its second spine item, saved through the core.
    let dir = DataDir::new(&cli.data);
    let credentials = Credentials::file_only(&dir, data_dir::default_identifier());
    let store = carrel_core::open_library(&dir, clock::system(), &credentials).unwrap();
    series_read_ahead::record_epub_position(&store, book, "epubcfi(/6/4!/4/2/1:0)", 0.4, None)
        .unwrap();
    let pushed = cli.json(&["kosync", "push"]);
    assert_eq!(pushed["sent"], 1, "{pushed}");

    // korrosync holds it under the document id KOReader computes for the same file.
    let (status, held) = kosync_request(
        &runtime,
        reqwest::Method::GET,
        &format!("{}/syncs/progress/{document}", sync.base),
        None,
    );
    assert_eq!(status, 200);
    assert_eq!(held["progress"], "/body/DocFragment[2]/body", "{held}");
    let percentage = held["percentage"].as_f64().unwrap();
    assert!((percentage - 0.4).abs() < 1e-6, "{held}");
    assert_eq!(held["device"], "Carrel");
    assert_eq!(held["device_id"], device_id.as_str());

    // Carrel's own position never comes back as another device's.
    let http = HttpClient::new(HttpConfig::default()).unwrap();
    let newest = runtime
        .block_on(position_sync::newest(&store, &http, &credentials, book))
        .unwrap();
    assert_eq!(newest, None);

    // A KOReader device reads on to 80 %, in the fifth spine item (korrosync stamps to the
    // second: a later second than Carrel's save).
    std::thread::sleep(Duration::from_millis(1100));
    let (status, put) = kosync_request(
        &runtime,
        reqwest::Method::PUT,
        &format!("{}/syncs/progress", sync.base),
        Some(json!({
            "document": document,
            "progress": "/body/DocFragment[5]/body/p[3]/text().0",
            "percentage": 0.8,
            "device": "Kobo",
            "device_id": "kobo-libra-1",
        })),
    );
    assert_eq!(status, 200, "{put}");
    let taken = runtime
        .block_on(position_sync::take_newer(&store, &http, &credentials, book))
        .unwrap()
        .expect("the other device's newer position");
    assert_eq!(taken.source, PositionSource::Kosync);
    assert_eq!(taken.cfi.as_deref(), Some("epubcfi(/6/10!/4)"));
    assert!((taken.progression.unwrap() - 0.8).abs() < 1e-6, "{taken:?}");
    let here = epub_positions::position(&store, book).unwrap().unwrap();
    assert_eq!(here.cfi, "epubcfi(/6/10!/4)");

    // The server stopped: a position saved meanwhile waits, with the reason, and login says the
    // server cannot be reached.
    let base = sync.base.clone();
    drop(sync);
    series_read_ahead::record_epub_position(&store, book, "epubcfi(/6/12!/4/2/1:0)", 0.9, None)
        .unwrap();
    let out = cli.run(&["--json", "kosync", "push"]);
    assert_eq!(out.status.code(), Some(4));
    let waiting = cli.json(&["kosync", "show"])["waiting"].clone();
    let reason = waiting[0]["last_error"]
        .as_str()
        .unwrap_or_default()
        .to_owned();
    assert!(
        reason.contains("the sync server cannot be reached"),
        "{waiting}"
    );
    let down = login(&cli, &base, PASSWORD);
    assert_eq!(down.status.code(), Some(4));
    let said = String::from_utf8_lossy(&down.stderr);
    assert!(said.contains("the sync server cannot be reached"), "{said}");
}
