//! Browsing and searching a server's catalog: fetches a feed politely (through the server's
//! request slot), parses it with [`carrel_opds`], and gives every book entry its local id by
//! remembering it in [`carrel_library::books`], so what the reader sees can be stored or opened.
//!
//! Every document that parsed is kept in [`carrel_library::catalog_cache`]; when the server cannot
//! be reached ([`FetchError::Transient`]) the kept copy is used instead and the result says it is
//! offline. [`CatalogClient::browse_view`] and [`CatalogClient::search_view`] add what the windows
//! show beside each book: where it stands on this device, whether it has a cover and whether it has
//! been read.
//!
//! Owns no table and no parsing: it joins HTTP, OPDS, the book list and the document cache.

use serde::Serialize;
use url::Url;

use crate::book_view::{self, BookMeta};
use crate::cover_cache;
use crate::feed_facets::{self, FacetGroup};
use crate::series_feeds::{self, SeriesFeed, SeriesLinks};
use carrel_engine::book_downloads::{self, BookStatus};
use carrel_foundation::error::ErrorKind;
use carrel_foundation::store::{Store, StoreError};
use carrel_http::http_fetch::{FetchError, HttpClient, ServerAccess};
use carrel_library::books::{self, BookFormat, CatalogBook};
use carrel_library::catalog_cache::{self, CachedDocument};
use carrel_library::credentials::Credentials;
use carrel_library::servers::{self, Server};
use carrel_opds::{self as opds, BookEntry, Entry, OpdsError, PageBase, SearchLink};

#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum CatalogError {
    #[error(transparent)]
    Fetch(#[from] FetchError),
    #[error("the server's answer is not a catalog: {0}")]
    Opds(#[from] OpdsError),
    #[error("\"{0}\" is not an address in this catalog")]
    BadFeedUrl(String),
    #[error("this catalog offers no search")]
    NoSearch,
    /// The server did not answer (a time limit, a refused connection, a `5xx`), or did not
    /// answer lately, and no copy of what was asked is kept. Names the server.
    #[error("{0} is not answering")]
    NotAnswering(String),
    #[error(transparent)]
    Other(#[from] carrel_library::error::Error),
}

impl carrel_foundation::error::Failure for CatalogError {
    /// The coarse kind front ends branch on: `auth` when the server wants credentials,
    /// `certificate` when its certificate was refused.
    fn kind(&self) -> carrel_foundation::error::ErrorKind {
        match self {
            CatalogError::Fetch(FetchError::Auth(_)) => ErrorKind::Auth,
            CatalogError::Fetch(FetchError::Certificate(_)) => ErrorKind::Certificate,
            CatalogError::Fetch(FetchError::Store(_)) => ErrorKind::Storage,
            CatalogError::Fetch(_) | CatalogError::NotAnswering(_) => ErrorKind::Server,
            CatalogError::Opds(e) => e.kind(),
            CatalogError::BadFeedUrl(_) | CatalogError::NoSearch => ErrorKind::InvalidInput,
            CatalogError::Other(e) => e.kind(),
        }
    }
}

from_library_errors!(CatalogError::Other: StoreError);

/// One feed as the reader sees it.
#[derive(Debug, Clone, Serialize)]
pub struct CatalogPage {
    pub title: String,
    pub feed_url: String,
    pub entries: Vec<CatalogItem>,
    pub next: Option<String>,
    pub previous: Option<String>,
    pub searchable: bool,
    /// The other views of this feed the server offers (orders, filters), in groups.
    pub facets: Vec<FacetGroup>,
}

/// Declares an enum of a feed's items: a link to another feed (`Navigation`) or a book with the
/// facts its catalog entry gives (`Book`), beside which the enum adds the fields given. The
/// items the engine browses ([`CatalogItem`]) and those the windows show ([`CatalogViewItem`])
/// are both declared here, so a book's catalog facts are named and typed once for both.
macro_rules! feed_items {
    (
        $(#[$attr:meta])*
        pub enum $name:ident {
            Book { $($(#[$field_attr:meta])* $field:ident: $ty:ty,)* }
        }
    ) => {
        $(#[$attr])*
        #[serde(tag = "type", rename_all = "snake_case")]
        pub enum $name {
            Navigation {
                title: String,
                href: String,
                summary: Option<String>,
            },
            Book {
                book_id: i64,
                title: String,
                authors: Vec<String>,
                format: BookFormat,
                page_count: Option<u32>,
                file_type: Option<String>,
                file_length: Option<u64>,
                series: Option<String>,
                series_index: Option<f64>,
                summary: Option<String>,
                $($(#[$field_attr])* $field: $ty,)*
                /// Why the server's page stream is not used (an absurd page count).
                not_streamable: Option<String>,
            },
        }
    };
}

feed_items! {
    #[derive(Debug, Clone, Serialize)]
    pub enum CatalogItem {
        Book {
            stream_template: Option<String>,
        }
    }
}

/// One feed as the windows show it: the page, where it came from, and beside each book its
/// state on this device and whether it has a cover.
#[derive(Debug, Clone, Serialize, ts_rs::TS)]
pub struct CatalogView {
    pub server_id: i64,
    pub title: String,
    pub feed_url: String,
    pub entries: Vec<CatalogViewItem>,
    pub next: Option<String>,
    pub previous: Option<String>,
    pub searchable: bool,
    /// The other views of this feed the server offers (orders, filters), in groups, the one
    /// shown marked active: the window shows them as a bar above the items.
    pub facets: Vec<FacetGroup>,
    /// The server could not be reached: this is the copy kept from an earlier visit.
    pub offline: bool,
    /// When this copy was fetched from the server.
    pub fetched_at_ms: i64,
}

feed_items! {
    #[derive(Debug, Clone, Serialize, ts_rs::TS)]
    #[ts(rename = "CatalogItem")]
    // Built once per feed page and serialised for the window at once: its size does not matter.
    #[allow(clippy::large_enum_variant)]
    pub enum CatalogViewItem {
        Book {
            has_cover: bool,
            status: BookStatus,
            /// Read to its end (here, or marked read): `books.finished_ms` is set.
            read: bool,
            /// The reader the book opens in.
            reader: carrel_reading::book_reader::BookReader,
        }
    }
}

/// What catalog calls need.
pub struct CatalogClient<'a> {
    pub store: &'a Store,
    pub credentials: &'a Credentials,
    pub http: &'a HttpClient,
}

const MAX_FEED: u64 = opds::MAX_FEED_BYTES as u64;

/// Where a catalog document came from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Freshness {
    /// The server could not be reached: this is the copy kept from an earlier visit.
    pub offline: bool,
    /// When the document was fetched from the server.
    pub fetched_at_ms: i64,
}

impl CatalogError {
    /// A server that did not answer, said by its name rather than by the address asked.
    fn naming(self, server: &Server) -> CatalogError {
        match self {
            CatalogError::Fetch(FetchError::Transient(_)) => {
                CatalogError::NotAnswering(server.name.clone())
            }
            other => other,
        }
    }
}

/// What a missing document (`404`) is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Missing {
    /// An error: the server no longer has it.
    Error,
    /// An empty result: a search that matched nothing.
    NoResults,
}

/// A fetched (or kept) document, not yet known to parse.
struct Document {
    bytes: Vec<u8>,
    final_url: Url,
    freshness: Freshness,
}

impl CatalogClient<'_> {
    /// Fetches and reads one feed of `server`: its root when `feed` is `None`, else `feed`
    /// (absolute, or relative to the server's root feed).
    pub async fn browse(
        &self,
        server: &Server,
        feed: Option<&str>,
    ) -> Result<CatalogPage, CatalogError> {
        Ok(self.browse_page(server, feed).await?.0)
    }

    /// Like [`CatalogClient::browse`], and says whether the page is the offline copy.
    pub async fn browse_page(
        &self,
        server: &Server,
        feed: Option<&str>,
    ) -> Result<(CatalogPage, Freshness), CatalogError> {
        self.read_page(server, feed, Missing::Error)
            .await
            .map_err(|e| e.naming(server))
    }

    /// One feed of `server`; a `404` is an error, or (a search's results) an empty page.
    async fn read_page(
        &self,
        server: &Server,
        feed: Option<&str>,
        missing: Missing,
    ) -> Result<(CatalogPage, Freshness), CatalogError> {
        let root =
            Url::parse(&server.url).map_err(|_| CatalogError::BadFeedUrl(server.url.clone()))?;
        let url = match feed {
            None => root.clone(),
            Some(f) => root
                .join(f)
                .map_err(|_| CatalogError::BadFeedUrl(f.to_owned()))?,
        };
        if !carrel_http::http_fetch::same_origin(&url, &root) {
            // The server's credentials go only to the server.
            return Err(CatalogError::BadFeedUrl(
                feed.unwrap_or_default().to_owned(),
            ));
        }
        let access = ServerAccess::load(server, self.credentials)?;
        let Some(doc) = self.document(&access, &url, MAX_FEED, missing).await? else {
            // Nothing found: the server's word for an empty result.
            let page = CatalogPage {
                title: String::new(),
                feed_url: url.to_string(),
                entries: Vec::new(),
                next: None,
                previous: None,
                searchable: true,
                facets: Vec::new(),
            };
            let freshness = Freshness {
                offline: false,
                fetched_at_ms: self.store.now_ms(),
            };
            return Ok((page, freshness));
        };
        let mut feed = opds::parse_feed(&doc.bytes, &doc.final_url)?;
        let mut facets = feed_facets::groups(&feed.links.facets);
        if series_feeds::from_codex(&doc.final_url, &feed) {
            facets.extend(feed_facets::take_codex_orders(
                &doc.final_url,
                &mut feed.entries,
            ));
        }
        let from_komga =
            carrel_reading::komga::is_komga_feed(feed.authors.iter().map(String::as_str));
        let series_feed = series_feeds::recognise(&doc.final_url, &feed, from_komga);
        let links = SeriesLinks::of(&doc.final_url, &feed);
        let freshness = doc.freshness;
        // Keeping the document and remembering its books is database work: off the async
        // threads, in one step.
        let (server_of_books, kept_url) = (server.clone(), url.clone());
        let entries = self
            .store
            .call(move |store| {
                keep(store, access.server_id, &kept_url, &doc);
                let mut books_listed = 0;
                feed.entries
                    .into_iter()
                    .map(|entry| match entry {
                        Entry::Navigation(nav) => Ok(CatalogItem::Navigation {
                            title: nav.title,
                            href: links.address(nav.href).to_string(),
                            summary: nav.summary,
                        }),
                        Entry::Book(book) => {
                            let place = books_listed;
                            books_listed += 1;
                            let listed_in = series_feed.as_ref().map(|s| (s, place));
                            remember(
                                store,
                                &server_of_books,
                                &book,
                                freshness.offline,
                                from_komga,
                                listed_in,
                            )
                        }
                    })
                    .collect::<Result<Vec<_>, CatalogError>>()
            })
            .await?;
        let page = CatalogPage {
            title: feed.title,
            feed_url: url.to_string(),
            entries,
            next: feed.links.next.map(|u| u.to_string()),
            previous: feed.links.previous.map(|u| u.to_string()),
            searchable: feed.links.search.is_some(),
            facets,
        };
        Ok((page, freshness))
    }

    /// Searches the catalog through its OpenSearch link.
    pub async fn search(&self, server: &Server, query: &str) -> Result<CatalogPage, CatalogError> {
        Ok(self.search_page(server, query).await?.0)
    }

    /// Like [`CatalogClient::search`], and says whether the results are an offline copy (every
    /// document on the way — root feed, search description, results — may come from the cache).
    pub async fn search_page(
        &self,
        server: &Server,
        query: &str,
    ) -> Result<(CatalogPage, Freshness), CatalogError> {
        self.find(server, query).await.map_err(|e| e.naming(server))
    }

    async fn find(
        &self,
        server: &Server,
        query: &str,
    ) -> Result<(CatalogPage, Freshness), CatalogError> {
        let root =
            Url::parse(&server.url).map_err(|_| CatalogError::BadFeedUrl(server.url.clone()))?;
        let access = ServerAccess::load(server, self.credentials)?;
        let root_doc = self.document_required(&access, &root, MAX_FEED).await?;
        let feed = opds::parse_feed(&root_doc.bytes, &root_doc.final_url)?;
        let mut offline = root_doc.freshness.offline;
        self.keep(access.server_id, &root, root_doc).await;
        let template = match feed.links.search.ok_or(CatalogError::NoSearch)? {
            SearchLink::Template { template } => template,
            SearchLink::OpenSearchDescription { href } => {
                let doc = self
                    .document_required(&access, &href, opds::MAX_SEARCH_DESCRIPTION_BYTES as u64)
                    .await?;
                let template = opds::parse_open_search(&doc.bytes, &doc.final_url)?;
                offline |= doc.freshness.offline;
                self.keep(access.server_id, &href, doc).await;
                template
            }
        };
        let url = template.url_for(query)?;
        // A search that matches nothing may be answered `404` (calibre): no results, no error.
        let (page, mut freshness) = self
            .read_page(server, Some(url.as_str()), Missing::NoResults)
            .await?;
        freshness.offline |= offline;
        Ok((page, freshness))
    }

    /// One feed of a server as the windows show it (see [`CatalogView`]).
    pub async fn browse_view(
        &self,
        server_id: i64,
        feed: Option<&str>,
    ) -> Result<CatalogView, CatalogError> {
        let server = self.server(server_id).await?;
        let (page, freshness) = self.browse_page(&server, feed).await?;
        self.view(server.id, page, freshness).await
    }

    /// Search results as the windows show them (see [`CatalogView`]).
    pub async fn search_view(
        &self,
        server_id: i64,
        query: &str,
    ) -> Result<CatalogView, CatalogError> {
        let server = self.server(server_id).await?;
        let (page, freshness) = self.search_page(&server, query).await?;
        self.view(server.id, page, freshness).await
    }

    async fn server(&self, server_id: i64) -> Result<Server, CatalogError> {
        self.store
            .call(move |store| servers::get(store, server_id))
            .await
            .map_err(|e| carrel_library::error::Error::from(e).into())
    }

    /// Looks up where each book stands on this device (database work, off the async threads).
    async fn view(
        &self,
        server_id: i64,
        page: CatalogPage,
        freshness: Freshness,
    ) -> Result<CatalogView, CatalogError> {
        self.store
            .call(move |store| view(store, server_id, page, freshness))
            .await
    }

    /// A document that must be there (a `404` is an error).
    async fn document_required(
        &self,
        access: &ServerAccess,
        url: &Url,
        max_bytes: u64,
    ) -> Result<Document, CatalogError> {
        self.document(access, url, max_bytes, Missing::Error)
            .await
            .map(|doc| doc.expect("a 404 is an error here"))
    }

    /// Fetches a document; when the server cannot be reached, the copy kept from an earlier
    /// visit stands in (and without one, the failure stands). A server that did not answer
    /// lately is not waited for again: the kept copy is given at once (a handle that asks
    /// such servers, [`HttpClient::asking_unresponsive`], retries it). `None`: a `404` taken
    /// as an empty result ([`Missing::NoResults`]).
    async fn document(
        &self,
        access: &ServerAccess,
        url: &Url,
        max_bytes: u64,
        missing: Missing,
    ) -> Result<Option<Document>, CatalogError> {
        let server_id = access.server_id;
        let fetched = if self.http.skips(server_id) {
            Err(FetchError::Transient(
                "the server did not answer lately".into(),
            ))
        } else {
            let fetched = match missing {
                Missing::Error => self
                    .http
                    .get_bytes(self.store, access, url, max_bytes)
                    .await
                    .map(Some),
                Missing::NoResults => {
                    self.http
                        .get_bytes_unless_missing(self.store, access, url, max_bytes)
                        .await
                }
            };
            match &fetched {
                Ok(_) | Err(FetchError::Gone(_) | FetchError::Auth(_)) => {
                    self.http.note_answer(server_id, true)
                }
                Err(FetchError::Transient(_)) => self.http.note_answer(server_id, false),
                Err(_) => {}
            }
            fetched
        };
        match fetched {
            Ok(None) => Ok(None),
            Ok(Some(fetched)) => Ok(Some(Document {
                bytes: match access.kept_document(&fetched.bytes) {
                    std::borrow::Cow::Owned(concealed) => concealed,
                    std::borrow::Cow::Borrowed(_) => fetched.bytes,
                },
                final_url: fetched.final_url,
                freshness: Freshness {
                    offline: false,
                    fetched_at_ms: self.store.now_ms(),
                },
            })),
            Err(FetchError::Transient(reason)) => {
                let (server_id, key) = (access.server_id, url.to_string());
                let kept = self
                    .store
                    .call(move |store| catalog_cache::get(store, server_id, &key))
                    .await?;
                match kept {
                    Some(kept) => {
                        tracing::info!(cause = %reason, "the server cannot be reached; showing the copy kept offline");
                        Ok(Some(Document {
                            bytes: kept.bytes,
                            final_url: kept.final_url,
                            freshness: Freshness {
                                offline: true,
                                fetched_at_ms: kept.fetched_at_ms,
                            },
                        }))
                    }
                    None => Err(FetchError::Transient(reason).into()),
                }
            }
            Err(e) => Err(e.into()),
        }
    }

    /// Keeps a freshly fetched document that parsed, for offline use (off the async threads).
    async fn keep(&self, server_id: i64, url: &Url, doc: Document) {
        let url = url.clone();
        self.store
            .call(move |store| keep(store, server_id, &url, &doc))
            .await;
    }
}

/// What the windows show of a catalog page: each book with where it stands on this device.
fn view(
    store: &Store,
    server_id: i64,
    page: CatalogPage,
    freshness: Freshness,
) -> Result<CatalogView, CatalogError> {
    let mut entries = Vec::with_capacity(page.entries.len());
    for item in page.entries {
        entries.push(match item {
            CatalogItem::Navigation {
                title,
                href,
                summary,
            } => CatalogViewItem::Navigation {
                title,
                href,
                summary,
            },
            CatalogItem::Book {
                book_id,
                title,
                authors,
                format,
                page_count,
                file_type,
                file_length,
                series,
                series_index,
                summary,
                not_streamable,
                ..
            } => {
                let book =
                    books::get(store, book_id).map_err(carrel_library::error::Error::from)?;
                CatalogViewItem::Book {
                    book_id,
                    title,
                    authors,
                    format,
                    page_count,
                    file_type,
                    file_length,
                    series,
                    series_index,
                    summary,
                    has_cover: cover_cache::has_cover(store, &book),
                    status: book_downloads::status(store, &book)?,
                    read: carrel_reading::position_sync::is_finished(store, book_id)
                        .map_err(carrel_library::error::Error::from)?
                        .unwrap_or(false),
                    reader: carrel_reading::book_reader::reader_for(&book),
                    not_streamable,
                }
            }
        });
    }
    Ok(CatalogView {
        server_id,
        title: page.title,
        feed_url: page.feed_url,
        entries,
        next: page.next,
        previous: page.previous,
        searchable: page.searchable,
        facets: page.facets,
        offline: freshness.offline,
        fetched_at_ms: freshness.fetched_at_ms,
    })
}

/// Keeps a freshly fetched document that parsed, for offline use. A failure to keep it costs
/// only the offline copy, so it is logged, not returned.
fn keep(store: &Store, server_id: i64, url: &Url, doc: &Document) {
    if doc.freshness.offline {
        return;
    }
    let kept = CachedDocument {
        bytes: doc.bytes.clone(),
        final_url: doc.final_url.clone(),
        fetched_at_ms: doc.freshness.fetched_at_ms,
    };
    if let Err(e) = catalog_cache::put(store, server_id, url.as_str(), &kept) {
        tracing::warn!(cause = %e, "could not keep the catalog page for offline use");
    }
}

/// Gives a book entry its local id. From a kept (offline) copy, only books not known yet are
/// recorded: an older copy never overwrites what a newer visit learnt. `listed_in`: the series
/// feed that lists the book, and the book's place on this page of it.
fn remember(
    store: &Store,
    server: &Server,
    entry: &BookEntry,
    from_kept_copy: bool,
    from_komga: bool,
    listed_in: Option<(&SeriesFeed, usize)>,
) -> Result<CatalogItem, CatalogError> {
    let mut catalog = catalog_book(entry, from_komga);
    // Positions are written to these addresses: only the library's own origin is kept.
    catalog.progression_url = only_on_origin(catalog.progression_url.take(), &server.url);
    catalog.read_progress_url = only_on_origin(catalog.read_progress_url.take(), &server.url);
    let book = if from_kept_copy {
        books::remember_if_new(store, server.id, &catalog)
    } else {
        books::remember(store, server.id, &catalog)
    }
    .map_err(carrel_library::error::Error::from)?;
    let meta = BookMeta {
        authors: entry.authors.clone(),
        series: entry.series.clone(),
        series_index: entry.series_index,
        summary: entry.summary.clone(),
    };
    if !from_kept_copy {
        book_view::remember_meta(store, book.id, &meta)?;
        if let (None, Some((feed, place))) = (&entry.series, listed_in) {
            book_view::remember_feed_series(store, book.id, &feed.name, feed.order_of(place))?;
        }
        carrel_reading::position_sync::remember_page_stream(store, book.id, entry)?;
    }
    // The series a series feed gives is shown as the entry's would be.
    let series = entry
        .series
        .clone()
        .or_else(|| listed_in.map(|(feed, _)| feed.name.clone()));
    let file = entry.acquisitions.first();
    Ok(CatalogItem::Book {
        book_id: book.id,
        title: entry.title.clone(),
        authors: entry.authors.clone(),
        format: catalog.format,
        page_count: entry.page_count(),
        stream_template: catalog.stream_template.clone(),
        file_type: file.map(|a| a.media_type.clone()),
        file_length: file.and_then(|a| a.length),
        series,
        series_index: entry.series_index,
        summary: entry.summary.clone(),
        not_streamable: entry.not_streamable.clone(),
    })
}

/// What Carrel keeps of a book entry: the page stream without bookmark-moving parameters,
/// the preferred acquisition, the cover.
/// `from_komga`: the entry is from a Komga feed, whose books take positions through Komga's own
/// read-progress API when they have no OPDS progression link.
pub fn catalog_book(entry: &BookEntry, from_komga: bool) -> CatalogBook {
    let format = match &entry.format {
        opds::EntryFormat::Comic => BookFormat::Comic,
        opds::EntryFormat::Epub => BookFormat::Epub,
        opds::EntryFormat::Pdf => BookFormat::Pdf,
        opds::EntryFormat::Other(_) => BookFormat::Other,
    };
    let file = preferred_acquisition(entry);
    let page_base = entry
        .stream
        .as_ref()
        .and_then(|s| s.page_base_hint())
        .unwrap_or_default();
    CatalogBook {
        catalog_id: entry.id.clone(),
        title: entry.title.clone(),
        authors: entry.authors.clone(),
        format,
        stream_template: entry.stream.as_ref().map(|s| s.background_template()),
        page_count: entry.page_count(),
        page_list: entry.page_list.iter().map(|u| u.to_string()).collect(),
        page_base: u8::from(page_base == PageBase::OneBased),
        file_url: file.map(|a| a.href.to_string()),
        file_type: file.map(|a| a.media_type.clone()),
        file_length: file.and_then(|a| a.length),
        cover_url: entry
            .cover
            .as_ref()
            .or(entry.thumbnail.as_ref())
            .map(|u| u.to_string()),
        progression_url: entry.progression.as_ref().map(|u| u.to_string()),
        read_progress_url: entry
            .stream
            .as_ref()
            .filter(|_| from_komga && entry.progression.is_none())
            .and_then(|s| carrel_reading::komga::read_progress_url(&s.background_template())),
    }
}

/// `link` if it is on the origin of the server's catalog address.
fn only_on_origin(link: Option<String>, server_url: &str) -> Option<String> {
    let origin = Url::parse(server_url).ok()?;
    link.filter(|l| Url::parse(l).is_ok_and(|u| carrel_http::http_fetch::same_origin(&u, &origin)))
}

/// EPUB before PDF before comic archives before anything else.
fn preferred_acquisition(entry: &BookEntry) -> Option<&opds::Acquisition> {
    let rank = |t: &str| match t.split(';').next().unwrap_or("").trim() {
        "application/epub+zip" => 0,
        "application/pdf" => 1,
        "application/vnd.comicbook+zip" | "application/x-cbz" => 2,
        _ => 3,
    };
    entry
        .acquisitions
        .iter()
        .min_by_key(|a| rank(&a.media_type))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn position_addresses_are_kept_only_on_the_servers_origin() {
        let server = "https://books.example.org/opds";
        let keep = |l: &str| only_on_origin(Some(l.to_owned()), server);
        assert!(keep("https://books.example.org/books/1/progression").is_some());
        for other in [
            "http://books.example.org/books/1/progression",
            "https://books.example.org:8443/books/1/progression",
            "https://127.0.0.1/api/v1/books/1/read-progress",
            "http://192.168.1.1/admin",
            "not a url",
        ] {
            assert_eq!(keep(other), None, "{other}");
        }
    }
}
