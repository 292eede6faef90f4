//! What the benchmark writes stays on the disk until it ends. ext4 does not give an inode
//! freed in the last minute or so to a new file, and walks past each such inode to find a free
//! one: a measurement that follows the deletion of thousands of files (an earlier repetition's,
//! or an earlier group's) pays for that walk at every file it creates — measured here at up to
//! three quarters of a 1 KiB task's time, and more for whichever side happened to follow the
//! larger deletion. Everything kept here is removed once, when the benchmark is done.
//! (A benchmark started less than a minute after another still meets the first one's
//! deletions: run them apart, or run a series with `--leave-scratch` — each run then leaves
//! its files where they are, says where, and the series' files are removed once it is over.)

use std::any::Any;
use std::sync::Mutex;

static KEPT: Mutex<Vec<Box<dyn Any + Send>>> = Mutex::new(Vec::new());

/// Keeps `files` (a temporary folder, a data dir) until the benchmark ends.
pub fn keep<T: Send + 'static>(files: T) {
    KEPT.lock()
        .unwrap_or_else(|e| e.into_inner())
        .push(Box::new(files));
}

/// Removes what was kept when dropped (unless told to leave it): held by `main` for the whole
/// run.
pub struct RemovedAtEnd {
    pub leave: bool,
}

impl Drop for RemovedAtEnd {
    fn drop(&mut self) {
        let kept = std::mem::take(&mut *KEPT.lock().unwrap_or_else(|e| e.into_inner()));
        if self.leave {
            eprintln!(
                "left on the disk, as asked: this run's temporary folders under {} (carrel-bench's own, named .tmp*)",
                std::env::temp_dir().display()
            );
            std::mem::forget(kept);
        } else {
            drop(kept);
        }
    }
}

/// Writes to the disk what earlier measurements left in the page cache, before a timed phase
/// starts (untimed). A side that syncs its files (the executor) would otherwise also write out
/// what the side before it left unsynced (a curl loop's 100 MB): in a 400-page series the
/// executor's time grew from 172 to 429 ms from one run to the next while the curl loop's
/// grew less, the ratio swinging with whichever came after more unsynced writes.
pub fn settle_disk() {
    if let Err(e) = std::process::Command::new("sync").status() {
        eprintln!("could not run sync before a measurement: {e}");
    }
}
