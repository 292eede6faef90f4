//! Tests of OPDS 2 (JSON) reading through the module's public functions, on the sample
//! documents `src-tauri/core/tests/feeds/opds2_*.json` (written in the styles of Komga, Codex and Stump), plus
//! the malformed-input guarantees: wrong types, deep nesting, web pages, cut-off and mutated
//! documents.

use url::Url;

use super::*;
use crate::tests::{books, cuts, search_template, try_search, Mutations};

const KOMGA: &[u8] = include_bytes!("../../../core/tests/feeds/opds2_komga_catalog.json");
const CODEX: &[u8] = include_bytes!("../../../core/tests/feeds/opds2_codex_series.json");
const MANIFEST: &[u8] = include_bytes!("../../../core/tests/feeds/opds2_manifest_pages.json");
const STUMP: &[u8] = include_bytes!("../../../core/tests/feeds/opds2_stump_catalog.json");
const LOGIN_PAGE: &[u8] = include_bytes!("../../../core/tests/feeds/login_page.html");

const KOMGA_URL: &str = "https://komga.example.net/opds/v2/catalog";
const CODEX_URL: &str = "https://codex.example.org/opds/v2.0/s/12/2?orderBy=sort_name";
const MANIFEST_URL: &str = "https://stump.example.com/api/v1/media/7f3c/manifest";
const STUMP_URL: &str = "https://stump.example.com/opds/v2.0/catalog";

fn url(s: &str) -> Url {
    Url::parse(s).unwrap()
}

fn komga() -> Feed {
    parse_feed(KOMGA, &url(KOMGA_URL)).unwrap()
}

fn codex() -> Feed {
    parse_feed(CODEX, &url(CODEX_URL)).unwrap()
}

fn stump() -> Feed {
    parse_feed(STUMP, &url(STUMP_URL)).unwrap()
}

fn manifest() -> BookEntry {
    parse_publication(MANIFEST, &url(MANIFEST_URL)).unwrap()
}

/// Each entry as ("nav"/"book", title).
fn outline(feed: &Feed) -> Vec<(&'static str, &str)> {
    feed.entries
        .iter()
        .map(|e| match e {
            Entry::Navigation(n) => ("nav", n.title.as_str()),
            Entry::Book(b) => ("book", b.title.as_str()),
        })
        .collect()
}

fn nav<'f>(feed: &'f Feed, title: &str) -> &'f NavEntry {
    feed.entries
        .iter()
        .find_map(|e| match e {
            Entry::Navigation(n) if n.title == title => Some(n),
            _ => None,
        })
        .unwrap_or_else(|| panic!("no navigation entry {title:?}"))
}

// --- Komga-style: navigation, groups with PSE publications, facets, templated search -----------

#[test]
fn opds2_komga_feed_header_links_and_search() {
    let feed = komga();
    assert_eq!(feed.id.as_deref(), Some("urn:komga:catalog"));
    assert_eq!(feed.title, "Komga OPDS catalog");
    assert_eq!(feed.updated.as_deref(), Some("2025-02-11T19:22:03.118Z"));
    assert_eq!(feed.kind, FeedKind::Acquisition);
    assert_eq!(feed.links.start, Some(url(KOMGA_URL)));
    assert_eq!(feed.links.next, None);
    let template = search_template(&feed);
    assert_eq!(
        template.template,
        "https://komga.example.net/opds/v2/catalog/search{?query}"
    );
    assert_eq!(
        template.media_type.as_deref(),
        Some("application/opds+json")
    );
    assert_eq!(
        template.url_for("salt & pepper").unwrap().as_str(),
        "https://komga.example.net/opds/v2/catalog/search?query=salt%20%26%20pepper"
    );
}

#[test]
fn opds2_komga_groups_are_flattened_in_order() {
    let feed = komga();
    assert_eq!(
        outline(&feed),
        [
            ("nav", "All libraries"),
            ("nav", "Collections"),
            ("nav", "Read lists"),
            // The group with a self link leads to its complete list, then shows its sample.
            ("nav", "Keep Reading"),
            ("book", "Lighthouse Keepers #004"),
            ("book", "The Salt Road"),
            // No self link: only the items.
            ("nav", "Comics"),
            ("nav", "Manga"),
        ]
    );
    let keep_reading = nav(&feed, "Keep Reading");
    assert_eq!(
        keep_reading.href,
        url("https://komga.example.net/opds/v2/books/ondeck")
    );
    assert_eq!(
        keep_reading.id,
        "https://komga.example.net/opds/v2/books/ondeck"
    );
    assert_eq!(keep_reading.kind, FeedKind::Acquisition);
    let libraries = nav(&feed, "All libraries");
    assert_eq!(
        libraries.href,
        url("https://komga.example.net/opds/v2/libraries")
    );
    assert_eq!(libraries.kind, FeedKind::Unknown);
    assert_eq!(libraries.summary, None);
    assert_eq!(
        nav(&feed, "Manga").href,
        url("https://komga.example.net/opds/v2/libraries/0LIB2MANGA")
    );
}

#[test]
fn opds2_komga_publication_with_page_stream() {
    let feed = komga();
    let book = books(&feed)[0];
    assert_eq!(book.id, "urn:uuid:0f6ad3b4-1c8e-4f4a-9a51-6f0d2b0c7e14");
    assert_eq!(book.authors, ["Mara Okonkwo", "Jules Ferrand"]);
    assert_eq!(
        book.summary.as_deref(),
        Some("The storm reaches the rock.\n\nNobody sleeps & the lamp must burn.")
    );
    assert_eq!(book.series.as_deref(), Some("Lighthouse Keepers"));
    assert_eq!(book.series_index, Some(4.0));
    assert_eq!(book.language.as_deref(), Some("en"));
    assert_eq!(book.updated.as_deref(), Some("2025-01-30T08:12:55Z"));
    assert_eq!(
        book.alternate,
        Some(url("https://komga.example.net/opds/v2/books/0HS7QM3B8C1XD"))
    );
    // The largest image is the cover, the narrow one the thumbnail.
    assert_eq!(
        book.cover,
        Some(url(
            "https://komga.example.net/opds/v2/books/0HS7QM3B8C1XD/pages/1"
        ))
    );
    assert_eq!(
        book.thumbnail,
        Some(url(
            "https://komga.example.net/opds/v2/books/0HS7QM3B8C1XD/thumbnail"
        ))
    );
    // Declared as a plain zip; the link's title says comic.
    assert_eq!(book.acquisitions.len(), 1);
    assert_eq!(book.acquisitions[0].media_type, "application/zip");
    assert_eq!(
        book.acquisitions[0].href,
        url("https://komga.example.net/opds/v2/books/0HS7QM3B8C1XD/file")
    );
    assert_eq!(book.acquisitions[0].rel, "http://opds-spec.org/acquisition");
    assert_eq!(book.format, EntryFormat::Comic);
    assert!(book.page_list.is_empty());

    let stream = book.stream.as_ref().unwrap();
    assert_eq!(
        stream.template,
        "https://komga.example.net/opds/v1.2/books/0HS7QM3B8C1XD/pages/{pageNumber}?zero_based=true"
    );
    assert_eq!(stream.count, 30);
    assert_eq!(book.page_count(), Some(30));
    assert_eq!(stream.declared_type.as_deref(), Some("image/jpeg"));
    assert_eq!(stream.last_read, Some(11));
    assert_eq!(
        stream.last_read_date.as_deref(),
        Some("2025-01-30T08:12:55Z")
    );
    assert_eq!(stream.page_base_hint(), Some(PageBase::ZeroBased));
    assert_eq!(
        stream.page_text(29, PageBase::ZeroBased, None),
        "https://komga.example.net/opds/v1.2/books/0HS7QM3B8C1XD/pages/29?zero_based=true"
    );
}

#[test]
fn opds2_komga_epub_publication_and_dropped_items() {
    let feed = komga();
    let salt_road = books(&feed)[1];
    assert_eq!(salt_road.authors, ["Ada Quill"]);
    assert_eq!(salt_road.series.as_deref(), Some("Caravan Chronicles"));
    assert_eq!(salt_road.series_index, Some(2.0));
    assert_eq!(salt_road.language.as_deref(), Some("en"));
    assert_eq!(salt_road.updated.as_deref(), Some("2019-05-02"));
    assert_eq!(salt_road.format, EntryFormat::Epub);
    assert_eq!(salt_road.stream, None);
    assert_eq!(salt_road.page_count(), None);
    assert_eq!(
        salt_road.acquisitions[0].rel,
        "http://opds-spec.org/acquisition/open-access"
    );
    // A single unsized image is both.
    assert_eq!(salt_road.cover, salt_road.thumbnail);
    assert!(salt_road.cover.is_some());
    // The publication with only a self link and the string item are left out.
    assert_eq!(books(&feed).len(), 2);
}

#[test]
fn opds2_komga_facets() {
    let feed = komga();
    let facets: Vec<_> = feed
        .links
        .facets
        .iter()
        .map(|f| {
            (
                f.title.as_str(),
                f.group.as_deref(),
                f.active,
                f.count,
                f.href.as_str(),
            )
        })
        .collect();
    assert_eq!(
        facets,
        [
            (
                "Title",
                Some("Sort"),
                true,
                Some(214),
                "https://komga.example.net/opds/v2/catalog?sort=title"
            ),
            (
                "Date added",
                Some("Sort"),
                false,
                None,
                "https://komga.example.net/opds/v2/catalog?sort=added"
            ),
            (
                "Unread",
                Some("Read status"),
                false,
                Some(12),
                "https://komga.example.net/opds/v2/catalog?status=unread"
            ),
            (
                "In progress",
                Some("Read status"),
                false,
                Some(3),
                "https://komga.example.net/opds/v2/catalog?status=in_progress"
            ),
        ]
    );
}

// --- Codex-style: relative paging links, PSE counts in every spelling, bookmark parameter ------

#[test]
fn opds2_codex_paging_links_resolve_against_the_feed() {
    let feed = codex();
    assert_eq!(feed.title, "Harbor Lights");
    assert_eq!(feed.id, None);
    assert_eq!(feed.kind, FeedKind::Acquisition);
    assert_eq!(
        feed.links.first,
        Some(url(
            "https://codex.example.org/opds/v2.0/s/12/1?orderBy=sort_name"
        ))
    );
    assert_eq!(
        feed.links.previous,
        Some(url(
            "https://codex.example.org/opds/v2.0/s/12/1?orderBy=sort_name"
        ))
    );
    assert_eq!(
        feed.links.next,
        Some(url(
            "https://codex.example.org/opds/v2.0/s/12/3?orderBy=sort_name"
        ))
    );
    assert_eq!(
        feed.links.last,
        Some(url(
            "https://codex.example.org/opds/v2.0/s/12/18?orderBy=sort_name"
        ))
    );
    assert_eq!(
        feed.links.up,
        Some(url("https://codex.example.org/opds/v2.0/p/4/1"))
    );
    assert_eq!(
        feed.links.start,
        Some(url("https://codex.example.org/opds/v2.0/"))
    );
    assert_eq!(
        feed.links.search,
        Some(SearchLink::OpenSearchDescription {
            href: url("https://codex.example.org/opds/v1.2/opensearch/v1")
        })
    );
    let facets: Vec<_> = feed
        .links
        .facets
        .iter()
        .map(|f| (f.title.as_str(), f.active))
        .collect();
    assert_eq!(
        facets,
        [("Name", true), ("Date added", false)],
        "the javascript: facet is left out"
    );
    assert_eq!(
        feed.links.facets[1].href,
        url("https://codex.example.org/opds/v2.0/s/12/2?orderBy=created_at")
    );
}

#[test]
fn opds2_codex_streams_and_background_pages() {
    let feed = codex();
    assert_eq!(
        outline(&feed),
        [
            ("book", "Lumières du port n°4"),
            ("book", "Harbor Lights #4.5: Interlude"),
            ("book", "Harbor Lights #5"),
        ],
        "the stream without a page count (and nothing else) is left out"
    );
    let fourth = books(&feed)[0];
    // The language map follows the publication's language.
    assert_eq!(fourth.language.as_deref(), Some("fr"));
    assert_eq!(fourth.authors, ["Léa Marchetti"]);
    assert_eq!(
        fourth.summary.as_deref(),
        Some("The fourth crossing.\n\nFog everywhere.")
    );
    assert_eq!(
        fourth.id,
        "https://codex.example.org/opds/v1.2/c/88/download/Harbor%20Lights%20004.cbz"
    );
    assert_eq!(fourth.format, EntryFormat::Comic);
    assert_eq!(
        fourth.cover,
        Some(url("https://codex.example.org/opds/v1.2/c/88/cover.webp"))
    );
    let stream = fourth.stream.as_ref().unwrap();
    assert_eq!(stream.count, 24);
    assert_eq!(stream.last_read, Some(7));
    assert_eq!(
        stream.page_text(3, PageBase::ZeroBased, None),
        "https://codex.example.org/opds/v1.2/c/88/3/page.jpg?bookmark=1"
    );
    assert_eq!(
        stream.background_page_text(3, PageBase::ZeroBased, None),
        "https://codex.example.org/opds/v1.2/c/88/3/page.jpg"
    );

    let interlude = books(&feed)[1];
    assert_eq!(interlude.authors, ["Léa Marchetti", "Tomas Lind"]);
    assert_eq!(interlude.series.as_deref(), Some("Harbor Lights"));
    assert_eq!(interlude.series_index, None);
    assert!(interlude.acquisitions.is_empty());
    assert_eq!(interlude.format, EntryFormat::Comic);
    let stream = interlude.stream.as_ref().unwrap();
    assert_eq!(
        stream.template,
        "https://codex.example.org/opds/v1.2/c/89/{pageNumber}/page.jpg"
    );
    assert_eq!(stream.count, 18);
    assert_eq!(interlude.id, stream.template);

    // No count on the link: the publication's numberOfPages. No type: the title's extension.
    let fifth = books(&feed)[2];
    assert_eq!(fifth.stream.as_ref().unwrap().count, 26);
    assert_eq!(fifth.acquisitions[0].media_type, "application/pdf");
    assert_eq!(fifth.format, EntryFormat::Pdf);
}

// --- Stump-style catalog: navigation only, rel lists, templated search with extra variables ----

#[test]
fn opds2_stump_navigation_catalog() {
    let feed = stump();
    assert_eq!(feed.id.as_deref(), Some("stump-catalog-root"));
    assert_eq!(feed.kind, FeedKind::Navigation);
    assert_eq!(feed.links.start, Some(url(STUMP_URL)));
    assert_eq!(
        outline(&feed),
        [
            ("nav", "Libraries"),
            ("nav", "All series"),
            ("nav", "Latest books"),
            ("nav", "Book clubs"),
            ("nav", "Keep reading"),
            ("nav", "Shelves"),
            ("nav", "Winter reading"),
        ],
        "the templated navigation link is left out"
    );
    assert_eq!(nav(&feed, "Latest books").kind, FeedKind::Acquisition);
    assert_eq!(
        nav(&feed, "Book clubs").href,
        url("https://stump.example.com/opds/v2.0/book-clubs")
    );
    // An empty publications group still leads to books.
    assert_eq!(nav(&feed, "Keep reading").kind, FeedKind::Acquisition);
    assert_eq!(nav(&feed, "Shelves").kind, FeedKind::Navigation);
}

#[test]
fn opds2_stump_search_template_drops_unknown_variables() {
    let feed = stump();
    let template = search_template(&feed);
    // The web page's search form is not used.
    assert_eq!(
        template.template,
        "https://stump.example.com/opds/v2.0/catalog/search{?query,page}"
    );
    assert_eq!(
        template.url_for("  Astérix le Gaulois ").unwrap().as_str(),
        "https://stump.example.com/opds/v2.0/catalog/search?query=Ast%C3%A9rix%20le%20Gaulois"
    );
    assert_eq!(
        template.url_for(" ").unwrap_err(),
        OpdsError::Missing {
            what: "search terms"
        }
    );
}

// --- A manifest whose reading order is a list of images --------------------------------------

#[test]
fn opds2_manifest_with_image_reading_order_lists_its_pages() {
    let book = manifest();
    assert_eq!(book.id, "urn:isbn:9780000000019");
    assert_eq!(book.title, "Nachtveer");
    assert_eq!(book.language.as_deref(), Some("nl"));
    assert_eq!(book.authors, ["Pim de Wit"]);
    assert_eq!(book.updated.as_deref(), Some("2024-06-01"));
    assert_eq!(book.format, EntryFormat::Comic);
    assert!(book.acquisitions.is_empty());
    // No template to fill: the pages are listed, not streamed.
    assert_eq!(book.stream, None);
    assert_eq!(book.page_count(), Some(6));
    let pages: Vec<&str> = book.page_list.iter().map(Url::as_str).collect();
    assert_eq!(
        pages,
        [
            "https://stump.example.com/api/v1/media/7f3c/pages/1",
            "https://stump.example.com/api/v1/media/7f3c/pages/2",
            "https://stump.example.com/api/v1/media/7f3c/pages/3",
            "https://stump.example.com/api/v1/media/7f3c/pages/4.webp",
            "https://stump.example.com/api/v1/media/7f3c/pages/5",
            "https://stump.example.com/api/v1/media/7f3c/pages/6?token=abc",
        ]
    );
    assert_eq!(
        book.page_list_url(0).unwrap().as_str(),
        "https://stump.example.com/api/v1/media/7f3c/pages/1"
    );
    assert_eq!(
        book.page_list_url(6).unwrap_err(),
        OpdsError::PageOutOfRange { page: 6, count: 6 }
    );
    assert_eq!(
        book.cover,
        Some(url("https://stump.example.com/api/v1/media/7f3c/thumbnail"))
    );
    // Its self link is where it came from: no separate complete record.
    assert_eq!(book.alternate, None);

    // The same manifest through the entry reader.
    let Entry::Book(entry) = parse_entry(MANIFEST, &url(MANIFEST_URL)).unwrap() else {
        panic!()
    };
    assert_eq!(entry, book);
}

#[test]
fn opds2_reading_order_with_other_content_is_not_a_page_list() {
    let base = url("https://h.example/pub/manifest.json");
    let mixed = br#"{"metadata": {"title": "Mixed"},
        "readingOrder": [{"href": "c1.xhtml", "type": "application/xhtml+xml"}, {"href": "p1.jpg", "type": "image/jpeg"}]}"#;
    assert!(matches!(
        parse_publication(mixed, &base),
        Err(OpdsError::Missing { .. })
    ));
    let unknown =
        br#"{"metadata": {"title": "Unknown"}, "readingOrder": [{"href": "p1"}, {"href": "p2.png"}]}"#;
    assert!(matches!(
        parse_publication(unknown, &base),
        Err(OpdsError::Missing { .. })
    ));
    let hostile = br#"{"metadata": {"title": "Hostile"},
        "readingOrder": [{"href": "p1.png"}, {"href": "file:///etc/passwd", "type": "image/png"}]}"#;
    assert!(matches!(
        parse_publication(hostile, &base),
        Err(OpdsError::Missing { .. })
    ));
    // An EPUB offered for download still has its acquisition.
    let epub = br#"{"metadata": {"title": "Book"},
        "links": [{"rel": "http://opds-spec.org/acquisition", "href": "book.epub"}],
        "readingOrder": [{"href": "c1.xhtml", "type": "application/xhtml+xml"}]}"#;
    let book = parse_publication(epub, &base).unwrap();
    assert_eq!(book.format, EntryFormat::Epub);
    assert!(book.page_list.is_empty());
    assert_eq!(book.id, "https://h.example/pub/book.epub");
}

#[test]
fn opds2_indirect_acquisition_gives_the_final_format() {
    let doc = br#"{"metadata": {"title": "Loans"}, "publications": [{
        "metadata": {"title": "Borrowed", "identifier": "urn:loan:9"},
        "links": [{"rel": "http://opds-spec.org/acquisition/borrow", "href": "/loans/9",
                   "type": "application/opds-publication+json",
                   "properties": {"indirectAcquisition": [
                       {"type": "application/vnd.readium.lcp.license.v1.0+json",
                        "child": [{"type": "application/epub+zip"}]}]}}]}]}"#;
    let feed = parse_feed(doc, &url("https://lib.example/opds2/loans")).unwrap();
    let book = books(&feed)[0];
    assert_eq!(
        book.acquisitions[0].rel,
        "http://opds-spec.org/acquisition/borrow"
    );
    assert_eq!(
        book.acquisitions[0].media_type,
        "application/opds-publication+json"
    );
    assert_eq!(book.format, EntryFormat::Epub);
}

#[test]
fn opds2_documents_of_the_other_kind_are_refused() {
    let err = parse_feed(MANIFEST, &url(MANIFEST_URL)).unwrap_err();
    assert_eq!(
        err,
        OpdsError::NotAFeed("a single OPDS 2 publication, not a feed".into())
    );
    let err = parse_publication(KOMGA, &url(KOMGA_URL)).unwrap_err();
    assert!(
        matches!(err, OpdsError::NotAFeed(ref m) if m.contains("catalog feed")),
        "{err:?}"
    );
    assert!(matches!(
        parse_entry(KOMGA, &url(KOMGA_URL)),
        Err(OpdsError::NotAFeed(_))
    ));
}

#[test]
fn opds2_parse_publication_also_reads_atom_entries() {
    let doc = br#"<entry xmlns="http://www.w3.org/2005/Atom"><title>Winter Harbour</title><id>w</id>
        <link rel="http://opds-spec.org/acquisition" href="/d/16.epub" type="application/epub+zip"/></entry>"#;
    let book = parse_publication(doc, &url("http://nas.local/opds/entry/16")).unwrap();
    assert_eq!(book.title, "Winter Harbour");
    assert!(book.page_list.is_empty());
    let shelf = br#"<entry xmlns="http://www.w3.org/2005/Atom"><title>Shelf</title><id>s</id>
        <link rel="subsection" href="/shelves/4"/></entry>"#;
    assert!(matches!(
        parse_publication(shelf, &url("http://nas.local/opds/")),
        Err(OpdsError::NotAFeed(_))
    ));
}

// --- Empty and odd but valid feeds --------------------------------------------------------------

#[test]
fn opds2_empty_result_pages() {
    let base = url("https://h.example/opds/v2/search?query=zz");
    let empty_search =
        br#"{"metadata": {"title": "Search results"}, "links": [], "publications": []}"#;
    let feed = parse_feed(empty_search, &base).unwrap();
    assert_eq!(feed.kind, FeedKind::Acquisition);
    assert!(feed.entries.is_empty());
    // A server that leaves empty collections out.
    let links_only =
        br#"{"metadata": {"title": "Nothing"}, "links": [{"rel": "self", "href": ""}]}"#;
    let feed = parse_feed(links_only, &base).unwrap();
    assert_eq!(feed.kind, FeedKind::Unknown);
    assert_eq!(feed.title, "Nothing");
    // A byte order mark and blanks before the document.
    let mut with_bom = b"\xEF\xBB\xBF\r\n  ".to_vec();
    with_bom.extend_from_slice(empty_search);
    assert_eq!(
        parse_feed(&with_bom, &base).unwrap().title,
        "Search results"
    );
}

#[test]
fn opds2_wrong_types_inside_items_are_ignored() {
    let doc = br#"{"metadata": {"title": ["not", "text"], "identifier": 42},
        "links": [{"rel": "next", "href": 5}, {"rel": ["next", 3], "href": "?page=2", "templated": "yes"}, 17],
        "navigation": [{"href": 5, "title": "x"}, {"href": "/a", "title": {"en": "A"}, "rel": 7, "type": false}],
        "publications": [
            {"metadata": [], "links": []},
            {"metadata": {"title": "B", "author": 5, "belongsTo": "x", "language": {"en": 1}, "description": 3},
             "links": [{"rel": "http://opds-spec.org/acquisition", "href": "/b.epub", "properties": "x"},
                       {"rel": "http://vaemendis.net/opds-pse/stream", "href": "/p/{pageNumber}", "properties": {"pse:count": -3}}],
             "images": "none"},
            null, 3, "x", [], {}
        ]}"#;
    let feed = parse_feed(doc, &url("https://h.example/opds/v2/x")).unwrap();
    assert_eq!(feed.title, "");
    assert_eq!(feed.id, None);
    assert_eq!(
        feed.links.next,
        Some(url("https://h.example/opds/v2/x?page=2"))
    );
    assert_eq!(outline(&feed), [("nav", ""), ("book", "B")]);
    let b = books(&feed)[0];
    assert_eq!(b.stream, None);
    assert!(b.authors.is_empty());
    assert_eq!(
        (
            b.series.as_deref(),
            b.language.as_deref(),
            b.summary.as_deref()
        ),
        (None, None, None)
    );
    assert_eq!(b.format, EntryFormat::Epub);
}

// --- Malformed input ---------------------------------------------------------------------------

#[test]
fn opds2_wrong_types_at_the_top_are_errors() {
    let base = url("https://h.example/opds/v2/catalog");
    for (doc, what) in [
        (
            &br#"{"metadata": "Komga", "navigation": []}"#[..],
            "metadata is a string",
        ),
        (
            br#"{"metadata": [], "navigation": []}"#,
            "metadata is a list",
        ),
        (
            br#"{"metadata": {"title": "x"}, "publications": {"a": 1}}"#,
            "publications is an object",
        ),
        (
            br#"{"metadata": {}, "navigation": 3}"#,
            "navigation is a number",
        ),
        (
            br#"{"metadata": {}, "navigation": [], "links": "none"}"#,
            "links is a string",
        ),
        (
            br#"{"metadata": {}, "groups": true}"#,
            "groups is a true/false value",
        ),
        (
            br#"{"metadata": {}, "navigation": [], "facets": {}}"#,
            "facets is an object",
        ),
    ] {
        let err = parse_feed(doc, &base).unwrap_err();
        assert!(
            matches!(err, OpdsError::InvalidOpds2(ref m) if m.contains(what)),
            "{what}: {err:?}"
        );
    }
    let err =
        parse_publication(br#"{"metadata": {}, "readingOrder": "p1.jpg"}"#, &base).unwrap_err();
    assert!(matches!(err, OpdsError::InvalidOpds2(_)), "{err:?}");
    let err = parse_publication(br#"{"metadata": 1}"#, &base).unwrap_err();
    assert!(matches!(err, OpdsError::InvalidOpds2(_)), "{err:?}");
}

#[test]
fn opds2_deep_nesting_is_an_error_not_a_crash() {
    let base = url("https://h.example/opds/v2/catalog");
    for depth in [200, 100_000] {
        let mut doc = br#"{"metadata": {"title": "x"}, "navigation": "#.to_vec();
        doc.extend(std::iter::repeat_n(b'[', depth));
        doc.extend(std::iter::repeat_n(b']', depth));
        doc.push(b'}');
        let err = parse_feed(&doc, &base).unwrap_err();
        assert!(
            matches!(err, OpdsError::MalformedJson(ref m) if m.contains("nested too deeply")),
            "{err:?}"
        );

        let mut objects = Vec::new();
        for _ in 0..depth {
            objects.extend_from_slice(br#"{"metadata":"#);
        }
        objects.extend_from_slice(b"{}");
        objects.extend(std::iter::repeat_n(b'}', depth));
        assert!(matches!(
            parse_publication(&objects, &base),
            Err(OpdsError::MalformedJson(_))
        ));
    }
    // Nesting within the limit is read (each level of indirection is an object in a list).
    let mut chain = String::from(r#"{"type": "application/epub+zip"}"#);
    for _ in 0..55 {
        chain = format!(r#"{{"type": "application/x-wrapper", "child": [{chain}]}}"#);
    }
    let doc = format!(
        r#"{{"metadata": {{"title": "Deep"}}, "links": [{{"rel": "http://opds-spec.org/acquisition/buy",
            "href": "/buy/1", "type": "text/html", "properties": {{"indirectAcquisition": [{chain}]}}}}]}}"#
    );
    let book = parse_publication(doc.as_bytes(), &base).unwrap();
    assert_eq!(book.format, EntryFormat::Epub);
}

#[test]
fn opds2_web_pages_and_error_responses_are_reported() {
    let base = url("https://books.example.net/opds/v2/catalog");
    let expected = OpdsError::HtmlPage {
        title: Some("Sign in \u{b7} Home Gateway".into()),
    };
    assert_eq!(parse_feed(LOGIN_PAGE, &base).unwrap_err(), expected);
    assert_eq!(parse_publication(LOGIN_PAGE, &base).unwrap_err(), expected);

    let spring = br#"{"timestamp": "2025-03-02T10:00:00.000+00:00", "status": 401, "error": "Unauthorized", "path": "/opds/v2/catalog"}"#;
    let err = parse_feed(spring, &base).unwrap_err();
    assert_eq!(
        err,
        OpdsError::NotAFeed(
            "a JSON document that is not an OPDS 2 catalog (status 401: \u{201c}Unauthorized\u{201d})".into()
        )
    );
    assert!(err.to_string().contains("Unauthorized"), "{err}");
    let problem =
        br#"{"type": "about:blank", "title": "Forbidden", "detail": "API key revoked", "status": "403"}"#;
    let err = parse_publication(problem, &base).unwrap_err();
    assert!(
        matches!(err, OpdsError::NotAFeed(ref m) if m.contains("403") && m.contains("API key revoked")),
        "{err:?}"
    );
    assert!(matches!(
        parse_feed(b"{}", &base),
        Err(OpdsError::NotAFeed(_))
    ));
    assert!(matches!(
        parse_feed(br#"[{"metadata": {}}]"#, &base),
        Err(OpdsError::NotAFeed(_))
    ));
}

#[test]
fn opds2_broken_json_is_an_error() {
    let base = url("https://h.example/opds/v2/catalog");
    let cut = br#"{"metadata": {"title": "x"}, "navigation": ["#;
    let err = parse_feed(cut, &base).unwrap_err();
    assert!(
        matches!(err, OpdsError::MalformedJson(ref m) if m.contains("cut off")),
        "{err:?}"
    );
    let trailing = br#"{"metadata": {"title": "x"}, "navigation": []} <html>"#;
    assert!(matches!(
        parse_feed(trailing, &base),
        Err(OpdsError::MalformedJson(_))
    ));
    let single_quotes = br#"{'metadata': {}}"#;
    assert!(matches!(
        parse_feed(single_quotes, &base),
        Err(OpdsError::MalformedJson(_))
    ));
    let latin1 = b"{\"metadata\": {\"title\": \"Et\xe9\"}, \"navigation\": []}";
    assert_eq!(
        parse_feed(latin1, &base).unwrap_err(),
        OpdsError::Encoding("invalid UTF-8 at byte 26".into())
    );
    let mut bom_latin1 = b"\xEF\xBB\xBF".to_vec();
    bom_latin1.extend_from_slice(latin1);
    assert_eq!(
        parse_feed(&bom_latin1, &base).unwrap_err(),
        OpdsError::Encoding("invalid UTF-8 at byte 29".into())
    );

    let mut huge = b"{".to_vec();
    huge.resize(MAX_FEED_BYTES + 1, b' ');
    assert_eq!(
        parse_feed(&huge, &base).unwrap_err(),
        OpdsError::TooLarge {
            size: MAX_FEED_BYTES + 1,
            limit: MAX_FEED_BYTES
        }
    );
    assert_eq!(
        parse_publication(&huge, &base).unwrap_err(),
        OpdsError::TooLarge {
            size: MAX_FEED_BYTES + 1,
            limit: MAX_FEED_BYTES
        }
    );
}

#[test]
fn opds2_truncated_prefixes_never_panic() {
    let base = url("https://books.example.net/opds/v2/catalog");
    for doc in [KOMGA, CODEX, MANIFEST, STUMP] {
        for end in cuts(doc.len()) {
            let prefix = &doc[..end];
            // Only the complete document (give or take its final line break) parses.
            assert!(
                parse_feed(prefix, &base).is_err() || end + 2 > doc.len(),
                "cut at {end}"
            );
            assert!(
                parse_publication(prefix, &base).is_err() || end + 2 > doc.len(),
                "cut at {end}"
            );
            if end % 4 == 0 {
                let _ = parse_entry(prefix, &base);
            }
        }
    }
}

#[test]
fn opds2_mutated_documents_never_panic() {
    let mut mutations = Mutations::new(0x2545_F491_4F6C_DD1D, b"{}[]\":,\\ 0-9.e%?&/#\0\xff\xc3u");
    let base = url("https://books.example.net/opds/v2/catalog");
    for doc in [KOMGA, CODEX, MANIFEST, STUMP] {
        for _ in 0..1500 {
            let bytes = mutations.of(doc);
            if let Ok(feed) = parse_feed(&bytes, &base) {
                // Whatever survives must still be usable.
                for book in books(&feed) {
                    assert!(
                        !book.acquisitions.is_empty()
                            || book.stream.is_some()
                            || !book.page_list.is_empty()
                    );
                    exercise(book);
                }
                try_search(&feed);
            }
            if let Ok(book) = parse_publication(&bytes, &base) {
                exercise(&book);
            }
        }
    }
}

fn exercise(book: &BookEntry) {
    if let Some(stream) = &book.stream {
        let _ = stream.page_url(0, PageBase::OneBased, Some(800));
        let _ = stream.background_page_url(stream.count - 1, PageBase::ZeroBased, None);
    }
    if let Some(count) = book.page_count() {
        let _ = book.page_list_url(count.saturating_sub(1));
        let _ = book.page_list_url(count);
    }
}

// --- Serialisation -----------------------------------------------------------------------------

#[test]
fn opds2_types_round_trip_through_json() {
    for feed in [komga(), codex(), stump()] {
        let json = serde_json::to_string(&feed).unwrap();
        let back: Feed = serde_json::from_str(&json).unwrap();
        assert_eq!(back, feed);
    }
    let book = manifest();
    let json = serde_json::to_value(&book).unwrap();
    assert_eq!(
        json["page_list"][5],
        "https://stump.example.com/api/v1/media/7f3c/pages/6?token=abc"
    );
    let back: BookEntry = serde_json::from_value(json).unwrap();
    assert_eq!(back, book);

    // Books stored before the page list existed still read.
    let mut older = serde_json::to_value(books(&komga())[0]).unwrap();
    older.as_object_mut().unwrap().remove("page_list");
    let read: BookEntry = serde_json::from_value(older).unwrap();
    assert!(read.page_list.is_empty());
    assert_eq!(read.page_count(), Some(30));
}

#[test]
fn opds2_an_absurd_page_count_makes_the_book_not_streamable_with_a_reason() {
    let doc = br#"{"metadata":{"title":"t"},"links":[],"publications":[
      {"metadata":{"title":"Endless","identifier":"urn:endless","numberOfPages":4294967295},
       "links":[{"rel":"http://vaemendis.net/opds-pse/stream","type":"image/jpeg","href":"/p/1/{pageNumber}"}]},
      {"metadata":{"title":"Endless too","identifier":"urn:endless2"},
       "links":[{"rel":"http://vaemendis.net/opds-pse/stream","type":"image/jpeg","href":"/p/2/{pageNumber}","properties":{"pse:count":10001}}]}
    ]}"#;
    let feed = parse_feed(doc, &url("https://h/opds/v2")).unwrap();
    let books: Vec<&BookEntry> = feed
        .entries
        .iter()
        .filter_map(|e| match e {
            Entry::Book(b) => Some(b),
            _ => None,
        })
        .collect();
    assert_eq!(books.len(), 2, "kept, not dropped");
    for b in books {
        assert!(b.stream.is_none(), "{b:?}");
        let reason = b.not_streamable.as_deref().expect("a reason");
        assert!(
            reason.contains("pages") && reason.contains("10000"),
            "{reason}"
        );
    }
}
