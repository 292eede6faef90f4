//! Carrel's Tauri shell: the windows, the commands the web UI calls, and the glue between them
//! and `carrel-core`. Everything that is not a window lives in the core; commands here take
//! state, call one core function and map its error.
//!
//! # Layout
//! - [`app_state`]: opening the core for this data dir at start-up, keeping the start-up error
//!   (if any) for the UI to show.
//! - [`background`]: downloads that outlive the windows — the app left on with a tray icon
//!   after the reader closes the last window, until the downloads are done and no notification
//!   of its offers Read.
//! - [`book_protocol`]: the `carrel-book://localhost/<book id>` protocol that serves a stored
//!   EPUB to the EPUB reader by id, fetching it first when it is not on the device.
//! - [`commands`]: the `#[tauri::command]`s, named verb_noun as in the UI, and their
//!   `{ kind, message }` error.
//! - [`contract`]: the window contract — every command with its arguments and result, and the
//!   TypeScript of the types that cross the IPC, generated into `ui/src/lib/contract/`.
//! - [`cover_protocol`]: the `carrel-cover://localhost/<book id>` protocol that serves covers
//!   to `<img>` elements by book id.
//! - [`downloads`]: the app's download executor, started with the app and stopped (lease
//!   released) when it quits.
//! - [`downloads_watch`]: the live downloads page sent to the windows' `watch_downloads`
//!   channels, and removing books no longer kept when a book completes.
//! - [`http_client`]: the HTTP client shared by catalog pages and covers.
//! - [`library_folders_watch`]: the library folders watched while the app runs, and their
//!   scans' progress sent to the windows.
//! - [`local_files`]: the reader's own files handed over by the desktop — dropped on a window,
//!   named on the command line or by a later start — waiting for a window to open them.
//! - [`main_window`]: creating the library window and remembering its size and position.
//! - [`page_protocol`]: the `carrel-page://localhost/<book id>/<page>` protocol that serves a
//!   book's pages to the reader by id and index, fetching a missing page first.
//! - [`protocol_errors`]: one status and body for every failure of the three protocols (the
//!   body is the command error the failure would be, so the window checks its kind).
//! - [`protocol_replies`]: what the three protocols share: one handler (`handle`, for any
//!   [`protocol_replies::GetProtocol`]), id parsing and their replies.
//! - [`single_instance`]: one app per data dir; starting Carrel again shows the running one.
//! - [`webview_rendering`]: compositing off on machines without a GPU, chosen before
//!   GTK starts.
//! - [`allocator`]: large blocks (pages on their way to a window) given back to the system when
//!   freed.
//! - [`webview_memory`]: WebKit keeps little of what the window no longer uses (the readers
//!   keep their own, within a bound).
//! - [`notifications`]: desktop notifications about downloads (progress per book, ready to
//!   read offline, paused while the server is away), with actions where the notification
//!   server shows them.
//! - [`notification_actions`]: what those actions do — pause the downloads, cancel a book's,
//!   open a book to read in a window of its own, bring the window back.

pub mod allocator;
pub mod app_state;
pub mod autostart;
pub mod background;
pub mod book_protocol;
pub mod command_error;
pub mod commands;
pub mod contract;
pub mod cover_protocol;
pub mod downloads;
pub mod downloads_watch;
pub mod http_client;
pub mod library_folders_watch;
pub mod local_files;
pub mod main_window;
pub mod messages;
pub mod notification_actions;
pub mod notifications;
pub mod page_protocol;
pub mod protocol_errors;
pub mod protocol_replies;
#[cfg(test)]
mod protocol_requests_tests;
pub mod single_instance;
pub mod system_fonts;
pub mod webview_memory;
pub mod webview_rendering;

use std::sync::{Arc, Mutex};

use carrel_core::engine::progress::{FanOut, ProgressSink};

use tauri::{Manager, RunEvent};

/// Builds and runs the app. Blocks until the app ends: when its last window closes with
/// nothing left to download, or the reader quits.
pub fn run() {
    allocator::give_memory_back();
    install_logging();
    let context = tauri::generate_context!("../tauri.conf.json");
    let request = launch_request();
    let first = match claim_data_dir(&context.config().identifier, &request) {
        Some(single_instance::Start::Forwarded) => {
            if matches!(request, single_instance::Request::Show) {
                eprintln!("carrel: Carrel is already running; its window was brought forward");
            } else {
                eprintln!("carrel: Carrel is already running; it opens the files");
            }
            return;
        }
        Some(single_instance::Start::First(primary)) => Some(primary),
        Some(single_instance::Start::Alone(why)) => {
            tracing::warn!(%why, "starting without checking for a running Carrel");
            None
        }
        None => None,
    };
    webview_rendering::choose();
    // The system's language until the settings are read (see `app_state`).
    messages::choose(messages::language_for(None));
    let background = Arc::new(background::Background::default());
    let windows = background.clone();
    let result = tauri::Builder::default()
        .plugin(tauri_plugin_dialog::init())
        .on_window_event(move |window, event| {
            local_files::window_event(window, event);
            windows.window_event(window.label(), event)
        })
        .invoke_handler(tauri::generate_handler![
            commands::app_status,
            commands::dismiss_credentials_notice,
            commands::list_servers,
            commands::add_server,
            commands::remove_server,
            commands::update_server,
            commands::resume_server,
            commands::browse_catalog,
            commands::search_catalog,
            commands::search_on_device,
            commands::search_everywhere,
            commands::keep_feed_offline,
            commands::keep_search_offline,
            commands::list_batches,
            commands::pause_batch,
            commands::resume_batch,
            commands::move_batch_to_top,
            commands::cancel_batch,
            commands::open_comic,
            commands::record_pdf_pages,
            commands::discover_server,
            commands::kosync_account,
            commands::kosync_sign_in,
            commands::kosync_sign_out,
            commands::open_in_another_app,
            commands::book_details,
            commands::store_book,
            commands::open_book,
            commands::save_position,
            commands::take_server_position,
            commands::save_epub_position,
            commands::epub_position,
            commands::list_annotations,
            commands::add_annotation,
            commands::update_annotation,
            commands::delete_annotation,
            commands::export_annotations,
            commands::series_of_book,
            commands::keep_series,
            commands::stop_keeping_series,
            commands::series_neighbours,
            commands::mark_book_read,
            commands::mark_series_read,
            commands::server_series_default,
            commands::set_server_series_default,
            commands::allow_metered_downloads,
            commands::system_fonts,
            commands::start_at_login,
            commands::set_start_at_login,
            commands::library_folders,
            commands::add_library_folder,
            commands::remove_library_folder,
            commands::rescan_library_folder,
            commands::watch_library_folders,
            commands::remove_book,
            commands::retry_book,
            commands::list_on_device,
            commands::list_continue_reading,
            commands::list_downloads,
            commands::watch_downloads,
            commands::pause_downloads,
            commands::resume_downloads,
            commands::clear_done_downloads,
            commands::move_book_to_top,
            commands::cancel_book,
            commands::get_settings,
            commands::set_settings,
            commands::storage_usage,
            commands::books_removed_if_kept,
            commands::open_window,
            commands::close_window,
            commands::quit_app,
            commands::watch_desktop_files,
            commands::import_files,
        ])
        .register_asynchronous_uri_scheme_protocol(
            cover_protocol::SCHEME,
            protocol_replies::handle::<cover_protocol::CoverProtocol, _>,
        )
        .register_asynchronous_uri_scheme_protocol(
            page_protocol::SCHEME,
            protocol_replies::handle::<page_protocol::PageProtocol, _>,
        )
        .register_asynchronous_uri_scheme_protocol(
            book_protocol::SCHEME,
            protocol_replies::handle::<book_protocol::BookProtocol, _>,
        )
        .setup(move |app| {
            app.manage(background);
            let files = Arc::new(local_files::DesktopFiles::default());
            files.hold(request.into_paths());
            app.manage(files);
            if let Some(primary) = first {
                let (requests, asked) = std::sync::mpsc::channel();
                primary.serve(requests);
                let handle = app.handle().clone();
                std::thread::Builder::new()
                    .name("show-window".into())
                    .spawn(move || {
                        while let Ok(request) = asked.recv() {
                            match request {
                                single_instance::Request::Show => background::show_window(&handle),
                                single_instance::Request::Open(paths) => {
                                    local_files::handed_over(&handle, paths)
                                }
                                #[cfg(debug_assertions)]
                                single_instance::Request::Drop(paths) => {
                                    local_files::dropped_by_test(&handle, paths)
                                }
                            }
                        }
                    })?;
            }
            let identifier = app.config().identifier.clone();
            let state = app_state::AppState::open(&identifier);
            let desktop = Arc::new(notifications::DesktopNotifier::start());
            // The background app stays on while a notification offers Read, and says where it
            // went when the desktop shows no tray icon.
            app.manage(desktop.read_offers());
            app.manage(desktop.clone());
            let notes = Arc::new(notifications::DownloadNotifications::new(
                desktop,
                state.store().cloned(),
            ));
            let actions_app = app.handle().clone();
            notes.offer_actions(move |action| notification_actions::invoke(&actions_app, action));
            let sinks: Vec<Arc<dyn ProgressSink>> = vec![
                Arc::new(downloads::LogSink),
                // Before the watch: once the watch hears the executor is idle, every book it
                // stored has been notified (the background app ends on that).
                notes,
                // Each further consumer of download events adds its sink here.
                downloads_watch::install(
                    app.handle(),
                    state
                        .core()
                        .ok()
                        .map(|c| (c.store.clone(), c.holder_id.clone())),
                ),
            ];
            let sink: Arc<dyn ProgressSink> = Arc::new(FanOut(sinks));
            let downloads = state
                .core()
                .ok()
                .and_then(|core| downloads::DownloadService::start(core, sink));
            let store = state.store().cloned();
            library_folders_watch::install(app.handle(), store.clone());
            app.manage(state);
            app.manage(Running(Mutex::new(downloads)));
            main_window::open(app.handle(), store.as_ref())?;
            Ok(())
        })
        .build(context);
    let app = match result {
        Ok(app) => app,
        Err(error) => {
            eprintln!("carrel: could not start: {error}");
            std::process::exit(1);
        }
    };
    app.run(|handle, event| {
        if let RunEvent::ExitRequested {
            code: None, api, ..
        } = &event
        {
            let background = handle.state::<Arc<background::Background>>();
            match background.last_window_closed() {
                background::Closing::End => {}
                background::Closing::Stay => api.prevent_exit(),
                background::Closing::StayAndWatch => {
                    api.prevent_exit();
                    background::run(handle.clone());
                }
            }
        }
        if let RunEvent::Exit = event {
            let service = handle
                .state::<Running>()
                .0
                .lock()
                .ok()
                .and_then(|mut s| s.take());
            if let Some(service) = service {
                service.shut_down();
            }
            let folders = handle.try_state::<library_folders_watch::LibraryFoldersWatch>();
            if let Some(folders) = folders {
                folders.stop();
            }
        }
    });
}

/// The download service while the app runs.
struct Running(Mutex<Option<downloads::DownloadService>>);

/// What this start was asked for: the files named on its command line, else a window.
fn launch_request() -> single_instance::Request {
    let cwd = std::env::current_dir().unwrap_or_else(|_| std::path::PathBuf::from("/"));
    single_instance::Request::from_args(std::env::args_os().skip(1), &cwd)
}

/// One app per data dir, unless started with `--new-instance`; `None` when no data dir can be
/// found (the window then says so).
fn claim_data_dir(
    identifier: &str,
    request: &single_instance::Request,
) -> Option<single_instance::Start> {
    if std::env::args().any(|a| a == single_instance::NEW_INSTANCE_FLAG) {
        return Some(single_instance::Start::Alone(format!(
            "{} was given",
            single_instance::NEW_INSTANCE_FLAG
        )));
    }
    let dir = carrel_core::foundation::data_dir::resolve(identifier)?;
    Some(single_instance::claim(&dir, request))
}

fn install_logging() {
    use tracing_subscriber::{fmt, EnvFilter};
    let filter = EnvFilter::try_from_env("CARREL_LOG").unwrap_or_else(|_| EnvFilter::new("info"));
    let _ = fmt()
        .with_env_filter(filter)
        .with_writer(std::io::stderr)
        .try_init();
}
