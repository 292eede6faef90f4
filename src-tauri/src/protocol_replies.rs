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

/// Answers a GET or HEAD request off the protocol's thread: `read` takes what is asked from the
/// path (else a 400), `answer` replies to it, told whether the request is a HEAD. Any other
/// method is a 405. A request from one of the `readers` origins gets an answer (any answer,
/// failures too) that the page of that origin may read with `fetch`; pass none when the
/// answers are only shown (an `<img>`).
pub fn answer_get<R: Runtime, T: Send + 'static, F>(
    ctx: UriSchemeContext<'_, R>,
    request: &Request<Vec<u8>>,
    responder: UriSchemeResponder,
    readers: &[&str],
    read: impl FnOnce(&str) -> Option<T>,
    answer: impl FnOnce(AppHandle<R>, T, bool) -> F + Send + 'static,
) where
    F: Future<Output = Reply> + Send,
{
    let app = ctx.app_handle().clone();
    let head = request.method() == Method::HEAD;
    let origin = request
        .headers()
        .get(header::ORIGIN)
        .and_then(|o| o.to_str().ok())
        .filter(|o| readers.contains(o))
        .map(str::to_string);
    let asked = if request.method() == Method::GET || head {
        read(request.uri().path()).ok_or(ProtocolError::BadRequest)
    } else {
        Err(ProtocolError::MethodNotAllowed)
    };
    tauri::async_runtime::spawn(async move {
        let response = match asked {
            Ok(asked) => answer(app, asked, head).await,
            Err(failure) => failure.reply(),
        };
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
