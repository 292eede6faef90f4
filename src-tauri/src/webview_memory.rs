//! What WebKitGTK may keep of what a window loaded. By default a webview keeps the resources a
//! page no longer uses in its memory cache for a web browser's sake, within a share of the
//! machine's memory (half a gigabyte on a machine of 16 GiB or more, half of it for resources
//! no page uses): comic pages read stayed there, encoded and often decoded, after the reader
//! had let them go. The readers keep the pages they want themselves, within a bound in bytes
//! (`ui/src/lib/pageCache.ts`, the PDF pages' keeper). So the windows use WebKit's "document
//! browser" model: a cache of at most 96 MiB, of which resources no page uses take at most a
//! quarter (24 MiB). A page shown again soon (the strip scrolling back over the page just left) is still
//! there; the pages of a long comic read are not. (The "document viewer" model keeps nothing no
//! page uses: a page the strip shows again then came anew from the device after its element was
//! gone, and the strip could settle on another page than the one read.)
//!
//! Owns nothing but that setting of the windows' web context (one for all the app's windows).

/// Sets the "document browser" cache model on `window`'s web context.
#[cfg(target_os = "linux")]
pub fn keep_only_what_is_used(window: &tauri::WebviewWindow) {
    let done = window.with_webview(|webview| {
        use webkit2gtk::{CacheModel, WebContextExt, WebViewExt};
        match webview.inner().context() {
            Some(context) => context.set_cache_model(CacheModel::DocumentBrowser),
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
