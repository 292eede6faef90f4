//! Certificates, against a real TLS server on loopback with a self-signed certificate made
//! for the test: refused (with an error that says so) unless the reader chose to trust that
//! server, and the choice can be taken back.

use carrel_core::Failure;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::Duration;

use carrel_core::{
    catalog::client::{CatalogError, CatalogViewItem},
    http::http_fetch::{FetchError, ServerAccess},
    http::server_discovery::{self, SignIn},
    library::servers::{self, NewServer, Server},
    ErrorKind,
};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpListener;
use tokio::task::JoinHandle;
use tokio_rustls::rustls::{
    self,
    pki_types::{PrivateKeyDer, PrivatePkcs8KeyDer},
};
use tokio_rustls::TlsAcceptor;

use crate::support::{http, Env};

/// Every step of a test is bounded: a hung handshake fails the test instead of stalling it.
const STEP: Duration = Duration::from_secs(20);

/// What `step` gives, or a failed test once it took longer than [`STEP`].
async fn bounded<F: std::future::Future>(step: F) -> F::Output {
    tokio::time::timeout(STEP, step).await.expect("bounded")
}

/// A server the reader chose to trust though its certificate is self-signed.
fn add_trusted(env: &Env, url: String) -> Server {
    servers::add(
        &env.store,
        &NewServer {
            name: "Own".into(),
            url,
            trust_self_signed: Some(true),
            ..Default::default()
        },
    )
    .unwrap()
}

const FEED: &str = r#"<?xml version="1.0" encoding="UTF-8"?>
<feed xmlns="http://www.w3.org/2005/Atom">
  <id>urn:carrel:test:tls</id>
  <title>Shelf behind TLS</title>
  <updated>2024-05-01T10:00:00Z</updated>
  <link rel="self" href="/opds" type="application/atom+xml;profile=opds-catalog;kind=navigation"/>
  <link rel="start" href="/opds" type="application/atom+xml;profile=opds-catalog;kind=navigation"/>
  <entry>
    <title>Comics</title>
    <id>urn:carrel:test:tls:comics</id>
    <updated>2024-05-01T10:00:00Z</updated>
    <content type="text">Every comic on the shelf</content>
    <link rel="subsection" href="/opds/comics" type="application/atom+xml;profile=opds-catalog;kind=acquisition"/>
  </entry>
</feed>
"#;

/// An HTTPS server on 127.0.0.1 with a certificate nobody vouches for, answering every
/// request with [`FEED`] and closing the connection. Stops when dropped.
struct SelfSignedServer {
    port: u16,
    /// Requests read, counted before they are answered (a connection whose client refused the
    /// certificate carries none).
    served: Arc<AtomicUsize>,
    accepting: JoinHandle<()>,
}

impl SelfSignedServer {
    async fn start() -> SelfSignedServer {
        let made = rcgen::generate_simple_self_signed(vec![
            "localhost".to_owned(),
            "127.0.0.1".to_owned(),
        ])
        .expect("a self-signed certificate");
        let key = PrivateKeyDer::Pkcs8(PrivatePkcs8KeyDer::from(made.signing_key.serialize_der()));
        let config = rustls::ServerConfig::builder_with_provider(Arc::new(
            rustls::crypto::ring::default_provider(),
        ))
        .with_safe_default_protocol_versions()
        .expect("TLS versions")
        .with_no_client_auth()
        .with_single_cert(vec![made.cert.der().clone()], key)
        .expect("a certificate rustls accepts");
        let acceptor = TlsAcceptor::from(Arc::new(config));
        let listener = TcpListener::bind("127.0.0.1:0")
            .await
            .expect("a loopback port");
        let port = listener.local_addr().unwrap().port();
        let served = Arc::new(AtomicUsize::new(0));
        let counter = served.clone();
        let accepting = tokio::spawn(async move {
            loop {
                let Ok((tcp, _)) = listener.accept().await else {
                    return;
                };
                let acceptor = acceptor.clone();
                let counter = counter.clone();
                tokio::spawn(async move {
                    let _ = tokio::time::timeout(STEP, answer(acceptor, tcp, counter)).await;
                });
            }
        });
        SelfSignedServer {
            port,
            served,
            accepting,
        }
    }

    fn url(&self, path: &str) -> String {
        format!("https://127.0.0.1:{}{path}", self.port)
    }

    fn served(&self) -> usize {
        self.served.load(Ordering::SeqCst)
    }
}

impl Drop for SelfSignedServer {
    fn drop(&mut self) {
        self.accepting.abort();
    }
}

/// One connection: the TLS handshake (which a client that refuses the certificate ends),
/// the request head, one answer.
async fn answer(
    acceptor: TlsAcceptor,
    tcp: tokio::net::TcpStream,
    served: Arc<AtomicUsize>,
) -> std::io::Result<()> {
    let mut tls = acceptor.accept(tcp).await?;
    let mut head = Vec::with_capacity(1024);
    let mut buf = [0u8; 1024];
    while !head.windows(4).any(|w| w == b"\r\n\r\n") {
        let n = tls.read(&mut buf).await?;
        if n == 0 || head.len() > 16 * 1024 {
            return Ok(());
        }
        head.extend_from_slice(&buf[..n]);
    }
    served.fetch_add(1, Ordering::SeqCst);
    let response = format!(
        "HTTP/1.1 200 OK\r\nContent-Type: application/atom+xml;profile=opds-catalog;kind=navigation\r\n\
         Content-Length: {}\r\nConnection: close\r\n\r\n{FEED}",
        FEED.len()
    );
    tls.write_all(response.as_bytes()).await?;
    tls.flush().await?;
    tls.shutdown().await
}

fn set_trust(env: &Env, server: &Server, trust: bool) -> Server {
    servers::update(
        &env.store,
        server.id,
        &NewServer {
            name: server.name.clone(),
            url: server.url.clone(),
            trust_self_signed: Some(trust),
            ..Default::default()
        },
    )
    .unwrap()
}

fn nav_titles(entries: &[CatalogViewItem]) -> Vec<String> {
    entries
        .iter()
        .filter_map(|e| match e {
            CatalogViewItem::Navigation { title, .. } => Some(title.clone()),
            _ => None,
        })
        .collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_self_signed_server_is_refused_unless_the_reader_trusts_it() {
    let tls = SelfSignedServer::start().await;
    let env = Env::new();
    let server = env.add_server("Own NAS", &tls.url("/opds"));
    assert!(
        !server.trust_self_signed,
        "certificates are checked by default"
    );
    let client = env.client();

    // Not trusted: the certificate is refused, and the error says so.
    let err = bounded(client.browse(&server, None)).await.unwrap_err();
    match &err {
        CatalogError::Fetch(FetchError::Certificate(message)) => {
            assert!(message.contains("certificate is not trusted"), "{message}");
            assert!(
                message.contains("127.0.0.1"),
                "says which server: {message}"
            );
        }
        other => panic!("expected a certificate error, got {other:?}"),
    }
    assert_eq!(err.kind(), ErrorKind::Certificate);
    let err = bounded(client.browse_view(server.id, None))
        .await
        .unwrap_err();
    assert_eq!(err.kind(), ErrorKind::Certificate, "{err}");
    assert_eq!(
        tls.served(),
        0,
        "nothing was asked over a connection that was not trusted"
    );

    // Trusted: the same server's feed parses.
    let trusted = set_trust(&env, &server, true);
    assert!(trusted.trust_self_signed);
    let page = bounded(client.browse_view(server.id, None)).await.unwrap();
    assert!(!page.offline);
    assert_eq!(page.title, "Shelf behind TLS");
    assert_eq!(nav_titles(&page.entries), ["Comics"]);
    assert_eq!(tls.served(), 1);

    // Taken back: refused again, with the kept copy not standing in for the server.
    let untrusted = set_trust(&env, &trusted, false);
    let err = bounded(client.browse_view(untrusted.id, None))
        .await
        .unwrap_err();
    assert!(
        matches!(err, CatalogError::Fetch(FetchError::Certificate(_))),
        "{err:?}"
    );
    assert_eq!(tls.served(), 1);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn trusting_one_server_does_not_trust_another() {
    let tls = SelfSignedServer::start().await;
    let env = Env::new();
    let own = add_trusted(&env, tls.url("/opds"));
    // Another catalog on the same address and port, not trusted by the reader.
    let other = env.add_server("Other", &tls.url("/other/opds"));
    let http = http();
    let client = env.catalog(&http);
    let page = bounded(client.browse(&own, None)).await.unwrap();
    assert_eq!(page.title, "Shelf behind TLS");
    // One client, the lenient half already made: still only for the server that chose it.
    let err = bounded(client.browse(&other, None)).await.unwrap_err();
    assert!(
        matches!(err, CatalogError::Fetch(FetchError::Certificate(_))),
        "{err:?}"
    );
    let clone = http.clone();
    let client = env.catalog(&clone);
    assert!(bounded(client.browse(&own, None)).await.is_ok());
    assert_eq!(tls.served(), 2);
}

/// A server trusted though self-signed trusts its own origin only: an address its feeds link
/// to on another host (here another port) gets its certificate checked, and refused.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_trusted_server_lends_its_trust_to_no_host_its_feeds_name() {
    let own = SelfSignedServer::start().await;
    let linked = SelfSignedServer::start().await;
    let env = Env::new();
    let server = add_trusted(&env, own.url("/opds"));
    let http = http();
    let access = ServerAccess::load(&server, &env.credentials).unwrap();
    let fetch = |url: String| {
        let http = http.clone();
        let access = access.clone();
        let store = env.store.clone();
        async move {
            let url = url::Url::parse(&url).unwrap();
            bounded(http.get_bytes(&store, &access, &url, 1 << 20)).await
        }
    };
    assert!(fetch(own.url("/opds/comics")).await.is_ok());
    let err = fetch(linked.url("/opds/comics")).await.unwrap_err();
    assert!(matches!(err, FetchError::Certificate(_)), "{err:?}");
    assert_eq!((own.served(), linked.served()), (1, 0));
}

/// A bare `host:port` is asked over https first: a TLS server there is found over https.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_bare_address_is_tried_over_https_first() {
    let tls = SelfSignedServer::start().await;
    let typed = format!("127.0.0.1:{}", tls.port);
    let found = bounded(server_discovery::discover(&typed, SignIn::default(), true))
        .await
        .unwrap();
    assert_eq!(found.catalog_url, tls.url("/"));
    assert_eq!(found.elsewhere, None);
    // Not trusted: the certificate is what the reader is told about.
    let err = bounded(server_discovery::discover(&typed, SignIn::default(), false))
        .await
        .unwrap_err();
    assert!(err.to_string().contains("certificate"), "{err}");
}
