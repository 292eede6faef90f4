//! Finding a book by what the reader remembers of it, in two places at once:
//!
//! - **on this device** ([`on_device`]): the books the reader can open without a server — kept
//!   offline, opened here, or with something stored — matched by title, authors and series
//!   (what their catalog entry said), with no server asked, in a few milliseconds for tens of
//!   thousands of books;
//! - **across every server** ([`across_servers`]): each server's own catalog search, all started
//!   together (each request still goes through its own server's request slot, so no server gets
//!   more than one request at a time), each answer handed over as soon as it comes; a server
//!   that cannot be reached answers from its kept catalog pages and says it is offline.
//!
//! Matching folds case and accents (`Émile` finds `emile` and the reverse): every word of the
//! query must occur in the book's title, authors or series. Books whose title matches rank
//! above books matched by series, then by author; books on the device come first among equals.
//!
//! Owns no table and no HTTP: reads `books` and `book_meta` (through [`crate::book_view`]) and
//! searches through [`crate::client`].

use futures_util::stream::{FuturesUnordered, StreamExt};
use serde::Serialize;
use unicode_normalization::{char::is_combining_mark, UnicodeNormalization};

use crate::book_view::{self, BookDetails};
use crate::client::{CatalogClient, CatalogError, CatalogView};
use carrel_engine::book_downloads::BookState;
use carrel_foundation::error::{ErrorKind, Failure};
use carrel_foundation::store::{Store, StoreError};
use carrel_library::servers;

/// How many books [`on_device`] returns when the caller does not say.
pub const DEFAULT_LIMIT: u32 = 50;
/// The most it returns.
pub const MAX_LIMIT: u32 = 500;
/// The longest query taken (in characters); longer ones are refused, not cut.
pub const MAX_QUERY_CHARS: usize = 200;

#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum SearchError {
    #[error("type something to search for")]
    EmptyQuery,
    #[error("a search is at most {MAX_QUERY_CHARS} characters")]
    QueryTooLong,
    #[error(transparent)]
    Other(#[from] carrel_library::error::Error),
}

impl carrel_foundation::error::Failure for SearchError {
    fn kind(&self) -> carrel_foundation::error::ErrorKind {
        match self {
            SearchError::EmptyQuery | SearchError::QueryTooLong => ErrorKind::InvalidInput,
            SearchError::Other(e) => e.kind(),
        }
    }
}

from_library_errors!(SearchError::Other: StoreError);

/// Lower case, accents removed, every run of non-alphanumeric characters one space.
pub fn fold(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut gap = false;
    for c in text.nfd().filter(|c| !is_combining_mark(*c)) {
        if c.is_alphanumeric() {
            if gap && !out.is_empty() {
                out.push(' ');
            }
            gap = false;
            out.extend(c.to_lowercase());
        } else {
            gap = true;
        }
    }
    out
}

/// The words of a query, folded; refuses an empty or overlong one.
fn query_words(query: &str) -> Result<Vec<String>, SearchError> {
    if query.chars().count() > MAX_QUERY_CHARS {
        return Err(SearchError::QueryTooLong);
    }
    let words: Vec<String> = fold(query)
        .split(' ')
        .filter(|w| !w.is_empty())
        .map(str::to_owned)
        .collect();
    if words.is_empty() {
        return Err(SearchError::EmptyQuery);
    }
    Ok(words)
}

/// How well a book's fields match the query's words: `None` when some word is in none of them.
fn score(words: &[String], title: &str, series: &str, authors: &str) -> Option<u32> {
    let mut score = 0;
    for w in words {
        score += if title.contains(w.as_str()) {
            if title.starts_with(w.as_str()) {
                8
            } else {
                6
            }
        } else if series.contains(w.as_str()) {
            4
        } else if authors.contains(w.as_str()) {
            2
        } else {
            return None;
        };
    }
    Some(score)
}

/// Books on this device (kept offline, opened here, or with a part stored) whose title, authors
/// or series hold every word of `query`, best match first (whole books before partly stored ones
/// among equals, then the most recently opened), at most `limit` ([`DEFAULT_LIMIT`], at most
/// [`MAX_LIMIT`]).
pub fn on_device(
    store: &Store,
    query: &str,
    limit: Option<u32>,
) -> Result<Vec<BookDetails>, SearchError> {
    let words = query_words(query)?;
    let limit = limit.unwrap_or(DEFAULT_LIMIT).clamp(1, MAX_LIMIT) as usize;
    type Row = (
        i64,
        String,
        String,
        Option<String>,
        Option<String>,
        Option<i64>,
    );
    let rows: Vec<Row> = carrel_foundation::rows::all(
        store,
        "SELECT b.id, b.title, b.authors, m.authors, m.series, b.last_opened_ms
         FROM books b LEFT JOIN book_meta m ON m.book_id = b.id
         WHERE b.pinned = 1 OR b.last_opened_ms IS NOT NULL
            OR EXISTS (SELECT 1 FROM tasks t WHERE t.book_id = b.id AND t.state = 'done'
                       AND t.kind IN ('page', 'file'))",
        [],
        |r| Row::try_from(r),
    )?;
    let mut hits: Vec<(u32, Option<i64>, i64)> = rows
        .into_iter()
        .filter_map(|(id, title, authors, meta_authors, series, opened)| {
            // The catalog's list of authors when there is one (JSON), else the joined names.
            let authors = meta_authors.unwrap_or(authors);
            let s = score(
                &words,
                &fold(&title),
                &fold(series.as_deref().unwrap_or("")),
                &fold(&authors),
            )?;
            Some((s, opened, id))
        })
        .collect();
    hits.sort_by(|a, b| b.0.cmp(&a.0).then(b.1.cmp(&a.1)).then(a.2.cmp(&b.2)));
    // Looked at a few more than asked for, so whole books can come first among equals.
    let mut details = Vec::new();
    for (s, _, id) in hits.into_iter().take(limit.saturating_mul(2)) {
        details.push((s, book_view::details(store, id)?));
    }
    details.sort_by(|(sa, a), (sb, b)| sb.cmp(sa).then(stored_rank(b).cmp(&stored_rank(a))));
    Ok(details.into_iter().take(limit).map(|(_, d)| d).collect())
}

fn stored_rank(d: &BookDetails) -> u8 {
    match d.status.state {
        BookState::Stored => 2,
        BookState::Remote => 0,
        _ => 1,
    }
}

/// One server's answer to a search across servers.
#[derive(Debug, Clone, Serialize, ts_rs::TS)]
pub struct ServerAnswer {
    pub server_id: i64,
    pub server_name: String,
    #[serde(flatten)]
    pub outcome: ServerOutcome,
}

#[derive(Debug, Clone, Serialize, ts_rs::TS)]
#[serde(tag = "outcome", rename_all = "snake_case")]
pub enum ServerOutcome {
    /// The server's results (`view.offline` when they come from the kept catalog pages).
    Results { view: CatalogView },
    /// The server's catalog offers no search.
    NoSearch,
    /// The server could not answer, and nothing was kept to answer for it.
    Failed { kind: ErrorKind, message: String },
}

/// Searches every server's catalog at once; `on_answer` gets each server's answer as it comes
/// (so a slow server never holds up the others). Returns how many servers were asked.
pub async fn across_servers(
    client: &CatalogClient<'_>,
    query: &str,
    mut on_answer: impl FnMut(ServerAnswer),
) -> Result<usize, SearchError> {
    query_words(query)?;
    let query = query.trim();
    let servers = client
        .store
        .call(servers::list)
        .await
        .map_err(carrel_library::error::Error::from)?;
    let asked = servers.len();
    let mut pending: FuturesUnordered<_> = servers
        .into_iter()
        .map(|server| async move {
            let outcome = match client.search_view(server.id, query).await {
                Ok(view) => ServerOutcome::Results { view },
                Err(CatalogError::NoSearch) => ServerOutcome::NoSearch,
                Err(e) => ServerOutcome::Failed {
                    kind: e.kind(),
                    message: e.to_string(),
                },
            };
            ServerAnswer {
                server_id: server.id,
                server_name: server.name,
                outcome,
            }
        })
        .collect();
    while let Some(answer) = pending.next().await {
        on_answer(answer);
    }
    Ok(asked)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn folding_drops_case_accents_and_punctuation() {
        assert_eq!(fold("Émile  Zola: L'Œuvre"), "emile zola l œuvre");
        assert_eq!(fold("  Saga, Vol. 2 "), "saga vol 2");
        assert_eq!(fold("ÇA VA?"), "ca va");
        assert_eq!(fold("…"), "");
    }

    #[test]
    fn every_word_must_match_somewhere() {
        let words = query_words("saga vaughan").unwrap();
        assert!(score(&words, "saga vol 1", "saga", "brian k vaughan").is_some());
        assert!(score(&words, "saga vol 1", "saga", "fiona staples").is_none());
    }

    #[test]
    fn a_title_match_outranks_a_series_match_which_outranks_an_author_match() {
        let words = query_words("moon").unwrap();
        let title_start = score(&words, "moon knight", "", "").unwrap();
        let title = score(&words, "blue moon", "", "").unwrap();
        let series = score(&words, "issue 3", "moon girl", "").unwrap();
        let author = score(&words, "issue 3", "", "alan moon").unwrap();
        assert!(title_start > title && title > series && series > author);
    }

    #[test]
    fn empty_and_overlong_queries_are_refused() {
        assert!(matches!(query_words("   "), Err(SearchError::EmptyQuery)));
        assert!(matches!(query_words("?!"), Err(SearchError::EmptyQuery)));
        assert!(matches!(
            query_words(&"x".repeat(MAX_QUERY_CHARS + 1)),
            Err(SearchError::QueryTooLong)
        ));
        assert_eq!(query_words("x").unwrap(), vec!["x"]);
    }
}
