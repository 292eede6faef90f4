//! Whole-file downloads against servers that lie about lengths, and against a full disk: the
//! download stops at a cap, fails with a reason a reader understands, and leaves no partial
//! file behind; a book that cannot fit is refused before a byte is written.

use carrel_core::Failure;
use std::path::Path;
use std::time::Duration;

use carrel_core::{
    engine::book_downloads,
    engine::download_limits::MaxBookSize,
    engine::download_stack::{self, Task, TaskKind, TaskState},
    engine::executor::{ExecutorError, Finish, RunMode},
    engine::progress::RecordingSink,
    library::books::{self, BookFormat, CatalogBook},
    library::servers::Server,
    library::settings,
};
use fixture_server::{LengthLie, RunningServer};

use crate::support::{fast_config, three_books, Env};

/// A book whose file is the fixture's book 3, with the length the catalog declared.
fn epub(env: &Env, server: &Server, fixture: &RunningServer, declared: Option<u64>) -> i64 {
    books::remember(
        &env.store,
        server.id,
        &CatalogBook {
            file_url: Some(fixture.url("/books/3/file")),
            file_type: Some("application/epub+zip".into()),
            file_length: declared,
            ..CatalogBook::bare("urn:hostile:3", "Hostile", BookFormat::Epub)
        },
    )
    .unwrap()
    .id
}

/// Runs an executor until idle. A hang guard only: a download that never stops fails here
/// instead of filling the test's small disk forever (no timing is asserted).
async fn run_until_idle(env: &Env) -> Result<Finish, ExecutorError> {
    let ex = env.executor(fast_config(), std::sync::Arc::new(RecordingSink::default()));
    let (_tx, rx) = tokio::sync::watch::channel(false);
    tokio::time::timeout(Duration::from_secs(120), ex.run(RunMode::UntilIdle, rx))
        .await
        .expect("the download stopped")
}

fn file_task(env: &Env, book_id: i64) -> Task {
    download_stack::tasks_of_book(&env.store, book_id)
        .unwrap()
        .into_iter()
        .find(|t| t.kind == TaskKind::File)
        .expect("a file task")
}

/// Every file under `dir`, recursively.
fn files_under(dir: &Path) -> Vec<std::path::PathBuf> {
    let mut out = Vec::new();
    let Ok(entries) = std::fs::read_dir(dir) else {
        return out;
    };
    for e in entries.flatten() {
        let p = e.path();
        if p.is_dir() {
            out.extend(files_under(&p));
        } else {
            out.push(p);
        }
    }
    out
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_partial_answer_claiming_a_terabyte_fails_for_good_and_keeps_nothing() {
    let fixture = three_books();
    let (env, disk) = Env::on_small_disk(64);
    let task = stored_under_lie(&env, &fixture, None, LengthLie::EndlessPartial).await;
    assert_eq!(
        task.state,
        TaskState::Failed,
        "refused for good, not retried: {task:?}"
    );
    let reason = task.failure.unwrap();
    assert!(
        reason.contains("1.1 TB") && reason.contains("4.3 GB"),
        "{reason}"
    );
    assert!(
        files_under(&env.dir.books()).is_empty(),
        "nothing kept: {:?}",
        files_under(&env.dir.books())
    );
    assert_eq!(
        fixture.stats().hits("/books/3/file"),
        1,
        "asked once, not again and again"
    );
    drop(env);
    drop(disk);
}

/// Book 3 of `fixture` (declared `declared` bytes long by the catalog) stored in `env` while
/// the fixture lies about its file's length as `lie` says: the file's task once the executor
/// is idle.
async fn stored_under_lie(
    env: &Env,
    fixture: &RunningServer,
    declared: Option<u64>,
    lie: LengthLie,
) -> Task {
    let server = env.add_server("Fixture", &fixture.url("/opds"));
    let book = epub(env, &server, fixture, declared);
    fixture.set_length_lie(Some(("/books/3/file", lie)));
    book_downloads::store_book(&env.store, book).unwrap();
    assert_eq!(run_until_idle(env).await.unwrap(), Finish::Idle);
    file_task(env, book)
}

/// Stores book 3 while the fixture sends its file without end, with the largest book allowed
/// set to `max` (else the default) and `declared` the length the catalog gives: the download
/// fails, its partial file deleted, and this is why.
async fn failure_of_an_endless_file(max: Option<MaxBookSize>, declared: Option<u64>) -> String {
    let fixture = three_books();
    let (env, disk) = Env::on_small_disk(64);
    if let Some(max) = max {
        settings::set(&env.store, &max).unwrap();
    }
    let task = stored_under_lie(&env, &fixture, declared, LengthLie::EndlessWhole).await;
    assert_eq!(task.state, TaskState::Failed, "{task:?}");
    assert!(
        files_under(&env.dir.books()).is_empty(),
        "the partial file is deleted"
    );
    drop(env);
    drop(disk);
    task.failure.unwrap()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_answer_without_a_length_stops_at_the_largest_book_allowed() {
    let reason = failure_of_an_endless_file(Some(MaxBookSize(2 << 20)), None).await;
    assert!(
        reason.contains("more than") && reason.contains("2.1 MB"),
        "{reason}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_body_longer_than_the_catalog_declared_is_refused() {
    let reason = failure_of_an_endless_file(None, Some(100_000)).await;
    assert!(
        reason.contains("more than") && reason.contains("the catalog declared 100.0 kB"),
        "{reason}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_book_larger_than_the_free_space_is_refused_before_any_byte_and_stays_queued() {
    let fixture = three_books();
    let (env, disk) = Env::on_small_disk(8);
    let server = env.add_server("Fixture", &fixture.url("/opds"));
    let book = epub(&env, &server, &fixture, Some(20_000_000));
    fixture.reset_stats();
    book_downloads::store_book(&env.store, book).unwrap();
    let err = run_until_idle(&env)
        .await
        .expect_err("a sync that stops with work left says so");
    let message = err.to_string();
    assert!(
        message.contains("needs 20.0 MB") && message.contains("MB free on"),
        "{message}"
    );
    assert_eq!(err.kind(), carrel_core::ErrorKind::Storage);
    assert_eq!(
        fixture.stats().hits("/books/3/file"),
        0,
        "nothing asked of the server"
    );
    let task = file_task(&env, book);
    assert_eq!(task.state, TaskState::Pending, "kept for later: {task:?}");
    assert!(files_under(&env.dir.books()).is_empty(), "nothing written");
    drop(env);
    drop(disk);
}

#[test]
fn free_space_is_read_from_the_filesystem() {
    let disk = crate::support::SmallDisk::mount(4);
    let free = carrel_core::engine::download_limits::free_bytes(disk.path()).unwrap();
    assert!(free > 3 << 20 && free <= 4 << 20, "{free}");
    std::fs::write(disk.path().join("fill"), vec![1u8; 2 << 20]).unwrap();
    let after = carrel_core::engine::download_limits::free_bytes(disk.path()).unwrap();
    assert!(
        after <= free - (2 << 20),
        "{after} after writing 2 MiB into {free}"
    );
}
