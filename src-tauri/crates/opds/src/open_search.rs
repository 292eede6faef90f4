//! OpenSearch 1.1 for catalogs: picking the catalog (Atom) search URL out of a description
//! document, and filling a search template with what the reader typed. Also fills OPDS 2's
//! RFC 6570 search templates (`/search{?query}`, `/search{?query,page}`): the terms go into
//! `query`, other variables are left out. Does not fetch the description or the results.

use serde::{Deserialize, Serialize};
use url::Url;

use super::input::base_of;
use super::media_type::{media_essence, media_param};
use super::url_template::{
    drop_slot, encode_component, expand_expressions, fill_slots, has_slot, resolve_template, scan,
    var_specs, Piece,
};
use super::{input, ns, OpdsError, MAX_SEARCH_DESCRIPTION_BYTES};

const SEARCH_TERMS: &str = "searchTerms";

/// The standard OpenSearch parameter names, so `{searchterms}` is read as `{searchTerms}`.
const STANDARD_PARAMS: &[&str] = &STANDARD;

const STANDARD: [&str; 7] = [
    SEARCH_TERMS,
    "count",
    "startIndex",
    "startPage",
    "language",
    "inputEncoding",
    "outputEncoding",
];

/// Names OPDS 2 templates give the search terms (`query` is the draft's), used when a template
/// has no `{searchTerms}`.
const OPDS2_TERMS: &[&str] = &["query", "q"];

/// [`STANDARD_PARAMS`] and `query`, for reading OPDS 2 templates.
const OPDS2_PARAMS: &[&str] = &{
    let mut names = [""; STANDARD.len() + 1];
    let mut i = 0;
    while i < STANDARD.len() {
        names[i] = STANDARD[i];
        i += 1;
    }
    names[STANDARD.len()] = "query";
    names
};

/// A catalog search URL template: an OpenSearch one with `{searchTerms}`, or an OPDS 2
/// (RFC 6570) one with `query` in an expression such as `{?query}`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct SearchTemplate {
    /// Absolute template with a literal `{searchTerms}` (or, from OPDS 2, `{query}` or an
    /// expression like `{?query,page}`) and perhaps other `{params}`.
    pub template: String,
    /// The media type of the results, as declared.
    pub media_type: Option<String>,
    /// The number of the first results page (OpenSearch `pageOffset`, default 1).
    pub page_offset: u32,
    /// The index of the first result (OpenSearch `indexOffset`, default 1).
    pub index_offset: u32,
}

impl SearchTemplate {
    /// `template` with its declared type (blank: none), its pages and items counted from 1.
    fn counting_from_one(template: String, media_type: Option<&str>) -> SearchTemplate {
        SearchTemplate {
            template,
            media_type: media_type
                .map(str::trim)
                .filter(|t| !t.is_empty())
                .map(str::to_owned),
            page_offset: 1,
            index_offset: 1,
        }
    }

    /// A template from an href (e.g. a feed's `rel="search"` link), resolved against `base`.
    pub fn new(
        href: &str,
        base: &Url,
        media_type: Option<&str>,
    ) -> Result<SearchTemplate, OpdsError> {
        let template = resolve_template(href, base, STANDARD_PARAMS)?;
        if !has_slot(&template, SEARCH_TERMS) {
            return Err(OpdsError::Missing {
                what: "{searchTerms} in its search template",
            });
        }
        Ok(SearchTemplate::counting_from_one(template, media_type))
    }

    /// A template from an OPDS 2 `rel="search"` link (`templated: true`), resolved against
    /// `base`. It needs `{searchTerms}`, or `query` (or `q`) as a placeholder or in an
    /// expression.
    pub(crate) fn from_opds2(
        href: &str,
        base: &Url,
        media_type: Option<&str>,
    ) -> Result<SearchTemplate, OpdsError> {
        let template = resolve_template(href, base, OPDS2_PARAMS)?;
        if !has_slot(&template, SEARCH_TERMS)
            && !OPDS2_TERMS.iter().any(|name| has_slot(&template, name))
        {
            return Err(OpdsError::Missing {
                what: "{?query} in its search template",
            });
        }
        Ok(SearchTemplate::counting_from_one(template, media_type))
    }

    /// The URL that searches for `query`: the terms are percent-encoded into `{searchTerms}`
    /// (or OPDS 2's `query`), optional parameters (`{name?}`) are removed with their query
    /// parameter, the other standard ones get their defaults (first page, first index, any
    /// language, UTF-8), and RFC 6570 expressions keep only the terms (`{?query,page}` becomes
    /// `?query=...`).
    pub fn url_for(&self, query: &str) -> Result<Url, OpdsError> {
        let query = query.trim();
        if query.is_empty() {
            return Err(OpdsError::Missing {
                what: "search terms",
            });
        }
        let terms = self.terms_variable();
        let mut template = self.template.clone();
        let dropped: Vec<String> = scan(&self.template)
            .into_iter()
            .flat_map(|piece| match piece {
                Piece::Slot {
                    name,
                    optional: true,
                } => vec![name],
                Piece::Expr { vars, .. } => var_specs(vars).map(|v| v.name).collect(),
                _ => Vec::new(),
            })
            .filter(|name| !name.eq_ignore_ascii_case(terms))
            .map(str::to_owned)
            .collect();
        for name in dropped {
            template = drop_slot(&template, &name);
        }
        let encoded = encode_component(query);
        let filled = fill_slots(&template, |name, _| {
            Some(match name {
                n if n.eq_ignore_ascii_case(terms) => encoded.clone(),
                "startPage" => self.page_offset.to_string(),
                "startIndex" => self.index_offset.to_string(),
                "language" => "*".to_owned(),
                "inputEncoding" | "outputEncoding" => "UTF-8".to_owned(),
                // A required parameter Carrel knows nothing about: empty is the least harmful.
                _ => String::new(),
            })
        });
        let filled = expand_expressions(&filled, |name| {
            name.eq_ignore_ascii_case(terms).then(|| query.to_owned())
        });
        Url::parse(&filled).map_err(|e| OpdsError::bad_url(&filled, e))
    }

    /// The variable that takes the search terms: `searchTerms` when the template has it, else
    /// the first of OPDS 2's names it has.
    fn terms_variable(&self) -> &'static str {
        if has_slot(&self.template, SEARCH_TERMS) {
            return SEARCH_TERMS;
        }
        OPDS2_TERMS
            .iter()
            .copied()
            .find(|name| has_slot(&self.template, name))
            .unwrap_or(SEARCH_TERMS)
    }
}

/// Reads an OpenSearch description fetched from `base` and returns its catalog search template:
/// the `Url` whose type is an OPDS catalog (`application/atom+xml;profile=opds-catalog...`),
/// or else plain Atom. Web-page (`text/html`) and other templates are not catalog searches.
pub fn parse_open_search(bytes: &[u8], base: &Url) -> Result<SearchTemplate, OpdsError> {
    input::read_xml(bytes, MAX_SEARCH_DESCRIPTION_BYTES, |root| {
        read_open_search(root, base)
    })
}

fn read_open_search(
    root: roxmltree::Node<'_, '_>,
    base: &Url,
) -> Result<SearchTemplate, OpdsError> {
    let root_ns = root.tag_name().namespace();
    if root.tag_name().name() != "OpenSearchDescription"
        || !matches!(root_ns, Some(ns::OPENSEARCH) | None)
    {
        return Err(OpdsError::NotAFeed(format!(
            "a <{}> document, not an OpenSearch description",
            root.tag_name().name()
        )));
    }

    let mut candidates = Vec::new();
    for url in root.children().filter(|n| {
        n.is_element()
            && n.tag_name().name() == "Url"
            && matches!(n.tag_name().namespace(), Some(ns::OPENSEARCH) | None)
    }) {
        // rel="results" is the default; "suggestions", "self", "collection" are not searches.
        let rel = url.attribute("rel").map(str::trim).unwrap_or("results");
        if !rel.is_empty() && !rel.eq_ignore_ascii_case("results") {
            continue;
        }
        let Some(template) = url.attribute("template") else {
            continue;
        };
        let media_type = url.attribute("type").unwrap_or("");
        let rank = match media_essence(media_type).as_str() {
            "application/atom+xml" => {
                if media_param(media_type, "profile")
                    .is_some_and(|p| p.eq_ignore_ascii_case("opds-catalog"))
                {
                    2
                } else {
                    1
                }
            }
            _ => continue,
        };
        let base = base_of(url, base);
        match SearchTemplate::new(template, &base, Some(media_type)) {
            Ok(mut found) => {
                found.page_offset = offset_attribute(url, "pageOffset");
                found.index_offset = offset_attribute(url, "indexOffset");
                candidates.push((rank, found));
            }
            Err(err) => tracing::debug!(%err, "ignoring an OpenSearch template"),
        }
    }
    // The best rank wins; among equals, the first in the document.
    candidates.sort_by_key(|(rank, _)| std::cmp::Reverse(*rank));
    candidates
        .into_iter()
        .next()
        .map(|(_, t)| t)
        .ok_or(OpdsError::NoCatalogSearch)
}

fn offset_attribute(node: roxmltree::Node<'_, '_>, name: &str) -> u32 {
    node.attribute(name)
        .and_then(|v| v.trim().parse().ok())
        .unwrap_or(1)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn base() -> Url {
        Url::parse("https://books.example.org/calibre/opds/osd").unwrap()
    }

    #[test]
    fn opds_search_template_encodes_terms_and_drops_optional_params() {
        let t = SearchTemplate::new(
            "/opds/search?query={searchTerms}&page={startPage?}&n={count?}",
            &base(),
            None,
        )
        .unwrap();
        assert_eq!(
            t.url_for("Astérix & the Picts").unwrap().as_str(),
            "https://books.example.org/opds/search?query=Ast%C3%A9rix%20%26%20the%20Picts"
        );
    }

    #[test]
    fn opds_search_template_in_path_and_required_params() {
        let t = SearchTemplate::new(
            "search/{searchTerms}/{startPage}?lang={language}&c={count}",
            &base(),
            None,
        )
        .unwrap();
        assert_eq!(
            t.url_for(" a/b ").unwrap().as_str(),
            "https://books.example.org/calibre/opds/search/a%2Fb/1?lang=*&c="
        );
        assert_eq!(
            t.url_for("   ").unwrap_err(),
            OpdsError::Missing {
                what: "search terms"
            }
        );
    }

    #[test]
    fn opds_search_template_requires_search_terms() {
        let err = SearchTemplate::new("/opds/search", &base(), None).unwrap_err();
        assert!(matches!(err, OpdsError::Missing { .. }), "{err:?}");
        let encoded = SearchTemplate::new("/s?q=%7BsearchTerms%7D", &base(), None).unwrap();
        assert_eq!(
            encoded.template,
            "https://books.example.org/s?q={searchTerms}"
        );
    }

    #[test]
    fn opds_search_template_from_opds2_forms() {
        let base = Url::parse("https://stump.example.com/opds/v2.0/catalog").unwrap();
        // (the form, the template it makes, what a search for the words asks)
        for (form, template, words, url) in [
            (
                "/opds/v2.0/search{?query}",
                Some("https://stump.example.com/opds/v2.0/search{?query}"),
                "Astérix & co",
                "https://stump.example.com/opds/v2.0/search?query=Ast%C3%A9rix%20%26%20co",
            ),
            (
                "search{?Query,page,author}",
                Some("https://stump.example.com/opds/v2.0/search{?query,page,author}"),
                " moss ",
                "https://stump.example.com/opds/v2.0/search?query=moss",
            ),
            (
                "/s?lib=2{&q,page}",
                None,
                "a/b",
                "https://stump.example.com/s?lib=2&q=a%2Fb",
            ),
            (
                "/s/{query}{?page}",
                None,
                "x y",
                "https://stump.example.com/s/x%20y",
            ),
            (
                "/s{?searchTerms,query}",
                None,
                "z",
                "https://stump.example.com/s?searchTerms=z",
            ),
        ] {
            let made = SearchTemplate::from_opds2(form, &base, None).unwrap();
            if let Some(template) = template {
                assert_eq!(made.template, template, "{form}");
            }
            assert_eq!(made.url_for(words).unwrap().as_str(), url, "{form}");
        }
        let err = SearchTemplate::from_opds2("/s{?title,author}", &base, None).unwrap_err();
        assert!(matches!(err, OpdsError::Missing { .. }), "{err:?}");
    }

    #[test]
    fn opds_open_search_without_catalog_url_is_an_error() {
        let doc = br#"<OpenSearchDescription xmlns="http://a9.com/-/spec/opensearch/1.1/">
            <ShortName>Web only</ShortName>
            <Url type="text/html" template="/search?q={searchTerms}"/>
            <Url type="application/x-suggestions+json" template="/suggest?q={searchTerms}"/>
        </OpenSearchDescription>"#;
        assert_eq!(
            parse_open_search(doc, &base()).unwrap_err(),
            OpdsError::NoCatalogSearch
        );
    }

    #[test]
    fn opds_open_search_refuses_a_feed() {
        let doc = br#"<feed xmlns="http://www.w3.org/2005/Atom"><title>x</title></feed>"#;
        assert!(matches!(
            parse_open_search(doc, &base()),
            Err(OpdsError::NotAFeed(_))
        ));
    }
}
