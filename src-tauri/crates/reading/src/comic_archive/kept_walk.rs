//! The walk an open RAR, 7z or tar comic keeps between page reads, for
//! [`super::ComicArchive`]: positioned just after the last entry it read, so a page further on
//! continues it instead of decompressing the archive from its start again; only a page before
//! its position starts a new walk.
//!
//! A walk must end on the thread it began on ([`Walk`] is not `Send`: its thread reads entry
//! names in a UTF-8 character set while it lives), so the kept walk lives on a thread of its
//! own, started at the first page walked to and ended when the archive is dropped, which reads
//! the pages asked of it one request at a time. While it is busy with one, a page asked from
//! another thread is read by a walk of its own from the archive's start on the asking thread,
//! as every page was before walks were kept: a long walk never holds up another page.
//!
//! What keeping it costs: one open file, one parked thread, and libarchive's reader with its
//! decoder state — a 128 KiB read block; for a 7z the LZMA dictionary its header declares
//! (64 KiB to 64 MiB for 7-Zip's compression levels, at most the size of the data it
//! decodes) and the folder's decoding buffers; for a RAR its window (at most 4 MiB for RAR 4,
//! up to the dictionary a RAR 5 declares); for a tar nothing more. Every walk allocated the same
//! while it ran; keeping it holds that memory between pages too, for at most one walk a
//! archive (and the reader keeps only a few archives open).
//!
//! The budget is the walk's, as before: a kept walk has decompressed exactly what a new walk
//! to its position would have, counted the same way ([`Walk`] counts every byte from the
//! archive's start), so no page costs more than [`super::WalkBudget`] allows, and a walk that
//! has run out of it, or stopped inside an entry it would otherwise skip uncounted (a page
//! past [`MAX_PAGE_BYTES`]), is never kept.

use std::collections::HashMap;
use std::path::PathBuf;
use std::sync::mpsc::{self, Receiver, Sender};
use std::sync::{Mutex, TryLockError};
use std::thread::JoinHandle;

use crate::archive_error::{ArchiveError, Container, MAX_ENTRIES, MAX_PAGE_BYTES};
use crate::archive_walk::Walk;

/// A page to read: its index among the pages, its place among the archive's entries (the
/// order a walk meets them in) and its entry name (checked when it is met).
#[derive(Debug, Clone)]
pub(crate) struct Wanted {
    pub page: usize,
    pub entry: usize,
    pub name: String,
}

/// Pages read, by page index; each at most [`MAX_PAGE_BYTES`] + 1 bytes (one more is a page
/// too large, cut there, for the caller to refuse).
pub(crate) type Read = HashMap<usize, Vec<u8>>;

/// The archive a walk goes through, and how much one walk may decompress.
#[derive(Debug, Clone)]
struct Source {
    path: PathBuf,
    container: Container,
    budget: u64,
}

/// The walk kept for one open archive (see the module's documentation).
pub(crate) struct KeptWalk {
    source: Source,
    /// The thread holding the walk, once a page was walked to.
    worker: Mutex<Option<Worker>>,
}

impl std::fmt::Debug for KeptWalk {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("KeptWalk")
            .field("source", &self.source)
            .finish_non_exhaustive()
    }
}

impl KeptWalk {
    pub(crate) fn new(path: PathBuf, container: Container, budget: u64) -> KeptWalk {
        KeptWalk {
            source: Source {
                path,
                container,
                budget,
            },
            worker: Mutex::new(None),
        }
    }

    /// The pages `wanted` asks for: the first is the page asked, which must be read; the others
    /// are read ahead, those met on the way to the last of them, and left out when the walk
    /// runs out of budget after the first was read. The kept walk reads them when it is free
    /// (continued when the first lies ahead of it), else a walk of their own.
    pub(crate) fn read(&self, wanted: &[Wanted]) -> Result<Read, ArchiveError> {
        if wanted.is_empty() {
            return Ok(Read::new());
        }
        let mut worker = match self.worker.try_lock() {
            Ok(worker) => worker,
            Err(TryLockError::Poisoned(poisoned)) => poisoned.into_inner(),
            Err(TryLockError::WouldBlock) => return walk_pages(&mut None, &self.source, wanted),
        };
        if worker.is_none() {
            *worker = Some(Worker::start(self.source.clone())?);
        }
        let (reply, answer) = mpsc::channel();
        let sent = worker
            .as_ref()
            .and_then(|w| w.requests.as_ref())
            .map(|requests| requests.send(Message::Read(wanted.to_vec(), reply)));
        let outcome = match sent {
            Some(Ok(())) => answer.recv().ok(),
            _ => None,
        };
        outcome.unwrap_or_else(|| {
            // The thread ended without an answer (it panicked): it is let go (its walk went
            // with it), and the next page starts a new one.
            *worker = None;
            Err(stopped())
        })
    }

    /// Whether a walk is kept now (a thread holds one).
    #[cfg(test)]
    fn has_worker(&self) -> bool {
        self.worker
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .is_some()
    }

    /// A flag the kept walk's thread clears as it ends (after freeing its walk).
    #[cfg(test)]
    fn worker_alive(&self) -> Option<std::sync::Arc<std::sync::atomic::AtomicBool>> {
        self.worker
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .as_ref()
            .map(|w| w.alive.clone())
    }

    /// Makes the kept walk's thread panic, as a fault in a walk would; answers as a page read
    /// would then.
    #[cfg(test)]
    fn panic_worker(&self) -> Result<Read, ArchiveError> {
        let mut worker = self.worker.lock().unwrap_or_else(|p| p.into_inner());
        let Some(requests) = worker.as_ref().and_then(|w| w.requests.as_ref()) else {
            return Ok(Read::new());
        };
        let (reply, answer) = mpsc::channel();
        let _ = requests.send(Message::Panic(reply));
        answer.recv().unwrap_or_else(|_| {
            *worker = None;
            Err(stopped())
        })
    }
}

fn stopped() -> ArchiveError {
    ArchiveError::Io("the archive's reader stopped unexpectedly".into())
}

/// What the kept walk's thread is asked.
enum Message {
    Read(Vec<Wanted>, Sender<Result<Read, ArchiveError>>),
    #[cfg(test)]
    Panic(Sender<Result<Read, ArchiveError>>),
}

/// The thread that holds the kept walk.
struct Worker {
    /// Dropped first, which ends the thread's loop.
    requests: Option<Sender<Message>>,
    thread: Option<JoinHandle<()>>,
    #[cfg(test)]
    alive: std::sync::Arc<std::sync::atomic::AtomicBool>,
}

impl Worker {
    fn start(source: Source) -> Result<Worker, ArchiveError> {
        let (requests, inbox) = mpsc::channel();
        #[cfg(test)]
        let alive = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(true));
        #[cfg(test)]
        let flag = alive.clone();
        let thread = std::thread::Builder::new()
            .name("archive walk".into())
            .spawn(move || {
                #[cfg(test)]
                let _alive = Cleared(flag);
                serve(&source, &inbox);
            })
            .map_err(|e| ArchiveError::Io(format!("cannot start the archive's reader: {e}")))?;
        Ok(Worker {
            requests: Some(requests),
            thread: Some(thread),
            #[cfg(test)]
            alive,
        })
    }
}

/// Clears its flag when dropped: as its thread ends, also by a panic.
#[cfg(test)]
struct Cleared(std::sync::Arc<std::sync::atomic::AtomicBool>);

#[cfg(test)]
impl Drop for Cleared {
    fn drop(&mut self) {
        self.0.store(false, std::sync::atomic::Ordering::SeqCst);
    }
}

impl Drop for Worker {
    /// Ends the thread and waits for it: its walk is freed on it. It is idle by then (a
    /// request is only sent while the worker is borrowed), so this waits for nothing longer
    /// than freeing the walk.
    fn drop(&mut self) {
        drop(self.requests.take());
        if let Some(thread) = self.thread.take() {
            let _ = thread.join();
        }
    }
}

/// The kept walk's thread: answers requests until the archive lets it go. Its walk is dropped
/// here, on the thread it began on.
fn serve(source: &Source, inbox: &Receiver<Message>) {
    let mut kept: Option<Position> = None;
    while let Ok(message) = inbox.recv() {
        match message {
            Message::Read(wanted, reply) => {
                let _ = reply.send(walk_pages(&mut kept, source, &wanted));
            }
            #[cfg(test)]
            Message::Panic(_reply) => panic!("a walk failed unexpectedly"),
        }
    }
}

/// A walk and the place of the next entry it will meet.
struct Position {
    walk: Walk,
    next: usize,
}

/// Reads `wanted` (see [`KeptWalk::read`]) with the walk in `kept` when the page asked lies at
/// or past its position, else with a new walk from the archive's start; leaves in `kept` the
/// walk positioned after the last entry read, when it may go on.
fn walk_pages(
    kept: &mut Option<Position>,
    source: &Source,
    wanted: &[Wanted],
) -> Result<Read, ArchiveError> {
    let asked = &wanted[0];
    // At most one walk an archive: one behind the page asked is freed before another opens.
    if kept.as_ref().is_some_and(|p| p.next > asked.entry) {
        *kept = None;
    }
    let mut position = match kept.take() {
        Some(position) => position,
        None => Position {
            walk: Walk::open(&source.path, source.container, source.budget)?,
            next: 0,
        },
    };
    // Pages ahead met before the position are not read again (that would take a new walk).
    let ahead: Vec<&Wanted> = wanted.iter().filter(|w| w.entry >= position.next).collect();
    let mut read = Read::new();
    match walk_on(&mut position, &ahead, &mut read) {
        Ok(true) => {
            *kept = Some(position);
            Ok(read)
        }
        Ok(false) => Ok(read),
        // Out of budget once the page asked was read: the pages ahead are left for later.
        Err(ArchiveError::DecompressesTooMuch { .. }) if read.contains_key(&asked.page) => Ok(read),
        Err(e) => Err(e),
    }
}

/// Walks on to the last of `ahead`, reading each of them and decompressing (counted) every
/// entry between; whether the walk may go on afterwards (not at the archive's end, not inside
/// an entry cut short).
fn walk_on(
    position: &mut Position,
    ahead: &[&Wanted],
    read: &mut Read,
) -> Result<bool, ArchiveError> {
    let Some(last) = ahead.iter().map(|w| w.entry).max() else {
        return Ok(true);
    };
    while position.next <= last {
        let Some(entry) = position.walk.next_entry()? else {
            return Ok(false);
        };
        let at = position.next;
        position.next += 1;
        if position.next > MAX_ENTRIES {
            return Err(ArchiveError::TooManyEntries);
        }
        let Some(wanted) = ahead.iter().find(|w| w.entry == at) else {
            // Passed over, but decompressed all the same: counted.
            position.walk.pass()?;
            continue;
        };
        if entry.name != wanted.name {
            return Err(ArchiveError::Damaged(format!(
                "the entry “{}” is missing",
                wanted.name
            )));
        }
        let bytes = position.walk.read(MAX_PAGE_BYTES + 1)?;
        let cut = bytes.len() as u64 > MAX_PAGE_BYTES;
        read.insert(wanted.page, bytes);
        if cut {
            // The rest of the entry would be skipped by libarchive, uncounted: the walk ends.
            return Ok(false);
        }
    }
    Ok(true)
}

#[cfg(test)]
mod tests;
