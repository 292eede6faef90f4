//! Desktop notifications about downloads: the executor's [`DownloadEvent`]s turned into at
//! most one notification per book being fetched, updated in place ("Saga #3 — 12 of 40
//! pages", then "Ready to read offline"), and one "downloads paused" notice while the server
//! is unreachable.
//!
//! - [`DownloadNotifications`]: the [`ProgressSink`] that decides what to show and when — a
//!   book's progress at most about once a second (the latest state always shown in the end),
//!   the paused notice once per outage, nothing at all while the reader turned
//!   [`NotificationsEnabled`] off (read every few seconds, not per event).
//! - [`Notifier`]: where notifications go, by key: [`DesktopNotifier`] (the session's
//!   notification server over D-Bus, called from a thread of its own because those calls can
//!   block) and [`RecordingNotifier`] (a list, for tests).
//! - [`Library`]: what the sink looks up in the store: the setting and book titles.
//! - [`NoteAction`]: what the reader can do from a notification where the notification server
//!   shows actions — "Pause downloads" and "Cancel" on a book's progress, "Read" on "Ready to
//!   read offline" (also its body's click). The sink offers them once the shell gave it a
//!   callback ([`DownloadNotifications::offer_actions`]); an invoked one reaches the sink first
//!   (a cancelled book's notification goes at once), then the callback, which knows the core
//!   and the windows. This module knows neither.
//! - [`ReadOffers`]: the notifications offering Read that may still be on screen, which keep
//!   the background app on.
//! - [`in_background_note`]: the notice the background app puts up where no tray shows its
//!   icon, with "Open Carrel" ([`NoteAction::OpenCarrel`]); the shell shows it through the
//!   [`DesktopNotifier`] itself, not through the sink.
//!
//! The policy is this module's; what a notification says (pages, sizes, percentages) is
//! `wording`'s, and talking to the notification server is `desktop`'s.
//!
//! Only the process holding the executor lease reports events, so two Carrels never show the
//! same download twice.

mod desktop;
mod wording;

pub use desktop::{DesktopNotifier, ReadOffers};

use std::collections::{HashMap, HashSet};
use std::sync::{Arc, Mutex, MutexGuard, OnceLock, Weak};
use std::time::{Duration, Instant};

use carrel_core::{
    engine::download_stack::TaskKind,
    engine::progress::{DownloadEvent, ExecutorState, ProgressSink},
    foundation::store::Store,
    library::books,
    library::settings::{self, NotificationsEnabled},
};

use wording::{bytes_note, pages_note};

/// The application name notifications carry.
pub const APP_NAME: &str = "Carrel";
/// The shortest time between two progress updates of one book's notification.
pub const MIN_UPDATE_INTERVAL: Duration = Duration::from_secs(1);
/// How long a read of [`NotificationsEnabled`] is trusted before it is read again.
pub const SETTING_REFRESH: Duration = Duration::from_secs(5);

/// The body of a book's notification once all of it is on the device.
pub fn ready_body() -> String {
    crate::messages::text("notify-ready")
}
/// The body of the notice shown when the executor starts backing off.
pub fn paused_body() -> String {
    crate::messages::text("notify-paused")
}
/// The key of the paused notice (book keys are `book:<id>`).
pub const PAUSED_KEY: &str = "downloads:paused";
/// The key of the notice of the app going on in the background.
pub const IN_BACKGROUND_KEY: &str = "app:background";
/// What that notice says.
pub fn in_background_body() -> String {
    crate::messages::text("notify-in-background")
}

/// The notice of the app going on in the background where the desktop shows no tray icon for
/// it: how to come back, with a button that does it.
pub fn in_background_note() -> Note {
    Note {
        summary: APP_NAME.to_owned(),
        body: in_background_body(),
        kind: NoteKind::InBackground,
        actions: vec![NoteAction::OpenCarrel],
    }
}

/// The key of a book's notification.
pub fn book_key(book_id: i64) -> String {
    format!("book:{book_id}")
}

/// What a notification is about; the desktop notifier picks its category from it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum NoteKind {
    /// A download under way, with how far it got when that is known.
    Progress { percent: Option<u8> },
    /// A book is stored; nothing updates this notification afterwards.
    Ready,
    /// Downloads wait for the server to come back.
    Paused,
    /// The app went on in the background where the desktop shows no tray icon for it.
    InBackground,
}

/// What the reader asks for from a notification of a book.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum NoteAction {
    /// Pause the downloads — all of them: the engine pauses downloads as a whole, not one book
    /// (labelled "Pause downloads" for that reason).
    Pause { book_id: i64 },
    /// Stop downloading this book (what is stored stays).
    Cancel { book_id: i64 },
    /// Open this book to read it.
    Read { book_id: i64 },
    /// Bring Carrel's window back (on the notice of the app going on in the background).
    OpenCarrel,
}

/// The key the notification server reports for a click on a notification's body.
pub const DEFAULT_ACTION_KEY: &str = "default";

impl NoteAction {
    /// The book it is about; `None` for [`NoteAction::OpenCarrel`].
    pub fn book_id(self) -> Option<i64> {
        match self {
            NoteAction::Pause { book_id }
            | NoteAction::Cancel { book_id }
            | NoteAction::Read { book_id } => Some(book_id),
            NoteAction::OpenCarrel => None,
        }
    }

    /// Its key in the notification's action list (the server reports it back when invoked).
    pub fn key(self) -> &'static str {
        match self {
            NoteAction::Pause { .. } => "pause",
            NoteAction::Cancel { .. } => "cancel",
            NoteAction::Read { .. } => "read",
            NoteAction::OpenCarrel => "open",
        }
    }

    /// What its button says, in the reader's language.
    pub fn label(self) -> String {
        wording::action_label(self)
    }

    /// Whether clicking the notification's body does it too.
    pub fn is_default(self) -> bool {
        matches!(self, NoteAction::Read { .. } | NoteAction::OpenCarrel)
    }
}

/// One notification's content.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Note {
    pub summary: String,
    pub body: String,
    pub kind: NoteKind,
    /// What the reader can do from it, in the order the buttons show; empty when the shell
    /// handles no actions. A notifier whose server shows no actions leaves them out.
    pub actions: Vec<NoteAction>,
}

impl Note {
    /// The action the server reported as invoked under `key` (an action's own key, or
    /// [`DEFAULT_ACTION_KEY`] for a click on the body), if the note offers it.
    pub fn action(&self, key: &str) -> Option<NoteAction> {
        self.actions.iter().copied().find(|a| {
            if key == DEFAULT_ACTION_KEY {
                a.is_default()
            } else {
                a.key() == key
            }
        })
    }
}

/// Where a notifier hands the actions the reader invokes; called on the notifier's thread, so
/// it must return quickly.
pub type ActionHandler = Box<dyn Fn(NoteAction) + Send + Sync>;

/// Shows, updates and closes notifications, each identified by a key of the caller's choice.
/// Implementations must return quickly: they are called on the executor's task.
pub trait Notifier: Send + Sync {
    /// Takes one call: puts up, changes or takes down the notification of its key.
    fn send(&self, call: Call);
    /// Puts up a notification for `key`; one already up under that key is replaced in place.
    fn show(&self, key: &str, note: Note) {
        self.send(Call::Show {
            key: key.to_owned(),
            note,
        });
    }
    /// Changes the notification of `key` in place; puts it up when none is.
    fn update(&self, key: &str, note: Note) {
        self.send(Call::Update {
            key: key.to_owned(),
            note,
        });
    }
    /// Takes the notification of `key` down, if one is up.
    fn close(&self, key: &str) {
        self.send(Call::Close {
            key: key.to_owned(),
        });
    }
    /// From now on, hands every action the reader invokes on a notification to `handler`.
    /// Notifiers that show no actions drop it.
    fn on_action(&self, handler: ActionHandler) {
        drop(handler);
    }
}

impl<N: Notifier + ?Sized> Notifier for Arc<N> {
    fn send(&self, call: Call) {
        (**self).send(call)
    }
    fn on_action(&self, handler: ActionHandler) {
        (**self).on_action(handler)
    }
}

/// One call of a [`Notifier`]: what it is handed, and what [`RecordingNotifier`] keeps.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Call {
    Show { key: String, note: Note },
    Update { key: String, note: Note },
    Close { key: String },
}

impl Call {
    pub fn key(&self) -> &str {
        match self {
            Call::Show { key, .. } | Call::Update { key, .. } | Call::Close { key } => key,
        }
    }

    pub fn note(&self) -> Option<&Note> {
        match self {
            Call::Show { note, .. } | Call::Update { note, .. } => Some(note),
            Call::Close { .. } => None,
        }
    }
}

/// What [`DownloadNotifications`] reads from the store.
pub trait Library: Send + Sync {
    /// Whether the reader wants notifications; `None` when it cannot be read right now.
    fn notifications_enabled(&self) -> Option<bool>;
    /// The title of a book, for events that carry only its id.
    fn book_title(&self, book_id: i64) -> Option<String>;
}

impl Library for Store {
    fn notifications_enabled(&self) -> Option<bool> {
        match settings::get::<NotificationsEnabled>(self) {
            Ok(value) => Some(value.unwrap_or_default().0),
            Err(e) => {
                tracing::debug!(cause = %e, "cannot read the notifications setting");
                None
            }
        }
    }

    fn book_title(&self, book_id: i64) -> Option<String> {
        books::get(self, book_id).ok().map(|b| b.title)
    }
}

/// No store (it did not open): notifications on, no titles.
impl<L: Library> Library for Option<L> {
    fn notifications_enabled(&self) -> Option<bool> {
        match self {
            Some(library) => library.notifications_enabled(),
            None => Some(NotificationsEnabled::default().0),
        }
    }

    fn book_title(&self, book_id: i64) -> Option<String> {
        self.as_ref().and_then(|l| l.book_title(book_id))
    }
}

/// Turns download events into desktop notifications.
pub struct DownloadNotifications {
    notifier: Box<dyn Notifier>,
    library: Box<dyn Library>,
    now: Box<dyn Fn() -> Instant + Send + Sync>,
    state: Mutex<State>,
    /// The shell's side of actions; set once, and only then are actions offered.
    on_action: OnceLock<ActionHandler>,
}

#[derive(Default)]
struct State {
    enabled: bool,
    /// When the setting was last read; `None`: never.
    checked_at: Option<Instant>,
    books: HashMap<i64, BookNote>,
    /// Whether the paused notice is up (until a download succeeds).
    paused_shown: bool,
    /// Books the reader cancelled from their notification: the task in flight may still
    /// report progress, which must not bring the notification back (until the book's next
    /// task starts, which means it was asked for again).
    cancelled: HashSet<i64>,
}

#[derive(Default)]
struct BookNote {
    title: Option<String>,
    /// The kind of part the book is fetched in (pages or one file), once a part started.
    part: Option<TaskKind>,
    /// When its notification was last shown or updated; `None`: it is not up.
    shown_at: Option<Instant>,
    /// The latest progress, held back by the rate limit.
    pending: Option<Note>,
}

impl DownloadNotifications {
    /// Notifications through `notifier`, with the setting and titles from `library`.
    pub fn new(notifier: impl Notifier + 'static, library: impl Library + 'static) -> Self {
        DownloadNotifications {
            notifier: Box::new(notifier),
            library: Box::new(library),
            now: Box::new(Instant::now),
            state: Mutex::new(State::default()),
            on_action: OnceLock::new(),
        }
    }

    /// Offers actions on book notifications from now on, and routes the invoked ones through
    /// this sink (which takes down a cancelled book's notification) to `on_action`. Called
    /// once; a second call is ignored.
    pub fn offer_actions(self: &Arc<Self>, on_action: impl Fn(NoteAction) + Send + Sync + 'static) {
        if self.on_action.set(Box::new(on_action)).is_err() {
            return;
        }
        let sink: Weak<Self> = Arc::downgrade(self);
        self.notifier.on_action(Box::new(move |action| {
            if let Some(sink) = sink.upgrade() {
                sink.act(action);
            }
        }));
    }

    /// An action the reader invoked on a notification.
    pub fn act(&self, action: NoteAction) {
        if let NoteAction::Cancel { book_id } = action {
            let mut st = self.lock();
            st.books.remove(&book_id);
            st.cancelled.insert(book_id);
            self.notifier.close(&book_key(book_id));
        }
        if let Some(on_action) = self.on_action.get() {
            on_action(action);
        }
    }

    /// The actions a book's note offers, when the shell handles them.
    fn actions(&self, kind: NoteKind, book_id: i64) -> Vec<NoteAction> {
        if self.on_action.get().is_none() {
            return Vec::new();
        }
        match kind {
            NoteKind::Progress { .. } => vec![
                NoteAction::Pause { book_id },
                NoteAction::Cancel { book_id },
            ],
            NoteKind::Ready => vec![NoteAction::Read { book_id }],
            NoteKind::Paused | NoteKind::InBackground => Vec::new(),
        }
    }

    /// Replaces the monotonic clock the rate limit and the setting refresh use.
    pub fn with_clock(mut self, now: impl Fn() -> Instant + Send + Sync + 'static) -> Self {
        self.now = Box::new(now);
        self
    }

    fn lock(&self) -> MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// Reads the setting when the last read is older than [`SETTING_REFRESH`]; when it went
    /// off, takes down whatever is up.
    fn refresh_enabled(&self, st: &mut State, now: Instant) -> bool {
        let stale = st
            .checked_at
            .is_none_or(|at| now.duration_since(at) >= SETTING_REFRESH);
        if stale {
            st.checked_at = Some(now);
            if let Some(enabled) = self.library.notifications_enabled() {
                if st.enabled && !enabled {
                    self.close_all(st);
                }
                st.enabled = enabled;
            }
        }
        st.enabled
    }

    fn close_all(&self, st: &mut State) {
        for (book_id, book) in st.books.drain() {
            if book.shown_at.is_some() {
                self.notifier.close(&book_key(book_id));
            }
        }
        if st.paused_shown {
            st.paused_shown = false;
            self.notifier.close(PAUSED_KEY);
        }
    }

    /// Shows held-back progress: of every book when `all`, else of those whose interval passed.
    fn flush(&self, st: &mut State, now: Instant, all: bool) {
        for (book_id, book) in st.books.iter_mut() {
            let due = all
                || book
                    .shown_at
                    .is_none_or(|at| now.duration_since(at) >= MIN_UPDATE_INTERVAL);
            if due {
                if let Some(note) = book.pending.take() {
                    book.shown_at = Some(now);
                    self.notifier.update(&book_key(*book_id), note);
                }
            }
        }
    }

    /// Shows a book's progress now, or holds it back until its interval passed.
    fn progress(&self, st: &mut State, book_id: i64, mut note: Note, now: Instant) {
        if st.cancelled.contains(&book_id) {
            return;
        }
        note.actions = self.actions(note.kind, book_id);
        let book = st.books.entry(book_id).or_default();
        match book.shown_at {
            None => {
                book.shown_at = Some(now);
                book.pending = None;
                self.notifier.show(&book_key(book_id), note);
            }
            Some(at) if now.duration_since(at) >= MIN_UPDATE_INTERVAL => {
                book.shown_at = Some(now);
                book.pending = None;
                self.notifier.update(&book_key(book_id), note);
            }
            Some(_) => book.pending = Some(note),
        }
    }

    fn title(&self, book: &mut BookNote, book_id: i64) -> String {
        if book.title.is_none() {
            book.title = self.library.book_title(book_id);
        }
        book.title.clone().unwrap_or_else(|| "A book".to_owned())
    }

    fn handle(&self, st: &mut State, event: DownloadEvent, now: Instant) {
        match event {
            DownloadEvent::TaskStarted { book_id, kind, .. } if kind.is_part() => {
                st.cancelled.remove(&book_id);
                st.books.entry(book_id).or_default().part = Some(kind);
            }
            DownloadEvent::TaskStarted { .. } => {}
            DownloadEvent::TaskBytes {
                book_id,
                bytes,
                total,
                ..
            } => {
                let book = st.books.entry(book_id).or_default();
                if book.part == Some(TaskKind::Page) {
                    // A page book counts pages, not the bytes of one page.
                    return;
                }
                let title = self.title(book, book_id);
                self.progress(st, book_id, bytes_note(&title, bytes, total), now);
            }
            DownloadEvent::Book(progress) => {
                let book = st.books.entry(progress.book_id).or_default();
                book.title = Some(progress.title.clone());
                if book.part == Some(TaskKind::File) || progress.total_parts == 0 {
                    return;
                }
                self.progress(st, progress.book_id, pages_note(&progress), now);
            }
            DownloadEvent::BookStored(progress) => {
                let key = book_key(progress.book_id);
                st.cancelled.remove(&progress.book_id);
                let note = Note {
                    summary: progress.title,
                    body: ready_body(),
                    kind: NoteKind::Ready,
                    actions: self.actions(NoteKind::Ready, progress.book_id),
                };
                match st.books.remove(&progress.book_id) {
                    Some(BookNote {
                        shown_at: Some(_), ..
                    }) => self.notifier.update(&key, note),
                    _ => self.notifier.show(&key, note),
                }
            }
            DownloadEvent::TaskDone { .. } => {
                if st.paused_shown {
                    st.paused_shown = false;
                    self.notifier.close(PAUSED_KEY);
                }
            }
            DownloadEvent::TaskFailed {
                book_id,
                kind,
                will_retry: false,
                ..
            } if kind != TaskKind::Resource => {
                // The book will not complete: its progress would stay frozen.
                if let Some(BookNote {
                    shown_at: Some(_), ..
                }) = st.books.remove(&book_id)
                {
                    self.notifier.close(&book_key(book_id));
                }
            }
            DownloadEvent::TaskFailed { .. } => {}
            DownloadEvent::State(ExecutorState::Backoff { .. }) => {
                self.flush(st, now, true);
                if !st.paused_shown {
                    st.paused_shown = true;
                    self.notifier.show(
                        PAUSED_KEY,
                        Note {
                            summary: crate::messages::text("notify-downloads"),
                            body: paused_body(),
                            kind: NoteKind::Paused,
                            actions: Vec::new(),
                        },
                    );
                }
            }
            DownloadEvent::State(ExecutorState::Stopped { .. }) => {
                // Another process may take over and notify in its turn: leave nothing behind.
                self.close_all(st);
            }
            DownloadEvent::State(ExecutorState::Idle | ExecutorState::Paused) => {
                self.flush(st, now, true)
            }
            DownloadEvent::State(ExecutorState::Running) => {}
        }
    }
}

impl ProgressSink for DownloadNotifications {
    fn report(&self, event: DownloadEvent) {
        let now = (self.now)();
        let mut st = self.lock();
        if !self.refresh_enabled(&mut st, now) {
            return;
        }
        self.flush(&mut st, now, false);
        self.handle(&mut st, event, now);
    }
}

/// Keeps every call, for tests, and plays the notification server's part for actions.
#[derive(Default)]
pub struct RecordingNotifier {
    calls: Mutex<Vec<Call>>,
    on_action: Mutex<Option<Arc<ActionHandler>>>,
}

impl std::fmt::Debug for RecordingNotifier {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("RecordingNotifier")
            .field("calls", &self.calls())
            .finish_non_exhaustive()
    }
}

impl RecordingNotifier {
    pub fn calls(&self) -> Vec<Call> {
        self.calls.lock().unwrap_or_else(|p| p.into_inner()).clone()
    }

    /// The calls so far, forgetting them.
    pub fn take(&self) -> Vec<Call> {
        std::mem::take(&mut *self.calls.lock().unwrap_or_else(|p| p.into_inner()))
    }

    /// What the notification up under `key` shows now: the note of its latest show or update,
    /// unless it was closed since.
    pub fn showing(&self, key: &str) -> Option<Note> {
        let calls = self.calls.lock().unwrap_or_else(|p| p.into_inner());
        let last = calls.iter().rev().find(|c| c.key() == key)?;
        last.note().cloned()
    }

    /// Does what a notification server does when the reader invokes the action `action_key`
    /// (or clicks the body: [`DEFAULT_ACTION_KEY`]) on the notification up under `key`: hands
    /// the action to the handler. Returns the action, or `None` when the notification is not
    /// up or does not offer it.
    pub fn invoke(&self, key: &str, action_key: &str) -> Option<NoteAction> {
        let action = self.showing(key)?.action(action_key)?;
        let handler = self
            .on_action
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .clone();
        if let Some(handler) = handler {
            handler(action);
        }
        Some(action)
    }
}

impl Notifier for RecordingNotifier {
    fn send(&self, call: Call) {
        self.calls
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .push(call);
    }
    fn on_action(&self, handler: ActionHandler) {
        *self.on_action.lock().unwrap_or_else(|p| p.into_inner()) = Some(Arc::new(handler));
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use carrel_core::engine::progress::BookProgress;
    use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};

    /// A library with a switchable setting that counts its reads.
    #[derive(Default)]
    struct FakeLibrary {
        off: AtomicBool,
        reads: AtomicUsize,
    }

    impl Library for Arc<FakeLibrary> {
        fn notifications_enabled(&self) -> Option<bool> {
            self.reads.fetch_add(1, Ordering::SeqCst);
            Some(!self.off.load(Ordering::SeqCst))
        }
        fn book_title(&self, book_id: i64) -> Option<String> {
            (book_id == 9).then(|| "The Long Read".to_owned())
        }
    }

    /// A clock moved by hand.
    #[derive(Clone)]
    struct Clock(Arc<Mutex<Instant>>);

    impl Clock {
        fn new() -> Clock {
            Clock(Arc::new(Mutex::new(Instant::now())))
        }
        fn advance(&self, ms: u64) {
            *self.0.lock().unwrap() += Duration::from_millis(ms);
        }
        fn now(&self) -> Instant {
            *self.0.lock().unwrap()
        }
    }

    struct Rig {
        sink: Arc<DownloadNotifications>,
        calls: Arc<RecordingNotifier>,
        library: Arc<FakeLibrary>,
        clock: Clock,
    }

    impl Rig {
        /// Reports `events` in turn, the clock moving `ms` after each.
        fn report_each(&self, ms: u64, events: impl IntoIterator<Item = DownloadEvent>) {
            for event in events {
                self.sink.report(event);
                self.clock.advance(ms);
            }
        }
    }

    fn rig() -> Rig {
        let calls = Arc::new(RecordingNotifier::default());
        let library = Arc::new(FakeLibrary::default());
        let clock = Clock::new();
        let c = clock.clone();
        let sink = Arc::new(
            DownloadNotifications::new(calls.clone(), library.clone()).with_clock(move || c.now()),
        );
        Rig {
            sink,
            calls,
            library,
            clock,
        }
    }

    fn pages(book_id: i64, stored: u64, total: u64) -> DownloadEvent {
        DownloadEvent::Book(progress(book_id, stored, total))
    }

    fn progress(book_id: i64, stored: u64, total: u64) -> BookProgress {
        BookProgress {
            book_id,
            title: "Saga #3".to_owned(),
            stored_parts: stored,
            total_parts: total,
            bytes: stored * 1000,
        }
    }

    fn started(book_id: i64, kind: TaskKind) -> DownloadEvent {
        DownloadEvent::TaskStarted {
            task_id: 1,
            book_id,
            kind,
            position: 0,
        }
    }

    fn done(book_id: i64) -> DownloadEvent {
        DownloadEvent::TaskDone {
            task_id: 1,
            book_id,
            kind: TaskKind::Page,
            position: 0,
            bytes: 10,
        }
    }

    fn backoff() -> DownloadEvent {
        DownloadEvent::State(ExecutorState::Backoff {
            reason: "connection refused".into(),
            retry_at_ms: 0,
        })
    }

    fn bodies(calls: &[Call]) -> Vec<&str> {
        calls
            .iter()
            .filter_map(|c| c.note())
            .map(|n| n.body.as_str())
            .collect()
    }

    #[test]
    fn many_progress_events_within_a_second_show_once_then_the_latest() {
        let r = rig();
        r.sink.report(started(3, TaskKind::Page));
        r.report_each(10, (1..=10).map(|stored| pages(3, stored, 40)));
        let calls = r.calls.take();
        assert_eq!(bodies(&calls), ["Saga #3 — 1 of 40 pages"], "{calls:?}");
        assert!(matches!(calls[0], Call::Show { .. }));

        // The executor goes idle 100 ms later: the held-back state is the last one, shown now.
        r.sink.report(DownloadEvent::State(ExecutorState::Idle));
        let calls = r.calls.take();
        assert_eq!(bodies(&calls), ["Saga #3 — 10 of 40 pages"]);
        assert!(matches!(calls[0], Call::Update { .. }));
        assert_eq!(
            calls[0].note().unwrap().kind,
            NoteKind::Progress { percent: Some(25) }
        );
    }

    #[test]
    fn held_back_progress_shows_at_the_next_event_once_the_second_passed() {
        let r = rig();
        r.report_each(300, [pages(3, 1, 40), pages(3, 2, 40)]);
        r.sink.report(pages(3, 3, 40));
        assert_eq!(r.calls.take().len(), 1);
        r.clock.advance(500);
        // Any event will do, such as the next task starting.
        r.sink.report(DownloadEvent::State(ExecutorState::Running));
        assert_eq!(bodies(&r.calls.take()), ["Saga #3 — 3 of 40 pages"]);
        // A second after that update, the next progress goes straight out.
        r.clock.advance(1000);
        r.sink.report(pages(3, 4, 40));
        assert_eq!(bodies(&r.calls.take()), ["Saga #3 — 4 of 40 pages"]);
    }

    #[test]
    fn progress_updates_one_notification_per_book_in_place() {
        let r = rig();
        for stored in 1..=3 {
            r.sink.report(pages(3, stored, 8));
            r.sink.report(pages(4, stored, 5));
            r.clock.advance(1200);
        }
        let calls = r.calls.calls();
        assert_eq!(calls.len(), 6);
        for (book, key) in [(3, "book:3"), (4, "book:4")] {
            let mine: Vec<&Call> = calls.iter().filter(|c| c.key() == key).collect();
            assert_eq!(mine.len(), 3, "book {book}: {calls:?}");
            assert!(matches!(mine[0], Call::Show { .. }));
            assert!(mine[1..].iter().all(|c| matches!(c, Call::Update { .. })));
        }
        assert_eq!(calls[4].note().unwrap().body, "Saga #3 — 3 of 8 pages");
    }

    #[test]
    fn ready_to_read_replaces_the_progress_and_drops_what_was_held_back() {
        let r = rig();
        r.report_each(100, [pages(3, 1, 8), pages(3, 7, 8)]);
        r.sink.report(DownloadEvent::BookStored(progress(3, 8, 8)));
        r.sink.report(DownloadEvent::State(ExecutorState::Idle));
        let calls = r.calls.calls();
        assert_eq!(calls.len(), 2, "{calls:?}");
        assert_eq!(
            calls[1],
            Call::Update {
                key: "book:3".into(),
                note: Note {
                    summary: "Saga #3".into(),
                    body: ready_body(),
                    kind: NoteKind::Ready,
                    actions: vec![],
                },
            }
        );
    }

    #[test]
    fn a_book_stored_without_progress_shown_gets_its_own_notification() {
        let r = rig();
        r.sink.report(DownloadEvent::BookStored(progress(5, 1, 1)));
        assert!(
            matches!(&r.calls.calls()[..], [Call::Show { key, note }] if key == "book:5" && note.body == ready_body())
        );
    }

    #[test]
    fn a_file_book_shows_bytes_with_its_title_looked_up() {
        let r = rig();
        r.sink.report(started(9, TaskKind::File));
        r.sink.report(DownloadEvent::TaskBytes {
            task_id: 1,
            book_id: 9,
            bytes: 2_100_000,
            total: Some(8_400_000),
        });
        r.clock.advance(1000);
        r.sink.report(DownloadEvent::TaskBytes {
            task_id: 1,
            book_id: 9,
            bytes: 450_000,
            total: None,
        });
        assert_eq!(
            bodies(&r.calls.calls()),
            ["The Long Read — 2.1 of 8.4 MB", "The Long Read — 450 KB"]
        );
        assert_eq!(
            r.calls.calls()[0].note().unwrap().kind,
            NoteKind::Progress { percent: Some(25) }
        );
    }

    #[test]
    fn the_paused_notice_shows_once_per_outage() {
        let r = rig();
        r.report_each(2000, (0..4).map(|_| backoff()));
        let calls = r.calls.take();
        assert_eq!(
            calls,
            [Call::Show {
                key: PAUSED_KEY.into(),
                note: Note {
                    summary: "Downloads".into(),
                    body: paused_body(),
                    kind: NoteKind::Paused,
                    actions: vec![],
                },
            }]
        );
        // A download went through: the notice goes, and the next outage shows it again.
        r.sink.report(done(3));
        assert_eq!(
            r.calls.take(),
            [Call::Close {
                key: PAUSED_KEY.into()
            }]
        );
        r.sink.report(backoff());
        r.sink.report(backoff());
        assert_eq!(bodies(&r.calls.take()), [paused_body()]);
    }

    #[test]
    fn backing_off_shows_the_progress_held_back() {
        let r = rig();
        r.sink.report(pages(3, 1, 8));
        r.sink.report(pages(3, 2, 8));
        r.sink.report(backoff());
        assert_eq!(
            bodies(&r.calls.calls()),
            [
                "Saga #3 — 1 of 8 pages",
                "Saga #3 — 2 of 8 pages",
                "Downloads paused — server unreachable, retrying"
            ]
        );
    }

    #[test]
    fn nothing_shows_while_notifications_are_off() {
        let r = rig();
        r.library.off.store(true, Ordering::SeqCst);
        r.sink.report(started(3, TaskKind::Page));
        r.report_each(1500, (1..=8).map(|stored| pages(3, stored, 8)));
        r.sink.report(backoff());
        r.sink.report(DownloadEvent::BookStored(progress(3, 8, 8)));
        assert_eq!(r.calls.calls(), []);
    }

    #[test]
    fn the_setting_is_read_every_few_seconds_and_turning_it_off_closes_what_is_up() {
        let r = rig();
        r.report_each(20, (1..=50).map(|stored| pages(3, stored, 100)));
        assert_eq!(r.library.reads.load(Ordering::SeqCst), 1);
        r.sink.report(backoff());
        r.library.off.store(true, Ordering::SeqCst);
        r.clock.advance(SETTING_REFRESH.as_millis() as u64);
        r.sink.report(pages(3, 60, 100));
        assert_eq!(r.library.reads.load(Ordering::SeqCst), 2);
        let calls = r.calls.calls();
        let closed: Vec<&str> = calls
            .iter()
            .filter(|c| matches!(c, Call::Close { .. }))
            .map(Call::key)
            .collect();
        assert_eq!(closed.len(), 2, "{calls:?}");
        assert!(closed.contains(&"book:3") && closed.contains(&PAUSED_KEY));
        assert!(matches!(calls.last(), Some(Call::Close { .. })));

        // Back on: the next progress is a fresh notification.
        r.library.off.store(false, Ordering::SeqCst);
        r.clock.advance(SETTING_REFRESH.as_millis() as u64);
        r.sink.report(pages(3, 61, 100));
        assert!(matches!(r.calls.calls().last(), Some(Call::Show { key, .. }) if key == "book:3"));
    }

    #[test]
    fn a_book_that_cannot_complete_takes_its_progress_down() {
        let r = rig();
        r.sink.report(pages(3, 1, 8));
        r.sink.report(DownloadEvent::TaskFailed {
            task_id: 1,
            book_id: 3,
            kind: TaskKind::Page,
            reason: "410 Gone".into(),
            will_retry: false,
        });
        assert_eq!(
            r.calls.calls()[1],
            Call::Close {
                key: "book:3".into()
            }
        );
    }

    /// A rig whose shell handles actions, recording those it is handed.
    fn rig_with_actions() -> (Rig, Arc<Mutex<Vec<NoteAction>>>) {
        let r = rig();
        let invoked: Arc<Mutex<Vec<NoteAction>>> = Arc::default();
        let seen = invoked.clone();
        r.sink.offer_actions(move |a| seen.lock().unwrap().push(a));
        // The notifier's handler reaches the sink through a weak reference only.
        assert_eq!(Arc::strong_count(&r.sink), 1);
        (r, invoked)
    }

    #[test]
    fn actions_are_offered_on_progress_and_ready_only_when_the_shell_handles_them() {
        let r = rig();
        r.sink.report(pages(3, 1, 8));
        r.sink.report(DownloadEvent::BookStored(progress(3, 8, 8)));
        assert!(
            r.calls
                .calls()
                .iter()
                .all(|c| c.note().unwrap().actions.is_empty()),
            "{:?}",
            r.calls.calls()
        );

        let calls = Arc::new(RecordingNotifier::default());
        let sink = Arc::new(DownloadNotifications::new(
            calls.clone(),
            Arc::new(FakeLibrary::default()),
        ));
        sink.offer_actions(|_| {});
        sink.report(started(9, TaskKind::File));
        sink.report(DownloadEvent::TaskBytes {
            task_id: 1,
            book_id: 9,
            bytes: 100,
            total: Some(1000),
        });
        sink.report(pages(3, 1, 8));
        sink.report(backoff());
        sink.report(DownloadEvent::BookStored(progress(3, 8, 8)));
        let offered: Vec<(String, Vec<NoteAction>)> = calls
            .calls()
            .iter()
            .map(|c| (c.key().to_owned(), c.note().unwrap().actions.clone()))
            .collect();
        assert_eq!(
            offered,
            [
                (
                    "book:9".to_owned(),
                    vec![
                        NoteAction::Pause { book_id: 9 },
                        NoteAction::Cancel { book_id: 9 }
                    ]
                ),
                (
                    "book:3".to_owned(),
                    vec![
                        NoteAction::Pause { book_id: 3 },
                        NoteAction::Cancel { book_id: 3 }
                    ]
                ),
                (PAUSED_KEY.to_owned(), vec![]),
                ("book:3".to_owned(), vec![NoteAction::Read { book_id: 3 }]),
            ]
        );
        let labels: Vec<String> = [
            NoteAction::Pause { book_id: 1 },
            NoteAction::Cancel { book_id: 1 },
            NoteAction::Read { book_id: 1 },
        ]
        .iter()
        .map(|a| a.label())
        .collect();
        assert_eq!(labels, ["Pause downloads", "Cancel", "Read"]);
    }

    #[test]
    fn updating_a_progress_note_in_place_keeps_its_actions() {
        let (r, _) = rig_with_actions();
        r.sink.report(pages(4, 1, 8));
        r.clock.advance(100);
        r.sink.report(pages(4, 2, 8));
        r.sink.report(DownloadEvent::State(ExecutorState::Idle));
        let calls = r.calls.calls();
        assert!(matches!(calls[1], Call::Update { .. }), "{calls:?}");
        for c in &calls {
            assert_eq!(
                c.note().unwrap().actions,
                [
                    NoteAction::Pause { book_id: 4 },
                    NoteAction::Cancel { book_id: 4 }
                ]
            );
        }
    }

    #[test]
    fn an_invoked_action_reaches_the_shell_with_its_book() {
        let (r, invoked) = rig_with_actions();
        r.sink.report(pages(3, 1, 8));
        r.sink.report(pages(7, 1, 5));
        assert_eq!(
            r.calls.invoke("book:7", "pause"),
            Some(NoteAction::Pause { book_id: 7 })
        );
        r.sink.report(DownloadEvent::BookStored(progress(3, 8, 8)));
        // A click on the body of "ready", then its button.
        assert_eq!(
            r.calls.invoke("book:3", DEFAULT_ACTION_KEY),
            Some(NoteAction::Read { book_id: 3 })
        );
        assert_eq!(
            r.calls.invoke("book:3", "read"),
            Some(NoteAction::Read { book_id: 3 })
        );
        // "Ready" offers nothing else, and the body of a progress note does nothing.
        assert_eq!(r.calls.invoke("book:3", "cancel"), None);
        assert_eq!(r.calls.invoke("book:7", DEFAULT_ACTION_KEY), None);
        assert_eq!(
            *invoked.lock().unwrap(),
            [
                NoteAction::Pause { book_id: 7 },
                NoteAction::Read { book_id: 3 },
                NoteAction::Read { book_id: 3 }
            ]
        );
    }

    #[test]
    fn the_in_background_notice_brings_carrel_back_from_its_body_or_its_button() {
        let (r, invoked) = rig_with_actions();
        let note = in_background_note();
        assert_eq!(note.body, in_background_body());
        assert_eq!(
            note.actions.iter().map(|a| a.label()).collect::<Vec<_>>(),
            ["Open Carrel"]
        );
        r.calls.show(IN_BACKGROUND_KEY, note);
        assert_eq!(
            r.calls.invoke(IN_BACKGROUND_KEY, DEFAULT_ACTION_KEY),
            Some(NoteAction::OpenCarrel)
        );
        assert_eq!(
            r.calls.invoke(IN_BACKGROUND_KEY, "open"),
            Some(NoteAction::OpenCarrel)
        );
        assert_eq!(
            *invoked.lock().unwrap(),
            [NoteAction::OpenCarrel, NoteAction::OpenCarrel]
        );
        assert_eq!(NoteAction::OpenCarrel.book_id(), None);
    }

    #[test]
    fn cancelling_takes_the_note_down_and_late_progress_does_not_bring_it_back() {
        let (r, invoked) = rig_with_actions();
        r.sink.report(started(3, TaskKind::Page));
        r.sink.report(pages(3, 1, 8));
        assert_eq!(
            r.calls.invoke("book:3", "cancel"),
            Some(NoteAction::Cancel { book_id: 3 })
        );
        assert_eq!(
            *invoked.lock().unwrap(),
            [NoteAction::Cancel { book_id: 3 }]
        );
        assert_eq!(
            r.calls.take()[1..],
            [Call::Close {
                key: "book:3".into()
            }]
        );
        // The page in flight when the reader cancelled still lands.
        r.clock.advance(2000);
        r.sink.report(pages(3, 2, 8));
        r.sink.report(DownloadEvent::State(ExecutorState::Idle));
        assert_eq!(r.calls.take(), []);
        // Asked for again: its notification comes back.
        r.sink.report(started(3, TaskKind::Page));
        r.sink.report(pages(3, 3, 8));
        assert_eq!(bodies(&r.calls.take()), ["Saga #3 — 3 of 8 pages"]);
    }

    #[test]
    fn sizes_read_like_a_file_manager() {
        assert_eq!(
            bytes_note("T", 120_000, Some(480_000)).body,
            "T — 120 of 480 KB"
        );
        assert_eq!(
            bytes_note("T", 0, Some(8_400_000)).body,
            "T — 0.0 of 8.4 MB"
        );
        assert_eq!(
            bytes_note("T", 1_500_000_000, Some(2_000_000_000)).body,
            "T — 1.50 of 2.00 GB"
        );
        assert_eq!(pages_note(&progress(1, 1, 1)).body, "Saga #3 — 1 of 1 page");
    }
}
