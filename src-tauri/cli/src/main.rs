//! `carrel-cli`: Carrel's core without a window — manage servers, browse catalogs, queue books
//! and run the download executor from scripts, timers and tests.
//!
//! Exit codes: 0 success, 2 usage, 3 not found, 4 server, authentication or certificate
//! error, 5 storage error. Every error is one line on stderr.

mod commands;
mod sync_progress;

use std::path::PathBuf;
use std::process::ExitCode;

use clap::{Args, Parser, Subcommand};

#[derive(Debug, Parser)]
#[command(
    name = "carrel-cli",
    version,
    about = "Carrel without a window: servers, catalogs, downloads."
)]
struct Cli {
    /// The data folder (default: the app's, or CARREL_DATA_DIR).
    #[arg(long, global = true, env = "CARREL_DATA_DIR", value_name = "DIR")]
    data_dir: Option<PathBuf>,
    /// Machine-readable output (JSON).
    #[arg(long, global = true)]
    json: bool,
    #[command(subcommand)]
    command: Command,
}

#[derive(Debug, Subcommand)]
enum Command {
    /// Add, list or remove library servers.
    #[command(subcommand)]
    Server(ServerCommand),
    /// List one feed of a server's catalog (its root by default).
    Browse {
        name: String,
        feed_url: Option<String>,
    },
    /// Search a server's catalog (`search NAME QUERY`), every server at once and the books on
    /// this device (`search --all QUERY`), or only the books on this device
    /// (`search --on-device QUERY`).
    Search(SearchArgs),
    /// Keep a book on this device (queued first), or every book of a feed (`--feed SERVER
    /// FEED_URL`, its next pages too) or a search (`--search SERVER QUERY`) as one batch.
    Store(StoreArgs),
    /// Batches of "keep all offline": list, pause, resume, cancel or move one to the top.
    #[command(subcommand)]
    Batch(BatchCommand),
    /// Read-ahead per series: keep the next N unread books of a book's series on this
    /// device while it is read (show, keep, stop), and a server's default for every series read
    /// (default).
    #[command(subcommand)]
    Series(SeriesCommand),
    /// The network as NetworkManager sees it, and downloads on a metered link (show, allow,
    /// policy).
    #[command(subcommand)]
    Network(NetworkCommand),
    /// The settings page: show it (the default), or set one setting (`settings set KEY VALUE`).
    Settings {
        #[command(subcommand)]
        cmd: Option<SettingsCommand>,
    },
    /// Open a book at a page: that page is downloaded first, then the ones after it.
    Open {
        book_id: i64,
        /// The page, counted from 1.
        #[arg(long)]
        page: Option<i64>,
    },
    /// The next book of a book's series, in the server's order: its id, title, number and
    /// whether it is on this device (exit 3 when the series has none after it, or the book no
    /// known series).
    Next { book_id: i64 },
    /// Mark a book read or unread, and send the mark to its server (as a position at the end or
    /// the start; to Komga as read or unread) and the KOReader sync server.
    Mark {
        book_id: i64,
        #[arg(value_parser = ["read", "unread"])]
        state: String,
        /// Mark every book of the book's series (as far as this device knows it).
        #[arg(long)]
        series: bool,
    },
    /// Remove a book from this device: its downloads and its files.
    Remove { book_id: i64 },
    /// Pause all downloads (kept across restarts).
    Pause,
    /// Resume downloads.
    Resume,
    /// Become the download executor and work through the stack.
    Sync(SyncArgs),
    /// The executor lease, the stack in the order it will run, and each book's state.
    Status,
    /// KOReader sync: share reading positions of books kept as files with KOReader devices and
    /// any KOSync server (sign in, show, send now, sign out).
    #[command(subcommand)]
    Kosync(KosyncCommand),
    /// Bookmarks and highlights (with their notes) made in a book's reader: list them, or export
    /// them as Markdown or JSON.
    #[command(subcommand)]
    Notes(NotesCommand),
    /// Library folders: folders on this computer whose books (EPUB, PDF, CBZ, CBR, CB7, CBT)
    /// are part of the library, read where they are (add scans the folder; the app keeps
    /// watching it).
    #[command(subcommand)]
    Folders(FoldersCommand),
    /// Import book files from this computer (EPUB, PDF, CBZ, CBR, CB7, CBT; folders are looked
    /// through, subfolders too) as books of "This device"; prints each book (with --json, one
    /// object a line). A file that is not a book is reported and the others are still imported.
    Import {
        #[arg(required = true, value_name = "PATH")]
        paths: Vec<PathBuf>,
        /// Keep a copy in Carrel's data folder instead of reading the file where it is.
        #[arg(long)]
        copy: bool,
    },
    /// The local file of a stored book or page.
    Path {
        book_id: i64,
        /// The page, counted from 1.
        #[arg(long)]
        page: Option<i64>,
    },
}

#[derive(Debug, Subcommand)]
enum ServerCommand {
    /// Add a server by its OPDS catalog URL, its web address, or host:port (the catalog is found).
    Add {
        name: String,
        url: String,
        #[arg(long)]
        username: Option<String>,
        /// Read the password (or token) from standard input.
        #[arg(long, conflicts_with = "api_key_stdin")]
        password_stdin: bool,
        /// Read an API key (Komga's: sent as `X-API-Key`, no username) from standard input.
        #[arg(long, conflicts_with = "username")]
        api_key_stdin: bool,
        /// Minimum milliseconds between the starts of two requests to this server.
        #[arg(long, value_name = "N")]
        interval_ms: Option<i64>,
        /// Accept this server's certificate even if it is self-signed. Only for a server you
        /// run yourself: Carrel will not check who it is talking to.
        #[arg(long)]
        trust_self_signed: bool,
        /// Save the catalog found at this whole address even though it is on another host
        /// than the one given (or down from https to http): your sign-in will be sent there.
        #[arg(long, value_name = "URL")]
        accept_catalog: Option<String>,
    },
    List,
    Remove {
        name: String,
    },
}

#[derive(Debug, Args)]
#[command(group = clap::ArgGroup::new("where").args(["all", "on_device"]))]
struct SearchArgs {
    /// Search every server at once (answers as they come) and the books on this device.
    #[arg(long)]
    all: bool,
    /// Search only the books on this device, by title, author and series (no server asked).
    #[arg(long)]
    on_device: bool,
    /// The server's name and the query; with --all or --on-device, the query alone.
    #[arg(required = true, num_args = 1..=2, value_name = "NAME] [QUERY")]
    words: Vec<String>,
}

#[derive(Debug, Args)]
#[command(group = clap::ArgGroup::new("many").args(["feed", "search"]))]
struct StoreArgs {
    /// Keep every book of a feed of this server (with its next pages), in reading order.
    #[arg(long, value_name = "SERVER", requires = "what")]
    feed: Option<String>,
    /// Keep every book a search of this server finds.
    #[arg(long, value_name = "SERVER", requires = "what")]
    search: Option<String>,
    /// The book's id; with --feed, the feed's address (the root when "/"); with --search, the
    /// query.
    #[arg(value_name = "BOOK_ID|FEED_URL|QUERY", id = "what")]
    what: Option<String>,
}

#[derive(Debug, Subcommand)]
enum BatchCommand {
    /// Every batch with its progress.
    List,
    Pause {
        id: i64,
    },
    Resume {
        id: i64,
    },
    /// Stop the batch's downloads; its unfinished books are no longer kept.
    Cancel {
        id: i64,
    },
    /// Its waiting books first.
    Top {
        id: i64,
    },
}

#[derive(Debug, Subcommand)]
enum SeriesCommand {
    /// The series of a book: its read-ahead and its books in series order.
    Show { book_id: i64 },
    /// Keep the next N unread books after this one on this device, queued in series order.
    Keep {
        book_id: i64,
        /// How many unread books to keep ahead (1 to 50).
        #[arg(long, value_name = "N")]
        next: u32,
        /// Remove a finished book the read-ahead brought this many days after it was finished.
        #[arg(long, value_name = "D")]
        remove_after_days: Option<u32>,
    },
    /// Stop keeping books of this series ahead (what is stored stays); a server's default does
    /// not bring its read-ahead back.
    Stop { book_id: i64 },
    /// A server's default read-ahead, taken by each series of it read without a read-ahead of its
    /// own (off unless set): show it, set it with --next, or turn it off with --off.
    #[command(group = clap::ArgGroup::new("change").args(["next", "off"]))]
    Default {
        /// The server's name (or its id).
        server: String,
        /// How many unread books of each series read to keep ahead (1 to 50).
        #[arg(long, value_name = "N")]
        next: Option<u32>,
        /// Remove a finished book a read-ahead brought this many days after it was finished.
        #[arg(long, value_name = "D", requires = "next")]
        remove_after_days: Option<u32>,
        /// Turn the default off: the read-aheads it made end (what they stored stays).
        #[arg(long)]
        off: bool,
    },
}

#[derive(Debug, Subcommand)]
enum NetworkCommand {
    /// Whether the link is up and metered (while a Carrel follows it) and whether downloads
    /// wait for it.
    Show,
    /// Download anyway on this metered link, until it changes.
    Allow,
    /// What downloads do on a metered link: never, ask (wait until allowed) or always.
    Policy {
        #[arg(value_parser = ["never", "ask", "always"])]
        policy: String,
    },
}

#[derive(Debug, Subcommand)]
enum SettingsCommand {
    /// Show the settings.
    Show,
    /// Set one: books-kept (0–50), notifications (on/off), theme (system/light/dark),
    /// metered-downloads (never/ask/always), keep-running (on/off: stay in the tray after the
    /// last window closes), language (a language tag such as fr or pt-BR, or system).
    Set {
        #[arg(value_parser = ["books-kept", "notifications", "theme", "metered-downloads", "keep-running", "language"])]
        key: String,
        value: String,
    },
}

#[derive(Debug, Subcommand)]
enum KosyncCommand {
    /// Sign in to a KOSync server (checked before it is kept); the password is read from
    /// standard input.
    Login {
        url: String,
        #[arg(long)]
        username: String,
    },
    /// The account and the positions waiting to be sent.
    Show,
    /// Send the waiting positions now.
    Push,
    /// Forget the account; nothing more is sent.
    Logout,
}

#[derive(Debug, Subcommand)]
enum NotesCommand {
    /// A book's bookmarks and highlights, in the book's order (`--json`: as the app reads them).
    List { book_id: i64 },
    /// A book's bookmarks and highlights as Markdown (title, a heading per chapter, each
    /// highlight quoted with its note and date) or JSON (a versioned shape), to standard output
    /// or a file.
    Export {
        book_id: i64,
        #[arg(long, value_parser = ["markdown", "json"], default_value = "markdown")]
        format: String,
        /// Write to this file instead of standard output.
        #[arg(long, short, value_name = "FILE")]
        output: Option<PathBuf>,
    },
}

#[derive(Debug, Subcommand)]
enum FoldersCommand {
    /// Add a folder and take its books in (prints how many).
    Add { path: PathBuf },
    /// Remove a folder (by its path or id): its books leave the library, the files stay.
    Remove {
        #[arg(value_name = "PATH|ID")]
        folder: String,
    },
    /// Look through a folder again (by its path or id): new files in, changed ones again,
    /// gone ones out.
    Scan {
        #[arg(value_name = "PATH|ID")]
        folder: String,
    },
    /// Every library folder with its book count and last scan.
    List,
}

#[derive(Debug, Args)]
struct SyncArgs {
    /// Stop when the stack is empty.
    #[arg(long)]
    until_idle: bool,
    /// Stop after this many seconds.
    #[arg(long, value_name = "S")]
    max_seconds: Option<f64>,
    /// If another process is the executor, wait for its lease instead of exiting.
    #[arg(long)]
    wait: bool,
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    install_logging();
    let runtime = match tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
    {
        Ok(rt) => rt,
        Err(e) => {
            eprintln!("carrel-cli: cannot start: {e}");
            return ExitCode::from(5);
        }
    };
    match runtime.block_on(commands::run(cli)) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("carrel-cli: {}", e.message);
            ExitCode::from(e.code)
        }
    }
}

fn install_logging() {
    use tracing_subscriber::{fmt, EnvFilter};
    let filter = EnvFilter::try_from_env("CARREL_LOG").unwrap_or_else(|_| EnvFilter::new("warn"));
    let _ = fmt()
        .with_env_filter(filter)
        .with_writer(std::io::stderr)
        .try_init();
}
