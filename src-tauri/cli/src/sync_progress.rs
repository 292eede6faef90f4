//! A one-line progress display for `sync` on a terminal: the book being fetched, its parts and
//! the executor's state, redrawn at most a few times a second.

use std::io::Write;
use std::sync::Mutex;
use std::time::{Duration, Instant};

use carrel_core::engine::progress::{DownloadEvent, ExecutorState, ProgressSink};

#[derive(Default)]
pub struct TerminalProgress {
    last_draw: Mutex<Option<Instant>>,
}

const WIDTH: usize = 24;

fn bar(done: u64, total: u64) -> String {
    let filled = if total == 0 {
        0
    } else {
        (done.min(total) as usize * WIDTH) / total as usize
    };
    format!("[{}{}]", "#".repeat(filled), " ".repeat(WIDTH - filled))
}

impl TerminalProgress {
    fn draw(&self, line: &str, force: bool) {
        let mut last = self.last_draw.lock().unwrap_or_else(|p| p.into_inner());
        if !force && last.is_some_and(|t| t.elapsed() < Duration::from_millis(150)) {
            return;
        }
        *last = Some(Instant::now());
        let mut err = std::io::stderr().lock();
        let _ = write!(err, "\r\x1b[2K{line}");
        if force {
            let _ = writeln!(err);
        }
        let _ = err.flush();
    }
}

impl ProgressSink for TerminalProgress {
    fn report(&self, event: DownloadEvent) {
        match event {
            DownloadEvent::Book(p) => self.draw(
                &format!(
                    "{} {} {}/{} parts",
                    bar(p.stored_parts, p.total_parts),
                    p.title,
                    p.stored_parts,
                    p.total_parts
                ),
                false,
            ),
            DownloadEvent::BookStored(p) => self.draw(
                &format!(
                    "✓ {} — ready to read offline ({} parts)",
                    p.title, p.total_parts
                ),
                true,
            ),
            DownloadEvent::TaskBytes {
                bytes,
                total: Some(total),
                ..
            } => self.draw(
                &format!(
                    "{} {} of {} KiB",
                    bar(bytes, total),
                    bytes / 1024,
                    total / 1024
                ),
                false,
            ),
            DownloadEvent::TaskFailed {
                reason, will_retry, ..
            } => {
                let then = if will_retry { ", will retry" } else { "" };
                self.draw(&format!("! {reason}{then}"), true)
            }
            DownloadEvent::State(ExecutorState::Backoff { reason, .. }) => {
                self.draw(&format!("paused: {reason}; retrying"), true)
            }
            _ => {}
        }
    }
}
