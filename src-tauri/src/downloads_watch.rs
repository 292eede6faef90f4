//! The windows' live downloads page: `watch_downloads` channels get a fresh
//! [`DownloadsView`] at once, after every event of this process's executor (coalesced to at
//! most four a second) and at least once a second, so changes made by another Carrel process
//! show too. One background task sends to every channel; a channel whose window is gone (or
//! whose sending fails) is dropped.
//! (Removing the books no longer kept once a book completes is the executor's, in the core.)

use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use carrel_core::{
    engine::downloads_view::{self, DownloadsMonitor, DownloadsView, LiveProgress},
    engine::progress::{DownloadEvent, ProgressSink},
    foundation::store::Store,
};
use tauri::{ipc::Channel, AppHandle, Manager, Runtime};

/// The most views a second after executor events.
const MIN_GAP: Duration = Duration::from_millis(250);
/// The longest time without a view.
const TICK: Duration = Duration::from_secs(1);
/// Channels one window keeps; a page that reloads subscribes again, and its older channels
/// (which nothing listens to any more) go first.
const MAX_PER_WINDOW: usize = 4;

/// The shared state: managed by the app, fed by the executor.
pub struct DownloadsWatch {
    monitor: DownloadsMonitor,
    watchers: Mutex<Vec<Watcher>>,
    changed: tokio::sync::Notify,
}

struct Watcher {
    window: String,
    channel: Channel<DownloadsView>,
}

/// Creates the watch, lets the app manage it, starts its background task, and returns the
/// sink that feeds it.
/// `core` is the store and this process's executor holder id, when the data dir opened.
pub fn install<R: Runtime>(
    app: &AppHandle<R>,
    core: Option<(Store, String)>,
) -> Arc<dyn ProgressSink> {
    let watch = Arc::new(DownloadsWatch {
        monitor: DownloadsMonitor::new(),
        watchers: Mutex::new(Vec::new()),
        changed: tokio::sync::Notify::new(),
    });
    app.manage(watch.clone());
    if let Some((store, holder_id)) = core {
        tauri::async_runtime::spawn(run(app.clone(), watch.clone(), store, holder_id));
    }
    watch
}

impl ProgressSink for DownloadsWatch {
    fn report(&self, event: DownloadEvent) {
        self.monitor.observe(&event);
        self.changed.notify_one();
    }
}

impl DownloadsWatch {
    /// What this process's executor reported so far.
    pub fn live(&self) -> LiveProgress {
        self.monitor.snapshot()
    }

    /// Sends every channel a fresh view now (after at most the usual gap): something the page
    /// shows changed outside the executor's events, such as the pause switch.
    pub fn wake(&self) {
        self.changed.notify_one();
    }

    fn watchers(&self) -> std::sync::MutexGuard<'_, Vec<Watcher>> {
        self.watchers.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// Adds a channel of the window `window`.
    pub fn add(&self, window: &str, channel: Channel<DownloadsView>) {
        let mut watchers = self.watchers();
        let of_window = watchers.iter().filter(|w| w.window == window).count();
        if of_window >= MAX_PER_WINDOW {
            if let Some(oldest) = watchers.iter().position(|w| w.window == window) {
                watchers.remove(oldest);
            }
        }
        watchers.push(Watcher {
            window: window.to_owned(),
            channel,
        });
    }

    /// Sends `view` to every channel, dropping those of closed windows and failed sends.
    fn send<R: Runtime>(&self, app: &AppHandle<R>, view: &DownloadsView) {
        self.watchers().retain(|w| {
            let open = app.get_webview_window(&w.window).is_some();
            open && w.channel.send(view.clone()).is_ok()
        });
    }

    fn has_watchers(&self) -> bool {
        !self.watchers().is_empty()
    }
}

/// The one background task: views for the channels.
async fn run<R: Runtime>(
    app: AppHandle<R>,
    watch: Arc<DownloadsWatch>,
    store: Store,
    holder_id: String,
) {
    let mut last_sent = Instant::now() - MIN_GAP;
    loop {
        tokio::select! {
            _ = watch.changed.notified() => {}
            _ = tokio::time::sleep(TICK.saturating_sub(last_sent.elapsed())) => {}
        }
        let wait = MIN_GAP.saturating_sub(last_sent.elapsed());
        if !wait.is_zero() {
            tokio::time::sleep(wait).await;
        }
        last_sent = Instant::now();
        if !watch.has_watchers() {
            continue;
        }
        let live = watch.live();
        let (s, holder) = (store.clone(), holder_id.clone());
        let view = tauri::async_runtime::spawn_blocking(move || {
            downloads_view::view(&s, &live, Some(&holder))
        })
        .await;
        match view {
            Ok(Ok(view)) => watch.send(&app, &view),
            Ok(Err(e)) => tracing::warn!(cause = %e, "cannot read the downloads"),
            Err(e) => tracing::warn!(cause = %e, "cannot read the downloads"),
        }
    }
}
