//! The reader's own files opened in the window: a CBZ dropped on the window opens in the comic
//! reader at its first page; so does a CBZ named on the command line of the first start;
//! `carrel FILE` while Carrel runs hands an EPUB to the running app,
//! which opens it in the EPUB reader while the second `carrel` ends at once; and both books are
//! still in Books on this device after a restart. The files are made by the test.
//!
//! WebDriver cannot drag a file from outside the window, so the drop is made by a debug build's
//! `carrel --drop-for-tests FILE`: the running app hands the files to the same function the
//! desktop's drop event (`WindowEvent::DragDrop`) calls, which tells the window a drag entered
//! and, a moment later, the drop. From there on — the drop target, `import_files`, the reader —
//! it is the path of a real drop.

use std::path::Path;
use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant};

use carrel_e2e::TestCase;

use super::support::{
    crc32, epub_zip, go, launch, sel, stored_zip, wait_for_element, wait_for_painted_page,
};

/// Runs `carrel ARGS…` in `cwd` as a second start on the test's data dir, as a desktop or a
/// shell would, and returns what it did and how long it took.
fn carrel_again(case: &TestCase, cwd: &Path, args: &[&str]) -> (Output, Duration) {
    carrel_again_on(case.data_dir(), cwd, args)
}

/// [`carrel_again`] on the data dir `data_dir`.
fn carrel_again_on(data_dir: &Path, cwd: &Path, args: &[&str]) -> (Output, Duration) {
    let started = Instant::now();
    let output = Command::new(carrel_e2e::tools::Tools::require().app)
        .args(args)
        .current_dir(cwd)
        .env("CARREL_DATA_DIR", data_dir)
        .env("CARREL_SECRETS", "file")
        .env("GDK_BACKEND", "x11")
        .stdin(Stdio::null())
        .output()
        .expect("start Carrel again");
    (output, started.elapsed())
}

fn assert_handed_over(output: &Output, took: Duration) {
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(output.status.success(), "the second start failed: {stderr}");
    assert!(
        stderr.contains("already running"),
        "the second start did not hand its files over: {stderr}"
    );
    assert!(
        took < Duration::from_secs(10),
        "the second start took {took:?}"
    );
}

#[test]
fn a_cbz_dropped_on_the_window_opens_in_the_comic_reader() {
    let case = TestCase::start();
    let books = tempfile::tempdir().unwrap();
    let cbz = books.path().join("Harbour Lights 01.cbz");
    std::fs::write(&cbz, comic_cbz(4)).unwrap();
    let app = launch(&case);
    app.wait_for_displayed(&sel("open-file-button")).unwrap();

    let dropping = {
        let cbz = cbz.to_str().unwrap().to_owned();
        let case_dir = case.data_dir().to_path_buf();
        let cwd = books.path().to_path_buf();
        std::thread::spawn(move || carrel_again_on(&case_dir, &cwd, &["--drop-for-tests", &cbz]))
    };
    // While the files are over the window, it shows where to drop them.
    let target = app
        .wait_for_displayed(&sel("drop-overlay"))
        .expect("the drop target while files are dragged over the window");
    assert!(
        target
            .inner_text()
            .unwrap()
            .contains("Drop books to open them"),
        "the drop target says {:?}",
        target.inner_text().unwrap()
    );
    let _ = carrel_e2e::save_docs_screenshot(&app, "local-files-drop.png");
    let (output, took) = dropping.join().unwrap();
    assert_handed_over(&output, took);

    // Dropped: the comic opens in the comic reader at its first page, the target gone.
    app.wait_for_displayed(&sel("comic-reader")).unwrap();
    wait_for_painted_page(&app, 0);
    app.wait_for_text(&sel("page-indicator"), "Page 1 of 4")
        .unwrap();
    assert!(!app.exists(&sel("drop-overlay")).unwrap());
    app.find("body").unwrap().send_keys("\u{E014}").unwrap(); // ArrowRight
    app.wait_for_text(&sel("page-indicator"), "Page 2 of 4")
        .unwrap();
    wait_for_painted_page(&app, 1);
    app.close().unwrap();
    // Left where it was: the file is the reader's, untouched.
    assert_eq!(std::fs::read(&cbz).unwrap(), comic_cbz(4));
}

#[test]
fn carrel_with_a_file_opens_it_in_the_running_app_and_it_stays_after_a_restart() {
    let case = TestCase::start();
    let books = tempfile::tempdir().unwrap();
    std::fs::write(books.path().join("The Lantern Keeper.epub"), small_epub()).unwrap();
    std::fs::write(books.path().join("not a book.cbz"), b"just some text").unwrap();
    let app = launch(&case);
    app.wait_for_displayed(&sel("open-file-button")).unwrap();

    // As a shell runs it: a path relative to where the command runs.
    let (output, took) = carrel_again(&case, books.path(), &["The Lantern Keeper.epub"]);
    assert_handed_over(&output, took);
    let reader = app
        .wait_for_displayed(&format!("{}[data-phase=\"ready\"]", sel("epub-reader")))
        .expect("the EPUB open in the running app's reader");
    let book_id = reader
        .attribute("data-book-id")
        .unwrap()
        .unwrap_or_default();
    assert!(!book_id.is_empty(), "the reader names no book");
    wait_for_element(&app, "body", "the book's title in the reader", |t| {
        t.contains("The Lantern Keeper")
    });

    // A file that is not a book says so, and nothing else changes.
    let (output, took) = carrel_again(&case, books.path(), &["not a book.cbz"]);
    assert_handed_over(&output, took);
    wait_for_element(
        &app,
        &sel("toast"),
        "a message saying the file could not be opened",
        |t| t.contains("not a book.cbz"),
    );
    app.close().unwrap();

    // After a restart the book is one of the books on this device.
    let app = launch(&case);
    go(&app, "on-device-nav", "on-device-view");
    wait_for_element(
        &app,
        &sel("on-device-item"),
        "the imported EPUB on this device",
        |t| t.contains("The Lantern Keeper"),
    );
    app.close().unwrap();
}

#[test]
fn carrel_started_with_a_file_opens_it_once_its_window_is_up() {
    let case = TestCase::start();
    let books = tempfile::tempdir().unwrap();
    let cbz = books.path().join("Tide Tables 02.cbz");
    std::fs::write(&cbz, comic_cbz(3)).unwrap();
    // As a file manager's "Open with Carrel" starts it: the file on the command line.
    let mut options = case.options().env("CARREL_SECRETS", "file");
    options.args.push(cbz.to_str().unwrap().to_owned());
    let app = case.launch_with(options);
    app.wait_for_displayed(&sel("comic-reader")).unwrap();
    wait_for_painted_page(&app, 0);
    app.wait_for_text(&sel("page-indicator"), "Page 1 of 3")
        .unwrap();
    app.close().unwrap();
}

/// A comic of `pages` pictures, as a CBZ (stored entries).
fn comic_cbz(pages: u32) -> Vec<u8> {
    stored_zip((0..pages).map(|page| {
        let shade = 40 + (page * 50 % 200) as u8;
        (
            format!("page-{:03}.png", page + 1),
            solid_png(120, 180, [shade, 90, 255 - shade]),
        )
    }))
}

/// An EPUB 3 of two short chapters.
fn small_epub() -> Vec<u8> {
    let opf = "<?xml version=\"1.0\" encoding=\"utf-8\"?>\n<package xmlns=\"http://www.idpf.org/2007/opf\" version=\"3.0\" unique-identifier=\"id\">\
        <metadata xmlns:dc=\"http://purl.org/dc/elements/1.1/\"><dc:identifier id=\"id\">urn:uuid:5d3f1b0e-8d7c-4c1a-9a61-lantern</dc:identifier>\
        <dc:title>The Lantern Keeper</dc:title><dc:creator>Ada Morrow</dc:creator><dc:language>en</dc:language>\
        <meta property=\"dcterms:modified\">2026-01-01T00:00:00Z</meta></metadata>\
        <manifest><item id=\"nav\" href=\"nav.xhtml\" media-type=\"application/xhtml+xml\" properties=\"nav\"/>\
        <item id=\"one\" href=\"one.xhtml\" media-type=\"application/xhtml+xml\"/>\
        <item id=\"two\" href=\"two.xhtml\" media-type=\"application/xhtml+xml\"/></manifest>\
        <spine><itemref idref=\"one\"/><itemref idref=\"two\"/></spine></package>\n";
    let nav = "<?xml version=\"1.0\" encoding=\"utf-8\"?>\n<html xmlns=\"http://www.w3.org/1999/xhtml\" xmlns:epub=\"http://www.idpf.org/2007/ops\">\
        <head><title>Contents</title></head><body><nav epub:type=\"toc\"><ol>\
        <li><a href=\"one.xhtml\">The Tower</a></li><li><a href=\"two.xhtml\">The Storm</a></li></ol></nav></body></html>\n";
    let chapter = |title: &str| {
        let paragraph =
            format!("<p>{title}: the keeper climbed the stairs and trimmed the wick.</p>");
        format!(
            "<?xml version=\"1.0\" encoding=\"utf-8\"?>\n<html xmlns=\"http://www.w3.org/1999/xhtml\">\
             <head><title>{title}</title></head><body><h1>{title}</h1>{}</body></html>\n",
            paragraph.repeat(12)
        )
    };
    let (one, two) = (chapter("The Tower"), chapter("The Storm"));
    epub_zip(&[
        ("content.opf", opf),
        ("nav.xhtml", nav),
        ("one.xhtml", &one),
        ("two.xhtml", &two),
    ])
}

/// A `width`×`height` PNG of one colour: 8-bit RGB, its pixels in stored (uncompressed)
/// deflate blocks.
fn solid_png(width: u32, height: u32, rgb: [u8; 3]) -> Vec<u8> {
    let mut raw = Vec::new();
    for _ in 0..height {
        raw.push(0); // no filter
        for _ in 0..width {
            raw.extend_from_slice(&rgb);
        }
    }
    let mut zlib = vec![0x78, 0x01];
    let blocks: Vec<&[u8]> = raw.chunks(65_535).collect();
    for (i, block) in blocks.iter().enumerate() {
        zlib.push(u8::from(i + 1 == blocks.len()));
        let len = block.len() as u16;
        zlib.extend_from_slice(&len.to_le_bytes());
        zlib.extend_from_slice(&(!len).to_le_bytes());
        zlib.extend_from_slice(block);
    }
    let (mut a, mut b) = (1u32, 0u32);
    for byte in &raw {
        a = (a + u32::from(*byte)) % 65_521;
        b = (b + a) % 65_521;
    }
    zlib.extend_from_slice(&((b << 16) | a).to_be_bytes());

    let mut png = b"\x89PNG\r\n\x1a\n".to_vec();
    let mut header = Vec::new();
    header.extend_from_slice(&width.to_be_bytes());
    header.extend_from_slice(&height.to_be_bytes());
    header.extend_from_slice(&[8, 2, 0, 0, 0]);
    for (kind, data) in [(b"IHDR", header), (b"IDAT", zlib), (b"IEND", Vec::new())] {
        png.extend_from_slice(&(data.len() as u32).to_be_bytes());
        let start = png.len();
        png.extend_from_slice(kind);
        png.extend_from_slice(&data);
        let crc = crc32(&png[start..]);
        png.extend_from_slice(&crc.to_be_bytes());
    }
    png
}
