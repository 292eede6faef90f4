//! The app's windows: the library window, created at start-up at the size and place the reader
//! left it, its geometry saved (debounced) whenever it moves or is resized, so a crash loses at
//! most the last half second of dragging; and further windows the reader opens on a view
//! ("Open in new window"), labelled `library-<n>`, which the same capability covers.

use std::sync::mpsc;
use std::time::Duration;

use carrel_core::{
    foundation::store::Store,
    library::settings::{self, WindowGeometry},
};
use tauri::{
    AppHandle, LogicalPosition, LogicalSize, WebviewUrl, WebviewWindow, WebviewWindowBuilder,
    WindowEvent,
};

pub const LABEL: &str = "main";
/// Labels of further windows start with this (see `capabilities/main.json`).
pub const EXTRA_LABEL_PREFIX: &str = "library-";
const DEFAULT_SIZE: (f64, f64) = (1200.0, 800.0);
const MIN_SIZE: (f64, f64) = (720.0, 480.0);
const SAVE_AFTER_QUIET: Duration = Duration::from_millis(400);

/// Opens the main window; restores its last geometry when the store has one.
pub fn open(app: &AppHandle, store: Option<&Store>) -> tauri::Result<WebviewWindow> {
    let saved = store.and_then(|s| settings::get::<WindowGeometry>(s).ok().flatten());
    let title = app
        .config()
        .product_name
        .clone()
        .unwrap_or_else(|| "Carrel".into());
    let mut builder = WebviewWindowBuilder::new(app, LABEL, WebviewUrl::App("index.html".into()))
        .title(title)
        .initialization_script(crate::messages::window_script())
        .min_inner_size(MIN_SIZE.0, MIN_SIZE.1)
        .inner_size(DEFAULT_SIZE.0, DEFAULT_SIZE.1)
        .visible(false);
    match saved {
        Some(g) if g.width >= MIN_SIZE.0 && g.height >= MIN_SIZE.1 => {
            builder = builder.inner_size(g.width, g.height).position(g.x, g.y);
        }
        _ => builder = builder.center(),
    }
    let window = builder.build()?;
    crate::webview_memory::keep_only_what_is_used(&window);
    if saved.is_some_and(|g| g.maximized) {
        let _ = window.maximize();
    }
    window.show()?;
    if let Some(store) = store {
        remember_geometry(&window, store.clone());
    }
    Ok(window)
}

/// Saves the window's geometry after each burst of moves and resizes.
fn remember_geometry(window: &WebviewWindow, store: Store) {
    let (tx, rx) = mpsc::channel::<WindowGeometry>();
    std::thread::Builder::new()
        .name("window-geometry".into())
        .spawn(move || {
            while let Ok(mut latest) = rx.recv() {
                while let Ok(newer) = rx.recv_timeout(SAVE_AFTER_QUIET) {
                    latest = newer;
                }
                if let Err(e) = settings::set(&store, &latest) {
                    tracing::warn!(cause = %e, "could not save the window's size and position");
                }
            }
        })
        .expect("spawn the geometry thread");
    let handle = window.clone();
    window.on_window_event(move |event| {
        if matches!(event, WindowEvent::Moved(_) | WindowEvent::Resized(_)) {
            if let Some(g) = geometry(&handle) {
                let _ = tx.send(g);
            }
        }
    });
}

fn geometry(window: &WebviewWindow) -> Option<WindowGeometry> {
    let scale = window.scale_factor().ok()?;
    let maximized = window.is_maximized().unwrap_or(false);
    if window.is_minimized().unwrap_or(false) {
        return None;
    }
    let pos: LogicalPosition<f64> = window.outer_position().ok()?.to_logical(scale);
    let size: LogicalSize<f64> = window.inner_size().ok()?.to_logical(scale);
    Some(WindowGeometry {
        x: pos.x,
        y: pos.y,
        width: size.width,
        height: size.height,
        maximized,
    })
}

/// Why a window could not be opened.
#[derive(Debug, thiserror::Error)]
pub enum WindowError {
    #[error("\"{0}\" is not a view Carrel can open in a window")]
    UnknownView(String),
    #[error("cannot open a window: {0}")]
    Tauri(#[from] tauri::Error),
}

/// Opens another window on `view` — `library`, `downloads`, `settings`, `server/<id>`,
/// `book/<id>`, or a book in a reader (`reader/<id>`, `epub/<id>`) — which the UI reads from the
/// address's fragment.
pub fn open_extra(app: &AppHandle, view: &str) -> Result<String, WindowError> {
    if !is_known_view(view) {
        return Err(WindowError::UnknownView(view.to_owned()));
    }
    static NEXT: std::sync::atomic::AtomicU32 = std::sync::atomic::AtomicU32::new(1);
    let label = format!(
        "{EXTRA_LABEL_PREFIX}{}",
        NEXT.fetch_add(1, std::sync::atomic::Ordering::Relaxed)
    );
    let title = app
        .config()
        .product_name
        .clone()
        .unwrap_or_else(|| "Carrel".into());
    WebviewWindowBuilder::new(
        app,
        &label,
        WebviewUrl::App(format!("index.html#/{view}").into()),
    )
    .title(title)
    .initialization_script(crate::messages::window_script())
    .min_inner_size(MIN_SIZE.0, MIN_SIZE.1)
    .inner_size(DEFAULT_SIZE.0 * 0.8, DEFAULT_SIZE.1 * 0.9)
    .build()
    .map(|window| crate::webview_memory::keep_only_what_is_used(&window))?;
    Ok(label)
}

/// The views a window may be opened on; ids must be positive integers.
pub fn is_known_view(view: &str) -> bool {
    let id_ok = |id: &str| {
        !id.is_empty() && id.len() <= 18 && id.bytes().all(|b| b.is_ascii_digit()) && id != "0"
    };
    match view.split_once('/') {
        None => matches!(view, "library" | "downloads" | "settings" | "on-device"),
        Some(("book" | "server" | "reader" | "epub", id)) => id_ok(id),
        Some(_) => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_known_views_open_in_a_window() {
        for ok in [
            "library",
            "downloads",
            "settings",
            "on-device",
            "book/12",
            "server/3",
            "reader/12",
            "epub/12",
        ] {
            assert!(is_known_view(ok), "{ok}");
        }
        for bad in [
            "",
            "book/",
            "book/0",
            "book/1/2",
            "book/x",
            "../etc",
            "javascript:alert(1)",
            "book/12?x",
            "https://example.org",
        ] {
            assert!(!is_known_view(bad), "{bad}");
        }
    }
}
