//! Shared set-up: a temp data dir with a store, a server row pointing at a fixture server, and
//! helpers to run the executor until the stack is empty.

use std::collections::BTreeMap;
use std::sync::Arc;
use std::time::{Duration, Instant};

use carrel_core::{
    catalog::book_view::{self, BookMeta},
    catalog::client::{CatalogClient, CatalogItem},
    engine::executor::{Executor, ExecutorConfig, Finish, RunMode},
    engine::progress::{ProgressSink, RecordingSink},
    foundation::clock::{self, SharedClock},
    foundation::data_dir::DataDir,
    foundation::store::Store,
    http::http_fetch::{HttpClient, HttpConfig},
    library::books::{self, Book, BookFormat, CatalogBook},
    library::credentials::Credentials,
    library::servers::{self, NewServer, Server},
};

/// Books 1..=6 of a fixture of six comics of `pages` pages: 1–5 in "Saga" (numbered 1, 2, 3, 4 and one
/// without a number), made known out of order; 6 in no series.
pub fn saga(env: &Env, fixture: &fixture_server::RunningServer, pages: u32) -> Vec<Book> {
    let server = env.add_server("Fixture", &fixture.url("/opds"));
    let mut made = Vec::new();
    for (id, index) in [
        (3, Some(3.0)),
        (1, Some(1.0)),
        (5, None),
        (2, Some(2.0)),
        (4, Some(4.0)),
        (6, None),
    ] {
        let template = fixture.url(&format!(
            "/books/{id}/pages/{{pageNumber}}?maxWidth={{maxWidth}}"
        ));
        let book = env.comic(&server, &id.to_string(), pages, &template);
        if id != 6 {
            book_view::remember_meta(
                &env.store,
                book.id,
                &BookMeta {
                    series: Some("Saga".into()),
                    series_index: index,
                    ..Default::default()
                },
            )
            .unwrap();
        }
        made.push((id, book));
    }
    made.sort_by_key(|(id, _)| *id);
    made.into_iter().map(|(_, b)| b).collect()
}

/// The local ids of a feed's books, every page followed, in the server's order.
pub async fn feed_book_ids(client: &CatalogClient<'_>, server: &Server, feed: &str) -> Vec<i64> {
    let books = feed_books(client, server, feed).await;
    books.into_iter().map(|(id, _)| id).collect()
}

/// A feed's books, every page followed, in the server's order: each book's local id and the
/// series its entry names.
pub async fn feed_books(
    client: &CatalogClient<'_>,
    server: &Server,
    feed: &str,
) -> Vec<(i64, Option<String>)> {
    let mut books = Vec::new();
    let mut next = Some(feed.to_owned());
    while let Some(url) = next {
        let page = client.browse(server, Some(&url)).await.unwrap();
        for e in page.entries {
            if let CatalogItem::Book {
                book_id, series, ..
            } = e
            {
                books.push((book_id, series));
            }
        }
        next = page.next;
    }
    books
}

/// The books of a fixture's "All books" feed, every page followed: catalog id number → local
/// id.
pub async fn listed_ids(env: &Env, server: &Server) -> BTreeMap<u32, i64> {
    let mut ids = BTreeMap::new();
    for id in feed_book_ids(&env.client(), server, "/opds/books").await {
        let book = books::get(&env.store, id).unwrap();
        let n: u32 = book.catalog_id.rsplit(':').next().unwrap().parse().unwrap();
        ids.insert(n, id);
    }
    ids
}

/// The local id of the fixture's book `fixture_id`, listed in its "All books" feed.
pub async fn listed_book(env: &Env, server: &Server, fixture_id: u32) -> i64 {
    *listed_ids(env, server)
        .await
        .get(&fixture_id)
        .expect("the book is listed")
}

/// A Komga-like fixture (see [`komga_with_series`]) added as the server "Komga" to a new data
/// dir.
pub fn komga_series_library(pages: u32) -> (fixture_server::RunningServer, Env, Server) {
    let fixture = komga_with_series(pages);
    let env = Env::new();
    let server = env.add_server("Komga", &fixture.url("/opds"));
    (fixture, env, server)
}

/// A Komga-like fixture of 12 comics of `pages` pages, two entries a feed page: its OPDS 1.2
/// entries name no series, its series feeds list them.
pub fn komga_with_series(pages: u32) -> fixture_server::RunningServer {
    start_komga(fixture_server::Config {
        books: 12,
        comic_pages: (1..=12).map(|id| (id, pages)).collect(),
        feed_page_size: 2,
        ..Default::default()
    })
}

/// A Komga-like fixture of two books that keeps reading positions (none yet), book 1 a comic of
/// 20 pages.
pub fn komga_keeping_positions() -> fixture_server::RunningServer {
    start_komga(fixture_server::Config {
        books: 2,
        comic_pages: [(1, 20)].into(),
        reading_positions: Some(Default::default()),
        ..Default::default()
    })
}

/// The fixture started with `config`, looking like Komga.
fn start_komga(config: fixture_server::Config) -> fixture_server::RunningServer {
    fixture_server::Server::start(fixture_server::Config {
        behavior: fixture_server::Behavior {
            komga: true,
            ..config.behavior.clone()
        },
        ..config
    })
    .expect("the fixture server starts")
}

/// A fixture of three books, book 3 an EPUB (every third id is).
pub fn three_books() -> fixture_server::RunningServer {
    fixture_server::Server::start(fixture_server::Config {
        books: 3,
        ..Default::default()
    })
    .expect("the fixture server starts")
}

/// An HTTP client with the default settings.
pub fn http() -> HttpClient {
    HttpClient::new(HttpConfig::default()).unwrap()
}

pub struct Env {
    pub _tmp: tempfile::TempDir,
    pub dir: DataDir,
    pub store: Store,
    pub credentials: Arc<Credentials>,
    /// An HTTP client with the default settings, for [`Env::client`].
    pub http: HttpClient,
}

impl Env {
    pub fn new() -> Env {
        Self::with_clock(clock::system())
    }

    pub fn with_clock(clock: SharedClock) -> Env {
        Self::at(tempfile::tempdir().unwrap(), clock)
    }

    /// A new data dir with `fixture`'s catalog added as the server "Fixture".
    pub fn with_fixture(fixture: &fixture_server::RunningServer) -> (Env, Server) {
        let env = Env::new();
        let server = env.add_server("Fixture", &fixture.url("/opds"));
        (env, server)
    }

    /// A data dir on a filesystem of its own of `megabytes` MB (a tmpfs mount, removed when
    /// the returned mount is dropped — drop it after the env).
    pub fn on_small_disk(megabytes: u32) -> (Env, SmallDisk) {
        let disk = SmallDisk::mount(megabytes);
        let tmp = tempfile::tempdir_in(disk.path()).unwrap();
        (Self::at(tmp, clock::system()), disk)
    }

    fn at(tmp: tempfile::TempDir, clock: SharedClock) -> Env {
        let dir = DataDir::new(tmp.path().join("data"));
        let store = Store::open(&dir, clock).unwrap();
        let credentials = Arc::new(Credentials::file_only(&dir, "test"));
        Env {
            _tmp: tmp,
            dir,
            store,
            credentials,
            http: http(),
        }
    }

    /// The catalog calls of this env's store and credentials, over `http`.
    pub fn catalog<'a>(&'a self, http: &'a HttpClient) -> CatalogClient<'a> {
        CatalogClient {
            store: &self.store,
            credentials: &self.credentials,
            http,
        }
    }

    /// The catalog calls of this env, over its own HTTP client.
    pub fn client(&self) -> CatalogClient<'_> {
        self.catalog(&self.http)
    }

    pub fn add_server(&self, name: &str, url: &str) -> Server {
        servers::add(
            &self.store,
            &NewServer {
                name: name.into(),
                url: url.into(),
                ..Default::default()
            },
        )
        .unwrap()
    }

    /// A server signed in to as `username` with `password` (kept in the env's credentials).
    pub fn add_server_as(&self, name: &str, url: &str, username: &str, password: &str) -> Server {
        carrel_core::library::server_secrets::add_with_secret(
            &self.store,
            &self.credentials,
            &NewServer {
                name: name.into(),
                url: url.into(),
                username: Some(username.into()),
                ..Default::default()
            },
            Some(&carrel_core::library::credentials::Secret::new(password)),
        )
        .unwrap()
    }

    /// A comic with `pages` pages streamed from `template`.
    pub fn comic(&self, server: &Server, id: &str, pages: u32, template: &str) -> Book {
        books::remember(
            &self.store,
            server.id,
            &CatalogBook {
                stream_template: Some(template.into()),
                page_count: Some(pages),
                ..CatalogBook::bare(id, &format!("Comic {id}"), BookFormat::Comic)
            },
        )
        .unwrap()
    }

    pub fn executor(&self, config: ExecutorConfig, sink: Arc<dyn ProgressSink>) -> Executor {
        Executor::new(
            self.store.clone(),
            self.credentials.clone(),
            sink,
            config,
            format!("test-{}", rand_tag()),
        )
        .unwrap()
    }

    /// Starts an executor in the background; send `true` on the returned sender to stop it.
    pub fn spawn_executor(
        &self,
        config: ExecutorConfig,
        mode: RunMode,
    ) -> (
        Arc<RecordingSink>,
        tokio::sync::watch::Sender<bool>,
        tokio::task::JoinHandle<Finish>,
    ) {
        let sink = Arc::new(RecordingSink::default());
        let (stop, run) = self.spawn_executor_with(config, mode, sink.clone());
        (sink, stop, run)
    }

    /// [`Env::spawn_executor`] reporting to a sink of the test's own.
    pub fn spawn_executor_with(
        &self,
        config: ExecutorConfig,
        mode: RunMode,
        sink: Arc<dyn ProgressSink>,
    ) -> (
        tokio::sync::watch::Sender<bool>,
        tokio::task::JoinHandle<Finish>,
    ) {
        let ex = self.executor(config, sink);
        let (stop, rx) = tokio::sync::watch::channel(false);
        let run = tokio::spawn(async move { ex.run(mode, rx).await.unwrap() });
        (stop, run)
    }

    /// Awaits `request` (a reader's wait for a page or a book) while an executor runs in the
    /// background, then stops the executor: what the request gave, and how long it took.
    pub async fn while_executor_runs<F: std::future::Future>(
        &self,
        request: F,
    ) -> (F::Output, std::time::Duration) {
        let (_sink, stop, run) = self.spawn_executor(fast_config(), RunMode::Forever);
        let started = std::time::Instant::now();
        let answer = request.await;
        let took = started.elapsed();
        stop.send(true).unwrap();
        assert_eq!(run.await.unwrap(), Finish::Shutdown);
        (answer, took)
    }

    /// Runs an executor until the stack is empty and returns what it reported.
    pub async fn sync(&self, config: ExecutorConfig) -> (Finish, Arc<RecordingSink>) {
        let sink = Arc::new(RecordingSink::default());
        let ex = self.executor(config, sink.clone());
        let (_tx, rx) = tokio::sync::watch::channel(false);
        let finish = ex.run(RunMode::UntilIdle, rx).await.unwrap();
        (finish, sink)
    }
}

fn rand_tag() -> u32 {
    use std::time::{SystemTime, UNIX_EPOCH};
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .unwrap()
        .subsec_nanos()
}

/// Settings for fast tests: short backoff and polls.
pub fn fast_config() -> ExecutorConfig {
    ExecutorConfig {
        backoff_min: std::time::Duration::from_millis(20),
        backoff_max: std::time::Duration::from_millis(200),
        wake_poll: std::time::Duration::from_millis(10),
        heartbeat: std::time::Duration::from_millis(200),
        ..Default::default()
    }
}

/// Waits (at most ten seconds) until `sink` has recorded an event matching `what`.
pub async fn wait_for_event(
    sink: &RecordingSink,
    description: &str,
    what: impl Fn(&carrel_core::engine::progress::DownloadEvent) -> bool,
) {
    let failure = format!("timed out waiting for {description}");
    wait_until(Duration::from_secs(10), &failure, || {
        sink.events().iter().any(&what)
    })
    .await;
}

/// Waits until `done` holds, looking every 10 ms; fails with `failure` once `within` has gone
/// by without it.
pub async fn wait_until(within: Duration, failure: &str, mut done: impl FnMut() -> bool) {
    let deadline = Instant::now() + within;
    while !done() {
        assert!(Instant::now() < deadline, "{failure}");
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
}

/// [`wait_until`] outside the runtime: the calling thread sleeps between looks.
pub fn block_until(within: Duration, failure: &str, mut done: impl FnMut() -> bool) {
    let deadline = Instant::now() + within;
    while !done() {
        assert!(Instant::now() < deadline, "{failure}");
        std::thread::sleep(Duration::from_millis(10));
    }
}

/// Runs a tool (a missing tool or a failure fails the test, never skips it).
pub use carrel_core::foundation::test_tools::run_tool;

/// Debian's Python 3 set to run `script` (its modules, ReportLab among them, are the ones the
/// Makefile installs); arguments go after it.
pub fn python(script: &str) -> std::process::Command {
    let mut cmd = std::process::Command::new("/usr/bin/python3");
    cmd.arg("-c").arg(script);
    cmd
}

/// A PDF of `pages` pages made by ReportLab (Debian's python3-reportlab), each saying its
/// number.
pub fn reportlab_pdf(pages: u32) -> Vec<u8> {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("book.pdf");
    let script = "import sys\nfrom reportlab.pdfgen import canvas\nc = canvas.Canvas(sys.argv[1])\nfor n in range(int(sys.argv[2])):\n    c.drawString(72, 720, 'Page %d' % (n + 1)); c.showPage()\nc.save()";
    run_tool(python(script).arg(&out).arg(pages.to_string()));
    std::fs::read(&out).unwrap()
}

/// A tmpfs of a few MB mounted on a temp folder for the length of a test (needs root: a test
/// that cannot mount fails rather than pass without checking anything).
pub struct SmallDisk {
    dir: tempfile::TempDir,
}

impl SmallDisk {
    pub fn mount(megabytes: u32) -> SmallDisk {
        let dir = tempfile::tempdir().unwrap();
        let status = std::process::Command::new("mount")
            .args([
                "-t",
                "tmpfs",
                "-o",
                &format!("size={megabytes}m,mode=0700"),
                "tmpfs",
            ])
            .arg(dir.path())
            .status()
            .expect("`mount` runs (tests of a full disk mount a small tmpfs; run them as root)");
        assert!(
            status.success(),
            "mounting a {megabytes} MB tmpfs failed: these tests need root"
        );
        SmallDisk { dir }
    }

    pub fn path(&self) -> &std::path::Path {
        self.dir.path()
    }
}

impl Drop for SmallDisk {
    fn drop(&mut self) {
        let _ = std::process::Command::new("umount")
            .arg("-l")
            .arg(self.dir.path())
            .status();
    }
}

/// A PNG whose header claims `width`×`height` pixels (8-bit RGB): its signature, IHDR and an
/// IDAT holding the start of its first row — a kilobyte or so, whatever it claims.
pub use carrel_core::foundation::image_type::test_support::png_header as png_claiming;
