//! One book, one local id on a server, whichever feed, sort, filter or search it was reached
//! through.
//!
//! Servers do not all give an entry the same `<id>` in every feed: Codex writes the feed's own
//! query into it (`/opds/v1.2/comics/5?topCollection=series&orderBy=date`, `…&orderBy=sort_name`,
//! `…&filters=…`), so the same comic reached through Series View, Latest Unread, a sort and a
//! search would get a new local id each time. A book is therefore known by two keys, and an entry
//! matches a known book on either:
//! - the **identity key**: the entry id with the view-only query parameters removed
//!   ([`VIEW_PARAMETERS`]); an id that is not a URL (`urn:uuid:…`) is its own key;
//! - the **content key**: the acquisition URL, else the page-stream template, else the first
//!   listed page, with view and bookmark parameters removed ([`BOOKMARK_PARAMETERS`]).
//!
//! Also merges the duplicates that older versions left in a database ([`merge_duplicates`]):
//! the lowest id survives and takes the furthest-read position, the newest position time, the
//! pin, the stored files, the tasks, the metadata, the EPUB position and the queued position.
//!
//! Owns the `identity_key` / `content_key` columns of `books`; the rest of the table belongs to
//! [`crate::books`], the files to [`crate::part_files`].

use std::collections::{BTreeMap, HashMap};
use std::fs;
use std::io;
use std::path::Path;

use rusqlite::{params, Connection, Transaction};

use crate::books::CatalogBook;
use crate::part_files::PartFiles;
use crate::store::{Store, StoreError};

/// Query parameters that choose how a feed is viewed — its order, grouping, filter, search or
/// page — and never which book an entry is. Compared case-insensitively.
///
/// - Codex (`codex/views/opds/v1/…`): `orderBy`, `orderReverse`, `topCollection`, `topGroup`,
///   `filters`, `q`, `search`, `page`, `browse`.
/// - Komga (`/opds/v1.2/…`): `page`, `size`, `sort`, `search`.
/// - Kavita, Stump, Calibre-Web, calibre: `pageNumber`, `offset`, `limit`, `start`, `query`,
///   `order`, `sort_by`.
///
/// Parameters that do name a book (`id`, `book_id`, `uuid`, a path segment) are kept.
pub const VIEW_PARAMETERS: &[&str] = &[
    "orderby",
    "orderreverse",
    "topcollection",
    "topgroup",
    "filters",
    "q",
    "query",
    "search",
    "browse",
    "page",
    "pagenumber",
    "size",
    "limit",
    "offset",
    "start",
    "sort",
    "sort_by",
    "order",
];

/// Parameters of a page-stream or acquisition URL that move a server-side bookmark or choose a
/// rendering, not a book (Codex's `bookmark`, Komga's `zero_based`, the PSE width).
pub const BOOKMARK_PARAMETERS: &[&str] = &["bookmark", "zero_based", "maxwidth", "width", "convert"];

/// The identity key of a catalog entry id.
pub fn identity_key(entry_id: &str) -> String {
    strip_parameters(entry_id.trim(), VIEW_PARAMETERS)
}

/// The content key of an entry: its acquisition, else its page stream, else its first page.
pub fn content_key(file_url: Option<&str>, stream_template: Option<&str>, page_list: &[String]) -> Option<String> {
    let source = file_url
        .filter(|s| !s.trim().is_empty())
        .or(stream_template.filter(|s| !s.trim().is_empty()))
        .or(page_list.first().map(String::as_str))?;
    let all: Vec<&str> = VIEW_PARAMETERS.iter().chain(BOOKMARK_PARAMETERS).copied().collect();
    Some(strip_parameters(source.trim(), &all))
}

/// The two keys of an entry as found in a feed.
pub fn keys_of(entry: &CatalogBook) -> (String, Option<String>) {
    (
        identity_key(&entry.catalog_id),
        content_key(entry.file_url.as_deref(), entry.stream_template.as_deref(), &entry.page_list),
    )
}

/// Removes the named query parameters from an absolute URL or an absolute path, keeping the
/// others in their order. A value without a query (or not a URL at all) is returned unchanged.
fn strip_parameters(value: &str, names: &[&str]) -> String {
    let (head, fragment) = match value.split_once('#') {
        Some((h, f)) => (h, Some(f)),
        None => (value, None),
    };
    let Some((path, query)) = head.split_once('?') else {
        return value.to_owned();
    };
    if !(path.contains("://") || path.starts_with('/')) {
        return value.to_owned();
    }
    let kept: Vec<&str> = query
        .split('&')
        .filter(|pair| !pair.is_empty())
        .filter(|pair| {
            let name = pair.split_once('=').map_or(*pair, |(n, _)| n);
            // `{pageNumber}`-style template placeholders are part of the stream, never a view.
            let is_template = pair.contains('{');
            is_template || !names.iter().any(|v| v.eq_ignore_ascii_case(name))
        })
        .collect();
    let mut out = path.to_owned();
    if !kept.is_empty() {
        out.push('?');
        out.push_str(&kept.join("&"));
    }
    if let Some(f) = fragment {
        out.push('#');
        out.push_str(f);
    }
    out
}

/// The id of the known book of `server_id` an entry with these keys is, if any: the same
/// catalog id first, then the same identity key, then the same content key.
pub(crate) fn find_known(
    conn: &Connection,
    server_id: i64,
    catalog_id: &str,
    identity: &str,
    content: Option<&str>,
) -> rusqlite::Result<Option<i64>> {
    let mut stmt = conn.prepare_cached(
        "SELECT id FROM books WHERE server_id = ?1 AND
            (catalog_id = ?2 OR identity_key = ?3 OR (?4 IS NOT NULL AND content_key = ?4))
         ORDER BY (catalog_id = ?2) DESC, (identity_key = ?3) DESC, id LIMIT 1",
    )?;
    let mut rows = stmt.query(params![server_id, catalog_id, identity, content])?;
    match rows.next()? {
        Some(row) => Ok(Some(row.get(0)?)),
        None => Ok(None),
    }
}

/// What merging found and did.
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub struct MergeReport {
    /// Book rows folded into another (and deleted).
    pub merged: usize,
}

/// Gives every book its keys, then folds books of one server that share a key into the lowest
/// id. Idempotent and cheap when there is nothing to do; run when the store opens.
///
/// Files move first (a rename per file, into the survivor's folder, its own files winning),
/// then one transaction re-points the rows: a stop in between leaves the duplicate's rows,
/// which the next run merges again.
pub fn merge_duplicates(store: &Store) -> Result<MergeReport, StoreError> {
    backfill_keys(store)?;
    let groups = duplicate_groups(store)?;
    if groups.is_empty() {
        return Ok(MergeReport::default());
    }
    let files = PartFiles::new(store.data_dir().books());
    let mut report = MergeReport::default();
    for (survivor, others) in groups {
        for &dup in &others {
            let moved = move_files(&files.book_dir(dup), &files.book_dir(survivor))
                .and_then(|_| move_kept_cover(store, dup, survivor));
            if let Err(e) = moved {
                // Nothing is merged without its files: the next start tries again.
                tracing::warn!(book = dup, into = survivor, error = %e, "could not move a duplicate book's files");
                continue;
            }
            store.write(|tx| merge_rows(tx, survivor, dup).map_err(|e| store.sql_error(e)))?;
            report.merged += 1;
        }
    }
    tracing::info!(merged = report.merged, "merged duplicate books");
    Ok(report)
}

fn backfill_keys(store: &Store) -> Result<(), StoreError> {
    type Row = (i64, String, Option<String>, Option<String>, Option<String>);
    let rows: Vec<Row> = store
        .read(|c| {
            let mut stmt = c.prepare(
                "SELECT id, catalog_id, file_url, stream_template, page_list FROM books WHERE identity_key IS NULL",
            )?;
            let rows = stmt.query_map([], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?, r.get(4)?)))?;
            rows.collect::<rusqlite::Result<Vec<_>>>()
        })
        .map_err(|e| store.sql_error(e))?;
    if rows.is_empty() {
        return Ok(());
    }
    store.write(|tx| {
        let mut stmt = tx
            .prepare("UPDATE books SET identity_key = ?2, content_key = ?3 WHERE id = ?1")
            .map_err(|e| store.sql_error(e))?;
        for (id, catalog_id, file_url, template, page_list) in rows {
            let pages: Vec<String> = page_list.and_then(|j| serde_json::from_str(&j).ok()).unwrap_or_default();
            let content = content_key(file_url.as_deref(), template.as_deref(), &pages);
            stmt.execute(params![id, identity_key(&catalog_id), content])
                .map_err(|e| store.sql_error(e))?;
        }
        Ok(())
    })
}

/// Survivor (lowest id) → the other ids, for every set of one server's books linked by a shared
/// identity or content key (transitively).
fn duplicate_groups(store: &Store) -> Result<BTreeMap<i64, Vec<i64>>, StoreError> {
    let links: Vec<(i64, i64)> = store
        .read(|c| {
            let mut stmt = c.prepare(
                "SELECT a.id, b.id FROM books a JOIN books b
                   ON a.server_id = b.server_id AND a.id < b.id
                  AND (a.identity_key = b.identity_key OR a.content_key = b.content_key)",
            )?;
            let rows = stmt.query_map([], |r| Ok((r.get(0)?, r.get(1)?)))?;
            rows.collect::<rusqlite::Result<Vec<_>>>()
        })
        .map_err(|e| store.sql_error(e))?;
    let mut parent: HashMap<i64, i64> = HashMap::new();
    fn root(parent: &mut HashMap<i64, i64>, x: i64) -> i64 {
        let mut r = x;
        while let Some(&p) = parent.get(&r) {
            if p == r {
                break;
            }
            r = p;
        }
        parent.insert(x, r);
        r
    }
    for (a, b) in links {
        let (ra, rb) = (root(&mut parent, a), root(&mut parent, b));
        let (lo, hi) = (ra.min(rb), ra.max(rb));
        parent.insert(lo, lo);
        parent.insert(hi, lo);
    }
    let ids: Vec<i64> = parent.keys().copied().collect();
    let mut groups: BTreeMap<i64, Vec<i64>> = BTreeMap::new();
    for id in ids {
        let r = root(&mut parent, id);
        if r != id {
            groups.entry(r).or_default().push(id);
        }
    }
    for others in groups.values_mut() {
        others.sort_unstable();
    }
    Ok(groups)
}

/// Moves every file under `from` to the same place under `to` unless `to` already has it, then
/// removes `from`. A missing `from` is nothing to do.
fn move_files(from: &Path, to: &Path) -> io::Result<()> {
    let entries = match fs::read_dir(from) {
        Ok(e) => e,
        Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(()),
        Err(e) => return Err(e),
    };
    fs::create_dir_all(to)?;
    for entry in entries {
        let entry = entry?;
        let target = to.join(entry.file_name());
        if entry.file_type()?.is_dir() {
            move_files(&entry.path(), &target)?;
        } else if target.exists() {
            fs::remove_file(entry.path())?;
        } else {
            fs::rename(entry.path(), &target)?;
        }
    }
    fs::remove_dir(from)
}

/// Gives the survivor the duplicate's kept cover (`covers/<id>.<ext>`) when it has none.
fn move_kept_cover(store: &Store, dup: i64, survivor: i64) -> io::Result<()> {
    let Some(cover) = crate::cover_cache::find_local(store.data_dir(), dup) else {
        return Ok(());
    };
    if crate::cover_cache::find_local(store.data_dir(), survivor).is_some() {
        crate::cover_cache::forget(store.data_dir(), dup);
        return Ok(());
    }
    let name = cover.file_name().and_then(|n| n.to_str()).unwrap_or_default();
    if let Some(ext) = name.strip_prefix(&format!("{dup}.")) {
        let dir = crate::cover_cache::cache_dir(store.data_dir());
        fs::rename(&cover, dir.join(format!("{survivor}.{ext}")))?;
    }
    Ok(())
}

/// Folds book `dup` into book `survivor` inside one transaction.
fn merge_rows(tx: &Transaction<'_>, survivor: i64, dup: i64) -> rusqlite::Result<()> {
    // The reader's relation: furthest page, newest times, pinned if either was.
    tx.execute(
        "UPDATE books SET
            last_page = CASE WHEN d.last_page IS NOT NULL AND (books.last_page IS NULL OR d.last_page > books.last_page)
                             THEN d.last_page ELSE books.last_page END,
            position_ms = max(coalesce(books.position_ms, d.position_ms), coalesce(d.position_ms, books.position_ms)),
            last_opened_ms = max(coalesce(books.last_opened_ms, d.last_opened_ms), coalesce(d.last_opened_ms, books.last_opened_ms)),
            pinned = max(books.pinned, d.pinned),
            cover_url = coalesce(books.cover_url, d.cover_url),
            progression_url = coalesce(books.progression_url, d.progression_url),
            read_progress_url = coalesce(books.read_progress_url, d.read_progress_url),
            pse_last_read = CASE WHEN d.pse_last_read IS NOT NULL AND (books.pse_last_read IS NULL OR d.pse_last_read > books.pse_last_read)
                                 THEN d.pse_last_read ELSE books.pse_last_read END,
            pse_last_read_ms = max(coalesce(books.pse_last_read_ms, d.pse_last_read_ms), coalesce(d.pse_last_read_ms, books.pse_last_read_ms)),
            read_progress_echo_ms = max(coalesce(books.read_progress_echo_ms, d.read_progress_echo_ms), coalesce(d.read_progress_echo_ms, books.read_progress_echo_ms))
         FROM (SELECT * FROM books WHERE id = ?2) AS d
         WHERE books.id = ?1",
        params![survivor, dup],
    )?;
    // Tasks: where both have the same part, a done one wins (its file is now the survivor's),
    // else the survivor's stays; the rest move over.
    tx.execute(
        "DELETE FROM tasks WHERE book_id = ?1 AND state <> 'done' AND EXISTS (
            SELECT 1 FROM tasks d WHERE d.book_id = ?2 AND d.kind = tasks.kind AND d.position = tasks.position
              AND d.url = tasks.url AND d.state = 'done')",
        params![survivor, dup],
    )?;
    tx.execute(
        "DELETE FROM tasks WHERE book_id = ?2 AND EXISTS (
            SELECT 1 FROM tasks s WHERE s.book_id = ?1 AND s.kind = tasks.kind AND s.position = tasks.position
              AND s.url = tasks.url)",
        params![survivor, dup],
    )?;
    tx.execute("UPDATE tasks SET book_id = ?1 WHERE book_id = ?2", params![survivor, dup])?;
    // Descriptive fields: the survivor's, else the duplicate's.
    tx.execute(
        "INSERT OR IGNORE INTO book_meta (book_id, authors, series, series_index, summary)
         SELECT ?1, authors, series, series_index, summary FROM book_meta WHERE book_id = ?2",
        params![survivor, dup],
    )?;
    // The EPUB position read furthest; the queued position saved last.
    tx.execute(
        "INSERT INTO epub_positions (book_id, cfi, fraction, updated_at_ms)
         SELECT ?1, cfi, fraction, updated_at_ms FROM epub_positions WHERE book_id = ?2
         ON CONFLICT (book_id) DO UPDATE SET cfi = excluded.cfi, fraction = excluded.fraction,
            updated_at_ms = max(updated_at_ms, excluded.updated_at_ms)
         WHERE excluded.fraction > epub_positions.fraction",
        params![survivor, dup],
    )?;
    tx.execute(
        "INSERT INTO position_outbox (book_id, page, progression, updated_at_ms, attempts, last_error, cfi)
         SELECT ?1, page, progression, updated_at_ms, attempts, last_error, cfi FROM position_outbox WHERE book_id = ?2
         ON CONFLICT (book_id) DO UPDATE SET page = excluded.page, progression = excluded.progression,
            updated_at_ms = excluded.updated_at_ms, attempts = excluded.attempts,
            last_error = excluded.last_error, cfi = excluded.cfi
         WHERE excluded.updated_at_ms > position_outbox.updated_at_ms",
        params![survivor, dup],
    )?;
    tx.execute("DELETE FROM books WHERE id = ?1", [dup])?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn codex_view_parameters_do_not_make_a_new_identity() {
        let base = "/opds/v1.2/comics/5";
        for id in [
            "/opds/v1.2/comics/5?topCollection=series&orderBy=date",
            "/opds/v1.2/comics/5?orderBy=sort_name",
            "/opds/v1.2/comics/5?filters=%7B%22bookmark%22%3A%22UNREAD%22%7D&orderBy=date&orderReverse=true",
            "/opds/v1.2/comics/5?q=batman&page=2",
            "/opds/v1.2/comics/5",
        ] {
            assert_eq!(identity_key(id), base, "{id}");
        }
        assert_eq!(
            identity_key("http://nas:9810/opds/v1.2/comics/5?orderBy=date#x"),
            "http://nas:9810/opds/v1.2/comics/5#x"
        );
    }

    #[test]
    fn parameters_naming_a_book_are_kept() {
        assert_eq!(identity_key("/get?id=7&sort=title"), "/get?id=7");
        assert_ne!(identity_key("/get?id=7"), identity_key("/get?id=8"));
        assert_eq!(identity_key("urn:uuid:1234?orderBy=x"), "urn:uuid:1234?orderBy=x");
    }

    #[test]
    fn content_key_drops_bookmark_and_width_but_keeps_the_template() {
        let a = content_key(None, Some("/opds/v1.2/comics/5/page/{pageNumber}?bookmark=1&maxWidth={maxWidth}"), &[]);
        let b = content_key(None, Some("/opds/v1.2/comics/5/page/{pageNumber}"), &[]);
        // The `{maxWidth}` placeholder is a template part and stays; the bookmark goes.
        assert_eq!(a.as_deref(), Some("/opds/v1.2/comics/5/page/{pageNumber}?maxWidth={maxWidth}"));
        assert_eq!(b.as_deref(), Some("/opds/v1.2/comics/5/page/{pageNumber}"));
        assert_eq!(
            content_key(Some("/opds/v1.2/comics/5/download/x.cbz?orderBy=date"), Some("/t/{pageNumber}"), &[]).as_deref(),
            Some("/opds/v1.2/comics/5/download/x.cbz")
        );
        assert_eq!(content_key(None, None, &[]), None);
    }

    use std::sync::Arc;

    use crate::books::{self, BookFormat};
    use crate::clock::ManualClock;
    use crate::data_dir::DataDir;
    use crate::servers::{self, NewServer};

    fn comic(id: &str, stream: &str) -> CatalogBook {
        CatalogBook {
            catalog_id: id.into(),
            title: "Comic 5".into(),
            authors: vec![],
            format: BookFormat::Comic,
            stream_template: Some(stream.into()),
            page_count: Some(20),
            page_base: 0,
            page_list: Vec::new(),
            file_url: Some("http://127.0.0.1:9/opds/v1.2/comics/5/download/c5.cbz".into()),
            file_type: Some("application/vnd.comicbook+zip".into()),
            file_length: Some(1000),
            cover_url: None,
            progression_url: None,
            read_progress_url: None,
        }
    }

    fn open(dir: &Path) -> (Store, i64) {
        let store = Store::open(&DataDir::new(dir), Arc::new(ManualClock::new(5))).unwrap();
        let server = match servers::list(&store).unwrap().into_iter().next() {
            Some(s) => s,
            None => servers::add(
                &store,
                &NewServer { name: "Codex".into(), url: "http://127.0.0.1:9/opds/v1.2/".into(), ..Default::default() },
            )
            .unwrap(),
        };
        (store, server.id)
    }

    #[test]
    fn one_comic_reached_through_every_view_is_one_book() {
        let t = tempfile::tempdir().unwrap();
        let (store, server) = open(t.path());
        let s = "http://127.0.0.1:9/opds/v1.2/comics/5/page/{pageNumber}";
        let mut ids = Vec::new();
        for (id, stream) in [
            ("/opds/v1.2/comics/5?topCollection=series&orderBy=date", s.to_string()),
            ("/opds/v1.2/comics/5?topCollection=series&orderBy=sort_name", s.to_string()),
            ("/opds/v1.2/comics/5?orderBy=date&filters=%7B%7D", format!("{s}?bookmark=1")),
            ("/opds/v1.2/comics/5?q=comic", s.to_string()),
        ] {
            ids.push(books::remember(&store, server, &comic(id, &stream)).unwrap().id);
        }
        // An id the server changed entirely, but the same acquisition: still the same book.
        ids.push(books::remember_if_new(&store, server, &comic("urn:codex:comic:5", s)).unwrap().id);
        ids.dedup();
        assert_eq!(ids.len(), 1, "{ids:?}");
        let count: i64 = store.read(|c| c.query_row("SELECT count(*) FROM books", [], |r| r.get(0))).unwrap();
        assert_eq!(count, 1);
        // Another comic is another book.
        let mut other = comic("/opds/v1.2/comics/6?orderBy=date", "http://127.0.0.1:9/opds/v1.2/comics/6/page/{pageNumber}");
        other.file_url = Some("http://127.0.0.1:9/opds/v1.2/comics/6/download/c6.cbz".into());
        assert_ne!(books::remember(&store, server, &other).unwrap().id, ids[0]);
    }

    #[test]
    fn duplicates_in_a_database_are_merged_keeping_the_reading_and_the_files() {
        let t = tempfile::tempdir().unwrap();
        let (store, server) = open(t.path());
        // Three rows an older version made for one comic, one for another comic.
        let insert = |id: i64, catalog: &str, file: &str, last_page: Option<i64>, position_ms: Option<i64>, pinned: bool| {
            store
                .write(|tx| {
                    tx.execute(
                        "INSERT INTO books (id, server_id, catalog_id, title, format, file_url, pinned, last_page,
                                            position_ms, last_opened_ms, created_at_ms)
                         VALUES (?1, ?2, ?3, 'C', 'comic', ?4, ?5, ?6, ?7, ?7, 1)",
                        params![id, server, catalog, file, pinned, last_page, position_ms],
                    )
                    .map_err(|e| store.sql_error(e))
                })
                .unwrap();
        };
        let f5 = "http://127.0.0.1:9/opds/v1.2/comics/5/download/c5.cbz";
        insert(10, "/opds/v1.2/comics/5?orderBy=date", f5, Some(3), Some(100), false);
        insert(11, "/opds/v1.2/comics/5?orderBy=sort_name", f5, Some(9), Some(50), true);
        insert(12, "urn:other-id-same-file", &format!("{f5}?orderBy=x"), None, Some(300), false);
        insert(20, "/opds/v1.2/comics/6?orderBy=date", "http://127.0.0.1:9/c6.cbz", Some(1), Some(1), false);
        store
            .write(|tx| {
                tx.execute_batch(
                    "UPDATE books SET identity_key = NULL, content_key = NULL;
                     INSERT INTO tasks (book_id, server_id, kind, position, url, seq, state, created_at_ms, updated_at_ms)
                       SELECT 10, server_id, 'page', 0, '', 1, 'pending', 1, 1 FROM books WHERE id = 10;
                     INSERT INTO tasks (book_id, server_id, kind, position, url, seq, state, bytes, created_at_ms, updated_at_ms)
                       SELECT 11, server_id, 'page', 0, '', 2, 'done', 5, 1, 1 FROM books WHERE id = 11;
                     INSERT INTO tasks (book_id, server_id, kind, position, url, seq, state, bytes, created_at_ms, updated_at_ms)
                       SELECT 12, server_id, 'page', 1, '', 3, 'done', 5, 1, 1 FROM books WHERE id = 12;
                     INSERT INTO epub_positions (book_id, cfi, fraction, updated_at_ms) VALUES (10, 'a', 0.2, 1), (12, 'b', 0.7, 2);
                     INSERT INTO position_outbox (book_id, page, updated_at_ms) VALUES (11, 9, 50), (12, 2, 10);
                     INSERT INTO book_meta (book_id, authors, series) VALUES (11, '[\"X\"]', 'S');",
                )
                .map_err(|e| store.sql_error(e))
            })
            .unwrap();
        let files = PartFiles::new(store.data_dir().books());
        for (book, page, body) in [(10, 0, "ten"), (11, 0, "eleven"), (12, 1, "twelve")] {
            let p = files.page_path(book, page, "jpg");
            fs::create_dir_all(p.parent().unwrap()).unwrap();
            fs::write(p, body).unwrap();
        }
        let covers = crate::cover_cache::cache_dir(store.data_dir());
        fs::create_dir_all(&covers).unwrap();
        fs::write(covers.join("12.png"), "cover of twelve").unwrap();
        drop(store);

        let (store, _) = open(t.path());
        let ids: Vec<i64> = store
            .read(|c| {
                let mut st = c.prepare("SELECT id FROM books ORDER BY id")?;
                let r = st.query_map([], |r| r.get(0))?.collect::<rusqlite::Result<Vec<i64>>>();
                r
            })
            .unwrap();
        assert_eq!(ids, [10, 20]);
        let b = books::get(&store, 10).unwrap();
        assert_eq!(b.last_page, Some(9), "the furthest-read page");
        assert_eq!(b.position_ms, Some(300), "the newest position time");
        assert!(b.pinned);
        let tasks: Vec<(i64, String, i64)> = store
            .read(|c| {
                let mut st = c.prepare("SELECT position, state, book_id FROM tasks ORDER BY position")?;
                let r = st.query_map([], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)))?.collect::<rusqlite::Result<Vec<_>>>();
                r
            })
            .unwrap();
        assert_eq!(tasks, [(0, "done".to_string(), 10), (1, "done".to_string(), 10)]);
        // Page 0 existed under both: the survivor's file stays; page 1 moved over.
        assert_eq!(fs::read_to_string(files.find_page(10, 0).unwrap()).unwrap(), "ten");
        assert_eq!(fs::read_to_string(files.find_page(10, 1).unwrap()).unwrap(), "twelve");
        assert!(!files.book_dir(11).exists() && !files.book_dir(12).exists());
        assert_eq!(fs::read_to_string(covers.join("10.png")).unwrap(), "cover of twelve");
        assert!(!covers.join("12.png").exists());
        let (cfi, outbox_page, series): (String, i64, String) = store
            .read(|c| {
                c.query_row(
                    "SELECT (SELECT cfi FROM epub_positions WHERE book_id = 10),
                            (SELECT page FROM position_outbox WHERE book_id = 10),
                            (SELECT series FROM book_meta WHERE book_id = 10)",
                    [],
                    |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)),
                )
            })
            .unwrap();
        assert_eq!((cfi.as_str(), outbox_page, series.as_str()), ("b", 9, "S"));
        let dangling: i64 = store
            .read(|c| {
                c.query_row(
                    "SELECT (SELECT count(*) FROM tasks WHERE book_id NOT IN (SELECT id FROM books))
                          + (SELECT count(*) FROM epub_positions WHERE book_id NOT IN (SELECT id FROM books))
                          + (SELECT count(*) FROM position_outbox WHERE book_id NOT IN (SELECT id FROM books))
                          + (SELECT count(*) FROM book_meta WHERE book_id NOT IN (SELECT id FROM books))",
                    [],
                    |r| r.get(0),
                )
            })
            .unwrap();
        assert_eq!(dangling, 0);
        // A feed naming the comic by any of the old ids finds the survivor.
        let again = books::remember(&store, server_id(&store), &comic("/opds/v1.2/comics/5?orderBy=sort_name", "/x/{pageNumber}")).unwrap();
        assert_eq!(again.id, 10);
    }

    fn server_id(store: &Store) -> i64 {
        servers::list(store).unwrap()[0].id
    }
}

