//! Whole-file downloads: the Range / If-Range / checkpoint / preemption state machine of one file
//! task — the rest of the file asked for in one request (`Range: bytes=N-`), synced and
//! checkpointed every `checkpoint_bytes` while it streams and where it ends, resuming at the
//! checkpoint, never stitching two versions together (the validator must match), a server
//! without Range or a validator taken in one request, room checked before each request, and
//! giving way to a prioritary push (or, for a prioritary file, to a window reading parts of it).

use super::*;
use carrel_foundation::file_types;

/// How long a file download whose answer is nearly complete may go on to its end once a
/// prioritary push was seen: the bytes in flight would otherwise be sent again.
const PREEMPT_DRAIN: Duration = Duration::from_millis(10);

/// How long an answer given up before its end has to close its connection before the request
/// slot goes to the next request: dropping a body closes the socket on the connection's own task,
/// and a server that counts what is in flight must see that close before the next request, or it
/// sees two at once.
pub(super) const CLOSE_SETTLE: Duration = Duration::from_millis(5);

/// Waits for a background sync of a partial file.
async fn synced(sync: tokio::task::JoinHandle<std::io::Result<()>>) -> Result<(), TaskError> {
    sync.await
        .map_err(|e| TaskError::Disk(std::io::Error::other(e)))?
        .map_err(TaskError::Disk)
}

/// Gives up an answer whose body was not read to its end, and waits for its connection to close.
async fn give_up<T>(answer: T) {
    drop(answer);
    tokio::time::sleep(CLOSE_SETTLE).await;
}

impl Run<'_> {
    /// Downloads a whole acquisition with Range, checkpointing as it streams, resuming at the
    /// checkpoint, and never stitching two versions together (the validator must match). A
    /// server without Range or without a validator gets one whole request instead.
    pub(super) async fn fetch_file(&mut self, task: &Task, book: &Book) -> Result<u64, TaskError> {
        let ext = file_extension(book.file_type.as_deref(), &task.url);
        let final_path = self.ex.files.book_file_path(book.id, ext);
        if let Some(existing) = self.ex.files.find_book_file(book.id) {
            return Ok(std::fs::metadata(existing).map(|m| m.len()).unwrap_or(0));
        }
        let url = parse_url(&task.url)?;
        let access = self.server_access(task.server_id).await?;
        let task_id = task.id;
        let saved = self
            .ex
            .db(move |s| download_stack::file_checkpoint(s, task_id))
            .await?
            .unwrap_or_default();
        // The partial file is the task's own: two tasks (or a stale holder) never share one.
        let partial_path = self.ex.files.book_partial_path(book.id, task.id);
        let resume_at = if saved.validator.is_some() {
            saved.offset
        } else {
            0
        };
        let max_book = self
            .ex
            .db(settings::get::<MaxBookSize>)
            .await?
            .unwrap_or_default()
            .0;
        let cap = ByteCap::new(
            book.file_length.and_then(|l| u64::try_from(l).ok()),
            max_book,
        );
        if let Some(d) = cap.declared {
            // What the catalog declared must fit before anything is asked of the server.
            self.ensure_room(&partial_path, d.saturating_sub(resume_at))
                .await?;
        }
        let mut partial =
            PartialFile::open_at(&partial_path, resume_at).map_err(TaskError::Disk)?;
        let result = self
            .fetch_file_into(task, &url, &access, &mut partial, saved, cap)
            .await;
        match result {
            Ok(()) => {}
            Err(TaskError::Fetch(FetchError::Oversized(reason))) => {
                // Nothing of a file refused for its size is kept, nor its checkpoint.
                partial.restart().map_err(TaskError::Disk)?;
                self.save_checkpoint(task.id, &partial, None, None).await?;
                partial.discard().map_err(TaskError::Disk)?;
                return Err(FetchError::Oversized(reason).into());
            }
            Err(e) => return Err(e),
        }
        // A holder that lost its lease (or a task removed meanwhile) must not put a file in place.
        let fence = self.fence.clone();
        self.ex
            .db(move |s| download_stack::ensure_active(s, &fence, task_id))
            .await?;
        let len = partial.len();
        tokio::task::spawn_blocking(move || partial.finish(&final_path))
            .await
            .map_err(|e| TaskError::Disk(std::io::Error::other(e)))?
            .map_err(TaskError::Disk)?;
        Ok(len)
    }

    /// Refuses a download that needs more room than the data dir's filesystem has.
    async fn ensure_room(
        &self,
        partial_path: &std::path::Path,
        needed: u64,
    ) -> Result<(), TaskError> {
        let dir = partial_path.parent().unwrap_or(partial_path).to_owned();
        let refusal =
            tokio::task::spawn_blocking(move || download_limits::refuse_without_room(&dir, needed))
                .await
                .map_err(|e| TaskError::Disk(std::io::Error::other(e)))?
                .map_err(TaskError::Disk)?;
        match refusal {
            Some(reason) => Err(TaskError::NoRoom(reason)),
            None => Ok(()),
        }
    }

    /// Streams a file into `partial` in checkpointed Range chunks (or whole), never past `cap`.
    async fn fetch_file_into(
        &mut self,
        task: &Task,
        url: &Url,
        access: &ServerAccess,
        partial: &mut PartialFile,
        saved: FileCheckpoint,
        cap: ByteCap,
    ) -> Result<(), TaskError> {
        let book_id = task.book_id;
        let mut validator = saved.validator.filter(|_| !partial.is_empty());
        let mut total = saved.total.filter(|_| !partial.is_empty());
        let mut use_range = true;
        // Starting over happens once per attempt at most: a server that keeps sending other
        // bytes than asked for is an error (and a backoff), not a loop.
        let mut restarted = false;
        let preemptible = !task.prioritary;
        let mut last_bytes_report = Instant::now();
        // Polled across chunks: a chunk shorter than the poll interval must not hide a push.
        let mut last_poll = Instant::now();
        let mut last_check = Instant::now();
        loop {
            let start = partial.len();
            if total.is_some_and(|t| start >= t) {
                break;
            }
            // Bytes as stored on the server: no transparent compression under a Range.
            let mut headers = vec![(header::ACCEPT_ENCODING, "identity".to_owned())];
            if use_range {
                headers.push((
                    header::RANGE,
                    // The rest of the file: one request, however large (checkpoints are taken
                    // while it streams, and a push stops it at any byte).
                    format!("bytes={start}-"),
                ));
                if let (Some(v), true) = (&validator, start > 0) {
                    headers.push((header::IF_RANGE, v.clone()));
                }
            }
            let fetching = match self
                .ex
                .http
                .get(&self.ex.store, access, url, &headers)
                .await
            {
                // Asked past the end of a file of unknown length: it is complete.
                Err(FetchError::RangeNotSatisfiable) if start > 0 && total.is_none() => break,
                Err(FetchError::RangeNotSatisfiable) if start > 0 && !restarted => {
                    // The file shrank since the checkpoint: another version.
                    restarted = true;
                    self.start_over(task.id, partial, &mut validator, &mut total)
                        .await?;
                    continue;
                }
                other => other?,
            };
            let Fetching { response, slot } = fetching;
            let status = response.status();
            let fresh_validator = http_fetch::validator(&response);
            let whole_body = status == StatusCode::OK;
            let expected = if status == StatusCode::PARTIAL_CONTENT {
                let range = http_fetch::content_range(&response).ok_or_else(|| {
                    FetchError::Transient(
                        "the server sent a partial answer without a valid Content-Range".into(),
                    )
                })?;
                let version_changed =
                    start > 0 && validator.is_some() && fresh_validator != validator;
                if range.first != start || version_changed {
                    give_up(response).await;
                    slot.release().await?;
                    if restarted {
                        return Err(FetchError::Transient(
                            "the server keeps sending other bytes than asked for".into(),
                        )
                        .into());
                    }
                    tracing::info!(
                        task = task.id,
                        "the book changed on the server; downloading it again from the start"
                    );
                    restarted = true;
                    self.start_over(task.id, partial, &mut validator, &mut total)
                        .await?;
                    continue;
                }
                if fresh_validator.is_none() {
                    // No way to tell versions apart across requests: take it whole instead.
                    give_up(response).await;
                    slot.release().await?;
                    partial.restart().map_err(TaskError::Disk)?;
                    use_range = false;
                    continue;
                }
                validator = fresh_validator;
                total = range.total;
                Some(range.len())
            } else if whole_body {
                if start > 0 {
                    partial.restart().map_err(TaskError::Disk)?;
                }
                validator = fresh_validator;
                total = response.content_length();
                use_range = false;
                response.content_length()
            } else {
                return Err(FetchError::Transient(format!("unexpected answer {status}")).into());
            };
            let chunk_start = partial.len();
            // A lie about the size ends here: a terabyte announced is refused before its
            // first byte, and a file that cannot fit waits for room instead of filling the disk.
            let announced = total.or(expected.map(|x| chunk_start.saturating_add(x)));
            if let Some(a) = announced {
                if let Some(reason) = cap.refuse_announced(a) {
                    give_up(response).await;
                    slot.release().await?;
                    return Err(FetchError::Oversized(reason).into());
                }
                if let Err(e) = self
                    .ensure_room(partial.path(), a.saturating_sub(chunk_start))
                    .await
                {
                    give_up(response).await;
                    slot.release().await?;
                    return Err(e);
                }
            }
            let mut body = response.bytes_stream();
            let mut oversized = false;
            let mut preempted = false;
            // Once a prioritary push was seen, until when the chunk may still come: its bytes
            // already here are always taken (they would be sent again), and the rest only when
            // it ends within PREEMPT_DRAIN.
            let mut drain_until: Option<Instant> = None;
            let body_started = Instant::now();
            let mut last_alive = Instant::now();
            let mut body_error = None;
            let mut ended = false;
            let checkpoint_every = self.ex.config.checkpoint_bytes.max(1);
            let mut checkpointed = partial.len();
            // A checkpoint's sync runs beside the stream (the disk writes while the network
            // reads); the checkpoint is recorded once its bytes are on the disk.
            let mut syncing: Option<(u64, tokio::task::JoinHandle<std::io::Result<()>>)> = None;
            loop {
                let piece = match drain_until {
                    // Draining: what is here, and what comes before the deadline.
                    Some(until) => {
                        let left = until.saturating_duration_since(Instant::now());
                        match tokio::time::timeout(left, body.next()).await {
                            Ok(piece) => piece,
                            Err(_) => {
                                preempted = true;
                                break;
                            }
                        }
                    }
                    None => body.next().await,
                };
                let Some(piece) = piece else {
                    ended = true;
                    break;
                };
                match piece {
                    Ok(bytes) => partial.append(&bytes).map_err(TaskError::Disk)?,
                    Err(e) => {
                        body_error = Some(FetchError::Transient(format!(
                            "{}: the download broke off ({e})",
                            carrel_foundation::address_secrets::redact(url)
                        )));
                        break;
                    }
                }
                if expected.is_some_and(|x| partial.len() - chunk_start > x) {
                    break; // more than announced: checked below
                }
                if partial.len() > cap.bytes {
                    oversized = true; // a body without end (or longer than the catalog said)
                    break;
                }
                if !whole_body {
                    if syncing.as_ref().is_some_and(|(_, h)| h.is_finished()) {
                        let (at, h) = syncing.take().expect("checked above");
                        synced(h).await?;
                        self.save_checkpoint_at(task.id, at, total, validator.clone())
                            .await?;
                    }
                    if syncing.is_none() && partial.len() - checkpointed >= checkpoint_every {
                        // A crash fetches again at most what came since the last checkpoint
                        // recorded: two intervals at most.
                        checkpointed = partial.len();
                        let sync = partial.sync_in_background().map_err(TaskError::Disk)?;
                        syncing = Some((checkpointed, sync));
                    }
                }
                if last_bytes_report.elapsed() >= Duration::from_millis(250) {
                    last_bytes_report = Instant::now();
                    self.ex.report(DownloadEvent::TaskBytes {
                        task_id: task.id,
                        book_id,
                        bytes: partial.len(),
                        total,
                    });
                }
                if last_alive.elapsed() >= http_fetch::KEEP_ALIVE_EVERY {
                    last_alive = Instant::now();
                    slot.keep_alive().await?;
                }
                if last_check.elapsed() >= self.ex.config.wake_poll {
                    last_check = Instant::now();
                    // Cancelled or removed meanwhile: stop now, not at the end of the body.
                    let id = task.id;
                    let still_ours = self
                        .ex
                        .db(move |s| download_stack::task(s, id))
                        .await
                        .map_or(true, |t| t.is_some_and(|t| t.state == TaskState::Active));
                    if !still_ours {
                        tracing::info!(task = id, "the download was cancelled while it ran");
                        give_up(body).await;
                        return Err(TaskError::Stack(StackError::WrongState(id)));
                    }
                }
                if !whole_body
                    && drain_until.is_none()
                    && last_poll.elapsed() >= self.ex.config.preempt_poll
                {
                    last_poll = Instant::now();
                    // A prioritary file gives way only to the parts of itself a window is
                    // reading before it is stored (pages of a zip).
                    let skip = self.backoffs.waiting();
                    let wanted = if preemptible {
                        // A prioritary task waits, or the link became metered.
                        self.ex
                            .db(move |s| {
                                has_prioritary_pending(s, &skip)
                                    || crate::network::hold(s).ok().flatten().is_some()
                            })
                            .await
                    } else {
                        self.ex
                            .db(move |s| download_stack::has_prioritary_parts_pending(s, book_id))
                            .await
                            .unwrap_or(false)
                    };
                    if wanted {
                        // The rest of the chunk is waited for only when, at this chunk's pace,
                        // it comes within PREEMPT_DRAIN (bytes then are mostly on their way).
                        let got = partial.len() - chunk_start;
                        let rate = got as f64 / body_started.elapsed().as_secs_f64().max(1e-6);
                        let rest = expected.map_or(f64::INFINITY, |x| x.saturating_sub(got) as f64);
                        let drain = if rest / rate <= PREEMPT_DRAIN.as_secs_f64() {
                            PREEMPT_DRAIN
                        } else {
                            Duration::ZERO
                        };
                        drain_until = Some(Instant::now() + drain);
                    }
                }
            }
            if ended {
                drop(body);
            } else {
                drop(body);
                let closing = Instant::now();
                if !whole_body {
                    // The checkpoint below syncs the file first: done while the connection
                    // closes, the wait costs nothing more.
                    partial.sync().map_err(TaskError::Disk)?;
                }
                tokio::time::sleep(CLOSE_SETTLE.saturating_sub(closing.elapsed())).await;
            }
            if let Some((_, h)) = syncing.take() {
                // Superseded by the sync below; its end is waited for all the same.
                synced(h).await?;
            }
            slot.release().await?;
            // Drained to its end: the push still goes first.
            preempted |= drain_until.is_some();
            if oversized {
                return Err(FetchError::Oversized(cap.overflow_reason()).into());
            }
            let got = partial.len() - chunk_start;
            if let Some(expected) = expected.filter(|x| got > *x) {
                // Never keep bytes nobody announced.
                partial
                    .truncate_to(chunk_start + expected)
                    .map_err(TaskError::Disk)?;
                if !whole_body {
                    self.save_checkpoint(task.id, partial, total, validator.clone())
                        .await?;
                }
                return Err(FetchError::Transient(format!(
                    "the server sent more than the {expected} bytes it announced"
                ))
                .into());
            }
            if !whole_body {
                // Every byte of a validated 206 is the right byte at the right place: keep what
                // arrived even when the body broke off.
                partial.sync().map_err(TaskError::Disk)?;
                self.save_checkpoint(task.id, partial, total, validator.clone())
                    .await?;
            }
            if let Some(e) = body_error {
                return Err(e.into());
            }
            if preempted {
                return Err(TaskError::Preempted);
            }
            if let Some(expected) = expected {
                if got != expected {
                    return Err(FetchError::Transient(format!(
                        "the server sent {got} of {expected} bytes"
                    ))
                    .into());
                }
            }
            if whole_body {
                if let Some(t) = total {
                    if partial.len() != t {
                        return Err(FetchError::Transient(format!(
                            "the server sent {} of {t} bytes",
                            partial.len()
                        ))
                        .into());
                    }
                }
                break;
            }
            if got == 0 {
                return Err(FetchError::Transient("the server sent an empty chunk".into()).into());
            }
            if total.is_none() && ended {
                // Length unknown (`/*`) and the answer came to its end: that was the file.
                total = Some(partial.len());
            }
        }
        Ok(())
    }

    /// Forgets what was downloaded of a file (another version is on the server).
    async fn start_over(
        &self,
        task_id: i64,
        partial: &mut PartialFile,
        validator: &mut Option<String>,
        total: &mut Option<u64>,
    ) -> Result<(), TaskError> {
        partial.restart().map_err(TaskError::Disk)?;
        *validator = None;
        *total = None;
        self.save_checkpoint(task_id, partial, None, None).await
    }

    async fn save_checkpoint(
        &self,
        task_id: i64,
        partial: &PartialFile,
        total: Option<u64>,
        validator: Option<String>,
    ) -> Result<(), TaskError> {
        self.save_checkpoint_at(task_id, partial.len(), total, validator)
            .await
    }

    /// Records that the first `offset` bytes of the partial file are on the disk.
    async fn save_checkpoint_at(
        &self,
        task_id: i64,
        offset: u64,
        total: Option<u64>,
        validator: Option<String>,
    ) -> Result<(), TaskError> {
        let fence = self.fence.clone();
        let cp = FileCheckpoint {
            offset,
            total,
            validator,
        };
        self.ex
            .db(move |s| download_stack::checkpoint(s, &fence, task_id, &cp))
            .await
            .map_err(TaskError::Stack)
    }
}

/// The extension a book's whole file is stored under: the declared type's (see
/// [`file_types::stored_extension`]), so the system's opener never has to guess from content.
pub(super) fn file_extension(media_type: Option<&str>, url: &str) -> &'static str {
    file_types::stored_extension(media_type, url)
}
