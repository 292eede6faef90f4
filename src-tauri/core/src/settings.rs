//! Small app settings kept in the store as JSON values under a key: window geometry, theme
//! choice and the like. Each setting is a typed [`Setting`] so callers never juggle raw keys.

use rusqlite::{params, OptionalExtension};
use serde::{de::DeserializeOwned, Deserialize, Serialize};

use crate::store::{Store, StoreError};

/// A typed key in the settings table.
pub trait Setting: Serialize + DeserializeOwned {
    const KEY: &'static str;
}

/// Reads a setting; `None` when it was never saved or no longer parses (an old format is
/// treated as unset rather than as an error: settings are never worth refusing to start).
pub fn get<S: Setting>(store: &Store) -> Result<Option<S>, StoreError> {
    let raw: Option<String> = store
        .read(|c| {
            c.query_row("SELECT value FROM settings WHERE key = ?1", [S::KEY], |r| r.get(0))
                .optional()
        })
        .map_err(|e| store.sql_error(e))?;
    Ok(raw.and_then(|r| serde_json::from_str(&r).ok()))
}

pub fn set<S: Setting>(store: &Store, value: &S) -> Result<(), StoreError> {
    let json = serde_json::to_string(value).expect("settings serialise to JSON");
    store.write(|tx| {
        tx.execute(
            "INSERT INTO settings (key, value) VALUES (?1, ?2)
             ON CONFLICT (key) DO UPDATE SET value = excluded.value",
            params![S::KEY, json],
        )
        .map_err(|e| store.sql_error(e))?;
        Ok(())
    })
}

/// The main window's last size and position, in logical pixels.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct WindowGeometry {
    pub x: f64,
    pub y: f64,
    pub width: f64,
    pub height: f64,
    pub maximized: bool,
}

impl Setting for WindowGeometry {
    const KEY: &'static str = "window.main.geometry";
}

/// Downloads paused by the reader; survives restarts.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
pub struct DownloadsPaused(pub bool);

impl Setting for DownloadsPaused {
    const KEY: &'static str = "downloads.paused";
}

/// How many of the most recently opened books are kept on the device.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct BooksKept(pub u32);

impl Default for BooksKept {
    fn default() -> Self {
        BooksKept(crate::book_downloads::DEFAULT_LATEST_READ)
    }
}

impl Setting for BooksKept {
    const KEY: &'static str = "downloads.books_kept";
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{clock, data_dir::DataDir};

    #[test]
    fn a_setting_round_trips_and_overwrites() {
        let t = tempfile::tempdir().unwrap();
        let s = Store::open(&DataDir::new(t.path()), clock::system()).unwrap();
        assert_eq!(get::<WindowGeometry>(&s).unwrap(), None);
        let g = WindowGeometry { x: 10.0, y: 20.0, width: 1200.0, height: 800.0, maximized: false };
        set(&s, &g).unwrap();
        set(&s, &WindowGeometry { width: 900.0, ..g }).unwrap();
        assert_eq!(get::<WindowGeometry>(&s).unwrap().unwrap().width, 900.0);
    }
}
