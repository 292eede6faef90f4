//! Property tests of the parsers against hostile input at scale: arbitrary bytes, real feeds
//! cut and mutated, generated Atom and OPDS 2 documents with wild attribute values, and URL
//! templates with every kind of brace. Each property must hold without a panic; parsed page
//! counts stay within [`MAX_PAGE_COUNT`] and expanded URLs stay proportionate to their input.
//! Thousands of cases in all, a few seconds per property (more under `make fuzz`; the parsers'
//! public side is fuzzed at scale by the `fuzz` test binary, `src-tauri/core/tests/fuzz/`).

use proptest::prelude::*;
use url::Url;

use super::*;

const SAMPLES: &[&[u8]] = &[
    include_bytes!("../../../core/tests/feeds/komga_series.xml"),
    include_bytes!("../../../core/tests/feeds/kavita_volume.xml"),
    include_bytes!("../../../core/tests/feeds/calibre_web_new.xml"),
    include_bytes!("../../../core/tests/feeds/stump_libraries.xml"),
    include_bytes!("../../../core/tests/feeds/calibre_web_osd.xml"),
    include_bytes!("../../../core/tests/feeds/opds2_komga_catalog.json"),
    include_bytes!("../../../core/tests/feeds/opds2_codex_series.json"),
    include_bytes!("../../../core/tests/feeds/opds2_manifest_pages.json"),
    include_bytes!("../../../core/tests/feeds/opds2_stump_catalog.json"),
];

fn base() -> Url {
    Url::parse("https://books.example.org/opds/v1.2/catalog?page=1").unwrap()
}

/// `cases`, or as many as `CARREL_FUZZ_CASES` asks (`make fuzz` asks for 100,000).
fn config(cases: u32) -> ProptestConfig {
    let cases = std::env::var("CARREL_FUZZ_CASES")
        .ok()
        .and_then(|v| v.trim().parse().ok())
        .unwrap_or(cases);
    ProptestConfig {
        cases,
        failure_persistence: None,
        ..ProptestConfig::default()
    }
}

/// Everything a parse yields must respect the limits.
fn check_feed(feed: &Feed) {
    for entry in &feed.entries {
        if let Entry::Book(book) = entry {
            check_book(book);
        }
    }
}

fn check_book(book: &BookEntry) {
    if let Some(count) = book.page_count() {
        if book.stream.is_some() {
            assert!(
                count <= MAX_PAGE_COUNT,
                "a page count of {count} got through"
            );
        }
    }
    if let Some(stream) = &book.stream {
        assert!(stream.count >= 1 && stream.count <= MAX_PAGE_COUNT);
        // Filling the template for the last page works and stays proportionate.
        let last = stream.count - 1;
        if let Ok(url) = stream.page_url(last, PageBase::ZeroBased, Some(1600)) {
            assert!(
                url.as_str().len() <= stream.template.len() * 4 + 64,
                "{url}"
            );
        }
    }
}

/// Values a hostile server might put in an attribute.
fn wild_value() -> impl Strategy<Value = String> {
    prop_oneof![
        13 => prop::sample::select(vec![
            "4294967295", "99999999999999999999", "-1", "1e308", "NaN", "10001",
            "{pageNumber}", "{?query,page*}{#x}{+y}{/z:3}", "{{{{", "%7BpageNumber%7D",
            "javascript:alert(1)", "//evil.example/{pageNumber}", "data:image/png;base64,AAAA",
        ])
        .prop_map(str::to_owned),
        1 => (0u32..20_000).prop_map(|n| n.to_string()),
        1 => "[ -~]{0,40}",
        1 => "\\PC{0,20}",
    ]
}

fn xml_escape(s: &str) -> String {
    s.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('"', "&quot;")
}

prop_compose! {
    fn atom_entry()(
        href in wild_value(),
        count in wild_value(),
        last_read in wild_value(),
        length in wild_value(),
        acq in wild_value(),
        rel in prop_oneof![Just("http://vaemendis.net/opds-pse/stream"), Just("http://opds-spec.org/acquisition"), Just("subsection"), Just("http://opds-spec.org/image")],
        kind in prop_oneof![Just("image/jpeg"), Just("application/epub+zip"), Just("application/atom+xml;profile=opds-catalog"), Just("")],
    ) -> String {
        format!(
            "<entry><title>{t}</title><id>{t}</id>\
             <link rel=\"http://vaemendis.net/opds-pse/stream\" type=\"image/jpeg\" href=\"{h}\" pse:count=\"{c}\" pse:lastRead=\"{l}\"/>\
             <link rel=\"{rel}\" type=\"{kind}\" href=\"{a}\" length=\"{len}\"/></entry>",
            t = xml_escape(&acq),
            h = xml_escape(&href),
            c = xml_escape(&count),
            l = xml_escape(&last_read),
            a = xml_escape(&acq),
            len = xml_escape(&length),
        )
    }
}

fn json_value() -> impl Strategy<Value = serde_json::Value> {
    use serde_json::{json, Value};
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
    leaf.prop_recursive(4, 48, 6, |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..6).prop_map(Value::Array),
            prop::collection::btree_map(
                prop_oneof![
                    11 => prop::sample::select(vec![
                        "href", "rel", "type", "properties", "pse:count", "count",
                        "numberOfPages", "links", "metadata", "readingOrder", "templated",
                    ])
                    .prop_map(str::to_owned),
                    1 => "[a-z]{1,8}",
                ],
                inner,
                0..6,
            )
            .prop_map(|m| Value::Object(m.into_iter().collect())),
        ]
    })
    .prop_map(|v| {
        // Wrapped as a feed whose publications carry the value in every place that matters.
        json!({
            "metadata": { "title": "t" },
            "links": [v.clone()],
            "navigation": [v.clone()],
            "publications": [
                { "metadata": { "title": "p", "numberOfPages": v.clone() },
                  "links": [ { "rel": "http://vaemendis.net/opds-pse/stream", "type": "image/jpeg",
                               "href": "/p/{pageNumber}", "properties": v.clone() }, v.clone() ],
                  "readingOrder": v.clone() },
                v
            ]
        })
    })
}

proptest! {
    #![proptest_config(config(3000))]

    #[test]
    fn arbitrary_bytes_never_panic(bytes in prop::collection::vec(any::<u8>(), 0..2048)) {
        let _ = parse_feed(&bytes, &base());
        let _ = parse_entry(&bytes, &base());
        let _ = parse_publication(&bytes, &base());
        let _ = parse_open_search(&bytes, &base());
    }

    #[test]
    fn real_feeds_cut_and_mutated_never_panic(
        sample in 0..SAMPLES.len(),
        cut in any::<prop::sample::Index>(),
        flips in prop::collection::vec((any::<prop::sample::Index>(), any::<u8>()), 0..12),
    ) {
        let mut bytes = SAMPLES[sample].to_vec();
        for (at, value) in flips {
            let i = at.index(bytes.len());
            bytes[i] = value;
        }
        bytes.truncate(cut.index(bytes.len() + 1));
        if let Ok(feed) = parse_feed(&bytes, &base()) {
            check_feed(&feed);
        }
        let _ = parse_open_search(&bytes, &base());
    }
}

proptest! {
    #![proptest_config(config(2000))]

    #[test]
    fn generated_atom_feeds_respect_the_limits(entries in prop::collection::vec(atom_entry(), 1..6)) {
        let doc = format!(
            "<feed xmlns=\"http://www.w3.org/2005/Atom\" xmlns:pse=\"http://vaemendis.net/opds-pse/ns\"><title>t</title><id>f</id>{}</feed>",
            entries.concat()
        );
        if let Ok(feed) = parse_feed(doc.as_bytes(), &base()) {
            check_feed(&feed);
        }
    }

    #[test]
    fn generated_opds2_feeds_respect_the_limits(doc in json_value()) {
        let bytes = serde_json::to_vec(&doc).unwrap();
        if let Ok(feed) = parse_feed(&bytes, &base()) {
            check_feed(&feed);
        }
        if let Ok(book) = parse_publication(&bytes, &base()) {
            check_book(&book);
        }
    }

    #[test]
    fn search_templates_expand_without_panic_and_in_proportion(
        href in prop_oneof![wild_value(), "[ -~]{0,80}", Just("/search?q={searchTerms}&p={startPage?}&x={count}".to_owned())],
        media_type in prop_oneof![Just(None), Just(Some("application/atom+xml".to_owned())), Just(Some("text/html".to_owned())), "[ -~]{0,20}".prop_map(Some)],
        query in "\\PC{0,60}",
    ) {
        if let Ok(template) = SearchTemplate::new(&href, &base(), media_type.as_deref()) {
            if let Ok(url) = template.url_for(&query) {
                let budget = (href.len() + base().as_str().len()) * 2 + query.len() * 12 * 8 + 256;
                prop_assert!(url.as_str().len() <= budget, "{} from {href:?}", url.as_str().len());
            }
        }
    }

    #[test]
    fn page_templates_resolve_without_panic(href in prop_oneof![wild_value(), "[ -~]{0,80}"], page in any::<u32>()) {
        if let Ok(template) = url_template::resolve_template(&href, &base(), &["pageNumber", "maxWidth"]) {
            let filled = url_template::fill_slots(&template, |_, _| Some(page.to_string()));
            prop_assert!(filled.len() <= template.len() * 11 + 16);
            let _ = url_template::expand_expressions(&template, |_| Some("x".repeat(3)));
            let _ = url_template::split_template(&template);
        }
    }
}
