//! The device's books sorted and filtered: each order, each filter, the text filter folding
//! accents, the statuses of all books equal to each book's own, and ten thousand books timed.

use std::sync::Arc;

use rusqlite::params;

use super::*;
use crate::book_view::{remember_meta, BookMeta};
use carrel_engine::book_downloads::BookState;
use carrel_foundation::clock::ManualClock;
use carrel_foundation::data_dir::DataDir;
use carrel_library::books::{self, CatalogBook};
use carrel_library::servers::{self, NewServer};

struct Library {
    _dir: tempfile::TempDir,
    store: Store,
    clock: Arc<ManualClock>,
    home: i64,
    away: i64,
}

fn library() -> Library {
    let dir = tempfile::tempdir().unwrap();
    let clock = Arc::new(ManualClock::new(1_000));
    let store = Store::open(&DataDir::new(dir.path()), clock.clone()).unwrap();
    let add = |name: &str, port: u16| {
        let url = format!("http://127.0.0.1:{port}/opds");
        servers::add(&store, &NewServer::named(name, &url))
            .unwrap()
            .id
    };
    let home = add("Home", 9);
    let away = add("Élan", 10);
    Library {
        _dir: dir,
        store,
        clock,
        home,
        away,
    }
}

struct Seed<'a> {
    server: i64,
    title: &'a str,
    authors: &'a [&'a str],
    series: Option<(&'a str, f64)>,
    format: BookFormat,
}

impl Library {
    /// A book remembered from a feed and stored whole (one file task done).
    fn stored(&self, seed: Seed<'_>) -> i64 {
        self.clock.advance_ms(10);
        let book = books::remember(
            &self.store,
            seed.server,
            &CatalogBook {
                catalog_id: format!("urn:{}", seed.title),
                title: seed.title.into(),
                authors: seed.authors.iter().map(|a| a.to_string()).collect(),
                format: seed.format,
                stream_template: None,
                page_count: None,
                page_base: 0,
                page_list: Vec::new(),
                file_url: Some(format!("http://127.0.0.1:9/b/{}", seed.title)),
                file_type: None,
                file_length: None,
                cover_url: None,
                progression_url: None,
                read_progress_url: None,
            },
        )
        .unwrap();
        remember_meta(
            &self.store,
            book.id,
            &BookMeta {
                authors: seed.authors.iter().map(|a| a.to_string()).collect(),
                series: seed.series.map(|(s, _)| s.to_owned()),
                series_index: seed.series.map(|(_, n)| n),
                summary: None,
            },
        )
        .unwrap();
        self.task(book.id, seed.server, "file", 0, "done");
        book.id
    }

    fn task(&self, book: i64, server: i64, kind: &str, position: i64, state: &str) {
        let now = self.store.now_ms();
        self.store
            .execute(
                "INSERT INTO tasks (book_id, server_id, kind, position, url, seq, state, bytes,
                                    created_at_ms, updated_at_ms, failure)
                 VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, 100, ?6, ?6, ?8)",
                params![
                    book,
                    server,
                    kind,
                    position,
                    format!("http://127.0.0.1:9/t/{book}/{kind}/{position}"),
                    now,
                    state,
                    (state == "failed").then_some("gone")
                ],
            )
            .unwrap();
    }

    fn titles(&self, q: &DeviceLibraryQuery) -> Vec<String> {
        query(&self.store, q)
            .unwrap()
            .books
            .into_iter()
            .map(|b| b.title)
            .collect()
    }
}

fn seed<'a>(server: i64, title: &'a str) -> Seed<'a> {
    Seed {
        server,
        title,
        authors: &[],
        series: None,
        format: BookFormat::Comic,
    }
}

/// Five books: two series, two formats besides comics, two servers.
fn shelf() -> (Library, Vec<i64>) {
    let lib = library();
    let ids = vec![
        lib.stored(Seed {
            authors: &["Zola, Émile"],
            format: BookFormat::Epub,
            ..seed(lib.home, "Germinal")
        }),
        lib.stored(Seed {
            authors: &["Mœbius"],
            series: Some(("Blueberry", 10.0)),
            ..seed(lib.away, "Blueberry 10")
        }),
        lib.stored(Seed {
            authors: &["Giraud, Jean"],
            series: Some(("Blueberry", 2.0)),
            ..seed(lib.home, "Blueberry 2")
        }),
        lib.stored(Seed {
            authors: &["Alpha"],
            series: Some(("Akira", 1.0)),
            format: BookFormat::Pdf,
            ..seed(lib.home, "Akira")
        }),
        lib.stored(seed(lib.away, "Zazie")),
    ];
    (lib, ids)
}

fn sorted(sort: DeviceSort, descending: bool) -> DeviceLibraryQuery {
    DeviceLibraryQuery {
        sort,
        descending,
        ..Default::default()
    }
}

#[test]
fn each_order_sorts_the_books_and_keeps_missing_values_last() {
    let (lib, ids) = shelf();
    // Each order as `order descending: titles`.
    let in_order = |orders: &[(DeviceSort, bool)]| -> Vec<String> {
        orders
            .iter()
            .map(|&(sort, descending)| {
                let titles = lib.titles(&sorted(sort, descending)).join(", ");
                format!("{sort:?} {descending}: {titles}")
            })
            .collect()
    };
    use DeviceSort::*;
    assert_eq!(
        in_order(&[
            (Title, false),
            (Title, true),
            (Series, false),
            (Series, true),
            (Author, false),
            (Added, true)
        ]),
        [
            // Numbers in titles compare as numbers.
            "Title false: Akira, Blueberry 2, Blueberry 10, Germinal, Zazie",
            "Title true: Zazie, Germinal, Blueberry 10, Blueberry 2, Akira",
            // Series, then number; books in no series after, by title.
            "Series false: Akira, Blueberry 2, Blueberry 10, Germinal, Zazie",
            // Reversed, and still no series last.
            "Series true: Blueberry 10, Blueberry 2, Akira, Germinal, Zazie",
            // Alpha, Giraud, Mœbius, Zola; no author last.
            "Author false: Akira, Blueberry 2, Blueberry 10, Germinal, Zazie",
            // Newest first.
            "Added true: Zazie, Akira, Blueberry 2, Blueberry 10, Germinal",
        ]
    );
    lib.clock.advance_ms(5_000);
    books::mark_opened(&lib.store, ids[3], Some(0)).unwrap();
    lib.clock.advance_ms(5_000);
    books::mark_opened(&lib.store, ids[0], Some(0)).unwrap();
    assert_eq!(
        in_order(&[(LastRead, true), (LastRead, false)]),
        [
            // Last opened first, never opened last by title.
            "LastRead true: Germinal, Akira, Blueberry 2, Blueberry 10, Zazie",
            "LastRead false: Akira, Germinal, Blueberry 2, Blueberry 10, Zazie",
        ]
    );
}

#[test]
fn each_filter_picks_its_books_and_the_sources_name_every_server() {
    let (lib, ids) = shelf();
    let only = |q: DeviceLibraryQuery| lib.titles(&q);
    assert_eq!(
        only(DeviceLibraryQuery {
            formats: vec![BookFormat::Epub, BookFormat::Pdf],
            ..Default::default()
        }),
        ["Akira", "Germinal"]
    );
    assert_eq!(
        only(DeviceLibraryQuery {
            sources: vec![lib.away],
            ..Default::default()
        }),
        ["Blueberry 10", "Zazie"]
    );
    books::mark_opened(&lib.store, ids[1], Some(3)).unwrap();
    carrel_reading::position_sync::mark_read(&lib.store, ids[4], true).unwrap();
    let by_state = |state| {
        only(DeviceLibraryQuery {
            read_states: vec![state],
            ..Default::default()
        })
    };
    assert_eq!(by_state(ReadState::InProgress), ["Blueberry 10"]);
    assert_eq!(by_state(ReadState::Read), ["Zazie"]);
    assert_eq!(
        by_state(ReadState::Unread),
        ["Akira", "Blueberry 2", "Germinal"]
    );
    let all = query(&lib.store, &DeviceLibraryQuery::default()).unwrap();
    assert_eq!(all.total, 5);
    let names: Vec<(&str, u32)> = all
        .sources
        .iter()
        .map(|s| (s.name.as_str(), s.books))
        .collect();
    assert_eq!(names, [("Élan", 2), ("Home", 3)], "by name, accents folded");
    let filtered = query(
        &lib.store,
        &DeviceLibraryQuery {
            sources: vec![lib.away],
            ..Default::default()
        },
    )
    .unwrap();
    assert_eq!(
        (filtered.total, filtered.sources.len()),
        (5, 2),
        "the filters' choices do not shrink with the filter"
    );
}

#[test]
fn this_device_is_a_source_of_its_own_first_among_them() {
    let (lib, _) = shelf();
    let device = servers::device_source(&lib.store).unwrap().id;
    lib.stored(Seed {
        format: BookFormat::Epub,
        ..seed(device, "My own notes")
    });
    let all = query(&lib.store, &DeviceLibraryQuery::default()).unwrap();
    let sources: Vec<(bool, &str, u32)> = all
        .sources
        .iter()
        .map(|s| (s.device, s.name.as_str(), s.books))
        .collect();
    assert_eq!(
        sources,
        [
            (true, "This device", 1),
            (false, "Élan", 2),
            (false, "Home", 3)
        ]
    );
    assert_eq!(
        lib.titles(&DeviceLibraryQuery {
            sources: vec![device],
            ..Default::default()
        }),
        ["My own notes"]
    );
}

#[test]
fn the_text_filter_folds_case_and_accents_over_title_series_and_authors() {
    let (lib, _) = shelf();
    let text = |t: &str| {
        lib.titles(&DeviceLibraryQuery {
            text: t.into(),
            ..Default::default()
        })
    };
    assert_eq!(text("emile"), ["Germinal"], "an author without its accent");
    assert_eq!(text("ÉMILE zola"), ["Germinal"], "every word, any case");
    assert_eq!(text("mœbius"), ["Blueberry 10"]);
    assert_eq!(
        text("blueberry"),
        ["Blueberry 2", "Blueberry 10"],
        "by series"
    );
    assert_eq!(text("akira alpha"), ["Akira"]);
    assert!(text("nothing like it").is_empty());
    assert_eq!(text("  ").len(), 5, "a blank text filters nothing");
    assert!(matches!(
        query(
            &lib.store,
            &DeviceLibraryQuery {
                text: "x".repeat(MAX_QUERY_CHARS + 1),
                ..Default::default()
            }
        ),
        Err(SearchError::QueryTooLong)
    ));
}

#[test]
fn only_books_on_the_device_are_listed_and_each_status_is_the_books_own() {
    let lib = library();
    let whole = lib.stored(seed(lib.home, "Whole"));
    let streamed = books::remember(
        &lib.store,
        lib.home,
        &carrel_library::test_support::streamed_comic("urn:streamed", "Streamed", 4),
    )
    .unwrap()
    .id;
    assert_eq!(
        lib.titles(&DeviceLibraryQuery::default()),
        ["Whole"],
        "a book only browsed is not on the device"
    );
    lib.task(streamed, lib.home, "page", 0, "done");
    lib.task(streamed, lib.home, "page", 1, "failed");
    lib.task(streamed, lib.home, "page", 2, "pending");
    let queued = lib.stored(seed(lib.home, "Queued"));
    lib.store
        .execute("DELETE FROM tasks WHERE book_id = ?1", [queued])
        .unwrap();
    books::set_pinned(&lib.store, queued, true).unwrap();
    lib.task(queued, lib.home, "book", 0, "active");
    let listed = query(&lib.store, &DeviceLibraryQuery::default()).unwrap();
    assert_eq!(listed.books.len(), 3);
    for book in &listed.books {
        let own =
            book_downloads::status(&lib.store, &books::get(&lib.store, book.book_id).unwrap())
                .unwrap();
        assert_eq!(book.status, own, "{}", book.title);
    }
    let state = |id: i64| {
        listed
            .books
            .iter()
            .find(|b| b.book_id == id)
            .map(|b| b.status.state.clone())
    };
    assert_eq!(state(whole), Some(BookState::Stored));
    assert!(matches!(state(streamed), Some(BookState::Failed { .. })));
    assert_eq!(state(queued), Some(BookState::Downloading));
    assert_eq!(
        listed
            .books
            .iter()
            .find(|b| b.book_id == streamed)
            .map(|b| (
                b.status.progress.stored_parts,
                b.status.progress.total_parts
            )),
        Some((1, 4))
    );
}

#[test]
fn ten_thousand_books_are_sorted_and_filtered_quickly() {
    let lib = library();
    let now = lib.store.now_ms();
    lib.store
        .write(|tx| {
            for i in 0..10_000i64 {
                let server = if i % 3 == 0 { lib.away } else { lib.home };
                let format = ["comic", "epub", "pdf"][(i % 3) as usize];
                tx.execute(
                    "INSERT INTO books (id, server_id, catalog_id, title, authors, format,
                                        created_at_ms, last_opened_ms, finished_ms)
                     VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9)",
                    params![
                        i + 1,
                        server,
                        format!("urn:{i}"),
                        format!("Tome {} de l'été", 10_000 - i),
                        format!("Auteur {}", i % 97),
                        format,
                        now + i,
                        (i % 5 == 0).then_some(now + i),
                        (i % 7 == 0).then_some(now + i),
                    ],
                )
                .map_err(|e| lib.store.sql_error(e))?;
                tx.execute(
                    "INSERT INTO book_meta (book_id, authors, series, series_index)
                     VALUES (?1, ?2, ?3, ?4)",
                    params![
                        i + 1,
                        format!("[\"Auteur {}\"]", i % 97),
                        format!("Série {}", i % 400),
                        (i / 400) as f64
                    ],
                )
                .map_err(|e| lib.store.sql_error(e))?;
                tx.execute(
                    "INSERT INTO tasks (book_id, server_id, kind, position, url, seq, state, bytes,
                                        created_at_ms, updated_at_ms)
                     VALUES (?1, ?2, 'file', 0, '', ?1, 'done', 1000, ?3, ?3)",
                    params![i + 1, server, now + i],
                )
                .map_err(|e| lib.store.sql_error(e))?;
            }
            Ok::<_, carrel_foundation::store::StoreError>(())
        })
        .unwrap();
    let timed = |label: &str, q: DeviceLibraryQuery| {
        let started = std::time::Instant::now();
        let answer = query(&lib.store, &q).unwrap();
        println!(
            "device library, 10,000 books, {label}: {} listed in {:.1} ms",
            answer.books.len(),
            started.elapsed().as_secs_f64() * 1000.0
        );
        answer
    };
    // The baseline, in the same run: the list as it was read before, a book at a time.
    let started = std::time::Instant::now();
    let before = crate::book_view::on_device(&lib.store).unwrap();
    let baseline = started.elapsed().as_secs_f64() * 1000.0;
    println!(
        "device library, 10,000 books, baseline (book_view::on_device, unsorted): {} listed in {baseline:.1} ms",
        before.len()
    );
    let started = std::time::Instant::now();
    let all = timed("by title", DeviceLibraryQuery::default());
    println!(
        "device library, 10,000 books, by title: {:.2}× the baseline's time",
        started.elapsed().as_secs_f64() * 1000.0 / baseline
    );
    assert_eq!(all.books.len(), 10_000);
    assert_eq!(before.len(), 10_000);
    assert_eq!(all.books[0].title, "Tome 1 de l'été");
    assert_eq!(all.books[9_999].title, "Tome 10000 de l'été");
    let series = timed("by series, descending", sorted(DeviceSort::Series, true));
    assert_eq!(series.books[0].series.as_deref(), Some("Série 399"));
    let text = timed(
        "text \"ete serie 12\"",
        DeviceLibraryQuery {
            text: "ETE serie 12".into(),
            ..Default::default()
        },
    );
    assert!(!text.books.is_empty());
    assert!(text
        .books
        .iter()
        .all(|b| b.series.as_deref().unwrap().contains("12")
            || b.title.contains("12")
            || b.authors[0].contains("12")));
    let filtered = timed(
        "EPUBs read, last read first",
        DeviceLibraryQuery {
            sort: DeviceSort::LastRead,
            descending: true,
            formats: vec![BookFormat::Epub],
            read_states: vec![ReadState::Read],
            ..Default::default()
        },
    );
    assert!(filtered
        .books
        .iter()
        .all(|b| b.format == BookFormat::Epub && b.read_state == ReadState::Read));
    assert_eq!(
        filtered.books.len(),
        (0..10_000).filter(|i| i % 3 == 1 && i % 7 == 0).count()
    );
}

#[test]
fn natural_order_compares_numbers_as_numbers() {
    assert_eq!(natural_cmp("vol 2", "vol 10"), Ordering::Less);
    assert_eq!(natural_cmp("vol 010", "vol 9"), Ordering::Greater);
    assert_eq!(natural_cmp("a", "b"), Ordering::Less);
    assert_eq!(natural_cmp("x1y", "x1y"), Ordering::Equal);
    assert_eq!(natural_cmp("x", "x1"), Ordering::Less);
}

#[test]
fn natural_keys_order_as_natural_order_does() {
    let texts = [
        "vol 2",
        "vol 10",
        "vol 010",
        "vol 9",
        "a",
        "b",
        "x",
        "x1",
        "x1y",
        "x 1",
        "x a",
        "x10b",
        "tome 1 de l ete",
        "tome 10000 de l ete",
        "0",
        "00",
        "cafe 3",
        "café 3",
        "",
    ];
    for a in texts {
        for b in texts {
            assert_eq!(
                natural_key(a).cmp(&natural_key(b)),
                natural_cmp(a, b),
                "{a:?} / {b:?}"
            );
        }
    }
}
