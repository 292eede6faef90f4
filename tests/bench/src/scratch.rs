//! What the benchmark writes stays on the disk until it ends. An ext4 without a journal (see
//! [`unjournaled_note`]) does not give an inode freed in the last minute or so to a new file,
//! and walks past each such inode to find a free one: a measurement that follows the deletion
//! of thousands of files (an earlier repetition's, or an earlier group's) pays for that walk
//! at every file it creates — measured here at up to three quarters of a 1 KiB task's time,
//! and more for whichever side happened to follow the larger deletion. Everything kept here is removed once, when the benchmark is done.
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

/// What the benchmark's scratch folder (`TMPDIR`) lives on, when that may skew the figures:
/// an ext4 without a journal. Only there does ext4 walk past the inodes freed in the last
/// minute (`find_inode_bit` checks `recently_deleted` only when `s_journal` is NULL), so only
/// there does a file created after a large deletion cost so much more. A desktop's ext4 has a
/// journal; so does the image `mkfs.ext4` makes by default, which can be mounted (`mount -o
/// loop`) and named in `TMPDIR` for steadier figures. `None` when the folder is on anything
/// else, or when Linux's `/proc` and `/sys` cannot tell.
pub fn unjournaled_note() -> Option<String> {
    let dir = std::env::temp_dir().canonicalize().ok()?;
    let mounts = std::fs::read_to_string("/proc/self/mountinfo").ok()?;
    // The mount whose point is the longest prefix of the folder: (point, major:minor, type).
    let (point, device, fstype) = mounts
        .lines()
        .filter_map(|line| {
            let fields: Vec<&str> = line.split(' ').collect();
            let sep = fields.iter().position(|f| *f == "-")?;
            Some((
                std::path::PathBuf::from(*fields.get(4)?),
                (*fields.get(2)?).to_owned(),
                (*fields.get(sep + 1)?).to_owned(),
            ))
        })
        .filter(|(point, _, _)| dir.starts_with(point))
        .max_by_key(|(point, _, _)| point.as_os_str().len())?;
    if fstype != "ext4" {
        return None;
    }
    // The device's kernel name (`vda`, `loop0`, `dm-1`) names its journal under `/proc/fs/jbd2`.
    let name = std::fs::read_link(format!("/sys/dev/block/{device}")).ok()?;
    let name = name.file_name()?.to_string_lossy().into_owned();
    let journals = std::fs::read_dir("/proc/fs/jbd2").ok();
    let journaled = journals.is_some_and(|entries| {
        entries.flatten().any(|e| {
            e.file_name()
                .to_string_lossy()
                .starts_with(&format!("{name}-"))
        })
    });
    (!journaled).then(|| {
        format!(
            "{} is on an ext4 without a journal ({name}, mounted at {}): there, creating a file walks past every inode freed in the last minute, and the figures swing with what was deleted before; a journaled filesystem in TMPDIR gives steadier ones",
            dir.display(),
            point.display()
        )
    })
}
