//! Claiming and settling a task: what the loop's claim found, the failure policy applied to a
//! task's outcome, the database step that marks a page stored and claims the next, and what is
//! reported of each.

use super::*;

/// A page (or a cover) the running task got: put in place by the database step that marks its
/// task stored (one step between two pages: see [`Run::store_page`]).
pub(super) enum PageToStore {
    /// In place already (stored before a crash, not yet marked).
    Found(std::path::PathBuf),
    /// Fetched: these bytes go to this path.
    Fetched(std::path::PathBuf, Vec<u8>),
}

/// What the database step between two pages did (see [`Run::store_page`]): the page marked
/// stored (its task awaiting the batch's sync), the next task claimed.
pub(super) struct PageStep {
    /// The page's book has nothing left to chain to (the page is a part of it).
    pub(super) last: bool,
    /// The next task, when the step claimed it.
    pub(super) next: Option<Claimed>,
    /// A look at the kept request slot, for the next task's request.
    pub(super) look: Option<server_throttle::KeptLook>,
    /// What became of the pages claimed ahead (see [`claim_ahead`]).
    pub(super) claimed_ahead: ClaimedAhead,
}

/// What a step between two pages did with the pages claimed ahead.
pub(super) enum ClaimedAhead {
    /// The page was put in place without a transaction; the next page is the first of those
    /// claimed ahead.
    NoTransaction,
    /// A transaction recorded the sizes waiting, marked the page stored and went on to the first
    /// page claimed ahead.
    NextClaimedAhead,
    /// A transaction recorded the sizes waiting and gave back the pages claimed ahead (if any);
    /// these pages, claimed after the next task, are the new ones (the push counter then).
    NewlyClaimed(Vec<Task>, i64),
}

/// Why the step between two pages failed.
pub(super) enum PageStepFailure {
    /// The page could not be put in place: the failure policy's, as any disk error.
    Write(std::io::Error),
    Stack(StackError),
}

impl From<StackError> for PageStepFailure {
    fn from(e: StackError) -> Self {
        PageStepFailure::Stack(e)
    }
}

impl From<StoreError> for PageStepFailure {
    fn from(e: StoreError) -> Self {
        PageStepFailure::Stack(e.into())
    }
}

/// What the loop's one database step found. Paused and nothing to do carry what the waiting
/// executor watches as that step saw it: a change made after the step (a push, a resume) wakes
/// the wait that follows, however late the wait starts.
pub(super) enum Claimed {
    Paused(Watch),
    Nothing(Watch),
    /// The task, its book, and where its chain goes next (see [`page_ahead`]).
    Task(Task, Box<Result<Book, books::BookError>>, Option<FollowUp>),
}

pub(super) fn claimed_task(store: &Store, task: Task) -> Claimed {
    let book = books::get(store, task.book_id);
    let next = book
        .as_ref()
        .ok()
        .and_then(|b| page_ahead::follow_up(store, b, &task));
    Claimed::Task(task, Box::new(book), next)
}

/// Whether a prioritary task of a server not in `skip` waits.
pub(super) fn has_prioritary_pending(store: &Store, skip: &[i64]) -> bool {
    matches!(download_stack::peek(store, skip), Ok(Some(t)) if t.prioritary)
}

impl Run<'_> {
    pub(super) fn report_done(&self, task: &Task, bytes: u64) {
        self.ex.report(DownloadEvent::TaskDone {
            task_id: task.id,
            book_id: task.book_id,
            kind: task.kind,
            position: task.position,
            bytes,
        });
        // Stored, and said: a window waiting for it may look now.
        self.ex.store.wake_waiters();
    }

    /// Applies the failure policy to a task's outcome. `Some` ends the run.
    pub(super) async fn settle(
        &mut self,
        task: &Task,
        outcome: Result<Ran, TaskError>,
        shutdown: &mut Shutdown,
    ) -> Result<Option<Finish>, ExecutorError> {
        let outcome = match outcome {
            Ok(Ran {
                bytes,
                book,
                page: Some(page),
            }) => {
                match self.store_page(task, bytes, book, page).await {
                    Ok(settled) => return settled,
                    // Not in place: the failure policy's, as any disk error.
                    Err(e) => Err(TaskError::Disk(e)),
                }
            }
            Ok(Ran {
                bytes,
                book,
                page: None,
            }) => Ok((bytes, book)),
            Err(e) => Err(e),
        };
        // Not a page stored: the pages claimed ahead (if any) ends here, before anything this
        // task chains to is pushed (see `claim_ahead`).
        match self.end_claimed_ahead().await {
            Ok(()) => {}
            Err(StackError::LeaseLost(_)) => return Ok(Some(Finish::LeaseLost)),
            Err(e) => return Err(ExecutorError::Storage(e.to_string())),
        }
        let fence = self.fence.clone();
        let id = task.id;
        if outcome.is_err() {
            // A failure may be waited out (a backoff): not with the server's slot kept.
            self.let_slot_go().await;
        }
        let result = match outcome {
            Ok((bytes, book)) => {
                self.failures = 0;
                self.backoffs.succeeded(task.server_id);
                // Only a part can complete a book: "stored" is said once.
                let book_part = task.kind.is_part() && !book_downloads::is_file_part(&task.url);
                let due = !matches!(self.progress_reported, Some((b, at)) if b == task.book_id && at.elapsed() < PROGRESS_EVERY);
                let t = task.clone();
                // One database step per task done: what it chains to, its completion,
                // and where its book stands.
                let r = self
                    .ex
                    .db(move |s| -> Result<Option<BookProgress>, StackError> {
                        let follow_ups = book_downloads::next_parts(s, &book, &t)?;
                        download_stack::complete(s, &fence, id, bytes as i64, &follow_ups)?;
                        // Nothing left to chain to: the book may be complete, which is said
                        // whatever the time.
                        let count = book_part && (due || follow_ups.is_empty());
                        Ok(count
                            .then(|| book_downloads::progress(s, &book).ok())
                            .flatten())
                    })
                    .await;
                match r {
                    Ok(progress) => {
                        self.report_done(task, bytes);
                        if let Some(progress) = progress {
                            self.progress_reported = Some((task.book_id, Instant::now()));
                            self.report_progress(progress);
                        }
                        Ok(())
                    }
                    Err(e) => Err(e),
                }
            }
            Err(TaskError::Preempted) => {
                tracing::info!(task = id, "paused a file download for a prioritary task");
                self.ex
                    .db(move |s| download_stack::requeue(s, &fence, id, None))
                    .await
            }
            Err(TaskError::Stack(e)) => Err(e),
            Err(TaskError::Fetch(FetchError::Auth(status))) => {
                let server = task.server_id;
                self.access.remove(&server);
                let reason = format!("authentication needed ({})", status.as_u16());
                self.report_failed(task, &reason, true);
                let r = self.ex.db(move |s| -> Result<(), StackError> {
                    carrel_library::servers::set_paused(s, server, Some("authentication needed"))?;
                    download_stack::requeue(s, &fence, id, Some(&reason))
                });
                r.await
            }
            Err(TaskError::Fetch(e))
                if task.kind == TaskKind::Resource
                    || matches!(
                        e,
                        FetchError::Gone(_) | FetchError::TooLarge(_) | FetchError::Oversized(_)
                    ) =>
            {
                // For good: a missing page, an oversized one, or a failed extra. A page's
                // chain goes on past it.
                let reason = e.to_string();
                self.report_failed(task, &reason, false);
                let t = task.clone();
                let failed = self
                    .ex
                    .db(move |s| {
                        let follow_ups = match books::get(s, t.book_id) {
                            Ok(book) if t.kind == TaskKind::Page => {
                                book_downloads::next_parts(s, &book, &t)?
                            }
                            _ => Vec::new(),
                        };
                        download_stack::fail(s, &fence, id, &reason, &follow_ups)
                    })
                    .await;
                // A window waiting for it is told at once that it will not come.
                self.ex.store.wake_waiters();
                failed
            }
            Err(e) => {
                // The server (or the disk) is probably away: back on the stack, and back off.
                if let TaskError::Fetch(FetchError::Certificate(_)) = &e {
                    // The reader may trust the server meanwhile: read its settings again.
                    self.access.remove(&task.server_id);
                }
                let reason = match &e {
                    TaskError::Disk(io) if part_files::is_disk_full(io) => {
                        "the disk is full".to_owned()
                    }
                    TaskError::Disk(io) => format!("cannot write the download: {io}"),
                    TaskError::NoRoom(reason) => reason.clone(),
                    TaskError::Fetch(f) => f.to_string(),
                    _ => "interrupted".to_owned(),
                };
                // Read before the failure is reported: a push made as soon as it is seen (the
                // reader asking again) must count as newer than the failure.
                let pushes = match &e {
                    TaskError::Fetch(_) => self
                        .ex
                        .db(download_stack::push_counter)
                        .await
                        .unwrap_or(i64::MAX),
                    _ => 0,
                };
                self.report_failed(task, &reason, true);
                let r = {
                    let reason = reason.clone();
                    self.ex
                        .db(move |s| download_stack::requeue(s, &fence, id, Some(&reason)))
                        .await
                };
                match r {
                    Err(StackError::LeaseLost(_)) => return Ok(Some(Finish::LeaseLost)),
                    // The task could not be put back (the database's disk is full too): stop
                    // rather than leave it active behind an executor that looks idle; the next
                    // run puts it back.
                    Err(other) => return Err(ExecutorError::Storage(format!("{reason}; {other}"))),
                    Ok(()) => {}
                }
                if let TaskError::Fetch(_) = &e {
                    // The server's trouble: its tasks wait, the other servers' go on (the
                    // loop's head waits once only servers in backoff have work left).
                    let delay =
                        self.backoffs
                            .failed(task.server_id, &reason, pushes, &self.ex.config);
                    tracing::warn!(task = id, server = task.server_id, %reason, delay_ms = delay.as_millis() as u64, "download failed; backing off from the server");
                    return Ok(None);
                }
                if self.mode == RunMode::UntilIdle {
                    return Err(ExecutorError::Storage(reason));
                }
                self.failures += 1;
                let delay = backoff_delay(
                    self.ex.config.backoff_min,
                    self.ex.config.backoff_max,
                    self.failures,
                );
                let retry_at_ms = self.ex.store.now_ms() + delay.as_millis() as i64;
                tracing::warn!(task = id, %reason, delay_ms = delay.as_millis() as u64, "download failed; backing off");
                self.ex.report(DownloadEvent::State(ExecutorState::Backoff {
                    reason,
                    retry_at_ms,
                }));
                // A push, the delay, or a stop: the loop's head decides what comes next.
                self.wait_for_change(None, Some(delay), shutdown).await?;
                return Ok(None);
            }
        };
        match result {
            Ok(()) => Ok(None),
            Err(StackError::LeaseLost(_)) => Ok(Some(Finish::LeaseLost)),
            Err(StackError::WrongState(t)) => {
                tracing::info!(
                    task = t,
                    "task vanished while running (its book was removed)"
                );
                Ok(None)
            }
            // The task could not be settled (the database's disk is full): it stays active
            // and the next run puts it back.
            Err(e) => Err(ExecutorError::Storage(e.to_string())),
        }
    }

    /// A page fetched (or found in place): one database step puts it in place, marks its task for
    /// the next sync (see [`UnsyncedPage`]) and, unless a sync must come first or a server is in
    /// backoff, claims the next task — with a look at the kept request slot when that task is
    /// another page of the same server. Between two pages of a download that is one step instead of
    /// four (write, hold, claim, look), each a hand-over to a blocking thread and back. The claim
    /// sees the stack as a step of its own would a moment later: the loop's head takes it as it
    /// would its own claim. Before the step, the page the chain goes on to is asked for, so that
    /// its answer comes while the step runs (see [`page_ahead`]). Fails only when the page cannot
    /// be written.
    pub(super) async fn store_page(
        &mut self,
        task: &Task,
        bytes: u64,
        book: Book,
        page: PageToStore,
    ) -> Result<Result<Option<Finish>, ExecutorError>, std::io::Error> {
        let (path, body) = match page {
            PageToStore::Found(path) => (path, None),
            PageToStore::Fetched(path, body) => (path, Some(body)),
        };
        let claim = self.unsynced.len() + 1 < SYNC_BATCH_PAGES && self.backoffs.is_empty();
        let kept = self
            .kept_slot
            .as_ref()
            .map(|slot| (slot.server_id(), slot.holder().to_owned()));
        // Pages come quickly: this one may go in place without a transaction, the next page
        // claimed already (see `claim_ahead`), and a step that claims may claim pages ahead.
        let recent =
            |at: Option<Instant>| at.is_some_and(|at| at.elapsed() < claim_ahead::QUIET_FOR);
        let quick = recent(self.recorded_at) && recent(self.page_step_at);
        let unrecorded_bytes: u64 = self.unrecorded.iter().map(|&(_, b)| b as u64).sum();
        // Looked at once, before the request ahead: the same look serves both. (Unable to
        // look — a busy disk — the step's transaction says what is wrong, if anything.)
        let quiet = (claim
            && quick
            && task.kind == TaskKind::Page
            && unrecorded_bytes + bytes < CHECKPOINT_BYTES)
            .then(|| self.claimed_ahead.front().cloned())
            .flatten()
            .map(|next| claim_ahead::QuietLook {
                pushes: self.claimed_ahead_pushes,
                task_id: task.id,
                next,
                kept: kept.clone(),
            })
            .and_then(
                |q| match claim_ahead::quiet_look(&self.ex.store, &self.fence, &q) {
                    Ok(Some(look)) => Some((q, look)),
                    _ => None,
                },
            );
        // The chain's next page asked for now, while the step runs (see `page_ahead`).
        let follow_up = self.follow_up.take().filter(|f| f.after == task.id);
        let looked = quiet.as_ref().and_then(|(_, look)| look.clone());
        let sent_ahead = follow_up.is_some_and(|next| self.send_ahead(&book, next, looked));
        let claim_ahead = quick && claim_ahead::may_claim_ahead(task);
        let claimed_ahead: Vec<Task> = self.claimed_ahead.iter().cloned().collect();
        let claimed_ahead_pushes = self.claimed_ahead_pushes;
        let sizes = self.unrecorded.clone();
        let (fence, id, at) = (self.fence.clone(), task.id, path.clone());
        let (b, t) = (book.clone(), task.clone());
        let step = move |s: &Store| -> Result<PageStep, PageStepFailure> {
            if let Some(body) = body {
                part_files::write_atomically_unsynced(&at, &body)
                    .map_err(PageStepFailure::Write)?;
            }
            if let Some((q, look)) = quiet {
                let follow_up = claimed_ahead
                    .get(1)
                    .map(|after| claim_ahead::follow_up_claimed_ahead(&q.next, after))
                    .or_else(|| page_ahead::follow_up(s, &b, &q.next));
                return Ok(PageStep {
                    last: false,
                    next: Some(Claimed::Task(q.next, Box::new(Ok(b)), follow_up)),
                    look,
                    claimed_ahead: ClaimedAhead::NoTransaction,
                });
            }
            // One transaction for all of it: its reads go through the writer's connection
            // (see `Store::write`), which has every page they need in its cache.
            s.write(|tx| {
                download_stack::record_sizes_in(s, tx, &fence, &sizes)?;
                let follow_ups = book_downloads::next_parts(s, &b, &t)?;
                // A part with nothing left to chain to: its book may be complete, which is
                // said once its sync is over — started at once (a cover waits for the batch).
                let last = follow_ups.is_empty() && t.kind.is_part();
                // Nothing claimed while paused (or when the switch cannot be read: the
                // loop's own claim says why).
                let paused = || -> Result<bool, StoreError> {
                    Ok(is_paused(s)? || crate::network::hold(s)?.is_some())
                };
                let looked = |next: &Task| match &kept {
                    Some((server, holder))
                        if next.server_id == *server
                            && matches!(next.kind, TaskKind::Page | TaskKind::Resource) =>
                    {
                        server_throttle::look_at_kept(s, *server, holder).ok()
                    }
                    _ => None,
                };
                if let Some(next) = claimed_ahead.first() {
                    // The claim ahead goes on when nothing came in between: the page's follow-up is
                    // its first page, already claimed.
                    let goes_on = claim
                        && !last
                        && matches!(paused(), Ok(false))
                        && download_stack::push_counter(s)? == claimed_ahead_pushes
                        && matches!(follow_ups.as_slice(), [f] if f.position == next.position && f.url == next.url)
                        && download_stack::still_claimed(s, &fence, &[next.id])?;
                    if goes_on {
                        download_stack::mark_stored_in(s, tx, &fence, id, bytes as i64, &[])?;
                        let follow_up = claimed_ahead
                            .get(1)
                            .map(|after| claim_ahead::follow_up_claimed_ahead(next, after))
                            .or_else(|| page_ahead::follow_up(s, &b, next));
                        return Ok(PageStep {
                            last: false,
                            look: looked(next),
                            next: Some(Claimed::Task(next.clone(), Box::new(Ok(b)), follow_up)),
                            claimed_ahead: ClaimedAhead::NextClaimedAhead,
                        });
                    }
                    // Given back before the page's follow-up is pushed again.
                    download_stack::give_back_run_in(s, tx, &fence, &claimed_ahead)?;
                }
                if !claim || last || !matches!(paused(), Ok(false)) {
                    download_stack::mark_stored_in(s, tx, &fence, id, bytes as i64, &follow_ups)?;
                    return Ok(PageStep {
                        last,
                        next: None,
                        look: None,
                        claimed_ahead: ClaimedAhead::NewlyClaimed(Vec::new(), 0),
                    });
                }
                let run_on = match follow_ups.as_slice() {
                    [f] if claim_ahead && f.kind == TaskKind::Page => {
                        book_downloads::pages_after(s, &b, t.position, f, claim_ahead::CLAIM_AHEAD_PAGES)?
                    }
                    _ => Vec::new(),
                };
                let (next, after) = download_stack::mark_stored_then_claim_ahead_in(
                    s,
                    tx,
                    &fence,
                    id,
                    bytes as i64,
                    &follow_ups,
                    &run_on,
                    &[],
                )?;
                let pushes = if after.is_empty() {
                    0
                } else {
                    download_stack::push_counter(s)?
                };
                // The request slot kept for this server serves the next page if no one
                // else wants it: looked at now rather than in a step of the request's own.
                let look = next.as_ref().and_then(looked);
                let next = Some(match next {
                    None => Claimed::Nothing(run_loop::watch_now(s)?),
                    Some(task) => match after.first() {
                        Some(first) => {
                            let follow_up = claim_ahead::follow_up_claimed_ahead(&task, first);
                            Claimed::Task(task, Box::new(Ok(b)), Some(follow_up))
                        }
                        None => claimed_task(s, task),
                    },
                });
                Ok(PageStep {
                    last,
                    next,
                    look,
                    claimed_ahead: ClaimedAhead::NewlyClaimed(after, pushes),
                })
            })
        };
        if sent_ahead {
            // The request sent ahead goes on the wire before the step holds this thread: in one
            // turn of the runtime its task hands it to its connection's task, which writes it
            // out. The server answers while the step runs. (The step made on a blocking thread
            // instead cost more in hand-overs between threads than the overlap saved.)
            tokio::task::yield_now().await;
        }
        let step = self.ex.db(step).await;
        let step = match step {
            Ok(step) => step,
            Err(PageStepFailure::Write(e)) => return Err(e),
            Err(PageStepFailure::Stack(StackError::LeaseLost(_))) => {
                return Ok(Ok(Some(Finish::LeaseLost)))
            }
            Err(PageStepFailure::Stack(StackError::WrongState(t))) => {
                tracing::info!(
                    task = t,
                    "task vanished while running (its book was removed)"
                );
                return Ok(Ok(None));
            }
            // The task could not be marked stored (the database's disk is full): it stays active
            // and the next run takes the page in place.
            Err(PageStepFailure::Stack(e)) => {
                return Ok(Err(ExecutorError::Storage(e.to_string())))
            }
        };
        self.page_step_at = Some(Instant::now());
        match step.claimed_ahead {
            ClaimedAhead::NoTransaction => {
                self.claimed_ahead.pop_front();
                self.unrecorded.push((task.id, bytes as i64));
            }
            ClaimedAhead::NextClaimedAhead => {
                self.claimed_ahead.pop_front();
                self.sizes_recorded();
            }
            ClaimedAhead::NewlyClaimed(after, pushes) => {
                self.claimed_ahead = after.into();
                self.claimed_ahead_pushes = pushes;
                self.sizes_recorded();
            }
        }
        self.failures = 0;
        self.backoffs.succeeded(task.server_id);
        if let Some((b, pages)) = self.pages_on_disk.as_mut() {
            if *b == task.book_id && task.kind == TaskKind::Page {
                pages.insert(task.position, path.clone());
            }
        }
        // In place, a window can read it: done as far as the reader can tell.
        self.report_done(task, bytes);
        self.unsynced.push(UnsyncedPage {
            task: task.clone(),
            book,
            path,
        });
        self.unsynced_since.get_or_insert_with(Instant::now);
        if let (Some(look), Some(slot)) = (step.look, self.kept_slot.as_mut()) {
            slot.looked(look);
        }
        self.next_claim = step.next.map(Ok);
        // Nothing left to chain to: the book may be complete, said once its sync is over.
        if step.last || self.unsynced.len() >= SYNC_BATCH_PAGES {
            if let Err(e) = self.start_sync().await {
                return Ok(match e {
                    ExecutorError::Stack(StackError::LeaseLost(_)) => Ok(Some(Finish::LeaseLost)),
                    other => Err(other),
                });
            }
        }
        Ok(Ok(None))
    }

    /// Puts back a task the last page's step claimed and the loop will not run (it stops).
    pub(super) async fn give_back_next_claim(&mut self) {
        if let Some(Ok(Claimed::Task(task, _, _))) = self.next_claim.take() {
            if !self.lost.load(Ordering::SeqCst) {
                self.put_back(task.id).await;
            }
        }
        if !self.lost.load(Ordering::SeqCst) {
            if let Err(e) = self.end_claimed_ahead().await {
                tracing::warn!(cause = %e, "could not give back the pages claimed ahead; the next run does");
            }
        }
    }

    /// Puts a task this run claimed back on the stack where it was, with no failure to show
    /// (the run stops, or cannot go on). One that cannot be put back (the lease just lost, the
    /// database's disk full) is put back by the next run.
    pub(super) async fn put_back(&self, task_id: i64) {
        let fence = self.fence.clone();
        if let Err(e) = self
            .ex
            .db(move |s| download_stack::requeue(s, &fence, task_id, None))
            .await
        {
            tracing::warn!(task = task_id, cause = %e, "could not put back a claimed task; the next run does");
        }
    }

    pub(super) fn report_failed(&self, task: &Task, reason: &str, will_retry: bool) {
        if book_downloads::is_file_part(&task.url) {
            // A part read ahead of its file: the window falls back to the whole file, which is
            // the download the reader sees.
            tracing::info!(task = task.id, %reason, will_retry, "a part of a file could not be read");
            return;
        }
        self.ex.report(DownloadEvent::TaskFailed {
            task_id: task.id,
            book_id: task.book_id,
            kind: task.kind,
            reason: reason.to_owned(),
            will_retry,
        });
    }

    /// Says where a book stands after one of its parts was stored. A book now complete is
    /// counted for the loop's next step, which keeps the books kept (see [`books_kept`]).
    pub(super) fn report_progress(&mut self, progress: BookProgress) {
        if progress.is_complete() {
            self.ex.report(DownloadEvent::BookStored(progress));
            self.books_stored += 1;
        } else {
            self.ex.report(DownloadEvent::Book(progress));
        }
    }
}
