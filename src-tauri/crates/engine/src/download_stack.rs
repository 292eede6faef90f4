//! The persistent download stack of one data dir.
//!
//! Tasks are rows of the `tasks` table ordered by `seq` (the highest pending seq is the top).
//! [`push`] puts a task on top, or moves an equal pending task (same book, kind, position and
//! URL) to the top instead of adding it twice. The pop order is: the topmost **prioritary**
//! pending task, else the topmost task — one partial index serves it, so both stay fast with
//! 100k pending tasks.
//!
//! Anybody may push. Only the lease holder claims and settles tasks, and each of its writes is
//! fenced by its [`Fence`]: a write under a stale epoch changes nothing and reports
//! [`StackError::LeaseLost`].
//!
//! Owns `tasks`, `file_checkpoints` and `stack_counter`. Knows nothing of HTTP or files.

use rusqlite::{params, OptionalExtension, Row, Transaction};
use serde::{Deserialize, Serialize};

use crate::executor_lease::{Fence, FenceError, LeaseLost};
use carrel_foundation::store::{Store, StoreError};

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, ts_rs::TS)]
#[serde(rename_all = "snake_case")]
pub enum TaskKind {
    /// Turns a book into its parts.
    Book,
    /// One page image through the page-streaming link.
    Page,
    /// A whole acquisition (EPUB, CBZ, PDF), in Range chunks where the server allows.
    File,
    /// An extra such as a cover; failing one does not stop the executor.
    Resource,
}

impl TaskKind {
    pub fn as_str(self) -> &'static str {
        match self {
            TaskKind::Book => "book",
            TaskKind::Page => "page",
            TaskKind::File => "file",
            TaskKind::Resource => "resource",
        }
    }
    fn parse(s: &str) -> TaskKind {
        match s {
            "book" => TaskKind::Book,
            "page" => TaskKind::Page,
            "file" => TaskKind::File,
            _ => TaskKind::Resource,
        }
    }
    /// Whether the task is a part a book needs to be stored.
    pub fn is_part(self) -> bool {
        matches!(self, TaskKind::Page | TaskKind::File)
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum TaskState {
    Pending,
    Active,
    Done,
    Failed,
}

impl TaskState {
    pub fn as_str(self) -> &'static str {
        match self {
            TaskState::Pending => "pending",
            TaskState::Active => "active",
            TaskState::Done => "done",
            TaskState::Failed => "failed",
        }
    }
    fn parse(s: &str) -> TaskState {
        match s {
            "pending" => TaskState::Pending,
            "active" => TaskState::Active,
            "done" => TaskState::Done,
            _ => TaskState::Failed,
        }
    }
}

/// What to push.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TaskSpec {
    pub book_id: i64,
    pub server_id: i64,
    pub kind: TaskKind,
    /// The page index (0-based, the reader's numbering) for pages; 0 otherwise.
    pub position: i64,
    /// The URL fetched; empty for `book` tasks.
    pub url: String,
    pub prioritary: bool,
}

/// A task as stored.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Task {
    pub id: i64,
    pub book_id: i64,
    pub server_id: i64,
    pub kind: TaskKind,
    pub position: i64,
    pub url: String,
    pub prioritary: bool,
    pub seq: i64,
    pub state: TaskState,
    pub attempts: i64,
    pub failure: Option<String>,
    pub bytes: Option<i64>,
}

/// What [`push`] did.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Pushed {
    Added(i64),
    MovedToTop(i64),
    /// Running now; left alone (its priority may have been raised).
    AlreadyActive(i64),
    /// Stored already; nothing to do.
    AlreadyDone(i64),
    /// Failed for good earlier (404/410); only an explicit [`retry`] revives it.
    AlreadyFailed(i64),
}

impl Pushed {
    pub fn task_id(self) -> i64 {
        match self {
            Pushed::Added(i)
            | Pushed::MovedToTop(i)
            | Pushed::AlreadyActive(i)
            | Pushed::AlreadyDone(i)
            | Pushed::AlreadyFailed(i) => i,
        }
    }
}

#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum StackError {
    #[error(transparent)]
    LeaseLost(#[from] LeaseLost),
    #[error("task {0} is not in a state that allows this")]
    WrongState(i64),
    #[error(transparent)]
    Store(#[from] StoreError),
}

impl carrel_foundation::error::Failure for StackError {
    /// A lost lease, a task in another state or a disk that failed: this device's storage.
    fn kind(&self) -> carrel_foundation::error::ErrorKind {
        carrel_foundation::error::ErrorKind::Storage
    }
}

fn fenced(store: &Store, fence: &Fence, tx: &Transaction<'_>) -> Result<(), StackError> {
    fence.check(tx).map_err(|e| match e {
        FenceError::Lost(l) => StackError::LeaseLost(l),
        FenceError::Sql(e) => sql_failure(store)(e),
    })
}

/// What a failed statement is, as the stack reports it.
fn sql_failure(store: &Store) -> impl Fn(rusqlite::Error) -> StackError + Copy + '_ {
    |e| StackError::Store(store.sql_error(e))
}

/// Runs the update `sql` once for each of `rows` (`run` binds a row's parameters and executes
/// it), in `tx` once `fence` is checked.
fn update_each<R>(
    store: &Store,
    tx: &Transaction<'_>,
    fence: &Fence,
    sql: &str,
    rows: &[R],
    mut run: impl FnMut(&mut rusqlite::CachedStatement<'_>, &R) -> rusqlite::Result<usize>,
) -> Result<(), StackError> {
    fenced(store, fence, tx)?;
    let mut stmt = tx.prepare_cached(sql).map_err(sql_failure(store))?;
    for row in rows {
        run(&mut stmt, row).map_err(sql_failure(store))?;
    }
    Ok(())
}

const COLUMNS: &str =
    "id, book_id, server_id, kind, position, url, prioritary, seq, state, attempts, failure, bytes";

fn from_row(r: &Row<'_>) -> rusqlite::Result<Task> {
    Ok(Task {
        id: r.get(0)?,
        book_id: r.get(1)?,
        server_id: r.get(2)?,
        kind: TaskKind::parse(&r.get::<_, String>(3)?),
        position: r.get(4)?,
        url: r.get(5)?,
        prioritary: r.get(6)?,
        seq: r.get(7)?,
        state: TaskState::parse(&r.get::<_, String>(8)?),
        attempts: r.get(9)?,
        failure: r.get(10)?,
        bytes: r.get(11)?,
    })
}

fn next_seq(tx: &Transaction<'_>) -> rusqlite::Result<i64> {
    tx.prepare_cached("UPDATE stack_counter SET seq = seq + 1 WHERE id = 1 RETURNING seq")?
        .query_row([], |r| r.get(0))
}

/// Pushes inside an open write transaction (so a producer can push several tasks atomically).
pub fn push_in(tx: &Transaction<'_>, spec: &TaskSpec, now_ms: i64) -> rusqlite::Result<Pushed> {
    push_at(tx, spec, now_ms, None)
}

/// The task equal to `spec` (same book, kind, position and address), if there is one: its id,
/// state and seq.
fn twin_of(tx: &Transaction<'_>, spec: &TaskSpec) -> rusqlite::Result<Option<(i64, String, i64)>> {
    tx.prepare_cached(
        "SELECT id, state, seq FROM tasks WHERE book_id = ?1 AND kind = ?2 AND position = ?3 AND url = ?4",
    )?
    .query_row(
        params![spec.book_id, spec.kind.as_str(), spec.position, spec.url],
        |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)),
    )
    .optional()
}

/// Where a pushed task goes: the top (`None`), or a chained part's place (`Some(seq)`).
fn push_at(
    tx: &Transaction<'_>,
    spec: &TaskSpec,
    now_ms: i64,
    chained_at: Option<i64>,
) -> rusqlite::Result<Pushed> {
    let existing = twin_of(tx, spec)?;
    let place = |tx: &Transaction<'_>, current: i64| -> rusqlite::Result<i64> {
        match chained_at {
            Some(seq) => Ok(seq.max(current)),
            None => next_seq(tx),
        }
    };
    match existing {
        None => {
            let seq = place(tx, 0)?;
            let id = tx.prepare_cached(
                "INSERT INTO tasks (book_id, server_id, kind, position, url, prioritary, seq, created_at_ms, updated_at_ms)
                 VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?8) RETURNING id",
            )?.query_row(
                params![spec.book_id, spec.server_id, spec.kind.as_str(), spec.position, spec.url, spec.prioritary, seq, now_ms],
                |r| r.get(0),
            )?;
            Ok(Pushed::Added(id))
        }
        Some((id, state, current)) => match TaskState::parse(&state) {
            TaskState::Pending => {
                let seq = place(tx, current)?;
                tx.prepare_cached(
                    "UPDATE tasks SET seq = ?2, prioritary = max(prioritary, ?3), updated_at_ms = ?4 WHERE id = ?1",
                )?
                .execute(params![id, seq, spec.prioritary, now_ms])?;
                Ok(Pushed::MovedToTop(id))
            }
            TaskState::Active if chained_at.is_some() => {
                tx.execute(
                    "UPDATE tasks SET prioritary = max(prioritary, ?2) WHERE id = ?1",
                    params![id, spec.prioritary],
                )?;
                Ok(Pushed::AlreadyActive(id))
            }
            // Asked for while claimed: maybe a page the executor claimed ahead and
            // has not reached (see `give_back_run_in`). The push is counted, so the executor
            // looks again, and the row keeps a trace of it (its update time past its creation).
            TaskState::Active => {
                next_seq(tx)?;
                tx.execute(
                    "UPDATE tasks SET prioritary = max(prioritary, ?2),
                       updated_at_ms = max(?3, updated_at_ms + 1) WHERE id = ?1",
                    params![id, spec.prioritary, now_ms],
                )?;
                Ok(Pushed::AlreadyActive(id))
            }
            // Turning a book into its parts again only queues the parts still missing: a book
            // stored, cancelled or grown since can always be asked for again.
            TaskState::Done if spec.kind == TaskKind::Book => {
                let seq = place(tx, current)?;
                tx.execute(
                    "UPDATE tasks SET state = 'pending', seq = ?2, prioritary = ?3, failure = NULL, updated_at_ms = ?4 WHERE id = ?1",
                    params![id, seq, spec.prioritary, now_ms],
                )?;
                Ok(Pushed::Added(id))
            }
            TaskState::Done => Ok(Pushed::AlreadyDone(id)),
            TaskState::Failed => Ok(Pushed::AlreadyFailed(id)),
        },
    }
}

/// Pushes the parts a settled task chains to at the settled task's own place in the stack
/// (not on top: a page the reader asked for meanwhile stays ahead of a running chain), with
/// its priority as it is now (the reader may have raised it while the task ran).
fn push_chained(
    tx: &Transaction<'_>,
    parent_id: i64,
    then_push: &[TaskSpec],
    now_ms: i64,
) -> rusqlite::Result<()> {
    let (seq, prioritary) = place_of(tx, parent_id)?;
    for spec in then_push {
        let spec = TaskSpec {
            prioritary: spec.prioritary || prioritary,
            ..spec.clone()
        };
        push_at(tx, &spec, now_ms, Some(seq))?;
    }
    Ok(())
}

/// Where a task's chained parts go: its seq, and its priority as it is now.
fn place_of(tx: &Transaction<'_>, task_id: i64) -> rusqlite::Result<(i64, bool)> {
    tx.prepare_cached("SELECT seq, prioritary FROM tasks WHERE id = ?1")?
        .query_row([task_id], |r| Ok((r.get(0)?, r.get(1)?)))
}

/// Pushes one task on top of the stack (or moves its pending twin there).
pub fn push(store: &Store, spec: &TaskSpec) -> Result<Pushed, StoreError> {
    let now = store.now_ms();
    store.write(|tx| push_in(tx, spec, now).map_err(|e| store.sql_error(e)))
}

/// Pushes several tasks in one transaction, the **last** ending on top.
pub fn push_all(store: &Store, specs: &[TaskSpec]) -> Result<Vec<Pushed>, StoreError> {
    let now = store.now_ms();
    store.write(|tx| {
        specs
            .iter()
            .map(|s| push_in(tx, s, now).map_err(|e| store.sql_error(e)))
            .collect()
    })
}

/// The SQL that picks the next task: top prioritary first, then top; skips servers paused
/// for authentication. Served by the `tasks_stack` partial index.
/// (`INDEXED BY`: the planner must never trade the stack index for a sort.)
/// The statement of [`NEXT_TASK`], with `$skip` a further condition on `t`.
macro_rules! next_task {
    ($skip:literal) => {
        concat!(
            "SELECT t.id FROM tasks t INDEXED BY tasks_stack
     WHERE t.state = 'pending'
       AND NOT EXISTS (SELECT 1 FROM servers s WHERE s.id = t.server_id AND s.paused_reason IS NOT NULL)
       ",
            $skip,
            "
     ORDER BY t.prioritary DESC, t.seq DESC
     LIMIT 1"
        )
    };
}

/// The next task: the top prioritary one, else the top one — of servers neither paused nor in
/// `:skip` (a JSON array of server ids the executor is backing off from).
pub const NEXT_TASK: &str =
    next_task!("AND t.server_id NOT IN (SELECT value FROM json_each(:skip))");

/// [`NEXT_TASK`] with no server skipped: what a claim between two pages runs. SQLite reads the
/// list of servers to skip into a temporary table of its own in each run of the statement
/// (built, then thrown away), even when the list is empty.
const NEXT_TASK_ANY_SERVER: &str = next_task!("");

/// `skip` as [`NEXT_TASK`]'s `:skip`.
fn skip_json(skip: &[i64]) -> String {
    serde_json::to_string(skip).expect("a list of numbers serialises")
}

/// The task [`claim_next`] would take (skipping the servers in `skip`), without taking it.
pub fn peek(store: &Store, skip: &[i64]) -> Result<Option<Task>, StoreError> {
    store
        .read(|c| {
            c.query_row(
                &format!("SELECT {COLUMNS} FROM tasks WHERE id = ({NEXT_TASK})"),
                rusqlite::named_params! { ":skip": skip_json(skip) },
                from_row,
            )
            .optional()
        })
        .map_err(|e| store.sql_error(e))
}

/// Pops: marks the next task active under `fence` and returns it, in one fenced transaction.
/// Tasks of the servers in `skip` stay where they are.
pub fn claim_next(store: &Store, fence: &Fence, skip: &[i64]) -> Result<Option<Task>, StackError> {
    store.write(|tx| claim_next_in(store, tx, fence, skip))
}

/// [`claim_next`] inside a write transaction the caller holds.
pub fn claim_next_in(
    store: &Store,
    tx: &Transaction<'_>,
    fence: &Fence,
    skip: &[i64],
) -> Result<Option<Task>, StackError> {
    fenced(store, fence, tx)?;
    claim_in(tx, fence, skip, store.now_ms()).map_err(sql_failure(store))
}

/// The task [`NEXT_TASK`] picks, as it is.
static NEXT: std::sync::LazyLock<String> =
    std::sync::LazyLock::new(|| format!("SELECT {COLUMNS} FROM tasks WHERE id = ({NEXT_TASK})"));
/// [`NEXT`] with no server skipped.
static NEXT_ANY_SERVER: std::sync::LazyLock<String> = std::sync::LazyLock::new(|| {
    format!("SELECT {COLUMNS} FROM tasks WHERE id = ({NEXT_TASK_ANY_SERVER})")
});

/// [`claim_next`] inside an open, fenced write transaction: the task [`NEXT_TASK`] picks is
/// read, then marked active by its id (the transaction holds the write lock throughout). An
/// `UPDATE … RETURNING` would do it in one statement, but SQLite keeps the rows it returns in
/// a temporary table of its own, built and thrown away at each claim: with the list of servers
/// to skip, three such tables a claim (`EXPLAIN` counts the `OpenEphemeral`s); now two with a
/// list, one without (the state's `CHECK`).
fn claim_in(
    tx: &Transaction<'_>,
    fence: &Fence,
    skip: &[i64],
    now_ms: i64,
) -> rusqlite::Result<Option<Task>> {
    let next = if skip.is_empty() {
        tx.prepare_cached(&NEXT_ANY_SERVER)?
            .query_row([], from_row)
            .optional()?
    } else {
        tx.prepare_cached(&NEXT)?
            .query_row(
                rusqlite::named_params! { ":skip": skip_json(skip) },
                from_row,
            )
            .optional()?
    };
    let Some(mut task) = next else {
        return Ok(None);
    };
    tx.prepare_cached(
        "UPDATE tasks SET state = 'active', claimed_epoch = ?2, attempts = attempts + 1, updated_at_ms = ?3
         WHERE id = ?1",
    )?
    .execute(params![task.id, fence.epoch, now_ms])
    .map(|changed| debug_assert_eq!(changed, 1, "the row just read is there to claim"))?;
    task.state = TaskState::Active;
    task.attempts += 1;
    Ok(Some(task))
}

/// Runs `f` in a fenced write transaction after checking `task_id` is active under `fence`.
fn settle<T>(
    store: &Store,
    fence: &Fence,
    task_id: i64,
    f: impl FnOnce(&Transaction<'_>) -> rusqlite::Result<T>,
) -> Result<T, StackError> {
    store.write(|tx| settle_in(store, fence, task_id, tx, f))
}

/// [`settle`] inside an open write transaction.
fn settle_in<T>(
    store: &Store,
    fence: &Fence,
    task_id: i64,
    tx: &Transaction<'_>,
    f: impl FnOnce(&Transaction<'_>) -> rusqlite::Result<T>,
) -> Result<T, StackError> {
    fenced(store, fence, tx)?;
    let mine: bool = tx
        .prepare_cached(
            "SELECT EXISTS (SELECT 1 FROM tasks WHERE id = ?1 AND state = 'active' AND claimed_epoch = ?2)",
        )
        .and_then(|mut s| s.query_row(params![task_id, fence.epoch], |r| r.get(0)))
        .map_err(sql_failure(store))?;
    if !mine {
        return Err(StackError::WrongState(task_id));
    }
    f(tx).map_err(sql_failure(store))
}

/// Marks an active task done with the bytes it stored, and pushes its follow-ups (the next
/// chained part, ...) in the same transaction.
pub fn complete(
    store: &Store,
    fence: &Fence,
    task_id: i64,
    bytes: i64,
    then_push: &[TaskSpec],
) -> Result<(), StackError> {
    let now = store.now_ms();
    settle(store, fence, task_id, |tx| {
        tx.prepare_cached(
            "UPDATE tasks SET state = 'done', bytes = ?2, failure = NULL, updated_at_ms = ?3 WHERE id = ?1",
        )?
        .execute(params![task_id, bytes, now])?;
        tx.prepare_cached("DELETE FROM file_checkpoints WHERE task_id = ?1")?
            .execute([task_id])?;
        push_chained(tx, task_id, then_push, now)
    })
}

/// Keeps an active task active with the bytes it stored, and pushes its follow-ups: its file is
/// in place but not yet synced to the disk, and it is marked done by [`complete_synced`] once it
/// is. A holder that dies meanwhile leaves it active; the next one puts it back, and the file
/// found in place of the recorded size is taken without downloading it again.
pub fn mark_stored(
    store: &Store,
    fence: &Fence,
    task_id: i64,
    bytes: i64,
    then_push: &[TaskSpec],
) -> Result<(), StackError> {
    store.write(|tx| mark_stored_in(store, tx, fence, task_id, bytes, then_push))
}

/// [`mark_stored`] inside a write transaction the caller holds.
pub fn mark_stored_in(
    store: &Store,
    tx: &Transaction<'_>,
    fence: &Fence,
    task_id: i64,
    bytes: i64,
    then_push: &[TaskSpec],
) -> Result<(), StackError> {
    let now = store.now_ms();
    settle_in(store, fence, task_id, tx, |tx| {
        mark_stored_row(tx, task_id, bytes, then_push, now)
    })
}

fn mark_stored_row(
    tx: &Transaction<'_>,
    task_id: i64,
    bytes: i64,
    then_push: &[TaskSpec],
    now_ms: i64,
) -> rusqlite::Result<()> {
    record_size(tx, task_id, bytes, now_ms)?;
    push_chained(tx, task_id, then_push, now_ms)
}

/// Records the size of what a task marked stored put in place.
fn record_size(
    tx: &Transaction<'_>,
    task_id: i64,
    bytes: i64,
    now_ms: i64,
) -> rusqlite::Result<()> {
    tx.prepare_cached("UPDATE tasks SET bytes = ?2, updated_at_ms = ?3 WHERE id = ?1")?
        .execute(params![task_id, bytes, now_ms])?;
    Ok(())
}

/// [`mark_stored`], then [`claim_next`], in one transaction: what a download does between two
/// pages. The claim sees the follow-ups just pushed, as it would in a transaction of its own.
pub fn mark_stored_then_claim_next(
    store: &Store,
    fence: &Fence,
    task_id: i64,
    bytes: i64,
    then_push: &[TaskSpec],
    skip: &[i64],
) -> Result<Option<Task>, StackError> {
    store.write(|tx| {
        mark_stored_then_claim_next_in(store, tx, fence, task_id, bytes, then_push, skip)
    })
}

/// [`mark_stored_then_claim_next`] inside a write transaction the caller holds.
pub fn mark_stored_then_claim_next_in(
    store: &Store,
    tx: &Transaction<'_>,
    fence: &Fence,
    task_id: i64,
    bytes: i64,
    then_push: &[TaskSpec],
    skip: &[i64],
) -> Result<Option<Task>, StackError> {
    mark_stored_then_claim_ahead_in(store, tx, fence, task_id, bytes, then_push, &[], skip)
        .map(|(next, _)| next)
}

/// [`mark_stored_then_claim_next_in`], and when the one follow-up is added already claimed (see
/// [`mark_stored_then_claim_chained`]), the pages of `run_on` after it too, in their order, for as
/// long as none of them is in the stack already: the pages a download goes on to, claimed in
/// this one transaction instead of one each (see [`give_back_run_in`] for those it does not
/// get to). Returns the task claimed and the pages claimed after it.
#[allow(clippy::too_many_arguments)]
pub fn mark_stored_then_claim_ahead_in(
    store: &Store,
    tx: &Transaction<'_>,
    fence: &Fence,
    task_id: i64,
    bytes: i64,
    then_push: &[TaskSpec],
    run_on: &[TaskSpec],
    skip: &[i64],
) -> Result<(Option<Task>, Vec<Task>), StackError> {
    let now = store.now_ms();
    settle_in(store, fence, task_id, tx, |tx| {
        if let [next] = then_push {
            if let Some(task) =
                mark_stored_then_claim_chained(tx, fence, task_id, bytes, next, skip, now)?
            {
                let mut after = Vec::with_capacity(run_on.len());
                for spec in run_on {
                    if twin_of(tx, spec)?.is_some() {
                        break;
                    }
                    after.push(insert_claimed(
                        tx,
                        fence,
                        spec,
                        task.prioritary,
                        task.seq,
                        now,
                    )?);
                }
                return Ok((Some(task), after));
            }
        }
        mark_stored_row(tx, task_id, bytes, then_push, now)?;
        Ok((claim_in(tx, fence, skip, now)?, Vec::new()))
    })
}

/// Records the sizes of pages put in place since the last transaction (`(task id, bytes)`), for
/// the tasks still active under `fence` with no size yet: a page becomes readable by a window
/// once its size is recorded (see [`is_page_stored`]), and a later run takes a file in place
/// of the size recorded.
pub fn record_sizes_in(
    store: &Store,
    tx: &Transaction<'_>,
    fence: &Fence,
    sizes: &[(i64, i64)],
) -> Result<(), StackError> {
    if sizes.is_empty() {
        return Ok(());
    }
    let now = store.now_ms();
    update_each(
        store,
        tx,
        fence,
        "UPDATE tasks SET bytes = ?2, updated_at_ms = ?4
         WHERE id = ?1 AND state = 'active' AND claimed_epoch = ?3 AND bytes IS NULL",
        sizes,
        |stmt, (id, bytes)| stmt.execute(params![id, bytes, fence.epoch, now]),
    )
}

/// Whether `fence` still holds the lease and every task of `ids` is still active under it and
/// of a server not paused: a read, for the executor's steps that make no transaction. The
/// holder's own claims stand until another holder takes the lease over; the lease is read
/// too, since the new holder puts those tasks back on the stack only in a later transaction,
/// and a page put in place meanwhile could land on the one it fetched, synced and marked.
pub fn still_claimed(store: &Store, fence: &Fence, ids: &[i64]) -> Result<bool, StoreError> {
    store
        .read(|c| {
            if !fence.is_current(c)? {
                return Ok(false);
            }
            let mut stmt = c.prepare_cached(
                "SELECT EXISTS (SELECT 1 FROM tasks t
                 WHERE t.id = ?1 AND t.state = 'active' AND t.claimed_epoch = ?2
                   AND NOT EXISTS (SELECT 1 FROM servers s WHERE s.id = t.server_id AND s.paused_reason IS NOT NULL))",
            )?;
            for id in ids {
                if !stmt.query_row(params![id, fence.epoch], |r| r.get::<_, bool>(0))? {
                    return Ok(false);
                }
            }
            Ok(true)
        })
        .map_err(|e| store.sql_error(e))
}

/// Gives back pages [`mark_stored_then_claim_ahead_in`] claimed that the run will not get to (a
/// page the reader asked for comes first, a pause, a stop): each is removed — the page before it
/// pushes it again at its place when it is marked stored, as it would have without the run — unless
/// it was pushed meanwhile (a window asked for that very page: see [`push_at`]), which puts it back
/// on the top of the stack instead, as the push would have. Only tasks still active under `fence`,
/// never run (no size recorded).
pub fn give_back_run_in(
    store: &Store,
    tx: &Transaction<'_>,
    fence: &Fence,
    run: &[Task],
) -> Result<(), StackError> {
    if run.is_empty() {
        return Ok(());
    }
    fenced(store, fence, tx)?;
    let now = store.now_ms();
    let sql = sql_failure(store);
    // Untouched since it was claimed: updated when it was created, with the priority it was
    // claimed with.
    let mut remove = tx
        .prepare_cached(
            "DELETE FROM tasks WHERE id = ?1 AND state = 'active' AND claimed_epoch = ?2
               AND bytes IS NULL AND prioritary = ?3 AND updated_at_ms = created_at_ms",
        )
        .map_err(sql)?;
    for task in run {
        if remove
            .execute(params![task.id, fence.epoch, task.prioritary])
            .map_err(sql)?
            > 0
        {
            continue;
        }
        let seq = next_seq(tx).map_err(sql)?;
        tx.prepare_cached(
            "UPDATE tasks SET state = 'pending', seq = ?3, updated_at_ms = ?4
             WHERE id = ?1 AND state = 'active' AND claimed_epoch = ?2 AND bytes IS NULL",
        )
        .and_then(|mut s| s.execute(params![task.id, fence.epoch, seq, now]))
        .map_err(sql)?;
    }
    Ok(())
}

/// The common case of [`mark_stored_then_claim_next_in`], in fewer writes: when the task's one
/// follow-up is new and is what the claim would take (it ranks above the top of the stack, its
/// server neither paused nor skipped), it is added already claimed — never entering the
/// stack's indexes only to leave them in the same transaction. `None` (nothing written) when
/// the follow-up is not that case.
fn mark_stored_then_claim_chained(
    tx: &Transaction<'_>,
    fence: &Fence,
    task_id: i64,
    bytes: i64,
    next: &TaskSpec,
    skip: &[i64],
    now_ms: i64,
) -> rusqlite::Result<Option<Task>> {
    if skip.contains(&next.server_id) {
        return Ok(None);
    }
    // Its place: the parent's (see `push_chained`).
    let (seq, parent_prioritary) = place_of(tx, task_id)?;
    let prioritary = next.prioritary || parent_prioritary;
    let known = twin_of(tx, next)?.is_some();
    let paused: bool = tx
        .prepare_cached(
            "SELECT EXISTS (SELECT 1 FROM servers WHERE id = ?1 AND paused_reason IS NOT NULL)",
        )?
        .query_row([next.server_id], |r| r.get(0))?;
    if known || paused {
        return Ok(None);
    }
    let rank = |r: &Row<'_>| Ok((r.get(0)?, r.get(1)?));
    let top: Option<(bool, i64)> = if skip.is_empty() {
        tx.prepare_cached(&TOP_OF_STACK_ANY_SERVER)?
            .query_row([], rank)
            .optional()?
    } else {
        tx.prepare_cached(&TOP_OF_STACK)?
            .query_row(rusqlite::named_params! { ":skip": skip_json(skip) }, rank)
            .optional()?
    };
    // Equal ranks leave the choice to the stack's index: not this shortcut's to make.
    if top.is_some_and(|top| top >= (prioritary, seq)) {
        return Ok(None);
    }
    record_size(tx, task_id, bytes, now_ms)?;
    insert_claimed(tx, fence, next, prioritary, seq, now_ms).map(Some)
}

/// Adds `spec` already claimed under `fence`, at `seq` (see [`mark_stored_then_claim_chained`]).
fn insert_claimed(
    tx: &Transaction<'_>,
    fence: &Fence,
    spec: &TaskSpec,
    prioritary: bool,
    seq: i64,
    now_ms: i64,
) -> rusqlite::Result<Task> {
    tx.prepare_cached(CLAIMED_CHAINED)?.execute(params![
        spec.book_id,
        spec.server_id,
        spec.kind.as_str(),
        spec.position,
        spec.url,
        prioritary,
        seq,
        fence.epoch,
        now_ms
    ])?;
    // The row as the insert made it (no `RETURNING`: see `claim_in`).
    Ok(Task {
        id: tx.last_insert_rowid(),
        book_id: spec.book_id,
        server_id: spec.server_id,
        kind: spec.kind,
        position: spec.position,
        url: spec.url.clone(),
        prioritary,
        seq,
        state: TaskState::Active,
        attempts: 1,
        failure: None,
        bytes: None,
    })
}

/// The rank of the task [`NEXT_TASK`] picks.
static TOP_OF_STACK: std::sync::LazyLock<String> = std::sync::LazyLock::new(|| {
    format!("SELECT prioritary, seq FROM tasks WHERE id = ({NEXT_TASK})")
});
/// [`TOP_OF_STACK`] with no server skipped.
static TOP_OF_STACK_ANY_SERVER: std::sync::LazyLock<String> = std::sync::LazyLock::new(|| {
    format!("SELECT prioritary, seq FROM tasks WHERE id = ({NEXT_TASK_ANY_SERVER})")
});

/// A chained task added already claimed (see [`mark_stored_then_claim_chained`]).
const CLAIMED_CHAINED: &str = "INSERT INTO tasks (book_id, server_id, kind, position, url, prioritary, seq, state, claimed_epoch, attempts, created_at_ms, updated_at_ms)
     VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, 'active', ?8, 1, ?9, ?9)";

/// Marks stored tasks done, in one transaction (their files are on the disk now). A task no longer
/// active under `fence` (removed with its book meanwhile) is left as it is, and so is a task that
/// was never marked stored: task ids are given again once the newest rows are deleted, and a stored
/// task's id may by now name a task just claimed (its size not yet recorded).
pub fn complete_synced(store: &Store, fence: &Fence, task_ids: &[i64]) -> Result<(), StackError> {
    store.write(|tx| complete_synced_in(store, tx, fence, task_ids))
}

/// [`complete_synced`] inside a write transaction the caller holds.
pub fn complete_synced_in(
    store: &Store,
    tx: &Transaction<'_>,
    fence: &Fence,
    task_ids: &[i64],
) -> Result<(), StackError> {
    let now = store.now_ms();
    update_each(
        store,
        tx,
        fence,
        "UPDATE tasks SET state = 'done', failure = NULL, updated_at_ms = ?3
         WHERE id = ?1 AND state = 'active' AND claimed_epoch = ?2 AND bytes IS NOT NULL",
        task_ids,
        |stmt, id| stmt.execute(params![id, fence.epoch, now]),
    )
}

/// Puts an active task back on the stack where it was (it keeps its seq), with the reason it
/// could not finish (without one — a preemption, a shutdown — the last failure stays shown
/// until the task succeeds).
pub fn requeue(
    store: &Store,
    fence: &Fence,
    task_id: i64,
    reason: Option<&str>,
) -> Result<(), StackError> {
    let now = store.now_ms();
    settle(store, fence, task_id, |tx| {
        tx.prepare_cached(
            "UPDATE tasks SET state = 'pending', failure = coalesce(?2, failure), updated_at_ms = ?3 WHERE id = ?1",
        )?
        .execute(params![task_id, reason, now])?;
        Ok(())
    })
}

/// Marks an active task failed for good, with a reason the reader can see, and pushes what it
/// chains to (a missing page must not end its book's chain).
pub fn fail(
    store: &Store,
    fence: &Fence,
    task_id: i64,
    reason: &str,
    then_push: &[TaskSpec],
) -> Result<(), StackError> {
    let now = store.now_ms();
    settle(store, fence, task_id, |tx| {
        tx.execute(
            "UPDATE tasks SET state = 'failed', failure = ?2, updated_at_ms = ?3 WHERE id = ?1",
            params![task_id, reason, now],
        )?;
        push_chained(tx, task_id, then_push, now)
    })
}

/// Fails with [`StackError::LeaseLost`] or [`StackError::WrongState`] unless `task_id` is
/// still active under `fence`: checked right before a finished file is moved into place.
pub fn ensure_active(store: &Store, fence: &Fence, task_id: i64) -> Result<(), StackError> {
    settle(store, fence, task_id, |_| Ok(()))
}

/// Records how far a whole-file download got, fenced.
pub fn checkpoint(
    store: &Store,
    fence: &Fence,
    task_id: i64,
    cp: &FileCheckpoint,
) -> Result<(), StackError> {
    let now = store.now_ms();
    settle(store, fence, task_id, |tx| {
        tx.execute(
            "INSERT INTO file_checkpoints (task_id, offset, total, validator, updated_at_ms) VALUES (?1, ?2, ?3, ?4, ?5)
             ON CONFLICT (task_id) DO UPDATE SET offset = excluded.offset, total = excluded.total,
                 validator = excluded.validator, updated_at_ms = excluded.updated_at_ms",
            params![task_id, cp.offset as i64, cp.total.map(|t| t as i64), cp.validator, now],
        )?;
        Ok(())
    })
}

/// Where a whole-file download stands.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct FileCheckpoint {
    /// Bytes safely on disk (synced) from the start of the file.
    pub offset: u64,
    pub total: Option<u64>,
    /// The ETag or Last-Modified the bytes so far came with.
    pub validator: Option<String>,
}

pub fn file_checkpoint(store: &Store, task_id: i64) -> Result<Option<FileCheckpoint>, StoreError> {
    store
        .read(|c| {
            c.query_row(
                "SELECT offset, total, validator FROM file_checkpoints WHERE task_id = ?1",
                [task_id],
                |r| {
                    Ok(FileCheckpoint {
                        offset: r.get::<_, i64>(0)? as u64,
                        total: r.get::<_, Option<i64>>(1)?.map(|t| t as u64),
                        validator: r.get(2)?,
                    })
                },
            )
            .optional()
        })
        .map_err(|e| store.sql_error(e))
}

/// When a run of the executor starts, before it claims anything: every task still active was
/// left by an earlier run (a dead holder, or this process's own run that stopped) and goes
/// back to pending. Fenced, so only the holder does it. Returns how many.
pub fn reconcile(store: &Store, fence: &Fence) -> Result<usize, StackError> {
    let now = store.now_ms();
    store.write(|tx| {
        fenced(store, fence, tx)?;
        tx.execute(
            "UPDATE tasks SET state = 'pending', updated_at_ms = ?1 WHERE state = 'active'",
            params![now],
        )
        .map_err(sql_failure(store))
    })
}

/// The reader asks to try a failed task again: it goes back on top.
pub fn retry(store: &Store, task_id: i64) -> Result<(), StackError> {
    let now = store.now_ms();
    store.write(|tx| {
        let seq = next_seq(tx).map_err(sql_failure(store))?;
        let n = tx
            .execute(
                "UPDATE tasks SET state = 'pending', seq = ?2, failure = NULL, updated_at_ms = ?3 WHERE id = ?1 AND state = 'failed'",
                params![task_id, seq, now],
            )
            .map_err(sql_failure(store))?;
        if n == 0 {
            return Err(StackError::WrongState(task_id));
        }
        Ok(())
    })
}

/// Retries every failed task of a book.
pub fn retry_book(store: &Store, book_id: i64) -> Result<usize, StoreError> {
    let now = store.now_ms();
    store.write(|tx| {
        let seq = next_seq(tx).map_err(|e| store.sql_error(e))?;
        tx.execute(
            "UPDATE tasks SET state = 'pending', seq = ?2, failure = NULL, updated_at_ms = ?3 WHERE book_id = ?1 AND state = 'failed'",
            params![book_id, seq, now],
        )
        .map_err(|e| store.sql_error(e))
    })
}

/// Moves every pending task of a book to the top of the stack, keeping their order among
/// themselves (prioritary tasks of other books still come first). Returns how many moved.
pub fn move_book_to_top(store: &Store, book_id: i64) -> Result<usize, StoreError> {
    let now = store.now_ms();
    store.write(|tx| {
        let ids: Vec<i64> = {
            let mut stmt = tx
                .prepare_cached("SELECT id FROM tasks WHERE book_id = ?1 AND state = 'pending' ORDER BY seq ASC")
                .map_err(|e| store.sql_error(e))?;
            let rows = stmt.query_map([book_id], |r| r.get(0)).map_err(|e| store.sql_error(e))?;
            rows.collect::<rusqlite::Result<Vec<i64>>>().map_err(|e| store.sql_error(e))?
        };
        for id in &ids {
            // Lowest first, so the book's own top stays its top.
            let seq = next_seq(tx).map_err(|e| store.sql_error(e))?;
            tx.execute(
                "UPDATE tasks SET seq = ?2, updated_at_ms = ?3 WHERE id = ?1",
                params![id, seq, now],
            )
            .map_err(|e| store.sql_error(e))?;
        }
        Ok(ids.len())
    })
}

/// Drops every unfinished task of a book — pending, running (the executor finds it gone and
/// goes on; nothing is chained after it) and failed. Done tasks stay, and so do their files.
/// Returns how many were dropped.
pub fn drop_unfinished(store: &Store, book_id: i64) -> Result<usize, StoreError> {
    store.execute(
        "DELETE FROM tasks WHERE book_id = ?1 AND state <> 'done'",
        [book_id],
    )
}

/// Drops the background work of some books: their unfinished tasks that are not prioritary
/// (what the reader asked for just now — a page a window waits for — stays). A running one is
/// dropped too: the executor finds it gone and chains nothing after it. Returns how many.
pub fn drop_background(store: &Store, book_ids: &[i64]) -> Result<usize, StoreError> {
    store.write(|tx| {
        let mut n = 0;
        for id in book_ids {
            n += tx
                .execute(
                    "DELETE FROM tasks WHERE book_id = ?1 AND state <> 'done' AND prioritary = 0",
                    [id],
                )
                .map_err(|e| store.sql_error(e))?;
        }
        Ok(n)
    })
}

/// Tasks matching `filter` (a `WHERE … ORDER BY … LIMIT …` tail over `tasks`).
fn select_tasks(
    store: &Store,
    filter: &str,
    params: impl rusqlite::Params,
) -> Result<Vec<Task>, StoreError> {
    store
        .read(|c| {
            let mut stmt = c.prepare_cached(&format!("SELECT {COLUMNS} FROM tasks {filter}"))?;
            let rows = stmt.query_map(params, from_row)?;
            rows.collect::<rusqlite::Result<Vec<_>>>()
        })
        .map_err(|e| store.sql_error(e))
}

/// The pending stack in pop order (at most `limit`).
pub fn pending_in_pop_order(store: &Store, limit: u32) -> Result<Vec<Task>, StoreError> {
    select_tasks(store, "INDEXED BY tasks_stack WHERE state = 'pending' ORDER BY prioritary DESC, seq DESC LIMIT ?1", [limit])
}

/// Tasks in a given state (active, failed, ...), most recently changed first. The state is
/// written into the statement, so that the partial index of that state serves it (failed tasks:
/// `tasks_failed_recent`; active ones, a handful: `tasks_active`).
pub fn in_state(store: &Store, state: TaskState, limit: u32) -> Result<Vec<Task>, StoreError> {
    select_tasks(store, &in_state_filter(state), [limit])
}

/// The filter of [`in_state`]: a state is one of a few fixed words, never the caller's text.
pub fn in_state_filter(state: TaskState) -> String {
    format!(
        "WHERE state = '{}' ORDER BY updated_at_ms DESC LIMIT ?1",
        state.as_str()
    )
}

pub fn task(store: &Store, task_id: i64) -> Result<Option<Task>, StoreError> {
    store
        .read(|c| {
            c.query_row(
                &format!("SELECT {COLUMNS} FROM tasks WHERE id = ?1"),
                [task_id],
                from_row,
            )
            .optional()
        })
        .map_err(|e| store.sql_error(e))
}

/// Every task of a book (any state).
/// Whether a window waits for parts of a book's file (prioritary page tasks of a book that
/// is downloaded as one file): the file's download then gives way to them.
pub fn has_prioritary_parts_pending(store: &Store, book_id: i64) -> Result<bool, StoreError> {
    store
        .read(|c| {
            c.query_row(
                "SELECT EXISTS(SELECT 1 FROM tasks WHERE book_id = ?1 AND kind = 'page'
                 AND prioritary = 1 AND state = 'pending'
                 AND EXISTS(SELECT 1 FROM tasks f WHERE f.book_id = ?1 AND f.kind = 'file'))",
                [book_id],
                |r| r.get(0),
            )
        })
        .map_err(|e| store.sql_error(e))
}

pub fn tasks_of_book(store: &Store, book_id: i64) -> Result<Vec<Task>, StoreError> {
    select_tasks(
        store,
        "WHERE book_id = ?1 ORDER BY kind, position",
        [book_id],
    )
}

/// Books with a whole-file download still to finish (their partial files are worth keeping).
pub fn books_with_unfinished_files(store: &Store) -> Result<Vec<i64>, StoreError> {
    store
        .read(|c| {
            let mut stmt = c.prepare_cached(
                // Each state from its own partial index, never a walk over every task done.
                "SELECT book_id FROM tasks WHERE state = 'pending' AND kind = 'file'
                 UNION
                 SELECT book_id FROM tasks WHERE state = 'active' AND kind = 'file'",
            )?;
            let rows = stmt.query_map([], |r| r.get(0))?;
            rows.collect::<rusqlite::Result<Vec<i64>>>()
        })
        .map_err(|e| store.sql_error(e))
}

/// Page positions of a book that are stored.
pub fn done_pages(store: &Store, book_id: i64) -> Result<Vec<i64>, StoreError> {
    store
        .read(|c| {
            let mut stmt = c.prepare_cached(
                "SELECT position FROM tasks WHERE book_id = ?1 AND kind = 'page' AND state = 'done' ORDER BY position",
            )?;
            let rows = stmt.query_map([book_id], |r| r.get(0))?;
            rows.collect::<rusqlite::Result<Vec<i64>>>()
        })
        .map_err(|e| store.sql_error(e))
}

/// The answer to `exists`, a `SELECT EXISTS` about page `page` (`?2`) of a book (`?1`).
fn page_is(store: &Store, book_id: i64, page: i64, exists: &str) -> Result<bool, StoreError> {
    store
        .read(|c| {
            c.prepare_cached(exists)?
                .query_row(params![book_id, page], |r| r.get(0))
        })
        .map_err(|e| store.sql_error(e))
}

/// Whether page `page` of a book is stored (its task done).
pub fn is_page_done(store: &Store, book_id: i64, page: i64) -> Result<bool, StoreError> {
    page_is(
        store,
        book_id,
        page,
        "SELECT EXISTS (SELECT 1 FROM tasks
                 WHERE book_id = ?1 AND kind = 'page' AND state = 'done' AND position = ?2)",
    )
}

/// The state of a book's task for page `page`, and its failure if any (the newest such task),
/// read through the index: a window waiting for a page looks at it after every wake.
pub fn page_task_state(
    store: &Store,
    book_id: i64,
    page: i64,
) -> Result<Option<(TaskState, Option<String>)>, StoreError> {
    store
        .read(|c| {
            c.prepare_cached(
                "SELECT state, failure FROM tasks WHERE book_id = ?1 AND kind = 'page' AND position = ?2
                 ORDER BY id DESC LIMIT 1",
            )?
            .query_row(params![book_id, page], |r| {
                Ok((TaskState::parse(&r.get::<_, String>(0)?), r.get(1)?))
            })
            .optional()
        })
        .map_err(|e| store.sql_error(e))
}

/// Whether page `page` of a book is in place to be read: its task done, or its file put in
/// place by the running executor and waiting for its batch to be synced to the disk (active,
/// its size recorded: see [`mark_stored`]).
pub fn is_page_stored(store: &Store, book_id: i64, page: i64) -> Result<bool, StoreError> {
    page_is(
        store,
        book_id,
        page,
        "SELECT EXISTS (SELECT 1 FROM tasks
                 WHERE book_id = ?1 AND kind = 'page' AND position = ?2
                   AND (state = 'done' OR (state = 'active' AND bytes IS NOT NULL)))",
    )
}

/// The first page after `after` (wrapping around to 0) among `0..count` that is not stored,
/// read from the index in page order: it stops at the first gap instead of reading every page.
pub fn next_missing_page(
    store: &Store,
    book_id: i64,
    count: i64,
    after: i64,
) -> Result<Option<i64>, StoreError> {
    if count <= 0 {
        return Ok(None);
    }
    let after = after.rem_euclid(count);
    store
        .read(|c| {
            let mut stmt = c.prepare_cached(
                "SELECT position FROM tasks
                 WHERE book_id = ?1 AND kind = 'page' AND state = 'done' AND position >= ?2 AND position < ?3
                 ORDER BY position",
            )?;
            // The first position of from..to without a done task.
            let mut gap = |from: i64, to: i64| -> rusqlite::Result<Option<i64>> {
                let mut expect = from;
                let mut rows = stmt.query(params![book_id, from, to])?;
                while let Some(r) = rows.next()? {
                    let p: i64 = r.get(0)?;
                    if p > expect {
                        break;
                    }
                    expect = expect.max(p + 1);
                }
                Ok((expect < to).then_some(expect))
            };
            match gap(after + 1, count)? {
                Some(p) => Ok(Some(p)),
                None => gap(0, after + 1),
            }
        })
        .map_err(|e| store.sql_error(e))
}

/// Whether anything is waiting.
pub fn has_pending(store: &Store) -> Result<bool, StoreError> {
    store
        .read(|c| {
            c.query_row(
                "SELECT EXISTS (SELECT 1 FROM tasks WHERE state = 'pending')",
                [],
                |r| r.get(0),
            )
        })
        .map_err(|e| store.sql_error(e))
}

/// Whether a prioritary task of `server` was pushed (or moved to the top) after the push
/// counter stood at `since`.
pub fn prioritary_pushed_since(store: &Store, server: i64, since: i64) -> Result<bool, StoreError> {
    store
        .read(|c| {
            c.query_row(
                "SELECT EXISTS (SELECT 1 FROM tasks INDEXED BY tasks_server_pending
                 WHERE server_id = ?1 AND state = 'pending' AND prioritary = 1 AND seq > ?2)",
                params![server, since],
                |r| r.get(0),
            )
        })
        .map_err(|e| store.sql_error(e))
}

/// The highest stack position handed out so far; grows at every push (a push of a claimed
/// task included: see [`push_at`]).
pub fn push_counter(store: &Store) -> Result<i64, StoreError> {
    // Read between two pages of a download (see `executor/claim_ahead.rs`): kept prepared.
    store
        .read(|c| {
            c.prepare_cached("SELECT seq FROM stack_counter WHERE id = 1")?
                .query_row([], |r| r.get(0))
        })
        .map_err(|e| store.sql_error(e))
}
