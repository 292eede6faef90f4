//! The session's notification server (`org.freedesktop.Notifications`) over D-Bus through
//! libdbus, from a thread of its own because those calls block: notifications put up, updated
//! in place by key and taken down, in the order they were asked for; their actions offered
//! when the server shows actions (`GetCapabilities` lists "actions") and the reader's
//! invocations handed back.
//!
//! One connection carries everything. Servers send `ActionInvoked` and `NotificationClosed`
//! to the connection that put the notification up (dunst addresses them to it alone), so
//! listening on another would hear nothing. While a notification with actions is up, the
//! thread waits on the bus for those signals and looks at its calls every [`CALL_TICK`];
//! otherwise it sleeps until the next call.
//!
//! [`ReadOffers`] tells the shell whether a notification offering Read may still be on
//! screen: the background app stays on for it.

use std::collections::{HashMap, VecDeque};
use std::path::Path;
use std::sync::{mpsc, Arc, Mutex, MutexGuard};
use std::time::{Duration, Instant};

use dbus::arg::{PropMap, RefArg, Variant};
use dbus::blocking::Connection;
use dbus::message::MessageType;
use dbus::Message;

use super::{
    ActionHandler, Call, Note, NoteAction, NoteKind, Notifier, APP_NAME, DEFAULT_ACTION_KEY,
};

const SERVICE: &str = "org.freedesktop.Notifications";
const PATH: &str = "/org/freedesktop/Notifications";
const INTERFACE: &str = "org.freedesktop.Notifications";
/// How long one call to the notification server may take.
const CALL_TIMEOUT: Duration = Duration::from_secs(2);
/// How long a call waits while the thread listens for the reader's actions.
const CALL_TICK: Duration = Duration::from_millis(200);
/// What the server's `GetCapabilities` lists when it shows actions.
const ACTIONS_CAPABILITY: &str = "actions";

/// The session's notification server, over D-Bus. Calls are handed to a thread of its own, in
/// order; each returns at once.
pub struct DesktopNotifier {
    calls: mpsc::Sender<Call>,
    on_action: Arc<Mutex<Option<ActionHandler>>>,
    read_offers: Arc<ReadOffers>,
}

impl DesktopNotifier {
    /// Starts the thread that talks to the notification server. It ends when the notifier is
    /// dropped.
    pub fn start() -> DesktopNotifier {
        let (calls, rx) = mpsc::channel();
        let on_action: Arc<Mutex<Option<ActionHandler>>> = Arc::default();
        let read_offers: Arc<ReadOffers> = Arc::default();
        let desktop = Desktop::new(app_icon(), on_action.clone(), read_offers.clone());
        let spawned = std::thread::Builder::new()
            .name("notifications".into())
            .spawn(move || desktop.serve(rx));
        if let Err(e) = spawned {
            tracing::warn!(cause = %e, "desktop notifications are unavailable");
        }
        DesktopNotifier {
            calls,
            on_action,
            read_offers,
        }
    }

    /// The notifications offering Read that may still be on screen.
    pub fn read_offers(&self) -> Arc<ReadOffers> {
        self.read_offers.clone()
    }
}

impl Notifier for DesktopNotifier {
    fn send(&self, call: Call) {
        // Counted before the thread can take it, so that no moment passes in which the
        // notification is neither asked for nor up.
        let reads = call.note().is_some_and(offers_read);
        if reads {
            self.read_offers.asked(Instant::now());
        }
        // The thread is gone only when it could not start; that was logged then.
        if self.calls.send(call).is_err() && reads {
            self.read_offers.answered(None, Instant::now());
        }
    }
    fn on_action(&self, handler: ActionHandler) {
        *self.on_action.lock().unwrap_or_else(|p| p.into_inner()) = Some(handler);
    }
}

/// The notification's icon: the one an installed package put beside the binary (`…/bin/carrel`
/// → `…/share/icons/hicolor/<size>/apps/carrel.png`), else its name in the icon theme.
fn app_icon() -> String {
    const NAME: &str = "carrel";
    let prefix = std::env::current_exe()
        .ok()
        .and_then(|exe| exe.parent().and_then(Path::parent).map(Path::to_path_buf));
    if let Some(prefix) = prefix {
        for size in ["128x128", "256x256", "512x512", "32x32"] {
            let path = prefix.join(format!("share/icons/hicolor/{size}/apps/{NAME}.png"));
            if path.is_file() {
                return path.to_string_lossy().into_owned();
            }
        }
    }
    NAME.to_owned()
}

/// Whether `note` offers to open its book to read.
fn offers_read(note: &Note) -> bool {
    note.actions
        .iter()
        .any(|a| matches!(a, NoteAction::Read { .. }))
}

/// The notifications offering Read that may still be on screen, each from the moment it is
/// asked for (before the notifications thread took the call) until the notification server
/// says it closed, it is taken down or replaced by one without Read, or the connection is
/// lost. One the server did not show, or showed without its actions, does not count. Servers
/// that keep notifications in a list may never say they closed: the caller says how long one
/// counts at most.
#[derive(Debug, Default)]
pub struct ReadOffers {
    inner: Mutex<Offers>,
}

#[derive(Debug, Default)]
struct Offers {
    /// When each call not yet taken by the thread was made, oldest first (the thread takes
    /// calls in order).
    asked: VecDeque<Instant>,
    /// The notifications up with Read, by the server's id, and since when.
    up: HashMap<u32, Instant>,
}

impl ReadOffers {
    fn lock(&self) -> MutexGuard<'_, Offers> {
        self.inner.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// A call that puts up a notification offering Read was made at `now`.
    fn asked(&self, now: Instant) {
        self.lock().asked.push_back(now);
    }

    /// The oldest such call was handled at `now`: the notification is up under `shown` with
    /// its Read, or (`None`) it is not.
    fn answered(&self, shown: Option<u32>, now: Instant) {
        let mut offers = self.lock();
        offers.asked.pop_front();
        if let Some(id) = shown {
            offers.up.insert(id, now);
        }
    }

    /// The notification `id` offers Read no more (closed, taken down, replaced).
    fn gone(&self, id: u32) {
        self.lock().up.remove(&id);
    }

    /// The connection that put the notifications up is lost, and so are they.
    fn all_gone(&self) {
        self.lock().up.clear();
    }

    /// Whether a notification offering Read is asked for or up at `now`, counting none asked
    /// for or shown `longest` ago or earlier.
    pub fn any(&self, now: Instant, longest: Duration) -> bool {
        let mut offers = self.lock();
        let recent = |since: &Instant| now.saturating_duration_since(*since) < longest;
        offers.up.retain(|_, since| recent(since));
        offers.asked.iter().any(recent) || !offers.up.is_empty()
    }
}

/// The notifier thread's side: its connection and the notifications it put up.
struct Desktop {
    icon: String,
    on_action: Arc<Mutex<Option<ActionHandler>>>,
    read_offers: Arc<ReadOffers>,
    /// The session bus, once reached; dropped when it fails, and opened again at the next call.
    bus: Option<Connection>,
    /// Whether the server shows actions; `None`: not asked yet (or the answer was lost).
    shows_actions: Option<bool>,
    /// The server's id of the notification up under each key.
    shown: HashMap<String, u32>,
    /// Notifications with actions, by the server's id, until the server says they closed: a
    /// "ready" one outlives its key (nothing updates it, the reader may still click it).
    offered: HashMap<u32, Note>,
    /// Whether the last call failed (so a missing server is logged once, not per call).
    failing: bool,
}

impl Desktop {
    fn new(
        icon: String,
        on_action: Arc<Mutex<Option<ActionHandler>>>,
        read_offers: Arc<ReadOffers>,
    ) -> Desktop {
        Desktop {
            icon,
            on_action,
            read_offers,
            bus: None,
            shows_actions: None,
            shown: HashMap::new(),
            offered: HashMap::new(),
            failing: false,
        }
    }

    fn serve(mut self, calls: mpsc::Receiver<Call>) {
        loop {
            if self.offered.is_empty() || self.bus.is_none() {
                match calls.recv() {
                    Ok(call) => self.handle(call),
                    Err(_) => return,
                }
            } else {
                self.listen(CALL_TICK);
            }
            loop {
                match calls.try_recv() {
                    Ok(call) => self.handle(call),
                    Err(mpsc::TryRecvError::Empty) => break,
                    Err(mpsc::TryRecvError::Disconnected) => return,
                }
            }
            self.listen(Duration::ZERO);
        }
    }

    fn handle(&mut self, call: Call) {
        match call {
            Call::Show { key, note } | Call::Update { key, note } => self.put_up(key, note),
            Call::Close { key } => {
                if let Some(id) = self.shown.remove(&key) {
                    self.offered.remove(&id);
                    self.read_offers.gone(id);
                    if let Some(bus) = &self.bus {
                        let _: Result<(), _> = bus
                            .with_proxy(SERVICE, PATH, CALL_TIMEOUT)
                            .method_call(INTERFACE, "CloseNotification", (id,));
                    }
                }
            }
        }
    }

    /// The session bus, connected (and listening for the server's signals) when it was not.
    fn bus(&mut self) -> Result<&Connection, dbus::Error> {
        if self.bus.is_none() {
            let bus = Connection::new_session()?;
            for member in ["ActionInvoked", "NotificationClosed"] {
                bus.add_match_no_cb(&format!(
                    "type='signal',sender='{INTERFACE}',interface='{INTERFACE}',member='{member}'"
                ))?;
            }
            self.bus = Some(bus);
        }
        Ok(self.bus.as_ref().expect("connected above"))
    }

    /// Forgets the connection and what was shown through it, after a failed call that left
    /// it unusable.
    fn disconnect(&mut self) {
        self.bus = None;
        self.shows_actions = None;
        self.shown.clear();
        self.offered.clear();
        self.read_offers.all_gone();
    }

    /// Whether the server shows actions, asked once per connection.
    fn shows_actions(&mut self) -> bool {
        if let Some(known) = self.shows_actions {
            return known;
        }
        let asked: Result<(Vec<String>,), dbus::Error> = match self.bus() {
            Ok(bus) => bus.with_proxy(SERVICE, PATH, CALL_TIMEOUT).method_call(
                INTERFACE,
                "GetCapabilities",
                (),
            ),
            Err(e) => Err(e),
        };
        match asked {
            Ok((capabilities,)) => {
                let shows = capabilities.iter().any(|c| c == ACTIONS_CAPABILITY);
                self.shows_actions = Some(shows);
                shows
            }
            // Asked again with the next notification.
            Err(_) => false,
        }
    }

    /// Shows `note` under `key`, in place of the notification already up under it.
    fn put_up(&mut self, key: String, mut note: Note) {
        let reads = offers_read(&note);
        if !note.actions.is_empty() && !self.shows_actions() {
            note.actions.clear();
        }
        let replaces = self.shown.get(&key).copied().unwrap_or(0);
        let args = self.notify_args(&note, replaces);
        let result = match self.bus() {
            Ok(bus) => bus
                .with_proxy(SERVICE, PATH, CALL_TIMEOUT)
                .method_call(INTERFACE, "Notify", args)
                .map(|(id,): (u32,)| id),
            Err(e) => Err(e),
        };
        match result {
            Ok(id) => {
                self.failing = false;
                if replaces != 0 && replaces != id {
                    self.offered.remove(&replaces);
                    self.read_offers.gone(replaces);
                }
                if reads && !note.actions.is_empty() {
                    self.read_offers.answered(Some(id), Instant::now());
                } else {
                    self.read_offers.gone(id);
                    if reads {
                        self.read_offers.answered(None, Instant::now());
                    }
                }
                if note.actions.is_empty() {
                    self.offered.remove(&id);
                }
                if note.kind == NoteKind::Ready {
                    // Nothing updates it again; the server keeps showing it.
                    self.shown.remove(&key);
                } else {
                    self.shown.insert(key, id);
                }
                if !note.actions.is_empty() {
                    self.offered.insert(id, note);
                }
            }
            Err(e) => {
                if !self.failing {
                    tracing::warn!(cause = %e, "cannot show a desktop notification");
                } else {
                    tracing::debug!(cause = %e, "cannot show a desktop notification");
                }
                self.failing = true;
                if reads {
                    self.read_offers.answered(None, Instant::now());
                }
                let lost = self
                    .bus
                    .as_ref()
                    .is_some_and(|bus| !bus.channel().is_connected());
                if lost {
                    self.disconnect();
                } else {
                    // The server may be another one next time: ask what it shows again.
                    self.shows_actions = None;
                    self.shown.remove(&key);
                }
            }
        }
    }

    /// `Notify`'s arguments: app name, id replaced, icon, summary, body, actions, hints and
    /// timeout.
    #[allow(clippy::type_complexity)]
    fn notify_args(
        &self,
        note: &Note,
        replaces: u32,
    ) -> (
        String,
        u32,
        String,
        String,
        String,
        Vec<String>,
        PropMap,
        i32,
    ) {
        let mut actions = Vec::new();
        for action in &note.actions {
            if action.is_default() {
                actions.push(DEFAULT_ACTION_KEY.to_owned());
                actions.push(action.label());
            }
            actions.push(action.key().to_owned());
            actions.push(action.label());
        }
        let mut hints = PropMap::new();
        let mut hint = |name: &str, value: Box<dyn RefArg>| {
            hints.insert(name.to_owned(), Variant(value));
        };
        match note.kind {
            NoteKind::Progress { percent } => {
                hint("category", Box::new("transfer".to_owned()));
                hint("urgency", Box::new(0u8));
                if let Some(p) = percent {
                    // The progress bar of servers that draw one (dunst, KDE).
                    hint("value", Box::new(i32::from(p)));
                }
            }
            NoteKind::Ready => hint("category", Box::new("transfer.complete".to_owned())),
            NoteKind::Paused => hint("category", Box::new("network.disconnected".to_owned())),
            NoteKind::InBackground => {}
        }
        (
            APP_NAME.to_owned(),
            replaces,
            self.icon.clone(),
            note.summary.clone(),
            // Notification servers read the body as markup: a title from a catalog is text.
            escape_markup(&note.body),
            actions,
            hints,
            // The server's own timeout.
            -1,
        )
    }

    /// Takes the server's signals that arrived, waiting up to `wait` for the first.
    fn listen(&mut self, wait: Duration) {
        let Some(bus) = &self.bus else {
            return;
        };
        let mut signals = Vec::new();
        let mut lost = false;
        let mut wait = wait;
        loop {
            match bus.channel().blocking_pop_message(wait) {
                Ok(Some(message)) => {
                    signals.push(message);
                    wait = Duration::ZERO;
                }
                Ok(None) => break,
                Err(e) => {
                    tracing::debug!(cause = %e, "the session bus went away");
                    lost = true;
                    break;
                }
            }
        }
        for message in signals {
            self.signal(&message);
        }
        if lost {
            self.disconnect();
        }
    }

    fn signal(&mut self, message: &Message) {
        if message.msg_type() != MessageType::Signal
            || message.interface().as_deref() != Some(INTERFACE)
        {
            return;
        }
        match message.member().as_deref() {
            Some("ActionInvoked") => {
                let Ok((id, key)) = message.read2::<u32, String>() else {
                    return;
                };
                let Some(action) = self.offered.get(&id).and_then(|note| note.action(&key)) else {
                    return;
                };
                tracing::info!(
                    action = action.key(),
                    book = action.book_id(),
                    "notification action"
                );
                let handler = self.on_action.lock().unwrap_or_else(|p| p.into_inner());
                if let Some(handler) = handler.as_ref() {
                    handler(action);
                }
            }
            Some("NotificationClosed") => {
                let Ok((id, _reason)) = message.read2::<u32, u32>() else {
                    return;
                };
                self.offered.remove(&id);
                self.read_offers.gone(id);
                self.shown.retain(|_, shown| *shown != id);
            }
            _ => {}
        }
    }
}

/// Escapes the characters notification servers treat as markup in a body.
fn escape_markup(text: &str) -> String {
    text.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
}

#[cfg(test)]
mod read_offers_tests {
    use super::*;

    const LIMIT: Duration = Duration::from_secs(600);

    #[test]
    fn an_offer_counts_from_the_call_until_the_server_says_it_closed() {
        let offers = ReadOffers::default();
        let t0 = Instant::now();
        assert!(!offers.any(t0, LIMIT));
        // Asked for, not yet taken by the thread.
        offers.asked(t0);
        assert!(offers.any(t0, LIMIT));
        offers.answered(Some(7), t0 + Duration::from_millis(5));
        assert!(offers.any(t0 + Duration::from_secs(1), LIMIT));
        offers.gone(7);
        assert!(!offers.any(t0 + Duration::from_secs(1), LIMIT));
    }

    #[test]
    fn an_offer_not_shown_with_its_actions_does_not_count() {
        let offers = ReadOffers::default();
        let t0 = Instant::now();
        offers.asked(t0);
        offers.answered(None, t0);
        assert!(!offers.any(t0, LIMIT));
    }

    #[test]
    fn each_offer_counts_until_its_own_notification_goes() {
        let offers = ReadOffers::default();
        let t0 = Instant::now();
        offers.asked(t0);
        offers.asked(t0);
        offers.answered(Some(1), t0);
        assert!(offers.any(t0, LIMIT), "the second is still asked for");
        offers.answered(Some(2), t0);
        offers.gone(1);
        assert!(offers.any(t0, LIMIT), "the second is still up");
        offers.gone(2);
        assert!(!offers.any(t0, LIMIT));
    }

    #[test]
    fn an_offer_counts_no_longer_than_the_limit() {
        let offers = ReadOffers::default();
        let t0 = Instant::now();
        offers.asked(t0);
        offers.answered(Some(3), t0);
        assert!(offers.any(t0 + LIMIT - Duration::from_secs(1), LIMIT));
        assert!(!offers.any(t0 + LIMIT, LIMIT));
        // A call the thread never took (it stopped) counts no longer either.
        offers.asked(t0);
        assert!(offers.any(t0, LIMIT));
        assert!(!offers.any(t0 + LIMIT, LIMIT));
    }

    #[test]
    fn a_lost_connection_takes_its_notifications_but_not_the_calls_to_come() {
        let offers = ReadOffers::default();
        let t0 = Instant::now();
        offers.asked(t0);
        offers.answered(Some(1), t0);
        offers.asked(t0);
        offers.all_gone();
        assert!(offers.any(t0, LIMIT), "the call not yet taken still counts");
        offers.answered(None, t0);
        assert!(!offers.any(t0, LIMIT));
    }
}

#[cfg(test)]
mod markup_tests {
    #[test]
    fn titles_are_text_not_markup() {
        assert_eq!(
            super::escape_markup("Tom & Jerry <b>#3</b>"),
            "Tom &amp; Jerry &lt;b&gt;#3&lt;/b&gt;"
        );
    }
}
