//! The books kept on the device, a step of the loop of its own: once books are stored, those no
//! longer kept ("Books kept on the device", which holds for every front end that downloads —
//! the app and `carrel-cli sync` alike) leave the device, and the latest read book not yet
//! stored is queued, once per book stored.

use super::*;

impl Run<'_> {
    /// After books were said stored (see [`Run::report_progress`]): removes the books no longer
    /// kept and queues the latest read, once per book stored. Nothing was stored: nothing to do.
    pub(super) async fn keep_books_kept(&mut self) {
        let stored = std::mem::take(&mut self.books_stored);
        if stored == 0 {
            return;
        }
        // A stored book may push an older one out. Usually none is, which a few reads tell.
        match self.ex.db(book_downloads::unkept_per_setting).await {
            Ok(unkept) if !unkept.is_empty() => {
                // Removing books may take a while: not with the server's slot kept.
                self.let_slot_go().await;
                match self.ex.db(move |s| book_downloads::evict(s, &unkept)).await {
                    Ok(evicted) => tracing::info!(?evicted, "removed books no longer kept"),
                    Err(e) => {
                        tracing::warn!(cause = %e, "could not remove the books no longer kept")
                    }
                }
            }
            Ok(_) => {}
            Err(e) => tracing::warn!(cause = %e, "could not remove the books no longer kept"),
        }
        for _ in 0..stored {
            self.queue_latest_read().await;
        }
    }
}
