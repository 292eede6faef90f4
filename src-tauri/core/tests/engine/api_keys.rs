//! API keys as a sign-in of their own: a server that takes Komga's `X-API-Key` (the fixture's
//! `api_key`) lets Carrel in with the key saved as an API key, and refuses the same key sent as
//! a password or a bearer token; the key lives in the secret store, never in the database.

use carrel_core::{
    catalog::client::CatalogClient,
    catalog::client::CatalogError,
    http::http_fetch::{FetchError, HttpClient, HttpConfig},
    library::credentials::Secret,
    library::servers::{self, NewServer},
};
use fixture_server::{Behavior, Config};

use crate::support::Env;

const KEY: &str = "k0mga-4pi-k3y-1234567890";

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_api_key_signs_in_as_x_api_key_and_only_so() {
    let fixture = fixture_server::Server::start(Config {
        books: 2,
        behavior: Behavior {
            api_key: Some(KEY.into()),
            ..Default::default()
        },
        ..Default::default()
    })
    .expect("the fixture server starts");
    let env = Env::new();
    let http = HttpClient::new(HttpConfig::default()).unwrap();
    let add = |name: &str, api_key: bool| {
        servers::add_with_secret(
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
    let client = CatalogClient {
        store: &env.store,
        credentials: &env.credentials,
        http: &http,
    };
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
    // A username given beside an API key is dropped: the key signs in alone.
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
    for entry in std::fs::read_dir(env.store.data_dir().root()).unwrap() {
        let path = entry.unwrap().path();
        if path
            .file_name()
            .unwrap()
            .to_string_lossy()
            .starts_with("carrel.db")
        {
            let bytes = std::fs::read(&path).unwrap();
            assert!(
                !bytes.windows(KEY.len()).any(|w| w == KEY.as_bytes()),
                "the key in {path:?}"
            );
        }
    }
    fixture.stop();
}
