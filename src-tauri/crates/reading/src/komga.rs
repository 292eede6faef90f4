//! Komga's own read-progress API, for reading positions on Komga servers, whose OPDS feeds
//! carry no progression link: a book's position is `PATCH`ed to
//! `<base>/api/v1/books/<id>/read-progress` as `{"page": n, "completed": bool}` (pages from 1;
//! `{"completed": true}` alone marks a book read), `DELETE`d to mark it unread, and read back
//! from the book, `GET <base>/api/v1/books/<id>` → `readProgress`.
//!
//! A feed is Komga's when its own `<author>` is named Komga (what every Komga OPDS 1.2 feed
//! says); a book's API address comes from its page stream, which Komga serves at
//! `<base>/opds/v1.2/books/<id>/pages/{pageNumber}` (`<base>` keeps a server under a sub-path).
//! Owns nothing in the database: `position_sync` keeps the address in `books.read_progress_url`.

use serde_json::{json, Value};

use carrel_foundation::timestamps::parse_rfc3339;

/// The feed-level author name Komga writes into its OPDS feeds.
const AUTHOR_NAME: &str = "Komga";

/// Where Komga's OPDS 1.2 page streams live, under the server's base.
const STREAM_PREFIX: &str = "/opds/v1.2/books/";

/// Whether a feed whose own authors are `authors` comes from Komga.
pub fn is_komga_feed<'a>(authors: impl IntoIterator<Item = &'a str>) -> bool {
    authors
        .into_iter()
        .any(|name| name.trim().eq_ignore_ascii_case(AUTHOR_NAME))
}

/// The read-progress address of the book whose page stream is `stream_template` (absolute),
/// or `None` when the stream is not laid out as Komga's.
pub fn read_progress_url(stream_template: &str) -> Option<String> {
    let at = stream_template.find(STREAM_PREFIX)?;
    let base = &stream_template[..at];
    let rest = &stream_template[at + STREAM_PREFIX.len()..];
    let (id, after) = rest.split_once('/')?;
    let valid_id = !id.is_empty()
        && id
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_');
    if !valid_id
        || !after.starts_with("pages/")
        || !(base.starts_with("http://") || base.starts_with("https://"))
    {
        return None;
    }
    Some(format!("{base}/api/v1/books/{id}/read-progress"))
}

/// The book's own address (where `readProgress` is read) for its read-progress address.
pub fn book_url(read_progress_url: &str) -> Option<&str> {
    read_progress_url.strip_suffix("/read-progress")
}

/// The body of a `PATCH …/read-progress` for 0-based `page` of a book of `page_count` pages.
pub fn progress_body(page: i64, page_count: Option<i64>) -> Vec<u8> {
    let shown = page.max(0) + 1;
    let completed = page_count.is_some_and(|count| count > 0 && shown >= count);
    serde_json::to_vec(&json!({ "page": shown, "completed": completed }))
        .expect("a JSON value serialises")
}

/// The body of a `PATCH …/read-progress` that marks a book read whatever its page count
/// (Komga then puts the position at its last page).
pub fn completed_body() -> Vec<u8> {
    serde_json::to_vec(&json!({ "completed": true })).expect("a JSON value serialises")
}

/// Komga's position of a book, read from the book document: the 0-based page and when it was
/// set (unix milliseconds). `None` when the book has no read progress or it cannot be read.
pub fn parse_book(bytes: &[u8], page_count: Option<i64>) -> Option<(i64, i64)> {
    let doc: Value = serde_json::from_slice(bytes).ok()?;
    let progress = doc.get("readProgress").filter(|p| !p.is_null())?;
    let shown = progress.get("page")?.as_i64()?;
    let when = ["lastModified", "readDate"]
        .iter()
        .find_map(|key| progress.get(*key)?.as_str().and_then(parse_date))?;
    let page = shown.saturating_sub(1).max(0);
    let page = match page_count.filter(|c| *c > 0) {
        Some(count) => page.min(count - 1),
        None => page,
    };
    Some((page, when))
}

/// Komga writes its dates as RFC 3339, some versions without an offset (UTC).
fn parse_date(text: &str) -> Option<i64> {
    parse_rfc3339(text).or_else(|| parse_rfc3339(&format!("{}Z", text.trim())))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn feed(bytes: &[u8], at: &str) -> carrel_opds::Feed {
        carrel_opds::parse_feed(bytes, &url::Url::parse(at).unwrap()).unwrap()
    }

    #[test]
    fn opds_a_komga_feed_names_komga_and_its_streams_lead_to_the_read_progress_api() {
        let komga = feed(
            include_bytes!("../../../core/tests/feeds/komga_series.xml"),
            "https://komga.example.net/opds/v1.2/series/0HS7QK1RY2ZQ4?page=0",
        );
        let kavita = feed(
            include_bytes!("../../../core/tests/feeds/kavita_volume.xml"),
            "https://kavita.example.org/api/opds/5c1f0e7a-demo-key/series/12/volume/34",
        );
        assert!(is_komga_feed(komga.authors.iter().map(String::as_str)));
        let stream = komga
            .entries
            .iter()
            .find_map(|e| match e {
                carrel_opds::Entry::Book(b) => Some(b),
                carrel_opds::Entry::Navigation(_) => None,
            })
            .unwrap()
            .stream
            .as_ref()
            .unwrap()
            .background_template();
        let api = read_progress_url(&stream).expect("a Komga page stream");
        assert!(
            api.starts_with("https://komga.example.net/api/v1/books/")
                && api.ends_with("/read-progress"),
            "{api}"
        );
        assert!(!is_komga_feed(kavita.authors.iter().map(String::as_str)));
    }

    #[test]
    fn komga_feeds_are_known_by_their_author() {
        assert!(is_komga_feed(["Komga"]));
        assert!(is_komga_feed(["someone", " komga "]));
        assert!(!is_komga_feed(["Stump"]));
        assert!(!is_komga_feed([]));
    }

    #[test]
    fn the_api_address_comes_from_the_page_stream() {
        assert_eq!(
            read_progress_url("https://books.example/opds/v1.2/books/0HS7QM3B8C1XA/pages/{pageNumber}?zero_based=true").as_deref(),
            Some("https://books.example/api/v1/books/0HS7QM3B8C1XA/read-progress")
        );
        assert_eq!(
            read_progress_url("http://nas:8080/komga/opds/v1.2/books/42/pages/{pageNumber}")
                .as_deref(),
            Some("http://nas:8080/komga/api/v1/books/42/read-progress")
        );
        for other in [
            "https://books.example/books/1/pages/{pageNumber}",
            "https://books.example/opds/v1.2/books/../pages/{pageNumber}",
            "https://books.example/opds/v1.2/books/7/file",
            "/opds/v1.2/books/7/pages/{pageNumber}",
        ] {
            assert_eq!(read_progress_url(other), None, "{other}");
        }
        assert_eq!(
            book_url("http://h/api/v1/books/42/read-progress"),
            Some("http://h/api/v1/books/42")
        );
    }

    #[test]
    fn positions_go_out_one_based_and_the_last_page_completes() {
        let body: Value = serde_json::from_slice(&progress_body(4, Some(20))).unwrap();
        assert_eq!(body, json!({ "page": 5, "completed": false }));
        let body: Value = serde_json::from_slice(&progress_body(19, Some(20))).unwrap();
        assert_eq!(body, json!({ "page": 20, "completed": true }));
        let body: Value = serde_json::from_slice(&progress_body(3, None)).unwrap();
        assert_eq!(body, json!({ "page": 4, "completed": false }));
    }

    #[test]
    fn read_progress_comes_back_zero_based_with_its_date() {
        let doc = br#"{"id":"42","readProgress":{"page":7,"completed":false,"readDate":"2026-01-02T10:00:00Z","lastModified":"2026-01-02T10:00:05"}}"#;
        let (page, when) = parse_book(doc, Some(20)).unwrap();
        assert_eq!(page, 6);
        assert_eq!(Some(when), parse_rfc3339("2026-01-02T10:00:05Z"));
        assert_eq!(
            parse_book(
                br#"{"readProgress":{"page":99,"readDate":"2026-01-02T10:00:00Z"}}"#,
                Some(20)
            )
            .unwrap()
            .0,
            19
        );
        assert_eq!(
            parse_book(br#"{"id":"42","readProgress":null}"#, Some(20)),
            None
        );
        assert_eq!(
            parse_book(br#"{"readProgress":{"page":3}}"#, Some(20)),
            None
        );
        assert_eq!(parse_book(b"<html>", Some(20)), None);
        let hostile = format!(
            r#"{{"readProgress":{{"page":{},"readDate":"2026-01-02T10:00:00Z"}}}}"#,
            i64::MIN
        );
        assert_eq!(parse_book(hostile.as_bytes(), Some(20)).unwrap().0, 0);
    }
}
