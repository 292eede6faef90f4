//! `carrel-opds`, layer 2 of 7 of Carrel's core: catalogs as servers write them, parsed from
//! bytes. Depends on `carrel-foundation` only; Cargo refuses any use of a layer above.
//!
//! OPDS catalogs: turns the bytes a library server sent into Carrel's own types.
//!
//! Owns:
//! - OPDS 1.2 Atom catalog feeds and single catalog entries ([`parse_feed`], [`parse_entry`]):
//!   navigation entries, books with their acquisition links, covers, paging and facet links;
//! - OPDS 2.0 JSON feeds and publication manifests (`application/opds+json`,
//!   `application/opds-publication+json`, Readium Web Publication Manifests), read into the same
//!   types by the same functions plus [`parse_publication`]: a document whose first character
//!   (after a byte order mark and blanks) is `{` is JSON, anything else goes the Atom way.
//!   The OPDS 2 specifics (groups, list-streamed pages in [`BookEntry::page_list`]) are
//!   described in the `opds2` module;
//! - the Page Streaming Extension ([`PageStream`]): the page URL template, the page count, the
//!   server's idea of the last page read, and building one page's URL ([`PageStream::page_url`]);
//! - OpenSearch description documents and search templates ([`parse_open_search`],
//!   [`SearchTemplate::url_for`]);
//! - the URL rules around them: resolving relative hrefs (with `xml:base`), keeping
//!   `{placeholders}` intact, and removing the query parameters that make a server move the
//!   reader's bookmark ([`strip_bookmark_params`]);
//!
//! Does not own: HTTP (fetching, authentication, redirects, caching and politeness live in the
//! client module), which page base or which extra bookmark parameters a given server needs (that
//! is a per-server setting the caller passes in), and storing anything.
//!
//! Everything here is pure and total: hostile or broken input gives an [`OpdsError`], never a
//! panic. Document type declarations are refused (no entity expansion), XML nesting is limited
//! (256 levels, short of what the parser's recursion can take), JSON nesting too (serde_json's
//! recursion limit) and inputs are capped in size ([`MAX_FEED_BYTES`],
//! [`MAX_SEARCH_DESCRIPTION_BYTES`]).

mod atom_feed;
mod input;
mod media_type;
mod opds2;
mod open_search;
mod page_stream;
mod plain_text;
mod serde_url;
mod url_template;

#[cfg(test)]
mod hostile_input_tests;
#[cfg(test)]
mod opds2_tests;
#[cfg(test)]
mod tests;

pub use atom_feed::{
    Acquisition, BookEntry, Entry, EntryFormat, Facet, Feed, FeedKind, FeedLinks, NavEntry,
    SearchLink,
};
pub use input::{nesting_within, MAX_XML_DEPTH};
pub use open_search::{parse_open_search, SearchTemplate};
pub use page_stream::{PageBase, PageStream, MAX_PAGE_COUNT};
pub use plain_text::{html_to_text, tidy_paragraphs};
pub use url_template::{strip_bookmark_params, strip_bookmark_params_with, BOOKMARK_PARAMS};

use url::Url;

use carrel_foundation::error::ErrorKind;

/// Parses a catalog feed fetched from `feed_url`: an OPDS 1.x Atom feed, or an OPDS 2.0 JSON
/// feed (`application/opds+json`). Which one is decided by the bytes, not a declared type.
pub fn parse_feed(bytes: &[u8], feed_url: &Url) -> Result<Feed, OpdsError> {
    if opds2::looks_like_json(bytes) {
        opds2::parse_feed(bytes, feed_url)
    } else {
        atom_feed::parse_feed(bytes, feed_url)
    }
}

/// Parses a standalone catalog entry (what a partial entry's [`BookEntry::alternate`] leads
/// to), fetched from `entry_url`: an Atom entry document, or an OPDS 2 publication manifest
/// (always a [`Entry::Book`]).
pub fn parse_entry(bytes: &[u8], entry_url: &Url) -> Result<Entry, OpdsError> {
    if opds2::looks_like_json(bytes) {
        opds2::parse_publication(bytes, entry_url).map(Entry::Book)
    } else {
        atom_feed::parse_entry(bytes, entry_url)
    }
}

/// Parses a single publication fetched from `url`: an OPDS 2 publication
/// (`application/opds-publication+json`) or a Readium Web Publication Manifest
/// (`application/webpub+json`, `application/divina+json`); an Atom entry document that
/// describes a book is accepted too. Fails with [`OpdsError::Missing`] when the publication
/// offers no acquisition link, page stream or image-only reading order.
pub fn parse_publication(bytes: &[u8], url: &Url) -> Result<BookEntry, OpdsError> {
    if opds2::looks_like_json(bytes) {
        return opds2::parse_publication(bytes, url);
    }
    match atom_feed::parse_entry(bytes, url)? {
        Entry::Book(book) => Ok(book),
        Entry::Navigation(_) => Err(OpdsError::NotAFeed(
            "a catalog entry that leads to another feed, not a publication".into(),
        )),
    }
}

/// The largest feed or entry document accepted, in bytes. Real catalog pages are a few hundred
/// kilobytes at most; anything bigger is a misconfigured server or a hostile one.
pub const MAX_FEED_BYTES: usize = 16 * 1024 * 1024;

/// The largest OpenSearch description accepted, in bytes. They are a few hundred bytes long.
pub const MAX_SEARCH_DESCRIPTION_BYTES: usize = 1024 * 1024;

/// The XML namespaces this module reads. Elements and attributes are matched by these URIs,
/// never by prefix: servers pick their own prefixes (`pse:`, `p5:`, `opds:`, `atom:`...).
pub mod ns {
    pub const ATOM: &str = "http://www.w3.org/2005/Atom";
    pub const OPDS: &str = "http://opds-spec.org/2010/catalog";
    pub const PSE: &str = "http://vaemendis.net/opds-pse/ns";
    pub const DC_TERMS: &str = "http://purl.org/dc/terms/";
    pub const DC_ELEMENTS: &str = "http://purl.org/dc/elements/1.1/";
    pub const OPENSEARCH: &str = "http://a9.com/-/spec/opensearch/1.1/";
    /// Atom threading extension; its `count` attribute gives a facet's number of items.
    pub const THREAD: &str = "http://purl.org/syndication/thread/1.0";
    /// schema.org, used for `schema:Series` (both spellings occur).
    pub const SCHEMA: &str = "http://schema.org/";
    pub const SCHEMA_HTTPS: &str = "https://schema.org/";
    /// The namespace of `xml:base` and `xml:lang`.
    pub const XML: &str = "http://www.w3.org/XML/1998/namespace";
}

/// Why a catalog document could not be used.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum OpdsError {
    #[error("the server sent an empty response instead of a catalog")]
    Empty,
    #[error("the response is too large ({size} bytes; at most {limit} are accepted)")]
    TooLarge { size: usize, limit: usize },
    #[error("the response is not text in an encoding Carrel reads: {0}")]
    Encoding(String),
    #[error(
        "the server sent a web page{} instead of a catalog; this is usually a login page, a proxy's error page or a wrong address",
        .title.as_deref().map(|t| format!(" (\u{201c}{t}\u{201d})")).unwrap_or_default()
    )]
    HtmlPage { title: Option<String> },
    #[error("the response is not well-formed XML: {0}")]
    MalformedXml(String),
    #[error("the response is not well-formed JSON: {0}")]
    MalformedJson(String),
    /// Well-formed JSON laid out against the OPDS 2 rules where it matters (e.g. a `metadata`
    /// that is not an object, a `publications` that is not a list).
    #[error("the response is not a usable OPDS 2 document: {0}")]
    InvalidOpds2(String),
    #[error("the response is not an OPDS catalog feed: it is {0}")]
    NotAFeed(String),
    #[error("the catalog document has no {what}")]
    Missing { what: &'static str },
    #[error("unusable link {href:?}: {reason}")]
    BadUrl { href: String, reason: String },
    #[error("page {page} does not exist (the book has {count} pages)")]
    PageOutOfRange { page: u32, count: u32 },
    #[error("the search description offers no catalog search (only web pages or other formats)")]
    NoCatalogSearch,
}

impl carrel_foundation::error::Failure for OpdsError {
    /// The coarse kind front ends branch on.
    fn kind(&self) -> carrel_foundation::error::ErrorKind {
        match self {
            OpdsError::PageOutOfRange { .. } => ErrorKind::InvalidInput,
            // The HTTP status (401, 403) tells an authentication failure apart; a web page alone
            // may as well be a 404 page or a proxy's error page.
            _ => ErrorKind::Server,
        }
    }
}

impl OpdsError {
    pub(crate) fn bad_url(href: &str, reason: impl std::fmt::Display) -> Self {
        let mut href = href.to_owned();
        if href.len() > 200 {
            let mut cut = 200;
            while !href.is_char_boundary(cut) {
                cut -= 1;
            }
            href.truncate(cut);
            href.push('…');
        }
        OpdsError::BadUrl {
            href,
            reason: reason.to_string(),
        }
    }
}
