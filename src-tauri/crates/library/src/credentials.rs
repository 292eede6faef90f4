//! Server passwords and tokens. They live in the OS keyring (Secret Service on Linux); where no
//! keyring answers, in a file of the data dir readable only by its owner (0600). They are never
//! written to SQLite and never printed: [`Secret`] hides itself from `Debug` and `Display`.
//!
//! The app and `carrel-cli` may change the file at once: every read-modify-write holds an
//! advisory lock (`flock`) on `secrets.json.lock` beside it, across processes and handles, and
//! ends with the new file renamed into place and the folder synced. Every read checks the file
//! is a map of non-empty account names to strings. The installation id is made under the same
//! lock and written whole (temp file, rename), so no handle ever sees it empty.

use std::collections::BTreeMap;
use std::fs::{self, OpenOptions};
use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::Mutex;

use carrel_foundation::data_dir::DataDir;

#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum CredentialError {
    #[error("the system keyring failed: {0}")]
    Keyring(String),
    #[error("cannot use the secrets file {path}: {reason}")]
    File { path: PathBuf, reason: String },
}

/// A password or token. Printing it shows nothing.
#[derive(Clone, PartialEq, Eq)]
pub struct Secret(String);

impl Secret {
    pub fn new(value: impl Into<String>) -> Self {
        Secret(value.into())
    }
    /// The secret itself, for the one place that needs it (an `Authorization` header).
    pub fn expose(&self) -> &str {
        &self.0
    }
}

impl std::fmt::Debug for Secret {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Secret(…)")
    }
}

/// Where secrets are kept.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, ts_rs::TS)]
#[ts(rename = "CredentialsBackend")]
#[serde(rename_all = "snake_case")]
pub enum Backend {
    /// The OS keyring.
    Keyring,
    /// A 0600 file in the data dir, because no keyring service answered.
    File,
}

/// The secret store of one installation.
#[derive(Debug)]
pub struct Credentials {
    service: String,
    /// This installation's id: keyring entries of two data dirs never mix.
    install_id: String,
    /// Chosen on first use, so opening never waits on the keyring service (the app opens its
    /// credentials on the main thread, before the window shows).
    backend: std::sync::OnceLock<Backend>,
    forced: Option<Backend>,
    file: PathBuf,
    /// Serialises read-modify-write of the fallback file within a process.
    file_lock: Mutex<()>,
    /// Counts the secrets set or deleted by this process: what was refused with older
    /// credentials may be asked for again.
    generation: std::sync::atomic::AtomicU64,
}

impl Credentials {
    /// Uses the OS keyring when one answers, else the 0600 file of `dir`. `CARREL_SECRETS=file`
    /// chooses the file without asking the keyring (headless machines, tests).
    /// `service` names this installation in the keyring (the app identifier).
    pub fn open(dir: &DataDir, service: &str) -> Credentials {
        let forced_file = std::env::var("CARREL_SECRETS").is_ok_and(|v| v == "file");
        Self::with_backend(dir, service, forced_file.then_some(Backend::File))
    }

    /// Always the 0600 file (tests, and systems where the keyring must not be used).
    pub fn file_only(dir: &DataDir, service: &str) -> Credentials {
        Self::with_backend(dir, service, Some(Backend::File))
    }

    fn with_backend(dir: &DataDir, service: &str, forced: Option<Backend>) -> Credentials {
        Credentials {
            install_id: install_id(dir),
            service: service.to_owned(),
            backend: std::sync::OnceLock::new(),
            forced,
            file: dir.secrets_file(),
            file_lock: Mutex::new(()),
            generation: std::sync::atomic::AtomicU64::new(0),
        }
    }

    /// Where secrets are kept: asks the keyring once, on first use.
    pub fn backend(&self) -> Backend {
        *self.backend.get_or_init(|| {
            if let Some(forced) = self.forced {
                return forced;
            }
            if keyring_answers(&self.service) {
                Backend::Keyring
            } else {
                tracing::warn!("no system keyring answered; server passwords are kept in a file only you can read");
                Backend::File
            }
        })
    }

    /// Whether some secret (a password, a key, a session) is kept in the file for want of a
    /// keyring; false when the keyring keeps them.
    pub fn keeps_secrets_in_file(&self) -> Result<bool, CredentialError> {
        match self.backend() {
            Backend::Keyring => Ok(false),
            Backend::File => {
                let _guard = self.file_lock.lock().unwrap_or_else(|p| p.into_inner());
                let _lock = FileLock::shared(&self.file)?;
                Ok(!read_file(&self.file)?.is_empty())
            }
        }
    }

    /// How many secrets this process set or deleted so far.
    pub fn generation(&self) -> u64 {
        self.generation.load(std::sync::atomic::Ordering::SeqCst)
    }

    pub fn set(&self, account: &str, secret: &Secret) -> Result<(), CredentialError> {
        self.generation
            .fetch_add(1, std::sync::atomic::Ordering::SeqCst);
        match self.backend() {
            Backend::Keyring => self
                .entry(account)?
                .set_password(secret.expose())
                .map_err(|e| CredentialError::Keyring(e.to_string())),
            Backend::File => self.edit_file(|map| {
                map.insert(account.to_owned(), secret.expose().to_owned());
            }),
        }
    }

    pub fn get(&self, account: &str) -> Result<Option<Secret>, CredentialError> {
        match self.backend() {
            Backend::Keyring => match self.entry(account)?.get_password() {
                Ok(pw) => Ok(Some(Secret(pw))),
                Err(keyring::Error::NoEntry) => Ok(None),
                Err(e) => Err(CredentialError::Keyring(e.to_string())),
            },
            Backend::File => {
                let _guard = self.file_lock.lock().unwrap_or_else(|p| p.into_inner());
                let _lock = FileLock::shared(&self.file)?;
                Ok(read_file(&self.file)?.remove(account).map(Secret))
            }
        }
    }

    pub fn delete(&self, account: &str) -> Result<(), CredentialError> {
        self.generation
            .fetch_add(1, std::sync::atomic::Ordering::SeqCst);
        match self.backend() {
            Backend::Keyring => match self.entry(account)?.delete_credential() {
                Ok(()) | Err(keyring::Error::NoEntry) => Ok(()),
                Err(e) => Err(CredentialError::Keyring(e.to_string())),
            },
            Backend::File => self.edit_file(|map| {
                map.remove(account);
            }),
        }
    }

    fn entry(&self, account: &str) -> Result<keyring::Entry, CredentialError> {
        keyring::Entry::new(&self.service, account)
            .map_err(|e| CredentialError::Keyring(e.to_string()))
    }

    fn edit_file(
        &self,
        f: impl FnOnce(&mut BTreeMap<String, String>),
    ) -> Result<(), CredentialError> {
        let _guard = self.file_lock.lock().unwrap_or_else(|p| p.into_inner());
        let _lock = FileLock::exclusive(&self.file)?;
        let mut map = read_file(&self.file)?;
        f(&mut map);
        write_file(&self.file, &map)
    }
}

impl Credentials {
    /// The account under which a server's secret is kept, scoped to this installation so that
    /// two data dirs sharing one keyring never hand each other's passwords out.
    pub fn server_account(&self, server_id: i64) -> String {
        format!("{}:server:{server_id}", self.install_id)
    }

    /// The account under which the session a server gave (a cookie or token won with its
    /// password) is kept, so other processes and later runs sign in without the password.
    pub fn session_account(&self, server_id: i64) -> String {
        format!("{}:session:{server_id}", self.install_id)
    }

    /// The account under which the key a server keeps in its addresses' path (Kavita's API key)
    /// is stored.
    pub fn path_key_account(&self, server_id: i64) -> String {
        format!("{}:path-key:{server_id}", self.install_id)
    }

    /// The account under which the KOReader sync key is kept.
    pub fn kosync_account(&self) -> String {
        format!("{}:kosync", self.install_id)
    }
}

/// The data dir's installation id, made (randomly) the first time it is asked for, under the
/// secrets lock and written whole, so every handle of every process agrees on it. Without a
/// writable data dir it falls back to a hash of the path, still distinct per data dir.
fn install_id(dir: &DataDir) -> String {
    let path = dir.root().join("install-id");
    let valid = |id: &str| {
        !id.is_empty() && id.len() <= 64 && id.bytes().all(|b| b.is_ascii_alphanumeric())
    };
    let read = || {
        fs::read_to_string(&path)
            .ok()
            .map(|id| id.trim().to_owned())
            .filter(|id| valid(id))
    };
    if let Some(id) = read() {
        return id;
    }
    let _ = fs::create_dir_all(dir.root());
    if let Ok(_lock) = FileLock::exclusive(&dir.secrets_file()) {
        // Another process may have made it while this one waited for the lock.
        if let Some(id) = read() {
            return id;
        }
        let fresh = format!("{:016x}", rand::random::<u64>());
        let tmp = path.with_extension(format!("{}.tmp", std::process::id()));
        let written = fs::write(&tmp, fresh.as_bytes())
            .and_then(|_| OpenOptions::new().write(true).open(&tmp)?.sync_all())
            .and_then(|_| fs::rename(&tmp, &path))
            .and_then(|_| carrel_foundation::part_files::sync_dir(dir.root()));
        if written.is_ok() {
            return fresh;
        }
        let _ = fs::remove_file(&tmp);
    }
    use std::hash::{Hash, Hasher};
    let mut h = std::collections::hash_map::DefaultHasher::new();
    dir.root().hash(&mut h);
    format!("{:016x}", h.finish())
}

/// An advisory lock on `<secrets file>.lock`, held until dropped: one writer (or several
/// readers) at a time across processes and handles.
struct FileLock {
    _file: fs::File,
}

impl FileLock {
    fn exclusive(secrets: &Path) -> Result<FileLock, CredentialError> {
        Self::take(secrets, true)
    }

    fn shared(secrets: &Path) -> Result<FileLock, CredentialError> {
        Self::take(secrets, false)
    }

    fn take(secrets: &Path, exclusive: bool) -> Result<FileLock, CredentialError> {
        let path = secrets.with_extension("json.lock");
        let mut options = OpenOptions::new();
        options.read(true).write(true).create(true).truncate(false);
        #[cfg(unix)]
        {
            use std::os::unix::fs::OpenOptionsExt;
            options.mode(0o600);
        }
        let file = options.open(&path).map_err(|e| file_error(&path, e))?;
        #[cfg(unix)]
        {
            use rustix::fs::{flock, FlockOperation};
            let op = if exclusive {
                FlockOperation::LockExclusive
            } else {
                FlockOperation::LockShared
            };
            loop {
                match flock(&file, op) {
                    Ok(()) => break,
                    Err(rustix::io::Errno::INTR) => continue,
                    Err(e) => return Err(file_error(&path, std::io::Error::from(e))),
                }
            }
        }
        #[cfg(not(unix))]
        let _ = exclusive;
        Ok(FileLock { _file: file })
    }
}

fn keyring_answers(service: &str) -> bool {
    match keyring::Entry::new(service, "carrel-probe").and_then(|e| e.get_password()) {
        Ok(_) | Err(keyring::Error::NoEntry) => true,
        Err(e) => {
            tracing::debug!(cause = %e, "system keyring unavailable");
            false
        }
    }
}

fn file_error(path: &Path, e: impl std::fmt::Display) -> CredentialError {
    CredentialError::File {
        path: path.to_owned(),
        reason: e.to_string(),
    }
}

fn read_file(path: &Path) -> Result<BTreeMap<String, String>, CredentialError> {
    match fs::read(path) {
        Ok(bytes) => {
            let map: BTreeMap<String, String> =
                serde_json::from_slice(&bytes).map_err(|e| file_error(path, e))?;
            if map.keys().any(|k| k.is_empty() || k.starts_with(':')) {
                return Err(file_error(path, "an account without a name"));
            }
            Ok(map)
        }
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(BTreeMap::new()),
        Err(e) => Err(file_error(path, e)),
    }
}

/// Writes the whole map to a 0600 temp file, syncs it and renames it over the old one.
fn write_file(path: &Path, map: &BTreeMap<String, String>) -> Result<(), CredentialError> {
    // A temp name of our own: the app and the CLI may write at once.
    let tmp = path.with_extension(format!(
        "json.{}.{:08x}.tmp",
        std::process::id(),
        rand::random::<u32>()
    ));
    let mut options = OpenOptions::new();
    options.write(true).create(true).truncate(true);
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt;
        options.mode(0o600);
    }
    let mut file = options.open(&tmp).map_err(|e| file_error(&tmp, e))?;
    #[cfg(unix)]
    {
        // `mode` only applies at creation: tighten a temp file left over from before, too.
        use std::os::unix::fs::PermissionsExt;
        file.set_permissions(fs::Permissions::from_mode(0o600))
            .map_err(|e| file_error(&tmp, e))?;
    }
    let json = serde_json::to_vec(map).expect("a string map serialises");
    file.write_all(&json).map_err(|e| file_error(&tmp, e))?;
    file.sync_all().map_err(|e| file_error(&tmp, e))?;
    fs::rename(&tmp, path).map_err(|e| file_error(path, e))?;
    // The rename itself must survive a crash, or a removed secret could come back.
    match path.parent() {
        Some(dir) => carrel_foundation::part_files::sync_dir(dir).map_err(|e| file_error(dir, e)),
        None => Ok(()),
    }
}

impl carrel_foundation::error::Failure for CredentialError {
    fn kind(&self) -> carrel_foundation::error::ErrorKind {
        carrel_foundation::error::ErrorKind::Storage
    }

    fn field(&self) -> Option<carrel_foundation::error::ErrorField> {
        Some(carrel_foundation::error::ErrorField::Password)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_fallback_file_round_trips_and_is_private() {
        let t = tempfile::tempdir().unwrap();
        let dir = DataDir::new(t.path());
        let creds = Credentials::file_only(&dir, "test");
        assert_eq!(creds.get("server:1").unwrap(), None);
        creds.set("server:1", &Secret::new("hunter2")).unwrap();
        creds.set("server:2", &Secret::new("other")).unwrap();
        assert_eq!(creds.get("server:1").unwrap().unwrap().expose(), "hunter2");
        creds.delete("server:1").unwrap();
        assert_eq!(creds.get("server:1").unwrap(), None);
        assert_eq!(creds.get("server:2").unwrap().unwrap().expose(), "other");
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            let mode = fs::metadata(dir.secrets_file())
                .unwrap()
                .permissions()
                .mode();
            assert_eq!(mode & 0o777, 0o600);
        }
    }

    #[test]
    fn secrets_do_not_print() {
        let s = Secret::new("hunter2");
        assert!(!format!("{s:?}").contains("hunter2"));
    }

    #[test]
    fn a_damaged_secrets_file_is_an_error_not_a_wipe() {
        let t = tempfile::tempdir().unwrap();
        let dir = DataDir::new(t.path());
        fs::write(dir.secrets_file(), b"{not json").unwrap();
        let creds = Credentials::file_only(&dir, "test");
        assert!(creds.set("server:1", &Secret::new("x")).is_err());
        assert_eq!(fs::read(dir.secrets_file()).unwrap(), b"{not json");
    }

    #[test]
    fn two_handles_writing_at_once_lose_nothing() {
        let t = tempfile::tempdir().unwrap();
        let dir = DataDir::new(t.path());
        let writers: Vec<_> = (0..2)
            .map(|w| {
                let dir = dir.clone();
                std::thread::spawn(move || {
                    // Each writer has its own handle, as the app and the CLI do.
                    let creds = Credentials::file_only(&dir, "test");
                    for i in 0..100 {
                        creds
                            .set(
                                &format!("w{w}:{i}"),
                                &Secret::new(format!("secret-{w}-{i}")),
                            )
                            .unwrap();
                    }
                })
            })
            .collect();
        for w in writers {
            w.join().unwrap();
        }
        let creds = Credentials::file_only(&dir, "test");
        for w in 0..2 {
            for i in 0..100 {
                let got = creds.get(&format!("w{w}:{i}")).unwrap();
                assert_eq!(
                    got.map(|s| s.expose().to_owned()),
                    Some(format!("secret-{w}-{i}")),
                    "w{w}:{i}"
                );
            }
        }
    }

    #[test]
    fn a_removed_secret_does_not_come_back_through_another_handle() {
        let t = tempfile::tempdir().unwrap();
        let dir = DataDir::new(t.path());
        let a = Credentials::file_only(&dir, "test");
        let b = Credentials::file_only(&dir, "test");
        a.set("gone", &Secret::new("x")).unwrap();
        let adder = {
            let dir = dir.clone();
            std::thread::spawn(move || {
                let c = Credentials::file_only(&dir, "test");
                for i in 0..200 {
                    c.set(&format!("k{i}"), &Secret::new("v")).unwrap();
                }
            })
        };
        b.delete("gone").unwrap();
        adder.join().unwrap();
        assert_eq!(a.get("gone").unwrap(), None);
    }

    #[test]
    fn an_empty_install_id_is_never_an_account_prefix() {
        let t = tempfile::tempdir().unwrap();
        let dir = DataDir::new(t.path());
        // Left empty by a process that died between creating and writing it.
        fs::write(dir.root().join("install-id"), b"").unwrap();
        let creds = Credentials::file_only(&dir, "test");
        let account = creds.server_account(1);
        assert!(!account.starts_with(':'), "{account}");
        assert_eq!(
            Credentials::file_only(&dir, "test").server_account(1),
            account,
            "the same id for every handle"
        );
        // Many handles made at once agree on one id.
        let fresh = tempfile::tempdir().unwrap();
        let fresh_dir = DataDir::new(fresh.path());
        let ids: Vec<String> = (0..8)
            .map(|_| {
                let d = fresh_dir.clone();
                std::thread::spawn(move || Credentials::file_only(&d, "test").server_account(1))
            })
            .collect::<Vec<_>>()
            .into_iter()
            .map(|h| h.join().unwrap())
            .collect();
        assert!(
            ids.iter().all(|id| id == &ids[0] && !id.starts_with(':')),
            "{ids:?}"
        );
    }

    #[test]
    fn a_secrets_file_that_is_not_a_map_of_strings_is_refused() {
        let t = tempfile::tempdir().unwrap();
        let dir = DataDir::new(t.path());
        for bad in [&br#"{"":"x"}"#[..], br#"{"a":1}"#, br#"["a"]"#] {
            fs::write(dir.secrets_file(), bad).unwrap();
            let creds = Credentials::file_only(&dir, "test");
            assert!(creds.get("a").is_err(), "{}", String::from_utf8_lossy(bad));
        }
    }
}
