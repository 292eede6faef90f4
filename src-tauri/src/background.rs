//! Downloads that outlive the windows. When the reader closes the last window while this
//! app has books to download, the app stays on in the background with a tray icon: its menu
//! says what is downloading (the tooltip too, where the desktop shows tooltips) and offers
//! Open Carrel, Pause/Resume downloads and Quit. When the stack is empty the app ends by itself,
//! unless the reader chose to keep it running ([`KeepRunning`]) — and not while a notification
//! of its offers Read ("Ready to read offline"), whose button needs the app: until the
//! notification server says it closed, for [`READ_KEEPS_ON`] at most ([`ReadOffers`]). Opening
//! a window (from the tray, by starting Carrel again, or a notification's Read) ends the
//! background mode and takes the tray icon away.
//!
//! Where the desktop shows no tray icon (nobody owns the StatusNotifierItem watcher's name on
//! the session bus), a notification says that downloads go on in the background and how to
//! come back, with an Open Carrel button; it goes once nothing is left or a window opens.
//!
//! Only a window the reader closed counts: a window destroyed by the program (or by a test
//! driver) ends the app as before. Quitting with work left says so in a notification
//! ("Downloads paused until Carrel runs again"); the work stays queued in the data dir and
//! the next Carrel (or `carrel-cli sync`) takes it.

use std::collections::HashSet;
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::{Duration, Instant};

use carrel_core::{
    engine::downloads_view::{self, DownloadsView, ExecutorStatus},
    engine::executor,
    engine::progress::ExecutorState,
    foundation::store::{Store, StoreError},
    library::settings::{self, KeepRunning, NotificationsEnabled},
};
use tauri::{
    menu::{Menu, MenuEvent, MenuItem, PredefinedMenuItem},
    tray::{TrayIcon, TrayIconBuilder},
    AppHandle, Manager, WindowEvent,
};

use crate::app_state::AppState;
use crate::messages::{self, arg};
use crate::notifications::{self, DesktopNotifier, Notifier, ReadOffers};

/// The tray icon's id.
pub const TRAY_ID: &str = "carrel-background";
/// How often the background app looks at the downloads.
const LOOK_EVERY: Duration = Duration::from_secs(1);
/// Failed looks in a row after which the app ends anyway (the data dir is unreadable).
const MAX_FAILED_LOOKS: u32 = 30;
/// The longest a notification offering Read keeps the app on with nothing to download
/// (servers that keep notifications in a list may never say they closed).
const READ_KEEPS_ON: Duration = Duration::from_secs(10 * 60);
/// The name a desktop's tray (the StatusNotifierItem host) owns on the session bus.
const TRAY_WATCHER: &str = "org.kde.StatusNotifierWatcher";
/// What a quit with work left says.

const MENU_STATUS: &str = "status";
const MENU_OPEN: &str = "open";
const MENU_PAUSE: &str = "pause";
const MENU_QUIT: &str = "quit";

/// What to do when the last window has gone.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Closing {
    /// End the app.
    End,
    /// Stay on: the background mode already runs.
    Stay,
    /// Stay on and start the background mode ([`run`]).
    StayAndWatch,
}

/// What the app tracks about its windows and the background mode; managed by the app.
#[derive(Default)]
pub struct Background {
    inner: Mutex<Inner>,
}

#[derive(Default)]
struct Inner {
    /// Windows whose closing the reader asked for (and which are still being destroyed).
    closing_by_reader: HashSet<String>,
    /// Whether the window destroyed last was one the reader closed.
    last_closed_by_reader: bool,
    /// The app is on without a window.
    active: bool,
    /// The reader asked to quit: nothing keeps the app on any more.
    quitting: bool,
    /// Counts the times the background mode started; a look loop of an earlier time stops.
    generation: u64,
    tray: Option<Tray>,
}

#[derive(Clone)]
struct Tray {
    icon: TrayIcon<tauri::Wry>,
    status: MenuItem<tauri::Wry>,
    pause: MenuItem<tauri::Wry>,
}

/// What the app has left to download, as the tray shows it. `None` when this app has nothing
/// to do (nothing queued, or another process holds the downloads).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct WorkLeft {
    pub books: usize,
    pub paused: bool,
    /// One line for the tray's menu and tooltip.
    pub line: String,
}

/// What is left for this app to download, from its downloads page.
pub fn work_left(view: &DownloadsView) -> Option<WorkLeft> {
    let ours = view.executor.this_process || view.executor.holder.is_none();
    let mut books: Vec<i64> = view.active.iter().map(|a| a.book_id).collect();
    for queued in &view.queue {
        if !books.contains(&queued.book_id) {
            books.push(queued.book_id);
        }
    }
    if !ours || books.is_empty() {
        return None;
    }
    let n = books.len();
    let said = messages::current();
    let waiting = || said.format("tray-books-waiting", &[("count", n.into())]);
    let line = if view.paused {
        said.format("tray-paused", &[("waiting", arg(waiting()))])
    } else if let Some(why) = &view.network_hold {
        said.format(
            "tray-network-hold",
            &[("why", arg(why.as_str())), ("waiting", arg(waiting()))],
        )
    } else if let ExecutorStatus::Backoff { .. } = view.executor.status {
        said.format("tray-backoff", &[("waiting", arg(waiting()))])
    } else if let Some(active) = &view.active {
        let progress = &active.status.progress;
        let title = arg(active.title.as_str());
        let line = match progress.total_parts {
            0 | 1 => said.format("tray-downloading", &[("title", title)]),
            total => said.format(
                "tray-downloading-parts",
                &[
                    ("title", title),
                    ("stored", progress.stored_parts.into()),
                    ("total", total.into()),
                ],
            ),
        };
        match n - 1 {
            0 => line,
            more => said.format(
                "tray-and-more",
                &[("line", arg(line)), ("count", more.into())],
            ),
        }
    } else {
        waiting()
    };
    Some(WorkLeft {
        books: n,
        paused: view.paused,
        line,
    })
}

impl Background {
    fn lock(&self) -> MutexGuard<'_, Inner> {
        self.inner.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// Follows the windows' closing: call for every window event of the app.
    pub fn window_event(&self, label: &str, event: &WindowEvent) {
        match event {
            WindowEvent::CloseRequested { .. } => self.close_requested(label),
            WindowEvent::Destroyed => self.destroyed(label),
            _ => {}
        }
    }

    /// The reader asked to close the window `label` (its close button, the window manager,
    /// Ctrl+W).
    fn close_requested(&self, label: &str) {
        self.lock().closing_by_reader.insert(label.to_owned());
    }

    /// The window `label` is gone.
    fn destroyed(&self, label: &str) {
        let mut inner = self.lock();
        inner.last_closed_by_reader = inner.closing_by_reader.remove(label);
    }

    /// Whether the app is on without a window.
    pub fn is_active(&self) -> bool {
        self.lock().active
    }

    /// Whether the look loop of background mode `generation` is still the one to run.
    fn is_current(&self, generation: u64) -> bool {
        let inner = self.lock();
        inner.active && !inner.quitting && inner.generation == generation
    }

    /// A window is open again: the background mode ends; returns the tray to take away.
    fn window_opened(&self) -> Option<Tray> {
        let mut inner = self.lock();
        inner.active = false;
        inner.last_closed_by_reader = false;
        inner.closing_by_reader.clear();
        inner.tray.take()
    }

    /// Ends the app if background mode `generation` is still on (checked and marked under one
    /// lock, so a window asked for meanwhile wins).
    fn end_if_current(&self, generation: u64) -> bool {
        let mut inner = self.lock();
        if inner.active && !inner.quitting && inner.generation == generation {
            inner.quitting = true;
            true
        } else {
            false
        }
    }

    /// The app is about to end because its last window went away: whether it stays on. It
    /// stays when the reader closed that window (and did not quit); [`run`] then looks at the
    /// downloads and ends the app at once when nothing is left.
    pub fn last_window_closed(&self) -> Closing {
        let mut inner = self.lock();
        if inner.quitting {
            Closing::End
        } else if inner.active {
            Closing::Stay
        } else if inner.last_closed_by_reader {
            inner.active = true;
            inner.generation += 1;
            Closing::StayAndWatch
        } else {
            Closing::End
        }
    }
}

/// Runs the background mode until a window opens or the app ends: looks at the downloads
/// every second, shows them in the tray, and ends the app once nothing is left (unless the
/// reader keeps it running, or a notification offering Read is still up).
pub fn run(app: AppHandle) {
    tauri::async_runtime::spawn(async move {
        let background = app.state::<Arc<Background>>().inner().clone();
        let Some(store) = app.state::<AppState>().store().cloned() else {
            app.exit(0);
            return;
        };
        let generation = background.lock().generation;
        let mut failures = 0u32;
        let mut notice = InBackgroundNotice::new(&app);
        let mut looked_for_tray = false;
        loop {
            if !background.is_current(generation) {
                return;
            }
            let look = match look(&app, &store).await {
                Ok(look) => {
                    failures = 0;
                    look
                }
                Err(cause) => {
                    // A busy database or a passing error is not "nothing left": look again.
                    failures += 1;
                    tracing::warn!(%cause, failures, "cannot read the downloads");
                    if failures < MAX_FAILED_LOOKS {
                        tokio::time::sleep(LOOK_EVERY).await;
                        continue;
                    }
                    Look::default()
                }
            };
            let windows_open = !app.webview_windows().is_empty();
            if windows_open {
                // A window opened by another way (a notification's Read): not background any more.
                if let Some(tray) = background.window_opened() {
                    drop_on_main_thread(&app, tray);
                }
                return;
            }
            if look.work.is_none() {
                notice.take_down();
            }
            // Given up on the data dir: no book could be opened from it either.
            let read_offered = failures < MAX_FAILED_LOOKS
                && app
                    .try_state::<Arc<ReadOffers>>()
                    .is_some_and(|offers| offers.any(Instant::now(), READ_KEEPS_ON));
            if look.ends_app(read_offered) {
                if background.end_if_current(generation) {
                    tracing::info!("nothing left to download; Carrel ends");
                    app.exit(0);
                }
                return;
            }
            if !looked_for_tray && look.work.is_some() && look.notifications {
                looked_for_tray = true;
                let host = tauri::async_runtime::spawn_blocking(tray_host).await;
                if matches!(host, Ok(Some(false))) {
                    notice.put_up();
                }
            }
            show_in_tray(&app, &background, generation, look.work.as_ref());
            tokio::time::sleep(LOOK_EVERY).await;
        }
    });
}

/// What one look at the downloads found: this app's work left, and the settings that say
/// what to do about it.
#[derive(Debug, Default)]
struct Look {
    work: Option<WorkLeft>,
    keep_running: bool,
    notifications: bool,
    /// Whether this app's executor was in the middle of a task after the store was read: it
    /// says so until it has reported every book it stored, so a book the store no longer
    /// lists may not be notified yet.
    executor_busy: bool,
}

impl Look {
    /// Whether the background app ends: nothing left for it to download, not kept running,
    /// its executor not in the middle of a task, and no notification of it offering Read
    /// (`read_offered`), whose button needs the app to open the book.
    fn ends_app(&self, read_offered: bool) -> bool {
        self.work.is_none() && !self.keep_running && !self.executor_busy && !read_offered
    }
}

/// Reads this app's downloads page and the settings in one call on the store's blocking pool;
/// the error says why they could not be read (a busy database, a passing error).
async fn look(app: &AppHandle, store: &Store) -> Result<Look, String> {
    let holder = app
        .state::<AppState>()
        .core()
        .map(|c| c.holder_id.clone())
        .ok();
    let watch = app
        .state::<Arc<crate::downloads_watch::DownloadsWatch>>()
        .inner()
        .clone();
    let live = watch.live();
    let mut look = store
        .call(move |s| -> Result<Look, String> {
            let view =
                downloads_view::view(s, &live, holder.as_deref()).map_err(|e| e.to_string())?;
            let setting = |e: StoreError| e.to_string();
            Ok(Look {
                work: work_left(&view),
                keep_running: settings::get::<KeepRunning>(s)
                    .map_err(setting)?
                    .unwrap_or_default()
                    .0,
                notifications: settings::get::<NotificationsEnabled>(s)
                    .map_err(setting)?
                    .unwrap_or_default()
                    .0,
                executor_busy: false,
            })
        })
        .await?;
    // The executor reports a book stored before it says it is idle, and the notifications hear
    // of it before the watch does.
    look.executor_busy = matches!(watch.live().state, Some(ExecutorState::Running));
    Ok(look)
}

/// Whether the desktop shows tray icons: someone owns the tray's name on the session bus.
/// `None` when the bus cannot be asked.
fn tray_host() -> Option<bool> {
    let bus = dbus::blocking::Connection::new_session().ok()?;
    let (owned,): (bool,) = bus
        .with_proxy(
            "org.freedesktop.DBus",
            "/org/freedesktop/DBus",
            Duration::from_secs(2),
        )
        .method_call("org.freedesktop.DBus", "NameHasOwner", (TRAY_WATCHER,))
        .ok()?;
    Some(owned)
}

/// The notice that the app goes on in the background, for desktops with no tray to show its
/// icon: how to come back, with an Open Carrel button. Up while the look loop that put it up
/// runs and finds something to download; taken down when dropped.
struct InBackgroundNotice {
    notifier: Option<Arc<DesktopNotifier>>,
    up: bool,
}

impl InBackgroundNotice {
    fn new(app: &AppHandle) -> InBackgroundNotice {
        InBackgroundNotice {
            notifier: app
                .try_state::<Arc<DesktopNotifier>>()
                .map(|n| n.inner().clone()),
            up: false,
        }
    }

    fn put_up(&mut self) {
        if let Some(notifier) = &self.notifier {
            tracing::info!("no tray shows Carrel's icon; a notification says how to come back");
            notifier.show(
                notifications::IN_BACKGROUND_KEY,
                notifications::in_background_note(),
            );
            self.up = true;
        }
    }

    fn take_down(&mut self) {
        if let (true, Some(notifier)) = (self.up, &self.notifier) {
            notifier.close(notifications::IN_BACKGROUND_KEY);
        }
        self.up = false;
    }
}

impl Drop for InBackgroundNotice {
    fn drop(&mut self) {
        self.take_down();
    }
}

/// Drops the tray icon where GTK wants it dropped.
fn drop_on_main_thread(app: &AppHandle, tray: Tray) {
    let handle = app.clone();
    let _ = app.run_on_main_thread(move || {
        drop(tray);
        handle.remove_tray_by_id(TRAY_ID);
    });
}

/// Puts the tray icon up (once) and shows `work` in it. Tauri's tray and menu calls wait for
/// the main thread, so none is made while the lock is held.
fn show_in_tray(
    app: &AppHandle,
    background: &Background,
    generation: u64,
    work: Option<&WorkLeft>,
) {
    let line = work
        .map(|w| w.line.clone())
        .unwrap_or_else(|| messages::text("tray-nothing"));
    let paused = work.is_some_and(|w| w.paused);
    let existing = background.lock().tray.clone();
    let tray = match existing {
        Some(tray) => tray,
        None => {
            let made = match make_tray(app) {
                Ok(tray) => tray,
                Err(e) => {
                    tracing::warn!(cause = %e, "cannot show Carrel's tray icon");
                    return;
                }
            };
            let mut inner = background.lock();
            if !(inner.active && !inner.quitting && inner.generation == generation) {
                drop(inner);
                drop_on_main_thread(app, made);
                return;
            }
            inner.tray = Some(made.clone());
            made
        }
    };
    let _ = tray.status.set_text(&line);
    let _ = tray.icon.set_tooltip(Some(messages::text_with(
        "tray-tooltip",
        &[("line", arg(line))],
    )));
    let _ = tray.pause.set_text(messages::text(if paused {
        "tray-resume"
    } else {
        "tray-pause"
    }));
    let _ = tray.pause.set_enabled(work.is_some());
}

/// One line of the tray's menu, without a keyboard shortcut.
fn menu_item(
    app: &AppHandle,
    id: &str,
    text: impl AsRef<str>,
    enabled: bool,
) -> tauri::Result<MenuItem<tauri::Wry>> {
    MenuItem::with_id(app, id, text, enabled, None::<&str>)
}

fn make_tray(app: &AppHandle) -> tauri::Result<Tray> {
    // The status line is only read, never clicked.
    let status = menu_item(app, MENU_STATUS, "Looking at the downloads…", false)?;
    let open = menu_item(app, MENU_OPEN, messages::text("tray-open"), true)?;
    let pause = menu_item(app, MENU_PAUSE, messages::text("tray-pause"), true)?;
    let quit = menu_item(app, MENU_QUIT, messages::text("tray-quit"), true)?;
    let menu = Menu::with_items(
        app,
        &[
            &status,
            &PredefinedMenuItem::separator(app)?,
            &open,
            &pause,
            &PredefinedMenuItem::separator(app)?,
            &quit,
        ],
    )?;
    let mut builder = TrayIconBuilder::with_id(TRAY_ID)
        .menu(&menu)
        .tooltip("Carrel")
        .on_menu_event(on_menu);
    if let Some(icon) = app.default_window_icon() {
        builder = builder.icon(icon.clone());
    }
    // The icon is written to a file for the desktop's tray: keep it in the app's runtime
    // folder, not in a shared temporary one.
    if let Ok(dir) = app.path().app_cache_dir() {
        builder = builder.temp_dir_path(dir.join("tray"));
    }
    let icon = builder.build(app)?;
    Ok(Tray {
        icon,
        status,
        pause,
    })
}

fn on_menu(app: &AppHandle, event: MenuEvent) {
    let app = app.clone();
    match event.id().as_ref() {
        MENU_OPEN => show_window(&app),
        MENU_PAUSE => toggle_pause(&app),
        MENU_QUIT => quit(&app),
        _ => {}
    }
}

fn toggle_pause(app: &AppHandle) {
    let Some(store) = app.state::<AppState>().store().cloned() else {
        return;
    };
    tauri::async_runtime::spawn(async move {
        let s = store.clone();
        let toggled = store
            .call(move |_| {
                let paused = executor::is_paused(&s)?;
                executor::set_paused(&s, !paused)
            })
            .await;
        if let Err(e) = toggled {
            tracing::warn!(cause = %e, "cannot pause or resume the downloads");
        }
    });
}

/// Brings a window forward: the library window if one is open, else a new one. Ends the
/// background mode.
pub fn show_window(app: &AppHandle) {
    let app = app.clone();
    let on_main = app.clone();
    let _ = on_main.run_on_main_thread(move || {
        let background = app.state::<Arc<Background>>().inner().clone();
        if background.lock().quitting {
            return;
        }
        if let Some(tray) = background.window_opened() {
            drop(tray);
        }
        app.remove_tray_by_id(TRAY_ID);
        let existing = app
            .webview_windows()
            .into_iter()
            .find(|(label, _)| label == crate::main_window::LABEL)
            .map(|(_, w)| w)
            .or_else(|| app.webview_windows().into_values().next());
        match existing {
            Some(window) => {
                let _ = window.unminimize();
                let _ = window.show();
                let _ = window.set_focus();
            }
            None => {
                let store = app.state::<AppState>().store().cloned();
                if let Err(e) = crate::main_window::open(&app, store.as_ref()) {
                    tracing::error!(cause = %e, "cannot open Carrel's window");
                }
            }
        }
    });
}

/// A window was opened by other means (a notification's Read): the background mode ends.
pub fn window_opened_elsewhere(app: &AppHandle) {
    if let Some(background) = app.try_state::<Arc<Background>>() {
        if let Some(tray) = background.window_opened() {
            drop_on_main_thread(app, tray);
        }
    }
}

/// Quits: says so when downloads are left, then ends the app.
pub fn quit(app: &AppHandle) {
    let background = app.state::<Arc<Background>>().inner().clone();
    background.lock().quitting = true;
    let app = app.clone();
    tauri::async_runtime::spawn(async move {
        let store = app.state::<AppState>().store().cloned();
        if let Some(store) = store {
            let told = look(&app, &store)
                .await
                .is_ok_and(|look| look.work.is_some() && look.notifications);
            if told {
                let _ = tauri::async_runtime::spawn_blocking(say_paused_until_next_run).await;
            }
        }
        app.exit(0);
    });
}

/// Shows the quit notice and returns once the notification server has it (the app ends
/// right after).
fn say_paused_until_next_run() {
    let shown = notify_rust::Notification::new()
        .appname(crate::notifications::APP_NAME)
        .summary(crate::notifications::APP_NAME)
        .body(&crate::messages::text("notify-paused-until-next-run"))
        .icon("carrel")
        .show();
    if let Err(e) = shown {
        tracing::info!(cause = %e, "could not say that the downloads wait for the next run");
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use carrel_core::engine::book_downloads::{BookState, BookStatus};
    use carrel_core::engine::download_stack::TaskKind;
    use carrel_core::engine::downloads_view::{ActiveDownload, ExecutorView, QueuedBook};
    use carrel_core::engine::progress::BookProgress;

    fn status(book_id: i64, stored: u64, total: u64) -> BookStatus {
        BookStatus {
            state: BookState::Queued,
            progress: BookProgress {
                book_id,
                title: format!("Book {book_id}"),
                stored_parts: stored,
                total_parts: total,
                bytes: 0,
            },
        }
    }

    fn view(holder: Option<bool>, active: Option<i64>, queued: &[i64]) -> DownloadsView {
        DownloadsView {
            paused: false,
            executor: ExecutorView {
                holder: holder.map(|_| "carrel:1:x".to_owned()),
                this_process: holder == Some(true),
                status: ExecutorStatus::Running,
            },
            active: active.map(|book_id| ActiveDownload {
                book_id,
                title: format!("Book {book_id}"),
                kind: TaskKind::Page,
                position: 3,
                bytes: 0,
                total: None,
                rate_bytes_per_s: None,
                status: status(book_id, 3, 40),
                eta_s: None,
            }),
            queue: queued
                .iter()
                .map(|&book_id| QueuedBook {
                    book_id,
                    title: format!("Book {book_id}"),
                    status: status(book_id, 0, 10),
                    prioritary: false,
                    eta_s: None,
                })
                .collect(),
            failed: Vec::new(),
            done: Vec::new(),
            library_revision: String::new(),
            stored_lately: Vec::new(),
            network_hold: None,
            metered_downloads: Default::default(),
        }
    }

    #[test]
    fn nothing_queued_is_no_work() {
        assert_eq!(work_left(&view(Some(true), None, &[])), None);
    }

    #[test]
    fn work_another_process_downloads_is_not_this_apps() {
        assert_eq!(work_left(&view(Some(false), Some(1), &[2])), None);
    }

    #[test]
    fn the_book_in_flight_and_those_waiting_are_counted_once() {
        let work = work_left(&view(Some(true), Some(1), &[1, 2, 3])).unwrap();
        assert_eq!(work.books, 3);
        assert_eq!(work.line, "Downloading “Book 1” — 3 of 40 · 2 more books");
        assert!(!work.paused);
    }

    #[test]
    fn work_with_no_downloader_yet_is_this_apps() {
        let work = work_left(&view(None, None, &[7])).unwrap();
        assert_eq!(work.line, "1 book waiting");
    }

    #[test]
    fn paused_network_held_and_backoff_say_why() {
        let mut v = view(Some(true), Some(1), &[2]);
        v.paused = true;
        let work = work_left(&v).unwrap();
        assert!(work.paused);
        assert_eq!(work.line, "Downloads paused — 2 books waiting");
        v.paused = false;
        v.network_hold = Some("metered connection".into());
        assert_eq!(
            work_left(&v).unwrap().line,
            "Waiting for the network (metered connection) — 2 books waiting"
        );
        v.network_hold = None;
        v.executor.status = ExecutorStatus::Backoff {
            reason: "connection refused".into(),
            retry_at_ms: 0,
        };
        assert_eq!(
            work_left(&v).unwrap().line,
            "Server unreachable, retrying — 2 books waiting"
        );
    }

    #[test]
    fn the_app_ends_only_when_nothing_at_all_keeps_it_on() {
        let nothing = Look::default();
        assert!(nothing.ends_app(false));
        // A "Ready to read offline" notification with its Read button is still up.
        assert!(!nothing.ends_app(true));
        let work = Look {
            work: work_left(&view(Some(true), None, &[7])),
            ..Look::default()
        };
        assert!(!work.ends_app(false));
        let kept = Look {
            keep_running: true,
            ..Look::default()
        };
        assert!(!kept.ends_app(false));
        // The store lists nothing, but the executor has not yet said it is idle: the book it
        // just stored may not be notified yet.
        let busy = Look {
            executor_busy: true,
            ..Look::default()
        };
        assert!(!busy.ends_app(false));
        // The notifications setting has no say in it.
        let notifying = Look {
            notifications: true,
            ..Look::default()
        };
        assert!(notifying.ends_app(false));
    }

    #[test]
    fn only_a_last_window_the_reader_closed_keeps_the_app_on() {
        let b = Background::default();
        // Destroyed without being asked (the program, a test driver): the app ends.
        b.destroyed("main");
        assert_eq!(b.last_window_closed(), Closing::End);
        // Another window closed by the reader before does not count for the last one.
        b.close_requested("library-1");
        b.destroyed("library-1");
        b.destroyed("main");
        assert_eq!(b.last_window_closed(), Closing::End);
        // Closed by the reader: it stays on, once.
        b.close_requested("main");
        b.destroyed("main");
        assert_eq!(b.last_window_closed(), Closing::StayAndWatch);
        assert!(b.is_active());
        assert_eq!(b.last_window_closed(), Closing::Stay);
        // Quitting: nothing keeps it.
        b.lock().quitting = true;
        assert_eq!(b.last_window_closed(), Closing::End);
    }
}
