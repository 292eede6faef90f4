//! Comic archives made by real tools — Python's `zipfile`, the `zip` command, `7z`, `tar` — and
//! genuine RAR 4 and RAR 5 files, read page by page; hostile archives (a zip bomb, 60,000
//! entries, path-traversal names, a truncated file, damaged data, not an archive at all)
//! refused with a clear error. Nothing here is hand-made bytes.

use std::path::{Path, PathBuf};
use std::process::Command;

use crate::support::{python, run_tool};
use carrel_core::foundation::test_tools::{self, pack_tar};
use carrel_core::reading::comic_archive::{
    self, ArchiveError, ComicArchive, Container, WalkBudget,
};

/// Packs `entries` of `dir` into the 7z archive `archive`, solid (`-ms=on`) when asked.
fn pack_7z(archive: &Path, dir: &Path, solid: bool, entries: &[&str]) {
    let options: &[&str] = if solid { &["-ms=on"] } else { &[] };
    test_tools::pack_7z(archive, dir, options, entries);
}

/// Writes `count` small PNGs named `p1.png` … into `dir/pages` (in a scrambled order of
/// creation), plus clutter that is not a page; returns the pages' bytes in reading order.
fn make_pages(dir: &Path, count: usize) -> Vec<Vec<u8>> {
    let script = r#"
import os, sys, struct, zlib, random
out, count = sys.argv[1], int(sys.argv[2])
os.makedirs(os.path.join(out, "pages"), exist_ok=True)
os.makedirs(os.path.join(out, "__MACOSX"), exist_ok=True)
def png(n):
    w, h = 8, 8
    raw = b"".join(b"\x00" + bytes([(n * 37 + x * 11 + y) % 256 for x in range(w) for _ in range(3)]) for y in range(h))
    def chunk(t, d): return struct.pack(">I", len(d)) + t + d + struct.pack(">I", zlib.crc32(t + d) & 0xffffffff)
    return b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", w, h, 8, 2, 0, 0, 0)) + chunk(b"IDAT", zlib.compress(raw)) + chunk(b"IEND", b"")
order = list(range(1, count + 1)); random.Random(7).shuffle(order)
for n in order:
    open(os.path.join(out, "pages", f"p{n}.png"), "wb").write(png(n))
open(os.path.join(out, "__MACOSX", "._p1.png"), "wb").write(b"junk")
open(os.path.join(out, "pages", ".hidden.png"), "wb").write(png(999))
open(os.path.join(out, "notes.txt"), "w").write("not a page")
open(os.path.join(out, "ComicInfo.xml"), "w").write('<?xml version="1.0"?><ComicInfo><Title>Dawn</Title><Series>Saga</Series><Number>3</Number><Manga>YesAndRightToLeft</Manga></ComicInfo>')
"#;
    run_tool(python(script).arg(dir).arg(count.to_string()));
    (1..=count)
        .map(|n| std::fs::read(dir.join(format!("pages/p{n}.png"))).unwrap())
        .collect()
}

/// A temp dir with twelve pages written by [`make_pages`] into its folder `src`: the dir, the
/// folder and the pages' bytes in reading order.
fn twelve_pages() -> (tempfile::TempDir, PathBuf, Vec<Vec<u8>>) {
    let t = tempfile::tempdir().unwrap();
    let src = t.path().join("src");
    let pages = make_pages(&src, 12);
    (t, src, pages)
}

fn check(book: &Path, container: Container, expected: &[Vec<u8>]) {
    let archive = ComicArchive::open(book).unwrap_or_else(|e| panic!("{}: {e}", book.display()));
    assert_eq!(archive.container, container);
    assert_eq!(
        archive.page_count(),
        expected.len(),
        "{:?}",
        archive.page_names().collect::<Vec<_>>()
    );
    let names: Vec<&str> = archive.page_names().collect();
    assert!(
        names[1].ends_with("p2.png") && names[9].ends_with("p10.png"),
        "natural order: {names:?}"
    );
    for (i, bytes) in expected.iter().enumerate() {
        assert_eq!(
            &archive.page(i).unwrap(),
            bytes,
            "page {i} of {}",
            book.display()
        );
    }
    assert!(matches!(
        archive.page(expected.len()),
        Err(ArchiveError::NoSuchPage { .. })
    ));
    assert_eq!(archive.info.title.as_deref(), Some("Dawn"));
    assert!(
        archive.info.right_to_left,
        "ComicInfo's Manga=YesAndRightToLeft"
    );
}

#[test]
fn cbz_cb7_and_cbt_made_by_real_tools_read_page_by_page() {
    let (t, src, pages) = twelve_pages();
    // Python's zipfile (deflated).
    let py_cbz = t.path().join("python.cbz");
    run_tool(python(
        "import sys, os, zipfile\nz = zipfile.ZipFile(sys.argv[2], 'w', zipfile.ZIP_DEFLATED)\nfor root, _, files in os.walk(sys.argv[1]):\n    for f in files:\n        p = os.path.join(root, f); z.write(p, os.path.relpath(p, sys.argv[1]))\nz.close()",
    ).arg(&src).arg(&py_cbz));
    check(&py_cbz, Container::Zip, &pages);
    // The zip command.
    let zip_cbz = t.path().join("zip.cbz");
    run_tool(
        Command::new("zip")
            .arg("-q")
            .arg("-r")
            .arg(&zip_cbz)
            .arg(".")
            .current_dir(&src),
    );
    check(&zip_cbz, Container::Zip, &pages);
    // 7z, named .cbr as some libraries do: the bytes decide.
    let cb7 = t.path().join("seven.cbr");
    pack_7z(&cb7, &src, false, &["."]);
    check(&cb7, Container::SevenZip, &pages);
    // tar.
    let cbt = t.path().join("tape.cbt");
    pack_tar(&cbt, &src, &["."]);
    check(&cbt, Container::Tar, &pages);
}

fn rar(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/data/rar")
        .join(name)
}

#[test]
fn genuine_rar4_and_rar5_archives_are_read() {
    // RAR 4 (one entry compressed, one stored) and RAR 5 (solid).
    for file in ["rar4-seektest.rar", "rar5-solid.rar"] {
        let path = rar(file);
        assert_eq!(comic_archive::sniff(&path).unwrap(), Container::Rar);
        let names = comic_archive::entry_names(&path).unwrap();
        assert_eq!(names, ["stest1.txt", "stest2.txt"], "{file}");
        let first = comic_archive::read_entry(&path, "stest1.txt", 1 << 20).unwrap();
        let second = comic_archive::read_entry(&path, "stest2.txt", 1 << 20).unwrap();
        assert_eq!((first.len(), second.len()), (2048, 2048), "{file}");
        // Text files are no pages: a clear error, not an empty book.
        assert!(
            matches!(ComicArchive::open(&path), Err(ArchiveError::NoPages)),
            "{file}"
        );
    }
    // A solid RAR 4 archive is beyond libarchive's RAR 4 reader: said plainly, not a crash.
    let solid4 = rar("rar3-solid.rar");
    let err = comic_archive::read_entry(&solid4, "stest2.txt", 1 << 20).unwrap_err();
    assert!(matches!(err, ArchiveError::Damaged(_)), "{err:?}");
}

#[test]
fn hostile_archives_get_clear_errors() {
    let t = tempfile::tempdir().unwrap();
    let make = |name: &str, script: &str| -> PathBuf {
        let path = t.path().join(name);
        run_tool(python(script).arg(&path));
        path
    };
    // A zip bomb: one "page" of 200 MiB of zeros, a few hundred KiB deflated.
    let bomb = make(
        "bomb.cbz",
        "import sys, zipfile\nz = zipfile.ZipFile(sys.argv[1], 'w', zipfile.ZIP_DEFLATED)\nz.writestr('p1.jpg', b'\\0' * (200 << 20))\nz.close()",
    );
    let archive = ComicArchive::open(&bomb).unwrap();
    assert!(matches!(
        archive.page(0),
        Err(ArchiveError::PageTooLarge { page: 0 })
    ));
    // 60,000 entries.
    let many = make(
        "many.cbz",
        "import sys, zipfile\nz = zipfile.ZipFile(sys.argv[1], 'w')\nfor i in range(60000): z.writestr(f'p{i}.jpg', b'x')\nz.close()",
    );
    assert!(matches!(
        ComicArchive::open(&many),
        Err(ArchiveError::TooManyEntries)
    ));
    // Names that climb out of any folder: read as pages by name, nothing is written anywhere.
    let climb = make(
        "climb.cbz",
        "import sys, zipfile\nz = zipfile.ZipFile(sys.argv[1], 'w')\nz.writestr('../../etc/p1.jpg', b'one')\nz.writestr('/abs/p2.jpg', b'two')\nz.close()",
    );
    let archive = ComicArchive::open(&climb).unwrap();
    assert_eq!(archive.page_count(), 2);
    assert_eq!(archive.page(0).unwrap(), b"two");
    assert!(!t.path().join("etc").exists());
    // Truncated: half of a real CBZ.
    let whole = std::fs::read(&bomb).unwrap();
    let cut = t.path().join("cut.cbz");
    std::fs::write(&cut, &whole[..whole.len() / 2]).unwrap();
    assert!(matches!(
        ComicArchive::open(&cut),
        Err(ArchiveError::Damaged(_))
    ));
    // Damaged data: a stored page whose bytes were changed after the CRC was written.
    let stored = make(
        "stored.cbz",
        "import sys, zipfile\nz = zipfile.ZipFile(sys.argv[1], 'w')\nz.writestr('p1.jpg', b'A' * 4096)\nz.close()",
    );
    let mut bytes = std::fs::read(&stored).unwrap();
    let at = bytes.windows(16).position(|w| w == [b'A'; 16]).unwrap() + 100;
    bytes[at] = b'B';
    std::fs::write(&stored, &bytes).unwrap();
    let archive = ComicArchive::open(&stored).unwrap();
    assert!(
        matches!(archive.page(0), Err(ArchiveError::Damaged(_))),
        "{:?}",
        archive.page(0)
    );
    // Not an archive at all.
    let text = t.path().join("text.cbz");
    std::fs::write(&text, b"hello, this is no comic").unwrap();
    assert!(matches!(
        ComicArchive::open(&text),
        Err(ArchiveError::UnknownContainer)
    ));
}

/// A comic a server offers only as a CBZ file (as calibre and Calibre-Web do): opening it
/// queues the file, then its pages come from the archive by index, through the same page path
/// as page-streamed comics; the page count is recorded on the book.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_whole_file_comic_is_read_page_by_page_from_its_archive() {
    use carrel_core::{
        engine::executor::{Finish, RunMode},
        library::books,
        reading::archive_pages,
        reading::page_source::{self, PageError},
    };
    use fixture_server::{Behavior, Faults};
    use std::time::Duration;

    let (fixture, meta, env, server, id) =
        serving_whole_file_comic(4, 14, Behavior::default(), Faults::default()).await;
    let client = env.client();
    let book = books::get(&env.store, id).unwrap();
    assert!(
        !book.streams_pages() && archive_pages::is_archive_comic(&book),
        "{book:?}"
    );

    // Not stored and nobody downloading: a bounded wait, then "offline, not downloaded".
    let quick = waiting(Duration::from_millis(200));
    assert!(matches!(
        archive_pages::open(&env.store, id, quick).await,
        Err(PageError::OfflineNotDownloaded)
    ));

    let (_sink, stop, run) = env.spawn_executor(crate::support::fast_config(), RunMode::Forever);
    let wait = waiting(Duration::from_secs(20));
    let opened = archive_pages::open(&env.store, id, wait).await.unwrap();
    assert_eq!(opened.page_count, 14);
    assert_eq!(
        books::get(&env.store, id).unwrap().page_count,
        Some(14),
        "the count is recorded"
    );
    for i in [0u32, 1, 9, 13] {
        let image = page_source::page(&env.store, id, i as i64, wait)
            .await
            .unwrap();
        assert_eq!(image.bytes, fixture.page_bytes(1, i).unwrap(), "page {i}");
        assert_eq!(image.content_type, "image/png");
    }
    assert!(matches!(
        page_source::page(&env.store, id, 14, wait).await,
        Err(PageError::OutOfRange {
            page: 14,
            count: 14
        })
    ));
    // Browsing again (the catalog gives no count) keeps the archive's.
    client.browse(&server, Some("/opds/books")).await.unwrap();
    assert_eq!(books::get(&env.store, id).unwrap().page_count, Some(14));
    // The file was downloaded once, besides the parts read before it was stored.
    let parts = parts_bytes(&env, id);
    assert_file_sent_once(
        &fixture.stats(),
        &format!("/books/{}/file", meta.id),
        meta.length + parts,
        LOOPBACK_IN_FLIGHT,
    );
    stop.send(true).unwrap();
    assert_eq!(run.await.unwrap(), Finish::Shutdown);
}

/// What the loopback's sockets may hold of an answer the client closed mid-way.
const LOOPBACK_IN_FLIGHT: u64 = 512 << 10;

/// The file at `url` was asked for once: from its start, and after each break (a prioritary
/// part taking the request slot) from the bytes after those already stored, never again from
/// bytes it had. The server counts what it handed to the connection, so it sent `expected` (the
/// file and the parts read before it was stored) and, for each answer the client closed, at most
/// `in_flight` bytes that were still on their way when it closed.
fn assert_file_sent_once(stats: &fixture_server::Stats, url: &str, expected: u64, in_flight: u64) {
    let asked = stats.rest_from(url);
    assert!(
        asked.first() == Some(&0) && asked.windows(2).all(|w| w[0] < w[1]),
        "the file was asked for again from bytes it had: {asked:?}"
    );
    let sent = stats.bytes(url);
    let breaks = asked.len() as u64 - 1;
    assert!(
        sent >= expected && sent <= expected + breaks * in_flight,
        "{sent} bytes sent for the file and its parts' {expected}, over {breaks} breaks"
    );
}

/// Bytes of the parts of a book's file read before the file was stored (its tail and pages),
/// once nothing of the book is left to download.
fn parts_bytes(env: &crate::support::Env, id: i64) -> u64 {
    use carrel_core::engine::download_stack::{self, TaskState};
    crate::support::block_until(
        std::time::Duration::from_secs(30),
        "the book's downloads end",
        || {
            !download_stack::tasks_of_book(&env.store, id)
                .unwrap()
                .iter()
                .any(|t| matches!(t.state, TaskState::Pending | TaskState::Active))
        },
    );
    let files = carrel_core::foundation::part_files::PartFiles::new(env.dir.books());
    (-3..200)
        .filter_map(|p| files.find_page(id, p))
        .map(|path| std::fs::metadata(path).unwrap().len())
        .sum()
}

/// A zip comic opens at page 30 long before its file is stored: the file's tail (its
/// directory) and the page's byte range come as prioritary parts through the same executor and
/// request slot, the file's download giving way to them and resuming after; pages read so are
/// the pages of the stored file, and the file's bytes are sent once besides those parts.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_zip_comic_opens_at_any_page_long_before_its_file_is_stored() {
    use carrel_core::{
        engine::executor::{Finish, RunMode},
        foundation::part_files::PartFiles,
        reading::archive_pages,
        reading::page_source,
    };
    use fixture_server::{Behavior, Faults};
    use std::time::Duration;

    let (fixture, meta, env, _, id) = serving_whole_file_comic(
        2,
        40,
        Behavior::default(),
        // About fifteen seconds for the whole file.
        Faults {
            bandwidth: Some(150_000),
            ..Faults::default()
        },
    )
    .await;
    let file_url = format!("/books/{}/file", meta.id);
    let (_sink, stop, run) = env.spawn_executor(crate::support::fast_config(), RunMode::Forever);
    let wait = waiting(Duration::from_secs(60));
    let opened = archive_pages::open(&env.store, id, wait).await.unwrap();
    assert_eq!(opened.page_count, 40);
    assert_page_as_served(&env, &fixture, id, 29, wait).await;
    let sent = fixture.stats().bytes(&file_url);
    assert!(
        sent < meta.length / 2,
        "page 30 came after {sent} of the file's {} bytes",
        meta.length
    );
    let files = PartFiles::new(env.dir.books());
    assert!(
        files.find_book_file(id).is_none(),
        "the file is not stored yet"
    );
    // Turning on: the pages after it were asked for with it.
    let next = page_source::page(&env.store, id, 30, wait).await.unwrap();
    assert_eq!(next.bytes, fixture.page_bytes(1, 30).unwrap());

    // The file completes meanwhile; its pages are the same.
    crate::support::wait_until(
        Duration::from_secs(60),
        "the file is stored in the end",
        || {
            files.find_book_file(id).is_some()
                && matches!(
                    carrel_core::engine::book_downloads::status(
                        &env.store,
                        &carrel_core::library::books::get(&env.store, id).unwrap()
                    )
                    .unwrap()
                    .state,
                    carrel_core::engine::book_downloads::BookState::Stored
                )
        },
    )
    .await;
    let stored = std::fs::read(files.find_book_file(id).unwrap()).unwrap();
    assert_eq!(stored, fixture.book_bytes(1).unwrap());
    for i in [0u32, 29, 39] {
        let image = page_source::page(&env.store, id, i as i64, wait)
            .await
            .unwrap();
        assert_eq!(image.bytes, fixture.page_bytes(1, i).unwrap(), "page {i}");
    }
    let parts = parts_bytes(&env, id);
    // What a second of the capped bandwidth carries: more than the sockets hold of an answer
    // closed mid-way, far less than any part of the file asked for twice.
    assert_file_sent_once(&fixture.stats(), &file_url, meta.length + parts, 150_000);
    assert_eq!(
        fixture.stats().global_max_in_flight,
        1,
        "one request at a time"
    );
    stop.send(true).unwrap();
    assert_eq!(run.await.unwrap(), Finish::Shutdown);
}

/// A server that sends no parts of files (no `Range`): the parts asked for fail quietly, the
/// window waits for the whole file as before, and neither the book nor the downloads page says
/// anything failed.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn without_range_a_zip_comic_waits_for_its_file_and_nothing_says_failed() {
    use carrel_core::{
        engine::book_downloads::{self, BookState},
        engine::downloads_view,
        engine::executor::{Finish, RunMode},
        library::books,
        reading::archive_pages,
    };
    use fixture_server::{Behavior, Faults};
    use std::time::Duration;

    let (fixture, _, env, _, id) = serving_whole_file_comic(
        2,
        12,
        Behavior {
            range: false,
            ..Behavior::default()
        },
        Faults::default(),
    )
    .await;
    let (_sink, stop, run) = env.spawn_executor(crate::support::fast_config(), RunMode::Forever);
    let wait = waiting(Duration::from_secs(30));
    let opened = archive_pages::open(&env.store, id, wait).await.unwrap();
    assert_eq!(opened.page_count, 12);
    assert_page_as_served(&env, &fixture, id, 7, wait).await;
    let book = books::get(&env.store, id).unwrap();
    assert_eq!(
        book_downloads::status(&env.store, &book).unwrap().state,
        BookState::Stored
    );
    let view = downloads_view::view(&env.store, &Default::default(), None).unwrap();
    assert!(view.failed.is_empty(), "{:?}", view.failed);
    stop.send(true).unwrap();
    assert_eq!(run.await.unwrap(), Finish::Shutdown);
}

/// A fixture of `books` books whose book 1 is a comic of `pages` pages offered only as a whole
/// file (CBZ), with `behavior` and `faults` besides; returned with book 1's description and a
/// data dir where book 1 is known (see [`whole_file_comic`]), its server and local id.
async fn serving_whole_file_comic(
    books: u32,
    pages: u32,
    behavior: fixture_server::Behavior,
    faults: fixture_server::Faults,
) -> (
    fixture_server::RunningServer,
    fixture_server::BookInfo,
    crate::support::Env,
    carrel_core::library::servers::Server,
    i64,
) {
    let fixture = fixture_server::Server::start(fixture_server::Config {
        books,
        comic_pages: [(1, pages)].into(),
        behavior: fixture_server::Behavior {
            whole_file_comics: true,
            ..behavior
        },
        faults,
        ..Default::default()
    })
    .unwrap();
    let meta = fixture.books().into_iter().find(|b| b.id == 1).unwrap();
    let (env, server, id) = whole_file_comic(&fixture, &meta.title).await;
    (fixture, meta, env, server, id)
}

/// Page `index` of book `id` as the reader's window gets it is the fixture's page of its
/// book 1.
async fn assert_page_as_served(
    env: &crate::support::Env,
    fixture: &fixture_server::RunningServer,
    id: i64,
    index: u32,
    wait: carrel_core::reading::page_source::WaitPolicy,
) {
    let image = carrel_core::reading::page_source::page(&env.store, id, index.into(), wait)
        .await
        .unwrap();
    assert_eq!(image.bytes, fixture.page_bytes(1, index).unwrap());
}

/// How a reader's window waits for a page: looking every 20 ms, for `timeout` at the most.
fn waiting(timeout: std::time::Duration) -> carrel_core::reading::page_source::WaitPolicy {
    carrel_core::reading::page_source::WaitPolicy {
        poll: std::time::Duration::from_millis(20),
        timeout,
    }
}

/// A data dir with the fixture's catalog added as "calibre", browsed to its books: the local id
/// of the book titled `title`.
async fn whole_file_comic(
    fixture: &fixture_server::RunningServer,
    title: &str,
) -> (
    crate::support::Env,
    carrel_core::library::servers::Server,
    i64,
) {
    let env = crate::support::Env::new();
    let server = env.add_server("calibre", &fixture.url("/opds"));
    let listed = crate::support::feed_book_ids(&env.client(), &server, "/opds/books").await;
    let id = listed
        .into_iter()
        .find(|id| {
            carrel_core::library::books::get(&env.store, *id)
                .unwrap()
                .title
                == title
        })
        .unwrap();
    (env, server, id)
}

#[test]
fn turning_back_to_the_page_a_solid_archive_was_walked_to_needs_no_new_walk() {
    let (t, src, pages) = twelve_pages();
    let cb7 = t.path().join("book.cb7");
    pack_7z(&cb7, &src, false, &["."]);
    let archive = ComicArchive::open(&cb7).unwrap();
    // The book opened at page 7 (a walk from the archive's start), then the next page (taken
    // in the same walk).
    assert_eq!(archive.page(6).unwrap(), pages[6]);
    assert_eq!(archive.page(7).unwrap(), pages[7]);
    // From here on, any walk fails: what follows comes from what was kept.
    std::fs::remove_file(&cb7).unwrap();
    assert!(
        archive.page(0).is_err(),
        "a page no walk kept needs the archive"
    );
    // Back to page 7, and on again.
    assert_eq!(archive.page(6).unwrap(), pages[6]);
    assert_eq!(archive.page(8).unwrap(), pages[8]);
}

/// A walk budget small enough for a test: 1 MiB, whatever the archive's size.
const SMALL_BUDGET: WalkBudget = WalkBudget {
    floor: 1 << 20,
    per_archive_byte: 0,
};

/// A folder with a run of 16 MiB of zeros (a sparse file: nothing written) named to come
/// before three pages, and a `ComicInfo.xml`; returns the pages' bytes.
fn filler_and_pages(dir: &Path) -> Vec<Vec<u8>> {
    let pages = make_pages(dir, 3);
    let filler = std::fs::File::create(dir.join("0-filler.bin")).unwrap();
    filler.set_len(16 << 20).unwrap();
    pages
}

/// A run of zeros before the pages (16 MiB here, 50 GB in the wild: a few KB either way once
/// compressed) would be decompressed again at every page turn. Past the walk's budget (lowered
/// here to 1 MiB) the page is refused with a clear error instead, in a solid 7z and in a tar
/// alike; the same books read with the budget Carrel ships with.
#[test]
fn a_walk_that_would_decompress_more_than_its_budget_is_refused() {
    let t = tempfile::tempdir().unwrap();
    let src = t.path().join("src");
    let pages = filler_and_pages(&src);
    // 7z stores the run first (names in order); no ComicInfo.xml, so opening walks nothing.
    let cb7 = t.path().join("filler.cb7");
    pack_7z(&cb7, &src, true, &["0-filler.bin", "pages"]);
    let cbt = t.path().join("filler.cbt");
    pack_tar(&cbt, &src, &["0-filler.bin", "pages"]);
    for book in [&cb7, &cbt] {
        let archive = ComicArchive::open_with(book, SMALL_BUDGET).unwrap();
        assert_eq!(archive.page_count(), 3);
        let err = archive.page(0).unwrap_err();
        assert!(
            matches!(err, ArchiveError::DecompressesTooMuch { budget } if budget == 1 << 20),
            "{}: {err:?}",
            book.display()
        );
        assert_eq!(
            err.to_string(),
            "this archive asks to decompress more than 1 MiB to reach a page"
        );
        let archive = ComicArchive::open(book).unwrap();
        assert_eq!(archive.page(2).unwrap(), pages[2], "{}", book.display());
    }
    // Opening walks to ComicInfo.xml: past the run, the same refusal when the book opens.
    let with_info = t.path().join("info.cb7");
    pack_7z(
        &with_info,
        &src,
        true,
        &["0-filler.bin", "ComicInfo.xml", "pages"],
    );
    assert!(matches!(
        ComicArchive::open_with(&with_info, SMALL_BUDGET),
        Err(ArchiveError::DecompressesTooMuch { .. })
    ));
    assert_eq!(
        ComicArchive::open(&with_info)
            .unwrap()
            .info
            .title
            .as_deref(),
        Some("Dawn")
    );
}

/// An mtree manifest is a list of paths on this machine, which libarchive reads if asked to:
/// one that passes for a tar (`ustar` where a tar header says it) and names a local file is
/// still no comic, and the file's bytes never come out as a page.
#[test]
fn an_mtree_manifest_naming_a_local_file_is_no_comic() {
    let t = tempfile::tempdir().unwrap();
    let secret = t.path().join("secret.png");
    std::fs::write(&secret, b"\x89PNG\r\n\x1a\nthe bytes of a private file").unwrap();
    let mut manifest = b"#mtree\n#".to_vec();
    manifest.resize(257, b' ');
    manifest.extend_from_slice(b"ustar\n");
    manifest.extend_from_slice(
        format!("./p1.png type=file contents={}\n", secret.display()).as_bytes(),
    );
    let book = t.path().join("manifest.cbt");
    std::fs::write(&book, &manifest).unwrap();
    let opened = ComicArchive::open(&book);
    assert!(
        matches!(
            opened,
            Err(ArchiveError::UnknownContainer | ArchiveError::Damaged(_))
        ),
        "{:?}",
        opened.map(|a| a.page(0))
    );
    assert!(comic_archive::read_entry(&book, "p1.png", 1 << 20).is_err());
    assert!(comic_archive::entry_names(&book).is_err());
}

/// A book may carry many `ComicInfo.xml` (one per folder, or 50,000 of them): only one is
/// read — the one at the root, else the first. The others are never decompressed: a damaged
/// one in a folder, before the root one, changes nothing.
#[test]
fn only_one_comic_info_is_read_the_one_at_the_root_first() {
    let t = tempfile::tempdir().unwrap();
    let cbz = t.path().join("infos.cbz");
    run_tool(
        python(
            "import sys, zipfile\nz = zipfile.ZipFile(sys.argv[1], 'w')\n\
         z.writestr('extra/ComicInfo.xml', b'B' * 4096)\n\
         z.writestr('ComicInfo.xml', '<ComicInfo><Title>Root</Title></ComicInfo>')\n\
         z.writestr('p1.png', b'one')\nz.close()",
        )
        .arg(&cbz),
    );
    // The folder's ComicInfo.xml damaged after its CRC was written: reading it fails.
    let mut bytes = std::fs::read(&cbz).unwrap();
    let at = bytes.windows(16).position(|w| w == [b'B'; 16]).unwrap() + 100;
    bytes[at] = b'C';
    std::fs::write(&cbz, &bytes).unwrap();
    let archive = ComicArchive::open(&cbz).unwrap();
    assert_eq!(archive.info.title.as_deref(), Some("Root"));

    // In a tar the folder's comes first: the root one is still the one read.
    let src = t.path().join("src");
    std::fs::create_dir_all(src.join("a")).unwrap();
    std::fs::write(
        src.join("a/ComicInfo.xml"),
        "<ComicInfo><Title>Nested</Title></ComicInfo>",
    )
    .unwrap();
    std::fs::write(
        src.join("ComicInfo.xml"),
        "<ComicInfo><Title>Root</Title></ComicInfo>",
    )
    .unwrap();
    std::fs::write(src.join("p1.png"), b"one").unwrap();
    let cbt = t.path().join("infos.cbt");
    pack_tar(&cbt, &src, &["a/ComicInfo.xml", "ComicInfo.xml", "p1.png"]);
    assert_eq!(
        ComicArchive::open(&cbt).unwrap().info.title.as_deref(),
        Some("Root")
    );
}
