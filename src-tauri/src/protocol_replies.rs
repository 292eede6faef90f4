//! What the `carrel-cover`, `carrel-page` and `carrel-book` protocols share: reading a book id
//! (or page index) from a request path, and building their replies — the bytes with a type
//! sniffed or set by us, or a bare status that is never cached.

use std::borrow::Cow;

use tauri::http::{header, Response, StatusCode};

pub type Reply = Response<Cow<'static, [u8]>>;

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
