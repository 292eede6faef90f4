//! Secrets that travel inside addresses — userinfo, query tokens, and the keys some servers
//! keep in their paths — and addresses fit for messages and logs without them.

use std::borrow::Cow;

use url::Url;

/// What stands for a server's path key wherever Carrel keeps an address (servers, books, tasks,
/// kept catalog pages): unreserved URL characters only, so it survives parsing and joining
/// unchanged, and no braces, so URL templates do not take it for one of their variables. The key
/// itself is in the credential store and is put back only on the request's way out.
pub const PATH_KEY_PLACEHOLDER: &str = "~apikey~";

/// The shortest path key taken for one; shorter segments are ordinary paths.
const MIN_PATH_KEY_LEN: usize = 8;

/// Where the path key of `url` sits: the index of the segment after `api/opds`.
fn path_key_segment(segments: &[&str]) -> Option<usize> {
    (2..segments.len()).find(|&i| {
        segments[i - 2].eq_ignore_ascii_case("api")
            && segments[i - 1].eq_ignore_ascii_case("opds")
            && !segments[i].is_empty()
    })
}

/// The key a Kavita catalog address carries in its path (`…/api/opds/<key>/…`), when it carries
/// one that is not already the placeholder.
pub fn path_key(url: &Url) -> Option<String> {
    let segments: Vec<&str> = url.path_segments()?.collect();
    let key = segments[path_key_segment(&segments)?];
    (key != PATH_KEY_PLACEHOLDER
        && key.len() >= MIN_PATH_KEY_LEN
        && key
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_'))
    .then(|| key.to_owned())
}

/// Whether `url` carries the placeholder where a path key goes.
pub fn has_path_key_placeholder(url: &Url) -> bool {
    url.path_segments().is_some_and(|s| {
        let segments: Vec<&str> = s.collect();
        path_key_segment(&segments).is_some_and(|i| segments[i] == PATH_KEY_PLACEHOLDER)
    })
}

/// `url` with its path key (if any) replaced by the placeholder, and the key.
pub fn conceal_url(url: &Url) -> (Url, Option<String>) {
    match path_key(url) {
        Some(key) => (swap_path_key(url, PATH_KEY_PLACEHOLDER), Some(key)),
        None => (url.clone(), None),
    }
}

/// A document from a server whose addresses carry `key`, with every occurrence of the key
/// replaced by the placeholder, so the addresses it links to are kept without it.
pub fn conceal_text<'a>(bytes: &'a [u8], key: &str) -> Cow<'a, [u8]> {
    let key = key.as_bytes();
    if key.len() < MIN_PATH_KEY_LEN || !bytes.windows(key.len()).any(|w| w == key) {
        return Cow::Borrowed(bytes);
    }
    let mut out = Vec::with_capacity(bytes.len());
    let mut rest = bytes;
    while let Some(at) = rest.windows(key.len()).position(|w| w == key) {
        out.extend_from_slice(&rest[..at]);
        out.extend_from_slice(PATH_KEY_PLACEHOLDER.as_bytes());
        rest = &rest[at + key.len()..];
    }
    out.extend_from_slice(rest);
    Cow::Owned(out)
}

/// The address to request: the placeholder replaced by the server's key.
pub fn reveal(url: &Url, key: &str) -> Url {
    if has_path_key_placeholder(url) {
        swap_path_key(url, key)
    } else {
        url.clone()
    }
}

fn swap_path_key(url: &Url, with: &str) -> Url {
    let mut u = url.clone();
    let Some(segments) = url.path_segments() else {
        return u;
    };
    let mut segments: Vec<&str> = segments.collect();
    if let Some(i) = path_key_segment(&segments) {
        segments[i] = with;
        u.set_path(&segments.join("/"));
    }
    u
}

/// A URL fit for messages and logs: no userinfo, no query (tokens travel there), and no
/// secret that a known server keeps in its path.
///
/// Kavita puts the reader's API key in every OPDS address, `…/api/opds/{apiKey}/…` (its
/// `OpdsController` routes `[HttpGet("{apiKey}")]` and friends under the prefix
/// `baseUrl + "api/opds/"`, Kareadita/Kavita `API/Controllers/OPDSController.cs`): the segment
/// after `api/opds` becomes `…`, whatever base path the server is under.
pub fn redact(url: &Url) -> String {
    let mut u = url.clone();
    let _ = u.set_username("");
    let _ = u.set_password(None);
    if u.query().is_some() {
        u.set_query(Some("…"));
    }
    if let Some(segments) = u.path_segments() {
        let mut segments: Vec<String> = segments.map(str::to_owned).collect();
        let mut changed = false;
        for i in 2..segments.len() {
            if segments[i - 2].eq_ignore_ascii_case("api")
                && segments[i - 1].eq_ignore_ascii_case("opds")
                && !segments[i].is_empty()
            {
                segments[i] = "…".to_owned();
                changed = true;
            }
        }
        if changed {
            u.set_path(&segments.join("/"));
        }
    }
    u.to_string().replace("%E2%80%A6", "…")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_kavita_key_is_concealed_in_addresses_and_documents_and_revealed_for_requests() {
        let key = "7f3c2a1e-90ab-4cde-8f00-123456789abc";
        let typed = Url::parse(&format!(
            "https://nas.example.org/kavita/api/opds/{key}?x=1"
        ))
        .unwrap();
        let (kept, found) = conceal_url(&typed);
        assert_eq!(found.as_deref(), Some(key));
        assert_eq!(
            kept.as_str(),
            "https://nas.example.org/kavita/api/opds/~apikey~?x=1"
        );
        assert!(has_path_key_placeholder(&kept));
        assert_eq!(path_key(&kept), None, "the placeholder is not a key");
        // Links in the catalog, joined against the kept address, keep the placeholder.
        let feed = format!("<link href=\"/kavita/api/opds/{key}/series/4\"/><id>{key}</id>");
        let concealed = conceal_text(feed.as_bytes(), key);
        let text = std::str::from_utf8(&concealed).unwrap();
        assert!(!text.contains(key), "{text}");
        assert!(
            text.contains("/kavita/api/opds/~apikey~/series/4"),
            "{text}"
        );
        let link = kept.join("/kavita/api/opds/~apikey~/series/4").unwrap();
        assert_eq!(
            link.as_str(),
            "https://nas.example.org/kavita/api/opds/~apikey~/series/4"
        );
        assert_eq!(
            reveal(&link, key).as_str(),
            format!("https://nas.example.org/kavita/api/opds/{key}/series/4")
        );
        // Addresses of other servers are left alone.
        let komga = Url::parse("https://komga.example.org/opds/v1.2/books/0A1B/file").unwrap();
        assert_eq!(conceal_url(&komga), (komga.clone(), None));
        assert_eq!(reveal(&komga, key), komga);
        assert_eq!(
            path_key(&Url::parse("https://x.org/api/opds/short").unwrap()),
            None
        );
    }

    #[test]
    fn redaction_drops_kavitas_api_key_from_the_path() {
        for raw in [
            "https://kavita.example.org/api/opds/7f3c2a1e-90ab-4cde-8f00-123456789abc/series/4",
            "https://kavita.example.org/api/opds/7f3c2a1e-90ab-4cde-8f00-123456789abc",
            "https://example.org/kavita/API/OPDS/7f3c2a1e-90ab-4cde-8f00-123456789abc/image?libraryId=1",
        ] {
            let r = redact(&Url::parse(raw).unwrap());
            assert!(!r.contains("7f3c2a1e"), "{r}");
            assert!(r.to_ascii_lowercase().contains("/opds/…"), "{r}");
        }
        let komga = Url::parse("https://komga.example.org/opds/v1.2/books/0A1B/file").unwrap();
        assert_eq!(
            redact(&komga),
            komga.as_str(),
            "other servers' paths are kept"
        );
    }

    #[test]
    fn redaction_drops_credentials_and_query() {
        let u = Url::parse("https://me:pw@books.example.org/opds/x?apikey=123").unwrap();
        let r = redact(&u);
        assert!(
            !r.contains("pw") && !r.contains("123") && !r.contains("me@"),
            "{r}"
        );
        assert!(r.starts_with("https://books.example.org/opds/x"));
    }
}
