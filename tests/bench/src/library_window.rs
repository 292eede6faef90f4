//! The real window with a library of 10,000 books on the device: Books on this device scrolled
//! from top to bottom (frame times), and what the app and its WebKit processes hold in memory
//! once a 200-page comic has been read to its end, and after reading it again.
//!
//! The library: [`BOOKS`] comic files of one small page each (and a ComicInfo.xml giving a
//! title, a series and a number), written into a folder and imported by reference through the
//! core's `local_books::import`, as "Open file…" does; one of them, the comic read, has
//! [`COMIC_PAGES`] pages of about 2 MiB each (836 × 1254 pixels, as the page-turn benchmark's).
//! No server: every book is the reader's own.
//!
//! One launch of the app does it all, as one reading session would:
//! 1. Home painted; the memory then is the memory baseline.
//! 2. Books on this device opened; [`IDLE_FRAMES`] animation frames with nothing moving (the
//!    frame-time baseline: the display's own pace under Xvfb), then the grid scrolled by half
//!    its height every frame from its first row to its last. A frame's time is the time between
//!    two `requestAnimationFrame` callbacks. Then, from the top again, the same grid at a
//!    wheel's pace ([`READER_STEP_PX`] a frame, for [`READER_FRAMES`] frames). Beside each scroll,
//!    the CPU time the app's processes used a frame (the web process's apart): unlike a frame's
//!    wall time, it hardly moves when other programs share the cores.
//! 3. The comic opened and read to its last page, one key press a page, each page painted before
//!    the next key; the memory measured. Then read back to the first page and forwards to the
//!    last again; the memory measured once more, in the same place: what the second reading
//!    added is what the reader keeps without bound.
//!
//! Memory is the resident set (`VmRSS`) of the app's process and every process under it (the
//! WebKit web and network processes), summed, read one second after the last turn; the
//! proportional set (`Pss`, shared pages divided among the processes sharing them) is printed
//! beside it.

use std::io::{BufWriter, Write};
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use anyhow::{bail, Context, Result};
use serde_json::{json, Value};

use carrel_core::catalog::local_books::{self, ImportMode};
use carrel_core::foundation::{clock, data_dir::DataDir, store::Store};
use carrel_e2e::{process::Proc, testid, App};

use crate::page_turn;
use crate::report::{Report, Row, Summary};
use crate::window::{self, WINDOW};

/// Books on the device.
pub const BOOKS: u32 = 10_000;
/// Pages of the comic read.
pub const COMIC_PAGES: u32 = 200;
/// Its pages' size: about 2 MiB each as uncompressed PNGs, 4 MiB each decoded.
const PAGE_SIZE: (u32, u32) = (836, 1254);
/// The other books' one page, their cover.
const SMALL_PAGE: (u32, u32) = (100, 150);
/// Frames counted with nothing moving, before the scroll.
const IDLE_FRAMES: u32 = 120;
/// The product's goals: a frame within 16.7 ms (60 frames a second) while the library scrolls,
/// and the app's processes within 300 MiB together after a long comic.
pub const GOAL_FRAME_MS: f64 = 16.7;
pub const GOAL_MEMORY_MIB: f64 = 300.0;
/// A second reading of the same comic may add this fraction at most.
const GOAL_SECOND_READ: f64 = 1.05;
/// The pause after a reading, before memory is read.
const SETTLE: Duration = Duration::from_secs(1);

/// Counts `arguments[0]` frames with nothing moving, then scrolls Books on this device by
/// `arguments[2]` px each frame (0: half its height), from where it is, for `arguments[1]` ms at
/// most, to its end or for `arguments[3]` frames (0: no limit); answers
/// `{ idle: [ms…], scrolling: [ms…], end, last, total, scrolled }` (`end`: the end was reached;
/// `last`: the highest place in the list of a tile in the document then; `total`: the list's
/// size), or `{ error }`. Called again until the end is reached: one call stays within
/// WebDriver's limit on a script.
const SCROLL_JS: &str = r#"
  const [idleFrames, budgetMs, stepPx, maxFrames] = arguments;
  const done = arguments[arguments.length - 1];
  const grid = document.querySelector('[data-testid="on-device-grid"]');
  if (!grid) { done({ error: 'Books on this device shows no grid' }); return; }
  let scroller = grid;
  while (scroller && !['auto', 'scroll'].includes(getComputedStyle(scroller).overflowY)) scroller = scroller.parentElement;
  if (!scroller) scroller = document.scrollingElement;
  const step = stepPx > 0 ? stepPx : Math.max(1, Math.round(scroller.clientHeight / 2));
  const idle = [];
  const scrolling = [];
  let last = null;
  const started = performance.now();
  const answer = (end) => {
    const places = [...grid.querySelectorAll('li[aria-posinset]')].map((li) => Number(li.getAttribute('aria-posinset')));
    const total = Number(grid.querySelector('li[aria-setsize]')?.getAttribute('aria-setsize') ?? 0);
    done({ idle, scrolling, end, last: Math.max(0, ...places), total, scrolled: scroller.scrollTop });
  };
  const frame = (now) => {
    if (last !== null) (idle.length < idleFrames ? idle : scrolling).push(now - last);
    last = now;
    if (idle.length >= idleFrames) {
      if (scroller.scrollTop + scroller.clientHeight >= scroller.scrollHeight - 1 && scrolling.length > 0) { answer(true); return; }
      if (maxFrames > 0 && scrolling.length >= maxFrames) { answer(true); return; }
      if (now - started > budgetMs) { answer(false); return; }
      scroller.scrollTop += step;
    }
    requestAnimationFrame(frame);
  };
  requestAnimationFrame(frame);"#;

/// The reader's pace: one step of a mouse wheel every frame (GTK scrolls a view of height `h` by
/// `h^(2/3)` a notch: 100 px for a view of 1000 px), 6,000 px a second at 60 frames a second —
/// a quick spin of the wheel, kept up for [`READER_FRAMES`] frames (ten seconds at 60 a second,
/// about 1,700 books).
const READER_STEP_PX: u32 = 100;
const READER_FRAMES: u32 = 600;

/// What one call of [`SCROLL_JS`] may take.
const SCROLL_BUDGET_MS: u64 = 15_000;
/// What the whole scroll may take before the benchmark gives up.
const SCROLL_LIMIT: Duration = Duration::from_secs(600);

/// The scroll from the top of Books on this device (where it opens) to its end: the still
/// frames, the scrolling ones, the pixels scrolled.
fn scroll_to_end(app: &App) -> Result<(Vec<f64>, Vec<f64>, f64)> {
    scroll(app, 0, 0)
}

/// The scroll from where the view stands by `step_px` a frame (0: half the view), to the end or
/// for `most_frames` frames (0: to the end); see [`SCROLL_JS`].
fn scroll(app: &App, step_px: u32, most_frames: u32) -> Result<(Vec<f64>, Vec<f64>, f64)> {
    let frames = |answer: &Value, k: &str| -> Vec<f64> {
        answer
            .get(k)
            .and_then(Value::as_array)
            .map(|v| v.iter().filter_map(Value::as_f64).collect())
            .unwrap_or_default()
    };
    let number = |answer: &Value, k: &str| answer.get(k).and_then(Value::as_f64).unwrap_or(0.0);
    let (mut idle, mut scrolling) = (Vec::new(), Vec::new());
    let started = Instant::now();
    loop {
        let still = if idle.is_empty() { IDLE_FRAMES } else { 0 };
        let answer = app
            .execute_async(
                SCROLL_JS,
                vec![
                    json!(still),
                    json!(SCROLL_BUDGET_MS),
                    json!(step_px),
                    json!(most_frames.saturating_sub(scrolling.len() as u32)),
                ],
            )
            .map_err(|e| anyhow::anyhow!("scrolling the library: {e}"))?;
        if let Some(error) = answer.get("error") {
            bail!("scrolling the library: {error}");
        }
        idle.extend(frames(&answer, "idle"));
        scrolling.extend(frames(&answer, "scrolling"));
        if most_frames > 0 && scrolling.len() >= most_frames as usize {
            return Ok((idle, scrolling, number(&answer, "scrolled")));
        }
        if answer.get("end").and_then(Value::as_bool) == Some(true) {
            let (last, total) = (number(&answer, "last"), number(&answer, "total"));
            if total as u32 != BOOKS || last as u32 != BOOKS {
                bail!("the scroll ended without the last book in sight: {last} of {total} (expected {BOOKS})");
            }
            return Ok((idle, scrolling, number(&answer, "scrolled")));
        }
        if started.elapsed() > SCROLL_LIMIT {
            bail!(
                "the scroll had not reached the end after {} s: at {} px after {} frames",
                SCROLL_LIMIT.as_secs(),
                number(&answer, "scrolled"),
                scrolling.len()
            );
        }
        eprintln!(
            "library: {} frames, at {:.0} px ...",
            scrolling.len(),
            number(&answer, "scrolled")
        );
    }
}

/// How fast a measured scroll goes.
#[derive(Clone, Copy, PartialEq)]
enum Pace {
    /// Half the view a frame, from where the view stands to the list's end.
    HalfTheView,
    /// [`READER_STEP_PX`] a frame for [`READER_FRAMES`] frames.
    Wheel,
}

/// Scrolls Books on this device at `pace` and reports the frames (a row against the still
/// frames) and a fact with the frames over 1.5× the still frame's median and the CPU time the
/// app's processes used a frame.
fn measured_scroll(
    report: &mut Report,
    app: &App,
    process: &Proc,
    pace: Pace,
    probe_css: Option<&str>,
) -> Result<()> {
    let cpu_before = cpu_ms_of(process);
    let (idle, scrolling, scrolled) = match pace {
        Pace::HalfTheView => scroll_to_end(app)?,
        Pace::Wheel => scroll(app, READER_STEP_PX, READER_FRAMES)?,
    };
    let cpu_after = cpu_ms_of(process);
    let frames = scrolling.len().max(1) as f64;
    let (cpu, web_cpu) = (
        (cpu_after.0 - cpu_before.0) / frames,
        (cpu_after.1 - cpu_before.1) / frames,
    );
    let idle_median = Summary::of(&idle).median;
    let missed = scrolling
        .iter()
        .filter(|ms| **ms > idle_median * 1.5)
        .count();
    let (how, fact, step) = match pace {
        Pace::HalfTheView => (
            "top to bottom".to_string(),
            "library_scroll",
            "half the view".to_string(),
        ),
        Pace::Wheel => (
            format!("at a wheel's pace ({READER_STEP_PX} px a frame)"),
            "library_scroll_wheel_pace",
            format!("{READER_STEP_PX} px"),
        ),
    };
    report.row(
        Row::new(
            "window",
            format!("frame while Books on this device scrolls, {BOOKS} books, {how}"),
            "ms",
            Summary::of(&scrolling),
            "frame, nothing moving",
            Summary::of(&idle),
        )
        .goal_at_most(GOAL_FRAME_MS),
    );
    report.fact(
        "window",
        fact,
        json!({ "frames": scrolling.len(), "late_frames": missed, "scrolled_px": scrolled,
                "idle_frame_median_ms": idle_median, "probe_css": probe_css,
                "cpu_ms_per_frame": cpu, "web_process_cpu_ms_per_frame": web_cpu }),
        format!(
            "{} frames to scroll {scrolled:.0} px ({step} a frame); {missed} took more than 1.5× the still frame's median ({idle_median:.1} ms); CPU a frame {cpu:.1} ms, {web_cpu:.1} ms of it in the web process",
            scrolling.len(),
        ),
    );
    Ok(())
}

/// The memory of the app's processes at one moment, in KiB.
#[derive(Debug, Clone, Default)]
struct Memory {
    rss_kib: u64,
    pss_kib: u64,
    processes: usize,
    /// Each process's short name, RSS and PSS (KiB), and its anonymous memory (KiB: heaps,
    /// decoded pictures) as `smaps_rollup` counts it.
    each: Vec<(String, u64, u64, u64)>,
}

impl Memory {
    fn rss_mib(&self) -> f64 {
        self.rss_kib as f64 / 1024.0
    }
    /// Each process's RSS / PSS / anonymous memory, for the facts.
    fn each_process(&self) -> String {
        self.each
            .iter()
            .map(|(name, rss, pss, anonymous)| {
                format!(
                    "{name} {:.0} / {:.0} / {:.0} MiB",
                    *rss as f64 / 1024.0,
                    *pss as f64 / 1024.0,
                    *anonymous as f64 / 1024.0
                )
            })
            .collect::<Vec<_>>()
            .join(", ")
    }

    /// The same, in KiB, for the JSON report.
    fn each_process_json(&self) -> Vec<Value> {
        self.each
            .iter()
            .map(|(name, rss, pss, anonymous)| {
                json!({ "name": name, "rss_kib": rss, "pss_kib": pss, "anonymous_kib": anonymous })
            })
            .collect()
    }

    fn pss_mib(&self) -> f64 {
        self.pss_kib as f64 / 1024.0
    }
}

/// A `Name:  N kB` field of a `/proc` file, in KiB.
fn kib_field(text: &str, name: &str) -> Option<u64> {
    text.lines()
        .find(|l| l.starts_with(name))?
        .split_whitespace()
        .nth(1)?
        .parse()
        .ok()
}

/// The app's process and every process under it, summed.
fn memory_of(app: &Proc) -> Result<Memory> {
    let mut all = vec![app.clone()];
    all.extend(Proc::descendants(app.pid));
    let mut memory = Memory::default();
    for p in &all {
        let status = std::fs::read_to_string(format!("/proc/{}/status", p.pid))
            .with_context(|| format!("reading the memory of {} ({})", p.comm, p.pid))?;
        let rss = kib_field(&status, "VmRSS:").unwrap_or(0);
        let rollup =
            std::fs::read_to_string(format!("/proc/{}/smaps_rollup", p.pid)).unwrap_or_default();
        let pss = kib_field(&rollup, "Pss:").unwrap_or(0);
        memory.rss_kib += rss;
        memory.pss_kib += pss;
        memory.processes += 1;
        let anonymous = kib_field(&rollup, "Anonymous:").unwrap_or(0);
        memory.each.push((p.comm.clone(), rss, pss, anonymous));
    }
    Ok(memory)
}

/// The CPU time the app's process and every process under it have used (user and system), in
/// ms, with WebKit's web process apart: `(all, web process)`. The kernel counts it in clock
/// ticks (10 ms); over a scroll of hundreds of frames that is fine enough, and unlike a frame's
/// wall time it hardly moves when other programs share the cores.
fn cpu_ms_of(app: &Proc) -> (f64, f64) {
    // SAFETY: sysconf only reads a constant of the system.
    let ticks = unsafe { libc::sysconf(libc::_SC_CLK_TCK) }.max(1) as f64;
    let mut all = vec![app.clone()];
    all.extend(Proc::descendants(app.pid));
    let (mut total, mut web) = (0.0, 0.0);
    for p in &all {
        let Ok(stat) = std::fs::read_to_string(format!("/proc/{}/stat", p.pid)) else {
            continue;
        };
        let Some(close) = stat.rfind(')') else {
            continue;
        };
        let fields: Vec<&str> = stat[close + 1..].split_whitespace().collect();
        // utime and stime: fields 14 and 15 of stat, 12 and 13 after the name.
        let used: f64 = [11, 12]
            .iter()
            .filter_map(|i| fields.get(*i)?.parse::<f64>().ok())
            .sum();
        let ms = used * 1000.0 / ticks;
        total += ms;
        if p.comm.starts_with("WebKitWebProces") {
            web += ms;
        }
    }
    (total, web)
}

/// A comic archive at `path`: a ComicInfo.xml and `pages`, stored uncompressed.
fn write_cbz(
    path: &Path,
    title: &str,
    series: &str,
    number: u32,
    pages: impl Iterator<Item = Vec<u8>>,
) -> Result<()> {
    let file =
        std::fs::File::create(path).with_context(|| format!("creating {}", path.display()))?;
    let mut zip = zip::ZipWriter::new(BufWriter::new(file));
    let stored =
        zip::write::SimpleFileOptions::default().compression_method(zip::CompressionMethod::Stored);
    zip.start_file("ComicInfo.xml", stored)?;
    write!(
        zip,
        "<?xml version=\"1.0\"?><ComicInfo><Title>{title}</Title><Series>{series}</Series><Number>{number}</Number></ComicInfo>"
    )?;
    for (i, page) in pages.enumerate() {
        zip.start_file(format!("{:03}.png", i + 1), stored)?;
        zip.write_all(&page)?;
    }
    zip.finish()?.flush()?;
    Ok(())
}

/// The library: its temporary folder (files and data dir), the data dir, the comic's book id.
struct Library {
    _tmp: tempfile::TempDir,
    data_dir: PathBuf,
    comic: i64,
    setup_s: f64,
}

/// Where `CARREL_BENCH_KEEP_LIBRARY` names a folder, the library is built there once and used
/// again by the next runs (for looking at one row again without building it anew).
fn library() -> Result<Library> {
    let started = Instant::now();
    let tmp = match std::env::var_os("CARREL_BENCH_KEEP_LIBRARY") {
        Some(kept) => {
            let kept = PathBuf::from(kept);
            let db = kept.join("data").join("carrel.db");
            std::fs::create_dir_all(&kept)?;
            let tmp = tempfile::tempdir_in(&kept)?;
            if db.exists() {
                let store = Store::open(&DataDir::new(kept.join("data")), clock::system())?;
                let comic = store.read(|c| {
                    c.query_row(
                        "SELECT id FROM books WHERE title = 'The Long Read'",
                        [],
                        |r| r.get(0),
                    )
                    .map_err(|e| anyhow::anyhow!("finding the long comic: {e}"))
                })?;
                // The last run read it to its end: this one starts at its first page again.
                carrel_core::library::books::mark_opened(&store, comic, Some(0))?;
                return Ok(Library {
                    data_dir: kept.join("data"),
                    _tmp: tmp,
                    comic,
                    setup_s: 0.0,
                });
            }
            return build_library(tmp, kept, started);
        }
        None => tempfile::tempdir()?,
    };
    let root = tmp.path().to_path_buf();
    build_library(tmp, root, started)
}

fn build_library(tmp: tempfile::TempDir, root: PathBuf, started: Instant) -> Result<Library> {
    let tmp_root = root;
    let files = tmp_root.join("books");
    std::fs::create_dir_all(&files)?;
    let dir = DataDir::new(tmp_root.join("data"));
    let store = Store::open(&dir, clock::system())?;
    let comic_path = files.join("The Long Read.cbz");
    write_cbz(
        &comic_path,
        "The Long Read",
        "Long Reads",
        1,
        (0..COMIC_PAGES).map(|i| fixture_server::numbered_png(PAGE_SIZE.0, PAGE_SIZE.1, i + 1)),
    )?;
    let comic = local_books::import(&store, &comic_path, ImportMode::Reference)
        .context("importing the long comic")?
        .book_id;
    for i in 1..BOOKS {
        if i % 1000 == 0 {
            eprintln!("library: {i} of {BOOKS} books imported ...");
        }
        let path = files.join(format!("Volume {i:05}.cbz"));
        let page = fixture_server::numbered_png(SMALL_PAGE.0, SMALL_PAGE.1, i);
        write_cbz(
            &path,
            &format!("Volume {i}"),
            &format!("Shelf {}", i % 500),
            i / 500 + 1,
            std::iter::once(page),
        )?;
        local_books::import(&store, &path, ImportMode::Reference)
            .with_context(|| format!("importing {}", path.display()))?;
    }
    Ok(Library {
        data_dir: dir.root().to_path_buf(),
        _tmp: tmp,
        comic,
        setup_s: started.elapsed().as_secs_f64(),
    })
}

/// Turns from `from` to `to` one page at a time (→ or ←), each painted before the next key.
fn read(app: &App, from: u32, to: u32) -> Result<()> {
    let (key, pages): (&str, Vec<u32>) = if to > from {
        ("ArrowRight", (from + 1..=to).collect())
    } else {
        ("ArrowLeft", (to..from).rev().collect())
    };
    for page in pages {
        page_turn::turn(app, Some(key), page)?;
    }
    Ok(())
}

/// The memory of the app's processes once the last change has settled.
fn settled_memory(process: &Proc) -> Result<Memory> {
    std::thread::sleep(SETTLE);
    memory_of(process)
}

pub fn run(report: &mut Report) -> Result<()> {
    eprintln!("library: writing and importing {BOOKS} comic files ...");
    let lib = library()?;
    eprintln!(
        "library: built in {:.0} s; launching the app ...",
        lib.setup_s
    );
    let app = window::launch(&lib.data_dir, "bench-library")?;
    app.set_window_size(WINDOW.0, WINDOW.1)
        .map_err(|e| anyhow::anyhow!("{e}"))?;
    let process = app
        .process()
        .cloned()
        .context("the app's process was not found under the driver")?;
    // Home: with no server saved, its invitation to add one.
    app.wait_for_displayed(&format!(
        "{}, {}",
        testid("library-view"),
        testid("empty-library")
    ))
    .map_err(|e| anyhow::anyhow!("Home did not show: {e}"))?;
    let at_start = settled_memory(&process)?;

    eprintln!("library: scrolling Books on this device from top to bottom ...");
    // For finding where a frame's time goes: CSS laid over the window before Books on this
    // device opens (e.g. `.cover { box-shadow: none !important }`, or a layout that changes
    // which element scrolls), said in the facts.
    let probe_css = std::env::var("CARREL_BENCH_SCROLL_CSS").ok();
    if let Some(css) = &probe_css {
        app.execute(
            "const s = document.createElement('style'); s.textContent = arguments[0]; document.head.append(s);",
            vec![json!(css)],
        )
        .map_err(|e| anyhow::anyhow!("adding the probe's CSS: {e}"))?;
    }
    app.wait_for(&testid("on-device-nav"))
        .and_then(|e| e.click())
        .map_err(|e| anyhow::anyhow!("opening Books on this device: {e}"))?;
    app.wait_for_displayed(&testid("on-device-grid"))
        .map_err(|e| anyhow::anyhow!("Books on this device shows no grid: {e}"))?;
    measured_scroll(
        report,
        &app,
        &process,
        Pace::HalfTheView,
        probe_css.as_deref(),
    )?;
    // The same grid at the reader's pace, from its top again.
    app.execute(
        "const grid = document.querySelector('[data-testid=\"on-device-grid\"]'); let at = grid; \
         while (at && !['auto', 'scroll'].includes(getComputedStyle(at).overflowY)) at = at.parentElement; \
         (at ?? document.scrollingElement).scrollTop = 0;",
        vec![],
    )
    .map_err(|e| anyhow::anyhow!("scrolling back to the top: {e}"))?;
    measured_scroll(report, &app, &process, Pace::Wheel, probe_css.as_deref())?;
    // For looking at the scroll alone.
    if std::env::var_os("CARREL_BENCH_SCROLL_ONLY").is_some() {
        app.close()
            .map_err(|e| anyhow::anyhow!("closing the app: {e}"))?;
        return Ok(());
    }

    eprintln!("library: reading a comic of {COMIC_PAGES} pages to its end, twice ...");
    app.execute(
        "window.location.hash = `#/reader/${arguments[0]}`; window.location.reload();",
        vec![json!(lib.comic)],
    )
    .map_err(|e| anyhow::anyhow!("opening the reader: {e}"))?;
    app.wait_for_displayed(&format!(
        "{}[data-book-id=\"{}\"]",
        testid("comic-reader"),
        lib.comic
    ))
    .map_err(|e| anyhow::anyhow!("the reader did not open: {e}"))?;
    page_turn::turn(&app, None, 0)?;
    let last = COMIC_PAGES - 1;
    read(&app, 0, last)?;
    let first_read = settled_memory(&process)?;
    read(&app, last, 0)?;
    read(&app, 0, last)?;
    let second_read = settled_memory(&process)?;
    app.close()
        .map_err(|e| anyhow::anyhow!("closing the app: {e}"))?;

    report.row(
        Row::new(
            "window",
            format!("memory after reading a {COMIC_PAGES}-page comic to its end, {BOOKS} books (app and WebKit, RSS)"),
            "MiB",
            Summary::single(first_read.rss_mib()),
            "the same at start, Home shown",
            Summary::single(at_start.rss_mib()),
        )
        .goal_at_most(GOAL_MEMORY_MIB),
    );
    report.row(
        Row::new(
            "window",
            "the same, PSS (pages shared between the processes counted once)",
            "MiB",
            Summary::single(first_read.pss_mib()),
            "the same at start, Home shown",
            Summary::single(at_start.pss_mib()),
        )
        .goal_at_most(GOAL_MEMORY_MIB),
    );
    report.row(
        Row::new(
            "window",
            "memory after reading it again, back to the start and to its end",
            "MiB",
            Summary::single(second_read.rss_mib()),
            "after the first reading",
            Summary::single(first_read.rss_mib()),
        )
        .goal(GOAL_SECOND_READ),
    );
    report.fact(
        "window",
        "library_memory",
        json!({
            "processes": second_read.processes,
            "rss_mib": { "start": at_start.rss_mib(), "first_read": first_read.rss_mib(), "second_read": second_read.rss_mib() },
            "pss_mib": { "start": at_start.pss_mib(), "first_read": first_read.pss_mib(), "second_read": second_read.pss_mib() },
            "setup_s": lib.setup_s,
            "processes_at_start": at_start.each_process_json(),
            "processes_after_second_read": second_read.each_process_json(),
        }),
        format!(
            "{} processes; RSS {:.0} → {:.0} → {:.0} MiB, PSS {:.0} → {:.0} → {:.0} MiB (start, one reading, two); RSS / PSS / anonymous at start: {}; after two readings: {}; library of {BOOKS} files built and imported in {:.0} s",
            second_read.processes,
            at_start.rss_mib(),
            first_read.rss_mib(),
            second_read.rss_mib(),
            at_start.pss_mib(),
            first_read.pss_mib(),
            second_read.pss_mib(),
            at_start.each_process(),
            second_read.each_process(),
            lib.setup_s
        ),
    );
    Ok(())
}
