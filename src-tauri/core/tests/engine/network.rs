//! Network awareness against a NetworkManager of the test's own on a private D-Bus bus (a real
//! `dbus-daemon`; the fake answers `Properties.Get` for `Metered` and `Connectivity` and
//! announces changes with `PropertiesChanged`, as NetworkManager does): downloads wait on a
//! metered link and run once it is not (or once the reader allows it); a link that comes back
//! retries a server in backoff at once instead of after the backoff; without NetworkManager
//! nothing changes.

use std::io::{BufRead, BufReader};
use std::process::{Child, Command, Stdio};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{mpsc, Arc, Mutex};
use std::time::{Duration, Instant};

use carrel_core::{
    engine::book_downloads::{self, BookState},
    engine::executor::{ExecutorConfig, Finish, RunMode},
    engine::network::{self, MeteredDownloads},
    engine::network_watch::{NetworkWatch, INTERFACE, PATH, SERVICE},
    foundation::store::Store,
    library::{books, settings},
};
use dbus::arg::{PropMap, Variant};
use dbus::blocking::stdintf::org_freedesktop_dbus::PropertiesPropertiesChanged;
use dbus::blocking::Connection;
use dbus::channel::{MatchingReceiver, Sender};
use dbus::message::{MatchRule, SignalArgs};
use fixture_server::{Config, Faults, RunningServer};

use crate::support::{fast_config, Env};

/// `NMMetered` and `NMConnectivityState` values.
const METERED_YES: u32 = 1;
const METERED_NO: u32 = 2;
const CONNECTIVITY_NONE: u32 = 1;
const CONNECTIVITY_FULL: u32 = 4;

/// A `dbus-daemon` of the test's own, stopped when dropped.
struct PrivateBus {
    daemon: Child,
    address: String,
}

impl PrivateBus {
    fn start() -> PrivateBus {
        let mut daemon = Command::new("dbus-daemon")
            .args(["--session", "--nofork", "--print-address=1"])
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .expect("dbus-daemon runs (the tests need it: `make setup-test` installs it)");
        let mut line = String::new();
        BufReader::new(daemon.stdout.take().unwrap())
            .read_line(&mut line)
            .unwrap();
        let address = line.trim().to_owned();
        assert!(!address.is_empty(), "dbus-daemon printed no address");
        PrivateBus { daemon, address }
    }
}

impl Drop for PrivateBus {
    fn drop(&mut self) {
        let _ = self.daemon.kill();
        let _ = self.daemon.wait();
    }
}

/// NetworkManager as Carrel sees it: two properties and their change signal.
struct FakeNetworkManager {
    changes: mpsc::Sender<(u32, u32)>,
    stop: Arc<AtomicBool>,
    thread: Option<std::thread::JoinHandle<()>>,
}

impl FakeNetworkManager {
    fn start(bus: &PrivateBus, metered: u32, connectivity: u32) -> FakeNetworkManager {
        let (changes, rx) = mpsc::channel::<(u32, u32)>();
        let stop = Arc::new(AtomicBool::new(false));
        let (ready_tx, ready_rx) = mpsc::channel();
        let address = bus.address.clone();
        let thread = {
            let stop = stop.clone();
            std::thread::spawn(move || {
                let conn = Connection::new_address(&address).unwrap();
                conn.request_name(SERVICE, false, true, true).unwrap();
                let state = Arc::new(Mutex::new((metered, connectivity)));
                {
                    let state = state.clone();
                    conn.start_receive(
                        MatchRule::new_method_call(),
                        Box::new(move |msg, conn| {
                            let reply = match (msg.interface().as_deref(), msg.member().as_deref())
                            {
                                (Some("org.freedesktop.DBus.Properties"), Some("Get")) => {
                                    let (iface, prop): (String, String) = msg.read2().unwrap();
                                    let (m, c) = *state.lock().unwrap();
                                    match (iface.as_str(), prop.as_str()) {
                                        (INTERFACE, "Metered") => {
                                            msg.method_return().append1(Variant(m))
                                        }
                                        (INTERFACE, "Connectivity") => {
                                            msg.method_return().append1(Variant(c))
                                        }
                                        _ => dbus::Message::error(
                                            &msg,
                                            &"org.freedesktop.DBus.Error.UnknownProperty".into(),
                                            &std::ffi::CString::new("no such property").unwrap(),
                                        ),
                                    }
                                }
                                _ => dbus::Message::error(
                                    &msg,
                                    &"org.freedesktop.DBus.Error.UnknownMethod".into(),
                                    &std::ffi::CString::new("not here").unwrap(),
                                ),
                            };
                            let _ = conn.send(reply);
                            true
                        }),
                    );
                }
                ready_tx.send(()).unwrap();
                while !stop.load(Ordering::SeqCst) {
                    conn.process(Duration::from_millis(20)).unwrap();
                    while let Ok((m, c)) = rx.try_recv() {
                        *state.lock().unwrap() = (m, c);
                        let mut changed = PropMap::new();
                        changed.insert("Metered".into(), Variant(Box::new(m)));
                        changed.insert("Connectivity".into(), Variant(Box::new(c)));
                        let signal = PropertiesPropertiesChanged {
                            interface_name: INTERFACE.into(),
                            changed_properties: changed,
                            invalidated_properties: Vec::new(),
                        };
                        conn.send(signal.to_emit_message(&PATH.into())).unwrap();
                    }
                }
            })
        };
        ready_rx
            .recv_timeout(Duration::from_secs(10))
            .expect("the fake NetworkManager is on the bus");
        FakeNetworkManager {
            changes,
            stop,
            thread: Some(thread),
        }
    }

    fn set(&self, metered: u32, connectivity: u32) {
        self.changes.send((metered, connectivity)).unwrap();
    }
}

impl Drop for FakeNetworkManager {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::SeqCst);
        if let Some(t) = self.thread.take() {
            let _ = t.join();
        }
    }
}

fn wait_for(what: &str, done: impl FnMut() -> bool) {
    let failure = format!("timed out waiting for {what}");
    crate::support::block_until(Duration::from_secs(20), &failure, done);
}

async fn settle(what: &str, done: impl FnMut() -> bool) {
    let failure = format!("timed out waiting for {what}");
    crate::support::wait_until(Duration::from_secs(20), &failure, done).await;
}

/// A private bus with a fake NetworkManager on it (the link `metered`, its connectivity full)
/// and a new data dir with the fixture's comic (see [`fixture`] and [`comic`]) whose link is
/// watched on that bus.
fn comic_on_a_watched_link(
    metered: u32,
) -> (
    PrivateBus,
    FakeNetworkManager,
    RunningServer,
    Env,
    books::Book,
    NetworkWatch,
) {
    let bus = PrivateBus::start();
    let nm = FakeNetworkManager::start(&bus, metered, CONNECTIVITY_FULL);
    let fixture = fixture();
    let env = Env::new();
    let book = comic(&env, &fixture);
    let watch = NetworkWatch::start_on(env.store.clone(), Some(bus.address.clone()));
    (bus, nm, fixture, env, book, watch)
}

fn fixture() -> RunningServer {
    fixture_server::Server::start(Config {
        books: 1,
        comic_pages: [(1, 4)].into(),
        ..Default::default()
    })
    .unwrap()
}

fn comic(env: &Env, fixture: &RunningServer) -> books::Book {
    let server = env.add_server("Fixture", &fixture.url("/opds"));
    env.comic(
        &server,
        "1",
        4,
        &fixture.url("/books/1/pages/{pageNumber}?maxWidth={maxWidth}"),
    )
}

fn state(store: &Store, book: &books::Book) -> BookState {
    book_downloads::status(store, &books::get(store, book.id).unwrap())
        .unwrap()
        .state
}

fn page_requests(fixture: &RunningServer) -> u64 {
    fixture.stats().hits_containing("/pages/")
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn downloads_wait_on_a_metered_link_until_it_is_not_or_the_reader_allows_them() {
    let (_bus, nm, fixture, env, book, watch) = comic_on_a_watched_link(METERED_YES);
    settle("the metered link to be recorded", || {
        network::current(&env.store)
            .unwrap()
            .is_some_and(|s| s.metered)
    })
    .await;
    assert_eq!(watch.found(), Some(true));
    assert_eq!(
        network::hold(&env.store).unwrap(),
        Some(network::METERED_HOLD),
        "`ask` is the default: downloads wait"
    );

    book_downloads::store_book(&env.store, book.id).unwrap();
    let (_sink, stop, run) = env.spawn_executor(fast_config(), RunMode::Forever);
    tokio::time::sleep(Duration::from_millis(600)).await;
    assert_eq!(
        page_requests(&fixture),
        0,
        "a page was fetched on a metered link"
    );
    assert_eq!(state(&env.store, &book), BookState::Queued);

    // "Download anyway": the book comes.
    assert!(network::allow_metered(&env.store).unwrap());
    settle("the book on the device", || {
        state(&env.store, &book) == BookState::Stored
    })
    .await;

    // A new metered link forgets it; the setting `never` holds even when allowed before, and a
    // link no longer metered lets them run.
    nm.set(METERED_NO, CONNECTIVITY_FULL);
    settle("the link not metered", || {
        network::current(&env.store)
            .unwrap()
            .is_some_and(|n| !n.metered)
    })
    .await;
    nm.set(METERED_YES, CONNECTIVITY_FULL);
    settle("the new metered link", || {
        network::current(&env.store)
            .unwrap()
            .is_some_and(|n| n.metered && !n.allowed)
    })
    .await;
    settings::set(&env.store, &MeteredDownloads::Never).unwrap();
    assert!(network::allow_metered(&env.store).unwrap());
    assert!(
        network::hold(&env.store).unwrap().is_some(),
        "`never` ignores an allowance"
    );
    settings::set(&env.store, &MeteredDownloads::Always).unwrap();
    assert_eq!(network::hold(&env.store).unwrap(), None);

    stop.send(true).unwrap();
    assert_eq!(run.await.unwrap(), Finish::Shutdown);
    // Stopped, the watcher's state counts no more.
    watch.stop();
    assert_eq!(network::current(&env.store).unwrap(), None);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_link_coming_back_retries_a_server_in_backoff_at_once() {
    let (_bus, nm, fixture, env, book, _watch) = comic_on_a_watched_link(METERED_NO);
    // The server fails every request: the executor backs off for a long time.
    fixture.set_faults(Faults {
        error_rate: 1.0,
        ..Faults::default()
    });
    book_downloads::store_book(&env.store, book.id).unwrap();
    let config = ExecutorConfig {
        backoff_min: Duration::from_secs(300),
        backoff_max: Duration::from_secs(300),
        ..fast_config()
    };
    let (_sink, stop, run) = env.spawn_executor(config, RunMode::Forever);
    settle("a failed request", || page_requests(&fixture) >= 1).await;
    tokio::time::sleep(Duration::from_millis(300)).await;
    let failed = page_requests(&fixture);
    // The link drops and comes back; the server is fine again.
    nm.set(METERED_NO, CONNECTIVITY_NONE);
    tokio::time::sleep(Duration::from_millis(300)).await;
    fixture.set_faults(Faults::default());
    nm.set(METERED_NO, CONNECTIVITY_FULL);
    let started = Instant::now();
    settle("the book, long before the backoff ends", || {
        state(&env.store, &book) == BookState::Stored
    })
    .await;
    assert!(started.elapsed() < Duration::from_secs(60));
    assert!(page_requests(&fixture) > failed);
    stop.send(true).unwrap();
    run.await.unwrap();
}

#[tokio::test]
async fn a_run_until_idle_on_a_metered_link_stops_with_the_work_left_and_says_why() {
    let fixture = fixture();
    let env = Env::new();
    let book = comic(&env, &fixture);
    let watcher = carrel_core::foundation::process_holders::new_holder_id("network");
    network::observe(&env.store, &watcher, true, true).unwrap();
    book_downloads::store_book(&env.store, book.id).unwrap();
    let sink = Arc::new(carrel_core::engine::progress::NoProgress);
    let (_tx, rx) = tokio::sync::watch::channel(false);
    let err = env
        .executor(fast_config(), sink)
        .run(RunMode::UntilIdle, rx)
        .await
        .unwrap_err();
    assert!(
        matches!(
            err,
            carrel_core::engine::executor::ExecutorError::NetworkHeld(_)
        ),
        "{err}"
    );
    assert_eq!(
        err.to_string(),
        "downloads wait: this connection is metered"
    );
    assert_eq!(page_requests(&fixture), 0);
    assert_eq!(state(&env.store, &book), BookState::Queued);
}

#[test]
fn two_watchers_keep_their_own_and_one_stopping_leaves_the_other() {
    // The app and a `carrel-cli sync` may both watch; both are this (live) process here.
    let env = Env::new();
    let app = carrel_core::foundation::process_holders::new_holder_id("app-network");
    let cli = carrel_core::foundation::process_holders::new_holder_id("cli-network");
    assert!(network::observe(&env.store, &app, true, true).unwrap());
    assert!(network::allow_metered(&env.store).unwrap());
    // The second watcher sees the same metered link: the allowance holds.
    network::observe(&env.store, &cli, true, true).unwrap();
    assert_eq!(network::hold(&env.store).unwrap(), None);
    // It stops: the first one's state (and the allowance) stays.
    network::forget(&env.store, &cli).unwrap();
    let left = network::current(&env.store)
        .unwrap()
        .expect("the app's state");
    assert_eq!(
        (left.observer.as_str(), left.metered, left.allowed),
        (app.as_str(), true, true)
    );
    network::forget(&env.store, &app).unwrap();
    assert_eq!(network::current(&env.store).unwrap(), None);
}

#[test]
fn without_network_manager_nothing_is_recorded_and_nothing_waits() {
    // A bus with no NetworkManager on it.
    let bus = PrivateBus::start();
    let env = Env::new();
    let watch = NetworkWatch::start_on(env.store.clone(), Some(bus.address.clone()));
    wait_for("the watcher to look", || watch.found().is_some());
    assert_eq!(watch.found(), Some(false));
    assert_eq!(network::current(&env.store).unwrap(), None);
    assert_eq!(network::hold(&env.store).unwrap(), None);
}
