//! Series feeds: the feed of one series that some servers give instead of naming the series in
//! each book's entry. Codex (OPDS 1.2 and 2.0) and Komga's OPDS 1.2 list a series' books at
//! `…/series/<id>` under the feed's title — the series' name — and in series order, while the
//! entries themselves carry neither the series nor a number (Codex puts "#1" only in a title,
//! which is not read). A book seen in such a feed belongs to that series, and its place in the
//! feed stands for the number its entry does not give.
//!
//! Recognised only where the server is known to mean it (nothing is guessed from other
//! servers' paths):
//! - Codex: `…/opds/v1.2/series/<pks>` in a feed Codex signs as its `generator`, or
//!   `…/opds/v2.0/series/<pks>` (Codex's OPDS 2 path; `pks` are numbers, comma-separated when
//!   Codex merges same-named series). Its OPDS 1.2 title is "All " and the series' name (Codex's
//!   `views/opds/v1/feed.py`, `title`: a parent name that is never set, so "All"); its 2.0 title
//!   is the name. Codex sorts a feed by the order last asked for by any of the account's OPDS
//!   clients (it keeps `orderBy` and `orderReverse` as the account's OPDS settings): only a feed
//!   whose address asks for its default sort (`orderBy=sort_name`, which for issues is the
//!   issue number, and `orderReverse=false`) is in series order. So that the feeds the reader
//!   opens are, [`SeriesLinks::address`] gives the links to Codex's series feeds in a Codex feed that
//!   address, unless the link chose an order itself (Codex's own sort links).
//! - Komga: `…/opds/v1.2/series/<id>` in a feed Komga signs as its author, always sorted by
//!   the books' numbers (`metadata.numberSort`). Komga's OPDS 2 names the series in each
//!   publication (`belongsTo`), which the entry's own metadata already gives.
//!
//! Pages of a feed are in order: `?page=` (Codex counts from 1, Komga from 0; either way a
//! later page comes after) places a page's books after those of the pages before it.
//!
//! Owns no table: what a feed says is written by `book_view::remember_feed_series`.

use url::Url;

use carrel_opds::Feed;

/// How many books one page of a feed may place; a page's books are ordered after every book
/// of the pages before it.
const PLACES_PER_PAGE: f64 = 100_000.0;

/// What a series feed says about the books it lists.
#[derive(Debug, Clone, PartialEq)]
pub struct SeriesFeed {
    /// The series, as the feed titles it.
    pub name: String,
    /// Whether the feed lists the books in series order (so a book's place stands for its
    /// number).
    pub ordered: bool,
    /// The page of the feed (as the server counts, 0 when it does not say).
    page: u64,
}

impl SeriesFeed {
    /// The order of the `position`-th book (0-based) of this page among all the series' books,
    /// when the feed is in series order.
    pub fn order_of(&self, position: usize) -> Option<f64> {
        self.ordered
            .then(|| self.page as f64 * PLACES_PER_PAGE + position.min(99_999) as f64)
    }
}

/// Codex's series feed path: `…/opds/<version>/series/<pks>`, with the version.
fn codex_series_path(url: &Url) -> Option<&'static str> {
    let segments: Vec<&str> = url.path_segments()?.filter(|s| !s.is_empty()).collect();
    let [.., "opds", version, "series", ids] = segments.as_slice() else {
        return None;
    };
    let numbers = ids
        .split(',')
        .all(|pk| !pk.is_empty() && pk.bytes().all(|b| b.is_ascii_digit()));
    match *version {
        "v1.2" if numbers => Some("v1.2"),
        "v2.0" if numbers => Some("v2.0"),
        _ => None,
    }
}

/// Whether a feed fetched from `url` is Codex's: signed so, or at Codex's OPDS 2 path. Stump
/// serves OPDS 2 under `/opds/v2.0/` too; its ids are not numbers, so [`codex_series_path`]'s
/// numeric ids are what keep its feeds and links out.
pub(crate) fn from_codex(url: &Url, feed: &Feed) -> bool {
    feed.generator
        .as_deref()
        .is_some_and(|g| g.eq_ignore_ascii_case("codex"))
        || url.path().contains("/opds/v2.0/")
}

fn query(url: &Url, key: &str) -> Option<String> {
    url.query_pairs()
        .find(|(k, _)| k == key)
        .map(|(_, v)| v.into_owned())
}

/// The series `feed`, fetched from `url`, is the feed of — if it is one (see the module).
/// `from_komga`: the feed is signed by Komga.
pub fn recognise(url: &Url, feed: &Feed, from_komga: bool) -> Option<SeriesFeed> {
    let title = feed.title.trim();
    let page = query(url, "page")
        .and_then(|p| p.parse::<u64>().ok())
        .unwrap_or(0);
    let (name, ordered) = match codex_series_path(url) {
        Some(version) if from_codex(url, feed) => {
            let name = match version {
                "v1.2" => match title.strip_prefix("All") {
                    Some(rest) if rest.is_empty() || rest.starts_with(' ') => rest.trim(),
                    _ => title,
                },
                _ => title,
            };
            let ordered = query(url, "orderBy").as_deref() == Some("sort_name")
                && query(url, "orderReverse").is_some_and(|r| r.eq_ignore_ascii_case("false"));
            (name, ordered)
        }
        _ if from_komga => {
            let segments: Vec<&str> = url.path_segments()?.filter(|s| !s.is_empty()).collect();
            let [.., "opds", "v1.2", "series", id] = segments.as_slice() else {
                return None;
            };
            if *id == "latest" {
                return None;
            }
            (title, true)
        }
        _ => return None,
    };
    if name.is_empty() {
        return None;
    }
    Some(SeriesFeed {
        name: name.to_owned(),
        ordered,
        page,
    })
}

/// The links of one feed, as they are to be opened (see [`SeriesLinks::address`]).
#[derive(Debug, Clone, Copy)]
pub struct SeriesLinks {
    codex: bool,
}

impl SeriesLinks {
    /// The links of `feed`, fetched from `feed_url`.
    pub fn of(feed_url: &Url, feed: &Feed) -> SeriesLinks {
        SeriesLinks {
            codex: from_codex(feed_url, feed),
        }
    }

    /// The address to open for a link `href` of the feed: a link of a Codex feed to one of its
    /// series feeds asks for the series' order (see the module), unless it asks for an order of
    /// its own. Every other link is left as it is.
    pub fn address(self, href: Url) -> Url {
        if !self.codex
            || codex_series_path(&href).is_none()
            || query(&href, "orderBy").is_some()
            || query(&href, "orderReverse").is_some()
        {
            return href;
        }
        let mut ordered = href;
        ordered
            .query_pairs_mut()
            .append_pair("orderBy", "sort_name")
            .append_pair("orderReverse", "false");
        ordered
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn feed(title: &str, generator: Option<&str>) -> Feed {
        Feed {
            id: None,
            title: title.into(),
            kind: carrel_opds::FeedKind::Acquisition,
            entries: vec![],
            links: Default::default(),
            updated: None,
            authors: vec![],
            generator: generator.map(str::to_owned),
        }
    }

    fn at(url: &str, f: &Feed, komga: bool) -> Option<SeriesFeed> {
        recognise(&Url::parse(url).unwrap(), f, komga)
    }

    const ORDERED: &str = "orderBy=sort_name&orderReverse=false";

    #[test]
    fn codex_series_feeds_are_recognised_in_both_versions() {
        let signed = feed("All Saga", Some("Codex"));
        let s = at(
            &format!("http://h/opds/v1.2/series/3?topCollection=series&{ORDERED}"),
            &signed,
            false,
        )
        .unwrap();
        assert_eq!(
            s.name, "Saga",
            "Codex's OPDS 1.2 titles it \"All\" and the name"
        );
        assert_eq!(s.order_of(2), Some(2.0));
        // OPDS 2 feeds carry no generator: Codex's own path says it; the title is the name.
        let unsigned = feed("Saga", None);
        let s = at(
            &format!("http://h/opds/v2.0/series/3,7?{ORDERED}"),
            &unsigned,
            false,
        )
        .unwrap();
        assert_eq!((s.name.as_str(), s.ordered), ("Saga", true));
        // Behind a path prefix too.
        assert!(at("http://h/codex/opds/v1.2/series/3", &signed, false).is_some());
        // Pages follow one another.
        let p2 = at(
            &format!("http://h/opds/v1.2/series/3?{ORDERED}&page=2"),
            &signed,
            false,
        )
        .unwrap();
        let p3 = at(
            &format!("http://h/opds/v1.2/series/3?{ORDERED}&page=3"),
            &signed,
            false,
        )
        .unwrap();
        assert!(p2.order_of(99).unwrap() < p3.order_of(0).unwrap());
    }

    #[test]
    fn a_codex_series_not_asked_for_in_its_order_gives_membership_but_no_order() {
        let signed = feed("All Saga", Some("Codex"));
        for url in [
            // Sorted by what the account's OPDS clients asked for last.
            "http://h/opds/v1.2/series/3?topCollection=series",
            "http://h/opds/v1.2/series/3?orderBy=sort_name",
            "http://h/opds/v1.2/series/3?orderReverse=false",
            "http://h/opds/v1.2/series/3?orderBy=date&orderReverse=false",
            "http://h/opds/v1.2/series/3?orderBy=sort_name&orderReverse=true",
        ] {
            let s = at(url, &signed, false).unwrap();
            assert_eq!(s.name, "Saga");
            assert_eq!(s.order_of(0), None, "{url}");
        }
    }

    #[test]
    fn links_to_codex_series_feeds_ask_for_the_series_order() {
        let list_url = Url::parse("http://h/opds/v1.2/publishers?topCollection=series").unwrap();
        let signed = feed("All Series", Some("Codex"));
        let link = |href: &str| {
            SeriesLinks::of(&list_url, &signed)
                .address(Url::parse(href).unwrap())
                .to_string()
        };
        assert_eq!(
            link("http://h/opds/v1.2/series/1?topCollection=series"),
            format!("http://h/opds/v1.2/series/1?topCollection=series&{ORDERED}")
        );
        // A sort the link chose, and links elsewhere, stay as they are.
        for href in [
            "http://h/opds/v1.2/series/1?topCollection=series&orderReverse=true",
            "http://h/opds/v1.2/series/1?orderBy=date",
            "http://h/opds/v1.2/volumes/1?topCollection=series",
            "http://h/opds/v1.2/series?topCollection=series",
        ] {
            assert_eq!(link(href), href);
        }
        // Another server's feed: untouched.
        let other = feed("Series", None);
        let href = Url::parse("http://h/opds/v1.2/series/1").unwrap();
        assert_eq!(
            SeriesLinks::of(&list_url, &other).address(href.clone()),
            href
        );
        // Codex's OPDS 2, known by its path.
        let v2 = Url::parse("http://h/opds/v2.0/publishers?topCollection=series").unwrap();
        let href = Url::parse("http://h/opds/v2.0/series/4?topCollection=series").unwrap();
        assert!(SeriesLinks::of(&v2, &other)
            .address(href)
            .as_str()
            .ends_with(ORDERED));
    }

    #[test]
    fn komga_series_feeds_are_recognised_by_its_signature() {
        let f = feed("One Piece", None);
        let s = at("http://h/opds/v1.2/series/0B1X2Y3Z?page=1", &f, true).unwrap();
        assert!(s.ordered);
        assert_eq!(s.name, "One Piece");
        assert_eq!(s.order_of(0), Some(PLACES_PER_PAGE));
        assert!(at("http://h/opds/v1.2/series/latest", &f, true).is_none());
        assert!(at("http://h/opds/v1.2/libraries/0B1", &f, true).is_none());
    }

    #[test]
    fn other_feeds_and_other_servers_are_not_series_feeds() {
        let signed = feed("All Saga", Some("Codex"));
        let plain = feed("Saga", None);
        for (url, f, komga) in [
            // Codex's lists of series and of all issues.
            (
                "http://h/opds/v1.2/series?topCollection=series",
                &signed,
                false,
            ),
            ("http://h/opds/v1.2/publishers/1", &signed, false),
            ("http://h/opds/v1.2/volumes/4", &signed, false),
            // The same path from a server that is neither Codex nor Komga.
            ("http://h/opds/v1.2/series/3", &plain, false),
            ("http://h/opds/series/3", &plain, false),
            // Not Codex's ids.
            ("http://h/opds/v2.0/series/abc", &plain, false),
            ("http://h/opds/v2.0/series/1,,2", &plain, false),
        ] {
            assert!(at(url, f, komga).is_none(), "{url}");
        }
        // A feed without a title names no series.
        assert!(at(
            "http://h/opds/v1.2/series/3",
            &feed("All ", Some("Codex")),
            false
        )
        .is_none());
    }
}
