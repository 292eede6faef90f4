//! The books on this device as the reader sorts and filters them: by title, series and number,
//! author, when they came to the device or were last read; only some formats, read states or
//! sources (the servers they came from, and this device for the reader's own files);
//! and a text that must occur in the title, authors or series, folding case and accents like
//! [`crate::library_search`]. Answered in the core, so a library of ten thousand books is sorted
//! in milliseconds and the window only draws what it shows.
//!
//! "On this device" is what [`crate::book_view::on_device`] lists: pinned books and books with
//! a part stored. Owns no table: reads `books`, `book_meta` and `servers`, and the statuses from
//! the download stack (each book's status as
//! [`carrel_engine::book_downloads::status`] gives it, for every book at once).

use std::cmp::Ordering;
use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use crate::book_view::split_authors;
use crate::library_search::{fold, SearchError, MAX_QUERY_CHARS};
use carrel_engine::book_downloads::{self, BookState, BookStatus};
use carrel_engine::progress::BookProgress;
use carrel_foundation::store::Store;
use carrel_foundation::store::StoreError;
use carrel_library::books::BookFormat;

/// The order of the books.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize, ts_rs::TS)]
#[serde(rename_all = "snake_case")]
pub enum DeviceSort {
    /// By title, numbers in titles compared as numbers ("Vol. 2" before "Vol. 10").
    #[default]
    Title,
    /// By series, then number in the series; books in no series after every series.
    Series,
    /// By the first author; books with no author last.
    Author,
    /// By when the book came to the device (its first download, else when it became known).
    Added,
    /// By when the book was last opened; books never opened last.
    LastRead,
}

/// Where the reader stands in a book.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, ts_rs::TS)]
#[serde(rename_all = "snake_case")]
pub enum ReadState {
    /// Never opened, no position.
    Unread,
    /// Opened (or given a position) and not read to its end.
    InProgress,
    /// Read to its end, here or marked read.
    Read,
}

/// How the reader wants the books on this device: the order and the filters. An empty list
/// filters nothing.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, ts_rs::TS)]
pub struct DeviceLibraryQuery {
    #[serde(default)]
    pub sort: DeviceSort,
    /// The order reversed; books with no value for the order (no series, never read) stay last.
    #[serde(default)]
    pub descending: bool,
    /// Only these formats.
    #[serde(default)]
    pub formats: Vec<BookFormat>,
    /// Only books in these read states.
    #[serde(default)]
    pub read_states: Vec<ReadState>,
    /// Only books from these sources (server ids).
    #[serde(default)]
    pub sources: Vec<i64>,
    /// Every word must occur in the title, authors or series (case and accents folded).
    #[serde(default)]
    pub text: String,
}

/// Where books on this device came from: a server (or this device itself, when it keeps books
/// of its own), with how many of the device's books it gave.
#[derive(Debug, Clone, PartialEq, Serialize, ts_rs::TS)]
pub struct DeviceSource {
    pub server_id: i64,
    pub name: String,
    /// The source is this device itself (the reader's own files): windows name it in their
    /// own words rather than by its saved name.
    pub device: bool,
    pub books: u32,
}

/// One book of the list.
#[derive(Debug, Clone, PartialEq, Serialize, ts_rs::TS)]
pub struct DeviceBook {
    pub book_id: i64,
    pub server_id: i64,
    pub title: String,
    pub authors: Vec<String>,
    pub series: Option<String>,
    pub series_index: Option<f64>,
    pub format: BookFormat,
    pub read_state: ReadState,
    /// When it came to the device (unix ms).
    pub added_ms: i64,
    /// When it was last opened (unix ms).
    pub last_read_ms: Option<i64>,
    pub status: BookStatus,
}

/// The books a query picks, in its order, and what the filters can choose from.
#[derive(Debug, Clone, PartialEq, Serialize, ts_rs::TS)]
pub struct DeviceLibrary {
    pub books: Vec<DeviceBook>,
    /// How many books are on the device, filters aside.
    pub total: u32,
    /// Every source with a book on the device: this device first, then by name.
    pub sources: Vec<DeviceSource>,
}

/// A book with the keys it is sorted by, folded once and made comparable as plain text
/// ([`natural_key`]), so a sort of ten thousand compares bytes.
struct Candidate {
    book: DeviceBook,
    title_key: String,
    series_key: Option<String>,
    series_order: Option<f64>,
    author_key: Option<String>,
}

/// A book of the device as the store has it, in the order of [`query`]'s columns (named where
/// the row is taken apart).
type Row = (
    i64,
    i64,
    String,
    bool,
    String,
    String,
    Option<String>,
    Option<String>,
    Option<f64>,
    Option<f64>,
    String,
    bool,
    Option<i64>,
    Option<i64>,
    Option<i64>,
    i64,
);

/// The books on this device that `query` picks, in its order.
pub fn query(store: &Store, query: &DeviceLibraryQuery) -> Result<DeviceLibrary, SearchError> {
    if query.text.chars().count() > MAX_QUERY_CHARS {
        return Err(SearchError::QueryTooLong);
    }
    let words: Vec<String> = fold(&query.text)
        .split(' ')
        .filter(|w| !w.is_empty())
        .map(str::to_owned)
        .collect();
    let need_series = query.sort == DeviceSort::Series || !words.is_empty();
    let need_authors = query.sort == DeviceSort::Author || !words.is_empty();
    let mut statuses = statuses_of_all(store)?;
    let rows: Vec<Row> = carrel_foundation::rows::all(
        store,
        "SELECT b.id, b.server_id, s.name, s.kind = 'device', b.title, b.authors, m.authors, m.series,
                m.series_index, m.series_order, b.format, b.pinned, b.last_opened_ms,
                b.last_page, b.finished_ms,
                coalesce((SELECT min(t.created_at_ms) FROM tasks t WHERE t.book_id = b.id),
                         b.created_at_ms)
         FROM books b JOIN servers s ON s.id = b.server_id
         LEFT JOIN book_meta m ON m.book_id = b.id
         WHERE b.pinned = 1 OR EXISTS (SELECT 1 FROM tasks t WHERE t.book_id = b.id
                                       AND t.kind IN ('page', 'file') AND t.state = 'done')",
        [],
        |r| Row::try_from(r),
    )?;

    let mut sources: BTreeMap<i64, DeviceSource> = BTreeMap::new();
    let mut total = 0u32;
    let mut picked: Vec<Candidate> = Vec::new();
    for row in rows {
        let (
            id,
            server_id,
            server_name,
            device,
            title,
            joined_authors,
            meta_authors,
            series,
            series_index,
            series_order,
            format,
            pinned,
            last_opened_ms,
            last_page,
            finished_ms,
            added_ms,
        ) = row;
        let format = parse_format(&format);
        let Some(status) = statuses.remove(&id) else {
            continue;
        };
        if !pinned && status.progress.stored_parts == 0 {
            continue;
        }
        total += 1;
        sources
            .entry(server_id)
            .or_insert_with(|| DeviceSource {
                server_id,
                name: server_name,
                device,
                books: 0,
            })
            .books += 1;
        let read_state = if finished_ms.is_some() {
            ReadState::Read
        } else if last_opened_ms.is_some() || last_page.unwrap_or(0) > 0 {
            ReadState::InProgress
        } else {
            ReadState::Unread
        };
        if !query.formats.is_empty() && !query.formats.contains(&format) {
            continue;
        }
        if !query.read_states.is_empty() && !query.read_states.contains(&read_state) {
            continue;
        }
        if !query.sources.is_empty() && !query.sources.contains(&server_id) {
            continue;
        }
        let authors = meta_authors
            .and_then(|json| serde_json::from_str::<Vec<String>>(&json).ok())
            .filter(|list| !list.is_empty())
            .unwrap_or_else(|| split_authors(&joined_authors));
        // Only what the order or the text needs is folded.
        let title_key = fold(&title);
        let series_key = (need_series)
            .then(|| series.as_deref().map(fold))
            .flatten()
            .filter(|s| !s.is_empty());
        let author_key = (need_authors)
            .then(|| authors.first().map(|a| fold(a)))
            .flatten()
            .filter(|a| !a.is_empty());
        if !words.is_empty() {
            let haystack = format!(
                "{title_key} {} {}",
                series_key.as_deref().unwrap_or(""),
                authors
                    .iter()
                    .map(|a| fold(a))
                    .collect::<Vec<_>>()
                    .join(" ")
            );
            if !words.iter().all(|w| haystack.contains(w.as_str())) {
                continue;
            }
        }
        let (title_key, series_key, author_key) = (
            natural_key(&title_key),
            series_key.as_deref().map(natural_key),
            author_key.as_deref().map(natural_key),
        );
        picked.push(Candidate {
            book: DeviceBook {
                book_id: id,
                server_id,
                title,
                authors,
                series,
                series_index,
                format,
                read_state,
                added_ms,
                last_read_ms: last_opened_ms,
                status,
            },
            title_key,
            series_key,
            series_order,
            author_key,
        });
    }
    picked.sort_by(|a, b| compare(a, b, query.sort, query.descending));
    let mut sources: Vec<DeviceSource> = sources.into_values().collect();
    // This device first, then the servers by name.
    sources.sort_by(|a, b| {
        b.device
            .cmp(&a.device)
            .then_with(|| natural_cmp(&fold(&a.name), &fold(&b.name)))
    });
    Ok(DeviceLibrary {
        books: picked.into_iter().map(|c| c.book).collect(),
        total,
        sources,
    })
}

/// The status of every book that has downloads (any state) or is pinned, by book id: the rule
/// of [`book_downloads::status`] answered for thousands of books in two queries over the
/// stack, instead of two per book (a test holds the two equal).
fn statuses_of_all(
    store: &Store,
) -> Result<std::collections::HashMap<i64, BookStatus>, StoreError> {
    type Row = (i64, String, bool, Option<i64>, i64, i64, i64, i64, i64);
    let rows: Vec<Row> = carrel_foundation::rows::all(
        store,
        "SELECT b.id, b.title,
                coalesce(b.stream_template IS NOT NULL
                         OR (json_valid(b.page_list) AND json_type(b.page_list) = 'array'
                             AND json_array_length(b.page_list) > 0), 0),
                b.page_count,
                coalesce(t.done_pages, 0), coalesce(t.done_files, 0), coalesce(t.bytes, 0),
                coalesce(t.active, 0), coalesce(t.pending, 0)
         FROM books b LEFT JOIN (
             SELECT book_id,
                    count(*) FILTER (WHERE state = 'done' AND kind = 'page') AS done_pages,
                    count(*) FILTER (WHERE state = 'done' AND kind = 'file') AS done_files,
                    sum(bytes) FILTER (WHERE state = 'done' AND kind IN ('page', 'file')) AS bytes,
                    count(*) FILTER (WHERE state = 'active') AS active,
                    count(*) FILTER (WHERE state = 'pending') AS pending
             FROM tasks GROUP BY book_id
         ) t ON t.book_id = b.id
         WHERE b.pinned = 1 OR t.book_id IS NOT NULL",
        [],
        |r| Row::try_from(r),
    )?;
    // The first failure of a book's part, in the order `status` looks (kind, then position).
    let failures: Vec<(i64, Option<String>, String)> = carrel_foundation::rows::all(
        store,
        "SELECT book_id, failure, url FROM tasks
         WHERE state = 'failed' AND kind <> 'resource' ORDER BY book_id, kind, position",
        [],
        |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)),
    )?;
    let mut failed: std::collections::HashMap<i64, String> = std::collections::HashMap::new();
    for (book_id, failure, url) in failures {
        if !book_downloads::is_file_part(&url) {
            failed
                .entry(book_id)
                .or_insert_with(|| failure.unwrap_or_else(|| "failed".into()));
        }
    }
    let mut out = std::collections::HashMap::with_capacity(rows.len());
    for (id, title, listed_pages, page_count, pages, files, bytes, active, pending) in rows {
        let streams_pages = listed_pages && page_count.unwrap_or(0) > 0;
        let (stored, total) = if streams_pages {
            (pages, page_count.unwrap_or(0) as u64)
        } else {
            (files, 1)
        };
        let progress = BookProgress {
            book_id: id,
            title,
            stored_parts: (stored.max(0) as u64).min(total),
            total_parts: total,
            bytes: bytes.max(0) as u64,
        };
        let state = if progress.is_complete() {
            BookState::Stored
        } else if let Some(reason) = failed.remove(&id) {
            BookState::Failed { reason }
        } else if active > 0 {
            BookState::Downloading
        } else if pending > 0 {
            BookState::Queued
        } else {
            BookState::Remote
        };
        out.insert(id, BookStatus { state, progress });
    }
    Ok(out)
}

/// A `books.format` value (`other` for anything unknown).
fn parse_format(value: &str) -> BookFormat {
    serde_json::from_value(serde_json::Value::String(value.to_owned())).unwrap_or(BookFormat::Other)
}

/// Two books in the query's order: the order's own key (reversed when descending, a missing
/// one last either way), then the title, then the id, so the order is total and stable.
fn compare(a: &Candidate, b: &Candidate, sort: DeviceSort, descending: bool) -> Ordering {
    let primary = match sort {
        DeviceSort::Title => Some(a.title_key.cmp(&b.title_key)),
        DeviceSort::Series => match (&a.series_key, &b.series_key) {
            (Some(x), Some(y)) => Some(x.cmp(y).then_with(|| {
                missing_last(a.book.series_index, b.book.series_index, f64::total_cmp)
                    .then_with(|| missing_last(a.series_order, b.series_order, f64::total_cmp))
            })),
            (x, y) => return x.is_none().cmp(&y.is_none()).then_with(|| tie(a, b)),
        },
        DeviceSort::Author => match (&a.author_key, &b.author_key) {
            (Some(x), Some(y)) => Some(x.cmp(y)),
            (x, y) => return x.is_none().cmp(&y.is_none()).then_with(|| tie(a, b)),
        },
        DeviceSort::Added => Some(a.book.added_ms.cmp(&b.book.added_ms)),
        DeviceSort::LastRead => match (a.book.last_read_ms, b.book.last_read_ms) {
            (Some(x), Some(y)) => Some(x.cmp(&y)),
            (x, y) => return x.is_none().cmp(&y.is_none()).then_with(|| tie(a, b)),
        },
    };
    let primary = primary.unwrap_or(Ordering::Equal);
    let primary = if descending {
        primary.reverse()
    } else {
        primary
    };
    primary.then_with(|| tie(a, b))
}

fn tie(a: &Candidate, b: &Candidate) -> Ordering {
    a.title_key
        .cmp(&b.title_key)
        .then(a.book.book_id.cmp(&b.book.book_id))
}

fn missing_last<T: Copy>(a: Option<T>, b: Option<T>, cmp: fn(&T, &T) -> Ordering) -> Ordering {
    match (a, b) {
        (Some(x), Some(y)) => cmp(&x, &y),
        (Some(_), None) => Ordering::Less,
        (None, Some(_)) => Ordering::Greater,
        (None, None) => Ordering::Equal,
    }
}

/// Text in reading order, runs of digits compared as numbers ("2" before "10").
pub fn natural_cmp(a: &str, b: &str) -> Ordering {
    let (mut x, mut y) = (a, b);
    loop {
        match (x.chars().next(), y.chars().next()) {
            (None, None) => return Ordering::Equal,
            (None, Some(_)) => return Ordering::Less,
            (Some(_), None) => return Ordering::Greater,
            (Some(c), Some(d)) if c.is_ascii_digit() && d.is_ascii_digit() => {
                let (n, rest_x) = split_digits(x);
                let (m, rest_y) = split_digits(y);
                let (n, m) = (n.trim_start_matches('0'), m.trim_start_matches('0'));
                let by_number = n.len().cmp(&m.len()).then_with(|| n.cmp(m));
                if by_number != Ordering::Equal {
                    return by_number;
                }
                (x, y) = (rest_x, rest_y);
            }
            (Some(c), Some(d)) => {
                if c != d {
                    return c.cmp(&d);
                }
                (x, y) = (&x[c.len_utf8()..], &y[d.len_utf8()..]);
            }
        }
    }
}

/// `text` made so that comparing two keys as plain text orders them as [`natural_cmp`] does:
/// each run of digits becomes `0`, its length without leading zeros in four digits, and those
/// digits (every digit of the text is in such a run, so a run is only ever compared with a run).
pub fn natural_key(text: &str) -> String {
    let mut out = String::with_capacity(text.len() + 8);
    let mut rest = text;
    while let Some(c) = rest.chars().next() {
        if c.is_ascii_digit() {
            let (digits, after) = split_digits(rest);
            let digits = digits.trim_start_matches('0');
            out.push('0');
            out.push_str(&format!("{:04}", digits.len().min(9_999)));
            out.push_str(digits);
            rest = after;
        } else {
            out.push(c);
            rest = &rest[c.len_utf8()..];
        }
    }
    out
}

fn split_digits(s: &str) -> (&str, &str) {
    let end = s.find(|c: char| !c.is_ascii_digit()).unwrap_or(s.len());
    s.split_at(end)
}

#[cfg(test)]
#[path = "device_library_tests.rs"]
mod tests;
