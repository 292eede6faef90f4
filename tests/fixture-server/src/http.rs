//! The HTTP side: connections, routing, conditional and range requests, the fault-injecting
//! response body and the control endpoints.

use std::convert::Infallible;
use std::future::Future;
use std::io;
use std::pin::Pin;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::task::{Context, Poll};
use std::time::Duration;

use base64::Engine as _;
use bytes::Bytes;
use http_body::{Body, Frame, SizeHint};
use http_body_util::BodyExt as _;
use hyper::body::Incoming;
use hyper::header::{self, HeaderMap, HeaderName, HeaderValue};
use hyper::server::conn::http1;
use hyper::service::service_fn;
use hyper::{Method, Request, Response, StatusCode};
use hyper_util::rt::TokioIo;
use tokio::io::{AsyncRead, AsyncWrite, ReadBuf};
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::oneshot;
use tokio::time::{Instant, Sleep};

use crate::content::{BookKind, BookMeta};
use crate::feeds::{self, Listing};
use crate::state::{BodyPlan, Ending, InFlight, State};
use crate::util::{http_date, parse_rfc3339_ms, percent_encode, query_param};
use crate::{Behavior, Faults};

/// Accepts connections until `shutdown` fires (or its sender is dropped).
pub(crate) async fn serve(
    listener: TcpListener,
    state: Arc<State>,
    mut shutdown: oneshot::Receiver<()>,
) {
    loop {
        tokio::select! {
            _ = &mut shutdown => break,
            accepted = listener.accept() => match accepted {
                Ok((stream, _)) => {
                    tokio::spawn(connection(stream, state.clone()));
                }
                // Out of descriptors and the like: back off briefly rather than spin.
                Err(_) => tokio::time::sleep(Duration::from_millis(5)).await,
            },
        }
    }
}

async fn connection(stream: TcpStream, state: Arc<State>) {
    let _ = stream.set_nodelay(true);
    let reset = Arc::new(AtomicBool::new(false));
    let io = TokioIo::new(ConnIo {
        stream,
        reset: reset.clone(),
    });
    let service = service_fn(move |req| {
        let state = state.clone();
        let reset = reset.clone();
        async move { Ok::<_, Infallible>(handle(state, reset, req).await) }
    });
    let _ = http1::Builder::new()
        .keep_alive(true)
        .serve_connection(io, service)
        .await;
}

/// A TCP stream that closes with a reset (RST) instead of a FIN when asked to.
struct ConnIo {
    stream: TcpStream,
    reset: Arc<AtomicBool>,
}

impl AsyncRead for ConnIo {
    fn poll_read(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<io::Result<()>> {
        Pin::new(&mut self.stream).poll_read(cx, buf)
    }
}

impl AsyncWrite for ConnIo {
    fn poll_write(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<io::Result<usize>> {
        Pin::new(&mut self.stream).poll_write(cx, buf)
    }

    fn poll_flush(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.stream).poll_flush(cx)
    }

    fn poll_shutdown(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        if self.reset.load(Ordering::SeqCst) {
            return Poll::Ready(Ok(()));
        }
        Pin::new(&mut self.stream).poll_shutdown(cx)
    }

    fn poll_write_vectored(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        bufs: &[io::IoSlice<'_>],
    ) -> Poll<io::Result<usize>> {
        Pin::new(&mut self.stream).poll_write_vectored(cx, bufs)
    }

    fn is_write_vectored(&self) -> bool {
        self.stream.is_write_vectored()
    }
}

impl Drop for ConnIo {
    fn drop(&mut self) {
        if self.reset.load(Ordering::SeqCst) {
            // A zero linger time makes the close send RST and drop unsent data.
            let _ = socket2::SockRef::from(&self.stream).set_linger(Some(Duration::ZERO));
        }
    }
}

// ---------------------------------------------------------------------------------------------
// Response body

const CHUNK: usize = 16 * 1024;
/// Pause before cutting a body short, so what was sent reaches the client first.
const DRAIN_PAUSE: Duration = Duration::from_millis(50);

/// A response body that can be paced, stalled, cut short or reset, and that keeps its request
/// counted as in flight until it is finished or dropped.
pub(crate) struct FixtureBody {
    data: Bytes,
    pos: usize,
    cut_at: usize,
    plan: BodyPlan,
    stall_pending: bool,
    drained: bool,
    started: Option<Instant>,
    sleep: Option<Pin<Box<Sleep>>>,
    reset: Option<Arc<AtomicBool>>,
    guard: Option<InFlight>,
    /// Zeros after the data, until the client hangs up (see [`crate::length_lies`]).
    endless: bool,
}

impl FixtureBody {
    fn new(
        data: Bytes,
        plan: BodyPlan,
        guard: Option<InFlight>,
        reset: Option<Arc<AtomicBool>>,
    ) -> Self {
        let cut_at = data.len() / 2;
        FixtureBody {
            pos: 0,
            cut_at,
            stall_pending: plan.stall.is_some(),
            drained: false,
            started: None,
            sleep: None,
            plan,
            data,
            reset,
            guard,
            endless: false,
        }
    }

    /// Zeros without end and no announced size.
    pub(crate) fn endless_zeros(guard: InFlight) -> Self {
        let mut body = FixtureBody::new(Bytes::new(), BodyPlan::clean(), Some(guard), None);
        body.endless = true;
        body
    }

    fn limit(&self) -> usize {
        match self.plan.ending {
            Ending::Complete => self.data.len(),
            Ending::Truncate | Ending::Reset => self.cut_at,
        }
    }

    fn chunk_size(&self) -> usize {
        match self.plan.bandwidth {
            Some(bw) => ((bw / 20) as usize).clamp(256, CHUNK),
            None => CHUNK,
        }
    }
}

impl Body for FixtureBody {
    type Data = Bytes;
    type Error = io::Error;

    fn poll_frame(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
    ) -> Poll<Option<Result<Frame<Bytes>, io::Error>>> {
        let this = &mut *self;
        loop {
            if let Some(sleep) = this.sleep.as_mut() {
                if sleep.as_mut().poll(cx).is_pending() {
                    return Poll::Pending;
                }
                this.sleep = None;
            }
            if this.stall_pending && this.pos >= this.cut_at {
                this.stall_pending = false;
                let stall = this.plan.stall.unwrap_or_default();
                if let Some(started) = this.started {
                    this.started = Some(started.checked_add(stall).unwrap_or(started));
                }
                this.sleep = Some(Box::pin(tokio::time::sleep(stall)));
                continue;
            }
            if this.endless {
                static ZEROS: [u8; CHUNK] = [0; CHUNK];
                if let Some(guard) = &this.guard {
                    guard.sent(CHUNK as u64);
                }
                return Poll::Ready(Some(Ok(Frame::data(Bytes::from_static(&ZEROS)))));
            }
            let limit = this.limit();
            if this.pos >= limit {
                match this.plan.ending {
                    Ending::Complete => {
                        this.guard = None;
                        return Poll::Ready(None);
                    }
                    Ending::Truncate | Ending::Reset => {
                        if !this.drained {
                            this.drained = true;
                            this.sleep = Some(Box::pin(tokio::time::sleep(DRAIN_PAUSE)));
                            continue;
                        }
                        if this.plan.ending == Ending::Reset {
                            if let Some(flag) = &this.reset {
                                flag.store(true, Ordering::SeqCst);
                            }
                        }
                        this.guard = None;
                        return Poll::Ready(Some(Err(io::Error::new(
                            io::ErrorKind::ConnectionAborted,
                            "fixture fault: body cut short",
                        ))));
                    }
                }
            }
            let mut end = (this.pos + this.chunk_size()).min(limit);
            if this.stall_pending {
                end = end.min(this.cut_at);
            }
            if let Some(bw) = this.plan.bandwidth {
                let started = *this.started.get_or_insert_with(Instant::now);
                let due = started + Duration::from_secs_f64(this.pos as f64 / bw as f64);
                if Instant::now() < due {
                    this.sleep = Some(Box::pin(tokio::time::sleep_until(due)));
                    continue;
                }
            }
            let chunk = this.data.slice(this.pos..end);
            this.pos = end;
            if let Some(guard) = &this.guard {
                guard.sent(chunk.len() as u64);
            }
            if this.is_end_stream() {
                // Finished: stop counting the request before the last bytes are flushed.
                this.guard = None;
            }
            return Poll::Ready(Some(Ok(Frame::data(chunk))));
        }
    }

    fn is_end_stream(&self) -> bool {
        !self.endless
            && self.plan.ending == Ending::Complete
            && self.pos >= self.data.len()
            && self.sleep.is_none()
            && !self.stall_pending
    }

    fn size_hint(&self) -> SizeHint {
        if self.endless {
            return SizeHint::default();
        }
        SizeHint::with_exact((self.data.len() - self.pos.min(self.data.len())) as u64)
    }
}

// ---------------------------------------------------------------------------------------------
// Replies

pub(crate) struct Reply {
    status: StatusCode,
    headers: Vec<(HeaderName, HeaderValue)>,
    body: Bytes,
}

impl Reply {
    pub(crate) fn new(status: StatusCode, content_type: &str, body: impl Into<Bytes>) -> Reply {
        let mut r = Reply {
            status,
            headers: Vec::new(),
            body: body.into(),
        };
        r.set(header::CONTENT_TYPE, content_type);
        r
    }

    fn text(status: StatusCode, text: &str) -> Reply {
        Reply::new(status, "text/plain; charset=utf-8", format!("{text}\n"))
    }

    pub(crate) fn json(status: StatusCode, value: &impl serde::Serialize) -> Reply {
        let body = serde_json::to_vec_pretty(value).unwrap_or_else(|_| b"{}".to_vec());
        Reply::new(status, "application/json", body)
    }

    fn error_json(status: StatusCode, message: &str) -> Reply {
        Reply::json(status, &serde_json::json!({ "error": message }))
    }

    /// The reply with every address of its document under `/api/opds/<key>`, as Kavita writes
    /// its links.
    fn with_kavita_links(mut self, key: &str) -> Reply {
        let is_document = self.headers.iter().any(|(n, v)| {
            n == header::CONTENT_TYPE
                && v.to_str()
                    .is_ok_and(|v| v.contains("xml") || v.contains("json"))
        });
        if is_document {
            if let Ok(text) = std::str::from_utf8(&self.body) {
                let prefixed = format!("\"/api/opds/{key}/");
                let text = text
                    .replace("\"/opds", &format!("{prefixed}opds"))
                    .replace("\"/books", &format!("{prefixed}books"));
                self.body = Bytes::from(text);
            }
        }
        self
    }

    fn set(&mut self, name: HeaderName, value: &str) {
        if let Ok(v) = HeaderValue::from_str(value) {
            self.headers.retain(|(n, _)| *n != name);
            self.headers.push((name, v));
        }
    }

    fn with(mut self, name: HeaderName, value: &str) -> Reply {
        self.set(name, value);
        self
    }

    fn into_response(
        self,
        plan: BodyPlan,
        guard: Option<InFlight>,
        reset: Option<Arc<AtomicBool>>,
    ) -> Response<FixtureBody> {
        let len = self.body.len();
        let mut response = Response::new(FixtureBody::new(self.body, plan, guard, reset));
        *response.status_mut() = self.status;
        let headers = response.headers_mut();
        for (name, value) in self.headers {
            headers.insert(name, value);
        }
        if self.status != StatusCode::NOT_MODIFIED {
            headers.insert(header::CONTENT_LENGTH, HeaderValue::from(len as u64));
        }
        headers.insert(header::SERVER, HeaderValue::from_static("carrel-fixture"));
        response
    }
}

fn client_id(headers: &HeaderMap) -> String {
    for name in ["x-carrel-client", "user-agent"] {
        if let Some(v) = headers.get(name) {
            let s = String::from_utf8_lossy(v.as_bytes()).trim().to_string();
            if !s.is_empty() {
                return s;
            }
        }
    }
    "anonymous".to_string()
}

async fn handle(
    state: Arc<State>,
    reset: Arc<AtomicBool>,
    req: Request<Incoming>,
) -> Response<FixtureBody> {
    let path = req.uri().path().to_string();
    if path == "/_stats" || path == "/_control" || path.starts_with("/_control/") {
        return control(&state, req)
            .await
            .into_response(BodyPlan::clean(), None, None);
    }
    let url = req
        .uri()
        .path_and_query()
        .map(|pq| pq.as_str().to_string())
        .unwrap_or(path);
    state.note_credentials(req.method().as_str(), &url, req.headers());
    let guard = InFlight::begin(state.clone(), client_id(req.headers()), url.clone());
    if let Some(to) = state.behavior().redirect_to.clone() {
        let reply = Reply::text(StatusCode::FOUND, "moved").with(
            header::LOCATION,
            &format!("{}{url}", to.trim_end_matches('/')),
        );
        return reply.into_response(BodyPlan::clean(), Some(guard), None);
    }
    guard.asked_from(open_range_start(req.headers()));
    // A KOReader sync server beside the library, with its own sign-in (see `kosync`).
    if path_is_kosync(&url) {
        return crate::kosync::handle(&state, req).await.into_response(
            BodyPlan::clean(),
            Some(guard),
            Some(reset),
        );
    }
    let kavita_key = state.behavior().kavita_key.clone();
    let (req, url) = match kavita_key {
        Some(key) => match without_kavita_key(req, &url, &key) {
            Ok(unkeyed) => unkeyed,
            Err(refused) => return refused.into_response(BodyPlan::clean(), Some(guard), None),
        },
        None => (req, url),
    };
    let plan = state.plan(&url);
    if !plan.latency.is_zero() {
        tokio::time::sleep(plan.latency).await;
    }
    let reply = if plan.fail {
        Reply::text(
            StatusCode::SERVICE_UNAVAILABLE,
            "fixture fault: service unavailable",
        )
    } else if let Some(lie) = state.length_lies.matching(&url) {
        return crate::length_lies::respond(lie, guard);
    } else {
        match check_auth(&state, &state.behavior(), req.headers()) {
            Err(denied) => denied,
            Ok(new_session) => {
                let reply = if let Some(id) = progression_book(req.uri().path()).map(str::to_owned)
                {
                    progression(&state, &id, req).await
                } else if let Some((id, what)) = komga_api(&state, req.uri().path()) {
                    read_progress(&state, &id, what, req).await
                } else {
                    route(&state, &req)
                };
                match new_session {
                    Some(id) => reply.with(
                        header::SET_COOKIE,
                        &format!("sessionid={id}; HttpOnly; Path=/"),
                    ),
                    None => reply,
                }
            }
        }
    };
    let reply = match &state.behavior().kavita_key {
        Some(key) => reply.with_kavita_links(key),
        None => reply,
    };
    reply.into_response(plan.body, Some(guard), Some(reset))
}

/// A request to a Kavita-like server: its address without the `/api/opds/<key>` prefix, or a
/// 401 when the key is missing or wrong (Kavita finds no user for the key).
fn without_kavita_key(
    mut req: Request<Incoming>,
    url: &str,
    key: &str,
) -> Result<(Request<Incoming>, String), Reply> {
    let prefix = format!("/api/opds/{key}");
    let Some(rest) = url.strip_prefix(&prefix) else {
        return Err(Reply::text(
            StatusCode::UNAUTHORIZED,
            "no user for this API key",
        ));
    };
    let rest = if rest.is_empty() || rest.starts_with('?') {
        format!("/opds{rest}")
    } else {
        rest.to_owned()
    };
    *req.uri_mut() = rest
        .parse()
        .map_err(|_| Reply::text(StatusCode::BAD_REQUEST, "bad address"))?;
    Ok((req, rest))
}

fn path_is_kosync(url: &str) -> bool {
    url == "/kosync" || url.starts_with("/kosync/")
}

/// `Ok` with a new session id to hand out (session mode, after a good password), `Ok(None)` to
/// go on, `Err` with the refusal.
fn check_auth(
    state: &State,
    behavior: &Behavior,
    headers: &HeaderMap,
) -> Result<Option<String>, Reply> {
    if behavior.auth.is_none() && behavior.bearer_token.is_none() && behavior.api_key.is_none() {
        return Ok(None);
    }
    if let Some(key) = &behavior.api_key {
        if headers
            .get("x-api-key")
            .is_some_and(|v| v.as_bytes() == key.as_bytes())
        {
            return Ok(None);
        }
    }
    if behavior.sessions {
        let cookie = headers
            .get(header::COOKIE)
            .map(|v| String::from_utf8_lossy(v.as_bytes()).to_string())
            .unwrap_or_default();
        if state.sessions.accept(&cookie, behavior.session_max_uses) {
            return Ok(None);
        }
    }
    let given = headers
        .get(header::AUTHORIZATION)
        .map(|v| String::from_utf8_lossy(v.as_bytes()).trim().to_string())
        .unwrap_or_default();
    let (scheme, credentials) = given.split_once(' ').unwrap_or((given.as_str(), ""));
    let credentials = credentials.trim();
    let ok = if scheme.eq_ignore_ascii_case("basic") {
        match (
            &behavior.auth,
            base64::engine::general_purpose::STANDARD.decode(credentials),
        ) {
            (Some(expected), Ok(decoded)) if behavior.sessions => {
                state.sessions.check_password(&decoded, expected.as_bytes())
            }
            (Some(expected), Ok(decoded)) => decoded == expected.as_bytes(),
            _ => false,
        }
    } else if scheme.eq_ignore_ascii_case("bearer") {
        behavior
            .bearer_token
            .as_deref()
            .is_some_and(|t| t == credentials)
    } else {
        false
    };
    if ok {
        let basic = scheme.eq_ignore_ascii_case("basic");
        Ok((behavior.sessions && basic).then(|| state.sessions.open()))
    } else {
        Err(
            Reply::text(StatusCode::UNAUTHORIZED, "authentication required")
                .with(header::WWW_AUTHENTICATE, "Basic realm=\"fixture\""),
        )
    }
}

// ---------------------------------------------------------------------------------------------
// Library routes

/// The web home page, as a library server's is: it points to the catalog with an alternate link
/// unless `home_without_catalog_link` (then the catalog is only at its well-known path, /opds).
fn home_page(behavior: &Behavior) -> Reply {
    let link = if behavior.home_without_catalog_link {
        String::new()
    } else {
        let href = behavior.catalog_link.as_deref().unwrap_or("/opds");
        format!(
            r#"<link rel="alternate" type="application/atom+xml;profile=opds-catalog;kind=navigation" href="{}" title="Catalog">"#,
            html_attribute(href)
        )
    };
    Reply::new(
        StatusCode::OK,
        "text/html; charset=utf-8",
        format!("<!DOCTYPE html><html><head><title>Carrel fixture library</title>{link}</head><body><p>Carrel fixture library server. Statistics at /_stats.</p></body></html>"),
    )
}

fn html_attribute(text: &str) -> String {
    text.replace('&', "&amp;")
        .replace('"', "&quot;")
        .replace('<', "&lt;")
}

fn route(state: &State, req: &Request<Incoming>) -> Reply {
    if req.method() != Method::GET && req.method() != Method::HEAD {
        return Reply::text(StatusCode::METHOD_NOT_ALLOWED, "method not allowed")
            .with(header::ALLOW, "GET, HEAD");
    }
    let path = req.uri().path();
    let query = req.uri().query();
    let segments: Vec<&str> = path.trim_end_matches('/').split('/').skip(1).collect();
    match segments.as_slice() {
        [] => home_page(&state.behavior()),
        ["opds"] => Reply::new(StatusCode::OK, feeds::NAVIGATION, feeds::root(state)),
        ["opds", "series"] => Reply::new(
            StatusCode::OK,
            feeds::NAVIGATION,
            feeds::series_navigation(state),
        ),
        ["opds", "search.xml"] => {
            Reply::new(StatusCode::OK, feeds::OPENSEARCH, feeds::opensearch())
        }
        ["opds", "books"] => listing(
            state,
            query,
            "books",
            "All books",
            "/opds/books",
            None,
            true,
            |_| true,
        ),
        ["opds", "comics"] => {
            // The comics feed offers two orders as facets (see `feeds::sort_facets`).
            let newest = query_param(query, "sort").as_deref() == Some("newest");
            sorted_listing(state, query, newest, |b| b.kind == BookKind::Comic)
        }
        ["opds", "ebooks"] => listing(
            state,
            query,
            "ebooks",
            "Ebooks",
            "/opds/ebooks",
            None,
            false,
            |b| b.kind == BookKind::Epub,
        ),
        ["opds", "series", id] | ["opds", "v1.2", "series", id] => match id
            .parse::<u32>()
            .ok()
            .and_then(|id| state.catalog.series(id))
            .filter(|s| path.trim_end_matches('/') == feeds::series_href(state, s.id))
        {
            Some(series) => {
                let sid = series.id;
                listing(
                    state,
                    query,
                    &format!("series:{sid}"),
                    &series.name.clone(),
                    &feeds::series_href(state, sid),
                    None,
                    false,
                    move |b| b.series_id == sid,
                )
            }
            None => Reply::text(StatusCode::NOT_FOUND, "no such series"),
        },
        ["opds", "search"] => {
            let q = query_param(query, "q").unwrap_or_default();
            let needle = q.trim().to_lowercase();
            let matches = |b: &BookMeta| {
                b.title.to_lowercase().contains(&needle)
                    || b.author.to_lowercase().contains(&needle)
            };
            if state.behavior().empty_search_404 && !state.catalog.books.iter().any(matches) {
                return Reply::text(StatusCode::NOT_FOUND, "No books found");
            }
            let encoded = format!("q={}", percent_encode(&q));
            listing(
                state,
                query,
                "search",
                &format!("Search: {q}"),
                "/opds/search",
                Some(encoded),
                false,
                move |b| {
                    b.title.to_lowercase().contains(&needle)
                        || b.author.to_lowercase().contains(&needle)
                },
            )
        }
        ["books", id, rest @ ..] => book_route(state, req, id, rest),
        ["opds", "v1.2", "books", id, rest @ ..] if state.behavior().komga => {
            book_route(state, req, id, rest)
        }
        _ => Reply::text(StatusCode::NOT_FOUND, "not found"),
    }
}

/// Page `page` of `listing` as an acquisition feed, the page asked for by the `page` of
/// `query` (1 without one): a 400 for a page that is not a positive integer, a 404 past the
/// last page.
fn listing_page(state: &State, query: Option<&str>, listing: &Listing) -> Reply {
    let page = match query_param(query, "page") {
        None => 1,
        Some(p) => match p.trim().parse::<usize>() {
            Ok(p) if p >= 1 => p,
            _ => return Reply::text(StatusCode::BAD_REQUEST, "page must be a positive integer"),
        },
    };
    match feeds::acquisition(state, listing, page) {
        Some(xml) => Reply::new(StatusCode::OK, feeds::ACQUISITION, xml),
        None => Reply::text(StatusCode::NOT_FOUND, "no such feed page"),
    }
}

/// The comics feed in the order its facets offer: by title (the catalog's order), or newest
/// first (the highest ids first).
fn sorted_listing(
    state: &State,
    query: Option<&str>,
    newest_first: bool,
    filter: impl Fn(&BookMeta) -> bool,
) -> Reply {
    let mut books: Vec<&BookMeta> = state.catalog.books.iter().filter(|b| filter(b)).collect();
    if newest_first {
        books.sort_by(|a, b| b.id.cmp(&a.id));
    }
    let id = if newest_first {
        "comics:newest"
    } else {
        "comics"
    };
    let listing = Listing {
        query: newest_first.then(|| "sort=newest".to_string()),
        newest_first: Some(newest_first),
        ..Listing::new(id, "Comics", "/opds/comics", books)
    };
    listing_page(state, query, &listing)
}

#[allow(clippy::too_many_arguments)]
fn listing(
    state: &State,
    query: Option<&str>,
    id: &str,
    title: &str,
    path: &str,
    extra_query: Option<String>,
    with_series_entry: bool,
    filter: impl Fn(&BookMeta) -> bool,
) -> Reply {
    let books = state.catalog.books.iter().filter(|b| filter(b)).collect();
    let listing = Listing {
        query: extra_query,
        with_series_entry,
        ..Listing::new(id, title, path, books)
    };
    listing_page(state, query, &listing)
}

fn book_route(state: &State, req: &Request<Incoming>, id: &str, rest: &[&str]) -> Reply {
    let Some(meta) = id.parse::<u32>().ok().and_then(|id| state.catalog.book(id)) else {
        return Reply::text(StatusCode::NOT_FOUND, "no such book");
    };
    if state.is_gone(meta.id) {
        return Reply::text(
            StatusCode::GONE,
            "this book has been removed from the library",
        );
    }
    let Some(built) = state.built(meta.id) else {
        return Reply::text(StatusCode::NOT_FOUND, "no such book");
    };
    let modified = meta.modified(built.revision);
    let headers = req.headers();
    match rest {
        ["file"] => {
            let series_name = state
                .catalog
                .series(meta.series_id)
                .map(|s| s.name.as_str())
                .unwrap_or("book");
            let filename = format!(
                "{} {:03}.{}",
                series_name,
                meta.number,
                state.file_type(meta).1
            );
            let ascii: String = filename
                .chars()
                .map(|c| {
                    if c.is_ascii_graphic() && c != '"' && c != '\\' || c == ' ' {
                        c
                    } else {
                        '_'
                    }
                })
                .collect();
            let disposition = format!(
                "attachment; filename=\"{ascii}\"; filename*=UTF-8''{}",
                percent_encode(&filename)
            );
            blob(
                state,
                headers,
                built.file.clone(),
                state.file_type(meta).0,
                built.etag.clone(),
                modified,
            )
            .with(header::CONTENT_DISPOSITION, &disposition)
        }
        [image @ ("cover" | "thumbnail")] => {
            let (bytes, tag) = match *image {
                "cover" => (&built.cover, "cover"),
                _ => (&built.thumbnail, "thumb"),
            };
            let etag = format!("\"b{}-r{}-{tag}\"", meta.id, built.revision);
            blob(state, headers, bytes.clone(), "image/png", etag, modified)
        }
        ["pages", n] => {
            if meta.kind != BookKind::Comic || state.is_given(meta.id) {
                return Reply::text(StatusCode::NOT_FOUND, "this book has no pages to stream");
            }
            let behavior = state.behavior();
            let base = u32::from(behavior.one_based_pages);
            let index = match n.parse::<u32>() {
                Ok(n) if n >= base && n - base < meta.pages => n - base,
                _ => return Reply::text(StatusCode::NOT_FOUND, "no such page"),
            };
            if let Some(param) = &behavior.bookmark_param {
                let value = query_param(req.uri().query(), param).unwrap_or_default();
                if matches!(value.to_ascii_lowercase().as_str(), "true" | "1" | "yes") {
                    state.move_position(meta.id, index);
                }
            }
            let Some(page) = built.pages.get(index as usize) else {
                return Reply::text(StatusCode::NOT_FOUND, "no such page");
            };
            // Declared as JPEG although the bytes are PNG, as some servers do.
            blob(
                state,
                headers,
                page.clone(),
                "image/jpeg",
                format!("\"b{}-r{}-p{}\"", meta.id, built.revision, index),
                modified,
            )
        }
        _ => Reply::text(StatusCode::NOT_FOUND, "not found"),
    }
}

/// What a Komga API path names: the book document or its read progress.
#[derive(Clone, Copy, PartialEq, Eq)]
enum KomgaApi {
    Book,
    ReadProgress,
}

/// The book id and target of `/api/v1/books/ID[/read-progress]`, when the server looks like Komga.
fn komga_api(state: &State, path: &str) -> Option<(String, KomgaApi)> {
    if !state.behavior().komga {
        return None;
    }
    let rest = path.trim_end_matches('/').strip_prefix("/api/v1/books/")?;
    match rest.split_once('/') {
        None => Some((rest.to_owned(), KomgaApi::Book)),
        Some((id, "read-progress")) => Some((id.to_owned(), KomgaApi::ReadProgress)),
        Some(_) => None,
    }
}

/// Komga's read progress: `GET /api/v1/books/ID` answers the book with its `readProgress`
/// (pages from 1); `PATCH /api/v1/books/ID/read-progress` with `{"page": n}` moves it (204), and
/// with `{"completed": true}` and no page puts it at the last page (Komga's
/// `BookController.markReadProgress`: `completed` alone marks the book read);
/// `DELETE /api/v1/books/ID/read-progress` forgets it (Komga's "mark as unread", 204).
async fn read_progress(state: &State, id: &str, what: KomgaApi, req: Request<Incoming>) -> Reply {
    let Some(meta) = id.parse::<u32>().ok().and_then(|id| state.catalog.book(id)) else {
        return Reply::text(StatusCode::NOT_FOUND, "no such book");
    };
    match (what, req.method().clone()) {
        (KomgaApi::Book, Method::GET) => {
            let progress = state.position_raw(meta.id).map(|(index, when)| {
                let date = crate::util::rfc3339(when);
                serde_json::json!({
                    "page": index + 1,
                    "completed": index + 1 >= meta.pages,
                    "readDate": date,
                    "created": date,
                    "lastModified": date,
                })
            });
            let book = serde_json::json!({
                "id": meta.id.to_string(),
                "name": meta.title,
                "media": { "pagesCount": meta.pages },
                "readProgress": progress,
            });
            Reply::new(
                StatusCode::OK,
                "application/json",
                serde_json::to_vec(&book).unwrap_or_default(),
            )
        }
        (KomgaApi::ReadProgress, Method::PATCH) => {
            let body = match http_body_util::Limited::new(req.into_body(), 64 * 1024)
                .collect()
                .await
            {
                Ok(collected) => collected.to_bytes(),
                Err(_) => return Reply::text(StatusCode::PAYLOAD_TOO_LARGE, "body too large"),
            };
            let body = serde_json::from_slice::<serde_json::Value>(&body).unwrap_or_default();
            let completed = body.get("completed").and_then(|c| c.as_bool()) == Some(true);
            let page = match body.get("page") {
                Some(page) => page.as_u64(),
                None if completed => Some(u64::from(meta.pages)),
                None => None,
            };
            match page {
                Some(page) if page >= 1 && page <= u64::from(meta.pages) => {
                    state.patch_position(meta.id, page as u32 - 1);
                    Reply::new(StatusCode::NO_CONTENT, "text/plain", Vec::new())
                }
                _ => Reply::text(
                    StatusCode::BAD_REQUEST,
                    "page must be between 1 and the page count",
                ),
            }
        }
        (KomgaApi::ReadProgress, Method::DELETE) => {
            state.set_position(meta.id, None);
            Reply::new(StatusCode::NO_CONTENT, "text/plain", Vec::new())
        }
        (KomgaApi::Book, _) => Reply::text(StatusCode::METHOD_NOT_ALLOWED, "method not allowed")
            .with(header::ALLOW, "GET"),
        (KomgaApi::ReadProgress, _) => {
            Reply::text(StatusCode::METHOD_NOT_ALLOWED, "method not allowed")
                .with(header::ALLOW, "PATCH, DELETE")
        }
    }
}

/// The book id of a `/books/ID/progression` path.
fn progression_book(path: &str) -> Option<&str> {
    let rest = path.trim_end_matches('/').strip_prefix("/books/")?;
    rest.strip_suffix("/progression")
        .filter(|id| !id.contains('/'))
}

const PROGRESSION_TYPE: &str = "application/vnd.readium.progression+json";

/// `GET`/`PUT /books/ID/progression`: the book's Readium locator document. A PUT whose
/// `modified` is older than the stored document's is refused with 409 (and the stored one).
async fn progression(state: &State, id: &str, req: Request<Incoming>) -> Reply {
    let Some(meta) = id.parse::<u32>().ok().and_then(|id| state.catalog.book(id)) else {
        return Reply::text(StatusCode::NOT_FOUND, "no such book");
    };
    let document = |status: StatusCode, value: &serde_json::Value| {
        Reply::new(
            status,
            PROGRESSION_TYPE,
            serde_json::to_vec(value).unwrap_or_default(),
        )
    };
    match req.method().clone() {
        Method::GET | Method::HEAD => match state.progression(meta.id) {
            Some(locator) => document(StatusCode::OK, &locator),
            None => Reply::text(StatusCode::NOT_FOUND, "no reading position yet"),
        },
        Method::PUT => {
            let body = match http_body_util::Limited::new(req.into_body(), 64 * 1024)
                .collect()
                .await
            {
                Ok(collected) => collected.to_bytes(),
                Err(_) => {
                    return Reply::text(StatusCode::PAYLOAD_TOO_LARGE, "progression too large")
                }
            };
            let Ok(locator) = serde_json::from_slice::<serde_json::Value>(&body) else {
                return Reply::text(StatusCode::BAD_REQUEST, "not a JSON document");
            };
            let Some(modified) = locator
                .get("modified")
                .and_then(|m| m.as_str())
                .and_then(parse_rfc3339_ms)
            else {
                return Reply::text(
                    StatusCode::BAD_REQUEST,
                    "the document needs an RFC 3339 \"modified\"",
                );
            };
            match state.put_progression(meta.id, locator, modified) {
                Ok(stored) => document(StatusCode::OK, &stored),
                Err(newer) => document(StatusCode::CONFLICT, &newer),
            }
        }
        _ => Reply::text(StatusCode::METHOD_NOT_ALLOWED, "method not allowed")
            .with(header::ALLOW, "GET, HEAD, PUT"),
    }
}

enum RangeRequest {
    /// Serve the whole body.
    Ignore,
    Satisfiable(usize, usize),
    Unsatisfiable,
}

/// Parses a `Range` header against a body of `len` bytes. Anything but a single byte range is
/// ignored, as the specification allows.
/// Where a request asks the rest of a resource from: 0 without a `Range`, N for `bytes=N-`;
/// `None` for a bounded range (a part of the resource, not the rest of it).
fn open_range_start(headers: &HeaderMap) -> Option<u64> {
    let Some(range) = headers.get(header::RANGE).and_then(|v| v.to_str().ok()) else {
        return Some(0);
    };
    let (start, end) = range.trim().strip_prefix("bytes=")?.split_once('-')?;
    if !end.trim().is_empty() {
        return None;
    }
    start.trim().parse().ok()
}

fn parse_range(value: &str, len: usize) -> RangeRequest {
    let Some(spec) = value.trim().strip_prefix("bytes=") else {
        return RangeRequest::Ignore;
    };
    if spec.contains(',') {
        return RangeRequest::Ignore;
    }
    let Some((first, last)) = spec.trim().split_once('-') else {
        return RangeRequest::Ignore;
    };
    let (first, last) = (first.trim(), last.trim());
    if first.is_empty() {
        let Ok(suffix) = last.parse::<u64>() else {
            return RangeRequest::Ignore;
        };
        if suffix == 0 || len == 0 {
            return RangeRequest::Unsatisfiable;
        }
        let start = len.saturating_sub(suffix.min(len as u64) as usize);
        return RangeRequest::Satisfiable(start, len - 1);
    }
    let Ok(start) = first.parse::<u64>() else {
        return RangeRequest::Ignore;
    };
    let end = if last.is_empty() {
        None
    } else {
        match last.parse::<u64>() {
            Ok(end) if end >= start => Some(end),
            _ => return RangeRequest::Ignore,
        }
    };
    if start >= len as u64 {
        return RangeRequest::Unsatisfiable;
    }
    let end = end.map_or(len - 1, |e| e.min(len as u64 - 1) as usize);
    RangeRequest::Satisfiable(start as usize, end)
}

fn header_str(headers: &HeaderMap, name: HeaderName) -> Option<String> {
    headers
        .get(name)
        .map(|v| String::from_utf8_lossy(v.as_bytes()).trim().to_string())
}

/// Serves bytes with validators, conditional requests and byte ranges as the behaviour allows.
fn blob(
    state: &State,
    headers: &HeaderMap,
    data: Bytes,
    content_type: &str,
    etag: String,
    modified: u64,
) -> Reply {
    let behavior = state.behavior();
    let last_modified = http_date(modified);
    let mut base = Reply::new(StatusCode::OK, content_type, Bytes::new());
    if behavior.etag {
        base.set(header::ETAG, &etag);
    }
    if behavior.last_modified {
        base.set(header::LAST_MODIFIED, &last_modified);
    }
    if behavior.range {
        base.set(header::ACCEPT_RANGES, "bytes");
    }

    if behavior.etag {
        if let Some(inm) = header_str(headers, header::IF_NONE_MATCH) {
            let matches = inm == "*"
                || inm
                    .split(',')
                    .any(|t| t.trim().trim_start_matches("W/") == etag);
            if matches {
                base.status = StatusCode::NOT_MODIFIED;
                return base;
            }
        }
    }

    if behavior.range {
        if let Some(range) = header_str(headers, header::RANGE) {
            let validator_ok = match header_str(headers, header::IF_RANGE) {
                None => true,
                Some(v) if v.starts_with('"') => behavior.etag && v == etag,
                Some(v) => behavior.last_modified && v == last_modified,
            };
            if validator_ok {
                match parse_range(&range, data.len()) {
                    RangeRequest::Ignore => {}
                    RangeRequest::Satisfiable(start, end) => {
                        base.status = StatusCode::PARTIAL_CONTENT;
                        base.set(
                            header::CONTENT_RANGE,
                            &format!("bytes {start}-{end}/{}", data.len()),
                        );
                        base.body = data.slice(start..=end);
                        return base;
                    }
                    RangeRequest::Unsatisfiable => {
                        base.status = StatusCode::RANGE_NOT_SATISFIABLE;
                        base.set(header::CONTENT_TYPE, "text/plain; charset=utf-8");
                        base.set(header::CONTENT_RANGE, &format!("bytes */{}", data.len()));
                        return base;
                    }
                }
            }
        }
    }
    base.body = data;
    base
}

// ---------------------------------------------------------------------------------------------
// Control endpoints

/// The faults and behaviour switches as one flat JSON object.
fn settings_json(state: &State) -> serde_json::Value {
    let mut merged = serde_json::Map::new();
    for value in [
        serde_json::to_value(state.faults()).unwrap_or_default(),
        serde_json::to_value(state.behavior()).unwrap_or_default(),
    ] {
        if let serde_json::Value::Object(map) = value {
            merged.extend(map);
        }
    }
    serde_json::Value::Object(merged)
}

/// Applies the keys of a JSON object onto the current faults and behaviour.
fn apply_settings(state: &State, body: &[u8]) -> Result<(), String> {
    let patch: serde_json::Map<String, serde_json::Value> =
        serde_json::from_slice(body).map_err(|e| format!("expected a JSON object: {e}"))?;
    let mut faults = serde_json::to_value(state.faults()).map_err(|e| e.to_string())?;
    let mut behavior = serde_json::to_value(state.behavior()).map_err(|e| e.to_string())?;
    for (key, value) in patch {
        if let Some(slot) = faults.get_mut(&key) {
            *slot = value;
        } else if let Some(slot) = behavior.get_mut(&key) {
            *slot = value;
        } else {
            return Err(format!("unknown setting {key:?}"));
        }
    }
    let faults: Faults =
        serde_json::from_value(faults).map_err(|e| format!("bad fault settings: {e}"))?;
    let behavior: Behavior =
        serde_json::from_value(behavior).map_err(|e| format!("bad behaviour settings: {e}"))?;
    faults.validate()?;
    behavior.validate()?;
    state.set_faults(faults);
    state.set_behavior(behavior);
    Ok(())
}

/// A request's body, if it is readable and holds at most `limit` bytes.
pub(crate) async fn read_body(body: Incoming, limit: usize) -> Option<Bytes> {
    let collected = http_body_util::Limited::new(body, limit).collect().await;
    collected.ok().map(|c| c.to_bytes())
}

async fn control(state: &State, req: Request<Incoming>) -> Reply {
    let method = req.method().clone();
    let path = req.uri().path().trim_end_matches('/').to_string();
    let segments: Vec<String> = path.split('/').skip(1).map(str::to_string).collect();
    let segments: Vec<&str> = segments.iter().map(String::as_str).collect();
    let Some(body) = read_body(req.into_body(), 1 << 20).await else {
        return Reply::error_json(
            StatusCode::PAYLOAD_TOO_LARGE,
            "request body too large or unreadable",
        );
    };
    let book_id = |s: &str| {
        s.parse::<u32>()
            .ok()
            .filter(|id| state.catalog.book(*id).is_some())
    };
    match (&method, segments.as_slice()) {
        (&Method::GET, ["_stats"]) => Reply::json(StatusCode::OK, &state.stats()),
        (&Method::POST, ["_control", "reset-stats"]) => {
            state.reset_stats();
            Reply::json(StatusCode::OK, &state.stats())
        }
        (&Method::GET, ["_control", "faults"]) => {
            Reply::json(StatusCode::OK, &settings_json(state))
        }
        (&Method::POST, ["_control", "faults"]) => match apply_settings(state, &body) {
            Ok(()) => Reply::json(StatusCode::OK, &settings_json(state)),
            Err(e) => Reply::error_json(StatusCode::BAD_REQUEST, &e),
        },
        (&Method::DELETE, ["_control", "faults"]) => {
            state.set_faults(Faults::default());
            Reply::json(StatusCode::OK, &settings_json(state))
        }
        (&Method::GET, ["_control", "books"]) => {
            let books: Vec<_> = state
                .catalog
                .books
                .iter()
                .filter_map(|b| state.book_info(b.id))
                .collect();
            Reply::json(StatusCode::OK, &books)
        }
        (&Method::POST, ["_control", action @ ("revise" | "gone" | "restore"), id]) => {
            let Some(id) = book_id(id) else {
                return Reply::error_json(StatusCode::NOT_FOUND, "no such book");
            };
            match *action {
                "revise" => {
                    state.revise(id);
                }
                "gone" => {
                    state.set_gone(id, true);
                }
                _ => {
                    state.set_gone(id, false);
                }
            }
            match state.book_info(id) {
                Some(info) => Reply::json(StatusCode::OK, &info),
                None => Reply::error_json(StatusCode::NOT_FOUND, "no such book"),
            }
        }
        (_, ["_stats"])
        | (_, ["_control", "reset-stats"])
        | (_, ["_control", "faults"])
        | (_, ["_control", "books"])
        | (_, ["_control", "revise" | "gone" | "restore", _]) => {
            Reply::error_json(StatusCode::METHOD_NOT_ALLOWED, "method not allowed")
        }
        _ => Reply::error_json(StatusCode::NOT_FOUND, "no such control endpoint"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn range(v: &str, len: usize) -> Option<(usize, usize)> {
        match parse_range(v, len) {
            RangeRequest::Satisfiable(a, b) => Some((a, b)),
            RangeRequest::Unsatisfiable => Some((usize::MAX, usize::MAX)),
            RangeRequest::Ignore => None,
        }
    }

    #[test]
    fn ranges_parse_like_rfc_9110() {
        assert_eq!(range("bytes=0-99", 1000), Some((0, 99)));
        assert_eq!(range("bytes=900-", 1000), Some((900, 999)));
        assert_eq!(range("bytes=900-5000", 1000), Some((900, 999)));
        assert_eq!(range("bytes=-100", 1000), Some((900, 999)));
        assert_eq!(range("bytes=-5000", 1000), Some((0, 999)));
        assert_eq!(range("bytes=1000-", 1000), Some((usize::MAX, usize::MAX)));
        assert_eq!(range("bytes=-0", 1000), Some((usize::MAX, usize::MAX)));
        assert_eq!(range("bytes=5-2", 1000), None);
        assert_eq!(range("bytes=0-1,5-6", 1000), None);
        assert_eq!(range("items=0-1", 1000), None);
        assert_eq!(range("bytes=x-", 1000), None);
    }
}
