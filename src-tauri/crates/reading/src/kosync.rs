//! KOReader sync (KOSync): reading positions shared with KOReader devices and with the servers
//! and services that speak its sync protocol (koreader-sync-server, Komga, Kavita, Suwayomi, …).
//!
//! The protocol, as KOReader's own client speaks it (koreader `plugins/kosync.koplugin`:
//! `api.json`, `KOSyncClient.lua`): every request carries `x-auth-user` and `x-auth-key` (the
//! MD5 of the password, in hex — what KOReader keeps as the "user key") and
//! `Accept: application/vnd.koreader.v1+json`; `GET users/auth` checks them;
//! `PUT syncs/progress` sends `{document, progress, percentage, device, device_id}`;
//! `GET syncs/progress/<document>` answers the last one put, with the server's `timestamp`
//! (unix seconds), or `{}`.
//!
//! A book's **document id** is KOReader's partial MD5 of the stored file ([`document_id`]), so
//! only books kept as a file (EPUB, PDF, CBZ…) have one; pages streamed one by one do not. Its
//! **progress** is the page number (1-based) for paged books and, for an EPUB, the start of its
//! spine item as a CREngine XPointer (`/body/DocFragment[N]/body`) — the part of Carrel's CFI
//! KOReader understands — with the fraction read as `percentage` in both cases.
//!
//! Owns the `kosync_outbox` (a book whose position changed, queued in the same transaction as
//! the save by [`queue_in`]) and `kosync_documents` tables, the account (a setting: address and
//! user; the key is a secret in the credential store, never in SQLite) and this installation's
//! device id. Newer-wins: a position fetched ([`newest`]) counts only when the server's
//! timestamp is after this device's own save and it came from another device.

use std::io::{Read, Seek, SeekFrom};
use std::path::Path;
use std::time::Duration;

use md5::{Digest, Md5};
use rusqlite::{params, OptionalExtension};
use serde::{Deserialize, Serialize};
use url::Url;

use carrel_engine::download_stack::{self, TaskKind, TaskState};
use carrel_foundation::address_secrets::redact;
use carrel_foundation::part_files::PartFiles;
use carrel_foundation::store::{Store, StoreError};
use carrel_http::http_fetch::read_at_most;
use carrel_http::redirects;
use carrel_library::books::{self, Book, BookFormat};
use carrel_library::credentials::{CredentialError, Credentials, Secret};
use carrel_library::settings::{self, Setting};

/// The name Carrel gives itself as a KOSync device.
pub const DEVICE_NAME: &str = "Carrel";
/// What KOReader's client sends as `Accept`.
const ACCEPT: &str = "application/vnd.koreader.v1+json";
/// The largest answer read from a sync server.
const MAX_ANSWER: usize = 64 * 1024;

/// The KOSync account: where, and as whom. The key lives in the credential store.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct KosyncAccount {
    /// The sync server's address (e.g. `https://sync.example.org` or Komga's `…/koreader`).
    pub url: String,
    pub username: String,
    /// This installation's device id, sent with every position and recognised in the answers.
    pub device_id: String,
}

impl Setting for KosyncAccount {
    const KEY: &'static str = "kosync.account";
}

#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum KosyncError {
    #[error("not a sync server address: {0}")]
    InvalidUrl(String),
    #[error("the user name is empty")]
    EmptyUser,
    #[error("the sync server refused this user and password")]
    Refused,
    #[error("no KOReader sync account is set up")]
    NoAccount,
    /// Why no answer came, as a plain sentence (no address: the reader typed it).
    #[error("{0}")]
    Unreachable(String),
    /// What was wrong with the answer, as a plain sentence.
    #[error("{0}")]
    Server(String),
    #[error(transparent)]
    Credential(#[from] CredentialError),
    #[error(transparent)]
    Store(#[from] StoreError),
}

impl carrel_foundation::error::Failure for KosyncError {
    fn kind(&self) -> carrel_foundation::error::ErrorKind {
        use carrel_foundation::error::ErrorKind;
        match self {
            KosyncError::InvalidUrl(_) | KosyncError::EmptyUser => ErrorKind::InvalidInput,
            KosyncError::Refused => ErrorKind::Auth,
            KosyncError::NoAccount => ErrorKind::NotFound,
            KosyncError::Unreachable(_) | KosyncError::Server(_) => ErrorKind::Server,
            KosyncError::Credential(_) | KosyncError::Store(_) => ErrorKind::Storage,
        }
    }

    fn field(&self) -> Option<carrel_foundation::error::ErrorField> {
        match self {
            KosyncError::InvalidUrl(_) => Some(carrel_foundation::error::ErrorField::Url),
            KosyncError::EmptyUser => Some(carrel_foundation::error::ErrorField::Name),
            KosyncError::Refused => Some(carrel_foundation::error::ErrorField::Password),
            _ => None,
        }
    }
}

/// KOReader's document id of a file: the MD5 of up to twelve 1 KiB samples, taken at 0 and
/// then at 1 KiB × 4ⁱ (1 KiB, 4 KiB, 16 KiB, … 1 GiB), stopping at the first that reads
/// nothing (koreader `frontend/util.lua`, `util.partialMD5`; its first offset is
/// `lshift(1024, -2)`, which LuaJIT's 32-bit shift makes 0), in lowercase hex.
pub fn document_id(path: &Path) -> std::io::Result<String> {
    let mut file = std::fs::File::open(path)?;
    let mut md5 = Md5::new();
    let mut sample = vec![0u8; 1024];
    for i in -1i32..=10 {
        let offset: u64 = if i < 0 { 0 } else { 1024u64 << (2 * i) };
        file.seek(SeekFrom::Start(offset))?;
        let mut read = 0;
        while read < sample.len() {
            match file.read(&mut sample[read..])? {
                0 => break,
                n => read += n,
            }
        }
        if read == 0 {
            break;
        }
        md5.update(&sample[..read]);
    }
    Ok(hex(&md5.finalize()))
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

/// The key KOReader sends for a password: its MD5, in hex.
pub fn user_key(password: &str) -> Secret {
    Secret::new(hex(&Md5::digest(password.as_bytes())))
}

fn key_account(credentials: &Credentials) -> String {
    credentials.kosync_account()
}

/// The account, if one is set up.
pub fn account(store: &Store) -> Result<Option<KosyncAccount>, StoreError> {
    settings::get::<KosyncAccount>(store)
}

/// A small client for the sync server: one request at a time, short time limits.
#[derive(Debug, Clone)]
pub struct KosyncClient {
    client: reqwest::Client,
}

impl KosyncClient {
    /// The process's client (one connection pool, made on first use).
    pub fn shared() -> Result<&'static KosyncClient, KosyncError> {
        static SHARED: std::sync::OnceLock<KosyncClient> = std::sync::OnceLock::new();
        if let Some(client) = SHARED.get() {
            return Ok(client);
        }
        let made = KosyncClient::new()?;
        Ok(SHARED.get_or_init(|| made))
    }

    pub fn new() -> Result<KosyncClient, KosyncError> {
        // The one redirect rule: followed only on the sync server's own origin, so the user and
        // key headers never reach another host.
        let client = redirects::client_builder()
            .connect_timeout(Duration::from_secs(5))
            .timeout(Duration::from_secs(15))
            .build()
            .map_err(|e| KosyncError::Unreachable(format!("cannot start the HTTP client: {e}")))?;
        Ok(KosyncClient { client })
    }

    async fn send(
        &self,
        method: reqwest::Method,
        url: &Url,
        user: &str,
        key: &Secret,
        body: Option<serde_json::Value>,
    ) -> Result<(reqwest::StatusCode, serde_json::Value), KosyncError> {
        let mut request = self
            .client
            .request(method, url.clone())
            .header("accept", ACCEPT)
            .header("x-auth-user", user)
            .header("x-auth-key", key.expose());
        if let Some(body) = body {
            request = request.json(&body);
        }
        let response = request
            .send()
            .await
            .map_err(|e| KosyncError::Unreachable(unreachable(url, &e)))?;
        let status = response.status();
        if let Some(next) = redirects::next_hop(&response) {
            tracing::info!(from = %redact(url), to = %redact(&next), "the sync server sent the request elsewhere; not followed");
            return Err(KosyncError::Server(
                "the sync server sends the sign-in on to another address; enter that address instead"
                    .into(),
            ));
        }
        let bytes = read_at_most(response, MAX_ANSWER as u64)
            .await
            .map_err(|e| KosyncError::Unreachable(unreachable(url, &e)))?
            .ok_or_else(|| {
                KosyncError::Server(format!(
                    "the sync server sent an answer over {MAX_ANSWER} bytes"
                ))
            })?;
        if status == reqwest::StatusCode::UNAUTHORIZED
            || status == reqwest::StatusCode::FORBIDDEN && body_says_unauthorized(&bytes)
        {
            return Err(KosyncError::Refused);
        }
        if !status.is_success() {
            tracing::info!(url = %redact(url), %status, "the sync server refused the request");
            let code = format!(
                "the sync server answered {} ({})",
                status.as_u16(),
                status.canonical_reason().unwrap_or("an error")
            );
            return Err(KosyncError::Server(
                if status == reqwest::StatusCode::NOT_FOUND {
                    format!("{code}: is this a KOReader sync server's address?")
                } else {
                    code
                },
            ));
        }
        Ok((
            status,
            serde_json::from_slice(&bytes).unwrap_or(serde_json::Value::Null),
        ))
    }
}

/// Why a request got no answer, as a plain sentence; the address goes to the log only.
fn unreachable(url: &Url, e: &reqwest::Error) -> String {
    tracing::info!(url = %redact(url), cause = %e.without_url_ref_text(), "the sync server gave no answer");
    if e.is_timeout() {
        "the sync server is not answering".to_owned()
    } else if e.is_connect() {
        "the sync server cannot be reached".to_owned()
    } else {
        format!(
            "the sync server cannot be reached ({})",
            e.without_url_ref_text()
        )
    }
}

/// A reqwest error's text without the address it names.
trait WithoutUrlText {
    fn without_url_ref_text(&self) -> String;
}

impl WithoutUrlText for reqwest::Error {
    fn without_url_ref_text(&self) -> String {
        let mut text = self.to_string();
        if let Some(u) = self.url() {
            text = text.replace(&format!(" ({u})"), "").replace(u.as_str(), "");
        }
        text
    }
}

fn body_says_unauthorized(bytes: &[u8]) -> bool {
    String::from_utf8_lossy(bytes)
        .to_ascii_lowercase()
        .contains("unauthorized")
}

/// `base` + `path`, keeping whatever path the server's address has (Komga's `…/koreader`).
fn endpoint(base: &str, path: &str) -> Result<Url, KosyncError> {
    let mut base =
        Url::parse(base.trim()).map_err(|e| KosyncError::InvalidUrl(format!("{base}: {e}")))?;
    if !matches!(base.scheme(), "http" | "https") || base.host_str().is_none() {
        return Err(KosyncError::InvalidUrl(base.to_string()));
    }
    if !base.path().ends_with('/') {
        let with_slash = format!("{}/", base.path());
        base.set_path(&with_slash);
    }
    base.join(path)
        .map_err(|e| KosyncError::InvalidUrl(e.to_string()))
}

/// Checks the user and password with the sync server and, if it accepts them, keeps the account
/// (its key in the credential store). A device id is made the first time.
pub async fn sign_in(
    store: &Store,
    credentials: &Credentials,
    client: &KosyncClient,
    url: &str,
    username: &str,
    password: &Secret,
) -> Result<KosyncAccount, KosyncError> {
    let username = username.trim();
    if username.is_empty() {
        return Err(KosyncError::EmptyUser);
    }
    let key = user_key(password.expose());
    let auth = endpoint(url, "users/auth")?;
    client
        .send(reqwest::Method::GET, &auth, username, &key, None)
        .await?;
    let device_id = match account(store)? {
        Some(old) => old.device_id,
        None => format!("{:032x}", rand::random::<u128>()),
    };
    let account = KosyncAccount {
        url: url.trim().trim_end_matches('/').to_string(),
        username: username.to_string(),
        device_id,
    };
    credentials.set(&key_account(credentials), &key)?;
    settings::set(store, &account)?;
    Ok(account)
}

/// Forgets the account and its key; nothing queued is sent any more.
pub fn sign_out(store: &Store, credentials: &Credentials) -> Result<(), KosyncError> {
    credentials.delete(&key_account(credentials))?;
    store.write(|tx| {
        tx.execute("DELETE FROM settings WHERE key = ?1", [KosyncAccount::KEY])
            .map_err(|e| store.sql_error(e))?;
        tx.execute("DELETE FROM kosync_outbox", [])
            .map_err(|e| store.sql_error(e))?;
        Ok::<_, StoreError>(())
    })?;
    Ok(())
}

/// Queues a book whose position was just saved, inside the caller's transaction.
pub(crate) fn queue_in(
    store: &Store,
    tx: &rusqlite::Transaction<'_>,
    book_id: i64,
    at_ms: i64,
) -> Result<(), StoreError> {
    tx.execute(
        "INSERT INTO kosync_outbox (book_id, updated_at_ms) VALUES (?1, ?2)
         ON CONFLICT (book_id) DO UPDATE SET updated_at_ms = excluded.updated_at_ms, attempts = 0, last_error = NULL",
        params![book_id, at_ms],
    )
    .map_err(|e| store.sql_error(e))?;
    Ok(())
}

/// The stored file of a book kept as one file, once its download is done.
fn stored_file(store: &Store, book: &Book) -> Result<Option<std::path::PathBuf>, StoreError> {
    if book.streams_pages() || book.file_url.is_none() {
        return Ok(None);
    }
    let done = download_stack::tasks_of_book(store, book.id)?
        .into_iter()
        .any(|t| t.kind == TaskKind::File && t.state == TaskState::Done);
    if !done {
        return Ok(None);
    }
    Ok(PartFiles::new(store.data_dir().books())
        .find_book_file(book.id)
        .filter(|p| p.is_file()))
}

/// A stored book's document id (hashed once per file size, then kept).
pub fn document_of(store: &Store, book: &Book) -> Result<Option<String>, StoreError> {
    let Some(path) = stored_file(store, book)? else {
        return Ok(None);
    };
    let Ok(len) = std::fs::metadata(&path).map(|m| m.len() as i64) else {
        return Ok(None);
    };
    let kept: Option<String> = store
        .read(|c| {
            c.query_row(
                "SELECT document FROM kosync_documents WHERE book_id = ?1 AND file_len = ?2",
                params![book.id, len],
                |r| r.get(0),
            )
            .optional()
        })
        .map_err(|e| store.sql_error(e))?;
    if kept.is_some() {
        return Ok(kept);
    }
    let Ok(document) = document_id(&path) else {
        return Ok(None);
    };
    store.write(|tx| {
        tx.execute(
            "INSERT INTO kosync_documents (book_id, document, file_len) VALUES (?1, ?2, ?3)
             ON CONFLICT (book_id) DO UPDATE SET document = excluded.document, file_len = excluded.file_len",
            params![book.id, document, len],
        )
        .map_err(|e| store.sql_error(e))?;
        Ok::<_, StoreError>(())
    })?;
    Ok(Some(document))
}

/// A book's position as KOReader writes it: `(progress, percentage)`.
fn progress_of(store: &Store, book: &Book) -> Result<Option<(String, f64)>, StoreError> {
    if book.format == BookFormat::Epub {
        let Some(position) = crate::epub_positions::position(store, book.id)? else {
            // Marked unread (a time, no position): the start of the book.
            let unread = book.position_ms.is_some()
                && crate::read_state::is_finished(store, book.id)? == Some(false);
            return Ok(unread.then(|| ("/body/DocFragment[1]/body".to_owned(), 0.0)));
        };
        let Some(item) = spine_item(&position.cfi) else {
            return Ok(None);
        };
        return Ok(Some((
            format!("/body/DocFragment[{item}]/body"),
            position.fraction.clamp(0.0, 1.0),
        )));
    }
    let (Some(page), Some(count)) = (book.last_page, book.page_count.filter(|c| *c > 0)) else {
        return Ok(None);
    };
    let page = page.clamp(0, count - 1) + 1;
    Ok(Some((page.to_string(), page as f64 / count as f64)))
}

/// The 1-based spine item an EPUB CFI points into (`epubcfi(/6/14!…)` → 7).
pub fn spine_item(cfi: &str) -> Option<u32> {
    let inner = cfi.strip_prefix("epubcfi(/6/")?;
    let digits: String = inner.chars().take_while(char::is_ascii_digit).collect();
    let step: u32 = digits.parse().ok()?;
    (step >= 2 && step % 2 == 0).then_some(step / 2)
}

/// The spine item of a CREngine XPointer (`/body/DocFragment[7]/body/p[3]…` → 7).
pub fn xpointer_item(xpointer: &str) -> Option<u32> {
    let rest = xpointer.strip_prefix("/body/DocFragment[")?;
    let digits: String = rest.chars().take_while(char::is_ascii_digit).collect();
    digits.parse().ok().filter(|n| *n >= 1)
}

/// What one [`flush`] did.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize)]
pub struct KosyncReport {
    pub sent: u32,
    /// Queued books with nothing to send (no stored file, no position): dropped.
    pub skipped: u32,
    /// Kept for later (the server could not be reached or refused).
    pub failed: u32,
}

/// Sends every queued position to the sync server, oldest first. Without an account the queue
/// is emptied (there is nowhere to send it).
pub async fn flush(
    store: &Store,
    credentials: &Credentials,
    client: &KosyncClient,
) -> Result<KosyncReport, KosyncError> {
    let mut report = KosyncReport::default();
    // The database and the stored files are worked on off the async threads, a short step at a
    // time between requests.
    let queued = store
        .call(|store| -> Result<_, KosyncError> {
            let rows: Vec<(i64, i64)> = store
                .read(|c| {
                    let mut stmt = c.prepare_cached(
                        "SELECT book_id, updated_at_ms FROM kosync_outbox ORDER BY updated_at_ms, book_id",
                    )?;
                    let rows = stmt.query_map([], |r| Ok((r.get(0)?, r.get(1)?)))?;
                    rows.collect()
                })
                .map_err(|e| store.sql_error(e))?;
            if rows.is_empty() {
                return Ok(None);
            }
            let Some(account) = account(store)? else {
                store.write(|tx| {
                    tx.execute("DELETE FROM kosync_outbox", [])
                        .map_err(|e| store.sql_error(e))?;
                    Ok::<_, StoreError>(())
                })?;
                return Ok(None);
            };
            Ok(Some((rows, account)))
        })
        .await?;
    let Some((rows, account)) = queued else {
        return Ok(report);
    };
    let Some(key) = credentials.get(&key_account(credentials))? else {
        return Err(KosyncError::NoAccount);
    };
    let url = endpoint(&account.url, "syncs/progress")?;
    for (book_id, queued_at) in rows {
        let sendable = store
            .call(move |store| -> Result<_, KosyncError> {
                let sendable = match books::get(store, book_id) {
                    Ok(book) => match (document_of(store, &book)?, progress_of(store, &book)?) {
                        (Some(document), Some(progress)) => Some((document, progress)),
                        _ => None,
                    },
                    Err(books::BookError::NotFound(_)) => None,
                    Err(books::BookError::Store(e)) => return Err(e.into()),
                };
                if sendable.is_none() {
                    forget(store, book_id, queued_at)?;
                }
                Ok(sendable)
            })
            .await?;
        let Some((document, (progress, percentage))) = sendable else {
            report.skipped += 1;
            continue;
        };
        let body = serde_json::json!({
            "document": document,
            "progress": progress,
            "percentage": percentage,
            "device": DEVICE_NAME,
            "device_id": account.device_id,
        });
        match client
            .send(
                reqwest::Method::PUT,
                &url,
                &account.username,
                &key,
                Some(body),
            )
            .await
        {
            Ok(_) => {
                store
                    .call(move |store| forget(store, book_id, queued_at))
                    .await?;
                report.sent += 1;
            }
            Err(e @ (KosyncError::Store(_) | KosyncError::Credential(_))) => return Err(e),
            Err(e) => {
                report.failed += 1;
                let refused = matches!(e, KosyncError::Refused);
                let reason = e.to_string();
                store
                    .call(move |store| {
                        store.execute(
                            "UPDATE kosync_outbox SET attempts = attempts + 1, last_error = ?2 WHERE book_id = ?1",
                            params![book_id, reason],
                        )
                    })
                    .await?;
                // The server is away or refuses this account: the rest would fare no better.
                if refused || matches!(e, KosyncError::Unreachable(_)) {
                    break;
                }
            }
        }
    }
    Ok(report)
}

fn forget(store: &Store, book_id: i64, queued_at: i64) -> Result<(), StoreError> {
    store.execute(
        "DELETE FROM kosync_outbox WHERE book_id = ?1 AND updated_at_ms = ?2",
        params![book_id, queued_at],
    )?;
    Ok(())
}

/// Books queued for the sync server, with their last error: `(book_id, attempts, last_error)`.
pub fn pending(store: &Store) -> Result<Vec<(i64, i64, Option<String>)>, StoreError> {
    store
        .read(|c| {
            let mut stmt = c.prepare_cached("SELECT book_id, attempts, last_error FROM kosync_outbox ORDER BY updated_at_ms, book_id")?;
            let rows = stmt.query_map([], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)))?;
            rows.collect()
        })
        .map_err(|e| store.sql_error(e))
}

/// A position the sync server holds for a book, from another device.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct KosyncPosition {
    /// 0-based page, for paged books.
    pub page: Option<i64>,
    /// The start of the spine item, as a CFI, for EPUBs.
    pub cfi: Option<String>,
    pub percentage: f64,
    /// When the server took it (unix milliseconds).
    pub modified_ms: i64,
    /// The device that sent it, as it named itself.
    pub device: String,
}

/// The sync server's position for a stored book, when another device sent it. `Ok(None)` when
/// there is no account, the book has no stored file, or the server holds nothing for it.
pub async fn newest(
    store: &Store,
    credentials: &Credentials,
    client: &KosyncClient,
    book: &Book,
) -> Result<Option<KosyncPosition>, KosyncError> {
    let of = book.clone();
    let found = store
        .call(move |store| -> Result<_, KosyncError> {
            let Some(account) = account(store)? else {
                return Ok(None);
            };
            Ok(document_of(store, &of)?.map(|document| (account, document)))
        })
        .await?;
    let Some((account, document)) = found else {
        return Ok(None);
    };
    let Some(key) = credentials.get(&key_account(credentials))? else {
        return Ok(None);
    };
    let url = endpoint(&account.url, &format!("syncs/progress/{document}"))?;
    let (_, answer) = client
        .send(reqwest::Method::GET, &url, &account.username, &key, None)
        .await?;
    Ok(read_position(&answer, &account, book))
}

fn read_position(
    answer: &serde_json::Value,
    account: &KosyncAccount,
    book: &Book,
) -> Option<KosyncPosition> {
    let progress = answer.get("progress")?.as_str()?;
    let percentage = answer
        .get("percentage")
        .and_then(serde_json::Value::as_f64)
        .filter(|p| p.is_finite())?
        .clamp(0.0, 1.0);
    let timestamp = answer
        .get("timestamp")
        .and_then(serde_json::Value::as_i64)?;
    if answer.get("device_id").and_then(serde_json::Value::as_str)
        == Some(account.device_id.as_str())
    {
        return None; // our own
    }
    let device = answer
        .get("device")
        .and_then(serde_json::Value::as_str)
        .unwrap_or("another device")
        .chars()
        .take(64)
        .collect();
    let modified_ms = timestamp.checked_mul(1000)?;
    if book.format == BookFormat::Epub {
        // The start of the spine item KOReader was in; the fraction says how far into the book.
        let item = xpointer_item(progress)?;
        return Some(KosyncPosition {
            page: None,
            cfi: Some(format!("epubcfi(/6/{}!/4)", item * 2)),
            percentage,
            modified_ms,
            device,
        });
    }
    let count = book.page_count.filter(|c| *c > 0)?;
    let page = progress.trim().parse::<i64>().ok()?.clamp(1, count) - 1;
    Some(KosyncPosition {
        page: Some(page),
        cfi: None,
        percentage,
        modified_ms,
        device,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cfis_and_xpointers_name_the_same_spine_item() {
        assert_eq!(spine_item("epubcfi(/6/14!/4/2/1:0)"), Some(7));
        assert_eq!(spine_item("epubcfi(/6/2[cover]!/4)"), Some(1));
        assert_eq!(spine_item("epubcfi(/6/3!/4)"), None);
        assert_eq!(spine_item("epubcfi(/4/2!/4)"), None);
        assert_eq!(
            xpointer_item("/body/DocFragment[7]/body/p[3]/text().12"),
            Some(7)
        );
        assert_eq!(xpointer_item("/body/DocFragment[0]/body"), None);
        assert_eq!(xpointer_item("42"), None);
    }

    #[test]
    fn the_user_key_is_the_md5_of_the_password() {
        // md5("secret"), as `printf secret | md5sum` prints it.
        assert_eq!(
            user_key("secret").expose(),
            "5ebe2294ecd0e0f08eab7690d2a6ee69"
        );
    }

    #[test]
    fn endpoints_keep_the_servers_own_path() {
        assert_eq!(
            endpoint("https://h/koreader", "users/auth")
                .unwrap()
                .as_str(),
            "https://h/koreader/users/auth"
        );
        assert_eq!(
            endpoint("https://h/", "syncs/progress").unwrap().as_str(),
            "https://h/syncs/progress"
        );
        assert!(matches!(
            endpoint("ftp://h", "x"),
            Err(KosyncError::InvalidUrl(_))
        ));
        assert!(matches!(
            endpoint("not a url", "x"),
            Err(KosyncError::InvalidUrl(_))
        ));
    }
}
