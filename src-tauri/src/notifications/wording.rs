//! What a notification says: a book's progress in pages or in bytes, with sizes as people read
//! them (KB, MB, GB) and a percentage when the whole is known; what its buttons say.

use carrel_core::engine::progress::BookProgress;

use super::{Note, NoteAction, NoteKind, PROGRESS_SUMMARY};

pub(super) fn action_label(action: NoteAction) -> &'static str {
    match action {
        // The engine pauses every download, not one book's: the button says so.
        NoteAction::Pause { .. } => "Pause downloads",
        NoteAction::Cancel { .. } => "Cancel",
        NoteAction::Read { .. } => "Read",
        NoteAction::OpenCarrel => "Open Carrel",
    }
}

pub(super) fn percent(part: u64, whole: u64) -> Option<u8> {
    (whole > 0).then(|| (part.min(whole) * 100 / whole) as u8)
}

pub(super) fn pages_note(p: &BookProgress) -> Note {
    let unit = if p.total_parts == 1 { "page" } else { "pages" };
    Note {
        summary: PROGRESS_SUMMARY.to_owned(),
        body: format!(
            "{} — {} of {} {unit}",
            p.title, p.stored_parts, p.total_parts
        ),
        kind: NoteKind::Progress {
            percent: percent(p.stored_parts, p.total_parts),
        },
        actions: Vec::new(),
    }
}

pub(super) fn bytes_note(title: &str, bytes: u64, total: Option<u64>) -> Note {
    let amount = match total {
        Some(total) if total > 0 => {
            let unit = Unit::for_size(total);
            format!(
                "{} of {} {}",
                unit.format(bytes),
                unit.format(total),
                unit.name()
            )
        }
        _ => {
            let unit = Unit::for_size(bytes);
            format!("{} {}", unit.format(bytes), unit.name())
        }
    };
    Note {
        summary: PROGRESS_SUMMARY.to_owned(),
        body: format!("{title} — {amount}"),
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
    fn name(self) -> &'static str {
        match self {
            Unit::Kb => "KB",
            Unit::Mb => "MB",
            Unit::Gb => "GB",
        }
    }
    fn format(self, bytes: u64) -> String {
        match self {
            Unit::Kb => format!("{}", bytes.div_ceil(1000)),
            Unit::Mb => format!("{:.1}", bytes as f64 / 1e6),
            Unit::Gb => format!("{:.2}", bytes as f64 / 1e9),
        }
    }
}
