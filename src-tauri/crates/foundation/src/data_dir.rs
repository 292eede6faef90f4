//! Where an installation keeps its data, and the names of the files inside it.
//!
//! The data dir is `CARREL_DATA_DIR` when set, else the platform data dir for the app
//! identifier (`~/.local/share/app.carrel.desktop` on Linux). Dev builds use their own
//! identifier, so a dev build never touches an installed Carrel's data.

use std::path::{Path, PathBuf};

/// The identifier of release builds.
pub const RELEASE_IDENTIFIER: &str = "app.carrel.desktop";
/// The identifier of dev builds (see `tauri.dev.conf.json`).
pub const DEV_IDENTIFIER: &str = "app.carrel.desktop.dev";
/// The environment variable that overrides the data dir.
pub const ENV_VAR: &str = "CARREL_DATA_DIR";

/// The identifier matching how this crate was compiled.
pub fn default_identifier() -> &'static str {
    if cfg!(debug_assertions) {
        DEV_IDENTIFIER
    } else {
        RELEASE_IDENTIFIER
    }
}

/// `CARREL_DATA_DIR`, else the platform data dir for `identifier`.
/// `None` only when the platform has no home directory at all.
pub fn resolve(identifier: &str) -> Option<PathBuf> {
    if let Some(dir) = std::env::var_os(ENV_VAR).filter(|v| !v.is_empty()) {
        return Some(PathBuf::from(dir));
    }
    directories::BaseDirs::new().map(|b| b.data_dir().join(identifier))
}

/// The files of one data dir.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DataDir {
    root: PathBuf,
}

impl DataDir {
    pub fn new(root: impl Into<PathBuf>) -> Self {
        Self { root: root.into() }
    }
    pub fn root(&self) -> &Path {
        &self.root
    }
    /// The SQLite database shared by every window and process of this installation.
    pub fn database(&self) -> PathBuf {
        self.root.join("carrel.db")
    }
    /// Where downloaded books live, one folder per book.
    pub fn books(&self) -> PathBuf {
        self.root.join("books")
    }
    /// Creates the root if needed and makes the installation private to this user: the folder
    /// 0700, the database and its WAL and shared-memory files 0600 (the database is created
    /// empty with that mode first, so SQLite gives its side files the same).
    pub fn make_private(&self) -> std::io::Result<()> {
        std::fs::create_dir_all(&self.root)?;
        #[cfg(unix)]
        {
            use std::os::unix::fs::{OpenOptionsExt, PermissionsExt};
            std::fs::set_permissions(&self.root, std::fs::Permissions::from_mode(0o700))?;
            std::fs::OpenOptions::new()
                .append(true)
                .create(true)
                .mode(0o600)
                .open(self.database())?;
            for suffix in ["", "-wal", "-shm", "-journal"] {
                let path = self.root.join(format!("carrel.db{suffix}"));
                match std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o600)) {
                    Err(e) if e.kind() != std::io::ErrorKind::NotFound => return Err(e),
                    _ => {}
                }
            }
        }
        Ok(())
    }

    /// The fallback secret file, used only where no OS keyring answers.
    pub fn secrets_file(&self) -> PathBuf {
        self.root.join("secrets.json")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn files_live_under_the_root() {
        let d = DataDir::new("/x/y");
        assert_eq!(d.database(), PathBuf::from("/x/y/carrel.db"));
        assert_eq!(d.books(), PathBuf::from("/x/y/books"));
    }

    #[test]
    fn dev_and_release_identifiers_differ() {
        assert_ne!(DEV_IDENTIFIER, RELEASE_IDENTIFIER);
    }
}
