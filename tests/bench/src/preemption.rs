//! Opening a book while another downloads: the time to a page of a book just opened while a
//! large file streams in the background, ÷ the same page fetched by an idle executor; asked in
//! the executor's process, and from a second process (another Carrel's window, whose push
//! reaches the executor through the database only).
//!
//! The server is slowed to a steady rate so the file is still streaming for every sample; the
//! pages pay the same rate in both measurements. After each sample the opened book is removed
//! (its tasks and files), so every sample fetches its page from the server.

use std::collections::BTreeMap;
use std::path::Path;
use std::time::{Duration, Instant};

use anyhow::{bail, Context, Result};
use serde_json::json;

use carrel_core::engine::download_stack::{self, TaskKind, TaskSpec, TaskState};
use carrel_core::engine::{book_downloads, executor::Finish, executor::RunMode};
use carrel_core::foundation::{clock, data_dir::DataDir, part_files::PartFiles, store::Store};
use carrel_core::library::books;
use carrel_core::reading::page_source::{self, WaitPolicy};
use fixture_server::{Config, Faults, RunningServer};

use crate::engine::{run_probe, Env};
use crate::report::{millis, Report, Row, Summary};

const SAMPLES: usize = 15;
const PAGE_BYTES: usize = 256 * 1024;
/// The background file: a comic of this many pages, fetched as its CBZ (256 MiB).
const FILE_PAGES: u32 = 1024;
/// The opened book.
const READER_PAGES: u32 = 60;
/// The server's pace, in bytes a second: the file lasts about 10 s.
const BANDWIDTH: u64 = 25_000_000;

fn wait() -> WaitPolicy {
    WaitPolicy {
        poll: Duration::from_millis(20),
        timeout: Duration::from_secs(30),
    }
}

/// The child: `page-probe DATA_DIR BOOK_ID PAGE` — a window of another process reading a page
/// it has not got; prints the milliseconds it waited.
pub fn probe(args: &[String]) -> Result<()> {
    let [dir, book, page] = args else {
        bail!("usage: carrel-bench page-probe DATA_DIR BOOK_ID PAGE");
    };
    let store = Store::open(&DataDir::new(dir), clock::system())?;
    let (book, page): (i64, i64) = (book.parse()?, page.parse()?);
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()?;
    let took = runtime.block_on(async {
        let started = Instant::now();
        page_source::page(&store, book, page, wait()).await?;
        Ok::<_, anyhow::Error>(started.elapsed())
    })?;
    println!("{}", took.as_secs_f64() * 1e3);
    Ok(())
}

/// Nothing pending or running any more (the executor is idle).
async fn settle_idle(store: &Store) -> Result<()> {
    let deadline = Instant::now() + Duration::from_secs(30);
    loop {
        let active = download_stack::in_state(store, TaskState::Active, 1)?;
        if !download_stack::has_pending(store)? && active.is_empty() {
            return Ok(());
        }
        if Instant::now() > deadline {
            bail!("the executor did not become idle");
        }
        tokio::time::sleep(Duration::from_millis(5)).await;
    }
}

async fn sample_here(store: &Store, book: i64, page: i64) -> Result<Duration> {
    let started = Instant::now();
    if let Err(e) = page_source::page(store, book, page, wait()).await {
        // Said with what the stack holds for the page, so a run that fails says why.
        let tasks: Vec<String> = download_stack::tasks_of_book(store, book)?
            .into_iter()
            .filter(|t| t.position == page || t.kind == TaskKind::File)
            .map(|t| {
                format!(
                    "{:?} {} {:?} bytes={:?}",
                    t.kind, t.position, t.state, t.bytes
                )
            })
            .collect();
        let stored = PartFiles::new(store.data_dir().books()).find_page(book, page);
        bail!("page {page} of book {book}: {e}; its tasks: {tasks:?}; its file: {stored:?}");
    }
    let took = started.elapsed();
    book_downloads::remove_book(store, book)?;
    Ok(took)
}

fn sample_from_child(dir: &Path, book: i64, page: i64) -> Result<Duration> {
    let ms: f64 = run_probe(
        "page-probe",
        &[&dir.to_string_lossy(), &book.to_string(), &page.to_string()],
    )?
    .trim()
    .parse()
    .context("reading the page probe's time")?;
    Ok(Duration::from_secs_f64(ms / 1e3))
}

struct Samples {
    idle: Vec<Duration>,
    busy: Vec<Duration>,
    busy_elsewhere: Vec<Duration>,
}

async fn measure(fixture: &RunningServer) -> Result<Samples> {
    let env = Env::new(&fixture.url("/opds"))?;
    let ids = env.register_library().await?;
    let reader = ids
        .iter()
        .copied()
        .find(|id| {
            books::get(&env.store, *id).is_ok_and(|b| b.page_count == Some(READER_PAGES as i64))
        })
        .context("the opened book")?;
    let length = fixture.book(1).context("the large book")?.length;
    let file_book = env.remember_file_book(
        "urn:carrel-bench:background-file",
        "A large file downloading",
        &fixture.url("/books/1/file"),
        length,
    )?;

    let executor = env.executor()?;
    let (stop, stop_rx) = tokio::sync::watch::channel(false);
    let run = tokio::spawn(async move { executor.run(RunMode::Forever, stop_rx).await });
    settle_idle(&env.store).await?;

    let pages: Vec<i64> = (0..SAMPLES as i64).map(|i| 3 + i * 3).collect();
    let mut idle = Vec::new();
    for &p in &pages {
        idle.push(sample_here(&env.store, reader, p).await?);
        settle_idle(&env.store).await?;
    }

    // The background file: queued as a batch or a series would queue it (not prioritary).
    download_stack::push(
        &env.store,
        &TaskSpec {
            book_id: file_book.id,
            server_id: env.server.id,
            kind: TaskKind::Book,
            position: 0,
            url: String::new(),
            prioritary: false,
        },
    )?;
    let streaming = || -> Result<bool> {
        Ok(download_stack::in_state(&env.store, TaskState::Active, 10)?
            .iter()
            .any(|t| t.kind == TaskKind::File))
    };
    let deadline = Instant::now() + Duration::from_secs(10);
    while !streaming()? {
        if Instant::now() > deadline {
            let tasks = download_stack::tasks_of_book(&env.store, file_book.id)?;
            bail!("the background file did not start: {tasks:?}");
        }
        tokio::time::sleep(Duration::from_millis(5)).await;
    }
    tokio::time::sleep(Duration::from_millis(200)).await;

    let dir = env._tmp.path().join("data");
    let mut busy = Vec::new();
    let mut busy_elsewhere = Vec::new();
    for &p in &pages {
        busy.push(sample_here(&env.store, reader, p).await?);
        // The file takes its turn again before the next sample.
        tokio::time::sleep(Duration::from_millis(60)).await;
        let child = {
            let dir = dir.clone();
            tokio::task::spawn_blocking(move || sample_from_child(&dir, reader, p)).await??
        };
        busy_elsewhere.push(child);
        book_downloads::remove_book(&env.store, reader)?;
        tokio::time::sleep(Duration::from_millis(60)).await;
    }
    let file_done =
        book_downloads::progress(&env.store, &books::get(&env.store, file_book.id)?)?.is_complete();
    stop.send(true).ok();
    match run.await? {
        Ok(Finish::Shutdown) => {}
        other => bail!("the executor stopped: {other:?}"),
    }
    if file_done {
        bail!("the background file completed before the last sample: the server is too fast for this measurement");
    }
    if fixture.stats().global_max_in_flight != 1 {
        bail!("more than one request was in flight at once");
    }
    Ok(Samples {
        idle,
        busy,
        busy_elsewhere,
    })
}

pub fn run(report: &mut Report, runtime: &tokio::runtime::Runtime) -> Result<()> {
    eprintln!("preemption: building a {FILE_PAGES}-page comic to download in the background ...");
    let fixture = fixture_server::Server::start(Config {
        books: 2,
        page_bytes: PAGE_BYTES,
        comic_pages: BTreeMap::from([(1, FILE_PAGES), (2, READER_PAGES)]),
        reading_positions: Some(BTreeMap::new()),
        faults: Faults {
            bandwidth: Some(BANDWIDTH),
            ..Faults::default()
        },
        ..Config::default()
    })
    .context("starting the fixture server")?;
    fixture.book_bytes(1).context("building the large book")?;
    eprintln!("preemption: {SAMPLES} pages idle, then {SAMPLES} while the file downloads (here and from a second process) ...");
    let s = runtime.block_on(measure(&fixture))?;

    let idle = Summary::of(&millis(&s.idle));
    let busy = Summary::of(&millis(&s.busy));
    let elsewhere = Summary::of(&millis(&s.busy_elsewhere));
    report.row(
        Row::new(
            "preemption",
            "a page of a book just opened while a 256 MiB file downloads, median",
            "ms",
            busy,
            "the same page, executor idle",
            idle,
        )
        .goal(1.3),
    );
    report.row(
        Row::new(
            "preemption",
            "the same, p95",
            "ms",
            Summary::single(busy.p95),
            "idle p95",
            Summary::single(idle.p95),
        )
        .goal(2.0),
    );
    report.row(Row::new(
        "preemption",
        "the same, asked from a second process",
        "ms",
        elsewhere,
        "asked in the executor's process",
        busy,
    ));
    let more = elsewhere.median - busy.median;
    report.row(
        Row::new(
            "preemption",
            "time a second process adds (medians)",
            "ms",
            Summary::single(more.max(0.0)),
            "asked in the executor's process",
            Summary::single(busy.median),
        )
        .goal_at_most(200.0),
    );
    report.fact(
        "preemption",
        "samples",
        json!({ "idle_ms": millis(&s.idle), "busy_ms": millis(&s.busy), "second_process_ms": millis(&s.busy_elsewhere) }),
        format!(
            "{SAMPLES} pages of 256 KiB at {} MB/s; one request in flight throughout",
            BANDWIDTH / 1_000_000
        ),
    );
    Ok(())
}
