//! The `carrel-cover` protocol: `carrel-cover://localhost/<book id>` (on Windows
//! `http://carrel-cover.localhost/<book id>`) answers with the book's cover, so an `<img>` in
//! the window can show it without any file path reaching the web page.
//!
//! The request gives a book id and nothing else: anything but a positive integer is a 400, a
//! book without a cover (or whose cover cannot be had now) a 404 (the statuses and bodies of
//! [`crate::protocol_errors`]). The image type is sniffed
//! from the bytes; the server's declared type never travels. The work is
//! [`carrel_core::catalog::cover_cache`]'s; this module only speaks HTTP to the webview.

use carrel_core::catalog::cover_cache::Cover;
use tauri::{AppHandle, Manager, Runtime};

use crate::app_state::AppState;
use crate::protocol_errors::ProtocolError;
use crate::protocol_replies::{self, book_id, GetProtocol, Reply};

/// The scheme the UI passes to `convertFileSrc`.
pub const SCHEME: &str = "carrel-cover";

/// How long the webview may reuse a cover without asking again.
const MAX_AGE_S: u32 = 7 * 24 * 3600;

/// The protocol, answering with covers; registered as `protocol_replies::handle::<CoverProtocol, _>`.
pub struct CoverProtocol;

impl GetProtocol for CoverProtocol {
    type Asked = i64;

    fn read(path: &str) -> Option<i64> {
        book_id(path)
    }

    async fn answer<R: Runtime>(app: AppHandle<R>, id: i64, head: bool) -> Reply {
        match cover(&app, id).await {
            Ok(Some(cover)) => image(cover, head),
            Ok(None) => ProtocolError::NoCover.reply(),
            Err(Unserved::Library) => ProtocolError::LibraryUnavailable.reply(),
            Err(Unserved::Cover(e)) => ProtocolError::Cover(&e).reply(),
        }
    }
}

/// Why a cover was not served.
enum Unserved {
    Library,
    Cover(carrel_core::catalog::cover_cache::CoverError),
}

async fn cover<R: Runtime>(app: &AppHandle<R>, book_id: i64) -> Result<Option<Cover>, Unserved> {
    let state = app.try_state::<AppState>().ok_or(Unserved::Library)?;
    let core = state.core().map_err(|_| Unserved::Library)?;
    let (store, credentials, covers) = (
        core.store.clone(),
        core.credentials.clone(),
        core.covers.clone(),
    );
    let http = core.http().map_err(|_| Unserved::Library)?;
    covers
        .cover(&store, &credentials, &http, book_id)
        .await
        .map_err(Unserved::Cover)
}

fn image(cover: Cover, head: bool) -> Reply {
    protocol_replies::bytes(
        cover.bytes,
        cover.content_type,
        &format!("max-age={MAX_AGE_S}"),
        head,
    )
}

#[cfg(test)]
mod tests {
    use tauri::http::{header, StatusCode};

    use super::*;

    #[test]
    fn a_cover_may_be_reused_for_a_week() {
        let png = b"\x89PNG\r\n\x1a\n".to_vec();
        let cover = || Cover {
            bytes: png.clone(),
            content_type: "image/png",
        };
        let response = image(cover(), false);
        assert_eq!(response.status(), StatusCode::OK);
        assert_eq!(response.headers()[header::CONTENT_TYPE], "image/png");
        assert_eq!(response.headers()[header::CACHE_CONTROL], "max-age=604800");
        assert_eq!(
            response.headers()[header::X_CONTENT_TYPE_OPTIONS],
            "nosniff"
        );
        assert_eq!(response.body().as_ref(), &png[..]);
        let head = image(cover(), true);
        assert!(head.body().is_empty());
        assert_eq!(head.headers()[header::CONTENT_LENGTH], "8");
    }
}
