//! The `carrel-page` protocol: `carrel-page://localhost/<book id>/<page>` (on Windows
//! `http://carrel-page.localhost/<book id>/<page>`, the page 0-based) answers with that page of
//! the book, so the reader's `<img>` shows it without any file path reaching the web page.
//!
//! A stored page is answered at once; a missing one is pushed prioritary and waited for (at
//! most [`WAIT`]); if it does not come (the server is away) the answer is a 504 whose body is
//! the error of kind `not_downloaded`. Anything but two non-negative integers is a 400, a page
//! outside the book (or a book unknown or not read page by page) a 404, a page whose header
//! claims more pixels than a window is given a 413 (its bytes never reach the webview): the
//! statuses and bodies of [`crate::protocol_errors`], shared by the three protocols. The work is
//! [`carrel_core::reading::page_source`]'s; this module only speaks HTTP to the webview.

use std::time::Duration;

use carrel_core::foundation::store::Store;
use carrel_core::reading::page_source::{self, PageError, PageImage, WaitPolicy};
use tauri::{AppHandle, Manager, Runtime};

use crate::app_state::AppState;
use crate::protocol_errors::ProtocolError;
use crate::protocol_replies::{self, number, GetProtocol, Reply};

/// The scheme the UI passes to `convertFileSrc`.
pub const SCHEME: &str = "carrel-page";

/// How long the webview may reuse a page without asking again (a stored page never changes).
const MAX_AGE_S: u32 = 24 * 3600;

/// How long a request waits for a page (or a whole book) that is not on the device.
pub(crate) const WAIT: Duration = Duration::from_secs(20);

/// The protocol, answering with pages; registered as `protocol_replies::handle::<PageProtocol, _>`.
pub struct PageProtocol;

impl GetProtocol for PageProtocol {
    type Asked = (i64, i64);

    fn read(path: &str) -> Option<(i64, i64)> {
        book_page(path)
    }

    async fn answer<R: Runtime>(app: AppHandle<R>, (id, index): (i64, i64), head: bool) -> Reply {
        page(&app, id, index).await.map_or_else(
            |e| ProtocolError::Page(&e).reply(),
            |image| image_response(image, head),
        )
    }
}

/// The book id and page index of a request path: `/<positive integer>/<integer ≥ 0>`,
/// nothing else. `convertFileSrc` escapes the slash between them, so `%2F` separates them too.
pub fn book_page(path: &str) -> Option<(i64, i64)> {
    let rest = path.strip_prefix('/')?;
    let (id, index) = match rest.split_once('/') {
        Some(parts) => parts,
        None => {
            let at = rest.to_ascii_lowercase().find("%2f")?;
            (&rest[..at], &rest[at + 3..])
        }
    };
    let id = number(id)?;
    let index = number(index)?;
    (id > 0).then_some((id, index))
}

async fn page<R: Runtime>(
    app: &AppHandle<R>,
    book_id: i64,
    index: i64,
) -> Result<PageImage, PageError> {
    let (store, wait) = library_and_wait(app)?;
    page_source::page(&store, book_id, index, wait).await
}

/// The library a page or book request reads from and how long it waits for what is not on
/// the device ([`WAIT`]); an I/O error when the library could not be opened.
pub(crate) fn library_and_wait<R: Runtime>(
    app: &AppHandle<R>,
) -> Result<(Store, WaitPolicy), PageError> {
    let Some(store) = app
        .try_state::<AppState>()
        .and_then(|state| state.core().ok().map(|core| core.store.clone()))
    else {
        return Err(PageError::Io("the library could not be opened".into()));
    };
    let wait = WaitPolicy {
        timeout: WAIT,
        ..WaitPolicy::default()
    };
    Ok((store, wait))
}

fn image_response(image: PageImage, head: bool) -> Reply {
    protocol_replies::bytes(
        image.bytes,
        image.content_type,
        &format!("private, max-age={MAX_AGE_S}"),
        head,
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use tauri::http::{header, StatusCode};

    #[test]
    fn only_a_book_id_and_a_page_index_are_a_request() {
        assert_eq!(book_page("/42/0"), Some((42, 0)));
        assert_eq!(book_page("/1/59"), Some((1, 59)));
        assert_eq!(book_page("/7/007"), Some((7, 7)));
        assert_eq!(book_page("/12%2F40"), Some((12, 40)));
        assert_eq!(book_page("/12%2f0"), Some((12, 0)));
        for bad in [
            "",
            "/",
            "/42",
            "/42/",
            "//3",
            "/0/1",
            "/-1/2",
            "/1/-2",
            "/+1/2",
            "/1/+2",
            "/1.5/2",
            "/1/2.0",
            "/1/2/",
            "/1/2/3",
            "/1/2?x=1",
            "/a/1",
            "/1/b",
            "/1/%32",
            "/ 1/2",
            "/1/ 2",
            "/..%2F1/2",
            "/1/99999999999999999999",
            "42/1",
            "/12%2F",
            "/%2F3",
            "/1%2F2%2F3",
            "/1%2F2/3",
            "/1%2G2",
            "/1%252F2",
        ] {
            assert_eq!(book_page(bad), None, "{bad:?}");
        }
    }

    #[test]
    fn a_page_carries_its_sniffed_type_and_a_private_cache_lifetime() {
        let image = PageImage {
            bytes: b"\x89PNG\r\n\x1a\nrest".to_vec(),
            content_type: "image/png",
        };
        let response = image_response(image, false);
        assert_eq!(response.status(), StatusCode::OK);
        assert_eq!(response.headers()[header::CONTENT_TYPE], "image/png");
        assert!(response.headers()[header::CACHE_CONTROL]
            .to_str()
            .unwrap()
            .starts_with("private, max-age="));
    }
}
