//! Finding a server's OPDS catalog from what a reader types: a host, host:port, the server's
//! web address, or the catalog's own address.
//!
//! In order: the address itself (redirects followed) when it answers a catalog; the catalog the
//! web page points to (`<link rel="alternate" type="application/atom+xml;profile=opds-catalog">`
//! or `application/opds+json`) — what the server recommends; else the well-known catalog
//! paths of the servers Carrel knows ([`WELL_KNOWN`]). A bare host is tried over `https://`
//! first, then `http://` (self-hosted servers often listen on plain HTTP on their own port).
//!
//! The reader's sign-in goes only to the origin that answered the address typed (or its https
//! upgrade), and only once that origin asked for it with a `401` — never with a first probe,
//! never to a host a page or a redirect names. A catalog found on another host, or down from
//! https to http, is returned marked [`Discovered::elsewhere`]: [`catalog_address`] saves it
//! only with the reader's yes to that whole address.
//!
//! Owns discovery only: no storage, no server records (the caller saves what was found).

use std::time::Duration;

use reqwest::{header, StatusCode};
use url::Url;

use crate::http_fetch::read_at_most;
use crate::redirects;
use carrel_library::credentials::Secret;

/// Well-known catalog paths, most specific first.
/// - Codex: `/opds/v1.2/`, `/opds/v2.0/` (codex `codex/urls/opds`).
/// - Komga: `/opds/v1.2/catalog`, `/opds/v2/catalog` (komga `OpdsController`).
/// - Stump: `/opds/v1.2/catalog`, `/opds/v2.0/catalog`.
/// - Calibre-Web and calibre's content server: `/opds`.
/// - Kavita needs its API key in the path (`/api/opds/{apiKey}`) and cannot be guessed.
pub const WELL_KNOWN: &[&str] = &[
    "/opds/v1.2/",
    "/opds/v2.0/",
    "/opds/v1.2/catalog",
    "/opds/v2/catalog",
    "/opds/v2.0/catalog",
    "/opds",
];

/// What was found.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct Discovered {
    /// The catalog's address, to save as the server's URL.
    pub catalog_url: String,
    /// `"1.2"` (Atom) or `"2.0"` (JSON).
    pub opds_version: String,
    /// The server software when the catalog names it (Codex, Komga, Calibre-Web, ...).
    pub server_kind: Option<String>,
    /// How it was found: `address`, `web page`, `well-known path`.
    pub found_by: String,
    /// Set when the catalog is not where the reader typed: it is saved (and the reader's
    /// sign-in sent there) only once the reader says yes to this whole address.
    pub elsewhere: Option<Elsewhere>,
    /// The catalog asked for a sign-in that was not sent (it is on another host): it was
    /// found by the page's link, not opened.
    pub locked: bool,
    /// The catalog's own title (its root feed's `<title>`, or `metadata.title`), when it has
    /// one: the name a server takes when the reader gives none.
    pub title: Option<String>,
}

/// Why a catalog found needs the reader's yes before it is saved.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, ts_rs::TS)]
#[serde(rename_all = "snake_case")]
pub enum Elsewhere {
    /// Another host or port than the one typed.
    OtherHost,
    /// The host typed, but down from https to plain http.
    DownToHttp,
}

impl Discovered {
    /// "Codex, OPDS 1.2 at http://nas:9810/opds/v1.2/": the whole address, so a catalog on
    /// another host is seen for what it is.
    pub fn describe(&self) -> String {
        match &self.server_kind {
            Some(kind) => format!("{kind}, OPDS {} at {}", self.opds_version, self.catalog_url),
            None => format!("OPDS {} at {}", self.opds_version, self.catalog_url),
        }
    }

    /// What the reader is asked before a catalog found elsewhere is saved.
    pub fn consent_question(&self) -> Option<String> {
        let url = &self.catalog_url;
        match self.elsewhere? {
            Elsewhere::OtherHost => Some(format!(
                "The catalog this address leads to is on another server: {url}. Your sign-in will be sent there. Use this address?"
            )),
            Elsewhere::DownToHttp => Some(format!(
                "The catalog this address leads to is not encrypted (plain http): {url}. Your sign-in would travel readable. Use this address?"
            )),
        }
    }
}

/// Who signs in while a catalog is looked for. The secret is sent only to the origin typed
/// (or its https upgrade), and only once that origin asked for it (a `401`).
#[derive(Clone, Copy, Default)]
pub struct SignIn<'a> {
    pub username: Option<&'a str>,
    pub secret: Option<&'a Secret>,
    /// The secret is an API key, sent as `X-API-Key`.
    pub api_key: bool,
}

impl SignIn<'_> {
    fn is_given(&self) -> bool {
        self.secret.is_some()
    }

    fn apply(&self, request: reqwest::RequestBuilder) -> reqwest::RequestBuilder {
        match self.secret {
            Some(secret) => crate::http_fetch::sign(request, self.username, secret, self.api_key),
            None => request,
        }
    }
}

#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum DiscoveryError {
    #[error("not a server address: {0}")]
    InvalidAddress(String),
    #[error("the server sent a web page instead of a catalog, and none of the usual catalog addresses answered")]
    NoCatalog,
    #[error(
        "the server asks for a user name and password (or an API key) before it shows its catalog"
    )]
    SignInNeeded,
    #[error("the server cannot be reached: {0}")]
    Unreachable(String),
    /// A catalog was found somewhere the reader did not type; nothing is saved without a yes.
    #[error("{}", .0.consent_question().unwrap_or_default())]
    NeedsConsent(Box<Discovered>),
}

impl carrel_foundation::error::Failure for DiscoveryError {
    fn kind(&self) -> carrel_foundation::error::ErrorKind {
        match self {
            DiscoveryError::InvalidAddress(_) | DiscoveryError::NeedsConsent(_) => {
                carrel_foundation::error::ErrorKind::InvalidInput
            }
            DiscoveryError::SignInNeeded => carrel_foundation::error::ErrorKind::Auth,
            DiscoveryError::NoCatalog | DiscoveryError::Unreachable(_) => {
                carrel_foundation::error::ErrorKind::Server
            }
        }
    }

    fn field(&self) -> Option<carrel_foundation::error::ErrorField> {
        Some(carrel_foundation::error::ErrorField::Url)
    }
}

impl DiscoveryError {
    /// What went wrong, as a stable word (for scripts reading the CLI's JSON).
    pub fn code(&self) -> &'static str {
        match self {
            DiscoveryError::InvalidAddress(_) => "invalid_address",
            DiscoveryError::NoCatalog => "no_catalog",
            DiscoveryError::SignInNeeded => "sign_in_needed",
            DiscoveryError::Unreachable(_) => "unreachable",
            DiscoveryError::NeedsConsent(_) => "needs_consent",
        }
    }
}

/// What an answer was.
enum Answer {
    Catalog {
        url: Url,
        version: &'static str,
        body: String,
    },
    Page {
        url: Url,
        body: String,
    },
    /// A `401` that was not (or could not be) answered with the reader's sign-in.
    Locked {
        url: Url,
    },
    Other,
}

/// The largest document read while looking for a catalog.
const MAX_DOCUMENT_BYTES: u64 = 4 * 1024 * 1024;
/// How long an https probe of a bare `host:port` may take before plain http is tried: a
/// plain-HTTP server may sit on a TLS greeting until its own time limit.
const HTTPS_PROBE_TIMEOUT: Duration = Duration::from_secs(5);

/// The address to save for a server the reader typed as `typed`: the catalog found from it,
/// else a full address as it was typed (the server's own validation then says what is wrong
/// with it, or the catalog is checked when it is first browsed — a server away today can still
/// be added). A bare host from which no catalog was found is an error: there is no address to
/// save. A catalog found somewhere the reader did not type is saved only when it is `accepted`
/// (the whole address the reader said yes to); else [`DiscoveryError::NeedsConsent`].
pub async fn catalog_address(
    typed: &str,
    sign_in: SignIn<'_>,
    trust_self_signed: bool,
    accepted: Option<&str>,
) -> Result<(String, Option<Discovered>), DiscoveryError> {
    match discover(typed, sign_in, trust_self_signed).await {
        Ok(found) if found.elsewhere.is_some() && accepted != Some(found.catalog_url.as_str()) => {
            Err(DiscoveryError::NeedsConsent(Box::new(found)))
        }
        Ok(found) => Ok((found.catalog_url.clone(), Some(found))),
        Err(e) if typed.contains("://") || matches!(e, DiscoveryError::InvalidAddress(_)) => {
            tracing::info!(cause = %e, "no catalog found from the address typed; it is kept as given");
            Ok((typed.trim().to_owned(), None))
        }
        Err(e) => Err(e),
    }
}

/// Finds the catalog behind `address`. A bare `host[:port]` is tried over https first, then
/// plain http. Redirects are followed (as new requests, see [`crate::redirects`]); the
/// sign-in goes only to the origin that answered the address typed (or its https upgrade),
/// after it asked for it. What is found elsewhere is marked [`Discovered::elsewhere`].
pub async fn discover(
    address: &str,
    sign_in: SignIn<'_>,
    trust_self_signed: bool,
) -> Result<Discovered, DiscoveryError> {
    let candidates = parse_address(address)?;
    let bare = candidates.len() > 1;
    let mut probe = Probe::new(sign_in, trust_self_signed)?;
    let mut first = None;
    let mut failure = None;
    for start in candidates {
        probe.origin = start.clone();
        let limit = (bare && start.scheme() == "https").then_some(HTTPS_PROBE_TIMEOUT);
        match probe.fetch(start.clone(), limit).await {
            Ok(answer) => {
                first = Some((start, answer));
                break;
            }
            // A certificate refused over https says more than plain http's refusal after it.
            Err(e) => {
                let about_certificate = |e: &DiscoveryError| e.to_string().contains("certificate");
                if !failure.as_ref().is_some_and(about_certificate) {
                    failure = Some(e);
                }
            }
        }
    }
    let Some((start, first)) = first else {
        return Err(failure.unwrap_or(DiscoveryError::NoCatalog));
    };
    let origin = probe.origin.clone();
    let verdict = |d: Discovered| mark_elsewhere(d, &origin);
    let page = match first {
        Answer::Catalog { url, version, body } => {
            return Ok(verdict(found(url, version, &body, "address")))
        }
        Answer::Page { url, body } => Some((url, body)),
        Answer::Locked { .. } | Answer::Other => None,
    };
    if let Some((page_url, body)) = &page {
        for (href, link_version) in alternate_links(body) {
            let Ok(url) = page_url.join(&href) else {
                continue;
            };
            match probe.fetch(url, None).await {
                Ok(Answer::Catalog { url, version, body }) => {
                    return Ok(verdict(found(url, version, &body, "web page")))
                }
                // A catalog on another host that wants a sign-in: named by the page, and
                // saved (with the sign-in sent there) only if the reader says yes.
                Ok(Answer::Locked { url })
                    if !redirects::may_carry_credentials(&url, &probe.origin) =>
                {
                    let mut d = found(url, link_version, "", "web page");
                    d.locked = true;
                    return Ok(verdict(d));
                }
                _ => {}
            }
        }
    }
    let base = page.as_ref().map(|(u, _)| u.clone()).unwrap_or(start);
    for path in WELL_KNOWN {
        let Ok(url) = base.join(path) else { continue };
        if let Ok(Answer::Catalog { url, version, body }) = probe.fetch(url, None).await {
            return Ok(verdict(found(url, version, &body, "well-known path")));
        }
    }
    if probe.challenged && !sign_in.is_given() {
        return Err(DiscoveryError::SignInNeeded);
    }
    Err(DiscoveryError::NoCatalog)
}

/// The addresses to try for what was typed: itself when it has a scheme; a bare host over
/// https, then http.
fn parse_address(address: &str) -> Result<Vec<Url>, DiscoveryError> {
    let trimmed = address.trim();
    let parse = |text: &str| {
        let url = Url::parse(text)
            .map_err(|e| DiscoveryError::InvalidAddress(format!("{trimmed}: {e}")))?;
        if !matches!(url.scheme(), "http" | "https") || url.host_str().is_none() {
            return Err(DiscoveryError::InvalidAddress(trimmed.to_owned()));
        }
        Ok(url)
    };
    if trimmed.contains("://") {
        return Ok(vec![parse(trimmed)?]);
    }
    Ok(vec![
        parse(&format!("https://{trimmed}"))?,
        parse(&format!("http://{trimmed}"))?,
    ])
}

/// Requests of one discovery: its clients, the origin the sign-in may go to, and whether that
/// origin asked for it.
struct Probe<'a> {
    strict: reqwest::Client,
    /// Accepts any certificate: for the origin typed only, when the reader trusts it.
    lenient: Option<reqwest::Client>,
    origin: Url,
    sign_in: SignIn<'a>,
    /// The origin answered `401`: the sign-in goes with every later request to it.
    challenged: bool,
}

impl<'a> Probe<'a> {
    fn new(sign_in: SignIn<'a>, trust_self_signed: bool) -> Result<Probe<'a>, DiscoveryError> {
        let build = |lenient: bool| {
            redirects::client_builder()
                .danger_accept_invalid_certs(lenient)
                .connect_timeout(Duration::from_secs(10))
                .timeout(Duration::from_secs(30))
                .build()
                .map_err(|e| DiscoveryError::Unreachable(e.to_string()))
        };
        Ok(Probe {
            strict: build(false)?,
            lenient: trust_self_signed.then(|| build(true)).transpose()?,
            origin: Url::parse("http://localhost/").expect("a valid address"),
            sign_in,
            challenged: false,
        })
    }

    /// Asks `url`, following redirects as new requests (each signed in only where it may be).
    async fn fetch(&mut self, url: Url, limit: Option<Duration>) -> Result<Answer, DiscoveryError> {
        let mut at = url;
        for _ in 0..=redirects::MAX_REDIRECTS {
            let own = redirects::may_carry_credentials(&at, &self.origin);
            let client = match &self.lenient {
                Some(lenient) if own => lenient,
                _ => &self.strict,
            };
            let signed = own && self.challenged;
            let mut response = send(client, &at, self.sign_in, signed, limit).await?;
            if response.status() == StatusCode::UNAUTHORIZED && own && !self.challenged {
                self.challenged = true;
                if self.sign_in.is_given() {
                    response = send(client, &at, self.sign_in, true, limit).await?;
                }
            }
            if let Some(next) = redirects::next_hop(&response) {
                at = next;
                continue;
            }
            return Ok(classify(response).await);
        }
        Ok(Answer::Other)
    }
}

async fn send(
    client: &reqwest::Client,
    url: &Url,
    sign_in: SignIn<'_>,
    signed: bool,
    limit: Option<Duration>,
) -> Result<reqwest::Response, DiscoveryError> {
    let mut request = client.get(url.clone());
    if signed {
        request = sign_in.apply(request);
    }
    if let Some(limit) = limit {
        request = request.timeout(limit);
    }
    request.send().await.map_err(|e| {
        let why = match crate::http_fetch::certificate_problem(&e) {
            Some(detail) => {
                format!("the server's certificate is not trusted (self-signed?): {detail}")
            }
            None => e.without_url().to_string(),
        };
        DiscoveryError::Unreachable(carrel_foundation::address_secrets::redact(url) + ": " + &why)
    })
}

async fn classify(response: reqwest::Response) -> Answer {
    let final_url = response.url().clone();
    if response.status() == StatusCode::UNAUTHORIZED {
        return Answer::Locked { url: final_url };
    }
    if !response.status().is_success() {
        return Answer::Other;
    }
    let content_type = response
        .headers()
        .get(header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .unwrap_or_default()
        .to_ascii_lowercase();
    let body = match read_at_most(response, MAX_DOCUMENT_BYTES).await {
        Ok(Some(b)) => String::from_utf8_lossy(&b).into_owned(),
        _ => return Answer::Other,
    };
    let head = body.trim_start();
    if content_type.contains("opds+json")
        || (content_type.contains("json")
            && head.starts_with('{')
            && body.contains("\"navigation\""))
    {
        return Answer::Catalog {
            url: final_url,
            version: "2.0",
            body,
        };
    }
    if (content_type.contains("atom") || content_type.contains("xml")) && body.contains("<feed") {
        return Answer::Catalog {
            url: final_url,
            version: "1.2",
            body,
        };
    }
    if content_type.contains("html") {
        return Answer::Page {
            url: final_url,
            body,
        };
    }
    Answer::Other
}

/// Marks a catalog found outside the origin the reader's address answered on.
fn mark_elsewhere(mut found: Discovered, origin: &Url) -> Discovered {
    let Ok(url) = Url::parse(&found.catalog_url) else {
        return found;
    };
    if !redirects::may_carry_credentials(&url, origin) {
        found.elsewhere = Some(
            if url.host_str() == origin.host_str()
                && origin.scheme() == "https"
                && url.scheme() == "http"
            {
                Elsewhere::DownToHttp
            } else {
                Elsewhere::OtherHost
            },
        );
    }
    found
}

/// The `href`s of the page's `<link rel="alternate">` to an OPDS catalog, Atom first, each
/// with the OPDS version its type says.
fn alternate_links(html: &str) -> Vec<(String, &'static str)> {
    let mut atom = Vec::new();
    let mut json = Vec::new();
    let lower = html.to_ascii_lowercase();
    let mut at = 0;
    while let Some(i) = lower[at..].find("<link") {
        let start = at + i;
        let end = lower[start..].find('>').map_or(lower.len(), |e| start + e);
        let tag = &html[start..end];
        let tag_lower = &lower[start..end];
        at = end;
        if !tag_lower.contains("alternate") {
            continue;
        }
        let Some(href) = attribute(tag, "href") else {
            continue;
        };
        let kind = attribute(tag, "type")
            .unwrap_or_default()
            .to_ascii_lowercase();
        if kind.contains("profile=opds-catalog") {
            atom.push((href, "1.2"));
        } else if kind.contains("application/opds+json") {
            json.push((href, "2.0"));
        }
    }
    atom.extend(json);
    atom
}

fn attribute(tag: &str, name: &str) -> Option<String> {
    let lower = tag.to_ascii_lowercase();
    let mut from = 0;
    while let Some(i) = lower[from..].find(name) {
        let pos = from + i;
        from = pos + name.len();
        let boundary = pos == 0 || lower.as_bytes()[pos - 1].is_ascii_whitespace();
        let rest = lower[from..].trim_start();
        if !boundary || !rest.starts_with('=') {
            continue;
        }
        let value_start = tag.len() - rest.len() + 1;
        let value = tag[value_start..].trim_start();
        let (quote, body) = match value.chars().next()? {
            q @ ('"' | '\'') => (Some(q), &value[1..]),
            _ => (None, value),
        };
        let end = match quote {
            Some(q) => body.find(q)?,
            None => body
                .find(|c: char| c.is_whitespace() || c == '/' || c == '>')
                .unwrap_or(body.len()),
        };
        return Some(body[..end].replace("&amp;", "&"));
    }
    None
}

fn found(url: Url, version: &str, body: &str, found_by: &str) -> Discovered {
    let head: String = body.chars().take(8192).collect();
    let kind = [
        "Calibre-Web",
        "Codex",
        "Komga",
        "Kavita",
        "Stump",
        "calibre",
    ]
    .iter()
    .find(|k| head.contains(*k))
    .map(|k| k.to_string());
    let title = carrel_opds::parse_feed(body.as_bytes(), &url)
        .ok()
        .map(|feed| feed.title.split_whitespace().collect::<Vec<_>>().join(" "))
        .filter(|title| !title.is_empty());
    Discovered {
        catalog_url: url.to_string(),
        opds_version: version.to_owned(),
        server_kind: kind,
        found_by: found_by.to_owned(),
        elsewhere: None,
        locked: false,
        title,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_alternate_link_is_read_from_a_web_page() {
        let html = r#"<html><head><link rel="stylesheet" href="/s.css">
            <LINK rel="alternate" type="application/atom+xml;profile=opds-catalog;kind=navigation" href="/opds/v1.2/?a=1&amp;b=2" title="OPDS">
            <link rel='alternate' type='application/opds+json' href='/opds/v2.0/'></head></html>"#;
        assert_eq!(
            alternate_links(html),
            [
                ("/opds/v1.2/?a=1&b=2".to_owned(), "1.2"),
                ("/opds/v2.0/".to_owned(), "2.0")
            ]
        );
        assert!(alternate_links("<html><link rel=alternate href=/rss></html>").is_empty());
    }

    #[test]
    fn a_bare_host_is_tried_over_https_then_http() {
        let tried: Vec<String> = parse_address("nas:9810")
            .unwrap()
            .iter()
            .map(Url::to_string)
            .collect();
        assert_eq!(tried, ["https://nas:9810/", "http://nas:9810/"]);
        let tried: Vec<String> = parse_address("http://nas/")
            .unwrap()
            .iter()
            .map(Url::to_string)
            .collect();
        assert_eq!(tried, ["http://nas/"], "a scheme typed is kept");
        assert!(parse_address("ftp://nas").is_err());
    }

    #[test]
    fn what_was_found_is_said_plainly() {
        let d = found(
            Url::parse("http://nas:9810/opds/v1.2/").unwrap(),
            "1.2",
            "<feed><title>Codex</title></feed>",
            "web page",
        );
        assert_eq!(
            d.describe(),
            "Codex, OPDS 1.2 at http://nas:9810/opds/v1.2/"
        );
        assert_eq!(d.consent_question(), None);
    }

    #[test]
    fn a_catalog_elsewhere_is_marked_and_asked_about() {
        let typed = Url::parse("https://nas/").unwrap();
        let at = |u: &str| {
            mark_elsewhere(found(Url::parse(u).unwrap(), "1.2", "", "web page"), &typed).elsewhere
        };
        assert_eq!(at("https://nas/opds"), None);
        assert_eq!(at("http://nas/opds"), Some(Elsewhere::DownToHttp));
        assert_eq!(at("https://other/opds"), Some(Elsewhere::OtherHost));
        assert_eq!(at("https://nas:8443/opds"), Some(Elsewhere::OtherHost));
        let plain = Url::parse("http://nas:9810/").unwrap();
        let from_plain = |u: &str, found_by: &str| {
            mark_elsewhere(found(Url::parse(u).unwrap(), "1.2", "", found_by), &plain)
        };
        let upgraded = from_plain("https://nas:9810/opds", "address");
        assert_eq!(
            upgraded.elsewhere, None,
            "an https upgrade is the same server"
        );
        let d = from_plain("http://other:1/opds", "web page");
        assert!(d
            .consent_question()
            .unwrap()
            .contains("http://other:1/opds"));
    }

    fn fixture(behavior: fixture_server::Behavior) -> fixture_server::RunningServer {
        fixture_server::Server::start(fixture_server::Config {
            books: 2,
            behavior,
            ..Default::default()
        })
        .expect("the fixture server starts")
    }

    /// What `address` leads to for a reader who gave no password and trusts no certificate.
    async fn discover_as_anyone(address: &str) -> Result<Discovered, DiscoveryError> {
        discover(address, SignIn::default(), false).await
    }

    /// `d` is the catalog at `catalog`, found by way of `found_by`.
    fn assert_found(d: &Discovered, catalog: &str, found_by: &str) {
        assert_eq!(
            (d.catalog_url.as_str(), d.found_by.as_str()),
            (catalog, found_by)
        );
    }

    #[tokio::test]
    async fn a_web_address_leads_to_the_catalog_the_page_links() {
        let f = fixture(Default::default());
        let host_port = format!("127.0.0.1:{}", f.port());
        let d = discover_as_anyone(&host_port).await.unwrap();
        assert_found(&d, &f.url("/opds"), "web page");
        assert_eq!(d.opds_version, "1.2");
        // The catalog's own address is taken as it is.
        let d = discover_as_anyone(&f.url("/opds")).await.unwrap();
        assert_found(&d, &f.url("/opds"), "address");
    }

    #[tokio::test]
    async fn without_a_link_the_well_known_paths_are_tried() {
        let f = fixture(fixture_server::Behavior {
            home_without_catalog_link: true,
            ..Default::default()
        });
        let d = discover_as_anyone(&f.base_url()).await.unwrap();
        assert_found(&d, &f.url("/opds"), "well-known path");
    }

    #[tokio::test]
    async fn a_locked_catalog_is_found_with_the_password_and_not_without() {
        let f = fixture(fixture_server::Behavior {
            auth: Some("reader:pw".into()),
            ..Default::default()
        });
        let err = discover_as_anyone(&f.url("/opds")).await.unwrap_err();
        assert_eq!(err.code(), "sign_in_needed");
        let secret = Secret::new("pw");
        let d = discover(
            &f.url("/opds"),
            SignIn {
                username: Some("reader"),
                secret: Some(&secret),
                api_key: false,
            },
            false,
        )
        .await
        .unwrap();
        assert_eq!(d.catalog_url, f.url("/opds"));
    }

    #[tokio::test]
    async fn a_dead_address_says_so() {
        let port = std::net::TcpListener::bind("127.0.0.1:0")
            .unwrap()
            .local_addr()
            .unwrap()
            .port();
        let err = discover_as_anyone(&format!("127.0.0.1:{port}"))
            .await
            .unwrap_err();
        assert_eq!(err.code(), "unreachable");
    }
}
