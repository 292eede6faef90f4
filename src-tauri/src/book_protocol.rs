//! The `carrel-book` protocol: `carrel-book://localhost/<book id>` (on Windows
//! `http://carrel-book.localhost/<book id>`) answers with that book's stored EPUB or PDF, so
//! the EPUB and PDF readers fetch the whole file by id without any file path reaching the web
//! page (and without the book's bytes crossing the IPC).
//!
//! A stored file is answered at once; a missing one is queued prioritary and waited for (at
//! most [`WAIT`](crate::page_protocol::WAIT)); if it does not come the answer is a 504 whose body is the error of kind
//! `not_downloaded`. Anything but one positive integer is a 400; a book unknown or not an EPUB
//! or a PDF is a 404 (the statuses and bodies of [`crate::protocol_errors`]). The type is `application/epub+zip` or `application/pdf` as the
//! bytes prove, never taken from the server. The work is [`carrel_core::reading::book_source`]'s; this module only speaks HTTP.

use carrel_core::reading::book_source::{self, BookFile};
use carrel_core::reading::page_source::PageError;
use tauri::{AppHandle, Runtime};

use crate::page_protocol::library_and_wait;
use crate::protocol_errors::ProtocolError;
use crate::protocol_replies::{self, book_id, GetProtocol, Reply};

/// The scheme the UI passes to `convertFileSrc`.
pub const SCHEME: &str = "carrel-book";

/// The protocol, answering with whole books to the app's own pages; registered as
/// `protocol_replies::handle::<BookProtocol, _>`.
pub struct BookProtocol;

impl GetProtocol for BookProtocol {
    const READERS: &'static [&'static str] = APP_ORIGINS;

    type Asked = i64;

    fn read(path: &str) -> Option<i64> {
        book_id(path)
    }

    async fn answer<R: Runtime>(app: AppHandle<R>, id: i64, head: bool) -> Reply {
        match book(&app, id).await {
            Ok(file) => file_response(file, head),
            Err(e) => ProtocolError::Page(&e).reply(),
        }
    }
}

/// The origins of the app's own pages (the embedded UI on each platform, and in debug builds
/// the dev server), the only ones allowed to read a book with `fetch`. A release build never
/// trusts `localhost:5173`: any local process could serve a page there.
const APP_ORIGINS: &[&str] = &[
    "tauri://localhost",
    "http://tauri.localhost",
    "https://tauri.localhost",
    #[cfg(debug_assertions)]
    "http://localhost:5173",
];

async fn book<R: Runtime>(app: &AppHandle<R>, book_id: i64) -> Result<BookFile, PageError> {
    let (store, wait) = library_and_wait(app)?;
    book_source::book(&store, book_id, wait).await
}

fn file_response(file: BookFile, head: bool) -> Reply {
    // The stored file may be replaced by a newer revision: never reuse it unasked.
    protocol_replies::bytes(file.bytes, file.content_type, "no-store", head)
}

#[cfg(test)]
mod tests {
    use tauri::http::{header, StatusCode};

    use super::*;

    #[test]
    fn the_dev_server_is_trusted_only_by_debug_builds() {
        assert_eq!(
            APP_ORIGINS.contains(&"http://localhost:5173"),
            cfg!(debug_assertions)
        );
        assert!(APP_ORIGINS.contains(&"tauri://localhost"));
    }

    #[test]
    fn an_epub_is_answered_as_an_epub() {
        let response = file_response(
            BookFile {
                bytes: b"PK\x03\x04mimetypeapplication/epub+zip".to_vec(),
                content_type: book_source::EPUB_TYPE,
            },
            false,
        );
        assert_eq!(response.status(), StatusCode::OK);
        assert_eq!(
            response.headers()[header::CONTENT_TYPE],
            "application/epub+zip"
        );
        assert_eq!(
            response.headers()[header::X_CONTENT_TYPE_OPTIONS],
            "nosniff"
        );
    }

    #[test]
    fn only_the_apps_own_pages_may_read_a_book() {
        let ok = || protocol_replies::status(StatusCode::OK, "");
        let app = protocol_replies::allow_origin(ok(), Some("tauri://localhost"));
        assert_eq!(
            app.headers()[header::ACCESS_CONTROL_ALLOW_ORIGIN],
            "tauri://localhost"
        );
        let none = protocol_replies::allow_origin(ok(), None);
        assert!(none
            .headers()
            .get(header::ACCESS_CONTROL_ALLOW_ORIGIN)
            .is_none());
        assert!(!APP_ORIGINS.contains(&"null"));
        assert!(!APP_ORIGINS.contains(&"http://127.0.0.1"));
    }
}
