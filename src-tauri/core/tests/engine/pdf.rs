//! Whole PDFs and other whole files for the windows (`book_source`, `book_reader`): a PDF made
//! by a real tool (ReportLab) is routed to the PDF reader and served byte-identical as
//! `application/pdf`; a file that is not what its type says is refused with a clear error; the
//! page count the reader measured is kept within bounds and survives the next browse; a format
//! no reader shows (MOBI) is routed to another app, whose stored file `book_path` finds under
//! its type's extension; a file that could run programs (declared so, or a launcher sent as a
//! book) is never handed over.

use std::collections::BTreeMap;
use std::time::Duration;

use carrel_core::catalog::{book_view, client::CatalogItem};
use carrel_core::engine::{book_downloads, executor::Finish};
use carrel_core::library::{books, servers::Server};
use carrel_core::reading::page_source::{PageError, WaitPolicy};
use carrel_core::reading::{book_reader::BookReader, book_source};
use fixture_server::{Config, GivenFile, RunningServer};

use crate::support::{fast_config, reportlab_pdf, Env};

/// Book `id` opened and stored whole, then `fixture` (its server) stopped.
async fn stored_then_offline(env: &Env, fixture: RunningServer, id: i64) {
    book_downloads::open_book(&env.store, id, None).unwrap();
    env.sync(fast_config()).await;
    fixture.stop();
}

fn start(files: BTreeMap<u32, GivenFile>) -> RunningServer {
    fixture_server::Server::start(Config {
        books: 3,
        files,
        ..Default::default()
    })
    .expect("the fixture server starts")
}

fn given(media_type: &str, extension: &str, bytes: Vec<u8>) -> GivenFile {
    GivenFile {
        media_type: media_type.into(),
        extension: extension.into(),
        bytes,
    }
}

/// The local id of the fixture's book 1, as the catalog lists it.
async fn book_one(env: &Env, server: &Server) -> (i64, BookReader) {
    book_numbered(env, server, 1).await
}

/// The app's id of the fixture's book `n` (its catalog browsed), and the reader it opens in.
async fn book_numbered(env: &Env, server: &Server, n: u32) -> (i64, BookReader) {
    let client = env.client();
    let page = client.browse(server, Some("/opds/books")).await.unwrap();
    for item in page.entries {
        if let CatalogItem::Book { book_id, .. } = item {
            let book = books::get(&env.store, book_id).unwrap();
            if book
                .file_url
                .as_deref()
                .is_some_and(|u| u.ends_with(&format!("/books/{n}/file")))
            {
                return (
                    book_id,
                    book_view::details(&env.store, book_id).unwrap().reader,
                );
            }
        }
    }
    panic!("book {n} is not listed");
}

fn quick(timeout_ms: u64) -> WaitPolicy {
    WaitPolicy {
        poll: Duration::from_millis(20),
        timeout: Duration::from_millis(timeout_ms),
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_pdf_is_read_by_the_pdf_reader_and_served_byte_identical() {
    let pdf = reportlab_pdf(5);
    let fixture = start([(1, given("application/pdf", "pdf", pdf.clone()))].into());
    let (env, server) = Env::with_fixture(&fixture);
    let (id, reader) = book_one(&env, &server).await;
    assert_eq!(reader, BookReader::Pdf);
    assert!(book_source::stored_book(&env.store, id).unwrap().is_none());
    book_downloads::open_book(&env.store, id, None).unwrap();
    let (finish, _) = env.sync(fast_config()).await;
    assert_eq!(finish, Finish::Idle);
    fixture.stop();
    let served = book_source::book(&env.store, id, quick(200)).await.unwrap();
    assert_eq!(served.bytes, pdf);
    assert_eq!(served.content_type, "application/pdf");

    // The count the reader measured: kept, bounded, and only for PDFs.
    book_source::record_pdf_pages(&env.store, id, 5).unwrap();
    assert_eq!(books::get(&env.store, id).unwrap().page_count, Some(5));
    for bad in [0, -1, book_source::MAX_PDF_PAGES + 1] {
        let err = book_source::record_pdf_pages(&env.store, id, bad).unwrap_err();
        assert!(
            matches!(err, PageError::OutOfRange { .. }),
            "{bad}: {err:?}"
        );
    }
    assert_eq!(books::get(&env.store, id).unwrap().page_count, Some(5));
    let err = book_source::record_pdf_pages(&env.store, id + 1000, 5).unwrap_err();
    assert!(matches!(err, PageError::UnknownBook(_)), "{err:?}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_measured_page_count_survives_the_next_browse() {
    let fixture = start([(1, given("application/pdf", "pdf", reportlab_pdf(5)))].into());
    let (env, server) = Env::with_fixture(&fixture);
    let (id, _) = book_one(&env, &server).await;
    book_source::record_pdf_pages(&env.store, id, 5).unwrap();
    // The feed gives no count for a whole file; the reader's stays.
    let (again, _) = book_one(&env, &server).await;
    assert_eq!(again, id);
    assert_eq!(books::get(&env.store, id).unwrap().page_count, Some(5));
    fixture.stop();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_server_page_sent_as_a_pdf_is_refused_with_a_clear_error() {
    let page = b"<!DOCTYPE html><html><body>Please sign in</body></html>".to_vec();
    let fixture = start([(1, given("application/pdf", "pdf", page))].into());
    let (env, server) = Env::with_fixture(&fixture);
    let (id, _) = book_one(&env, &server).await;
    stored_then_offline(&env, fixture, id).await;
    let err = book_source::book(&env.store, id, quick(200))
        .await
        .unwrap_err();
    assert!(
        matches!(&err, PageError::Failed(why) if why.contains("not a PDF")),
        "{err:?}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_format_no_reader_shows_goes_to_another_app_from_the_device() {
    let mut mobi = vec![0u8; 78];
    mobi[60..68].copy_from_slice(b"BOOKMOBI");
    let fixture = start(
        [(
            1,
            given("application/x-mobipocket-ebook", "mobi", mobi.clone()),
        )]
        .into(),
    );
    let (env, server) = Env::with_fixture(&fixture);
    let (id, reader) = book_one(&env, &server).await;
    assert_eq!(reader, BookReader::Other);
    // Not for the readers' windows…
    let err = book_source::book(&env.store, id, quick(100))
        .await
        .unwrap_err();
    assert!(matches!(err, PageError::NotPaged(_)), "{err:?}");
    let err = book_source::record_pdf_pages(&env.store, id, 3).unwrap_err();
    assert!(matches!(err, PageError::NotPaged(_)), "{err:?}");
    // …but its file is found (fetched first) for another app.
    stored_then_offline(&env, fixture, id).await;
    let path = book_source::book_path(&env.store, id, quick(200))
        .await
        .unwrap();
    assert_eq!(std::fs::read(&path).unwrap(), mobi);
    assert!(
        path.starts_with(env.store.data_dir().books()),
        "{}",
        path.display()
    );
    // Named by the type the server declared: the system's opener goes by the name.
    assert_eq!(path.extension().and_then(|e| e.to_str()), Some("mobi"));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_launcher_sent_as_a_book_never_goes_to_another_app() {
    let launcher =
        b"[Desktop Entry]\nType=Application\nName=Book\nExec=sh -c 'touch /tmp/owned'\n".to_vec();
    let fixture = start(
        [
            (
                1,
                given("application/x-mobipocket-ebook", "mobi", launcher.clone()),
            ),
            (2, given("application/x-desktop", "desktop", launcher)),
        ]
        .into(),
    );
    let (env, server) = Env::with_fixture(&fixture);
    let mut refusals = Vec::new();
    for n in 1..=2 {
        let (id, reader) = book_numbered(&env, &server, n).await;
        assert_eq!(reader, BookReader::Other);
        book_downloads::open_book(&env.store, id, None).unwrap();
        env.sync(fast_config()).await;
        let err = book_source::book_path(&env.store, id, quick(200))
            .await
            .unwrap_err();
        assert!(matches!(err, PageError::Refused(_)), "{err:?}");
        refusals.push(err.to_string());
    }
    fixture.stop();
    assert_eq!(
        refusals,
        [
            "Carrel does not hand this file to another app: the server says it is application/x-mobipocket-ebook, but it is a desktop launcher, which could run programs",
            "Carrel does not hand this file to another app: the server says it is application/x-desktop, which could run programs",
        ]
    );
}
