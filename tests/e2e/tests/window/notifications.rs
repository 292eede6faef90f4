//! Desktop notifications, observed on a real session bus: a real notification server (dunst)
//! answers the app while it downloads a book from a slow fixture server, and `dbus-monitor`
//! records every call to `org.freedesktop.Notifications` and dunst's answers.
//!
//! The app is the download executor; `carrel-cli` (on the same data dir) adds the server and
//! asks to store the book, as a script or a second window would.
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
use fixture_server::{Config, Faults};

const NOTIFICATIONS: &str = "org.freedesktop.Notifications";
/// How long the whole download, from `store` to "Ready to read offline", may take.
const DOWNLOAD_TIMEOUT: Duration = Duration::from_secs(30);
const READY_BODY: &str = "Ready to read offline";

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

fn require_session_bus() {
    let set = std::env::var_os("DBUS_SESSION_BUS_ADDRESS").is_some_and(|a| !a.is_empty());
    if !set {
        panic!(
            "DBUS_SESSION_BUS_ADDRESS is not set: the notification test needs a session bus. \
             Run it under `dbus-run-session` (package dbus-x11 or dbus-daemon); {}",
            tools::HOW_TO_RUN
        );
    }
}

fn require_tool(name: &str, package: &str) -> PathBuf {
    tools::find_on_path(name).unwrap_or_else(|| {
        panic!(
            "{name} is not installed; the notification test needs it (`apt-get install {package}`); {}",
            tools::HOW_TO_RUN
        )
    })
}

/// `carrel-cli`: `CARREL_CLI`, else `$CARGO_TARGET_DIR/debug/carrel-cli`, else
/// `<workspace>/target/debug/carrel-cli`.
fn cli_binary() -> PathBuf {
    let root = tools::workspace_root();
    let non_empty = |name: &str| {
        std::env::var_os(name)
            .filter(|v| !v.is_empty())
            .map(PathBuf::from)
    };
    let absolute = |p: PathBuf| if p.is_absolute() { p } else { root.join(p) };
    let path = match (non_empty("CARREL_CLI"), non_empty("CARGO_TARGET_DIR")) {
        (Some(cli), _) => absolute(cli),
        (None, Some(target)) => absolute(target).join("debug/carrel-cli"),
        (None, None) => root.join("target/debug/carrel-cli"),
    };
    if !path.is_file() {
        panic!(
            "the CLI binary {} does not exist: build it with `cargo build -p carrel-cli`, or point \
             CARREL_CLI at it",
            path.display()
        );
    }
    path
}

/// Runs the CLI on `data_dir` and returns its standard output; fails on a non-zero exit.
fn cli(data_dir: &Path, args: &[&str]) -> String {
    let out = Command::new(cli_binary())
        .arg("--data-dir")
        .arg(data_dir)
        .args(args)
        .env("CARREL_SECRETS", "file")
        .env_remove("CARREL_DATA_DIR")
        .env("CARREL_LOG", "warn")
        .stdin(Stdio::null())
        .output()
        .expect("run carrel-cli");
    assert!(
        out.status.success(),
        "carrel-cli {args:?} failed ({}): {}",
        out.status,
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).expect("the CLI writes UTF-8")
}

/// Calls a method of the bus itself with one string argument; the reply's printed lines.
fn bus_call(method: &str, name: &str) -> Option<String> {
    let out = Command::new("dbus-send")
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
fn notification_server() -> Option<(String, u32)> {
    let owner = bus_call("GetNameOwner", NOTIFICATIONS)?;
    let owner = owner.split('"').nth(1)?.to_owned();
    let pid = bus_call("GetConnectionUnixProcessID", &owner)?;
    let pid = pid.split_whitespace().last()?.parse().ok()?;
    Some((owner, pid))
}

/// Starts dunst with a configuration of its own and waits until it owns the notifications
/// name; returns it (`None` when a server already ran) with the server's unique bus name.
///
/// A server can already own the name on this bus: an earlier test's notification may have had
/// the bus start one (D-Bus activation). It is a real server all the same, so it is used.
fn start_dunst(dir: &Path) -> (Option<Daemon>, String) {
    let dunst = require_tool("dunst", "dunst");
    if let Some((owner, pid)) = notification_server() {
        eprintln!("carrel-e2e: a notification server ({owner}, pid {pid}) already runs on this bus; using it");
        return (None, owner);
    }
    let config = dir.join("dunstrc");
    std::fs::write(
        &config,
        "[global]\n    monitor = 0\n    follow = none\n    width = 420\n    origin = top-right\n    \
         offset = 12x12\n    font = Sans 11\n    format = \"<b>%s</b>\\n%b\"\n    \
         progress_bar = true\n\n[urgency_low]\n    timeout = 60\n\n[urgency_normal]\n    \
         timeout = 60\n",
    )
    .unwrap();
    let mut daemon = Daemon::spawn(
        "dunst",
        Command::new(dunst).arg("-config").arg(&config),
        dir.join("dunst.log"),
    );
    let start = Instant::now();
    loop {
        daemon.assert_running();
        if let Some((owner, pid)) = notification_server() {
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
fn start_monitor(dir: &Path, server: &str) -> Daemon {
    let monitor = require_tool("dbus-monitor", "dbus-bin");
    let mut daemon = Daemon::spawn(
        "dbus-monitor",
        Command::new(monitor)
            .arg("--session")
            .arg(format!("interface='{NOTIFICATIONS}'"))
            .arg(format!("type='method_return',sender='{server}'")),
        dir.join("monitor.txt"),
    );
    let start = Instant::now();
    loop {
        daemon.assert_running();
        let probe = Command::new("dbus-send")
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
    /// The id in the server's answer, once seen.
    id: Option<u32>,
}

/// The `Notify` calls in dbus-monitor's output, in order, each matched with its answer.
fn parse_monitor(text: &str) -> Vec<Notify> {
    // A message is a header line followed by its arguments, indented.
    let mut messages: Vec<(&str, Vec<&str>)> = Vec::new();
    for line in text.lines() {
        if line.starts_with(' ') {
            if let Some((_, args)) = messages.last_mut() {
                // Top-level arguments only: nested ones are indented further.
                if line.len() > 3 && !line[3..].starts_with(' ') {
                    args.push(line.trim());
                }
            }
        } else if !line.is_empty() {
            messages.push((line, Vec::new()));
        }
    }
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
    for (header, args) in &messages {
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
    require_session_bus();
    let case = TestCase::start();
    let scratch = tempfile::Builder::new()
        .prefix("carrel-e2e-notifications-")
        .tempdir()
        .unwrap();
    let (mut dunst, dunst_name) = start_dunst(scratch.path());
    let mut monitor = start_monitor(scratch.path(), &dunst_name);

    // One comic of 8 pages, every request 150 ms late: the download takes a few seconds, so the
    // progress notification is shown and then updated.
    let server = fixture_server::Server::start(Config {
        books: 1,
        comic_pages: [(1, 8)].into(),
        faults: Faults {
            latency_ms: 150,
            ..Default::default()
        },
        ..Default::default()
    })
    .expect("start the fixture server");
    let title = server.books()[0].title.clone();

    let app = case.launch_with(case.options().env("CARREL_SECRETS", "file"));
    let data = case.data_dir();
    cli(data, &["server", "add", "lib", &server.url("/opds")]);
    let feed: serde_json::Value =
        serde_json::from_str(&cli(data, &["--json", "browse", "lib", "/opds/books"])).unwrap();
    let book_id = feed["entries"]
        .as_array()
        .unwrap()
        .iter()
        .find(|e| e["type"] == "book" && e["title"] == title.as_str())
        .and_then(|e| e["book_id"].as_i64())
        .unwrap_or_else(|| panic!("no book {title:?} in the feed: {feed}"));
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
