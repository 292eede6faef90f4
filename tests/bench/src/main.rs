//! `make bench`: Carrel's benchmarks — the engine's, and the real window's.
//!
//! Speed and memory targets are checked by printing ratios against a baseline measured in the
//! same run, never by timed assertions: every row gives the value (median and p95), the
//! baseline, their ratio and the goal where one exists. The same goes to
//! `target/bench/engine.json`.
//!
//! ```text
//! carrel-bench [--only stack,download,throughput,preemption,memory,archive,page-wait,page-turn,cold-start,library-window] [--json PATH]
//! ```
//!
//! `download` also runs the resume measurement, which reuses its data dirs. `throughput` stands
//! for `throughput.pages,throughput.tasks,throughput.file`, each of which may be run alone.
//! `window` stands for
//! `page-turn,cold-start,library-window`, which drive the real app (a release build) through the window tests'
//! harness and need an X display, tauri-driver and WebKitWebDriver: `make bench` provides them.
//!
//! Layout:
//! - [`stack`], [`engine`], [`throughput`], [`preemption`], [`memory`]: the engine without a
//!   window; [`archives`]: pages read
//!   from comics kept as one archive file; [`page_wait`]: a window waiting for a page being
//!   downloaded;
//! - [`window`]: launching the app and reading the webview's clocks; [`page_turn`],
//!   [`cold_start`] and [`library_window`] (scrolling 10,000 books, memory after a long comic):
//!   the window benchmarks;
//! - [`report`]: summaries, the table and the JSON.

mod archives;
mod cold_start;
mod engine;
mod library_rows;
mod library_window;
mod memory;
mod page_turn;
mod page_wait;
mod preemption;
mod report;
mod scratch;
mod stack;
mod throughput;
mod window;

use std::path::PathBuf;
use std::time::{Instant, SystemTime, UNIX_EPOCH};

use anyhow::{bail, Context, Result};
use serde_json::json;

use report::Report;

const GROUPS: [&str; 10] = [
    "stack",
    "download",
    "throughput",
    "preemption",
    "memory",
    "archive",
    "page-wait",
    "page-turn",
    "cold-start",
    "library-window",
];
/// The groups that need the app's window.
const WINDOW_GROUPS: [&str; 3] = ["page-turn", "cold-start", "library-window"];

struct Args {
    only: Vec<String>,
    json: PathBuf,
    /// Leave the run's temporary files on the disk (see `scratch.rs`).
    leave_scratch: bool,
}

/// A tokio runtime of two worker threads, as the app runs its engine on.
fn two_thread_runtime() -> std::io::Result<tokio::runtime::Runtime> {
    tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
}

fn default_json_path() -> PathBuf {
    // The binary lives in <target>/<profile>/carrel-bench: write next to it, in <target>/bench.
    std::env::current_exe()
        .ok()
        .and_then(|exe| {
            exe.parent()?
                .parent()
                .map(|t| t.join("bench").join("engine.json"))
        })
        .unwrap_or_else(|| {
            PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../target/bench/engine.json")
        })
}

/// The groups a name given to `--only` stands for.
fn expand(group: &str) -> Vec<&str> {
    match group {
        "window" => WINDOW_GROUPS.to_vec(),
        "throughput" => throughput::PARTS.to_vec(),
        g => vec![g],
    }
}

fn parse_args(raw: &[String]) -> Result<Args> {
    let mut args = Args {
        only: GROUPS
            .iter()
            .flat_map(|g| expand(g))
            .map(str::to_owned)
            .collect(),
        json: default_json_path(),
        leave_scratch: false,
    };
    let mut it = raw.iter();
    while let Some(a) = it.next() {
        match a.as_str() {
            "--only" => {
                let v = it
                    .next()
                    .context("--only needs a list, e.g. stack,download")?;
                args.only = v
                    .split(',')
                    .map(str::trim)
                    .flat_map(expand)
                    .filter(|s| !s.is_empty())
                    .map(str::to_owned)
                    .collect();
                if let Some(bad) = args.only.iter().find(|g| {
                    !GROUPS.contains(&g.as_str()) && !throughput::PARTS.contains(&g.as_str())
                }) {
                    bail!(
                        "unknown group {bad}; choose from {} (window = page-turn,cold-start)",
                        GROUPS.join(", ")
                    );
                }
            }
            "--json" => args.json = PathBuf::from(it.next().context("--json needs a path")?),
            "--leave-scratch" => args.leave_scratch = true,
            "-h" | "--help" => {
                println!(
                    "usage: carrel-bench [--only {}] [--json PATH] [--leave-scratch]",
                    GROUPS.join(",")
                );
                std::process::exit(0);
            }
            other => bail!("unknown argument {other}"),
        }
    }
    Ok(args)
}

fn main() -> Result<()> {
    let raw: Vec<String> = std::env::args().skip(1).collect();
    if raw.first().map(String::as_str) == Some("memory-probe") {
        return memory::probe(&raw[1..]);
    }
    if raw.first().map(String::as_str) == Some("file-probe") {
        return throughput::probe(&raw[1..]);
    }
    if raw.first().map(String::as_str) == Some("page-probe") {
        return preemption::probe(&raw[1..]);
    }
    let args = parse_args(&raw)?;
    let _scratch = scratch::RemovedAtEnd {
        leave: args.leave_scratch,
    };
    let wants = |g: &str| args.only.iter().any(|o| o == g);
    let scratch_note = scratch::unjournaled_note();
    if let Some(note) = &scratch_note {
        eprintln!("note: {note}");
    }
    if cfg!(debug_assertions) {
        eprintln!("warning: a debug build; run `cargo run --release -p carrel-bench` for meaningful numbers");
    }

    // The window groups need a display and the drivers: found (or failed on) before anything is
    // measured.
    let window_groups = WINDOW_GROUPS.iter().any(|g| wants(g));
    let app = if window_groups {
        Some(window::require_tools()?)
    } else {
        None
    };

    let started = Instant::now();
    let mut report = Report::default();

    if wants("stack") {
        stack::run(&mut report)?;
    }
    if wants("download") || wants("memory") {
        eprintln!("starting the fixture server and building its books ...");
        let library = engine::start_library()?;
        if wants("download") {
            let runtime = two_thread_runtime()?;
            runtime.block_on(engine::run(&mut report, &library))?;
        }
        if wants("memory") {
            memory::run(&mut report, &library)?;
        }
    }
    let throughput_parts: Vec<&str> = throughput::PARTS
        .iter()
        .copied()
        .filter(|p| wants(p))
        .collect();
    if !throughput_parts.is_empty() {
        let runtime = two_thread_runtime()?;
        throughput::run(&mut report, &runtime, &throughput_parts)?;
    }
    if wants("preemption") {
        let runtime = two_thread_runtime()?;
        preemption::run(&mut report, &runtime)?;
    }
    if wants("archive") {
        archives::run_group(&mut report)?;
        let runtime = two_thread_runtime()?;
        archives::run_remote(&mut report, &runtime)?;
    }
    if wants("page-wait") {
        let runtime = two_thread_runtime()?;
        page_wait::run(&mut report, &runtime)?;
    }
    if window_groups {
        let runtime = two_thread_runtime()?;
        if wants("page-turn") {
            page_turn::run(&mut report, &runtime)?;
            page_turn::run_pdf(&mut report, &runtime)?;
        }
        if wants("cold-start") {
            cold_start::run(&mut report, &runtime)?;
        }
        if wants("library-window") {
            library_window::run(&mut report)?;
        }
    }

    let wall = started.elapsed();
    println!();
    println!("Carrel benchmarks — ratio = median / baseline median (lower is better, except MB/s)");
    println!();
    report.print();
    println!();
    println!("wall time of the measurements: {:.1} s", wall.as_secs_f64());
    if let Some(note) = &scratch_note {
        println!("note: {note}");
    }

    let context = json!({
        "generated_at_unix": SystemTime::now().duration_since(UNIX_EPOCH).map(|d| d.as_secs()).unwrap_or(0),
        "wall_time_s": wall.as_secs_f64(),
        "cpus": std::thread::available_parallelism().map(|n| n.get()).unwrap_or(1),
        "groups": args.only,
        "profile": if cfg!(debug_assertions) { "debug" } else { "release" },
        "ratio": "value median / baseline median",
        "app": app.map(|p| p.display().to_string()),
        "scratch_unjournaled": scratch_note,
    });
    report
        .write_json(&args.json, context)
        .with_context(|| format!("writing {}", args.json.display()))?;
    println!("written to {}", args.json.display());
    Ok(())
}
