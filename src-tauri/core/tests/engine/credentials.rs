//! A reader's secrets go to the origin the reader typed and nowhere else: against a library on
//! 127.0.0.1 and a second host on 127.0.0.2 that records every credential (and `Referer`) it
//! receives and must receive none — discovery from a web page naming a catalog on another
//! host, the first probe, and redirects to another origin of feeds, files, API keys, session
//! cookies, a Kavita path key, a request with a body and KOReader sync.

use carrel_core::{
    http::http_fetch::{FetchError, ServerAccess},
    http::server_discovery::{self, DiscoveryError, Elsewhere, SignIn},
    library::credentials::Secret,
    library::servers::{self, NewServer, Server},
    reading::kosync::{self, KosyncClient},
};
use fixture_server::{Behavior, Config, RunningServer};

use crate::support::{http, Env};

const PASSWORD: &str = "alice's secret";

fn start(host: [u8; 4], behavior: Behavior) -> RunningServer {
    fixture_server::Server::start(Config {
        books: 2,
        host: host.into(),
        behavior,
        ..Default::default()
    })
    .expect("the fixture server starts")
}

/// The second host: a library on 127.0.0.2, which must never see a credential.
/// The library's own host: 127.0.0.1.
fn this_host(behavior: Behavior) -> RunningServer {
    start([127, 0, 0, 1], behavior)
}

fn other_host(behavior: Behavior) -> RunningServer {
    start([127, 0, 0, 2], behavior)
}

fn received(server: &RunningServer) -> Vec<String> {
    server.stats().credentials_received
}

fn with_password(env: &Env, url: &str, behavior_user: Option<&str>, api_key: bool) -> Server {
    carrel_core::library::server_secrets::add_with_secret(
        &env.store,
        &env.credentials,
        &NewServer {
            name: "Library".into(),
            url: url.into(),
            username: behavior_user.map(str::to_owned),
            api_key: Some(api_key),
            ..Default::default()
        },
        Some(&Secret::new(PASSWORD)),
    )
    .unwrap()
}

/// Alice signing in with `secret` (a password, not an API key).
fn as_alice(secret: &Secret) -> SignIn<'_> {
    SignIn {
        username: Some("alice"),
        secret: Some(secret),
        api_key: false,
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_catalog_a_web_page_names_on_another_host_gets_no_password_and_is_not_saved_silently() {
    let elsewhere = other_host(Behavior {
        auth: Some(format!("alice:{PASSWORD}")),
        ..Default::default()
    });
    let library = this_host(Behavior {
        auth: Some(format!("alice:{PASSWORD}")),
        catalog_link: Some(elsewhere.url("/opds")),
        ..Default::default()
    });
    let secret = Secret::new(PASSWORD);
    let sign_in = as_alice(&secret);
    let typed = format!("127.0.0.1:{}", library.port());
    let found = server_discovery::discover(&typed, sign_in, false)
        .await
        .unwrap();
    assert_eq!(found.catalog_url, elsewhere.url("/opds"));
    assert_eq!(found.elsewhere, Some(Elsewhere::OtherHost));
    assert!(found.locked, "it asked for a sign-in that was not sent");
    assert!(
        found.describe().contains(&elsewhere.url("/opds")),
        "the whole address is shown: {}",
        found.describe()
    );
    assert_eq!(received(&elsewhere), Vec::<String>::new());

    // Saving needs the reader's yes to that very address.
    let refused = server_discovery::catalog_address(&typed, sign_in, false, None)
        .await
        .unwrap_err();
    assert!(
        matches!(&refused, DiscoveryError::NeedsConsent(d) if d.catalog_url == elsewhere.url("/opds")),
        "{refused:?}"
    );
    assert_eq!(refused.code(), "needs_consent");
    assert!(refused.to_string().contains(&elsewhere.url("/opds")));
    let other_yes =
        server_discovery::catalog_address(&typed, sign_in, false, Some("http://127.0.0.3:1/opds"))
            .await;
    assert!(matches!(other_yes, Err(DiscoveryError::NeedsConsent(_))));
    let (url, _) =
        server_discovery::catalog_address(&typed, sign_in, false, Some(&elsewhere.url("/opds")))
            .await
            .unwrap();
    assert_eq!(url, elsewhere.url("/opds"));
    assert_eq!(received(&elsewhere), Vec::<String>::new());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_password_goes_only_after_the_server_asked_for_it() {
    let library = this_host(Behavior {
        auth: Some(format!("alice:{PASSWORD}")),
        ..Default::default()
    });
    let secret = Secret::new(PASSWORD);
    let sign_in = as_alice(&secret);
    let found = server_discovery::discover(&library.url("/opds"), sign_in, false)
        .await
        .unwrap();
    assert_eq!(found.catalog_url, library.url("/opds"));
    assert_eq!(found.elsewhere, None);
    let stats = library.stats();
    assert_eq!(
        stats.hits("/opds"),
        2,
        "a probe, then the answer to its 401"
    );
    assert_eq!(
        stats.credentials_received,
        ["GET /opds: authorization"],
        "the first probe carried no password"
    );

    // Without a password the reader is told the server wants one.
    let err = server_discovery::discover(&library.url("/opds"), SignIn::default(), false)
        .await
        .unwrap_err();
    assert_eq!(err.code(), "sign_in_needed", "{err}");

    // A server that never asks gets nothing.
    let open = start([127, 0, 0, 1], Behavior::default());
    server_discovery::discover(&format!("127.0.0.1:{}", open.port()), sign_in, false)
        .await
        .unwrap();
    assert_eq!(received(&open), Vec::<String>::new());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_redirect_to_another_host_carries_no_credential_of_any_kind() {
    let elsewhere = other_host(Behavior::default());
    let env = Env::new();
    let http = http();
    let client = env.catalog(&http);
    // A password, an API key and a bearer token, each to a library that sends its feeds away.
    for (user, api_key, behavior) in [
        (
            Some("alice"),
            false,
            Behavior {
                auth: Some(format!("alice:{PASSWORD}")),
                sessions: true,
                ..Default::default()
            },
        ),
        (
            None,
            true,
            Behavior {
                api_key: Some(PASSWORD.into()),
                ..Default::default()
            },
        ),
        (
            None,
            false,
            Behavior {
                bearer_token: Some(PASSWORD.into()),
                ..Default::default()
            },
        ),
    ] {
        let library = start([127, 0, 0, 1], behavior);
        let server = with_password(&env, &library.url("/opds"), user, api_key);
        // Signed in first, so a session cookie is kept where the server gives one.
        client.browse(&server, None).await.unwrap();
        library.set_behavior(Behavior {
            redirect_to: Some(elsewhere.base_url()),
            ..library.behavior()
        });
        let page = client.browse(&server, Some("/opds/books")).await.unwrap();
        assert!(
            !page.entries.is_empty(),
            "the feed is read from the other host"
        );
        let access = ServerAccess::load(&server, &env.credentials).unwrap();
        let cover = http
            .get_bytes(
                &env.store,
                &access,
                &url::Url::parse(&library.url("/opds")).unwrap(),
                1 << 20,
            )
            .await
            .unwrap();
        assert_eq!(cover.final_url.as_str(), elsewhere.url("/opds"));
        // A request with a body is not sent on.
        let put = http
            .put_bytes(
                &env.store,
                &access,
                &url::Url::parse(&library.url("/opds/books/1/progression")).unwrap(),
                "application/json",
                b"{}".to_vec(),
                1 << 16,
            )
            .await
            .unwrap_err();
        assert!(
            matches!(&put, FetchError::Gone(m) if m.contains("another address")),
            "{put:?}"
        );
        assert_eq!(
            received(&elsewhere),
            Vec::<String>::new(),
            "user {user:?}, api key {api_key}"
        );
        library.stop();
        servers::remove(&env.store, server.id).unwrap();
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_kavita_key_never_leaves_in_a_referer() {
    const KEY: &str = "5d1c9a0e-77f2-4b1a-9c3e-0f2e4d6a8b10";
    let elsewhere = other_host(Behavior::default());
    let library = this_host(Behavior {
        kavita_key: Some(KEY.into()),
        ..Default::default()
    });
    let env = Env::new();
    let server = env.add_server("Kavita", &library.url(&format!("/api/opds/{KEY}")));
    let client = env.client();
    client.browse(&server, None).await.unwrap();
    library.set_behavior(Behavior {
        redirect_to: Some(elsewhere.base_url()),
        ..library.behavior()
    });
    let _ = client.browse(&server, Some("/opds/books")).await;
    assert!(
        elsewhere.stats().total_requests > 0,
        "the redirect was followed"
    );
    assert_eq!(received(&elsewhere), Vec::<String>::new());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn koreader_sync_sends_its_user_and_key_to_no_other_host() {
    let elsewhere = other_host(Behavior {
        kosync_user: Some((
            "alice".into(),
            kosync::user_key(PASSWORD).expose().to_owned(),
        )),
        ..Default::default()
    });
    let sync_server = this_host(Behavior {
        redirect_to: Some(elsewhere.base_url()),
        ..Default::default()
    });
    let env = Env::new();
    let err = kosync::sign_in(
        &env.store,
        &env.credentials,
        &KosyncClient::new().unwrap(),
        &sync_server.url("/kosync"),
        "alice",
        &Secret::new(PASSWORD),
    )
    .await
    .unwrap_err();
    assert!(err.to_string().contains("another address"), "{err}");
    assert_eq!(received(&elsewhere), Vec::<String>::new());
}
