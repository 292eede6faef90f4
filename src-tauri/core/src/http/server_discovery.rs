//! Finding a server's OPDS catalog from what a reader types: a host, host:port, the server's
//! web address, or the catalog's own address.
//!
//! In order: the address itself (redirects followed) when it answers a catalog; the catalog the
//! web page points to (`<link rel="alternate" type="application/atom+xml;profile=opds-catalog">`
//! or `application/opds+json`) — what the server recommends; else the well-known catalog
//! paths of the servers Carrel knows ([`WELL_KNOWN`]). A bare host is tried over `http://`:
//! self-hosted servers listen on plain HTTP on their own port, and one behind a TLS proxy
//! redirects there, which is followed.
//!
//! Owns discovery only: no storage, no server records (the caller saves what was found).

use std::time::Duration;

use reqwest::header;
use url::Url;

use crate::library::credentials::Secret;

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
}

impl Discovered {
    /// "Codex, OPDS 1.2 at /opds/v1.2/".
    pub fn describe(&self) -> String {
        let path = Url::parse(&self.catalog_url)
            .map(|u| u.path().to_owned())
            .unwrap_or_else(|_| self.catalog_url.clone());
        match &self.server_kind {
            Some(kind) => format!("{kind}, OPDS {} at {path}", self.opds_version),
            None => format!("OPDS {} at {path}", self.opds_version),
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
    #[error("the server cannot be reached: {0}")]
    Unreachable(String),
}

impl crate::foundation::error::Failure for DiscoveryError {
    fn kind(&self) -> crate::foundation::error::ErrorKind {
        match self {
            DiscoveryError::InvalidAddress(_) => crate::foundation::error::ErrorKind::InvalidInput,
            DiscoveryError::NoCatalog | DiscoveryError::Unreachable(_) => {
                crate::foundation::error::ErrorKind::Server
            }
        }
    }

    fn field(&self) -> Option<crate::foundation::error::ErrorField> {
        Some(crate::foundation::error::ErrorField::Url)
    }
}

impl DiscoveryError {
    /// What went wrong, as a stable word (for scripts reading the CLI's JSON).
    pub fn code(&self) -> &'static str {
        match self {
            DiscoveryError::InvalidAddress(_) => "invalid_address",
            DiscoveryError::NoCatalog => "no_catalog",
            DiscoveryError::Unreachable(_) => "unreachable",
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
    Other,
}

/// Finds the catalog behind `address`, signing in with `username`/`secret` when given.
/// The address to save for a server the reader typed as `typed`: the catalog found from it,
/// else a full address as it was typed (the server's own validation then says what is wrong
/// with it, or the catalog is checked when it is first browsed — a server away today can still
/// be added). A bare host from which no catalog was found is an error: there is no address to
/// save. Used by the window.
pub async fn catalog_address(
    typed: &str,
    username: Option<&str>,
    secret: Option<&Secret>,
    trust_self_signed: bool,
) -> Result<(String, Option<Discovered>), DiscoveryError> {
    match discover(typed, username, secret, trust_self_signed).await {
        Ok(found) => Ok((found.catalog_url.clone(), Some(found))),
        Err(e) if typed.contains("://") || matches!(e, DiscoveryError::InvalidAddress(_)) => {
            tracing::info!(cause = %e, "no catalog found from the address typed; it is kept as given");
            Ok((typed.trim().to_owned(), None))
        }
        Err(e) => Err(e),
    }
}

pub async fn discover(
    address: &str,
    username: Option<&str>,
    secret: Option<&Secret>,
    trust_self_signed: bool,
) -> Result<Discovered, DiscoveryError> {
    let start = parse_address(address)?;
    let client = reqwest::Client::builder()
        .user_agent(crate::http::http_fetch::USER_AGENT)
        .danger_accept_invalid_certs(trust_self_signed)
        .connect_timeout(Duration::from_secs(10))
        .timeout(Duration::from_secs(30))
        .build()
        .map_err(|e| DiscoveryError::Unreachable(e.to_string()))?;
    let fetch = |url: Url| {
        let client = client.clone();
        async move { fetch_one(&client, url, username, secret).await }
    };
    let first = fetch(start.clone()).await?;
    let page = match first {
        Answer::Catalog { url, version, body } => return Ok(found(url, version, &body, "address")),
        Answer::Page { url, body } => Some((url, body)),
        Answer::Other => None,
    };
    if let Some((page_url, body)) = &page {
        for href in alternate_links(body) {
            let Ok(url) = page_url.join(&href) else {
                continue;
            };
            if let Ok(Answer::Catalog { url, version, body }) = fetch(url).await {
                return Ok(found(url, version, &body, "web page"));
            }
        }
    }
    let origin = page.as_ref().map(|(u, _)| u.clone()).unwrap_or(start);
    for path in WELL_KNOWN {
        let Ok(url) = origin.join(path) else { continue };
        if let Ok(Answer::Catalog { url, version, body }) = fetch(url).await {
            return Ok(found(url, version, &body, "well-known path"));
        }
    }
    Err(DiscoveryError::NoCatalog)
}

fn parse_address(address: &str) -> Result<Url, DiscoveryError> {
    let trimmed = address.trim();
    let with_scheme = if trimmed.contains("://") {
        trimmed.to_owned()
    } else {
        format!("http://{trimmed}")
    };
    let url = Url::parse(&with_scheme)
        .map_err(|e| DiscoveryError::InvalidAddress(format!("{trimmed}: {e}")))?;
    if !matches!(url.scheme(), "http" | "https") || url.host_str().is_none() {
        return Err(DiscoveryError::InvalidAddress(trimmed.to_owned()));
    }
    Ok(url)
}

async fn fetch_one(
    client: &reqwest::Client,
    url: Url,
    username: Option<&str>,
    secret: Option<&Secret>,
) -> Result<Answer, DiscoveryError> {
    let mut request = client.get(url.clone());
    if let (Some(user), Some(secret)) = (username, secret) {
        request = request.basic_auth(user, Some(secret.expose()));
    }
    let response = request.send().await.map_err(|e| {
        DiscoveryError::Unreachable(
            crate::foundation::address_secrets::redact(&url) + ": " + &e.without_url().to_string(),
        )
    })?;
    if !response.status().is_success() {
        return Ok(Answer::Other);
    }
    let final_url = response.url().clone();
    let content_type = response
        .headers()
        .get(header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .unwrap_or_default()
        .to_ascii_lowercase();
    let body = match response.bytes().await {
        Ok(b) if b.len() <= 4 * 1024 * 1024 => String::from_utf8_lossy(&b).into_owned(),
        _ => return Ok(Answer::Other),
    };
    let head = body.trim_start();
    if content_type.contains("opds+json")
        || (content_type.contains("json")
            && head.starts_with('{')
            && body.contains("\"navigation\""))
    {
        return Ok(Answer::Catalog {
            url: final_url,
            version: "2.0",
            body,
        });
    }
    if (content_type.contains("atom") || content_type.contains("xml")) && body.contains("<feed") {
        return Ok(Answer::Catalog {
            url: final_url,
            version: "1.2",
            body,
        });
    }
    if content_type.contains("html") {
        return Ok(Answer::Page {
            url: final_url,
            body,
        });
    }
    Ok(Answer::Other)
}

/// The `href`s of the page's `<link rel="alternate">` to an OPDS catalog, Atom first.
fn alternate_links(html: &str) -> Vec<String> {
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
            atom.push(href);
        } else if kind.contains("application/opds+json") {
            json.push(href);
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
    Discovered {
        catalog_url: url.to_string(),
        opds_version: version.to_owned(),
        server_kind: kind,
        found_by: found_by.to_owned(),
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
            ["/opds/v1.2/?a=1&b=2", "/opds/v2.0/"]
        );
        assert!(alternate_links("<html><link rel=alternate href=/rss></html>").is_empty());
    }

    #[test]
    fn a_bare_host_gets_http() {
        assert_eq!(
            parse_address("nas:9810").unwrap().as_str(),
            "http://nas:9810/"
        );
        assert_eq!(
            parse_address("https://nas/").unwrap().as_str(),
            "https://nas/"
        );
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
        assert_eq!(d.describe(), "Codex, OPDS 1.2 at /opds/v1.2/");
    }

    fn fixture(behavior: fixture_server::Behavior) -> fixture_server::RunningServer {
        fixture_server::Server::start(fixture_server::Config {
            books: 2,
            behavior,
            ..Default::default()
        })
        .expect("the fixture server starts")
    }

    #[tokio::test]
    async fn a_web_address_leads_to_the_catalog_the_page_links() {
        let f = fixture(Default::default());
        let host_port = format!("127.0.0.1:{}", f.port());
        let d = discover(&host_port, None, None, false).await.unwrap();
        assert_eq!(d.catalog_url, f.url("/opds"));
        assert_eq!(
            (d.opds_version.as_str(), d.found_by.as_str()),
            ("1.2", "web page")
        );
        // The catalog's own address is taken as it is.
        let d = discover(&f.url("/opds"), None, None, false).await.unwrap();
        assert_eq!(
            (d.catalog_url.as_str(), d.found_by.as_str()),
            (f.url("/opds").as_str(), "address")
        );
    }

    #[tokio::test]
    async fn without_a_link_the_well_known_paths_are_tried() {
        let f = fixture(fixture_server::Behavior {
            home_without_catalog_link: true,
            ..Default::default()
        });
        let d = discover(&f.base_url(), None, None, false).await.unwrap();
        assert_eq!(
            (d.catalog_url.as_str(), d.found_by.as_str()),
            (f.url("/opds").as_str(), "well-known path")
        );
    }

    #[tokio::test]
    async fn a_locked_catalog_is_found_with_the_password_and_not_without() {
        let f = fixture(fixture_server::Behavior {
            auth: Some("reader:pw".into()),
            ..Default::default()
        });
        let err = discover(&f.url("/opds"), None, None, false)
            .await
            .unwrap_err();
        assert_eq!(err.code(), "no_catalog");
        let d = discover(
            &f.url("/opds"),
            Some("reader"),
            Some(&Secret::new("pw")),
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
        let err = discover(&format!("127.0.0.1:{port}"), None, None, false)
            .await
            .unwrap_err();
        assert_eq!(err.code(), "unreachable");
    }
}
