//! The catalog parsers — OPDS 1.2 Atom feeds and entries, OPDS 2.0 JSON feeds and publications,
//! OpenSearch descriptions — under real feeds mutated, generated documents (random trees of the
//! elements, attributes and keys the parsers look for, with wild values, in every encoding the
//! parsers read), documents nested tens of thousands deep, and bytes of no format.
//!
//! Whatever a parse gives must keep the module's promises: page counts within
//! [`MAX_PAGE_COUNT`], page URLs that can be built for every page of the count and for no
//! other, URLs proportionate to their template, a search template that fills without a panic.

use carrel_core::opds::{
    parse_entry, parse_feed, parse_open_search, parse_publication, BookEntry, Entry, Feed,
    PageBase, SearchLink, SearchTemplate, MAX_PAGE_COUNT,
};
use proptest::prelude::*;
use serde_json::{json, Value};
use url::Url;

use crate::support::{self, Target};

const SEEDS: &[&[u8]] = &[
    include_bytes!("../feeds/komga_series.xml"),
    include_bytes!("../feeds/kavita_volume.xml"),
    include_bytes!("../feeds/calibre_web_new.xml"),
    include_bytes!("../feeds/stump_libraries.xml"),
    include_bytes!("../feeds/calibre_web_osd.xml"),
    include_bytes!("../feeds/login_page.html"),
];

const JSON_SEEDS: &[&[u8]] = &[
    include_bytes!("../feeds/opds2_komga_catalog.json"),
    include_bytes!("../feeds/opds2_codex_series.json"),
    include_bytes!("../feeds/opds2_manifest_pages.json"),
    include_bytes!("../feeds/opds2_stump_catalog.json"),
];

/// Parsing holds the document and its tree; a case never needs more than this.
const MEMORY: usize = 64 << 20;

pub const ATOM: Target = Target::new("atom_feed", check_document, MEMORY);

pub const OPDS2: Target = Target::new("opds2_feed", check_document, MEMORY);

pub const OPEN_SEARCH: Target = Target::new("open_search", check_document, MEMORY);

pub fn base() -> Url {
    Url::parse("https://books.example.org/opds/v1.2/catalog?page=1").unwrap()
}

/// Every parser over the same bytes: each either refuses them or gives what it promises.
fn check_document(bytes: &[u8]) -> Result<(), String> {
    let base = base();
    if let Ok(feed) = parse_feed(bytes, &base) {
        check_feed(&feed)?;
    }
    if let Ok(Entry::Book(book)) = parse_entry(bytes, &base) {
        check_book(&book)?;
    }
    if let Ok(book) = parse_publication(bytes, &base) {
        check_book(&book)?;
    }
    if let Ok(template) = parse_open_search(bytes, &base) {
        check_search(&template)?;
    }
    Ok(())
}

fn check_feed(feed: &Feed) -> Result<(), String> {
    for entry in &feed.entries {
        if let Entry::Book(book) = entry {
            check_book(book)?;
        }
    }
    if let Some(SearchLink::Template { template }) = &feed.links.search {
        check_search(template)?;
    }
    Ok(())
}

pub fn check_book(book: &BookEntry) -> Result<(), String> {
    let Some(stream) = &book.stream else {
        return Ok(());
    };
    if stream.count == 0 || stream.count > MAX_PAGE_COUNT {
        return Err(format!("a page count of {} got through", stream.count));
    }
    let budget = stream.template.len() * 4 + 64;
    let last = stream.count - 1;
    for (page, base, width) in [
        (0, PageBase::ZeroBased, Some(1600)),
        (last, PageBase::OneBased, None),
        (last / 2, PageBase::ZeroBased, Some(u32::MAX)),
    ] {
        for url in [
            stream.page_url(page, base, width),
            stream.background_page_url(page, base, width),
        ]
        .into_iter()
        .flatten()
        {
            if url.as_str().len() > budget + 32 {
                return Err(format!(
                    "page {page}'s URL is {} bytes long from a template of {}: {url}",
                    url.as_str().len(),
                    stream.template.len()
                ));
            }
        }
    }
    for base in [PageBase::ZeroBased, PageBase::OneBased] {
        if stream.page_url(stream.count, base, None).is_ok() {
            return Err(format!(
                "a URL was built for page {} of a book of {} pages",
                stream.count, stream.count
            ));
        }
    }
    let _ = stream.background_template_with(&["page", "x-y"]);
    let _ = stream.page_base_hint();
    let _ = stream.supports_max_width();
    Ok(())
}

pub fn check_search(template: &SearchTemplate) -> Result<(), String> {
    for query in ["Saga", "  l'été & co #1 %20 ? / + {x}  ", ""] {
        if let Ok(url) = template.url_for(query) {
            let budget = template.template.len() * 2 + query.len() * 12 * 8 + 256;
            if url.as_str().len() > budget {
                return Err(format!(
                    "a search URL of {} bytes from a template of {}",
                    url.as_str().len(),
                    template.template.len()
                ));
            }
        }
    }
    Ok(())
}

// ----- generated Atom and OpenSearch documents ---------------------------------------------

#[derive(Debug, Clone)]
enum Node {
    Text(String),
    /// Markup written as is: entities, CDATA, comments.
    Raw(String),
    Element {
        name: String,
        attributes: Vec<(String, String)>,
        children: Vec<Node>,
    },
}

fn element_name() -> impl Strategy<Value = String> {
    prop_oneof![
        prop::sample::select(vec![
            "entry",
            "link",
            "title",
            "id",
            "updated",
            "author",
            "name",
            "content",
            "summary",
            "category",
            "dc:language",
            "dc:issued",
            "dcterms:extent",
            "pse:count",
            "opds:price",
            "opensearch:totalResults",
            "opensearch:itemsPerPage",
            "Url",
            "schema:Series",
            "feed",
            "html",
            "body",
            "a:link",
        ])
        .prop_map(str::to_owned),
        "[a-zA-Z][a-zA-Z0-9:._-]{0,8}",
    ]
}

fn attribute_name() -> impl Strategy<Value = String> {
    prop_oneof![
        prop::sample::select(vec![
            "href",
            "rel",
            "type",
            "pse:count",
            "pse:lastRead",
            "pse:lastReadDate",
            "p5:count",
            "length",
            "title",
            "xml:base",
            "xml:lang",
            "xmlns",
            "xmlns:pse",
            "xmlns:opds",
            "opds:facetGroup",
            "opds:activeFacet",
            "thr:count",
            "template",
            "indexOffset",
            "pageOffset",
            "schema:position",
            "term",
            "label",
        ])
        .prop_map(str::to_owned),
        "[a-zA-Z][a-zA-Z0-9:._-]{0,8}",
    ]
}

/// What a hostile or broken server puts in an attribute or a text.
pub fn wild_value() -> impl Strategy<Value = String> {
    prop_oneof![
        prop::sample::select(vec![
            "http://vaemendis.net/opds-pse/stream",
            "http://opds-spec.org/acquisition",
            "http://opds-spec.org/acquisition/open-access",
            "http://opds-spec.org/image",
            "http://opds-spec.org/image/thumbnail",
            "http://opds-spec.org/facet",
            "subsection",
            "search",
            "next",
            "start",
            "self",
            "alternate",
            "image/jpeg",
            "application/epub+zip",
            "application/vnd.comicbook+zip",
            "application/x-cbr",
            "application/pdf",
            "application/atom+xml;profile=opds-catalog;kind=acquisition",
            "application/atom+xml;profile=opds-catalog;kind=navigation",
            "application/opensearchdescription+xml",
            "application/atom+xml",
            "text/html",
            "http://www.w3.org/2005/Atom",
            "http://vaemendis.net/opds-pse/ns",
            "http://opds-spec.org/2010/catalog",
            "http://a9.com/-/spec/opensearch/1.1/",
            "/opds/v1.2/books/1/pages/{pageNumber}?zero_based=true",
            "/api/pages/{pageNumber}?width={maxWidth}&saveProgress=true",
            "/search?q={searchTerms}&page={startPage?}&lang={language}",
            "{?query,page}",
            "4294967295",
            "4294967296",
            "99999999999999999999",
            "-1",
            "0",
            "1",
            "10000",
            "10001",
            "1e308",
            "NaN",
            "true",
            "{{{{}}}}",
            "%7BpageNumber%7D",
            "javascript:alert(1)",
            "//evil.example/{pageNumber}",
            "data:image/png;base64,AAAA",
            "file:///etc/passwd",
            "http://[::1",
            "https://u:p@h/",
            "",
        ])
        .prop_map(str::to_owned),
        (0u64..30_000).prop_map(|n| n.to_string()),
        any::<u64>().prop_map(|n| n.to_string()),
        "[ -~]{0,40}",
        "\\PC{0,24}",
        (
            "[a-z/{}?&=%.:]{0,30}",
            "[a-zA-Z]{0,12}",
            "[a-z/{}?&=%.:]{0,30}"
        )
            .prop_map(|(a, name, b)| format!("{a}{{{name}}}{b}")),
    ]
}

fn escape(s: &str) -> String {
    s.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
        .replace('"', "&quot;")
}

fn raw_markup() -> impl Strategy<Value = String> {
    prop_oneof![
        prop::sample::select(vec![
            "&amp;",
            "&lt;",
            "&#65;",
            "&#x10FFFF;",
            "&#x110000;",
            "&#0;",
            "&#xD800;",
            "&bogus;",
            "&",
            "<![CDATA[<entry>]]>",
            "<![CDATA[",
            "<!-- c -->",
            "<!--",
            "<?pi x?>",
            "]]>",
            "</entry>",
            "<",
            "\u{feff}",
            "\u{0}",
        ])
        .prop_map(str::to_owned),
        "[<>&;#x0-9a-f/!?\\[\\]-]{1,8}",
    ]
}

fn node() -> impl Strategy<Value = Node> {
    let leaf = prop_oneof![
        4 => wild_value().prop_map(|t| Node::Text(escape(&t))),
        1 => raw_markup().prop_map(Node::Raw),
    ];
    leaf.prop_recursive(6, 96, 8, |inner| {
        (
            element_name(),
            prop::collection::vec((attribute_name(), wild_value()), 0..6),
            prop::collection::vec(inner, 0..8),
        )
            .prop_map(|(name, attributes, children)| Node::Element {
                name,
                attributes,
                children,
            })
    })
}

fn write(node: &Node, out: &mut String) {
    match node {
        Node::Text(t) | Node::Raw(t) => out.push_str(t),
        Node::Element {
            name,
            attributes,
            children,
        } => {
            out.push('<');
            out.push_str(name);
            for (k, v) in attributes {
                out.push_str(&format!(" {k}=\"{}\"", escape(v)));
            }
            if children.is_empty() {
                out.push_str("/>");
            } else {
                out.push('>');
                for child in children {
                    write(child, out);
                }
                out.push_str(&format!("</{name}>"));
            }
        }
    }
}

const NAMESPACES: &str = "xmlns=\"http://www.w3.org/2005/Atom\" \
    xmlns:pse=\"http://vaemendis.net/opds-pse/ns\" xmlns:p5=\"http://vaemendis.net/opds-pse/ns\" \
    xmlns:opds=\"http://opds-spec.org/2010/catalog\" xmlns:dc=\"http://purl.org/dc/terms/\" \
    xmlns:dcterms=\"http://purl.org/dc/terms/\" xmlns:thr=\"http://purl.org/syndication/thread/1.0\" \
    xmlns:opensearch=\"http://a9.com/-/spec/opensearch/1.1/\" xmlns:schema=\"http://schema.org/\"";

#[derive(Debug, Clone, Copy)]
enum Encoding {
    Utf8,
    Utf8Bom,
    Utf16LeBom,
    Utf16BeBom,
    Utf16Le,
    Latin1,
}

fn encode(text: &str, encoding: Encoding) -> Vec<u8> {
    let utf16 = |le: bool| -> Vec<u8> {
        text.encode_utf16()
            .flat_map(|u| if le { u.to_le_bytes() } else { u.to_be_bytes() })
            .collect()
    };
    match encoding {
        Encoding::Utf8 => text.as_bytes().to_vec(),
        Encoding::Utf8Bom => [b"\xEF\xBB\xBF".as_slice(), text.as_bytes()].concat(),
        Encoding::Utf16LeBom => [b"\xFF\xFE".to_vec(), utf16(true)].concat(),
        Encoding::Utf16BeBom => [b"\xFE\xFF".to_vec(), utf16(false)].concat(),
        Encoding::Utf16Le => utf16(true),
        Encoding::Latin1 => {
            let body: Vec<u8> = text
                .chars()
                .map(|c| u8::try_from(u32::from(c)).unwrap_or(b'?'))
                .collect();
            [
                b"<?xml version=\"1.0\" encoding=\"ISO-8859-1\"?>".as_slice(),
                &body,
            ]
            .concat()
        }
    }
}

fn encoding() -> impl Strategy<Value = Encoding> {
    prop_oneof![
        6 => Just(Encoding::Utf8),
        1 => Just(Encoding::Utf8Bom),
        1 => Just(Encoding::Utf16LeBom),
        1 => Just(Encoding::Utf16BeBom),
        1 => Just(Encoding::Utf16Le),
        1 => Just(Encoding::Latin1),
    ]
}

fn prologue() -> impl Strategy<Value = &'static str> {
    prop::sample::select(vec![
        "",
        "",
        "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n",
        "<?xml version=\"1.0\" encoding=\"koi8-r\"?>",
        "<!DOCTYPE feed [<!ENTITY a \"aaaaaaaaaa\"><!ENTITY b \"&a;&a;&a;&a;&a;\">]>",
        "<!-- a server's banner -->\n\n",
        "\u{feff}",
        "  \r\n\t",
    ])
}

/// An Atom feed or entry: a root the parsers accept, children generated.
fn atom_document() -> impl Strategy<Value = Vec<u8>> {
    (
        prologue(),
        prop::sample::select(vec!["feed", "entry", "atom:feed", "html"]),
        prop::collection::vec(node(), 0..10),
        encoding(),
    )
        .prop_map(|(prologue, root, children, encoding)| {
            let mut text = format!(
                "{prologue}<{root} {NAMESPACES} xmlns:atom=\"http://www.w3.org/2005/Atom\">"
            );
            for child in &children {
                write(child, &mut text);
            }
            text.push_str(&format!("</{root}>"));
            encode(&text, encoding)
        })
}

/// An OpenSearch description with generated `Url` elements among generated nodes.
fn open_search_document() -> impl Strategy<Value = Vec<u8>> {
    let url = (
        wild_value(),
        wild_value(),
        prop::collection::vec((attribute_name(), wild_value()), 0..3),
    )
        .prop_map(|(template, kind, more)| Node::Element {
            name: "Url".into(),
            attributes: [("template".to_owned(), template), ("type".to_owned(), kind)]
                .into_iter()
                .chain(more)
                .collect(),
            children: Vec::new(),
        });
    (
        prologue(),
        prop::collection::vec(prop_oneof![3 => url, 1 => node()], 0..6),
        encoding(),
    )
        .prop_map(|(prologue, children, encoding)| {
            let mut text = format!(
                "{prologue}<OpenSearchDescription xmlns=\"http://a9.com/-/spec/opensearch/1.1/\">"
            );
            for child in &children {
                write(child, &mut text);
            }
            text.push_str("</OpenSearchDescription>");
            encode(&text, encoding)
        })
}

/// Elements nested far deeper than any real document, closed or not.
fn deep_xml() -> impl Strategy<Value = Vec<u8>> {
    (
        prop::sample::select(vec!["entry", "link", "a", "feed", "author", "content"]),
        prop_oneof![1usize..400, 1usize..20_000],
        any::<bool>(),
    )
        .prop_map(|(name, depth, closed)| {
            let mut text = format!("<feed {NAMESPACES}>");
            text.push_str(&format!("<{name}>").repeat(depth));
            if closed {
                text.push_str(&format!("</{name}>").repeat(depth));
                text.push_str("</feed>");
            }
            text.into_bytes()
        })
}

// ----- generated OPDS 2 documents ----------------------------------------------------------

fn json_key() -> impl Strategy<Value = String> {
    prop_oneof![
        prop::sample::select(vec![
            "metadata",
            "title",
            "links",
            "href",
            "rel",
            "type",
            "templated",
            "properties",
            "numberOfItems",
            "numberOfPages",
            "pse:count",
            "count",
            "pse:lastRead",
            "lastRead",
            "publications",
            "navigation",
            "groups",
            "facets",
            "images",
            "readingOrder",
            "resources",
            "belongsTo",
            "series",
            "position",
            "author",
            "name",
            "identifier",
            "language",
            "modified",
            "description",
            "indirectAcquisition",
            "width",
            "height",
            "length",
            "@context",
        ])
        .prop_map(str::to_owned),
        "[a-zA-Z:]{1,10}",
    ]
}

fn json_value() -> impl Strategy<Value = Value> {
    let leaf = prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::from),
        any::<i64>().prop_map(Value::from),
        any::<u64>().prop_map(Value::from),
        any::<f64>().prop_map(|f| serde_json::Number::from_f64(f)
            .map(Value::Number)
            .unwrap_or(Value::Null)),
        wild_value().prop_map(Value::from),
    ];
    leaf.prop_recursive(5, 96, 8, |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..8).prop_map(Value::Array),
            prop::collection::btree_map(json_key(), inner, 0..8)
                .prop_map(|m| Value::Object(m.into_iter().collect())),
        ]
    })
}

/// A feed or a publication whose every place that matters holds a generated value, or a
/// generated value alone.
fn opds2_document() -> impl Strategy<Value = Vec<u8>> {
    (json_value(), json_value(), json_value(), 0u8..4).prop_map(|(a, b, c, shape)| {
        let doc = match shape {
            0 => json!({
                "metadata": { "title": "t", "numberOfItems": a.clone() },
                "links": [a, { "rel": "search", "href": b.clone(), "templated": true }],
                "navigation": [b.clone()],
                "publications": [
                    { "metadata": { "title": "p", "numberOfPages": c.clone() },
                      "links": [ { "rel": "http://vaemendis.net/opds-pse/stream", "type": "image/jpeg",
                                   "href": b.clone(), "properties": c.clone() }, c.clone() ],
                      "readingOrder": c.clone(), "images": b.clone() },
                    c
                ],
                "groups": [ { "metadata": { "title": "g" }, "publications": [b] } ]
            }),
            1 => json!({
                "metadata": a,
                "links": [ { "rel": "http://opds-spec.org/acquisition", "href": "/b.cbz", "type": "application/vnd.comicbook+zip" }, b ],
                "readingOrder": c
            }),
            2 => json!({ "metadata": { "title": "t" }, "publications": a, "navigation": b, "facets": c }),
            _ => a,
        };
        serde_json::to_vec(&doc).unwrap()
    })
}

/// Arrays and objects nested past serde_json's recursion limit.
fn deep_json() -> impl Strategy<Value = Vec<u8>> {
    (1usize..5_000, any::<bool>()).prop_map(|(depth, objects)| {
        let (open, close) = if objects {
            ("{\"metadata\":", "}")
        } else {
            ("[", "]")
        };
        format!("{}1{}", open.repeat(depth), close.repeat(depth)).into_bytes()
    })
}

fn seeds(of: &[&[u8]]) -> Vec<Vec<u8>> {
    of.iter().map(|s| s.to_vec()).collect()
}

#[test]
fn atom_feeds() {
    support::replay_then_fuzz(
        &ATOM,
        file!(),
        "generated",
        prop_oneof![
            6 => atom_document(),
            3 => support::mutated(seeds(SEEDS)),
            1 => deep_xml(),
            1 => support::noise(&[b"<", b"<?xml", b"\xFF\xFE<\0", b"<feed"]),
        ],
    );
}

#[test]
fn opds2_feeds() {
    support::replay_then_fuzz(
        &OPDS2,
        file!(),
        "generated",
        prop_oneof![
            6 => opds2_document(),
            3 => support::mutated(seeds(JSON_SEEDS)),
            1 => deep_json(),
            1 => support::noise(&[b"{", b"\xEF\xBB\xBF{", b"[", b"{\"metadata\":"]),
        ],
    );
}

#[test]
fn open_search_descriptions() {
    support::replay_then_fuzz(
        &OPEN_SEARCH,
        file!(),
        "generated",
        prop_oneof![
            3 => open_search_document(),
            1 => support::mutated(seeds(&[SEEDS[4]])),
        ],
    );
}
