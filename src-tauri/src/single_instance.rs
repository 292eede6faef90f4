//! One app per data dir: starting Carrel again brings the running one's window forward
//! instead of opening a second app whose executor would only stand by.
//!
//! The first app takes an exclusive lock on `<data dir>/app.lock` for its whole life and
//! listens on a socket named after the data dir (in the abstract namespace, so no path length
//! limit and nothing left behind by a crash). A later start finds the lock taken, connects,
//! says `show`, waits for `ok` and exits. The lock (not the socket) decides who is first, so
//! two apps starting at the same moment cannot both become first. Both ends check that the
//! other runs as the same user (`SO_PEERCRED`): another user can neither ask this app for
//! anything nor pose as it.
//!
//! `carrel PATH…` says `open` instead, followed by the files to open: each path made absolute
//! in the later start's own working directory, its bytes then a NUL (a path cannot hold one),
//! and an empty path to end the list. At most [`MAX_PATHS`] paths of at most
//! [`MAX_PATH_BYTES`] bytes each are read, every one must be absolute, and anything else is
//! refused whole. Nothing reaches the windows but those paths, as the reader's own choice of
//! files to open (what a file is, is the import's business).
//!
//! `--new-instance` skips all this (a second app on the same data dir stands by as before;
//! the executor lease keeps the downloads to one of them). When the running app does not
//! answer in [`ANSWER_TIMEOUT`], the new one starts anyway rather than leave the reader with
//! nothing.

use std::fs::{File, OpenOptions};
use std::io::{BufRead, BufReader, Read, Write};
use std::os::linux::net::SocketAddrExt;
use std::os::unix::fs::OpenOptionsExt;
use std::os::unix::net::{SocketAddr, UnixListener, UnixStream};
use std::path::{Path, PathBuf};
use std::sync::mpsc;
use std::time::{Duration, Instant};

/// The command-line switch that starts a second app on the same data dir.
pub const NEW_INSTANCE_FLAG: &str = "--new-instance";
/// How long a new start waits for the running app to answer.
pub const ANSWER_TIMEOUT: Duration = Duration::from_secs(5);
const LOCK_FILE: &str = "app.lock";
const SHOW: &str = "show";
const OPEN: &str = "open";
/// A drop of files on the window, sent by a test in place of the desktop's drag and drop
/// (which WebDriver cannot make); debug builds only.
#[cfg(debug_assertions)]
const DROP: &str = "drop";
const OK: &str = "ok";
/// The most files one start hands over; the rest of a longer command line is left out.
pub const MAX_PATHS: usize = 64;
/// The longest path handed over, in bytes (Linux's `PATH_MAX`).
pub const MAX_PATH_BYTES: usize = 4096;
/// The longest request line (`show`, `open`).
const MAX_WORD: u64 = 64;

/// What a later start asks of the running app.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Request {
    /// Bring a window forward.
    Show,
    /// Open these files (absolute paths) as the reader's own books.
    Open(Vec<PathBuf>),
    /// Open these files as if dropped on the library window (test builds' stand-in for a
    /// desktop drag and drop).
    #[cfg(debug_assertions)]
    Drop(Vec<PathBuf>),
}

/// The switch that makes a debug build's later start hand its files over as a drop.
#[cfg(debug_assertions)]
pub const DROP_FLAG: &str = "--drop-for-tests";

/// The local path of a `file://` address (as a desktop passes a file for `%U`), its
/// `%XX` escapes decoded; `None` for anything else (a plain path, another host).
fn file_uri_path(arg: &[u8]) -> Option<PathBuf> {
    use std::os::unix::ffi::OsStringExt;
    let rest = arg.strip_prefix(b"file://")?;
    let rest = rest.strip_prefix(b"localhost").unwrap_or(rest);
    if !rest.starts_with(b"/") {
        return None;
    }
    let hex = |b: u8| {
        char::from(b)
            .to_digit(16)
            .and_then(|d| u8::try_from(d).ok())
    };
    let mut path = Vec::with_capacity(rest.len());
    let mut i = 0;
    while i < rest.len() {
        match (
            rest[i],
            rest.get(i + 1).copied().and_then(hex),
            rest.get(i + 2).copied().and_then(hex),
        ) {
            (b'%', Some(high), Some(low)) => {
                path.push(high * 16 + low);
                i += 3;
            }
            (byte, _, _) => {
                path.push(byte);
                i += 1;
            }
        }
    }
    if path.contains(&0) {
        return None;
    }
    Some(PathBuf::from(std::ffi::OsString::from_vec(path)))
}

impl Request {
    /// What a start with these command-line arguments (without the program's name) asks for:
    /// its file arguments (paths, or `file://` addresses) made absolute in `cwd` and opened,
    /// else the window shown. Switches (`--…`) are not files; `--` ends them.
    pub fn from_args<I: IntoIterator<Item = std::ffi::OsString>>(args: I, cwd: &Path) -> Request {
        let mut paths = Vec::new();
        let mut switches = true;
        #[cfg(debug_assertions)]
        let mut dropped = false;
        for arg in args {
            let bytes = std::os::unix::ffi::OsStrExt::as_bytes(arg.as_os_str());
            if switches && bytes == b"--" {
                switches = false;
                continue;
            }
            if switches && bytes.starts_with(b"-") {
                #[cfg(debug_assertions)]
                if bytes == DROP_FLAG.as_bytes() {
                    dropped = true;
                }
                continue;
            }
            if bytes.is_empty() || paths.len() == MAX_PATHS {
                continue;
            }
            let path = file_uri_path(bytes).unwrap_or_else(|| PathBuf::from(arg));
            let path = if path.is_absolute() {
                path
            } else {
                cwd.join(path)
            };
            paths.push(path);
        }
        if paths.is_empty() {
            return Request::Show;
        }
        #[cfg(debug_assertions)]
        if dropped {
            return Request::Drop(paths);
        }
        Request::Open(paths)
    }

    /// The files asked to be opened (none for [`Request::Show`]).
    pub fn into_paths(self) -> Vec<PathBuf> {
        match self {
            Request::Show => Vec::new(),
            Request::Open(paths) => paths,
            #[cfg(debug_assertions)]
            Request::Drop(paths) => paths,
        }
    }

    /// The request as sent on the socket.
    fn encode(&self) -> Vec<u8> {
        let (word, paths) = match self {
            Request::Show => return format!("{SHOW}\n").into_bytes(),
            Request::Open(paths) => (OPEN, paths),
            #[cfg(debug_assertions)]
            Request::Drop(paths) => (DROP, paths),
        };
        let mut bytes = format!("{word}\n").into_bytes();
        for path in paths.iter().take(MAX_PATHS) {
            let raw = std::os::unix::ffi::OsStrExt::as_bytes(path.as_os_str());
            if raw.is_empty() || raw.len() > MAX_PATH_BYTES || raw.contains(&0) {
                continue;
            }
            bytes.extend_from_slice(raw);
            bytes.push(0);
        }
        bytes.push(0);
        bytes
    }
}

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

/// Claims the data dir at `dir` for this app, or hands `request` to the app that has it.
pub fn claim(dir: &Path, request: &Request) -> Start {
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
        Err(rustix::io::Errno::WOULDBLOCK) => match ask(&socket, request, ANSWER_TIMEOUT) {
            Ok(()) => Start::Forwarded,
            Err(why) => Start::Alone(format!("the running Carrel did not answer: {why}")),
        },
        Err(e) => Start::Alone(format!("cannot lock the data folder: {e}")),
    }
}

/// Connects to the running app (which may still be binding its socket) and hands it
/// `request`; returns once it said it took it.
fn ask(socket: &SocketAddr, request: &Request, timeout: Duration) -> Result<(), String> {
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
        .write_all(&request.encode())
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
    /// Answers later starts on a thread of its own: each request is sent to `requests` (the
    /// app brings a window forward, or opens the files) and answered `ok`. Ends when
    /// `requests` is gone.
    pub fn serve(self, requests: mpsc::Sender<Request>) {
        let spawned = std::thread::Builder::new()
            .name("single-instance".into())
            .spawn(move || {
                for stream in self.listener.incoming() {
                    let Ok(stream) = stream else {
                        // Out of descriptors or the like: not a reason to spin.
                        std::thread::sleep(Duration::from_millis(100));
                        continue;
                    };
                    if !same_user(&stream) {
                        continue;
                    }
                    let Ok(request) = answer(&stream) else {
                        continue;
                    };
                    if requests.send(request).is_err() {
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
fn answer(stream: &UnixStream) -> std::io::Result<Request> {
    // Short: one start that says nothing must not keep the next ones waiting.
    stream.set_read_timeout(Some(Duration::from_millis(500)))?;
    stream.set_write_timeout(Some(Duration::from_millis(500)))?;
    let most = MAX_WORD + (MAX_PATHS as u64 + 1) * (MAX_PATH_BYTES as u64 + 1);
    let mut reader = BufReader::new(std::io::Read::take(stream, most));
    let request = read_request(&mut reader)?;
    (&*stream).write_all(format!("{OK}\n").as_bytes())?;
    Ok(request)
}

fn refused(why: &str) -> std::io::Error {
    std::io::Error::new(std::io::ErrorKind::InvalidData, why.to_owned())
}

/// One request as [`Request::encode`] writes it; anything else, or more, is refused.
fn read_request(reader: &mut impl BufRead) -> std::io::Result<Request> {
    let mut word = Vec::new();
    (&mut *reader).take(MAX_WORD).read_until(b'\n', &mut word)?;
    let paths = match word.as_slice() {
        b"show\n" => return Ok(Request::Show),
        b"open\n" => read_paths(reader)?,
        #[cfg(debug_assertions)]
        b"drop\n" => return Ok(Request::Drop(read_paths(reader)?)),
        _ => return Err(refused("not a request this app knows")),
    };
    Ok(Request::Open(paths))
}

/// The NUL-ended absolute paths of an `open`, up to the empty one that ends them.
fn read_paths(reader: &mut impl BufRead) -> std::io::Result<Vec<PathBuf>> {
    use std::os::unix::ffi::OsStringExt;
    let mut paths = Vec::new();
    loop {
        let mut raw = Vec::new();
        (&mut *reader)
            .take(MAX_PATH_BYTES as u64 + 1)
            .read_until(0, &mut raw)?;
        if raw.pop() != Some(0) {
            return Err(refused("a path too long, or cut short"));
        }
        if raw.is_empty() {
            return Ok(paths);
        }
        if paths.len() == MAX_PATHS {
            return Err(refused("too many paths"));
        }
        let path = PathBuf::from(std::ffi::OsString::from_vec(raw));
        if !path.is_absolute() {
            return Err(refused("a path that is not absolute"));
        }
        paths.push(path);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Claims `dir` as the first app, which then serves later starts; what they ask arrives on
    /// the receiver.
    fn first_app_serving(dir: &Path) -> mpsc::Receiver<Request> {
        let Start::First(primary) = claim(dir, &Request::Show) else {
            panic!("the first start is not first")
        };
        let (tx, rx) = mpsc::channel();
        primary.serve(tx);
        rx
    }

    #[test]
    fn a_second_start_asks_the_first_to_show_itself_and_ends() {
        let dir = tempfile::tempdir().unwrap();
        let rx = first_app_serving(dir.path());
        assert!(matches!(
            claim(dir.path(), &Request::Show),
            Start::Forwarded
        ));
        let asked = rx
            .recv_timeout(Duration::from_secs(2))
            .expect("the first app was asked to show its window");
        assert_eq!(asked, Request::Show);
        assert!(matches!(
            claim(dir.path(), &Request::Show),
            Start::Forwarded
        ));
        rx.recv_timeout(Duration::from_secs(2)).unwrap();
    }

    #[test]
    fn each_data_dir_has_its_own_app() {
        let (a, b) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
        let first_a = claim(a.path(), &Request::Show);
        assert!(matches!(first_a, Start::First(_)));
        assert!(matches!(claim(b.path(), &Request::Show), Start::First(_)));
    }

    #[test]
    fn a_long_data_dir_path_is_no_obstacle() {
        let dir = tempfile::tempdir().unwrap();
        let long = dir.path().join("a".repeat(120)).join("b".repeat(120));
        let rx = first_app_serving(&long);
        assert!(matches!(claim(&long, &Request::Show), Start::Forwarded));
        rx.recv_timeout(Duration::from_secs(2)).unwrap();
    }

    #[test]
    fn once_the_first_app_is_gone_the_next_start_is_first() {
        let dir = tempfile::tempdir().unwrap();
        let first = claim(dir.path(), &Request::Show);
        assert!(matches!(first, Start::First(_)));
        drop(first);
        assert!(matches!(claim(dir.path(), &Request::Show), Start::First(_)));
    }

    #[test]
    fn a_running_app_that_never_answers_does_not_keep_a_new_one_from_starting() {
        let dir = tempfile::tempdir().unwrap();
        // Holds the lock and the socket but never answers.
        let Start::First(_silent) = claim(dir.path(), &Request::Show) else {
            panic!()
        };
        let started = Instant::now();
        let error = ask(
            &socket_name(dir.path()).unwrap(),
            &Request::Show,
            Duration::from_millis(300),
        )
        .expect_err("a silent app answered");
        assert!(started.elapsed() < Duration::from_secs(5), "{error}");
    }

    #[test]
    fn anything_but_show_is_refused() {
        let dir = tempfile::tempdir().unwrap();
        let rx = first_app_serving(dir.path());
        let stream = UnixStream::connect_addr(&socket_name(dir.path()).unwrap()).unwrap();
        (&stream).write_all(b"rm -rf /\n").unwrap();
        let mut answer = String::new();
        let _ = BufReader::new(&stream).read_line(&mut answer);
        assert_eq!(answer, "");
        assert!(rx.recv_timeout(Duration::from_millis(300)).is_err());
    }

    /// Sends `bytes` to the app on `dir` as a later start would, and returns its answer.
    fn send_raw(dir: &Path, bytes: &[u8]) -> String {
        let stream = UnixStream::connect_addr(&socket_name(dir).unwrap()).unwrap();
        stream
            .set_read_timeout(Some(Duration::from_secs(2)))
            .unwrap();
        let _ = (&stream).write_all(bytes);
        let mut answer = String::new();
        let _ = BufReader::new(&stream).read_line(&mut answer);
        answer
    }

    #[test]
    fn a_second_start_with_files_hands_them_to_the_first() {
        let dir = tempfile::tempdir().unwrap();
        let rx = first_app_serving(dir.path());
        let files = vec![
            PathBuf::from("/home/reader/Comics/Saga 01.cbz"),
            PathBuf::from("/tmp/a\nnew line and ünïcode.epub"),
        ];
        assert!(matches!(
            claim(dir.path(), &Request::Open(files.clone())),
            Start::Forwarded
        ));
        assert_eq!(
            rx.recv_timeout(Duration::from_secs(2)).unwrap(),
            Request::Open(files)
        );
    }

    #[test]
    fn file_arguments_are_made_absolute_in_the_callers_folder() {
        let args = [
            "--new-instance",
            "book.epub",
            "/srv/a.cbz",
            "--",
            "-odd.pdf",
        ]
        .map(std::ffi::OsString::from);
        assert_eq!(
            Request::from_args(args, Path::new("/home/reader/Books")),
            Request::Open(vec![
                PathBuf::from("/home/reader/Books/book.epub"),
                PathBuf::from("/srv/a.cbz"),
                PathBuf::from("/home/reader/Books/-odd.pdf"),
            ])
        );
        assert_eq!(
            Request::from_args(["--new-instance".into()], Path::new("/")),
            Request::Show
        );
        // As a desktop passes files for `%U`.
        assert_eq!(
            Request::from_args(
                [
                    "file:///home/reader/Comics/Saga%2001.cbz".into(),
                    "file://localhost/tmp/%C3%A9t%C3%A9.epub".into(),
                    "file://nas/share/book.pdf".into(),
                ],
                Path::new("/home/reader"),
            ),
            Request::Open(vec![
                PathBuf::from("/home/reader/Comics/Saga 01.cbz"),
                PathBuf::from("/tmp/été.epub"),
                PathBuf::from("/home/reader/file:/nas/share/book.pdf"),
            ])
        );
        let many = (0..MAX_PATHS + 10).map(|i| std::ffi::OsString::from(format!("{i}.cbz")));
        let Request::Open(kept) = Request::from_args(many, Path::new("/c")) else {
            panic!("files not opened")
        };
        assert_eq!(kept.len(), MAX_PATHS);
    }

    #[test]
    fn a_relative_path_too_many_paths_or_a_path_too_long_is_refused_whole() {
        let dir = tempfile::tempdir().unwrap();
        let rx = first_app_serving(dir.path());
        let mut too_many = b"open\n".to_vec();
        for i in 0..=MAX_PATHS {
            too_many.extend_from_slice(format!("/b/{i}.cbz\0").as_bytes());
        }
        too_many.push(0);
        let mut too_long = b"open\n/".to_vec();
        too_long.extend(std::iter::repeat_n(b'a', MAX_PATH_BYTES + 1));
        too_long.extend_from_slice(b"\0\0");
        for bytes in [
            b"open\nrelative/book.cbz\0\0".to_vec(),
            b"open\n/cut/short".to_vec(),
            too_many,
            too_long,
        ] {
            assert_eq!(send_raw(dir.path(), &bytes), "", "{:?}", &bytes[..20]);
        }
        assert!(rx.recv_timeout(Duration::from_millis(300)).is_err());
        // The app still answers a good request after the bad ones.
        assert_eq!(send_raw(dir.path(), b"open\n/a/b.cbz\0\0"), "ok\n");
        assert_eq!(
            rx.recv_timeout(Duration::from_secs(2)).unwrap(),
            Request::Open(vec![PathBuf::from("/a/b.cbz")])
        );
    }
}
