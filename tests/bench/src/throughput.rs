//! Throughput against the tools a reader would compare Carrel with, on the same loopback
//! server in the same run:
//! - 400 pages of 256 KiB: the executor ÷ one `curl` fetching the same URLs on one connection;
//! - 5,000 tasks of 1 KiB: the executor ÷ a bare HTTP client (the per-task bookkeeping alone);
//! - one large file: the executor in a child process (`file-probe`, so its peak RSS is its
//!   own and not the server's) ÷ `curl -o` of the same URL.

use std::collections::BTreeMap;
use std::path::Path;
use std::process::Command;
use std::time::{Duration, Instant};

use anyhow::{bail, Context, Result};
use serde::{Deserialize, Serialize};
use serde_json::json;

use carrel_core::{engine::book_downloads, library::books};
use fixture_server::{Config, RunningServer};

use crate::engine::{bare_download, run_probe, Env};
use crate::memory::read_rss;
use crate::report::{millis, Report, Row, Summary};

const REPS: usize = 3;
const PAGES: u32 = 400;
const PAGE_BYTES: usize = 256 * 1024;
const TINY_TASKS: u32 = 5_000;
const TINY_BYTES: usize = 1024;
/// The large file: a comic of this many 2 MiB pages, downloaded as its CBZ (1 GiB).
const FILE_PAGES: u32 = 512;
const FILE_PAGE_BYTES: usize = 2 << 20;
/// Peak RSS the engine may reach while it downloads the large file.
const GOAL_FILE_RSS_MIB: f64 = 64.0;

fn one_comic(pages: u32, page_bytes: usize) -> Config {
    Config {
        books: 1,
        page_bytes,
        comic_pages: BTreeMap::from([(1, pages)]),
        reading_positions: Some(BTreeMap::new()),
        ..Config::default()
    }
}

fn start(config: Config) -> Result<RunningServer> {
    let server = fixture_server::Server::start(config).context("starting the fixture server")?;
    for b in server.books() {
        server.book_bytes(b.id).context("building a book")?;
    }
    Ok(server)
}

/// One executor sync of the server's whole library on a fresh data dir; returns the time and
/// the absolute URLs it fetched (in the order it finished them).
async fn executor_sync(fixture: &RunningServer) -> Result<(Duration, Vec<String>, Env)> {
    let env = Env::new(&fixture.url("/opds"))?;
    let ids = env.register_library().await?;
    crate::scratch::settle_disk();
    let started = Instant::now();
    env.store_all(&ids)?;
    env.sync().await?;
    let took = started.elapsed();
    env.check_all_stored(&ids)?;
    let max_in_flight = fixture.stats().global_max_in_flight;
    if max_in_flight != 1 {
        bail!("{max_in_flight} requests were in flight at once");
    }
    let base = fixture.base_url();
    let urls = env
        .fetched_urls()?
        .into_iter()
        .map(|u| {
            if u.starts_with('/') {
                format!("{base}{u}")
            } else {
                u
            }
        })
        .collect();
    Ok((took, urls, env))
}

/// `curl` fetching `urls` one after the other on one connection, each to its own file.
fn curl_loop(urls: &[String], out: &Path) -> Result<Duration> {
    let mut config = String::new();
    for (i, u) in urls.iter().enumerate() {
        config.push_str(&format!(
            "url = \"{u}\"\noutput = \"{}\"\n",
            out.join(format!("{i:05}")).display()
        ));
    }
    let file = out.join("curl.conf");
    std::fs::write(&file, config)?;
    crate::scratch::settle_disk();
    let started = Instant::now();
    let status = Command::new("curl")
        .args(["--silent", "--show-error", "--fail", "--config"])
        .arg(&file)
        .status()
        .context("running curl (the baseline)")?;
    let took = started.elapsed();
    if !status.success() {
        bail!("curl failed ({status})");
    }
    Ok(took)
}

/// The measurements of this group, each of which `--only` may name alone.
pub const PARTS: [&str; 3] = ["throughput.pages", "throughput.tasks", "throughput.file"];

pub fn run(report: &mut Report, runtime: &tokio::runtime::Runtime, parts: &[&str]) -> Result<()> {
    if parts.contains(&PARTS[0]) {
        pages(report, runtime)?;
    }
    if parts.contains(&PARTS[1]) {
        tiny_tasks(report, runtime)?;
    }
    if parts.contains(&PARTS[2]) {
        large_file(report)?;
    }
    Ok(())
}

fn pages(report: &mut Report, runtime: &tokio::runtime::Runtime) -> Result<()> {
    let fixture = start(one_comic(PAGES, PAGE_BYTES))?;
    let (mut engine, mut curl) = (Vec::new(), Vec::new());
    for rep in 0..REPS {
        eprintln!(
            "throughput: {PAGES} pages, repetition {} of {REPS} ...",
            rep + 1
        );
        let (took, urls, env) = runtime.block_on(executor_sync(&fixture))?;
        engine.push(took);
        let out = tempfile::tempdir()?;
        curl.push(curl_loop(&urls, out.path())?);
        // Both removed when the benchmark ends (see `scratch.rs`).
        crate::scratch::keep((env, out));
    }
    report.row(
        Row::new(
            "throughput",
            format!("{PAGES} pages of 256 KiB (and the cover), executor"),
            "ms",
            Summary::of(&millis(&engine)),
            "curl, same URLs, one connection",
            Summary::of(&millis(&curl)),
        )
        // Pages at ≥ 0.95× a curl loop.
        .goal(1.0 / 0.95),
    );
    Ok(())
}

fn tiny_tasks(report: &mut Report, runtime: &tokio::runtime::Runtime) -> Result<()> {
    let fixture = start(one_comic(TINY_TASKS, TINY_BYTES))?;
    let client = reqwest::Client::builder()
        .user_agent("carrel-bench-baseline")
        .build()?;
    let (mut engine, mut bare) = (Vec::new(), Vec::new());
    let mut tasks = 0usize;
    for rep in 0..REPS {
        eprintln!(
            "throughput: {TINY_TASKS} tasks of 1 KiB, repetition {} of {REPS} ...",
            rep + 1
        );
        let (took, urls, env) = runtime.block_on(executor_sync(&fixture))?;
        tasks = urls.len();
        engine.push(took);
        let out = tempfile::tempdir()?;
        let (took, _) = runtime.block_on(bare_download(&client, &urls, out.path()))?;
        bare.push(took);
        // Both removed when the benchmark ends (see `scratch.rs`).
        crate::scratch::keep((env, out));
    }
    let e = Summary::of(&millis(&engine));
    let b = Summary::of(&millis(&bare));
    report.row(
        Row::new(
            "throughput",
            format!("{tasks} tasks of 1 KiB, executor"),
            "ms",
            e,
            "bare reqwest loop",
            b,
        )
        // ≥ 0.8× a bare loop.
        .goal(1.25),
    );
    let per_task = |d: &[Duration]| -> Vec<f64> {
        d.iter()
            .map(|t| t.as_secs_f64() * 1e3 / tasks.max(1) as f64)
            .collect()
    };
    report.row(
        Row::new(
            "throughput",
            "per 1 KiB task, executor",
            "ms",
            Summary::of(&per_task(&engine)),
            "bare reqwest loop",
            Summary::of(&per_task(&bare)),
        )
        // ≥ 1,000 tasks a second.
        .goal_at_most(1.0),
    );
    report.fact(
        "throughput",
        "tasks_per_s",
        json!(tasks as f64 / (e.median / 1e3)),
        format!(
            "executor {:.0} tasks/s, bare client {:.0} requests/s; per-task overhead {:.2} ms (medians of {REPS})",
            tasks as f64 / (e.median / 1e3),
            tasks as f64 / (b.median / 1e3),
            (e.median - b.median) / tasks.max(1) as f64
        ),
    );
    Ok(())
}

/// What the child reports on its stdout, as one JSON line.
#[derive(Debug, Serialize, Deserialize)]
struct FileProbe {
    took_ms: f64,
    start_hwm_kib: u64,
    end_hwm_kib: u64,
}

/// The child: `file-probe CATALOG_URL FILE_URL FILE_LENGTH` — one executor storing one file.
pub fn probe(args: &[String]) -> Result<()> {
    let start = read_rss()?;
    let (catalog, url, len) = crate::memory::file_probe_args("file-probe", args)?;
    let runtime = crate::two_thread_runtime()?;
    let took = runtime.block_on(async {
        let env = Env::new(catalog)?;
        let book =
            env.remember_file_book("urn:carrel-bench:large-file", "One large archive", url, len)?;
        crate::scratch::settle_disk();
        let started = Instant::now();
        book_downloads::store_book(&env.store, book.id)?;
        env.sync().await?;
        let took = started.elapsed();
        let stored = book_downloads::progress(&env.store, &books::get(&env.store, book.id)?)?;
        if !stored.is_complete() || stored.bytes != len {
            bail!("the file was not stored whole: {stored:?}");
        }
        Ok::<_, anyhow::Error>(took)
    })?;
    let end = read_rss()?;
    let result = FileProbe {
        took_ms: took.as_secs_f64() * 1e3,
        start_hwm_kib: start.hwm_kib,
        end_hwm_kib: end.hwm_kib,
    };
    println!("{}", serde_json::to_string(&result)?);
    Ok(())
}

fn large_file(report: &mut Report) -> Result<()> {
    eprintln!("throughput: building a {FILE_PAGES} × 2 MiB comic ...");
    let fixture = start(one_comic(FILE_PAGES, FILE_PAGE_BYTES))?;
    let len = fixture.book(1).context("the large book")?.length;
    let url = fixture.url("/books/1/file");
    let (mut engine, mut curl, mut hwm) = (Vec::new(), Vec::new(), Vec::new());
    let mut curl_synced = Vec::new();
    for rep in 0..REPS {
        eprintln!(
            "throughput: one {:.0} MiB file, repetition {} of {REPS} ...",
            len as f64 / (1 << 20) as f64,
            rep + 1
        );
        let line = run_probe(
            "file-probe",
            &[&fixture.url("/opds"), &url, &len.to_string()],
        )?;
        let r: FileProbe =
            serde_json::from_str(&line).context("reading the file probe's result")?;
        engine.push(r.took_ms);
        hwm.push(r.end_hwm_kib as f64 / 1024.0);

        let out = tempfile::tempdir()?;
        let target = out.path().join("book.cbz");
        crate::scratch::settle_disk();
        let started = Instant::now();
        let status = Command::new("curl")
            .args(["--silent", "--show-error", "--fail", "--output"])
            .arg(&target)
            .arg(&url)
            .status()
            .context("running curl (the baseline)")?;
        curl.push(started.elapsed().as_secs_f64() * 1e3);
        if !status.success() || std::fs::metadata(&target)?.len() != len {
            bail!("curl did not fetch the whole file ({status})");
        }
        // The same file then made durable, as the executor makes it before saying it stored:
        // its bytes, then its name in its folder.
        std::fs::File::open(&target)?.sync_all()?;
        std::fs::File::open(out.path())?.sync_all()?;
        curl_synced.push(started.elapsed().as_secs_f64() * 1e3);
    }
    let mib = len as f64 / (1 << 20) as f64;
    report.row(
        Row::new(
            "throughput",
            format!("one {mib:.0} MiB file, executor (child process)"),
            "ms",
            Summary::of(&engine),
            "curl --output",
            Summary::of(&curl),
        )
        // Whole files at ≥ 0.9× curl.
        .goal(1.0 / 0.9),
    );
    // The part of that ratio that is the disk's: curl, then a sync of its file (no goal: the
    // goal above stands).
    report.row(Row::new(
        "throughput",
        "same, executor vs curl then a sync of its file",
        "ms",
        Summary::of(&engine),
        "curl --output, then fsync",
        Summary::of(&curl_synced),
    ));
    report.row(
        Row::new(
            "throughput",
            format!("peak RSS of the process storing that {mib:.0} MiB file"),
            "MiB",
            Summary::of(&hwm),
            "the file's size",
            Summary::single(mib),
        )
        .goal_at_most(GOAL_FILE_RSS_MIB),
    );
    Ok(())
}
