//! Small app settings kept in the store as JSON values under a key: window geometry, theme
//! choice and the like. Each setting is a typed [`Setting`] so callers never juggle raw keys.
//!
//! [`Settings`] is the reader's settings page as one value: [`load`] reads it, [`apply`]
//! validates and saves it and lets go of the books no longer kept on the device.

use rusqlite::params;
use serde::{de::DeserializeOwned, Deserialize, Serialize};

use carrel_foundation::store::{Store, StoreError};

/// A typed key in the settings table.
pub trait Setting: Serialize + DeserializeOwned {
    const KEY: &'static str;
}

/// Reads a setting; `None` when it was never saved or no longer parses (an old format is
/// treated as unset rather than as an error: settings are never worth refusing to start).
pub fn get<S: Setting>(store: &Store) -> Result<Option<S>, StoreError> {
    let raw: Option<String> = carrel_foundation::rows::optional(
        store,
        "SELECT value FROM settings WHERE key = ?1",
        [S::KEY],
        |r| r.get(0),
    )?;
    Ok(raw.and_then(|r| serde_json::from_str(&r).ok()))
}

pub fn set<S: Setting>(store: &Store, value: &S) -> Result<(), StoreError> {
    let json = serde_json::to_string(value).expect("settings serialise to JSON");
    store.execute(
        "INSERT INTO settings (key, value) VALUES (?1, ?2)
         ON CONFLICT (key) DO UPDATE SET value = excluded.value",
        params![S::KEY, json],
    )?;
    Ok(())
}

/// Forgets a setting (it reads as never saved).
pub fn remove<S: Setting>(store: &Store) -> Result<(), StoreError> {
    store.execute("DELETE FROM settings WHERE key = ?1", [S::KEY])?;
    Ok(())
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

/// Downloads paused by the reader; survives restarts.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
pub struct DownloadsPaused(pub bool);

/// When the reader last cleared the downloads page's list of finished downloads (unix
/// milliseconds): books stored before then are no longer listed.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
pub struct DoneDownloadsCleared(pub i64);

/// The default of the "books kept on the device" setting.
pub const DEFAULT_BOOKS_KEPT: u32 = 6;

/// How many of the most recently opened books are kept on the device.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct BooksKept(pub u32);

impl Default for BooksKept {
    fn default() -> Self {
        BooksKept(DEFAULT_BOOKS_KEPT)
    }
}

/// Desktop notifications about downloads (on by default).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct NotificationsEnabled(pub bool);

impl Default for NotificationsEnabled {
    fn default() -> Self {
        NotificationsEnabled(true)
    }
}

/// Whether the app stays on in the background (its tray icon) after its last window closes
/// when there is nothing left to download (off by default: it then ends once the downloads
/// are done).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
pub struct KeepRunning(pub bool);

/// The reader dismissed, for good, the notice that passwords are kept in a file for want of a
/// keyring (off by default).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
pub struct CredentialsNoticeDismissed(pub bool);

/// The window theme.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize, ts_rs::TS)]
#[ts(rename = "ThemeChoice")]
#[serde(rename_all = "snake_case")]
pub enum Theme {
    #[default]
    System,
    Light,
    Dark,
}

/// Whether downloads run on a metered link (see `carrel_engine::network`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize, ts_rs::TS)]
#[serde(rename_all = "snake_case")]
pub enum MeteredDownloads {
    /// They wait until the link is not metered.
    Never,
    /// They wait until the reader allows them for this link.
    #[default]
    Ask,
    /// They run.
    Always,
}

/// The language the reader chose in Settings → Language, as a BCP 47 tag (`fr`, `pt-BR`);
/// `None`: the system's. Which languages exist is the front end's business (its message
/// files); the store only keeps a well-formed tag.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
pub struct Language(pub Option<String>);

/// Makes each `Type = "key"` a [`Setting`] kept under that key.
macro_rules! setting_keys {
    ($($setting:ty = $key:literal,)+) => {
        $(impl Setting for $setting {
            const KEY: &'static str = $key;
        })+
    };
}

// Every setting's key, each used once.
setting_keys! {
    WindowGeometry = "window.main.geometry",
    DownloadsPaused = "downloads.paused",
    DoneDownloadsCleared = "downloads.done_cleared",
    BooksKept = "downloads.books_kept",
    NotificationsEnabled = "notifications.enabled",
    KeepRunning = "app.keep_running",
    CredentialsNoticeDismissed = "ui.credentials_notice_dismissed",
    Theme = "ui.theme",
    MeteredDownloads = "downloads.metered",
    Language = "ui.language",
}

/// Whether `tag` is shaped like a language tag: letters, digits and hyphens, a 2–3 letter
/// language first, at most 35 characters.
pub fn is_language_tag(tag: &str) -> bool {
    let mut parts = tag.split('-');
    let language_ok = parts
        .next()
        .is_some_and(|l| (2..=3).contains(&l.len()) && l.bytes().all(|b| b.is_ascii_alphabetic()));
    tag.len() <= 35
        && language_ok
        && parts.all(|p| (1..=8).contains(&p.len()) && p.bytes().all(|b| b.is_ascii_alphanumeric()))
}

/// The most books the "books kept on the device" setting accepts.
pub const MAX_BOOKS_KEPT: i64 = 50;

/// The reader's settings page.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, ts_rs::TS)]
pub struct Settings {
    /// How many of the most recently opened books are kept on the device (0–50).
    pub books_kept: i64,
    /// Desktop notifications about downloads.
    pub notifications: bool,
    pub theme: Theme,
    /// Downloads on a metered link (older windows do not send it: `ask`).
    #[serde(default)]
    pub metered_downloads: MeteredDownloads,
    /// Stay on in the background after the last window closes, even with nothing to
    /// download (older windows do not send it: off).
    #[serde(default)]
    pub keep_running: bool,
    /// The language chosen in Settings → Language; `None` (and what older windows send): the
    /// system's.
    #[serde(default)]
    pub language: Option<String>,
}

#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum SettingsError {
    #[error("books kept on the device must be between 0 and {MAX_BOOKS_KEPT}")]
    BooksKept,
    #[error("“{0}” is not a language tag")]
    Language(String),
    #[error(transparent)]
    Store(#[from] StoreError),
}

impl carrel_foundation::error::Failure for SettingsError {
    fn kind(&self) -> carrel_foundation::error::ErrorKind {
        match self {
            SettingsError::BooksKept | SettingsError::Language(_) => {
                carrel_foundation::error::ErrorKind::InvalidInput
            }
            SettingsError::Store(_) => carrel_foundation::error::ErrorKind::Storage,
        }
    }

    fn field(&self) -> Option<carrel_foundation::error::ErrorField> {
        match self {
            SettingsError::BooksKept => Some(carrel_foundation::error::ErrorField::BooksKept),
            SettingsError::Language(_) | SettingsError::Store(_) => None,
        }
    }
}

/// The settings as saved, with defaults for what was never set.
pub fn load(store: &Store) -> Result<Settings, StoreError> {
    Ok(Settings {
        books_kept: i64::from(get::<BooksKept>(store)?.unwrap_or_default().0),
        notifications: get::<NotificationsEnabled>(store)?.unwrap_or_default().0,
        theme: get::<Theme>(store)?.unwrap_or_default(),
        metered_downloads: get::<MeteredDownloads>(store)?.unwrap_or_default(),
        keep_running: get::<KeepRunning>(store)?.unwrap_or_default().0,
        language: get::<Language>(store)?.unwrap_or_default().0,
    })
}

/// Validates and saves the settings; returns them as saved. Applying what they change on the
/// device (books no longer kept) is `carrel_engine::book_downloads::apply_settings`'s.
pub fn save(store: &Store, new: &Settings) -> Result<Settings, SettingsError> {
    let books_kept = u32::try_from(new.books_kept)
        .ok()
        .filter(|&n| i64::from(n) <= MAX_BOOKS_KEPT)
        .ok_or(SettingsError::BooksKept)?;
    let language = match new.language.as_deref() {
        None | Some("system") => None,
        Some(tag) if is_language_tag(tag) => Some(tag.to_owned()),
        Some(other) => return Err(SettingsError::Language(other.to_owned())),
    };
    set(store, &BooksKept(books_kept))?;
    set(store, &Language(language))?;
    set(store, &NotificationsEnabled(new.notifications))?;
    set(store, &new.theme)?;
    set(store, &new.metered_downloads)?;
    set(store, &KeepRunning(new.keep_running))?;
    Ok(load(store)?)
}

#[cfg(test)]
mod tests {
    use super::*;
    use carrel_foundation::{clock, data_dir::DataDir};

    #[test]
    fn the_settings_page_has_defaults_and_refuses_out_of_range_books_kept() {
        let t = tempfile::tempdir().unwrap();
        let s = Store::open(&DataDir::new(t.path()), clock::system()).unwrap();
        let defaults = load(&s).unwrap();
        assert_eq!(
            defaults,
            Settings {
                books_kept: 6,
                notifications: true,
                theme: Theme::System,
                metered_downloads: MeteredDownloads::Ask,
                keep_running: false,
                language: None,
            }
        );
        for bad in [-1, 51, i64::MAX] {
            let err = save(
                &s,
                &Settings {
                    books_kept: bad,
                    ..defaults.clone()
                },
            )
            .unwrap_err();
            assert_eq!(
                carrel_foundation::error::Failure::field(&err),
                Some(carrel_foundation::error::ErrorField::BooksKept)
            );
        }
        assert_eq!(load(&s).unwrap(), defaults, "a refused page saves nothing");
        let new = Settings {
            books_kept: 0,
            notifications: false,
            theme: Theme::Dark,
            metered_downloads: MeteredDownloads::Never,
            keep_running: true,
            language: Some("fr".into()),
        };
        assert_eq!(save(&s, &new).unwrap(), new);
        assert_eq!(load(&s).unwrap(), new);
        assert_eq!(get::<BooksKept>(&s).unwrap(), Some(BooksKept(0)));
        assert_eq!(get::<KeepRunning>(&s).unwrap(), Some(KeepRunning(true)));
        let json = serde_json::to_value(&new).unwrap();
        assert_eq!(
            json,
            serde_json::json!({ "books_kept": 0, "notifications": false, "theme": "dark", "metered_downloads": "never", "keep_running": true, "language": "fr" })
        );
    }

    #[test]
    fn the_language_is_a_tag_or_the_systems() {
        let t = tempfile::tempdir().unwrap();
        let s = Store::open(&DataDir::new(t.path()), clock::system()).unwrap();
        let defaults = load(&s).unwrap();
        for good in ["de", "pt-BR", "zh-Hant-TW", "pseudo"] {
            let page = Settings {
                language: Some(good.into()),
                ..defaults.clone()
            };
            let saved = save(&s, &page);
            if good == "pseudo" {
                // Six letters is no language: the test language stays the window's own.
                assert!(matches!(saved, Err(SettingsError::Language(_))), "{good}");
            } else {
                assert_eq!(saved.unwrap().language.as_deref(), Some(good));
            }
        }
        for bad in ["", "f", "fr_FR", "fr-FR-toolongpart", "<script>", "fr--FR"] {
            let page = Settings {
                language: Some(bad.into()),
                ..defaults.clone()
            };
            assert!(
                matches!(save(&s, &page), Err(SettingsError::Language(_))),
                "{bad:?}"
            );
        }
        // "system" and nothing both mean the system's.
        let page = Settings {
            language: Some("system".into()),
            ..defaults.clone()
        };
        assert_eq!(save(&s, &page).unwrap().language, None);
        // A page from an older window, without the field, reads as the system's.
        let old: Settings = serde_json::from_value(
            serde_json::json!({ "books_kept": 6, "notifications": true, "theme": "system" }),
        )
        .unwrap();
        assert_eq!(old.language, None);
    }

    #[test]
    fn a_setting_round_trips_and_overwrites() {
        let t = tempfile::tempdir().unwrap();
        let s = Store::open(&DataDir::new(t.path()), clock::system()).unwrap();
        assert_eq!(get::<WindowGeometry>(&s).unwrap(), None);
        let g = WindowGeometry {
            x: 10.0,
            y: 20.0,
            width: 1200.0,
            height: 800.0,
            maximized: false,
        };
        set(&s, &g).unwrap();
        set(&s, &WindowGeometry { width: 900.0, ..g }).unwrap();
        assert_eq!(get::<WindowGeometry>(&s).unwrap().unwrap().width, 900.0);
    }
}
