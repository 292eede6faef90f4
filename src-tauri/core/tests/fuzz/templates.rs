//! URL templates: page streaming templates (`{pageNumber}`, `{maxWidth}`, RFC 6570 expressions
//! from OPDS 2) and search templates (OpenSearch `{searchTerms}` with optional parameters, OPDS
//! 2 `{?query}`), generated piece by piece from every kind of brace, escape and address form,
//! and carried in the documents that bring them (an Atom stream link, an OPDS 2 link, an
//! OpenSearch `Url`) as well as given directly to [`SearchTemplate::new`].
//!
//! An input is its fields joined by NUL bytes, so a kept input replays through the same check.

use carrel_core::opds::{
    parse_feed, parse_open_search, strip_bookmark_params, strip_bookmark_params_with, Entry,
    SearchLink, SearchTemplate,
};
use proptest::prelude::*;
use serde_json::json;
use url::Url;

use crate::feeds::{base, check_book, check_search};
use crate::support::{self, Target};

pub const PAGE_TEMPLATES: Target = Target::new("page_templates", check_page_template, 16 << 20);

pub const SEARCH_TEMPLATES: Target =
    Target::new("search_templates", check_search_template, 16 << 20);

fn fields(input: &[u8]) -> Vec<String> {
    String::from_utf8_lossy(input)
        .split('\0')
        .map(str::to_owned)
        .collect()
}

fn escape(s: &str) -> String {
    s.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('"', "&quot;")
}

/// A page template in an Atom stream link and in an OPDS 2 stream link: whatever stream the
/// parsers make of it must build a URL for every page of its count and no other.
fn check_page_template(input: &[u8]) -> Result<(), String> {
    let f = fields(input);
    let field = |i: usize| f.get(i).map(String::as_str).unwrap_or("");
    let (href, count, last_read) = (field(0), field(1), field(2));
    let atom = format!(
        "<feed xmlns=\"http://www.w3.org/2005/Atom\" xmlns:pse=\"http://vaemendis.net/opds-pse/ns\">\
         <id>f</id><title>t</title><entry><id>e</id><title>b</title>\
         <link rel=\"http://vaemendis.net/opds-pse/stream\" type=\"image/jpeg\" href=\"{}\" \
         pse:count=\"{}\" pse:lastRead=\"{}\"/></entry></feed>",
        escape(href),
        escape(count),
        escape(last_read)
    );
    let count_value = count
        .parse::<u64>()
        .map(serde_json::Value::from)
        .unwrap_or_else(|_| serde_json::Value::from(count));
    let opds2 = json!({
        "metadata": { "title": "t" },
        "publications": [ {
            "metadata": { "title": "b", "numberOfPages": count_value.clone() },
            "links": [ { "rel": "http://vaemendis.net/opds-pse/stream", "type": "image/jpeg",
                         "href": href, "templated": true,
                         "properties": { "pse:count": count_value } } ]
        } ]
    });
    let opds2 = serde_json::to_vec(&opds2).unwrap();
    for doc in [atom.as_bytes(), &opds2] {
        if let Ok(feed) = parse_feed(doc, &base()) {
            for entry in &feed.entries {
                if let Entry::Book(book) = entry {
                    check_book(book)?;
                }
            }
        }
    }
    check_stripping(href)
}

/// Removing bookmark parameters is done once and for all: doing it again changes nothing.
fn check_stripping(href: &str) -> Result<(), String> {
    let Ok(url) = base().join(href) else {
        return Ok(());
    };
    let once = strip_bookmark_params(&url);
    let twice = strip_bookmark_params(&once);
    if once != twice {
        return Err(format!(
            "stripping bookmark parameters twice differs: {once} then {twice}"
        ));
    }
    let with = strip_bookmark_params_with(&url, &["page", "x_y", ""]);
    if strip_bookmark_params_with(&with, &["page", "x_y", ""]) != with {
        return Err(format!("stripping with extra names is not stable: {with}"));
    }
    Ok(())
}

/// A search template given directly, in an OpenSearch description and in an OPDS 2 feed.
fn check_search_template(input: &[u8]) -> Result<(), String> {
    let f = fields(input);
    let field = |i: usize| f.get(i).map(String::as_str).unwrap_or("");
    let (href, media_type, query) = (field(0), field(1), field(2));
    let media = (!media_type.is_empty()).then_some(media_type);
    if let Ok(template) = SearchTemplate::new(href, &base(), media) {
        check_search(&template)?;
        if let Ok(url) = template.url_for(query) {
            let budget = (href.len() + base().as_str().len()) * 2 + query.len() * 12 * 8 + 256;
            if url.as_str().len() > budget {
                return Err(format!("{} bytes from {href:?}", url.as_str().len()));
            }
        }
    }
    let description = format!(
        "<OpenSearchDescription xmlns=\"http://a9.com/-/spec/opensearch/1.1/\">\
         <Url type=\"{}\" template=\"{}\"/></OpenSearchDescription>",
        escape(media_type),
        escape(href)
    );
    if let Ok(template) = parse_open_search(description.as_bytes(), &base()) {
        check_search(&template)?;
    }
    let feed = json!({
        "metadata": { "title": "t" },
        "links": [ { "rel": "search", "href": href, "type": media_type, "templated": true } ],
        "navigation": [ { "title": "n", "href": "/n", "type": "application/opds+json" } ]
    });
    if let Ok(feed) = parse_feed(&serde_json::to_vec(&feed).unwrap(), &base()) {
        if let Some(SearchLink::Template { template }) = &feed.links.search {
            check_search(template)?;
            let _ = template.url_for(query);
        }
    }
    Ok(())
}

fn piece() -> impl Strategy<Value = String> {
    prop_oneof![
        4 => "[a-zA-Z0-9/._~-]{0,12}",
        6 => prop::sample::select(vec![
            "{pageNumber}", "{maxWidth}", "{searchTerms}", "{searchTerms?}", "{startPage?}",
            "{startIndex}", "{count?}", "{language}", "{inputEncoding}", "{os:count?}",
            "{?query,page}", "{?query}", "{&pageNumber}", "{+path}", "{#frag}", "{/seg:3}",
            "{.ext*}", "{;m}", "{?pageNumber,maxWidth}", "{pageNumber:2}", "{query*}",
            "{", "}", "{}", "{{pageNumber}}", "{?}", "{?,}", "{:}", "{?q:99999999999}",
            "%7B", "%7D", "%7BpageNumber%7D", "%7bsearchTerms%7d", "%", "%zz", "%25",
            "?", "&", "=", "#", "/", "//", "..", "zero_based=true", "zero_based=false",
            "saveProgress=true", "saveProgress=false", "markRead=1", "track=0", "mark_read=yes",
            "page=", "q=", "\\", " ", "\t", "\u{e9}", "\u{1F600}", "\u{202E}", "\u{0}",
        ]).prop_map(str::to_owned),
        1 => "\\PC{0,4}",
    ]
}

fn template() -> impl Strategy<Value = String> {
    (
        prop::sample::select(vec![
            "",
            "/",
            "/opds/",
            "//other.example",
            "https://books.example.org",
            "http://[::1]:8080",
            "http://user:pass@h",
            "javascript:",
            "data:",
            "file://",
            "mailto:",
            "../",
            "?",
            "#",
            "HTTPS://X",
        ]),
        prop::collection::vec(piece(), 0..14),
    )
        .prop_map(|(prefix, pieces)| format!("{prefix}{}", pieces.concat()))
}

fn count() -> impl Strategy<Value = String> {
    prop_oneof![
        (0u32..12).prop_map(|n| n.to_string()),
        (9_990u32..10_010).prop_map(|n| n.to_string()),
        any::<u64>().prop_map(|n| n.to_string()),
        prop::sample::select(vec!["", "-1", "1.5", "1e3", " 7 ", "0x10", "٣"])
            .prop_map(str::to_owned),
    ]
}

fn query() -> impl Strategy<Value = String> {
    prop_oneof![
        "\\PC{0,40}",
        "[ -~]{0,40}",
        Just("a".repeat(2_000)),
        Just("%%%%{searchTerms}&&&==??##".to_owned()),
    ]
}

fn join(parts: &[&str]) -> Vec<u8> {
    parts.join("\0").into_bytes()
}

#[test]
fn page_templates() {
    support::replay_then_fuzz(
        &PAGE_TEMPLATES,
        file!(),
        "generated",
        (template(), count(), count()).prop_map(|(t, c, l)| join(&[&t, &c, &l])),
    );
}

#[test]
fn search_templates() {
    support::replay_then_fuzz(
        &SEARCH_TEMPLATES,
        file!(),
        "generated",
        (
            template(),
            prop::sample::select(vec![
                "",
                "application/atom+xml;profile=opds-catalog",
                "application/atom+xml",
                "application/opds+json",
                "text/html",
                "  ",
            ]),
            query(),
        )
            .prop_map(|(t, m, q)| join(&[&t, m, &q])),
    );
}

/// Any address, stripped twice, is the address stripped once.
#[test]
fn stripping_is_stable_for_parsed_addresses() {
    let mut checked = 0;
    for href in [
        "https://h/p?saveProgress=true&a=1&track=0&markRead=1#x",
        "https://h/p?save_progress=1&Save-Progress=2&&=&saveProgress",
        "https://h/p?%73aveProgress=true",
    ] {
        let url = Url::parse(href).unwrap();
        check_stripping(url.as_str()).unwrap();
        checked += 1;
    }
    assert_eq!(checked, 3);
}
