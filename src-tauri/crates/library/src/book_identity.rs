//! One book, one local id: whichever feed, sort order, filter or search a book was reached
//! through, it is the same book on this device — one download, one position, one "Continue
//! reading" tile.
//!
//! Servers do not all give an entry a stable `<id>`. Codex writes the feed's own view into it
//! (`/opds/v1.2/comics/5?topCollection=series&orderBy=date`, then `…&orderBy=sort_name`,
//! `…&filters=…`), so the raw id changes with the view. Two signals identify a book instead:
//!
//! - its **canonical id** ([`canonical_id`]): the entry id with view-only query parameters
//!   removed — sort orders, groupings, filters, search terms, paging ([`VIEW_PARAMS`]) — and
//!   the fragment dropped; ids that are not addresses (`urn:uuid:…`) are kept as they are;
//! - its **match key** ([`match_key`]): the address of what is downloaded — the page stream
//!   (bookmark parameters already removed), else the acquisition, else the first listed page —
//!   with the same view parameters removed.
//!
//! A catalog entry is the book already known on its server with the same canonical id, or else
//! with the same match key (see `books::remember`). Books remembered before these rules are
//! merged once by [`merge_duplicates`]: the copy with the most stored is kept, and it takes
//! the furthest-read position, the newest reading times, the pins, the descriptive fields and
//! the positions waiting to be sent that it lacked; the others' downloads and files go, and
//! the bookmarks and highlights made under the others' identities are moved to the keeper's.
//!
//! Owns the identity rules and the `identity_v` / `match_key` columns of `books`; the rest of
//! the table is [`crate::books`]'.

use std::collections::{BTreeMap, HashMap};

use rusqlite::params;
use url::Url;

use carrel_foundation::part_files::PartFiles;
use carrel_foundation::store::{Store, StoreError};

/// Query parameters that only choose how a feed is shown (order, grouping, filters, search,
/// paging) and never which book an address names. From Codex (`topGroup`, `topCollection`,
/// `orderBy`, `orderReverse`, `filters`, `q`), OpenSearch paging (`startIndex`, `startPage`,
/// `count`), Calibre-Web and calibre (`sort`, `offset`, `page`), Kavita (`pageNumber` of a
/// feed, never of a page stream — a parameter whose value is a template variable is kept).
pub const VIEW_PARAMS: &[&str] = &[
    "topgroup",
    "topcollection",
    "orderby",
    "orderreverse",
    "order",
    "sort",
    "sortby",
    "sort_by",
    "filters",
    "filter",
    "q",
    "query",
    "search",
    "searchterms",
    "term",
    "page",
    "pagenumber",
    "limit",
    "offset",
    "start",
    "startindex",
    "startpage",
    "count",
    "itemsperpage",
    "per_page",
    "size",
];

/// The entry id with view-only query parameters and the fragment removed, when the id is an
/// address (absolute, or a path from the server's root); any other id unchanged.
pub fn canonical_id(raw: &str) -> String {
    let raw = raw.trim();
    let relative = raw.starts_with('/');
    if !(relative || raw.starts_with("http://") || raw.starts_with("https://")) {
        return raw.to_owned();
    }
    let parsed = if relative {
        Url::parse("http://relative.invalid").and_then(|base| base.join(raw))
    } else {
        Url::parse(raw)
    };
    let Ok(url) = parsed else {
        return raw.to_owned();
    };
    let url = without_view_params(&url);
    if relative {
        match url.query() {
            Some(q) => format!("{}?{q}", url.path()),
            None => url.path().to_owned(),
        }
    } else {
        url.to_string()
    }
}

/// `url` without its view-only parameters and fragment (a parameter whose value holds a
/// template variable such as `{pageNumber}` is kept).
fn without_view_params(url: &Url) -> Url {
    let mut out = url.clone();
    out.set_fragment(None);
    let kept: Vec<(String, String)> = url
        .query_pairs()
        .filter(|(k, v)| {
            is_template_variable(v) || !VIEW_PARAMS.contains(&k.to_ascii_lowercase().as_str())
        })
        .map(|(k, v)| (k.into_owned(), v.into_owned()))
        .collect();
    if kept.is_empty() {
        out.set_query(None);
    } else {
        out.query_pairs_mut().clear().extend_pairs(kept);
    }
    out
}

/// `{pageNumber}`, `{maxWidth}`: a URL template's variable, not a value.
fn is_template_variable(value: &str) -> bool {
    value
        .strip_prefix('{')
        .and_then(|v| v.strip_suffix('}'))
        .is_some_and(|name| {
            !name.is_empty() && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
        })
}

/// The address of what is downloaded for a book, view parameters removed: the page stream,
/// else the acquisition, else the first listed page. `None` when the book has none of them.
pub fn match_key(
    stream_template: Option<&str>,
    file_url: Option<&str>,
    first_page: Option<&str>,
) -> Option<String> {
    let (tag, raw) = match (stream_template, file_url, first_page) {
        (Some(s), _, _) => ("stream", s),
        (None, Some(f), _) => ("file", f),
        (None, None, Some(p)) => ("page", p),
        _ => return None,
    };
    let url = Url::parse(raw).ok()?;
    Some(format!("{tag} {}", without_view_params(&url)))
}

/// One row of `books` as the merge sees it.
#[derive(Debug, Clone)]
struct Row {
    id: i64,
    server_id: i64,
    catalog_id: String,
    key: Option<String>,
    pinned: bool,
    last_opened_ms: Option<i64>,
    last_page: Option<i64>,
    position_ms: Option<i64>,
    stored: i64,
}

/// Merges the books remembered under several ids that are one book (see the module's rules),
/// once: books checked before are skipped. Returns how many duplicates were merged away.
pub fn merge_duplicates(store: &Store) -> Result<usize, StoreError> {
    let unchecked: i64 = carrel_foundation::rows::value(
        store,
        "SELECT count(*) FROM books WHERE identity_v = 0",
        [],
    )?;
    if unchecked == 0 {
        return Ok(0);
    }
    let rows: Vec<Row> = carrel_foundation::rows::all(
        store,
        "SELECT b.id, b.server_id, b.catalog_id, b.stream_template, b.file_url, b.page_list, b.pinned,
                b.last_opened_ms, b.last_page, b.position_ms,
                (SELECT count(*) FROM tasks t WHERE t.book_id = b.id AND t.state = 'done'
                   AND t.kind IN ('page', 'file'))
         FROM books b ORDER BY b.id",
        [],
        |r| {
            let stream: Option<String> = r.get(3)?;
            let file: Option<String> = r.get(4)?;
            let pages: Option<String> = r.get(5)?;
            let first_page = pages
                .and_then(|j| serde_json::from_str::<Vec<String>>(&j).ok())
                .and_then(|p| p.into_iter().next());
            Ok(Row {
                id: r.get(0)?,
                server_id: r.get(1)?,
                catalog_id: canonical_id(&r.get::<_, String>(2)?),
                key: match_key(stream.as_deref(), file.as_deref(), first_page.as_deref()),
                pinned: r.get(6)?,
                last_opened_ms: r.get(7)?,
                last_page: r.get(8)?,
                position_ms: r.get(9)?,
                stored: r.get(10)?,
            })
        },
    )?;

    // Books that share a canonical id or a match key on one server are one book (union-find).
    let mut parent: Vec<usize> = (0..rows.len()).collect();
    fn root(parent: &mut [usize], mut i: usize) -> usize {
        while parent[i] != i {
            parent[i] = parent[parent[i]];
            i = parent[i];
        }
        i
    }
    let mut by_id: HashMap<(i64, &str), usize> = HashMap::new();
    let mut by_key: HashMap<(i64, &str), usize> = HashMap::new();
    for (i, row) in rows.iter().enumerate() {
        let join = |other: usize, parent: &mut Vec<usize>| {
            let (a, b) = (root(parent, i), root(parent, other));
            if a != b {
                parent[a.max(b)] = a.min(b);
            }
        };
        match by_id.get(&(row.server_id, row.catalog_id.as_str())) {
            Some(&other) => join(other, &mut parent),
            None => {
                by_id.insert((row.server_id, row.catalog_id.as_str()), i);
            }
        }
        if let Some(key) = row.key.as_deref() {
            match by_key.get(&(row.server_id, key)) {
                Some(&other) => join(other, &mut parent),
                None => {
                    by_key.insert((row.server_id, key), i);
                }
            }
        }
    }
    let mut groups: BTreeMap<usize, Vec<&Row>> = BTreeMap::new();
    for (i, row) in rows.iter().enumerate() {
        let r = root(&mut parent, i);
        groups.entry(r).or_default().push(row);
    }

    // Every group in one transaction: the first run after an upgrade checks every book.
    let removed: Vec<(i64, Vec<i64>)> = store.write(|tx| {
        let sql = |e| store.sql_error(e);
        let mut removed = Vec::new();
        for group in groups.values() {
            let keeper = group
                .iter()
                .max_by_key(|r| (r.stored, r.pinned, r.last_opened_ms, std::cmp::Reverse(r.id)))
                .expect("a group has a book");
            let others: Vec<i64> = group.iter().map(|r| r.id).filter(|&id| id != keeper.id).collect();
            // The furthest-read position, and the newest reading time, of all the copies.
            let furthest = group.iter().filter(|r| r.last_page.is_some()).max_by_key(|r| (r.last_page, r.position_ms));
            let last_opened = group.iter().filter_map(|r| r.last_opened_ms).max();
            let pinned = group.iter().any(|r| r.pinned);
            for &other in &others {
                tx.execute(
                    "INSERT OR IGNORE INTO book_meta (book_id, authors, series, series_index, summary, series_source, series_order)
                     SELECT ?1, authors, series, series_index, summary, series_source, series_order FROM book_meta WHERE book_id = ?2",
                    params![keeper.id, other],
                )
                .map_err(sql)?;
                // The EPUB position read furthest, and the newest position waiting for the server.
                tx.execute(
                    "INSERT INTO epub_positions (book_id, cfi, fraction, updated_at_ms, chapter)
                     SELECT ?1, cfi, fraction, updated_at_ms, chapter FROM epub_positions WHERE book_id = ?2 AND true
                     ON CONFLICT (book_id) DO UPDATE SET cfi = excluded.cfi, fraction = excluded.fraction,
                         updated_at_ms = excluded.updated_at_ms, chapter = excluded.chapter
                     WHERE excluded.fraction > epub_positions.fraction",
                    params![keeper.id, other],
                )
                .map_err(sql)?;
                tx.execute(
                    "INSERT INTO position_outbox (book_id, page, progression, updated_at_ms, attempts, last_error, cfi)
                     SELECT ?1, page, progression, updated_at_ms, attempts, last_error, cfi FROM position_outbox
                     WHERE book_id = ?2 AND true
                     ON CONFLICT (book_id) DO UPDATE SET page = excluded.page, progression = excluded.progression,
                         updated_at_ms = excluded.updated_at_ms, attempts = excluded.attempts,
                         last_error = excluded.last_error, cfi = excluded.cfi
                     WHERE excluded.updated_at_ms > position_outbox.updated_at_ms",
                    params![keeper.id, other],
                )
                .map_err(sql)?;
                tx.execute(
                    "INSERT OR IGNORE INTO download_batch_books (batch_id, book_id, ord)
                     SELECT batch_id, ?1, ord FROM download_batch_books WHERE book_id = ?2",
                    params![keeper.id, other],
                )
                .map_err(sql)?;
                tx.execute("DELETE FROM books WHERE id = ?1", [other]).map_err(sql)?;
            }
            // Bookmarks and highlights made under another copy's identity follow the keeper's.
            for other in group.iter().filter(|r| r.id != keeper.id) {
                tx.execute(
                    "UPDATE annotations SET book_key = ?2, match_key = ?3
                     WHERE server_id = ?1 AND (book_key = ?4 OR (?5 IS NOT NULL AND match_key = ?5))",
                    params![keeper.server_id, keeper.catalog_id, keeper.key, other.catalog_id, other.key],
                )
                .map_err(sql)?;
            }
            tx.execute(
                "UPDATE books SET catalog_id = ?2, match_key = ?3, identity_v = 1, pinned = ?4,
                     last_opened_ms = ?5, last_page = coalesce(?6, last_page), position_ms = coalesce(?7, position_ms)
                 WHERE id = ?1",
                params![
                    keeper.id,
                    keeper.catalog_id,
                    keeper.key,
                    pinned,
                    last_opened,
                    furthest.and_then(|r| r.last_page),
                    furthest.and_then(|r| r.position_ms),
                ],
            )
            .map_err(sql)?;
            if !others.is_empty() {
                removed.push((keeper.id, others));
            }
        }
        Ok::<_, StoreError>(removed)
    })?;
    let files = PartFiles::new(store.data_dir().books());
    let mut merged = 0;
    for (keeper, others) in removed {
        for other in &others {
            // The merged copies' files: their tasks are gone, so these are orphans now; a
            // failure here leaves them to the executor's orphan collection.
            if let Err(e) = files.remove_book(*other) {
                tracing::warn!(book = other, cause = %e, "could not remove a merged copy's files yet");
            }
        }
        tracing::info!(
            book = keeper,
            merged = others.len(),
            "merged copies of one book"
        );
        merged += others.len();
    }
    Ok(merged)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn codex_views_of_one_comic_have_one_canonical_id() {
        let views = [
            "/opds/v1.2/comics/5?topCollection=series&orderBy=date",
            "/opds/v1.2/comics/5?topCollection=series&orderBy=sort_name",
            "/opds/v1.2/comics/5?topGroup=p&orderBy=sort_name&filters=%7B%22bookmark%22%3A%22UNREAD%22%7D",
            "/opds/v1.2/comics/5?q=saga&orderReverse=true",
            "/opds/v1.2/comics/5",
            "/opds/v1.2/comics/5#top",
        ];
        for v in views {
            assert_eq!(canonical_id(v), "/opds/v1.2/comics/5", "{v}");
        }
        assert_ne!(
            canonical_id("/opds/v1.2/comics/5?x=1"),
            canonical_id("/opds/v1.2/comics/6?x=1")
        );
    }

    #[test]
    fn ids_that_name_the_book_by_a_parameter_keep_it() {
        assert_eq!(
            canonical_id("http://nas:8083/opds/book?id=12&sort=title&page=2"),
            "http://nas:8083/opds/book?id=12"
        );
        assert_eq!(canonical_id("urn:uuid:6e5f-11"), "urn:uuid:6e5f-11");
        assert_eq!(canonical_id("  calibre:book:12 "), "calibre:book:12");
    }

    #[test]
    fn match_keys_prefer_the_page_stream_and_keep_template_variables() {
        let kavita = "http://k/api/opds/KEY/image?libraryId=1&seriesId=2&volumeId=3&chapterId=4&pageNumber={pageNumber}";
        let key = match_key(Some(kavita), Some("http://k/dl/4"), None).unwrap();
        assert!(
            key.starts_with("stream ")
                && key.contains("chapterId=4")
                && key.contains("pageNumber="),
            "{key}"
        );
        let other = kavita.replace("chapterId=4", "chapterId=5");
        assert_ne!(match_key(Some(&other), None, None), Some(key));
        assert_eq!(
            match_key(
                None,
                Some("http://c/opds/v1.2/c/5/download?orderBy=date"),
                None
            ),
            match_key(None, Some("http://c/opds/v1.2/c/5/download"), None)
        );
        assert_eq!(match_key(None, None, None), None);
    }
}
