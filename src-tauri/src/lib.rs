//! Carrel's Tauri shell: the windows, the commands the web UI calls, and the glue between them
//! and `carrel-core`. Everything that is not a window lives in the core; commands here take
//! state, call one core function and map its error.
//!
//! # Layout
//! - [`app_state`]: opening the core for this data dir at start-up, keeping the start-up error
//!   (if any) for the UI to show.
//! - [`commands`]: the `#[tauri::command]`s, named verb_noun as in the UI, and their
//!   `{ kind, message }` error.
//! - [`downloads`]: the app's download executor, started with the app and stopped (lease
//!   released) when it quits.
//! - [`main_window`]: creating the library window and remembering its size and position.

pub mod app_state;
pub mod commands;
pub mod downloads;
pub mod main_window;

use std::sync::Mutex;

use tauri::{Manager, RunEvent};

/// Builds and runs the app. Blocks until the last window closes.
pub fn run() {
    install_logging();
    let result = tauri::Builder::default()
        .invoke_handler(tauri::generate_handler![
            commands::app_status,
            commands::list_servers,
            commands::add_server,
            commands::remove_server,
        ])
        .setup(|app| {
            let identifier = app.config().identifier.clone();
            let state = app_state::AppState::open(&identifier);
            let downloads = state
                .core()
                .ok()
                .and_then(|core| downloads::DownloadService::start(core.store.clone(), core.credentials.clone()));
            let store = state.store().cloned();
            app.manage(state);
            app.manage(Running(Mutex::new(downloads)));
            main_window::open(app.handle(), store.as_ref())?;
            Ok(())
        })
        .build(tauri::generate_context!("../tauri.conf.json"));
    let app = match result {
        Ok(app) => app,
        Err(error) => {
            eprintln!("carrel: could not start: {error}");
            std::process::exit(1);
        }
    };
    app.run(|handle, event| {
        if let RunEvent::Exit = event {
            let service = handle.state::<Running>().0.lock().ok().and_then(|mut s| s.take());
            if let Some(service) = service {
                service.shut_down();
            }
        }
    });
}

/// The download service while the app runs.
struct Running(Mutex<Option<downloads::DownloadService>>);

fn install_logging() {
    use tracing_subscriber::{fmt, EnvFilter};
    let filter = EnvFilter::try_from_env("CARREL_LOG").unwrap_or_else(|_| EnvFilter::new("info"));
    let _ = fmt().with_env_filter(filter).with_writer(std::io::stderr).try_init();
}
