//! The next page of a book, asked for while the database step that marks the last one stored
//! runs: the request and the step overlap instead of following each other.
//!
//! A page's follow-up is the book's next missing page, known when the page is claimed (see
//! [`follow_up`]). Once the page's answer is read, its follow-up is asked for at once on the
//! slot kept for the server, and the step (writing the page, holding its task, claiming the next
//! one) runs on the run's thread while the server answers. The claim decides, as it did before:
//! when it takes the follow-up, that task's request is the one already under way; when it takes
//! anything else (a prioritary push, a pause), the answer is read to its end and dropped before
//! anything else is asked for of that server: given up earlier, the server would still be
//! working on it when the next request came (it may not see the connection close until it
//! answers). So the server still sees one request at a time, nothing is written before its task
//! is claimed, and a reader waiting for another book of the same server waits at most one page
//! longer than the request under way; a task of another server goes at once, the answer read
//! and its slot given back beside it. A stop (or a lost lease) gives it up at once, as it does
//! the request under way. Anything that gives the kept slot back (a failure, a wait for the
//! disk) lets the request ahead finish first, so the slot is not held through the wait.
//!
//! Only on a slot kept from the page before (none with a minimum interval), looked at first as
//! the next request would (a waiter goes first), with downloads neither paused nor held by the
//! network and the server's access read lately: any other case takes the usual way.

use super::*;

/// The page a claimed page's chain goes on to, if it stays as it is when the page is marked stored.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct FollowUp {
    /// The claimed task this follows.
    pub after: i64,
    pub position: i64,
    pub url: String,
}

/// The follow-up of `task`, read in the claim's transaction: what [`book_downloads::next_parts`]
/// will push when the page is marked stored, unless the book changes meanwhile. Only for pages
/// fetched as pages (not parts of the book's file).
pub(super) fn follow_up(store: &Store, book: &Book, task: &Task) -> Option<FollowUp> {
    if task.kind != TaskKind::Page || book_downloads::is_file_part(&task.url) {
        return None;
    }
    let next = book_downloads::next_parts(store, book, task).ok()?;
    let spec = next.into_iter().find(|s| s.kind == TaskKind::Page)?;
    if book_downloads::is_file_part(&spec.url) {
        return None;
    }
    Some(FollowUp {
        after: task.id,
        position: spec.position,
        url: spec.url,
    })
}

/// What the request ahead gives back: its answer, and the slot kept from it (none after a
/// failure, which gives the slot back).
type Answer = (Result<http_fetch::Fetched, FetchError>, Option<SlotGuard>);

/// A request for a page not yet claimed: under way, or answered already (its slot then given
/// back or kept apart from it). Dropped before its answer, the request is given up (its slot
/// freed as it goes).
pub(super) struct Ahead {
    /// The address as the page's task has it.
    pub url: String,
    pub server_id: i64,
    answer: AheadAnswer,
}

enum AheadAnswer {
    Coming(tokio::task::JoinHandle<Answer>),
    Read(Result<http_fetch::Fetched, FetchError>),
}

impl Drop for Ahead {
    fn drop(&mut self) {
        if let AheadAnswer::Coming(answer) = &self.answer {
            answer.abort();
        }
    }
}

impl Ahead {
    /// Whether the claimed `task` is the page this request is for.
    pub fn serves(&self, task: &Task) -> bool {
        task.kind == TaskKind::Page && task.server_id == self.server_id && task.url == self.url
    }

    /// Whether its request is still under way.
    fn is_coming(&self) -> bool {
        matches!(self.answer, AheadAnswer::Coming(_))
    }

    /// Waits for the answer (and the slot, if it is still this request's).
    pub async fn answer(mut self) -> Answer {
        let coming = match &mut self.answer {
            AheadAnswer::Coming(coming) => coming,
            AheadAnswer::Read(read) => {
                let read =
                    std::mem::replace(read, Err(FetchError::Transient("already taken".into())));
                return (read, None);
            }
        };
        match coming.await {
            Ok(answer) => answer,
            Err(e) => (
                Err(FetchError::Transient(format!(
                    "the request for the next page stopped: {e}"
                ))),
                None,
            ),
        }
    }
}

impl Run<'_> {
    /// Asks for `next` (the follow-up of the page just fetched) on the slot kept for its
    /// server, if that slot may serve it at once; returns whether it did. Blocking only for the
    /// look at the slot, a read — not made when `looked` is that look, taken with downloads
    /// seen neither paused nor held (see `claim_ahead::quiet_look`).
    pub(super) fn send_ahead(
        &mut self,
        book: &Book,
        next: FollowUp,
        looked: Option<server_throttle::KeptLook>,
    ) -> bool {
        let Some((server, holder)) = self
            .kept_slot
            .as_ref()
            .map(|slot| (slot.server_id(), slot.holder().to_owned()))
        else {
            return false;
        };
        let access = match self.access.get(&server) {
            Some((at, access))
                if at.elapsed() < ACCESS_FRESH_FOR
                    && access.min_interval_ms == 0
                    && server == book.server_id =>
            {
                access.clone()
            }
            _ => return false,
        };
        let Ok(url) = Url::parse(&next.url) else {
            return false;
        };
        // In place already (stored before a crash): taken from the disk, not asked for.
        if self.stored_page(book.id, next.position).is_some() {
            return false;
        }
        // Its address the cover's, stored already: the page is taken from the cover's file.
        if cover_is_page(book, &next.url) && self.ex.files.find_cover(book.id).is_some() {
            return false;
        }
        // The look the request would make (a waiter marked since the last request goes first),
        // and the switches the step's claim looks at: nothing is asked for while paused.
        let store = &self.ex.store;
        let look = match looked.filter(|l| l.server_id() == server) {
            Some(look) => Ok(Some(look)),
            None => store.reading_on_writer(|| -> Result<_, StoreError> {
                if is_paused(store)? || crate::network::hold(store)?.is_some() {
                    return Ok(None);
                }
                server_throttle::look_at_kept(store, server, &holder).map(Some)
            }),
        };
        let look = match look {
            Ok(Some(look)) if look.may_serve() => look,
            _ => return false,
        };
        let Some(mut slot) = self.kept_slot.take() else {
            return false;
        };
        slot.looked(look);
        let (http, store, max) = (
            self.ex.http.clone(),
            self.ex.store.clone(),
            self.ex.config.max_page_bytes,
        );
        let answer = tokio::spawn(async move {
            let mut kept = Some(slot);
            let fetched = http
                .get_bytes_reusing_slot(&store, &access, &url, max, &mut kept)
                .await;
            (fetched, kept)
        });
        self.ahead = Some(Ahead {
            url: next.url,
            server_id: server,
            answer: AheadAnswer::Coming(answer),
        });
        true
    }

    /// Keeps the request ahead if `claimed` is its page; otherwise reads its answer to the end
    /// and drops it, the slot kept again, before anything else is asked for. A stop or a lost
    /// lease meanwhile gives it up at once.
    pub(super) async fn settle_ahead(&mut self, claimed: Option<&Task>, shutdown: &Shutdown) {
        let Some(ahead) = self.ahead.take() else {
            return;
        };
        if claimed.is_some_and(|t| ahead.serves(t)) {
            self.ahead = Some(ahead);
            return;
        }
        if !ahead.is_coming() {
            // Answered already, its slot back with the run: nothing under way to wait for.
            return;
        }
        if claimed.is_some_and(|t| t.server_id != ahead.server_id) {
            // Another server's task need not wait: the answer is read beside it, and the slot
            // given back once it is (a run that ends meanwhile drops it, which frees the slot).
            tokio::spawn(async move {
                if let (_, Some(slot)) = ahead.answer().await {
                    let server = slot.server_id();
                    if let Err(e) = slot.release().await {
                        tracing::warn!(cause = %e, server, "could not free a request slot; it expires by itself");
                    }
                }
            });
            return;
        }
        let stopped = self.stopped(shutdown);
        let answer = tokio::select! {
            answer = ahead.answer() => Some(answer),
            () = stopped => None,
        };
        match answer {
            Some((_, slot)) => {
                if self.kept_slot.is_none() {
                    self.kept_slot = slot;
                }
            }
            // Dropped with the future that waited for it (see `give_up_ahead`).
            None => tokio::time::sleep(super::file_download::CLOSE_SETTLE).await,
        }
    }

    /// Waits for the answer asked for ahead, if it is still under way, and keeps it for the
    /// claim to come, the slot back with the run (to be kept or given back).
    pub(super) async fn let_ahead_finish(&mut self) {
        let Some(ahead) = self.ahead.take_if(|a| a.is_coming()) else {
            return;
        };
        let (url, server_id) = (ahead.url.clone(), ahead.server_id);
        let (read, slot) = ahead.answer().await;
        if self.kept_slot.is_none() {
            self.kept_slot = slot;
        }
        self.ahead = Some(Ahead {
            url,
            server_id,
            answer: AheadAnswer::Read(read),
        });
    }

    /// Lets the request ahead finish and drops its answer: the page is taken from the disk, or
    /// fetched another way.
    pub(super) async fn drop_ahead(&mut self) {
        self.let_ahead_finish().await;
        self.ahead = None;
    }

    /// Gives up the request ahead, if any (the run ends): dropped, its task ends at the
    /// runtime's next turn, freeing its slot, and its connection is given the time to close
    /// that any answer given up is (see `file_download::CLOSE_SETTLE`).
    pub(super) async fn give_up_ahead(&mut self) {
        if self.ahead.take().is_some_and(|a| a.is_coming()) {
            tokio::time::sleep(super::file_download::CLOSE_SETTLE).await;
        }
    }
}
