//! Stack scaling: push (new task), push that dedupes (moves a deep pending task to the top) and
//! pop (`claim_next`) with 100,000 pending tasks, against the same operations with 1,000.
//!
//! If the pop order and the dedupe lookup are served by indexes, the cost hardly depends on the
//! stack's depth and the ratios stay near 1.

use std::time::{Duration, Instant};

use anyhow::{bail, Context, Result};
use serde_json::json;

use carrel_core::{
    engine::download_stack::{self, Pushed, TaskKind, TaskSpec},
    engine::executor_lease::{self, Acquire, Fence},
    foundation::clock,
    foundation::data_dir::DataDir,
    foundation::store::Store,
    library::books::{self, BookFormat, CatalogBook},
};

use crate::library_rows::{silent_server, SILENT_SERVER};
use crate::report::{micros, Report, Row, Summary};

pub const SMALL: usize = 1_000;
pub const LARGE: usize = 100_000;
/// Timed rounds per stack size; each round does one of each operation.
const ROUNDS: usize = 600;
/// Untimed rounds first (caches, prepared statements, the WAL).
const WARM_UP: usize = 50;
/// A prime, so `i * STRIDE mod n` visits distinct positions for `i < n`.
const STRIDE: usize = 7919;

struct Stack {
    _tmp: tempfile::TempDir,
    store: Store,
    fence: Fence,
    book_id: i64,
    server_id: i64,
    depth: usize,
}

struct Timings {
    push_new: Vec<Duration>,
    push_dedupe: Vec<Duration>,
    pop: Vec<Duration>,
    build: Duration,
}

fn page_url(position: usize) -> String {
    format!("{SILENT_SERVER}/books/1/pages/{position}?maxWidth=")
}

impl Stack {
    fn spec(&self, position: usize) -> TaskSpec {
        TaskSpec {
            book_id: self.book_id,
            server_id: self.server_id,
            kind: TaskKind::Page,
            position: position as i64,
            url: page_url(position),
            prioritary: false,
        }
    }

    /// A fresh data dir whose stack holds `depth` pending page tasks, built in one transaction.
    fn build(depth: usize) -> Result<(Stack, Duration)> {
        let tmp = tempfile::tempdir()?;
        let store = Store::open(&DataDir::new(tmp.path().join("data")), clock::system())?;
        let server = silent_server(&store)?;
        let book = books::remember(
            &store,
            server.id,
            &CatalogBook {
                stream_template: Some(format!(
                    "{SILENT_SERVER}/books/1/pages/{{pageNumber}}?maxWidth={{maxWidth}}"
                )),
                page_count: Some((depth + 10 * ROUNDS) as u32),
                ..CatalogBook::bare("urn:bench:1", "A very long comic", BookFormat::Comic)
            },
        )?;
        let holder = carrel_core::foundation::process_holders::new_holder_id("carrel-bench");
        let fence = match executor_lease::try_acquire(&store, &holder, 3_600_000)? {
            Acquire::Acquired { fence, .. } => fence,
            Acquire::Held { holder, .. } => {
                bail!("the lease of a fresh data dir is held by {holder}")
            }
        };
        let mut stack = Stack {
            _tmp: tmp,
            store,
            fence,
            book_id: book.id,
            server_id: server.id,
            depth,
        };
        let specs: Vec<TaskSpec> = (0..depth).map(|i| stack.spec(i)).collect();
        let started = Instant::now();
        download_stack::push_all(&stack.store, &specs)?;
        let took = started.elapsed();
        stack.depth = depth;
        Ok((stack, took))
    }

    /// One round: push a new task, move a deep pending one to the top, pop the top.
    fn round(&self, i: usize, t: Option<&mut Timings>) -> Result<()> {
        let fresh = self.spec(self.depth + i);
        let deep = self.spec((i * STRIDE) % self.depth);

        let a = Instant::now();
        let pushed = download_stack::push(&self.store, &fresh)?;
        let push_new = a.elapsed();
        if !matches!(pushed, Pushed::Added(_)) {
            bail!("a new task was not added: {pushed:?}");
        }

        let b = Instant::now();
        let moved = download_stack::push(&self.store, &deep)?;
        let push_dedupe = b.elapsed();
        if !matches!(moved, Pushed::MovedToTop(_)) {
            bail!("a pending twin was not moved to the top: {moved:?}");
        }

        let c = Instant::now();
        let popped = download_stack::claim_next(&self.store, &self.fence, &[])?;
        let pop = c.elapsed();
        match popped {
            Some(task) if task.id == moved.task_id() => {}
            other => bail!("the pop did not take the task just moved to the top: {other:?}"),
        }

        if let Some(t) = t {
            t.push_new.push(push_new);
            t.push_dedupe.push(push_dedupe);
            t.pop.push(pop);
        }
        Ok(())
    }
}

fn measure(depth: usize) -> Result<Timings> {
    let (stack, build) =
        Stack::build(depth).with_context(|| format!("building a stack of {depth}"))?;
    let mut t = Timings {
        push_new: Vec::with_capacity(ROUNDS),
        push_dedupe: Vec::with_capacity(ROUNDS),
        pop: Vec::with_capacity(ROUNDS),
        build,
    };
    for i in 0..WARM_UP {
        stack.round(i, None)?;
    }
    for i in WARM_UP..WARM_UP + ROUNDS {
        stack.round(i, Some(&mut t))?;
    }
    let pending = download_stack::pending_in_pop_order(&stack.store, u32::MAX)?.len();
    if pending != depth {
        bail!("the stack should still hold {depth} pending tasks, it holds {pending}");
    }
    Ok(t)
}

pub fn run(report: &mut Report) -> Result<()> {
    const { assert!(WARM_UP + ROUNDS <= SMALL, "dedupe targets must be distinct") };
    eprintln!("stack: {SMALL} pending tasks (baseline) ...");
    let small = measure(SMALL)?;
    eprintln!("stack: {LARGE} pending tasks ...");
    let large = measure(LARGE)?;

    let base = format!("{SMALL} pending");
    let ops: [(&str, &Vec<Duration>, &Vec<Duration>); 3] = [
        ("pop (claim_next)", &large.pop, &small.pop),
        ("push, new task", &large.push_new, &small.push_new),
        (
            "push, dedupe (move to top)",
            &large.push_dedupe,
            &small.push_dedupe,
        ),
    ];
    for (name, l, s) in ops {
        report.row(
            Row::new(
                "stack",
                format!("{name} @ {LARGE} pending"),
                "µs",
                Summary::of(&micros(l)),
                base.clone(),
                Summary::of(&micros(s)),
            )
            .goal(2.0),
        );
    }
    report.fact(
        "stack",
        "build_100k_ms",
        json!(large.build.as_secs_f64() * 1e3),
        format!(
            "push_all of {LARGE} tasks in one transaction: {:.0} ms ({:.1} µs a task); of {SMALL}: {:.1} ms",
            large.build.as_secs_f64() * 1e3,
            large.build.as_secs_f64() * 1e6 / LARGE as f64,
            small.build.as_secs_f64() * 1e3
        ),
    );
    report.fact(
        "stack",
        "rounds",
        json!(ROUNDS),
        format!("{ROUNDS} timed rounds per size (after {WARM_UP} untimed), each a push, a dedupe push and a pop"),
    );
    Ok(())
}
