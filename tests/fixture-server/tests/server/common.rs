//! Helpers shared by the integration tests.
#![allow(dead_code)]

use std::io::{Read, Write};
use std::net::{SocketAddr, TcpStream};
use std::time::Duration;

use fixture_server::{Config, RunningServer, Server};

pub const ATOM: &str = "http://www.w3.org/2005/Atom";
pub const PSE: &str = "http://vaemendis.net/opds-pse/ns";

/// A small library with small pages, so tests stay quick.
pub fn small_config() -> Config {
    Config {
        page_bytes: 6 * 1024,
        ..Config::default()
    }
}

pub fn start(config: Config) -> RunningServer {
    Server::start(config).expect("server starts")
}

pub fn client() -> reqwest::Client {
    reqwest::Client::builder()
        .no_proxy()
        .timeout(Duration::from_secs(30))
        .build()
        .expect("client builds")
}

/// The status of the answer to `request`.
pub async fn status_of(request: reqwest::RequestBuilder) -> u16 {
    request.send().await.unwrap().status().as_u16()
}

/// The status and the JSON body of the answer to `request`.
pub async fn json_answer(request: reqwest::RequestBuilder) -> (u16, serde_json::Value) {
    let resp = request.send().await.unwrap();
    let status = resp.status().as_u16();
    (status, resp.json().await.unwrap())
}

pub async fn get_text(url: &str) -> (reqwest::StatusCode, reqwest::header::HeaderMap, String) {
    let resp = client().get(url).send().await.expect("request sent");
    let status = resp.status();
    let headers = resp.headers().clone();
    (status, headers, resp.text().await.expect("body read"))
}

pub async fn get_bytes(url: &str) -> (reqwest::StatusCode, reqwest::header::HeaderMap, Vec<u8>) {
    let resp = client().get(url).send().await.expect("request sent");
    let status = resp.status();
    let headers = resp.headers().clone();
    (
        status,
        headers,
        resp.bytes().await.expect("body read").to_vec(),
    )
}

/// The JSON body of the answer to a GET of `url`.
pub async fn get_json<T: serde::de::DeserializeOwned>(url: &str) -> T {
    let resp = client().get(url).send().await.expect("request sent");
    resp.json().await.expect("JSON body")
}

pub fn header<'a>(headers: &'a reqwest::header::HeaderMap, name: &str) -> Option<&'a str> {
    headers.get(name).and_then(|v| v.to_str().ok())
}

/// `(rel, href, type)` of every `<link>` directly under `node`.
pub fn links(node: roxmltree::Node<'_, '_>) -> Vec<(String, String, String)> {
    node.children()
        .filter(|n| n.has_tag_name((ATOM, "link")))
        .map(|n| {
            (
                n.attribute("rel").unwrap_or("").to_string(),
                n.attribute("href").unwrap_or("").to_string(),
                n.attribute("type").unwrap_or("").to_string(),
            )
        })
        .collect()
}

pub fn link_href(node: roxmltree::Node<'_, '_>, rel: &str) -> Option<String> {
    links(node)
        .into_iter()
        .find(|(r, _, _)| r == rel)
        .map(|(_, h, _)| h)
}

pub fn entries<'a, 'input>(
    doc: &'a roxmltree::Document<'input>,
) -> Vec<roxmltree::Node<'a, 'input>> {
    doc.root_element()
        .children()
        .filter(|n| n.has_tag_name((ATOM, "entry")))
        .collect()
}

pub fn child_text(node: roxmltree::Node<'_, '_>, name: &str) -> Option<String> {
    node.children()
        .find(|n| n.has_tag_name((ATOM, name)))
        .and_then(|n| n.text())
        .map(str::to_string)
}

/// The entry of a book in a feed, by book id.
pub fn book_entry<'a, 'input>(
    doc: &'a roxmltree::Document<'input>,
    id: u32,
) -> Option<roxmltree::Node<'a, 'input>> {
    let want = format!("urn:carrel-fixture:book:{id}");
    entries(doc)
        .into_iter()
        .find(|e| child_text(*e, "id").as_deref() == Some(want.as_str()))
}

/// What a raw HTTP/1.1 exchange produced.
#[derive(Debug)]
pub struct RawResponse {
    pub head: String,
    pub body: Vec<u8>,
    /// The error that ended reading, if it did not end with a clean EOF.
    pub error: Option<std::io::Error>,
}

impl RawResponse {
    pub fn status(&self) -> u16 {
        self.head
            .split(' ')
            .nth(1)
            .and_then(|s| s.parse().ok())
            .unwrap_or(0)
    }

    pub fn header(&self, name: &str) -> Option<String> {
        self.head.lines().skip(1).find_map(|line| {
            let (k, v) = line.split_once(':')?;
            k.trim()
                .eq_ignore_ascii_case(name)
                .then(|| v.trim().to_string())
        })
    }

    pub fn content_length(&self) -> usize {
        self.header("content-length")
            .and_then(|v| v.parse().ok())
            .unwrap_or(usize::MAX)
    }
}

/// Sends one request with `Connection: close` over a plain socket and reads until the server
/// closes (or resets) the connection.
pub fn raw_get(addr: SocketAddr, path: &str, extra_headers: &[(&str, &str)]) -> RawResponse {
    let mut stream = TcpStream::connect(addr).expect("connects");
    stream
        .set_read_timeout(Some(Duration::from_secs(20)))
        .unwrap();
    let mut request = format!("GET {path} HTTP/1.1\r\nHost: {addr}\r\nConnection: close\r\n");
    for (k, v) in extra_headers {
        request.push_str(&format!("{k}: {v}\r\n"));
    }
    request.push_str("\r\n");
    stream
        .write_all(request.as_bytes())
        .expect("request written");
    let mut data = Vec::new();
    let mut buf = [0u8; 8192];
    let error = loop {
        match stream.read(&mut buf) {
            Ok(0) => break None,
            Ok(n) => data.extend_from_slice(&buf[..n]),
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
            Err(e) => break Some(e),
        }
    };
    let split = data
        .windows(4)
        .position(|w| w == b"\r\n\r\n")
        .expect("response has a complete head");
    RawResponse {
        head: String::from_utf8_lossy(&data[..split]).into_owned(),
        body: data[split + 4..].to_vec(),
        error,
    }
}
