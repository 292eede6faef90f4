//! Signing in once: against a server that checks passwords with a slow hash and hands out a
//! session cookie (the fixture's session mode, as Codex, Komga and Calibre-Web do), a download
//! sends the password only when there is no session or the server refused it.

use carrel_core::{
    book_downloads::{self, BookState},
    books,
    catalog::{CatalogClient, CatalogItem},
    credentials::Secret,
    http_fetch::{HttpClient, HttpConfig},
    servers::{self, NewServer, Server},
};
use fixture_server::{Behavior, Config, RunningServer};

use crate::support::{fast_config, Env};

const PAGES: u32 = 200;

fn start(max_uses: Option<u32>) -> RunningServer {
    fixture_server::Server::start(Config {
        books: 1,
        comic_pages: [(1, PAGES)].into(),
        page_bytes: 512,
        behavior: Behavior {
            auth: Some("reader:open sesame".into()),
            sessions: true,
            session_max_uses: max_uses,
            ..Default::default()
        },
        ..Default::default()
    })
    .expect("the fixture server starts")
}

async fn signed_in(env: &Env, fixture: &RunningServer) -> (Server, i64) {
    let server = servers::add_with_secret(
        &env.store,
        &env.credentials,
        &NewServer {
            name: "Codex-like".into(),
            url: fixture.url("/opds"),
            username: Some("reader".into()),
            ..Default::default()
        },
        Some(&Secret::new("open sesame")),
    )
    .unwrap();
    let http = HttpClient::new(HttpConfig::default()).unwrap();
    let client = CatalogClient { store: &env.store, credentials: &env.credentials, http: &http };
    let page = client.browse(&server, Some("/opds/books")).await.unwrap();
    let book_id = page
        .entries
        .into_iter()
        .find_map(|item| match item {
            CatalogItem::Book { book_id, .. } => Some(book_id),
            _ => None,
        })
        .expect("the comic is listed");
    (server, book_id)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_signed_in_download_of_200_pages_checks_the_password_at_most_twice() {
    let fixture = start(None);
    let env = Env::new();
    let (_, book) = signed_in(&env, &fixture).await;
    let before = fixture.stats().password_checks;
    book_downloads::store_book(&env.store, book).unwrap();
    env.sync(fast_config()).await;
    let b = books::get(&env.store, book).unwrap();
    assert_eq!(book_downloads::status(&env.store, &b).unwrap().state, BookState::Stored);
    let stats = fixture.stats();
    let checks = stats.password_checks - before;
    eprintln!("password checks for a {PAGES}-page download: {checks} (requests: {})", stats.total_requests);
    assert!(checks <= 2, "{checks} password checks");
    assert!(stats.total_requests >= PAGES as u64, "every page was fetched");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_expired_session_costs_one_password_check_and_the_new_session_is_kept() {
    // Each session answers 50 requests, then the server refuses it.
    let fixture = start(Some(50));
    let env = Env::new();
    let (_, book) = signed_in(&env, &fixture).await;
    let before = fixture.stats().password_checks;
    book_downloads::store_book(&env.store, book).unwrap();
    env.sync(fast_config()).await;
    let b = books::get(&env.store, book).unwrap();
    assert_eq!(book_downloads::status(&env.store, &b).unwrap().state, BookState::Stored, "nothing failed on a refused session");
    let checks = fixture.stats().password_checks - before;
    // 200 pages + the cover: a first sign-in, then one per expired session.
    assert!((4..=6).contains(&checks), "{checks} password checks");
}
