//! Downloads that outlive the window, on a real session bus: the reader closes the last window
//! (Ctrl+W) while a book downloads; the app stays on with a tray icon and the download goes
//! on; the tray's menu (read over D-Bus as a desktop's panel reads it) says what downloads and
//! pauses and resumes it; when the book is stored the app ends by itself. And starting Carrel
//! again while it runs brings its window back instead of a second app.
//!
//! On a desktop of the test's own (a private bus with dunst, `notifications::ActionDesk`): the
//! app stays on while its "Ready to read offline" is up, whose click still opens the book and
//! whose closing lets the app end; without a tray, a notification says where the app went and
//! its Open Carrel brings the window back (with a tray, no such notification).
//!
//! The desktop's tray is a StatusNotifierWatcher of the test's own on the session bus (the
//! name a panel such as KDE's, GNOME's AppIndicator extension or waybar owns): the app's
//! indicator registers with it, and the test reads the item's menu (`com.canonical.dbusmenu`)
//! and clicks its entries as the panel would. Nothing here skips: no session bus is a failure.

use std::collections::BTreeMap;
use std::process::{Command, Stdio};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{mpsc, Arc, Mutex};
use std::time::{Duration, Instant};

use carrel_e2e::TestCase;
use dbus::arg::{PropMap, Variant};
use dbus::blocking::Connection;
use dbus::channel::{MatchingReceiver, Sender};
use dbus::message::MatchRule;
use fixture_server::RunningServer;

use super::carrel_cli::{cli, store_first_book};
use super::notifications::{ActionDesk, READY_BODY};
use crate::support::{slow_comic, start_server};

const WATCHER: &str = "org.kde.StatusNotifierWatcher";
const ITEM: &str = "org.kde.StatusNotifierItem";
const MENU: &str = "com.canonical.dbusmenu";
const TIMEOUT: Duration = Duration::from_secs(30);

/// A desktop tray as the StatusNotifierItem protocol has it: owns the watcher's name, says a
/// host is there, and records the items that register (their bus name and object path).
struct FakeTray {
    items: Arc<Mutex<Vec<(String, String)>>>,
    stop: Arc<AtomicBool>,
    thread: Option<std::thread::JoinHandle<()>>,
}

impl FakeTray {
    /// A tray on the session bus of this test process.
    fn start() -> FakeTray {
        FakeTray::start_on(None)
    }

    /// A tray on the bus at `address`; `None`: the session bus of this test process.
    fn start_on(address: Option<&str>) -> FakeTray {
        let address = address.map(str::to_owned);
        let items = Arc::new(Mutex::new(Vec::new()));
        let stop = Arc::new(AtomicBool::new(false));
        let (ready_tx, ready_rx) = mpsc::channel();
        let thread = {
            let (items, stop) = (items.clone(), stop.clone());
            std::thread::spawn(move || {
                let conn = match address {
                    None => Connection::new_session().expect("connect to the session bus"),
                    Some(address) => {
                        let mut channel = dbus::channel::Channel::open_private(&address)
                            .expect("connect to the test's bus");
                        channel.register().expect("register on the test's bus");
                        Connection::from(channel)
                    }
                };
                conn.request_name(WATCHER, false, true, true)
                    .expect("own the StatusNotifierWatcher name");
                conn.start_receive(
                    MatchRule::new_method_call(),
                    Box::new(move |msg, conn| {
                        let member = msg.member().map(|m| m.to_string()).unwrap_or_default();
                        let reply = match member.as_str() {
                            "RegisterStatusNotifierItem" => {
                                let given: String = msg.read1().unwrap_or_default();
                                let sender =
                                    msg.sender().map(|s| s.to_string()).unwrap_or_default();
                                // An item names its object path (ayatana) or its bus name.
                                let (name, path) = if given.starts_with('/') {
                                    (sender, given)
                                } else {
                                    (given, "/StatusNotifierItem".to_owned())
                                };
                                items.lock().unwrap().push((name, path));
                                msg.method_return()
                            }
                            "RegisterStatusNotifierHost" => msg.method_return(),
                            "Get" => {
                                let (_, prop): (String, String) = msg.read2().unwrap_or_default();
                                match prop.as_str() {
                                    "IsStatusNotifierHostRegistered" => {
                                        msg.method_return().append1(Variant(true))
                                    }
                                    "ProtocolVersion" => msg.method_return().append1(Variant(0i32)),
                                    _ => msg.method_return().append1(Variant(Vec::<String>::new())),
                                }
                            }
                            "GetAll" => {
                                let mut all = PropMap::new();
                                all.insert(
                                    "IsStatusNotifierHostRegistered".into(),
                                    Variant(Box::new(true)),
                                );
                                all.insert("ProtocolVersion".into(), Variant(Box::new(0i32)));
                                all.insert(
                                    "RegisteredStatusNotifierItems".into(),
                                    Variant(Box::new(Vec::<String>::new())),
                                );
                                msg.method_return().append1(all)
                            }
                            "Introspect" => msg.method_return().append1(WATCHER_INTROSPECTION),
                            _ => msg.method_return(),
                        };
                        let _ = conn.send(reply);
                        true
                    }),
                );
                ready_tx.send(()).unwrap();
                while !stop.load(Ordering::SeqCst) {
                    let _ = conn.process(Duration::from_millis(20));
                }
            })
        };
        ready_rx
            .recv_timeout(Duration::from_secs(10))
            .expect("the fake tray started");
        FakeTray {
            items,
            stop,
            thread: Some(thread),
        }
    }

    /// The item registered last (name, path), waiting up to `timeout` for one.
    fn wait_for_item(&self, timeout: Duration) -> (String, String) {
        let start = Instant::now();
        loop {
            if let Some(item) = self.items.lock().unwrap().last().cloned() {
                return item;
            }
            assert!(
                start.elapsed() < timeout,
                "no tray icon registered with the desktop's tray within {timeout:?}"
            );
            std::thread::sleep(Duration::from_millis(50));
        }
    }

    fn registered(&self) -> usize {
        self.items.lock().unwrap().len()
    }
}

impl Drop for FakeTray {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::SeqCst);
        if let Some(t) = self.thread.take() {
            let _ = t.join();
        }
    }
}

const WATCHER_INTROSPECTION: &str = r#"<node>
 <interface name="org.kde.StatusNotifierWatcher">
  <method name="RegisterStatusNotifierItem"><arg type="s" direction="in"/></method>
  <method name="RegisterStatusNotifierHost"><arg type="s" direction="in"/></method>
  <property name="RegisteredStatusNotifierItems" type="as" access="read"/>
  <property name="IsStatusNotifierHostRegistered" type="b" access="read"/>
  <property name="ProtocolVersion" type="i" access="read"/>
  <signal name="StatusNotifierItemRegistered"><arg type="s"/></signal>
  <signal name="StatusNotifierItemUnregistered"><arg type="s"/></signal>
  <signal name="StatusNotifierHostRegistered"/>
 </interface>
</node>"#;

/// Calls a method with `gdbus` (as a panel would over the bus); its printed answer.
fn gdbus_call(
    item: &(String, String),
    path: &str,
    method: &str,
    args: &[&str],
) -> Result<String, String> {
    let out = Command::new("gdbus")
        .args([
            "call",
            "--session",
            "--dest",
            &item.0,
            "--object-path",
            path,
        ])
        .args(["--method", method, "--"])
        .args(args)
        .stdin(Stdio::null())
        .output()
        .expect("gdbus runs (package libglib2.0-bin)");
    if out.status.success() {
        Ok(String::from_utf8_lossy(&out.stdout).into_owned())
    } else {
        Err(String::from_utf8_lossy(&out.stderr).into_owned())
    }
}

/// The object path of the item's menu.
fn menu_path(item: &(String, String)) -> Result<String, String> {
    let answer = gdbus_call(
        item,
        &item.1,
        "org.freedesktop.DBus.Properties.Get",
        &[ITEM, "Menu"],
    )?;
    // (<objectpath '/…/Menu'>,)
    answer
        .split('\'')
        .nth(1)
        .map(str::to_owned)
        .ok_or_else(|| format!("no menu path in {answer:?}"))
}

/// Whether the item is in the tray: exported and not `Passive` (a removed icon turns
/// passive, which panels hide).
fn tray_shown(item: &(String, String)) -> bool {
    gdbus_call(
        item,
        &item.1,
        "org.freedesktop.DBus.Properties.Get",
        &[ITEM, "Status"],
    )
    .is_ok_and(|status| !status.contains("'Passive'"))
}

/// Reads a GVariant text string from just after its opening quote.
fn quoted(text: &str) -> String {
    let mut out = String::new();
    let mut chars = text.chars();
    while let Some(c) = chars.next() {
        match c {
            '\\' => out.extend(chars.next()),
            '\'' => break,
            c => out.push(c),
        }
    }
    out
}

/// The tray item's menu as the panel reads it (`GetLayout`): entry labels by id.
fn tray_menu(item: &(String, String)) -> BTreeMap<i32, String> {
    let path = menu_path(item).expect("the tray item has a menu");
    let layout = gdbus_call(
        item,
        &path,
        &format!("{MENU}.GetLayout"),
        &["0", "-1", "[]"],
    )
    .expect("the menu's layout");
    let mut labels = BTreeMap::new();
    // Each entry is printed as <(ID, {'label': <'…'>, …}, …)>.
    for entry in layout.split("<(").skip(1) {
        let Some(id) = entry.split(',').next().and_then(|n| n.trim().parse().ok()) else {
            continue;
        };
        const LABEL: &str = "'label': <'";
        if let Some(at) = entry.find(LABEL) {
            labels.insert(id, quoted(&entry[at + LABEL.len()..]).replace('_', ""));
        }
    }
    labels
}

/// Clicks the menu entry whose label starts with `label`, as the panel does.
fn click_tray(item: &(String, String), label: &str) {
    let menu = tray_menu(item);
    let id = menu
        .iter()
        .find(|(_, l)| l.starts_with(label))
        .map(|(id, _)| *id)
        .unwrap_or_else(|| panic!("no {label:?} in the tray's menu: {menu:?}"));
    let path = menu_path(item).unwrap();
    gdbus_call(
        item,
        &path,
        &format!("{MENU}.Event"),
        &[&id.to_string(), "clicked", "<0>", "0"],
    )
    .expect("click the tray's menu entry");
}

/// Waits until the menu has an entry starting with `start`; returns it.
fn wait_for_menu_line(item: &(String, String), start: &str) -> String {
    let began = Instant::now();
    loop {
        let menu = tray_menu(item);
        if let Some(line) = menu.values().find(|l| l.starts_with(start)) {
            return line.clone();
        }
        assert!(
            began.elapsed() < TIMEOUT,
            "the tray's menu never said {start:?}: {menu:?}"
        );
        std::thread::sleep(Duration::from_millis(200));
    }
}

fn pages_asked(server: &RunningServer, book: u32) -> u64 {
    let prefix = format!("/books/{book}/pages/");
    server
        .stats()
        .clients
        .values()
        .flat_map(|c| c.hits.iter())
        .filter(|(url, _)| url.starts_with(&prefix))
        .map(|(_, n)| *n)
        .sum()
}

/// Whether a window named Carrel (its title, not only its class; "Carrel (dev)" in a debug
/// build) is mapped and viewable.
fn carrel_window_shown() -> bool {
    let tree = Command::new("xwininfo")
        .args(["-root", "-tree"])
        .output()
        .expect("xwininfo runs (package x11-utils)");
    let tree = String::from_utf8_lossy(&tree.stdout).into_owned();
    // `0x… "Carrel (dev)": ("carrel" "Carrel")  1200x800+…`; GDK's hidden leader window is
    // named after the program ("carrel").
    tree.lines()
        .filter(|l| {
            l.split_once('"')
                .and_then(|(_, rest)| rest.split_once("\": ("))
                .is_some_and(|(name, _)| name.starts_with("Carrel"))
        })
        .filter_map(|l| l.split_whitespace().next())
        .any(|id| {
            Command::new("xwininfo")
                .args(["-id", id])
                .output()
                .is_ok_and(|o| String::from_utf8_lossy(&o.stdout).contains("Map State: IsViewable"))
        })
}

fn alive(pid: i32) -> bool {
    // A zombie still has /proc/<pid>; its state says it is gone.
    std::fs::read_to_string(format!("/proc/{pid}/stat"))
        .map(|s| {
            let state = s.rsplit(')').next().unwrap_or("").trim_start();
            !state.starts_with('Z') && !state.starts_with('X')
        })
        .unwrap_or(false)
}

/// Ctrl+W in the window. The window goes while the command runs, so its answer may be "no
/// such window": what counts is what the app does next.
fn close_window_with_keys(app: &carrel_e2e::App) {
    let _ = app.find("body").unwrap().send_keys("\u{E009}w");
}

#[test]
fn closing_the_last_window_keeps_the_downloads_going_in_the_tray_until_they_are_done() {
    carrel_e2e::tools::require_session_bus();
    let tray = FakeTray::start();
    let case = TestCase::start();
    const PAGES: u32 = 40;
    let server = start_server(slow_comic(PAGES, 400));
    let app = case.launch_with(case.options().env("CARREL_SECRETS", "file"));
    let pid = app.process().expect("the app's process").pid;
    let title = server.books()[0].title.clone();
    store_first_book(case.data_dir(), &server);
    let began = Instant::now();
    while pages_asked(&server, 1) < 2 {
        assert!(began.elapsed() < TIMEOUT, "the download did not start");
        std::thread::sleep(Duration::from_millis(50));
    }
    assert_eq!(tray.registered(), 0, "a tray icon while the window is open");

    // The reader closes the window.
    let closed_at = Instant::now();
    close_window_with_keys(&app);
    eprintln!(
        "carrel-e2e: Ctrl+W answered after {:.1} s, {} of {PAGES} pages asked",
        closed_at.elapsed().as_secs_f64(),
        pages_asked(&server, 1)
    );
    let item = tray.wait_for_item(TIMEOUT);
    assert!(alive(pid), "the app ended with a book left to download");
    assert!(
        tray_shown(&item),
        "the tray icon is registered but not shown"
    );
    let line = wait_for_menu_line(&item, "Downloading");
    assert!(
        line.contains(&title),
        "the tray does not name the book: {line:?}"
    );
    let menu = tray_menu(&item);
    for entry in ["Open Carrel", "Pause downloads", "Quit Carrel"] {
        assert!(
            menu.values().any(|l| l == entry),
            "no {entry:?} in the tray's menu: {menu:?}"
        );
    }

    // Pause from the tray: the pages stop.
    click_tray(&item, "Pause downloads");
    wait_for_menu_line(&item, "Downloads paused");
    wait_for_menu_line(&item, "Resume downloads");
    std::thread::sleep(Duration::from_millis(600));
    let paused_at = pages_asked(&server, 1);
    std::thread::sleep(Duration::from_secs(2));
    assert_eq!(
        pages_asked(&server, 1),
        paused_at,
        "pages were fetched while the tray said paused"
    );
    assert!(
        paused_at < u64::from(PAGES),
        "the book finished before the pause"
    );

    // Resume: the book is stored, then the app ends by itself.
    click_tray(&item, "Resume downloads");
    let began = Instant::now();
    while alive(pid) {
        assert!(
            began.elapsed() < Duration::from_secs(60),
            "the app was still on 60 s after resuming ({} of {PAGES} pages asked)",
            pages_asked(&server, 1)
        );
        std::thread::sleep(Duration::from_millis(100));
    }
    assert!(
        pages_asked(&server, 1) >= u64::from(PAGES),
        "the app ended with {} of {PAGES} pages asked",
        pages_asked(&server, 1)
    );
    // The work is done, not merely abandoned: the CLI finds nothing left.
    let left = cli(case.data_dir(), &["--json", "status"]);
    let left: serde_json::Value = serde_json::from_str(&left).unwrap();
    assert_eq!(
        left["stack"].as_array().map(Vec::len),
        Some(0),
        "tasks left after the app ended: {left}"
    );
    assert!(
        left["books"]
            .as_array()
            .unwrap()
            .iter()
            .all(|b| b["status"]["state"] == "stored"),
        "a book is not stored after the app ended: {left}"
    );
    drop(app);
}

#[test]
fn starting_carrel_again_brings_back_the_running_ones_window() {
    carrel_e2e::tools::require_session_bus();
    let tray = FakeTray::start();
    let case = TestCase::start();
    // Kept running with nothing to do, so closing the window leaves it in the tray.
    cli(case.data_dir(), &["settings", "set", "keep-running", "on"]);
    let app = case.launch_with(case.options().env("CARREL_SECRETS", "file"));
    let pid = app.process().expect("the app's process").pid;
    close_window_with_keys(&app);
    let item = tray.wait_for_item(TIMEOUT);
    wait_for_menu_line(&item, "Nothing to download");
    assert!(
        tray_shown(&item),
        "the tray icon is registered but not shown"
    );
    assert!(alive(pid), "the app ended though it was to keep running");

    // Carrel again, as the desktop's launcher starts it: it ends at once, and the running one
    // opens its window (the tray icon goes away).
    let started = Instant::now();
    let again = Command::new(carrel_e2e::tools::Tools::require().app)
        .env("CARREL_DATA_DIR", case.data_dir())
        .env("CARREL_SECRETS", "file")
        .env("GDK_BACKEND", "x11")
        .stdin(Stdio::null())
        .output()
        .expect("start Carrel again");
    assert!(
        again.status.success(),
        "the second start failed: {}",
        String::from_utf8_lossy(&again.stderr)
    );
    assert!(
        String::from_utf8_lossy(&again.stderr).contains("already running"),
        "the second start did not say it handed over: {}",
        String::from_utf8_lossy(&again.stderr)
    );
    assert!(
        started.elapsed() < Duration::from_secs(10),
        "the second start took {:?}",
        started.elapsed()
    );
    let began = Instant::now();
    while tray_shown(&item) {
        assert!(
            began.elapsed() < TIMEOUT,
            "the tray icon stayed after the window was asked for"
        );
        std::thread::sleep(Duration::from_millis(100));
    }
    assert!(
        alive(pid),
        "the running app ended instead of showing its window"
    );
    // The window is back: a window named Carrel is mapped on the display.
    let began = Instant::now();
    while !carrel_window_shown() {
        assert!(
            began.elapsed() < TIMEOUT,
            "no Carrel window on the display after the second start:\n{}",
            String::from_utf8_lossy(
                &Command::new("xwininfo")
                    .args(["-root", "-tree"])
                    .output()
                    .unwrap()
                    .stdout
            )
            .lines()
            .filter(|l| l.to_lowercase().contains("carrel"))
            .collect::<Vec<_>>()
            .join("\n")
        );
        std::thread::sleep(Duration::from_millis(100));
    }
    // Quit from the tray is gone with the tray; Ctrl+Q in the new window ends the app.
    let _ = Command::new("kill").arg(pid.to_string()).status();
    drop(app);
}

/// What the app's notice of going on in the background says where no tray shows its icon.
const IN_BACKGROUND_BODY: &str =
    "Downloads go on in the background. Start Carrel again to bring its window back.";

/// The reader closes the window while a book downloads, on a desktop of the test's own (a
/// private bus with dunst): the app goes on in the background. Returns it with its pid.
fn close_while_downloading(
    case: &TestCase,
    desk: &ActionDesk,
    server: &RunningServer,
) -> (carrel_e2e::App, i32) {
    let app = case.launch_with(
        case.options()
            .env("CARREL_SECRETS", "file")
            .env("DBUS_SESSION_BUS_ADDRESS", desk.address()),
    );
    let pid = app.process().expect("the app's process").pid;
    store_first_book(case.data_dir(), server);
    let began = Instant::now();
    while pages_asked(server, 1) < 2 {
        assert!(began.elapsed() < TIMEOUT, "the download did not start");
        std::thread::sleep(Duration::from_millis(50));
    }
    close_window_with_keys(&app);
    (app, pid)
}

/// Fails unless the app `pid` stays on for `how_long`.
fn assert_stays_on(pid: i32, how_long: Duration, why: &str) {
    let began = Instant::now();
    while began.elapsed() < how_long {
        assert!(
            alive(pid),
            "the app ended {:.1} s after {why}",
            began.elapsed().as_secs_f64()
        );
        std::thread::sleep(Duration::from_millis(100));
    }
}

/// Waits until a Carrel window is on the display again, the app `pid` still on.
fn wait_for_window_back(app: &carrel_e2e::App, pid: i32, after: &str) {
    let began = Instant::now();
    while !carrel_window_shown() {
        assert!(alive(pid), "the app ended instead of showing a window");
        assert!(
            began.elapsed() < TIMEOUT,
            "no Carrel window after {after}\n--- app log ---\n{}",
            app.log_text()
        );
        std::thread::sleep(Duration::from_millis(100));
    }
}

/// A book of `pages` pages each 300 ms late: time enough to close the window while it
/// downloads.
fn slow_book_server(pages: u32) -> RunningServer {
    start_server(slow_comic(pages, 300))
}

#[test]
fn the_ready_notification_of_the_background_app_still_opens_the_book() {
    let case = TestCase::start();
    let mut desk = ActionDesk::start();
    // The desktop has a tray: the app's icon is there, so no notice says where it went.
    let tray = FakeTray::start_on(Some(desk.address()));
    let server = slow_book_server(12);
    let (app, pid) = close_while_downloading(&case, &desk, &server);
    tray.wait_for_item(TIMEOUT);
    desk.wait_for_body(&app, READY_BODY);
    assert!(
        !carrel_window_shown(),
        "a Carrel window is on the display after Ctrl+W"
    );
    // Nothing is left to download, but the notification's Read needs the app.
    assert_stays_on(pid, Duration::from_secs(4), "\"Ready to read offline\"");
    assert!(
        !desk.asked_for(IN_BACKGROUND_BODY),
        "a notice said where the app went though its icon is in the tray"
    );

    // A click on the notification opens a window on the book.
    desk.click_newest();
    wait_for_window_back(&app, pid, "clicking \"Ready to read offline\"");
    assert!(
        app.log_text()
            .contains("notification action action=\"read\""),
        "the window did not come from the notification's Read\n--- app log ---\n{}",
        app.log_text()
    );
    // With a window open the app is no longer in the background: it stays.
    assert_stays_on(pid, Duration::from_secs(2), "the book's window opened");
    let _ = Command::new("kill").arg(pid.to_string()).status();
    drop(app);
}

#[test]
fn closing_the_ready_notification_lets_the_background_app_end() {
    let case = TestCase::start();
    let mut desk = ActionDesk::start();
    let server = slow_book_server(12);
    let (app, pid) = close_while_downloading(&case, &desk, &server);
    // No tray on this desktop: a notice says where the app went, until nothing is left.
    let (notice, _) = desk.wait_for_body(&app, IN_BACKGROUND_BODY);
    desk.wait_for_body(&app, READY_BODY);
    desk.wait_for_taken_down(&app, notice);
    assert_stays_on(pid, Duration::from_secs(3), "\"Ready to read offline\"");

    // The reader closes the notification: nothing keeps the app on any more.
    desk.close_newest();
    let began = Instant::now();
    while alive(pid) {
        assert!(
            began.elapsed() < Duration::from_secs(10),
            "the app was still on 10 s after its last notification closed\n--- app log ---\n{}",
            app.log_text()
        );
        std::thread::sleep(Duration::from_millis(100));
    }
    drop(app);
}

#[test]
fn without_a_tray_a_notification_brings_the_background_app_back() {
    let case = TestCase::start();
    let mut desk = ActionDesk::start();
    let server = slow_book_server(40);
    let (app, pid) = close_while_downloading(&case, &desk, &server);
    let (notice, actions) = desk.wait_for_body(&app, IN_BACKGROUND_BODY);
    assert_eq!(
        actions,
        ["default", "Open Carrel", "open", "Open Carrel"],
        "the notice's actions"
    );
    assert!(alive(pid), "the app ended with a book left to download");
    assert!(
        !carrel_window_shown(),
        "a Carrel window is on the display after Ctrl+W"
    );

    // Its button brings the window back, as the tray's Open Carrel would.
    desk.pick(&format!("#Open Carrel (Carrel) [{notice},open]"));
    wait_for_window_back(&app, pid, "\"Open Carrel\" on the notification");
    assert!(
        pages_asked(&server, 1) < 40,
        "the book finished before the window came back: the notice was not what brought it"
    );
    let _ = Command::new("kill").arg(pid.to_string()).status();
    drop(app);
}
