//! Batched syncs: pages stored in place and synced to the disk together, their tasks marked done
//! once their batch is on the disk (see [`UnsyncedPage`]).

use super::*;

/// A downloaded page stored, awaiting its sync: it is put in place at once (a window reads it
/// from there once its size is recorded: see [`download_stack::is_page_stored`] and
/// [`claim_ahead`]) but synced to the disk with others: one sync for up to [`SYNC_BATCH_PAGES`]
/// pages or [`SYNC_BATCH_WAIT`], whichever comes first, made on a blocking thread while the loop
/// fetches the next pages (up to [`SYNCING_MAX`] batches at a time). Its task is marked done
/// only after that sync, so "done" still means "on the disk" after a power cut; a process
/// killed in between leaves the file in place and the task active, and the next run takes the
/// file (of the size recorded, or — a page claimed ahead whose size was not recorded yet — not
/// empty) without fetching it again.
pub(super) struct UnsyncedPage {
    pub(super) task: Task,
    pub(super) book: Book,
    pub(super) path: std::path::PathBuf,
}

/// A batch of held pages syncing on a blocking thread while the loop fetches the next ones;
/// its tasks are marked done once the sync is over (see [`Run::finish_oldest_sync`]).
pub(super) struct Syncing {
    pub(super) pages: Vec<UnsyncedPage>,
    pub(super) done: tokio::task::JoinHandle<std::io::Result<()>>,
}

/// See [`UnsyncedPage`].
pub(super) const SYNC_BATCH_PAGES: usize = 64;
/// See [`UnsyncedPage`].
pub(super) const SYNC_BATCH_WAIT: Duration = Duration::from_millis(250);
/// See [`UnsyncedPage`]. A book's last page starts the sync of its batch: the next book's last page
/// need not wait for it (nor a small file: see [`QUICK_FILE_BYTES`]); only a run's end, a large
/// file or a fifth batch does.
pub(super) const SYNCING_MAX: usize = 4;
/// A whole file up to this size is fetched while the pages stored before it sync: their books are
/// said stored after it, once their syncs are over. A larger file (or one of unknown size) may
/// take minutes: they are synced and marked before it starts. On loopback, waiting for a comic's
/// sync before each of two small EPUBs cost a tenth of the download row's time.
pub(super) const QUICK_FILE_BYTES: i64 = 4 << 20;

/// See [`Run::progress_reported`].
pub(super) const PROGRESS_EVERY: Duration = Duration::from_millis(250);

impl Run<'_> {
    /// Syncs the stored pages to the disk, then marks their tasks done (a transaction per batch)
    /// and says where their books stand (see [`UnsyncedPage`]); the batches already syncing are
    /// waited for (and marked) first. A batch that fails does not keep the others from being marked
    /// (unless the lease is lost): the first failure is returned once all are over. Returns whether
    /// anything was marked.
    pub(super) async fn sync_stored_pages(&mut self) -> Result<bool, ExecutorError> {
        let any = !self.unsynced.is_empty() || !self.syncing.is_empty();
        let mut first_failure = self.start_sync().await.err();
        if self.syncing.len() < SYNCING_MAX && !self.unsynced.is_empty() {
            // The oldest batch failed before the stored pages could start: they start now.
            if let Err(e) = self.start_sync().await {
                first_failure.get_or_insert(e);
            }
        }
        while !self.syncing.is_empty() {
            if matches!(
                first_failure,
                Some(ExecutorError::Stack(StackError::LeaseLost(_)))
            ) {
                // The next holder takes the files from the disk.
                self.syncing.clear();
                break;
            }
            if let Err(e) = self.finish_oldest_sync().await {
                first_failure.get_or_insert(e);
            }
        }
        match first_failure {
            Some(e) => Err(e),
            None => Ok(any),
        }
    }

    /// Starts syncing the held pages on a blocking thread while the loop goes on: the disk
    /// writes a batch while the next pages are fetched. With [`SYNCING_MAX`] batches syncing
    /// already, the oldest is waited for (and marked) first.
    pub(super) async fn start_sync(&mut self) -> Result<(), ExecutorError> {
        if self.unsynced.is_empty() {
            return Ok(());
        }
        if self.syncing.len() >= SYNCING_MAX {
            self.finish_oldest_sync().await?;
        }
        let pages = std::mem::take(&mut self.unsynced);
        self.unsynced_since = None;
        let paths: Vec<_> = pages.iter().map(|h| h.path.clone()).collect();
        let done = tokio::task::spawn_blocking(move || part_files::sync_written(&paths));
        self.syncing.push_back(Syncing { pages, done });
        Ok(())
    }

    /// Marks the batches whose sync is over done, oldest first, without waiting for any.
    pub(super) async fn reap_sync(&mut self) -> Result<(), ExecutorError> {
        while self.syncing.front().is_some_and(|s| s.done.is_finished()) {
            self.finish_oldest_sync().await?;
        }
        Ok(())
    }

    /// Waits for the oldest syncing batch, then marks its tasks done in one transaction and
    /// says where their books stand.
    pub(super) async fn finish_oldest_sync(&mut self) -> Result<(), ExecutorError> {
        let Some(Syncing { pages, done }) = self.syncing.pop_front() else {
            return Ok(());
        };
        if !done.is_finished() {
            // The wait may be long (a busy disk): pages put in place without a transaction are
            // readable meanwhile (see `claim_ahead`).
            self.record_before_waiting().await;
            // No request is in flight while the disk syncs, which may take a while on a busy
            // disk: the server's slot is not kept idle meanwhile.
            self.let_slot_go().await;
        }
        let synced = done.await.map_err(std::io::Error::other).and_then(|r| r);
        if let Err(e) = synced {
            // Their sizes recorded before they go back: a later run checks each file found in
            // place against its size.
            self.record_before_waiting().await;
            // Not on the disk for sure: back on the stack (the files in place are taken
            // again without a download once they can be synced).
            let reason = format!("cannot write the download: {e}");
            tracing::warn!(%reason, pages = pages.len(), "could not sync stored pages");
            // Not an id that now names a task stored since (see below).
            let mut later: HashSet<i64> = self
                .unsynced
                .iter()
                .chain(self.syncing.iter().flat_map(|b| &b.pages))
                .map(|h| h.task.id)
                .collect();
            if let Some(Ok(Claimed::Task(next, _, _))) = &self.next_claim {
                later.insert(next.id);
            }
            later.extend(self.claimed_ahead.iter().map(|t| t.id));
            for h in pages.iter().filter(|h| !later.contains(&h.task.id)) {
                let (fence, id, r) = (self.fence.clone(), h.task.id, reason.clone());
                let _ = self
                    .ex
                    .db(move |s| download_stack::requeue(s, &fence, id, Some(&r)))
                    .await;
            }
            return Err(ExecutorError::Storage(reason));
        }
        let fence = self.fence.clone();
        // Task ids are given again once the newest rows are deleted (a book removed while its
        // pages synced): an id of this batch that now names a task stored since, not yet synced,
        // is not this batch's to mark.
        // UnsyncedPage since: this run's pages not yet marked, the batches still syncing included.
        let later = || {
            self.unsynced
                .iter()
                .chain(self.syncing.iter().flat_map(|b| &b.pages))
        };
        let ids: Vec<i64> = pages
            .iter()
            .map(|h| h.task.id)
            .filter(|id| !later().any(|h| h.task.id == *id))
            .collect();
        // Each book a page was stored of, once, with its newest row (a cover is no part of
        // what "stored" counts: its book was said stored, if it is, with its last page) —
        // counted at most every `PROGRESS_EVERY` while more of its pages await the
        // next batch (the count reads every stored page of the book), and always when none
        // is: this batch may be the one that completes it.
        let part_of =
            |h: &UnsyncedPage| h.task.kind.is_part() && !book_downloads::is_file_part(&h.task.url);
        let mut books: Vec<Book> = Vec::new();
        for h in pages.iter().rev().filter(|h| part_of(h)) {
            let said_lately = matches!(self.progress_reported, Some((b, at)) if b == h.book.id && at.elapsed() < PROGRESS_EVERY);
            let more_unsynced = later().any(|o| o.book.id == h.book.id && part_of(o));
            let counted = books.iter().any(|b| b.id == h.book.id);
            let wait = said_lately && more_unsynced;
            if !counted && !wait {
                books.push(h.book.clone());
            }
        }
        // Pages put in place without a transaction have their sizes recorded first: a task is
        // marked done only with its size.
        let sizes = self.unrecorded.clone();
        let progress = self
            .ex
            .db(move |s| -> Result<Vec<BookProgress>, StackError> {
                // The progress read in the same transaction, through the writer's cache (see
                // `Store::write`).
                s.write(|tx| {
                    download_stack::record_sizes_in(s, tx, &fence, &sizes)?;
                    download_stack::complete_synced_in(s, tx, &fence, &ids)?;
                    Ok(books
                        .iter()
                        .filter_map(|b| book_downloads::progress(s, b).ok())
                        .collect())
                })
            })
            .await
            .map_err(|e| match e {
                StackError::LeaseLost(l) => ExecutorError::Stack(StackError::LeaseLost(l)),
                // The pages are in place but cannot be marked (the database's disk is full):
                // their tasks stay active and the next run takes the files.
                other => ExecutorError::Storage(other.to_string()),
            })?;
        self.sizes_recorded();
        for p in progress {
            self.progress_reported = Some((p.book_id, Instant::now()));
            self.report_progress(p);
        }
        Ok(())
    }
}
