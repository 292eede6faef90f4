//! The stack's rules, on a real SQLite file.

use carrel_core::{
    engine::download_stack::{self, Pushed, StackError, TaskKind, TaskSpec, TaskState},
    engine::executor_lease::{self, Acquire, Fence},
    foundation::clock::ManualClock,
};
use std::sync::Arc;

use crate::support::Env;

fn spec(book: i64, server: i64, kind: TaskKind, position: i64, prioritary: bool) -> TaskSpec {
    TaskSpec {
        book_id: book,
        server_id: server,
        kind,
        position,
        url: if kind == TaskKind::Book {
            String::new()
        } else {
            format!("http://127.0.0.1:9/b/{book}/{position}")
        },
        prioritary,
    }
}

/// Pushes pages of book `book` (server `server`) in the order given, each `(position,
/// prioritary)`.
fn push_pages(env: &Env, server: i64, book: i64, pages: &[(i64, bool)]) {
    for &(position, prioritary) in pages {
        download_stack::push(
            &env.store,
            &spec(book, server, TaskKind::Page, position, prioritary),
        )
        .unwrap();
    }
}

/// The plan SQLite makes for `sql` with `params`, its lines joined by " | ".
fn query_plan(env: &Env, sql: &str, params: impl rusqlite::Params) -> String {
    let plan: Vec<String> = env
        .store
        .read(|c| {
            let mut stmt = c.prepare(&format!("EXPLAIN QUERY PLAN {sql}"))?;
            let rows = stmt.query_map(params, |r| r.get::<_, String>(3))?;
            rows.collect::<rusqlite::Result<Vec<_>>>()
        })
        .unwrap();
    plan.join(" | ")
}

fn lease(env: &Env, holder: &str) -> Fence {
    match executor_lease::try_acquire(&env.store, holder, 10_000).unwrap() {
        Acquire::Acquired { fence, .. } => fence,
        other => panic!("{other:?}"),
    }
}

fn setup() -> (Env, i64, i64) {
    let env = Env::new();
    let server = env.add_server("S", "http://127.0.0.1:9/opds");
    let book = env.comic(&server, "a", 10, "http://127.0.0.1:9/p/{pageNumber}");
    (env, server.id, book.id)
}

#[test]
fn pushing_an_equal_pending_task_moves_it_to_the_top_instead_of_adding_it() {
    let (env, s, b) = setup();
    let first = download_stack::push(&env.store, &spec(b, s, TaskKind::Page, 1, false)).unwrap();
    push_pages(&env, s, b, &[(2, false), (3, false)]);
    let again = download_stack::push(&env.store, &spec(b, s, TaskKind::Page, 1, false)).unwrap();
    assert!(matches!(first, Pushed::Added(_)));
    assert_eq!(again, Pushed::MovedToTop(first.task_id()));
    let order: Vec<i64> = download_stack::pending_in_pop_order(&env.store, 100)
        .unwrap()
        .iter()
        .map(|t| t.position)
        .collect();
    assert_eq!(order, [1, 3, 2]);
}

#[test]
fn pop_takes_the_topmost_prioritary_task_first_then_the_top() {
    let (env, s, b) = setup();
    let fence = lease(&env, "A");
    push_pages(&env, s, b, &[(0, true), (1, true), (2, false), (3, false)]);
    let mut order = vec![];
    while let Some(t) = download_stack::claim_next(&env.store, &fence, &[]).unwrap() {
        assert_eq!(t.state, TaskState::Active);
        order.push(t.position);
    }
    assert_eq!(order, [1, 0, 3, 2]);
}

#[test]
fn a_prioritary_push_of_a_pending_task_makes_it_prioritary() {
    let (env, s, b) = setup();
    let fence = lease(&env, "A");
    push_pages(&env, s, b, &[(5, false), (6, true), (5, true), (7, false)]);
    let t = download_stack::claim_next(&env.store, &fence, &[])
        .unwrap()
        .unwrap();
    assert_eq!((t.position, t.prioritary), (5, true));
}

#[test]
fn done_and_failed_tasks_are_not_pushed_again_but_a_retry_revives_a_failed_one() {
    let (env, s, b) = setup();
    let fence = lease(&env, "A");
    push_pages(&env, s, b, &[(0, false), (1, false)]);
    let t1 = download_stack::claim_next(&env.store, &fence, &[])
        .unwrap()
        .unwrap();
    download_stack::complete(&env.store, &fence, t1.id, 10, &[]).unwrap();
    let t0 = download_stack::claim_next(&env.store, &fence, &[])
        .unwrap()
        .unwrap();
    download_stack::fail(&env.store, &fence, t0.id, "gone (404)", &[]).unwrap();
    assert_eq!(
        download_stack::push(&env.store, &spec(b, s, TaskKind::Page, 1, true)).unwrap(),
        Pushed::AlreadyDone(t1.id)
    );
    assert_eq!(
        download_stack::push(&env.store, &spec(b, s, TaskKind::Page, 0, true)).unwrap(),
        Pushed::AlreadyFailed(t0.id)
    );
    assert!(!download_stack::has_pending(&env.store).unwrap());
    let failed = download_stack::task(&env.store, t0.id).unwrap().unwrap();
    assert_eq!(failed.failure.as_deref(), Some("gone (404)"));
    download_stack::retry(&env.store, t0.id).unwrap();
    assert_eq!(
        download_stack::claim_next(&env.store, &fence, &[])
            .unwrap()
            .unwrap()
            .id,
        t0.id
    );
}

#[test]
fn a_stale_holder_cannot_claim_or_settle_and_the_new_holder_reconciles() {
    let clock = ManualClock::new(1_000_000);
    let env = Env::with_clock(Arc::new(clock.clone()));
    let server = env.add_server("S", "http://127.0.0.1:9/opds");
    let book = env.comic(&server, "a", 10, "http://127.0.0.1:9/p/{pageNumber}");
    // A second handle on the same file: another process.
    let other =
        carrel_core::foundation::store::Store::open(&env.dir, Arc::new(clock.clone())).unwrap();
    let old = lease(&env, "A");
    download_stack::push(
        &env.store,
        &spec(book.id, server.id, TaskKind::Page, 0, false),
    )
    .unwrap();
    download_stack::push(
        &env.store,
        &spec(book.id, server.id, TaskKind::Page, 1, false),
    )
    .unwrap();
    let claimed = download_stack::claim_next(&env.store, &old, &[])
        .unwrap()
        .unwrap();
    assert!(download_stack::still_claimed(&env.store, &old, &[claimed.id]).unwrap());
    // A dies (no heartbeat); B takes over after the TTL.
    clock.advance_ms(10_001);
    let new = match executor_lease::try_acquire(&other, "B", 10_000).unwrap() {
        Acquire::Acquired { fence, took_over } => {
            assert!(took_over);
            fence
        }
        other => panic!("{other:?}"),
    };
    // A's look without a transaction (a page claimed ahead) sees it lost the task as soon as
    // B holds the lease, not only once B has put A's tasks back.
    assert!(!download_stack::still_claimed(&env.store, &old, &[claimed.id]).unwrap());
    // A wakes up: every write it tries is refused and changes nothing.
    assert!(matches!(
        download_stack::complete(&env.store, &old, claimed.id, 1, &[]),
        Err(StackError::LeaseLost(_))
    ));
    assert!(matches!(
        download_stack::claim_next(&env.store, &old, &[]),
        Err(StackError::LeaseLost(_))
    ));
    assert_eq!(
        download_stack::task(&other, claimed.id)
            .unwrap()
            .unwrap()
            .state,
        TaskState::Active
    );
    // B puts A's active task back and can take it.
    assert_eq!(download_stack::reconcile(&other, &new).unwrap(), 1);
    assert_eq!(
        download_stack::task(&other, claimed.id)
            .unwrap()
            .unwrap()
            .state,
        TaskState::Pending
    );
    let mut seen = vec![];
    while let Some(t) = download_stack::claim_next(&other, &new, &[]).unwrap() {
        seen.push(t.id);
    }
    assert!(seen.contains(&claimed.id));
}

/// Marks pages of book `b` done, as the executor does when it stores them.
fn store_pages(env: &Env, fence: &Fence, s: i64, b: i64, pages: &[i64]) {
    for &p in pages {
        download_stack::push(&env.store, &spec(b, s, TaskKind::Page, p, false)).unwrap();
        let t = download_stack::claim_next(&env.store, fence, &[])
            .unwrap()
            .unwrap();
        download_stack::complete(&env.store, fence, t.id, 10, &[]).unwrap();
    }
}

#[test]
fn the_chain_runs_from_the_readers_page_to_the_end_then_wraps_and_skips_stored_pages() {
    let (env, s, b) = setup();
    let fence = lease(&env, "A");
    let next = |after| download_stack::next_missing_page(&env.store, b, 10, after).unwrap();
    assert_eq!(next(-1), Some(0));
    assert_eq!(next(4), Some(5));
    store_pages(&env, &fence, s, b, &[5, 6, 9]);
    assert_eq!(next(4), Some(7), "stored pages are skipped");
    assert_eq!(next(7), Some(8));
    store_pages(&env, &fence, s, b, &[7, 8]);
    assert_eq!(
        next(4),
        Some(0),
        "past the last page, the chain wraps to the first"
    );
    store_pages(&env, &fence, s, b, &[0, 1, 2, 3]);
    assert_eq!(
        next(9),
        Some(4),
        "the page itself is the last one looked at"
    );
    store_pages(&env, &fence, s, b, &[4]);
    assert_eq!(next(2), None, "every page stored");
    assert!(download_stack::is_page_done(&env.store, b, 4).unwrap());
    assert_eq!(
        download_stack::next_missing_page(&env.store, b, 0, 0).unwrap(),
        None
    );

    // The walk from the reader's page through the whole book, as the executor chains it.
    let (env, s, b) = setup();
    let fence = lease(&env, "A");
    let (mut at, mut order) = (6, vec![6]);
    store_pages(&env, &fence, s, b, &[6]);
    while let Some(p) = download_stack::next_missing_page(&env.store, b, 10, at).unwrap() {
        order.push(p);
        store_pages(&env, &fence, s, b, &[p]);
        at = p;
    }
    assert_eq!(order, (6..10).chain(0..6).collect::<Vec<_>>());
    assert!(!download_stack::is_page_done(&env.store, b, 10).unwrap());
}

/// A page stored, awaiting its sync, whose book is removed meanwhile: its id may be given to the
/// next task pushed, which the late sync must not mark done.
#[test]
fn a_held_page_removed_meanwhile_never_marks_the_task_that_took_its_id() {
    let (env, s, b) = setup();
    let fence = lease(&env, "A");
    download_stack::push(&env.store, &spec(b, s, TaskKind::Page, 0, false)).unwrap();
    let held = download_stack::claim_next(&env.store, &fence, &[])
        .unwrap()
        .unwrap();
    download_stack::mark_stored(&env.store, &fence, held.id, 10, &[]).unwrap();
    carrel_core::engine::book_downloads::remove_book(&env.store, b).unwrap();
    download_stack::push(&env.store, &spec(b, s, TaskKind::Book, 0, false)).unwrap();
    let next = download_stack::claim_next(&env.store, &fence, &[])
        .unwrap()
        .unwrap();
    assert_eq!(next.id, held.id, "SQLite gives the id again");
    download_stack::complete_synced(&env.store, &fence, &[held.id]).unwrap();
    let now = download_stack::task(&env.store, next.id).unwrap().unwrap();
    assert_eq!(
        now.state,
        TaskState::Active,
        "the new task is not marked by the late sync"
    );
}

#[test]
fn the_next_missing_page_is_found_in_the_index_in_page_order() {
    let (env, _s, _b) = setup();
    let text = query_plan(
        &env,
        "SELECT position FROM tasks
         WHERE book_id = 1 AND kind = 'page' AND state = 'done' AND position >= 0 AND position < 9
         ORDER BY position",
        [],
    );
    assert!(text.contains("tasks_book"), "{text}");
    assert!(!text.contains("TEMP B-TREE"), "no sort: {text}");
}

#[test]
fn pop_is_served_by_the_stack_index_not_a_scan() {
    let (env, _s, _b) = setup();
    let text = query_plan(
        &env,
        download_stack::NEXT_TASK,
        rusqlite::named_params! { ":skip": "[7]" },
    );
    assert!(text.contains("tasks_stack"), "{text}");
    assert!(!text.contains("TEMP B-TREE"), "pop must not sort: {text}");
}

#[test]
fn pushing_and_popping_stay_correct_with_100k_pending_tasks() {
    let (env, s, b) = setup();
    let fence = lease(&env, "A");
    let specs: Vec<TaskSpec> = (0..100_000)
        .map(|i| spec(b, s, TaskKind::Resource, i, false))
        .collect();
    download_stack::push_all(&env.store, &specs).unwrap();
    download_stack::push(&env.store, &spec(b, s, TaskKind::Page, 3, true)).unwrap();
    download_stack::push(&env.store, &spec(b, s, TaskKind::Resource, 10, false)).unwrap();
    assert_eq!(
        download_stack::claim_next(&env.store, &fence, &[])
            .unwrap()
            .unwrap()
            .position,
        3
    );
    let t = download_stack::claim_next(&env.store, &fence, &[])
        .unwrap()
        .unwrap();
    assert_eq!((t.kind, t.position), (TaskKind::Resource, 10));
    assert_eq!(
        download_stack::claim_next(&env.store, &fence, &[])
            .unwrap()
            .unwrap()
            .position,
        99_999
    );
}

#[test]
fn failed_and_active_tasks_are_listed_from_their_own_indexes() {
    let (env, _s, _b) = setup();
    for (state, index) in [
        (TaskState::Failed, "tasks_failed_recent"),
        (TaskState::Active, "tasks_active"),
    ] {
        let plan: Vec<String> = env
            .store
            .read(|c| {
                let mut stmt = c.prepare(&format!(
                    "EXPLAIN QUERY PLAN SELECT id FROM tasks {}",
                    download_stack::in_state_filter(state)
                ))?;
                let rows = stmt.query_map([10], |r| r.get::<_, String>(3))?;
                rows.collect::<rusqlite::Result<Vec<_>>>()
            })
            .unwrap();
        let text = plan.join(" | ");
        assert!(text.contains(index), "{state:?}: {text}");
        // Never the whole table: at most the index of that state's rows.
        assert!(
            plan.iter()
                .all(|step| !step.starts_with("SCAN tasks") || step.contains("INDEX")),
            "{state:?}: {text}"
        );
    }
}

/// Between two pages the executor marks the page it got stored and claims the next task in one
/// transaction: the claim sees the page's follow-up, and a page no longer the holder's claims
/// nothing.
#[test]
fn holding_a_page_and_claiming_the_next_is_one_transaction() {
    let (env, s, b) = setup();
    let fence = lease(&env, "A");
    // An older task lower on the stack, then a page on top of it.
    let older = download_stack::push(&env.store, &spec(b, s, TaskKind::Page, 8, false))
        .unwrap()
        .task_id();
    download_stack::push(&env.store, &spec(b, s, TaskKind::Page, 0, false)).unwrap();
    let page = download_stack::claim_next(&env.store, &fence, &[])
        .unwrap()
        .unwrap();
    assert_eq!(page.position, 0);
    let follow_up = spec(b, s, TaskKind::Page, 1, false);
    let next = download_stack::mark_stored_then_claim_next(
        &env.store,
        &fence,
        page.id,
        10,
        &[follow_up],
        &[],
    )
    .unwrap()
    .expect("a task claimed");
    assert_eq!(
        next.position, 1,
        "the follow-up goes where its page was, above the older task"
    );
    assert_eq!(next.state, TaskState::Active);
    let held = download_stack::task(&env.store, page.id).unwrap().unwrap();
    assert_eq!((held.state, held.bytes), (TaskState::Active, Some(10)));
    // Under a fence no longer the holder's nothing happens at all: no hold, no claim.
    executor_lease::release(&env.store, &fence).unwrap();
    let other = lease(&env, "B");
    assert!(matches!(
        download_stack::mark_stored_then_claim_next(&env.store, &fence, next.id, 5, &[], &[]),
        Err(StackError::LeaseLost(_))
    ));
    let still = download_stack::task(&env.store, next.id).unwrap().unwrap();
    assert_eq!(still.bytes, None, "not marked stored");
    let older = download_stack::task(&env.store, older).unwrap().unwrap();
    assert_eq!(older.state, TaskState::Pending, "not claimed");
    // The new holder's fence settles it as usual.
    assert!(matches!(
        download_stack::mark_stored_then_claim_next(&env.store, &other, next.id, 5, &[], &[]),
        Err(StackError::WrongState(_))
    ));
}

/// A page's one follow-up is added already claimed only when the claim would take it anyway:
/// a newer task on top, a prioritary one or a server skipped or paused each keep it waiting
/// at its parent's place, as a push and a claim of their own would.
#[test]
fn a_follow_up_is_claimed_at_once_only_when_the_stack_would_take_it() {
    let (env, s, b) = setup();
    let fence = lease(&env, "A");
    // Marks task `stored` stored (10 bytes), its follow-up the page at `position`: the next claim.
    let store_next = |stored: i64, position: i64, skip: &[i64]| {
        download_stack::mark_stored_then_claim_next(
            &env.store,
            &fence,
            stored,
            10,
            &[spec(b, s, TaskKind::Page, position, false)],
            skip,
        )
        .unwrap()
    };
    download_stack::push(&env.store, &spec(b, s, TaskKind::Page, 0, false)).unwrap();
    let page0 = download_stack::claim_next(&env.store, &fence, &[])
        .unwrap()
        .unwrap();
    // Pushed after page 0 was taken: on top of where page 0's follow-up goes.
    let newer = download_stack::push(&env.store, &spec(b, s, TaskKind::Page, 5, false))
        .unwrap()
        .task_id();
    let next = store_next(page0.id, 1, &[]).unwrap();
    assert_eq!(next.id, newer, "the newer task was on top");
    let page1 = download_stack::peek(&env.store, &[]).unwrap().unwrap();
    assert_eq!(
        (page1.position, page1.state, page1.seq),
        (1, TaskState::Pending, page0.seq)
    );
    // Page 5's follow-up takes page 5's place, the top: claimed as it is added.
    let page6 = store_next(next.id, 6, &[]).unwrap();
    assert_eq!(
        (page6.position, page6.state, page6.seq, page6.attempts),
        (6, TaskState::Active, next.seq, 1)
    );
    let held = download_stack::task(&env.store, next.id).unwrap().unwrap();
    assert_eq!((held.state, held.bytes), (TaskState::Active, Some(10)));
    // A prioritary task waiting goes first.
    let urgent = download_stack::push(&env.store, &spec(b, s, TaskKind::Page, 9, true))
        .unwrap()
        .task_id();
    let next = store_next(page6.id, 7, &[]).unwrap();
    assert_eq!(next.id, urgent);
    // Its server skipped (backing off) or paused: the follow-up waits, nothing of it claimed.
    for (skip, pause, position) in [(vec![s], false, 8), (vec![], true, 10)] {
        env.store
            .write(|tx| {
                tx.execute(
                    "UPDATE servers SET paused_reason = ?2 WHERE id = ?1",
                    rusqlite::params![s, pause.then_some("authentication needed")],
                )
                .map_err(|e| env.store.sql_error(e))
            })
            .unwrap();
        let claimed = store_next(next.id, position, &skip);
        assert_eq!(claimed, None, "skip {skip:?}, paused {pause}");
        let waiting = env
            .store
            .read(|c| {
                c.query_row(
                    "SELECT state FROM tasks WHERE book_id = ?1 AND position = ?2",
                    [b, position],
                    |r| r.get::<_, String>(0),
                )
            })
            .unwrap();
        assert_eq!(waiting, "pending");
    }
}
