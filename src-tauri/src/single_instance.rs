//! One app per data dir: starting Carrel again brings the running one's window forward
//! instead of opening a second app whose executor would only stand by.
//!
//! The first app takes an exclusive lock on `<data dir>/app.lock` for its whole life and
//! listens on a socket named after the data dir (in the abstract namespace, so no path length
//! limit and nothing left behind by a crash). A later start finds the lock taken, connects,
//! says `show`, waits for `ok` and exits. The lock (not the socket) decides who is first, so
//! two apps starting at the same moment cannot both become first. Both ends check that the
//! other runs as the same user (`SO_PEERCRED`): another user can neither ask this app for
//! anything nor pose as it. The socket accepts one word; nothing reaches the windows' IPC.
//!
//! `--new-instance` skips all this (a second app on the same data dir stands by as before;
//! the executor lease keeps the downloads to one of them). When the running app does not
//! answer in [`ANSWER_TIMEOUT`], the new one starts anyway rather than leave the reader with
//! nothing.

use std::fs::{File, OpenOptions};
use std::io::{BufRead, BufReader, Write};
use std::os::linux::net::SocketAddrExt;
use std::os::unix::fs::OpenOptionsExt;
use std::os::unix::net::{SocketAddr, UnixListener, UnixStream};
use std::path::Path;
use std::sync::mpsc;
use std::time::{Duration, Instant};

/// The command-line switch that starts a second app on the same data dir.
pub const NEW_INSTANCE_FLAG: &str = "--new-instance";
/// How long a new start waits for the running app to answer.
pub const ANSWER_TIMEOUT: Duration = Duration::from_secs(5);
const LOCK_FILE: &str = "app.lock";
const SHOW: &str = "show";
const OK: &str = "ok";

/// How this start went.
pub enum Start {
    /// This is the first app on the data dir: it owns the lock and the listener until dropped.
    First(Primary),
    /// The running app was asked to show its window; this start should end.
    Forwarded,
    /// Not one app per data dir this time (asked for, or it could not be arranged); why.
    Alone(String),
}

/// The first app's hold on the data dir.
pub struct Primary {
    _lock: File,
    listener: UnixListener,
}

/// The socket's name for the data dir at `dir`: the user and a hash of the folder's path
/// (FNV-1a, 64 bits), so every data dir has its own.
fn socket_name(dir: &Path) -> Result<SocketAddr, String> {
    let dir = dir.canonicalize().unwrap_or_else(|_| dir.to_path_buf());
    let mut hash: u64 = 0xcbf2_9ce4_8422_2325;
    for byte in std::os::unix::ffi::OsStrExt::as_bytes(dir.as_os_str()) {
        hash ^= u64::from(*byte);
        hash = hash.wrapping_mul(0x0100_0000_01b3);
    }
    let name = format!("carrel/{}/{hash:016x}", rustix::process::getuid().as_raw());
    SocketAddr::from_abstract_name(name.as_bytes()).map_err(|e| e.to_string())
}

/// Whether the process at the other end of `stream` runs as this user.
fn same_user(stream: &UnixStream) -> bool {
    rustix::net::sockopt::socket_peercred(stream)
        .is_ok_and(|cred| cred.uid == rustix::process::getuid())
}

/// Claims the data dir at `dir` for this app, or asks the app that has it to show itself.
pub fn claim(dir: &Path) -> Start {
    if let Err(e) = std::fs::create_dir_all(dir) {
        return Start::Alone(format!("cannot create {}: {e}", dir.display()));
    }
    let socket = match socket_name(dir) {
        Ok(name) => name,
        Err(e) => return Start::Alone(format!("cannot name the app's socket: {e}")),
    };
    let lock = match OpenOptions::new()
        .create(true)
        .truncate(false)
        .write(true)
        .mode(0o600)
        .open(dir.join(LOCK_FILE))
    {
        Ok(f) => f,
        Err(e) => return Start::Alone(format!("cannot open the app lock: {e}")),
    };
    match rustix::fs::flock(&lock, rustix::fs::FlockOperation::NonBlockingLockExclusive) {
        Ok(()) => match UnixListener::bind_addr(&socket) {
            Ok(listener) => Start::First(Primary {
                _lock: lock,
                listener,
            }),
            // Taken by a process that does not hold the lock: not a Carrel of this data dir.
            Err(e) => Start::Alone(format!("cannot listen for a second start: {e}")),
        },
        Err(rustix::io::Errno::WOULDBLOCK) => match ask_to_show(&socket, ANSWER_TIMEOUT) {
            Ok(()) => Start::Forwarded,
            Err(why) => Start::Alone(format!("the running Carrel did not answer: {why}")),
        },
        Err(e) => Start::Alone(format!("cannot lock the data folder: {e}")),
    }
}

/// Connects to the running app (which may still be binding its socket) and asks it to show
/// its window; returns once it said so.
fn ask_to_show(socket: &SocketAddr, timeout: Duration) -> Result<(), String> {
    let started = Instant::now();
    let stream = loop {
        match UnixStream::connect_addr(socket) {
            Ok(s) => break s,
            Err(e) if started.elapsed() >= timeout => return Err(e.to_string()),
            Err(_) => std::thread::sleep(Duration::from_millis(50)),
        }
    };
    if !same_user(&stream) {
        return Err("the socket belongs to another user".into());
    }
    let left = timeout
        .saturating_sub(started.elapsed())
        .max(Duration::from_millis(100));
    stream
        .set_read_timeout(Some(left))
        .and_then(|()| stream.set_write_timeout(Some(left)))
        .map_err(|e| e.to_string())?;
    (&stream)
        .write_all(format!("{SHOW}\n").as_bytes())
        .map_err(|e| e.to_string())?;
    let mut answer = String::new();
    BufReader::new(&stream)
        .read_line(&mut answer)
        .map_err(|e| e.to_string())?;
    if answer.trim_end() == OK {
        Ok(())
    } else {
        Err(format!("unexpected answer {:?}", answer.trim_end()))
    }
}

impl Primary {
    /// Answers later starts on a thread of its own: each `show` is sent to `shows` (the app
    /// brings a window forward) and answered `ok`. Ends when `shows` is gone.
    pub fn serve(self, shows: mpsc::Sender<()>) {
        let spawned = std::thread::Builder::new()
            .name("single-instance".into())
            .spawn(move || {
                for stream in self.listener.incoming() {
                    let Ok(stream) = stream else {
                        // Out of descriptors or the like: not a reason to spin.
                        std::thread::sleep(Duration::from_millis(100));
                        continue;
                    };
                    if !same_user(&stream) || answer(&stream).is_err() {
                        continue;
                    }
                    if shows.send(()).is_err() {
                        break;
                    }
                }
                // Keeps the lock until the app ends.
                drop(self._lock);
            });
        if let Err(e) = spawned {
            tracing::warn!(cause = %e, "a second start of Carrel will not find this one");
        }
    }
}

/// Reads one request (bounded, with a timeout) and answers it.
fn answer(stream: &UnixStream) -> std::io::Result<()> {
    // Short: one start that says nothing must not keep the next ones waiting.
    stream.set_read_timeout(Some(Duration::from_millis(500)))?;
    stream.set_write_timeout(Some(Duration::from_millis(500)))?;
    let mut line = String::new();
    BufReader::new(std::io::Read::take(stream, 64)).read_line(&mut line)?;
    if line.trim_end() != SHOW {
        return Err(std::io::Error::new(
            std::io::ErrorKind::InvalidData,
            "not a request this app knows",
        ));
    }
    (&*stream).write_all(format!("{OK}\n").as_bytes())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_second_start_asks_the_first_to_show_itself_and_ends() {
        let dir = tempfile::tempdir().unwrap();
        let Start::First(primary) = claim(dir.path()) else {
            panic!("the first start is not first")
        };
        let (tx, rx) = mpsc::channel();
        primary.serve(tx);
        assert!(matches!(claim(dir.path()), Start::Forwarded));
        rx.recv_timeout(Duration::from_secs(2))
            .expect("the first app was asked to show its window");
        assert!(matches!(claim(dir.path()), Start::Forwarded));
        rx.recv_timeout(Duration::from_secs(2)).unwrap();
    }

    #[test]
    fn each_data_dir_has_its_own_app() {
        let (a, b) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
        let first_a = claim(a.path());
        assert!(matches!(first_a, Start::First(_)));
        assert!(matches!(claim(b.path()), Start::First(_)));
    }

    #[test]
    fn a_long_data_dir_path_is_no_obstacle() {
        let dir = tempfile::tempdir().unwrap();
        let long = dir.path().join("a".repeat(120)).join("b".repeat(120));
        let Start::First(primary) = claim(&long) else {
            panic!("a long path kept the app from being first")
        };
        let (tx, rx) = mpsc::channel();
        primary.serve(tx);
        assert!(matches!(claim(&long), Start::Forwarded));
        rx.recv_timeout(Duration::from_secs(2)).unwrap();
    }

    #[test]
    fn once_the_first_app_is_gone_the_next_start_is_first() {
        let dir = tempfile::tempdir().unwrap();
        let first = claim(dir.path());
        assert!(matches!(first, Start::First(_)));
        drop(first);
        assert!(matches!(claim(dir.path()), Start::First(_)));
    }

    #[test]
    fn a_running_app_that_never_answers_does_not_keep_a_new_one_from_starting() {
        let dir = tempfile::tempdir().unwrap();
        // Holds the lock and the socket but never answers.
        let Start::First(_silent) = claim(dir.path()) else {
            panic!()
        };
        let started = Instant::now();
        let error = ask_to_show(
            &socket_name(dir.path()).unwrap(),
            Duration::from_millis(300),
        )
        .expect_err("a silent app answered");
        assert!(started.elapsed() < Duration::from_secs(5), "{error}");
    }

    #[test]
    fn anything_but_show_is_refused() {
        let dir = tempfile::tempdir().unwrap();
        let Start::First(primary) = claim(dir.path()) else {
            panic!()
        };
        let (tx, rx) = mpsc::channel();
        primary.serve(tx);
        let stream = UnixStream::connect_addr(&socket_name(dir.path()).unwrap()).unwrap();
        (&stream).write_all(b"rm -rf /\n").unwrap();
        let mut answer = String::new();
        let _ = BufReader::new(&stream).read_line(&mut answer);
        assert_eq!(answer, "");
        assert!(rx.recv_timeout(Duration::from_millis(300)).is_err());
    }
}
