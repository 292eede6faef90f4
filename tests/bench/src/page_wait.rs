//! A window waiting for a page being downloaded: the time from the page stored (put in place,
//! its task marked done, the executor's wake given) to the waiter having it, against a waiter
//! that looks for it on a timer as the reader's window did before its wait was woken (every
//! 4 ms for its first 250 ms, then every 20 ms) — both in the same run, the page stored the
//! same way.
//!
//! Two rows: the page stored by this process's executor (a wake of the store), and by another
//! process's (a second handle on the same data dir, seen through SQLite's `data_version`). The
//! executor is stood in for by what it does with a page — claim its task, write its file, mark
//! it done, wake the waits — so the rows measure the wait alone, not a server or the network.
//! The store comes a random 0–30 ms after the push, as a server's answer would.

use std::sync::Arc;
use std::time::{Duration, Instant};

use anyhow::{bail, Context, Result};

use carrel_core::{
    engine::download_stack,
    engine::executor_lease::{self, Acquire, Fence},
    foundation::clock,
    foundation::data_dir::DataDir,
    foundation::part_files::{self, PartFiles},
    foundation::store::Store,
    library::books::{self, BookFormat, CatalogBook},
    reading::page_source::{self, WaitPolicy},
};

use crate::library_rows::{silent_server, SILENT_SERVER};
use crate::report::{millis, Report, Row, Summary};

const GROUP: &str = "page-wait";
/// Pages waited for per row and side (each page once).
const PAGES: usize = 150;
/// Untimed waits first.
const WARM_UP: usize = 10;

/// The polled waiter's looks (the reader's window before its wait was woken).
const FIRST_POLL: Duration = Duration::from_millis(4);
const FIRST_POLLS_FOR: Duration = Duration::from_millis(250);
const POLL: Duration = Duration::from_millis(20);

struct Library {
    _tmp: tempfile::TempDir,
    dir: DataDir,
    store: Store,
    book_id: i64,
}

fn library() -> Result<Library> {
    let tmp = tempfile::tempdir()?;
    let dir = DataDir::new(tmp.path().join("data"));
    let store = Store::open(&dir, clock::system())?;
    let server = silent_server(&store)?;
    let book = books::remember(
        &store,
        server.id,
        &CatalogBook {
            stream_template: Some(format!("{SILENT_SERVER}/pages/{{pageNumber}}")),
            page_count: Some(((PAGES + WARM_UP) * 4) as u32),
            ..CatalogBook::bare("urn:bench:wait", "Waited for", BookFormat::Comic)
        },
    )?;
    Ok(Library {
        _tmp: tmp,
        dir,
        store,
        book_id: book.id,
    })
}

fn fence_of(store: &Store) -> Result<Fence> {
    match executor_lease::try_acquire(store, "bench-executor", 3_600_000)? {
        Acquire::Acquired { fence, .. } => Ok(fence),
        Acquire::Held { holder, .. } => bail!("the lease is held by {holder}"),
    }
}

/// What the executor does with page `page` once the window pushed it: claims it, puts it in
/// place, marks it done and wakes its store's waits. Returns when the page was stored.
fn store_page(store: &Store, fence: &Fence, book_id: i64, page: i64) -> Result<Instant> {
    let task = loop {
        if let Some(task) = download_stack::claim_next(store, fence, &[])? {
            break task;
        }
        std::thread::sleep(Duration::from_micros(200));
    };
    if (task.book_id, task.position) != (book_id, page) {
        bail!("claimed page {} instead of {page}", task.position);
    }
    let path = PartFiles::new(store.data_dir().books()).page_path(book_id, page, "img");
    part_files::write_atomically_unsynced(&path, b"a page")?;
    download_stack::complete(store, fence, task.id, 6, &[])?;
    store.wake_waiters();
    Ok(Instant::now())
}

/// The window as it waited before: a look on a timer, from the push on.
async fn polled_page(store: &Store, book_id: i64, page: i64) -> Result<()> {
    carrel_core::engine::book_downloads::push_page(store, book_id, page)?;
    let started = Instant::now();
    loop {
        let pause = if started.elapsed() < FIRST_POLLS_FOR {
            FIRST_POLL
        } else {
            POLL
        };
        tokio::time::sleep(pause).await;
        let s = store.clone();
        let found =
            tokio::task::spawn_blocking(move || page_source::stored_page(&s, book_id, page))
                .await??;
        if found.is_some() {
            return Ok(());
        }
        if started.elapsed() > Duration::from_secs(20) {
            bail!("page {page} never came");
        }
    }
}

#[derive(Clone, Copy, PartialEq)]
enum Waiter {
    Woken,
    Polled,
}

/// Waits for `pages` pages one at a time, each stored by `storer` a random 0–30 ms after it is
/// asked for; the time from each page stored to its waiter having it.
fn measure(
    runtime: &tokio::runtime::Runtime,
    lib: &Library,
    storer: &Store,
    waiter: Waiter,
    pages: std::ops::Range<i64>,
) -> Result<Vec<Duration>> {
    let fence = fence_of(storer)?;
    let mut lags = Vec::new();
    for page in pages {
        let (store, book) = (lib.store.clone(), lib.book_id);
        let wait = WaitPolicy {
            poll: POLL,
            timeout: Duration::from_secs(20),
        };
        let asked = runtime.spawn(async move {
            let result = match waiter {
                Waiter::Woken => page_source::page(&store, book, page, wait)
                    .await
                    .map(|_| ())
                    .map_err(anyhow::Error::from),
                Waiter::Polled => polled_page(&store, book, page).await,
            };
            result.map(|()| Instant::now())
        });
        // Pushed: the server's answer comes a moment later.
        let delay = Duration::from_micros(rand_below(30_000));
        std::thread::sleep(delay);
        let stored = store_page(storer, &fence, book, page)
            .with_context(|| format!("storing page {page}"))?;
        let shown = runtime.block_on(asked)??;
        lags.push(shown.saturating_duration_since(stored));
    }
    executor_lease::release(storer, &fence)?;
    Ok(lags)
}

/// A small random number below `n`, without a dependency of its own.
fn rand_below(n: u64) -> u64 {
    use std::hash::{BuildHasher, Hasher};
    let mut h = std::collections::hash_map::RandomState::new().build_hasher();
    h.write_u128(
        std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map(|d| d.as_nanos())
            .unwrap_or(0),
    );
    h.finish() % n
}

pub fn run(report: &mut Report, runtime: &tokio::runtime::Runtime) -> Result<()> {
    eprintln!("page-wait: a window waiting for a page being downloaded ...");
    let lib = library()?;
    let other = Arc::new(Store::open(&lib.dir, clock::system())?);
    let n = PAGES as i64;
    let w = WARM_UP as i64;
    let mut next = 0i64;
    let mut pages = |count: i64| {
        let r = next..next + count;
        next += count;
        r
    };
    // Warm-up: connections, prepared statements, the watcher of the other process.
    measure(runtime, &lib, &lib.store, Waiter::Woken, pages(w))?;
    measure(runtime, &lib, &other, Waiter::Woken, pages(w))?;
    let here = measure(runtime, &lib, &lib.store, Waiter::Woken, pages(n))?;
    let polled_here = measure(runtime, &lib, &lib.store, Waiter::Polled, pages(n))?;
    let there = measure(runtime, &lib, &other, Waiter::Woken, pages(n))?;
    let polled_there = measure(runtime, &lib, &other, Waiter::Polled, pages(n))?;
    for (by, woken, polled, goal) in [
        ("this process", here, polled_here, 1.0),
        ("another process", there, polled_there, 1.5),
    ] {
        report.row(
            Row::new(
                GROUP,
                format!("window waits for a page being downloaded: time from stored to shown (to the waiter), stored by {by}"),
                "ms",
                Summary::of(&millis(&woken)),
                "the same wait looking every 4 ms, then 20 ms",
                Summary::of(&millis(&polled)),
            )
            .goal(goal),
        );
    }
    Ok(())
}
