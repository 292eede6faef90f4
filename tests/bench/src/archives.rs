//! Page turns from comics kept as one archive file: page N of a stored 200-page CBZ (zip,
//! straight to the entry) and CB7 (libarchive, which walks to the entry), against reading the
//! same page from its own file as page-streamed comics are stored. The archives are made by
//! Python's `zipfile` and by `7z`; the table of contents is read once, as the reader keeps it.

use std::process::Command;
use std::time::Instant;

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

    // The same pages in a scattered order, as a reader jumping about would ask.
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
        let start = Instant::now();
        let bytes = read(i)?;
        times.push(start.elapsed());
        if bytes.len() != PAGE_BYTES {
            bail!("page {i} has {} bytes", bytes.len());
        }
    }
    Ok(Summary::of(&millis(&times)))
}
