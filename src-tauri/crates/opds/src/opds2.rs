//! OPDS 2.0 (JSON) catalogs: feeds (`application/opds+json`) and single publications
//! (`application/opds-publication+json`, Readium Web Publication Manifests), read into the same
//! types as the Atom feeds ([`Feed`], [`Entry`], [`BookEntry`]...). Owns how the JSON layout maps
//! onto those types; the format rules (media types, file names), page streams and search
//! templates are shared with the Atom side. No HTTP.
//!
//! Mapping choices:
//! - **Groups** have no counterpart in [`Feed`], so they are flattened in document order after
//!   the feed's own `navigation` and `publications`: a group with a `self` link first becomes a
//!   [`NavEntry`] titled like the group that leads to the complete list ("see all"), then come
//!   its navigation links (as [`NavEntry`]s) and its publications (as books). A group without a
//!   `self` link contributes its items only; its title is lost.
//! - **Facets**: every link of a facet group is a [`Facet`] whose `group` is the facet group's
//!   title; `rel: "self"` marks the active one, `properties.numberOfItems` is the count.
//! - **Page streaming**: a PSE link (`rel` `http://vaemendis.net/opds-pse/stream`, an href with
//!   `{pageNumber}`, the count in `properties` as `pse:count` or `count`, else the publication's
//!   `numberOfPages`) becomes [`BookEntry::stream`], exactly as in Atom. A `readingOrder` that
//!   lists only images has no template to fill, so its URLs go to [`BookEntry::page_list`]
//!   instead and `stream` stays `None`: code that only knows templates then sees a book it
//!   cannot stream rather than a template that would fetch the same page over and over.
//!   [`PageStream`] itself is unchanged, so code that builds one keeps compiling.
//! - **Language maps** (`"title": {"en": ..., "fr": ...}`): the publication's own language
//!   first, then English, then the first entry (in serde_json's map order: alphabetical unless
//!   its `preserve_order` feature is on).
//! - Relative hrefs resolve against the URL the document was fetched from; templated hrefs keep
//!   their braces.
//!
//! Strict where the document's shape is wrong as a whole (a `metadata` that is not an object, a
//! `publications` that is not a list: [`OpdsError::InvalidOpds2`]), lenient inside: a navigation
//! link or publication that cannot be used is left out, a field of the wrong type is ignored.
//! Nesting is bounded by serde_json's recursion limit (128), which stays on.

use serde_json::{Map, Value};
use url::Url;

use super::atom_feed::{
    book_format, file_name, is_feed_type, kind_of_type, parse_series_index, BookEntry, BookLinks,
    Entry, Facet, Feed, FeedKind, FeedLinks, NavEntry, SearchLink, ACQUISITION_REL, COVER_RELS,
    IANA_REL_PREFIX, PROGRESSION_REL, THUMBNAIL_RELS,
};
use super::media_type::media_essence;
use super::open_search::SearchTemplate;
use super::page_stream::{parse_number, PageStream, StreamLink, STREAM_REL};
use super::plain_text::{collapse_whitespace, html_to_text, tidy_paragraphs};
use super::url_template::{has_placeholders, resolve_href, resolve_image_href};
use super::{OpdsError, MAX_FEED_BYTES};

type Object = Map<String, Value>;

const UTF8_BOM: &[u8] = b"\xEF\xBB\xBF";

/// The collections that make a document a feed.
const FEED_COLLECTIONS: &[&str] = &["navigation", "publications", "groups"];

/// Types of links to a single publication's manifest.
const MANIFEST_TYPES: &[&str] = &[
    "application/opds-publication+json",
    "application/webpub+json",
    "application/divina+json",
    "application/audiobook+json",
];

/// Extensions of page images, for reading-order items that do not declare a type.
const IMAGE_EXTENSIONS: &[&str] = &[
    "jpg", "jpeg", "png", "gif", "webp", "avif", "jxl", "bmp", "tif", "tiff",
];

/// The widest image still taken as a thumbnail.
const MAX_THUMBNAIL_WIDTH: u32 = 400;

/// Whether `bytes` hold a JSON object: `{` first, after an optional UTF-8 byte order mark and
/// blanks.
pub(crate) fn looks_like_json(bytes: &[u8]) -> bool {
    let body = bytes.strip_prefix(UTF8_BOM).unwrap_or(bytes);
    body.iter().find(|b| !b.is_ascii_whitespace()) == Some(&b'{')
}

/// Parses an OPDS 2 feed fetched from `feed_url`.
pub(crate) fn parse_feed(bytes: &[u8], feed_url: &Url) -> Result<Feed, OpdsError> {
    let doc = read_document(bytes)?;
    let metadata = metadata_of(&doc)?;
    let has_collection = FEED_COLLECTIONS.iter().any(|key| is_present(&doc, key));
    if !has_collection {
        if looks_like_publication(&doc) {
            return Err(OpdsError::NotAFeed(
                "a single OPDS 2 publication, not a feed".into(),
            ));
        }
        if !is_present(&doc, "links") {
            return Err(OpdsError::NotAFeed(
                "an OPDS 2 document without navigation, publications or groups".into(),
            ));
        }
        // Only links: an empty page whose server leaves out empty collections.
    }
    let links = strict_list(&doc, "links")?;
    let navigation = strict_list(&doc, "navigation")?;
    let publications = strict_list(&doc, "publications")?;
    let groups = strict_list(&doc, "groups")?;
    let facets = strict_list(&doc, "facets")?;

    let mut reader = EntryReader {
        base: feed_url,
        entries: Vec::new(),
        skipped: 0,
    };
    let mut lists_publications = publications.is_some();
    reader.navigation(navigation.unwrap_or_default());
    reader.publications(publications.unwrap_or_default());
    for group in groups.unwrap_or_default() {
        lists_publications |= reader.group(group);
    }
    let EntryReader {
        entries, skipped, ..
    } = reader;
    if skipped > 0 {
        tracing::debug!(skipped, feed = %carrel_foundation::address_secrets::redact(feed_url), "navigation links or publications with no usable link were left out");
    }

    let kind = if entries.iter().any(|e| matches!(e, Entry::Book(_))) {
        FeedKind::Acquisition
    } else if !entries.is_empty() {
        FeedKind::Navigation
    } else if lists_publications {
        // An empty page of publications (a search without results).
        FeedKind::Acquisition
    } else {
        FeedKind::Unknown
    };

    Ok(Feed {
        id: ["identifier", "@id"]
            .iter()
            .find_map(|key| string(metadata.get(*key)))
            .or_else(|| string(doc.get("@id"))),
        title: text_value(metadata.get("title"), &[]).unwrap_or_default(),
        kind,
        entries,
        links: feed_links(
            links.unwrap_or_default(),
            facets.unwrap_or_default(),
            feed_url,
        ),
        updated: string(metadata.get("modified")),
        authors: Vec::new(),
        generator: None,
    })
}

/// Parses a single OPDS 2 publication or Readium manifest fetched from `url`.
pub(crate) fn parse_publication(bytes: &[u8], url: &Url) -> Result<BookEntry, OpdsError> {
    let doc = read_document(bytes)?;
    metadata_of(&doc)?;
    if FEED_COLLECTIONS.iter().any(|key| is_present(&doc, key)) {
        return Err(OpdsError::NotAFeed(
            "an OPDS 2 catalog feed, not a single publication".into(),
        ));
    }
    strict_list(&doc, "links")?;
    strict_list(&doc, "readingOrder")?;
    strict_list(&doc, "images")?;
    read_publication(&doc, url).ok_or(OpdsError::Missing {
        what: "acquisition link, page stream or image-only reading order in its publication",
    })
}

// --- The document as a whole -------------------------------------------------------------------

/// Checks the size and encoding and parses the JSON object.
fn read_document(bytes: &[u8]) -> Result<Object, OpdsError> {
    if bytes.len() > MAX_FEED_BYTES {
        return Err(OpdsError::TooLarge {
            size: bytes.len(),
            limit: MAX_FEED_BYTES,
        });
    }
    let (body, offset) = match bytes.strip_prefix(UTF8_BOM) {
        Some(rest) => (rest, UTF8_BOM.len()),
        None => (bytes, 0),
    };
    let text = std::str::from_utf8(body).map_err(|e| {
        OpdsError::Encoding(format!(
            "invalid UTF-8 at byte {}",
            e.valid_up_to() + offset
        ))
    })?;
    if text.trim().is_empty() {
        return Err(OpdsError::Empty);
    }
    // serde_json's default recursion limit (128 levels) stays on: deep nesting is an error, not
    // a stack overflow.
    match serde_json::from_str::<Value>(text) {
        Ok(Value::Object(doc)) => Ok(doc),
        Ok(other) => Err(OpdsError::NotAFeed(format!(
            "JSON {}, not an OPDS 2 document",
            describe(&other)
        ))),
        Err(err) => Err(json_error(&err)),
    }
}

fn json_error(err: &serde_json::Error) -> OpdsError {
    let text = err.to_string();
    if text.starts_with("recursion limit exceeded") {
        OpdsError::MalformedJson(format!("it is nested too deeply ({text})"))
    } else if err.is_eof() {
        OpdsError::MalformedJson(format!(
            "it ends too early; the response may have been cut off ({text})"
        ))
    } else {
        OpdsError::MalformedJson(text)
    }
}

/// The document's `metadata`, which every OPDS 2 document has.
fn metadata_of(doc: &Object) -> Result<&Object, OpdsError> {
    match doc.get("metadata") {
        Some(Value::Object(metadata)) => Ok(metadata),
        None | Some(Value::Null) => Err(OpdsError::NotAFeed(format!(
            "a JSON document that is not an OPDS 2 catalog{}",
            server_message(doc)
        ))),
        Some(other) => Err(OpdsError::InvalidOpds2(format!(
            "its metadata is {}, not an object",
            describe(other)
        ))),
    }
}

/// What a JSON error response says, for the error message: ` (status 401: “Unauthorized”)`.
fn server_message(doc: &Object) -> String {
    let status = match doc.get("status").or_else(|| doc.get("code")) {
        Some(Value::Number(n)) => Some(n.to_string()),
        Some(Value::String(s)) if !s.trim().is_empty() => Some(snippet(s)),
        _ => None,
    };
    let message = ["message", "error", "detail", "title", "error_description"]
        .iter()
        .find_map(|key| string(doc.get(*key)))
        .map(|m| snippet(&m));
    match (status, message) {
        (Some(status), Some(message)) => format!(" (status {status}: \u{201c}{message}\u{201d})"),
        (Some(status), None) => format!(" (status {status})"),
        (None, Some(message)) => format!(" (\u{201c}{message}\u{201d})"),
        (None, None) => String::new(),
    }
}

/// A manifest rather than a feed: a reading order, resources or acquisition links of its own.
fn looks_like_publication(doc: &Object) -> bool {
    is_present(doc, "readingOrder")
        || is_present(doc, "resources")
        || links_of(doc, "links")
            .iter()
            .any(|l| acquisition_rel(l).is_some() || l.has_rel(STREAM_REL))
}

fn is_present(object: &Object, key: &str) -> bool {
    !matches!(object.get(key), None | Some(Value::Null))
}

/// A top-level list: absent (or `null`) is `None`, another type is an error.
fn strict_list<'a>(doc: &'a Object, key: &str) -> Result<Option<&'a [Value]>, OpdsError> {
    match doc.get(key) {
        None | Some(Value::Null) => Ok(None),
        Some(Value::Array(items)) => Ok(Some(items)),
        Some(other) => Err(OpdsError::InvalidOpds2(format!(
            "its {key} is {}, not a list",
            describe(other)
        ))),
    }
}

/// A list inside an item: anything but a list counts as empty.
fn list<'a>(object: &'a Object, key: &str) -> &'a [Value] {
    match object.get(key) {
        Some(Value::Array(items)) => items,
        _ => &[],
    }
}

fn describe(value: &Value) -> &'static str {
    match value {
        Value::Null => "null",
        Value::Bool(_) => "a true/false value",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "a list",
        Value::Object(_) => "an object",
    }
}

/// At most 80 characters of the first line of `text`.
fn snippet(text: &str) -> String {
    let line = text
        .lines()
        .map(str::trim)
        .find(|l| !l.is_empty())
        .unwrap_or("");
    match line.char_indices().nth(80) {
        Some((cut, _)) => format!("{}…", &line[..cut]),
        None => line.to_owned(),
    }
}

// --- Values ------------------------------------------------------------------------------------

/// A non-empty string, whitespace collapsed.
fn string(value: Option<&Value>) -> Option<String> {
    value
        .and_then(Value::as_str)
        .map(collapse_whitespace)
        .filter(|s| !s.is_empty())
}

/// A string or a language map (`{"en": "...", "fr": "..."}`), whitespace collapsed. In a map
/// the first of `languages` found wins (`en` matches `en-GB` too), then English, then the first
/// entry in the map's order.
fn text_value(value: Option<&Value>, languages: &[&str]) -> Option<String> {
    match value? {
        Value::String(_) => string(value),
        Value::Object(map) => {
            let matches = |key: &str, wanted: &str| {
                let key = key.trim();
                key.eq_ignore_ascii_case(wanted)
                    || (key.len() > wanted.len()
                        && key.is_char_boundary(wanted.len())
                        && key[..wanted.len()].eq_ignore_ascii_case(wanted)
                        && key.as_bytes()[wanted.len()] == b'-')
            };
            let texts = || {
                map.iter()
                    .filter_map(|(key, v)| Some((key, string(Some(v))?)))
            };
            languages
                .iter()
                .chain(&["en"])
                .filter(|wanted| !wanted.is_empty())
                .find_map(|wanted| {
                    texts()
                        .find(|(key, _)| matches(key, wanted))
                        .map(|(_, text)| text)
                })
                .or_else(|| texts().next().map(|(_, text)| text))
        }
        _ => None,
    }
}

/// A whole non-negative number that fits in a `u32`, written as a number or a string.
fn number_u32(value: &Value) -> Option<u32> {
    match value {
        Value::Number(n) => match n.as_u64() {
            Some(whole) => u32::try_from(whole).ok(),
            None => n.as_f64().and_then(|f| parse_number(&f.to_string())),
        },
        Value::String(s) => parse_number(s),
        _ => None,
    }
}

fn number_u64(value: &Value) -> Option<u64> {
    match value {
        Value::Number(n) => n.as_u64(),
        Value::String(s) => s.trim().parse().ok(),
        _ => None,
    }
}

/// A finite number, written as a number or a string.
fn number_f64(value: &Value) -> Option<f64> {
    match value {
        Value::Number(n) => n.as_f64().filter(|f| f.is_finite()),
        Value::String(s) => parse_series_index(s),
        _ => None,
    }
}

/// A description as plain text: markup removed when there is any, paragraphs kept.
fn plain_text(text: &str) -> Option<String> {
    let text = if text.contains('<') {
        html_to_text(text)
    } else {
        text.to_owned()
    };
    Some(tidy_paragraphs(&text)).filter(|t| !t.is_empty())
}

/// Names of contributors: a string, an object with a `name` (string or language map), or a
/// list of those. Duplicates (ignoring case) are dropped.
fn contributors(value: Option<&Value>, out: &mut Vec<String>) {
    let single = |value: &Value| match value {
        Value::String(_) => string(Some(value)),
        Value::Object(object) => text_value(object.get("name"), &[]),
        _ => None,
    };
    let names: Vec<String> = match value {
        Some(Value::Array(items)) => items.iter().filter_map(single).collect(),
        Some(other) => single(other).into_iter().collect(),
        None => Vec::new(),
    };
    for name in names {
        if !out.iter().any(|known| known.eq_ignore_ascii_case(&name)) {
            out.push(name);
        }
    }
}

// --- Links -------------------------------------------------------------------------------------

/// A JSON link object.
struct Link<'a> {
    href: &'a str,
    /// Lowercase; IANA URIs shortened to tokens. OPDS 2 allows one relation or a list.
    rels: Vec<String>,
    media_type: &'a str,
    title: Option<String>,
    templated: bool,
    properties: Option<&'a Object>,
    object: &'a Object,
}

impl<'a> Link<'a> {
    fn has_rel(&self, rel: &str) -> bool {
        self.rels.iter().any(|r| r == rel)
    }

    fn essence(&self) -> String {
        media_essence(self.media_type)
    }

    /// A property, from `properties` or (for servers that flatten them) the link itself.
    fn property(&self, names: &[&str]) -> Option<&'a Value> {
        names.iter().find_map(|name| {
            self.properties
                .and_then(|p| p.get(*name))
                .or_else(|| self.object.get(*name))
        })
    }

    /// The link resolved against `base`; templated links are not followed.
    fn url(&self, base: &Url) -> Option<Url> {
        if self.templated {
            return None;
        }
        match resolve_href(self.href, base) {
            Ok(url) => Some(url),
            Err(err) => {
                tracing::debug!(%err, "ignoring a link");
                None
            }
        }
    }
}

fn link_of(value: &Value) -> Option<Link<'_>> {
    let object = value.as_object()?;
    let href = object.get("href")?.as_str()?;
    let normalize = |rel: &str| {
        let rel = rel.trim();
        rel.strip_prefix(IANA_REL_PREFIX)
            .unwrap_or(rel)
            .to_ascii_lowercase()
    };
    let rels = match object.get("rel") {
        Some(Value::String(rel)) => vec![normalize(rel)],
        Some(Value::Array(rels)) => rels
            .iter()
            .filter_map(Value::as_str)
            .map(normalize)
            .collect(),
        _ => Vec::new(),
    };
    Some(Link {
        href,
        rels: rels.into_iter().filter(|r| !r.is_empty()).collect(),
        media_type: object
            .get("type")
            .and_then(Value::as_str)
            .map(str::trim)
            .unwrap_or(""),
        title: string(object.get("title")),
        templated: object
            .get("templated")
            .and_then(Value::as_bool)
            .unwrap_or(false),
        properties: object.get("properties").and_then(Value::as_object),
        object,
    })
}

fn links_of<'a>(object: &'a Object, key: &str) -> Vec<Link<'a>> {
    list(object, key).iter().filter_map(link_of).collect()
}

/// The acquisition relation of a link, if it has one.
fn acquisition_rel<'l>(link: &'l Link<'_>) -> Option<&'l str> {
    link.rels
        .iter()
        .find(|rel| *rel == ACQUISITION_REL || rel.starts_with("http://opds-spec.org/acquisition/"))
        .map(String::as_str)
}

/// The types of `properties.indirectAcquisition`, outermost first (each may nest a `child`).
fn indirect_types(link: &Link<'_>) -> Vec<String> {
    let mut types = Vec::new();
    let mut pending: Vec<&Value> = link
        .property(&["indirectAcquisition"])
        .into_iter()
        .collect();
    // Depth-first without recursion; the parser already bounds the depth.
    while let Some(value) = pending.pop() {
        match value {
            Value::Array(items) => pending.extend(items.iter().rev()),
            Value::Object(object) => {
                if let Some(media_type) = object.get("type").and_then(Value::as_str) {
                    types.push(media_essence(media_type));
                }
                if let Some(child) = object.get("child") {
                    pending.push(child);
                }
            }
            _ => {}
        }
    }
    types
}

// --- Feed-level links and facets ---------------------------------------------------------------

fn feed_links(links: &[Value], facets: &[Value], base: &Url) -> FeedLinks {
    let mut out = FeedLinks::default();
    let mut templates: Vec<(u8, SearchTemplate)> = Vec::new();
    let mut descriptions = Vec::new();
    for link in links.iter().filter_map(link_of) {
        for rel in &link.rels {
            if rel == "search" {
                read_search_link(&link, base, &mut templates, &mut descriptions);
            } else if let Some(slot) = out.navigation_mut(rel) {
                if slot.is_none() {
                    *slot = link.url(base);
                }
            }
        }
    }
    // An OPDS 2 results template first, then any other template, then a description.
    templates.sort_by_key(|(rank, _)| std::cmp::Reverse(*rank));
    out.search = SearchLink::first_of(
        templates.into_iter().map(|(_, template)| template),
        descriptions,
    );
    out.facets = facets
        .iter()
        .filter_map(Value::as_object)
        .flat_map(|facet| read_facets(facet, base))
        .collect();
    out
}

fn read_search_link(
    link: &Link<'_>,
    base: &Url,
    templates: &mut Vec<(u8, SearchTemplate)>,
    descriptions: &mut Vec<Url>,
) {
    let essence = link.essence();
    if link.templated || has_placeholders(link.href) {
        let rank = match essence.as_str() {
            "application/opds+json" => 2,
            "" | "application/json" | "application/atom+xml" => 1,
            // A web page's search form is not a catalog search.
            _ => return,
        };
        match SearchTemplate::from_opds2(link.href, base, Some(link.media_type)) {
            Ok(template) => templates.push((rank, template)),
            Err(err) => tracing::debug!(%err, "ignoring a search link"),
        }
    } else if essence.is_empty() || essence == "application/opensearchdescription+xml" {
        descriptions.extend(link.url(base));
    }
}

fn read_facets(facet: &Object, base: &Url) -> Vec<Facet> {
    let group = facet
        .get("metadata")
        .and_then(Value::as_object)
        .and_then(|m| text_value(m.get("title"), &[]));
    links_of(facet, "links")
        .into_iter()
        .filter_map(|link| {
            Some(Facet {
                href: link.url(base)?,
                title: link.title.clone().unwrap_or_default(),
                group: group.clone(),
                active: link.has_rel("self"),
                count: link.property(&["numberOfItems"]).and_then(number_u64),
            })
        })
        .collect()
}

// --- Entries -----------------------------------------------------------------------------------

/// Collects a feed's entries in order.
struct EntryReader<'u> {
    base: &'u Url,
    entries: Vec<Entry>,
    skipped: usize,
}

impl EntryReader<'_> {
    fn navigation(&mut self, items: &[Value]) {
        for item in items {
            match navigation_entry(item, self.base) {
                Some(nav) => self.entries.push(Entry::Navigation(nav)),
                None => self.skipped += 1,
            }
        }
    }

    fn publications(&mut self, items: &[Value]) {
        for item in items {
            match item
                .as_object()
                .and_then(|publication| read_publication(publication, self.base))
            {
                Some(book) => self.entries.push(Entry::Book(book)),
                None => self.skipped += 1,
            }
        }
    }

    /// Flattens a group (see the module header). Returns whether it lists publications.
    fn group(&mut self, item: &Value) -> bool {
        let Some(group) = item.as_object() else {
            self.skipped += 1;
            return false;
        };
        let navigation = list(group, "navigation");
        let publications = list(group, "publications");
        let lists_publications = matches!(group.get("publications"), Some(Value::Array(_)));
        let see_all = links_of(group, "links")
            .into_iter()
            .filter(|l| l.has_rel("self"))
            .find_map(|l| l.url(self.base));
        if let Some(href) = see_all {
            let title = group
                .get("metadata")
                .and_then(Value::as_object)
                .and_then(|m| text_value(m.get("title"), &[]))
                .unwrap_or_default();
            // What the group declares, even empty: the complete list will have more.
            let kind = if lists_publications {
                FeedKind::Acquisition
            } else if matches!(group.get("navigation"), Some(Value::Array(_))) {
                FeedKind::Navigation
            } else {
                FeedKind::Unknown
            };
            self.entries.push(Entry::Navigation(NavEntry {
                id: href.to_string(),
                title,
                summary: None,
                href,
                kind,
                thumbnail: None,
            }));
        }
        self.navigation(navigation);
        self.publications(publications);
        lists_publications
    }
}

/// A navigation link as an entry. Links to web pages or images, and templated links, are not
/// sub-catalogs.
fn navigation_entry(item: &Value, base: &Url) -> Option<NavEntry> {
    let link = link_of(item)?;
    let essence = link.essence();
    if essence == "text/html" || essence == "application/xhtml+xml" || essence.starts_with("image/")
    {
        return None;
    }
    let href = link.url(base)?;
    Some(NavEntry {
        id: href.to_string(),
        title: link.title.clone().unwrap_or_default(),
        summary: None,
        kind: if is_feed_type(link.media_type) {
            kind_of_type(link.media_type)
        } else {
            FeedKind::Unknown
        },
        href,
        thumbnail: None,
    })
}

/// A publication (in a feed, or a manifest on its own) as a book; `None` when it offers no
/// acquisition link, page stream or image-only reading order.
fn read_publication(publication: &Object, base: &Url) -> Option<BookEntry> {
    let metadata = publication.get("metadata")?.as_object()?;
    let language = match metadata.get("language") {
        Some(Value::Array(languages)) => languages.iter().find_map(|l| string(Some(l))),
        other => string(other),
    };
    let languages: Vec<&str> = language.as_deref().into_iter().collect();
    let links = links_of(publication, "links");

    let mut offers = BookLinks::default();
    for link in &links {
        if let Some(rel) = acquisition_rel(link) {
            let Some(href) = link.url(base) else { continue };
            offers.add_acquisition(
                href,
                link.media_type,
                link.title.as_deref(),
                indirect_types(link),
                link.property(&["length", "size"]).and_then(number_u64),
                rel.to_owned(),
            );
        } else if link.has_rel(STREAM_REL) {
            offers.add_stream(
                || page_stream(link, metadata, base),
                || stream_link(link, metadata).count_refusal(),
            );
        }
    }
    let page_list = image_reading_order(publication, base);
    if offers.is_empty() && page_list.is_empty() {
        return None;
    }

    let manifest = links
        .iter()
        .filter(|l| {
            (l.has_rel("self") || l.has_rel("alternate"))
                && MANIFEST_TYPES.contains(&l.essence().as_str())
        })
        .find_map(|l| l.url(base));
    let alternate = manifest.filter(|url| url != base);
    let self_link = links
        .iter()
        .filter(|l| l.has_rel("self"))
        .find_map(|l| l.url(base));
    let progression = links
        .iter()
        .filter(|l| l.has_rel(PROGRESSION_REL))
        .find_map(|l| l.url(base));

    let images = images_of(publication, base);
    let cover = pick_cover(&images)
        .or_else(|| linked_image(&links, COVER_RELS, base))
        .or_else(|| linked_image(&links_of(publication, "resources"), &["cover"], base))
        .or_else(|| linked_image(&links, &["cover"], base));
    let thumbnail = pick_thumbnail(&images).or_else(|| linked_image(&links, THUMBNAIL_RELS, base));

    let (series, series_index) = series_of(metadata, &languages);
    let mut authors = Vec::new();
    contributors(metadata.get("author"), &mut authors);
    let format = book_format(
        &offers.hints,
        offers.offers_stream() || !page_list.is_empty(),
    );
    let id = string(metadata.get("identifier"))
        .or_else(|| self_link.as_ref().map(Url::to_string))
        .or_else(|| alternate.as_ref().map(Url::to_string))
        .or_else(|| offers.acquisitions.first().map(|a| a.href.to_string()))
        .or_else(|| {
            offers
                .stream
                .as_ref()
                .map(|s: &PageStream| s.template.clone())
        })
        .or_else(|| page_list.first().map(Url::to_string))
        .unwrap_or_default();

    Some(BookEntry {
        id,
        title: text_value(metadata.get("title"), &languages).unwrap_or_default(),
        authors,
        summary: metadata
            .get("description")
            .and_then(Value::as_str)
            .and_then(plain_text),
        series,
        series_index,
        language,
        updated: string(metadata.get("modified")).or_else(|| string(metadata.get("published"))),
        acquisitions: offers.acquisitions,
        cover,
        thumbnail,
        stream: offers.stream,
        alternate,
        format,
        page_list,
        progression,
        not_streamable: offers.not_streamable,
    })
}

/// A PSE link as a page stream. The count comes from the link's properties (`pse:count` or
/// `count`), else from the publication's `numberOfPages`.
fn page_stream(link: &Link<'_>, metadata: &Object, base: &Url) -> Option<PageStream> {
    PageStream::from_parts(&stream_link(link, metadata), base)
}

/// The parts of a PSE link as the page stream reads them.
fn stream_link<'a>(link: &Link<'a>, metadata: &'a Object) -> StreamLink<'a> {
    StreamLink {
        href: link.href,
        count: link
            .property(&["pse:count", "count"])
            .and_then(number_u32)
            .or_else(|| metadata.get("numberOfPages").and_then(number_u32)),
        declared_type: Some(link.media_type),
        last_read: link
            .property(&["pse:lastRead", "lastRead"])
            .and_then(number_u32),
        last_read_date: link
            .property(&[
                "pse:lastReadDate",
                "lastReadDate",
                "pse:lastReadUpdate",
                "lastReadUpdate",
            ])
            .and_then(Value::as_str),
    }
}

/// The page URLs of a `readingOrder` made only of images; empty when there is none, when any
/// item is something else, or when any href is unusable (skipping one would shift the pages).
fn image_reading_order(publication: &Object, base: &Url) -> Vec<Url> {
    let items = list(publication, "readingOrder");
    let mut pages = Vec::with_capacity(items.len());
    for item in items {
        let Some(link) = link_of(item) else {
            return Vec::new();
        };
        let Some(url) = link.url(base) else {
            return Vec::new();
        };
        let essence = link.essence();
        let is_image = if essence.is_empty() {
            let name = file_name(&url, None);
            name.rsplit_once('.')
                .is_some_and(|(_, ext)| IMAGE_EXTENSIONS.contains(&ext))
        } else {
            essence.starts_with("image/")
        };
        if !is_image {
            return Vec::new();
        }
        pages.push(url);
    }
    pages
}

/// The series from `belongsTo.series`: a name, an object with `name` and `position`, or a list
/// of those (the first usable one wins).
fn series_of(metadata: &Object, languages: &[&str]) -> (Option<String>, Option<f64>) {
    let Some(series) = metadata
        .get("belongsTo")
        .and_then(Value::as_object)
        .and_then(|b| b.get("series"))
    else {
        return (None, None);
    };
    let candidates: &[Value] = match series {
        Value::Array(items) => items,
        single => std::slice::from_ref(single),
    };
    candidates
        .iter()
        .find_map(|candidate| match candidate {
            Value::String(_) => Some((string(Some(candidate))?, None)),
            Value::Object(object) => Some((
                text_value(object.get("name"), languages)?,
                object.get("position").and_then(number_f64),
            )),
            _ => None,
        })
        .map_or((None, None), |(name, position)| (Some(name), position))
}

/// An entry of `images`.
struct Image {
    url: Url,
    width: Option<u32>,
    height: Option<u32>,
}

impl Image {
    /// The area, taking a missing side as equal to the known one; 0 when neither is known.
    fn area(&self) -> u64 {
        match (self.width, self.height) {
            (Some(w), Some(h)) => u64::from(w) * u64::from(h),
            (Some(side), None) | (None, Some(side)) => u64::from(side) * u64::from(side),
            (None, None) => 0,
        }
    }
}

fn images_of(publication: &Object, base: &Url) -> Vec<Image> {
    links_of(publication, "images")
        .into_iter()
        .filter(|link| !link.templated)
        .filter_map(|link| {
            let url = resolve_image_href(link.href, base).ok()?;
            Some(Image {
                url,
                width: link.object.get("width").and_then(number_u32),
                height: link.object.get("height").and_then(number_u32),
            })
        })
        .collect()
}

/// The largest image; the first one when no sizes are given (or on ties).
fn pick_cover(images: &[Image]) -> Option<Url> {
    let mut best = images.first()?;
    for image in &images[1..] {
        if image.area() > best.area() {
            best = image;
        }
    }
    Some(best.url.clone())
}

/// The narrowest image at most [`MAX_THUMBNAIL_WIDTH`] wide; else the first one.
fn pick_thumbnail(images: &[Image]) -> Option<Url> {
    images
        .iter()
        .filter_map(|image| Some((image.width.filter(|w| *w <= MAX_THUMBNAIL_WIDTH)?, image)))
        .min_by_key(|(width, _)| *width)
        .map(|(_, image)| image)
        .or_else(|| images.first())
        .map(|image| image.url.clone())
}

fn linked_image(links: &[Link<'_>], rels: &[&str], base: &Url) -> Option<Url> {
    links
        .iter()
        .filter(|l| !l.templated && rels.iter().any(|rel| l.has_rel(rel)))
        .find_map(|l| resolve_image_href(l.href, base).ok())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn opds2_detects_json_after_a_bom_and_blanks() {
        assert!(looks_like_json(b"{}"));
        assert!(looks_like_json(b"\xEF\xBB\xBF \r\n\t{\"metadata\":{}}"));
        assert!(!looks_like_json(b"[{}]"));
        assert!(!looks_like_json(b"<?xml version=\"1.0\"?><feed/>"));
        assert!(!looks_like_json(b""));
        assert!(!looks_like_json(b"\xEF\xBB\xBF"));
    }

    #[test]
    fn opds2_language_maps_prefer_the_publication_language_then_english() {
        let map = serde_json::json!({"de": "Der Leuchtturm", "en-GB": "The Lighthouse", "fr": "  Le   Phare "});
        assert_eq!(text_value(Some(&map), &["fr"]).as_deref(), Some("Le Phare"));
        assert_eq!(
            text_value(Some(&map), &["it"]).as_deref(),
            Some("The Lighthouse")
        );
        assert_eq!(
            text_value(Some(&map), &[]).as_deref(),
            Some("The Lighthouse")
        );
        let only = serde_json::json!({"ja": "灯台", "de": 3});
        assert_eq!(text_value(Some(&only), &[]).as_deref(), Some("灯台"));
        assert_eq!(text_value(Some(&serde_json::json!(["x"])), &[]), None);
        // A key that only starts like the wanted language does not match it.
        let tricky = serde_json::json!({"enx": "no", "é": "oui"});
        assert!(text_value(Some(&tricky), &["e"]).is_some());
    }

    #[test]
    fn opds2_numbers_in_any_spelling() {
        assert_eq!(number_u32(&serde_json::json!(12)), Some(12));
        assert_eq!(number_u32(&serde_json::json!(12.0)), Some(12));
        assert_eq!(number_u32(&serde_json::json!("12")), Some(12));
        assert_eq!(number_u32(&serde_json::json!(12.5)), None);
        assert_eq!(number_u32(&serde_json::json!(-1)), None);
        assert_eq!(number_u32(&serde_json::json!(1e300)), None);
        assert_eq!(number_u32(&serde_json::json!(u64::MAX)), None);
        assert_eq!(number_u32(&serde_json::json!(true)), None);
        assert_eq!(number_f64(&serde_json::json!("2.5")), Some(2.5));
        assert_eq!(number_f64(&serde_json::json!("NaN")), None);
    }

    #[test]
    fn opds2_contributors_in_every_shape() {
        let mut names = Vec::new();
        contributors(
            Some(&serde_json::json!([
                "Mara Okonkwo",
                {"name": "Jules Ferrand", "sortAs": "Ferrand, Jules"},
                {"name": {"en": "Aiko Tanaka", "ja": "田中愛子"}},
                {"role": "writer"},
                7,
                "mara okonkwo"
            ])),
            &mut names,
        );
        assert_eq!(names, ["Mara Okonkwo", "Jules Ferrand", "Aiko Tanaka"]);
        let mut single = Vec::new();
        contributors(Some(&serde_json::json!({"name": "Ada Quill"})), &mut single);
        assert_eq!(single, ["Ada Quill"]);
    }

    #[test]
    fn opds2_cover_is_the_largest_image_and_thumbnail_the_smallest_narrow_one() {
        let base = Url::parse("https://h.example/opds/v2/books/1").unwrap();
        let publication = serde_json::json!({"images": [
            {"href": "medium.jpg", "width": 600, "height": 900},
            {"href": "small.jpg", "width": 150},
            {"href": "big.jpg", "width": 1200, "height": 1800},
            {"href": "tiny.jpg", "width": 80, "height": 120, "templated": true},
            {"href": "javascript:alert(1)", "width": 5000}
        ]});
        let images = images_of(publication.as_object().unwrap(), &base);
        assert_eq!(images.len(), 3);
        assert_eq!(
            pick_cover(&images).unwrap().as_str(),
            "https://h.example/opds/v2/books/big.jpg"
        );
        assert_eq!(
            pick_thumbnail(&images).unwrap().as_str(),
            "https://h.example/opds/v2/books/small.jpg"
        );

        let no_sizes = serde_json::json!({"images": [{"href": "/a.png"}, {"href": "/b.png"}]});
        let images = images_of(no_sizes.as_object().unwrap(), &base);
        assert_eq!(pick_cover(&images).unwrap().path(), "/a.png");
        assert_eq!(pick_thumbnail(&images).unwrap().path(), "/a.png");
        assert_eq!(pick_cover(&[]), None);
    }

    #[test]
    fn opds2_error_responses_are_summarised() {
        let doc = serde_json::json!({"timestamp": "2025-01-01T00:00:00Z", "status": 401, "error": "Unauthorized", "path": "/opds/v2/catalog"});
        assert_eq!(
            server_message(doc.as_object().unwrap()),
            " (status 401: \u{201c}Unauthorized\u{201d})"
        );
        let long = serde_json::json!({"message": "x".repeat(200)});
        assert_eq!(
            server_message(long.as_object().unwrap()).chars().count(),
            81 + 5
        );
        assert_eq!(server_message(&Object::new()), "");
    }
}
