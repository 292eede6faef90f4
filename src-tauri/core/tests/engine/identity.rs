//! One book, one local id: a server that writes the feed's view into its entry ids (as Codex
//! does) gives one book per book, whichever feed or search lists it; a library remembered
//! before with copies of one book is merged once, keeping what each copy had.

use std::collections::BTreeSet;

use carrel_core::{
    catalog::client::CatalogItem,
    engine::book_downloads,
    foundation::part_files::{self, PartFiles},
    library::book_identity,
    library::books,
    library::servers::Server,
    reading::position_sync,
};
use fixture_server::{Behavior, Config, RunningServer};

use crate::support::{feed_book_ids, Env};

fn start(config: Config) -> RunningServer {
    fixture_server::Server::start(config).expect("the fixture server starts")
}

#[tokio::test]
async fn a_book_reached_through_every_view_is_one_book() {
    let fixture = start(Config {
        books: 6,
        behavior: Behavior {
            view_in_entry_ids: true,
            ..Behavior::default()
        },
        ..Default::default()
    });
    let env = Env::new();
    let server = env.add_server("codex", &fixture.url("/opds"));
    let client = env.client();

    let mut seen = BTreeSet::new();
    for feed in ["/opds/books", "/opds/comics", "/opds/ebooks"] {
        seen.extend(feed_book_ids(&client, &server, feed).await);
    }
    let series = client.browse(&server, Some("/opds/series")).await.unwrap();
    let mut walked = 0;
    for item in &series.entries {
        if let CatalogItem::Navigation { href, .. } = item {
            seen.extend(feed_book_ids(&client, &server, href).await);
            walked += 1;
        }
    }
    assert!(walked >= 2, "the series feeds were walked");
    let title = fixture.books()[0].title.clone();
    let found = client.search(&server, &title).await.unwrap();
    seen.extend(found.entries.iter().filter_map(|e| match e {
        CatalogItem::Book { book_id, .. } => Some(*book_id),
        _ => None,
    }));
    assert_eq!(
        seen.len(),
        6,
        "six books, whichever views listed them: {seen:?}"
    );
    assert_eq!(books::all_ids(&env.store).unwrap().len(), 6);
    // Ids differ between views (the quirk is real), yet each book keeps the canonical one.
    let book = books::get(&env.store, *seen.iter().next().unwrap()).unwrap();
    assert!(
        book.catalog_id.starts_with("/opds/v1.2/comics/") && !book.catalog_id.contains('?'),
        "{}",
        book.catalog_id
    );
}

/// Writes a `books` row the way earlier versions did: the raw id, identity not checked.
fn old_copy(env: &Env, server: &Server, raw_id: &str, template: &str) -> i64 {
    let store = &env.store;
    store
        .write(|tx| {
            tx.execute("UPDATE id_high_water SET last = last + 1 WHERE name = 'books'", [])
                .map_err(|e| store.sql_error(e))?;
            tx.query_row(
                "INSERT INTO books (id, server_id, catalog_id, title, format, stream_template, page_count, created_at_ms,
                                    progression_url, identity_v)
                 VALUES ((SELECT last FROM id_high_water WHERE name = 'books'), ?1, ?2, 'Saga #1', 'comic', ?3, 4, 1,
                         'http://127.0.0.1:9/progression', 0)
                 RETURNING id",
                rusqlite::params![server.id, raw_id, template],
                |r| r.get(0),
            )
            .map_err(|e| store.sql_error(e))
        })
        .unwrap()
}

#[tokio::test]
async fn copies_remembered_before_are_merged_keeping_files_position_pins_and_queued_positions() {
    let env = Env::new();
    let server = env.add_server("codex", "http://127.0.0.1:9/opds");
    let template = "http://127.0.0.1:9/opds/v1.2/c/5/{pageNumber}/page.jpg";
    let a = old_copy(
        &env,
        &server,
        "/opds/v1.2/comics/5?topCollection=series&orderBy=date",
        template,
    );
    let b = old_copy(
        &env,
        &server,
        "/opds/v1.2/comics/5?topCollection=series&orderBy=sort_name",
        template,
    );
    // Reached through a search: another id, yet the same page stream.
    let c = old_copy(&env, &server, "urn:codex:search:5", template);
    let other = old_copy(
        &env,
        &server,
        "/opds/v1.2/comics/6?orderBy=date",
        "http://127.0.0.1:9/opds/v1.2/c/6/{pageNumber}/page.jpg",
    );

    // `a` has two pages stored; `b` was read furthest and waits to send its position; `c` is pinned.
    let files = PartFiles::new(env.dir.books());
    for page in 0..2 {
        let spec = carrel_core::engine::download_stack::TaskSpec {
            book_id: a,
            server_id: server.id,
            kind: carrel_core::engine::download_stack::TaskKind::Page,
            position: page,
            url: format!("http://127.0.0.1:9/p/{page}"),
            prioritary: false,
        };
        carrel_core::engine::download_stack::push(&env.store, &spec).unwrap();
        part_files::write_atomically(&files.page_path(a, page, "png"), &[page as u8; 10]).unwrap();
    }
    env.store
        .write(|tx| {
            tx.execute(
                "UPDATE tasks SET state = 'done', bytes = 10 WHERE book_id = ?1",
                [a],
            )
            .map_err(|e| env.store.sql_error(e))
        })
        .unwrap();
    position_sync::record(&env.store, b, 3).unwrap();
    // `b` is in a series only its series feed named.
    carrel_core::catalog::book_view::remember_feed_series(&env.store, b, "Saga", Some(2.0))
        .unwrap();
    books::set_pinned(&env.store, c, true).unwrap();
    let b_dir = files.book_dir(b);
    std::fs::create_dir_all(&b_dir).unwrap();
    std::fs::write(b_dir.join("stray.part"), b"x").unwrap();

    assert_eq!(book_identity::merge_duplicates(&env.store).unwrap(), 2);
    let ids = books::all_ids(&env.store).unwrap();
    assert_eq!(
        ids,
        vec![a, other],
        "the copy with pages stored is kept, the other book untouched"
    );
    let kept = books::get(&env.store, a).unwrap();
    assert_eq!(kept.catalog_id, "/opds/v1.2/comics/5");
    assert_eq!(kept.last_page, Some(3), "the furthest-read position");
    assert!(kept.pinned, "a pin on any copy");
    let progress = book_downloads::progress(&env.store, &kept).unwrap();
    assert_eq!(progress.stored_parts, 2, "the stored pages stay");
    assert!(files.find_page(a, 1).is_some());
    assert!(!b_dir.exists(), "the merged copies' files go");
    let queued = position_sync::pending(&env.store).unwrap();
    assert_eq!(
        queued
            .iter()
            .map(|q| (q.book_id, q.page))
            .collect::<Vec<_>>(),
        vec![(a, Some(3))],
        "the position waiting for the server follows"
    );
    // The series the feed gave follows, still the feed's: an entry naming none leaves it be.
    carrel_core::catalog::book_view::remember_meta(&env.store, a, &Default::default()).unwrap();
    let series = carrel_core::catalog::series_read_ahead::show(&env.store, a).unwrap();
    assert_eq!(series.series, "Saga");
    // Once is enough: a second run finds nothing to do.
    assert_eq!(book_identity::merge_duplicates(&env.store).unwrap(), 0);
}
