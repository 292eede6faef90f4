//! Cold start of the real app to a painted library, with 10,000 books in the catalog cache,
//! against the same Home from a library of [`SMALL_BOOKS`] books (what the library's size costs
//! the first paint) and against the start on an empty library (what Home itself costs).
//!
//! The library: a `fixture-server` on loopback with [`BOOKS`] books, its acquisition feed
//! (`/opds/books`, pages of [`FEED_PAGE`]) browsed to the end once with the core's
//! `CatalogClient`, as the catalog screen would — so `books` holds 10,000 rows and
//! `catalog_cache` every page of the feed — and [`OPENED`] comics opened and stored in full, so
//! Home's "Continue reading" has a full row and nothing is left for the downloads to do at start.
//! The server keeps running during the starts, as a reader's server would.
//!
//! The app opens on Home. A start is painted when Home shows the server's card and the
//! "Continue reading" row with all its books, the covers inside the window loaded and decoded
//! (they load lazily: the row's end, off to the right, waits), and the next frame has been painted; for the empty library, when the "add a server" invitation is painted.
//! The time runs from the app process's start (its start time in `/proc`, to 10 ms) to that paint
//! (the webview's `performance.timeOrigin + performance.now()`), both on the wall clock.
//!
//! The small library is the same: its own fixture server of [`SMALL_BOOKS`] books, browsed once,
//! the same number of comics opened and stored, so its Home shows the same row of covers.
//!
//! Starts alternate between the three data dirs, each after one start that is not counted (it
//! warms the system's file cache for the binary and WebKit, and writes what a first start
//! writes). Each launch has a fresh webview profile.

use std::time::Instant;

use anyhow::{bail, Context, Result};
use serde_json::{json, Value};

use carrel_core::{
    catalog::client::CatalogClient, engine::book_downloads, http::http_fetch, library::books,
    library::books::BookFormat,
};
use fixture_server::Config;

use crate::engine::Env;
use crate::report::{Report, Row, Summary};
use crate::window::{self, process_started_unix_ms};

/// Books in the catalog cache.
pub const BOOKS: u32 = 10_000;
/// Entries per page of the acquisition feed.
pub const FEED_PAGE: usize = 100;
/// Books opened (and stored), shown by Home's "Continue reading" (it shows at most 12).
pub const OPENED: usize = 12;
/// Books of the small library: every third is an EPUB, so 18 hold the [`OPENED`] comics.
pub const SMALL_BOOKS: u32 = 18;
/// The library's size may cost the first paint this fraction at most.
pub const GOAL_RATIO: f64 = 1.05;
/// Counted starts per data dir.
pub const STARTS: usize = 5;
/// The product's goal: a painted library within 1 s of starting.
pub const GOAL_MS: f64 = 1000.0;
/// Under WebDriver's own limit on a script (30 s), so the bench says what it saw.
const PAINT_TIMEOUT_MS: u64 = 25_000;

/// Waits until the library is painted (argument 0: `"home"` with argument 1 books in Continue
/// reading, or `"empty"`), then answers wall-clock times in ms: `{ painted, timeOrigin,
/// domReady, firstLook, already }` (`domReady`: the page's scripts have run;
/// `already`: it was painted before this script first looked), or `{ error }`.
const PAINTED_JS: &str = r#"
  const [kind, books, timeoutMs] = arguments;
  const done = arguments[arguments.length - 1];
  AFTER_PAINT
  const wall = (t) => performance.timeOrigin + t;
  const firstLook = performance.now();
  // The images that must be decoded, once what the reader sees is all there; else null.
  // When Home and its server card were first there, and then the row's books (before their covers).
  let homeAt = null;
  let tilesAt = null;
  const ready = () => {
    if (kind === 'empty') return document.querySelector('[data-testid="empty-library"]') ? [] : null;
    const home = document.querySelector('[data-testid="library-view"]');
    if (!home || !home.querySelector('[data-testid="server-card"]')) return null;
    if (homeAt === null) homeAt = wall(performance.now());
    const tiles = home.querySelectorAll('[data-testid="continue-item"]');
    if (tiles.length < books) return null;
    if (tilesAt === null) tilesAt = wall(performance.now());
    const all = [...home.querySelectorAll('[data-testid="continue-item"] [data-testid="book-cover"]')];
    if (all.length < books) return null;
    // Covers load lazily: those in the window must be there; the row's end, off to the right, not.
    const inView = (e) => {
      const r = e.getBoundingClientRect();
      return r.right > 0 && r.bottom > 0 && r.left < window.innerWidth && r.top < window.innerHeight;
    };
    const covers = all.filter(inView);
    if (covers.some((c) => c.dataset.state === 'loading')) return null;
    return covers.filter((c) => c.dataset.state === 'loaded').map((c) => c.querySelector('img')).filter((i) => i !== null);
  };
  let already = null;
  let seen = false;
  FINISH_ONCE
  const check = () => {
    if (seen) return;
    const images = ready();
    if (already === null) already = images !== null;
    if (images === null) return;
    seen = true;
    const coversAt = kind === 'empty' ? null : wall(performance.now());
    const navigation = performance.getEntriesByType('navigation')[0];
    const domReady = navigation ? wall(navigation.domContentLoadedEventEnd) : null;
    const painted = () => afterPaint((now) => finish({
      painted: wall(now), timeOrigin: performance.timeOrigin, domReady, firstLook: wall(firstLook), already, homeAt, tilesAt, coversAt,
    }));
    Promise.all(images.map((i) => i.decode().catch(() => null))).then(painted);
  };
  const observer = new MutationObserver(check);
  observer.observe(document.documentElement, { subtree: true, childList: true, attributes: true, attributeFilter: ['class', 'data-state', 'src'] });
  document.addEventListener('load', check, true);
  const timer = setTimeout(() => {
    const count = (selector) => document.querySelectorAll(selector).length;
    const states = [...document.querySelectorAll('[data-testid="book-cover"]')].map((c) => c.dataset.state);
    const main = (document.querySelector('main')?.innerText ?? '').slice(0, 300).replace(/\s+/g, ' ');
    finish({ error: `the library was not painted within ${timeoutMs} ms: ${count('[data-testid="library-view"]')} Home, `
      + `${count('[data-testid="server-card"]')} server cards, ${count('[data-testid="continue-item"]')} books in Continue reading, `
      + `covers ${states.join(' ')}; main: ${main}` });
  }, timeoutMs);
  check();"#;

/// One start, as measured.
#[derive(Debug, Clone, Copy)]
struct Start {
    /// Process start → library painted.
    total_ms: f64,
    /// Process start → the webview's navigation start.
    to_page_ms: f64,
    /// Process start → the page's scripts have run (DOMContentLoaded), when the webview says.
    to_dom_ready_ms: Option<f64>,
    /// Process start → Home and its server card in the document (not for the empty library).
    to_home_ms: Option<f64>,
    /// Process start → Continue reading's books in the document, before their covers.
    to_books_ms: Option<f64>,
    /// Process start → the covers in the window loaded (before they are decoded and painted).
    to_covers_ms: Option<f64>,
    /// Whether the library was painted before the script first looked (the time is then the
    /// first look's, an upper bound).
    already: bool,
}

fn measure_start(data_dir: &std::path::Path, kind: &str, name: &str) -> Result<Start> {
    let app = window::launch(data_dir, name)?;
    let script = window::script(PAINTED_JS);
    let books = if kind == "home" { OPENED } else { 0 };
    let answer = app
        .execute_async(
            &script,
            vec![json!(kind), json!(books), json!(PAINT_TIMEOUT_MS)],
        )
        .map_err(|e| anyhow::anyhow!("waiting for the library: {e}"))?;
    let process = app
        .process()
        .cloned()
        .context("the app's process was not found under the driver")?;
    app.close()
        .map_err(|e| anyhow::anyhow!("closing the app: {e}"))?;
    let field = |k: &str| answer.get(k).and_then(Value::as_f64);
    let (Some(painted), Some(origin)) = (field("painted"), field("timeOrigin")) else {
        bail!("{kind} start: {}", answer.get("error").unwrap_or(&answer));
    };
    let spawned = process_started_unix_ms(process.start_time)?;
    Ok(Start {
        total_ms: painted - spawned,
        to_page_ms: origin - spawned,
        to_dom_ready_ms: field("domReady").map(|t| t - spawned),
        to_home_ms: field("homeAt").map(|t| t - spawned),
        to_books_ms: field("tilesAt").map(|t| t - spawned),
        to_covers_ms: field("coversAt").map(|t| t - spawned),
        already: answer
            .get("already")
            .and_then(Value::as_bool)
            .unwrap_or(false),
    })
}

/// A data dir with the fixture's `size` books browsed once and [`OPENED`] comics opened and
/// stored. Returns the env (it owns the temporary dir) and the number of feed pages cached.
async fn library(catalog_url: &str, size: u32) -> Result<(Env, usize)> {
    let env = Env::new(catalog_url)?;
    let http = http_fetch::HttpClient::new(http_fetch::HttpConfig::default())?;
    let client = CatalogClient {
        store: &env.store,
        credentials: &env.credentials,
        http: &http,
    };
    client
        .browse(&env.server, None)
        .await
        .context("browsing the root feed")?;
    let ids = env.register_library().await?;
    if ids.len() != size as usize {
        bail!("the feed listed {} books, expected {size}", ids.len());
    }
    let mut opened = Vec::new();
    for id in &ids {
        if books::get(&env.store, *id)?.format == BookFormat::Comic {
            opened.push(*id);
        }
        if opened.len() == OPENED {
            break;
        }
    }
    if opened.len() != OPENED {
        bail!("the feed listed {} comics, expected {OPENED}", opened.len());
    }
    for id in &opened {
        books::mark_opened(&env.store, *id, Some(0))?;
        book_downloads::store_book(&env.store, *id)?;
    }
    env.sync().await?;
    env.check_all_stored(&opened)?;
    let pages: i64 = env.store.read(|c| {
        c.query_row("SELECT count(*) FROM catalog_cache", [], |r| r.get(0))
            .map_err(|e| anyhow::anyhow!("counting the cached catalog pages: {e}"))
    })?;
    Ok((env, pages as usize))
}

/// A fixture server of `size` books and a data dir that browsed it (see [`library`]).
fn served_library(
    runtime: &tokio::runtime::Runtime,
    size: u32,
) -> Result<(fixture_server::RunningServer, Env, usize)> {
    let fixture = fixture_server::Server::start(Config {
        books: size,
        feed_page_size: FEED_PAGE,
        reading_positions: Some(Default::default()),
        ..Config::default()
    })
    .with_context(|| format!("starting a fixture server of {size} books"))?;
    let (env, cached_pages) = runtime.block_on(library(&fixture.url("/opds"), size))?;
    Ok((fixture, env, cached_pages))
}

pub fn run(report: &mut Report, runtime: &tokio::runtime::Runtime) -> Result<()> {
    eprintln!("cold start: browsing a catalog of {BOOKS} books into a data dir ...");
    let started = Instant::now();
    let (fixture, env, cached_pages) = served_library(runtime, BOOKS)?;
    let setup_s = started.elapsed().as_secs_f64();
    let large_dir = env.store.data_dir().root().to_path_buf();
    let db_bytes = std::fs::metadata(large_dir.join("carrel.db"))
        .map(|m| m.len())
        .unwrap_or(0);
    let (small_fixture, small_env, _) = served_library(runtime, SMALL_BOOKS)?;
    let small_dir = small_env.store.data_dir().root().to_path_buf();
    let empty = tempfile::tempdir()?;
    let empty_dir = empty.path().join("data");
    std::fs::create_dir_all(&empty_dir)?;

    eprintln!("cold start: one uncounted start of each, then {STARTS} of each in turn ...");
    measure_start(&large_dir, "home", "bench-cold-start-large")?;
    measure_start(&small_dir, "home", "bench-cold-start-small")?;
    measure_start(&empty_dir, "empty", "bench-cold-start-empty")?;
    let mut large = Vec::new();
    let mut few = Vec::new();
    let mut small = Vec::new();
    for i in 0..STARTS {
        eprintln!("cold start: {} of {STARTS} ...", i + 1);
        large.push(measure_start(&large_dir, "home", "bench-cold-start-large")?);
        few.push(measure_start(&small_dir, "home", "bench-cold-start-small")?);
        small.push(measure_start(
            &empty_dir,
            "empty",
            "bench-cold-start-empty",
        )?);
    }
    drop(env);
    drop(small_env);
    fixture.stop();
    small_fixture.stop();

    let totals = |s: &[Start]| s.iter().map(|s| s.total_ms).collect::<Vec<_>>();
    let median = |v: Vec<f64>| {
        if v.is_empty() {
            f64::NAN
        } else {
            Summary::of(&v).median
        }
    };
    let to_page = |s: &[Start]| median(s.iter().map(|s| s.to_page_ms).collect());
    let to_dom = |s: &[Start]| median(s.iter().filter_map(|s| s.to_dom_ready_ms).collect());
    let to_paint = |s: &[Start]| median(totals(s));
    for (baseline_name, baseline) in [
        (format!("the same Home, {SMALL_BOOKS} books"), &few),
        ("cold start, empty library".to_owned(), &small),
    ] {
        report.row(
            Row::new(
                "window",
                format!("cold start to painted Home, {BOOKS} cached books"),
                "ms",
                Summary::of(&totals(&large)),
                baseline_name,
                Summary::of(&totals(baseline)),
            )
            .goals(GOAL_RATIO, GOAL_MS),
        );
    }
    let steps = |s: &[Start]| (to_page(s), to_dom(s), to_paint(s));
    let ((lp, ld, lt), (fp, fd, ft), (sp, sd, st)) = (steps(&large), steps(&few), steps(&small));
    report.fact(
        "window",
        "cold_start_steps_ms",
        json!({
            "large": { "navigation_start": lp, "dom_ready": ld, "painted": lt },
            "small": { "navigation_start": fp, "dom_ready": fd, "painted": ft },
            "empty": { "navigation_start": sp, "dom_ready": sd, "painted": st },
        }),
        format!(
            "from process start, medians — navigation start {lp:.0} / {fp:.0} / {sp:.0} ms, page scripts run (DOMContentLoaded) {ld:.0} / {fd:.0} / {sd:.0} ms, library painted {lt:.0} / {ft:.0} / {st:.0} ms ({BOOKS} books / {SMALL_BOOKS} / empty)"
        ),
    );
    let home = median(large.iter().filter_map(|s| s.to_home_ms).collect());
    let books_in = median(large.iter().filter_map(|s| s.to_books_ms).collect());
    let covers_in = median(large.iter().filter_map(|s| s.to_covers_ms).collect());
    report.fact(
        "window",
        "cold_start_home_ms",
        json!({ "home_and_server": home, "continue_reading_books": books_in, "covers_loaded": covers_in, "covers_painted": lt }),
        format!(
            "{BOOKS} books, from process start, medians: Home and its server card {home:.0} ms, Continue reading's books {books_in:.0} ms, their covers loaded {covers_in:.0} ms, painted {lt:.0} ms"
        ),
    );
    let late: usize = large
        .iter()
        .chain(&few)
        .chain(&small)
        .filter(|s| s.already)
        .count();
    report.fact(
        "window",
        "cold_start_seen_late",
        json!(late),
        format!(
            "{late} of {} counted starts were painted before the bench's first look (their time is that look's: an upper bound)",
            3 * STARTS
        ),
    );
    report.fact(
        "window",
        "cold_start_library",
        json!({ "books": BOOKS, "feed_pages_cached": cached_pages, "opened": OPENED, "db_bytes": db_bytes, "setup_s": setup_s }),
        format!(
            "{BOOKS} books, {cached_pages} catalog pages cached ({FEED_PAGE} entries each, plus the root), {OPENED} comics opened and stored, carrel.db {:.1} MiB; built in {setup_s:.0} s",
            db_bytes as f64 / (1 << 20) as f64
        ),
    );
    Ok(())
}
