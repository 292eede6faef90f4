//! Browsing and searching a server's catalog: fetches a feed politely (through the server's
//! request slot), parses it with [`crate::opds`], and gives every book entry its local id by
//! remembering it in [`crate::books`], so what the reader sees can be stored or opened.
//!
//! Owns no table and no parsing: it joins HTTP, OPDS and the book list.

use serde::Serialize;
use url::Url;

use crate::books::{self, BookFormat, CatalogBook};
use crate::credentials::Credentials;
use crate::http_fetch::{FetchError, HttpClient, ServerAccess};
use crate::opds::{self, BookEntry, Entry, OpdsError, PageBase, SearchLink};
use crate::servers::Server;
use crate::store::{Store, StoreError};

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
    #[error(transparent)]
    Store(#[from] StoreError),
    #[error(transparent)]
    Other(#[from] crate::Error),
}

/// One feed as the reader sees it.
#[derive(Debug, Clone, Serialize)]
pub struct CatalogPage {
    pub title: String,
    pub feed_url: String,
    pub entries: Vec<CatalogItem>,
    pub next: Option<String>,
    pub previous: Option<String>,
    pub searchable: bool,
}

#[derive(Debug, Clone, Serialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum CatalogItem {
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
        stream_template: Option<String>,
        file_type: Option<String>,
        file_length: Option<u64>,
        series: Option<String>,
        series_index: Option<f64>,
        summary: Option<String>,
    },
}

/// What catalog calls need.
pub struct CatalogClient<'a> {
    pub store: &'a Store,
    pub credentials: &'a Credentials,
    pub http: &'a HttpClient,
}

const MAX_FEED: u64 = opds::MAX_FEED_BYTES as u64;

impl CatalogClient<'_> {
    /// Fetches and reads one feed of `server`: its root when `feed` is `None`, else `feed`
    /// (absolute, or relative to the server's root feed).
    pub async fn browse(&self, server: &Server, feed: Option<&str>) -> Result<CatalogPage, CatalogError> {
        let root = Url::parse(&server.url).map_err(|_| CatalogError::BadFeedUrl(server.url.clone()))?;
        let url = match feed {
            None => root.clone(),
            Some(f) => root.join(f).map_err(|_| CatalogError::BadFeedUrl(f.to_owned()))?,
        };
        if url.host_str() != root.host_str() || url.port_or_known_default() != root.port_or_known_default() {
            // The server's credentials go only to the server.
            return Err(CatalogError::BadFeedUrl(feed.unwrap_or_default().to_owned()));
        }
        let access = ServerAccess::load(server, self.credentials)?;
        let fetched = self.http.get_bytes(self.store, &access, &url, MAX_FEED).await?;
        let feed = opds::parse_feed(&fetched.bytes, &fetched.final_url)?;
        let mut entries = Vec::with_capacity(feed.entries.len());
        for entry in feed.entries {
            entries.push(match entry {
                Entry::Navigation(nav) => CatalogItem::Navigation {
                    title: nav.title,
                    href: nav.href.to_string(),
                    summary: nav.summary,
                },
                Entry::Book(book) => self.remember(server, &book)?,
            });
        }
        Ok(CatalogPage {
            title: feed.title,
            feed_url: url.to_string(),
            entries,
            next: feed.links.next.map(|u| u.to_string()),
            previous: feed.links.previous.map(|u| u.to_string()),
            searchable: feed.links.search.is_some(),
        })
    }

    /// Searches the catalog through its OpenSearch link.
    pub async fn search(&self, server: &Server, query: &str) -> Result<CatalogPage, CatalogError> {
        let root = Url::parse(&server.url).map_err(|_| CatalogError::BadFeedUrl(server.url.clone()))?;
        let access = ServerAccess::load(server, self.credentials)?;
        let fetched = self.http.get_bytes(self.store, &access, &root, MAX_FEED).await?;
        let feed = opds::parse_feed(&fetched.bytes, &fetched.final_url)?;
        let template = match feed.links.search.ok_or(CatalogError::NoSearch)? {
            SearchLink::Template { template } => template,
            SearchLink::OpenSearchDescription { href } => {
                let doc = self
                    .http
                    .get_bytes(self.store, &access, &href, opds::MAX_SEARCH_DESCRIPTION_BYTES as u64)
                    .await?;
                opds::parse_open_search(&doc.bytes, &doc.final_url)?
            }
        };
        let url = template.url_for(query)?;
        self.browse(server, Some(url.as_str())).await
    }

    fn remember(&self, server: &Server, entry: &BookEntry) -> Result<CatalogItem, CatalogError> {
        let catalog = catalog_book(entry);
        let book = books::remember(self.store, server.id, &catalog).map_err(crate::Error::from)?;
        let file = entry.acquisitions.first();
        Ok(CatalogItem::Book {
            book_id: book.id,
            title: entry.title.clone(),
            authors: entry.authors.clone(),
            format: catalog.format,
            page_count: entry.stream.as_ref().map(|s| s.count),
            stream_template: catalog.stream_template.clone(),
            file_type: file.map(|a| a.media_type.clone()),
            file_length: file.and_then(|a| a.length),
            series: entry.series.clone(),
            series_index: entry.series_index,
            summary: entry.summary.clone(),
        })
    }
}

/// What Carrel keeps of a book entry: the page stream without bookmark-moving parameters,
/// the preferred acquisition, the cover.
pub fn catalog_book(entry: &BookEntry) -> CatalogBook {
    let format = match &entry.format {
        opds::BookFormat::Comic => BookFormat::Comic,
        opds::BookFormat::Epub => BookFormat::Epub,
        opds::BookFormat::Pdf => BookFormat::Pdf,
        opds::BookFormat::Other(_) => BookFormat::Other,
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
        page_count: entry.stream.as_ref().map(|s| s.count),
        page_base: u8::from(page_base == PageBase::OneBased),
        file_url: file.map(|a| a.href.to_string()),
        file_type: file.map(|a| a.media_type.clone()),
        file_length: file.and_then(|a| a.length),
        cover_url: entry.cover.as_ref().or(entry.thumbnail.as_ref()).map(|u| u.to_string()),
    }
}

/// EPUB before PDF before comic archives before anything else.
fn preferred_acquisition(entry: &BookEntry) -> Option<&opds::Acquisition> {
    let rank = |t: &str| match t.split(';').next().unwrap_or("").trim() {
        "application/epub+zip" => 0,
        "application/pdf" => 1,
        "application/vnd.comicbook+zip" | "application/x-cbz" => 2,
        _ => 3,
    };
    entry.acquisitions.iter().min_by_key(|a| rank(&a.media_type))
}
