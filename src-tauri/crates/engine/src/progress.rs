//! How the executor reports what it does: [`DownloadEvent`]s sent to a caller-supplied
//! [`ProgressSink`]. The app turns them into UI updates and desktop notifications, the CLI into
//! a progress bar or JSON lines, tests into a recording. Payloads carry running totals, so a
//! sink that drops events still shows the truth at the next one.

use serde::Serialize;

use crate::download_stack::TaskKind;

/// What the executor is doing.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(tag = "state", rename_all = "snake_case")]
pub enum ExecutorState {
    /// Working through the stack.
    Running,
    /// Nothing to do; waiting for a push.
    Idle,
    /// The reader paused downloads.
    Paused,
    /// A download failed (the server is probably away); retrying at `retry_at_ms`.
    Backoff { reason: String, retry_at_ms: i64 },
    /// The executor stopped (lease lost, shut down, time up).
    Stopped { reason: String },
}

/// Stored and total parts of one book, with bytes so far.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, ts_rs::TS)]
pub struct BookProgress {
    pub book_id: i64,
    pub title: String,
    pub stored_parts: u64,
    pub total_parts: u64,
    pub bytes: u64,
}

impl BookProgress {
    pub fn is_complete(&self) -> bool {
        self.total_parts > 0 && self.stored_parts >= self.total_parts
    }
}

#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(tag = "event", rename_all = "snake_case")]
pub enum DownloadEvent {
    TaskStarted {
        task_id: i64,
        book_id: i64,
        kind: TaskKind,
        position: i64,
    },
    /// Bytes of the task in flight so far (whole files; throttled by the executor).
    TaskBytes {
        task_id: i64,
        book_id: i64,
        bytes: u64,
        total: Option<u64>,
    },
    TaskDone {
        task_id: i64,
        book_id: i64,
        kind: TaskKind,
        position: i64,
        bytes: u64,
    },
    TaskFailed {
        task_id: i64,
        book_id: i64,
        kind: TaskKind,
        reason: String,
        will_retry: bool,
    },
    Book(BookProgress),
    BookStored(BookProgress),
    State(ExecutorState),
}

/// Receives the executor's events. Called on the executor's task: keep it quick and hand
/// slow work (notifications) to another thread.
pub trait ProgressSink: Send + Sync {
    fn report(&self, event: DownloadEvent);
}

/// Drops every event.
#[derive(Debug, Default, Clone, Copy)]
pub struct NoProgress;

impl ProgressSink for NoProgress {
    fn report(&self, _event: DownloadEvent) {}
}

/// Keeps every event, for tests and for callers that summarise afterwards.
#[derive(Debug, Default)]
pub struct RecordingSink {
    events: std::sync::Mutex<Vec<DownloadEvent>>,
}

impl RecordingSink {
    pub fn events(&self) -> Vec<DownloadEvent> {
        self.events
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .clone()
    }
}

impl ProgressSink for RecordingSink {
    fn report(&self, event: DownloadEvent) {
        self.events
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .push(event);
    }
}

/// Sends every event to several sinks in turn (the log, the windows, notifications).
#[derive(Default)]
pub struct FanOut(pub Vec<std::sync::Arc<dyn ProgressSink>>);

impl ProgressSink for FanOut {
    fn report(&self, event: DownloadEvent) {
        if let Some((last, rest)) = self.0.split_last() {
            for sink in rest {
                sink.report(event.clone());
            }
            last.report(event);
        }
    }
}

impl<S: ProgressSink + ?Sized> ProgressSink for std::sync::Arc<S> {
    fn report(&self, event: DownloadEvent) {
        (**self).report(event)
    }
}
