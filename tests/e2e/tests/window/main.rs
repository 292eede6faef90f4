//! Window tests: the real Carrel window, driven through tauri-driver and WebKitWebDriver, as
//! one test binary (one link step) with a module per area.
//!
//! Each test has a fresh data dir and holds the display for its whole run (see
//! `carrel_e2e::lock`), so they never overlap even without `--test-threads=1`. A failing test
//! leaves a screenshot, the DOM and the log in `tests/e2e/artifacts/<test>.*`.
//!
//! Run all: `xvfb-run -a dbus-run-session -- cargo test -p carrel-e2e -- --test-threads=1`
//! after `npm run --prefix ui build && cargo build -p carrel`; one area: add its module name as
//! a filter (`… cargo test -p carrel-e2e reader:: -- --test-threads=1`).
//!
//! - `accessibility`: axe-core on every screen in both themes, and the keyboard alone.
//! - `background`: downloads that outlive the window — the tray, the background app's
//!   notifications, and starting Carrel again.
//! - `app_window`: the library window itself — start-up, geometry, more windows, keyboard.
//! - `first_use`: a new reader's first steps against real servers' ways — a server added by
//!   host and port alone, a server that stops answering, searches that find nothing.
//! - `languages`: the window in the system's language from its first paint, and the
//!   pseudo-language's longer texts never cut off.
//! - `library`: servers, browsing, details, downloads, settings, search, offline.
//! - `library_folders`: a library folder added in Settings, and a comic dropped into it joining
//!   Books on this device through the watcher.
//! - `local_files`: the reader's own files — a drop on the window, `carrel FILE` handed to the
//!   running app, the books kept after a restart.
//! - `own_files_home`: a reader of their own files only, with no server: Home with Continue
//!   reading at every start, not the first-run page.
//! - `device_library`: Books on this device sorted and filtered as the reader chooses, and a
//!   feed's facets shown as a bar above its items.
//! - `downloads`: what the Downloads page and Home say — pausing, batches that end, finished
//!   downloads, an EPUB's place.
//! - `reader`: the comic reader (streamed pages, archives, PDFs, other formats).
//! - `epub`: the EPUB reader, and hostile books.
//! - `pdf_depth`: a PDF's search, bookmarks and highlights with notes, kept and exported.
//! - `reading_flow`: from one book of a series to the next — the end cards of comics and EPUBs,
//!   a book and its series marked read from the grid, shifted spreads, image adjustments kept.
//! - `notifications`: desktop notifications and their actions through a real notification
//!   daemon.
//! - `support`: not tests — what several areas share (test ids, the app on a test's data
//!   dir, the fixture server, texts, views and feeds waited for, keys and the mouse, the
//!   readers' pages, highlights and exports, and the EPUBs, zips and PDFs the tests make).
//! - `carrel_cli`: not tests — `carrel-cli` run beside the app on a test's data dir, and the
//!   fixture server's first book stored through it.

mod accessibility;
mod app_window;
mod background;
mod carrel_cli;
mod device_library;
mod downloads;
mod epub;
mod first_use;
mod languages;
mod library;
mod library_folders;
mod local_files;
mod notifications;
mod own_files_home;
mod pdf_depth;
mod reader;
mod reading_flow;
mod support;
