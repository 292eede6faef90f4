//! Page turns in the real comic reader with every page of the book on the device: the time from
//! the key press to the new page painted, measured inside the webview.
//!
//! The book (one comic of [`PAGES`] pages of about [`PAGE_BYTES`] bytes each) is downloaded for
//! real from a `fixture-server` on loopback by the core's executor, then the app is launched on
//! that data dir and the reader opened on it. Three series of [`TURNS`] turns:
//!
//! - **from the store**: ← from the last page towards the front. The reader reads ahead only
//!   forwards, so every page turned to here was never loaded in this webview: the bytes come from
//!   the page file through the `carrel-page` protocol, and the image is decoded on the way.
//! - **baseline, in memory**: the same ← turn (interleaved with the first series, one of each in
//!   turn) to a page whose image the bench loaded and decoded in the webview just before, under
//!   the very address the reader uses — so the same code runs, minus the store, the protocol and
//!   the decoding. The ratio of the two is what those cost.
//! - **at reading pace**: → from the first page, a pause after each page as a reader would make,
//!   so the reader's own read-ahead has fetched the next pages by the time the key is pressed.
//!
//! A turn is timed from `performance.now()` right before a `keydown` is dispatched (the reader
//! listens on the window) until the `<img data-page-index>` of the new page is loaded, no longer
//! hidden, decoded, and the next frame has been painted (see [`crate::window`]).

use std::time::{Duration, Instant};

use anyhow::{bail, Context, Result};
use serde_json::{json, Value};

use carrel_e2e::{testid, App};
use fixture_server::{Config, RunningServer};

use crate::engine::Env;
use crate::report::{Report, Row, Summary};
use crate::window::{self, WINDOW};

/// Turns per series.
pub const TURNS: u32 = 40;
/// Pages in the book: the forward series reads pages 0..=TURNS (and the reader reads three
/// ahead), the backward series turns from the last page through 2 × TURNS pages before it.
pub const PAGES: u32 = 3 * TURNS + 8;
// The backward series stays clear of the pages the forward one showed or read ahead.
const _: () = assert!(PAGES - 1 - 2 * TURNS > TURNS + 3);
/// About 2 MiB a page: an uncompressed PNG of about 0.7 megapixels (836 × 1254).
pub const PAGE_BYTES: usize = 2 << 20;
/// The product's goals for a turn, painted: a page turned to at reading pace (known, on the
/// device, decoded ahead) within one frame at 60 Hz on the median and two at the p95; a comic
/// page never shown, from the store, within two frames; a PDF page never drawn within 50 ms.
const ONE_FRAME_MS: f64 = 16.7;
const TWO_FRAMES_MS: f64 = 33.0;
const PDF_NEVER_DRAWN_MS: f64 = 50.0;
/// The pause after each turn of the reading-pace series (and between all turns), so that
/// saving the position and reading ahead are done before the next key.
const PAUSE: Duration = Duration::from_millis(300);
/// How long one turn may take before the benchmark gives up.
const TURN_TIMEOUT_MS: u64 = 10_000;

/// Dispatches a key on the page and answers once page `arguments[1]` is painted:
/// `{ ms }` (from the key to the paint), or `{ error }`.
const TURN_JS: &str = r#"
  const [key, target, timeoutMs] = arguments;
  const done = arguments[arguments.length - 1];
  AFTER_PAINT
  const selector = `[data-testid="page-image"][data-page-index="${target}"]`;
  let seen = false;
  FINISH_ONCE
  // Where the turn's time goes: the new page's element in the document (the reader's own
  // work), its picture loaded (the protocol's fetch, and its decoding when the engine does it on
  // load), shown, decoded, painted; and the protocol's fetch alone from resource timing when the
  // webview reports it.
  let inserted = null;
  let complete = null;
  const check = () => {
    if (seen) return;
    const image = document.querySelector(selector);
    if (!image) return;
    if (inserted === null) inserted = performance.now() - started;
    if (!image.complete || image.naturalWidth === 0) return;
    if (complete === null) complete = performance.now() - started;
    if (image.classList.contains('hidden')) return;
    seen = true;
    const loaded = performance.now() - started;
    const fetchEntry = performance.getEntriesByName(image.currentSrc || image.src).pop();
    const fetched = fetchEntry && fetchEntry.startTime >= started
      ? fetchEntry.responseEnd - fetchEntry.startTime : null;
    const steps = (now) => ({ ms: now - started, loaded, inserted, complete, fetched });
    const painted = () => {
      const decoded = performance.now() - started;
      afterPaint((now) => finish({ ...steps(now), decoded }));
    };
    image.decode().then(painted, painted);
  };
  const observer = new MutationObserver(check);
  observer.observe(document.body, { subtree: true, childList: true, attributes: true, attributeFilter: ['class', 'src'] });
  document.addEventListener('load', check, true);
  const timer = setTimeout(() => {
    const shown = [...document.querySelectorAll('[data-testid="page-image"]')]
      .map((i) => `${i.dataset.pageIndex}:${i.complete}:${i.className}`);
    const said = (document.querySelector('main')?.innerText ?? document.body.innerText ?? '')
      .slice(0, 300).replace(/\s+/g, ' ');
    finish({ error: `page ${target} was not painted within ${timeoutMs} ms; shown: ${shown.join(', ')}; the window says: ${said}` });
  }, timeoutMs);
  performance.clearResourceTimings();
  const started = performance.now();
  if (key !== null) {
    document.body.dispatchEvent(new KeyboardEvent('keydown', { key, bubbles: true, cancelable: true }));
  }
  check();"#;

/// Loads and decodes page `arguments[1]` of book `arguments[0]` in the webview under the address
/// the reader uses, and keeps the image alive until the next call.
const PRELOAD_JS: &str = r#"
  const [bookId, page] = arguments;
  const done = arguments[arguments.length - 1];
  const url = window.__TAURI_INTERNALS__.convertFileSrc(`${bookId}/${page}`, 'carrel-page');
  const image = new Image();
  image.src = url;
  image.decode().then(
    () => { window.__carrelBenchHeld = image; done({ ok: image.naturalWidth }); },
    (e) => done({ error: `page ${page} did not decode: ${e}` }),
  );"#;

fn turn_script() -> String {
    window::script(TURN_JS)
}

/// One turn, in ms from the key: until the new page's image was loaded and shown (before its
/// decoding and paint), and until it was painted.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Turn {
    loaded: f64,
    painted: f64,
    /// Until the new page's element was in the document (the reader's own work).
    inserted: Option<f64>,
    /// Until its picture was loaded (fetched through the protocol, or drawn, and possibly
    /// decoded), shown or not.
    complete: Option<f64>,
    /// Until `decode()` resolved.
    decoded: Option<f64>,
    /// The protocol's fetch alone (resource timing), when the webview reports it.
    fetched: Option<f64>,
}

/// The medians of where the time of a series of turns went, as a fact's JSON and sentence.
fn steps(turns: &[Turn]) -> (Value, String) {
    let median = |f: &dyn Fn(&Turn) -> Option<f64>| {
        let v: Vec<f64> = turns.iter().filter_map(f).collect();
        (!v.is_empty()).then(|| Summary::of(&v).median)
    };
    let inserted = median(&|t| t.inserted);
    let complete = median(&|t| t.complete);
    let shown = median(&|t| Some(t.loaded));
    let decoded = median(&|t| t.decoded);
    let painted = median(&|t| Some(t.painted));
    let fetched = median(&|t| t.fetched);
    let ms = |v: Option<f64>| v.map_or("–".to_owned(), |v| format!("{v:.1}"));
    (
        json!({ "in_document": inserted, "loaded": complete, "shown": shown,
                "decoded": decoded, "painted": painted, "fetch": fetched }),
        format!(
            "in the document {} → loaded {} → shown {} → decoded {} → painted {} ms (fetch alone {} ms)",
            ms(inserted), ms(complete), ms(shown), ms(decoded), ms(painted), ms(fetched)
        ),
    )
}

/// One turn: `key` (or none, to wait for what is opening), until `target` is painted.
pub(crate) fn turn(app: &App, key: Option<&str>, target: u32) -> Result<Turn> {
    let answer = app
        .execute_async(
            &turn_script(),
            vec![json!(key), json!(target), json!(TURN_TIMEOUT_MS)],
        )
        .map_err(|e| anyhow::anyhow!("turning to page {target}: {e}"))?;
    let at = |k: &str| answer.get(k).and_then(Value::as_f64);
    match (at("loaded"), at("ms")) {
        (Some(loaded), Some(painted)) => Ok(Turn {
            loaded,
            painted,
            inserted: at("inserted"),
            complete: at("complete"),
            decoded: at("decoded"),
            fetched: at("fetched"),
        }),
        _ => bail!(
            "turning to page {target}: {}",
            answer.get("error").unwrap_or(&answer)
        ),
    }
}

fn preload(app: &App, book_id: i64, page: u32) -> Result<()> {
    let answer = app
        .execute_async(PRELOAD_JS, vec![json!(book_id), json!(page)])
        .map_err(|e| anyhow::anyhow!("preloading page {page}: {e}"))?;
    if answer.get("ok").is_none() {
        bail!(
            "preloading page {page}: {}",
            answer.get("error").unwrap_or(&answer)
        );
    }
    Ok(())
}

/// Page requests the fixture saw since its last stats reset.
fn page_requests(fixture: &RunningServer) -> u64 {
    fixture.stats().hits_containing("/pages/")
}

/// The fact `name`: where the time of `what` goes (see [`steps`]) for the turns `turns`
/// (`key` in its JSON, `said` in its text), next to the turns at reading pace.
fn report_steps(
    report: &mut Report,
    name: &str,
    what: &str,
    (key, said, turns): (&str, &str, &[Turn]),
    reading: &[Turn],
) {
    let (turns_steps, turns_said) = steps(turns);
    let (reading_steps, reading_said) = steps(reading);
    let mut doc = serde_json::Map::new();
    doc.insert(key.to_owned(), turns_steps);
    doc.insert("reading_pace".to_owned(), reading_steps);
    report.fact(
        "window",
        name,
        Value::Object(doc),
        format!("where {what}'s time goes, from the key (medians): {said}, {turns_said}; at reading pace, {reading_said}"),
    );
}

/// Each turn's time until its page was painted, in ms.
fn painted(turns: &[Turn]) -> Vec<f64> {
    turns.iter().map(|t| t.painted).collect()
}

/// A window row of turn times in ms, `times` against the baseline `base` named `base_name`.
fn turn_row(what: &str, times: &[f64], base_name: &str, base: Summary) -> Row {
    Row::new("window", what, "ms", Summary::of(times), base_name, base)
}

/// A data dir whose one book was downloaded by the core's executor.
async fn synced_book(fixture: &RunningServer) -> Result<(Env, i64)> {
    let env = Env::new(&fixture.url("/opds"))?;
    let ids = env.register_library().await?;
    let [id] = ids[..] else {
        bail!("the fixture should list one book, it lists {}", ids.len());
    };
    env.store_all(&ids)?;
    env.sync().await?;
    Ok((env, id))
}

/// A data dir whose one comic is stored in full, downloaded by the core's executor.
async fn stored_book(fixture: &RunningServer) -> Result<(Env, i64)> {
    let (env, id) = synced_book(fixture).await?;
    env.check_all_stored(&[id])?;
    Ok((env, id))
}

/// The app on `data_dir` (its window `name`d and of the benchmark's size), in the reader on
/// `book_id` as a window opened on it would be, its first page shown and the window settled.
fn app_reading(data_dir: &std::path::Path, name: &str, book_id: i64) -> Result<App> {
    let app = window::launch(data_dir, name)?;
    app.set_window_size(WINDOW.0, WINDOW.1)
        .map_err(|e| anyhow::anyhow!("{e}"))?;
    app.execute(
        "window.location.hash = `#/reader/${arguments[0]}`; window.location.reload();",
        vec![json!(book_id)],
    )
    .map_err(|e| anyhow::anyhow!("opening the reader: {e}"))?;
    app.wait_for_displayed(&format!(
        "{}[data-book-id=\"{book_id}\"]",
        testid("comic-reader")
    ))
    .map_err(|e| anyhow::anyhow!("the reader did not open: {e}"))?;
    turn(&app, None, 0)?;
    std::thread::sleep(PAUSE * 2);
    Ok(app)
}

/// Turns a page (see [`turn`]), then leaves the reader alone for [`PAUSE`].
fn turn_and_pause(app: &App, key: Option<&str>, target: u32) -> Result<Turn> {
    let done = turn(app, key, target)?;
    std::thread::sleep(PAUSE);
    Ok(done)
}

/// Closes the app, then lets go of its data dir and stops the fixture server.
fn close(app: App, env: Env, fixture: RunningServer) -> Result<()> {
    app.close()
        .map_err(|e| anyhow::anyhow!("closing the app: {e}"))?;
    drop(env);
    fixture.stop();
    Ok(())
}

/// `TURNS` turns forwards (→) at reading pace, from the first page.
fn turns_at_reading_pace(app: &App) -> Result<Vec<Turn>> {
    let mut reading = Vec::new();
    for page in 1..=TURNS {
        reading.push(turn_and_pause(app, Some("ArrowRight"), page)?);
    }
    Ok(reading)
}

pub fn run(report: &mut Report, runtime: &tokio::runtime::Runtime) -> Result<()> {
    eprintln!(
        "page turn: downloading a comic of {PAGES} pages of {} KiB ...",
        PAGE_BYTES / 1024
    );
    let fixture = fixture_server::Server::start(Config {
        books: 1,
        page_bytes: PAGE_BYTES,
        comic_pages: [(1, PAGES)].into(),
        reading_positions: Some(Default::default()),
        ..Config::default()
    })
    .context("starting the fixture server")?;
    let started = Instant::now();
    let (env, book_id) = runtime.block_on(stored_book(&fixture))?;
    let download_s = started.elapsed().as_secs_f64();
    let data_dir = env.store.data_dir().root().to_path_buf();

    eprintln!("page turn: opening the reader in the app ...");
    let app = app_reading(&data_dir, "bench-page-turn", book_id)?;
    fixture.reset_stats();

    eprintln!("page turn: {TURNS} turns forwards at reading pace ...");
    let reading = turns_at_reading_pace(&app)?;

    eprintln!("page turn: {TURNS} turns backwards from the store, each followed by one to a page in memory ...");
    let last = PAGES - 1;
    turn_and_pause(&app, Some("End"), last)?;
    let mut from_store = Vec::new();
    let mut in_memory = Vec::new();
    for i in 0..TURNS {
        let fresh = last - 1 - 2 * i;
        from_store.push(turn_and_pause(&app, Some("ArrowLeft"), fresh)?);
        let held = fresh - 1;
        preload(&app, book_id, held)?;
        in_memory.push(turn_and_pause(&app, Some("ArrowLeft"), held)?);
    }
    let network = page_requests(&fixture);
    close(app, env, fixture)?;

    report_steps(
        report,
        "page_turn_steps_ms",
        "a turn",
        ("from_store", "from the store", &from_store),
        &reading,
    );
    let loaded = |t: &[Turn]| Summary::of(&t.iter().map(|t| t.loaded).collect::<Vec<_>>()).median;
    let (store_loaded, memory_loaded, reading_loaded) =
        (loaded(&from_store), loaded(&in_memory), loaded(&reading));
    let (from_store, in_memory, reading) =
        (painted(&from_store), painted(&in_memory), painted(&reading));
    let base = Summary::of(&in_memory);
    let base_name = "same ← turn, page decoded in memory";
    report.row(
        turn_row(
            "page turn from the store (←, never loaded before)",
            &from_store,
            base_name,
            base,
        )
        .goal_at_most(TWO_FRAMES_MS),
    );
    report.row(
        turn_row(
            "page turn at reading pace (→, read ahead)",
            &reading,
            base_name,
            base,
        )
        .goal_median_p95(ONE_FRAME_MS, TWO_FRAMES_MS),
    );
    report.fact(
        "window",
        "page_turn_book",
        json!({ "pages": PAGES, "page_bytes": PAGE_BYTES, "download_s": download_s, "window": [WINDOW.0, WINDOW.1] }),
        format!(
            "one comic of {PAGES} pages of {} KiB (PNG, about 836 × 1254), downloaded by the executor in {download_s:.1} s; window {} × {}, single page, the app's default fit",
            PAGE_BYTES / 1024,
            WINDOW.0,
            WINDOW.1
        ),
    );
    report.fact(
        "window",
        "page_turn_loaded_ms",
        json!({ "from_store": store_loaded, "in_memory": memory_loaded, "reading_pace": reading_loaded }),
        format!(
            "key → image loaded and shown, before decoding and paint (medians): {store_loaded:.1} ms from the store, {memory_loaded:.1} ms in memory, {reading_loaded:.1} ms at reading pace"
        ),
    );
    report.fact(
        "window",
        "page_turn_server_requests",
        json!(network),
        format!("{network} page requests reached the server during the turns (expected 0: every page came from the device)"),
    );
    Ok(())
}

/// Pages in the PDF of the PDF page-turn series.
pub const PDF_PAGES: u32 = 2 * TURNS + 8;

/// A PDF of `pages` pages made by ReportLab (the window tests' script, Debian's python3-reportlab).
fn reportlab_pdf(pages: u32) -> Result<Vec<u8>> {
    let dir = tempfile::tempdir()?;
    let out = dir.path().join("book.pdf");
    let script = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../e2e/scripts/make-test-pdf.py"
    );
    let status = std::process::Command::new("/usr/bin/python3")
        .arg(script)
        .args([
            "book",
            out.to_str().context("a UTF-8 temp path")?,
            &pages.to_string(),
        ])
        .status()
        .context("running /usr/bin/python3 (make setup-test installs it and ReportLab)")?;
    if !status.success() {
        bail!("make-test-pdf.py failed: {status}");
    }
    Ok(std::fs::read(&out)?)
}

/// Page turns in a stored PDF (ReportLab, one colour and a title a page), drawn by pdf.js in the
/// window: ← to a page never drawn before (parse done, page drawn, made a picture, decoded),
/// each followed by → back to the page just left, whose picture the reader kept (the baseline:
/// the same code minus the drawing); and → at reading pace, where the reader drew ahead.
///
/// A PDF that cannot be read in the window is said (on stderr and as a fact, `MISSED` in the
/// rows' place) and the other window groups still run: the comic rows and the cold start do
/// not depend on it.
pub fn run_pdf(report: &mut Report, runtime: &tokio::runtime::Runtime) -> Result<()> {
    if let Err(e) = pdf_series(report, runtime) {
        eprintln!("page turn: the PDF series failed: {e:#}");
        report.fact(
            "window",
            "page_turn_pdf_failed",
            json!(format!("{e:#}")),
            format!("MISSED: the PDF page turns could not be measured: {e:#}"),
        );
    }
    Ok(())
}

fn pdf_series(report: &mut Report, runtime: &tokio::runtime::Runtime) -> Result<()> {
    eprintln!("page turn: downloading a PDF of {PDF_PAGES} pages ...");
    let pdf = reportlab_pdf(PDF_PAGES)?;
    let fixture = fixture_server::Server::start(Config {
        books: 1,
        files: [(
            1,
            fixture_server::GivenFile {
                media_type: "application/pdf".into(),
                extension: "pdf".into(),
                bytes: pdf.clone(),
            },
        )]
        .into(),
        reading_positions: Some(Default::default()),
        ..Config::default()
    })
    .context("starting the fixture server")?;
    let (env, book_id) = runtime.block_on(synced_book(&fixture))?;
    let data_dir = env.store.data_dir().root().to_path_buf();
    let app = app_reading(&data_dir, "bench-page-turn-pdf", book_id)?;

    eprintln!("page turn: {TURNS} PDF turns forwards at reading pace ...");
    let reading = turns_at_reading_pace(&app)?;
    eprintln!("page turn: {TURNS} PDF turns backwards to pages never drawn, each followed by one back ...");
    let last = PDF_PAGES - 1;
    turn_and_pause(&app, Some("End"), last)?;
    let mut fresh_turns = Vec::new();
    let mut kept_turns = Vec::new();
    let mut at = last;
    for _ in 0..TURNS {
        if at <= TURNS + 4 {
            break;
        }
        fresh_turns.push(turn_and_pause(&app, Some("ArrowLeft"), at - 1)?);
        kept_turns.push(turn_and_pause(&app, Some("ArrowRight"), at)?);
        // The page just drawn (at - 1) is kept now; the next fresh one is before it.
        turn_and_pause(&app, Some("ArrowLeft"), at - 1)?;
        at -= 1;
    }
    close(app, env, fixture)?;

    report_steps(
        report,
        "page_turn_pdf_steps_ms",
        "a PDF turn",
        ("never_drawn", "to a page never drawn", &fresh_turns),
        &reading,
    );
    let base = Summary::of(&painted(&kept_turns));
    let base_name = "same PDF, → back to a page already drawn";
    report.row(
        turn_row(
            "PDF page turn to a page never drawn (←)",
            &painted(&fresh_turns),
            base_name,
            base,
        )
        .goal_at_most(PDF_NEVER_DRAWN_MS),
    );
    report.row(
        turn_row(
            "PDF page turn at reading pace (→, drawn ahead)",
            &painted(&reading),
            base_name,
            base,
        )
        .goal_median_p95(ONE_FRAME_MS, TWO_FRAMES_MS),
    );
    report.fact(
        "window",
        "page_turn_pdf",
        json!({ "pages": PDF_PAGES, "bytes": pdf.len(), "window": [WINDOW.0, WINDOW.1] }),
        format!(
            "one PDF of {PDF_PAGES} A5 pages ({} KiB, ReportLab: a full-page colour and large type a page); window {} × {}, single page, fitted to the screen",
            pdf.len() / 1024,
            WINDOW.0,
            WINDOW.1
        ),
    );
    Ok(())
}
