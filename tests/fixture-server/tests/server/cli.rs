//! The binary, and use of the library from code with no async runtime.

use std::io::{BufRead, BufReader};
use std::net::TcpStream;
use std::process::{Command, Stdio};
use std::sync::mpsc;
use std::time::Duration;

use fixture_server::Server;

use crate::common::*;

#[test]
fn works_from_plain_synchronous_code_and_stops() {
    let server = Server::start(small_config()).unwrap();
    let addr = server.addr();
    assert!(server.base_url().starts_with("http://127.0.0.1:"));
    let resp = raw_get(addr, "/opds", &[("User-Agent", "sync-test")]);
    assert_eq!(resp.status(), 200);
    assert!(String::from_utf8_lossy(&resp.body).contains("<feed"));
    assert_eq!(server.stats().client("sync-test").unwrap().requests, 1);
    server.stop();
    assert!(
        TcpStream::connect_timeout(&addr, Duration::from_secs(1)).is_err(),
        "port closed after stop"
    );
}

#[test]
fn a_taken_port_is_an_error_not_a_panic() {
    let first = Server::start(small_config()).unwrap();
    let taken = fixture_server::Config {
        port: first.port(),
        ..small_config()
    };
    assert!(Server::start(taken).is_err());
    let invalid = fixture_server::Config {
        faults: fixture_server::Faults {
            error_rate: 3.0,
            ..Default::default()
        },
        ..small_config()
    };
    assert!(Server::start(invalid).is_err());
}

#[tokio::test]
async fn binary_prints_its_address_and_serves() {
    let mut child = Command::new(env!("CARGO_BIN_EXE_fixture-server"))
        .args([
            "--port",
            "0",
            "--books",
            "4",
            "--page-bytes",
            "4096",
            "--bookmark-param",
            "mark",
        ])
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .expect("binary starts");
    let stdout = child.stdout.take().unwrap();
    let (tx, rx) = mpsc::channel();
    std::thread::spawn(move || {
        let mut line = String::new();
        let _ = BufReader::new(stdout).read_line(&mut line);
        let _ = tx.send(line);
    });
    let line = rx
        .recv_timeout(Duration::from_secs(30))
        .expect("a listening line");
    let base = line
        .trim()
        .strip_prefix("listening on ")
        .unwrap_or_else(|| panic!("unexpected first line {line:?}"))
        .to_string();
    assert!(base.starts_with("http://127.0.0.1:"));
    assert_ne!(base, "http://127.0.0.1:0");

    let (status, _, body) = get_text(&format!("{base}/opds/books")).await;
    assert_eq!(status, 200);
    assert!(body.contains("&amp;mark=true"), "flags reach the server");
    assert_eq!(body.matches("urn:carrel-fixture:book:").count(), 4);

    child.kill().unwrap();
    child.wait().unwrap();

    let bad = Command::new(env!("CARGO_BIN_EXE_fixture-server"))
        .args(["--range", "maybe"])
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
        .unwrap();
    assert_eq!(bad.code(), Some(2));
}
