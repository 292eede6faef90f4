//! The commands the web UI calls through `invoke`, one core call each. Blocking work (SQLite,
//! the keyring) runs on the blocking pool, never on the UI thread. Errors reach the UI as
//! `{ kind, message, field }` so it can branch on `kind` and put a message beside `field`.

use std::sync::Arc;

use carrel_core::{
    catalog::book_view::{self, BookDetails},
    catalog::client::{CatalogClient, CatalogView},
    catalog::device_library::{self, DeviceLibrary, DeviceLibraryQuery},
    catalog::download_batches::{self, BatchView},
    catalog::library_folders::{self, LibraryFolder, RemovedFolder, ScanEvent},
    catalog::library_search::{self, ServerAnswer},
    catalog::local_books::{self, ImportMode, ImportedBook},
    catalog::series_read_ahead::{self, Neighbours, SeriesMarked, SeriesView, ServerDefault},
    catalog::storage_usage::{self, StorageUsage},
    engine::book_downloads::{self, StoreRequest},
    engine::downloads_view::{self, DownloadsView, LiveProgress},
    engine::executor,
    foundation::store::Store,
    http::http_fetch::HttpClient,
    http::server_discovery::{Elsewhere, SignIn},
    library::credentials::{Backend, Credentials, Secret},
    library::server_secrets::{self, PasswordChange},
    library::servers::{self, NewServer, Server},
    library::settings::{self, CredentialsNoticeDismissed, Settings},
    reading::annotation_export::{self, ExportFormat},
    reading::annotations::{
        self, Annotation, AnnotationUpdate, Colour as HighlightColour, NewAnnotation,
    },
    reading::archive_pages,
    reading::epub_positions::{self, EpubPosition},
    reading::page_source::WaitPolicy,
    reading::position_sync::{self, ServerPosition},
    ErrorField, ErrorKind,
};
use serde::{Deserialize, Serialize};
use tauri::{ipc::Channel, AppHandle, Manager, Webview};

use crate::app_state::{AppState, Core};
use crate::downloads_watch::DownloadsWatch;
use crate::library_folders_watch::LibraryFoldersWatch;

pub use crate::command_error::CommandError;
use crate::command_error::CommandResult;

/// Runs `f` with the core on the blocking pool.
async fn with_core<T: Send + 'static>(
    app: AppHandle,
    f: impl FnOnce(&Core) -> CommandResult<T> + Send + 'static,
) -> CommandResult<T> {
    on_blocking_pool("internal error: ", move || {
        f(app.state::<AppState>().core()?)
    })
    .await?
}

/// Runs `f` on the blocking pool; when it panics, an error of kind `storage` whose message is
/// `failed` and why.
async fn on_blocking_pool<T: Send + 'static>(
    failed: &str,
    f: impl FnOnce() -> T + Send + 'static,
) -> CommandResult<T> {
    tauri::async_runtime::spawn_blocking(f)
        .await
        .map_err(|e| CommandError::new(ErrorKind::Storage, format!("{failed}{e}")))
}

/// [`with_core`] for a command that reads or writes the store only.
async fn with_store<T: Send + 'static, E>(
    app: AppHandle,
    f: impl FnOnce(&Store) -> Result<T, E> + Send + 'static,
) -> CommandResult<T>
where
    CommandError: From<E>,
{
    with_core(app, move |core| Ok(f(&core.store)?)).await
}

/// The core's handles, for commands that await the network.
fn handles(app: &AppHandle) -> CommandResult<(Store, Arc<Credentials>)> {
    let state = app.state::<AppState>();
    let core = state.core()?;
    Ok((core.store.clone(), core.credentials.clone()))
}

/// What a command that asks the servers holds while it awaits them.
struct Network {
    store: Store,
    credentials: Arc<Credentials>,
    http: HttpClient,
}

impl Network {
    /// The core's handles and the windows' client for a catalog request (see
    /// [`catalog_client`] for `fresh`).
    fn of(app: &AppHandle, fresh: Option<bool>) -> CommandResult<Network> {
        let (store, credentials) = handles(app)?;
        let http = catalog_client(app, fresh)?;
        Ok(Network {
            store,
            credentials,
            http,
        })
    }

    fn catalog(&self) -> CatalogClient<'_> {
        CatalogClient {
            store: &self.store,
            credentials: &self.credentials,
            http: &self.http,
        }
    }
}

/// The windows' HTTP client, kept by the core of this process.
fn window_client(app: &AppHandle) -> CommandResult<HttpClient> {
    Ok(app.state::<AppState>().core()?.http()?)
}

/// The windows' client for a catalog request: a server that did not answer lately is answered
/// for by its kept copy at once, unless the request is `fresh` (the reader's "Try again", or a
/// retry in the background), which asks it and waits.
fn catalog_client(app: &AppHandle, fresh: Option<bool>) -> CommandResult<HttpClient> {
    let http = window_client(app)?;
    Ok(if fresh.unwrap_or(false) {
        http.asking_unresponsive()
    } else {
        http
    })
}

fn downloads_watch(app: &AppHandle) -> CommandResult<Arc<DownloadsWatch>> {
    app.try_state::<Arc<DownloadsWatch>>()
        .map(|w| w.inner().clone())
        .ok_or_else(|| CommandError::new(ErrorKind::Storage, "downloads are unavailable"))
}

/// What the UI needs to know before it draws anything.
#[derive(Debug, Serialize, ts_rs::TS)]
pub struct AppStatus {
    pub version: &'static str,
    pub data_dir: Option<String>,
    /// Where passwords are kept; `file` means no keyring answered.
    pub credentials: Option<Backend>,
    /// Some password (or key, or session) is kept in the file for want of a keyring: the
    /// notice saying so is shown, unless the reader dismissed it for good.
    pub secrets_in_file: bool,
    pub credentials_notice_dismissed: bool,
    /// Some book is on the device (stored, on its way, or opened): the window starts on Home
    /// even without a server. Asked without listing the books.
    pub has_books: bool,
    /// Why the library cannot be opened, when it cannot.
    pub error: Option<CommandError>,
}

#[tauri::command]
pub async fn app_status(app: AppHandle) -> AppStatus {
    let state = app.state::<AppState>();
    let core = state.core();
    AppStatus {
        version: env!("CARGO_PKG_VERSION"),
        data_dir: state.data_dir().map(|d| d.root().display().to_string()),
        credentials: core.as_ref().ok().map(|c| c.credentials.backend()),
        secrets_in_file: core
            .as_ref()
            .is_ok_and(|c| c.credentials.keeps_secrets_in_file().unwrap_or(false)),
        credentials_notice_dismissed: core.as_ref().is_ok_and(|c| {
            settings::get::<CredentialsNoticeDismissed>(&c.store)
                .ok()
                .flatten()
                .is_some_and(|d| d.0)
        }),
        has_books: core
            .as_ref()
            .is_ok_and(|c| book_view::has_books_on_device(&c.store).unwrap_or(false)),
        error: core.err(),
    }
}

/// The notice that passwords are kept in a file is not shown again.
#[tauri::command]
pub async fn dismiss_credentials_notice(app: AppHandle) -> CommandResult<()> {
    with_core(app, |core| {
        Ok(settings::set(
            &core.store,
            &CredentialsNoticeDismissed(true),
        )?)
    })
    .await
}

#[tauri::command]
pub async fn list_servers(app: AppHandle) -> CommandResult<Vec<Server>> {
    with_store(app, servers::list).await
}

/// The "Add server" dialog's fields: those of [`UpdateServerInput`], and the catalog the reader
/// said yes to.
/// (No `Debug`: it holds a password.)
#[derive(Deserialize, ts_rs::TS)]
#[ts(optional_fields = nullable)]
pub struct AddServerInput {
    #[serde(flatten)]
    #[ts(flatten)]
    pub server: UpdateServerInput,
    /// The whole address of a catalog found on another host (or down to plain http) that the
    /// reader said yes to; without it such a catalog is not saved.
    #[serde(default, rename = "acceptCatalog", alias = "accept_catalog")]
    pub accept_catalog: Option<String>,
}

#[tauri::command]
pub async fn add_server(app: AppHandle, input: AddServerInput) -> CommandResult<Server> {
    // A host, host:port or web address leads to the server's catalog, which is what is saved.
    let password = input
        .server
        .password
        .clone()
        .filter(|p| !p.is_empty())
        .map(Secret::new);
    let sign_in = SignIn {
        username: input.server.username.as_deref(),
        secret: password.as_ref(),
        api_key: input.server.api_key.unwrap_or(false),
    };
    let (url, found) = carrel_core::http::server_discovery::catalog_address(
        &input.server.url,
        sign_in,
        input.server.trust_self_signed.unwrap_or(false),
        input.accept_catalog.as_deref(),
    )
    .await
    .map_err(|e| CommandError {
        kind: ErrorKind::InvalidInput,
        message: e.to_string(),
        field: Some(ErrorField::Url),
    })?;
    with_core(app, move |core| {
        let mut new = input.server.new_server();
        if new.name.trim().is_empty() {
            // No name given: the catalog's own title, else its host.
            let title = found.as_ref().and_then(|f| f.title.as_deref());
            new.name = servers::default_name(&core.store, title, &url)?;
        }
        new.url = url;
        Ok(server_secrets::add_with_secret(
            &core.store,
            &core.credentials,
            &new,
            password.as_ref(),
        )?)
    })
    .await
}

/// What the add-server dialog shows before anything is saved: the catalog found from what was
/// typed (a host, host:port, web address or the catalog itself).
#[derive(Debug, Clone, Serialize, ts_rs::TS)]
pub struct FoundCatalog {
    /// "Codex, OPDS 1.2 at http://nas:9810/opds/v1.2/".
    pub description: String,
    pub catalog_url: String,
    pub server_kind: Option<String>,
    pub opds_version: String,
    /// The catalog's own title: the server's name when the reader gives none.
    pub title: Option<String>,
    /// Why the catalog is saved only with the reader's yes (another host, or down to plain
    /// http); absent when it is where the reader typed.
    pub elsewhere: Option<Elsewhere>,
    /// The question the dialog asks before such a catalog is saved.
    pub consent_question: Option<String>,
}

/// Finds the catalog from what the reader typed, without saving anything.
#[tauri::command]
pub async fn discover_server(
    url: String,
    username: Option<String>,
    password: Option<String>,
    trust_self_signed: Option<bool>,
    api_key: Option<bool>,
) -> CommandResult<FoundCatalog> {
    contained(async move {
        let password = password.filter(|p| !p.is_empty()).map(Secret::new);
        let sign_in = SignIn {
            username: username.as_deref(),
            secret: password.as_ref(),
            api_key: api_key.unwrap_or(false),
        };
        let found = carrel_core::http::server_discovery::discover(
            &url,
            sign_in,
            trust_self_signed.unwrap_or(false),
        )
        .await?;
        Ok(FoundCatalog {
            description: found.describe(),
            consent_question: found.consent_question(),
            elsewhere: found.elsewhere,
            catalog_url: found.catalog_url,
            server_kind: found.server_kind,
            opds_version: found.opds_version,
            title: found.title,
        })
    })
    .await
}

#[tauri::command]
pub async fn remove_server(app: AppHandle, id: i64) -> CommandResult<()> {
    with_core(app, move |core| {
        carrel_core::catalog::server_removal::remove_with_secret(
            &core.store,
            &core.credentials,
            id,
        )?;
        Ok(())
    })
    .await
}

/// The "Edit server" and sign-in dialogs' fields; "Add server" sends them too.
/// (No `Debug`: it holds a password.)
#[derive(Deserialize, ts_rs::TS)]
#[ts(optional_fields = nullable)]
pub struct UpdateServerInput {
    pub name: String,
    pub url: String,
    #[serde(default)]
    pub username: Option<String>,
    /// Editing: absent or `null` keeps the saved password, `""` forgets it. Adding: absent or
    /// `""` saves none.
    #[serde(default)]
    pub password: Option<String>,
    /// Absent keeps the current interval (adding: no pause between requests).
    #[serde(default, rename = "minIntervalMs", alias = "min_interval_ms")]
    pub min_interval_ms: Option<i64>,
    /// Absent keeps the current choice (adding: the server's certificate is checked).
    #[serde(default, rename = "trustSelfSigned", alias = "trust_self_signed")]
    pub trust_self_signed: Option<bool>,
    /// The password field holds an API key (sent as `X-API-Key`, without a username).
    #[serde(default, rename = "apiKey", alias = "api_key")]
    pub api_key: Option<bool>,
}

impl UpdateServerInput {
    fn new_server(&self) -> NewServer {
        NewServer {
            name: self.name.clone(),
            url: self.url.clone(),
            username: self.username.clone(),
            min_interval_ms: self.min_interval_ms,
            trust_self_signed: self.trust_self_signed,
            api_key: self.api_key,
        }
    }
}

#[tauri::command]
pub async fn update_server(
    app: AppHandle,
    id: i64,
    input: UpdateServerInput,
) -> CommandResult<Server> {
    with_core(app, move |core| {
        let new = input.new_server();
        let password = PasswordChange::from_field(input.password);
        Ok(server_secrets::update_with_secret(
            &core.store,
            &core.credentials,
            id,
            &new,
            &password,
        )?)
    })
    .await
}

#[tauri::command]
pub async fn resume_server(app: AppHandle, id: i64) -> CommandResult<()> {
    with_store(app, move |store| servers::resume(store, id)).await
}

#[tauri::command]
pub async fn browse_catalog(
    app: AppHandle,
    server_id: i64,
    feed_url: Option<String>,
    fresh: Option<bool>,
) -> CommandResult<CatalogView> {
    contained(async move {
        let net = Network::of(&app, fresh)?;
        Ok(net
            .catalog()
            .browse_view(server_id, feed_url.as_deref())
            .await?)
    })
    .await
}

#[tauri::command]
pub async fn search_catalog(
    app: AppHandle,
    server_id: i64,
    query: String,
    fresh: Option<bool>,
) -> CommandResult<CatalogView> {
    contained(async move {
        let net = Network::of(&app, fresh)?;
        Ok(net.catalog().search_view(server_id, &query).await?)
    })
    .await
}

/// Books known on this device whose title, authors or series match `query`; no server is asked.
#[tauri::command]
pub async fn search_on_device(app: AppHandle, query: String) -> CommandResult<Vec<BookDetails>> {
    with_store(app, move |store| {
        library_search::on_device(store, &query, None)
    })
    .await
}

/// Every server's own search at once; each server's answer is sent on `on_answer` as soon as it
/// comes. Returns how many servers were asked.
#[tauri::command]
pub async fn search_everywhere(
    app: AppHandle,
    query: String,
    on_answer: Channel<ServerAnswer>,
) -> CommandResult<usize> {
    contained(async move {
        let net = Network::of(&app, None)?;
        Ok(
            library_search::across_servers(&net.catalog(), &query, |answer| {
                // A window closed meanwhile no longer listens: nothing to do.
                let _ = on_answer.send(answer);
            })
            .await?,
        )
    })
    .await
}

/// "Keep all offline" on a feed of a server (its root when `feed_url` is absent), following its
/// next pages: one batch, in reading order.
#[tauri::command]
pub async fn keep_feed_offline(
    app: AppHandle,
    server_id: i64,
    feed_url: Option<String>,
) -> CommandResult<BatchView> {
    contained(async move {
        let net = Network::of(&app, None)?;
        let server = servers::get(&net.store, server_id)?;
        Ok(download_batches::keep_feed(&net.catalog(), &server, feed_url.as_deref()).await?)
    })
    .await
}

/// "Keep all offline" on a search's results.
#[tauri::command]
pub async fn keep_search_offline(
    app: AppHandle,
    server_id: i64,
    query: String,
) -> CommandResult<BatchView> {
    contained(async move {
        let net = Network::of(&app, None)?;
        let server = servers::get(&net.store, server_id)?;
        Ok(download_batches::keep_search(&net.catalog(), &server, &query).await?)
    })
    .await
}

#[tauri::command]
pub async fn list_batches(app: AppHandle) -> CommandResult<Vec<BatchView>> {
    with_store(app, download_batches::list).await
}

#[tauri::command]
pub async fn pause_batch(app: AppHandle, id: i64) -> CommandResult<BatchView> {
    with_store(app, move |store| download_batches::pause(store, id)).await
}

#[tauri::command]
pub async fn resume_batch(app: AppHandle, id: i64) -> CommandResult<BatchView> {
    with_store(app, move |store| download_batches::resume(store, id)).await
}

#[tauri::command]
pub async fn move_batch_to_top(app: AppHandle, id: i64) -> CommandResult<BatchView> {
    with_store(app, move |store| download_batches::move_to_top(store, id)).await
}

#[tauri::command]
pub async fn cancel_batch(app: AppHandle, id: i64) -> CommandResult<()> {
    with_store(app, move |store| download_batches::cancel(store, id)).await
}

/// Opens a comic kept as one archive file: its page count and reading direction once its file
/// is on the device (waited for at most [`OPEN_COMIC_WAIT`]; then an error of kind
/// `not_downloaded`, and the window asks again while the download goes on).
#[tauri::command]
pub async fn open_comic(
    app: AppHandle,
    book_id: i64,
) -> CommandResult<archive_pages::ArchiveComic> {
    contained(async move {
        let (store, _) = handles(&app)?;
        archive_pages::open(&store, book_id, file_wait(OPEN_COMIC_WAIT))
            .await
            .map_err(CommandError::from)
    })
    .await
}

const OPEN_COMIC_WAIT: std::time::Duration = std::time::Duration::from_secs(15);

/// Waiting at most `timeout` for a book's file, looked for every tenth of a second.
fn file_wait(timeout: std::time::Duration) -> WaitPolicy {
    WaitPolicy {
        poll: std::time::Duration::from_millis(100),
        timeout,
    }
}

/// Records how many pages a whole-file PDF has, as the PDF reader counted them, so its
/// positions are pages of a known count (saved and synced like a comic's).
#[tauri::command]
pub async fn record_pdf_pages(app: AppHandle, book_id: i64, pages: i64) -> CommandResult<()> {
    contained(async move {
        let (store, _) = handles(&app)?;
        carrel_core::reading::book_source::record_pdf_pages(&store, book_id, pages)
            .map_err(CommandError::from)
    })
    .await
}

/// The KOReader sync account, if one is set up (its key never leaves the credential store).
#[tauri::command]
pub async fn kosync_account(app: AppHandle) -> CommandResult<Option<KosyncAccountView>> {
    with_core(app, |core| {
        Ok(carrel_core::reading::kosync::account(&core.store)?.map(KosyncAccountView::from))
    })
    .await
}

/// What the window is told of the KOReader sync account.
#[derive(Debug, Clone, Serialize, ts_rs::TS)]
#[ts(rename = "KosyncAccount")]
pub struct KosyncAccountView {
    pub url: String,
    pub username: String,
}

impl From<carrel_core::reading::kosync::KosyncAccount> for KosyncAccountView {
    fn from(a: carrel_core::reading::kosync::KosyncAccount) -> Self {
        KosyncAccountView {
            url: a.url,
            username: a.username,
        }
    }
}

/// Signs in to a KOReader sync server: the user and password are checked with it first, then
/// kept (the key in the credential store).
#[tauri::command]
pub async fn kosync_sign_in(
    app: AppHandle,
    url: String,
    username: String,
    password: String,
) -> CommandResult<KosyncAccountView> {
    contained(async move {
        let (store, credentials) = handles(&app)?;
        let client = carrel_core::reading::kosync::KosyncClient::shared()?;
        let account = carrel_core::reading::kosync::sign_in(
            &store,
            &credentials,
            client,
            &url,
            &username,
            &Secret::new(password),
        )
        .await?;
        Ok(account.into())
    })
    .await
}

/// Forgets the KOReader sync account and its key.
#[tauri::command]
pub async fn kosync_sign_out(app: AppHandle) -> CommandResult<()> {
    with_core(app, |core| {
        Ok(carrel_core::reading::kosync::sign_out(
            &core.store,
            &core.credentials,
        )?)
    })
    .await
}

/// Hands a book's stored file to the system's default application for its kind (a format
/// Carrel does not show: MOBI, AZW3, DJVU, …). The file is downloaded first when it is not on
/// the device (waited for at most [`OPEN_ELSEWHERE_WAIT`]). The window names a book, never a
/// path; the path goes no further than the system's opener.
#[tauri::command]
pub async fn open_in_another_app(app: AppHandle, book_id: i64) -> CommandResult<()> {
    contained(async move {
        let (store, _) = handles(&app)?;
        let wait = file_wait(OPEN_ELSEWHERE_WAIT);
        let path = carrel_core::reading::book_source::book_path(&store, book_id, wait)
            .await
            .map_err(CommandError::from)?;
        open::that_detached(&path).map_err(|e| {
            tracing::warn!(book_id, cause = %e, "no application opened a book file");
            CommandError::new(
                ErrorKind::Storage,
                "No application on this system opens this kind of file".to_string(),
            )
        })
    })
    .await
}

const OPEN_ELSEWHERE_WAIT: std::time::Duration = std::time::Duration::from_secs(60);

/// Runs a command's work as its own task, so that even a bug that panics on a server's answer
/// reaches the window as an error instead of a request that never settles.
async fn contained<T: Send + 'static>(
    work: impl std::future::Future<Output = CommandResult<T>> + Send + 'static,
) -> CommandResult<T> {
    tauri::async_runtime::spawn(work).await.map_err(|e| {
        CommandError::new(
            ErrorKind::Server,
            format!("the catalog could not be read: {e}"),
        )
    })?
}

#[tauri::command]
pub async fn book_details(app: AppHandle, book_id: i64) -> CommandResult<BookDetails> {
    with_store(app, move |store| book_view::details(store, book_id)).await
}

#[tauri::command]
pub async fn store_book(app: AppHandle, book_id: i64) -> CommandResult<StoreRequest> {
    with_store(app, move |store| book_downloads::store_book(store, book_id)).await
}

/// `page` is 0-based; absent opens the book where the reader left it.
#[tauri::command]
pub async fn open_book(app: AppHandle, book_id: i64, page: Option<i64>) -> CommandResult<()> {
    with_core(app, move |core| {
        // A book imported from this computer: its file looked at first (moved away, changed,
        // back again), so the reader opens what is there or says to import it again.
        carrel_core::catalog::local_books::check(&core.store, book_id)?;
        book_downloads::open_book(&core.store, book_id, page)?;
        Ok(())
    })
    .await
}

/// The reader turned to `page` (0-based): remembered as the book's position (and the book as
/// opened now), and queued for the server when the book has a progression document; the queue
/// is sent a few seconds after the reader stops turning pages.
#[tauri::command]
pub async fn save_position(app: AppHandle, book_id: i64, page: i64) -> CommandResult<()> {
    // The series' read-ahead follows the reader (see `catalog::series_read_ahead`).
    with_store_then_send(app, move |store| {
        series_read_ahead::record_position(store, book_id, page)
    })
    .await?;
    Ok(())
}

/// [`with_store`] for a change the servers are told of (a position, a read mark): the position
/// sender is woken once it is saved, and sends the queue a few seconds later.
async fn with_store_then_send<T: Send + 'static, E>(
    app: AppHandle,
    f: impl FnOnce(&Store) -> Result<T, E> + Send + 'static,
) -> CommandResult<T>
where
    CommandError: From<E>,
{
    let (done, saved) = with_core(app, move |core| {
        Ok((f(&core.store)?, core.position_saved.clone()))
    })
    .await?;
    saved.notify_one();
    Ok(done)
}

/// How long opening a book waits at most for the server's reading position (milliseconds), and
/// the shortest wait a window may ask for.
const SERVER_POSITION_WAIT_MS: u64 = 10_000;
const SERVER_POSITION_WAIT_MIN_MS: u64 = 100;

/// The server's reading position of a book when it is newer than this device's and elsewhere
/// in the book (read on another device): it becomes this device's position, and the reader
/// moves there if the reader has not turned a page yet. `null` otherwise — also when the server
/// cannot be reached or does not answer within `waitMs` (default and most 10 s): then nothing
/// is taken, so a window that stops waiting never finds the position moved behind its back.
#[tauri::command]
pub async fn take_server_position(
    app: AppHandle,
    book_id: i64,
    wait_ms: Option<u64>,
) -> CommandResult<Option<ServerPosition>> {
    let wait = wait_ms
        .unwrap_or(SERVER_POSITION_WAIT_MS)
        .clamp(SERVER_POSITION_WAIT_MIN_MS, SERVER_POSITION_WAIT_MS);
    contained(async move {
        let net = Network::of(&app, None)?;
        let asked = position_sync::take_newer(&net.store, &net.http, &net.credentials, book_id);
        match tokio::time::timeout(std::time::Duration::from_millis(wait), asked).await {
            Ok(found) => Ok(found?),
            Err(_) => Ok(None),
        }
    })
    .await
}

/// The EPUB reader is at `cfi` (an EPUB CFI), `fraction` of the way through the book, in the
/// chapter its table of contents calls `chapter`: kept as the book's EPUB position, restored
/// exactly when it is opened again.
#[tauri::command]
pub async fn save_epub_position(
    app: AppHandle,
    book_id: i64,
    cfi: String,
    fraction: f64,
    chapter: Option<String>,
) -> CommandResult<()> {
    with_store(app, move |store| {
        series_read_ahead::record_epub_position(store, book_id, &cfi, fraction, chapter.as_deref())
            .map(drop)
    })
    .await
}

/// Where the EPUB reader left a book (`null` when never saved).
#[tauri::command]
pub async fn epub_position(app: AppHandle, book_id: i64) -> CommandResult<Option<EpubPosition>> {
    with_store(app, move |store| epub_positions::position(store, book_id)).await
}

/// A book's bookmarks and highlights, in the book's order (then oldest first). They belong to
/// the book, not its file: removing it from the device keeps them.
#[tauri::command]
pub async fn list_annotations(app: AppHandle, book_id: i64) -> CommandResult<Vec<Annotation>> {
    with_store(app, move |store| annotations::list_for_book(store, book_id)).await
}

/// Adds a bookmark or a highlight (with its colour, and a note if any) to a book.
#[tauri::command]
pub async fn add_annotation(
    app: AppHandle,
    book_id: i64,
    annotation: NewAnnotation,
) -> CommandResult<Annotation> {
    with_store(app, move |store| {
        annotations::add(store, book_id, &annotation)
    })
    .await
}

/// Changes a bookmark's or highlight's note (absent, `null` or blank: no note) and a
/// highlight's colour (absent or `null`: unchanged).
#[tauri::command]
pub async fn update_annotation(
    app: AppHandle,
    id: i64,
    note: Option<String>,
    colour: Option<HighlightColour>,
) -> CommandResult<Annotation> {
    let update = AnnotationUpdate { note, colour };
    with_store(app, move |store| annotations::update(store, id, &update)).await
}

#[tauri::command]
pub async fn delete_annotation(app: AppHandle, id: i64) -> CommandResult<()> {
    with_store(app, move |store| annotations::delete(store, id)).await
}

/// A book's bookmarks and highlights as Markdown or JSON text, for the window to save.
#[tauri::command]
pub async fn export_annotations(
    app: AppHandle,
    book_id: i64,
    format: ExportFormat,
) -> CommandResult<String> {
    with_store(app, move |store| {
        annotation_export::export_book(store, book_id, format)
    })
    .await
}

/// The library folders, with their book counts and last scans.
#[tauri::command]
pub async fn library_folders(app: AppHandle) -> CommandResult<Vec<LibraryFolder>> {
    with_store(app, library_folders::list).await
}

/// The library folders' watch: the folders and the watcher's scans.
fn folders_watch(app: &AppHandle) -> CommandResult<tauri::State<'_, LibraryFoldersWatch>> {
    started(app)
}

/// A part of the app made as it starts, once it is made.
fn started<T: Send + Sync + 'static>(app: &AppHandle) -> CommandResult<tauri::State<'_, T>> {
    app.try_state::<T>()
        .ok_or_else(|| CommandError::new(ErrorKind::Storage, "the app is still starting"))
}

/// Adds a folder the reader chose to the library and starts its first scan (its progress goes
/// to the `watch_library_folders` channels); the folder is watched from now on.
#[tauri::command]
pub async fn add_library_folder(app: AppHandle, path: String) -> CommandResult<LibraryFolder> {
    let (store, _) = handles(&app)?;
    let folder = with_store(app.clone(), move |store| {
        library_folders::add(store, std::path::Path::new(&path))
    })
    .await?;
    let watch = folders_watch(&app)?;
    watch.folders_changed();
    watch.rescan(&store, folder.id);
    Ok(folder)
}

/// Removes a library folder: its books leave the library; the files are never touched.
#[tauri::command]
pub async fn remove_library_folder(app: AppHandle, id: i64) -> CommandResult<RemovedFolder> {
    let removed = with_store(app.clone(), move |store| library_folders::remove(store, id)).await?;
    folders_watch(&app)?.folders_changed();
    Ok(removed)
}

/// Looks through a library folder again now (new, changed and gone files).
#[tauri::command]
pub async fn rescan_library_folder(app: AppHandle, id: i64) -> CommandResult<()> {
    let (store, _) = handles(&app)?;
    let folder = with_store(app.clone(), move |store| library_folders::get(store, id)).await?;
    folders_watch(&app)?.rescan(&store, folder.id);
    Ok(())
}

/// Subscribes a window to the library folders' scans: each scan's progress and its end.
#[tauri::command]
pub async fn watch_library_folders(
    app: AppHandle,
    webview: Webview,
    on_event: Channel<ScanEvent>,
) -> CommandResult<()> {
    folders_watch(&app)?.listen(webview.label(), on_event);
    Ok(())
}

#[tauri::command]
pub async fn remove_book(app: AppHandle, book_id: i64) -> CommandResult<()> {
    with_store(app, move |store| {
        book_downloads::remove_book(store, book_id)
    })
    .await
}

#[tauri::command]
pub async fn retry_book(app: AppHandle, book_id: i64) -> CommandResult<()> {
    with_store(app, move |store| {
        book_downloads::retry_book(store, book_id).map(drop)
    })
    .await
}

/// The books on this device, sorted and filtered as `query` says (everything by title when
/// it says nothing).
#[tauri::command]
pub async fn list_on_device(
    app: AppHandle,
    query: Option<DeviceLibraryQuery>,
) -> CommandResult<DeviceLibrary> {
    let query = query.unwrap_or_default();
    with_store(app, move |store| device_library::query(store, &query)).await
}

#[tauri::command]
pub async fn list_continue_reading(
    app: AppHandle,
    limit: Option<u32>,
) -> CommandResult<Vec<BookDetails>> {
    with_store(app, move |store| book_view::continue_reading(store, limit)).await
}

#[tauri::command]
pub async fn list_downloads(app: AppHandle) -> CommandResult<DownloadsView> {
    let live = downloads_watch(&app)?.live();
    downloads_now(app, live).await
}

/// The downloads page's view, with the progress `live` of the downloads running.
async fn downloads_now(app: AppHandle, live: LiveProgress) -> CommandResult<DownloadsView> {
    with_core(app, move |core| {
        Ok(downloads_view::view(
            &core.store,
            &live,
            Some(core.holder_id.as_str()),
        )?)
    })
    .await
}

/// Sends a view at once, then whenever the downloads change (see [`crate::downloads_watch`]).
#[tauri::command]
pub async fn watch_downloads(
    app: AppHandle,
    webview: Webview,
    on_event: Channel<DownloadsView>,
) -> CommandResult<()> {
    let watch = downloads_watch(&app)?;
    let live = watch.live();
    let view = downloads_now(app, live).await?;
    on_event.send(view).map_err(|e| {
        CommandError::new(ErrorKind::Storage, format!("cannot reach the window: {e}"))
    })?;
    watch.add(webview.label(), on_event);
    Ok(())
}

/// [`with_store`] for a change to the downloads: the windows' downloads pages are sent a view
/// at once.
async fn change_downloads<E>(
    app: AppHandle,
    f: impl FnOnce(&Store) -> Result<(), E> + Send + 'static,
) -> CommandResult<()>
where
    CommandError: From<E>,
{
    let watch = downloads_watch(&app)?;
    with_store(app, f).await?;
    watch.wake();
    Ok(())
}

/// Pauses every download; the windows' downloads pages are sent a view saying so at once.
#[tauri::command]
pub async fn pause_downloads(app: AppHandle) -> CommandResult<()> {
    change_downloads(app, |store| executor::set_paused(store, true)).await
}

#[tauri::command]
pub async fn resume_downloads(app: AppHandle) -> CommandResult<()> {
    change_downloads(app, |store| executor::set_paused(store, false)).await
}

/// Empties the downloads page's list of finished downloads.
#[tauri::command]
pub async fn clear_done_downloads(app: AppHandle) -> CommandResult<()> {
    change_downloads(app, downloads_view::clear_done).await
}

#[tauri::command]
pub async fn move_book_to_top(app: AppHandle, book_id: i64) -> CommandResult<()> {
    with_store(app, move |store| {
        book_downloads::move_book_to_top(store, book_id).map(drop)
    })
    .await
}

#[tauri::command]
pub async fn cancel_book(app: AppHandle, book_id: i64) -> CommandResult<()> {
    with_store(app, move |store| {
        book_downloads::cancel_book(store, book_id)
    })
    .await
}

#[tauri::command]
pub async fn get_settings(app: AppHandle) -> CommandResult<Settings> {
    with_store(app, settings::load).await
}

/// Saves the settings page; lowering "books kept" removes the books no longer kept.
#[tauri::command]
pub async fn set_settings(app: AppHandle, settings: Settings) -> CommandResult<Settings> {
    let saved = with_store(app, move |store| {
        carrel_core::engine::book_downloads::apply_settings(store, &settings)
    })
    .await?;
    // Notifications and the tray speak the language chosen from now on.
    crate::messages::choose(crate::messages::language_for(saved.language.as_deref()));
    Ok(saved)
}

/// A book a lower "books kept" setting would remove from the device.
#[derive(Debug, Clone, Serialize, ts_rs::TS)]
pub struct BookToRemove {
    pub book_id: i64,
    pub title: String,
}

/// The books a "books kept" setting of `books_kept` would remove now (nothing is changed), so
/// the settings page can ask before it removes them.
#[tauri::command]
pub async fn books_removed_if_kept(
    app: AppHandle,
    books_kept: u32,
) -> CommandResult<Vec<BookToRemove>> {
    with_core(app, move |core| {
        Ok(book_downloads::removed_if_kept(&core.store, books_kept)?
            .into_iter()
            .map(|(book_id, title)| BookToRemove { book_id, title })
            .collect())
    })
    .await
}

#[tauri::command]
pub async fn storage_usage(app: AppHandle) -> CommandResult<StorageUsage> {
    with_store(app, storage_usage::usage).await
}

/// Opens another window on a view of the app ("Open in new window"); returns its label.
#[tauri::command]
pub async fn open_window(app: AppHandle, view: String) -> CommandResult<String> {
    crate::main_window::open_extra(&app, &view).map_err(|e| {
        let kind = match e {
            crate::main_window::WindowError::UnknownView(_) => ErrorKind::InvalidInput,
            crate::main_window::WindowError::Tauri(_) => ErrorKind::Storage,
        };
        CommandError::new(kind, e.to_string())
    })
}

/// Closes the calling window as its close button does: when it is the last one and books are
/// left to download, Carrel goes on in the background (see `background`).
#[tauri::command]
pub async fn close_window(window: tauri::Window) -> CommandResult<()> {
    window
        .close()
        .map_err(|e| CommandError::new(ErrorKind::Storage, format!("cannot close the window: {e}")))
}

/// Quits Carrel: windows close, downloads left wait for its next run (a notification says so).
#[tauri::command]
pub async fn quit_app(app: AppHandle) -> CommandResult<()> {
    crate::background::quit(&app);
    Ok(())
}

/// Tells the calling window about the reader's own files from the desktop — a drag over it,
/// files dropped on it, files named by `carrel PATH…` — from now on, and hands it at once the
/// files waiting for a window (see [`crate::local_files`]).
#[tauri::command]
pub async fn watch_desktop_files(
    app: AppHandle,
    webview: Webview,
    on_event: Channel<crate::local_files::FilesEvent>,
) -> CommandResult<()> {
    started::<Arc<crate::local_files::DesktopFiles>>(&app)?.listen(webview.label(), on_event);
    Ok(())
}

/// The most files one `import_files` takes.
pub const MAX_IMPORTED_FILES: usize = 1000;

/// What became of one file given to `import_files`: its book, or why it is not one.
#[derive(Debug, Serialize, ts_rs::TS)]
pub struct ImportedFile {
    /// The path as given.
    pub path: String,
    pub book: Option<ImportedBook>,
    pub error: Option<CommandError>,
}

/// Makes the reader's own files (chosen with File → Open, dropped on a window or named on the
/// command line: never a path a book or a server gave) books of this device, left where they
/// are or, with `copy`, copied into Carrel's library. Each file gets its own answer, so one
/// that is not a book, or is gone, leaves the others imported.
#[tauri::command]
pub async fn import_files(
    app: AppHandle,
    paths: Vec<String>,
    copy: bool,
) -> CommandResult<Vec<ImportedFile>> {
    if paths.len() > MAX_IMPORTED_FILES {
        return Err(CommandError::new(
            ErrorKind::InvalidInput,
            format!("at most {MAX_IMPORTED_FILES} files can be opened at once"),
        ));
    }
    with_core(app, move |core| {
        Ok(paths
            .into_iter()
            .map(|path| {
                let mode = if copy {
                    ImportMode::Copy
                } else {
                    ImportMode::Reference
                };
                let result = if std::path::Path::new(&path).is_absolute() {
                    local_books::import(&core.store, std::path::Path::new(&path), mode)
                        .map_err(CommandError::from)
                } else {
                    Err(CommandError::new(
                        ErrorKind::InvalidInput,
                        format!("“{path}” is not a full path to a file"),
                    ))
                };
                match result {
                    Ok(book) => ImportedFile {
                        path,
                        book: Some(book),
                        error: None,
                    },
                    Err(error) => ImportedFile {
                        path,
                        book: None,
                        error: Some(error),
                    },
                }
            })
            .collect())
    })
    .await
}

#[cfg(test)]
mod tests {
    use super::*;
    use carrel_core::Failure;
    use serde_json::json;

    #[test]
    fn server_inputs_take_the_interval_and_the_certificate_choice_in_either_spelling() {
        let add: AddServerInput = serde_json::from_value(json!({
            "name": "NAS", "url": "https://nas.lan/opds", "minIntervalMs": 250, "trustSelfSigned": true
        }))
        .unwrap();
        let new = add.server.new_server();
        assert_eq!(
            (new.min_interval_ms, new.trust_self_signed),
            (Some(250), Some(true))
        );
        let add: AddServerInput = serde_json::from_value(json!({
            "name": "NAS", "url": "https://nas.lan/opds", "min_interval_ms": 100, "trust_self_signed": false
        }))
        .unwrap();
        assert_eq!(
            (add.server.min_interval_ms, add.server.trust_self_signed),
            (Some(100), Some(false))
        );
        let plain: AddServerInput =
            serde_json::from_value(json!({ "name": "NAS", "url": "https://nas.lan/opds" }))
                .unwrap();
        assert_eq!(
            (plain.server.min_interval_ms, plain.server.trust_self_signed),
            (None, None)
        );

        let update: UpdateServerInput = serde_json::from_value(json!({
            "name": "NAS", "url": "https://nas.lan/opds", "username": null, "trustSelfSigned": true
        }))
        .unwrap();
        let new = update.new_server();
        assert_eq!(
            (new.min_interval_ms, new.trust_self_signed),
            (None, Some(true)),
            "absent keeps the interval"
        );
    }

    use carrel_core::{http::http_fetch::FetchError, library::servers::ServerError};

    #[test]
    fn a_refused_certificate_reaches_the_window_as_its_own_kind() {
        let e = CommandError::from(FetchError::Certificate(
            "https://nas.lan/opds: the server's certificate is not trusted (self-signed?): invalid peer certificate: UnknownIssuer"
                .into(),
        ));
        let v = serde_json::to_value(&e).unwrap();
        assert_eq!(v["kind"], "certificate");
        assert!(
            v["message"].as_str().unwrap().contains("not trusted"),
            "{v}"
        );
        assert!(v.get("field").is_none());
        let away = serde_json::to_value(CommandError::from(FetchError::Transient(
            "cannot reach the server".into(),
        )))
        .unwrap();
        assert_eq!(away["kind"], "server");
    }

    #[test]
    fn an_interval_out_of_range_is_reported_beside_its_field() {
        let e = CommandError::from(ServerError::InvalidInterval);
        assert_eq!(
            (e.kind, e.field),
            (ErrorKind::InvalidInput, Some(ErrorField::MinIntervalMs))
        );
        assert_eq!(
            serde_json::to_value(&e).unwrap()["field"],
            "min_interval_ms"
        );
    }

    /// A core error as the window receives it, named by its type.
    fn reaching_the_window<E: Failure>(e: E) -> (&'static str, CommandError) {
        let name = std::any::type_name::<E>().rsplit("::").next().unwrap();
        (name, CommandError::from(e))
    }

    /// The names of the types that implement `Failure` in the core's crates, read from their
    /// sources (`impl … Failure for Name {`).
    fn failure_types_in_the_sources() -> std::collections::BTreeSet<String> {
        fn walk(dir: &std::path::Path, found: &mut std::collections::BTreeSet<String>) {
            for entry in std::fs::read_dir(dir).unwrap().flatten() {
                let path = entry.path();
                if path.is_dir() {
                    walk(&path, found);
                } else if path.extension().is_some_and(|e| e == "rs") {
                    for line in std::fs::read_to_string(&path).unwrap().lines() {
                        let line = line.trim_start();
                        if !line.starts_with("impl") {
                            continue;
                        }
                        if let Some((_, rest)) = line.split_once("Failure for ") {
                            let name = rest.split(|c: char| !c.is_alphanumeric() && c != '_');
                            found.insert(name.into_iter().next().unwrap().to_owned());
                        }
                    }
                }
            }
        }
        let crates = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("crates");
        let mut found = std::collections::BTreeSet::new();
        for krate in std::fs::read_dir(&crates).unwrap().flatten() {
            walk(&krate.path().join("src"), &mut found);
        }
        walk(
            &std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("core/src"),
            &mut found,
        );
        found
    }

    #[test]
    fn every_core_error_reaches_the_window_with_its_kind_and_field() {
        use carrel_core::{
            catalog::{
                client::CatalogError, cover_cache::CoverError, download_batches::BatchError,
                library_folders::FolderError, library_search::SearchError,
                local_books::ImportError, series_read_ahead::SeriesError,
            },
            engine::{
                book_downloads::DownloadRequestError,
                download_stack::StackError,
                executor::ExecutorError,
                executor_lease::{LeaseError, LeaseLost},
            },
            foundation::{file_types::HandoverError, store::StoreError},
            http::server_discovery::DiscoveryError,
            library::{books::BookError, credentials::CredentialError, settings::SettingsError},
            opds::OpdsError,
            reading::{
                annotations::AnnotationError, comic_archive::ArchiveError,
                epub_positions::EpubPositionError, kosync::KosyncError, page_source::PageError,
            },
        };
        use ErrorField as F;
        use ErrorKind as K;
        // One real instance of every type, with the kind and field the window must get.
        let cases = [
            (reaching_the_window(StoreError::DiskFull), K::Storage, None),
            (
                reaching_the_window(HandoverError::ActiveType("application/x-msdownload".into())),
                K::Server,
                None,
            ),
            (
                reaching_the_window(FetchError::Gone("https://nas.lan/books/1".into())),
                K::Server,
                None,
            ),
            (
                reaching_the_window(DiscoveryError::SignInNeeded),
                K::Auth,
                Some(F::Url),
            ),
            (
                reaching_the_window(ServerError::DuplicateName("NAS".into())),
                K::Conflict,
                Some(F::Name),
            ),
            (
                reaching_the_window(BookError::NotFound(7)),
                K::NotFound,
                None,
            ),
            (
                reaching_the_window(CredentialError::Keyring("locked".into())),
                K::Storage,
                Some(F::Password),
            ),
            (
                reaching_the_window(carrel_core::Error::Server(ServerError::InvalidUrl(
                    "nas".into(),
                ))),
                K::InvalidInput,
                Some(F::Url),
            ),
            (
                reaching_the_window(SettingsError::BooksKept),
                K::InvalidInput,
                Some(F::BooksKept),
            ),
            (
                reaching_the_window(OpdsError::PageOutOfRange { page: 3, count: 2 }),
                K::InvalidInput,
                None,
            ),
            (
                reaching_the_window(LeaseError::Lost(LeaseLost { epoch: 3 })),
                K::Storage,
                None,
            ),
            (
                reaching_the_window(StackError::WrongState(5)),
                K::Storage,
                None,
            ),
            (
                reaching_the_window(ExecutorError::NetworkHeld("the link is metered".into())),
                K::Server,
                None,
            ),
            (
                reaching_the_window(DownloadRequestError::NotAPage(4)),
                K::InvalidInput,
                None,
            ),
            (
                reaching_the_window(KosyncError::Refused),
                K::Auth,
                Some(F::Password),
            ),
            (
                reaching_the_window(ArchiveError::NoSuchPage { page: 9, count: 3 }),
                K::InvalidInput,
                None,
            ),
            (
                reaching_the_window(EpubPositionError::UnknownBook(9)),
                K::NotFound,
                None,
            ),
            (
                reaching_the_window(AnnotationError::NoteTooLong { chars: 10_001 }),
                K::InvalidInput,
                None,
            ),
            (
                reaching_the_window(PageError::OfflineNotDownloaded),
                K::NotDownloaded,
                None,
            ),
            (
                reaching_the_window(CatalogError::Fetch(FetchError::Certificate(
                    "https://nas.lan/opds: not trusted".into(),
                ))),
                K::Certificate,
                None,
            ),
            (
                reaching_the_window(CoverError::Disk(std::io::Error::other("read-only"))),
                K::Storage,
                None,
            ),
            (
                reaching_the_window(SearchError::EmptyQuery),
                K::InvalidInput,
                None,
            ),
            (
                reaching_the_window(BatchError::NotFound(3)),
                K::NotFound,
                None,
            ),
            (
                reaching_the_window(SeriesError::NoSeries("Dune".into())),
                K::InvalidInput,
                None,
            ),
            (
                reaching_the_window(ImportError::NotABook("/home/r/notes.txt".into())),
                K::InvalidInput,
                None,
            ),
            (
                reaching_the_window(FolderError::AlreadyAdded {
                    path: "/home/r/Comics".into(),
                }),
                K::Conflict,
                None,
            ),
        ];
        for ((name, e), kind, field) in &cases {
            assert_eq!((e.kind, e.field), (*kind, *field), "{name}: {}", e.message);
            assert!(!e.message.is_empty(), "{name} says nothing");
            let v = serde_json::to_value(e).unwrap();
            assert_eq!(
                v["kind"],
                serde_json::to_value(kind).unwrap(),
                "{name}: {v}"
            );
            match field {
                Some(f) => assert_eq!(v["field"], f.as_str(), "{name}: {v}"),
                None => assert!(v.get("field").is_none(), "{name}: {v}"),
            }
        }
        let covered: std::collections::BTreeSet<String> = cases
            .iter()
            .map(|((name, _), ..)| name.to_string())
            .collect();
        assert_eq!(
            covered,
            failure_types_in_the_sources(),
            "every type implementing Failure needs a case here"
        );
    }
}

/// A book's series as the details panel shows it: the read-ahead (if any) and the books in series
/// order. An error of kind `invalid_input` when the server names no series for the book.
#[tauri::command]
pub async fn series_of_book(app: AppHandle, book_id: i64) -> CommandResult<SeriesView> {
    with_store(app, move |store| series_read_ahead::show(store, book_id)).await
}

/// "Keep the next `keep_next` unread of this series on the device" from `book_id`, finished
/// books removed `remove_after_days` after they were finished (kept when `null`).
#[tauri::command]
pub async fn keep_series(
    app: AppHandle,
    book_id: i64,
    keep_next: u32,
    remove_after_days: Option<u32>,
) -> CommandResult<SeriesView> {
    with_store(app, move |store| {
        series_read_ahead::keep(store, book_id, keep_next, remove_after_days)
    })
    .await
}

/// The books before and after `book_id` in its series, for the end of a book: each with its
/// number and whether it is on the device (its download's progress when not); both `null` for a
/// book in no known series.
#[tauri::command]
pub async fn series_neighbours(app: AppHandle, book_id: i64) -> CommandResult<Neighbours> {
    with_store(app, move |store| {
        series_read_ahead::neighbours(store, book_id)
    })
    .await
}

/// Marks a book read (`read`) or unread by hand; the mark is queued for its servers and sent a
/// few seconds later, as a saved position is.
#[tauri::command]
pub async fn mark_book_read(app: AppHandle, book_id: i64, read: bool) -> CommandResult<()> {
    with_store_then_send(app, move |store| {
        series_read_ahead::mark_read(store, book_id, read)
    })
    .await?;
    Ok(())
}

/// Marks every book of `book_id`'s series read (`read`) or unread; each mark is queued for its
/// servers and sent a few seconds later, as a single mark is. Answers the series and the books
/// marked.
#[tauri::command]
pub async fn mark_series_read(
    app: AppHandle,
    book_id: i64,
    read: bool,
) -> CommandResult<SeriesMarked> {
    with_store_then_send(app, move |store| {
        series_read_ahead::mark_series_read(store, book_id, read)
    })
    .await
}

/// Ends the read-ahead of `book_id`'s series.
#[tauri::command]
pub async fn stop_keeping_series(app: AppHandle, book_id: i64) -> CommandResult<()> {
    with_store(app, move |store| series_read_ahead::stop(store, book_id)).await
}

/// A server's default read-ahead, taken by each series of it read without a read-ahead of its
/// own; `null` when off.
#[tauri::command]
pub async fn server_series_default(
    app: AppHandle,
    server_id: i64,
) -> CommandResult<Option<ServerDefault>> {
    with_store(app, move |store| {
        series_read_ahead::server_default(store, server_id)
    })
    .await
}

/// "Keep the next `keep_next` unread books of each series I read" for a server (0 turns it off),
/// finished books removed `remove_after_days` after they were finished (kept when `null`).
#[tauri::command]
pub async fn set_server_series_default(
    app: AppHandle,
    server_id: i64,
    keep_next: u32,
    remove_after_days: Option<u32>,
) -> CommandResult<Option<ServerDefault>> {
    with_store(app, move |store| {
        series_read_ahead::set_server_default(store, server_id, keep_next, remove_after_days)
    })
    .await
}

/// "Download anyway": downloads run on this metered link until it changes (the settings page
/// says what happens on a metered link). `false` when the link is not metered.
#[tauri::command]
pub async fn allow_metered_downloads(app: AppHandle) -> CommandResult<bool> {
    with_store(app, carrel_core::engine::network::allow_metered).await
}

/// The font families installed on this computer, for the EPUB reader's font choice (see
/// [`crate::system_fonts`]); empty when they cannot be listed.
#[tauri::command]
pub async fn system_fonts() -> CommandResult<Vec<String>> {
    on_blocking_pool("listing fonts failed: ", crate::system_fonts::families).await
}

/// Whether Carrel starts when the reader logs in (its XDG autostart entry).
#[tauri::command]
pub async fn start_at_login() -> CommandResult<bool> {
    Ok(crate::autostart::config_dir().is_some_and(|c| crate::autostart::enabled(&c)))
}

/// Starts Carrel when the reader logs in, or not; returns whether it now does.
#[tauri::command]
pub async fn set_start_at_login(on: bool) -> CommandResult<bool> {
    on_blocking_pool("", move || {
        let config = crate::autostart::config_dir().ok_or_else(|| {
            CommandError::new(ErrorKind::Storage, "no config folder to start Carrel from")
        })?;
        let exe = std::env::current_exe().map_err(|e| {
            CommandError::new(
                ErrorKind::Storage,
                format!("cannot tell where Carrel is: {e}"),
            )
        })?;
        crate::autostart::set(&config, &exe, on).map_err(|e| {
            CommandError::new(
                ErrorKind::Storage,
                format!("cannot change the login items in {}: {e}", config.display()),
            )
        })?;
        Ok(crate::autostart::enabled(&config))
    })
    .await?
}
