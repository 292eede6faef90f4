//! Library folders with real folders and real files: CBZs and EPUBs made here, scanned,
//! changed, removed and renamed, and the watcher following them.

use std::io::Write;
use std::path::Path;
use std::sync::atomic::AtomicBool;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use carrel_foundation::store::test_support::temp_store;
use carrel_foundation::store::Store;

use super::*;

/// A reader's folder of books, apart from the data dir.
fn folder() -> tempfile::TempDir {
    tempfile::tempdir().unwrap()
}

/// A store, and a reader's folder of books apart from it.
fn store_and_folder() -> (tempfile::TempDir, Store, tempfile::TempDir) {
    let (data, store) = temp_store();
    (data, store, folder())
}

/// A 1×1 PNG's header is enough for a page: pages are sniffed, not decoded, when a book comes in.
fn png(seed: u8) -> Vec<u8> {
    let mut b = carrel_foundation::image_type::test_support::png_header(1, 1);
    b.extend_from_slice(&[seed; 16]);
    b
}

/// Writes a CBZ of `pages` pages at `path` (its folders made).
fn write_cbz(path: &Path, pages: u8) {
    write_cbz_numbered(path, pages, 0);
}

/// [`write_cbz`] with `number` in its pages, so that comics of different numbers differ (a
/// library of copies of one file is not what a scan is measured on).
fn write_cbz_numbered(path: &Path, pages: u8, number: u32) {
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    let file = std::fs::File::create(path).unwrap();
    let mut zip = zip::ZipWriter::new(file);
    let opts =
        zip::write::SimpleFileOptions::default().compression_method(zip::CompressionMethod::Stored);
    for i in 0..pages {
        zip.start_file(format!("{:03}.png", i + 1), opts).unwrap();
        zip.write_all(&png(i)).unwrap();
        zip.write_all(&number.to_be_bytes()).unwrap();
    }
    zip.finish().unwrap();
}

/// Writes a one-chapter EPUB titled `title` at `path`.
fn write_epub(path: &Path, title: &str) {
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    let file = std::fs::File::create(path).unwrap();
    let mut zip = zip::ZipWriter::new(file);
    let stored =
        zip::write::SimpleFileOptions::default().compression_method(zip::CompressionMethod::Stored);
    zip.start_file("mimetype", stored).unwrap();
    zip.write_all(b"application/epub+zip").unwrap();
    zip.start_file("META-INF/container.xml", stored).unwrap();
    zip.write_all(
        br#"<?xml version="1.0"?>
<container version="1.0" xmlns="urn:oasis:names:tc:opendocument:xmlns:container">
  <rootfiles><rootfile full-path="OEBPS/content.opf" media-type="application/oebps-package+xml"/></rootfiles>
</container>"#,
    )
    .unwrap();
    zip.start_file("OEBPS/content.opf", stored).unwrap();
    write!(
        zip,
        r#"<?xml version="1.0"?>
<package xmlns="http://www.idpf.org/2007/opf" version="3.0" unique-identifier="id">
  <metadata xmlns:dc="http://purl.org/dc/elements/1.1/">
    <dc:identifier id="id">urn:uuid:{title}</dc:identifier>
    <dc:title>{title}</dc:title>
    <dc:language>en</dc:language>
  </metadata>
  <manifest><item id="c1" href="c1.xhtml" media-type="application/xhtml+xml"/></manifest>
  <spine><itemref idref="c1"/></spine>
</package>"#
    )
    .unwrap();
    zip.start_file("OEBPS/c1.xhtml", stored).unwrap();
    write!(
        zip,
        r#"<html xmlns="http://www.w3.org/1999/xhtml"><body><p>{title}</p></body></html>"#
    )
    .unwrap();
    zip.finish().unwrap();
}

#[derive(Default)]
struct Recorded(Mutex<Vec<ScanEvent>>);

impl ScanProgress for Recorded {
    fn report(&self, event: ScanEvent) {
        self.0.lock().unwrap().push(event);
    }
}

impl Recorded {
    fn events(&self) -> Vec<ScanEvent> {
        self.0.lock().unwrap().clone()
    }
}

fn no_cancel() -> AtomicBool {
    AtomicBool::new(false)
}

fn scan_now(store: &Store, id: i64) -> ScanSummary {
    scan(store, id, &NoProgress, &no_cancel()).unwrap()
}

/// `root` added as a library folder and scanned once.
fn add_scanned(store: &Store, root: &Path) -> LibraryFolder {
    let added = add(store, root).unwrap();
    scan_now(store, added.id);
    added
}

/// A reader's folder of three books: `a.cbz` and `c.cbz` of two pages, and `b.epub` titled
/// "Before".
fn folder_of_three() -> tempfile::TempDir {
    let books = folder();
    let root = books.path();
    write_cbz(&root.join("a.cbz"), 2);
    write_epub(&root.join("b.epub"), "Before");
    write_cbz(&root.join("c.cbz"), 2);
    books
}

/// The library's books as (file path, title), by path: what the folder's files became.
fn books_of(store: &Store, folder: &LibraryFolder) -> Vec<(String, String)> {
    let mut books: Vec<(String, String)> = carrel_foundation::rows::all(
        store,
        "SELECT f.path, b.title FROM library_folder_files f JOIN books b ON b.id = f.book_id
         WHERE f.folder_id = ?1 ORDER BY f.path",
        [folder.id],
        |r| Ok((r.get(0)?, r.get(1)?)),
    )
    .unwrap();
    let root = Path::new(&folder.path);
    for (path, _) in &mut books {
        *path = Path::new(path)
            .strip_prefix(root)
            .unwrap()
            .display()
            .to_string();
    }
    books
}

fn book_ids(store: &Store) -> Vec<i64> {
    carrel_foundation::rows::all(store, "SELECT id FROM books ORDER BY id", [], |r| r.get(0))
        .unwrap()
}

/// The book a file of the folder was taken in as.
fn book_at(store: &Store, folder: &LibraryFolder, relative: &str) -> i64 {
    let path = Path::new(&folder.path).join(relative);
    let sql = "SELECT book_id FROM library_folder_files WHERE folder_id = ?1 AND path = ?2";
    carrel_foundation::rows::value(store, sql, params![folder.id, path.to_str().unwrap()]).unwrap()
}

fn relative_paths(store: &Store, folder: &LibraryFolder) -> Vec<String> {
    books_of(store, folder)
        .into_iter()
        .map(|(p, _)| p)
        .collect()
}

#[test]
fn a_folder_is_added_listed_found_and_removed() {
    let (_d, store, books) = store_and_folder();
    let added = add(&store, books.path()).unwrap();
    let canonical = std::fs::canonicalize(books.path()).unwrap();
    assert_eq!(added.path, canonical.to_str().unwrap());
    assert_eq!(added.book_count, 0);
    assert_eq!(added.last_scan_ms, None);
    assert_eq!(list(&store).unwrap(), vec![added.clone()]);
    assert_eq!(find(&store, &added.id.to_string()).unwrap(), added);
    assert_eq!(find(&store, books.path().to_str().unwrap()).unwrap(), added);

    let again = add(&store, books.path()).unwrap_err();
    assert!(matches!(again, FolderError::AlreadyAdded { .. }), "{again}");
    assert_eq!(again.kind(), ErrorKind::Conflict);

    let file = books.path().join("a.cbz");
    write_cbz(&file, 1);
    let not_folder = add(&store, &file).unwrap_err();
    assert_eq!(not_folder.kind(), ErrorKind::InvalidInput, "{not_folder}");
    let missing = add(&store, &books.path().join("nowhere")).unwrap_err();
    assert!(
        matches!(missing, FolderError::Unreadable { .. }),
        "{missing}"
    );

    let removed = remove(&store, added.id).unwrap();
    assert_eq!(removed.folder.id, added.id);
    assert!(list(&store).unwrap().is_empty());
    assert_eq!(
        remove(&store, added.id).unwrap_err().kind(),
        ErrorKind::NotFound
    );
}

#[test]
fn a_scan_imports_the_books_of_a_folder_and_nothing_else() {
    let (_d, store, books) = store_and_folder();
    let root = books.path();
    write_cbz(&root.join("Saga 01.cbz"), 3);
    write_cbz(&root.join("Series/Saga 02.CBZ"), 2);
    write_epub(&root.join("Novels/deep/Walden.epub"), "Walden");
    write_cbz(&root.join(".hidden/Secret.cbz"), 1);
    write_cbz(&root.join("Series/.Draft.cbz"), 1);
    std::fs::write(root.join("notes.txt"), b"not a book").unwrap();
    std::fs::write(root.join("Series/cover.jpg"), png(1)).unwrap();
    // A link back up the tree: walked once, not forever.
    std::os::unix::fs::symlink(root, root.join("Series/loop")).unwrap();

    let added = add(&store, root).unwrap();
    let recorded = Recorded::default();
    let summary = scan(&store, added.id, &recorded, &no_cancel()).unwrap();
    assert_eq!(
        (
            summary.found,
            summary.imported,
            summary.failed,
            summary.cancelled
        ),
        (3, 3, 0, false),
        "{summary:?}"
    );
    assert_eq!(
        relative_paths(&store, &added),
        vec![
            "Novels/deep/Walden.epub",
            "Saga 01.cbz",
            "Series/Saga 02.CBZ"
        ]
    );
    let folder = get(&store, added.id).unwrap();
    assert_eq!(folder.book_count, 3);
    assert_eq!(folder.last_scan_ms, Some(42));

    let events = recorded.events();
    assert!(
        matches!(events.last(), Some(ScanEvent::Finished { summary: s }) if s == &summary),
        "{events:?}"
    );
    assert!(events.contains(&ScanEvent::Walking {
        folder_id: added.id,
        found: 3
    }));
    assert!(
        events.iter().any(|e| matches!(
            e,
            ScanEvent::Importing {
                done: 3,
                total: 3,
                ..
            }
        )),
        "{events:?}"
    );

    // Nothing changed: nothing taken in again.
    let again = scan_now(&store, added.id);
    assert_eq!(
        (again.found, again.imported, again.updated, again.dropped),
        (3, 0, 0, 0)
    );
    assert_eq!(book_ids(&store).len(), 3);
}

#[test]
fn a_changed_file_is_taken_in_again_and_a_gone_one_leaves_the_library() {
    let (_d, store) = temp_store();
    let books = folder_of_three();
    let root = books.path();
    let added = add_scanned(&store, root);
    assert_eq!(book_ids(&store).len(), 3);

    write_epub(&root.join("b.epub"), "After, a longer title");
    std::fs::remove_file(root.join("c.cbz")).unwrap();
    let summary = scan_now(&store, added.id);
    assert_eq!(
        (
            summary.found,
            summary.imported,
            summary.updated,
            summary.dropped
        ),
        (2, 0, 1, 1),
        "{summary:?}"
    );
    assert_eq!(
        books_of(&store, &added),
        vec![
            ("a.cbz".to_owned(), books_of(&store, &added)[0].1.clone()),
            ("b.epub".to_owned(), "After, a longer title".to_owned())
        ]
    );
    assert_eq!(
        book_ids(&store).len(),
        2,
        "the gone file's book left the library"
    );
    assert!(root.join("a.cbz").exists() && root.join("b.epub").exists());
}

#[test]
fn a_folder_removed_drops_its_books_and_leaves_its_files() {
    let (_d, store, books) = store_and_folder();
    let root = books.path();
    write_cbz(&root.join("a.cbz"), 2);
    write_epub(&root.join("sub/b.epub"), "Kept on disk");
    let added = add_scanned(&store, root);
    assert_eq!(book_ids(&store).len(), 2);

    let removed = remove(&store, added.id).unwrap();
    assert_eq!(removed.books_dropped, 2);
    assert!(book_ids(&store).is_empty());
    assert!(root.join("a.cbz").is_file());
    assert!(root.join("sub/b.epub").is_file());
}

#[test]
fn a_book_in_two_folders_stays_while_one_still_holds_it() {
    let (_d, store, books) = store_and_folder();
    let root = books.path();
    write_cbz(&root.join("inner/a.cbz"), 2);
    let outer = add(&store, root).unwrap();
    let inner = add(&store, &root.join("inner")).unwrap();
    scan_now(&store, outer.id);
    scan_now(&store, inner.id);
    assert_eq!(book_ids(&store).len(), 1, "one file, one book");

    remove(&store, inner.id).unwrap();
    assert_eq!(book_ids(&store).len(), 1, "the outer folder still holds it");
    remove(&store, outer.id).unwrap();
    assert!(book_ids(&store).is_empty());
}

#[test]
fn a_folder_that_cannot_be_read_changes_nothing() {
    let (_d, store, books) = store_and_folder();
    let root = books.path().join("drive");
    write_cbz(&root.join("a.cbz"), 2);
    let added = add_scanned(&store, &root);
    // The drive is unplugged: its books are not taken for gone.
    std::fs::rename(&root, books.path().join("elsewhere")).unwrap();
    let recorded = Recorded::default();
    let err = scan(&store, added.id, &recorded, &no_cancel()).unwrap_err();
    assert!(matches!(err, FolderError::Unreadable { .. }), "{err}");
    assert!(matches!(
        recorded.events().last(),
        Some(ScanEvent::Failed { .. })
    ));
    assert_eq!(book_ids(&store).len(), 1);
    assert_eq!(get(&store, added.id).unwrap().book_count, 1);
}

#[test]
fn a_file_that_is_not_a_book_is_tried_again_only_once_changed() {
    let (_d, store, books) = store_and_folder();
    let root = books.path();
    std::fs::write(root.join("broken.cbz"), b"this is not a zip file").unwrap();
    let added = add(&store, root).unwrap();
    let first = scan_now(&store, added.id);
    assert_eq!(
        (first.found, first.imported, first.failed),
        (1, 0, 1),
        "{first:?}"
    );
    let second = scan_now(&store, added.id);
    assert_eq!(
        (second.imported, second.failed),
        (0, 0),
        "unchanged: not tried again"
    );
    write_cbz(&root.join("broken.cbz"), 2);
    let third = scan_now(&store, added.id);
    assert_eq!(
        (third.imported, third.updated, third.failed),
        (0, 1, 0),
        "{third:?}"
    );
    assert_eq!(get(&store, added.id).unwrap().book_count, 1);
}

#[test]
fn a_cancelled_scan_keeps_what_it_did_and_the_next_finishes() {
    let (_d, store, books) = store_and_folder();
    for i in 0..5 {
        write_cbz(&books.path().join(format!("{i}.cbz")), 1);
    }
    let added = add(&store, books.path()).unwrap();
    let cancelled = scan(&store, added.id, &NoProgress, &AtomicBool::new(true)).unwrap();
    assert!(cancelled.cancelled);
    assert_eq!(get(&store, added.id).unwrap().last_scan_ms, None);
    let summary = scan_now(&store, added.id);
    assert_eq!(summary.imported, 5);
}

/// Waits (at most 20 s: a timeout is a failure, not a measure of speed) until the folder's
/// books are `expected`.
fn wait_for(store: &Store, folder: &LibraryFolder, expected: &[&str]) {
    let deadline = Instant::now() + Duration::from_secs(20);
    loop {
        let now = relative_paths(store, folder);
        if now == expected {
            return;
        }
        assert!(
            Instant::now() < deadline,
            "the library did not follow the folder: {now:?}, expected {expected:?}"
        );
        std::thread::sleep(Duration::from_millis(100));
    }
}

#[test]
fn the_watcher_follows_files_added_changed_removed_and_renamed() {
    let (_d, store) = temp_store();
    let books = folder_of_three();
    let root = books.path();
    write_cbz(&root.join("d.cbz"), 4);
    let added = add(&store, root).unwrap();
    let recorded = Arc::new(Recorded::default());
    let watcher = FolderWatcher::start(store.clone(), recorded.clone()).unwrap();
    // The scan at start takes in what is there.
    wait_for(&store, &added, &["a.cbz", "b.epub", "c.cbz", "d.cbz"]);
    let renamed_book = book_at(&store, &added, "d.cbz");

    write_cbz(&root.join("new/e.cbz"), 3);
    write_epub(&root.join("b.epub"), "After");
    std::fs::remove_file(root.join("c.cbz")).unwrap();
    std::fs::rename(root.join("d.cbz"), root.join("renamed.cbz")).unwrap();
    wait_for(
        &store,
        &added,
        &["a.cbz", "b.epub", "new/e.cbz", "renamed.cbz"],
    );
    let titles = books_of(&store, &added);
    assert_eq!(titles[1].1, "After", "{titles:?}");
    assert_eq!(
        book_ids(&store).len(),
        4,
        "gone files' books left the library"
    );
    let renamed = local_books::local_file(&store, renamed_book)
        .unwrap()
        .unwrap();
    assert!(
        renamed.path.ends_with("/renamed.cbz"),
        "a renamed file keeps its book (its position and notes): {renamed:?}"
    );

    // A folder added while it runs is watched once it is told.
    let more = folder();
    let second = add(&store, more.path()).unwrap();
    watcher.folders_changed();
    watcher.rescan(second.id);
    wait_for(&store, &second, &[]);
    write_cbz(&more.path().join("f.cbz"), 1);
    wait_for(&store, &second, &["f.cbz"]);

    drop(watcher);
    assert!(recorded
        .events()
        .iter()
        .any(|e| matches!(e, ScanEvent::Finished { summary } if summary.folder_id == second.id)));
}

/// A first scan of many files: how long it takes, and how long a write of another thread (the
/// executor's, a window's) waits meanwhile. Printed, not asserted (`--nocapture` shows it);
/// `CARREL_SCAN_FILES=10000` measures a larger folder.
#[test]
fn a_large_first_scan_leaves_the_writer_free_between_batches() {
    let files: usize = std::env::var("CARREL_SCAN_FILES")
        .ok()
        .and_then(|n| n.parse().ok())
        .unwrap_or(300);
    let (_d, store, books) = store_and_folder();
    for i in 0..files {
        write_cbz_numbered(
            &books.path().join(format!("{:02}/{i:05}.cbz", i % 40)),
            1,
            i as u32,
        );
    }
    let added = add(&store, books.path()).unwrap();
    let stop = Arc::new(AtomicBool::new(false));
    let writer = {
        let (store, stop) = (store.clone(), stop.clone());
        std::thread::spawn(move || {
            let mut longest = Duration::ZERO;
            let mut writes = 0u32;
            while !stop.load(Ordering::Relaxed) {
                let started = Instant::now();
                store
                    .execute("UPDATE library_folders SET added_at_ms = added_at_ms", [])
                    .unwrap();
                longest = longest.max(started.elapsed());
                writes += 1;
                std::thread::sleep(Duration::from_millis(5));
            }
            (longest, writes)
        })
    };
    let recorded = Recorded::default();
    let started = Instant::now();
    let summary = scan(&store, added.id, &recorded, &no_cancel()).unwrap();
    let took = started.elapsed();
    stop.store(true, Ordering::Relaxed);
    let (longest, writes) = writer.join().unwrap();
    assert_eq!(summary.imported, files as u64, "{summary:?}");
    assert_eq!(get(&store, added.id).unwrap().book_count, files as i64);
    let reports = recorded.events().len();
    let started = Instant::now();
    let again = scan_now(&store, added.id);
    let unchanged = started.elapsed();
    assert_eq!((again.imported, again.updated, again.dropped), (0, 0, 0));
    eprintln!(
        "first scan of {files} CBZs: {took:?} ({:?} a file); {writes} writes of another thread \
         meanwhile, the longest waited {longest:?}; {reports} progress reports; the same folder \
         unchanged: {unchanged:?}",
        took / files as u32
    );
}

#[test]
fn a_folder_removed_during_its_scan_takes_what_the_scan_took_in_with_it() {
    let (_d, store, books) = store_and_folder();
    write_cbz(&books.path().join("a.cbz"), 1);
    write_cbz(&books.path().join("b.cbz"), 2);
    let added = add(&store, books.path()).unwrap();

    /// Removes the folder as the first file is taken in (as a window's Remove would).
    struct RemoveOnImport(Store, i64, AtomicBool);
    impl ScanProgress for RemoveOnImport {
        fn report(&self, event: ScanEvent) {
            if matches!(event, ScanEvent::Importing { .. }) && !self.2.swap(true, Ordering::SeqCst)
            {
                remove(&self.0, self.1).unwrap();
            }
        }
    }
    let sink = RemoveOnImport(store.clone(), added.id, AtomicBool::new(false));
    let err = scan(&store, added.id, &sink, &no_cancel()).unwrap_err();
    assert_eq!(err.kind(), ErrorKind::NotFound, "{err}");
    assert!(
        book_ids(&store).is_empty(),
        "no book left without its folder"
    );
    assert!(list(&store).unwrap().is_empty());
}
