//! Importing real files built here: a CBZ of PNGs with a ComicInfo.xml, EPUBs naming their
//! series the calibre and the EPUB 3 way, a small PDF; then reading them through the readers'
//! own sources, moving, changing, copying and removing them.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::time::Duration;

use super::*;
use carrel_engine::book_downloads::{self, DownloadRequestError};
use carrel_engine::download_stack::{self, TaskState};
use carrel_foundation::image_type::test_support::png_header;
use carrel_foundation::store::test_support::temp_store;
use carrel_reading::served_page::WaitPolicy;
use carrel_reading::{archive_pages, book_source};

const COMIC_INFO: &str = r#"<?xml version="1.0" encoding="utf-8"?>
<ComicInfo xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance">
  <Title>The Long Night</Title>
  <Series>Night Watch</Series>
  <Number>3</Number>
  <Writer>Ann Writer, Bo Scribe</Writer>
  <Penciller>Cy Pencil</Penciller>
  <Summary>A city &amp; its night.</Summary>
  <PageCount>3</PageCount>
</ComicInfo>"#;

/// Three distinct PNG pages, named so that natural order differs from byte order.
fn pages() -> Vec<(&'static str, Vec<u8>)> {
    vec![
        ("page 1.png", png_header(10, 11)),
        ("page 2.png", png_header(20, 21)),
        ("page 10.png", png_header(30, 31)),
    ]
}

fn zip_file(path: &Path, entries: &[(&str, &[u8])]) {
    let file = std::fs::File::create(path).unwrap();
    let mut zip = zip::ZipWriter::new(file);
    for (name, bytes) in entries {
        let options = zip::write::SimpleFileOptions::default()
            .compression_method(zip::CompressionMethod::Stored);
        zip.start_file(*name, options).unwrap();
        zip.write_all(bytes).unwrap();
    }
    zip.finish().unwrap();
}

fn cbz(dir: &Path, name: &str, info: &str) -> PathBuf {
    let path = dir.join(name);
    let pages = pages();
    let mut entries: Vec<(&str, &[u8])> = vec![("ComicInfo.xml", info.as_bytes())];
    // Written last page first: the archive's order is not the reading order.
    for (n, b) in pages.iter().rev() {
        entries.push((n, b));
    }
    zip_file(&path, &entries);
    path
}

const CONTAINER: &str = r#"<?xml version="1.0"?>
<container version="1.0" xmlns="urn:oasis:names:tc:opendocument:xmlns:container">
  <rootfiles><rootfile full-path="OEBPS/content.opf" media-type="application/oebps-package+xml"/></rootfiles>
</container>"#;

fn calibre_opf(title: &str) -> String {
    format!(
        r#"<?xml version="1.0" encoding="utf-8"?>
<package xmlns="http://www.idpf.org/2007/opf" version="2.0" unique-identifier="id">
  <metadata xmlns:dc="http://purl.org/dc/elements/1.1/" xmlns:opf="http://www.idpf.org/2007/opf">
    <dc:title>{title}</dc:title>
    <dc:creator opf:role="aut">Mary Shelley</dc:creator>
    <dc:description>&lt;p&gt;A &lt;b&gt;modern&lt;/b&gt; Prometheus.&lt;/p&gt;</dc:description>
    <dc:identifier id="id">urn:uuid:1</dc:identifier>
    <meta name="calibre:series" content="Gothic Tales"/>
    <meta name="calibre:series_index" content="2.0"/>
    <meta name="cover" content="cover-img"/>
  </metadata>
  <manifest>
    <item id="cover-img" href="images/My%20Cover.png" media-type="image/png"/>
    <item id="c1" href="c1.xhtml" media-type="application/xhtml+xml"/>
  </manifest>
  <spine><itemref idref="c1"/></spine>
</package>"#
    )
}

fn epub(dir: &Path, name: &str, opf: &str) -> PathBuf {
    let path = dir.join(name);
    let cover = png_header(40, 60);
    let chapter = b"<html xmlns=\"http://www.w3.org/1999/xhtml\"><body><p>It was a dreary night.</p></body></html>";
    zip_file(
        &path,
        &[
            ("mimetype", b"application/epub+zip"),
            ("META-INF/container.xml", CONTAINER.as_bytes()),
            ("OEBPS/content.opf", opf.as_bytes()),
            ("OEBPS/c1.xhtml", chapter),
            ("OEBPS/images/My Cover.png", &cover),
        ],
    );
    path
}

fn pdf(dir: &Path, name: &str) -> PathBuf {
    let path = dir.join(name);
    let body = "%PDF-1.4\n1 0 obj << /Type /Catalog /Pages 2 0 R >> endobj\n\
        2 0 obj << /Type /Pages /Kids [3 0 R] /Count 1 >> endobj\n\
        3 0 obj << /Type /Page /Parent 2 0 R /MediaBox [0 0 200 200] >> endobj\n\
        4 0 obj << /Title (Notes on \\(small\\) Things) /Author (Someone) >> endobj\n\
        trailer << /Root 1 0 R /Info 4 0 R >>\n%%EOF\n";
    std::fs::write(&path, body).unwrap();
    path
}

/// A store, and apart from it a folder for the reader's own files.
fn store_and_files() -> (tempfile::TempDir, Store, tempfile::TempDir) {
    let (data, store) = temp_store();
    (data, store, tempfile::tempdir().unwrap())
}

fn wait() -> WaitPolicy {
    WaitPolicy {
        poll: Duration::from_millis(10),
        timeout: Duration::from_millis(300),
    }
}

fn runtime() -> tokio::runtime::Runtime {
    tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap()
}

fn pending_tasks(store: &Store) -> usize {
    download_stack::in_state(store, TaskState::Pending, 100)
        .unwrap()
        .len()
}

#[test]
fn a_cbz_is_imported_with_its_comic_info_and_read_through_the_comic_readers_page_source() {
    let (t, store, files) = store_and_files();
    let path = cbz(files.path(), "night-watch-3.cbz", COMIC_INFO);

    let book = import(&store, &path, ImportMode::Reference).unwrap();
    assert_eq!(book.title, "The Long Night");
    assert_eq!(book.format, BookFormat::Comic);
    assert!(!book.already_known);
    assert_eq!(book.authors, ["Ann Writer", "Bo Scribe", "Cy Pencil"]);
    assert_eq!(book.series.as_deref(), Some("Night Watch"));
    assert_eq!(book.number.as_deref(), Some("3"));
    assert_eq!(
        book.path,
        std::fs::canonicalize(&path).unwrap().to_string_lossy()
    );
    let meta = book_view::meta(&store, &books::get(&store, book.book_id).unwrap()).unwrap();
    assert_eq!(meta.summary.as_deref(), Some("A city & its night."));
    assert_eq!(meta.series_index, Some(3.0));

    // The source is the device, which no list of servers shows.
    let row = books::get(&store, book.book_id).unwrap();
    assert!(servers::is_device_source(&store, row.server_id).unwrap());
    assert!(servers::list(&store).unwrap().is_empty());
    assert!(row.pinned && row.is_local_file());
    assert_eq!(row.page_count, Some(3));

    // Page 1 is the archive's first page in reading order, byte for byte, through the comic
    // reader's own page source; page 3 is "page 10.png".
    let rt = runtime();
    let opened = rt
        .block_on(archive_pages::open(&store, book.book_id, wait()))
        .unwrap();
    assert_eq!(opened.page_count, 3);
    let first = rt
        .block_on(archive_pages::page(&store, book.book_id, 0, wait()))
        .unwrap();
    assert_eq!(first.bytes, pages()[0].1);
    let third = rt
        .block_on(archive_pages::page(&store, book.book_id, 2, wait()))
        .unwrap();
    assert_eq!(third.bytes, pages()[2].1);

    // The cover is the first page, where the cover protocol looks.
    let cover = crate::cover_cache::find_local(store.data_dir(), book.book_id).unwrap();
    assert_eq!(std::fs::read(cover).unwrap(), pages()[0].1);
    // Opening it asks for nothing to be downloaded.
    assert_eq!(
        book_downloads::open_book(&store, book.book_id, None).unwrap(),
        None
    );
    assert_eq!(pending_tasks(&store), 0);
    drop(t);
}

#[test]
fn an_epub_is_imported_with_its_calibre_series_and_served_whole_by_the_book_source() {
    let (_t, store, files) = store_and_files();
    let path = epub(
        files.path(),
        "frankenstein.epub",
        &calibre_opf("Frankenstein"),
    );

    let book = import(&store, &path, ImportMode::Reference).unwrap();
    assert_eq!(book.title, "Frankenstein");
    assert_eq!(book.format, BookFormat::Epub);
    assert_eq!(book.authors, ["Mary Shelley"]);
    assert_eq!(book.series.as_deref(), Some("Gothic Tales"));
    assert_eq!(book.number.as_deref(), Some("2"));
    let meta = book_view::meta(&store, &books::get(&store, book.book_id).unwrap()).unwrap();
    assert_eq!(meta.summary.as_deref(), Some("A modern Prometheus."));

    let served = book_source::stored_book(&store, book.book_id)
        .unwrap()
        .unwrap();
    assert_eq!(served.bytes, std::fs::read(&path).unwrap());
    assert_eq!(served.content_type, EPUB_TYPE);
    let cover = crate::cover_cache::find_local(store.data_dir(), book.book_id).unwrap();
    assert_eq!(std::fs::read(cover).unwrap(), png_header(40, 60));
    assert_eq!(
        carrel_reading::book_reader::reader_for(&books::get(&store, book.book_id).unwrap()),
        carrel_reading::book_reader::BookReader::Epub
    );
}

#[test]
fn an_epub_3_names_its_series_as_a_collection_and_its_cover_by_property() {
    let opf = r##"<package xmlns="http://www.idpf.org/2007/opf" version="3.0">
      <metadata xmlns:dc="http://purl.org/dc/elements/1.1/">
        <dc:title>  The   Fellowship </dc:title>
        <dc:creator>J. R. R. Tolkien</dc:creator>
        <dc:creator>j. r. r. tolkien</dc:creator>
        <meta property="belongs-to-collection" id="c01">The Lord of the Rings</meta>
        <meta refines="#c01" property="collection-type">series</meta>
        <meta refines="#c01" property="group-position">1</meta>
      </metadata>
      <manifest><item id="x" href="../img/c.jpg" properties="cover-image" media-type="image/jpeg"/></manifest>
    </package>"##;
    let meta = parse_opf(opf);
    assert_eq!(meta.title.as_deref(), Some("The Fellowship"));
    assert_eq!(meta.authors, ["J. R. R. Tolkien"]);
    assert_eq!(meta.series.as_deref(), Some("The Lord of the Rings"));
    assert_eq!(meta.number.as_deref(), Some("1"));
    assert_eq!(meta.cover_href.as_deref(), Some("../img/c.jpg"));
    assert_eq!(
        resolve_href("OPS/content.opf", "../img/c.jpg").as_deref(),
        Some("img/c.jpg")
    );
    // An address that climbs out of the archive names nothing.
    assert_eq!(resolve_href("content.opf", "../../etc/passwd"), None);
}

#[test]
fn a_pdf_is_imported_under_its_document_title() {
    let (_t, store, files) = store_and_files();
    let path = pdf(files.path(), "scan-0042.pdf");
    let book = import(&store, &path, ImportMode::Reference).unwrap();
    assert_eq!(book.title, "Notes on (small) Things");
    assert_eq!(book.format, BookFormat::Pdf);
    let served = book_source::stored_book(&store, book.book_id)
        .unwrap()
        .unwrap();
    assert_eq!(served.content_type, PDF_TYPE);
    assert_eq!(
        title_in(b"/Title <FEFF0041004200E9>"),
        Some("AB\u{e9}".into())
    );
}

#[test]
fn importing_the_same_file_again_is_the_same_book_and_a_changed_file_is_read_again() {
    let (_t, store, files) = store_and_files();
    let path = epub(files.path(), "book.epub", &calibre_opf("First Title"));
    let first = import(&store, &path, ImportMode::Reference).unwrap();
    let again = import(&store, &path, ImportMode::Reference).unwrap();
    assert_eq!(again.book_id, first.book_id);
    assert!(again.already_known);
    assert_eq!(
        check(&store, first.book_id).unwrap(),
        Some(FileCheck {
            state: LocalFileState::Present,
            refreshed: false
        })
    );

    // Rewritten in place with another title (and another length).
    epub(
        files.path(),
        "book.epub",
        &calibre_opf("A Much Longer Second Title"),
    );
    let checked = check(&store, first.book_id).unwrap().unwrap();
    assert_eq!(checked.state, LocalFileState::Present);
    assert!(checked.refreshed);
    assert_eq!(
        books::get(&store, first.book_id).unwrap().title,
        "A Much Longer Second Title"
    );
    let served = book_source::stored_book(&store, first.book_id)
        .unwrap()
        .unwrap();
    assert_eq!(served.bytes, std::fs::read(&path).unwrap());
    // And imported once more: still the one book.
    let third = import(&store, &path, ImportMode::Reference).unwrap();
    assert_eq!(third.book_id, first.book_id);
    assert_eq!(third.title, "A Much Longer Second Title");
}

#[test]
fn a_moved_file_is_missing_until_imported_again_then_the_same_book_with_its_place() {
    let (_t, store, files) = store_and_files();
    let path = cbz(files.path(), "issue.cbz", COMIC_INFO);
    let book = import(&store, &path, ImportMode::Reference).unwrap();
    books::mark_opened(&store, book.book_id, Some(2)).unwrap();

    let moved_dir = files.path().join("sorted");
    std::fs::create_dir(&moved_dir).unwrap();
    let moved = moved_dir.join("Night Watch 003.cbz");
    std::fs::rename(&path, &moved).unwrap();

    assert_eq!(
        check(&store, book.book_id).unwrap().unwrap().state,
        LocalFileState::Missing
    );
    assert_eq!(
        local_file(&store, book.book_id).unwrap().unwrap().state,
        LocalFileState::Missing
    );
    // Shown as not on the device (its file task is gone with it).
    let status =
        book_downloads::status(&store, &books::get(&store, book.book_id).unwrap()).unwrap();
    assert!(!status.progress.is_complete());
    // Missing: not a crash, and nothing asked of any server.
    let started = std::time::Instant::now();
    let err = runtime()
        .block_on(archive_pages::page(&store, book.book_id, 0, wait()))
        .unwrap_err();
    assert!(err.to_string().contains("import it again"), "{err}");
    assert!(started.elapsed() < Duration::from_secs(5));
    assert!(matches!(
        book_downloads::open_book(&store, book.book_id, None),
        Err(DownloadRequestError::LocalFileMissing(_))
    ));
    assert!(matches!(
        book_downloads::store_book(&store, book.book_id),
        Ok(book_downloads::StoreRequest::AlreadyStored)
            | Err(DownloadRequestError::LocalFileMissing(_))
    ));
    assert_eq!(pending_tasks(&store), 0);

    // Another book whose file is gone too: forgetting the missing ones takes it, not the files.
    let gone = epub(files.path(), "gone.epub", &calibre_opf("Gone"));
    let gone_id = import(&store, &gone, ImportMode::Reference)
        .unwrap()
        .book_id;
    std::fs::remove_file(&gone).unwrap();

    let relinked = import(&store, &moved, ImportMode::Reference).unwrap();
    assert_eq!(relinked.book_id, book.book_id);
    assert!(relinked.already_known);
    let row = books::get(&store, book.book_id).unwrap();
    assert_eq!(row.last_page, Some(2));
    let local = local_file(&store, book.book_id).unwrap().unwrap();
    assert_eq!(local.state, LocalFileState::Present);
    assert_eq!(
        local.path,
        std::fs::canonicalize(&moved).unwrap().to_string_lossy()
    );
    let page = runtime()
        .block_on(archive_pages::page(&store, book.book_id, 0, wait()))
        .unwrap();
    assert_eq!(page.bytes, pages()[0].1);

    assert_eq!(forget_missing(&store).unwrap(), [gone_id]);
    assert!(books::get(&store, gone_id).is_err());
    assert!(books::get(&store, book.book_id).is_ok());
    assert!(moved.is_file());
}

#[test]
fn a_copy_is_independent_of_the_original() {
    let (_t, store, files) = store_and_files();
    let path = epub(files.path(), "copy-me.epub", &calibre_opf("Copied"));
    let original = std::fs::read(&path).unwrap();
    let book = import(&store, &path, ImportMode::Copy).unwrap();
    let stored = PartFiles::new(store.data_dir().books())
        .find_book_file(book.book_id)
        .unwrap();
    assert!(!stored.symlink_metadata().unwrap().file_type().is_symlink());

    // Removed from the device, then imported again: copied again.
    book_downloads::remove_book(&store, book.book_id).unwrap();
    let again = import(&store, &path, ImportMode::Copy).unwrap();
    assert_eq!((again.book_id, again.already_known), (book.book_id, true));
    assert!(book_source::stored_book(&store, book.book_id)
        .unwrap()
        .is_some());

    std::fs::remove_file(&path).unwrap();
    assert_eq!(
        check(&store, book.book_id).unwrap().unwrap().state,
        LocalFileState::Present
    );
    assert!(forget_missing(&store).unwrap().is_empty());
    let served = book_source::stored_book(&store, book.book_id)
        .unwrap()
        .unwrap();
    assert_eq!(served.bytes, original);
}

#[test]
fn removing_a_book_from_the_device_removes_the_link_and_never_the_readers_file() {
    let (_t, store, files) = store_and_files();
    let path = cbz(files.path(), "keep-me.cbz", COMIC_INFO);
    let bytes = std::fs::read(&path).unwrap();
    let book = import(&store, &path, ImportMode::Reference).unwrap();
    let link = PartFiles::new(store.data_dir().books())
        .find_book_file(book.book_id)
        .unwrap();
    assert!(link.symlink_metadata().unwrap().file_type().is_symlink());

    book_downloads::remove_book(&store, book.book_id).unwrap();
    assert!(link.symlink_metadata().is_err());
    assert_eq!(std::fs::read(&path).unwrap(), bytes);

    // Imported again, then forgotten altogether: still only the link goes.
    let again = import(&store, &path, ImportMode::Reference).unwrap();
    assert_eq!(again.book_id, book.book_id);
    forget(&store, book.book_id).unwrap();
    assert!(books::get(&store, book.book_id).is_err());
    assert_eq!(std::fs::read(&path).unwrap(), bytes);
    assert!(local_file(&store, book.book_id).unwrap().is_none());
}

#[cfg(unix)]
#[test]
fn removing_a_folder_removes_a_link_in_it_not_what_it_points_to() {
    let outside = tempfile::tempdir().unwrap();
    let target_dir = outside.path().join("library");
    std::fs::create_dir(&target_dir).unwrap();
    std::fs::write(target_dir.join("book.cbz"), b"the reader's").unwrap();
    let folder = outside.path().join("data/books/7");
    std::fs::create_dir_all(&folder).unwrap();
    std::os::unix::fs::symlink(target_dir.join("book.cbz"), folder.join("book.cbz")).unwrap();
    std::os::unix::fs::symlink(&target_dir, folder.join("a-folder-link")).unwrap();
    std::fs::remove_dir_all(&folder).unwrap();
    assert!(!folder.exists());
    assert_eq!(
        std::fs::read(target_dir.join("book.cbz")).unwrap(),
        b"the reader's"
    );
}

#[test]
fn device_books_are_never_evicted_nor_queued_for_download() {
    let (_t, store, files) = store_and_files();
    let a = import(
        &store,
        &cbz(files.path(), "a.cbz", COMIC_INFO),
        ImportMode::Reference,
    )
    .unwrap();
    let b = import(
        &store,
        &epub(files.path(), "b.epub", &calibre_opf("B")),
        ImportMode::Copy,
    )
    .unwrap();
    books::mark_opened(&store, a.book_id, Some(0)).unwrap();
    books::mark_opened(&store, b.book_id, Some(0)).unwrap();

    assert!(book_downloads::evict_unkept(&store, 0).unwrap().is_empty());
    assert!(PartFiles::new(store.data_dir().books())
        .find_book_file(a.book_id)
        .is_some());
    assert_eq!(
        book_downloads::store_book(&store, a.book_id).unwrap(),
        book_downloads::StoreRequest::AlreadyStored
    );
    let kept = book_downloads::keep_books(&store, &[a.book_id, b.book_id]).unwrap();
    assert_eq!(kept.queued, 0);
    assert_eq!(book_downloads::queue_latest_read(&store, 5).unwrap(), None);
    assert_eq!(book_downloads::retry_book(&store, a.book_id).unwrap(), 0);
    assert_eq!(pending_tasks(&store), 0);

    // Even with its file task gone (removed from the device), nothing is queued.
    book_downloads::remove_book(&store, a.book_id).unwrap();
    assert!(book_downloads::open_book(&store, a.book_id, None).is_err());
    assert!(book_downloads::store_book(&store, a.book_id).is_err());
    assert_eq!(book_downloads::queue_latest_read(&store, 5).unwrap(), None);
    assert_eq!(pending_tasks(&store), 0);
}

#[test]
fn what_is_not_a_book_is_refused_with_a_clear_error() {
    let (_t, store, files) = store_and_files();
    let text = files.path().join("notes.cbz");
    std::fs::write(&text, "just some text, not a comic").unwrap();
    assert!(matches!(
        import(&store, &text, ImportMode::Reference),
        Err(ImportError::NotABook(_))
    ));
    let no_pages = files.path().join("empty.cbz");
    zip_file(&no_pages, &[("readme.txt", b"hello")]);
    assert!(matches!(
        import(&store, &no_pages, ImportMode::Reference),
        Err(ImportError::NotABook(_))
    ));
    let truncated = files.path().join("cut.cbz");
    let whole = std::fs::read(cbz(files.path(), "whole.cbz", COMIC_INFO)).unwrap();
    std::fs::write(&truncated, &whole[..whole.len() / 2]).unwrap();
    let err = import(&store, &truncated, ImportMode::Reference).unwrap_err();
    assert!(
        matches!(err, ImportError::Damaged { .. } | ImportError::NotABook(_)),
        "{err:?}"
    );
    assert!(matches!(
        import(
            &store,
            &files.path().join("nowhere.epub"),
            ImportMode::Reference
        ),
        Err(ImportError::NotFound(_))
    ));
    assert!(matches!(
        import(&store, files.path(), ImportMode::Reference),
        Err(ImportError::NotAFile(_))
    ));
    // Nothing half made was left: only the whole CBZ's import would list a book.
    assert!(imported_ids(&store).unwrap().is_empty());
    assert!(books::all_ids(&store).unwrap().is_empty());
}

#[test]
fn hostile_metadata_is_bounded_and_never_panics() {
    let deep = format!(
        "<ComicInfo>{}{}</ComicInfo>",
        "<a>".repeat(10_000),
        "</a>".repeat(10_000)
    );
    assert!(parse_comic_details(&deep).authors.is_empty());
    let long = format!(
        "<ComicInfo><Writer>{}</Writer></ComicInfo>",
        "x".repeat(100_000)
    );
    assert_eq!(
        parse_comic_details(&long).authors[0].chars().count(),
        MAX_NAME_CHARS
    );
    assert_eq!(parse_opf("not xml at all <"), OpfMeta::default());
    assert_eq!(title_in(b"/Title (unterminated"), None);
    assert_eq!(title_in(b"/Title <zz>"), None);
    assert_eq!(percent_decode("%zz"), None);
    assert_eq!(percent_decode("a%2"), Some("a%2".into()));
}

/// A tar archive (ustar) of `entries`, written by hand.
fn tar_file(path: &Path, entries: &[(&str, &[u8])]) {
    let mut out = Vec::new();
    for (name, bytes) in entries {
        let mut header = [0u8; 512];
        header[..name.len()].copy_from_slice(name.as_bytes());
        header[100..107].copy_from_slice(b"0000644");
        header[108..115].copy_from_slice(b"0000000");
        header[116..123].copy_from_slice(b"0000000");
        header[124..135].copy_from_slice(format!("{:011o}", bytes.len()).as_bytes());
        header[136..147].copy_from_slice(b"00000000000");
        header[156] = b'0';
        header[257..263].copy_from_slice(b"ustar\0");
        header[263..265].copy_from_slice(b"00");
        header[148..156].copy_from_slice(b"        ");
        let sum: u32 = header.iter().map(|b| u32::from(*b)).sum();
        header[148..156].copy_from_slice(format!("{sum:06o}\0 ").as_bytes());
        out.extend_from_slice(&header);
        out.extend_from_slice(bytes);
        out.resize(out.len().div_ceil(512) * 512, 0);
    }
    out.resize(out.len() + 1024, 0);
    std::fs::write(path, out).unwrap();
}

#[test]
fn a_cbt_is_told_by_its_bytes_whatever_its_name_and_read_through_the_page_source() {
    let (_t, store, files) = store_and_files();
    // Named .cbz, but a tar: the bytes decide, and the book's file takes the right extension.
    let path = files.path().join("really-a-tar.cbz");
    let pages = pages();
    tar_file(
        &path,
        &[
            ("ComicInfo.xml", COMIC_INFO.as_bytes()),
            (pages[1].0, &pages[1].1),
            (pages[0].0, &pages[0].1),
        ],
    );
    let book = import(&store, &path, ImportMode::Reference).unwrap();
    assert_eq!(book.format, BookFormat::Comic);
    assert_eq!(book.title, "The Long Night");
    assert_eq!(book.authors, ["Ann Writer", "Bo Scribe", "Cy Pencil"]);
    let stored = PartFiles::new(store.data_dir().books())
        .find_book_file(book.book_id)
        .unwrap();
    assert_eq!(stored.extension().unwrap(), "cbt");
    let first = runtime()
        .block_on(archive_pages::page(&store, book.book_id, 0, wait()))
        .unwrap();
    assert_eq!(first.bytes, pages[0].1);
}

#[test]
fn a_rar_of_text_files_is_not_a_book_and_a_solid_rar_4_is_refused_as_unreadable() {
    let data = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../core/tests/data/rar");
    let (_t, store) = temp_store();
    let err = import(&store, &data.join("rar5-solid.rar"), ImportMode::Reference).unwrap_err();
    assert!(matches!(err, ImportError::NotABook(_)), "{err:?}");
    let err = import(&store, &data.join("rar3-solid.rar"), ImportMode::Reference).unwrap_err();
    assert!(
        matches!(err, ImportError::Damaged { .. } | ImportError::NotABook(_)),
        "{err:?}"
    );
    assert!(books::all_ids(&store).unwrap().is_empty());
}

#[test]
fn a_file_that_comes_back_where_it_was_is_the_book_again() {
    let (_t, store, files) = store_and_files();
    let path = cbz(files.path(), "on-a-drive.cbz", COMIC_INFO);
    let book = import(&store, &path, ImportMode::Reference).unwrap();
    let aside = files.path().join("aside.bin");
    std::fs::rename(&path, &aside).unwrap();
    assert_eq!(
        check(&store, book.book_id).unwrap().unwrap().state,
        LocalFileState::Missing
    );
    // The drive is plugged in again.
    std::fs::rename(&aside, &path).unwrap();
    assert_eq!(
        check(&store, book.book_id).unwrap(),
        Some(FileCheck {
            state: LocalFileState::Present,
            refreshed: false
        })
    );
    let row = books::get(&store, book.book_id).unwrap();
    assert!(book_downloads::status(&store, &row)
        .unwrap()
        .progress
        .is_complete());
    assert_eq!(
        book_downloads::open_book(&store, book.book_id, None).unwrap(),
        None
    );

    // Rewritten as something that is not a book: shown as changed, not on the device.
    std::fs::write(&path, "an unfinished download").unwrap();
    assert_eq!(
        check(&store, book.book_id).unwrap().unwrap().state,
        LocalFileState::Changed
    );
    assert!(book_downloads::open_book(&store, book.book_id, None).is_err());
    assert_eq!(pending_tasks(&store), 0);
}

#[test]
fn issues_of_a_series_imported_from_files_follow_each_other_in_their_numbers_order() {
    let (_t, store, files) = store_and_files();
    let issue = |number: &str, title: &str| {
        COMIC_INFO
            .replace("<Number>3</Number>", &format!("<Number>{number}</Number>"))
            .replace("The Long Night", title)
    };
    // Imported out of order, and a book of another series between them.
    let fourth = import(
        &store,
        &cbz(files.path(), "nw-4.cbz", &issue("4", "Dawn")),
        ImportMode::Reference,
    )
    .unwrap();
    let other = import(
        &store,
        &cbz(
            files.path(),
            "other.cbz",
            &COMIC_INFO.replace("Night Watch", "Day Shift"),
        ),
        ImportMode::Reference,
    )
    .unwrap();
    let third = import(
        &store,
        &cbz(files.path(), "nw-3.cbz", &issue("3", "The Long Night")),
        ImportMode::Reference,
    )
    .unwrap();

    // What the end of a book offers next, and the book before.
    let around_third = crate::series_read_ahead::neighbours(&store, third.book_id).unwrap();
    assert_eq!(around_third.series.as_deref(), Some("Night Watch"));
    assert_eq!(around_third.previous, None);
    assert_eq!(
        around_third.next.map(|n| (n.book_id, n.title, n.on_device)),
        Some((fourth.book_id, "Dawn".to_string(), true))
    );
    let around_fourth = crate::series_read_ahead::neighbours(&store, fourth.book_id).unwrap();
    assert_eq!(
        around_fourth.previous.map(|n| n.book_id),
        Some(third.book_id)
    );
    assert_eq!(around_fourth.next, None);
    let around_other = crate::series_read_ahead::neighbours(&store, other.book_id).unwrap();
    assert_eq!(
        (around_other.previous, around_other.next),
        (None, None),
        "another series' book is no neighbour"
    );
}
