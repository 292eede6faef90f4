//! Book covers for the windows: the cover stored with a downloaded book when there is one, else
//! a copy kept in the `covers/` folder of the data dir (`covers/<book id>.<ext>`), fetched once
//! through the server's polite request slot and written atomically.
//!
//! The type of an image is told from its bytes, never from what a server declared; bytes that
//! are no known image, or whose header claims more pixels than a window is given, are not
//! served. A cover that could not be fetched is not asked for again
//! for a while, and a server that could not be reached gets no cover request for a while, so a
//! grid of covers never queues dozens of doomed requests in front of the downloads.
//!
//! Owns the `covers/` folder. Knows nothing of how covers reach a window.

use std::collections::{HashMap, HashSet};
use std::io;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

use url::Url;

use carrel_foundation::data_dir::DataDir;
use carrel_foundation::image_type;
use carrel_foundation::part_files::{self, PartFiles};
use carrel_foundation::store::{Store, StoreError};
use carrel_http::http_fetch::{FetchError, HttpClient, ServerAccess};
use carrel_library::books::{self, Book};
use carrel_library::credentials::Credentials;
use carrel_library::servers;

/// The largest cover accepted.
pub const MAX_COVER_BYTES: u64 = 32 << 20;
/// How long a cover the server refused (or that is no image) is not asked for again.
pub const MISSING_RETRY_MS: i64 = 10 * 60_000;
/// How long covers are not fetched from a server that could not be reached.
pub const SERVER_AWAY_MS: i64 = 30_000;
/// How long after the first cover asked for the kept covers are tidied: reading every book's id
/// and the covers folder is not done while the first screen and its covers are being painted.
pub const SWEEP_DELAY: std::time::Duration = std::time::Duration::from_secs(20);

/// The image types covers are kept as, and their file extensions.
const TYPES: &[(&str, &str)] = &[
    ("image/jpeg", "jpg"),
    ("image/png", "png"),
    ("image/webp", "webp"),
    ("image/gif", "gif"),
    ("image/avif", "avif"),
    ("image/heic", "heic"),
    ("image/heif", "heif"),
    ("image/jxl", "jxl"),
    ("image/bmp", "bmp"),
];

/// A cover ready to serve.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Cover {
    pub bytes: Vec<u8>,
    /// Sniffed from the bytes.
    pub content_type: &'static str,
}

#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum CoverError {
    #[error(transparent)]
    Store(#[from] StoreError),
    #[error("cannot keep the cover: {0}")]
    Disk(#[from] io::Error),
}

impl carrel_foundation::error::Failure for CoverError {
    /// A lost lease, a task in another state or a disk that failed: this device's storage.
    fn kind(&self) -> carrel_foundation::error::ErrorKind {
        carrel_foundation::error::ErrorKind::Storage
    }
}

/// The covers folder of a data dir.
pub fn cache_dir(dir: &DataDir) -> PathBuf {
    dir.root().join("covers")
}

/// Whether the windows can show a cover for the book (one is stored, kept, or can be fetched).
pub fn has_cover(store: &Store, book: &Book) -> bool {
    book.cover_url.is_some() || find_local(store.data_dir(), book.id).is_some()
}

/// The cover file on this device for a book, if any: the one stored with the book first.
pub fn find_local(dir: &DataDir, book_id: i64) -> Option<PathBuf> {
    PartFiles::new(dir.books())
        .find_cover(book_id)
        .or_else(|| find_cached(&cache_dir(dir), book_id))
}

/// Deletes the kept cover of a book (its server was removed).
pub fn forget(dir: &DataDir, book_id: i64) {
    while let Some(path) = find_cached(&cache_dir(dir), book_id) {
        if std::fs::remove_file(&path).is_err() {
            break;
        }
    }
}

/// A stored page whose address is the cover's: some servers give page 0 (or 1) as the
/// thumbnail, and one URL is fetched once.
fn stored_page_for_cover(dir: &DataDir, book: &Book) -> Option<PathBuf> {
    let cover = book.cover_url.as_deref()?;
    let files = PartFiles::new(dir.books());
    (0..book.page_count.unwrap_or(0).min(2))
        .find(|&p| {
            carrel_engine::book_downloads::page_url(book, p)
                .is_some_and(|u| same_address(&u, cover))
        })
        .and_then(|p| files.find_page(book.id, p))
}

/// Whether two addresses name the same resource once bookmark parameters are set aside.
fn same_address(a: &str, b: &str) -> bool {
    match (Url::parse(a), Url::parse(b)) {
        (Ok(a), Ok(b)) => {
            carrel_opds::strip_bookmark_params(&a) == carrel_opds::strip_bookmark_params(&b)
        }
        _ => a == b,
    }
}

fn find_cached(covers: &Path, book_id: i64) -> Option<PathBuf> {
    TYPES
        .iter()
        .map(|(_, ext)| covers.join(format!("{book_id}.{ext}")))
        .find(|p| p.is_file())
}

fn extension_of(content_type: &str) -> Option<&'static str> {
    TYPES
        .iter()
        .find(|(t, _)| *t == content_type)
        .map(|(_, ext)| *ext)
}

/// The type a cover is served as: a known image whose header claims no more pixels than a
/// window is given ([`image_type::image_for_window`], the check pages pass too); `None` for
/// anything else, which is not served.
fn cover_type(bytes: &[u8]) -> Option<&'static str> {
    image_type::image_for_window(bytes)
        .ok()
        .flatten()
        .filter(|t| extension_of(t).is_some())
}

/// Reads a cover file; `None` when it is gone or is no cover to serve ([`cover_type`]).
fn read_cover(path: &Path) -> io::Result<Option<Cover>> {
    let bytes = match std::fs::read(path) {
        Ok(b) => b,
        Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(None),
        Err(e) => return Err(e),
    };
    Ok(cover_type(&bytes).map(|content_type| Cover {
        bytes,
        content_type,
    }))
}

/// What to do for a book without a cover on the device.
enum Plan {
    Serve(Cover),
    Nothing,
    Fetch { book: Box<Book>, url: Url },
}

/// The covers of one data dir: shared by every request of a process.
pub struct CoverCache {
    dir: DataDir,
    state: Mutex<State>,
    /// Network fetches run one at a time per process; they take the server's slot anyway.
    fetching: tokio::sync::Semaphore,
}

#[derive(Default)]
struct State {
    /// Book id → until when not to fetch its cover again.
    missing: HashMap<i64, i64>,
    /// Server id → until when not to fetch covers from it.
    away: HashMap<i64, i64>,
    /// Server id → until when, and with which credentials (their generation), the server
    /// refused covers: covers are asked for again at once when a password is given.
    refused: HashMap<i64, (i64, u64)>,
    /// One fetch per book at a time: the second request waits and finds the file.
    in_flight: HashMap<i64, Arc<tokio::sync::Mutex<()>>>,
    swept: bool,
}

impl CoverCache {
    pub fn new(dir: &DataDir) -> CoverCache {
        CoverCache {
            dir: dir.clone(),
            state: Mutex::new(State::default()),
            fetching: tokio::sync::Semaphore::new(1),
        }
    }

    fn state(&self) -> std::sync::MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// The cover of a book: from the device, else fetched once from its server and kept.
    /// `Ok(None)` when the book is unknown, has no cover, or its cover cannot be had now.
    pub async fn cover(
        &self,
        store: &Store,
        credentials: &Credentials,
        http: &HttpClient,
        book_id: i64,
    ) -> Result<Option<Cover>, CoverError> {
        self.sweep_once(store);
        let (book, url) = match self.plan(store, credentials, book_id).await? {
            Plan::Serve(cover) => return Ok(Some(cover)),
            Plan::Nothing => return Ok(None),
            Plan::Fetch { book, url } => (book, url),
        };
        let gate = self.state().in_flight.entry(book_id).or_default().clone();
        let _one_per_book = gate.lock().await;
        // Another request may have fetched it while this one waited.
        let result = match self.plan(store, credentials, book_id).await? {
            Plan::Serve(cover) => Ok(Some(cover)),
            Plan::Nothing => Ok(None),
            Plan::Fetch { .. } => self.fetch(store, credentials, http, &book, &url).await,
        };
        self.state().in_flight.remove(&book_id);
        result
    }

    async fn plan(
        &self,
        store: &Store,
        credentials: &Credentials,
        book_id: i64,
    ) -> Result<Plan, CoverError> {
        let dir = self.dir.clone();
        let now = store.now_ms();
        let local = store
            .call(
                move |store| -> Result<(Option<Book>, Option<Cover>), CoverError> {
                    let book = match books::get(store, book_id) {
                        Ok(b) => b,
                        Err(books::BookError::NotFound(_)) => return Ok((None, None)),
                        Err(books::BookError::Store(e)) => return Err(e.into()),
                    };
                    let cover = match find_local(&dir, book_id)
                        .or_else(|| stored_page_for_cover(&dir, &book))
                    {
                        Some(path) => read_cover(&path)?,
                        None => None,
                    };
                    Ok((Some(book), cover))
                },
            )
            .await?;
        let book = match local {
            (_, Some(cover)) => return Ok(Plan::Serve(cover)),
            (None, None) => return Ok(Plan::Nothing),
            (Some(book), None) => book,
        };
        // Only a server's address is asked for (a `data:` or other cover is not fetched, and
        // its failure never marks the whole server away).
        let Some(url) = book
            .cover_url
            .as_deref()
            .and_then(|u| Url::parse(u).ok())
            .filter(|u| matches!(u.scheme(), "http" | "https"))
        else {
            return Ok(Plan::Nothing);
        };
        let state = self.state();
        let generation = credentials.generation();
        let blocked = state
            .missing
            .get(&book_id)
            .is_some_and(|&until| until > now)
            || state
                .away
                .get(&book.server_id)
                .is_some_and(|&until| until > now)
            || state
                .refused
                .get(&book.server_id)
                .is_some_and(|&(until, refused_with)| until > now && refused_with == generation);
        Ok(if blocked {
            Plan::Nothing
        } else {
            Plan::Fetch {
                book: Box::new(book),
                url,
            }
        })
    }

    async fn fetch(
        &self,
        store: &Store,
        credentials: &Credentials,
        http: &HttpClient,
        book: &Book,
        url: &Url,
    ) -> Result<Option<Cover>, CoverError> {
        let _turn = self
            .fetching
            .acquire()
            .await
            .map_err(|e| CoverError::Disk(io::Error::other(e)))?;
        // Read before the secret is: a password given meanwhile is newer than this refusal.
        let credentials_used = credentials.generation();
        let server_id = book.server_id;
        let access = match store
            .call(move |store| servers::get(store, server_id))
            .await
            .map_err(carrel_library::error::Error::from)
            .and_then(|server| ServerAccess::load(&server, credentials))
        {
            Ok(a) => a,
            Err(e) => {
                tracing::debug!(book = book.id, cause = %e, "no access to the cover's server");
                return Ok(None);
            }
        };
        let fetched = match http.get_bytes(store, &access, url, MAX_COVER_BYTES).await {
            Ok(f) => f,
            Err(FetchError::Store(e)) => return Err(e.into()),
            Err(e) => {
                let now = store.now_ms();
                let mut state = self.state();
                match e {
                    // A refused certificate is the whole server's, and may be trusted any time.
                    FetchError::Transient(_) | FetchError::Certificate(_) => {
                        state.away.insert(book.server_id, now + SERVER_AWAY_MS);
                    }
                    FetchError::Auth(_) => {
                        state
                            .refused
                            .insert(book.server_id, (now + MISSING_RETRY_MS, credentials_used));
                    }
                    _ => {
                        state.missing.insert(book.id, now + MISSING_RETRY_MS);
                    }
                };
                tracing::debug!(book = book.id, cause = %e, "no cover");
                return Ok(None);
            }
        };
        let Some((content_type, ext)) =
            cover_type(&fetched.bytes).and_then(|t| Some((t, extension_of(t)?)))
        else {
            self.state()
                .missing
                .insert(book.id, store.now_ms() + MISSING_RETRY_MS);
            tracing::debug!(
                book = book.id,
                "the server's cover is no image Carrel shows"
            );
            return Ok(None);
        };
        let path = cache_dir(&self.dir).join(format!("{}.{ext}", book.id));
        let bytes = fetched.bytes;
        let bytes = tokio::task::spawn_blocking(move || {
            part_files::write_atomically(&path, &bytes).map(|()| bytes)
        })
        .await
        .map_err(|e| CoverError::Disk(io::Error::other(e)))??;
        Ok(Some(Cover {
            bytes,
            content_type,
        }))
    }

    /// The first time covers are asked for in a process, forgets (in the background, once
    /// [`SWEEP_DELAY`] has passed) the kept covers of books no longer known, e.g. those of a
    /// removed server.
    fn sweep_once(&self, store: &Store) {
        {
            let mut state = self.state();
            if state.swept {
                return;
            }
            state.swept = true;
        }
        let store = store.clone();
        let dir = self.dir.clone();
        tokio::spawn(async move {
            tokio::time::sleep(SWEEP_DELAY).await;
            let swept = tokio::task::spawn_blocking(move || collect_orphans(&store, &dir)).await;
            match swept {
                Ok(Ok(0)) | Err(_) => {}
                Ok(Ok(n)) => {
                    tracing::info!(covers = n, "forgot the covers of books no longer known")
                }
                Ok(Err(e)) => tracing::warn!(cause = %e, "could not tidy the covers folder"),
            }
        });
    }
}

/// Removes kept covers of books the store no longer knows, and temp files a crash left.
/// Returns how many files went.
pub fn collect_orphans(store: &Store, dir: &DataDir) -> Result<usize, CoverError> {
    let known: HashSet<i64> = books::all_ids(store)?.into_iter().collect();
    let entries = match std::fs::read_dir(cache_dir(dir)) {
        Ok(e) => e,
        Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(0),
        Err(e) => return Err(e.into()),
    };
    let mut removed = 0;
    for entry in entries.flatten() {
        let path = entry.path();
        let name = entry.file_name();
        let name = name.to_string_lossy();
        let id = name.split('.').next().and_then(|s| s.parse::<i64>().ok());
        let temp = name.ends_with(&format!(".{}", part_files::PARTIAL_SUFFIX));
        if temp || !id.is_some_and(|id| known.contains(&id)) {
            std::fs::remove_file(&path)?;
            removed += 1;
        }
    }
    Ok(removed)
}

/// Bytes of every kept cover, per book id.
pub fn cached_sizes(dir: &DataDir) -> Vec<(i64, u64)> {
    let Ok(entries) = std::fs::read_dir(cache_dir(dir)) else {
        return Vec::new();
    };
    entries
        .flatten()
        .filter_map(|e| {
            let name = e.file_name();
            let id = name
                .to_string_lossy()
                .split('.')
                .next()?
                .parse::<i64>()
                .ok()?;
            Some((id, e.metadata().ok()?.len()))
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A data dir in a new temporary folder (gone when the folder is dropped).
    fn temp_data_dir() -> (tempfile::TempDir, DataDir) {
        let t = tempfile::tempdir().unwrap();
        let dir = DataDir::new(t.path());
        (t, dir)
    }

    #[test]
    fn a_kept_cover_is_found_by_id_and_served_by_its_bytes() {
        let (_t, dir) = temp_data_dir();
        assert_eq!(find_local(&dir, 7), None);
        let png = b"\x89PNG\r\n\x1a\n0000";
        part_files::write_atomically(&cache_dir(&dir).join("7.png"), png).unwrap();
        let found = find_local(&dir, 7).unwrap();
        assert_eq!(
            read_cover(&found).unwrap().unwrap().content_type,
            "image/png"
        );
        // One stored with the book comes first.
        let jpeg = [0xFF, 0xD8, 0xFF, 0xE0, 0, 0];
        part_files::write_atomically(&PartFiles::new(dir.books()).cover_path(7, "jpg"), &jpeg)
            .unwrap();
        let cover = read_cover(&find_local(&dir, 7).unwrap()).unwrap().unwrap();
        assert_eq!(cover.content_type, "image/jpeg");
        // Bytes that are no image are not served.
        part_files::write_atomically(&cache_dir(&dir).join("8.png"), b"<html>").unwrap();
        assert_eq!(read_cover(&find_local(&dir, 8).unwrap()).unwrap(), None);
    }

    #[test]
    fn a_cover_claiming_too_many_pixels_is_not_served() {
        use carrel_foundation::image_type::test_support::png_header;
        let (_t, dir) = temp_data_dir();
        part_files::write_atomically(&cache_dir(&dir).join("7.png"), &png_header(50_000, 50_000))
            .unwrap();
        assert_eq!(read_cover(&find_local(&dir, 7).unwrap()).unwrap(), None);
        let fine = png_header(600, 900);
        part_files::write_atomically(&cache_dir(&dir).join("8.png"), &fine).unwrap();
        assert_eq!(
            read_cover(&find_local(&dir, 8).unwrap()).unwrap(),
            Some(Cover {
                bytes: fine,
                content_type: "image/png"
            })
        );
    }

    #[tokio::test]
    async fn a_cover_whose_address_is_a_stored_page_is_that_page_not_a_second_fetch() {
        use carrel_foundation::clock::ManualClock;
        use carrel_library::books::CatalogBook;
        let (_t, dir) = temp_data_dir();
        let store = Store::open(&dir, std::sync::Arc::new(ManualClock::new(1))).unwrap();
        // A dead server: any fetch would fail, so a cover can only come from the device.
        let server = carrel_library::test_support::silent_server(&store, "S");
        let book = books::remember(
            &store,
            server.id,
            &CatalogBook {
                cover_url: Some("http://127.0.0.1:9/p/0".into()),
                ..carrel_library::test_support::streamed_comic("urn:c", "C", 3)
            },
        )
        .unwrap();
        let png = b"\x89PNG\r\n\x1a\n0000";
        part_files::write_atomically(
            &PartFiles::new(dir.books()).page_path(book.id, 0, "png"),
            png,
        )
        .unwrap();
        let cache = CoverCache::new(&dir);
        let http = HttpClient::new(carrel_http::http_fetch::HttpConfig::default()).unwrap();
        let credentials = Credentials::file_only(&dir, "org.carrel.test");
        let cover = cache
            .cover(&store, &credentials, &http, book.id)
            .await
            .unwrap()
            .expect("the stored page");
        assert_eq!(cover.bytes, png);
        assert!(
            !cache_dir(&dir).join(format!("{}.png", book.id)).exists(),
            "no second copy"
        );
    }
}
