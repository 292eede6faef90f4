//! Pages of a book claimed ahead in one transaction, and pages put in place without one.
//!
//! Between two pages, a download made one write transaction: mark the page stored (record its
//! size), claim the next. On loopback that transaction was a third of the run's thread, and the
//! server's answer to the page asked for ahead came before it was over. So when pages come
//! quickly (the last page's database step and the last transaction less than [`QUIET_FOR`]
//! ago), the step that claims a page's follow-up also claims the pages after it — up to
//! [`CLAIM_AHEAD_PAGES`], each the next page not stored, added already claimed as the follow-up
//! is. While nothing changes, the pages claimed ahead are then put in place with no
//! transaction at all: one read transaction on the writer connection, taken before the
//! request ahead and serving it too, looks that no task was pushed since the pages ahead were
//! claimed, that downloads are neither paused nor held by the network, that the page's server
//! is not paused, and that the page and the next are still this run's (and the lease too);
//! their sizes are recorded by the next transaction the run makes (the next step that needs
//! one, a batch's completion, a claim). A page is readable by a window once its size is
//! recorded, so a step makes a transaction again once the last one is [`QUIET_FOR`] old, and
//! an answer or a sync that keeps the run waiting records what was put in place before
//! waiting on.
//!
//! Anything else ends the claim ahead: a push (a page the reader asked for goes first, as
//! before — a push of a page claimed ahead is counted too), a pause, a failure, a stop, a batch
//! that must be synced first. The pages claimed and not reached are given back in a
//! transaction before anything is pushed: removed, since the page before them pushes its
//! follow-up again when it is marked stored, or — a page pushed meanwhile — put back on the top
//! of the stack (see [`download_stack::give_back_run_in`]).
//!
//! What a kill costs stays what it was: a page is put in place whole (named only once
//! written), and a later run takes a page found in place without a size recorded unless it is
//! empty — which a kill between the page's write and its transaction could already leave. At
//! most [`CHECKPOINT_BYTES`] of pages are in place without a size at any time. A power cut can
//! leave a page not yet synced short; with a size recorded it is fetched again, without one
//! only when empty (ext4 gives a file its length on the disk as its data reaches it: such a
//! page comes back empty or shorter, never padded) — the one thing given up, for at most
//! [`CLAIM_AHEAD_PAGES`] pages in the [`QUIET_FOR`] before their sizes are recorded.

use super::*;

/// Pages claimed after a page's follow-up, in the step that claims it, when pages come quickly.
pub(super) const CLAIM_AHEAD_PAGES: usize = 15;

/// How old the last page's step and the last transaction may be for a page to be put in place
/// without one, and for a database step to claim pages ahead: pages that take longer each make a
/// transaction, as before.
pub(super) const QUIET_FOR: Duration = Duration::from_millis(5);

/// What a step without a transaction looks at (see the module's text).
pub(super) struct QuietLook {
    /// The push counter when the pages ahead were claimed.
    pub pushes: i64,
    /// The page being put in place.
    pub task_id: i64,
    /// The next page, claimed with the pages ahead.
    pub next: Task,
    /// The request slot kept, for the next page's request: its server and holder.
    pub kept: Option<(i64, String)>,
}

/// The look of a step without a transaction, on the writer connection: `None` when anything
/// changed since the pages ahead were claimed (the step then makes its transaction), else the look
/// at the kept slot for the next page's request (if one is kept for its server).
pub(super) fn quiet_look(
    store: &Store,
    fence: &Fence,
    look: &QuietLook,
) -> Result<Option<Option<server_throttle::KeptLook>>, StoreError> {
    store.looking_on_writer(|| {
        if download_stack::push_counter(store)? != look.pushes
            || is_paused(store)?
            || crate::network::hold(store)?.is_some()
            || !download_stack::still_claimed(store, fence, &[look.task_id, look.next.id])?
        {
            return Ok(None);
        }
        let kept = match &look.kept {
            Some((server, holder)) if *server == look.next.server_id => {
                server_throttle::look_at_kept(store, *server, holder).ok()
            }
            _ => None,
        };
        Ok(Some(kept))
    })
}

/// Whether `task` may start a claim ahead: a page fetched as a page (not a part of its book's
/// file).
pub(super) fn may_claim_ahead(task: &Task) -> bool {
    task.kind == TaskKind::Page && !book_downloads::is_file_part(&task.url)
}

/// The follow-up of `task` when the page after it was claimed with it: where its request
/// ahead goes (see [`page_ahead`]), without reading it again.
pub(super) fn follow_up_claimed_ahead(task: &Task, after: &Task) -> FollowUp {
    FollowUp {
        after: task.id,
        position: after.position,
        url: after.url.clone(),
    }
}

impl Run<'_> {
    /// Records the sizes of the pages put in place without a transaction, and gives back the
    /// pages claimed ahead and not reached, in one transaction (before a failure is settled, a
    /// stop, a claim of the loop's own). Nothing to do is no transaction.
    pub(super) async fn end_claimed_ahead(&mut self) -> Result<(), StackError> {
        if self.unrecorded.is_empty() && self.claimed_ahead.is_empty() {
            return Ok(());
        }
        let fence = self.fence.clone();
        let sizes = self.unrecorded.clone();
        let claimed_ahead: Vec<Task> = self.claimed_ahead.iter().cloned().collect();
        self.ex
            .db(move |s| {
                s.write(|tx| {
                    download_stack::record_sizes_in(s, tx, &fence, &sizes)?;
                    download_stack::give_back_run_in(s, tx, &fence, &claimed_ahead)
                })
            })
            .await?;
        self.claimed_ahead.clear();
        self.sizes_recorded();
        Ok(())
    }

    /// The sizes waiting were recorded by a transaction that just ended.
    pub(super) fn sizes_recorded(&mut self) {
        if !self.unrecorded.is_empty() {
            // Readable now: a window waiting for one of them may look.
            self.ex.store.wake_waiters();
        }
        self.unrecorded.clear();
        self.recorded_at = Some(Instant::now());
    }

    /// Records the sizes of the pages put in place without a transaction, keeping the pages claimed
    /// ahead: the run is about to wait (an answer slow to come), and a window may be waiting for
    /// one of those pages.
    pub(super) async fn record_before_waiting(&mut self) {
        if self.unrecorded.is_empty() {
            return;
        }
        let fence = self.fence.clone();
        let sizes = self.unrecorded.clone();
        let recorded = self
            .ex
            .db(move |s| s.write(|tx| download_stack::record_sizes_in(s, tx, &fence, &sizes)))
            .await;
        match recorded {
            Ok(()) => self.sizes_recorded(),
            // Recorded with the next transaction instead (a lost lease is seen there too).
            Err(e) => tracing::debug!(cause = %e, "could not record the pages in place yet"),
        }
    }
}
