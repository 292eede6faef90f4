//! The library folders as the app keeps them: the core's [`FolderWatcher`] started with the
//! app (each folder scanned once, then again a second after its files change), the scans the
//! commands ask for, and every scan's progress sent to the windows' `watch_library_folders`
//! channels (Settings → Library folders shows "Scanning… 1,234 of 10,000").
//!
//! The scans run on the watcher's own thread, one at a time, so neither the window nor the
//! download executor waits for one; the progress is thinned in the core (a few reports a
//! second).

use std::sync::atomic::AtomicBool;
use std::sync::{Arc, Mutex};

use carrel_core::{
    catalog::library_folders::{self, FolderWatcher, ScanEvent, ScanProgress},
    foundation::store::Store,
};
use tauri::{ipc::Channel, AppHandle, Manager, Runtime};

/// Channels one window keeps; a page that reloads subscribes again, and its older channels
/// (which nothing listens to any more) go first.
const MAX_PER_WINDOW: usize = 4;

/// What the app manages: the watcher (while the data dir is open) and the windows listening.
pub struct LibraryFoldersWatch {
    watcher: Mutex<Option<FolderWatcher>>,
    listeners: Arc<Listeners>,
}

#[derive(Default)]
struct Listeners(Mutex<Vec<(String, Channel<ScanEvent>)>>);

impl ScanProgress for Listeners {
    fn report(&self, event: ScanEvent) {
        let Ok(mut listeners) = self.0.lock() else {
            return;
        };
        // A window gone (or one whose channel fails) is dropped.
        listeners.retain(|(_, channel)| channel.send(event.clone()).is_ok());
    }
}

/// Starts watching the library folders of `store` (when the data dir opened) and lets the app
/// manage the watch.
pub fn install<R: Runtime>(app: &AppHandle<R>, store: Option<Store>) {
    let listeners = Arc::new(Listeners::default());
    let watcher = store.and_then(|store| {
        FolderWatcher::start(store, listeners.clone())
            .inspect_err(|e| tracing::warn!(cause = %e, "the library folders are not watched"))
            .ok()
    });
    app.manage(LibraryFoldersWatch {
        watcher: Mutex::new(watcher),
        listeners,
    });
}

impl LibraryFoldersWatch {
    /// Sends every scan's progress to `channel` from now on.
    pub fn listen(&self, window: &str, channel: Channel<ScanEvent>) {
        if let Ok(mut listeners) = self.listeners.0.lock() {
            let mine = listeners.iter().filter(|(w, _)| w == window).count();
            if mine >= MAX_PER_WINDOW {
                if let Some(oldest) = listeners.iter().position(|(w, _)| w == window) {
                    listeners.remove(oldest);
                }
            }
            listeners.push((window.to_owned(), channel));
        }
    }

    /// A folder was added or removed: the watcher watches the folders as they are now.
    pub fn folders_changed(&self) {
        self.with_watcher(FolderWatcher::folders_changed);
    }

    /// Scans a folder now, on the watcher's thread (after the scan under way, if any); on a
    /// thread of its own when the folders could not be watched.
    pub fn rescan(&self, store: &Store, folder_id: i64) {
        let Ok(watcher) = self.watcher.lock() else {
            return;
        };
        if let Some(w) = watcher.as_ref() {
            w.rescan(folder_id);
            return;
        }
        let (store, listeners) = (store.clone(), self.listeners.clone());
        let started = std::thread::Builder::new()
            .name("library-folder-scan".into())
            .spawn(move || {
                let cancel = AtomicBool::new(false);
                if let Err(e) = library_folders::scan(&store, folder_id, listeners.as_ref(), &cancel) {
                    tracing::warn!(folder = folder_id, cause = %e, "a library folder was not scanned");
                }
            });
        if let Err(e) = started {
            tracing::warn!(cause = %e, "a library folder's scan could not start");
        }
    }

    /// Stops watching (a scan under way is cancelled, what it did kept): the app is ending.
    pub fn stop(&self) {
        let watcher = self.watcher.lock().ok().and_then(|mut w| w.take());
        drop(watcher);
    }

    fn with_watcher(&self, f: impl FnOnce(&FolderWatcher)) {
        if let Ok(watcher) = self.watcher.lock() {
            if let Some(w) = watcher.as_ref() {
                f(w);
            }
        }
    }
}
