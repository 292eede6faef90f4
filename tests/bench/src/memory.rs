//! Memory: the peak resident set (`VmHWM`) of a process that only runs the engine.
//!
//! The servers generate their books in memory, so the engine runs in a child process (this same
//! binary, `memory-probe`) while the servers stay in the parent. The child reads its peak RSS
//! right after start (the baseline), after syncing the library of the download benchmark, and
//! after downloading one large file (a ~20 MiB CBZ fetched as a whole file): a download streamed
//! to disk must not raise the peak by the size of the file.

use std::collections::BTreeMap;

use anyhow::{bail, Context, Result};
use serde::{Deserialize, Serialize};
use serde_json::json;

use carrel_core::{engine::book_downloads, library::books};
use fixture_server::{Config, RunningServer};

use crate::engine::{run_probe, Env};
use crate::report::{Report, Row, Summary};

/// The large file: one comic of 10 pages of 2 MiB, downloaded as its CBZ.
const BIG_PAGES: u32 = 10;
const BIG_PAGE_BYTES: usize = 2 << 20;
/// The peak may rise by at most this fraction of the file's size while it downloads.
const GOAL_RISE_OF_FILE: f64 = 0.25;

/// `VmHWM` and `VmRSS` of this process, in KiB.
#[derive(Debug, Clone, Copy, Serialize, Deserialize)]
pub struct Rss {
    pub hwm_kib: u64,
    pub rss_kib: u64,
}

pub fn read_rss() -> Result<Rss> {
    let status =
        std::fs::read_to_string("/proc/self/status").context("reading /proc/self/status")?;
    let field = |name: &str| -> Option<u64> {
        status
            .lines()
            .find(|l| l.starts_with(name))
            .and_then(|l| l.split_whitespace().nth(1))
            .and_then(|v| v.parse().ok())
    };
    match (field("VmHWM:"), field("VmRSS:")) {
        (Some(hwm_kib), Some(rss_kib)) => Ok(Rss { hwm_kib, rss_kib }),
        _ => bail!("no VmHWM/VmRSS in /proc/self/status"),
    }
}

/// The arguments of a child probe `name` that stores a file: `CATALOG_URL FILE_URL
/// FILE_LENGTH`.
pub fn file_probe_args<'a>(name: &str, args: &'a [String]) -> Result<(&'a str, &'a str, u64)> {
    let [catalog, url, len] = args else {
        bail!("usage: carrel-bench {name} CATALOG_URL FILE_URL FILE_LENGTH");
    };
    let len: u64 = len.parse().context("the file length")?;
    Ok((catalog, url, len))
}

/// What the child reports on its stdout, as one JSON line.
#[derive(Debug, Serialize, Deserialize)]
struct ProbeResult {
    start: Rss,
    after_library: Rss,
    after_big_file: Rss,
    library_parts: usize,
    big_file_bytes: u64,
}

/// The child: `memory-probe LIBRARY_CATALOG_URL BIG_FILE_URL BIG_FILE_LENGTH`.
pub fn probe(args: &[String]) -> Result<()> {
    let start = read_rss()?;
    let (catalog, big_url, big_len) = file_probe_args("memory-probe", args)?;
    let runtime = crate::two_thread_runtime()?;
    let result = runtime.block_on(async {
        let env = Env::new(catalog)?;
        let ids = env.register_library().await?;
        env.store_all(&ids)?;
        env.sync().await?;
        env.check_all_stored(&ids)?;
        let after_library = read_rss()?;

        let big = env.remember_file_book(
            "urn:carrel-bench:big-file",
            "One large archive",
            big_url,
            big_len,
        )?;
        book_downloads::store_book(&env.store, big.id)?;
        env.sync().await?;
        let stored = book_downloads::progress(&env.store, &books::get(&env.store, big.id)?)?;
        if !stored.is_complete() || stored.bytes != big_len {
            bail!("the large file was not stored whole: {stored:?}");
        }
        let after_big_file = read_rss()?;
        Ok::<_, anyhow::Error>(ProbeResult {
            start,
            after_library,
            after_big_file,
            library_parts: ids.len(),
            big_file_bytes: big_len,
        })
    })?;
    println!("{}", serde_json::to_string(&result)?);
    Ok(())
}

fn mib(kib: u64) -> f64 {
    kib as f64 / 1024.0
}

/// The parent: serves the large file, runs the child against both servers, reports.
pub fn run(report: &mut Report, library: &RunningServer) -> Result<()> {
    let big_server = fixture_server::Server::start(Config {
        books: 1,
        page_bytes: BIG_PAGE_BYTES,
        comic_pages: BTreeMap::from([(1, BIG_PAGES)]),
        reading_positions: Some(BTreeMap::new()),
        ..Config::default()
    })
    .context("starting the large-file server")?;
    let big_len = big_server.book(1).context("the large book")?.length;
    big_server.book_bytes(1);

    eprintln!(
        "memory: child process syncing the library, then one {:.1} MiB file ...",
        big_len as f64 / (1 << 20) as f64
    );
    let line = run_probe(
        "memory-probe",
        &[
            &library.url("/opds"),
            &big_server.url("/books/1/file"),
            &big_len.to_string(),
        ],
    )?;
    let r: ProbeResult =
        serde_json::from_str(&line).context("reading the memory probe's result")?;

    report.row(Row::new(
        "memory",
        format!(
            "peak RSS after syncing the library ({} books)",
            r.library_parts
        ),
        "MiB",
        Summary::single(mib(r.after_library.hwm_kib)),
        "after process start",
        Summary::single(mib(r.start.hwm_kib)),
    ));
    report.row(Row::new(
        "memory",
        format!(
            "peak RSS after one {:.1} MiB file download",
            r.big_file_bytes as f64 / (1 << 20) as f64
        ),
        "MiB",
        Summary::single(mib(r.after_big_file.hwm_kib)),
        "after process start",
        Summary::single(mib(r.start.hwm_kib)),
    ));
    let rise_kib = r
        .after_big_file
        .hwm_kib
        .saturating_sub(r.after_library.hwm_kib);
    let file_mib = r.big_file_bytes as f64 / (1 << 20) as f64;
    report.row(
        Row::new(
            "memory",
            "peak RSS rise during that file download",
            "MiB",
            Summary::single(mib(rise_kib)),
            "the file's size",
            Summary::single(file_mib),
        )
        .goal(GOAL_RISE_OF_FILE),
    );
    report.fact(
        "memory",
        "probe",
        json!(r),
        format!(
            "VmHWM {:.1} → {:.1} → {:.1} MiB, VmRSS {:.1} → {:.1} → {:.1} MiB (start, after library, after large file; child process)",
            mib(r.start.hwm_kib),
            mib(r.after_library.hwm_kib),
            mib(r.after_big_file.hwm_kib),
            mib(r.start.rss_kib),
            mib(r.after_library.rss_kib),
            mib(r.after_big_file.rss_kib)
        ),
    );
    Ok(())
}
