//! Tests of the whole crate on sample documents in `src-tauri/core/tests/feeds/`, written in the styles of
//! the servers Carrel talks to, plus the malformed-input guarantees.

use carrel_foundation::error::Failure;
use url::Url;

use super::*;

const KOMGA: &[u8] = include_bytes!("../../../core/tests/feeds/komga_series.xml");
const KAVITA: &[u8] = include_bytes!("../../../core/tests/feeds/kavita_volume.xml");
const CALIBRE_WEB: &[u8] = include_bytes!("../../../core/tests/feeds/calibre_web_new.xml");
const STUMP: &[u8] = include_bytes!("../../../core/tests/feeds/stump_libraries.xml");
const LOGIN_PAGE: &[u8] = include_bytes!("../../../core/tests/feeds/login_page.html");
const CALIBRE_WEB_OSD: &[u8] = include_bytes!("../../../core/tests/feeds/calibre_web_osd.xml");

fn url(s: &str) -> Url {
    Url::parse(s).unwrap()
}

/// The feed's search template; the test fails when it has none.
pub(crate) fn search_template(feed: &Feed) -> &SearchTemplate {
    match &feed.links.search {
        Some(SearchLink::Template { template }) => template,
        other => panic!("expected a search template, got {other:?}"),
    }
}

/// Fills the feed's search template, when it has one: what survives a mutation must still be
/// usable.
pub(crate) fn try_search(feed: &Feed) {
    if let Some(SearchLink::Template { template }) = &feed.links.search {
        let _ = template.url_for("a b");
    }
}

/// The lengths a document of `len` bytes is cut to: every cut near the ends (a BOM, a
/// declaration, closing tags), every third in between — enough to land inside tags,
/// attributes, strings, numbers, escapes and multi-byte characters.
pub(crate) fn cuts(len: usize) -> impl Iterator<Item = usize> {
    let near_end = len.saturating_sub(300);
    (0..=len).filter(move |end| *end < 300 || *end >= near_end || end % 3 == 0)
}

/// Copies of documents with a few bytes replaced by `nasty` ones, from a small deterministic
/// generator (xorshift): the same mutations on every run for the same seed.
pub(crate) struct Mutations {
    state: u64,
    nasty: &'static [u8],
}

impl Mutations {
    pub(crate) fn new(seed: u64, nasty: &'static [u8]) -> Mutations {
        Mutations { state: seed, nasty }
    }

    fn next(&mut self) -> u64 {
        self.state ^= self.state << 13;
        self.state ^= self.state >> 7;
        self.state ^= self.state << 17;
        self.state
    }

    /// `doc` with one to four of its bytes replaced.
    pub(crate) fn of(&mut self, doc: &[u8]) -> Vec<u8> {
        let mut bytes = doc.to_vec();
        for _ in 0..1 + self.next() % 4 {
            let at = (self.next() % bytes.len() as u64) as usize;
            bytes[at] = self.nasty[(self.next() % self.nasty.len() as u64) as usize];
        }
        bytes
    }
}

/// The feed's book entries, in order.
pub(crate) fn books(feed: &Feed) -> Vec<&BookEntry> {
    feed.entries
        .iter()
        .filter_map(|e| match e {
            Entry::Book(b) => Some(b),
            Entry::Navigation(_) => None,
        })
        .collect()
}

fn navs(feed: &Feed) -> Vec<&NavEntry> {
    feed.entries
        .iter()
        .filter_map(|e| match e {
            Entry::Navigation(n) => Some(n),
            Entry::Book(_) => None,
        })
        .collect()
}

fn komga() -> Feed {
    parse_feed(
        KOMGA,
        &url("https://komga.example.net/opds/v1.2/series/0HS7QK1RY2ZQ4?page=0"),
    )
    .unwrap()
}

fn kavita() -> Feed {
    parse_feed(
        KAVITA,
        &url("https://kavita.example.org/api/opds/5c1f0e7a-demo-key/series/12/volume/34"),
    )
    .unwrap()
}

fn calibre_web() -> Feed {
    parse_feed(
        CALIBRE_WEB,
        &url("http://nas.local:8083/calibre/opds/new?offset=30"),
    )
    .unwrap()
}

// --- Komga-style: PSE with 0-based pages -------------------------------------------------

#[test]
fn opds_komga_feed_header_and_paging() {
    let feed = komga();
    assert_eq!(feed.id.as_deref(), Some("0HS7QK1RY2ZQ4"));
    assert_eq!(feed.title, "Lighthouse Keepers");
    assert_eq!(feed.kind, FeedKind::Acquisition);
    assert_eq!(
        feed.updated.as_deref(),
        Some("2024-11-02T18:04:11.512+01:00")
    );
    assert_eq!(
        feed.links.next,
        Some(url(
            "https://komga.example.net/opds/v1.2/series/0HS7QK1RY2ZQ4?page=1"
        ))
    );
    assert_eq!(
        feed.links.start,
        Some(url("https://komga.example.net/opds/v1.2/catalog"))
    );
    assert_eq!(feed.links.previous, None);
    assert_eq!(
        feed.links.search,
        Some(SearchLink::OpenSearchDescription {
            href: url("https://komga.example.net/opds/v1.2/search")
        })
    );
}

#[test]
fn opds_komga_books_stream_zero_based_pages() {
    let feed = komga();
    // The fourth entry has no pages and no download link: it is left out.
    assert_eq!(feed.entries.len(), 3);
    let first = books(&feed)[0];
    assert_eq!(first.id, "0HS7QM3B8C1XA");
    assert_eq!(first.title, "Lighthouse Keepers #001");
    assert_eq!(first.authors, ["Mara Okonkwo", "Jules Ferrand"]);
    assert_eq!(first.summary.as_deref(), Some("cbz - 41.2 MiB"));
    assert_eq!(
        first.cover,
        Some(url(
            "https://komga.example.net/opds/v1.2/books/0HS7QM3B8C1XA/pages/1"
        ))
    );
    assert_eq!(
        first.thumbnail,
        Some(url(
            "https://komga.example.net/opds/v1.2/books/0HS7QM3B8C1XA/thumbnail"
        ))
    );
    // Declared as a plain zip; the file name says comic.
    assert_eq!(first.acquisitions[0].media_type, "application/zip");
    assert_eq!(first.format, EntryFormat::Comic);

    let stream = first.stream.as_ref().unwrap();
    assert_eq!(
        stream.template,
        "https://komga.example.net/opds/v1.2/books/0HS7QM3B8C1XA/pages/{pageNumber}?zero_based=true"
    );
    assert_eq!(stream.count, 28);
    assert_eq!(stream.declared_type.as_deref(), Some("image/jpeg"));
    assert_eq!(stream.last_read, Some(12));
    assert_eq!(
        stream.last_read_date.as_deref(),
        Some("2024-10-31T08:12:55Z")
    );
    assert_eq!(stream.page_base_hint(), Some(PageBase::ZeroBased));
    assert_eq!(
        stream.page_text(0, PageBase::ZeroBased, None),
        "https://komga.example.net/opds/v1.2/books/0HS7QM3B8C1XA/pages/0?zero_based=true"
    );
    assert_eq!(
        stream.page_text(27, PageBase::ZeroBased, Some(1200)),
        "https://komga.example.net/opds/v1.2/books/0HS7QM3B8C1XA/pages/27?zero_based=true"
    );
    assert!(stream.page_url(28, PageBase::ZeroBased, None).is_err());
}

#[test]
fn opds_komga_encoded_braces_and_pdf_stream() {
    let feed = komga();
    let second = books(&feed)[1];
    let stream = second.stream.as_ref().unwrap();
    assert_eq!(
        stream.template,
        "https://komga.example.net/opds/v1.2/books/0HS7QM3B8C1XB/pages/{pageNumber}?zero_based=true"
    );
    assert_eq!(stream.declared_type.as_deref(), Some("image/png"));
    assert_eq!(
        stream
            .page_url(30, PageBase::ZeroBased, None)
            .unwrap()
            .path(),
        "/opds/v1.2/books/0HS7QM3B8C1XB/pages/30"
    );

    // A PDF that the server can also stream as images stays a PDF.
    let art_book = books(&feed)[2];
    assert_eq!(art_book.format, EntryFormat::Pdf);
    assert_eq!(
        art_book.stream.as_ref().unwrap().page_url(5, PageBase::ZeroBased, None).unwrap().as_str(),
        "https://komga.example.net/opds/v1.2/books/0HS7QM3B8C1XC/pages/5?zero_based=true&convert=jpeg"
    );
}

// --- Kavita-style: progress parameter, generated namespace prefix ---------------------------

#[test]
fn opds_kavita_feed_is_acquisition_despite_its_self_link() {
    let feed = kavita();
    assert_eq!(feed.kind, FeedKind::Acquisition);
    assert_eq!(feed.title, "Harbor Lights - Volume 2");
    assert_eq!(
        feed.links.up,
        Some(url(
            "https://kavita.example.org/api/opds/5c1f0e7a-demo-key/series/12"
        ))
    );
    let continue_reading = navs(&feed)[0];
    assert_eq!(continue_reading.title, "Continue Reading from Chapter 7");
    assert_eq!(continue_reading.kind, FeedKind::Acquisition);
    assert_eq!(
        continue_reading.href,
        url("https://kavita.example.org/api/opds/5c1f0e7a-demo-key/series/12/volume/34?continueReading=true")
    );
    assert_eq!(
        continue_reading.thumbnail,
        Some(url("https://kavita.example.org/api/image/series-cover?seriesId=12&apiKey=5c1f0e7a-demo-key"))
    );
    assert_eq!(books(&feed).len(), 2);
}

#[test]
fn opds_kavita_stream_reads_prefixed_attributes() {
    let feed = kavita();
    let chapter = books(&feed)[0];
    assert_eq!(chapter.id, "501");
    assert_eq!(chapter.language.as_deref(), Some("en"));
    assert_eq!(chapter.format, EntryFormat::Comic);
    assert_eq!(
        chapter.acquisitions[0].rel,
        "http://opds-spec.org/acquisition/open-access"
    );
    let stream = chapter.stream.as_ref().unwrap();
    assert_eq!(stream.count, 26);
    assert_eq!(stream.last_read, Some(3));
    assert_eq!(
        stream.last_read_date.as_deref(),
        Some("2024-11-30T22:41:09.5520000Z")
    );
    assert_eq!(stream.page_base_hint(), Some(PageBase::ZeroBased));
    assert_eq!(books(&feed)[1].format, EntryFormat::Comic);
    assert_eq!(books(&feed)[1].stream.as_ref().unwrap().last_read, None);
}

#[test]
fn opds_kavita_background_pages_do_not_move_the_bookmark() {
    let feed = kavita();
    let stream = books(&feed)[0].stream.clone().unwrap();
    let reading = stream.page_url(4, PageBase::ZeroBased, None).unwrap();
    assert_eq!(
        reading.as_str(),
        "https://kavita.example.org/api/opds/5c1f0e7a-demo-key/image?libraryId=2&seriesId=12&volumeId=34&chapterId=501&pageNumber=4&saveProgress=true"
    );
    let background = stream
        .background_page_url(4, PageBase::ZeroBased, None)
        .unwrap();
    assert_eq!(
        background.as_str(),
        "https://kavita.example.org/api/opds/5c1f0e7a-demo-key/image?libraryId=2&seriesId=12&volumeId=34&chapterId=501&pageNumber=4&saveProgress=false"
    );
    // Stripping a fetched URL removes the parameter; the rest stays byte for byte.
    assert_eq!(
        strip_bookmark_params(&reading).as_str(),
        "https://kavita.example.org/api/opds/5c1f0e7a-demo-key/image?libraryId=2&seriesId=12&volumeId=34&chapterId=501&pageNumber=4"
    );
}

// --- Calibre-Web-style: no PSE, relative hrefs, lengths, EPUB/PDF ---------------------------

#[test]
fn opds_calibre_web_relative_links_and_paging() {
    let feed = calibre_web();
    assert_eq!(feed.title, "Family Library");
    // The self link says navigation; the books say otherwise.
    assert_eq!(feed.kind, FeedKind::Acquisition);
    assert_eq!(
        feed.links.next,
        Some(url("http://nas.local:8083/calibre/opds/new?offset=60"))
    );
    assert_eq!(
        feed.links.previous,
        Some(url("http://nas.local:8083/calibre/opds/new?offset=0"))
    );
    assert_eq!(
        feed.links.first,
        Some(url("http://nas.local:8083/calibre/opds/new"))
    );
    assert_eq!(
        feed.links.start,
        Some(url("http://nas.local:8083/calibre/opds/"))
    );
    assert_eq!(feed.links.last, None);
}

#[test]
fn opds_calibre_web_prefers_the_direct_search_template() {
    let feed = calibre_web();
    let template = search_template(&feed);
    assert_eq!(
        template.template,
        "http://nas.local:8083/calibre/opds/search/{searchTerms}"
    );
    assert_eq!(
        template.url_for("salt & pepper").unwrap().as_str(),
        "http://nas.local:8083/calibre/opds/search/salt%20%26%20pepper"
    );
}

#[test]
fn opds_calibre_web_books_with_lengths_series_and_formats() {
    let feed = calibre_web();
    // The entry with only a link to its complete record is left out.
    assert_eq!(feed.entries.len(), 3);
    let salt_road = books(&feed)[0];
    assert_eq!(
        salt_road.id,
        "urn:uuid:0b6f6a4e-7d0e-4b61-9d55-3f0c8a1e2b11"
    );
    assert_eq!(salt_road.authors, ["Ada Quill", "Benedikt Sauer"]);
    assert_eq!(salt_road.language.as_deref(), Some("eng"));
    assert_eq!(salt_road.series.as_deref(), Some("Caravan Chronicles"));
    assert_eq!(salt_road.series_index, Some(2.0));
    assert_eq!(
        salt_road.summary.as_deref(),
        Some("Two merchants cross the desert\nwith a cargo nobody may open.")
    );
    assert_eq!(salt_road.format, EntryFormat::Epub);
    assert_eq!(salt_road.stream, None);
    assert_eq!(
        salt_road.cover,
        Some(url("http://nas.local:8083/calibre/opds/cover/14"))
    );
    assert_eq!(
        salt_road.thumbnail,
        Some(url(
            "http://nas.local:8083/calibre/opds/cover/14?size=thumb"
        ))
    );
    let acquisitions: Vec<_> = salt_road
        .acquisitions
        .iter()
        .map(|a| (a.href.as_str(), a.media_type.as_str(), a.length))
        .collect();
    assert_eq!(
        acquisitions,
        [
            (
                "http://nas.local:8083/calibre/opds/download/14/epub/",
                "application/epub+zip",
                Some(1_843_302)
            ),
            (
                "http://nas.local:8083/calibre/opds/download/14/pdf/",
                "application/pdf",
                Some(5_120_944)
            ),
            (
                "http://nas.local:8083/calibre/opds/download/14/mobi/",
                "application/x-mobipocket-ebook",
                None
            ),
        ]
    );
}

#[test]
fn opds_calibre_web_html_summary_stanza_covers_and_partial_entry() {
    let feed = calibre_web();
    let moss = books(&feed)[1];
    assert_eq!(moss.format, EntryFormat::Pdf);
    assert_eq!(moss.language.as_deref(), Some("deu"));
    assert_eq!(
        moss.summary.as_deref(),
        Some("A field guide for damp forests.\n\nSecond edition & revised.")
    );
    assert_eq!(
        moss.cover,
        Some(url("http://nas.local:8083/calibre/opds/cover/15"))
    );
    assert_eq!(
        moss.thumbnail,
        Some(url(
            "http://nas.local:8083/calibre/opds/cover/15?size=thumb"
        ))
    );

    let partial = books(&feed)[2];
    assert_eq!(
        partial.alternate,
        Some(url("http://nas.local:8083/calibre/opds/entry/16"))
    );
    assert_eq!(
        partial.acquisitions[0].href,
        url("http://nas.local:8083/calibre/opds/download/16/epub/")
    );
}

// --- Codex/Stump-style navigation: prefixes, xml:base, facets, OpenSearch ---------------------

#[test]
fn opds_stump_navigation_respects_xml_base_and_prefixes() {
    // Fetched through another URL; the document's xml:base wins for its relative links.
    let feed = parse_feed(STUMP, &url("https://proxy.example.com/feeds/libraries")).unwrap();
    assert_eq!(feed.title, "Libraries");
    assert_eq!(feed.kind, FeedKind::Navigation);
    let entries = navs(&feed);
    assert_eq!(feed.entries.len(), 3, "the entry without links is left out");
    assert_eq!(entries[0].title, "Comics");
    assert_eq!(entries[0].summary.as_deref(), Some("148 series"));
    assert_eq!(entries[0].kind, FeedKind::Navigation);
    assert_eq!(
        entries[0].href,
        url("https://comics.example.com/opds/v1.2/libraries/7d7d5b0e-1c55-4d3e-9f62-2b8a9c0e1f01")
    );
    assert_eq!(
        entries[1].href,
        url("https://comics.example.com/opds/v1.2/libraries/a3f2c1d0-5e6f-4a7b-8c9d-0e1f2a3b4c5d")
    );
    assert_eq!(
        entries[1].thumbnail,
        Some(url(
            "https://comics.example.com/opds/v1.2/libraries/a3f2c1d0-5e6f-4a7b-8c9d-0e1f2a3b4c5d/thumbnail"
        ))
    );
    assert_eq!(
        entries[2].href,
        url("https://comics.example.com/opds/v1.2/books/latest")
    );
    assert_eq!(entries[2].kind, FeedKind::Acquisition);
    assert_eq!(
        feed.links.last,
        Some(url("https://comics.example.com/opds/v1.2/libraries?page=2"))
    );
}

#[test]
fn opds_stump_facets_and_open_search_link() {
    let feed = parse_feed(
        STUMP,
        &url("https://comics.example.com/opds/v1.2/libraries?page=0"),
    )
    .unwrap();
    let facets: Vec<_> = feed
        .links
        .facets
        .iter()
        .map(|f| (f.title.as_str(), f.group.as_deref(), f.active, f.count))
        .collect();
    assert_eq!(
        facets,
        [
            ("Name", Some("Order by"), true, None),
            ("Date added", Some("Order by"), false, None),
            ("Unread", Some("Read status"), false, Some(12)),
            ("All", Some("Read status"), true, Some(148)),
        ]
    );
    assert_eq!(
        feed.links.facets[1].href,
        url("https://comics.example.com/opds/v1.2/libraries?order=added")
    );
    assert_eq!(
        feed.links.search,
        Some(SearchLink::OpenSearchDescription {
            href: url("https://comics.example.com/opds/v1.2/opensearch.xml")
        })
    );
}

// --- OpenSearch ----------------------------------------------------------------------------

#[test]
fn opds_open_search_picks_the_catalog_template() {
    let template = parse_open_search(
        CALIBRE_WEB_OSD,
        &url("http://nas.local:8083/calibre/opds/osd"),
    )
    .unwrap();
    assert_eq!(
        template.template,
        "http://nas.local:8083/calibre/opds/search?query={searchTerms}&offset={startIndex?}&lang={language?}"
    );
    assert_eq!(template.index_offset, 0);
    assert_eq!(
        template.url_for("moss & lichen").unwrap().as_str(),
        "http://nas.local:8083/calibre/opds/search?query=moss%20%26%20lichen"
    );
}

// --- Things that are not feeds ---------------------------------------------------------------

#[test]
fn opds_login_page_is_reported_as_a_web_page() {
    let base = url("https://books.example.net/opds/v1.2/catalog");
    let expected = OpdsError::HtmlPage {
        title: Some("Sign in \u{b7} Home Gateway".into()),
    };
    assert_eq!(parse_feed(LOGIN_PAGE, &base).unwrap_err(), expected);
    assert_eq!(parse_open_search(LOGIN_PAGE, &base).unwrap_err(), expected);
    assert!(expected.to_string().contains("login page"), "{expected}");

    // Well-formed XHTML gets the same answer.
    let xhtml = br#"<?xml version="1.0"?><html xmlns="http://www.w3.org/1999/xhtml"><head><title>503</title></head><body/></html>"#;
    assert_eq!(
        parse_feed(xhtml, &base).unwrap_err(),
        OpdsError::HtmlPage {
            title: Some("503".into())
        }
    );
}

#[test]
fn opds_empty_oversized_and_foreign_documents_are_errors() {
    let base = url("https://books.example.net/opds");
    assert_eq!(parse_feed(b"", &base).unwrap_err(), OpdsError::Empty);
    assert_eq!(parse_feed(b" \r\n\t", &base).unwrap_err(), OpdsError::Empty);
    assert_eq!(
        parse_feed(b"\xEF\xBB\xBF", &base).unwrap_err(),
        OpdsError::Empty
    );

    let huge = vec![b' '; MAX_FEED_BYTES + 1];
    assert_eq!(
        parse_feed(&huge, &base).unwrap_err(),
        OpdsError::TooLarge {
            size: MAX_FEED_BYTES + 1,
            limit: MAX_FEED_BYTES
        }
    );

    assert!(matches!(
        parse_feed(CALIBRE_WEB_OSD, &base),
        Err(OpdsError::NotAFeed(_))
    ));
    let rss = br#"<rss version="2.0"><channel><title>x</title></channel></rss>"#;
    assert_eq!(
        parse_feed(rss, &base).unwrap_err(),
        OpdsError::NotAFeed("an RSS feed".into())
    );
    let entry_doc = br#"<entry xmlns="http://www.w3.org/2005/Atom"><title>x</title></entry>"#;
    assert!(matches!(
        parse_feed(entry_doc, &base),
        Err(OpdsError::NotAFeed(_))
    ));
    assert!(matches!(
        parse_feed(br#"{"metadata":{"title":"OPDS 2"}}"#, &base),
        Err(OpdsError::NotAFeed(_))
    ));
}

#[test]
fn opds_malformed_xml_is_an_error() {
    let base = url("https://books.example.net/opds");
    let cut = &KOMGA[..KOMGA.len() / 2];
    assert!(matches!(
        parse_feed(cut, &base),
        Err(OpdsError::MalformedXml(_))
    ));
    let unescaped =
        br#"<feed xmlns="http://www.w3.org/2005/Atom"><link rel="next" href="/a?x=1&y=2"/></feed>"#;
    assert!(matches!(
        parse_feed(unescaped, &base),
        Err(OpdsError::MalformedXml(_))
    ));
}

#[test]
fn opds_truncated_prefixes_never_panic() {
    let base = url("https://books.example.net/opds/v1.2/catalog");
    for doc in [
        KOMGA,
        KAVITA,
        CALIBRE_WEB,
        STUMP,
        LOGIN_PAGE,
        CALIBRE_WEB_OSD,
    ] {
        for end in cuts(doc.len()) {
            let prefix = &doc[..end];
            assert!(parse_feed(prefix, &base).is_err() || end + 20 > doc.len());
            if end % 4 == 0 {
                let _ = parse_entry(prefix, &base);
                let _ = parse_open_search(prefix, &base);
            }
        }
    }
}

#[test]
fn opds_mutated_feeds_never_panic() {
    let mut mutations = Mutations::new(0x9E37_79B9_7F4A_7C15, b"<>&;\"'{}%?#/=:\\ \0\xff\xc3x7B");
    let base = url("https://books.example.net/opds/v1.2/catalog");
    for doc in [KOMGA, KAVITA, CALIBRE_WEB, STUMP, CALIBRE_WEB_OSD] {
        for _ in 0..1500 {
            let bytes = mutations.of(doc);
            if let Ok(feed) = parse_feed(&bytes, &base) {
                // Whatever survives must still be usable.
                for book in books(&feed) {
                    assert!(!book.acquisitions.is_empty() || book.stream.is_some());
                    if let Some(stream) = &book.stream {
                        let _ = stream.page_url(0, PageBase::OneBased, Some(800));
                        let _ =
                            stream.background_page_url(stream.count - 1, PageBase::ZeroBased, None);
                    }
                }
                try_search(&feed);
            }
            if let Ok(template) = parse_open_search(&bytes, &base) {
                let _ = template.url_for("x");
            }
        }
    }
}

// --- Small rules -----------------------------------------------------------------------------

#[test]
fn opds_entries_without_a_way_in_are_never_books() {
    let base = url("https://books.example.net/opds/recent");
    let doc = br#"<feed xmlns="http://www.w3.org/2005/Atom"><title>Recent</title>
      <entry><title>Hostile</title><id>a</id>
        <link rel="http://opds-spec.org/acquisition" href="javascript:alert(1)" type="application/epub+zip"/>
        <link rel="http://vaemendis.net/opds-pse/stream" href="/p/{pageNumber}"/>
      </entry>
      <entry><title>Stream without page number</title><id>b</id>
        <link rel="http://vaemendis.net/opds-pse/stream" href="/p/1" xmlns:pse="http://vaemendis.net/opds-pse/ns" pse:count="3"/>
      </entry>
      <entry><title>Shelf</title><id>c</id>
        <link rel="subsection" href="shelves/4"/>
      </entry>
    </feed>"#;
    let feed = parse_feed(doc, &base).unwrap();
    assert_eq!(feed.entries.len(), 1);
    assert_eq!(feed.kind, FeedKind::Navigation);
    let Entry::Navigation(shelf) = &feed.entries[0] else {
        panic!()
    };
    assert_eq!(shelf.href, url("https://books.example.net/opds/shelves/4"));
    assert_eq!(shelf.kind, FeedKind::Unknown);
}

#[test]
fn opds_navigation_kind_from_a_sibling_link() {
    // Older Calibre-Web: the kind is on a rel-less link, the subsection link has plain Atom.
    let doc = br#"<feed xmlns="http://www.w3.org/2005/Atom"><title>Authors</title>
      <entry><title>Ada Quill</title><id>/opds/author/3</id>
        <link type="application/atom+xml;profile=opds-catalog;type=feed;kind=acquisition" href="/opds/author/3"/>
        <link type="application/atom+xml" href="/opds/author/3" rel="subsection"/>
      </entry></feed>"#;
    let feed = parse_feed(doc, &url("http://nas.local/opds/author")).unwrap();
    let Entry::Navigation(author) = &feed.entries[0] else {
        panic!()
    };
    assert_eq!(author.kind, FeedKind::Acquisition);
    assert_eq!(author.id, "/opds/author/3");
}

#[test]
fn opds_lenient_about_missing_namespace_ids_and_titles() {
    let doc = br#"<feed><entry>
        <link rel="http://opds-spec.org/acquisition" href="/files/9.cbz"/>
        <link rel="http://opds-spec.org/acquisition/sample" href="/files/9-preview.epub" type="application/epub+zip"/>
      </entry></feed>"#;
    let feed = parse_feed(doc, &url("https://h.example/opds")).unwrap();
    assert_eq!(feed.title, "");
    let book = books(&feed)[0];
    assert_eq!(book.id, "https://h.example/files/9.cbz");
    assert_eq!(book.title, "");
    assert_eq!(
        book.acquisitions[0].media_type,
        "application/vnd.comicbook+zip"
    );
    assert_eq!(book.format, EntryFormat::Comic);
}

#[test]
fn opds_other_formats_and_indirect_acquisition() {
    let doc = br#"<feed xmlns="http://www.w3.org/2005/Atom" xmlns:opds="http://opds-spec.org/2010/catalog">
      <title>x</title>
      <entry><title>Mobi only</title><id>m</id>
        <link rel="http://opds-spec.org/acquisition" href="/d/1" type="application/x-mobipocket-ebook"/>
      </entry>
      <entry><title>Wrapped</title><id>w</id>
        <link rel="http://opds-spec.org/acquisition/borrow" href="/d/2" type="application/atom+xml;type=entry">
          <opds:indirectAcquisition type="application/vnd.adobe.adept+xml">
            <opds:indirectAcquisition type="application/epub+zip"/>
          </opds:indirectAcquisition>
        </link>
      </entry></feed>"#;
    let feed = parse_feed(doc, &url("https://h.example/opds")).unwrap();
    assert_eq!(
        books(&feed)[0].format,
        EntryFormat::Other("application/x-mobipocket-ebook".into())
    );
    assert_eq!(books(&feed)[1].format, EntryFormat::Epub);
}

#[test]
fn opds_calibre_series_line_in_content() {
    let doc = br#"<feed xmlns="http://www.w3.org/2005/Atom"><title>x</title>
      <entry><title>Book</title><id>c</id>
        <content type="xhtml"><div xmlns="http://www.w3.org/1999/xhtml">RATING: &#9733;&#9733;<br/>SERIES: The Long Tide [3.5]<br/></div></content>
        <link rel="http://opds-spec.org/acquisition" href="/get/epub/3" type="application/epub+zip"/>
      </entry></feed>"#;
    let feed = parse_feed(doc, &url("https://h.example/opds")).unwrap();
    let book = books(&feed)[0];
    assert_eq!(book.series.as_deref(), Some("The Long Tide"));
    assert_eq!(book.series_index, Some(3.5));
}

#[test]
fn opds_parse_entry_reads_a_complete_entry() {
    let doc = br#"<?xml version="1.0" encoding="UTF-8"?>
      <entry xmlns="http://www.w3.org/2005/Atom" xmlns:dc="http://purl.org/dc/terms/">
        <title>Winter Harbour</title>
        <id>urn:uuid:9a7e0f13-6b2c-4e3f-a1d8-c4b5e6f70812</id>
        <author><name>Ada Quill</name></author>
        <dc:creator>Ada Quill</dc:creator>
        <dc:creator>Tomas Lind</dc:creator>
        <content type="text">A long winter.</content>
        <link rel="http://opds-spec.org/acquisition" href="../download/16/epub/" type="application/epub+zip" length="220034"/>
      </entry>"#;
    let entry = parse_entry(doc, &url("http://nas.local:8083/calibre/opds/entry/16")).unwrap();
    let Entry::Book(book) = entry else { panic!() };
    assert_eq!(book.authors, ["Ada Quill", "Tomas Lind"]);
    assert_eq!(book.summary.as_deref(), Some("A long winter."));
    assert_eq!(
        book.acquisitions[0].href,
        url("http://nas.local:8083/calibre/opds/download/16/epub/")
    );
    assert_eq!(book.acquisitions[0].length, Some(220_034));

    let empty = br#"<entry xmlns="http://www.w3.org/2005/Atom"><title>x</title></entry>"#;
    assert!(matches!(
        parse_entry(empty, &url("http://h/")),
        Err(OpdsError::Missing { .. })
    ));
}

#[test]
fn opds_types_round_trip_through_json() {
    for feed in [komga(), kavita(), calibre_web()] {
        let json = serde_json::to_string(&feed).unwrap();
        let back: Feed = serde_json::from_str(&json).unwrap();
        assert_eq!(back, feed);
    }
    let json = serde_json::to_value(&komga().links.search).unwrap();
    assert_eq!(
        json,
        serde_json::json!({"kind": "open_search_description", "href": "https://komga.example.net/opds/v1.2/search"})
    );
}

#[test]
fn opds_error_kinds() {
    use carrel_foundation::error::ErrorKind;
    assert_eq!(
        OpdsError::PageOutOfRange { page: 3, count: 2 }.kind(),
        ErrorKind::InvalidInput
    );
    assert_eq!(OpdsError::Empty.kind(), ErrorKind::Server);
    assert_eq!(
        OpdsError::TooLarge {
            size: 20,
            limit: 10
        }
        .to_string(),
        "the response is too large (20 bytes; at most 10 are accepted)"
    );
}

#[test]
fn opds_an_absurd_page_count_makes_the_book_not_streamable_with_a_reason() {
    let doc = br#"<feed xmlns="http://www.w3.org/2005/Atom" xmlns:pse="http://vaemendis.net/opds-pse/ns">
      <title>t</title><id>f</id>
      <entry><title>Endless</title><id>urn:endless</id>
        <link rel="http://vaemendis.net/opds-pse/stream" type="image/jpeg" href="/p/1/{pageNumber}" pse:count="4294967295"/>
      </entry>
      <entry><title>Long</title><id>urn:long</id>
        <link rel="http://vaemendis.net/opds-pse/stream" type="image/jpeg" href="/p/2/{pageNumber}" pse:count="10000"/>
      </entry>
    </feed>"#;
    let feed = parse_feed(doc, &url("http://h/opds")).unwrap();
    let b = books(&feed);
    assert_eq!(
        b.len(),
        2,
        "the book with an absurd count is kept, not dropped"
    );
    assert!(b[0].stream.is_none() && b[0].page_count().is_none());
    let reason = b[0].not_streamable.as_deref().expect("a reason");
    assert!(
        reason.contains("4294967295") && reason.contains("10000"),
        "{reason}"
    );
    assert_eq!(b[1].page_count(), Some(MAX_PAGE_COUNT));
    assert!(b[1].not_streamable.is_none());
}
