//! Generates the Tauri context from the root `tauri.conf.json` and the permission manifest of
//! the app's own commands. Debug builds merge `tauri.dev.conf.json`, so a dev build has its own
//! identifier (and so its own data dir and executor lease) and never touches an installed
//! Carrel's data.

use tauri_build::{AppManifest, Attributes};

/// Every command the UI may call; each becomes an `allow-…` permission granted in
/// `capabilities/main.json`.
const COMMANDS: &[&str] = &[
    "app_status",
    "dismiss_credentials_notice",
    "list_servers",
    "add_server",
    "remove_server",
    "update_server",
    "resume_server",
    "browse_catalog",
    "search_catalog",
    "book_details",
    "store_book",
    "open_book",
    "save_position",
    "take_server_position",
    "save_epub_position",
    "epub_position",
    "list_annotations",
    "add_annotation",
    "update_annotation",
    "delete_annotation",
    "export_annotations",
    "remove_book",
    "retry_book",
    "list_on_device",
    "list_continue_reading",
    "list_downloads",
    "watch_downloads",
    "pause_downloads",
    "resume_downloads",
    "clear_done_downloads",
    "move_book_to_top",
    "cancel_book",
    "get_settings",
    "set_settings",
    "storage_usage",
    "books_removed_if_kept",
    "open_window",
    "close_window",
    "quit_app",
    "search_on_device",
    "search_everywhere",
    "keep_feed_offline",
    "keep_search_offline",
    "list_batches",
    "pause_batch",
    "resume_batch",
    "move_batch_to_top",
    "cancel_batch",
    "open_comic",
    "record_pdf_pages",
    "discover_server",
    "kosync_account",
    "kosync_sign_in",
    "kosync_sign_out",
    "open_in_another_app",
    "series_of_book",
    "keep_series",
    "stop_keeping_series",
    "series_neighbours",
    "mark_book_read",
    "mark_series_read",
    "server_series_default",
    "set_server_series_default",
    "allow_metered_downloads",
    "system_fonts",
    "start_at_login",
    "set_start_at_login",
    "library_folders",
    "add_library_folder",
    "remove_library_folder",
    "rescan_library_folder",
    "watch_library_folders",
    "watch_desktop_files",
    "import_files",
];

/// Writes `$OUT_DIR/shell_messages.rs`: every language's `locales/<language>/shell.ftl`,
/// compiled in, so a language added as a folder is spoken without a change in code.
fn shell_messages() {
    let locales = std::path::Path::new("../locales");
    println!("cargo:rerun-if-changed=../locales");
    let mut files: Vec<(String, std::path::PathBuf)> = std::fs::read_dir(locales)
        .expect("locales/ is readable")
        .filter_map(|entry| entry.ok())
        .filter_map(|entry| {
            let path = entry.path().join("shell.ftl");
            let tag = entry.file_name().to_str()?.to_owned();
            path.is_file().then_some((tag, path))
        })
        .collect();
    files.sort();
    let mut out = String::from("/// Each language's shell messages, by language tag.\npub(crate) const FILES: &[(&str, &str)] = &[\n");
    for (tag, path) in &files {
        println!("cargo:rerun-if-changed={}", path.display());
        let path = std::fs::canonicalize(path).expect("a message file has a path");
        out.push_str(&format!(
            "    ({tag:?}, include_str!({:?})),\n",
            path.display().to_string()
        ));
    }
    out.push_str("];\n");
    let target = std::path::Path::new(&std::env::var("OUT_DIR").expect("cargo sets OUT_DIR"))
        .join("shell_messages.rs");
    std::fs::write(target, out).expect("OUT_DIR is writable");
}

fn main() {
    shell_messages();
    println!("cargo:rerun-if-changed=../tauri.conf.json");
    println!("cargo:rerun-if-changed=../tauri.dev.conf.json");
    if std::env::var("PROFILE").as_deref() == Ok("debug")
        && std::env::var_os("TAURI_CONFIG").is_none()
    {
        let overlay = std::fs::read_to_string("../tauri.dev.conf.json")
            .expect("tauri.dev.conf.json is readable");
        // Seen by tauri-build below, and by `generate_context!` when rustc expands it.
        std::env::set_var("TAURI_CONFIG", &overlay);
        println!(
            "cargo:rustc-env=TAURI_CONFIG={}",
            overlay.replace('\n', " ")
        );
    }
    let attributes = Attributes::new()
        .config_path("../tauri.conf.json")
        .app_manifest(AppManifest::new().commands(COMMANDS));
    if let Err(error) = tauri_build::try_build(attributes) {
        panic!("tauri build step failed: {error:#}");
    }
}
