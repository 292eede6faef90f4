//! The OPDS catalog: navigation, acquisition feeds, PSE links, search and the generated files.

use std::collections::BTreeMap;
use std::io::{Cursor, Read};

use fixture_server::{BookKind, Config};

use crate::common::*;

const NAV_TYPE: &str = "application/atom+xml;profile=opds-catalog;kind=navigation";
const ACQ_TYPE: &str = "application/atom+xml;profile=opds-catalog;kind=acquisition";

#[tokio::test]
async fn root_feed_is_navigation_with_search_and_two_levels() {
    let server = start(small_config());
    let (status, headers, body) = get_text(&server.url("/opds")).await;
    assert_eq!(status, 200);
    assert_eq!(header(&headers, "content-type"), Some(NAV_TYPE));
    let doc = roxmltree::Document::parse(&body).expect("root feed is well-formed XML");
    let feed = doc.root_element();
    assert!(feed.has_tag_name((ATOM, "feed")));
    let all = links(feed);
    assert!(
        all.contains(&("self".into(), "/opds".into(), NAV_TYPE.into())),
        "{all:?}"
    );
    assert!(all
        .iter()
        .any(|(rel, href, _)| rel == "start" && href == "/opds"));
    assert!(all.contains(&(
        "search".into(),
        "/opds/search.xml".into(),
        "application/opensearchdescription+xml".into()
    )));

    let subsections: BTreeMap<String, String> = entries(&doc)
        .into_iter()
        .map(|e| {
            let (_, href, kind) = links(e)
                .into_iter()
                .find(|(r, _, _)| r == "subsection")
                .expect("subsection link");
            (href, kind)
        })
        .collect();
    for (path, kind) in [
        ("/opds/books", ACQ_TYPE),
        ("/opds/comics", ACQ_TYPE),
        ("/opds/ebooks", ACQ_TYPE),
        ("/opds/series", NAV_TYPE),
    ] {
        assert_eq!(
            subsections.get(path).map(String::as_str),
            Some(kind),
            "{path}"
        );
    }

    // The OpenSearch description points at the search feed.
    let (status, headers, body) = get_text(&server.url("/opds/search.xml")).await;
    assert_eq!(status, 200);
    assert_eq!(
        header(&headers, "content-type"),
        Some("application/opensearchdescription+xml")
    );
    let os = roxmltree::Document::parse(&body).unwrap();
    let url = os
        .descendants()
        .find(|n| n.has_tag_name(("http://a9.com/-/spec/opensearch/1.1/", "Url")))
        .expect("Url element");
    assert_eq!(
        url.attribute("template"),
        Some("/opds/search?q={searchTerms}")
    );

    // Series: navigation, then one acquisition feed per series.
    let (_, _, body) = get_text(&server.url("/opds/series")).await;
    let series_doc = roxmltree::Document::parse(&body).unwrap();
    let series_entries = entries(&series_doc);
    assert!(series_entries.len() >= 2, "expected several series");
    let mut seen_books = 0;
    for entry in series_entries {
        let name = child_text(entry, "title").unwrap();
        let href = link_href(entry, "subsection").unwrap();
        assert!(href.starts_with("/opds/series/"), "{href}");
        let (status, headers, body) = get_text(&server.url(&href)).await;
        assert_eq!(status, 200);
        assert_eq!(header(&headers, "content-type"), Some(ACQ_TYPE));
        let doc = roxmltree::Document::parse(&body).unwrap();
        for book in entries(&doc) {
            let title = child_text(book, "title").unwrap();
            assert!(title.starts_with(&name), "{title} is not in {name}");
            seen_books += 1;
        }
    }
    assert_eq!(seen_books, 12, "every book is in exactly one series");
}

#[tokio::test]
async fn acquisition_feeds_page_with_next_and_previous() {
    let server = start(Config {
        books: 45,
        ..small_config()
    });
    let mut href = Some("/opds/books".to_string());
    let mut ids = Vec::new();
    let mut non_book_entries = 0;
    let mut pages = Vec::new();
    while let Some(h) = href.take() {
        let (status, headers, body) = get_text(&server.url(&h)).await;
        assert_eq!(status, 200, "{h}");
        assert_eq!(header(&headers, "content-type"), Some(ACQ_TYPE));
        let doc = roxmltree::Document::parse(&body).unwrap();
        let feed = doc.root_element();
        pages.push((
            h.clone(),
            link_href(feed, "previous"),
            link_href(feed, "next"),
        ));
        for e in entries(&doc) {
            let id = child_text(e, "id").unwrap();
            match id.strip_prefix("urn:carrel-fixture:book:") {
                Some(n) => ids.push(n.parse::<u32>().unwrap()),
                None => {
                    // A navigation-only entry: no acquisition link at all.
                    assert!(links(e)
                        .iter()
                        .all(|(rel, _, _)| !rel.contains("acquisition")));
                    non_book_entries += 1;
                }
            }
        }
        href = link_href(feed, "next");
    }
    assert_eq!(pages.len(), 3, "{pages:?}");
    assert_eq!(
        pages[0],
        (
            "/opds/books".into(),
            None,
            Some("/opds/books?page=2".into())
        )
    );
    assert_eq!(
        pages[1],
        (
            "/opds/books?page=2".into(),
            Some("/opds/books".into()),
            Some("/opds/books?page=3".into())
        )
    );
    assert_eq!(
        pages[2],
        (
            "/opds/books?page=3".into(),
            Some("/opds/books?page=2".into()),
            None
        )
    );
    assert_eq!(ids, (1..=45).collect::<Vec<_>>());
    assert_eq!(non_book_entries, 1);

    assert_eq!(get_text(&server.url("/opds/books?page=4")).await.0, 404);
    assert_eq!(get_text(&server.url("/opds/books?page=zero")).await.0, 400);
    assert_eq!(get_text(&server.url("/opds/series/99")).await.0, 404);
}

#[tokio::test]
async fn entries_carry_acquisition_image_and_pse_links() {
    let server = start(Config {
        comic_pages: BTreeMap::from([(1, 60)]),
        reading_positions: Some(BTreeMap::new()),
        ..small_config()
    });
    let (_, _, body) = get_text(&server.url("/opds/books")).await;
    let doc = roxmltree::Document::parse(&body).unwrap();

    let comic = book_entry(&doc, 1).expect("book 1 listed");
    assert!(child_text(comic, "title").unwrap().ends_with("#1"));
    assert!(comic.children().any(|n| n.has_tag_name((ATOM, "author"))));
    assert!(child_text(comic, "updated").is_some());
    let l = links(comic);
    let acq = comic
        .children()
        .find(|n| n.attribute("rel") == Some("http://opds-spec.org/acquisition"))
        .unwrap();
    assert_eq!(acq.attribute("type"), Some("application/vnd.comicbook+zip"));
    assert_eq!(acq.attribute("href"), Some("/books/1/file"));
    let length: usize = acq.attribute("length").unwrap().parse().unwrap();
    assert_eq!(length, server.book_bytes(1).unwrap().len());
    assert!(l.contains(&(
        "http://opds-spec.org/image".into(),
        "/books/1/cover".into(),
        "image/png".into()
    )));
    assert!(l.contains(&(
        "http://opds-spec.org/image/thumbnail".into(),
        "/books/1/thumbnail".into(),
        "image/png".into()
    )));
    assert!(l.contains(&(
        "http://opds-spec.org/progression".into(),
        "/books/1/progression".into(),
        "application/vnd.readium.progression+json".into()
    )));
    let stream = comic
        .children()
        .find(|n| n.attribute("rel") == Some("http://vaemendis.net/opds-pse/stream"))
        .expect("PSE link");
    assert_eq!(stream.attribute("type"), Some("image/jpeg"));
    assert_eq!(
        stream.attribute("href"),
        Some("/books/1/pages/{pageNumber}?maxWidth={maxWidth}")
    );
    assert_eq!(stream.attribute((PSE, "count")), Some("60"));
    assert_eq!(stream.attribute((PSE, "lastRead")), None);

    // The last of 60 pages exists, the one after it does not.
    assert_eq!(get_bytes(&server.url("/books/1/pages/59")).await.0, 200);
    assert_eq!(get_bytes(&server.url("/books/1/pages/60")).await.0, 404);
    assert_eq!(get_bytes(&server.url("/books/1/pages/x")).await.0, 404);

    let epub = book_entry(&doc, 3).expect("book 3 listed");
    let acq = epub
        .children()
        .find(|n| n.attribute("rel") == Some("http://opds-spec.org/acquisition"))
        .unwrap();
    assert_eq!(acq.attribute("type"), Some("application/epub+zip"));
    assert!(links(epub)
        .iter()
        .all(|(rel, _, _)| !rel.contains("opds-pse")));
    assert_eq!(get_bytes(&server.url("/books/3/pages/0")).await.0, 404);
}

#[tokio::test]
async fn a_cover_may_be_the_first_page() {
    for (one_based, first) in [(false, "/books/1/pages/0"), (true, "/books/1/pages/1")] {
        let server = start(Config {
            behavior: fixture_server::Behavior {
                cover_is_first_page: true,
                one_based_pages: one_based,
                ..Default::default()
            },
            ..small_config()
        });
        let (_, _, body) = get_text(&server.url("/opds/books")).await;
        let doc = roxmltree::Document::parse(&body).unwrap();
        let comic = links(book_entry(&doc, 1).expect("book 1 listed"));
        for rel in [
            "http://opds-spec.org/image",
            "http://opds-spec.org/image/thumbnail",
        ] {
            assert!(
                comic.contains(&(rel.into(), first.into(), "image/png".into())),
                "{rel}: {comic:?}"
            );
        }
        let (status, _, page) = get_bytes(&server.url(first)).await;
        assert_eq!(status, 200);
        assert_eq!(Some(page), server.page_bytes(1, 0));
        // An EPUB streams no page: its cover stays its own.
        let epub = links(book_entry(&doc, 3).expect("book 3 listed"));
        assert!(epub.contains(&(
            "http://opds-spec.org/image".into(),
            "/books/3/cover".into(),
            "image/png".into()
        )));
    }
}

#[tokio::test]
async fn search_matches_title_and_author_case_insensitively() {
    let server = start(small_config());
    let books = server.books();
    let salt = books
        .iter()
        .find(|b| b.series == "Salt & Cinder")
        .expect("a Salt & Cinder book");

    let (status, headers, body) = get_text(&server.url("/opds/search?q=SALT+%26+cinder")).await;
    assert_eq!(status, 200);
    assert_eq!(header(&headers, "content-type"), Some(ACQ_TYPE));
    let doc = roxmltree::Document::parse(&body).unwrap();
    let titles: Vec<String> = entries(&doc)
        .iter()
        .map(|e| child_text(*e, "title").unwrap())
        .collect();
    let expected: Vec<String> = books
        .iter()
        .filter(|b| b.title.to_lowercase().contains("salt & cinder"))
        .map(|b| b.title.clone())
        .collect();
    assert!(titles.contains(&salt.title));
    assert_eq!(titles, expected);

    let author = books[0].author.clone();
    let (_, _, body) = get_text(&server.url(&format!(
        "/opds/search?q={}",
        author.to_uppercase().replace(' ', "+")
    )))
    .await;
    let doc = roxmltree::Document::parse(&body).unwrap();
    let found = entries(&doc).len();
    assert_eq!(found, books.iter().filter(|b| b.author == author).count());
    assert!(found >= 1);

    let (_, _, body) = get_text(&server.url("/opds/search?q=no-such-words")).await;
    assert!(entries(&roxmltree::Document::parse(&body).unwrap()).is_empty());
}

#[tokio::test]
async fn pages_are_png_declared_as_jpeg() {
    let server = start(small_config());
    let (status, headers, page0) = get_bytes(&server.url("/books/1/pages/0?maxWidth=800")).await;
    assert_eq!(status, 200);
    assert_eq!(header(&headers, "content-type"), Some("image/jpeg"));
    assert_eq!(
        header(&headers, "content-length"),
        Some(page0.len().to_string().as_str())
    );
    assert_eq!(&page0[..8], b"\x89PNG\r\n\x1a\n");
    assert_eq!(page0, server.page_bytes(1, 0).unwrap());
    let (_, _, page1) = get_bytes(&server.url("/books/1/pages/1")).await;
    assert_ne!(page0, page1);

    // A real image, about the configured size.
    let mut reader = png::Decoder::new(Cursor::new(&page0[..]))
        .read_info()
        .expect("valid PNG");
    let mut pixels = vec![0; reader.output_buffer_size().unwrap()];
    let info = reader.next_frame(&mut pixels).expect("PNG decodes");
    assert!(info.width >= 16 && info.height > info.width);
    assert!((5_000..8_000).contains(&page0.len()), "{}", page0.len());

    for path in ["/books/1/cover", "/books/1/thumbnail", "/books/3/cover"] {
        let (status, headers, bytes) = get_bytes(&server.url(path)).await;
        assert_eq!(status, 200, "{path}");
        assert_eq!(header(&headers, "content-type"), Some("image/png"));
        png::Decoder::new(Cursor::new(&bytes[..]))
            .read_info()
            .expect("valid PNG");
    }
}

#[tokio::test]
async fn cbz_and_epub_are_real_archives() {
    let server = start(small_config());
    let info = server.book(1).unwrap();
    assert_eq!(info.kind, BookKind::Comic);
    let (status, headers, cbz) = get_bytes(&server.url("/books/1/file")).await;
    assert_eq!(status, 200);
    assert_eq!(
        header(&headers, "content-type"),
        Some("application/vnd.comicbook+zip")
    );
    assert!(header(&headers, "content-disposition")
        .unwrap()
        .starts_with("attachment; filename="));
    assert_eq!(cbz, server.book_bytes(1).unwrap());
    let mut zip = zip::ZipArchive::new(Cursor::new(cbz)).expect("CBZ is a zip");
    let names: Vec<String> = zip.file_names().map(str::to_string).collect();
    let pngs: Vec<&String> = names.iter().filter(|n| n.ends_with(".png")).collect();
    assert_eq!(pngs.len() as u32, info.pages);
    for i in 0..info.pages {
        let name = format!("{:03}.png", i + 1);
        let mut data = Vec::new();
        zip.by_name(&name).unwrap().read_to_end(&mut data).unwrap();
        assert_eq!(data, server.page_bytes(1, i).unwrap(), "{name}");
    }
    assert_eq!(
        zip.by_index(0).unwrap().name(),
        "001.png",
        "pages come first, in order"
    );

    let (_, headers, epub) = get_bytes(&server.url("/books/3/file")).await;
    assert_eq!(
        header(&headers, "content-type"),
        Some("application/epub+zip")
    );
    let mut zip = zip::ZipArchive::new(Cursor::new(epub)).expect("EPUB is a zip");
    {
        let mut first = zip.by_index(0).unwrap();
        assert_eq!(first.name(), "mimetype");
        assert_eq!(first.compression(), zip::CompressionMethod::Stored);
        let mut text = String::new();
        first.read_to_string(&mut text).unwrap();
        assert_eq!(text, "application/epub+zip");
    }
    let mut container = String::new();
    zip.by_name("META-INF/container.xml")
        .unwrap()
        .read_to_string(&mut container)
        .unwrap();
    let doc = roxmltree::Document::parse(&container).unwrap();
    let opf_path = doc
        .descendants()
        .find(|n| n.has_tag_name("rootfile"))
        .and_then(|n| n.attribute("full-path"))
        .unwrap()
        .to_string();
    let mut opf = String::new();
    zip.by_name(&opf_path)
        .unwrap()
        .read_to_string(&mut opf)
        .unwrap();
    let opf_doc = roxmltree::Document::parse(&opf).expect("OPF is XML");
    let spine = opf_doc
        .descendants()
        .filter(|n| n.has_tag_name("itemref"))
        .count();
    assert!(spine >= 3);
    for item in opf_doc.descendants().filter(|n| n.has_tag_name("item")) {
        let href = format!("OEBPS/{}", item.attribute("href").unwrap());
        let mut data = Vec::new();
        zip.by_name(&href).unwrap().read_to_end(&mut data).unwrap();
        if href.ends_with(".xhtml") {
            let options = roxmltree::ParsingOptions {
                allow_dtd: true,
                ..Default::default()
            };
            roxmltree::Document::parse_with_options(std::str::from_utf8(&data).unwrap(), options)
                .expect("chapter is XML");
        }
    }
}

#[tokio::test]
async fn content_is_stable_for_a_seed() {
    let a = start(Config {
        seed: 42,
        ..small_config()
    });
    let b = start(Config {
        seed: 42,
        ..small_config()
    });
    let c = start(Config {
        seed: 43,
        ..small_config()
    });
    for id in [1, 3] {
        let served = get_bytes(&a.url(&format!("/books/{id}/file"))).await.2;
        assert_eq!(
            served,
            b.book_bytes(id).unwrap(),
            "book {id} differs between runs"
        );
        assert_eq!(a.book(id).unwrap().etag, b.book(id).unwrap().etag);
    }
    assert_eq!(
        a.books().iter().map(|x| &x.title).collect::<Vec<_>>(),
        b.books().iter().map(|x| &x.title).collect::<Vec<_>>()
    );
    assert_ne!(a.page_bytes(1, 0), c.page_bytes(1, 0));
    assert_ne!(a.book_bytes(1), c.book_bytes(1));
}

#[tokio::test]
async fn missing_and_gone_books() {
    let server = start(Config {
        gone: [2].into(),
        ..small_config()
    });
    assert_eq!(get_bytes(&server.url("/books/2/file")).await.0, 410);
    assert_eq!(get_bytes(&server.url("/books/2/pages/0")).await.0, 410);
    assert_eq!(get_bytes(&server.url("/books/99/file")).await.0, 404);
    assert_eq!(get_bytes(&server.url("/books/0/file")).await.0, 404);
    assert_eq!(get_bytes(&server.url("/books/abc/file")).await.0, 404);
    assert_eq!(get_bytes(&server.url("/books/1/nothing")).await.0, 404);
    assert_eq!(get_bytes(&server.url("/nowhere")).await.0, 404);

    let c = client();
    assert_eq!(
        status_of(c.post(server.url("/_control/restore/2"))).await,
        200
    );
    assert_eq!(get_bytes(&server.url("/books/2/file")).await.0, 200);
    assert!(server.set_gone(1, true));
    assert_eq!(get_bytes(&server.url("/books/1/cover")).await.0, 410);
    assert!(!server.set_gone(77, true));

    let posted = c.post(server.url("/opds")).send().await.unwrap();
    assert_eq!(posted.status(), 405);
}
