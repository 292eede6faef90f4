//! The session's notification server over D-Bus (notify-rust), called from a thread of its own
//! because those calls can block; notifications updated in place by key.

use std::collections::HashMap;
use std::path::Path;
use std::sync::mpsc;

use super::{Note, NoteKind, Notifier, APP_NAME};

/// The session's notification server, over D-Bus. Calls are handed to a thread of its own, in
/// order; each returns at once.
pub struct DesktopNotifier {
    calls: mpsc::Sender<Call>,
}

impl DesktopNotifier {
    /// Starts the thread that talks to the notification server. It ends when the notifier is
    /// dropped.
    pub fn start() -> DesktopNotifier {
        let (calls, rx) = mpsc::channel();
        let icon = app_icon();
        let spawned = std::thread::Builder::new()
            .name("notifications".into())
            .spawn(move || Desktop::new(icon).serve(rx));
        if let Err(e) = spawned {
            tracing::warn!(cause = %e, "desktop notifications are unavailable");
        }
        DesktopNotifier { calls }
    }

    fn send(&self, call: Call) {
        // The thread is gone only when it could not start; that was logged then.
        let _ = self.calls.send(call);
    }
}

impl Notifier for DesktopNotifier {
    fn show(&self, key: &str, note: Note) {
        self.send(Call::Show {
            key: key.to_owned(),
            note,
        });
    }
    fn update(&self, key: &str, note: Note) {
        self.send(Call::Update {
            key: key.to_owned(),
            note,
        });
    }
    fn close(&self, key: &str) {
        self.send(Call::Close {
            key: key.to_owned(),
        });
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

/// One call of a [`Notifier`], as [`RecordingNotifier`] keeps it.
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

/// The notifier thread's side: the notifications it put up, by key.
struct Desktop {
    icon: String,
    shown: HashMap<String, notify_rust::NotificationHandle>,
    /// Whether the last call failed (so a missing server is logged once, not per call).
    failing: bool,
}

impl Desktop {
    fn new(icon: String) -> Desktop {
        Desktop {
            icon,
            shown: HashMap::new(),
            failing: false,
        }
    }

    fn serve(mut self, calls: mpsc::Receiver<Call>) {
        for call in calls {
            match call {
                Call::Show { key, note } | Call::Update { key, note } => self.put_up(key, &note),
                Call::Close { key } => {
                    if let Some(handle) = self.shown.remove(&key) {
                        handle.close();
                    }
                }
            }
        }
    }

    fn notification(&self, note: &Note) -> notify_rust::Notification {
        use notify_rust::{Hint, Notification, Timeout, Urgency};
        let mut n = Notification::new();
        // Notification servers read the body as markup: a title from a catalog is text.
        n.appname(APP_NAME)
            .icon(&self.icon)
            .summary(&note.summary)
            .body(&escape_markup(&note.body));
        match note.kind {
            NoteKind::Progress { percent } => {
                n.hint(Hint::Category("transfer".into()))
                    .urgency(Urgency::Low);
                if let Some(p) = percent {
                    // The progress bar of servers that draw one (dunst, KDE).
                    n.hint(Hint::CustomInt("value".into(), i32::from(p)));
                }
            }
            NoteKind::Ready => {
                n.hint(Hint::Category("transfer.complete".into()));
            }
            NoteKind::Paused => {
                n.hint(Hint::Category("network.disconnected".into()));
            }
        }
        n.timeout(Timeout::Default);
        n
    }

    /// Shows `note` under `key`, in place of the notification already up under it.
    fn put_up(&mut self, key: String, note: &Note) {
        let fresh = self.notification(note);
        let mut result = Err(None);
        if let Some(handle) = self.shown.get_mut(&key) {
            **handle = fresh.clone();
            result = handle.update().map_err(Some);
            if result.is_err() {
                // The server forgot it (restarted?): put up a new one below.
                self.shown.remove(&key);
            }
        }
        if result.is_err() {
            result = match fresh.show() {
                Ok(handle) => {
                    self.shown.insert(key.clone(), handle);
                    Ok(())
                }
                Err(e) => Err(Some(e)),
            };
        }
        match result {
            Ok(()) => self.failing = false,
            Err(e) => {
                let cause = e.map(|e| e.to_string()).unwrap_or_default();
                if !self.failing {
                    tracing::warn!(%cause, "cannot show a desktop notification");
                } else {
                    tracing::debug!(%cause, "cannot show a desktop notification");
                }
                self.failing = true;
            }
        }
        if note.kind == NoteKind::Ready {
            // Nothing updates it again: let go of its connection, the server keeps showing it.
            self.shown.remove(&key);
        }
    }
}

/// Keeps every call, for tests.
/// Escapes the characters notification servers treat as markup in a body.
fn escape_markup(text: &str) -> String {
    text.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
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
