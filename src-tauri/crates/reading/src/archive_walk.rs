//! One walk through a RAR, 7z or tar comic with libarchive (BSD licence), for
//! [`crate::comic_archive`]: entry after entry from the archive's start, each entry's
//! bytes read, passed over, or left to libarchive to skip, and every byte decompressed on the way
//! counted against a budget, so a run of zeros gigabytes long costs no more than the budget.
//!
//! libarchive is opened for the one container the file's first bytes named — RAR (its RAR 4 and
//! RAR 5 readers), 7z or tar — and for nothing else: none of its other readers ever sees the
//! file (not mtree, whose manifests name files on this machine for libarchive to read, nor cpio,
//! ISO 9660, CAB, LHA, XAR, …), and no compression filter is enabled, since the container was
//! told from the file's own first bytes (a tar is the plain `ustar` those bytes show).
//!
//! Entry names are read as UTF-8 whatever the process's locale: while a walk lives, its thread
//! uses a UTF-8 character set (a walk is not `Send`, so it ends on the thread it began on).
//!
//! Owns no file: reads the one it is given. The only `unsafe` code of the comic readers is here.

use std::ffi::{c_char, c_int, c_void, CStr, CString};
use std::path::Path;

use crate::archive_error::{ArchiveError, Container};

#[repr(C)]
struct RawArchive {
    _private: [u8; 0],
}

#[repr(C)]
struct RawEntry {
    _private: [u8; 0],
}

const ARCHIVE_EOF: c_int = 1;
const ARCHIVE_WARN: c_int = -20;

/// How much of the file libarchive reads at a time.
const READ_BLOCK: usize = 128 << 10;

#[link(name = "archive")]
extern "C" {
    fn archive_read_new() -> *mut RawArchive;
    fn archive_read_support_format_rar(a: *mut RawArchive) -> c_int;
    fn archive_read_support_format_rar5(a: *mut RawArchive) -> c_int;
    fn archive_read_support_format_7zip(a: *mut RawArchive) -> c_int;
    fn archive_read_support_format_tar(a: *mut RawArchive) -> c_int;
    fn archive_read_open_filename(
        a: *mut RawArchive,
        filename: *const c_char,
        block_size: usize,
    ) -> c_int;
    fn archive_read_next_header(a: *mut RawArchive, entry: *mut *mut RawEntry) -> c_int;
    fn archive_read_data_block(
        a: *mut RawArchive,
        buffer: *mut *const c_void,
        size: *mut usize,
        offset: *mut i64,
    ) -> c_int;
    fn archive_error_string(a: *mut RawArchive) -> *const c_char;
    fn archive_read_free(a: *mut RawArchive) -> c_int;
    fn archive_entry_pathname(e: *mut RawEntry) -> *const c_char;
    fn archive_entry_pathname_utf8(e: *mut RawEntry) -> *const c_char;
    fn archive_entry_size(e: *mut RawEntry) -> i64;
    fn archive_entry_size_is_set(e: *mut RawEntry) -> c_int;
}

/// An entry reached by a walk.
#[derive(Debug)]
pub(crate) struct Entry {
    /// As stored (empty when libarchive could not read it: such an entry is never a page).
    pub name: String,
    /// The size its header declares, when it declares one.
    pub declared: Option<u64>,
}

/// An archive being walked. Not `Send` (raw pointers): it lives on one thread.
pub(crate) struct Walk {
    raw: *mut RawArchive,
    entry: *mut RawEntry,
    /// The most bytes this walk may decompress, and how many it has.
    budget: u64,
    spent: u64,
    _names: Utf8Names,
}

impl Walk {
    /// Opens the file for the walk, with libarchive's reader for `container` only (a zip is
    /// not walked: [`ArchiveError::UnknownContainer`]).
    pub(crate) fn open(
        path: &Path,
        container: Container,
        budget: u64,
    ) -> Result<Walk, ArchiveError> {
        let names = Utf8Names::set();
        let path = path_text(path)?;
        // SAFETY: a fresh reader, freed by `Drop` whatever happens next (also when it is null).
        let raw = unsafe { archive_read_new() };
        if raw.is_null() {
            return Err(ArchiveError::Io("libarchive could not start".into()));
        }
        let walk = Walk {
            raw,
            entry: std::ptr::null_mut(),
            budget,
            spent: 0,
            _names: names,
        };
        // SAFETY: `raw` is a live reader not opened yet; `path` outlives the call.
        let enabled = unsafe {
            match container {
                Container::Rar => {
                    let four = archive_read_support_format_rar(raw);
                    let five = archive_read_support_format_rar5(raw);
                    four.min(five)
                }
                Container::SevenZip => archive_read_support_format_7zip(raw),
                Container::Tar => archive_read_support_format_tar(raw),
                Container::Zip => return Err(ArchiveError::UnknownContainer),
            }
        };
        if enabled < ARCHIVE_WARN {
            return Err(walk.damaged());
        }
        // SAFETY: as above.
        if unsafe { archive_read_open_filename(raw, path.as_ptr(), READ_BLOCK) } < ARCHIVE_WARN {
            return Err(walk.damaged());
        }
        Ok(walk)
    }

    /// The next entry, or `None` at the archive's end. The bytes of the entry before it that
    /// were neither read nor passed over are skipped by libarchive (see [`Walk::charge`]).
    pub(crate) fn next_entry(&mut self) -> Result<Option<Entry>, ArchiveError> {
        // SAFETY: `raw` is an opened reader; `entry` receives a pointer libarchive owns, valid
        // until the next call on the reader.
        let status = unsafe { archive_read_next_header(self.raw, &mut self.entry) };
        if status == ARCHIVE_EOF {
            return Ok(None);
        }
        if status < ARCHIVE_WARN || self.entry.is_null() {
            return Err(self.damaged());
        }
        // SAFETY: `entry` was just filled in; the strings it gives are copied before any other
        // call on the reader.
        unsafe {
            let mut name = archive_entry_pathname_utf8(self.entry);
            if name.is_null() {
                name = archive_entry_pathname(self.entry);
            }
            let name = if name.is_null() {
                String::new()
            } else {
                CStr::from_ptr(name).to_string_lossy().into_owned()
            };
            let declared = (archive_entry_size_is_set(self.entry) != 0)
                .then(|| archive_entry_size(self.entry))
                .and_then(|s| u64::try_from(s).ok());
            Ok(Some(Entry { name, declared }))
        }
    }

    /// The current entry's bytes, at most `limit` of them: the walk stops taking bytes at the
    /// limit, so a longer entry comes back exactly `limit` long for the caller to refuse.
    pub(crate) fn read(&mut self, limit: u64) -> Result<Vec<u8>, ArchiveError> {
        let mut bytes = Vec::new();
        let limit = usize::try_from(limit).unwrap_or(usize::MAX);
        while bytes.len() < limit {
            let Some((offset, block)) = self.block()? else {
                break;
            };
            // A sparse entry's holes are zeros: filled in, and counted like any other byte.
            let at = usize::try_from(offset).unwrap_or(usize::MAX).min(limit);
            if at > bytes.len() {
                self.spend((at - bytes.len()) as u64)?;
                bytes.resize(at, 0);
            }
            let room = limit - bytes.len();
            // SAFETY: see `Block`; nothing else was asked of the reader since `block`.
            let block = unsafe { block.bytes() };
            bytes.extend_from_slice(&block[..block.len().min(room)]);
        }
        Ok(bytes)
    }

    /// Decompresses the current entry's bytes and drops them, counting them.
    pub(crate) fn pass(&mut self) -> Result<(), ArchiveError> {
        while self.block()?.is_some() {}
        Ok(())
    }

    /// Counts `bytes` the walk is about to let libarchive skip (a solid RAR is decompressed to
    /// be skipped through), refusing them beyond the budget before any is decompressed.
    pub(crate) fn charge(&mut self, bytes: u64) -> Result<(), ArchiveError> {
        self.spend(bytes)
    }

    /// The next block of the current entry (its offset in the entry, its bytes), counted.
    fn block(&mut self) -> Result<Option<(i64, Block)>, ArchiveError> {
        let mut buffer: *const c_void = std::ptr::null();
        let mut size = 0usize;
        let mut offset = 0i64;
        // SAFETY: `raw` is an opened reader positioned in an entry.
        let status =
            unsafe { archive_read_data_block(self.raw, &mut buffer, &mut size, &mut offset) };
        if status == ARCHIVE_EOF {
            return Ok(None);
        }
        if status < ARCHIVE_WARN {
            return Err(self.damaged());
        }
        self.spend(size as u64)?;
        Ok(Some((offset, Block { at: buffer, size })))
    }

    fn spend(&mut self, bytes: u64) -> Result<(), ArchiveError> {
        self.spent = self.spent.saturating_add(bytes);
        if self.spent > self.budget {
            return Err(ArchiveError::DecompressesTooMuch {
                budget: self.budget,
            });
        }
        Ok(())
    }

    /// What libarchive says went wrong, as a damaged archive.
    fn damaged(&self) -> ArchiveError {
        // SAFETY: `raw` is a live reader; its message is copied at once.
        let message = unsafe {
            let text = archive_error_string(self.raw);
            if text.is_null() {
                "the archive cannot be read".to_owned()
            } else {
                CStr::from_ptr(text).to_string_lossy().into_owned()
            }
        };
        ArchiveError::Damaged(message)
    }
}

/// A block libarchive handed out: `size` bytes at `at`, valid until the next call on its reader.
struct Block {
    at: *const c_void,
    size: usize,
}

impl Block {
    /// The block's bytes.
    ///
    /// # Safety
    /// No call was made on the reader since the block was handed out.
    unsafe fn bytes(&self) -> &[u8] {
        if self.size == 0 || self.at.is_null() {
            return &[];
        }
        std::slice::from_raw_parts(self.at.cast::<u8>(), self.size)
    }
}

impl Drop for Walk {
    fn drop(&mut self) {
        // SAFETY: `raw` came from `archive_read_new` and is freed once, here.
        unsafe {
            archive_read_free(self.raw);
        }
    }
}

#[cfg(unix)]
fn path_text(path: &Path) -> Result<CString, ArchiveError> {
    use std::os::unix::ffi::OsStrExt;
    CString::new(path.as_os_str().as_bytes())
        .map_err(|_| ArchiveError::Io("a file name with a NUL byte".into()))
}

#[cfg(not(unix))]
fn path_text(path: &Path) -> Result<CString, ArchiveError> {
    CString::new(path.to_string_lossy().as_bytes())
        .map_err(|_| ArchiveError::Io("a file name with a NUL byte".into()))
}

/// A UTF-8 character set for the current thread while it lives (libarchive turns the UTF-16
/// names of a 7z and the UTF-8 names of a RAR 5 into the thread's character set: in the "C"
/// locale every name outside ASCII would be lost).
#[cfg(target_os = "linux")]
struct Utf8Names {
    before: libc::locale_t,
    ours: libc::locale_t,
}

#[cfg(target_os = "linux")]
impl Utf8Names {
    fn set() -> Utf8Names {
        // SAFETY: a new locale object, used by this thread only and freed by `Drop`.
        unsafe {
            let ours = libc::newlocale(
                libc::LC_CTYPE_MASK,
                c"C.UTF-8".as_ptr(),
                std::ptr::null_mut(),
            );
            let before = if ours.is_null() {
                std::ptr::null_mut()
            } else {
                libc::uselocale(ours)
            };
            Utf8Names { before, ours }
        }
    }
}

#[cfg(target_os = "linux")]
impl Drop for Utf8Names {
    fn drop(&mut self) {
        if !self.ours.is_null() {
            // SAFETY: the thread's locale is put back before ours is freed.
            unsafe {
                libc::uselocale(self.before);
                libc::freelocale(self.ours);
            }
        }
    }
}

#[cfg(not(target_os = "linux"))]
struct Utf8Names;

#[cfg(not(target_os = "linux"))]
impl Utf8Names {
    fn set() -> Utf8Names {
        Utf8Names
    }
}
