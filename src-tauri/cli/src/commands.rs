//! The CLI's commands: each parses nothing (clap did), calls the core, prints text or JSON.

use std::io::{IsTerminal, Read};
use std::sync::Arc;
use std::time::Duration;

use carrel_core::{
    catalog::client::{CatalogClient, CatalogItem, CatalogPage},
    catalog::download_batches::{self, BatchView},
    catalog::library_folders,
    catalog::library_search::{self, ServerOutcome},
    catalog::series_read_ahead,
    engine::book_downloads::{self, StoreRequest},
    engine::download_stack,
    engine::executor::{self, Executor, ExecutorConfig, Finish, RunMode},
    engine::executor_lease,
    engine::progress::ProgressSink,
    foundation::clock,
    foundation::data_dir::{self, DataDir},
    foundation::part_files::PartFiles,
    foundation::store::Store,
    http::http_fetch::{HttpClient, HttpConfig},
    library::books,
    library::credentials::{Credentials, Secret},
    library::servers::{self, NewServer},
    ErrorKind, Failure,
};
use serde_json::json;

use crate::{
    sync_progress::TerminalProgress, BatchCommand, Cli, Command, FoldersCommand, KosyncCommand,
    NetworkCommand, NotesCommand, SearchArgs, SeriesCommand, ServerCommand, SettingsCommand,
    StoreArgs, SyncArgs,
};

/// A failure: its exit code and its one line.
#[derive(Debug)]
pub struct CliError {
    pub code: u8,
    pub message: String,
}

impl CliError {
    fn new(code: u8, message: impl Into<String>) -> Self {
        CliError {
            code,
            message: message.into(),
        }
    }
}

fn code_for(kind: ErrorKind) -> u8 {
    match kind {
        ErrorKind::InvalidInput | ErrorKind::Conflict => 2,
        ErrorKind::NotFound => 3,
        ErrorKind::Server | ErrorKind::Auth | ErrorKind::Certificate => 4,
        _ => 5,
    }
}

/// Every core error becomes its one line and the exit code of its kind: the CLI decides
/// nothing of its own about what a failure is.
impl<E: Failure> From<E> for CliError {
    fn from(e: E) -> Self {
        let kind = e.kind();
        let mut message = e.to_string();
        if kind == ErrorKind::Certificate {
            message.push_str("; a server you run yourself can be added with --trust-self-signed");
        }
        CliError::new(code_for(kind), message)
    }
}

type CliResult<T = ()> = Result<T, CliError>;

struct Context {
    store: Store,
    credentials: Arc<Credentials>,
    json: bool,
}

fn open(cli: &Cli) -> CliResult<Context> {
    let root = match &cli.data_dir {
        Some(d) => d.clone(),
        None => data_dir::resolve(data_dir::default_identifier())
            .ok_or_else(|| CliError::new(5, "no home folder to keep data in; pass --data-dir"))?,
    };
    let dir = DataDir::new(root);
    let credentials = Arc::new(Credentials::open(&dir, data_dir::default_identifier()));
    let store = carrel_core::open_library(&dir, clock::system(), &credentials)?;
    Ok(Context {
        store,
        credentials,
        json: cli.json,
    })
}

impl Context {
    /// Tells what was done: `json` when asked for JSON, else the line `text`.
    fn say(&self, json: serde_json::Value, text: String) {
        if self.json {
            print_json(json);
        } else {
            println!("{text}");
        }
    }
}

fn print_json(value: serde_json::Value) {
    println!(
        "{}",
        serde_json::to_string_pretty(&value).unwrap_or_default()
    );
}

pub async fn run(cli: Cli) -> CliResult {
    let ctx = open(&cli)?;
    match cli.command {
        Command::Server(cmd) => server(&ctx, cmd).await,
        Command::Browse { name, feed_url } => {
            let server = servers::get_by_name(&ctx.store, &name)?;
            let http = http_client(&ctx)?;
            let page = catalog(&ctx, &http)
                .browse(&server, feed_url.as_deref())
                .await?;
            print_page(&ctx, &page);
            Ok(())
        }
        Command::Search(args) => search(&ctx, args).await,
        Command::Store(args) => store(&ctx, args).await,
        Command::Batch(cmd) => batch(&ctx, cmd),
        Command::Series(cmd) => series(&ctx, cmd),
        Command::Network(cmd) => network_command(&ctx, cmd),
        Command::Settings { cmd } => settings_command(&ctx, cmd.unwrap_or(SettingsCommand::Show)),
        Command::Kosync(cmd) => kosync_command(&ctx, cmd).await,
        Command::Open { book_id, page } => {
            let index = page.map(|p| p - 1);
            if index.is_some_and(|i| i < 0) {
                return Err(CliError::new(2, "pages are counted from 1"));
            }
            // A book imported from this computer: its file looked at first (gone, changed).
            carrel_core::catalog::local_books::check(&ctx.store, book_id)?;
            book_downloads::open_book(&ctx.store, book_id, index)?;
            // Reading a book moves its series' read-ahead along, as in the app (a read-ahead that
            // cannot be applied costs only the books it would have queued).
            if let Err(e) = series_read_ahead::apply(&ctx.store, book_id) {
                tracing::warn!(book = book_id, cause = %e, "could not apply the series' read-ahead");
            }
            let book = books::get(&ctx.store, book_id)?;
            if ctx.json {
                print_json(json!({ "book_id": book_id, "page": book.last_page.map(|p| p + 1) }));
            } else {
                println!(
                    "opened \"{}\" at page {}",
                    book.title,
                    book.last_page.unwrap_or(0) + 1
                );
            }
            Ok(())
        }
        Command::Next { book_id } => next_book(&ctx, book_id),
        Command::Mark {
            book_id,
            state,
            series,
        } => mark(&ctx, book_id, state == "read", series).await,
        Command::Remove { book_id } => {
            book_downloads::remove_book(&ctx.store, book_id)?;
            ctx.say(
                json!({ "removed": book_id }),
                format!("book {book_id} removed from this device"),
            );
            Ok(())
        }
        Command::Pause | Command::Resume => {
            let paused = matches!(cli.command, Command::Pause);
            executor::set_paused(&ctx.store, paused)?;
            ctx.say(
                json!({ "paused": paused }),
                format!("downloads {}", if paused { "paused" } else { "resumed" }),
            );
            Ok(())
        }
        Command::Sync(args) => sync(&ctx, args).await,
        Command::Status => status(&ctx),
        Command::Path { book_id, page } => path(&ctx, book_id, page),
        Command::Notes(cmd) => notes(&ctx, cmd),
        Command::Folders(cmd) => folders(&ctx, cmd),
        Command::Import { paths, copy } => import(&ctx, &paths, copy),
    }
}

/// A scan's progress on a terminal: "Scanning… 1234 of 10000" rewritten in place on stderr.
struct ScanLine;

impl library_folders::ScanProgress for ScanLine {
    fn report(&self, event: library_folders::ScanEvent) {
        use library_folders::ScanEvent;
        match event {
            ScanEvent::Walking { found, .. } => eprint!("\r\x1b[KLooking… {found} books found"),
            ScanEvent::Importing { done, total, .. } => {
                eprint!("\r\x1b[KScanning… {done} of {total}")
            }
            ScanEvent::Finished { .. } | ScanEvent::Failed { .. } => eprint!("\r\x1b[K"),
        }
    }
}

fn folders(ctx: &Context, cmd: FoldersCommand) -> CliResult {
    let store = &ctx.store;
    let scanned = |id: i64| -> CliResult<library_folders::ScanSummary> {
        let cancel = std::sync::atomic::AtomicBool::new(false);
        let quiet = library_folders::NoProgress;
        let line = ScanLine;
        let sink: &dyn library_folders::ScanProgress =
            if !ctx.json && std::io::stderr().is_terminal() {
                &line
            } else {
                &quiet
            };
        Ok(library_folders::scan(store, id, sink, &cancel)?)
    };
    let report = |summary: &library_folders::ScanSummary| {
        let folder = library_folders::get(store, summary.folder_id)?;
        if ctx.json {
            print_json(json!({ "folder": folder, "scan": summary }));
        } else {
            let failed = match summary.failed {
                0 => String::new(),
                n => format!(" ({n} files could not be read as books)"),
            };
            println!(
                "{} books in {} (folder {}): {} new, {} changed, {} gone{failed}",
                folder.book_count,
                folder.path,
                folder.id,
                summary.imported,
                summary.updated,
                summary.dropped
            );
        }
        CliResult::Ok(())
    };
    match cmd {
        FoldersCommand::Add { path } => {
            let folder = library_folders::add(store, &path)?;
            report(&scanned(folder.id)?)
        }
        FoldersCommand::Scan { folder } => {
            let folder = library_folders::find(store, &folder)?;
            report(&scanned(folder.id)?)
        }
        FoldersCommand::Remove { folder } => {
            let folder = library_folders::find(store, &folder)?;
            let removed = library_folders::remove(store, folder.id)?;
            if ctx.json {
                print_json(json!(removed));
            } else {
                println!(
                    "folder {} removed: {} books left the library; the files are where they were",
                    removed.folder.path, removed.books_dropped
                );
            }
            Ok(())
        }
        FoldersCommand::List => {
            let all = library_folders::list(store)?;
            if ctx.json {
                print_json(json!(all));
            } else {
                for f in all {
                    let scanned = if f.last_scan_ms.is_some() {
                        ""
                    } else {
                        ", not scanned yet"
                    };
                    println!(
                        "  folder {}: {} — {} books{scanned}",
                        f.id, f.path, f.book_count
                    );
                }
            }
            Ok(())
        }
    }
}

async fn server(ctx: &Context, cmd: ServerCommand) -> CliResult {
    match cmd {
        ServerCommand::Add {
            name,
            url,
            username,
            password_stdin,
            api_key_stdin,
            interval_ms,
            trust_self_signed,
            accept_catalog,
        } => {
            let secret = if password_stdin || api_key_stdin {
                let mut s = String::new();
                std::io::stdin().read_to_string(&mut s).map_err(|e| {
                    CliError::new(
                        2,
                        format!("cannot read the password from standard input: {e}"),
                    )
                })?;
                let s = s.trim_end_matches(['\n', '\r']).to_owned();
                (!s.is_empty()).then(|| Secret::new(s))
            } else {
                None
            };
            // A host, host:port or web address leads to the catalog; what was found is said.
            let sign_in = carrel_core::http::server_discovery::SignIn {
                username: username.as_deref(),
                secret: secret.as_ref(),
                api_key: api_key_stdin,
            };
            let found =
                carrel_core::http::server_discovery::discover(&url, sign_in, trust_self_signed)
                    .await;
            // A catalog on another host (or down to plain http) is saved only with a yes.
            if let Ok(d) = &found {
                if let Some(question) = d.consent_question() {
                    if accept_catalog.as_deref() != Some(d.catalog_url.as_str()) {
                        return Err(CliError::new(
                            2,
                            format!(
                                "{question}\nNothing was saved. To use it, run the same command with --accept-catalog {}",
                                d.catalog_url
                            ),
                        ));
                    }
                }
            }
            let url = match &found {
                Ok(d) => d.catalog_url.clone(),
                // Not an address at all: the server's validation says so below.
                Err(carrel_core::http::server_discovery::DiscoveryError::InvalidAddress(_)) => url,
                Err(e) => {
                    eprintln!("note: {e}; the address is kept as given");
                    url
                }
            };
            let new = NewServer {
                name,
                url,
                username,
                min_interval_ms: interval_ms,
                trust_self_signed: Some(trust_self_signed),
                api_key: Some(api_key_stdin),
            };
            let server = carrel_core::library::server_secrets::add_with_secret(
                &ctx.store,
                &ctx.credentials,
                &new,
                secret.as_ref(),
            )?;
            if ctx.json {
                let mut value = json!(server);
                if let (Some(map), Ok(d)) = (value.as_object_mut(), &found) {
                    map.insert(
                        "found".into(),
                        json!({ "description": d.describe(), "catalog": d }),
                    );
                }
                print_json(value);
            } else {
                if let Ok(d) = &found {
                    println!("found {} ({})", d.describe(), d.found_by);
                }
                println!("added {} ({})", server.name, server.url);
            }
        }
        ServerCommand::List => {
            let list = servers::list(&ctx.store)?;
            if ctx.json {
                print_json(json!(list));
            } else if list.is_empty() {
                println!("no servers yet; add one with `carrel-cli server add NAME URL`");
            } else {
                for s in list {
                    let user = s.username.map(|u| format!(" as {u}")).unwrap_or_default();
                    let paused = s
                        .paused_reason
                        .map(|r| format!(" [paused: {r}]"))
                        .unwrap_or_default();
                    let trusted = if s.trust_self_signed {
                        " [trusts a self-signed certificate]"
                    } else {
                        ""
                    };
                    println!("{}\t{}{user}{trusted}{paused}", s.name, s.url);
                }
            }
        }
        ServerCommand::Remove { name } => {
            let id = servers::get_by_name(&ctx.store, &name)?.id;
            carrel_core::catalog::server_removal::remove_with_secret(
                &ctx.store,
                &ctx.credentials,
                id,
            )?;
            ctx.say(json!({ "removed": name }), format!("removed {name}"));
        }
    }
    Ok(())
}

/// The CLI's HTTP client: the sessions servers give are kept in the secret store, so the next
/// command signs in without the password.
fn http_client(ctx: &Context) -> CliResult<HttpClient> {
    Ok(HttpClient::new(HttpConfig::default())
        .map_err(|e| CliError::new(4, e.to_string()))?
        .keeping_sessions_in(ctx.credentials.clone()))
}

fn catalog<'a>(ctx: &'a Context, http: &'a HttpClient) -> CatalogClient<'a> {
    CatalogClient {
        store: &ctx.store,
        credentials: &ctx.credentials,
        http,
    }
}

fn print_page(ctx: &Context, page: &CatalogPage) {
    if ctx.json {
        print_json(json!(page));
        return;
    }
    println!("{}", page.title);
    for item in &page.entries {
        match item {
            CatalogItem::Navigation { title, href, .. } => println!("  > {title}\t{href}"),
            CatalogItem::Book {
                book_id,
                title,
                format,
                page_count,
                not_streamable,
                ..
            } => {
                let pages = page_count
                    .map(|p| format!(", {p} pages"))
                    .unwrap_or_default();
                let why = not_streamable
                    .as_deref()
                    .map(|w| format!(" — {w}"))
                    .unwrap_or_default();
                println!(
                    "  [{book_id}] {title} ({}{pages}){why}",
                    format_name(*format)
                );
            }
        }
    }
    if let Some(next) = &page.next {
        println!("  more: {next}");
    }
}

/// `search NAME QUERY`, `search --all QUERY`, `search --on-device QUERY`.
async fn search(ctx: &Context, args: SearchArgs) -> CliResult {
    let everywhere = args.all || args.on_device;
    let (name, query) = match (everywhere, args.words.as_slice()) {
        (false, [name, query]) => (Some(name.as_str()), query.as_str()),
        (true, [query]) => (None, query.as_str()),
        (false, _) => {
            return Err(CliError::new(
                2,
                "search takes a server's name and a query (or --all QUERY)",
            ))
        }
        (true, _) => {
            return Err(CliError::new(
                2,
                "with --all or --on-device, search takes the query alone",
            ))
        }
    };
    if let Some(name) = name {
        let server = servers::get_by_name(&ctx.store, name)?;
        let http = http_client(ctx)?;
        let page = catalog(ctx, &http).search(&server, query).await?;
        print_page(ctx, &page);
        return Ok(());
    }
    let local = library_search::on_device(&ctx.store, query, None)?;
    if !ctx.json {
        println!("On this device ({} found)", local.len());
        for d in &local {
            let by = if d.authors.is_empty() {
                String::new()
            } else {
                format!(" — {}", d.authors.join(", "))
            };
            let series = d
                .series
                .as_deref()
                .map(|s| format!(" [{s}]"))
                .unwrap_or_default();
            println!(
                "  [{}] {}{by}{series} ({})",
                d.book_id, d.title, d.server_name
            );
        }
    }
    let mut answers = Vec::new();
    if args.all {
        let http = http_client(ctx)?;
        let client = catalog(ctx, &http);
        library_search::across_servers(&client, query, |answer| {
            if !ctx.json {
                print_server_answer(&answer);
            }
            answers.push(answer);
        })
        .await?;
    }
    if ctx.json {
        print_json(json!({ "query": query, "on_device": local, "servers": answers }));
    }
    Ok(())
}

fn print_server_answer(answer: &library_search::ServerAnswer) {
    match &answer.outcome {
        ServerOutcome::Results { view } => {
            let books: Vec<_> = view
                .entries
                .iter()
                .filter_map(|e| match e {
                    carrel_core::catalog::client::CatalogViewItem::Book {
                        book_id, title, ..
                    } => Some((book_id, title)),
                    _ => None,
                })
                .collect();
            let offline = if view.offline {
                ", offline: kept results"
            } else {
                ""
            };
            println!("{} ({} found{offline})", answer.server_name, books.len());
            for (id, title) in books {
                println!("  [{id}] {title}");
            }
        }
        ServerOutcome::NoSearch => {
            println!("{}: this catalog offers no search", answer.server_name)
        }
        ServerOutcome::Failed { message, .. } => println!("{}: {message}", answer.server_name),
    }
}

/// `store BOOK_ID`, `store --feed SERVER FEED_URL`, `store --search SERVER QUERY`.
async fn store(ctx: &Context, args: StoreArgs) -> CliResult {
    let what = args.what.unwrap_or_default();
    let batch = match (args.feed, args.search) {
        (Some(name), None) => {
            let server = servers::get_by_name(&ctx.store, &name)?;
            let http = http_client(ctx)?;
            let feed = (what != "/").then_some(what.as_str());
            download_batches::keep_feed(&catalog(ctx, &http), &server, feed).await?
        }
        (None, Some(name)) => {
            let server = servers::get_by_name(&ctx.store, &name)?;
            let http = http_client(ctx)?;
            download_batches::keep_search(&catalog(ctx, &http), &server, &what).await?
        }
        _ => {
            let book_id: i64 = what.parse().map_err(|_| {
                CliError::new(
                    2,
                    format!("\"{what}\" is not a book id (or use --feed / --search)"),
                )
            })?;
            let outcome = book_downloads::store_book(&ctx.store, book_id)?;
            if ctx.json {
                print_json(json!({ "book_id": book_id, "outcome": outcome }));
            } else {
                match outcome {
                    StoreRequest::Queued => {
                        println!("book {book_id} queued to be kept on this device")
                    }
                    StoreRequest::AlreadyStored => {
                        println!("book {book_id} is already on this device")
                    }
                }
            }
            return Ok(());
        }
    };
    if ctx.json {
        print_json(json!(batch));
    } else {
        let made = batch.made.clone().unwrap_or_default();
        println!(
            "batch {}: \"{}\" — {} books, {} queued, {} already on this device{}",
            batch.id,
            batch.title,
            batch.books,
            made.queued,
            made.already_stored,
            if made.not_downloadable > 0 {
                format!(", {} cannot be downloaded", made.not_downloadable)
            } else {
                String::new()
            }
        );
    }
    Ok(())
}

/// `kosync login|show|push|logout`.
async fn kosync_command(ctx: &Context, cmd: KosyncCommand) -> CliResult {
    use carrel_core::reading::kosync::{self, KosyncClient};
    match cmd {
        KosyncCommand::Login { url, username } => {
            let mut password = String::new();
            std::io::stdin()
                .read_to_string(&mut password)
                .map_err(|e| {
                    CliError::new(
                        2,
                        format!("cannot read the password from standard input: {e}"),
                    )
                })?;
            let password = Secret::new(password.trim_end_matches(['\n', '\r']));
            let account = kosync::sign_in(
                &ctx.store,
                &ctx.credentials,
                &KosyncClient::new()?,
                &url,
                &username,
                &password,
            )
            .await?;
            if ctx.json {
                print_json(
                    json!({ "url": account.url, "username": account.username, "device_id": account.device_id }),
                );
            } else {
                println!("signed in to {} as {}", account.url, account.username);
            }
        }
        KosyncCommand::Show => {
            let account = kosync::account(&ctx.store)?;
            let pending = kosync::pending(&ctx.store)?;
            if ctx.json {
                let waiting: Vec<_> = pending
                    .iter()
                    .map(|(book, attempts, error)| json!({ "book_id": book, "attempts": attempts, "last_error": error }))
                    .collect();
                print_json(json!({ "account": account, "waiting": waiting }));
            } else {
                match &account {
                    Some(a) => println!("{} as {} (device {})", a.url, a.username, a.device_id),
                    None => println!("no KOReader sync account"),
                }
                for (book, attempts, error) in &pending {
                    println!(
                        "  book {book} waits{}",
                        error
                            .as_deref()
                            .map(|e| format!(" ({attempts} tries: {e})"))
                            .unwrap_or_default()
                    );
                }
            }
        }
        KosyncCommand::Push => {
            let report = kosync::flush(&ctx.store, &ctx.credentials, &KosyncClient::new()?).await?;
            ctx.say(
                json!(report),
                format!("{} sent, {} waiting", report.sent, report.failed),
            );
            if report.failed > 0 {
                return Err(CliError::new(
                    4,
                    "some positions could not be sent; they wait for the next try",
                ));
            }
        }
        KosyncCommand::Logout => {
            kosync::sign_out(&ctx.store, &ctx.credentials)?;
            ctx.say(
                json!({ "signed_out": true }),
                "signed out of KOReader sync".into(),
            );
        }
    }
    Ok(())
}

fn batch(ctx: &Context, cmd: BatchCommand) -> CliResult {
    let shown: Vec<BatchView> = match cmd {
        BatchCommand::List => download_batches::list(&ctx.store)?,
        BatchCommand::Pause { id } => vec![download_batches::pause(&ctx.store, id)?],
        BatchCommand::Resume { id } => vec![download_batches::resume(&ctx.store, id)?],
        BatchCommand::Top { id } => vec![download_batches::move_to_top(&ctx.store, id)?],
        BatchCommand::Cancel { id } => {
            download_batches::cancel(&ctx.store, id)?;
            ctx.say(json!({ "cancelled": id }), format!("batch {id} cancelled"));
            return Ok(());
        }
    };
    if ctx.json {
        print_json(json!(shown));
        return Ok(());
    }
    for b in shown {
        let state = if b.paused { ", paused" } else { "" };
        let failed = if b.failed > 0 {
            format!(", {} failed", b.failed)
        } else {
            String::new()
        };
        println!(
            "  batch {} ({}): \"{}\" — {}/{} books on this device, {} waiting{failed}{state}",
            b.id, b.server_name, b.title, b.stored, b.books, b.waiting
        );
    }
    Ok(())
}

fn series(ctx: &Context, cmd: SeriesCommand) -> CliResult {
    let view = match cmd {
        SeriesCommand::Default {
            server,
            next,
            remove_after_days,
            off,
        } => return series_default(ctx, &server, next, remove_after_days, off),
        SeriesCommand::Show { book_id } => series_read_ahead::show(&ctx.store, book_id)?,
        SeriesCommand::Keep {
            book_id,
            next,
            remove_after_days,
        } => series_read_ahead::keep(&ctx.store, book_id, next, remove_after_days)?,
        SeriesCommand::Stop { book_id } => {
            series_read_ahead::stop(&ctx.store, book_id)?;
            series_read_ahead::show(&ctx.store, book_id)?
        }
    };
    if ctx.json {
        print_json(json!(view));
        return Ok(());
    }
    let read_ahead = match view.read_ahead {
        Some(w) => {
            let removal = removal_words(w.remove_after_days);
            let from = if w.from_server_default {
                " (the server's default)"
            } else {
                ""
            };
            format!("keeps the next {} unread{removal}{from}", w.keep_next)
        }
        None if view.stopped => "no read-ahead (stopped; the server's default leaves it be)".to_owned(),
        None => match view.server_default {
            Some(d) => format!(
                "no read-ahead yet (the server's default, the next {} unread, applies once a book of it is read)",
                d.keep_next
            ),
            None => "no read-ahead".to_owned(),
        },
    };
    println!("\"{}\": {read_ahead}", view.series);
    for b in &view.books {
        let number = b.series_index.map(|i| format!("#{i} ")).unwrap_or_default();
        let read = if b.finished { ", read" } else { "" };
        let kept = if b.kept_by_read_ahead {
            ", kept by the read-ahead"
        } else {
            ""
        };
        println!(
            "  {:>5}  {number}{} — {}{read}{kept}",
            b.book_id,
            b.title,
            state_name(&b.status.state)
        );
    }
    Ok(())
}

/// `next BOOK`: the book after this one in its series.
fn next_book(ctx: &Context, book_id: i64) -> CliResult {
    let around = series_read_ahead::neighbours(&ctx.store, book_id)?;
    let Some(next) = around.next else {
        let title = books::get(&ctx.store, book_id)?.title;
        return Err(CliError::new(
            3,
            match around.series {
                Some(series) => format!("\"{title}\" is the last known book of \"{series}\""),
                None => format!("\"{title}\" is in no series the server names"),
            },
        ));
    };
    if ctx.json {
        print_json(json!({
            "book_id": next.book_id,
            "title": next.title,
            "number": next.number,
            "series": around.series,
            "on_device": next.on_device,
            "read": next.finished,
            "state": state_name(&next.status.state),
            "stored_parts": next.status.progress.stored_parts,
            "total_parts": next.status.progress.total_parts,
        }));
        return Ok(());
    }
    let number = next.number.map(|n| format!("#{n} ")).unwrap_or_default();
    let where_ = if next.on_device {
        "on this device".to_owned()
    } else {
        let p = &next.status.progress;
        match next.status.state {
            book_downloads::BookState::Remote => "not on this device".to_owned(),
            _ if p.total_parts > 0 => format!(
                "not on this device ({}, {} of {} parts)",
                state_name(&next.status.state),
                p.stored_parts,
                p.total_parts
            ),
            _ => format!("not on this device ({})", state_name(&next.status.state)),
        }
    };
    let read = if next.finished { ", read" } else { "" };
    println!(
        "{:>5}  {number}{} — {where_}{read}",
        next.book_id, next.title
    );
    Ok(())
}

/// `mark BOOK read|unread [--series]`: marked here (the book, or every book of its series), then
/// sent with every position waiting.
async fn mark(ctx: &Context, book_id: i64, read: bool, whole_series: bool) -> CliResult {
    let series = if whole_series {
        Some(series_read_ahead::mark_series_read(
            &ctx.store, book_id, read,
        )?)
    } else {
        series_read_ahead::mark_read(&ctx.store, book_id, read)?;
        None
    };
    let title = books::get(&ctx.store, book_id)?.title;
    let http = http_client(ctx)?;
    let report =
        carrel_core::reading::position_sync::flush(&ctx.store, &http, &ctx.credentials).await?;
    let waiting = report.failed + report.kosync.failed;
    if ctx.json {
        let mut out = json!({
            "book_id": book_id,
            "read": read,
            "sent": report.sent + report.kosync.sent,
            "waiting": waiting,
        });
        if let Some(marked) = &series {
            out["series"] = json!(marked.series);
            out["book_ids"] = json!(marked.book_ids);
        }
        print_json(out);
        return Ok(());
    }
    let word = if read { "read" } else { "unread" };
    let note = if waiting > 0 {
        " (a server could not be reached: sent later)"
    } else {
        ""
    };
    match series {
        Some(marked) => {
            let count = marked.book_ids.len();
            let books = if count == 1 { "book" } else { "books" };
            println!("\"{}\" marked {word}: {count} {books}{note}", marked.series);
        }
        None => println!("\"{title}\" marked {word}{note}"),
    }
    Ok(())
}

/// What becomes of finished books a read-ahead brought, as `series` commands say it.
fn removal_words(remove_after_days: Option<u32>) -> String {
    match remove_after_days {
        Some(0) => ", finished books removed at once".to_owned(),
        Some(d) => format!(", finished books removed after {d} days"),
        None => String::new(),
    }
}

/// `series default SERVER [--next N [--remove-after-days D] | --off]`.
fn series_default(
    ctx: &Context,
    server: &str,
    next: Option<u32>,
    remove_after_days: Option<u32>,
    off: bool,
) -> CliResult {
    // By name, as the other commands name servers; a number no server is named is an id.
    let server = match servers::get_by_name(&ctx.store, server) {
        Ok(s) => s,
        Err(e) => match server.parse::<i64>() {
            Ok(id) => servers::get(&ctx.store, id)?,
            Err(_) => return Err(e.into()),
        },
    };
    let default = match (next, off) {
        (_, true) => series_read_ahead::set_server_default(&ctx.store, server.id, 0, None)?,
        // 0 is "off" too, as in the app.
        (Some(n), false) => {
            series_read_ahead::set_server_default(&ctx.store, server.id, n, remove_after_days)?
        }
        (None, false) => series_read_ahead::server_default(&ctx.store, server.id)?,
    };
    if ctx.json {
        print_json(json!({
            "server_id": server.id,
            "server": server.name,
            "default": default,
        }));
        return Ok(());
    }
    match default {
        Some(d) => println!(
            "{}: each series read keeps the next {} unread{}",
            server.name,
            d.keep_next,
            removal_words(d.remove_after_days)
        ),
        None => println!("{}: no default read-ahead", server.name),
    }
    Ok(())
}

fn settings_command(ctx: &Context, cmd: SettingsCommand) -> CliResult {
    use carrel_core::library::settings::{self, MeteredDownloads, Theme};
    let mut page = settings::load(&ctx.store)?;
    if let SettingsCommand::Set { key, value } = cmd {
        let on_off = |v: &str| match v {
            "on" | "true" | "yes" => Ok(true),
            "off" | "false" | "no" => Ok(false),
            _ => Err(CliError::new(2, format!("{key} is on or off, not {v:?}"))),
        };
        match key.as_str() {
            "books-kept" => {
                page.books_kept = value.parse().map_err(|_| {
                    CliError::new(2, format!("books-kept is a number, not {value:?}"))
                })?
            }
            "notifications" => page.notifications = on_off(&value)?,
            "keep-running" => page.keep_running = on_off(&value)?,
            // A language tag (`fr`, `pt-BR`) or `system`; the store refuses what is not a tag.
            "language" => page.language = (value != "system").then(|| value.clone()),
            "theme" => {
                page.theme = match value.as_str() {
                    "system" => Theme::System,
                    "light" => Theme::Light,
                    "dark" => Theme::Dark,
                    _ => return Err(CliError::new(2, "theme is system, light or dark")),
                }
            }
            _ => {
                page.metered_downloads = match value.as_str() {
                    "never" => MeteredDownloads::Never,
                    "ask" => MeteredDownloads::Ask,
                    "always" => MeteredDownloads::Always,
                    _ => {
                        return Err(CliError::new(
                            2,
                            "metered-downloads is never, ask or always",
                        ))
                    }
                }
            }
        }
        page = book_downloads::apply_settings(&ctx.store, &page)?;
    }
    if ctx.json {
        print_json(json!(page));
        return Ok(());
    }
    let on = |b: bool| if b { "on" } else { "off" };
    let value = |v: serde_json::Value| v.as_str().map(str::to_owned).unwrap_or_default();
    println!("books-kept: {}", page.books_kept);
    println!("notifications: {}", on(page.notifications));
    println!("theme: {}", value(json!(page.theme)));
    println!(
        "metered-downloads: {}",
        value(json!(page.metered_downloads))
    );
    println!("keep-running: {}", on(page.keep_running));
    println!("language: {}", page.language.as_deref().unwrap_or("system"));
    Ok(())
}

fn network_command(ctx: &Context, cmd: NetworkCommand) -> CliResult {
    use carrel_core::engine::network::{self, MeteredDownloads};
    use carrel_core::library::settings;
    match cmd {
        NetworkCommand::Show => {}
        NetworkCommand::Allow => {
            if !network::allow_metered(&ctx.store)? {
                return Err(CliError::new(
                    2,
                    "the link is not metered (or no Carrel follows the network): nothing to allow",
                ));
            }
        }
        NetworkCommand::Policy { policy } => {
            let policy = match policy.as_str() {
                "never" => MeteredDownloads::Never,
                "always" => MeteredDownloads::Always,
                _ => MeteredDownloads::Ask,
            };
            settings::set(&ctx.store, &policy)?;
        }
    }
    let state = network::current(&ctx.store)?;
    let hold = network::hold(&ctx.store)?;
    let policy = settings::get::<MeteredDownloads>(&ctx.store)?.unwrap_or_default();
    if ctx.json {
        print_json(json!({ "network": state, "hold": hold, "metered_downloads": policy }));
        return Ok(());
    }
    match &state {
        Some(s) => println!(
            "network: {}, {}{}",
            if s.online { "online" } else { "offline" },
            if s.metered { "metered" } else { "not metered" },
            if s.metered && s.allowed {
                " (downloads allowed)"
            } else {
                ""
            }
        ),
        None => println!("network: not followed (no Carrel is watching NetworkManager)"),
    }
    println!(
        "on a metered link: {}",
        serde_json::to_value(policy)
            .ok()
            .and_then(|v| v.as_str().map(str::to_owned))
            .unwrap_or_default()
    );
    if let Some(reason) = hold {
        println!("downloads wait: {reason}");
    }
    Ok(())
}

/// The extensions of the book files an import looks for in a folder (a file named on the
/// command line is tried whatever its name: its bytes say what it is).
const BOOK_EXTENSIONS: [&str; 6] = ["cbz", "cbr", "cb7", "cbt", "epub", "pdf"];

/// `import PATH... [--copy]`: every file named, and every book file under every folder named,
/// imported as a book of this device. A file that fails is reported on stderr and the rest go
/// on; the exit code is then the first failure's.
fn import(ctx: &Context, paths: &[std::path::PathBuf], copy: bool) -> CliResult {
    use carrel_core::catalog::local_books::{self, ImportMode};
    let mode = if copy {
        ImportMode::Copy
    } else {
        ImportMode::Reference
    };
    let mut files = Vec::new();
    for path in paths {
        if path.is_dir() {
            book_files_under(path, &mut files);
        } else {
            files.push(path.clone());
        }
    }
    let (mut failed, mut first_failure) = (0usize, None);
    for file in &files {
        match local_books::import(&ctx.store, file, mode) {
            Ok(book) => {
                if ctx.json {
                    let line = json!({
                        "id": book.book_id,
                        "title": book.title,
                        "format": format_name(book.format),
                        "authors": book.authors,
                        "series": book.series,
                        "number": book.number,
                        "path": book.path,
                        "already_known": book.already_known,
                    });
                    println!("{line}");
                } else {
                    let known = if book.already_known { " (known)" } else { "" };
                    println!(
                        "{}\t{}\t{}{known}\t{}",
                        book.book_id,
                        format_name(book.format),
                        book.title,
                        book.path
                    );
                }
            }
            Err(e) => {
                eprintln!("carrel-cli: {e}");
                failed += 1;
                first_failure.get_or_insert_with(|| CliError::from(e).code);
            }
        }
    }
    match first_failure {
        None if files.is_empty() => Err(CliError::new(3, "no book files found")),
        None => Ok(()),
        Some(code) => Err(CliError::new(
            code,
            format!("{failed} of {} files could not be imported", files.len()),
        )),
    }
}

/// The book files under `dir` (by extension), subfolders included, in name order; hidden
/// files and folders are left out, and links to folders are not followed (no loops).
fn book_files_under(dir: &std::path::Path, out: &mut Vec<std::path::PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        eprintln!("carrel-cli: cannot read the folder {}", dir.display());
        return;
    };
    let mut entries: Vec<_> = entries.flatten().collect();
    entries.sort_by_key(|e| e.file_name());
    for entry in entries {
        let name = entry.file_name();
        if name.to_string_lossy().starts_with('.') {
            continue;
        }
        let path = entry.path();
        match entry.file_type() {
            Ok(t) if t.is_dir() => book_files_under(&path, out),
            Ok(_) if path.is_file() => {
                let ext = path
                    .extension()
                    .map(|e| e.to_string_lossy().to_ascii_lowercase())
                    .unwrap_or_default();
                if BOOK_EXTENSIONS.contains(&ext.as_str()) {
                    out.push(path);
                }
            }
            _ => {}
        }
    }
}

fn format_name(f: books::BookFormat) -> &'static str {
    f.as_str()
}

async fn sync(ctx: &Context, args: SyncArgs) -> CliResult {
    let holder = carrel_core::foundation::process_holders::new_holder_id("carrel-cli");
    let sink: Arc<dyn ProgressSink> = if !ctx.json && std::io::stderr().is_terminal() {
        Arc::new(TerminalProgress::default())
    } else {
        Arc::new(carrel_core::engine::progress::NoProgress)
    };
    // NetworkManager followed while this process downloads: metered links wait, a link coming
    // back retries at once. Without it, nothing changes.
    let network = carrel_core::engine::network_watch::NetworkWatch::start(ctx.store.clone());
    if args.until_idle {
        // Decided before the run: a run until idle on a link it may not use says so and stops.
        let looked = std::time::Instant::now();
        while network.found().is_none() && looked.elapsed() < Duration::from_secs(3) {
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
        if let Some(reason) = carrel_core::engine::network::hold(&ctx.store)? {
            network.stop();
            return Err(CliError::new(
                4,
                format!("downloads wait: {reason} (`carrel-cli network allow` downloads anyway)"),
            ));
        }
    }
    let config = ExecutorConfig::default();
    let executor = Executor::new(
        ctx.store.clone(),
        ctx.credentials.clone(),
        sink,
        config,
        holder.clone(),
    )?;
    let (stop_tx, stop_rx) = tokio::sync::watch::channel(false);
    let stopper = tokio::spawn(async move {
        let deadline = async {
            match args.max_seconds {
                Some(s) if s.is_finite() && s >= 0.0 => {
                    tokio::time::sleep(Duration::from_secs_f64(s)).await
                }
                _ => std::future::pending().await,
            }
        };
        let term = async {
            #[cfg(unix)]
            {
                use tokio::signal::unix::{signal, SignalKind};
                match signal(SignalKind::terminate()) {
                    Ok(mut s) => {
                        s.recv().await;
                    }
                    Err(_) => std::future::pending().await,
                }
            }
            #[cfg(not(unix))]
            std::future::pending::<()>().await
        };
        tokio::select! {
            _ = deadline => {}
            _ = tokio::signal::ctrl_c() => {}
            _ = term => {}
        }
        let _ = stop_tx.send(true);
    });
    let mode = if args.until_idle {
        RunMode::UntilIdle
    } else {
        RunMode::Forever
    };
    let finish = if args.wait {
        executor.run_waiting(mode, stop_rx).await?
    } else {
        executor.run(mode, stop_rx).await?
    };
    stopper.abort();
    network.stop();
    let (text, state) = match &finish {
        Finish::Idle => ("nothing left to download".to_owned(), "idle"),
        Finish::Shutdown => ("stopped".to_owned(), "stopped"),
        Finish::LeaseHeld { holder, .. } => (
            format!("{holder} is downloading already; nothing to do here"),
            "held",
        ),
        Finish::LeaseLost => ("another process took over the downloads".to_owned(), "lost"),
    };
    if ctx.json {
        let other = match &finish {
            Finish::LeaseHeld { holder, .. } => Some(holder.clone()),
            _ => None,
        };
        print_json(json!({ "result": state, "holder": holder, "other_holder": other }));
    } else {
        eprintln!("{text}");
    }
    Ok(())
}

fn status(ctx: &Context) -> CliResult {
    let lease = executor_lease::current(&ctx.store)?;
    let now = ctx.store.now_ms();
    let held = lease.is_held_at(now);
    let stack = download_stack::pending_in_pop_order(&ctx.store, 10_000)?;
    let books = book_downloads::books_with_downloads(&ctx.store)?;
    let statuses = books
        .iter()
        .map(|b| book_downloads::status(&ctx.store, b).map(|s| (b, s)))
        .collect::<Result<Vec<_>, _>>()?;
    let paused = executor::is_paused(&ctx.store)?;
    let batches = download_batches::list(&ctx.store)?;
    if ctx.json {
        print_json(json!({
            "batches": batches,
            "lease": { "holder": if held { lease.holder.clone() } else { None }, "epoch": lease.epoch, "expires_at_ms": lease.expires_at_ms },
            "paused": paused,
            "stack": stack,
            "books": statuses.iter().map(|(b, s)| json!({
                "book_id": b.id, "title": b.title, "status": s,
            })).collect::<Vec<_>>(),
        }));
        return Ok(());
    }
    match (&lease.holder, held) {
        (Some(h), true) => println!("executor: {h} (epoch {})", lease.epoch),
        _ => println!("executor: none (epoch {})", lease.epoch),
    }
    if paused {
        println!("downloads are paused");
    }
    println!(
        "stack ({} pending, in the order they will run):",
        stack.len()
    );
    for t in stack.iter().take(50) {
        let prio = if t.prioritary { " prioritary" } else { "" };
        let what = match t.kind {
            download_stack::TaskKind::Page => format!("page {}", t.position + 1),
            k => k.as_str().to_owned(),
        };
        println!("  #{} book {} {what}{prio}", t.id, t.book_id);
    }
    if stack.len() > 50 {
        println!("  … and {} more", stack.len() - 50);
    }
    if !batches.is_empty() {
        println!("batches:");
        for b in &batches {
            let state = if b.paused { ", paused" } else { "" };
            println!(
                "  batch {}: \"{}\" — {}/{} books on this device{state}",
                b.id, b.title, b.stored, b.books
            );
        }
    }
    println!("books:");
    for (b, s) in statuses {
        let state = state_name(&s.state);
        println!(
            "  [{}] {} — {state} {}/{}",
            b.id, b.title, s.progress.stored_parts, s.progress.total_parts
        );
    }
    Ok(())
}

/// A book's state as the JSON output names it (`stored`, `queued`, …).
fn state_name(state: &book_downloads::BookState) -> String {
    serde_json::to_value(state)
        .ok()
        .and_then(|v| v["state"].as_str().map(str::to_owned))
        .unwrap_or_default()
}

fn notes(ctx: &Context, cmd: NotesCommand) -> CliResult {
    use carrel_core::reading::annotation_export::{self, ExportFormat};
    use carrel_core::reading::annotations::{self, AnnotationKind, Locator};
    match cmd {
        NotesCommand::List { book_id } => {
            let book = books::get(&ctx.store, book_id)?;
            let list = annotations::list_for_book(&ctx.store, book_id)?;
            if ctx.json {
                print_json(json!({ "book_id": book_id, "annotations": list }));
                return Ok(());
            }
            if list.is_empty() {
                println!("\"{}\" has no bookmarks or highlights", book.title);
            }
            for a in &list {
                let kind = match (a.kind, a.colour) {
                    (AnnotationKind::Highlight, Some(c)) => format!("highlight ({})", c.as_str()),
                    (kind, _) => kind.as_str().to_owned(),
                };
                let place = match &a.locator {
                    Locator::Pdf { page, .. } => format!("  p. {}", u64::from(*page) + 1),
                    Locator::Epub { .. } => String::new(),
                };
                let chapter = a
                    .chapter
                    .as_deref()
                    .map(|c| format!("  {c}"))
                    .unwrap_or_default();
                let date = &carrel_core::foundation::timestamps::format_rfc3339(a.created_ms)[..10];
                println!("{}\t{kind}\t{date}{place}{chapter}", a.id);
                for line in a.quote.iter().flat_map(|q| q.lines()) {
                    println!("\t> {line}");
                }
                for line in a.note.iter().flat_map(|n| n.lines()) {
                    println!("\t{line}");
                }
            }
            Ok(())
        }
        NotesCommand::Export {
            book_id,
            format,
            output,
        } => {
            let format: ExportFormat = format.parse().map_err(|e: String| CliError::new(2, e))?;
            let text = annotation_export::export_book(&ctx.store, book_id, format)?;
            match output {
                Some(file) => {
                    std::fs::write(&file, &text).map_err(|e| {
                        CliError::new(5, format!("cannot write {}: {e}", file.display()))
                    })?;
                    ctx.say(
                        json!({ "book_id": book_id, "path": file }),
                        format!("saved to {}", file.display()),
                    );
                }
                None => print!("{text}"),
            }
            Ok(())
        }
    }
}

fn path(ctx: &Context, book_id: i64, page: Option<i64>) -> CliResult {
    let book = books::get(&ctx.store, book_id)?;
    let files = PartFiles::new(ctx.store.data_dir().books());
    let found = match page {
        Some(p) if p < 1 => return Err(CliError::new(2, "pages are counted from 1")),
        Some(p) => files.find_page(book.id, p - 1),
        None => files.find_book_file(book.id),
    };
    let done = match page {
        Some(p) => download_stack::done_pages(&ctx.store, book.id)?.contains(&(p - 1)),
        None => found.is_some(),
    };
    match found.filter(|_| done) {
        Some(path) => {
            ctx.say(
                json!({ "book_id": book_id, "path": path }),
                path.display().to_string(),
            );
            Ok(())
        }
        None => {
            let what = page.map(|p| format!("page {p} of ")).unwrap_or_default();
            Err(CliError::new(
                3,
                format!("{what}\"{}\" is not stored on this device", book.title),
            ))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use carrel_core::{catalog::client::CatalogError, http::http_fetch::FetchError};

    #[test]
    fn a_refused_certificate_exits_with_the_server_code_and_says_what_to_do() {
        let e = CliError::from(CatalogError::Fetch(FetchError::Certificate(
            "https://nas.lan/opds: the server's certificate is not trusted (self-signed?)".into(),
        )));
        assert_eq!(e.code, 4);
        assert!(
            e.message.contains("not trusted") && e.message.contains("--trust-self-signed"),
            "{}",
            e.message
        );
        assert_eq!(code_for(ErrorKind::Certificate), 4);
        let away = CliError::from(CatalogError::Fetch(FetchError::Transient(
            "cannot reach the server".into(),
        )));
        assert_eq!(away.code, 4);
        assert!(!away.message.contains("--trust-self-signed"));
    }

    #[test]
    fn the_exit_code_is_the_kinds_whatever_the_error() {
        // A feed address that is not one, and a catalog without search: the reader's input.
        assert_eq!(
            CliError::from(CatalogError::BadFeedUrl("nope".into())).code,
            2
        );
        assert_eq!(CliError::from(CatalogError::NoSearch).code, 2);
        // A server that says a feed is gone: the server's answer.
        assert_eq!(
            CliError::from(CatalogError::Fetch(FetchError::Gone("410 Gone".into()))).code,
            4
        );
        assert_eq!(
            CliError::from(carrel_core::library::servers::ServerError::NotFound(
                "x".into()
            ))
            .code,
            3
        );
        assert_eq!(
            CliError::from(carrel_core::foundation::store::StoreError::DiskFull).code,
            5
        );
    }
}
