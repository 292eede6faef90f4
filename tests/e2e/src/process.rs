//! The tauri-driver process of one launch, and the processes under it.
//!
//! tauri-driver starts WebKitWebDriver, which starts the app when a session opens; the app in
//! turn starts WebKit's helper processes. Stopping is done in this order:
//!
//! 1. the caller deletes the WebDriver session first (that closes the app's window and app);
//! 2. [`Driver::stop`] sends SIGTERM to tauri-driver, which then kills WebKitWebDriver and
//!    exits; tauri-driver is reaped;
//! 3. only if tauri-driver ignores SIGTERM for [`STOP_GRACE`], it gets SIGKILL — a last
//!    resort, as that leaves WebKitWebDriver (and maybe the app) orphaned;
//! 4. every process that was seen below tauri-driver (remembered by pid *and* start time, so a
//!    recycled pid is never hit) gets [`LEFTOVER_GRACE`] to end by itself — WebKit's helper
//!    processes follow the app a moment later — and whatever still runs then gets SIGKILL, and
//!    is waited for.
//!
//! Step 4 finding anything is reported as an error: it means a launch did not end cleanly.

use std::collections::HashMap;
use std::ffi::OsString;
use std::fs::File;
use std::net::{SocketAddr, TcpListener, TcpStream};
use std::path::PathBuf;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use crate::error::{Error, Result};
use crate::tools::Tools;

/// How long tauri-driver gets to exit after SIGTERM before it is killed.
pub const STOP_GRACE: Duration = Duration::from_secs(5);
/// How long the processes below tauri-driver get to end by themselves once it stopped.
pub const LEFTOVER_GRACE: Duration = Duration::from_secs(5);
/// How long tauri-driver and WebKitWebDriver get to listen on their ports.
const START_TIMEOUT: Duration = Duration::from_secs(20);

/// A process seen on this machine, identified by pid and start time.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Proc {
    pub pid: i32,
    pub ppid: i32,
    /// Clock ticks after boot; with the pid, names the process uniquely.
    pub start_time: u64,
    /// The kernel's short name (at most 15 bytes).
    pub comm: String,
    /// The executable, when readable.
    pub exe: Option<PathBuf>,
}

impl Proc {
    /// Reads `/proc/<pid>`; `None` when the process is gone or a zombie.
    pub fn read(pid: i32) -> Option<Proc> {
        let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
        let open = stat.find('(')?;
        let close = stat.rfind(')')?;
        let comm = stat[open + 1..close].to_string();
        let rest: Vec<&str> = stat[close + 1..].split_whitespace().collect();
        let state = *rest.first()?;
        if state == "Z" || state == "X" {
            return None;
        }
        let ppid = rest.get(1)?.parse().ok()?;
        let start_time = rest.get(19)?.parse().ok()?;
        let exe = std::fs::read_link(format!("/proc/{pid}/exe")).ok();
        Some(Proc {
            pid,
            ppid,
            start_time,
            comm,
            exe,
        })
    }

    /// Whether this very process (same pid, same start time) is still running.
    pub fn is_alive(&self) -> bool {
        Proc::read(self.pid).is_some_and(|p| p.start_time == self.start_time)
    }

    /// Every live process under `root` (not `root` itself).
    pub fn descendants(root: i32) -> Vec<Proc> {
        let mut children: HashMap<i32, Vec<Proc>> = HashMap::new();
        if let Ok(entries) = std::fs::read_dir("/proc") {
            for entry in entries.flatten() {
                let pid = entry
                    .file_name()
                    .to_str()
                    .and_then(|n| n.parse::<i32>().ok());
                if let Some(p) = pid.and_then(Proc::read) {
                    children.entry(p.ppid).or_default().push(p);
                }
            }
        }
        let mut found = Vec::new();
        let mut queue = vec![root];
        while let Some(parent) = queue.pop() {
            for p in children.remove(&parent).unwrap_or_default() {
                queue.push(p.pid);
                found.push(p);
            }
        }
        found
    }
}

impl std::fmt::Display for Proc {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{} (pid {})", self.comm, self.pid)
    }
}

fn signal(pid: i32, sig: libc::c_int) {
    // SAFETY: kill(2) has no memory-safety preconditions.
    unsafe {
        libc::kill(pid, sig);
    }
}

/// A running tauri-driver.
pub struct Driver {
    child: Child,
    port: u16,
    native_port: u16,
    /// Every process seen below tauri-driver so far.
    seen: Vec<Proc>,
    stopped: bool,
}

impl Driver {
    /// Starts tauri-driver on two free ports with `env` added to the inherited environment
    /// (the app inherits it through WebKitWebDriver), its output appended to `log`, and waits
    /// until both it and WebKitWebDriver accept connections.
    pub fn start(tools: &Tools, env: &[(OsString, OsString)], log: &File) -> Result<Driver> {
        let (port, native_port) = two_free_ports()?;
        let out = log
            .try_clone()
            .map_err(|e| Error::io("cannot share the driver log", e))?;
        let err = log
            .try_clone()
            .map_err(|e| Error::io("cannot share the driver log", e))?;
        let child = Command::new(&tools.tauri_driver)
            .arg("--port")
            .arg(port.to_string())
            .arg("--native-port")
            .arg(native_port.to_string())
            .arg("--native-driver")
            .arg(&tools.webkit_webdriver)
            .envs(env.iter().map(|(k, v)| (k, v)))
            .stdin(Stdio::null())
            .stdout(out)
            .stderr(err)
            .spawn()
            .map_err(|e| Error::io(format!("cannot start {}", tools.tauri_driver.display()), e))?;
        let mut driver = Driver {
            child,
            port,
            native_port,
            seen: Vec::new(),
            stopped: false,
        };
        driver.wait_until_listening()?;
        Ok(driver)
    }

    fn wait_until_listening(&mut self) -> Result<()> {
        let start = Instant::now();
        for port in [self.port, self.native_port] {
            let addr = SocketAddr::from(([127, 0, 0, 1], port));
            loop {
                if let Ok(Some(status)) = self.child.try_wait() {
                    self.stopped = true;
                    return Err(Error::Process(format!(
                        "tauri-driver exited ({status}) before listening on port {port}; see its log"
                    )));
                }
                if TcpStream::connect_timeout(&addr, Duration::from_millis(200)).is_ok() {
                    break;
                }
                if start.elapsed() > START_TIMEOUT {
                    return Err(Error::Process(format!(
                        "nothing listens on 127.0.0.1:{port} {:.0} s after starting tauri-driver",
                        START_TIMEOUT.as_secs_f64()
                    )));
                }
                std::thread::sleep(Duration::from_millis(50));
            }
        }
        self.remember_descendants();
        Ok(())
    }

    /// `http://127.0.0.1:PORT` — an IP, not `localhost`, which may resolve to `::1` first.
    pub fn url(&self) -> String {
        format!("http://127.0.0.1:{}", self.port)
    }

    pub fn pid(&self) -> i32 {
        self.child.id() as i32
    }

    /// Looks at the processes below tauri-driver now, remembers them for [`Driver::stop`],
    /// and returns the live ones.
    pub fn remember_descendants(&mut self) -> Vec<Proc> {
        let now = Proc::descendants(self.pid());
        for p in &now {
            if !self
                .seen
                .iter()
                .any(|s| s.pid == p.pid && s.start_time == p.start_time)
            {
                self.seen.push(p.clone());
            }
        }
        now
    }

    /// Stops tauri-driver and everything seen below it (see the module doc for the order).
    /// Errors when tauri-driver had to be killed or when leftovers had to be.
    pub fn stop(&mut self) -> Result<()> {
        if self.stopped {
            return Ok(());
        }
        self.stopped = true;
        self.remember_descendants();
        let mut problems = Vec::new();

        signal(self.pid(), libc::SIGTERM);
        let deadline = Instant::now() + STOP_GRACE;
        let mut exited = false;
        while Instant::now() < deadline {
            if let Ok(Some(_)) = self.child.try_wait() {
                exited = true;
                break;
            }
            std::thread::sleep(Duration::from_millis(20));
        }
        if !exited {
            problems.push(format!(
                "tauri-driver did not exit within {:.0} s of SIGTERM and was killed",
                STOP_GRACE.as_secs_f64()
            ));
            let _ = self.child.kill();
            let _ = self.child.wait();
        }

        // WebKit's helper processes notice a moment after the app that it is gone.
        let deadline = Instant::now() + LEFTOVER_GRACE;
        while self.seen.iter().any(Proc::is_alive) && Instant::now() < deadline {
            std::thread::sleep(Duration::from_millis(20));
        }
        let leftovers: Vec<Proc> = self.seen.iter().filter(|p| p.is_alive()).cloned().collect();
        if !leftovers.is_empty() {
            let names: Vec<String> = leftovers.iter().map(ToString::to_string).collect();
            problems.push(format!(
                "still running after tauri-driver stopped, killed: {}",
                names.join(", ")
            ));
            for p in &leftovers {
                signal(p.pid, libc::SIGKILL);
            }
            let deadline = Instant::now() + STOP_GRACE;
            while leftovers.iter().any(Proc::is_alive) && Instant::now() < deadline {
                std::thread::sleep(Duration::from_millis(20));
            }
            let survivors: Vec<String> = leftovers
                .iter()
                .filter(|p| p.is_alive())
                .map(ToString::to_string)
                .collect();
            if !survivors.is_empty() {
                problems.push(format!("could not kill {}", survivors.join(", ")));
            }
        }
        if problems.is_empty() {
            Ok(())
        } else {
            Err(Error::Process(problems.join("; ")))
        }
    }
}

impl Drop for Driver {
    fn drop(&mut self) {
        if let Err(e) = self.stop() {
            eprintln!("carrel-e2e: {e}");
        }
    }
}

/// Two distinct ports free on 127.0.0.1 right now.
fn two_free_ports() -> Result<(u16, u16)> {
    let bind =
        || TcpListener::bind("127.0.0.1:0").map_err(|e| Error::io("cannot find a free port", e));
    let a = bind()?;
    let b = bind()?;
    let port = |l: &TcpListener| {
        l.local_addr()
            .map(|a| a.port())
            .map_err(|e| Error::io("cannot find a free port", e))
    };
    Ok((port(&a)?, port(&b)?))
}
