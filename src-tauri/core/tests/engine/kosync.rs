//! KOReader sync against a server that speaks KOReader's protocol (the fixture's `/kosync`,
//! written from KOReader's own client): the document id is KOReader's partial MD5 (checked
//! against an independent implementation in Python), a saved position reaches the server as
//! KOReader writes it, a newer one from another device comes back and becomes this device's,
//! our own never does, and a refused account keeps the position queued with the reason.

use std::sync::Arc;
use std::time::{SystemTime, UNIX_EPOCH};

use carrel_core::{
    catalog::client::CatalogItem,
    engine::book_downloads,
    foundation::clock::ManualClock,
    library::books,
    library::credentials::Secret,
    library::servers::Server,
    reading::book_source,
    reading::kosync::{self, KosyncAccount, KosyncClient, KosyncError},
    reading::position_sync::{self, PositionSource},
};
use fixture_server::{Behavior, Config, GivenFile, RunningServer};

use crate::support::{fast_config, http, python, reportlab_pdf, run_tool, Env};

const USER: &str = "reader";
/// md5("secret"): the key KOReader sends for the password "secret".
const KEY: &str = "5ebe2294ecd0e0f08eab7690d2a6ee69";

/// KOReader's partial MD5 as an independent Python implementation computes it.
fn python_partial_md5(path: &std::path::Path) -> String {
    let script = "import hashlib, sys\nh = hashlib.md5()\nwith open(sys.argv[1], 'rb') as f:\n    for o in [0] + [1024 << (2 * i) for i in range(0, 11)]:\n        f.seek(o)\n        s = f.read(1024)\n        if not s:\n            break\n        h.update(s)\nprint(h.hexdigest())";
    let out = run_tool(python(script).arg(path));
    String::from_utf8(out).unwrap().trim().to_string()
}

#[test]
fn the_document_id_is_koreaders_partial_md5() {
    let dir = tempfile::tempdir().unwrap();
    // Sizes around the sampling offsets: less than one sample, exactly one, a few, several MiB.
    for len in [700usize, 1024, 1025, 5000, 70_000, 3 << 20] {
        let path = dir.path().join(format!("f{len}"));
        let bytes: Vec<u8> = (0..len)
            .map(|i| (i.wrapping_mul(2_654_435_761) >> 7) as u8)
            .collect();
        std::fs::write(&path, &bytes).unwrap();
        assert_eq!(
            kosync::document_id(&path).unwrap(),
            python_partial_md5(&path),
            "{len} bytes"
        );
    }
}

fn start(pdf: Vec<u8>) -> RunningServer {
    fixture_server::Server::start(Config {
        books: 3,
        files: [(
            1,
            GivenFile {
                media_type: "application/pdf".into(),
                extension: "pdf".into(),
                bytes: pdf,
            },
        )]
        .into(),
        behavior: Behavior {
            kosync_user: Some((USER.into(), KEY.into())),
            ..Default::default()
        },
        ..Default::default()
    })
    .expect("the fixture server starts")
}

/// Book 1 listed, downloaded, its 5 pages counted by the reader; its local id.
async fn stored_pdf(env: &Env, server: &Server) -> i64 {
    let client = env.client();
    let page = client.browse(server, Some("/opds/books")).await.unwrap();
    let id = page
        .entries
        .into_iter()
        .find_map(|item| match item {
            CatalogItem::Book { book_id, .. } => {
                let book = books::get(&env.store, book_id).unwrap();
                book.file_url
                    .as_deref()
                    .is_some_and(|u| u.ends_with("/books/1/file"))
                    .then_some(book_id)
            }
            _ => None,
        })
        .expect("book 1 is listed");
    book_downloads::open_book(&env.store, id, None).unwrap();
    env.sync(fast_config()).await;
    book_source::record_pdf_pages(&env.store, id, 5).unwrap();
    id
}

fn now_ms() -> i64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .unwrap()
        .as_millis() as i64
}

/// Signs in to the KOReader sync server at `url` as [`USER`] with `password`.
async fn sign_in(
    env: &Env,
    client: &KosyncClient,
    url: &str,
    password: &str,
) -> Result<KosyncAccount, KosyncError> {
    kosync::sign_in(
        &env.store,
        &env.credentials,
        client,
        url,
        USER,
        &Secret::new(password),
    )
    .await
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn positions_go_to_the_sync_server_and_another_devices_newer_one_comes_back() {
    let pdf = reportlab_pdf(5);
    let fixture = start(pdf.clone());
    // This device's clock an hour behind the server's: what the other device sends is newer.
    let env = Env::with_clock(Arc::new(ManualClock::new(now_ms() - 3_600_000)));
    let server = env.add_server("Fixture", &fixture.url("/opds"));
    let id = stored_pdf(&env, &server).await;
    let client = KosyncClient::new().unwrap();
    let account = sign_in(&env, &client, &fixture.url("/kosync"), "secret")
        .await
        .unwrap();
    assert_eq!(
        kosync::account(&env.store).unwrap().as_ref(),
        Some(&account)
    );

    // Page 3 (index 2) read here: sent as KOReader writes it.
    position_sync::record(&env.store, id, 2).unwrap();
    let http = http();
    let report = position_sync::flush(&env.store, &http, &env.credentials)
        .await
        .unwrap();
    assert_eq!(report.kosync.sent, 1, "{report:?}");
    let dir = tempfile::tempdir().unwrap();
    let copy = dir.path().join("book.pdf");
    std::fs::write(&copy, &pdf).unwrap();
    let document = python_partial_md5(&copy);
    let held = fixture
        .kosync_progress(USER, &document)
        .expect("the server holds the position under KOReader's document id");
    assert_eq!(held["progress"], "3");
    assert_eq!(held["percentage"].as_f64(), Some(0.6));
    assert_eq!(held["device"], "Carrel");
    assert_eq!(held["device_id"], account.device_id.as_str());
    assert!(kosync::pending(&env.store).unwrap().is_empty());

    // Our own position never comes back as another device's.
    assert_eq!(
        position_sync::newest(&env.store, &http, &env.credentials, id)
            .await
            .unwrap(),
        None
    );

    // Another device reads on to page 5.
    let put = reqwest::Client::new()
        .put(fixture.url("/kosync/syncs/progress"))
        .header("x-auth-user", USER)
        .header("x-auth-key", KEY)
        .json(&serde_json::json!({ "document": document, "progress": "5", "percentage": 1.0, "device": "Kobo", "device_id": "kobo-1" }))
        .send()
        .await
        .unwrap();
    assert_eq!(put.status(), 200);
    let theirs = position_sync::take_newer(&env.store, &http, &env.credentials, id)
        .await
        .unwrap()
        .expect("the newer position");
    assert_eq!((theirs.page, theirs.source), (4, PositionSource::Kosync));
    assert_eq!(
        books::get(&env.store, id).unwrap().last_page,
        Some(4),
        "it became this device's"
    );
    fixture.stop();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_wrong_password_is_refused_and_a_refused_account_keeps_positions_queued() {
    let fixture = start(reportlab_pdf(5));
    let (env, server) = Env::with_fixture(&fixture);
    let id = stored_pdf(&env, &server).await;
    let client = KosyncClient::new().unwrap();
    let err = sign_in(&env, &client, &fixture.url("/kosync"), "wrong")
        .await
        .unwrap_err();
    assert!(matches!(err, KosyncError::Refused), "{err:?}");
    assert_eq!(kosync::account(&env.store).unwrap(), None, "nothing kept");

    sign_in(&env, &client, &fixture.url("/kosync"), "secret")
        .await
        .unwrap();
    // The server stops accepting this account (its password changed elsewhere).
    let mut behavior = fixture.behavior();
    behavior.kosync_user = Some((USER.into(), "0".repeat(32)));
    fixture.set_behavior(behavior);
    position_sync::record(&env.store, id, 1).unwrap();
    let http = http();
    let report = position_sync::flush(&env.store, &http, &env.credentials)
        .await
        .unwrap();
    assert_eq!((report.kosync.sent, report.kosync.failed), (0, 1));
    let pending = kosync::pending(&env.store).unwrap();
    assert_eq!(pending.len(), 1);
    assert!(
        pending[0]
            .2
            .as_deref()
            .is_some_and(|e| e.contains("refused")),
        "{pending:?}"
    );

    // Signed out: nothing is queued or sent any more.
    kosync::sign_out(&env.store, &env.credentials).unwrap();
    assert!(kosync::pending(&env.store).unwrap().is_empty());
    fixture.stop();
}

/// A sign-in that fails says why in one plain sentence, without the addresses it asked: a
/// server that is not there, one that sends the sign-in on to another address, one that is no
/// KOReader sync server.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_failed_sign_in_says_why_in_one_plain_sentence() {
    let env = Env::new();
    let client = KosyncClient::new().unwrap();
    let sign_in = |url: String| {
        let (env, client) = (&env, &client);
        async move {
            sign_in(&env, client, &url, "secret")
                .await
                .unwrap_err()
                .to_string()
        }
    };
    let closed = {
        let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        listener.local_addr().unwrap().port()
    };
    let elsewhere = fixture_server::Server::start(Config {
        behavior: Behavior {
            kosync_user: Some((USER.into(), KEY.into())),
            ..Default::default()
        },
        ..Default::default()
    })
    .unwrap();
    let moved = fixture_server::Server::start(Config {
        behavior: Behavior {
            redirect_to: Some(elsewhere.base_url()),
            ..Default::default()
        },
        ..Default::default()
    })
    .unwrap();
    let no_sync = fixture_server::Server::start(Config::default()).unwrap();
    let said = [
        sign_in(format!("http://127.0.0.1:{closed}/kosync")).await,
        sign_in(moved.url("/kosync")).await,
        sign_in(no_sync.url("/kosync")).await,
    ];
    assert_eq!(
        said,
        [
            "the sync server cannot be reached",
            "the sync server sends the sign-in on to another address; enter that address instead",
            "the sync server answered 404 (Not Found): is this a KOReader sync server's address?",
        ]
    );
}
