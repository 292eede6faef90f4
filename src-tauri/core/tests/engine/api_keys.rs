//! API keys as a sign-in of their own: a server that takes Komga's `X-API-Key` (the fixture's
//! `api_key`) lets Carrel in with the key saved as an API key, and refuses the same key sent as
//! a password or a bearer token; the key lives in the secret store, never in the database.

use carrel_core::{
    catalog::client::CatalogError,
    http::http_fetch::FetchError,
    library::credentials::Secret,
    library::servers::{self, NewServer},
};
use fixture_server::{Behavior, Config};

use carrel_core::foundation::store::test_support::database_files_holding;

use crate::support::{http, Env};

/// A fixture of `books` books that takes the keys `behavior` names.
fn books_taking(books: u32, behavior: Behavior) -> fixture_server::RunningServer {
    fixture_server::Server::start(Config {
        books,
        behavior,
        ..Default::default()
    })
    .expect("the fixture server starts")
}

const KEY: &str = "k0mga-4pi-k3y-1234567890";

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_api_key_signs_in_as_x_api_key_and_only_so() {
    let fixture = books_taking(
        2,
        Behavior {
            api_key: Some(KEY.into()),
            ..Default::default()
        },
    );
    let env = Env::new();
    let http = http();
    let add = |name: &str, api_key: bool| {
        carrel_core::library::server_secrets::add_with_secret(
            &env.store,
            &env.credentials,
            &NewServer {
                name: name.into(),
                url: fixture.url("/opds"),
                api_key: Some(api_key),
                ..Default::default()
            },
            Some(&Secret::new(KEY)),
        )
        .unwrap()
    };
    let keyed = add("Komga", true);
    assert!(keyed.api_key);
    let client = env.catalog(&http);
    let page = client.browse(&keyed, Some("/opds/books")).await.unwrap();
    assert!(!page.entries.is_empty());
    // The same key as a bearer token is not what the server takes.
    let bearer = add("Komga as a token", false);
    let refused = client
        .browse(&bearer, Some("/opds/books"))
        .await
        .unwrap_err();
    assert!(
        matches!(refused, CatalogError::Fetch(FetchError::Auth(_))),
        "{refused:?}"
    );
    // A username given beside an API key is dropped: the key signs in alone (and so it is the
    // same account as the first server's, which goes first).
    servers::remove(&env.store, keyed.id).unwrap();
    let both = servers::add(
        &env.store,
        &NewServer {
            name: "Both".into(),
            url: fixture.url("/opds"),
            username: Some("ada".into()),
            api_key: Some(true),
            ..Default::default()
        },
    )
    .unwrap();
    assert_eq!(both.username, None);
    // The key is in the secret store, not in the database.
    let held = database_files_holding(env.store.data_dir().root(), KEY.as_bytes());
    assert!(held.is_empty(), "the key in {held:?}");
    fixture.stop();
}

const KAVITA_KEY: &str = "5d1c9a0e-77f2-4b1a-9c3e-0f2e4d6a8b10";

/// Kavita keeps the reader's API key in every catalog address (`/api/opds/<key>/…`): the key
/// goes to the secret store when the server is added, every address Carrel keeps carries a
/// placeholder instead, and requests carry the key again — so browsing, pages and files work
/// while the database never holds the key.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_kavita_key_in_the_catalog_address_works_and_never_reaches_the_database() {
    use carrel_core::{
        catalog::client::CatalogItem,
        engine::book_downloads::{self, BookState},
        foundation::part_files::PartFiles,
        library::books,
    };
    let fixture = books_taking(
        3,
        Behavior {
            kavita_key: Some(KAVITA_KEY.into()),
            ..Default::default()
        },
    );
    let env = Env::new();
    let server = carrel_core::library::server_secrets::add_with_secret(
        &env.store,
        &env.credentials,
        &NewServer {
            name: "Kavita".into(),
            url: fixture.url(&format!("/api/opds/{KAVITA_KEY}")),
            ..Default::default()
        },
        None,
    )
    .unwrap();
    assert!(!server.url.contains(KAVITA_KEY), "{}", server.url);
    assert!(server.url.ends_with("/api/opds/~apikey~"), "{}", server.url);
    let client = env.client();
    let root = client.browse(&server, None).await.unwrap();
    let books_feed = root
        .entries
        .iter()
        .find_map(|e| match e {
            CatalogItem::Navigation { href, .. } if href.ends_with("/opds/books") => {
                Some(href.clone())
            }
            _ => None,
        })
        .expect("the root feed links to its books");
    assert!(books_feed.contains("/api/opds/~apikey~/"), "{books_feed}");
    let page = client.browse(&server, Some(&books_feed)).await.unwrap();
    let ids: Vec<i64> = page
        .entries
        .iter()
        .filter_map(|e| match e {
            CatalogItem::Book { book_id, .. } => Some(*book_id),
            _ => None,
        })
        .collect();
    assert_eq!(ids.len(), 3);
    for id in &ids {
        book_downloads::store_book(&env.store, *id).unwrap();
    }
    let (finish, _) = env.sync(crate::support::fast_config()).await;
    assert_eq!(finish, carrel_core::engine::executor::Finish::Idle);
    let files = PartFiles::new(env.dir.books());
    for id in &ids {
        let book = books::get(&env.store, *id).unwrap();
        let status = book_downloads::status(&env.store, &book).unwrap();
        assert_eq!(status.state, BookState::Stored, "{}", book.title);
        if !book.streams_pages() {
            let stored = std::fs::read(files.find_book_file(*id).unwrap()).unwrap();
            assert!(
                (1..=3).any(|n| fixture.book_bytes(n).as_deref() == Some(&stored[..])),
                "{} is stored byte for byte",
                book.title
            );
        }
    }
    // Every request carried the key (the server refuses any other), and no file of the
    // database holds it.
    assert!(fixture.stats().total_requests > 3);
    let held = database_files_holding(env.store.data_dir().root(), KAVITA_KEY.as_bytes());
    assert!(held.is_empty(), "the key in {held:?}");
    fixture.stop();
}
