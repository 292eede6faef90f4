//! Desktop notifications, observed on a real session bus: a real notification server (dunst)
//! answers the app while it downloads a book from a slow fixture server, and `dbus-monitor`
//! records every call to `org.freedesktop.Notifications` and dunst's answers.
//!
//! The app is the download executor; `carrel-cli` (on the same data dir) adds the server and
//! asks to store the book, as a script or a second window would.
//!
//! The tests of actions run a session bus of their own with a dunst configured for them: its
//! context menu (`dunstctl context`) runs a script of the test's that picks the action wanted
//! from the lines dunst offers (`#<label> (<summary>) [<id>,<key>]`), and `dunstctl action 0`
//! clicks the newest notification's body. The effects are observed where a reader would see
//! them: downloads paused, a book no longer downloading, a window reading the book. The
//! background app's tests use the same desk (`ActionDesk`).
//!
//! Run: `xvfb-run -a dbus-run-session -- cargo test -p carrel-e2e -- notifications
//! --test-threads=1` after `cargo build -p carrel -p carrel-cli`. Nothing here skips: no session
//! bus, no dunst or no CLI binary is a failure that says what to install or build. With
//! `CARREL_E2E_NOTIFICATION_SHOTS=<dir>` it also saves screenshots of the popups there.

use std::collections::BTreeSet;
use std::fs::File;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use carrel_e2e::{tools, TestCase};
use fixture_server::Config;

use super::carrel_cli::{add_server_and_find_first_book, cli, store_first_book};
use crate::support::{slow_comic, start_server};

const NOTIFICATIONS: &str = "org.freedesktop.Notifications";
/// How long the whole download, from `store` to "Ready to read offline", may take.
const DOWNLOAD_TIMEOUT: Duration = Duration::from_secs(30);
pub(super) const READY_BODY: &str = "Ready to read offline";

/// A helper process that is stopped with SIGTERM (SIGKILL if it lingers) and reaped when
/// dropped, so a failing test leaves nothing running on the bus.
struct Daemon {
    name: &'static str,
    child: Child,
    log: PathBuf,
}

impl Daemon {
    fn spawn(name: &'static str, command: &mut Command, log: PathBuf) -> Daemon {
        let out =
            File::create(&log).unwrap_or_else(|e| panic!("cannot create {}: {e}", log.display()));
        let err = out.try_clone().unwrap();
        let child = command
            .stdin(Stdio::null())
            .stdout(out)
            .stderr(err)
            .spawn()
            .unwrap_or_else(|e| panic!("cannot start {name}: {e}"));
        Daemon { name, child, log }
    }

    fn pid(&self) -> u32 {
        self.child.id()
    }

    fn output(&self) -> String {
        std::fs::read_to_string(&self.log).unwrap_or_default()
    }

    /// Fails with the process's output when it already exited.
    fn assert_running(&mut self) {
        if let Ok(Some(status)) = self.child.try_wait() {
            panic!("{} exited ({status}):\n{}", self.name, self.output());
        }
    }

    fn stop(&mut self) {
        if matches!(self.child.try_wait(), Ok(Some(_))) {
            return;
        }
        // SAFETY: kill(2) has no memory-safety preconditions; the pid is our unreaped child.
        unsafe {
            libc::kill(self.child.id() as libc::pid_t, libc::SIGTERM);
        }
        let start = Instant::now();
        while start.elapsed() < Duration::from_secs(5) {
            if matches!(self.child.try_wait(), Ok(Some(_))) {
                return;
            }
            std::thread::sleep(Duration::from_millis(20));
        }
        eprintln!("carrel-e2e: {} ignored SIGTERM; killing it", self.name);
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

impl Drop for Daemon {
    fn drop(&mut self) {
        self.stop();
    }
}

/// The session bus the tools talk to: the one this test runs in, or a private one.
#[derive(Clone, Default)]
struct Bus {
    /// `None`: the environment's `DBUS_SESSION_BUS_ADDRESS`.
    address: Option<String>,
}

impl Bus {
    /// A command talking to this bus.
    fn command(&self, program: impl AsRef<std::ffi::OsStr>) -> Command {
        let mut command = Command::new(program);
        if let Some(address) = &self.address {
            command.env("DBUS_SESSION_BUS_ADDRESS", address);
        }
        command
    }
}

/// A session bus of the test's own, so that the notification server on it is the one started
/// with the test's configuration (on the shared bus, an earlier test may have had the bus start
/// one with the default configuration).
fn start_private_bus(dir: &Path) -> (Daemon, Bus) {
    let daemon_path = require_tool("dbus-daemon", "dbus-daemon");
    let socket = dir.join("bus");
    let address = format!("unix:path={}", socket.display());
    let mut daemon = Daemon::spawn(
        "dbus-daemon",
        Command::new(daemon_path)
            .args(["--session", "--nofork", "--nopidfile"])
            .arg(format!("--address={address}")),
        dir.join("dbus-daemon.log"),
    );
    let start = Instant::now();
    while !socket.exists() {
        daemon.assert_running();
        assert!(
            start.elapsed() < Duration::from_secs(10),
            "the private bus did not start within 10 s:\n{}",
            daemon.output()
        );
        std::thread::sleep(Duration::from_millis(20));
    }
    (
        daemon,
        Bus {
            address: Some(address),
        },
    )
}

fn require_tool(name: &str, package: &str) -> PathBuf {
    tools::find_on_path(name).unwrap_or_else(|| {
        panic!(
            "{name} is not installed; the notification test needs it (`apt-get install {package}`); {}",
            tools::HOW_TO_RUN
        )
    })
}

/// Calls a method of the bus itself with one string argument; the reply's printed lines.
fn bus_call(bus: &Bus, method: &str, name: &str) -> Option<String> {
    let out = bus
        .command("dbus-send")
        .args([
            "--session",
            "--print-reply",
            "--dest=org.freedesktop.DBus",
            "/org/freedesktop/DBus",
        ])
        .arg(format!("org.freedesktop.DBus.{method}"))
        .arg(format!("string:{name}"))
        .stdin(Stdio::null())
        .stderr(Stdio::null())
        .output()
        .expect("run dbus-send");
    out.status
        .success()
        .then(|| String::from_utf8_lossy(&out.stdout).into_owned())
}

/// The unique name and pid of whoever owns `org.freedesktop.Notifications`, if anyone.
fn notification_server(bus: &Bus) -> Option<(String, u32)> {
    let owner = bus_call(bus, "GetNameOwner", NOTIFICATIONS)?;
    let owner = owner.split('"').nth(1)?.to_owned();
    let pid = bus_call(bus, "GetConnectionUnixProcessID", &owner)?;
    let pid = pid.split_whitespace().last()?.parse().ok()?;
    Some((owner, pid))
}

/// Starts dunst with a configuration of its own and waits until it owns the notifications
/// name; returns it (`None` when a server already ran) with the server's unique bus name.
///
/// A server can already own the name on this bus: an earlier test's notification may have had
/// the bus start one (D-Bus activation). It is a real server all the same, so it is used.
fn start_dunst(bus: &Bus, dir: &Path, extra_global: &str) -> (Option<Daemon>, String) {
    let dunst = require_tool("dunst", "dunst");
    if let Some((owner, pid)) = notification_server(bus) {
        assert!(
            bus.address.is_none(),
            "a notification server ({owner}, pid {pid}) already runs on the test's own bus"
        );
        eprintln!("carrel-e2e: a notification server ({owner}, pid {pid}) already runs on this bus; using it");
        return (None, owner);
    }
    let config = dir.join("dunstrc");
    std::fs::write(
        &config,
        format!(
            "[global]\n    monitor = 0\n    follow = none\n    width = 420\n    origin = top-right\n    \
             offset = 12x12\n    font = Sans 11\n    format = \"<b>%s</b>\\n%b\"\n    \
             progress_bar = true\n{extra_global}\n[urgency_low]\n    timeout = 60\n\n[urgency_normal]\n    \
             timeout = 60\n"
        ),
    )
    .unwrap();
    let mut daemon = Daemon::spawn(
        "dunst",
        bus.command(dunst).arg("-config").arg(&config),
        dir.join("dunst.log"),
    );
    let start = Instant::now();
    loop {
        daemon.assert_running();
        if let Some((owner, pid)) = notification_server(bus) {
            assert_eq!(
                pid,
                daemon.pid(),
                "{NOTIFICATIONS} is owned by pid {pid}, not by the dunst started here"
            );
            return (Some(daemon), owner);
        }
        assert!(
            start.elapsed() < Duration::from_secs(10),
            "dunst did not take {NOTIFICATIONS} within 10 s:\n{}",
            daemon.output()
        );
        std::thread::sleep(Duration::from_millis(50));
    }
}

/// Starts dbus-monitor on the notification interface and on `server`'s answers, and waits
/// until it is recording (a probe call shows up in its output).
fn start_monitor(bus: &Bus, dir: &Path, server: &str) -> Daemon {
    let monitor = require_tool("dbus-monitor", "dbus-bin");
    let mut daemon = Daemon::spawn(
        "dbus-monitor",
        bus.command(monitor)
            .arg("--session")
            .arg(format!("interface='{NOTIFICATIONS}'"))
            .arg(format!("type='method_return',sender='{server}'")),
        dir.join("monitor.txt"),
    );
    let start = Instant::now();
    loop {
        daemon.assert_running();
        let probe = bus
            .command("dbus-send")
            .args([
                "--session",
                "--print-reply",
                &format!("--dest={NOTIFICATIONS}"),
                "/org/freedesktop/Notifications",
            ])
            .arg(format!("{NOTIFICATIONS}.GetServerInformation"))
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .status()
            .expect("run dbus-send");
        assert!(
            probe.success(),
            "the notification server does not answer GetServerInformation"
        );
        if daemon.output().contains("member=GetServerInformation") {
            return daemon;
        }
        assert!(
            start.elapsed() < Duration::from_secs(10),
            "dbus-monitor recorded nothing within 10 s:\n{}",
            daemon.output()
        );
        std::thread::sleep(Duration::from_millis(100));
    }
}

/// One `Notify` call as dbus-monitor printed it, with the id the server answered.
#[derive(Debug, Clone)]
struct Notify {
    app_name: String,
    replaces_id: u32,
    summary: String,
    body: String,
    /// The actions offered: key, label, key, label…
    actions: Vec<String>,
    /// The id in the server's answer, once seen.
    id: Option<u32>,
}

/// A top-level argument as dbus-monitor printed it, with the lines nested in it (an array's
/// items).
type MonitorArg<'a> = (&'a str, Vec<&'a str>);
/// A message as dbus-monitor printed it: its header line and its top-level arguments.
type MonitorMessage<'a> = (&'a str, Vec<MonitorArg<'a>>);

/// What dbus-monitor printed, message by message.
fn monitor_messages(text: &str) -> Vec<MonitorMessage<'_>> {
    let mut messages: Vec<MonitorMessage<'_>> = Vec::new();
    for line in text.lines() {
        if line.starts_with(' ') {
            if let Some((_, args)) = messages.last_mut() {
                // Top-level arguments are indented by three; nested ones further.
                if line.len() > 3 && !line[3..].starts_with(' ') {
                    args.push((line.trim(), Vec::new()));
                } else if let Some((_, nested)) = args.last_mut() {
                    nested.push(line.trim());
                }
            }
        } else if !line.is_empty() {
            messages.push((line, Vec::new()));
        }
    }
    messages
}

/// The ids of the notifications the app asked the server to take down.
fn closed_ids(text: &str) -> Vec<u32> {
    monitor_messages(text)
        .into_iter()
        .filter(|(header, _)| {
            header.starts_with("method call") && header.contains("member=CloseNotification")
        })
        .filter_map(|(_, args)| {
            args.first()
                .and_then(|(a, _)| a.strip_prefix("uint32 "))
                .and_then(|n| n.parse().ok())
        })
        .collect()
}

/// The `Notify` calls in dbus-monitor's output, in order, each matched with its answer.
fn parse_monitor(text: &str) -> Vec<Notify> {
    // A message is a header line followed by its arguments, indented.
    let messages = monitor_messages(text);
    let field = |header: &str, name: &str| -> Option<String> {
        header
            .split_whitespace()
            .find_map(|w| w.strip_prefix(&format!("{name}=")))
            .map(|v| v.trim_end_matches(';').to_owned())
    };
    let string_arg = |arg: &str| {
        arg.strip_prefix("string \"")
            .and_then(|s| s.strip_suffix('"'))
            .unwrap_or("")
            .to_owned()
    };
    let uint_arg = |arg: &str| {
        arg.strip_prefix("uint32 ")
            .and_then(|n| n.parse::<u32>().ok())
    };

    let mut calls: Vec<(String, String, Notify)> = Vec::new();
    let mut answers: Vec<(String, String, u32)> = Vec::new();
    for (header, full_args) in &messages {
        let args: Vec<&str> = full_args.iter().map(|(a, _)| *a).collect();
        if header.starts_with("method call")
            && field(header, "member").as_deref() == Some("Notify")
            && args.len() >= 5
        {
            let (Some(sender), Some(serial)) = (field(header, "sender"), field(header, "serial"))
            else {
                continue;
            };
            calls.push((
                sender,
                serial,
                Notify {
                    app_name: string_arg(args[0]),
                    replaces_id: uint_arg(args[1]).unwrap_or(u32::MAX),
                    summary: string_arg(args[3]),
                    body: string_arg(args[4]),
                    actions: full_args
                        .get(5)
                        .map(|(_, items)| items.iter().map(|i| string_arg(i)).collect())
                        .unwrap_or_default(),
                    id: None,
                },
            ));
        } else if header.starts_with("method return") {
            let (Some(to), Some(reply_serial)) =
                (field(header, "destination"), field(header, "reply_serial"))
            else {
                continue;
            };
            if let Some(id) = args.first().and_then(|a| uint_arg(a)) {
                answers.push((to, reply_serial, id));
            }
        }
    }
    calls
        .into_iter()
        .map(|(sender, serial, mut notify)| {
            notify.id = answers
                .iter()
                .find(|(to, rs, _)| *to == sender && *rs == serial)
                .map(|(_, _, id)| *id);
            notify
        })
        .collect()
}

/// With `CARREL_E2E_NOTIFICATION_SHOTS` naming a folder, saves the whole screen (the popups
/// included) there as `notifications-<name>.png`, for a person to look at; needs ImageMagick's
/// `import`. Does nothing otherwise.
fn screenshot(name: &str) {
    let Some(dir) = std::env::var_os("CARREL_E2E_NOTIFICATION_SHOTS").filter(|d| !d.is_empty())
    else {
        return;
    };
    let path = Path::new(&dir).join(format!("notifications-{name}.png"));
    match Command::new("import")
        .args(["-window", "root"])
        .arg(&path)
        .status()
    {
        Ok(status) if status.success() => eprintln!("carrel-e2e: saved {}", path.display()),
        other => eprintln!("carrel-e2e: could not save {}: {other:?}", path.display()),
    }
}

#[test]
fn notifications_show_a_download_in_place_then_ready_to_read() {
    tools::require_session_bus();
    let case = TestCase::start();
    let scratch = tempfile::Builder::new()
        .prefix("carrel-e2e-notifications-")
        .tempdir()
        .unwrap();
    let bus = Bus::default();
    let (mut dunst, dunst_name) = start_dunst(&bus, scratch.path(), "");
    let mut monitor = start_monitor(&bus, scratch.path(), &dunst_name);

    // One comic of 8 pages, every request 150 ms late: the download takes a few seconds, so the
    // progress notification is shown and then updated.
    let server = start_server(slow_comic(8, 150));
    let title = server.books()[0].title.clone();

    let app = case.launch_with(case.options().env("CARREL_SECRETS", "file"));
    let data = case.data_dir();
    let book_id = add_server_and_find_first_book(data, &server);
    let asked = Instant::now();
    cli(data, &["store", &book_id.to_string()]);

    // The app's executor picks the push up and downloads; wait for "ready" and its answer.
    let mut progress_shot = false;
    let notes = loop {
        let notes: Vec<Notify> = parse_monitor(&monitor.output())
            .into_iter()
            .filter(|n| n.app_name == "Carrel")
            .collect();
        if notes.iter().any(|n| n.body == READY_BODY && n.id.is_some()) {
            break notes;
        }
        if !progress_shot && notes.iter().any(|n| n.body.contains("of 8 pages")) {
            progress_shot = true;
            screenshot("progress");
        }
        monitor.assert_running();
        if let Some(dunst) = dunst.as_mut() {
            dunst.assert_running();
        }
        if asked.elapsed() > DOWNLOAD_TIMEOUT {
            panic!(
                "no \"{READY_BODY}\" notification within {} s. Notifications so far: {notes:#?}\n\
                 --- dbus-monitor ---\n{}\n--- app log ---\n{}",
                DOWNLOAD_TIMEOUT.as_secs(),
                monitor.output(),
                app.log_text()
            );
        }
        std::thread::sleep(Duration::from_millis(100));
    };
    let took = asked.elapsed();
    for n in &notes {
        eprintln!(
            "carrel-e2e: Notify replaces_id={} -> id={:?}: {:?} / {:?}",
            n.replaces_id, n.id, n.summary, n.body
        );
    }
    eprintln!(
        "carrel-e2e: stored and notified {:.1} s after `store`",
        took.as_secs_f64()
    );
    screenshot("ready");
    app.close().unwrap();

    let progress: Vec<&Notify> = notes
        .iter()
        .filter(|n| n.body.contains("of 8 pages"))
        .collect();
    let ready: Vec<&Notify> = notes.iter().filter(|n| n.body == READY_BODY).collect();
    assert!(
        !progress.is_empty(),
        "no progress notification (\"… of 8 pages\"): {notes:#?}"
    );
    assert_eq!(
        ready.len(),
        1,
        "one \"ready\" notification expected: {notes:#?}"
    );
    assert!(
        notes
            .iter()
            .all(|n| n.body.contains("of 8 pages") || n.body == READY_BODY),
        "an unexpected notification (the download should not have backed off): {notes:#?}"
    );
    for n in &progress {
        assert!(
            n.body.starts_with(&format!("{title} — ")) && n.summary == "Downloading",
            "progress reads {:?} / {:?}",
            n.summary,
            n.body
        );
    }
    assert_eq!(
        ready[0].summary, title,
        "the ready notification's summary is the book's title"
    );
    assert_eq!(
        notes.last().unwrap().body,
        READY_BODY,
        "\"ready\" came before some progress: {notes:#?}"
    );

    // One notification for the book, updated in place: the first call asks for a new one, every
    // later call replaces the id the server gave it, and the server keeps that id.
    let first = &notes[0];
    assert_eq!(
        first.replaces_id, 0,
        "the first notification should be a new one: {first:?}"
    );
    let id = first.id.expect("dunst answered the first Notify");
    for n in &notes[1..] {
        assert_eq!(
            n.replaces_id, id,
            "a later notification did not replace the first one: {notes:#?}"
        );
    }
    let ids: BTreeSet<u32> = notes.iter().filter_map(|n| n.id).collect();
    assert_eq!(
        ids,
        BTreeSet::from([id]),
        "the book was shown under several ids: {notes:#?}"
    );
    // Updates are rate-limited to about one a second: 8 pages 150 ms apart give a handful.
    assert!(
        progress.len() as f64 <= took.as_secs_f64() + 2.0,
        "{} progress updates in {:.1} s: {notes:#?}",
        progress.len(),
        took.as_secs_f64()
    );

    monitor.stop();
    if let Some(mut dunst) = dunst {
        dunst.stop();
    }
}

/// The downloads as the CLI reports them (`status --json`).
fn download_status(data: &Path) -> serde_json::Value {
    serde_json::from_str(&cli(data, &["--json", "status"])).unwrap()
}

/// Waits up to `timeout` for `done`, failing with `what` and the app's log.
fn wait_for_effect(
    app: &carrel_e2e::App,
    what: &str,
    timeout: Duration,
    mut done: impl FnMut() -> bool,
) {
    let start = Instant::now();
    while !done() {
        assert!(
            start.elapsed() < timeout,
            "{what} did not happen within {} s\n--- app log ---\n{}",
            timeout.as_secs(),
            app.log_text()
        );
        std::thread::sleep(Duration::from_millis(100));
    }
}

/// A private session bus with a dunst whose context menu picks the line the test wants, and a
/// monitor of what goes to and from it. Dropped: everything stopped, in reverse order.
pub(super) struct ActionDesk {
    monitor: Daemon,
    dunst: Daemon,
    _bus_daemon: Daemon,
    bus: Bus,
    dir: PathBuf,
    _scratch: tempfile::TempDir,
}

impl ActionDesk {
    pub(super) fn start() -> ActionDesk {
        let scratch = tempfile::Builder::new()
            .prefix("carrel-e2e-note-actions-")
            .tempdir()
            .unwrap();
        let dir = scratch.path().to_path_buf();
        require_tool("dunstctl", "dunst");
        // dunst's context menu runs this in place of dmenu: it keeps the lines offered and
        // answers with the first holding the text in `want`.
        let menu = dir.join("menu.sh");
        std::fs::write(
            &menu,
            format!(
                "#!/bin/sh\nlines=$(cat)\nprintf '%s\\n' \"$lines\" >> '{offered}'\n\
                 printf '%s\\n' \"$lines\" | grep -F -- \"$(cat '{want}')\" | head -n 1\n",
                offered = dir.join("offered.txt").display(),
                want = dir.join("want").display(),
            ),
        )
        .unwrap();
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(&menu, std::fs::Permissions::from_mode(0o755)).unwrap();
        let (bus_daemon, bus) = start_private_bus(&dir);
        let (dunst, server) = start_dunst(&bus, &dir, &format!("    dmenu = {}\n", menu.display()));
        let dunst = dunst.expect("dunst started on the private bus");
        let monitor = start_monitor(&bus, &dir, &server);
        ActionDesk {
            monitor,
            dunst,
            _bus_daemon: bus_daemon,
            bus,
            dir,
            _scratch: scratch,
        }
    }

    pub(super) fn address(&self) -> &str {
        self.bus.address.as_deref().unwrap()
    }

    /// The app's `Notify` calls so far.
    fn notes(&mut self) -> Vec<Notify> {
        self.monitor.assert_running();
        self.dunst.assert_running();
        parse_monitor(&self.monitor.output())
            .into_iter()
            .filter(|n| n.app_name == "Carrel")
            .collect()
    }

    /// Waits for the app's latest notification that `matches` and was answered.
    fn wait_for_note(
        &mut self,
        app: &carrel_e2e::App,
        what: &str,
        matches: impl Fn(&Notify) -> bool,
    ) -> Notify {
        let start = Instant::now();
        loop {
            let notes = self.notes();
            if let Some(n) = notes.iter().rev().find(|n| n.id.is_some() && matches(n)) {
                return n.clone();
            }
            if start.elapsed() > DOWNLOAD_TIMEOUT {
                panic!(
                    "no {what} within {} s. Notifications so far: {notes:#?}\n--- app log ---\n{}",
                    DOWNLOAD_TIMEOUT.as_secs(),
                    app.log_text()
                );
            }
            std::thread::sleep(Duration::from_millis(100));
        }
    }

    fn dunstctl(&self, args: &[&str]) {
        let status = self
            .bus
            .command("dunstctl")
            .args(args)
            .stdin(Stdio::null())
            .status()
            .expect("run dunstctl");
        assert!(status.success(), "dunstctl {args:?} failed: {status}");
    }

    /// Opens dunst's context menu and picks the line holding `line` — the action of that label
    /// and key on that notification (`#<label> (<summary>) [<id>,<key>]`).
    pub(super) fn pick(&self, line: &str) {
        std::fs::write(self.dir.join("want"), line).unwrap();
        self.dunstctl(&["context"]);
    }

    /// Every line dunst's context menus offered so far.
    fn offered(&self) -> String {
        std::fs::read_to_string(self.dir.join("offered.txt")).unwrap_or_default()
    }

    /// Waits for the app's latest notification saying `body`, answered by the server; its id
    /// and its actions (key, label, key, label…).
    pub(super) fn wait_for_body(
        &mut self,
        app: &carrel_e2e::App,
        body: &str,
    ) -> (u32, Vec<String>) {
        let note = self.wait_for_note(app, &format!("notification {body:?}"), |n| n.body == body);
        (note.id.unwrap(), note.actions)
    }

    /// Whether the app ever asked for a notification saying `body`.
    pub(super) fn asked_for(&mut self, body: &str) -> bool {
        self.notes().iter().any(|n| n.body == body)
    }

    /// Waits until the app takes the notification `id` down itself (`CloseNotification`).
    pub(super) fn wait_for_taken_down(&mut self, app: &carrel_e2e::App, id: u32) {
        wait_for_effect(
            app,
            &format!("taking notification {id} down"),
            DOWNLOAD_TIMEOUT,
            || closed_ids(&self.monitor.output()).contains(&id),
        );
    }

    /// Clicks the body of the newest notification (its default action).
    pub(super) fn click_newest(&self) {
        self.dunstctl(&["action", "0"]);
    }

    /// Closes the notification on top, as its close button does.
    pub(super) fn close_newest(&self) {
        self.dunstctl(&["close"]);
    }
}

#[test]
fn a_download_notification_pauses_then_cancels_the_download() {
    let case = TestCase::start();
    let mut desk = ActionDesk::start();
    // 40 pages, each 150 ms late: six seconds of download, time enough to act on it.
    let server = start_server(slow_comic(40, 150));
    let app = case.launch_with(
        case.options()
            .env("CARREL_SECRETS", "file")
            .env("DBUS_SESSION_BUS_ADDRESS", desk.address()),
    );
    let data = case.data_dir();
    let book_id = store_first_book(data, &server);

    let progress = desk.wait_for_note(&app, "progress notification", |n| {
        n.body.contains("of 40 pages")
    });
    assert_eq!(
        progress.actions,
        ["pause", "Pause downloads", "cancel", "Cancel"],
        "the progress notification's actions: {progress:?}"
    );
    let id = progress.id.unwrap();

    // "Pause downloads": the library says paused, and the server is asked for no more pages
    // (the one in flight may still land).
    desk.pick(&format!("#Pause downloads (Downloading) [{id},pause]"));
    wait_for_effect(
        &app,
        "pausing the downloads",
        Duration::from_secs(5),
        || download_status(data)["paused"] == true,
    );
    std::thread::sleep(Duration::from_millis(1000));
    let asked = server.stats().total_requests;
    std::thread::sleep(Duration::from_millis(2000));
    assert_eq!(
        server.stats().total_requests,
        asked,
        "the server was still asked for pages after \"Pause downloads\""
    );
    let waiting = |status: &serde_json::Value| {
        status["stack"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|t| t["book_id"] == book_id)
            .count()
    };
    assert!(
        waiting(&download_status(data)) > 0,
        "the book should still wait to be downloaded: {}",
        download_status(data)
    );
    // Updated in place while paused, the notification still offers its actions.
    let later = desk.notes();
    let last = later.last().unwrap();
    assert_eq!(last.id, Some(id), "{later:#?}");
    assert_eq!(last.actions, progress.actions, "{later:#?}");

    // "Cancel": the book's downloads are dropped and its notification taken down.
    desk.pick(&format!("#Cancel (Downloading) [{id},cancel]"));
    wait_for_effect(&app, "cancelling the book", Duration::from_secs(5), || {
        waiting(&download_status(data)) == 0 && closed_ids(&desk.monitor.output()).contains(&id)
    });
    let offered = desk.offered();
    assert!(
        offered.contains(&format!("#Pause downloads (Downloading) [{id},pause]"))
            && offered.contains(&format!("#Cancel (Downloading) [{id},cancel]")),
        "dunst's menu offered:\n{offered}"
    );
    screenshot("actions-cancelled");
    app.close().unwrap();
}

#[test]
fn the_ready_notification_opens_the_book_to_read() {
    let case = TestCase::start();
    let mut desk = ActionDesk::start();
    let server = fixture_server::Server::start(Config {
        books: 1,
        comic_pages: [(1, 3)].into(),
        ..Default::default()
    })
    .expect("start the fixture server");
    let title = server.books()[0].title.clone();
    let app = case.launch_with(
        case.options()
            .env("CARREL_SECRETS", "file")
            .env("DBUS_SESSION_BUS_ADDRESS", desk.address()),
    );
    let data = case.data_dir();
    store_first_book(data, &server);

    let ready = desk.wait_for_note(&app, "\"ready\" notification", |n| n.body == READY_BODY);
    assert_eq!(
        ready.actions,
        ["default", "Read", "read", "Read"],
        "the ready notification's actions: {ready:?}"
    );
    let handles = |app: &carrel_e2e::App| -> Vec<String> {
        let value = app
            .command("GET", "/window/handles", None, "window handles")
            .unwrap();
        serde_json::from_value(value).unwrap()
    };
    let before = handles(&app);
    assert_eq!(before.len(), 1, "one window before the click: {before:?}");

    // A click on the notification's body opens a window reading the book.
    desk.click_newest();
    let mut opened = None;
    wait_for_effect(
        &app,
        "a window opening on the book",
        Duration::from_secs(15),
        || {
            opened = handles(&app).into_iter().find(|h| !before.contains(h));
            opened.is_some()
        },
    );
    app.command(
        "POST",
        "/window",
        Some(serde_json::json!({ "handle": opened.unwrap() })),
        "switch to the new window",
    )
    .unwrap();
    // The reader's title (its text, whether or not the bar is wide enough to show it) and a
    // page on screen.
    let script = "const t = document.querySelector('[data-testid=\"reader-title\"]'); \
                  const p = document.querySelector('[data-testid=\"page-image\"]'); \
                  return t && p ? t.textContent : null";
    let shown = app
        .wait_until(
            "the new window to read the book",
            carrel_e2e::default_timeout(),
            |c| Ok(c.execute(script, vec![])?.as_str().map(str::to_owned)),
        )
        .unwrap_or_else(|e| panic!("the new window does not read {title:?}: {e}"));
    assert_eq!(shown.trim(), title, "the new window reads another book");
    screenshot("actions-read");
    app.close().unwrap();
}
