//! Signing in once: against a server that checks passwords with a slow hash and hands out a
//! session cookie (the fixture's session mode, as Codex, Komga and Calibre-Web do), a download
//! sends the password only when there is no session or the server refused it.

use carrel_core::{
    catalog::client::{CatalogClient, CatalogItem},
    engine::book_downloads::{self, BookState},
    http::http_fetch::{HttpClient, HttpConfig},
    library::books,
    library::credentials::Secret,
    library::servers::{NewServer, Server},
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

/// `fixture` added to `env` as the server "Codex-like", signed in to as "reader".
fn signed_in_as_reader(env: &Env, fixture: &RunningServer) -> Server {
    env.add_server_as("Codex-like", &fixture.url("/opds"), "reader", "open sesame")
}

/// A Codex-like fixture (see [`start`]) added to a new data dir, signed in to as "reader"
/// (see [`signed_in_as_reader`]) and browsed once.
async fn browsed_as_reader() -> (RunningServer, Env, Server) {
    let fixture = start(None);
    let env = Env::new();
    let server = signed_in_as_reader(&env, &fixture);
    browse_once(&env.store, &env.credentials, &server).await;
    (fixture, env, server)
}

async fn signed_in(env: &Env, fixture: &RunningServer) -> (Server, i64) {
    let server = signed_in_as_reader(env, fixture);
    let client = env.client();
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

/// Downloads `book` whole, as "Keep offline" does, and tells the state it ends in.
async fn kept_offline(env: &Env, book: i64) -> BookState {
    book_downloads::store_book(&env.store, book).unwrap();
    env.sync(fast_config()).await;
    let book = books::get(&env.store, book).unwrap();
    book_downloads::status(&env.store, &book).unwrap().state
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_signed_in_download_of_200_pages_checks_the_password_at_most_twice() {
    let fixture = start(None);
    let env = Env::new();
    let (_, book) = signed_in(&env, &fixture).await;
    let before = fixture.stats().password_checks;
    assert_eq!(kept_offline(&env, book).await, BookState::Stored);
    let stats = fixture.stats();
    let checks = stats.password_checks - before;
    eprintln!(
        "password checks for a {PAGES}-page download: {checks} (requests: {})",
        stats.total_requests
    );
    assert!(checks <= 2, "{checks} password checks");
    assert!(
        stats.total_requests >= PAGES as u64,
        "every page was fetched"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_expired_session_costs_one_password_check_and_the_new_session_is_kept() {
    // Each session answers 50 requests, then the server refuses it.
    let fixture = start(Some(50));
    let env = Env::new();
    let (_, book) = signed_in(&env, &fixture).await;
    let before = fixture.stats().password_checks;
    assert_eq!(
        kept_offline(&env, book).await,
        BookState::Stored,
        "nothing failed on a refused session"
    );
    let checks = fixture.stats().password_checks - before;
    // 200 pages + the cover: a first sign-in, then one per expired session.
    assert!((4..=6).contains(&checks), "{checks} password checks");
}

/// A second process on the same data dir: its own store, secret store and HTTP client.
fn second_process(
    env: &Env,
) -> (
    carrel_core::foundation::store::Store,
    std::sync::Arc<carrel_core::library::credentials::Credentials>,
) {
    let dir = carrel_core::foundation::data_dir::DataDir::new(env.store.data_dir().root());
    let store =
        carrel_core::foundation::store::Store::open(&dir, carrel_core::foundation::clock::system())
            .unwrap();
    let credentials = std::sync::Arc::new(
        carrel_core::library::credentials::Credentials::file_only(&dir, "test"),
    );
    (store, credentials)
}

async fn browse_once(
    store: &carrel_core::foundation::store::Store,
    credentials: &std::sync::Arc<carrel_core::library::credentials::Credentials>,
    server: &Server,
) {
    let http = HttpClient::new(HttpConfig::default())
        .unwrap()
        .keeping_sessions_in(credentials.clone());
    let client = CatalogClient {
        store,
        credentials,
        http: &http,
    };
    client.browse(server, Some("/opds/books")).await.unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_session_outlives_the_process_in_the_secret_store_and_never_in_sqlite() {
    // The first process signs in once, and keeps the session.
    let (fixture, env, server) = browsed_as_reader().await;
    assert_eq!(fixture.stats().password_checks, 1);
    // A second process (the CLI, the app started again) sends the kept session: no password.
    let (store, credentials) = second_process(&env);
    browse_once(&store, &credentials, &server).await;
    browse_once(&store, &credentials, &server).await;
    assert_eq!(
        fixture.stats().password_checks,
        1,
        "the next processes signed in with the kept session"
    );
    // The session is a credential: in the secret store, never in the database.
    let kept = credentials
        .get(&credentials.session_account(server.id))
        .unwrap()
        .expect("the session is kept");
    let value: serde_json::Value = serde_json::from_str(kept.expose()).unwrap();
    let cookie = value["cookie"].as_str().expect("a cookie").to_string();
    assert!(
        !kept.expose().contains("open sesame"),
        "the password itself is not in the record"
    );
    let session = cookie.split('=').nth(1).unwrap().as_bytes();
    let held = carrel_core::foundation::store::test_support::database_files_holding(
        env.store.data_dir().root(),
        session,
    );
    assert!(held.is_empty(), "the session in {held:?}");
    fixture.stop();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_new_password_or_a_removed_server_drops_the_kept_session() {
    let (fixture, env, server) = browsed_as_reader().await;
    let account = env.credentials.session_account(server.id);
    assert!(env.credentials.get(&account).unwrap().is_some());
    // The password is given again (changed): the session won with the old one goes.
    let input = NewServer {
        name: server.name.clone(),
        url: server.url.clone(),
        username: server.username.clone(),
        ..Default::default()
    };
    carrel_core::library::server_secrets::update_with_secret(
        &env.store,
        &env.credentials,
        server.id,
        &input,
        &carrel_core::library::server_secrets::PasswordChange::Set(Secret::new("open sesame")),
    )
    .unwrap();
    assert!(
        env.credentials.get(&account).unwrap().is_none(),
        "a password change drops the session"
    );
    browse_once(&env.store, &env.credentials, &server).await;
    assert!(env.credentials.get(&account).unwrap().is_some());
    carrel_core::catalog::server_removal::remove_with_secret(
        &env.store,
        &env.credentials,
        server.id,
    )
    .unwrap();
    assert!(
        env.credentials.get(&account).unwrap().is_none(),
        "a removed server leaves no session behind"
    );
    fixture.stop();
}
