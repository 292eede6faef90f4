//! Where downloaded parts live on disk, and how they get there without ever leaving a torn file.
//!
//! Layout under the data dir: `books/<book id>/pages/<page>.<ext>`, `books/<book id>/book.<ext>`
//! (a whole acquisition), `books/<book id>/cover.<ext>`.
//!
//! A page or cover is written whole in one go ([`write_atomically`],
//! [`write_atomically_unsynced`]): on Linux as a file with no name (`O_TMPFILE`) that gets its
//! name once all its bytes are in it (`linkat`), one change to the folder; elsewhere, or when a
//! file of that name is there already, under a temporary name (`<name>.<random>.tmp.part`)
//! renamed over it. Either way the name never holds part of the bytes. The executor writes
//! pages unsynced and makes a batch durable with [`sync_written`] (each file, then each folder
//! once) before the stack marks their tasks done. A whole-book download streams into
//! `book.<task id>.part` ([`PartialFile`], resumed at its last checkpoint), which is synced and
//! renamed to `book.<ext>` when complete. A finished file therefore always has all its bytes,
//! so a restart that finds one never downloads it again.
//!
//! Also collects orphans: folders of books the store no longer knows, and stray temp files.
//! Owns the `books/` folder; knows nothing of SQL or HTTP.

use std::collections::{HashMap, HashSet};
use std::fs::{self, File, OpenOptions};
use std::io::{self, Seek, SeekFrom, Write};
use std::path::{Path, PathBuf};

/// The suffix of files being written.
pub const PARTIAL_SUFFIX: &str = "part";

/// The files of the books of one data dir.
#[derive(Debug, Clone)]
pub struct PartFiles {
    root: PathBuf,
}

impl PartFiles {
    pub fn new(books_dir: impl Into<PathBuf>) -> Self {
        PartFiles {
            root: books_dir.into(),
        }
    }

    pub fn book_dir(&self, book_id: i64) -> PathBuf {
        self.root.join(book_id.to_string())
    }

    fn pages_dir(&self, book_id: i64) -> PathBuf {
        self.book_dir(book_id).join("pages")
    }

    /// The final path of a page with the given file extension.
    pub fn page_path(&self, book_id: i64, page: i64, ext: &str) -> PathBuf {
        self.pages_dir(book_id).join(format!("{page:05}.{ext}"))
    }

    /// The stored file of page `page`, whatever its image type: a look at each name it may
    /// have (a book of 5,000 pages is not listed for every page).
    pub fn find_page(&self, book_id: i64, page: i64) -> Option<PathBuf> {
        let dir = self.pages_dir(book_id);
        PAGE_EXTENSIONS
            .iter()
            .map(|ext| dir.join(format!("{page:05}.{ext}")))
            .find(|p| p.is_file())
    }

    /// Every page stored for `book_id`, by page number, from one listing of its folder (none
    /// when the folder does not exist). For a caller that looks for many pages of one book in a
    /// row: a look at each name a page may have costs a lookup per name, which the folder's
    /// listing costs once.
    pub fn stored_pages(&self, book_id: i64) -> io::Result<HashMap<i64, PathBuf>> {
        let entries = match fs::read_dir(self.pages_dir(book_id)) {
            Ok(entries) => entries,
            Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(HashMap::new()),
            Err(e) => return Err(e),
        };
        let mut pages = HashMap::new();
        for entry in entries {
            let path = entry?.path();
            let page = path
                .file_name()
                .and_then(|n| n.to_str())
                .and_then(|n| n.split_once('.'))
                .filter(|(_, ext)| PAGE_EXTENSIONS.contains(ext))
                .and_then(|(stem, _)| stem.parse::<i64>().ok());
            if let Some(page) = page {
                pages.insert(page, path);
            }
        }
        Ok(pages)
    }

    /// The whole-book file (`book.cbz`, `book.epub`, ...).
    pub fn book_file_path(&self, book_id: i64, ext: &str) -> PathBuf {
        self.book_dir(book_id).join(format!("book.{ext}"))
    }

    pub fn find_book_file(&self, book_id: i64) -> Option<PathBuf> {
        find_with_stem(&self.book_dir(book_id), "book")
    }

    pub fn cover_path(&self, book_id: i64, ext: &str) -> PathBuf {
        self.book_dir(book_id).join(format!("cover.{ext}"))
    }

    pub fn find_cover(&self, book_id: i64) -> Option<PathBuf> {
        find_with_stem(&self.book_dir(book_id), "cover")
    }

    /// The temp file a whole-book download task streams into: one per task.
    pub fn book_partial_path(&self, book_id: i64, task_id: i64) -> PathBuf {
        self.book_dir(book_id)
            .join(format!("book.{task_id}.{PARTIAL_SUFFIX}"))
    }

    /// Partial whole-book files of a book, whatever their task.
    fn book_partials(&self, book_id: i64) -> Vec<PathBuf> {
        let Ok(entries) = fs::read_dir(self.book_dir(book_id)) else {
            return Vec::new();
        };
        entries
            .flatten()
            .map(|e| e.path())
            .filter(|p| {
                let name = p.file_name().and_then(|n| n.to_str()).unwrap_or("");
                name.starts_with("book.")
                    && name.ends_with(&format!(".{PARTIAL_SUFFIX}"))
                    && !name.contains(".tmp.")
            })
            .collect()
    }

    /// Deletes a book's folder and everything in it.
    pub fn remove_book(&self, book_id: i64) -> io::Result<()> {
        // A download of the book may be putting a file in place while its folder is removed
        // (its task is gone already, it stops at its next step): the folder is then found not
        // empty, and removed again.
        let mut tries = 0;
        loop {
            match fs::remove_dir_all(self.book_dir(book_id)) {
                Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(()),
                Err(e) if e.kind() == io::ErrorKind::DirectoryNotEmpty && tries < 20 => {
                    tries += 1;
                    std::thread::sleep(std::time::Duration::from_millis(5));
                }
                other => return other,
            }
        }
    }

    /// Removes folders of books not in `known` and stray `.part` files of known books that
    /// are not in `keep_partials` (interrupted downloads whose task is gone). Returns what was
    /// removed.
    pub fn collect_orphans(
        &self,
        known: &HashSet<i64>,
        keep_partials: &HashSet<i64>,
    ) -> io::Result<Vec<PathBuf>> {
        let mut removed = Vec::new();
        let entries = match fs::read_dir(&self.root) {
            Ok(e) => e,
            Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(removed),
            Err(e) => return Err(e),
        };
        for entry in entries {
            let entry = entry?;
            let path = entry.path();
            let id = entry
                .file_name()
                .to_str()
                .and_then(|n| n.parse::<i64>().ok());
            match id {
                Some(id) if known.contains(&id) => {
                    if !keep_partials.contains(&id) {
                        for partial in self.book_partials(id) {
                            fs::remove_file(&partial)?;
                            removed.push(partial);
                        }
                    }
                    for dir in [self.book_dir(id), self.pages_dir(id)] {
                        removed.extend(remove_stray_temps(&dir)?);
                    }
                }
                _ => {
                    if entry.file_type()?.is_dir() {
                        fs::remove_dir_all(&path)?;
                    } else {
                        fs::remove_file(&path)?;
                    }
                    removed.push(path);
                }
            }
        }
        Ok(removed)
    }

    /// Bytes used by a book on disk.
    pub fn book_size(&self, book_id: i64) -> u64 {
        dir_size(&self.book_dir(book_id))
    }
}

fn dir_size(dir: &Path) -> u64 {
    let Ok(entries) = fs::read_dir(dir) else {
        return 0;
    };
    entries
        .flatten()
        .map(|e| match e.file_type() {
            Ok(t) if t.is_dir() => dir_size(&e.path()),
            Ok(_) => e.metadata().map(|m| m.len()).unwrap_or(0),
            Err(_) => 0,
        })
        .sum()
}

/// Temp files of single-shot writes (`name.ext.<random>.part`) left by a crash.
fn remove_stray_temps(dir: &Path) -> io::Result<Vec<PathBuf>> {
    let mut removed = Vec::new();
    let Ok(entries) = fs::read_dir(dir) else {
        return Ok(removed);
    };
    for entry in entries.flatten() {
        let name = entry.file_name();
        let name = name.to_string_lossy();
        if name.ends_with(&format!(".tmp.{PARTIAL_SUFFIX}")) {
            fs::remove_file(entry.path())?;
            removed.push(entry.path());
        }
    }
    Ok(removed)
}

/// Every extension a stored page may have: the image types told from the bytes, `img` for any
/// other, and `bytes` for a part of a file read before the file is stored.
pub const PAGE_EXTENSIONS: [&str; 8] = ["jpg", "png", "webp", "gif", "avif", "bmp", "img", "bytes"];

fn find_with_stem(dir: &Path, stem: &str) -> Option<PathBuf> {
    let entries = fs::read_dir(dir).ok()?;
    entries.flatten().map(|e| e.path()).find(|p| {
        p.file_stem().and_then(|s| s.to_str()) == Some(stem)
            && p.extension()
                .and_then(|e| e.to_str())
                .is_some_and(|e| e != PARTIAL_SUFFIX)
    })
}

/// Writes `bytes` to `path` so that `path` either does not exist or holds all of them, and
/// syncs the file and its folder before returning: see [`put_in_place`].
pub fn write_atomically(path: &Path, bytes: &[u8]) -> io::Result<()> {
    put_in_place(path, bytes, Durability::Synced)
}

/// Like [`write_atomically`] (`path` either does not exist or holds every byte, whatever
/// moment the process is killed at) but without waiting for the disk: a power cut may still
/// lose the file or leave it short until [`sync_written`] has run over it.
pub fn write_atomically_unsynced(path: &Path, bytes: &[u8]) -> io::Result<()> {
    put_in_place(path, bytes, Durability::Unsynced)
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Durability {
    /// The file and its folder are on the disk before the call returns.
    Synced,
    /// In place for every reader at once; on the disk once [`sync_written`] has run.
    Unsynced,
}

/// Puts `bytes` at `path` so that `path` never holds part of them: on Linux unnamed then named
/// (`put_unnamed`); where that cannot be done, written to a temporary file beside `path` and
/// renamed into place, the temporary file removed when anything fails.
fn put_in_place(path: &Path, bytes: &[u8], durability: Durability) -> io::Result<()> {
    let dir = path
        .parent()
        .ok_or_else(|| io::Error::other("a part path has a folder"))?;
    #[cfg(target_os = "linux")]
    match put_unnamed(dir, path, bytes, durability) {
        Ok(true) => return Ok(()),
        Ok(false) => {}
        // The folder is made only when missing, below.
        Err(e) if e.kind() == io::ErrorKind::NotFound => {}
        Err(e) => return Err(e),
    }
    let tmp = temp_path_for(path);
    // The folder is made only when missing: a page after the first costs no look at it.
    let mut f = match File::create(&tmp) {
        Err(e) if e.kind() == io::ErrorKind::NotFound => {
            fs::create_dir_all(dir)?;
            File::create(&tmp)?
        }
        other => other?,
    };
    let result = (|| {
        f.write_all(bytes)?;
        if durability == Durability::Synced {
            f.sync_all()?;
        }
        drop(f);
        fs::rename(&tmp, path)?;
        match durability {
            Durability::Synced => sync_dir(dir),
            Durability::Unsynced => Ok(()),
        }
    })();
    if result.is_err() {
        let _ = fs::remove_file(&tmp);
    }
    result
}

/// [`put_in_place`] with a file that has no name until it is whole: written unnamed
/// (`O_TMPFILE`), then given `path`'s name (`linkat`). One change to the folder instead of two
/// (a temporary name, then the rename over it) — a profile of 1 KiB pages put a quarter of the
/// executor's thread in creating and renaming — and nothing left to clean up if the process
/// dies in between. `Ok(false)` when it cannot be done here (a filesystem without unnamed
/// files, no `/proc`, a file at `path` already): the caller writes under a temporary name.
#[cfg(target_os = "linux")]
fn put_unnamed(dir: &Path, path: &Path, bytes: &[u8], durability: Durability) -> io::Result<bool> {
    use rustix::fs::{linkat, openat, AtFlags, Mode, OFlags, CWD};
    use rustix::io::Errno;
    use std::os::fd::AsRawFd;
    use std::sync::atomic::{AtomicBool, Ordering};

    /// Cleared the first time this system cannot do it, so that no page is written twice.
    static UNNAMED_WORKS: AtomicBool = AtomicBool::new(true);
    if !UNNAMED_WORKS.load(Ordering::Relaxed) {
        return Ok(false);
    }
    let flags = OFlags::WRONLY | OFlags::TMPFILE | OFlags::CLOEXEC;
    let fd = match openat(CWD, dir, flags, Mode::from_raw_mode(0o666)) {
        Ok(fd) => fd,
        Err(Errno::NOENT) => return Err(io::ErrorKind::NotFound.into()),
        // Not supported by this filesystem or kernel (or refused): written under a temporary
        // name, which reports a real failure (a full disk) as it is.
        Err(_) => {
            UNNAMED_WORKS.store(false, Ordering::Relaxed);
            return Ok(false);
        }
    };
    let mut file = File::from(fd);
    file.write_all(bytes)?;
    // The only way to name an unnamed file without privileges: through `/proc`.
    let unnamed = format!("/proc/self/fd/{}", file.as_raw_fd());
    match linkat(CWD, unnamed.as_str(), CWD, path, AtFlags::SYMLINK_FOLLOW) {
        Ok(()) => {}
        // A file in place already (replaced by a rename), or the folder gone meanwhile.
        Err(Errno::EXIST) => return Ok(false),
        Err(Errno::NOENT) if std::fs::metadata(&unnamed).is_ok() => return Ok(false),
        // No `/proc`, or a system that refuses to name the file there (a sandbox).
        Err(_) => {
            UNNAMED_WORKS.store(false, Ordering::Relaxed);
            return Ok(false);
        }
    }
    if durability == Durability::Synced {
        // After the name is given: the file's data and its link count, then the folder.
        file.sync_all()?;
        sync_dir(dir)?;
    }
    Ok(true)
}

/// Makes files written by [`write_atomically_unsynced`] durable: each file, then each folder
/// once. Every file's data is handed to the disk first, all at once; then each file is synced.
/// Synced one after the other from the start, each file's data went out alone and each sync
/// committed the filesystem's journal again: a batch of 64 pages of 1 KiB took longer to sync
/// than the executor took to fetch the next 64 (see tests/bench/HISTORY.md). Handed over
/// together, their writes go out in one pass and the first sync commits the journal for all of
/// them, so the rest cost little.
pub fn sync_written(paths: &[PathBuf]) -> io::Result<()> {
    // A file (or its book's folder) removed meanwhile has nothing left to sync.
    let gone = |r: io::Result<()>| match r {
        Err(e) if e.kind() == io::ErrorKind::NotFound => Ok(()),
        other => other,
    };
    let files: Vec<Option<File>> = paths
        .iter()
        .map(|p| match File::open(p) {
            Ok(f) => Ok(Some(f)),
            Err(e) => gone(Err(e)).map(|()| None),
        })
        .collect::<io::Result<_>>()?;
    for f in files.iter().flatten() {
        start_writeback(f);
    }
    let mut dirs: Vec<&Path> = Vec::new();
    for (p, f) in paths.iter().zip(&files) {
        if let Some(f) = f {
            gone(f.sync_all())?;
        }
        if let Some(d) = p.parent() {
            if !dirs.contains(&d) {
                dirs.push(d);
            }
        }
    }
    for d in dirs {
        gone(sync_dir(d))?;
    }
    Ok(())
}

/// Starts writing a file's dirty pages to the disk without waiting (a hint: the sync that
/// follows is what makes them durable, and reports any failure).
fn start_writeback(file: &File) {
    #[cfg(target_os = "linux")]
    {
        use std::os::fd::AsRawFd;
        // SAFETY: a plain system call on a descriptor `file` owns for the whole call.
        unsafe {
            libc::sync_file_range(file.as_raw_fd(), 0, 0, libc::SYNC_FILE_RANGE_WRITE);
        }
    }
    #[cfg(not(target_os = "linux"))]
    let _ = file;
}

fn temp_path_for(path: &Path) -> PathBuf {
    let tag: u32 = rand::random();
    let mut name = path.file_name().unwrap_or_default().to_os_string();
    name.push(format!(".{tag:08x}.tmp.{PARTIAL_SUFFIX}"));
    path.with_file_name(name)
}

/// Makes a rename durable.
pub fn sync_dir(dir: &Path) -> io::Result<()> {
    #[cfg(unix)]
    {
        File::open(dir)?.sync_all()
    }
    #[cfg(not(unix))]
    {
        let _ = dir;
        Ok(())
    }
}

/// A whole-file download in progress: appends at an offset that was checkpointed.
#[derive(Debug)]
pub struct PartialFile {
    path: PathBuf,
    file: File,
    len: u64,
}

impl PartialFile {
    /// Opens (creating) the temp file and cuts it to `offset`: bytes past the last checkpoint
    /// were never confirmed and are fetched again.
    pub fn open_at(path: &Path, offset: u64) -> io::Result<PartialFile> {
        if let Some(dir) = path.parent() {
            fs::create_dir_all(dir)?;
        }
        let mut file = OpenOptions::new()
            .read(true)
            .write(true)
            .create(true)
            .truncate(false)
            .open(path)?;
        let on_disk = file.metadata()?.len();
        let offset = offset.min(on_disk);
        file.set_len(offset)?;
        file.seek(SeekFrom::Start(offset))?;
        Ok(PartialFile {
            path: path.to_owned(),
            file,
            len: offset,
        })
    }

    pub fn len(&self) -> u64 {
        self.len
    }

    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    pub fn append(&mut self, bytes: &[u8]) -> io::Result<()> {
        self.file.write_all(bytes)?;
        self.len += bytes.len() as u64;
        Ok(())
    }

    /// Makes everything appended so far durable; call before recording a checkpoint.
    pub fn sync(&mut self) -> io::Result<()> {
        self.file.sync_data()
    }

    /// Starts syncing the bytes written so far on a thread of its own, while more are
    /// appended; the answer says when they are all on the disk.
    pub fn sync_in_background(&self) -> io::Result<tokio::task::JoinHandle<io::Result<()>>> {
        let file = self.file.try_clone()?;
        Ok(tokio::task::spawn_blocking(move || file.sync_data()))
    }

    /// Cuts the file back to `len` bytes (never longer than it is).
    pub fn truncate_to(&mut self, len: u64) -> io::Result<()> {
        let len = len.min(self.len);
        self.file.set_len(len)?;
        self.file.seek(SeekFrom::Start(len))?;
        self.len = len;
        Ok(())
    }

    /// Where the partial file is.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Deletes the partial file (a download refused for good).
    pub fn discard(self) -> io::Result<()> {
        drop(self.file);
        match fs::remove_file(&self.path) {
            Err(e) if e.kind() != io::ErrorKind::NotFound => Err(e),
            _ => Ok(()),
        }
    }

    /// Starts over (the server's version changed).
    pub fn restart(&mut self) -> io::Result<()> {
        self.file.set_len(0)?;
        self.file.seek(SeekFrom::Start(0))?;
        self.len = 0;
        Ok(())
    }

    /// Syncs and renames the finished file into place.
    pub fn finish(self, final_path: &Path) -> io::Result<()> {
        self.file.sync_all()?;
        drop(self.file);
        fs::rename(&self.path, final_path)?;
        if let Some(dir) = final_path.parent() {
            sync_dir(dir)?;
        }
        Ok(())
    }
}

/// Whether an I/O error means the disk is full.
pub fn is_disk_full(e: &io::Error) -> bool {
    e.raw_os_error() == Some(28) // ENOSPC
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A page put in place while its book's folder is being removed (the download's task is
    /// gone, the download not yet stopped): the removal still succeeds.
    #[test]
    fn a_book_folder_is_removed_while_a_last_page_is_put_in_it() {
        let t = tempfile::tempdir().unwrap();
        let files = PartFiles::new(t.path().join("books"));
        for round in 0..20 {
            let writer = {
                let files = files.clone();
                std::thread::spawn(move || {
                    for p in 0..40 {
                        let _ = write_atomically_unsynced(&files.page_path(1, p, "png"), b"page");
                    }
                })
            };
            std::thread::sleep(std::time::Duration::from_micros(200));
            let removed = files.remove_book(1);
            writer.join().unwrap();
            removed.unwrap_or_else(|e| panic!("round {round}: {e}"));
        }
    }

    #[test]
    fn the_pages_stored_are_listed_by_number_and_nothing_else_is() {
        let t = tempfile::tempdir().unwrap();
        let files = PartFiles::new(t.path().join("books"));
        assert!(files.stored_pages(7).unwrap().is_empty(), "no folder yet");
        write_atomically(&files.page_path(7, 3, "png"), b"a").unwrap();
        write_atomically(&files.page_path(7, 12, "jpg"), b"b").unwrap();
        write_atomically(&files.page_path(7, 4000, "bytes"), b"c").unwrap();
        let dir = files.page_path(7, 0, "png").parent().unwrap().to_owned();
        // A temporary file left by a kill, and what is not a page.
        fs::write(dir.join("00005.png.0badcafe.tmp.part"), b"x").unwrap();
        fs::write(dir.join("notes.txt"), b"x").unwrap();
        fs::write(dir.join("00006.txt"), b"x").unwrap();
        let pages = files.stored_pages(7).unwrap();
        let mut found: Vec<_> = pages.keys().copied().collect();
        found.sort();
        assert_eq!(found, vec![3, 12, 4000]);
        for (page, path) in &pages {
            assert_eq!(files.find_page(7, *page).as_ref(), Some(path));
        }
    }

    #[test]
    fn atomic_write_leaves_only_the_final_file() {
        let t = tempfile::tempdir().unwrap();
        let files = PartFiles::new(t.path().join("books"));
        let p = files.page_path(7, 3, "png");
        write_atomically(&p, b"abc").unwrap();
        assert_eq!(fs::read(&p).unwrap(), b"abc");
        assert_eq!(files.find_page(7, 3), Some(p.clone()));
        assert_eq!(files.find_page(7, 4), None);
        let names: Vec<_> = fs::read_dir(p.parent().unwrap())
            .unwrap()
            .flatten()
            .map(|e| e.file_name())
            .collect();
        assert_eq!(names.len(), 1);
    }

    /// Both ways of putting a page in place — unnamed then named where the system allows it, a
    /// temporary name then a rename where a page is there already — give the whole new bytes
    /// and nothing else in the folder.
    #[test]
    fn a_page_put_in_place_again_replaces_the_old_one_whole() {
        let t = tempfile::tempdir().unwrap();
        let files = PartFiles::new(t.path().join("books"));
        let p = files.page_path(7, 3, "png");
        for (round, bytes) in [&b"short"[..], &b"a longer page"[..], &b"x"[..]]
            .into_iter()
            .enumerate()
        {
            if round % 2 == 0 {
                write_atomically_unsynced(&p, bytes).unwrap();
            } else {
                write_atomically(&p, bytes).unwrap();
            }
            assert_eq!(fs::read(&p).unwrap(), bytes, "round {round}");
            let names: Vec<_> = fs::read_dir(p.parent().unwrap())
                .unwrap()
                .flatten()
                .map(|e| e.file_name())
                .collect();
            assert_eq!(
                names,
                vec![p.file_name().unwrap().to_owned()],
                "round {round}"
            );
        }
    }

    /// Where the system has unnamed files (Linux on ext4, tmpfs, ...), a new page is put in
    /// place without a temporary name: the folder is changed once.
    #[cfg(target_os = "linux")]
    #[test]
    fn a_new_page_is_written_unnamed_where_the_system_allows_it() {
        let t = tempfile::tempdir().unwrap();
        let files = PartFiles::new(t.path().join("books"));
        let p = files.page_path(7, 3, "png");
        fs::create_dir_all(p.parent().unwrap()).unwrap();
        assert!(put_unnamed(p.parent().unwrap(), &p, b"page", Durability::Unsynced).unwrap());
        assert_eq!(fs::read(&p).unwrap(), b"page");
        // A page there already is not this way's to replace.
        assert!(!put_unnamed(p.parent().unwrap(), &p, b"other", Durability::Synced).unwrap());
        assert_eq!(fs::read(&p).unwrap(), b"page");
        let missing = files.page_path(8, 0, "png");
        let err = put_unnamed(
            missing.parent().unwrap(),
            &missing,
            b"x",
            Durability::Unsynced,
        )
        .unwrap_err();
        assert_eq!(err.kind(), io::ErrorKind::NotFound);
    }

    #[test]
    fn a_partial_file_resumes_at_the_checkpoint_not_at_unconfirmed_bytes() {
        let t = tempfile::tempdir().unwrap();
        let path = t.path().join("b/book.part");
        let mut f = PartialFile::open_at(&path, 0).unwrap();
        f.append(b"0123456789").unwrap();
        f.sync().unwrap();
        drop(f);
        let mut f = PartialFile::open_at(&path, 4).unwrap();
        assert_eq!(f.len(), 4);
        f.append(b"xy").unwrap();
        f.finish(&t.path().join("b/book.cbz")).unwrap();
        assert_eq!(fs::read(t.path().join("b/book.cbz")).unwrap(), b"0123xy");
    }

    #[test]
    fn orphans_are_collected_and_known_books_kept() {
        let t = tempfile::tempdir().unwrap();
        let files = PartFiles::new(t.path().join("books"));
        write_atomically(&files.page_path(1, 0, "png"), b"keep").unwrap();
        write_atomically(&files.page_path(2, 0, "png"), b"orphan").unwrap();
        fs::write(files.book_partial_path(1, 77), b"stale").unwrap();
        fs::write(
            files
                .page_path(1, 1, "png")
                .with_extension("png.1234.tmp.part"),
            b"torn",
        )
        .unwrap();
        let known: HashSet<i64> = [1].into();
        let removed = files.collect_orphans(&known, &HashSet::new()).unwrap();
        assert_eq!(removed.len(), 3, "{removed:?}");
        assert!(files.find_page(1, 0).is_some());
        assert!(!files.book_dir(2).exists());
        assert!(!files.book_partial_path(1, 77).exists());
    }
}
