//! OPDS 1.2 Atom feeds with the Page Streaming Extension, and the OpenSearch description.

use std::fmt::Write as _;

use crate::content::{BookKind, BookMeta};
use crate::state::State;
use crate::util::{percent_encode, rfc3339, xml_escape};

pub(crate) const NAVIGATION: &str = "application/atom+xml;profile=opds-catalog;kind=navigation";
pub(crate) const ACQUISITION: &str = "application/atom+xml;profile=opds-catalog;kind=acquisition";
pub(crate) const OPENSEARCH: &str = "application/opensearchdescription+xml";

const NAMESPACES: &str = "xmlns=\"http://www.w3.org/2005/Atom\" \
    xmlns:opds=\"http://opds-spec.org/2010/catalog\" \
    xmlns:pse=\"http://vaemendis.net/opds-pse/ns\" \
    xmlns:dcterms=\"http://purl.org/dc/terms/\" \
    xmlns:schema=\"http://schema.org/\" \
    xmlns:opensearch=\"http://a9.com/-/spec/opensearch/1.1/\"";

fn latest_update(state: &State, books: &[&BookMeta]) -> String {
    let latest = books
        .iter()
        .map(|b| b.modified(state.revision(b.id)))
        .max()
        .unwrap_or(1_704_067_200);
    rfc3339(latest)
}

fn feed_head(state: &State, out: &mut String, id: &str, title: &str, updated: &str) {
    // Komga signs its feeds with its own name (Carrel recognises Komga by it); Codex names
    // itself as the generator.
    let behavior = state.behavior();
    let author = if behavior.komga {
        "<author><name>Komga</name><uri>https://komga.org</uri></author>"
    } else if behavior.codex_order_entries {
        "<author><name>Carrel fixture server</name><uri>/opds</uri></author>\n  <generator>Codex</generator>"
    } else {
        "<author><name>Carrel fixture server</name><uri>/opds</uri></author>"
    };
    let _ = write!(
        out,
        "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<feed {NAMESPACES}>\n\
         \x20 <id>urn:carrel-fixture:feed:{id}</id>\n\
         \x20 <title>{}</title>\n\
         \x20 <updated>{updated}</updated>\n\
         \x20 {author}\n",
        xml_escape(title)
    );
}

fn link(out: &mut String, rel: &str, href: &str, kind: &str) {
    let _ = writeln!(
        out,
        "  <link rel=\"{rel}\" href=\"{}\" type=\"{kind}\"/>",
        xml_escape(href)
    );
}

fn common_links(out: &mut String, self_href: &str, self_type: &str) {
    link(out, "self", self_href, self_type);
    link(out, "start", "/opds", NAVIGATION);
    link(out, "up", "/opds", NAVIGATION);
    link(out, "search", "/opds/search.xml", OPENSEARCH);
}

fn nav_entry(
    out: &mut String,
    id: &str,
    title: &str,
    text: &str,
    href: &str,
    kind: &str,
    updated: &str,
) {
    let _ = write!(
        out,
        "  <entry>\n\
         \x20   <title>{}</title>\n\
         \x20   <id>urn:carrel-fixture:feed:{id}</id>\n\
         \x20   <updated>{updated}</updated>\n\
         \x20   <content type=\"text\">{}</content>\n\
         \x20   <link rel=\"subsection\" href=\"{}\" type=\"{kind}\"/>\n\
         \x20 </entry>\n",
        xml_escape(title),
        xml_escape(text),
        xml_escape(href)
    );
}

/// `GET /opds`
pub(crate) fn root(state: &State) -> String {
    let all: Vec<&BookMeta> = state.catalog.books.iter().collect();
    let updated = latest_update(state, &all);
    let mut out = String::new();
    feed_head(state, &mut out, "root", "Carrel Fixture Library", &updated);
    link(&mut out, "self", "/opds", NAVIGATION);
    link(&mut out, "start", "/opds", NAVIGATION);
    link(&mut out, "search", "/opds/search.xml", OPENSEARCH);
    let comics = all.iter().filter(|b| b.kind == BookKind::Comic).count();
    let ebooks = all.len() - comics;
    nav_entry(
        &mut out,
        "books",
        "All books",
        &format!("{} books", all.len()),
        "/opds/books",
        ACQUISITION,
        &updated,
    );
    nav_entry(
        &mut out,
        "comics",
        "Comics",
        &format!("{comics} comics"),
        "/opds/comics",
        ACQUISITION,
        &updated,
    );
    nav_entry(
        &mut out,
        "ebooks",
        "Ebooks",
        &format!("{ebooks} ebooks"),
        "/opds/ebooks",
        ACQUISITION,
        &updated,
    );
    nav_entry(
        &mut out,
        "series",
        "Series",
        &format!("{} series", state.catalog.series.len()),
        "/opds/series",
        NAVIGATION,
        &updated,
    );
    out.push_str("</feed>\n");
    out
}

/// Where a series' own feed is: Komga's under its OPDS 1.2 route.
pub(crate) fn series_href(state: &State, id: u32) -> String {
    if state.behavior().komga {
        format!("/opds/v1.2/series/{id}")
    } else {
        format!("/opds/series/{id}")
    }
}

/// `GET /opds/series`
pub(crate) fn series_navigation(state: &State) -> String {
    let all: Vec<&BookMeta> = state.catalog.books.iter().collect();
    let updated = latest_update(state, &all);
    let mut out = String::new();
    feed_head(state, &mut out, "series", "Series", &updated);
    common_links(&mut out, "/opds/series", NAVIGATION);
    for s in &state.catalog.series {
        let books: Vec<&BookMeta> = all
            .iter()
            .copied()
            .filter(|b| b.series_id == s.id)
            .collect();
        nav_entry(
            &mut out,
            &format!("series:{}", s.id),
            &s.name,
            &format!("{} by {}, {} books", s.name, s.author, books.len()),
            &series_href(state, s.id),
            ACQUISITION,
            &latest_update(state, &books),
        );
    }
    out.push_str("</feed>\n");
    out
}

/// `GET /opds/search.xml`
pub(crate) fn opensearch() -> String {
    format!(
        "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n\
         <OpenSearchDescription xmlns=\"http://a9.com/-/spec/opensearch/1.1/\">\n\
         \x20 <ShortName>Carrel Fixture</ShortName>\n\
         \x20 <Description>Search the Carrel fixture library by title or author</Description>\n\
         \x20 <InputEncoding>UTF-8</InputEncoding>\n\
         \x20 <OutputEncoding>UTF-8</OutputEncoding>\n\
         \x20 <Url type=\"{ACQUISITION}\" template=\"/opds/search?q={{searchTerms}}\"/>\n\
         </OpenSearchDescription>\n"
    )
}

/// What an acquisition feed lists.
pub(crate) struct Listing<'a> {
    pub(crate) id: String,
    pub(crate) title: String,
    /// Path of the feed, without query.
    pub(crate) path: String,
    /// Query parameters other than `page`, already encoded (e.g. `q=salt`).
    pub(crate) query: Option<String>,
    pub(crate) books: Vec<&'a BookMeta>,
    /// Whether to add a navigation-only entry (no acquisition link) on the first page.
    pub(crate) with_series_entry: bool,
    /// The orders the feed offers as OPDS facets (group "Sort": by title, newest first), and
    /// whether it is newest first (`?sort=newest`); `None`: no facets.
    pub(crate) newest_first: Option<bool>,
}

impl<'a> Listing<'a> {
    /// A feed of `books` without a query, a series entry or facets.
    pub(crate) fn new(id: &str, title: &str, path: &str, books: Vec<&'a BookMeta>) -> Listing<'a> {
        Listing {
            id: id.to_string(),
            title: title.to_string(),
            path: path.to_string(),
            query: None,
            books,
            with_series_entry: false,
            newest_first: None,
        }
    }
}

/// The facet links of a sortable listing: two orders in one `opds:facetGroup`, the one shown
/// marked `opds:activeFacet`.
fn sort_facets(out: &mut String, path: &str, newest_first: bool) {
    for (title, href, active) in [
        ("Title", path.to_owned(), !newest_first),
        ("Newest first", format!("{path}?sort=newest"), newest_first),
    ] {
        let _ = writeln!(
            out,
            "  <link rel=\"http://opds-spec.org/facet\" href=\"{}\" type=\"{ACQUISITION}\" \
             title=\"{title}\" opds:facetGroup=\"Sort\"{}/>",
            xml_escape(&href),
            if active {
                " opds:activeFacet=\"true\""
            } else {
                ""
            }
        );
    }
}

fn page_href(listing: &Listing<'_>, page: usize) -> String {
    let mut params = Vec::new();
    if let Some(q) = &listing.query {
        params.push(q.clone());
    }
    if page > 1 {
        params.push(format!("page={page}"));
    }
    if params.is_empty() {
        listing.path.clone()
    } else {
        format!("{}?{}", listing.path, params.join("&"))
    }
}

/// An acquisition feed page (1-based), or `None` when the page is past the end.
pub(crate) fn acquisition(state: &State, listing: &Listing<'_>, page: usize) -> Option<String> {
    let per_page = state.feed_page_size;
    let total = listing.books.len();
    let pages = total.div_ceil(per_page).max(1);
    if page == 0 || page > pages {
        return None;
    }
    let slice = &listing.books[(page - 1) * per_page..(page * per_page).min(total)];
    let updated = latest_update(state, &listing.books);
    let behavior = state.behavior();

    let mut out = String::new();
    feed_head(state, &mut out, &listing.id, &listing.title, &updated);
    common_links(&mut out, &page_href(listing, page), ACQUISITION);
    link(&mut out, "first", &page_href(listing, 1), ACQUISITION);
    link(&mut out, "last", &page_href(listing, pages), ACQUISITION);
    if page > 1 {
        link(
            &mut out,
            "previous",
            &page_href(listing, page - 1),
            ACQUISITION,
        );
    }
    if page < pages {
        link(&mut out, "next", &page_href(listing, page + 1), ACQUISITION);
    }
    if let Some(newest_first) = listing.newest_first {
        sort_facets(&mut out, &listing.path, newest_first);
    }
    let _ = write!(
        out,
        "  <opensearch:totalResults>{total}</opensearch:totalResults>\n\
         \x20 <opensearch:itemsPerPage>{per_page}</opensearch:itemsPerPage>\n\
         \x20 <opensearch:startIndex>{}</opensearch:startIndex>\n",
        (page - 1) * per_page + 1
    );
    if behavior.start_entry_in_feeds {
        nav_entry(
            &mut out,
            "start",
            "Start of catalog",
            "Back to the start",
            "/opds",
            NAVIGATION,
            &updated,
        );
    }
    if behavior.codex_order_entries && page == 1 {
        for (title, param) in [
            ("➠ Order By Date", "orderBy=date"),
            ("⇕ Order Descending", "orderReverse=true"),
        ] {
            nav_entry(
                &mut out,
                param,
                title,
                "",
                &format!("{}?{param}", listing.path),
                ACQUISITION,
                &updated,
            );
        }
    }
    if listing.with_series_entry && page == 1 {
        nav_entry(
            &mut out,
            "series",
            "Browse by series",
            "Not a book: a way into the series list",
            "/opds/series",
            NAVIGATION,
            &updated,
        );
    }
    for meta in slice {
        book_entry(state, &mut out, meta, &behavior, listing);
    }
    out.push_str("</feed>\n");
    Some(out)
}

fn book_entry(
    state: &State,
    out: &mut String,
    meta: &BookMeta,
    behavior: &crate::Behavior,
    listing: &Listing<'_>,
) {
    let Some(built) = state.built(meta.id) else {
        return;
    };
    let id = meta.id;
    let entry_id = if behavior.view_in_entry_ids {
        let search = listing
            .query
            .as_deref()
            .map(|q| format!("&amp;{}", xml_escape(q)))
            .unwrap_or_default();
        format!(
            "/opds/v1.2/comics/{id}?topCollection={}&amp;orderBy=sort_name{search}",
            xml_escape(&listing.id)
        )
    } else {
        format!("urn:carrel-fixture:book:{id}")
    };
    let series = state
        .catalog
        .series(meta.series_id)
        .map(|s| s.name.as_str())
        .unwrap_or("");
    // Komga names no series in an entry: its series feed does.
    let series_tags = if behavior.komga {
        String::new()
    } else {
        format!(
            "\x20   <category scheme=\"urn:carrel-fixture:series\" term=\"{series}\" label=\"{series} #{number}\"/>\n\
             \x20   <schema:Series schema:name=\"{series}\" schema:position=\"{number}\"/>\n",
            series = xml_escape(series),
            number = meta.number,
        )
    };
    let streams_pages =
        meta.kind == BookKind::Comic && !behavior.whole_file_comics && !state.is_given(id);
    // Komga streams pages from under its OPDS route.
    let page_prefix = if behavior.komga { "/opds/v1.2" } else { "" };
    let first_page = (behavior.cover_is_first_page && streams_pages).then(|| {
        format!(
            "{page_prefix}/books/{id}/pages/{}",
            u32::from(behavior.one_based_pages)
        )
    });
    let _ = write!(
        out,
        "  <entry>\n\
         \x20   <title>{title}</title>\n\
         \x20   <id>{entry_id}</id>\n\
         \x20   <updated>{updated}</updated>\n\
         \x20   <author><name>{author}</name></author>\n\
         \x20   <dcterms:issued>{year}</dcterms:issued>\n\
         \x20   <dcterms:language>en</dcterms:language>\n\
         \x20   <category term=\"{category}\" label=\"{category}\"/>\n\
         {series_tags}\
         \x20   <summary type=\"text\">{summary}</summary>\n\
         \x20   <content type=\"text\">{summary}</content>\n\
         \x20   <link rel=\"http://opds-spec.org/image\" type=\"image/png\" href=\"{cover}\"/>\n\
         \x20   <link rel=\"http://opds-spec.org/image/thumbnail\" type=\"image/png\" href=\"{thumbnail}\"/>\n\
         \x20   <link rel=\"http://opds-spec.org/acquisition\" type=\"{mime}\" href=\"/books/{id}/file\" length=\"{length}\" title=\"{ext}\"/>\n",
        title = xml_escape(&meta.title),
        updated = rfc3339(meta.modified(built.revision)),
        author = xml_escape(&meta.author),
        year = meta.issued_year,
        category = if meta.kind == BookKind::Comic { "Comics" } else { "Ebooks" },
        series_tags = series_tags,
        summary = xml_escape(&meta.summary),
        mime = state.file_type(meta).0,
        length = built.file.len(),
        ext = state.file_type(meta).1.to_uppercase(),
        cover = first_page.clone().unwrap_or_else(|| format!("/books/{id}/cover")),
        thumbnail = first_page.unwrap_or_else(|| format!("/books/{id}/thumbnail")),
    );
    if !behavior.komga {
        let _ = writeln!(
            out,
            "    <link rel=\"http://opds-spec.org/progression\" href=\"/books/{id}/progression\" type=\"application/vnd.readium.progression+json\"/>"
        );
    }
    if streams_pages {
        let mut href =
            format!("{page_prefix}/books/{id}/pages/{{pageNumber}}?maxWidth={{maxWidth}}");
        if let Some(param) = &behavior.bookmark_param {
            let _ = write!(href, "&{}=true", percent_encode(param));
        }
        let mut attrs = format!("pse:count=\"{}\"", meta.pages);
        if let Some((index, when)) = state.position_raw(id) {
            let shown = index + u32::from(behavior.one_based_pages);
            let _ = write!(
                attrs,
                " pse:lastRead=\"{shown}\" pse:lastReadDate=\"{}\"",
                rfc3339(when)
            );
        }
        let _ = writeln!(
            out,
            "    <link rel=\"http://vaemendis.net/opds-pse/stream\" type=\"image/jpeg\" href=\"{}\" {attrs}/>",
            xml_escape(&href)
        );
    }
    out.push_str("  </entry>\n");
}
