//! The kept walk through real archives made by `7z` and `tar`: pages in any order give the
//! files' bytes, a page further on continues the walk, the walk's thread ends with the archive,
//! a thread that fails gives an error, and the budget still stops a run of zeros.

use std::path::Path;
use std::sync::atomic::Ordering;
use std::sync::Arc;

use carrel_foundation::test_tools::{pack_7z as pack_7z_with, pack_tar};

use crate::comic_archive::{ArchiveError, ComicArchive, WalkBudget, READ_AHEAD};

/// Packs `entries` of `dir`, in that order, into a solid 7z at 7-Zip's fastest level (as the
/// benchmark's).
fn pack_7z(archive: &Path, dir: &Path, entries: &[String]) {
    pack_7z_with(archive, dir, &["-mx=1", "-ms=on"], entries);
}

/// Writes `count` incompressible pages of `size` bytes, `001.jpg` …, into `dir`; returns their
/// names and bytes in reading order.
fn write_pages(dir: &Path, count: usize, size: usize) -> (Vec<String>, Vec<Vec<u8>>) {
    std::fs::create_dir_all(dir).unwrap();
    let mut seed = 0x9e37_79b9_7f4a_7c15u64;
    let mut names = Vec::new();
    let mut pages = Vec::new();
    for n in 1..=count {
        let bytes: Vec<u8> = (0..size)
            .map(|_| {
                seed ^= seed << 13;
                seed ^= seed >> 7;
                seed ^= seed << 17;
                seed as u8
            })
            .collect();
        let name = format!("{n:03}.jpg");
        std::fs::write(dir.join(&name), &bytes).unwrap();
        names.push(name);
        pages.push(bytes);
    }
    (names, pages)
}

const PAGES: usize = 40;

/// `entries` of `src`, in that order, packed as `<stem>.cb7` (solid 7z) and `<stem>.cbt` (tar)
/// in `dir`.
fn pack_both(dir: &Path, src: &Path, stem: &str, entries: &[String]) -> [std::path::PathBuf; 2] {
    let cb7 = dir.join(format!("{stem}.cb7"));
    pack_7z(&cb7, src, entries);
    let cbt = dir.join(format!("{stem}.cbt"));
    pack_tar(&cbt, src, entries);
    [cb7, cbt]
}

/// A solid 7z and a tar of [`PAGES`] pages of 24 KiB, in reading order; the pages' bytes.
fn books(dir: &Path) -> (Vec<std::path::PathBuf>, Vec<Vec<u8>>) {
    let src = dir.join("src");
    let (names, pages) = write_pages(&src, PAGES, 24 << 10);
    (pack_both(dir, &src, "book", &names).to_vec(), pages)
}

fn assert_page(archive: &ComicArchive, pages: &[Vec<u8>], i: usize, book: &Path) {
    let bytes = archive
        .page(i)
        .unwrap_or_else(|e| panic!("{}: page {i}: {e}", book.display()));
    assert!(
        bytes == pages[i],
        "{}: page {i} is not the file's bytes",
        book.display()
    );
}

#[test]
fn pages_in_any_order_are_the_files_bytes() {
    let t = tempfile::tempdir().unwrap();
    let (books, pages) = books(t.path());
    let scattered = (0..PAGES).map(|i| (i * 13 + 5) % PAGES);
    let backward = (0..PAGES).rev();
    let forward = (0..PAGES).step_by(3);
    let order: Vec<usize> = scattered.chain(backward).chain(forward).collect();
    for book in &books {
        let archive = ComicArchive::open(book).unwrap();
        assert_eq!(archive.page_count(), PAGES);
        for &i in &order {
            assert_page(&archive, &pages, i, book);
        }
        // A clone reads through the same kept walk.
        let clone = archive.clone();
        drop(archive);
        assert_page(&clone, &pages, PAGES - 1, book);
        assert_page(&clone, &pages, 0, book);
    }
}

/// The kept walk holds the archive's file open: once the file is removed, a page further on
/// still comes (the walk goes on), while a page before the walk's position, which needs a new
/// walk from the archive's start, cannot.
#[test]
fn a_page_further_on_continues_the_walk_a_page_before_it_starts_a_new_one() {
    let t = tempfile::tempdir().unwrap();
    let (books, pages) = books(t.path());
    for book in &books {
        let archive = ComicArchive::open(book).unwrap();
        assert_page(&archive, &pages, 10, book);
        assert!(archive.walk.has_worker());
        std::fs::remove_file(book).unwrap();
        // Past the pages read ahead, so no kept page answers.
        let further = 10 + READ_AHEAD + 5;
        assert_page(&archive, &pages, further, book);
        assert_page(&archive, &pages, further + READ_AHEAD + 3, book);
        let err = archive.page(2).unwrap_err();
        assert!(matches!(err, ArchiveError::Damaged(_)), "{err:?}");
        // The walk that could go on was let go for the new one: the pages after it need the
        // file now too.
        assert!(archive.page(PAGES - 1).is_err());
    }
}

/// A tar whose entries are not in reading order (`tar` packs a folder as the filesystem lists
/// it, here with pages named in scrambled order): each page still comes from its own entry.
#[test]
fn entries_out_of_reading_order_are_read_from_their_own_places() {
    let t = tempfile::tempdir().unwrap();
    let src = t.path().join("src");
    let (names, pages) = write_pages(&src, 20, 4 << 10);
    let mut scrambled: Vec<String> = (0..names.len())
        .map(|i| names[(i * 7 + 3) % names.len()].clone())
        .collect();
    scrambled.push("notes.txt".into());
    std::fs::write(src.join("notes.txt"), "not a page").unwrap();
    for book in &pack_both(t.path(), &src, "scrambled", &scrambled) {
        let archive = ComicArchive::open(book).unwrap();
        for i in (0..20)
            .chain((0..20).rev())
            .chain((0..20).map(|i| (i * 11) % 20))
        {
            assert_page(&archive, &pages, i, book);
        }
    }
}

#[test]
fn an_archive_dropped_mid_walk_ends_its_thread() {
    let t = tempfile::tempdir().unwrap();
    let (books, pages) = books(t.path());
    for book in &books {
        let archive = ComicArchive::open(book).unwrap();
        assert!(
            archive.walk.worker_alive().is_none(),
            "no thread before a page"
        );
        assert_page(&archive, &pages, 7, book);
        let alive = archive
            .walk
            .worker_alive()
            .expect("a thread holds the walk");
        assert!(alive.load(Ordering::SeqCst));
        let clone = archive.clone();
        drop(archive);
        assert!(
            alive.load(Ordering::SeqCst),
            "a clone still reads through it"
        );
        drop(clone);
        // Dropping the last clone waits for the thread to end.
        assert!(
            !alive.load(Ordering::SeqCst),
            "the walk's thread outlived its archive"
        );
    }
}

#[test]
fn a_walk_thread_that_fails_gives_an_error_and_the_next_page_a_new_walk() {
    let t = tempfile::tempdir().unwrap();
    let (books, pages) = books(t.path());
    for book in &books {
        let archive = ComicArchive::open(book).unwrap();
        assert_page(&archive, &pages, 3, book);
        let alive = archive.walk.worker_alive().unwrap();
        let err = archive.walk.panic_worker().unwrap_err();
        assert!(
            matches!(&err, ArchiveError::Io(m) if m.contains("stopped")),
            "{err:?}"
        );
        assert!(!archive.walk.has_worker());
        assert!(!alive.load(Ordering::SeqCst));
        assert_page(&archive, &pages, 20, book);
        assert!(archive.walk.has_worker());
    }
}

/// Pages asked from several threads at once: one is read by the kept walk, the others (while
/// it is busy) by walks of their own; all are the files' bytes.
#[test]
fn pages_asked_from_several_threads_at_once_are_the_files_bytes() {
    let t = tempfile::tempdir().unwrap();
    let (books, pages) = books(t.path());
    let pages = Arc::new(pages);
    for book in &books {
        let archive = Arc::new(ComicArchive::open(book).unwrap());
        let readers: Vec<_> = (0..3)
            .map(|k| {
                let (archive, pages, book) = (archive.clone(), pages.clone(), book.clone());
                std::thread::spawn(move || {
                    for i in (0..PAGES).map(|i| (i * 17 + k * 5) % PAGES) {
                        assert_page(&archive, &pages, i, &book);
                    }
                })
            })
            .collect();
        for reader in readers {
            reader.join().unwrap();
        }
    }
}

/// A walk budget small enough for a test: 1 MiB, whatever the archive's size.
const SMALL_BUDGET: WalkBudget = WalkBudget {
    floor: 1 << 20,
    per_archive_byte: 0,
};

/// A kept walk counts everything decompressed since the archive's start: a page reached in
/// two steps is refused where one walk to it would be (16 pages of 96 KiB: page 11 ends past
/// 1 MiB from the start, though the second step alone decompresses less), and a run of zeros
/// between pages stops the walk that would go through it, in a solid 7z and a tar alike.
#[test]
fn the_budget_still_stops_a_walk_kept_between_pages() {
    let t = tempfile::tempdir().unwrap();
    let src = t.path().join("src");
    let (mut names, pages) = write_pages(&src, 16, 96 << 10);
    for book in &pack_both(t.path(), &src, "pages", &names) {
        let archive = ComicArchive::open_with(book, SMALL_BUDGET).unwrap();
        // Pages 0 to 4 read (480 KiB), the walk kept after them.
        assert_page(&archive, &pages, 0, book);
        assert!(archive.walk.has_worker());
        let err = archive.page(11).unwrap_err();
        assert!(
            matches!(err, ArchiveError::DecompressesTooMuch { budget } if budget == 1 << 20),
            "{}: {err:?}",
            book.display()
        );
        // The same as a walk of its own.
        let fresh = ComicArchive::open_with(book, SMALL_BUDGET).unwrap();
        assert!(matches!(
            fresh.page(11),
            Err(ArchiveError::DecompressesTooMuch { .. })
        ));
        // Read with the budget every book gets, the same pages come.
        let archive = ComicArchive::open(book).unwrap();
        for i in [0, 11, 15] {
            assert_page(&archive, &pages, i, book);
        }
    }

    // 16 MiB of zeros (a sparse file: nothing written) between page 2 and page 3.
    let filler = std::fs::File::create(src.join("002z-filler.bin")).unwrap();
    filler.set_len(16 << 20).unwrap();
    names.insert(2, "002z-filler.bin".into());
    for book in &pack_both(t.path(), &src, "filler", &names) {
        let archive = ComicArchive::open_with(book, SMALL_BUDGET).unwrap();
        assert_page(&archive, &pages, 0, book);
        let err = archive.page(8).unwrap_err();
        assert!(
            matches!(err, ArchiveError::DecompressesTooMuch { .. }),
            "{}: {err:?}",
            book.display()
        );
        // Page 1 was read ahead with page 0; page 2, past the run, is refused too.
        assert_page(&archive, &pages, 1, book);
        assert!(matches!(
            archive.page(2),
            Err(ArchiveError::DecompressesTooMuch { .. })
        ));
    }
}
