//! Where a request may go, and with what: the one redirect rule of every HTTP client Carrel
//! makes (catalog, downloads, covers, sessions, discovery, KOReader sync), and which addresses
//! a server's credentials may reach.
//!
//! A client made by [`client_builder`] follows a redirect by itself only while it stays on the
//! origin (scheme, host and port) of the request's first address, and never sends a `Referer`
//! (a Kavita address carries its key in its path). Any other redirect — to another host or
//! port, from http up to https, or from https down to http — comes back to the caller as the
//! 3xx it is; [`next_hop`] says where it leads. The caller asks there again as a new request,
//! carrying a credential only where [`may_carry_credentials`] allows it, and only with `GET`:
//! a request with a body (a sign-in, a reading position) is never sent on to another origin.
//! So no credential a request carried — `Authorization`, `Cookie`, `X-API-Key`,
//! `X-Auth-Token`, `x-auth-user`/`x-auth-key`, a path key — ever leaves with a redirect: reqwest
//! alone strips only `Authorization` and `Cookie`, and only when the host changes.
//!
//! Owns the rule; does not send requests (callers do: `http_fetch`, `server_discovery`,
//! `reading::kosync`).

use reqwest::{header, Response, StatusCode};
use url::Url;

/// Sent with every request; servers see one polite client.
pub const USER_AGENT: &str = concat!("Carrel/", env!("CARGO_PKG_VERSION"));

/// The most redirects one request follows, its own and those asked again together.
pub const MAX_REDIRECTS: usize = 8;

/// Whether two addresses share scheme, host and port.
pub fn same_origin(a: &Url, b: &Url) -> bool {
    a.scheme() == b.scheme()
        && a.host_str() == b.host_str()
        && a.port_or_known_default() == b.port_or_known_default()
}

/// Whether `target` may receive the credentials meant for `origin`: the same origin, or its
/// https upgrade (the same host over https, on the same port or https's own). Never another
/// host, never a move down from https to http.
pub fn may_carry_credentials(target: &Url, origin: &Url) -> bool {
    same_origin(target, origin) || is_https_upgrade(target, origin)
}

/// `target` is `origin`'s host over https, where `origin` is plain http.
pub fn is_https_upgrade(target: &Url, origin: &Url) -> bool {
    origin.scheme() == "http"
        && target.scheme() == "https"
        && target.host_str() == origin.host_str()
        && (target.port_or_known_default() == origin.port_or_known_default()
            || target.port_or_known_default() == Some(443))
}

/// The redirect policy of every client: follow while on the first address's origin.
pub fn policy() -> reqwest::redirect::Policy {
    reqwest::redirect::Policy::custom(|attempt| {
        if attempt.previous().len() > MAX_REDIRECTS {
            return attempt.error(TooManyRedirects);
        }
        let stays = attempt
            .previous()
            .first()
            .is_some_and(|first| same_origin(attempt.url(), first));
        if stays {
            attempt.follow()
        } else {
            attempt.stop()
        }
    })
}

/// A client builder with Carrel's user agent, the redirect [`policy`] and no `Referer`.
pub fn client_builder() -> reqwest::ClientBuilder {
    reqwest::Client::builder()
        .user_agent(USER_AGENT)
        .redirect(policy())
        .referer(false)
}

/// Where an answer redirects to, when it is a redirect the client did not follow (it leaves
/// the origin): its `Location`, resolved against the answer's address; only http(s).
pub fn next_hop(response: &Response) -> Option<Url> {
    if !matches!(
        response.status(),
        StatusCode::MOVED_PERMANENTLY
            | StatusCode::FOUND
            | StatusCode::SEE_OTHER
            | StatusCode::TEMPORARY_REDIRECT
            | StatusCode::PERMANENT_REDIRECT
    ) {
        return None;
    }
    let location = response.headers().get(header::LOCATION)?.to_str().ok()?;
    let next = response.url().join(location).ok()?;
    matches!(next.scheme(), "http" | "https").then_some(next)
}

#[derive(Debug)]
struct TooManyRedirects;

impl std::fmt::Display for TooManyRedirects {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "more than {MAX_REDIRECTS} redirects")
    }
}

impl std::error::Error for TooManyRedirects {}

#[cfg(test)]
mod tests {
    use super::*;

    fn url(s: &str) -> Url {
        Url::parse(s).unwrap()
    }

    #[test]
    fn credentials_stay_on_the_origin_or_its_https_upgrade() {
        let origin = url("http://nas:9810/opds/");
        assert!(may_carry_credentials(&url("http://nas:9810/x"), &origin));
        assert!(may_carry_credentials(&url("https://nas:9810/x"), &origin));
        assert!(may_carry_credentials(&url("https://nas/x"), &origin));
        assert!(!may_carry_credentials(&url("http://nas:9811/x"), &origin));
        assert!(!may_carry_credentials(&url("http://other:9810/x"), &origin));
        assert!(!may_carry_credentials(&url("https://nas:8443/x"), &origin));
        let secure = url("https://nas/opds");
        assert!(may_carry_credentials(&url("https://nas:443/a"), &secure));
        assert!(!may_carry_credentials(&url("http://nas/a"), &secure));
        assert!(!may_carry_credentials(&url("http://nas:443/a"), &secure));
    }
}
