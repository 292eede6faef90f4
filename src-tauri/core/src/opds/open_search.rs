//! OpenSearch 1.1 for catalogs: picking the catalog (Atom) search URL out of a description
//! document, and filling a search template with what the reader typed. Does not fetch the
//! description or the results.

use serde::{Deserialize, Serialize};
use url::Url;

use super::atom_feed::{base_of, media_essence, media_param};
use super::url_template::{drop_slot, encode_component, fill_slots, has_slot, resolve_template, scan, Piece};
use super::{input, ns, OpdsError, MAX_SEARCH_DESCRIPTION_BYTES};

const SEARCH_TERMS: &str = "searchTerms";

/// The standard OpenSearch parameter names, so `{searchterms}` is read as `{searchTerms}`.
const STANDARD_PARAMS: &[&str] =
    &[SEARCH_TERMS, "count", "startIndex", "startPage", "language", "inputEncoding", "outputEncoding"];

/// A catalog search URL template.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct SearchTemplate {
    /// Absolute template with a literal `{searchTerms}` and perhaps other `{params}`.
    pub template: String,
    /// The media type of the results, as declared.
    pub media_type: Option<String>,
    /// The number of the first results page (OpenSearch `pageOffset`, default 1).
    pub page_offset: u32,
    /// The index of the first result (OpenSearch `indexOffset`, default 1).
    pub index_offset: u32,
}

impl SearchTemplate {
    /// A template from an href (e.g. a feed's `rel="search"` link), resolved against `base`.
    pub fn new(href: &str, base: &Url, media_type: Option<&str>) -> Result<SearchTemplate, OpdsError> {
        let template = resolve_template(href, base, STANDARD_PARAMS)?;
        if !has_slot(&template, SEARCH_TERMS) {
            return Err(OpdsError::Missing { what: "{searchTerms} in its search template" });
        }
        Ok(SearchTemplate {
            template,
            media_type: media_type.map(str::trim).filter(|t| !t.is_empty()).map(str::to_owned),
            page_offset: 1,
            index_offset: 1,
        })
    }

    /// The URL that searches for `query`: the terms are percent-encoded into `{searchTerms}`,
    /// optional parameters (`{name?}`) are removed with their query parameter, and the other
    /// standard ones get their defaults (first page, first index, any language, UTF-8).
    pub fn url_for(&self, query: &str) -> Result<Url, OpdsError> {
        let query = query.trim();
        if query.is_empty() {
            return Err(OpdsError::Missing { what: "search terms" });
        }
        let mut template = self.template.clone();
        let optional: Vec<String> = scan(&self.template)
            .into_iter()
            .filter_map(|piece| match piece {
                Piece::Slot { name, optional: true } if !name.eq_ignore_ascii_case(SEARCH_TERMS) => {
                    Some(name.to_owned())
                }
                _ => None,
            })
            .collect();
        for name in optional {
            template = drop_slot(&template, &name);
        }
        let encoded = encode_component(query);
        let filled = fill_slots(&template, |name, _| {
            Some(match name {
                n if n.eq_ignore_ascii_case(SEARCH_TERMS) => encoded.clone(),
                "startPage" => self.page_offset.to_string(),
                "startIndex" => self.index_offset.to_string(),
                "language" => "*".to_owned(),
                "inputEncoding" | "outputEncoding" => "UTF-8".to_owned(),
                // A required parameter Carrel knows nothing about: empty is the least harmful.
                _ => String::new(),
            })
        });
        Url::parse(&filled).map_err(|e| OpdsError::bad_url(&filled, e))
    }
}

/// Reads an OpenSearch description fetched from `base` and returns its catalog search template:
/// the `Url` whose type is an OPDS catalog (`application/atom+xml;profile=opds-catalog...`),
/// or else plain Atom. Web-page (`text/html`) and other templates are not catalog searches.
pub fn parse_open_search(bytes: &[u8], base: &Url) -> Result<SearchTemplate, OpdsError> {
    let text = input::decode(bytes, MAX_SEARCH_DESCRIPTION_BYTES)?;
    let doc = input::parse_xml(&text)?;
    if let Some(err) = input::html_root_error(&doc) {
        return Err(err);
    }
    let root = doc.root_element();
    let root_ns = root.tag_name().namespace();
    if root.tag_name().name() != "OpenSearchDescription" || !matches!(root_ns, Some(ns::OPENSEARCH) | None) {
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
        let Some(template) = url.attribute("template") else { continue };
        let media_type = url.attribute("type").unwrap_or("");
        let rank = match media_essence(media_type).as_str() {
            "application/atom+xml" => {
                if media_param(media_type, "profile").is_some_and(|p| p.eq_ignore_ascii_case("opds-catalog"))
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
    candidates.into_iter().next().map(|(_, t)| t).ok_or(OpdsError::NoCatalogSearch)
}

fn offset_attribute(node: roxmltree::Node<'_, '_>, name: &str) -> u32 {
    node.attribute(name).and_then(|v| v.trim().parse().ok()).unwrap_or(1)
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
        let t =
            SearchTemplate::new("search/{searchTerms}/{startPage}?lang={language}&c={count}", &base(), None)
                .unwrap();
        assert_eq!(
            t.url_for(" a/b ").unwrap().as_str(),
            "https://books.example.org/calibre/opds/search/a%2Fb/1?lang=*&c="
        );
        assert_eq!(t.url_for("   ").unwrap_err(), OpdsError::Missing { what: "search terms" });
    }

    #[test]
    fn opds_search_template_requires_search_terms() {
        let err = SearchTemplate::new("/opds/search", &base(), None).unwrap_err();
        assert!(matches!(err, OpdsError::Missing { .. }), "{err:?}");
        let encoded = SearchTemplate::new("/s?q=%7BsearchTerms%7D", &base(), None).unwrap();
        assert_eq!(encoded.template, "https://books.example.org/s?q={searchTerms}");
    }

    #[test]
    fn opds_open_search_without_catalog_url_is_an_error() {
        let doc = br#"<OpenSearchDescription xmlns="http://a9.com/-/spec/opensearch/1.1/">
            <ShortName>Web only</ShortName>
            <Url type="text/html" template="/search?q={searchTerms}"/>
            <Url type="application/x-suggestions+json" template="/suggest?q={searchTerms}"/>
        </OpenSearchDescription>"#;
        assert_eq!(parse_open_search(doc, &base()).unwrap_err(), OpdsError::NoCatalogSearch);
    }

    #[test]
    fn opds_open_search_refuses_a_feed() {
        let doc = br#"<feed xmlns="http://www.w3.org/2005/Atom"><title>x</title></feed>"#;
        assert!(matches!(parse_open_search(doc, &base()), Err(OpdsError::NotAFeed(_))));
    }
}
