//! Page turns from comics kept as one archive file: page N of a stored 200-page CBZ (zip,
//! straight to the entry) and CB7 (libarchive, which walks to the entry), against reading the
//! same page from its own file as page-streamed comics are stored. The archives are made by
//! Python's `zipfile` and by `7z`; the table of contents is read once, as the reader keeps it.

use std::process::Command;
use std::time::{Duration, Instant};

use anyhow::{bail, Context, Result};
use carrel_core::reading::comic_archive::ComicArchive;

use crate::report::{millis, Report, Row, Summary};

const PAGES: usize = 200;
const PAGE_BYTES: usize = 600 << 10;
const TURNS: usize = 40;

fn run(cmd: &mut Command) -> Result<()> {
    let out = cmd
        .output()
        .with_context(|| format!("cannot run {cmd:?} (see the Makefile's test packages)"))?;
    if !out.status.success() {
        bail!("{cmd:?} failed: {}", String::from_utf8_lossy(&out.stderr));
    }
    Ok(())
}

pub fn run_group(report: &mut Report) -> Result<()> {
    let tmp = tempfile::tempdir()?;
    let pages = tmp.path().join("pages");
    std::fs::create_dir_all(&pages)?;
    // Incompressible pages, as JPEGs are.
    let mut seed = 0x2545_f491_4f6c_dd1du64;
    for n in 1..=PAGES {
        let mut bytes = vec![0u8; PAGE_BYTES];
        for b in bytes.iter_mut() {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            *b = seed as u8;
        }
        std::fs::write(pages.join(format!("{n:03}.jpg")), bytes)?;
    }
    let cbz = tmp.path().join("book.cbz");
    run(Command::new("python3")
        .arg("-c")
        .arg("import sys, os, zipfile\nz = zipfile.ZipFile(sys.argv[2], 'w', zipfile.ZIP_DEFLATED)\nfor f in sorted(os.listdir(sys.argv[1])): z.write(os.path.join(sys.argv[1], f), f)\nz.close()")
        .arg(&pages)
        .arg(&cbz))?;
    let cb7 = tmp.path().join("book.cb7");
    run(Command::new("7z")
        .args(["a", "-bd", "-t7z", "-mx=1"])
        .arg(&cb7)
        .arg(".")
        .current_dir(&pages))?;

    // The same pages in a scattered order, as a reader jumping about would ask: an archive read
    // by walking it (7z) goes on with the walk it kept when the page lies further on, and walks
    // from its start again only for a page before it.
    let order: Vec<usize> = (0..TURNS).map(|i| (i * 73 + 11) % PAGES).collect();
    let files = measure(&order, |i| {
        Ok(std::fs::read(pages.join(format!("{:03}.jpg", i + 1)))?)
    })?;
    for (name, path) in [
        ("page from a stored CBZ (zip)", &cbz),
        ("page from a stored CB7 (7z)", &cb7),
    ] {
        let archive = ComicArchive::open(path)?;
        if archive.page_count() != PAGES {
            bail!(
                "{}: {} pages, not {PAGES}",
                path.display(),
                archive.page_count()
            );
        }
        let value = measure(&order, |i| Ok(archive.page(i)?))?;
        report.row(
            Row::new("archive", name, "ms", value, "the page's own file", files).goal_at_most(50.0),
        );
    }
    // Turning pages one after another, as a reader does: an archive read by walking it (7z)
    // takes the pages after the one asked for in the same walk.
    let pace: Vec<usize> = (100..100 + TURNS).map(|i| i % PAGES).collect();
    let files_in_order = measure(&pace, |i| {
        Ok(std::fs::read(pages.join(format!("{:03}.jpg", i + 1)))?)
    })?;
    for (name, path) in [
        ("next page from a stored CBZ (zip)", &cbz),
        ("next page from a stored CB7 (7z)", &cb7),
    ] {
        let archive = ComicArchive::open(path)?;
        let value = measure(&pace, |i| Ok(archive.page(i)?))?;
        report.row(
            Row::new(
                "archive",
                name,
                "ms",
                value,
                "the page's own file",
                files_in_order,
            )
            .goal_at_most(50.0),
        );
    }
    // Turning back one page after reading on one, at every page of the same stretch: the
    // page turned back to may be the one a walk started from.
    let back = |read: &mut dyn FnMut(usize) -> Result<Vec<u8>>| -> Result<Summary> {
        let mut times = Vec::with_capacity(pace.len());
        for &i in &pace {
            read(i)?;
            read((i + 1) % PAGES)?;
            times.push(timed_page(&mut *read, i)?);
        }
        Ok(Summary::of(&millis(&times)))
    };
    let files_back = back(&mut |i| Ok(std::fs::read(pages.join(format!("{:03}.jpg", i + 1)))?))?;
    let archive = ComicArchive::open(&cb7)?;
    let value = back(&mut |i| Ok(archive.page(i)?))?;
    report.row(
        Row::new(
            "archive",
            "previous page from a stored CB7 (7z), after reading on one",
            "ms",
            value,
            "the page's own file",
            files_back,
        )
        .goal_at_most(50.0),
    );
    report.fact(
        "archive",
        "pages",
        serde_json::json!(PAGES),
        format!("{PAGES} pages of {} KiB", PAGE_BYTES >> 10),
    );
    Ok(())
}

fn measure(order: &[usize], mut read: impl FnMut(usize) -> Result<Vec<u8>>) -> Result<Summary> {
    // One untimed pass warms the page cache, as a book read a while is.
    for &i in order.iter().take(5) {
        read(i)?;
    }
    let mut times = Vec::with_capacity(order.len());
    for &i in order {
        times.push(timed_page(&mut read, i)?);
    }
    Ok(Summary::of(&millis(&times)))
}

/// How long `read` takes to give page `i`, which must be whole.
fn timed_page(read: &mut dyn FnMut(usize) -> Result<Vec<u8>>, i: usize) -> Result<Duration> {
    let start = Instant::now();
    let bytes = read(i)?;
    let took = start.elapsed();
    if bytes.len() != PAGE_BYTES {
        bail!("page {i} has {} bytes", bytes.len());
    }
    Ok(took)
}

/// Times in the remote-read comparison.
const REMOTE_REPS: usize = 5;
/// The remote comic: pages of this size, and what the server sends a second.
const REMOTE_PAGES: u32 = 200;
const REMOTE_PAGE_BYTES: usize = 64 << 10;
const REMOTE_BANDWIDTH: u64 = 4_000_000;

/// Page 150 of a 200-page CBZ that is not stored, opened while its file downloads from a
/// server sending 4 MB/s (the file takes about 3 s): time from opening the book to the page's
/// bytes, against an idle fetch of that page's bytes (one Range request, nothing else running).
/// Opening also fetches the file's tail (its directory) first, and the download gives way.
pub fn run_remote(report: &mut Report, runtime: &tokio::runtime::Runtime) -> Result<()> {
    use fixture_server::{Behavior, Config, Faults};
    let fixture = fixture_server::Server::start(Config {
        books: 1,
        page_bytes: REMOTE_PAGE_BYTES,
        comic_pages: [(1, REMOTE_PAGES)].into(),
        behavior: Behavior {
            whole_file_comics: true,
            ..Behavior::default()
        },
        faults: Faults {
            bandwidth: Some(REMOTE_BANDWIDTH),
            ..Faults::default()
        },
        ..Config::default()
    })
    .context("starting the fixture server")?;
    let length = fixture.book(1).context("book 1")?.length;
    let (mut opens, mut jumps, mut tails, mut pages, mut sent) =
        (Vec::new(), Vec::new(), Vec::new(), Vec::new(), Vec::new());
    for _ in 0..REMOTE_REPS {
        let (open, jump, bytes) = runtime.block_on(open_then_page_150(&fixture))?;
        opens.push(open);
        jumps.push(jump);
        sent.push(bytes as f64);
        let (tail, page) = runtime.block_on(parts_alone(&fixture))?;
        tails.push(tail);
        pages.push(page);
    }
    report.row(Row::new(
        "archive",
        "open a CBZ not stored (its directory), file downloading",
        "ms",
        Summary::of(&millis(&opens)),
        "the file's tail fetched alone",
        Summary::of(&millis(&tails)),
    ));
    report.row(
        Row::new(
            "archive",
            "then page 150 of it, file downloading",
            "ms",
            Summary::of(&millis(&jumps)),
            "the page's bytes fetched alone",
            Summary::of(&millis(&pages)),
        )
        .goal(2.0),
    );
    let median_sent = Summary::of(&sent).median;
    report.fact(
        "archive",
        "remote file bytes before page 150",
        serde_json::json!(median_sent),
        format!("{median_sent:.0} of the file's {length} bytes had been sent when page 150 came (median)"),
    );
    fixture.stop();
    Ok(())
}

async fn open_then_page_150(
    fixture: &fixture_server::RunningServer,
) -> Result<(std::time::Duration, std::time::Duration, u64)> {
    use carrel_core::{
        engine::executor::RunMode,
        reading::{
            archive_pages,
            page_source::{self, WaitPolicy},
        },
    };
    use std::time::Duration;
    let env = crate::engine::Env::new(&fixture.url("/opds"))?;
    let id = env
        .register_library()
        .await?
        .into_iter()
        .next()
        .context("the feed lists the book")?;
    fixture.reset_stats();
    let executor = env.executor()?;
    let (stop, rx) = tokio::sync::watch::channel(false);
    let run = tokio::spawn(async move { executor.run(RunMode::Forever, rx).await });
    // As the app waits (its poll), with room for a slow machine.
    let wait = WaitPolicy {
        timeout: Duration::from_secs(60),
        ..WaitPolicy::default()
    };
    let started = Instant::now();
    let opened = archive_pages::open(&env.store, id, wait).await?;
    let open = started.elapsed();
    if opened.page_count != REMOTE_PAGES as usize {
        bail!("{} pages, not {REMOTE_PAGES}", opened.page_count);
    }
    // The file's download is under way again by now.
    tokio::time::sleep(Duration::from_millis(200)).await;
    let started = Instant::now();
    let image = page_source::page(&env.store, id, 149, wait).await?;
    let jump = started.elapsed();
    if image.bytes != fixture.page_bytes(1, 149).context("page 150")? {
        bail!("page 150 is not the server's");
    }
    let bytes = fixture.stats().bytes("/books/1/file");
    stop.send(true).ok();
    run.await??;
    Ok((open, jump, bytes))
}

/// The file's tail, then page 150's bytes, each fetched alone with one plain Range request.
async fn parts_alone(
    fixture: &fixture_server::RunningServer,
) -> Result<(std::time::Duration, std::time::Duration)> {
    use carrel_core::reading::remote_zip::{RemoteZip, TAIL_BYTES};
    let client = reqwest::Client::new();
    let url = fixture.url("/books/1/file");
    let started = Instant::now();
    let tail = client
        .get(&url)
        .header("range", format!("bytes=-{TAIL_BYTES}"))
        .send()
        .await?
        .bytes()
        .await?;
    let tail_took = started.elapsed();
    let zip = RemoteZip::from_tail(tail.to_vec())?;
    let (start, end) = zip.page_range(149)?;
    let started = Instant::now();
    let part = client
        .get(&url)
        .header("range", format!("bytes={start}-{}", end - 1))
        .send()
        .await?
        .bytes()
        .await?;
    let page_took = started.elapsed();
    zip.read_page(149, &part)?;
    Ok((tail_took, page_took))
}
