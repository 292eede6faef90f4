//! A real HTTP library server for Carrel's tests, benchmarks and demos.
//!
//! It serves a generated library (CBZ comics made of PNG pages, EPUB 3 ebooks, covers and
//! thumbnails, all deterministic from a seed) as an OPDS 1.2 catalog with the OPDS Page Streaming
//! Extension, lets tests inject faults (latency, bandwidth caps, 503s, truncated or reset bodies,
//! stalls, authentication), and counts what each client asked for, including how many requests it
//! had in flight at once.
//!
//! ```no_run
//! let server = fixture_server::Server::start(fixture_server::Config::default()).unwrap();
//! println!("catalog at {}", server.url("/opds"));
//! let stats = server.stats();
//! assert_eq!(stats.global_max_in_flight, 0);
//! ```

use std::collections::{BTreeMap, BTreeSet};
use std::io;
use std::net::{SocketAddr, TcpListener};
use std::sync::Arc;
use std::thread::JoinHandle;

use serde::{Deserialize, Serialize};
use tokio::sync::oneshot;

mod content;
mod feeds;
mod http;
mod kosync;
mod length_lies;
mod png;
mod sessions;
mod state;
mod util;

pub use content::BookKind;
pub use length_lies::{LengthLie, CLAIMED_TOTAL};
pub use png::numbered_png;

use state::State;

/// How to start a server.
#[derive(Clone, Debug)]
pub struct Config {
    /// Port on `host`; 0 picks a free one.
    pub port: u16,
    /// The loopback address to listen on: 127.0.0.1, or another (127.0.0.2, …) to play a
    /// second host.
    pub host: std::net::Ipv4Addr,
    /// Seed for everything generated: titles, page counts, image noise, the 503 sequence.
    pub seed: u64,
    /// Number of books, with ids `1..=books`. Every third id is an EPUB, the rest are comics.
    pub books: u32,
    /// Approximate size of one comic page image in bytes.
    pub page_bytes: usize,
    /// Entries per acquisition feed page.
    pub feed_page_size: usize,
    /// Page counts for particular books (by id); a book listed here is always a comic.
    pub comic_pages: BTreeMap<u32, u32>,
    /// Books served as a file the caller made (a PDF, a MOBI, …) instead of the generated CBZ or
    /// EPUB: no page stream, the given type and bytes. Their ids must be in `1..=books`.
    pub files: BTreeMap<u32, GivenFile>,
    /// Books that answer `410 Gone` (they are still listed in the feeds).
    pub gone: BTreeSet<u32>,
    /// Server-side reading positions, book id to zero-based page index. `None` gives roughly
    /// every fourth comic a position a third of the way in.
    pub reading_positions: Option<BTreeMap<u32, u32>>,
    /// Protocol switches.
    pub behavior: Behavior,
    /// Faults to inject from the start.
    pub faults: Faults,
}

impl Default for Config {
    fn default() -> Self {
        Config {
            port: 0,
            host: std::net::Ipv4Addr::LOCALHOST,
            seed: 1,
            books: 12,
            page_bytes: 40 * 1024,
            feed_page_size: 20,
            comic_pages: BTreeMap::new(),
            files: BTreeMap::new(),
            gone: BTreeSet::new(),
            reading_positions: None,
            behavior: Behavior::default(),
            faults: Faults::default(),
        }
    }
}

impl Config {
    /// Checks the settings that could make the server misbehave.
    pub fn validate(&self) -> Result<(), String> {
        if self.page_bytes > 64 * 1024 * 1024 {
            return Err("page_bytes must be at most 64 MiB".into());
        }
        if self.books > 100_000 {
            return Err("books must be at most 100000".into());
        }
        if self.comic_pages.values().any(|p| *p == 0 || *p > 10_000) {
            return Err("comic page counts must be between 1 and 10000".into());
        }
        self.behavior.validate()?;
        self.faults.validate()
    }
}

/// A book file made by the caller, served as that book's acquisition.
#[derive(Clone, PartialEq, Eq)]
pub struct GivenFile {
    /// The media type the feed and the file's answer give.
    pub media_type: String,
    /// The file name's extension (without the dot), as in the answer's file name.
    pub extension: String,
    pub bytes: Vec<u8>,
}

impl std::fmt::Debug for GivenFile {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("GivenFile")
            .field("media_type", &self.media_type)
            .field("extension", &self.extension)
            .field("bytes", &self.bytes.len())
            .finish()
    }
}

/// Injected faults. Every field at its default means "no fault".
///
/// Faults apply to library requests only (not to `/_stats` or `/_control/...`), and only to
/// those whose path and query start with `path_prefix` when it is set. When `next_requests` is
/// set, each matching request uses one up and faults stop once it reaches 0.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct Faults {
    /// Delay before the response headers, in milliseconds.
    pub latency_ms: u64,
    /// Cap on body bytes per second.
    pub bandwidth: Option<u64>,
    /// Fraction (0.0–1.0) of requests answered `503`, from a sequence fixed by the seed that
    /// restarts whenever the faults are replaced.
    pub error_rate: f64,
    /// Send about half the body, then reset the connection (RST).
    pub reset_mid_body: bool,
    /// Declare the full `Content-Length`, send about half the body, then close the connection.
    pub truncate_body: bool,
    /// Send about half the body, then pause this many milliseconds before the rest.
    pub stall_ms: u64,
    /// Only requests whose path and query start with this are affected.
    pub path_prefix: Option<String>,
    /// Only this many more matching requests are affected.
    pub next_requests: Option<u64>,
}

impl Faults {
    /// Whether any fault is set (regardless of the filters).
    pub fn is_active(&self) -> bool {
        self.latency_ms > 0
            || self.bandwidth.is_some_and(|b| b > 0)
            || self.error_rate > 0.0
            || self.reset_mid_body
            || self.truncate_body
            || self.stall_ms > 0
    }

    /// Checks the values are in range.
    pub fn validate(&self) -> Result<(), String> {
        if !(0.0..=1.0).contains(&self.error_rate) {
            return Err("error_rate must be between 0.0 and 1.0".into());
        }
        if self.latency_ms > 600_000 || self.stall_ms > 600_000 {
            return Err("latency_ms and stall_ms must be at most 600000".into());
        }
        if self.bandwidth == Some(0) {
            return Err("bandwidth must be positive (or absent)".into());
        }
        Ok(())
    }
}

/// Protocol switches, changeable while the server runs.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default)]
pub struct Behavior {
    /// Honour `Range` requests (and advertise `Accept-Ranges: bytes`).
    pub range: bool,
    /// Send strong `ETag`s and honour `If-None-Match` and `If-Range` with them.
    pub etag: bool,
    /// Send `Last-Modified` and honour `If-Range` with it.
    pub last_modified: bool,
    /// Number streamed pages from 1 instead of 0.
    pub one_based_pages: bool,
    /// Require HTTP Basic authentication with these `user:pass` credentials.
    pub auth: Option<String>,
    /// Require (or, with `auth`, also accept) `Authorization: Bearer` with this token.
    pub bearer_token: Option<String>,
    /// Require (or, with `auth`, also accept) this API key in the `X-API-Key` header, as Komga
    /// does (`HeaderApiKeyAuthenticationConverter`, registered for `X-API-Key` in its
    /// `SecurityConfiguration.kt`).
    pub api_key: Option<String>,
    /// Name of a query parameter that, set to `true` on a page request, moves the book's
    /// server-side reading position to that page. Added to the PSE link template.
    pub bookmark_param: Option<String>,
    /// Look like Komga: feeds signed by Komga, page streams under `/opds/v1.2/books/ID/pages/`,
    /// no progression links, Komga's read-progress API (`GET /api/v1/books/ID`,
    /// `PATCH /api/v1/books/ID/read-progress`), and series as Komga's OPDS 1.2 gives them: each
    /// series' books in their own feed at `/opds/v1.2/series/ID`, titled with the series' name
    /// and sorted by number, and no series or number in the entries (Komga's
    /// `interfaces/api/opds/v1/OpdsController.kt`: `getOneSeries`, `BookDto.toOpdsEntry`).
    pub komga: bool,
    /// Look like Codex's OPDS 1.2 entry ids: each `<id>` is the book's address with the feed's
    /// own view in its query (`/opds/v1.2/comics/5?topCollection=…&orderBy=…`, and the search
    /// terms in a search), so the same book has another id in every feed that lists it.
    pub view_in_entry_ids: bool,
    /// Look like calibre's content server and Calibre-Web: comics come only as whole CBZ
    /// files (a plain acquisition link), with no page streaming.
    pub whole_file_comics: bool,
    /// Sign clients in with a session: a Basic password (checked slowly, counted in
    /// `Stats::password_checks`) answers with `Set-Cookie: sessionid=…`, and that cookie is
    /// accepted instead of the password afterwards.
    pub sessions: bool,
    /// With `sessions`: a session expires after answering this many requests.
    pub session_max_uses: Option<u32>,
    /// Serve a KOReader sync (KOSync) server under `/kosync` for this user and key (the key as
    /// KOReader sends it: the MD5 of the password, in hex).
    pub kosync_user: Option<(String, String)>,
    /// The web home page (`/`) does not link to the catalog: it is found only at `/opds`.
    pub home_without_catalog_link: bool,
    /// Look like Kavita: the reader's API key is in every catalog address, `/api/opds/<key>/…`
    /// (its `OpdsController` is routed under `api/opds/{apiKey}` and builds every link with
    /// `{baseUrl}api/opds/{apiKey}/…`, Kareadita/Kavita `API/Controllers/OPDSController.cs`).
    /// Library requests without the key are refused with 401; the links of every feed carry it.
    pub kavita_key: Option<String>,
    /// The catalog the web home page's alternate link names, in place of `/opds`: a page that
    /// points to a catalog on another host.
    pub catalog_link: Option<String>,
    /// Every library request is answered `302 Found` to this address followed by the
    /// request's own path and query (a library that moved, or sends a feed to another host).
    pub redirect_to: Option<String>,
    /// A search that matches nothing is answered `404 Not Found` with the text "No books found",
    /// as calibre's content server does (`srv/opds.py`: `get_acquisition_feed` raises
    /// `HTTPNotFound('No books found')` when it has no ids).
    pub empty_search_404: bool,
    /// Every acquisition feed (a search's results too) starts with a "Start of catalog"
    /// navigation entry back to the root, as Codex's OPDS 1.2 feeds do
    /// (`codex/views/opds/v1/feed.py`: `OPDS1FeedView.entries` adds `add_start_link()` to every
    /// page but the start page).
    pub start_entry_in_feeds: bool,
    /// Look like Codex's OPDS 1.2 to a client it does not know to read facets: feeds signed
    /// `<generator>Codex</generator>`, and the first page of every acquisition feed starts with
    /// its orders as navigation entries, "➠ Order By Date" (`?orderBy=date`) and "⇕ Order
    /// Descending" (`?orderReverse=true`), the order in force (by name, ascending) left out
    /// (`codex/views/opds/v1/facets.py`: `_facet_or_facet_entry` makes a facet entry titled
    /// with the group's glyph and words, and skips the active one, `_is_facet_active`).
    pub codex_order_entries: bool,
    /// Each streamed comic's cover and thumbnail links (`http://opds-spec.org/image`,
    /// `http://opds-spec.org/image/thumbnail`) are the address of its first page, as its page
    /// stream names it without `maxWidth` (`/books/ID/pages/0`, `/pages/1` with
    /// `one_based_pages`): a cover that is also a page. No server known to the tests does this
    /// (Komga links `/books/ID/thumbnail`, Kavita `api/image/chapter-cover`); it checks that one
    /// address is fetched once for both.
    pub cover_is_first_page: bool,
}

impl Default for Behavior {
    fn default() -> Self {
        Behavior {
            range: true,
            etag: true,
            last_modified: true,
            one_based_pages: false,
            auth: None,
            bearer_token: None,
            api_key: None,
            bookmark_param: None,
            komga: false,
            view_in_entry_ids: false,
            whole_file_comics: false,
            sessions: false,
            session_max_uses: None,
            home_without_catalog_link: false,
            kavita_key: None,
            kosync_user: None,
            catalog_link: None,
            redirect_to: None,
            empty_search_404: false,
            start_entry_in_feeds: false,
            codex_order_entries: false,
            cover_is_first_page: false,
        }
    }
}

impl Behavior {
    /// Checks the values are usable.
    pub fn validate(&self) -> Result<(), String> {
        if let Some(auth) = &self.auth {
            if !auth.contains(':') {
                return Err("auth must be user:pass".into());
            }
        }
        if self.bearer_token.as_deref() == Some("") {
            return Err("bearer_token must not be empty".into());
        }
        if let Some(p) = &self.bookmark_param {
            if p.is_empty() {
                return Err("bookmark_param must not be empty".into());
            }
        }
        Ok(())
    }
}

/// What the server has seen, per client (the `X-Carrel-Client` header, else `User-Agent`, else
/// `anonymous`). `/_stats` and `/_control/...` requests are not counted.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Stats {
    /// Requests in flight now, all clients together.
    pub global_in_flight: u64,
    /// Most requests in flight at once, all clients together.
    pub global_max_in_flight: u64,
    /// Requests counted since the start or the last reset.
    pub total_requests: u64,
    pub clients: BTreeMap<String, ClientStats>,
    /// Server-side reading positions by book id.
    pub reading_positions: BTreeMap<u32, ReadingPosition>,
    /// OPDS progression documents (`/books/ID/progression`) by book id.
    #[serde(default)]
    pub progressions: BTreeMap<u32, ProgressionStats>,
    /// Passwords checked (in session mode, each a slow hash) since the start.
    #[serde(default)]
    pub password_checks: u64,
    /// Each credential a request carried (`Authorization`, `Cookie`, `X-API-Key`,
    /// `X-Auth-Token`, `x-auth-user`, `x-auth-key`, `Proxy-Authorization`) and each `Referer`,
    /// as "METHOD /path?query: header-name", since the start: a server that must receive no
    /// secret is checked to have an empty list.
    #[serde(default)]
    pub credentials_received: Vec<String>,
}

impl Stats {
    /// The stats of one client, if it made any request.
    pub fn client(&self, name: &str) -> Option<&ClientStats> {
        self.clients.get(name)
    }

    /// Requests for `url` (path and query) from all clients.
    pub fn hits(&self, url: &str) -> u64 {
        self.clients
            .values()
            .map(|c| c.hits.get(url).copied().unwrap_or(0))
            .sum()
    }

    /// Body bytes sent for `url` (path and query) to all clients.
    /// Requests of all clients whose path and query contain `part`.
    pub fn hits_containing(&self, part: &str) -> u64 {
        self.clients
            .values()
            .flat_map(|c| c.hits.iter())
            .filter(|(url, _)| url.contains(part))
            .map(|(_, n)| n)
            .sum()
    }

    /// Requests of all clients for `path`, whatever their query.
    pub fn hits_any_query(&self, path: &str) -> u64 {
        let with_query = format!("{path}?");
        self.clients
            .values()
            .flat_map(|c| c.hits.iter())
            .filter(|(url, _)| url.as_str() == path || url.starts_with(&with_query))
            .map(|(_, n)| n)
            .sum()
    }

    /// Body bytes sent to all clients, whatever they asked for.
    pub fn total_bytes(&self) -> u64 {
        self.clients.values().flat_map(|c| c.bytes.values()).sum()
    }

    /// Where the requests of every client for `url` asked the rest of it from, in order.
    pub fn rest_from(&self, url: &str) -> Vec<u64> {
        self.clients
            .values()
            .flat_map(|c| c.rest_from.get(url).cloned().unwrap_or_default())
            .collect()
    }

    pub fn bytes(&self, url: &str) -> u64 {
        self.clients
            .values()
            .map(|c| c.bytes.get(url).copied().unwrap_or(0))
            .sum()
    }
}

/// One client's counters. A request is in flight from the moment its headers are read until
/// its body has been handed over in full or abandoned.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct ClientStats {
    pub in_flight: u64,
    pub max_in_flight: u64,
    pub requests: u64,
    /// Requests per URL (path and query, as sent).
    pub hits: BTreeMap<String, u64>,
    /// Response body bytes sent per URL (headers not included). Bytes of an answer the client
    /// dropped count as sent, though many were still in the sockets' buffers.
    pub bytes: BTreeMap<String, u64>,
    /// Per URL, where each request asked the rest of the resource from (0 without a `Range`,
    /// N for `bytes=N-`; bounded ranges, parts of the resource, are not listed): a download
    /// that never fetches twice what it has asks from ever further on.
    #[serde(default)]
    pub rest_from: BTreeMap<String, Vec<u64>>,
}

/// A book's server-side reading position.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct ReadingPosition {
    /// The page as numbered in URLs and in `pse:lastRead` (depends on `one_based_pages`).
    pub page: u32,
    /// The zero-based page index.
    pub index: u32,
    /// When it was last set (RFC 3339).
    pub updated: String,
    /// How many page requests with the bookmark parameter moved it (since the last stats reset).
    pub moves: u64,
    /// How many Komga read-progress PATCHes set it (since the last stats reset).
    #[serde(default)]
    pub read_progress_patches: u64,
}

/// A book's OPDS progression document and what clients did to it.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct ProgressionStats {
    /// The stored Readium locator document, as last accepted (`null` when none).
    pub locator: serde_json::Value,
    /// PUTs accepted (since the last stats reset).
    pub puts: u64,
    /// PUTs refused with 409 because they were older than the stored document.
    pub conflicts: u64,
}

/// A book as the server currently serves it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct BookInfo {
    pub id: u32,
    pub kind: BookKind,
    pub title: String,
    pub series: String,
    pub series_id: u32,
    pub number: u32,
    pub author: String,
    pub summary: String,
    /// Page count (0 for ebooks).
    pub pages: u32,
    /// Media type of the file.
    pub mime: String,
    /// Length of the file in bytes.
    pub length: u64,
    /// Strong ETag of the file, quotes included.
    pub etag: String,
    /// `Last-Modified` value of the file.
    pub last_modified: String,
    /// `<updated>` value in the feeds (RFC 3339).
    pub updated: String,
    pub revision: u32,
    pub gone: bool,
}

/// Entry point: `Server::start(config)`.
pub struct Server;

impl Server {
    /// Binds `host:port` (127.0.0.1 unless set) and serves on a dedicated thread with its own runtime, so it works
    /// from synchronous tests and from inside a tokio runtime alike. The socket is listening
    /// when this returns.
    pub fn start(config: Config) -> io::Result<RunningServer> {
        config
            .validate()
            .map_err(|e| io::Error::new(io::ErrorKind::InvalidInput, e))?;
        let listener = TcpListener::bind((config.host, config.port))?;
        listener.set_nonblocking(true)?;
        let addr = listener.local_addr()?;
        let state = Arc::new(State::new(&config));
        let runtime = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(2)
            .thread_name("fixture-server")
            .enable_all()
            .build()?;
        let (stop_tx, stop_rx) = oneshot::channel();
        let thread_state = state.clone();
        let thread = std::thread::Builder::new()
            .name(format!("fixture-server-{}", addr.port()))
            .spawn(move || {
                runtime.block_on(async move {
                    match tokio::net::TcpListener::from_std(listener) {
                        Ok(listener) => http::serve(listener, thread_state, stop_rx).await,
                        Err(e) => eprintln!("fixture-server: cannot listen: {e}"),
                    }
                });
                runtime.shutdown_timeout(std::time::Duration::from_millis(200));
            })?;
        Ok(RunningServer {
            addr,
            state,
            stop: Some(stop_tx),
            thread: Some(thread),
        })
    }
}

/// A server running on its own thread; stops when dropped or on [`RunningServer::stop`].
pub struct RunningServer {
    addr: SocketAddr,
    state: Arc<State>,
    stop: Option<oneshot::Sender<()>>,
    thread: Option<JoinHandle<()>>,
}

impl RunningServer {
    /// The bound address (its host and the actual port).
    pub fn addr(&self) -> SocketAddr {
        self.addr
    }

    pub fn port(&self) -> u16 {
        self.addr.port()
    }

    /// `http://HOST:PORT`, without a trailing slash.
    pub fn base_url(&self) -> String {
        format!("http://{}", self.addr)
    }

    /// `base_url()` joined with a root-relative path such as `/opds`.
    pub fn url(&self, path: &str) -> String {
        format!("http://{}{}", self.addr, path)
    }

    /// The same data as `GET /_stats`.
    pub fn stats(&self) -> Stats {
        self.state.stats()
    }

    /// Zeroes the counters (requests still in flight stay counted as in flight).
    pub fn reset_stats(&self) {
        self.state.reset_stats()
    }

    pub fn faults(&self) -> Faults {
        self.state.faults()
    }

    /// Replaces the injected faults (this also restarts the 503 sequence).
    pub fn set_faults(&self, faults: Faults) {
        self.state.set_faults(faults)
    }

    /// Makes file answers under `path_prefix` lie about their length (`None` stops lying).
    pub fn set_length_lie(&self, lie: Option<(&str, LengthLie)>) {
        self.state
            .length_lies
            .set(lie.map(|(p, l)| (p.to_owned(), l)))
    }

    /// Removes every injected fault.
    pub fn clear_faults(&self) {
        self.state.set_faults(Faults::default())
    }

    pub fn behavior(&self) -> Behavior {
        self.state.behavior()
    }

    pub fn set_behavior(&self, behavior: Behavior) {
        self.state.set_behavior(behavior)
    }

    /// Every book, in id order.
    pub fn books(&self) -> Vec<BookInfo> {
        self.state
            .catalog
            .books
            .iter()
            .filter_map(|b| self.state.book_info(b.id))
            .collect()
    }

    pub fn book(&self, id: u32) -> Option<BookInfo> {
        self.state.book_info(id)
    }

    /// The exact bytes `GET /books/ID/file` serves now.
    pub fn book_bytes(&self, id: u32) -> Option<Vec<u8>> {
        self.state.built(id).map(|b| b.file.to_vec())
    }

    /// The exact bytes of a comic page, by zero-based index (whatever the page numbering).
    pub fn page_bytes(&self, id: u32, index: u32) -> Option<Vec<u8>> {
        self.state
            .built(id)
            .and_then(|b| b.pages.get(index as usize).map(|p| p.to_vec()))
    }

    pub fn cover_bytes(&self, id: u32) -> Option<Vec<u8>> {
        self.state.built(id).map(|b| b.cover.to_vec())
    }

    pub fn thumbnail_bytes(&self, id: u32) -> Option<Vec<u8>> {
        self.state.built(id).map(|b| b.thumbnail.to_vec())
    }

    /// Makes a new revision of a book: different bytes, length, ETag and Last-Modified.
    pub fn revise_book(&self, id: u32) -> Option<BookInfo> {
        self.state.revise(id)
    }

    /// Makes a book answer `410 Gone` (or serve again). False if there is no such book.
    pub fn set_gone(&self, id: u32, gone: bool) -> bool {
        self.state.set_gone(id, gone)
    }

    pub fn reading_position(&self, id: u32) -> Option<ReadingPosition> {
        self.state.position(id)
    }

    /// A book's stored OPDS progression document (what `GET /books/ID/progression` answers).
    pub fn progression(&self, id: u32) -> Option<serde_json::Value> {
        self.state.progression(id)
    }

    /// What the KOSync server holds for `user` and `document` (with its `timestamp`).
    pub fn kosync_progress(&self, user: &str, document: &str) -> Option<serde_json::Value> {
        crate::state::lock(&self.state.kosync)
            .get(&(user.to_string(), document.to_string()))
            .cloned()
    }

    /// Stores (or clears) a book's progression document as if a client had sent it.
    pub fn set_progression(&self, id: u32, locator: Option<serde_json::Value>) {
        self.state.set_progression(id, locator);
    }

    /// Sets (by zero-based index) or clears a book's reading position without counting a move.
    pub fn set_reading_position(&self, id: u32, index: Option<u32>) {
        self.state.set_position(id, index)
    }

    /// Stops serving, closes every connection and waits for the server thread.
    pub fn stop(mut self) {
        self.shutdown();
    }

    fn shutdown(&mut self) {
        if let Some(stop) = self.stop.take() {
            let _ = stop.send(());
        }
        if let Some(thread) = self.thread.take() {
            let _ = thread.join();
        }
    }
}

impl Drop for RunningServer {
    fn drop(&mut self) {
        self.shutdown();
    }
}

impl std::fmt::Debug for RunningServer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("RunningServer")
            .field("addr", &self.addr)
            .finish()
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn handles_can_be_shared_between_threads() {
        fn shareable<T: Send + Sync>() {}
        shareable::<super::RunningServer>();
        shareable::<super::Stats>();
        shareable::<super::Config>();
    }
}
