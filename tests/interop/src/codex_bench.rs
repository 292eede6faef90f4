//! Benchmarks against a real Codex, run by `make bench` (they are `#[ignore]`d in the test
//! suite: `cargo test -p carrel-interop --release -- --ignored --nocapture codex_bench`).
//! Nothing here asserts a time; the numbers are printed with their baseline from the same run.
//!
//! - **Signed in vs anonymous**: the same 200-page comic stored in full by `carrel-cli` (one
//!   `store` then `sync --until-idle`, a fresh data dir each), signed in as admin and anonymous
//!   (Codex lets non-users browse by default), alternating, 3 rounds each: wall time and the CPU
//!   Codex spent, and the password checks of the signed-in runs. Goal ≤ 1.2× for both.
//! - **Identity**: a Codex catalog of 4 comics walked through every feed (≤ 40): local books ÷
//!   comics. Goal 1.0.

use std::time::Instant;

use crate::codex::{self, Codex, ADMIN};
use crate::support::{self, Cli, Installed};

const PAGES: u32 = 200;
const ROUNDS: usize = 3;

/// One full download of the comic into a fresh data dir: (seconds, Codex's CPU seconds, password checks).
fn download(codex: &Codex, signed_in: bool) -> (f64, f64, usize) {
    let cli = Cli::new();
    cli.add_server("codex", &codex.opds1(), signed_in.then_some(ADMIN));
    let found = cli.json(&["search", "codex", "Interop Comic 01"]);
    let id = found["entries"]
        .as_array()
        .unwrap()
        .iter()
        .find(|e| e["type"] == "book")
        .unwrap_or_else(|| panic!("comic not found: {found}"))["book_id"]
        .as_i64()
        .unwrap();
    codex.reset_password_checks();
    let cpu = codex.process.cpu_seconds();
    let started = Instant::now();
    cli.ok(&["store", &id.to_string()]);
    cli.ok(&["sync", "--until-idle"]);
    let seconds = started.elapsed().as_secs_f64();
    let cpu = codex.process.cpu_seconds() - cpu;
    // Every page of the comic is on the device.
    let status = cli.json(&["status"]);
    let book = status["books"]
        .as_array()
        .unwrap()
        .iter()
        .find(|b| b["book_id"] == id)
        .expect("the book in the status");
    assert_eq!(book["status"]["stored_parts"], PAGES, "{status}");
    (seconds, cpu, codex.password_checks())
}

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(|a, b| a.total_cmp(b));
    v[v.len() / 2]
}

fn verdict(ratio: f64, goal: f64) -> &'static str {
    if ratio <= goal {
        "ok"
    } else {
        "MISSED"
    }
}

#[test]
#[ignore = "a benchmark: make bench runs it"]
fn codex_bench_signed_in_vs_anonymous_and_identity() {
    let installed = Installed::load();
    let codex = codex::start(&installed, 1, PAGES);
    // One untimed download of each first: Codex's caches warm up.
    download(&codex, false);
    download(&codex, true);
    let (mut signed, mut anon, mut signed_cpu, mut anon_cpu, mut checks) =
        (vec![], vec![], vec![], vec![], vec![]);
    for _ in 0..ROUNDS {
        let (s, c, _) = download(&codex, false);
        anon.push(s);
        anon_cpu.push(c);
        let (s, c, k) = download(&codex, true);
        signed.push(s);
        signed_cpu.push(c);
        checks.push(k);
    }
    drop(codex);
    let (t, b) = (median(signed), median(anon));
    let (tc, bc) = (median(signed_cpu), median(anon_cpu));
    println!();
    println!("codex | measurement                                   | median  | baseline (anonymous) | ratio | goal   | verdict");
    println!("codex | signed-in download of a {PAGES}-page comic (s)     | {t:7.2} | {b:20.2} | {:5.2}× | ≤ 1.2× | {}", t / b, verdict(t / b, 1.2));
    println!("codex | Codex CPU for that download (s)               | {tc:7.2} | {bc:20.2} | {:5.2}× | ≤ 1.2× | {}", tc / bc, verdict(tc / bc, 1.2));
    println!("codex | password checks per signed-in download: {checks:?}");

    let codex = codex::start(&installed, 4, 3);
    let cli = Cli::new();
    cli.add_server("codex", &codex.opds1(), Some(ADMIN));
    let walk = support::walk(&cli, "codex", 40);
    let local = cli.local_book_count();
    let ratio = local as f64 / codex.comics.len() as f64;
    println!(
        "codex | local books ÷ comics after walking {} feeds     | {local} ÷ {} = {ratio:.2} | goal 1.0 | {}",
        walk.feeds,
        codex.comics.len(),
        if local as usize == codex.comics.len() { "ok" } else { "MISSED" }
    );
    assert!(walk.feeds >= 10, "only {} feeds walked", walk.feeds);
}
