//! The executor's loop: it starts a run, claims the next task in one database step,
//! runs it, and waits (for a push, the pause switch, the network or a backoff's end) when there is
//! nothing it may do.

use super::*;

/// What the waiting executor watches: a push or a pause change wakes it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) struct Watch {
    pub(super) pushes: i64,
    pub(super) paused: bool,
    /// Servers paused for authentication: resuming one makes its tasks claimable again.
    pub(super) paused_servers: i64,
    /// The network (up, metered, allowed): a link coming back retries servers in backoff at
    /// once, and one no longer metered (or allowed) lets downloads run.
    pub(super) network: Option<(bool, bool, bool)>,
}

pub(super) fn watch_now(store: &Store) -> Result<Watch, StoreError> {
    Ok(Watch {
        pushes: download_stack::push_counter(store)?,
        paused: is_paused(store)?,
        paused_servers: carrel_library::servers::paused_count(store)?,
        network: crate::network::watched(store)?,
    })
}

/// Why [`Run::wait_for_change`] returned.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Wake {
    Changed,
    Timeout,
    Stop,
}

impl Run<'_> {
    pub(super) async fn work(
        &mut self,
        mode: RunMode,
        shutdown: &mut Shutdown,
    ) -> Result<Finish, ExecutorError> {
        self.start_up().await?;
        if self.lost.load(Ordering::SeqCst) {
            return Ok(Finish::LeaseLost);
        }
        loop {
            if self.lost.load(Ordering::SeqCst) {
                return Ok(Finish::LeaseLost);
            }
            if *shutdown.borrow() {
                self.give_back_next_claim().await;
                return Ok(Finish::Shutdown);
            }
            // The reader asked for something of a server in backoff (opened a book, a window
            // wants a page): that server is tried again at once, even while others have work.
            if !self.backoffs.is_empty() {
                let pushes = self.ex.db(download_stack::push_counter).await?;
                if self.seen_pushes != Some(pushes) {
                    self.seen_pushes = Some(pushes);
                    let waiting: Vec<(i64, i64)> = self.backoffs.waiting_since();
                    let asked = self
                        .ex
                        .db(move |s| -> Result<Vec<i64>, StoreError> {
                            let mut asked = Vec::new();
                            for (server, since) in waiting {
                                if download_stack::prioritary_pushed_since(s, server, since)? {
                                    asked.push(server);
                                }
                            }
                            Ok(asked)
                        })
                        .await?;
                    for server in asked {
                        self.backoffs.retry_server_now(server, pushes);
                    }
                }
            }
            // A batch whose sync is over is marked done now, whatever comes next.
            if let Err(e) = self.reap_sync().await {
                self.give_back_next_claim().await;
                return lost_or(e);
            }
            // The books stored since the last turn push out and bring in theirs before the claim.
            self.keep_books_kept().await;
            let fence = self.fence.clone();
            let skip = self.backoffs.waiting();
            let skipped = skip.clone();
            // One database step per task taken: the pause switch, the claim and the
            // claimed task's book — made by the step that marked the last page stored, if it could.
            let claimed = match self.next_claim.take() {
                Some(claimed) => claimed,
                None => {
                    // Sizes not yet recorded and pages claimed ahead not reached (after a step that
                    // failed) are settled first, in the claim's transaction.
                    let sizes = self.unrecorded.clone();
                    let claimed_ahead: Vec<Task> = self.claimed_ahead.iter().cloned().collect();
                    let claimed = self
                        .ex
                        .db(move |s| -> Result<Claimed, StackError> {
                            // One transaction, its reads through the writer (see `Store::write`).
                            s.write(|tx| {
                                download_stack::record_sizes_in(s, tx, &fence, &sizes)?;
                                download_stack::give_back_run_in(s, tx, &fence, &claimed_ahead)?;
                                // Paused by the reader, or waiting for a link that is not metered.
                                if is_paused(s)? || crate::network::hold(s)?.is_some() {
                                    return Ok(Claimed::Paused(watch_now(s)?));
                                }
                                Ok(match download_stack::claim_next_in(s, tx, &fence, &skip)? {
                                    None => Claimed::Nothing(watch_now(s)?),
                                    Some(task) => claimed_task(s, task),
                                })
                            })
                        })
                        .await;
                    if claimed.is_ok() {
                        if !self.unrecorded.is_empty() {
                            // Readable now (see `claim_ahead`).
                            self.ex.store.wake_waiters();
                        }
                        self.unrecorded.clear();
                        self.claimed_ahead.clear();
                    }
                    claimed
                }
            };
            // A request sent ahead serves the page claimed, or is over before anything else.
            let claimed_task = match &claimed {
                Ok(Claimed::Task(task, _, _)) => Some(task),
                _ => None,
            };
            self.settle_ahead(claimed_task, shutdown).await;
            // What the wait below starts from, if it comes to one.
            let mut seen = None;
            let claimed = match claimed {
                Ok(Claimed::Paused(watch)) => {
                    self.let_slot_go().await;
                    if let Err(e) = self.sync_stored_pages().await {
                        return lost_or(e);
                    }
                    self.keep_books_kept().await;
                    if matches!(mode, RunMode::UntilIdle) {
                        // A run until idle does not wait for the link to change.
                        if let Some(reason) = self.ex.db(crate::network::hold).await? {
                            return Err(ExecutorError::NetworkHeld(reason.to_owned()));
                        }
                    }
                    self.ex.report(DownloadEvent::State(ExecutorState::Paused));
                    // Whatever woke us, the loop's head decides what comes next.
                    self.wait_for_change(Some(watch), None, shutdown).await?;
                    continue;
                }
                Ok(Claimed::Nothing(watch)) => {
                    seen = Some(watch);
                    None
                }
                Ok(Claimed::Task(task, book, follow_up)) => {
                    self.follow_up = follow_up;
                    Some((task, *book))
                }
                Err(StackError::LeaseLost(_)) => return Ok(Finish::LeaseLost),
                // The database cannot be written (its disk is full): the stack stays as it is.
                Err(e) => return Err(ExecutorError::Storage(e.to_string())),
            };
            // The slot kept from the last request serves only another page or cover of the
            // same server; anything else (another server, a file, nothing left) lets it go. A
            // request ahead still here is the claimed page's own, on that slot.
            let keeps_slot = self.ahead.is_some()
                || claimed.as_ref().is_some_and(|(t, _)| {
                    matches!(t.kind, TaskKind::Page | TaskKind::Resource)
                        && self
                            .kept_slot
                            .as_ref()
                            .is_some_and(|s| s.server_id() == t.server_id)
                });
            if !keeps_slot {
                self.let_slot_go().await;
            }
            // Pages stored wait for their sync no longer than the next task that is not a page
            // (their sync then starts while that task runs), a large whole file (which may take
            // minutes: they are synced and marked first; see `QUICK_FILE_BYTES`) or the end of
            // the stack (likewise).
            let quick_file = |b: &Result<Book, books::BookError>| {
                b.as_ref()
                    .is_ok_and(|b| b.file_length.is_some_and(|n| n <= QUICK_FILE_BYTES))
            };
            let synced = match claimed.as_ref().map(|(t, b)| (t.kind, b)) {
                None => self.sync_stored_pages().await,
                Some((TaskKind::File, b)) if !quick_file(b) => self.sync_stored_pages().await,
                Some((TaskKind::Page, _))
                    if self
                        .unsynced_since
                        .is_none_or(|t| t.elapsed() < SYNC_BATCH_WAIT) =>
                {
                    Ok(false)
                }
                Some(_) => self.start_sync().await.map(|()| false),
            };
            let synced = match synced {
                Ok(synced) => synced,
                Err(e) => {
                    if let Some((task, _)) = &claimed {
                        self.put_back(task.id).await;
                    }
                    return lost_or(e);
                }
            };
            // Before the task claimed runs (a file may take minutes).
            self.keep_books_kept().await;
            if synced && claimed.is_none() {
                // A book said stored just now may have queued another (the latest read): the
                // stack is looked at again before anything is decided on "nothing left".
                continue;
            }
            let Some((task, book)) = claimed else {
                // Decided on the servers this claim skipped (a backoff may have ended since).
                if let Some(next) = self.backoffs.next_retry_among(&skipped) {
                    // Only servers in backoff have work left: wait for the first of them, or
                    // for something new to try.
                    let wait = next.retry_at.saturating_duration_since(Instant::now());
                    let reason = next.reason.clone();
                    let retry_at_ms = self.ex.store.now_ms() + wait.as_millis() as i64;
                    self.ex.report(DownloadEvent::State(ExecutorState::Backoff {
                        reason,
                        retry_at_ms,
                    }));
                    if self.wait_for_change(seen, Some(wait), shutdown).await? == Wake::Changed {
                        self.backoffs.retry_now();
                    }
                    continue;
                }
                match mode {
                    RunMode::UntilIdle => {
                        // Idle means nothing left: a task still active here was stranded.
                        let active = self
                            .ex
                            .db(|s| download_stack::in_state(s, TaskState::Active, 100))
                            .await?;
                        if !active.is_empty() {
                            return Err(ExecutorError::Storage(format!(
                                "{} downloads were left unfinished",
                                active.len()
                            )));
                        }
                        return Ok(Finish::Idle);
                    }
                    RunMode::Forever => {
                        self.ex.report(DownloadEvent::State(ExecutorState::Idle));
                        self.wait_for_change(seen, None, shutdown).await?;
                        continue;
                    }
                }
            };
            self.ex.report(DownloadEvent::State(ExecutorState::Running));
            self.ex.report(DownloadEvent::TaskStarted {
                task_id: task.id,
                book_id: task.book_id,
                kind: task.kind,
                position: task.position,
            });
            let outcome = {
                let stopped = self.stopped(shutdown);
                let execute = self.execute(&task, book);
                tokio::select! {
                    o = execute => Some(o),
                    () = stopped => None,
                }
            };
            let Some(outcome) = outcome else {
                // Lost the lease or asked to stop mid-task: the partial work is checkpointed
                // or discarded; put the task back if we still may.
                if !self.lost.load(Ordering::SeqCst) {
                    self.put_back(task.id).await;
                    return Ok(Finish::Shutdown);
                }
                return Ok(Finish::LeaseLost);
            };
            if let Some(finish) = self.settle(&task, outcome, shutdown).await? {
                return Ok(finish);
            }
        }
    }

    /// Ends when the run is asked to stop or loses its lease (looked at every `wake_poll`):
    /// what a step that may take a while (a request) is raced against.
    pub(super) fn stopped(
        &self,
        shutdown: &Shutdown,
    ) -> impl std::future::Future<Output = ()> + 'static {
        let (lost, poll, mut stop) = (
            self.lost.clone(),
            self.ex.config.wake_poll,
            shutdown.clone(),
        );
        async move {
            tokio::select! {
                _ = stop.wait_for(|s| *s) => {}
                _ = async { while !lost.load(Ordering::SeqCst) { tokio::time::sleep(poll).await } } => {}
            }
        }
    }

    pub(super) async fn start_up(&mut self) -> Result<(), ExecutorError> {
        let fence = self.fence.clone();
        match self
            .ex
            .db(move |s| download_stack::reconcile(s, &fence))
            .await
        {
            Ok(n) if n > 0 => {
                tracing::info!(tasks = n, "put back tasks a stopped executor left active")
            }
            Ok(_) => {}
            Err(StackError::LeaseLost(_)) => {
                self.lost.store(true, Ordering::SeqCst);
                return Ok(());
            }
            Err(e) => return Err(e.into()),
        }
        let files = self.ex.files.clone();
        let collected = self
            .ex
            .db(move |s| -> Result<Vec<std::path::PathBuf>, StoreError> {
                let known: HashSet<i64> = books::all_ids(s)?.into_iter().collect();
                let resumable: HashSet<i64> = download_stack::books_with_unfinished_files(s)?
                    .into_iter()
                    .collect();
                Ok(files
                    .collect_orphans(&known, &resumable)
                    .unwrap_or_else(|e| {
                        tracing::warn!(cause = %e, "could not collect orphaned files");
                        Vec::new()
                    }))
            })
            .await?;
        if !collected.is_empty() {
            tracing::info!(files = collected.len(), "collected orphaned files");
        }
        self.queue_latest_read().await;
        Ok(())
    }

    pub(super) async fn queue_latest_read(&self) {
        let queued = self
            .ex
            .db(|s| {
                let n = settings::get::<BooksKept>(s)
                    .ok()
                    .flatten()
                    .unwrap_or_default()
                    .0;
                book_downloads::queue_latest_read(s, n)
            })
            .await;
        match queued {
            Ok(Some(book)) => tracing::info!(book, "queued a recently read book"),
            Ok(None) => {}
            Err(e) => tracing::warn!(cause = %e, "could not queue the latest read book"),
        }
    }

    /// Waits until something is pushed, the pause flag changes, `timeout` passes, or we must stop.
    /// A change is counted from `since` (what the step that found nothing to do saw), so that
    /// one made between that step and this wait is not missed; without it, from now.
    pub(super) async fn wait_for_change(
        &self,
        since: Option<Watch>,
        timeout: Option<Duration>,
        shutdown: &mut Shutdown,
    ) -> Result<Wake, ExecutorError> {
        let start = match since {
            Some(watch) => watch,
            None => self.ex.db(watch_now).await?,
        };
        let deadline = timeout.map(|t| Instant::now() + t);
        loop {
            if self.lost.load(Ordering::SeqCst) || *shutdown.borrow() {
                return Ok(Wake::Stop);
            }
            if deadline.is_some_and(|d| Instant::now() >= d) {
                return Ok(Wake::Timeout);
            }
            tokio::select! {
                _ = tokio::time::sleep(self.ex.config.wake_poll) => {}
                // A dropped sender can never ask to stop: keep polling at the usual pace.
                changed = shutdown.changed() => match changed {
                    Ok(()) => return Ok(Wake::Stop),
                    Err(_) => tokio::time::sleep(self.ex.config.wake_poll).await,
                },
            }
            if self.ex.db(watch_now).await? != start {
                return Ok(Wake::Changed);
            }
        }
    }
}
