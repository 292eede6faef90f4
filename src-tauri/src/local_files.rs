//! The reader's own files handed to Carrel by the desktop: dropped on a window, named on the
//! command line (`carrel PATH…`, which is also how a file manager's "Open with Carrel" starts
//! it), or handed over by a later start to the running app (`single_instance`).
//!
//! Owns only the handing over: which window hears about a drag, and the files waiting for a
//! window to open them. The window asks for the files to be imported (`import_files`, the core's
//! `catalog::local_books`) and opens them, exactly as it does for the files it chose itself with
//! File → Open; so a drop, a command line and the file chooser take one path from there.
//! The paths are the reader's choice, never anything a book or a server said.

use std::path::PathBuf;
use std::sync::{Arc, Mutex, MutexGuard};

use serde::Serialize;
use tauri::{ipc::Channel, AppHandle, DragDropEvent, Manager, Window, WindowEvent};

/// What a window hears about the reader's files.
#[derive(Debug, Clone, PartialEq, Serialize, ts_rs::TS)]
#[serde(tag = "kind", rename_all = "snake_case")]
#[ts(rename = "DesktopFilesEvent")]
pub enum FilesEvent {
    /// Files are being dragged over the window: it shows where to drop them.
    DragEnter,
    /// The drag left the window, or ended without a drop.
    DragLeave,
    /// Files to import and open: dropped on this window, or handed to the app.
    Open { paths: Vec<String> },
}

/// The windows listening for files, and the files no window has taken yet.
#[derive(Default)]
pub struct DesktopFiles {
    inner: Mutex<Inner>,
}

#[derive(Default)]
struct Inner {
    /// Files named before a window listened (the command line at start, a later start while
    /// the app had no window).
    waiting: Vec<PathBuf>,
    /// One channel per window, the latest it gave.
    windows: Vec<(String, Channel<FilesEvent>)>,
}

impl DesktopFiles {
    fn inner(&self) -> MutexGuard<'_, Inner> {
        self.inner.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// Files for the app to open as soon as a window listens.
    pub fn hold(&self, paths: Vec<PathBuf>) {
        self.inner().waiting.extend(paths);
    }

    /// The window `label` listens on `channel` from now on, and is handed the files waiting.
    pub fn listen(&self, label: &str, channel: Channel<FilesEvent>) {
        let mut inner = self.inner();
        inner.windows.retain(|(l, _)| l != label);
        let waiting = std::mem::take(&mut inner.waiting);
        if !waiting.is_empty() {
            if let Err(e) = channel.send(open_event(&waiting)) {
                tracing::warn!(cause = %e, "a window could not be handed the files to open");
                inner.waiting = waiting;
            }
        }
        inner.windows.push((label.to_owned(), channel));
    }

    /// Hands `paths` to the library window (else any window listening), or keeps them for the
    /// next window that listens.
    pub fn open(&self, paths: Vec<PathBuf>) {
        if paths.is_empty() {
            return;
        }
        let mut inner = self.inner();
        let event = open_event(&paths);
        let main = inner
            .windows
            .iter()
            .position(|(l, _)| l == crate::main_window::LABEL);
        let order: Vec<usize> = main
            .into_iter()
            .chain((0..inner.windows.len()).filter(|i| Some(*i) != main))
            .collect();
        for i in order {
            if inner.windows[i].1.send(event.clone()).is_ok() {
                return;
            }
        }
        inner.waiting.extend(paths);
    }

    /// Tells the window `label` what a drag over it did.
    fn tell(&self, label: &str, event: FilesEvent) {
        let inner = self.inner();
        if let Some((_, channel)) = inner.windows.iter().find(|(l, _)| l == label) {
            if let Err(e) = channel.send(event) {
                tracing::debug!(cause = %e, window = label, "a window missed a drag event");
            }
        }
    }

    fn forget(&self, label: &str) {
        self.inner().windows.retain(|(l, _)| l != label);
    }

    /// What the desktop's drag and drop over the window `label` means for it.
    pub fn dragged(&self, label: &str, event: &DragDropEvent) {
        match event {
            DragDropEvent::Enter { .. } => self.tell(label, FilesEvent::DragEnter),
            DragDropEvent::Leave => self.tell(label, FilesEvent::DragLeave),
            DragDropEvent::Drop { paths, .. } => self.tell(label, open_event(paths)),
            _ => {}
        }
    }
}

fn open_event(paths: &[PathBuf]) -> FilesEvent {
    FilesEvent::Open {
        paths: paths
            .iter()
            .map(|p| p.to_string_lossy().into_owned())
            .collect(),
    }
}

/// The windows' events that concern files: drags and drops, and a window gone.
pub fn window_event(window: &Window, event: &WindowEvent) {
    let Some(files) = window.app_handle().try_state::<Arc<DesktopFiles>>() else {
        return;
    };
    match event {
        WindowEvent::DragDrop(drag) => files.dragged(window.label(), drag),
        WindowEvent::Destroyed => files.forget(window.label()),
        _ => {}
    }
}

/// A later start's files (see `single_instance`): the window comes forward and opens them.
pub fn handed_over(app: &AppHandle, paths: Vec<PathBuf>) {
    crate::background::show_window(app);
    if let Some(files) = app.try_state::<Arc<DesktopFiles>>() {
        files.open(paths);
    }
}

/// A drop on the library window made by a test, through the desktop's own drop path from
/// there on (WebDriver cannot drag a file from outside the window): the files are dragged in,
/// held over the window for a moment (long enough to see the drop target), and dropped.
#[cfg(debug_assertions)]
pub fn dropped_by_test(app: &AppHandle, paths: Vec<PathBuf>) {
    let Some(files) = app.try_state::<Arc<DesktopFiles>>() else {
        return;
    };
    let position = tauri::PhysicalPosition::new(100.0, 100.0);
    let label = crate::main_window::LABEL;
    files.dragged(
        label,
        &DragDropEvent::Enter {
            paths: paths.clone(),
            position,
        },
    );
    std::thread::sleep(std::time::Duration::from_millis(1500));
    files.dragged(label, &DragDropEvent::Drop { paths, position });
}

#[cfg(test)]
mod tests {
    use super::*;
    use tauri::ipc::InvokeResponseBody;

    type Heard = Arc<Mutex<Vec<serde_json::Value>>>;

    /// A channel that records what it is sent, as the window would receive it.
    fn recording() -> (Channel<FilesEvent>, Heard) {
        let heard: Heard = Arc::default();
        let into = heard.clone();
        let channel = Channel::new(move |body| {
            if let InvokeResponseBody::Json(json) = body {
                into.lock()
                    .unwrap()
                    .push(serde_json::from_str(&json).unwrap());
            }
            Ok(())
        });
        (channel, heard)
    }

    #[test]
    fn files_named_before_a_window_listens_wait_for_it() {
        let files = DesktopFiles::default();
        files.hold(vec![PathBuf::from("/books/a.cbz")]);
        files.open(vec![PathBuf::from("/books/b.epub")]);
        let (channel, heard) = recording();
        files.listen("main", channel);
        assert_eq!(
            *heard.lock().unwrap(),
            vec![serde_json::json!({ "kind": "open", "paths": ["/books/a.cbz", "/books/b.epub"] })]
        );
        // Handed over once: a window listening again gets nothing more.
        let (again, heard_again) = recording();
        files.listen("main", again);
        assert!(heard_again.lock().unwrap().is_empty());
    }

    #[test]
    fn files_handed_over_go_to_the_library_window_first() {
        let files = DesktopFiles::default();
        let (extra, heard_extra) = recording();
        let (main, heard_main) = recording();
        files.listen("library-1", extra);
        files.listen(crate::main_window::LABEL, main);
        files.open(vec![PathBuf::from("/books/a.cbz")]);
        assert_eq!(heard_main.lock().unwrap().len(), 1);
        assert!(heard_extra.lock().unwrap().is_empty());
        // The library window gone, another window takes them.
        files.forget(crate::main_window::LABEL);
        files.open(vec![PathBuf::from("/books/b.cbz")]);
        assert_eq!(heard_extra.lock().unwrap().len(), 1);
    }

    #[test]
    fn a_drag_is_told_to_the_window_it_is_over_only() {
        let files = DesktopFiles::default();
        let (main, heard_main) = recording();
        let (extra, heard_extra) = recording();
        files.listen("main", main);
        files.listen("library-2", extra);
        let position = tauri::PhysicalPosition::new(1.0, 1.0);
        let paths = vec![PathBuf::from("/books/a b.cbz")];
        files.dragged(
            "library-2",
            &DragDropEvent::Enter {
                paths: paths.clone(),
                position,
            },
        );
        files.dragged("library-2", &DragDropEvent::Over { position });
        files.dragged("library-2", &DragDropEvent::Drop { paths, position });
        files.dragged("library-2", &DragDropEvent::Leave);
        assert!(heard_main.lock().unwrap().is_empty());
        assert_eq!(
            *heard_extra.lock().unwrap(),
            vec![
                serde_json::json!({ "kind": "drag_enter" }),
                serde_json::json!({ "kind": "open", "paths": ["/books/a b.cbz"] }),
                serde_json::json!({ "kind": "drag_leave" }),
            ]
        );
    }
}
