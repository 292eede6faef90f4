//! What the `carrel-cover`, `carrel-page` and `carrel-book` protocols share: answering a GET or
//! HEAD off the protocol thread, reading a book id (or page index) from a request path, and
//! building their replies — the bytes with a type sniffed or set by us, or a bare status that
//! is never cached.

use std::borrow::Cow;
use std::future::Future;

use tauri::http::{header, Method, Request, Response, StatusCode};
use tauri::{AppHandle, Runtime, UriSchemeContext, UriSchemeResponder};

use crate::protocol_errors::ProtocolError;

pub use crate::protocol_errors::Reply;

/// A non-negative decimal number of at most 18 digits, nothing else (no sign, no spaces).
pub fn number(digits: &str) -> Option<i64> {
    if digits.is_empty() || digits.len() > 18 || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    digits.parse::<i64>().ok()
}

/// The book id of a request path: `/<positive integer>`, nothing else.
pub fn book_id(path: &str) -> Option<i64> {
    number(path.strip_prefix('/')?).filter(|&id| id > 0)
}

/// What one protocol says of its own: who may read its answers, what a request path asks,
/// and how it answers that. [`handle`] does the rest, the same for every protocol.
pub trait GetProtocol: 'static {
    /// The origins whose pages may read an answer (any answer, failures too) with `fetch`;
    /// none when the answers are only shown (an `<img>`).
    const READERS: &'static [&'static str] = &[];

    /// What a request asks for (a book id, a page of a book).
    type Asked: Send + 'static;

    /// What the request path asks for; `None` makes the request a 400.
    fn read(path: &str) -> Option<Self::Asked>;

    /// The reply to what was asked, told whether the request is a HEAD.
    fn answer<R: Runtime>(
        app: AppHandle<R>,
        asked: Self::Asked,
        head: bool,
    ) -> impl Future<Output = Reply> + Send;
}

/// The handler given to `register_asynchronous_uri_scheme_protocol` for protocol `P`: answers
/// a GET or HEAD request off the protocol's thread with [`GetProtocol::answer`] to what
/// [`GetProtocol::read`] takes from the path (else a 400). Any other method is a 405. A
/// request from one of [`GetProtocol::READERS`] gets an answer that names its origin.
pub fn handle<P: GetProtocol, R: Runtime>(
    ctx: UriSchemeContext<'_, R>,
    request: Request<Vec<u8>>,
    responder: UriSchemeResponder,
) {
    let app = ctx.app_handle().clone();
    let head = request.method() == Method::HEAD;
    let origin = request
        .headers()
        .get(header::ORIGIN)
        .and_then(|o| o.to_str().ok())
        .filter(|o| P::READERS.contains(o))
        .map(str::to_string);
    let asked = if request.method() == Method::GET || head {
        P::read(request.uri().path()).ok_or(ProtocolError::BadRequest)
    } else {
        Err(ProtocolError::MethodNotAllowed)
    };
    let path = request.uri().path().to_owned();
    let received = std::time::Instant::now();
    tauri::async_runtime::spawn(async move {
        let started = received.elapsed();
        let response = match asked {
            Ok(asked) => P::answer(app, asked, head).await,
            Err(failure) => failure.reply(),
        };
        tracing::debug!(
            protocol = std::any::type_name::<P>(),
            path,
            status = response.status().as_u16(),
            waited_us = started.as_micros() as u64,
            answered_us = received.elapsed().as_micros() as u64,
            "protocol request answered"
        );
        responder.respond(allow_origin(response, origin.as_deref()));
    });
}

/// A page fetching from another origin (a protocol's) may read the answer only when it names
/// the page's origin: this names `origin`, when there is one, and nothing else.
pub fn allow_origin(mut response: Reply, origin: Option<&str>) -> Reply {
    if let Some(value) = origin.and_then(|o| header::HeaderValue::from_str(o).ok()) {
        let headers = response.headers_mut();
        headers.insert(header::ACCESS_CONTROL_ALLOW_ORIGIN, value);
        headers.insert(header::VARY, header::HeaderValue::from_static("Origin"));
    }
    response
}

/// A 200 with `bytes` (none for HEAD), their type and the given caching.
pub fn bytes(bytes: Vec<u8>, content_type: &str, cache_control: &str, head: bool) -> Reply {
    let len = bytes.len();
    let body: Cow<'static, [u8]> = if head {
        Cow::Borrowed(&[])
    } else {
        Cow::Owned(bytes)
    };
    Response::builder()
        .status(StatusCode::OK)
        .header(header::CONTENT_TYPE, content_type)
        .header(header::CONTENT_LENGTH, len)
        .header(header::CACHE_CONTROL, cache_control)
        .header(header::X_CONTENT_TYPE_OPTIONS, "nosniff")
        .body(body)
        .unwrap_or_else(|_| status(StatusCode::INTERNAL_SERVER_ERROR, ""))
}

/// A status with an optional short text. Never cached: what is missing now (a cover, a page,
/// a book) may be on the device later.
pub fn status(code: StatusCode, text: &'static str) -> Reply {
    let mut response = Response::new(Cow::Borrowed(text.as_bytes()));
    *response.status_mut() = code;
    let headers = response.headers_mut();
    headers.insert(
        header::CACHE_CONTROL,
        header::HeaderValue::from_static("no-store"),
    );
    if !text.is_empty() {
        headers.insert(
            header::CONTENT_TYPE,
            header::HeaderValue::from_static("text/plain; charset=utf-8"),
        );
    }
    response
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_a_positive_book_id_is_a_request() {
        for (good, id) in [("/42", 42), ("/1", 1), ("/007", 7)] {
            assert_eq!(book_id(good), Some(id), "{good:?}");
        }
        for bad in [
            "",
            "/",
            "42",
            "/0",
            "/-1",
            "/+1",
            "/1.5",
            "/01x",
            "/1/",
            "/1/0",
            "/1/cover.png",
            "/1?x=1",
            "/a",
            "/%31",
            "/ 1",
            "/..%2F1",
            "/../books/1/book.epub",
            "/..%2F..%2Fetc%2Fpasswd",
            "/1%2F2",
            "/99999999999999999999",
        ] {
            assert_eq!(book_id(bad), None, "{bad:?}");
        }
    }
}
