//! Carrel's Tauri shell: the windows, the commands the web UI calls, and the glue between them
//! and `carrel-core`. Everything that is not a window lives in the core; commands here take
//! state, call one core function and map its error.
//!
//! # Layout
//! - [`app_state`]: opening the core for this data dir at start-up, keeping the start-up error
//!   (if any) for the UI to show.
//! - [`commands`]: the `#[tauri::command]`s, named verb_noun as in the UI, and their
//!   `{ kind, message }` error.
//! - [`main_window`]: creating the library window and remembering its size and position.

pub mod app_state;
pub mod commands;
pub mod main_window;

use tauri::Manager;

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
            let store = state.store().cloned();
            app.manage(state);
            main_window::open(app.handle(), store.as_ref())?;
            Ok(())
        })
        .run(tauri::generate_context!("../tauri.conf.json"));
    if let Err(error) = result {
        eprintln!("carrel: could not start: {error}");
        std::process::exit(1);
    }
}

fn install_logging() {
    use tracing_subscriber::{fmt, EnvFilter};
    let filter = EnvFilter::try_from_env("CARREL_LOG").unwrap_or_else(|_| EnvFilter::new("info"));
    let _ = fmt().with_env_filter(filter).with_writer(std::io::stderr).try_init();
}
