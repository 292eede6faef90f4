//! Why a request to the `carrel-cover`, `carrel-page` or `carrel-book` protocol failed, and the
//! one reply each failure gets: an HTTP status the webview understands (an `<img>` only sees
//! that it failed) and, as the body, the same `{ kind, message }` a command rejects with, so a
//! window that fetches (the EPUB and PDF readers, the comic reader's retries) branches on the
//! kind as it does for commands — `not_downloaded` above all — and never on a message.

use std::borrow::Cow;

use carrel_core::catalog::cover_cache::CoverError;
use carrel_core::reading::page_source::PageError;
use carrel_core::ErrorKind;
use tauri::http::{header, Response, StatusCode};

use crate::command_error::CommandError;

/// What a protocol handler answers the webview.
pub type Reply = Response<Cow<'static, [u8]>>;

/// A failed protocol request.
#[derive(Debug)]
pub enum ProtocolError<'a> {
    /// The path is not one the protocol answers (not a book id, not a page index).
    BadRequest,
    /// Anything but GET or HEAD.
    MethodNotAllowed,
    /// The library could not be opened (the start-up error says why).
    LibraryUnavailable,
    /// The book has no cover, or none can be had now.
    NoCover,
    /// A page or a whole file could not be served.
    Page(&'a PageError),
    /// A cover could not be served.
    Cover(&'a CoverError),
}

impl ProtocolError<'_> {
    /// The status the webview gets.
    pub fn status(&self) -> StatusCode {
        match self {
            ProtocolError::BadRequest => StatusCode::BAD_REQUEST,
            ProtocolError::MethodNotAllowed => StatusCode::METHOD_NOT_ALLOWED,
            ProtocolError::LibraryUnavailable => StatusCode::SERVICE_UNAVAILABLE,
            ProtocolError::NoCover => StatusCode::NOT_FOUND,
            ProtocolError::Page(e) => match e {
                PageError::UnknownBook(_)
                | PageError::NotPaged(_)
                | PageError::OutOfRange { .. } => StatusCode::NOT_FOUND,
                // Not on the device and not arriving: the server is away (a gateway's timeout).
                PageError::OfflineNotDownloaded => StatusCode::GATEWAY_TIMEOUT,
                PageError::Failed(_) => StatusCode::BAD_GATEWAY,
                PageError::TooLarge { .. } | PageError::TooManyPixels(_) => {
                    StatusCode::PAYLOAD_TOO_LARGE
                }
                _ => StatusCode::INTERNAL_SERVER_ERROR,
            },
            ProtocolError::Cover(_) => StatusCode::INTERNAL_SERVER_ERROR,
        }
    }

    /// What the body says: the command error the same failure would be.
    pub fn error(&self) -> CommandError {
        match self {
            ProtocolError::BadRequest => CommandError::new(
                ErrorKind::InvalidInput,
                "not a request this protocol answers",
            ),
            ProtocolError::MethodNotAllowed => {
                CommandError::new(ErrorKind::InvalidInput, "only GET and HEAD are answered")
            }
            ProtocolError::LibraryUnavailable => {
                CommandError::new(ErrorKind::Storage, "the library could not be opened")
            }
            ProtocolError::NoCover => CommandError::new(ErrorKind::NotFound, "no cover"),
            ProtocolError::Page(e) => CommandError::of(*e),
            ProtocolError::Cover(e) => CommandError::of(*e),
        }
    }

    /// The reply: the status, and the error as JSON. Never cached: what is missing now (a
    /// cover, a page, a book) may be on the device later. Failures that are not the reader's
    /// nor the network's are logged.
    pub fn reply(&self) -> Reply {
        let code = self.status();
        let error = self.error();
        if code.is_server_error() && code != StatusCode::GATEWAY_TIMEOUT {
            tracing::warn!(status = %code, cause = %error.message, "a protocol request failed");
        }
        let body = serde_json::to_vec(&error).unwrap_or_default();
        let mut response = Response::new(Cow::Owned(body));
        *response.status_mut() = code;
        let headers = response.headers_mut();
        headers.insert(
            header::CACHE_CONTROL,
            header::HeaderValue::from_static("no-store"),
        );
        headers.insert(
            header::CONTENT_TYPE,
            header::HeaderValue::from_static("application/json"),
        );
        response
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use carrel_core::foundation::image_type::TooManyPixels;

    #[test]
    fn every_failure_has_one_status_and_its_kind_in_the_body() {
        let huge = PageError::TooManyPixels(TooManyPixels {
            width: 50_000,
            height: 50_000,
        });
        let refused = PageError::Failed("404".into());
        let disk = PageError::Io("disk".into());
        let cover = CoverError::Disk(std::io::Error::other("read-only"));
        let offline = PageError::OfflineNotDownloaded;
        let unknown = PageError::UnknownBook(3);
        let not_paged = PageError::NotPaged(3);
        let past_end = PageError::OutOfRange {
            page: 60,
            count: 60,
        };
        let too_large = PageError::TooLarge {
            bytes: 10,
            limit: 5,
        };
        use ProtocolError as P;
        use StatusCode as S;
        let cases: Vec<(ProtocolError, StatusCode, &str)> = vec![
            (P::BadRequest, S::BAD_REQUEST, "invalid_input"),
            (P::MethodNotAllowed, S::METHOD_NOT_ALLOWED, "invalid_input"),
            (P::LibraryUnavailable, S::SERVICE_UNAVAILABLE, "storage"),
            (P::NoCover, S::NOT_FOUND, "not_found"),
            (P::Page(&offline), S::GATEWAY_TIMEOUT, "not_downloaded"),
            (P::Page(&unknown), S::NOT_FOUND, "not_found"),
            (P::Page(&not_paged), S::NOT_FOUND, "invalid_input"),
            (P::Page(&past_end), S::NOT_FOUND, "invalid_input"),
            (P::Page(&refused), S::BAD_GATEWAY, "server"),
            (P::Page(&too_large), S::PAYLOAD_TOO_LARGE, "storage"),
            (P::Page(&huge), S::PAYLOAD_TOO_LARGE, "server"),
            (P::Page(&disk), S::INTERNAL_SERVER_ERROR, "storage"),
            (P::Cover(&cover), S::INTERNAL_SERVER_ERROR, "storage"),
        ];
        for (failure, status, kind) in cases {
            let reply = failure.reply();
            assert_eq!(reply.status(), status, "{failure:?}");
            assert_eq!(reply.headers()[header::CACHE_CONTROL], "no-store");
            assert_eq!(reply.headers()[header::CONTENT_TYPE], "application/json");
            let body: serde_json::Value = serde_json::from_slice(reply.body()).unwrap();
            assert_eq!(body["kind"], kind, "{failure:?}");
            assert!(!body["message"].as_str().unwrap().is_empty(), "{failure:?}");
        }
    }
}
