//! What the app does when the reader invokes an action on a download notification: pause the
//! downloads, cancel one book's, or open a book to read in a window of its own, in the reader
//! that fits it (the comic reader for pages and PDFs, the EPUB reader, else the book's details,
//! which offer another app); and on the notice of the app going on in the background, bring
//! its window back as the tray's Open Carrel does.
//!
//! The notifications thread hands actions over and must not wait: the work is done on a
//! blocking thread of the runtime. What to offer, and when, is `notifications`' business.

use carrel_core::{
    engine::{book_downloads, executor},
    library::books,
    reading::book_reader::{self, BookReader},
};
use tauri::{AppHandle, Manager};

use crate::{app_state::AppState, main_window, notifications::NoteAction};

/// Carries `action` out, off the calling thread.
pub fn invoke(app: &AppHandle, action: NoteAction) {
    let app = app.clone();
    tauri::async_runtime::spawn_blocking(move || {
        if let Err(cause) = perform(&app, action) {
            tracing::warn!(%cause, action = action.key(), book = action.book_id(), "a notification's action failed");
        }
    });
}

fn perform(app: &AppHandle, action: NoteAction) -> Result<(), String> {
    let state = app
        .try_state::<AppState>()
        .ok_or("the library is not open yet")?;
    let store = state.store().ok_or("the library could not be opened")?;
    match action {
        NoteAction::Pause { .. } => executor::set_paused(store, true).map_err(|e| e.to_string()),
        NoteAction::Cancel { book_id } => {
            book_downloads::cancel_book(store, book_id).map_err(|e| e.to_string())
        }
        NoteAction::Read { book_id } => {
            let book = books::get(store, book_id).map_err(|e| e.to_string())?;
            let view = reading_view(book_reader::reader_for(&book), book_id);
            main_window::open_extra(app, &view).map_err(|e| e.to_string())?;
            crate::background::window_opened_elsewhere(app);
            Ok(())
        }
        NoteAction::OpenCarrel => {
            crate::background::show_window(app);
            Ok(())
        }
    }
}

/// The window view that reads a book in `reader`.
pub fn reading_view(reader: BookReader, book_id: i64) -> String {
    match reader {
        BookReader::Comic | BookReader::Pdf => format!("reader/{book_id}"),
        BookReader::Epub => format!("epub/{book_id}"),
        BookReader::Other => format!("book/{book_id}"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_reader_has_a_view_a_window_opens_on() {
        for (reader, view) in [
            (BookReader::Comic, "reader/7"),
            (BookReader::Pdf, "reader/7"),
            (BookReader::Epub, "epub/7"),
            (BookReader::Other, "book/7"),
        ] {
            assert_eq!(reading_view(reader, 7), view);
            assert!(main_window::is_known_view(view), "{view}");
        }
    }
}
