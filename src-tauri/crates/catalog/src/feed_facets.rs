//! A feed's facets as the windows show them: the other views of the same feed a server offers
//! (another order, a filter), in groups of alternatives, the one shown marked active. The window
//! draws each group as a choice above the feed's items; choosing one opens its feed.
//!
//! - **OPDS 1.2** links `rel="http://opds-spec.org/facet"` grouped by `opds:facetGroup`, the
//!   feed shown marked by `opds:activeFacet`; **OPDS 2** `facets`, the feed shown marked by a
//!   `self` link (both read by [`carrel_opds`]).
//! - **Codex's order choices.** Codex's OPDS 1.2 feeds give most clients their orders as
//!   navigation entries instead of facet links (`codex/views/opds/v1/facets.py`,
//!   `_facet_or_facet_entry`: a facet *entry* unless the client's user agent is one of the few
//!   it knows to read facets), titled with a glyph and the group's words — "➠ Order By Date",
//!   "⇕ Order Descending" — and leaving out the order in force (`_is_facet_active`). In a Codex
//!   feed such entries are taken out of the folders and made the groups "Order By" and
//!   "Order", the order in force (the feed's own `orderBy` / `orderReverse`, else the one
//!   Codex did not list) added as the active choice, leading to the feed itself.
//!
//! Owns no table and no parsing.

use serde::Serialize;
use url::Url;

use carrel_opds::{Entry, Facet};

/// A group of alternatives: one way to sort or filter the feed.
#[derive(Debug, Clone, PartialEq, Serialize, ts_rs::TS)]
pub struct FacetGroup {
    /// The group's title as the server words it (`opds:facetGroup`, an OPDS 2 facet group's
    /// title); `None` when it gives none.
    pub title: Option<String>,
    pub facets: Vec<FacetChoice>,
}

/// One choice of a group.
#[derive(Debug, Clone, PartialEq, Serialize, ts_rs::TS)]
pub struct FacetChoice {
    pub title: String,
    /// The feed it leads to (absolute).
    pub href: String,
    /// The feed shown is this choice.
    pub active: bool,
    /// How many items it leads to, when the server says.
    pub count: Option<u64>,
}

/// A feed's facet links in groups, in the order the server gave them (a group where its first
/// facet came). Facets with no title are left out: there would be nothing to show.
pub fn groups(facets: &[Facet]) -> Vec<FacetGroup> {
    let mut out: Vec<FacetGroup> = Vec::new();
    for facet in facets {
        let title = facet.title.trim();
        if title.is_empty() {
            continue;
        }
        let group = facet
            .group
            .as_deref()
            .map(str::trim)
            .filter(|g| !g.is_empty());
        let choice = FacetChoice {
            title: title.to_owned(),
            href: facet.href.to_string(),
            active: facet.active,
            count: facet.count,
        };
        match out.iter_mut().find(|g| g.title.as_deref() == group) {
            Some(existing) => existing.facets.push(choice),
            None => out.push(FacetGroup {
                title: group.map(str::to_owned),
                facets: vec![choice],
            }),
        }
    }
    out
}

/// One of Codex's order groups: the glyph its entries start with, the query parameter they
/// set, the group's words, and the values Codex offers with its titles for them.
struct CodexOrder {
    glyph: char,
    parameter: &'static str,
    title: &'static str,
    /// The words that lead an entry's title after the glyph, longest first.
    prefixes: &'static [&'static str],
    values: &'static [(&'static str, &'static str)],
}

// Codex's `FacetGroups` (`codex/views/opds/v1/facets.py`): ORDER_BY and ORDER_REVERSE.
const CODEX_ORDERS: [CodexOrder; 2] = [
    CodexOrder {
        glyph: '➠',
        parameter: "orderBy",
        title: "Order By",
        prefixes: &["Order By"],
        values: &[("sort_name", "Name"), ("date", "Date")],
    },
    CodexOrder {
        glyph: '⇕',
        parameter: "orderReverse",
        title: "Order",
        prefixes: &["Order Direction", "Order"],
        values: &[("false", "Ascending"), ("true", "Descending")],
    },
];

/// Takes Codex's order entries out of `entries` (a feed fetched from `feed_url` that Codex
/// signed) and gives them back as facet groups (see the module).
pub fn take_codex_orders(feed_url: &Url, entries: &mut Vec<Entry>) -> Vec<FacetGroup> {
    let mut found: Vec<Vec<(String, String, Url)>> = vec![Vec::new(); CODEX_ORDERS.len()];
    entries.retain(|entry| {
        let Entry::Navigation(nav) = entry else {
            return true;
        };
        let title = nav.title.trim();
        for (i, order) in CODEX_ORDERS.iter().enumerate() {
            let Some(words) = title.strip_prefix(order.glyph) else {
                continue;
            };
            let Some(value) = query(&nav.href, order.parameter) else {
                continue;
            };
            let words = words.trim();
            let choice = order
                .prefixes
                .iter()
                .find_map(|p| words.strip_prefix(p))
                .map(str::trim)
                .filter(|w| !w.is_empty())
                .unwrap_or(words);
            found[i].push((value, choice.to_owned(), nav.href.clone()));
            return false;
        }
        true
    });
    let mut out = Vec::new();
    for (order, listed) in CODEX_ORDERS.iter().zip(found) {
        if listed.is_empty() {
            continue;
        }
        // The order in force: the feed's own, else the one value Codex did not list.
        let in_force = query(feed_url, order.parameter).or_else(|| {
            let missing: Vec<&str> = order
                .values
                .iter()
                .map(|(v, _)| *v)
                .filter(|v| !listed.iter().any(|(l, _, _)| l == v))
                .collect();
            (missing.len() == 1).then(|| missing[0].to_owned())
        });
        let mut choices: Vec<(String, FacetChoice)> = listed
            .into_iter()
            .map(|(value, title, href)| {
                let active = in_force.as_deref() == Some(value.as_str());
                (
                    value,
                    FacetChoice {
                        title,
                        href: href.to_string(),
                        active,
                        count: None,
                    },
                )
            })
            .collect();
        if let Some(value) = in_force {
            if !choices.iter().any(|(v, _)| *v == value) {
                let title = order
                    .values
                    .iter()
                    .find(|(v, _)| *v == value)
                    .map(|(_, t)| (*t).to_owned())
                    .unwrap_or_else(|| value.clone());
                choices.push((
                    value,
                    FacetChoice {
                        title,
                        href: feed_url.to_string(),
                        active: true,
                        count: None,
                    },
                ));
            }
        }
        // Codex's own order of its values; others after, as listed.
        let rank = |v: &str| {
            order
                .values
                .iter()
                .position(|(known, _)| *known == v)
                .unwrap_or(usize::MAX)
        };
        choices.sort_by_key(|(v, _)| rank(v));
        out.push(FacetGroup {
            title: Some(order.title.to_owned()),
            facets: choices.into_iter().map(|(_, c)| c).collect(),
        });
    }
    out
}

fn query(url: &Url, key: &str) -> Option<String> {
    url.query_pairs()
        .find(|(k, _)| k == key)
        .map(|(_, v)| v.into_owned())
}

#[cfg(test)]
mod tests {
    use super::*;
    use carrel_opds::{FeedKind, NavEntry};

    fn nav(title: &str, href: &str) -> Entry {
        Entry::Navigation(NavEntry {
            id: href.into(),
            title: title.into(),
            summary: None,
            href: Url::parse(href).unwrap(),
            kind: FeedKind::Unknown,
            thumbnail: None,
        })
    }

    fn facet(group: Option<&str>, title: &str, href: &str, active: bool) -> Facet {
        Facet {
            title: title.into(),
            group: group.map(str::to_owned),
            href: Url::parse(href).unwrap(),
            active,
            count: None,
        }
    }

    #[test]
    fn facet_links_are_grouped_in_the_servers_order_with_the_active_one_marked() {
        let got = groups(&[
            facet(Some("Sort"), "Title", "http://h/a?sort=title", true),
            facet(Some("Read"), "Unread", "http://h/a?read=0", false),
            facet(Some("Sort"), "Added", "http://h/a?sort=added", false),
            facet(None, "Everything", "http://h/a", false),
            facet(Some("Sort"), "  ", "http://h/a?sort=x", false),
        ]);
        let shape: Vec<(Option<&str>, Vec<(&str, bool)>)> = got
            .iter()
            .map(|g| {
                (
                    g.title.as_deref(),
                    g.facets
                        .iter()
                        .map(|f| (f.title.as_str(), f.active))
                        .collect(),
                )
            })
            .collect();
        assert_eq!(
            shape,
            [
                (Some("Sort"), vec![("Title", true), ("Added", false)]),
                (Some("Read"), vec![("Unread", false)]),
                (None, vec![("Everything", false)]),
            ]
        );
        assert_eq!(got[0].facets[1].href, "http://h/a?sort=added");
    }

    #[test]
    fn codexs_order_entries_become_its_order_groups_with_the_order_in_force() {
        let feed = Url::parse("http://h/opds/v1.2/r/0/1").unwrap();
        let mut entries = vec![
            nav("➠ Order By Date", "http://h/opds/v1.2/r/0/1?orderBy=date"),
            nav(
                "⇕ Order Descending",
                "http://h/opds/v1.2/r/0/1?orderReverse=true",
            ),
            nav("Marvel", "http://h/opds/v1.2/p/3/1?orderBy=date"),
            nav("⊙ Series View", "http://h/opds/v1.2/s/0/1?topGroup=s"),
        ];
        let got = take_codex_orders(&feed, &mut entries);
        let left: Vec<String> = entries
            .iter()
            .map(|e| match e {
                Entry::Navigation(n) => n.title.clone(),
                Entry::Book(b) => b.title.clone(),
            })
            .collect();
        assert_eq!(
            left,
            ["Marvel", "⊙ Series View"],
            "folders stay, even one whose address carries an order"
        );
        assert_eq!(got.len(), 2);
        assert_eq!(got[0].title.as_deref(), Some("Order By"));
        let by: Vec<(&str, bool, &str)> = got[0]
            .facets
            .iter()
            .map(|f| (f.title.as_str(), f.active, f.href.as_str()))
            .collect();
        assert_eq!(
            by,
            [
                ("Name", true, "http://h/opds/v1.2/r/0/1"),
                ("Date", false, "http://h/opds/v1.2/r/0/1?orderBy=date"),
            ],
            "the order Codex left out is the one in force, leading to this feed"
        );
        let direction: Vec<(&str, bool)> = got[1]
            .facets
            .iter()
            .map(|f| (f.title.as_str(), f.active))
            .collect();
        assert_eq!(direction, [("Ascending", true), ("Descending", false)]);
    }

    #[test]
    fn the_feeds_own_order_is_the_active_one() {
        let feed = Url::parse("http://h/opds/v1.2/s/4/1?orderBy=date&orderReverse=true").unwrap();
        let mut entries = vec![
            nav(
                "➠ Order By Name",
                "http://h/opds/v1.2/s/4/1?orderBy=sort_name&orderReverse=true",
            ),
            nav(
                "⇕ Order Direction Ascending",
                "http://h/opds/v1.2/s/4/1?orderBy=date&orderReverse=false",
            ),
        ];
        let got = take_codex_orders(&feed, &mut entries);
        assert!(entries.is_empty());
        let titles: Vec<Vec<(&str, bool)>> = got
            .iter()
            .map(|g| {
                g.facets
                    .iter()
                    .map(|f| (f.title.as_str(), f.active))
                    .collect()
            })
            .collect();
        assert_eq!(
            titles,
            [
                vec![("Name", false), ("Date", true)],
                vec![("Ascending", false), ("Descending", true)]
            ]
        );
    }
}
