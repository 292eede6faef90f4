//! OPDS 1.2 Atom feeds and entries: the catalog's navigation entries and books, and the links
//! a feed carries (paging, facets, search). Owns the rules that turn a server's entry into a
//! [`BookEntry`] or a [`NavEntry`] (or drop it) and how hrefs are resolved; the page stream
//! itself is [`super::page_stream`], search templates are [`super::open_search`]. No HTTP.
//!
//! Parsing is lenient where the reader loses nothing (a missing title becomes empty, a missing
//! entry id falls back to the entry's link) and strict where a wrong guess would hurt (an entry
//! with no way to open or download it is never a book).

use roxmltree::Node;
use serde::{Deserialize, Serialize};
use url::Url;

use super::input::base_of;
use super::media_type::{media_essence, media_param};
use super::open_search::SearchTemplate;
use super::page_stream::{PageStream, STREAM_REL};
use super::plain_text::{collapse_whitespace, html_to_text, is_block_tag, tidy_paragraphs};
use super::url_template::{has_slot, resolve_href, resolve_image_href};
use super::{input, ns, OpdsError, MAX_FEED_BYTES};

pub(crate) const ACQUISITION_REL: &str = "http://opds-spec.org/acquisition";
pub(crate) const PROGRESSION_REL: &str = "http://opds-spec.org/progression";
const FACET_REL: &str = "http://opds-spec.org/facet";
pub(crate) const IANA_REL_PREFIX: &str = "http://www.iana.org/assignments/relation/";
pub(crate) const COVER_RELS: &[&str] = &[
    "http://opds-spec.org/image",
    "http://opds-spec.org/cover",
    "x-stanza-cover-image",
];
pub(crate) const THUMBNAIL_RELS: &[&str] = &[
    "http://opds-spec.org/image/thumbnail",
    "http://opds-spec.org/thumbnail",
    "x-stanza-cover-image-thumbnail",
];
/// Relations of links that never lead to a sub-catalog, even when typed as Atom.
const NOT_NAVIGATION_RELS: &[&str] = &[
    "self", "search", "start", "up", "next", "previous", "prev", "first", "last", FACET_REL,
];

/// One page of a catalog.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Feed {
    pub id: Option<String>,
    /// The feed's title; empty if the server sent none.
    pub title: String,
    pub kind: FeedKind,
    pub entries: Vec<Entry>,
    pub links: FeedLinks,
    /// `atom:updated`, as sent.
    pub updated: Option<String>,
    /// The feed's own `atom:author` names (most servers name themselves there).
    #[serde(default)]
    pub authors: Vec<String>,
    /// `atom:generator`: the software that wrote the feed, as it names itself (Codex does).
    #[serde(default)]
    pub generator: Option<String>,
}

/// What a feed (or the feed a navigation entry leads to) lists.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum FeedKind {
    /// Sub-catalogs: libraries, series, shelves...
    Navigation,
    /// Books.
    Acquisition,
    /// Not declared and not evident (e.g. an empty feed).
    #[default]
    Unknown,
}

/// The feed-level links Carrel follows.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct FeedLinks {
    #[serde(with = "super::serde_url::option")]
    pub next: Option<Url>,
    #[serde(with = "super::serde_url::option")]
    pub previous: Option<Url>,
    #[serde(with = "super::serde_url::option")]
    pub first: Option<Url>,
    #[serde(with = "super::serde_url::option")]
    pub last: Option<Url>,
    /// The catalog's root.
    #[serde(with = "super::serde_url::option")]
    pub start: Option<Url>,
    #[serde(with = "super::serde_url::option")]
    pub up: Option<Url>,
    pub search: Option<SearchLink>,
    pub facets: Vec<Facet>,
}

impl FeedLinks {
    /// The navigation link `rel` names (`next`, `previous` or `prev`, `first`, `last`, `start`,
    /// `up`), in both feed formats.
    pub(crate) fn navigation_mut(&mut self, rel: &str) -> Option<&mut Option<Url>> {
        Some(match rel {
            "next" => &mut self.next,
            "previous" | "prev" => &mut self.previous,
            "first" => &mut self.first,
            "last" => &mut self.last,
            "start" => &mut self.start,
            "up" => &mut self.up,
            _ => return None,
        })
    }
}

/// How to search a catalog.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum SearchLink {
    /// An OpenSearch description document to fetch and read with
    /// [`super::parse_open_search`].
    OpenSearchDescription {
        #[serde(with = "super::serde_url")]
        href: Url,
    },
    /// A template to fill directly. (Kept as a template string rather than a [`Url`]: parsing
    /// would encode its braces.)
    Template { template: SearchTemplate },
}

impl SearchLink {
    /// The first template, else the first description: a template saves fetching the
    /// description, and both lead to the same search.
    pub(crate) fn first_of(
        templates: impl IntoIterator<Item = SearchTemplate>,
        descriptions: impl IntoIterator<Item = Url>,
    ) -> Option<Self> {
        templates
            .into_iter()
            .next()
            .map(|template| SearchLink::Template { template })
            .or_else(|| {
                descriptions
                    .into_iter()
                    .next()
                    .map(|href| SearchLink::OpenSearchDescription { href })
            })
    }
}

/// A way of filtering or sorting an acquisition feed (`rel="http://opds-spec.org/facet"`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Facet {
    pub title: String,
    /// `opds:facetGroup`: facets in the same group are alternatives.
    pub group: Option<String>,
    #[serde(with = "super::serde_url")]
    pub href: Url,
    /// `opds:activeFacet="true"`: the feed is currently filtered by this facet.
    pub active: bool,
    /// `thr:count`: how many items the facet leads to, if the server says.
    pub count: Option<u64>,
}

/// An entry of a feed.
// Feeds are mostly all books or all navigation; boxing books would cost an allocation each to
// save a few hundred bytes on navigation entries.
#[allow(clippy::large_enum_variant)]
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum Entry {
    Navigation(NavEntry),
    Book(BookEntry),
}

/// An entry that leads to another feed.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct NavEntry {
    /// The Atom id, or the link's URL when the server sent none.
    pub id: String,
    pub title: String,
    pub summary: Option<String>,
    #[serde(with = "super::serde_url")]
    pub href: Url,
    /// What the linked feed lists, if its link says.
    pub kind: FeedKind,
    #[serde(with = "super::serde_url::option")]
    pub thumbnail: Option<Url>,
}

/// A book (or a comic, chapter, volume): something that can be downloaded or streamed.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct BookEntry {
    /// The Atom id (OPDS 2: `metadata.identifier`): the catalog's identity for the book. When a
    /// server sends none, the URL of the complete entry, first acquisition or page stream (OPDS 2:
    /// the publication's `self` link first, the first listed page last) stands in.
    pub id: String,
    pub title: String,
    pub authors: Vec<String>,
    pub summary: Option<String>,
    pub series: Option<String>,
    pub series_index: Option<f64>,
    pub language: Option<String>,
    /// `atom:updated` (OPDS 2: `modified`, else `published`), as sent.
    pub updated: Option<String>,
    /// At least one of `acquisitions`, `stream` and `page_list` is present (not empty).
    pub acquisitions: Vec<Acquisition>,
    #[serde(with = "super::serde_url::option")]
    pub cover: Option<Url>,
    #[serde(with = "super::serde_url::option")]
    pub thumbnail: Option<Url>,
    pub stream: Option<PageStream>,
    /// The complete entry, when this one is partial
    /// (`rel="alternate" type="application/atom+xml;type=entry;profile=opds-catalog"`); for an
    /// OPDS 2 publication in a feed, its own manifest (`self` link typed
    /// `application/opds-publication+json` or a Readium manifest type). Both are read by
    /// [`super::parse_publication`].
    #[serde(with = "super::serde_url::option")]
    pub alternate: Option<Url>,
    pub format: EntryFormat,
    /// The pages of a book whose OPDS 2 `readingOrder` lists only images, in reading order:
    /// page `i` (0-based) is `page_list[i]`, fetched as is. Empty otherwise, and always for
    /// Atom entries. Independent of [`BookEntry::stream`], which such a book usually lacks;
    /// see [`BookEntry::page_count`] and [`BookEntry::page_list_url`].
    #[serde(default, with = "super::serde_url::vec")]
    pub page_list: Vec<Url>,
    /// Where the server keeps the reading position as a Readium locator
    /// (`rel="http://opds-spec.org/progression"`), read and written with GET and PUT.
    #[serde(default, with = "super::serde_url::option")]
    pub progression: Option<Url>,
    /// Why the book's page stream is not used though the server offers one (an absurd page
    /// count), for the windows to say; `None` otherwise.
    #[serde(default)]
    pub not_streamable: Option<String>,
}

impl BookEntry {
    /// How many pages can be fetched one by one: the page stream's count, else the length of
    /// [`BookEntry::page_list`]. `None` when the book can only be downloaded whole.
    pub fn page_count(&self) -> Option<u32> {
        match (&self.stream, self.page_list.len()) {
            (Some(stream), _) => Some(stream.count),
            (None, 0) => None,
            (None, listed) => Some(u32::try_from(listed).unwrap_or(u32::MAX)),
        }
    }

    /// The URL of page `page` (0-based) of [`BookEntry::page_list`]. Listed pages need no page
    /// base and take no width; the URLs are the server's own, so callers that must not move a
    /// bookmark should still pass them through [`super::strip_bookmark_params`].
    pub fn page_list_url(&self, page: u32) -> Result<&Url, OpdsError> {
        let count = u32::try_from(self.page_list.len()).unwrap_or(u32::MAX);
        usize::try_from(page)
            .ok()
            .and_then(|index| self.page_list.get(index))
            .ok_or(OpdsError::PageOutOfRange { page, count })
    }
}

/// A way to get a book's file.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Acquisition {
    #[serde(with = "super::serde_url")]
    pub href: Url,
    /// The declared media type; guessed from the file name when missing
    /// (`application/octet-stream` if that fails too).
    pub media_type: String,
    /// The file size in bytes, when the server says (Calibre-style `length`).
    pub length: Option<u64>,
    /// The full relation: `http://opds-spec.org/acquisition`, `.../acquisition/open-access`...
    pub rel: String,
}

/// What kind of book this is, from its acquisition types and whether it can be streamed.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum EntryFormat {
    /// An image archive (CBZ, CBR, CB7, CBT), or anything offered only as a page stream.
    Comic,
    Epub,
    Pdf,
    /// Something else; the media type of the first acquisition.
    Other(String),
}

/// Parses an OPDS 1.x acquisition or navigation feed fetched from `feed_url`.
pub(crate) fn parse_feed(bytes: &[u8], feed_url: &Url) -> Result<Feed, OpdsError> {
    input::read_xml(bytes, MAX_FEED_BYTES, |root| read_feed(root, feed_url))
}

fn read_feed(root: Node<'_, '_>, feed_url: &Url) -> Result<Feed, OpdsError> {
    expect_root(root, "feed")?;

    let mut entries = Vec::new();
    let mut skipped = 0usize;
    for node in root.children().filter(|n| is_atom(*n, "entry")) {
        match read_entry(node, feed_url) {
            Some(entry) => entries.push(entry),
            None => skipped += 1,
        }
    }
    if skipped > 0 {
        tracing::debug!(skipped, feed = %carrel_foundation::address_secrets::redact(feed_url), "entries with no usable link were left out");
    }

    let (links, declared_kind) = read_feed_links(root, feed_url);
    let kind = if entries.iter().any(|e| matches!(e, Entry::Book(_))) {
        // Books are the evidence; some servers label every feed "navigation".
        FeedKind::Acquisition
    } else if declared_kind != FeedKind::Unknown {
        declared_kind
    } else if !entries.is_empty() {
        FeedKind::Navigation
    } else {
        FeedKind::Unknown
    };

    Ok(Feed {
        id: child_text(root, "id"),
        title: child(root, "title")
            .map(|t| collapse_whitespace(&atom_text(t)))
            .unwrap_or_default(),
        kind,
        entries,
        links,
        updated: child_text(root, "updated"),
        authors: authors_of(root),
        generator: child_text(root, "generator"),
    })
}

/// Parses a standalone catalog entry document (what a partial entry's
/// [`BookEntry::alternate`] leads to), fetched from `entry_url`.
pub(crate) fn parse_entry(bytes: &[u8], entry_url: &Url) -> Result<Entry, OpdsError> {
    input::read_xml(bytes, MAX_FEED_BYTES, |root| {
        expect_root(root, "entry")?;
        read_entry(root, entry_url).ok_or(OpdsError::Missing {
            what: "acquisition, page stream or navigation link in its entry",
        })
    })
}

fn expect_root(root: Node<'_, '_>, wanted: &str) -> Result<(), OpdsError> {
    if is_atom(root, wanted) {
        return Ok(());
    }
    let name = root.tag_name().name();
    let found = match name {
        "feed" => "a feed in another XML namespace than Atom".to_owned(),
        "entry" => "a single catalog entry, not a feed".to_owned(),
        "OpenSearchDescription" => "an OpenSearch description, not a feed".to_owned(),
        "rss" | "RDF" => "an RSS feed".to_owned(),
        other => format!("an XML document of another kind (<{other}>)"),
    };
    Err(OpdsError::NotAFeed(found))
}

/// Reads the feed-level links and the kind the feed's `self` link declares.
fn read_feed_links(root: Node<'_, '_>, feed_url: &Url) -> (FeedLinks, FeedKind) {
    let mut links = FeedLinks::default();
    let mut declared = FeedKind::Unknown;
    let mut templates = Vec::new();
    let mut descriptions = Vec::new();
    for link in links_of(root) {
        let base = base_of(link.node, feed_url);
        match link.rel.as_str() {
            "self" => {
                if declared == FeedKind::Unknown {
                    declared = kind_of_type(link.media_type);
                }
            }
            "search" => {
                if has_slot(link.href, "searchTerms") {
                    match SearchTemplate::new(link.href, &base, Some(link.media_type)) {
                        Ok(template) => templates.push(template),
                        Err(err) => tracing::debug!(%err, "ignoring a search link"),
                    }
                } else if link.media_type.is_empty()
                    || media_essence(link.media_type) == "application/opensearchdescription+xml"
                {
                    match resolve_href(link.href, &base) {
                        Ok(href) => descriptions.push(href),
                        Err(err) => tracing::debug!(%err, "ignoring a search link"),
                    }
                }
            }
            FACET_REL => {
                if let Some(facet) = read_facet(&link, &base) {
                    links.facets.push(facet);
                }
            }
            rel => {
                if let Some(slot) = links.navigation_mut(rel).filter(|slot| slot.is_none()) {
                    match resolve_href(link.href, &base) {
                        Ok(url) => *slot = Some(url),
                        Err(err) => tracing::debug!(%err, rel = %link.rel, "ignoring a feed link"),
                    }
                }
            }
        }
    }
    links.search = SearchLink::first_of(templates, descriptions);
    (links, declared)
}

fn read_facet(link: &Link<'_, '_>, base: &Url) -> Option<Facet> {
    let href = resolve_href(link.href, base).ok()?;
    let node = link.node;
    Some(Facet {
        title: link.title.clone().unwrap_or_default(),
        group: node
            .attribute((ns::OPDS, "facetGroup"))
            .map(collapse_whitespace)
            .filter(|g| !g.is_empty()),
        href,
        active: node
            .attribute((ns::OPDS, "activeFacet"))
            .is_some_and(|v| v.trim().eq_ignore_ascii_case("true")),
        count: node
            .attribute((ns::THREAD, "count"))
            .and_then(|c| c.trim().parse().ok()),
    })
}

/// Turns an `<entry>` into a book, a navigation entry, or nothing.
fn read_entry(node: Node<'_, '_>, doc_url: &Url) -> Option<Entry> {
    let links = links_of(node);
    let title = child(node, "title")
        .map(|t| collapse_whitespace(&atom_text(t)))
        .unwrap_or_default();
    let id = child_text(node, "id");

    let mut offers = BookLinks::default();
    for link in &links {
        if link.rel == ACQUISITION_REL || link.rel.starts_with("http://opds-spec.org/acquisition/")
        {
            let base = base_of(link.node, doc_url);
            match resolve_href(link.href, &base) {
                Ok(href) => offers.add_acquisition(
                    href,
                    link.media_type.trim(),
                    link.title.as_deref(),
                    indirect_types(link.node),
                    link.node
                        .attribute("length")
                        .and_then(|l| l.trim().parse().ok()),
                    link.rel.clone(),
                ),
                Err(err) => tracing::debug!(%err, "ignoring an acquisition link"),
            }
        } else if link.rel == STREAM_REL {
            offers.add_stream(
                || PageStream::from_link(link.node, &base_of(link.node, doc_url)),
                || PageStream::refusal_of_link(link.node),
            );
        }
    }

    let cover = first_image(&links, COVER_RELS, doc_url);
    let thumbnail = first_image(&links, THUMBNAIL_RELS, doc_url);
    let summary = summary_of(node);

    if offers.is_empty() {
        let nav = pick_navigation_link(&links, doc_url)?;
        return Some(Entry::Navigation(NavEntry {
            id: id.unwrap_or_else(|| nav.0.to_string()),
            title,
            summary,
            href: nav.0,
            kind: nav.1,
            thumbnail: thumbnail.or(cover),
        }));
    }

    let alternate = links
        .iter()
        .filter(|l| l.rel == "alternate" && is_entry_type(l.media_type))
        .find_map(|l| resolve_href(l.href, &base_of(l.node, doc_url)).ok());
    let format = book_format(&offers.hints, offers.offers_stream());
    let progression = links
        .iter()
        .filter(|l| l.rel == PROGRESSION_REL)
        .find_map(|l| resolve_href(l.href, &base_of(l.node, doc_url)).ok());
    let (series, series_index) = series_of(node);
    let id = id
        .or_else(|| alternate.as_ref().map(Url::to_string))
        .or_else(|| offers.acquisitions.first().map(|a| a.href.to_string()))
        .or_else(|| offers.stream.as_ref().map(|s| s.template.clone()))
        .unwrap_or_default();

    Some(Entry::Book(BookEntry {
        id,
        title,
        authors: authors_of(node),
        summary,
        series,
        series_index,
        language: language_of(node),
        updated: child_text(node, "updated"),
        acquisitions: offers.acquisitions,
        cover,
        thumbnail,
        stream: offers.stream,
        alternate,
        format,
        page_list: Vec::new(),
        progression,
        not_streamable: offers.not_streamable,
    }))
}

/// The link of a navigation entry and the kind of feed it leads to.
fn pick_navigation_link(links: &[Link<'_, '_>], doc_url: &Url) -> Option<(Url, FeedKind)> {
    let usable = |l: &&Link<'_, '_>| {
        (l.rel == "subsection" && (l.media_type.is_empty() || is_feed_type(l.media_type)))
            || (is_feed_type(l.media_type) && !NOT_NAVIGATION_RELS.contains(&l.rel.as_str()))
    };
    let chosen = links
        .iter()
        .filter(usable)
        .find(|l| l.rel == "subsection")
        .or_else(|| links.iter().find(usable))?;
    let href = resolve_href(chosen.href, &base_of(chosen.node, doc_url)).ok()?;
    let mut kind = kind_of_type(chosen.media_type);
    if kind == FeedKind::Unknown {
        // Some servers put the kind on a second link to the same feed.
        kind = links
            .iter()
            .filter(|l| is_feed_type(l.media_type))
            .filter(|l| {
                resolve_href(l.href, &base_of(l.node, doc_url))
                    .ok()
                    .as_ref()
                    == Some(&href)
            })
            .map(|l| kind_of_type(l.media_type))
            .find(|k| *k != FeedKind::Unknown)
            .unwrap_or(FeedKind::Unknown);
    }
    Some((href, kind))
}

fn first_image(links: &[Link<'_, '_>], rels: &[&str], doc_url: &Url) -> Option<Url> {
    links
        .iter()
        .filter(|l| rels.contains(&l.rel.as_str()))
        .find_map(|l| resolve_image_href(l.href, &base_of(l.node, doc_url)).ok())
}

/// An entry's `<link>`, with its relation normalised.
struct Link<'a, 'input> {
    node: Node<'a, 'input>,
    /// Lowercase; absent means `alternate` (Atom's default); IANA URIs are shortened to tokens.
    rel: String,
    href: &'a str,
    media_type: &'a str,
    title: Option<String>,
}

fn links_of<'a, 'input>(parent: Node<'a, 'input>) -> Vec<Link<'a, 'input>> {
    parent
        .children()
        // Some servers put the stream link in the PSE namespace; it is still a link.
        .filter(|n| is_atom(*n, "link") || (n.is_element() && n.has_tag_name((ns::PSE, "link"))))
        .filter_map(|node| {
            let href = node.attribute("href")?;
            let rel = node
                .attribute("rel")
                .map(str::trim)
                .filter(|r| !r.is_empty())
                .unwrap_or("alternate");
            let rel = rel
                .strip_prefix(IANA_REL_PREFIX)
                .unwrap_or(rel)
                .to_ascii_lowercase();
            Some(Link {
                node,
                rel,
                href,
                media_type: node.attribute("type").map(str::trim).unwrap_or(""),
                title: node
                    .attribute("title")
                    .map(collapse_whitespace)
                    .filter(|t| !t.is_empty()),
            })
        })
        .collect()
}

/// Whether `node` is the Atom element `name`. Elements without a namespace count too: some
/// servers forget the `xmlns` declaration.
fn is_atom(node: Node<'_, '_>, name: &str) -> bool {
    node.is_element()
        && node.tag_name().name() == name
        && matches!(node.tag_name().namespace(), Some(ns::ATOM) | None)
}

fn child<'a, 'input>(node: Node<'a, 'input>, name: &str) -> Option<Node<'a, 'input>> {
    node.children().find(|n| is_atom(*n, name))
}

fn child_text(node: Node<'_, '_>, name: &str) -> Option<String> {
    child(node, name)
        .map(|n| collapse_whitespace(&text_of(n)))
        .filter(|t| !t.is_empty())
}

fn text_of(node: Node<'_, '_>) -> String {
    node.descendants()
        .filter(|n| n.is_text())
        .filter_map(|n| n.text())
        .collect()
}

/// The text of an Atom text construct, whatever its `type` (`text`, `html` or `xhtml`).
fn atom_text(node: Node<'_, '_>) -> String {
    let kind = node
        .attribute("type")
        .map(|t| t.trim().to_ascii_lowercase())
        .unwrap_or_default();
    match kind.as_str() {
        "html" | "text/html" => html_to_text(&text_of(node)),
        "xhtml" | "application/xhtml+xml" => {
            let mut out = String::new();
            for n in node.descendants().skip(1) {
                if n.is_element() && is_block_tag(n.tag_name().name()) {
                    out.push('\n');
                } else if let Some(text) = n.text().filter(|_| n.is_text()) {
                    out.push_str(text);
                }
            }
            out
        }
        _ => text_of(node),
    }
}

fn summary_of(node: Node<'_, '_>) -> Option<String> {
    ["summary", "content"]
        .iter()
        .filter_map(|name| child(node, name))
        .map(|n| tidy_paragraphs(&atom_text(n)))
        .find(|t| !t.is_empty())
}

fn authors_of(node: Node<'_, '_>) -> Vec<String> {
    let atom = node
        .children()
        .filter(|n| is_atom(*n, "author"))
        .filter_map(|author| child_text(author, "name"));
    let dc = node
        .children()
        .filter(|n| n.is_element() && n.tag_name().name() == "creator" && is_dc(*n))
        .map(|n| collapse_whitespace(&text_of(n)));
    let mut authors: Vec<String> = Vec::new();
    for name in atom.chain(dc) {
        if !name.is_empty() && !authors.iter().any(|a| a.eq_ignore_ascii_case(&name)) {
            authors.push(name);
        }
    }
    authors
}

fn language_of(node: Node<'_, '_>) -> Option<String> {
    node.children()
        .find(|n| {
            n.is_element()
                && n.tag_name().name() == "language"
                && (is_dc(*n) || is_atom(*n, "language"))
        })
        .map(|n| collapse_whitespace(&text_of(n)))
        .filter(|l| !l.is_empty())
}

fn is_dc(node: Node<'_, '_>) -> bool {
    matches!(
        node.tag_name().namespace(),
        Some(ns::DC_TERMS | ns::DC_ELEMENTS)
    )
}

/// The series from `<schema:Series schema:name=... schema:position=...>`, or from the
/// "SERIES: Name [3]" line Calibre's own server writes into the content.
fn series_of(node: Node<'_, '_>) -> (Option<String>, Option<f64>) {
    let schema = node.children().find(|n| {
        n.is_element()
            && n.tag_name().name() == "Series"
            && matches!(
                n.tag_name().namespace(),
                Some(ns::SCHEMA | ns::SCHEMA_HTTPS)
            )
    });
    if let Some(series) = schema {
        let attribute = |name: &str| {
            series
                .attribute((ns::SCHEMA, name))
                .or_else(|| series.attribute((ns::SCHEMA_HTTPS, name)))
                .or_else(|| series.attribute(name))
        };
        let name = attribute("name")
            .map(collapse_whitespace)
            .or_else(|| Some(collapse_whitespace(&text_of(series))))
            .filter(|n| !n.is_empty());
        let index = attribute("position").and_then(parse_series_index);
        if name.is_some() {
            return (name, index);
        }
    }
    for text in ["content", "summary"]
        .iter()
        .filter_map(|name| child(node, name))
        .map(atom_text)
    {
        for line in text.lines() {
            let Some(rest) = line.trim().strip_prefix("SERIES:") else {
                continue;
            };
            let rest = rest.trim();
            if let Some(open) = rest.rfind('[').filter(|_| rest.ends_with(']')) {
                let name = collapse_whitespace(&rest[..open]);
                let index = parse_series_index(&rest[open + 1..rest.len() - 1]);
                if !name.is_empty() {
                    return (Some(name), index);
                }
            } else if !rest.is_empty() {
                return (Some(collapse_whitespace(rest)), None);
            }
        }
    }
    (None, None)
}

pub(crate) fn parse_series_index(text: &str) -> Option<f64> {
    text.trim().parse::<f64>().ok().filter(|f| f.is_finite())
}

/// What an acquisition link says about the format.
pub(crate) struct FormatHint {
    pub(crate) media_type: String,
    /// Types of `opds:indirectAcquisition` children (what a wrapper delivers in the end).
    pub(crate) indirect: Vec<String>,
    /// Lowercase last path segment or the link's title, for the extension.
    pub(crate) file_name: String,
}

/// What a book entry's links offer, read the same way from Atom and OPDS 2 entries: its
/// acquisitions (each with what it says about the format), and its first page stream or why
/// that stream is refused.
#[derive(Default)]
pub(crate) struct BookLinks {
    pub(crate) acquisitions: Vec<Acquisition>,
    pub(crate) hints: Vec<FormatHint>,
    pub(crate) stream: Option<PageStream>,
    pub(crate) not_streamable: Option<String>,
}

impl BookLinks {
    /// An acquisition link to `href`: its media type as declared, else guessed from the file
    /// name (or the link's title); a length of 0 is none.
    pub(crate) fn add_acquisition(
        &mut self,
        href: Url,
        declared_type: &str,
        title: Option<&str>,
        indirect: Vec<String>,
        length: Option<u64>,
        rel: String,
    ) {
        let media_type = match declared_type {
            "" => guess_media_type(&href, title).to_owned(),
            declared => declared.to_owned(),
        };
        self.hints.push(FormatHint {
            media_type: media_type.clone(),
            indirect,
            file_name: file_name(&href, title),
        });
        self.acquisitions.push(Acquisition {
            href,
            media_type,
            length: length.filter(|l| *l > 0),
            rel,
        });
    }

    /// No acquisition and no page stream, not even one refused.
    pub(crate) fn is_empty(&self) -> bool {
        self.acquisitions.is_empty() && !self.offers_stream()
    }

    /// A page stream link was found (a stream, or one refused for its page count).
    pub(crate) fn offers_stream(&self) -> bool {
        self.stream.is_some() || self.not_streamable.is_some()
    }

    /// A page stream link, unless one was taken already: `stream` read from it, else the
    /// first reason a stream link was refused.
    pub(crate) fn add_stream(
        &mut self,
        stream: impl FnOnce() -> Option<PageStream>,
        refusal: impl FnOnce() -> Option<String>,
    ) {
        if self.stream.is_some() {
            return;
        }
        self.stream = stream();
        if self.stream.is_none() && self.not_streamable.is_none() {
            self.not_streamable = refusal();
        }
    }
}

fn indirect_types(link: Node<'_, '_>) -> Vec<String> {
    link.descendants()
        .filter(|n| n.is_element() && n.has_tag_name((ns::OPDS, "indirectAcquisition")))
        .filter_map(|n| n.attribute("type"))
        .map(media_essence)
        .collect()
}

pub(crate) fn file_name(href: &Url, title: Option<&str>) -> String {
    let last = href
        .path_segments()
        .and_then(|mut s| s.next_back())
        .unwrap_or("");
    let name = if last.contains('.') {
        last
    } else {
        title.unwrap_or(last)
    };
    name.to_ascii_lowercase()
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Kind {
    Comic,
    Epub,
    Pdf,
}

fn kind_of_media_type(essence: &str) -> Option<Kind> {
    match essence {
        "application/vnd.comicbook+zip"
        | "application/vnd.comicbook-rar"
        | "application/x-cbz"
        | "application/x-cbr"
        | "application/x-cb7"
        | "application/x-cbt" => Some(Kind::Comic),
        "application/epub+zip" | "application/kepub+zip" => Some(Kind::Epub),
        "application/pdf" | "application/x-pdf" => Some(Kind::Pdf),
        _ => None,
    }
}

fn kind_of_extension(file_name: &str) -> Option<Kind> {
    let ext = file_name.rsplit_once('.')?.1;
    match ext {
        "cbz" | "cbr" | "cb7" | "cbt" => Some(Kind::Comic),
        "epub" | "kepub" => Some(Kind::Epub),
        "pdf" => Some(Kind::Pdf),
        _ => None,
    }
}

/// Types that say nothing about the content; the file name decides.
fn is_generic_type(essence: &str) -> bool {
    matches!(
        essence,
        "" | "application/zip"
            | "application/x-zip"
            | "application/x-zip-compressed"
            | "application/octet-stream"
            | "binary/octet-stream"
            | "application/x-rar-compressed"
            | "application/vnd.rar"
            | "application/x-rar"
            | "application/x-7z-compressed"
            | "application/x-tar"
    )
}

pub(crate) fn book_format(hints: &[FormatHint], streamable: bool) -> EntryFormat {
    let kinds: Vec<Kind> = hints
        .iter()
        .filter_map(|hint| {
            let essence = media_essence(&hint.media_type);
            kind_of_media_type(&essence)
                .or_else(|| hint.indirect.iter().find_map(|t| kind_of_media_type(t)))
                .or_else(|| {
                    is_generic_type(&essence)
                        .then(|| kind_of_extension(&hint.file_name))
                        .flatten()
                })
        })
        .collect();
    if kinds.contains(&Kind::Comic) {
        EntryFormat::Comic
    } else if kinds.contains(&Kind::Epub) {
        EntryFormat::Epub
    } else if kinds.contains(&Kind::Pdf) {
        EntryFormat::Pdf
    } else if streamable {
        // Pages come as images whatever the archive is.
        EntryFormat::Comic
    } else {
        EntryFormat::Other(
            hints
                .first()
                .map(|h| media_essence(&h.media_type))
                .unwrap_or_default(),
        )
    }
}

pub(crate) fn guess_media_type(href: &Url, title: Option<&str>) -> &'static str {
    let name = file_name(href, title);
    match name.rsplit_once('.').map(|(_, ext)| ext).unwrap_or("") {
        "cbz" => "application/vnd.comicbook+zip",
        "cbr" => "application/vnd.comicbook-rar",
        "cb7" => "application/x-cb7",
        "cbt" => "application/x-cbt",
        "epub" => "application/epub+zip",
        "kepub" => "application/kepub+zip",
        "pdf" => "application/pdf",
        "mobi" => "application/x-mobipocket-ebook",
        "azw3" => "application/vnd.amazon.ebook",
        "zip" => "application/zip",
        _ => "application/octet-stream",
    }
}

/// An Atom feed type (not an entry document).
pub(crate) fn is_feed_type(media_type: &str) -> bool {
    let essence = media_essence(media_type);
    let atom = essence == "application/atom+xml"
        || (matches!(essence.as_str(), "application/xml" | "text/xml")
            && media_param(media_type, "profile")
                .is_some_and(|p| p.eq_ignore_ascii_case("opds-catalog")));
    atom && !media_param(media_type, "type").is_some_and(|t| t.eq_ignore_ascii_case("entry"))
}

fn is_entry_type(media_type: &str) -> bool {
    media_essence(media_type) == "application/atom+xml"
        && media_param(media_type, "type").is_some_and(|t| t.eq_ignore_ascii_case("entry"))
}

pub(crate) fn kind_of_type(media_type: &str) -> FeedKind {
    match media_param(media_type, "kind")
        .map(|k| k.to_ascii_lowercase())
        .as_deref()
    {
        Some("navigation") => FeedKind::Navigation,
        Some("acquisition") => FeedKind::Acquisition,
        _ => FeedKind::Unknown,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_named_reference_is_decoded_and_escaped_markup_stays_text() {
        assert_eq!(
            html_to_text("Caf&eacute; &amp; cr&egrave;me &euro;5 &#x2603; &#9731;"),
            "Café & crème €5 ☃ ☃"
        );
        // Markup written as text (escaped) is text: it reaches the reader as written.
        assert_eq!(
            html_to_text("a &lt;b&gt;bold&lt;/b&gt; claim"),
            "a <b>bold</b> claim"
        );
        assert_eq!(html_to_text("&unknownentity; &amp"), "&unknownentity; &amp");
    }

    #[test]
    fn opds_html_to_text_strips_tags_and_decodes_references() {
        assert_eq!(
            html_to_text(
                "<p>Tom &amp; Jerry&#39;s <b>big</b> day</p><p>Part&nbsp;2 &#x2014; &bogus; a < b</p>"
            ),
            "\nTom & Jerry's big day\n\nPart 2 \u{2014} &bogus; a < b\n"
        );
        assert_eq!(
            tidy_paragraphs(&html_to_text("<p>One</p>\n<p>  Two  words </p>")),
            "One\n\nTwo words"
        );
    }

    #[test]
    fn opds_media_type_parameters() {
        let t = "application/atom+xml; profile=opds-catalog; kind=\"acquisition\"";
        assert_eq!(media_essence(t), "application/atom+xml");
        assert_eq!(kind_of_type(t), FeedKind::Acquisition);
        assert!(is_feed_type(t));
        assert!(!is_feed_type(
            "application/atom+xml;type=entry;profile=opds-catalog"
        ));
        assert!(is_entry_type(
            "application/atom+xml;type=entry;profile=opds-catalog"
        ));
    }
}
