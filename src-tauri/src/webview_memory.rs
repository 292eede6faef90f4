//! What WebKitGTK may keep of what a window loaded. By default a webview keeps the resources a
//! page no longer uses in its memory cache for a web browser's sake, within a share of the
//! machine's memory (half a gigabyte on a machine of 16 GiB or more): every comic page read
//! stayed there, encoded and often decoded, after the reader had let it go. The readers keep
//! the pages they want themselves, within a bound in bytes (`ui/src/lib/pageCache.ts`, the PDF
//! pages' keeper), and a page the window shows again is read again from the device in a few
//! milliseconds. So the windows use WebKit's "document viewer" model: a resource no page uses
//! any more is let go at once; what a page still uses (the page shown, those decoded ahead,
//! the covers in sight) is kept as before.
//!
//! Owns nothing but that setting of the windows' web context (one for all the app's windows).

/// Sets the "document viewer" cache model on `window`'s web context.
#[cfg(target_os = "linux")]
pub fn keep_only_what_is_used(window: &tauri::WebviewWindow) {
    let done = window.with_webview(|webview| {
        use webkit2gtk::{CacheModel, WebContextExt, WebViewExt};
        match webview.inner().context() {
            Some(context) => context.set_cache_model(CacheModel::DocumentViewer),
            None => tracing::warn!("the window has no web context: WebKit's cache stays as it is"),
        }
    });
    if let Err(e) = done {
        tracing::warn!(cause = %e, "could not reach the window's webview to set its cache");
    }
}

/// Elsewhere the webview's own defaults stay.
#[cfg(not(target_os = "linux"))]
pub fn keep_only_what_is_used(_window: &tauri::WebviewWindow) {}
