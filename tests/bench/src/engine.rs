//! The engine against a real loopback server: download throughput of the executor against a
//! bare HTTP client fetching the same URLs, and the cost of a restart that finds everything
//! already stored against a start on an empty stack.
//!
//! Both sides' files stay on the disk until the benchmark ends: see `scratch.rs`.

use std::collections::BTreeMap;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::{Duration, Instant};

use anyhow::{bail, Context, Result};
use serde_json::json;

use carrel_core::{
    catalog::client::{CatalogClient, CatalogItem},
    engine::book_downloads,
    engine::download_stack::{self, TaskState},
    engine::executor::{Executor, ExecutorConfig, Finish, RunMode},
    engine::progress::NoProgress,
    foundation::clock,
    foundation::data_dir::DataDir,
    foundation::part_files,
    foundation::store::Store,
    http::http_fetch::{HttpClient, HttpConfig},
    library::books,
    library::credentials::Credentials,
    library::servers::{self, NewServer, Server},
};
use fixture_server::{Config, RunningServer};

use crate::report::{millis, Report, Row, Summary};

/// Repetitions of the download comparison, each with fresh data dirs: the runs are short
/// (~0.1 s) and both sides move by a third from one run to the next on a busy machine, so the
/// medians are of seven.
const REPS: usize = 7;
/// Data dirs of the download runs that the resume measurement reuses.
const RESUME_DIRS: usize = 3;
/// Resume runs (and empty-stack runs) per data dir.
const RESUMES_PER_DIR: usize = 3;
pub const COMICS: u32 = 8;
pub const COMIC_PAGES: u32 = 30;
pub const PAGE_BYTES: usize = 64 * 1024;

/// The library: ids 1..=10, ids 3 and 6 EPUBs, the other eight comics of 30 pages of 64 KiB.
pub fn library_config() -> Config {
    let comics: BTreeMap<u32, u32> = [1, 2, 4, 5, 7, 8, 9, 10]
        .into_iter()
        .map(|id| (id, COMIC_PAGES))
        .collect();
    debug_assert_eq!(comics.len() as u32, COMICS);
    Config {
        books: 10,
        page_bytes: PAGE_BYTES,
        comic_pages: comics,
        reading_positions: Some(BTreeMap::new()),
        ..Config::default()
    }
}

/// Starts the library server and builds every book once, so no run pays for generating them.
pub fn start_library() -> Result<RunningServer> {
    let server =
        fixture_server::Server::start(library_config()).context("starting the fixture server")?;
    for b in server.books() {
        server.book_bytes(b.id).context("building a book")?;
    }
    Ok(server)
}

/// A data dir with a store, its credentials and a server row for the fixture.
pub struct Env {
    pub _tmp: tempfile::TempDir,
    pub store: Store,
    pub credentials: Arc<Credentials>,
    pub server: Server,
}

impl Env {
    pub fn new(catalog_url: &str) -> Result<Env> {
        let tmp = tempfile::tempdir()?;
        Env::in_dir(tmp, catalog_url)
    }

    pub fn in_dir(tmp: tempfile::TempDir, catalog_url: &str) -> Result<Env> {
        let dir = DataDir::new(tmp.path().join("data"));
        let store = Store::open(&dir, clock::system())?;
        let credentials = Arc::new(Credentials::file_only(&dir, "carrel-bench"));
        let server = servers::add(
            &store,
            &NewServer {
                name: "Fixture".into(),
                url: catalog_url.into(),
                ..Default::default()
            },
        )?;
        Ok(Env {
            _tmp: tmp,
            store,
            credentials,
            server,
        })
    }

    /// Remembers a book kept as one comic archive of `length` bytes at `file_url`, as a
    /// catalog entry without page streaming would make it.
    pub fn remember_file_book(
        &self,
        catalog_id: &str,
        title: &str,
        file_url: &str,
        length: u64,
    ) -> Result<books::Book> {
        Ok(books::remember(
            &self.store,
            self.server.id,
            &books::CatalogBook {
                file_url: Some(file_url.into()),
                file_type: Some("application/vnd.comicbook+zip".into()),
                file_length: Some(length),
                ..books::CatalogBook::bare(catalog_id, title, books::BookFormat::Comic)
            },
        )?)
    }

    /// Registers every book of `/opds/books` (all its pages) as the catalog screen would.
    pub async fn register_library(&self) -> Result<Vec<i64>> {
        let http = HttpClient::new(HttpConfig::default())?;
        let client = CatalogClient {
            store: &self.store,
            credentials: &self.credentials,
            http: &http,
        };
        let mut ids = Vec::new();
        let mut feed = Some("/opds/books".to_owned());
        while let Some(url) = feed {
            let page = client.browse(&self.server, Some(&url)).await?;
            ids.extend(page.entries.iter().filter_map(|e| match e {
                CatalogItem::Book { book_id, .. } => Some(*book_id),
                _ => None,
            }));
            feed = page.next;
        }
        Ok(ids)
    }

    pub fn store_all(&self, ids: &[i64]) -> Result<()> {
        for id in ids {
            book_downloads::store_book(&self.store, *id)?;
        }
        Ok(())
    }

    /// An executor with the app's settings on this env's store.
    pub fn executor(&self) -> Result<Executor> {
        Ok(Executor::new(
            self.store.clone(),
            self.credentials.clone(),
            Arc::new(NoProgress),
            ExecutorConfig::default(),
            carrel_core::foundation::process_holders::new_holder_id("carrel-bench"),
        )?)
    }

    /// Runs an executor with the app's settings until the stack is empty.
    pub async fn sync(&self) -> Result<()> {
        let executor = self.executor()?;
        let (_stop, stop_rx) = tokio::sync::watch::channel(false);
        match executor.run(RunMode::UntilIdle, stop_rx).await? {
            Finish::Idle => Ok(()),
            other => bail!("the executor stopped early: {other:?}"),
        }
    }

    /// Every book registered is stored in full.
    pub fn check_all_stored(&self, ids: &[i64]) -> Result<()> {
        for id in ids {
            let book = books::get(&self.store, *id)?;
            let progress = book_downloads::progress(&self.store, &book)?;
            if !progress.is_complete() {
                bail!(
                    "{} is not stored: {}/{} parts",
                    book.title,
                    progress.stored_parts,
                    progress.total_parts
                );
            }
        }
        Ok(())
    }

    /// The URLs the executor fetched (pages, files, covers), in the order it finished them.
    pub(crate) fn fetched_urls(&self) -> Result<Vec<String>> {
        Ok(self.fetched().into_iter().map(|(_, url)| url).collect())
    }

    /// [`Env::fetched_urls`], each with its book's id.
    fn fetched(&self) -> Vec<(i64, String)> {
        let mut done =
            download_stack::in_state(&self.store, TaskState::Done, u32::MAX).unwrap_or_default();
        done.retain(|t| !t.url.is_empty());
        done.sort_by_key(|t| t.id);
        done.into_iter().map(|t| (t.book_id, t.url)).collect()
    }
}

/// Body bytes the server sent, all clients together, since its last stats reset.
fn bytes_sent(fixture: &RunningServer) -> u64 {
    fixture.stats().total_bytes()
}

/// Makes the folder a baseline writes to and lets the disk settle: the time its measurement
/// starts from.
fn bare_start(out: &Path) -> Result<Instant> {
    std::fs::create_dir_all(out)?;
    crate::scratch::settle_disk();
    Ok(Instant::now())
}

/// The baseline: one plain client, the same URLs one after the other, each body streamed to
/// its own file. No database, no fsync, no request slot.
pub(crate) async fn bare_download(
    client: &reqwest::Client,
    urls: &[String],
    out: &Path,
) -> Result<(Duration, u64)> {
    let started = bare_start(out)?;
    let mut total = 0u64;
    for (i, url) in urls.iter().enumerate() {
        total += fetch_to_file(client, url, &out.join(format!("{i:05}"))).await?;
    }
    Ok((started.elapsed(), total))
}

/// One GET, its body streamed to a new file at `path`; the bytes written.
async fn fetch_to_file(client: &reqwest::Client, url: &str, path: &Path) -> Result<u64> {
    let mut response = client.get(url).send().await?.error_for_status()?;
    let mut file = std::fs::File::create(path)?;
    let mut written = 0u64;
    while let Some(chunk) = response.chunk().await? {
        file.write_all(&chunk)?;
        written += chunk.len() as u64;
    }
    Ok(written)
}

/// The baseline with the executor's durability: the bare loop, each book's files synced to the
/// disk as the executor syncs a book's pages ([`part_files::sync_written`], on a blocking
/// thread while the next book downloads, one book syncing at a time) and all of them synced
/// before it ends. Still no database and no request slot: what is left of the ratio against
/// it is the engine's bookkeeping, not the disk.
async fn bare_download_synced(
    client: &reqwest::Client,
    urls: &[(i64, String)],
    out: &Path,
) -> Result<(Duration, u64)> {
    let started = bare_start(out)?;
    let mut total = 0u64;
    let mut book: Vec<PathBuf> = Vec::new();
    let mut syncing: Option<tokio::task::JoinHandle<std::io::Result<()>>> = None;
    let sync =
        |files: Vec<PathBuf>| tokio::task::spawn_blocking(move || part_files::sync_written(&files));
    for (i, (book_id, url)) in urls.iter().enumerate() {
        let path = out.join(format!("{i:05}"));
        total += fetch_to_file(client, url, &path).await?;
        book.push(path);
        let book_ends = urls.get(i + 1).is_none_or(|(next, _)| next != book_id);
        if book_ends {
            if let Some(before) = syncing.take() {
                before.await??;
            }
            syncing = Some(sync(std::mem::take(&mut book)));
        }
    }
    if let Some(last) = syncing.take() {
        last.await??;
    }
    Ok((started.elapsed(), total))
}

/// One executor sync of the whole library on a fresh data dir.
struct EngineRun {
    env: Env,
    ids: Vec<i64>,
    took: Duration,
    bytes: u64,
    max_in_flight: u64,
    requests: u64,
}

async fn engine_download(fixture: &RunningServer) -> Result<EngineRun> {
    let env = Env::new(&fixture.url("/opds"))?;
    let ids = env.register_library().await?;
    fixture.reset_stats();
    crate::scratch::settle_disk();
    let started = Instant::now();
    env.store_all(&ids)?;
    env.sync().await?;
    let took = started.elapsed();
    let stats = fixture.stats();
    env.check_all_stored(&ids)?;
    Ok(EngineRun {
        bytes: stats.total_bytes(),
        max_in_flight: stats.global_max_in_flight,
        requests: stats.total_requests,
        env,
        ids,
        took,
    })
}

pub async fn run(report: &mut Report, fixture: &RunningServer) -> Result<()> {
    let client = reqwest::Client::builder()
        .user_agent("carrel-bench-baseline")
        .build()
        .context("starting the baseline client")?;

    // Download throughput, executor and bare client taking turns.
    let mut engine_runs: Vec<EngineRun> = Vec::new();
    let mut bare_times = Vec::new();
    let mut synced_times = Vec::new();
    let mut bare_bytes = 0u64;
    let mut urls: Vec<String> = Vec::new();
    let mut by_book: Vec<(i64, String)> = Vec::new();
    for rep in 0..REPS {
        eprintln!("download: executor, repetition {} of {REPS} ...", rep + 1);
        let run = engine_download(fixture).await?;
        if urls.is_empty() {
            let base = fixture.base_url();
            by_book = run.env.fetched();
            for (_, u) in &mut by_book {
                if u.starts_with('/') {
                    *u = format!("{base}{u}");
                }
            }
            urls = by_book.iter().map(|(_, u)| u.clone()).collect();
        }
        engine_runs.push(run);

        eprintln!(
            "download: bare client, repetition {} of {REPS} ...",
            rep + 1
        );
        let out = tempfile::tempdir()?;
        fixture.reset_stats();
        let (took, bytes) = bare_download(&client, &urls, out.path()).await?;
        // Removed when the benchmark ends (see `scratch.rs`).
        crate::scratch::keep(out);
        let sent = bytes_sent(fixture);
        if sent != bytes {
            bail!("the bare client received {bytes} bytes, the server sent {sent}");
        }
        bare_times.push(took);
        bare_bytes = bytes;

        eprintln!(
            "download: bare client syncing each book, repetition {} of {REPS} ...",
            rep + 1
        );
        let out = tempfile::tempdir()?;
        let (took, bytes) = bare_download_synced(&client, &by_book, out.path()).await?;
        crate::scratch::keep(out);
        if bytes != bare_bytes {
            bail!("the syncing bare client received {bytes} bytes, the plain one {bare_bytes}");
        }
        synced_times.push(took);
    }

    let engine_times: Vec<Duration> = engine_runs.iter().map(|r| r.took).collect();
    let engine_bytes = engine_runs[0].bytes;
    let e = Summary::of(&millis(&engine_times));
    let b = Summary::of(&millis(&bare_times));
    let mb = |bytes: u64, ms: f64| bytes as f64 / 1e6 / (ms / 1e3);
    let library_mib = engine_bytes as f64 / (1 << 20) as f64;
    report.row(
        Row::new(
            "download",
            format!("sync {COMICS} comics + 2 EPUBs ({library_mib:.1} MiB), executor"),
            "ms",
            e,
            "bare reqwest loop",
            b,
        )
        // Per-task overhead ≤ 0.5 ms: ≥ 0.8× a bare loop.
        .goal(1.25),
    );
    // The goal the ratio above stands for, measured directly: what the executor adds to each
    // task over the plain loop (run by run, the executor's time less the bare loop's that
    // followed it, over the tasks fetched). The fsync of every stored file is counted in it.
    let tasks = urls.len().max(1) as f64;
    let per_task_us = |t: &Duration| t.as_secs_f64() * 1e6 / tasks;
    let added: Vec<f64> = engine_times
        .iter()
        .zip(&bare_times)
        .map(|(e, b)| per_task_us(e) - per_task_us(b))
        .collect();
    report.row(
        Row::new(
            "download",
            "executor time added per task (fsync, SQLite, request slot)",
            "µs",
            Summary::of(&added),
            "bare loop, per task",
            Summary::of(&bare_times.iter().map(per_task_us).collect::<Vec<_>>()),
        )
        .goal_at_most(500.0),
    );
    // The same runs against a bare loop that syncs as the executor does: the part of the ratio
    // above that is the disk's (no goal: the goal above stands).
    report.row(Row::new(
        "download",
        "same, executor vs a bare loop syncing each book",
        "ms",
        e,
        "bare loop, each book synced",
        Summary::of(&millis(&synced_times)),
    ));
    // Throughput: the same runs in MB/s (higher is better; its ratio is the inverse of the
    // time ratio).
    let tput = |times: &[Duration], bytes: u64| -> Vec<f64> {
        times
            .iter()
            .map(|t| mb(bytes, t.as_secs_f64() * 1e3))
            .collect()
    };
    let et = Summary::of(&tput(&engine_times, engine_bytes));
    let bt = Summary::of(&tput(&bare_times, bare_bytes));
    // For a rate, the slow tail is the low end: report the 5th percentile as the "p95".
    let low = |s: Summary, v: Vec<f64>| -> Summary {
        let neg: Vec<f64> = v.iter().map(|x| -x).collect();
        Summary {
            p95: -Summary::of(&neg).p95,
            ..s
        }
    };
    report.row(Row::new(
        "download",
        "throughput, executor (p95 = slow end)",
        "MB/s",
        low(et, tput(&engine_times, engine_bytes)),
        "bare reqwest loop",
        low(bt, tput(&bare_times, bare_bytes)),
    ));
    let max_in_flight = engine_runs
        .iter()
        .map(|r| r.max_in_flight)
        .max()
        .unwrap_or(0);
    report.fact(
        "download",
        "executor_mb_per_s",
        json!(mb(engine_bytes, e.median)),
        format!(
            "executor {:.1} MB/s, bare client {:.1} MB/s (medians of {REPS}); executor time / bare time = {:.2}× (the engine's overhead: fsync, SQLite, request slot)",
            mb(engine_bytes, e.median),
            mb(bare_bytes, b.median),
            e.median / b.median
        ),
    );
    report.fact(
        "download",
        "global_max_in_flight",
        json!(max_in_flight),
        format!("{max_in_flight} (fixture stats().global_max_in_flight during executor runs; must be 1)"),
    );
    report.fact(
        "download",
        "requests_and_bytes",
        json!({ "executor_requests": engine_runs[0].requests, "executor_bytes": engine_bytes, "bare_requests": urls.len(), "bare_bytes": bare_bytes }),
        format!(
            "executor: {} requests, {} bytes; bare client: {} requests (one per URL the executor fetched), {} bytes",
            engine_runs[0].requests,
            engine_bytes,
            urls.len(),
            bare_bytes
        ),
    );

    // Resume: everything stored, page tasks marked pending again (as after a crash between
    // the rename and the bookkeeping). Baseline: the same data dir with an empty stack.
    let mut resume_times = Vec::new();
    let mut empty_times = Vec::new();
    let mut resume_requests = 0u64;
    let mut requeued = 0usize;
    for (i, run) in engine_runs.iter().take(RESUME_DIRS).enumerate() {
        eprintln!("resume: data dir {} of {RESUME_DIRS} ...", i + 1);
        for _ in 0..RESUMES_PER_DIR {
            let store = &run.env.store;
            requeued = store.write(|tx| {
                tx.execute("UPDATE tasks SET state = 'pending' WHERE kind = 'page'", [])
                    .map_err(|e| store.sql_error(e))
            })?;
            fixture.reset_stats();
            let started = Instant::now();
            run.env.sync().await?;
            resume_times.push(started.elapsed());
            resume_requests += fixture.stats().total_requests;
            run.env.check_all_stored(&run.ids)?;

            if download_stack::has_pending(store)? {
                bail!("the stack is not empty after a sync");
            }
            let started = Instant::now();
            run.env.sync().await?;
            empty_times.push(started.elapsed());
            resume_requests += fixture.stats().total_requests;
        }
    }
    let r = Summary::of(&millis(&resume_times));
    let z = Summary::of(&millis(&empty_times));
    report.row(Row::new(
        "resume",
        format!("start with {requeued} stored pages re-queued"),
        "ms",
        r,
        "start on an empty stack",
        z,
    ));
    report.fact(
        "resume",
        "requests",
        json!(resume_requests),
        format!("{resume_requests} requests during all resume and empty-stack runs (expected 0: nothing is downloaded again)"),
    );
    report.fact(
        "resume",
        "per_task_us",
        json!((r.median - z.median) * 1e3 / requeued.max(1) as f64),
        format!(
            "{:.0} µs per re-queued task ((resume − empty) / {requeued}, medians of {})",
            (r.median - z.median) * 1e3 / requeued.max(1) as f64,
            r.n
        ),
    );
    for run in engine_runs {
        // Removed when the benchmark ends (see `scratch.rs`).
        crate::scratch::keep(run.env);
    }
    Ok(())
}

/// Runs this program again as `probe` with `args` (a measurement that needs a process of its
/// own), its messages passed through, and gives the last line it printed.
pub fn run_probe(probe: &str, args: &[&str]) -> Result<String> {
    let exe = std::env::current_exe().context("finding this program")?;
    let output = std::process::Command::new(exe)
        .arg(probe)
        .args(args)
        .stderr(std::process::Stdio::inherit())
        .output()
        .with_context(|| format!("running the {probe}"))?;
    if !output.status.success() {
        bail!("the {probe} failed ({})", output.status);
    }
    String::from_utf8_lossy(&output.stdout)
        .lines()
        .last()
        .map(str::to_owned)
        .with_context(|| format!("the {probe} printed nothing"))
}
