//! What a notification says, in the reader's language (`locales/*/shell.ftl`): a book's
//! progress in pages or in bytes, with sizes as people read them (KB, MB, GB) and a percentage
//! when the whole is known; what its buttons say.

use carrel_core::engine::progress::BookProgress;

use super::{Note, NoteAction, NoteKind};
use crate::messages::{self, arg};

pub(super) fn action_label(action: NoteAction) -> String {
    messages::text(match action {
        // The engine pauses every download, not one book's: the button says so.
        NoteAction::Pause { .. } => "notify-action-pause",
        NoteAction::Cancel { .. } => "notify-action-cancel",
        NoteAction::Read { .. } => "notify-action-read",
        NoteAction::OpenCarrel => "notify-action-open",
    })
}

pub(super) fn percent(part: u64, whole: u64) -> Option<u8> {
    (whole > 0).then(|| (part.min(whole) * 100 / whole) as u8)
}

pub(super) fn pages_note(p: &BookProgress) -> Note {
    Note {
        summary: messages::text("notify-downloading"),
        body: messages::text_with(
            "notify-pages",
            &[
                ("title", arg(p.title.as_str())),
                ("stored", p.stored_parts.into()),
                ("total", p.total_parts.into()),
            ],
        ),
        kind: NoteKind::Progress {
            percent: percent(p.stored_parts, p.total_parts),
        },
        actions: Vec::new(),
    }
}

pub(super) fn bytes_note(title: &str, bytes: u64, total: Option<u64>) -> Note {
    let said = messages::current();
    let body = match total {
        Some(total) if total > 0 => {
            let unit = Unit::for_size(total);
            said.format(
                "notify-bytes-of",
                &[
                    ("title", arg(title)),
                    ("done", arg(unit.format(bytes, &said))),
                    ("total", arg(unit.format(total, &said))),
                    ("unit", arg(said.format(unit.message(), &[]))),
                ],
            )
        }
        _ => {
            let unit = Unit::for_size(bytes);
            said.format(
                "notify-bytes",
                &[
                    ("title", arg(title)),
                    ("done", arg(unit.format(bytes, &said))),
                    ("unit", arg(said.format(unit.message(), &[]))),
                ],
            )
        }
    };
    Note {
        summary: said.format("notify-downloading", &[]),
        body,
        kind: NoteKind::Progress {
            percent: total.and_then(|t| percent(bytes, t)),
        },
        actions: Vec::new(),
    }
}

/// Decimal units, as file managers show sizes.
#[derive(Clone, Copy)]
enum Unit {
    Kb,
    Mb,
    Gb,
}

impl Unit {
    fn for_size(bytes: u64) -> Unit {
        match bytes {
            0..=999_999 => Unit::Kb,
            1_000_000..=999_999_999 => Unit::Mb,
            _ => Unit::Gb,
        }
    }
    /// The message of the unit's name ("KB", "Ko").
    fn message(self) -> &'static str {
        match self {
            Unit::Kb => "unit-kb",
            Unit::Mb => "unit-mb",
            Unit::Gb => "unit-gb",
        }
    }
    fn format(self, bytes: u64, said: &messages::Messages) -> String {
        match self {
            Unit::Kb => format!("{}", bytes.div_ceil(1000)),
            Unit::Mb => said.decimal(bytes as f64 / 1e6, 1),
            Unit::Gb => said.decimal(bytes as f64 / 1e9, 2),
        }
    }
}
