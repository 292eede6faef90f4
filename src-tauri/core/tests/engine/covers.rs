//! Covers kept with books kept offline: each address fetched once, even when a cover's address
//! is also a page's (a server whose cover of a comic is its first page).

use std::collections::BTreeMap;

use carrel_core::{
    engine::book_downloads::{self, BookState},
    engine::download_stack::{self, TaskKind, TaskSpec},
    engine::executor::Finish,
    foundation::part_files::PartFiles,
    library::books,
};
use fixture_server::{Behavior, Config, RunningServer};

use crate::support::{fast_config, listed_ids, Env};

/// Four comics of six pages.
fn four_comics(behavior: Behavior) -> RunningServer {
    fixture_server::Server::start(Config {
        books: 4,
        comic_pages: (1..=4).map(|n| (n, 6)).collect(),
        behavior,
        ..Default::default()
    })
    .expect("the fixture server starts")
}

/// The fixture's books as the catalog lists them: catalog number → local id.
async fn listed(env: &Env, fixture: &RunningServer) -> BTreeMap<u32, i64> {
    let server = env.add_server("Fixture", &fixture.url("/opds"));
    listed_ids(env, &server).await
}

/// Keeps every listed book offline at once and runs the executor until the stack is empty.
async fn keep_all(env: &Env, ids: &BTreeMap<u32, i64>) {
    let all: Vec<i64> = ids.values().copied().collect();
    book_downloads::keep_books(&env.store, &all).unwrap();
    let (finish, _) = env.sync(fast_config()).await;
    assert_eq!(finish, Finish::Idle);
}

fn assert_stored(env: &Env, fixture: &RunningServer, ids: &BTreeMap<u32, i64>) {
    let files = PartFiles::new(env.dir.books());
    for (n, id) in ids {
        let book = books::get(&env.store, *id).unwrap();
        assert_eq!(
            book_downloads::status(&env.store, &book).unwrap().state,
            BookState::Stored,
            "book {n}"
        );
        for i in 0..6 {
            let page = std::fs::read(files.find_page(*id, i).unwrap()).unwrap();
            assert_eq!(
                Some(page),
                fixture.page_bytes(*n, i as u32),
                "book {n} page {i}"
            );
        }
        assert!(files.find_cover(*id).is_some(), "book {n} keeps its cover");
    }
}

/// Four comics of a fixture behaving as `behavior` says, listed in a fresh library, then kept
/// offline together and checked stored; the fixture's counts start after the listing.
async fn all_four_kept(behavior: Behavior) -> (RunningServer, Env, BTreeMap<u32, i64>) {
    let fixture = four_comics(behavior);
    let env = Env::new();
    let ids = listed(&env, &fixture).await;
    assert_eq!(ids.len(), 4);
    fixture.reset_stats();

    keep_all(&env, &ids).await;

    assert_stored(&env, &fixture, &ids);
    (fixture, env, ids)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn books_kept_offline_together_fetch_each_page_and_cover_once() {
    let (fixture, _env, ids) = all_four_kept(Behavior::default()).await;
    let stats = fixture.stats();
    for n in ids.keys() {
        for i in 0..6 {
            assert_eq!(
                stats.hits_any_query(&format!("/books/{n}/pages/{i}")),
                1,
                "book {n} page {i}"
            );
        }
        let covers = stats.hits_any_query(&format!("/books/{n}/cover"))
            + stats.hits_any_query(&format!("/books/{n}/thumbnail"));
        assert_eq!(covers, 1, "book {n}'s cover");
    }
}

fn cover_is_first_page() -> Behavior {
    Behavior {
        cover_is_first_page: true,
        ..Default::default()
    }
}

/// Each book's cover is its first page: same bytes, one request for both, no other cover asked.
fn assert_first_page_fetched_once(env: &Env, fixture: &RunningServer, ids: &BTreeMap<u32, i64>) {
    let stats = fixture.stats();
    let files = PartFiles::new(env.dir.books());
    for (n, id) in ids {
        let book = books::get(&env.store, *id).unwrap();
        let cover_path = url::Url::parse(book.cover_url.as_deref().unwrap())
            .unwrap()
            .path()
            .to_owned();
        assert_eq!(
            cover_path,
            format!("/books/{n}/pages/0"),
            "book {n}'s cover"
        );
        assert_eq!(
            stats.hits_any_query(&cover_path),
            1,
            "book {n}: its first page, its cover too, fetched once"
        );
        assert_eq!(stats.hits_any_query(&format!("/books/{n}/cover")), 0);
        assert_eq!(stats.hits_any_query(&format!("/books/{n}/thumbnail")), 0);
        for i in 1..6 {
            let path = format!("/books/{n}/pages/{i}");
            assert_eq!(stats.hits_any_query(&path), 1, "book {n} page {i}");
        }
        let cover = std::fs::read(files.find_cover(*id).unwrap()).unwrap();
        let first = std::fs::read(files.find_page(*id, 0).unwrap()).unwrap();
        assert_eq!(cover, first, "book {n}: the cover is the first page's file");
    }
}

/// The cover fetched after the page: the book's pages come first (page 0 on top), its cover
/// last, taken from the stored page.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_cover_that_is_the_first_page_is_taken_from_the_stored_page() {
    let (fixture, env, ids) = all_four_kept(cover_is_first_page()).await;
    assert_first_page_fetched_once(&env, &fixture, &ids);
}

/// The cover fetched before the page (asked for on its own first): the first page is taken
/// from the stored cover, whether the download starts there or comes round to it.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_first_page_that_is_the_cover_is_taken_from_the_stored_cover() {
    let fixture = four_comics(cover_is_first_page());
    let env = Env::new();
    let ids = listed(&env, &fixture).await;
    fixture.reset_stats();
    for id in ids.values() {
        let book = books::get(&env.store, *id).unwrap();
        download_stack::push(
            &env.store,
            &TaskSpec {
                book_id: book.id,
                server_id: book.server_id,
                kind: TaskKind::Resource,
                position: 0,
                url: book.cover_url.clone().unwrap(),
                prioritary: false,
            },
        )
        .unwrap();
    }
    let (finish, _) = env.sync(fast_config()).await;
    assert_eq!(finish, Finish::Idle);
    let files = PartFiles::new(env.dir.books());
    for id in ids.values() {
        assert!(files.find_cover(*id).is_some());
        assert!(files.find_page(*id, 0).is_none(), "no page yet");
    }
    // Two books read from page 3: their downloads come round to page 0 (asked for ahead of
    // the page before it) last.
    for n in [2, 4] {
        books::mark_opened(&env.store, ids[&n], Some(3)).unwrap();
    }

    keep_all(&env, &ids).await;

    assert_stored(&env, &fixture, &ids);
    assert_first_page_fetched_once(&env, &fixture, &ids);
}
