//! Talking HTTP to library servers: one configured client, authentication per server, the
//! server's request slot taken around every request, status codes sorted into what the
//! executor must do about them, and bodies read with their declared length checked.
//!
//! Certificates are verified. A server the reader chose to trust even with a self-signed
//! certificate (`trust_self_signed`) is asked through a second client, made on first use,
//! that accepts any certificate and is otherwise configured the same; a certificate refused
//! for any other server is a [`FetchError::Certificate`].
//!
//! Owns no storage: it returns bytes or streams chunks to a caller.

use std::collections::HashMap;
use std::sync::{Arc, Mutex, OnceLock};
use std::time::{Duration, Instant};

use futures_util::StreamExt;
use reqwest::{header, Response, StatusCode};
use url::Url;

use carrel_foundation::address_secrets::{self, redact};
use carrel_foundation::error::{ErrorKind, Failure};

use crate::redirects;
use crate::server_throttle::{self, SlotGuard};
use carrel_foundation::store::{Store, StoreError};
use carrel_library::credentials::{Credentials, Secret};
use carrel_library::servers::Server;

pub use crate::redirects::USER_AGENT;

/// How often a request still streaming its body renews its server slot.
pub const KEEP_ALIVE_EVERY: Duration = Duration::from_secs(5);

/// Time limits of the HTTP client.
#[derive(Debug, Clone, Copy)]
pub struct HttpConfig {
    pub connect_timeout: Duration,
    /// A body that sends nothing for this long is abandoned (a stalled server).
    pub read_timeout: Duration,
}

impl Default for HttpConfig {
    fn default() -> Self {
        HttpConfig {
            connect_timeout: Duration::from_secs(10),
            read_timeout: Duration::from_secs(30),
        }
    }
}

/// Why a request did not give us what we asked for, sorted by what to do about it.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum FetchError {
    /// 404/410 and other definitive refusals: the task fails with this reason.
    #[error("{0}")]
    Gone(String),
    /// 401/403: the server wants (other) credentials.
    #[error("authentication needed ({0})")]
    Auth(StatusCode),
    /// The server or the network is probably away: retry later.
    #[error("{0}")]
    Transient(String),
    /// 416: the range asked for is not in the file (it shrank, or it is complete).
    #[error("the server has no such part of the file (416)")]
    RangeNotSatisfiable,
    /// More bytes than we accept for this kind of resource.
    #[error("the server sent more than {0} bytes")]
    TooLarge(u64),
    /// A whole file larger than allowed (announced, or sent): the task fails with this reason.
    #[error("{0}")]
    Oversized(String),
    /// The server's certificate was refused (self-signed, unknown authority, expired, for
    /// another name): the reader may choose to trust this server.
    #[error("{0}")]
    Certificate(String),
    #[error(transparent)]
    Store(#[from] StoreError),
}

impl Failure for FetchError {
    fn kind(&self) -> ErrorKind {
        match self {
            FetchError::Auth(_) => ErrorKind::Auth,
            FetchError::Certificate(_) => ErrorKind::Certificate,
            FetchError::Store(_) => ErrorKind::Storage,
            FetchError::Gone(_)
            | FetchError::Transient(_)
            | FetchError::RangeNotSatisfiable
            | FetchError::TooLarge(_)
            | FetchError::Oversized(_) => ErrorKind::Server,
        }
    }
}

/// A server as the fetcher needs it: where, who, how politely.
#[derive(Clone)]
pub struct ServerAccess {
    pub server_id: i64,
    /// The catalog's address: credentials go only to its origin (scheme, host, port).
    pub origin: Url,
    pub username: Option<String>,
    pub secret: Option<Secret>,
    pub min_interval_ms: i64,
    /// Accept the server's certificate even if nobody vouches for it (the reader's choice).
    pub trust_self_signed: bool,
    /// The secret is an API key, sent as `X-API-Key`.
    pub api_key: bool,
    /// The key the server's addresses carry in their path (Kavita), put in place of the
    /// placeholder the kept addresses have, for requests to the server's own origin only.
    pub path_key: Option<Secret>,
}

impl std::fmt::Debug for ServerAccess {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ServerAccess")
            .field("server_id", &self.server_id)
            .field("username", &self.username)
            .field("has_secret", &self.secret.is_some())
            .field("trust_self_signed", &self.trust_self_signed)
            .field("has_path_key", &self.path_key.is_some())
            .finish()
    }
}

impl ServerAccess {
    /// Loads the server's secret from the credential store.
    pub fn load(
        server: &Server,
        credentials: &Credentials,
    ) -> Result<ServerAccess, carrel_library::error::Error> {
        let origin = Url::parse(&server.url)
            .map_err(|e| carrel_library::servers::ServerError::InvalidUrl(e.to_string()))?;
        Ok(ServerAccess {
            origin,
            server_id: server.id,
            username: server.username.clone(),
            secret: carrel_library::server_secrets::secret(credentials, server)?,
            min_interval_ms: server.min_interval_ms,
            trust_self_signed: server.trust_self_signed,
            api_key: server.api_key,
            path_key: carrel_library::server_secrets::path_key(credentials, server)?,
        })
    }

    /// The address to request for a kept address: the server's path key in place of its
    /// placeholder, when the address is the server's own.
    pub fn request_url(&self, url: &Url) -> Url {
        match &self.path_key {
            Some(key) if same_origin(url, &self.origin) => {
                address_secrets::reveal(url, key.expose())
            }
            _ => url.clone(),
        }
    }

    /// An address the server answered from, as Carrel keeps it: without the server's path key.
    pub fn kept_url(&self, url: &Url) -> Url {
        match &self.path_key {
            Some(_) => address_secrets::conceal_url(url).0,
            None => url.clone(),
        }
    }

    /// A document of the server as Carrel keeps it: every occurrence of the server's path key
    /// replaced by the placeholder, so the addresses it links to are kept without the key.
    pub fn kept_document<'a>(&self, bytes: &'a [u8]) -> std::borrow::Cow<'a, [u8]> {
        match &self.path_key {
            Some(key) => address_secrets::conceal_text(bytes, key.expose()),
            None => std::borrow::Cow::Borrowed(bytes),
        }
    }
}

/// The HTTP client shared by everything that talks to servers.
#[derive(Debug, Clone)]
pub struct HttpClient {
    config: HttpConfig,
    /// Verifies certificates: every server but those trusted though self-signed.
    client: reqwest::Client,
    /// Accepts any certificate; made the first time a server trusted though self-signed is
    /// asked, and shared by the clones of this client.
    lenient: Arc<OnceLock<reqwest::Client>>,
    /// Sessions the servers gave after a password was accepted (see [`carrel_library::server_sessions`]).
    sessions: carrel_library::server_sessions::ServerSessions,
    /// Servers that did not answer their last request, and since when; shared by the clones of
    /// this client.
    unresponsive: Arc<Mutex<HashMap<i64, Instant>>>,
    /// This handle asks a server even while it is known not to answer (the reader asked again,
    /// or a retry in the background).
    ask_unresponsive: bool,
}

/// How long a server that did not answer is taken to be away without being asked again: its
/// kept copies stand in meanwhile, and a retry in the background (or the reader's) asks it.
pub const UNRESPONSIVE_FOR: Duration = Duration::from_secs(120);

/// A response whose body is still to be read, holding the server's request slot.
pub struct Fetching {
    pub response: Response,
    pub slot: SlotGuard,
}

/// A fully read small body.
#[derive(Debug, Clone)]
pub struct Fetched {
    pub bytes: Vec<u8>,
    pub content_type: Option<String>,
    pub final_url: Url,
}

impl HttpClient {
    pub fn new(config: HttpConfig) -> Result<HttpClient, FetchError> {
        Ok(HttpClient {
            config,
            client: build_client(config, false)?,
            lenient: Arc::new(OnceLock::new()),
            sessions: Default::default(),
            unresponsive: Default::default(),
            ask_unresponsive: false,
        })
    }

    /// The same client (connections, sessions, what it knows of servers that do not answer)
    /// asking every server, even one known not to answer.
    pub fn asking_unresponsive(&self) -> HttpClient {
        HttpClient {
            ask_unresponsive: true,
            ..self.clone()
        }
    }

    /// Whether a request to this server would wait in vain: it did not answer its last request
    /// (a time limit, a refused connection, a `5xx`) less than [`UNRESPONSIVE_FOR`] ago, and
    /// this handle does not ask such servers.
    pub fn skips(&self, server_id: i64) -> bool {
        !self.ask_unresponsive
            && self
                .unresponsive
                .lock()
                .unwrap_or_else(|e| e.into_inner())
                .get(&server_id)
                .is_some_and(|since| since.elapsed() < UNRESPONSIVE_FOR)
    }

    /// Notes whether the server answered a request: one that did not is not asked again by
    /// handles that skip such servers until it answers one, or for [`UNRESPONSIVE_FOR`].
    pub fn note_answer(&self, server_id: i64, answered: bool) {
        let mut marks = self.unresponsive.lock().unwrap_or_else(|e| e.into_inner());
        if answered {
            marks.remove(&server_id);
        } else {
            marks.insert(server_id, Instant::now());
        }
    }

    /// The same client (its settings, its sessions) with connections of its own: for work on
    /// a runtime of its own, since a connection lives on the runtime that opened it and dies
    /// with it.
    pub fn with_own_connections(&self) -> Result<HttpClient, FetchError> {
        Ok(HttpClient {
            config: self.config,
            client: build_client(self.config, false)?,
            lenient: Arc::new(OnceLock::new()),
            sessions: self.sessions.clone(),
            unresponsive: self.unresponsive.clone(),
            ask_unresponsive: self.ask_unresponsive,
        })
    }

    /// The same client, keeping the sessions servers give in the installation's secret store
    /// too, so other processes and later runs sign in without the password (see
    /// [`carrel_library::server_sessions`]).
    pub fn keeping_sessions_in(
        mut self,
        credentials: std::sync::Arc<carrel_library::credentials::Credentials>,
    ) -> HttpClient {
        self.sessions = carrel_library::server_sessions::ServerSessions::keep_in(credentials);
        self
    }

    /// The client for an address of this server: the lenient one only when the reader trusts
    /// the server's own certificate and the address is the server's own (not a host its feeds
    /// link to).
    fn client_for(&self, access: &ServerAccess, url: &Url) -> Result<&reqwest::Client, FetchError> {
        if !access.trust_self_signed || !redirects::may_carry_credentials(url, &access.origin) {
            return Ok(&self.client);
        }
        if let Some(c) = self.lenient.get() {
            return Ok(c);
        }
        let made = build_client(self.config, true)?;
        Ok(self.lenient.get_or_init(|| made))
    }

    /// Sends a GET after taking the server's slot; the slot stays held until the returned
    /// [`Fetching`] is dropped or released. Status codes are sorted here.
    pub async fn get(
        &self,
        store: &Store,
        access: &ServerAccess,
        url: &Url,
        headers: &[(header::HeaderName, String)],
    ) -> Result<Fetching, FetchError> {
        let slot =
            server_throttle::acquire(store, access.server_id, access.min_interval_ms).await?;
        self.send_get(access, url, headers, slot).await
    }

    /// Sends a GET in `slot` (the server's, held). Status codes are sorted here.
    async fn send_get(
        &self,
        access: &ServerAccess,
        url: &Url,
        headers: &[(header::HeaderName, String)],
        slot: SlotGuard,
    ) -> Result<Fetching, FetchError> {
        self.send_get_answering(access, url, headers, slot, &[])
            .await
    }

    /// As [`HttpClient::send_get`], where the statuses of `answers` are answers, not errors.
    async fn send_get_answering(
        &self,
        access: &ServerAccess,
        url: &Url,
        headers: &[(header::HeaderName, String)],
        slot: SlotGuard,
        answers: &[StatusCode],
    ) -> Result<Fetching, FetchError> {
        let url = &access.request_url(url);
        let build = |client: &reqwest::Client, at: &Url| {
            let mut request = client.get(at.clone());
            for (name, value) in headers {
                request = request.header(name, value);
            }
            request
        };
        let response = self.send_following(build, url, access, true).await?;
        if answers.contains(&response.status()) {
            return Ok(Fetching { response, slot });
        }
        check_answer(&response, access)?;
        Ok(Fetching { response, slot })
    }

    /// Fetches a small resource (a feed, a page, a cover) whole, refusing more than `max_bytes`.
    pub async fn get_bytes(
        &self,
        store: &Store,
        access: &ServerAccess,
        url: &Url,
        max_bytes: u64,
    ) -> Result<Fetched, FetchError> {
        let fetching = self.get(store, access, url, &[]).await?;
        self.read_body(fetching, access, url, max_bytes).await
    }

    /// Like [`HttpClient::get_bytes`], where a `404 Not Found` is an answer: `Ok(None)`. For
    /// searches: some servers say "nothing matches" so (calibre's content server answers a
    /// search without results `404 No books found`, `srv/opds.py` `get_acquisition_feed`).
    pub async fn get_bytes_unless_missing(
        &self,
        store: &Store,
        access: &ServerAccess,
        url: &Url,
        max_bytes: u64,
    ) -> Result<Option<Fetched>, FetchError> {
        let slot =
            server_throttle::acquire(store, access.server_id, access.min_interval_ms).await?;
        let fetching = self
            .send_get_answering(access, url, &[], slot, &[StatusCode::NOT_FOUND])
            .await?;
        if fetching.response.status() == StatusCode::NOT_FOUND {
            fetching.slot.release().await?;
            return Ok(None);
        }
        Ok(Some(
            self.read_body(fetching, access, url, max_bytes).await?,
        ))
    }

    /// Like [`HttpClient::get_bytes`] for a caller with more requests to the same server right
    /// after this one: the slot it `kept` from its last request serves this one when it still
    /// may (see [`server_throttle::reuse_or_acquire`]), and the slot is kept again afterwards
    /// instead of given back. A failed request gives it back. The caller lets `kept` go when it
    /// has nothing more for the server.
    pub async fn get_bytes_reusing_slot(
        &self,
        store: &Store,
        access: &ServerAccess,
        url: &Url,
        max_bytes: u64,
        kept: &mut Option<SlotGuard>,
    ) -> Result<Fetched, FetchError> {
        let slot = server_throttle::reuse_or_acquire(
            store,
            access.server_id,
            access.min_interval_ms,
            kept.take(),
        )
        .await?;
        let fetching = self.send_get(access, url, &[], slot).await?;
        let (fetched, slot) = self.read_all(fetching, access, url, max_bytes).await?;
        *kept = Some(slot);
        Ok(fetched)
    }

    /// Fetches one part of a file, `range` being a `Range` header value (`bytes=A-B` or
    /// `bytes=-N`), and refuses any answer that is not a part: a server that ignores `Range`
    /// (a `200` with the whole file) is [`FetchError::Gone`] for this request, so the caller
    /// knows to wait for the whole file instead. Returns the bytes and where they are.
    pub async fn get_part(
        &self,
        store: &Store,
        access: &ServerAccess,
        url: &Url,
        range: &str,
        max_bytes: u64,
    ) -> Result<(Fetched, ByteRange), FetchError> {
        let headers = [
            (header::RANGE, range.to_owned()),
            // Bytes as stored on the server: no transparent compression under a Range.
            (header::ACCEPT_ENCODING, "identity".to_owned()),
        ];
        let fetching = self.get(store, access, url, &headers).await?;
        if fetching.response.status() != StatusCode::PARTIAL_CONTENT {
            return Err(FetchError::Gone(format!(
                "{}: the server does not send parts of files",
                redact(url)
            )));
        }
        let part = content_range(&fetching.response).ok_or_else(|| {
            FetchError::Gone(format!("{}: a part came without its place", redact(url)))
        })?;
        if part.len() > max_bytes {
            return Err(FetchError::TooLarge(max_bytes));
        }
        let fetched = self.read_body(fetching, access, url, max_bytes).await?;
        if fetched.bytes.len() as u64 != part.len() {
            return Err(FetchError::Transient(format!(
                "{}: the server sent {} bytes of a {}-byte part",
                redact(url),
                fetched.bytes.len(),
                part.len()
            )));
        }
        Ok((fetched, part))
    }

    /// Reads a small answer whole, refusing more than `max_bytes`, and gives back the slot.
    async fn read_body(
        &self,
        fetching: Fetching,
        access: &ServerAccess,
        url: &Url,
        max_bytes: u64,
    ) -> Result<Fetched, FetchError> {
        let (fetched, slot) = self.read_all(fetching, access, url, max_bytes).await?;
        slot.release().await?;
        Ok(fetched)
    }

    /// Reads a small answer whole, refusing more than `max_bytes`; the slot is handed back
    /// still held.
    async fn read_all(
        &self,
        fetching: Fetching,
        access: &ServerAccess,
        url: &Url,
        max_bytes: u64,
    ) -> Result<(Fetched, SlotGuard), FetchError> {
        let Fetching { response, slot } = fetching;
        let declared = response.content_length();
        if declared.is_some_and(|l| l > max_bytes) {
            return Err(FetchError::TooLarge(max_bytes));
        }
        let content_type = response
            .headers()
            .get(header::CONTENT_TYPE)
            .and_then(|v| v.to_str().ok())
            .map(str::to_owned);
        let final_url = access.kept_url(response.url());
        let mut bytes = Vec::with_capacity(declared.unwrap_or(0).min(max_bytes) as usize);
        let mut body = response.bytes_stream();
        let mut last_alive = std::time::Instant::now();
        while let Some(chunk) = body.next().await {
            let chunk = chunk.map_err(|e| transient(url, &e))?;
            if last_alive.elapsed() >= KEEP_ALIVE_EVERY {
                last_alive = std::time::Instant::now();
                slot.keep_alive().await?;
            }
            if bytes.len() as u64 + chunk.len() as u64 > max_bytes {
                return Err(FetchError::TooLarge(max_bytes));
            }
            bytes.extend_from_slice(&chunk);
        }
        if let Some(declared) = declared {
            if declared != bytes.len() as u64 {
                return Err(FetchError::Transient(format!(
                    "{}: the server sent {} of {declared} bytes",
                    redact(url),
                    bytes.len()
                )));
            }
        }
        Ok((
            Fetched {
                bytes,
                content_type,
                final_url,
            },
            slot,
        ))
    }

    /// Sends `body` with PUT through the server's slot and reads the (small) answer. A
    /// `409 Conflict` is an answer, not an error: the caller decides what the conflict means;
    /// every other status is sorted as for GET.
    pub async fn put_bytes(
        &self,
        store: &Store,
        access: &ServerAccess,
        url: &Url,
        content_type: &str,
        body: Vec<u8>,
        max_bytes: u64,
    ) -> Result<Answer, FetchError> {
        self.send_bytes(
            store,
            access,
            reqwest::Method::PUT,
            url,
            content_type,
            body,
            max_bytes,
        )
        .await
    }

    /// As [`HttpClient::put_bytes`], with another method (e.g. PATCH).
    #[allow(clippy::too_many_arguments)]
    pub async fn send_bytes(
        &self,
        store: &Store,
        access: &ServerAccess,
        method: reqwest::Method,
        url: &Url,
        content_type: &str,
        body: Vec<u8>,
        max_bytes: u64,
    ) -> Result<Answer, FetchError> {
        let url = &access.request_url(url);
        let slot =
            server_throttle::acquire(store, access.server_id, access.min_interval_ms).await?;
        let build = |client: &reqwest::Client, at: &Url| {
            client
                .request(method.clone(), at.clone())
                .header(header::CONTENT_TYPE, content_type)
                .body(body.clone())
        };
        let response = self.send_following(build, url, access, false).await?;
        let status = response.status();
        if status != StatusCode::CONFLICT {
            check_answer(&response, access)?;
        }
        let bytes = read_at_most(response, max_bytes)
            .await
            .map_err(|e| transient(url, &e))?
            .ok_or(FetchError::TooLarge(max_bytes))?;
        slot.release().await?;
        Ok(Answer { status, bytes })
    }
}

/// The answer to a request that sent a body: its status (a success or `409 Conflict`) and
/// its small body.
#[derive(Debug, Clone)]
pub struct Answer {
    pub status: StatusCode,
    pub bytes: Vec<u8>,
}

impl HttpClient {
    /// Sends the request `build` makes for `url` and follows the redirects that leave its
    /// origin (the client follows the others itself), up to [`redirects::MAX_REDIRECTS`]: each
    /// address is asked as a new request, signed in only where the server's credentials may go
    /// ([`redirects::may_carry_credentials`]). A request with a body (`may_follow` false) is
    /// not sent on: such a redirect is an error.
    async fn send_following(
        &self,
        build: impl Fn(&reqwest::Client, &Url) -> reqwest::RequestBuilder,
        url: &Url,
        access: &ServerAccess,
        may_follow: bool,
    ) -> Result<Response, FetchError> {
        let mut at = url.clone();
        for _ in 0..=redirects::MAX_REDIRECTS {
            let client = self.client_for(access, &at)?;
            let response = self
                .send_signed_in(|| build(client, &at), &at, access)
                .await?;
            let Some(next) = redirects::next_hop(&response) else {
                return Ok(response);
            };
            if !may_follow {
                return Err(FetchError::Gone(format!(
                    "{}: the server sent this request on to another address ({}), where Carrel does not send it",
                    redact(&at),
                    redact(&next)
                )));
            }
            tracing::debug!(
                from = %redact(&at),
                to = %redact(&next),
                signed_in = redirects::may_carry_credentials(&next, &access.origin),
                "redirected to another origin"
            );
            at = next;
        }
        Err(FetchError::Gone(format!(
            "{}: more than {} redirects",
            redact(url),
            redirects::MAX_REDIRECTS
        )))
    }

    /// Sends the request `build` makes, signed in when `url` may carry the server's
    /// credentials: with the server's session when one is kept, else with the password. A
    /// refused session is dropped and the request sent once more with the password; the
    /// session a password-signed answer carries is kept.
    async fn send_signed_in(
        &self,
        build: impl Fn() -> reqwest::RequestBuilder,
        url: &Url,
        access: &ServerAccess,
    ) -> Result<Response, FetchError> {
        let own = redirects::may_carry_credentials(url, &access.origin);
        let password = access
            .secret
            .as_ref()
            .filter(|_| own && access.username.is_some());
        if let Some(secret) = password {
            if let Some(session) = self.sessions.for_request(access.server_id, url, secret) {
                let response = session
                    .apply(build())
                    .send()
                    .await
                    .map_err(|e| request_failed(url, &e))?;
                let refused = matches!(
                    response.status(),
                    StatusCode::UNAUTHORIZED | StatusCode::FORBIDDEN
                );
                if !refused {
                    return Ok(response);
                }
                self.sessions.forget(access.server_id);
            }
        }
        let response = authorize(build(), url, access)
            .send()
            .await
            .map_err(|e| request_failed(url, &e))?;
        if let Some(secret) = password.filter(|_| response.status().is_success()) {
            if is_codex(response.headers()) {
                // Codex checks a Basic password on every request and the cookie such an answer
                // carries is not a signed-in session: Codex's own sign-in gives one.
                self.sign_in_to_codex(access, secret).await;
            } else {
                self.sessions.keep_from(
                    access.server_id,
                    response.url(),
                    secret,
                    response.headers(),
                );
            }
        }
        Ok(response)
    }

    /// Signs in to Codex through its own login (`POST <prefix>/api/v4/auth/login`, Codex's
    /// `urls/api/v4/auth.py`, django-rest-registration's `LoginView`): the `sessionid` it answers
    /// with is a signed-in Django session, which Codex's OPDS views accept (their
    /// `SessionAuthentication`, `views/opds/auth.py`). Best effort: without it the password is
    /// sent as before. Runs inside the caller's request slot.
    async fn sign_in_to_codex(&self, access: &ServerAccess, secret: &Secret) {
        let Some(user) = access.username.as_deref() else {
            return;
        };
        // Codex may live under a path prefix: its API sits beside its OPDS root.
        let path = access.origin.path();
        let prefix = path.find("/opds/").map_or("", |at| &path[..at]);
        let Ok(login) = access.origin.join(&format!("{prefix}/api/v4/auth/login")) else {
            return;
        };
        let Ok(client) = self.client_for(access, &login) else {
            return;
        };
        let body = serde_json::json!({ "login": user, "password": secret.expose() });
        match client.post(login.clone()).json(&body).send().await {
            Ok(answer) if answer.status().is_success() => {
                self.sessions
                    .keep_from(access.server_id, answer.url(), secret, answer.headers());
            }
            Ok(answer) => tracing::info!(
                status = answer.status().as_u16(),
                "Codex's sign-in refused; the password is sent with each request"
            ),
            Err(e) => {
                tracing::info!(cause = %e, "Codex's sign-in failed; the password is sent with each request")
            }
        }
    }

    /// Drops the session kept for a server (its password changed, it was removed).
    pub fn forget_session(&self, server_id: i64) {
        self.sessions.forget(server_id);
    }
}

/// Adds the server's credentials to a request for its own origin only.
fn authorize(
    request: reqwest::RequestBuilder,
    url: &Url,
    access: &ServerAccess,
) -> reqwest::RequestBuilder {
    match access
        .secret
        .as_ref()
        .filter(|_| redirects::may_carry_credentials(url, &access.origin))
    {
        Some(secret) => sign(request, access.username.as_deref(), secret, access.api_key),
        None => request,
    }
}

/// How a secret goes with a request, the one rule for every sign-in: an API key as `X-API-Key`
/// (Komga's `HeaderApiKeyAuthenticationConverter`, registered for that header in its
/// `SecurityConfiguration.kt`), a password with its user as HTTP Basic, a secret without a user
/// as a bearer token. Where it may go is the caller's to check first.
pub fn sign(
    request: reqwest::RequestBuilder,
    username: Option<&str>,
    secret: &Secret,
    api_key: bool,
) -> reqwest::RequestBuilder {
    match username {
        _ if api_key => request.header("x-api-key", secret.expose()),
        Some(user) => request.basic_auth(user, Some(secret.expose())),
        None => request.bearer_auth(secret.expose()),
    }
}

/// Whether an answer comes from Codex (its `Server: codex/<version>` header).
fn is_codex(headers: &header::HeaderMap) -> bool {
    headers
        .get(header::SERVER)
        .and_then(|v| v.to_str().ok())
        .is_some_and(|v| v.to_ascii_lowercase().starts_with("codex/"))
}

/// Both clients are made here, so they differ in certificate checking only.
fn build_client(
    config: HttpConfig,
    accept_invalid_certs: bool,
) -> Result<reqwest::Client, FetchError> {
    redirects::client_builder()
        .connect_timeout(config.connect_timeout)
        .read_timeout(config.read_timeout)
        .danger_accept_invalid_certs(accept_invalid_certs)
        .build()
        .map_err(|e| FetchError::Transient(format!("cannot start the HTTP client: {e}")))
}

/// Whether two URLs share scheme, host and port (see [`redirects`] for where a secret may go).
pub use crate::redirects::same_origin;

/// Reads a body whole, stopping as soon as it passes `max_bytes` (`Ok(None)`): a body too
/// large is never held, whatever length it declared.
pub async fn read_at_most(
    response: Response,
    max_bytes: u64,
) -> Result<Option<Vec<u8>>, reqwest::Error> {
    if response.content_length().is_some_and(|l| l > max_bytes) {
        return Ok(None);
    }
    let mut bytes = Vec::new();
    let mut body = response.bytes_stream();
    while let Some(chunk) = body.next().await {
        let chunk = chunk?;
        if bytes.len() as u64 + chunk.len() as u64 > max_bytes {
            return Ok(None);
        }
        bytes.extend_from_slice(&chunk);
    }
    Ok(Some(bytes))
}

/// [`check_status`] of an answer to a request of `access`'s server. Only the library server
/// itself asking for credentials means the reader must sign in (again); a refusal from
/// elsewhere (a CDN, a signed URL) is about that address.
fn check_answer(response: &Response, access: &ServerAccess) -> Result<(), FetchError> {
    match check_status(response) {
        Err(FetchError::Auth(status))
            if !redirects::may_carry_credentials(response.url(), &access.origin) =>
        {
            Err(FetchError::Gone(format!(
                "the server refused access to this ({})",
                status.as_u16()
            )))
        }
        other => other,
    }
}

/// Sorts a status code into success or a [`FetchError`].
pub fn check_status(response: &Response) -> Result<(), FetchError> {
    let status = response.status();
    let url = response.url();
    match status {
        s if s.is_success() => Ok(()),
        StatusCode::UNAUTHORIZED | StatusCode::FORBIDDEN => Err(FetchError::Auth(status)),
        StatusCode::NOT_FOUND | StatusCode::GONE => Err(FetchError::Gone(format!(
            "the server no longer has this ({} {})",
            status.as_u16(),
            status.canonical_reason().unwrap_or("")
        ))),
        StatusCode::RANGE_NOT_SATISFIABLE => Err(FetchError::RangeNotSatisfiable),
        StatusCode::REQUEST_TIMEOUT | StatusCode::TOO_MANY_REQUESTS => {
            Err(FetchError::Transient(format!("{}: {status}", redact(url))))
        }
        s if s.is_server_error() => Err(FetchError::Transient(format!(
            "{}: the server answered {status}",
            redact(url)
        ))),
        s => Err(FetchError::Gone(format!(
            "the server refused the request ({s})"
        ))),
    }
}

/// Sorts a request that got no answer: a refused certificate, else the network (retry later).
fn request_failed(url: &Url, e: &reqwest::Error) -> FetchError {
    match certificate_problem(e) {
        Some(detail) => FetchError::Certificate(format!(
            "{}: the server's certificate is not trusted (self-signed?): {detail}",
            redact(url)
        )),
        None => transient(url, e),
    }
}

/// What rustls (or webpki) said about the server's certificate, found in the error's source
/// chain; `None` when the failure was something else.
pub fn certificate_problem(e: &(dyn std::error::Error + 'static)) -> Option<String> {
    // rustls says "invalid peer certificate: UnknownIssuer" (or Expired, NotValidForName…);
    // the rest is what other TLS stacks say.
    const SIGNS: [&str; 5] = [
        "invalid peer certificate",
        "unknownissuer",
        "certificate verify failed",
        "self-signed certificate",
        "self signed certificate",
    ];
    let mut current: Option<&(dyn std::error::Error + 'static)> = Some(e);
    while let Some(err) = current {
        let text = err.to_string();
        let lower = text.to_lowercase();
        if SIGNS.iter().any(|s| lower.contains(s)) {
            let detail = match text.find("invalid peer certificate") {
                Some(at) => text[at..].to_owned(),
                None => text,
            };
            return Some(detail);
        }
        current = err.source();
    }
    None
}

fn transient(url: &Url, e: &reqwest::Error) -> FetchError {
    let what = if e.is_timeout() {
        "the server stopped answering".to_owned()
    } else if e.is_connect() {
        "cannot reach the server".to_owned()
    } else {
        // Without the URL: reqwest's message may include it, with credentials if any.
        e.without_url_ref().to_string()
    };
    FetchError::Transient(format!("{}: {what}", redact(url)))
}

trait WithoutUrl {
    fn without_url_ref(&self) -> String;
}

impl WithoutUrl for reqwest::Error {
    fn without_url_ref(&self) -> String {
        let mut text = self.to_string();
        if let Some(u) = self.url() {
            text = text.replace(u.as_str(), &redact(u));
        }
        let mut source = std::error::Error::source(self);
        while let Some(s) = source {
            text.push_str(": ");
            text.push_str(&s.to_string());
            source = s.source();
        }
        text
    }
}

/// The validator a response carries: its strong ETag, else its Last-Modified.
pub fn validator(response: &Response) -> Option<String> {
    let h = response.headers();
    let etag = h
        .get(header::ETAG)
        .and_then(|v| v.to_str().ok())
        .filter(|v| !v.starts_with("W/"));
    etag.or_else(|| h.get(header::LAST_MODIFIED).and_then(|v| v.to_str().ok()))
        .map(str::to_owned)
}

/// A `Content-Range: bytes first-last/total` that makes sense: `first <= last`, and
/// `last < total` when the total is given.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ByteRange {
    pub first: u64,
    pub last: u64,
    pub total: Option<u64>,
}

impl ByteRange {
    /// How many bytes the range holds.
    pub fn len(&self) -> u64 {
        // Cannot overflow: `parse_content_range` refuses `last == u64::MAX`.
        self.last - self.first + 1
    }

    pub fn is_empty(&self) -> bool {
        false
    }
}

/// The response's `Content-Range`, if present and sound.
pub fn content_range(response: &Response) -> Option<ByteRange> {
    parse_content_range(
        response
            .headers()
            .get(header::CONTENT_RANGE)?
            .to_str()
            .ok()?,
    )
}

/// Parses `bytes first-last/total` (or `/*`); `None` for anything malformed or inconsistent.
pub fn parse_content_range(value: &str) -> Option<ByteRange> {
    let rest = value.trim().strip_prefix("bytes ")?;
    let (span, total) = rest.split_once('/')?;
    let (a, b) = span.split_once('-')?;
    let (first, last): (u64, u64) = (a.trim().parse().ok()?, b.trim().parse().ok()?);
    let total: Option<u64> = if total.trim() == "*" {
        None
    } else {
        Some(total.trim().parse().ok()?)
    };
    if first > last || last == u64::MAX || total.is_some_and(|t| last >= t) {
        return None;
    }
    Some(ByteRange { first, last, total })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A body with no declared length that never ends is stopped at the cap, not held whole.
    #[tokio::test]
    async fn an_endless_body_is_cut_at_its_cap_while_it_streams() {
        use tokio::io::{AsyncReadExt, AsyncWriteExt};
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let addr = listener.local_addr().unwrap();
        let sent = Arc::new(std::sync::atomic::AtomicU64::new(0));
        let counter = sent.clone();
        let server = tokio::spawn(async move {
            let (mut tcp, _) = listener.accept().await.unwrap();
            let mut head = [0u8; 2048];
            let _ = tcp.read(&mut head).await;
            let _ = tcp
                .write_all(b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n")
                .await;
            let chunk = format!("{:x}\r\n{}\r\n", 16 * 1024, "z".repeat(16 * 1024));
            // Far more than the cap, unless the reader stops (then the writes fail).
            for _ in 0..4096 {
                if tcp.write_all(chunk.as_bytes()).await.is_err() {
                    return;
                }
                counter.fetch_add(16 * 1024, std::sync::atomic::Ordering::SeqCst);
            }
        });
        let response = reqwest::get(format!("http://{addr}/")).await.unwrap();
        let read = read_at_most(response, 64 * 1024).await.unwrap();
        assert_eq!(read, None, "over the cap");
        let small = {
            let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
            let addr = listener.local_addr().unwrap();
            tokio::spawn(async move {
                let (mut tcp, _) = listener.accept().await.unwrap();
                let mut head = [0u8; 2048];
                let _ = tcp.read(&mut head).await;
                let _ = tcp
                    .write_all(
                        b"HTTP/1.1 200 OK\r\nContent-Length: 5\r\nConnection: close\r\n\r\nhello",
                    )
                    .await;
            });
            let response = reqwest::get(format!("http://{addr}/")).await.unwrap();
            read_at_most(response, 64 * 1024).await.unwrap()
        };
        assert_eq!(small.as_deref(), Some(&b"hello"[..]));
        server.abort();
        assert!(
            sent.load(std::sync::atomic::Ordering::SeqCst) < 8 * 1024 * 1024,
            "the reader stopped well before the server's 64 MiB"
        );
    }

    #[test]
    fn content_ranges_that_make_no_sense_are_refused() {
        assert_eq!(
            parse_content_range("bytes 0-99/200"),
            Some(ByteRange {
                first: 0,
                last: 99,
                total: Some(200)
            })
        );
        assert_eq!(
            parse_content_range("bytes 100-199/*").map(|r| r.len()),
            Some(100)
        );
        for bad in [
            "bytes 0-18446744073709551615/*",
            "bytes 10-5/100",
            "bytes 0-100/100",
            "bytes 0-1",
            "items 0-1/2",
            "bytes -5/10",
            "bytes 0-x/10",
        ] {
            assert_eq!(parse_content_range(bad), None, "{bad}");
        }
    }

    #[test]
    fn secrets_stay_with_their_origin() {
        let home = Url::parse("https://books.example.org/opds").unwrap();
        assert!(same_origin(
            &Url::parse("https://books.example.org:443/x/y").unwrap(),
            &home
        ));
        assert!(!same_origin(
            &Url::parse("http://books.example.org/x").unwrap(),
            &home
        ));
        assert!(!same_origin(
            &Url::parse("https://cdn.example.org/x").unwrap(),
            &home
        ));
        assert!(!same_origin(
            &Url::parse("https://books.example.org:8443/x").unwrap(),
            &home
        ));
    }

    #[derive(Debug)]
    struct Layer(&'static str, Option<Box<Layer>>);

    impl std::fmt::Display for Layer {
        fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
            f.write_str(self.0)
        }
    }

    impl std::error::Error for Layer {
        fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
            self.1
                .as_deref()
                .map(|l| l as &(dyn std::error::Error + 'static))
        }
    }

    #[test]
    fn a_refused_certificate_is_found_deep_in_the_error_chain() {
        let tls = Layer(
            "error sending request",
            Some(Box::new(Layer(
                "client error (Connect)",
                Some(Box::new(Layer(
                    "invalid peer certificate: UnknownIssuer",
                    None,
                ))),
            ))),
        );
        assert_eq!(
            certificate_problem(&tls).as_deref(),
            Some("invalid peer certificate: UnknownIssuer")
        );
        let refused = Layer(
            "error sending request",
            Some(Box::new(Layer("Connection refused (os error 111)", None))),
        );
        assert_eq!(certificate_problem(&refused), None);
    }
}
