//! Secrets that travel inside addresses — userinfo, query tokens, and the keys some servers
//! keep in their paths — and addresses fit for messages and logs without them.

use url::Url;

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
