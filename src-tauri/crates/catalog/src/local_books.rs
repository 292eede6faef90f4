//! Books from the reader's own files (CBZ, CBR, CB7, CBT, EPUB, PDF): importing a file as a
//! book of the device source ("This device"), what the file says about itself, and noticing
//! a file moved, changed or gone.
//!
//! # How a file becomes a book every reader opens
//! The readers find a book's file by its id: a `file` task in state `done` and the file at
//! `books/<id>/book.<ext>` ([`PartFiles::book_file_path`]). An import makes exactly that, so the
//! comic, EPUB and PDF readers, positions, bookmarks, read marks and the book views work on
//! these books unchanged:
//! - the book is a row of `books` whose source is the device source
//!   ([`servers::device_source`], a `servers` row of kind `device` that nothing talking to
//!   servers lists), pinned (so "books kept on the device" never evicts it), with `file_url`
//!   the file's `file:` address ([`Book::is_local_file`]): the download producers push nothing
//!   for such a book and the executor never fetches a `file:` address;
//! - the file is put at the book's file path as a symbolic link to the reader's file
//!   ([`ImportMode::Reference`], the default) or as a copy ([`ImportMode::Copy`], written
//!   under a temporary name, then renamed). Removing the book from the device removes the
//!   link, never the file it points to (`remove_dir_all` removes a link, not its target);
//! - a `file` task in state `done` records the byte count.
//!
//! The device source is a `servers` row rather than a nullable `books.server_id` because
//! books, tasks and series read-ahead all hang off a server with `ON DELETE CASCADE`;
//! a source row lets all of them work for local books as they are. Migration 0027 rebuilt
//! `servers` for it (its address check allows `device:` for that kind only).
//!
//! # Identity
//! `local_files` keeps each imported file's path, size, modification time and fingerprint
//! (the size and an MD5 digest of its first and last 64 KiB). Importing a path known already
//! returns its book (`already_known`), re-read if the file changed. Importing a file at a new
//! path whose fingerprint is a known book's whose own file is gone (moved, renamed) re-links
//! that book: same id, same position, bookmarks and notes.
//!
//! # Hostile files
//! A book's content is input: archives are read through [`carrel_reading::comic_archive`]
//! (capped entries, sizes and decompression), XML is size-capped and depth-checked before
//! `roxmltree` parses it, texts are cut to bounded lengths, and nothing read can panic.
//!
//! # For the front ends
//! [`import`] (a file, [`ImportMode::Reference`] by default), [`check`] when a book is opened or
//! listed, [`local_file`], [`forget`] and [`forget_missing`]. [`ImportedBook`] also carries the
//! authors, series, number and path the CLI prints; like every type of the window contract it
//! is serialised with snake_case fields. A series number that is not a number ("1A") is kept
//! only as the series index it can be, so [`ImportedBook::number`] is then absent.
//!
//! Owns the `local_files` table and the device source's books. Does not: walk folders or watch
//! them (callers do), or draw anything.

use std::collections::HashSet;
use std::fs::{self, File};
use std::io::{Read, Seek, SeekFrom};
use std::path::{Path, PathBuf};
use std::time::UNIX_EPOCH;

use md5::{Digest, Md5};
use rusqlite::{params, Transaction};
use serde::{Deserialize, Serialize};

use crate::book_view::{self, BookMeta};
use carrel_foundation::error::{ErrorKind, Failure};
use carrel_foundation::image_type::sniff_image_type;
use carrel_foundation::part_files::{self, PartFiles};
use carrel_foundation::store::{Store, StoreError};
use carrel_library::books::{self, Book, BookFormat};
use carrel_library::servers::{self, ServerError};
use carrel_reading::book_source::{EPUB_TYPE, MAX_BOOK_BYTES, PDF_TYPE};
use carrel_reading::comic_archive::{self, ArchiveError, ComicArchive, Container, MAX_PAGE_BYTES};

/// The largest comic archive imported (read page by page, never whole).
pub const MAX_COMIC_BYTES: u64 = 16 << 30;
/// Bytes at each end of a file that its fingerprint digests.
const FINGERPRINT_SPAN: u64 = 64 << 10;
/// The largest `META-INF/container.xml`, OPF or `ComicInfo.xml` read.
const MAX_XML_BYTES: u64 = 4 << 20;
/// Bytes of a PDF's head and tail searched for its `/Title`.
const PDF_TITLE_SPAN: u64 = 256 << 10;
/// The longest title, series or author kept, in characters.
const MAX_NAME_CHARS: usize = 500;
/// The longest summary kept, in characters.
const MAX_SUMMARY_CHARS: usize = 20_000;
/// The most authors kept.
const MAX_AUTHORS: usize = 50;

/// How an imported file is kept.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize, ts_rs::TS)]
#[serde(rename_all = "snake_case")]
pub enum ImportMode {
    /// The file stays where it is; the book's file is a link to it.
    #[default]
    Reference,
    /// The book's file is a copy in Carrel's data folder, independent of the original.
    Copy,
}

impl ImportMode {
    fn as_str(self) -> &'static str {
        match self {
            ImportMode::Reference => "reference",
            ImportMode::Copy => "copy",
        }
    }
    fn parse(s: &str) -> ImportMode {
        if s == "copy" {
            ImportMode::Copy
        } else {
            ImportMode::Reference
        }
    }
}

/// A file imported as a book.
#[derive(Debug, Clone, PartialEq, Serialize, ts_rs::TS)]
pub struct ImportedBook {
    pub book_id: i64,
    pub title: String,
    pub format: BookFormat,
    /// The file was imported before (same path, or the same content moved): the same book.
    pub already_known: bool,
    pub authors: Vec<String>,
    pub series: Option<String>,
    /// The book's number in its series, as the file writes it ("3", "12.5").
    pub number: Option<String>,
    /// The file's path, as imported.
    pub path: String,
}

/// Where an imported book's file stands (see [`check`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, ts_rs::TS)]
#[serde(rename_all = "snake_case")]
pub enum LocalFileState {
    /// As imported (or re-read since).
    Present,
    /// Nothing at its path any more: the book shows as missing until the file is imported again.
    Missing,
    /// Other content at its path that is not a book Carrel reads.
    Changed,
}

impl LocalFileState {
    fn as_str(self) -> &'static str {
        match self {
            LocalFileState::Present => "present",
            LocalFileState::Missing => "missing",
            LocalFileState::Changed => "changed",
        }
    }
    fn parse(s: &str) -> LocalFileState {
        match s {
            "missing" => LocalFileState::Missing,
            "changed" => LocalFileState::Changed,
            _ => LocalFileState::Present,
        }
    }
}

/// What [`check`] found.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, ts_rs::TS)]
pub struct FileCheck {
    pub state: LocalFileState,
    /// The file had changed and its book was read again (title, cover, pages).
    pub refreshed: bool,
}

/// What is known of an imported book's file.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, ts_rs::TS)]
pub struct LocalFile {
    pub book_id: i64,
    pub path: String,
    pub mode: ImportMode,
    pub size: i64,
    pub state: LocalFileState,
}

/// Why a file could not be imported.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum ImportError {
    #[error("there is no file at {0}")]
    NotFound(PathBuf),
    #[error("{0} is not a file")]
    NotAFile(PathBuf),
    #[error("cannot read {path}: {reason}")]
    Unreadable { path: PathBuf, reason: String },
    #[error("{0} is not a book Carrel reads (CBZ, CBR, CB7, CBT, EPUB or PDF)")]
    NotABook(PathBuf),
    #[error("{path} is damaged or unsafe to read: {reason}")]
    Damaged { path: PathBuf, reason: String },
    #[error("{path} is too large to import ({} MiB; at most {} MiB)", bytes >> 20, limit >> 20)]
    TooLarge {
        path: PathBuf,
        bytes: u64,
        limit: u64,
    },
    #[error("no book with id {0} was imported from this device")]
    NotLocal(i64),
    #[error("cannot put the book in Carrel's data folder: {0}")]
    Files(String),
    #[error(transparent)]
    Library(#[from] carrel_library::Error),
}

from_library_errors!(ImportError::Library: StoreError, ServerError, books::BookError);

impl Failure for ImportError {
    fn kind(&self) -> ErrorKind {
        match self {
            ImportError::NotFound(_) | ImportError::NotLocal(_) => ErrorKind::NotFound,
            ImportError::NotAFile(_)
            | ImportError::NotABook(_)
            | ImportError::Damaged { .. }
            | ImportError::TooLarge { .. } => ErrorKind::InvalidInput,
            ImportError::Unreadable { .. } | ImportError::Files(_) => ErrorKind::Storage,
            ImportError::Library(e) => e.kind(),
        }
    }
}

/// Imports the book file at `path` (see the module): a new book of the device source, or the
/// book the file already is (`already_known`, its metadata read again if the file changed, or
/// re-linked if it was moved). The file is read to tell what it is, never trusted by its name.
pub fn import(store: &Store, path: &Path, mode: ImportMode) -> Result<ImportedBook, ImportError> {
    let path = absolute(path)?;
    let stat = file_stat(&path)?;
    let fingerprint = fingerprint(&path, stat.size)?;
    let path_text = path.to_string_lossy().into_owned();
    let device = servers::device_source(store)?;
    // The file put in the data folder as `book_id`, with what was read of it.
    let put = |book_id: i64, read: &ReadBook| {
        place(
            store,
            book_id,
            &path,
            read,
            mode,
            &stat,
            &fingerprint,
            device.id,
        )
    };

    if let Some(known) = known_by_path(store, &path_text)? {
        let content_same = known.fingerprint == fingerprint;
        let book_there = link_in_place(store, known.book_id)?;
        if content_same && book_there && known.mode == mode {
            record_seen(store, known.book_id, &stat, LocalFileState::Present)?;
            return imported(store, known.book_id, &path_text, true);
        }
        // Changed content, another mode, or its file gone from the data folder: put again.
        let read = read_book(&path, stat.size)?;
        put(known.book_id, &read)?;
        return imported(store, known.book_id, &path_text, true);
    }
    let read = read_book(&path, stat.size)?;
    if let Some(moved) = moved_here(store, &fingerprint)? {
        put(moved, &read)?;
        return imported(store, moved, &path_text, true);
    }
    let book_id = new_book(store, device.id, &path, &read, &fingerprint)?;
    if let Err(e) = put(book_id, &read) {
        // Nothing half made stays: a book without its file would be listed and never open.
        let _ = store.execute("DELETE FROM books WHERE id = ?1", [book_id]);
        let _ = PartFiles::new(store.data_dir().books()).remove_book(book_id);
        return Err(e);
    }
    imported(store, book_id, &path_text, false)
}

/// Looks at an imported book's file (called when the book is opened or listed): gone, as it
/// was, or changed — then read again (title, cover, page count; the readers' kept page lists
/// are keyed by the file's length and time and drop themselves). A file gone, or no longer a
/// book, takes the book off the device (its `file` task) until the file is back where it was
/// or imported again; a book and its file are never queued for download. Front ends call it
/// when a book is opened or listed. `Ok(None)` for a book that was not imported.
pub fn check(store: &Store, book_id: i64) -> Result<Option<FileCheck>, ImportError> {
    let Some(known) = known_by_id(store, book_id)? else {
        return Ok(None);
    };
    let device = servers::device_source(store)?;
    let missing = || -> Result<Option<FileCheck>, ImportError> {
        unavailable(store, book_id, LocalFileState::Missing)?;
        Ok(Some(FileCheck {
            state: LocalFileState::Missing,
            refreshed: false,
        }))
    };
    // A copy is the book's own file: the original may change or go, the book stays.
    let looked_at = match known.mode {
        ImportMode::Copy => {
            match PartFiles::new(store.data_dir().books()).find_book_file(book_id) {
                Some(copy) => copy,
                None => return missing(),
            }
        }
        ImportMode::Reference => PathBuf::from(&known.path),
    };
    let stat = match file_stat(&looked_at) {
        Ok(stat) => stat,
        Err(ImportError::NotFound(_)) | Err(ImportError::NotAFile(_)) => return missing(),
        Err(e) => return Err(e),
    };
    // Back where it was after it went missing: put in place again (a book the reader removed
    // from the device, its state left present, stays removed).
    let back = known.state == LocalFileState::Missing;
    if known.mode == ImportMode::Copy {
        if back {
            let read = read_book(&looked_at, stat.size)?;
            let copy_fingerprint = fingerprint(&looked_at, stat.size)?;
            let original = PathBuf::from(&known.path);
            place_copy_again(store, book_id, &original, &read, &stat, &copy_fingerprint)?;
        }
        record_seen(store, book_id, &stat, LocalFileState::Present)?;
        return Ok(Some(FileCheck {
            state: LocalFileState::Present,
            refreshed: false,
        }));
    }
    let unchanged = stat.size == known.size && stat.mtime_ms == known.mtime_ms;
    let fingerprint = if unchanged {
        known.fingerprint.clone()
    } else {
        fingerprint(&looked_at, stat.size)?
    };
    if fingerprint == known.fingerprint && !back {
        if !unchanged || known.state != LocalFileState::Present {
            record_seen(store, book_id, &stat, LocalFileState::Present)?;
        }
        return Ok(Some(FileCheck {
            state: LocalFileState::Present,
            refreshed: false,
        }));
    }
    match read_book(&looked_at, stat.size) {
        Ok(read) => {
            place(
                store,
                book_id,
                &looked_at,
                &read,
                ImportMode::Reference,
                &stat,
                &fingerprint,
                device.id,
            )?;
            Ok(Some(FileCheck {
                state: LocalFileState::Present,
                refreshed: fingerprint != known.fingerprint,
            }))
        }
        Err(
            ImportError::NotABook(_) | ImportError::Damaged { .. } | ImportError::TooLarge { .. },
        ) => {
            unavailable(store, book_id, LocalFileState::Changed)?;
            Ok(Some(FileCheck {
                state: LocalFileState::Changed,
                refreshed: false,
            }))
        }
        Err(e) => Err(e),
    }
}

/// What is known of an imported book's file, without looking at it (`None`: not imported).
pub fn local_file(store: &Store, book_id: i64) -> Result<Option<LocalFile>, ImportError> {
    Ok(known_by_id(store, book_id)?.map(|k| LocalFile {
        book_id,
        path: k.path,
        mode: k.mode,
        size: k.size as i64,
        state: k.state,
    }))
}

/// Forgets an imported book altogether: its row (position, bookmarks and notes with it) and
/// its folder in the data dir — the link or the copy, never the reader's own file.
pub fn forget(store: &Store, book_id: i64) -> Result<(), ImportError> {
    if known_by_id(store, book_id)?.is_none() {
        return Err(ImportError::NotLocal(book_id));
    }
    store.execute("DELETE FROM books WHERE id = ?1", [book_id])?;
    PartFiles::new(store.data_dir().books())
        .remove_book(book_id)
        .map_err(|e| ImportError::Files(e.to_string()))?;
    crate::cover_cache::forget(store.data_dir(), book_id);
    Ok(())
}

/// Checks every imported book ([`check`]) and forgets ([`forget`]) those whose file is gone.
/// Returns the ids forgotten.
pub fn forget_missing(store: &Store) -> Result<Vec<i64>, ImportError> {
    let mut forgotten = Vec::new();
    for id in imported_ids(store)? {
        if let Some(FileCheck {
            state: LocalFileState::Missing,
            ..
        }) = check(store, id)?
        {
            forget(store, id)?;
            forgotten.push(id);
        }
    }
    Ok(forgotten)
}

/// Every imported book's id, oldest first.
pub fn imported_ids(store: &Store) -> Result<Vec<i64>, StoreError> {
    carrel_foundation::rows::all(
        store,
        "SELECT book_id FROM local_files ORDER BY book_id",
        [],
        |r| r.get(0),
    )
}

// ---------------------------------------------------------------------------------------------
// The file on disk.

#[derive(Debug, Clone, Copy)]
struct Stat {
    size: u64,
    mtime_ms: Option<i64>,
}

fn absolute(path: &Path) -> Result<PathBuf, ImportError> {
    match fs::canonicalize(path) {
        Ok(p) => Ok(p),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
            Err(ImportError::NotFound(path.to_owned()))
        }
        Err(e) => Err(ImportError::Unreadable {
            path: path.to_owned(),
            reason: e.to_string(),
        }),
    }
}

fn file_stat(path: &Path) -> Result<Stat, ImportError> {
    let meta = match fs::metadata(path) {
        Ok(m) => m,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
            return Err(ImportError::NotFound(path.to_owned()))
        }
        Err(e) => {
            return Err(ImportError::Unreadable {
                path: path.to_owned(),
                reason: e.to_string(),
            })
        }
    };
    if !meta.is_file() {
        return Err(ImportError::NotAFile(path.to_owned()));
    }
    let mtime_ms = meta
        .modified()
        .ok()
        .and_then(|t| t.duration_since(UNIX_EPOCH).ok())
        .and_then(|d| i64::try_from(d.as_millis()).ok());
    Ok(Stat {
        size: meta.len(),
        mtime_ms,
    })
}

fn unreadable(path: &Path) -> impl Fn(std::io::Error) -> ImportError + '_ {
    move |e| ImportError::Unreadable {
        path: path.to_owned(),
        reason: e.to_string(),
    }
}

/// The file's size and an MD5 digest of its first and last [`FINGERPRINT_SPAN`] bytes: the
/// same for the same content wherever it is, cheap for a file of any size.
fn fingerprint(path: &Path, size: u64) -> Result<String, ImportError> {
    let mut file = File::open(path).map_err(unreadable(path))?;
    let mut hasher = Md5::new();
    let mut buf = vec![0u8; FINGERPRINT_SPAN as usize];
    let head = read_up_to(&mut file, &mut buf).map_err(unreadable(path))?;
    hasher.update(&buf[..head]);
    if size > FINGERPRINT_SPAN {
        let from = size.saturating_sub(FINGERPRINT_SPAN).max(FINGERPRINT_SPAN);
        file.seek(SeekFrom::Start(from)).map_err(unreadable(path))?;
        let tail = read_up_to(&mut file, &mut buf).map_err(unreadable(path))?;
        hasher.update(&buf[..tail]);
    }
    let digest = hasher.finalize();
    let hex: String = digest.iter().map(|b| format!("{b:02x}")).collect();
    Ok(format!("{size}-{hex}"))
}

fn read_up_to(file: &mut File, buf: &mut [u8]) -> std::io::Result<usize> {
    let mut n = 0;
    while n < buf.len() {
        match file.read(&mut buf[n..])? {
            0 => break,
            k => n += k,
        }
    }
    Ok(n)
}

// ---------------------------------------------------------------------------------------------
// What the file is, and what it says.

/// A book file, read.
#[derive(Debug, Clone, Default)]
struct ReadBook {
    format: Option<BookFormat>,
    title: String,
    authors: Vec<String>,
    series: Option<String>,
    number: Option<String>,
    summary: Option<String>,
    page_count: Option<i64>,
    file_type: &'static str,
    extension: &'static str,
    cover: Option<Vec<u8>>,
}

impl ReadBook {
    fn format(&self) -> BookFormat {
        self.format.unwrap_or(BookFormat::Other)
    }
}

/// Tells what the file is from its bytes and reads its metadata and cover.
fn read_book(path: &Path, size: u64) -> Result<ReadBook, ImportError> {
    let mut head = [0u8; 1024];
    let n = read_up_to(&mut File::open(path).map_err(unreadable(path))?, &mut head)
        .map_err(unreadable(path))?;
    let head = &head[..n];
    let stem = path
        .file_stem()
        .map(|s| s.to_string_lossy().into_owned())
        .filter(|s| !s.trim().is_empty())
        .unwrap_or_else(|| "Untitled".to_owned());
    let too_large = |limit: u64| {
        (size > limit).then(|| ImportError::TooLarge {
            path: path.to_owned(),
            bytes: size,
            limit,
        })
    };
    if find(head, b"%PDF-").is_some() {
        if let Some(e) = too_large(MAX_BOOK_BYTES) {
            return Err(e);
        }
        let title = pdf_title(path, size).unwrap_or(stem);
        return Ok(ReadBook {
            format: Some(BookFormat::Pdf),
            title: cut(&title, MAX_NAME_CHARS),
            file_type: PDF_TYPE,
            extension: "pdf",
            ..ReadBook::default()
        });
    }
    let container = match comic_archive::sniff(path) {
        Ok(c) => c,
        Err(ArchiveError::UnknownContainer) => return Err(ImportError::NotABook(path.to_owned())),
        Err(e) => return Err(archive_failure(path, e)),
    };
    if container == Container::Zip {
        let names = comic_archive::entry_names(path).map_err(|e| archive_failure(path, e))?;
        if names.iter().any(|n| n == "META-INF/container.xml") {
            if let Some(e) = too_large(MAX_BOOK_BYTES) {
                return Err(e);
            }
            return read_epub(path, &names, stem);
        }
    }
    if let Some(e) = too_large(MAX_COMIC_BYTES) {
        return Err(e);
    }
    read_comic(path, container, stem)
}

fn archive_failure(path: &Path, e: ArchiveError) -> ImportError {
    match e {
        ArchiveError::UnknownContainer | ArchiveError::NoPages => {
            ImportError::NotABook(path.to_owned())
        }
        ArchiveError::Io(reason) => ImportError::Unreadable {
            path: path.to_owned(),
            reason,
        },
        other => ImportError::Damaged {
            path: path.to_owned(),
            reason: other.to_string(),
        },
    }
}

fn read_comic(path: &Path, container: Container, stem: String) -> Result<ReadBook, ImportError> {
    let archive = ComicArchive::open(path).map_err(|e| archive_failure(path, e))?;
    let (file_type, extension) = match container {
        Container::Zip => ("application/vnd.comicbook+zip", "cbz"),
        Container::Rar => ("application/vnd.comicbook-rar", "cbr"),
        Container::SevenZip => ("application/x-cb7", "cb7"),
        Container::Tar => ("application/x-cbt", "cbt"),
    };
    let details = comic_details(path);
    let info = &archive.info;
    let series = info.series.as_deref().map(|s| cut(s, MAX_NAME_CHARS));
    let number = info.number.as_deref().map(|s| cut(s, 40));
    let title = match (&info.title, &series, &number) {
        (Some(t), _, _) => cut(t, MAX_NAME_CHARS),
        (None, Some(s), Some(n)) => format!("{s} #{n}"),
        (None, Some(s), None) => s.clone(),
        _ => cut(&stem, MAX_NAME_CHARS),
    };
    // A first page that cannot be read leaves the book without a cover, not unimported: the
    // reader says what is wrong with that page when it is turned to.
    let cover = archive
        .page(0)
        .ok()
        .filter(|bytes| sniff_image_type(bytes).is_some());
    Ok(ReadBook {
        format: Some(BookFormat::Comic),
        title,
        authors: details.authors,
        series,
        number,
        summary: details.summary,
        page_count: Some(archive.page_count() as i64),
        file_type,
        extension,
        cover,
    })
}

/// What `ComicInfo.xml` says that the comic reader does not need: writers and pencillers,
/// and the summary.
#[derive(Debug, Default)]
struct ComicDetails {
    authors: Vec<String>,
    summary: Option<String>,
}

fn comic_details(path: &Path) -> ComicDetails {
    let Ok(names) = comic_archive::entry_names(path) else {
        return ComicDetails::default();
    };
    let is_info = |n: &&String| {
        n.rsplit(['/', '\\'])
            .next()
            .is_some_and(|f| f.eq_ignore_ascii_case("ComicInfo.xml"))
    };
    // The one at the root, else the first.
    let Some(name) = names
        .iter()
        .filter(is_info)
        .min_by_key(|n| n.contains(['/', '\\']))
    else {
        return ComicDetails::default();
    };
    let Ok(bytes) = comic_archive::read_entry(path, name, MAX_XML_BYTES) else {
        return ComicDetails::default();
    };
    parse_comic_details(&String::from_utf8_lossy(&bytes))
}

fn parse_comic_details(xml: &str) -> ComicDetails {
    let Some(doc) = parse_xml(xml) else {
        return ComicDetails::default();
    };
    let field = |name: &str| comic_archive::comic_info_field(&doc, name);
    let mut authors = Vec::new();
    for role in ["Writer", "Penciller"] {
        if let Some(names) = field(role) {
            authors.extend(names.split(',').map(str::to_owned));
        }
    }
    ComicDetails {
        authors: tidy_names(authors),
        summary: field("Summary").map(|s| summary_text(&s)),
    }
}

fn read_epub(path: &Path, names: &[String], stem: String) -> Result<ReadBook, ImportError> {
    let damaged = |reason: String| ImportError::Damaged {
        path: path.to_owned(),
        reason,
    };
    let container = comic_archive::read_entry(path, "META-INF/container.xml", MAX_XML_BYTES)
        .map_err(|e| damaged(format!("its META-INF/container.xml cannot be read ({e})")))?;
    let container = String::from_utf8_lossy(&container);
    let opf_path = parse_xml(&container)
        .and_then(|doc| {
            doc.descendants()
                .find(|n| n.has_tag_name("rootfile"))
                .and_then(|n| n.attribute("full-path"))
                .map(str::to_owned)
        })
        .ok_or_else(|| damaged("its META-INF/container.xml names no package".into()))?;
    let opf_name = names
        .iter()
        .find(|n| **n == opf_path)
        .ok_or_else(|| damaged(format!("its package {opf_path} is missing")))?;
    let opf = comic_archive::read_entry(path, opf_name, MAX_XML_BYTES)
        .map_err(|e| damaged(format!("its package cannot be read ({e})")))?;
    let opf = parse_opf(&String::from_utf8_lossy(&opf));
    let cover = opf.cover_href.as_deref().and_then(|href| {
        let name = resolve_href(&opf_path, href)?;
        let entry = names.iter().find(|n| **n == name)?;
        comic_archive::read_entry(path, entry, MAX_PAGE_BYTES)
            .ok()
            .filter(|bytes| sniff_image_type(bytes).is_some())
    });
    Ok(ReadBook {
        format: Some(BookFormat::Epub),
        title: opf.title.unwrap_or_else(|| cut(&stem, MAX_NAME_CHARS)),
        authors: opf.authors,
        series: opf.series,
        number: opf.number,
        summary: opf.summary,
        page_count: None,
        file_type: EPUB_TYPE,
        extension: "epub",
        cover,
    })
}

/// What an EPUB's package document says.
#[derive(Debug, Default, PartialEq)]
struct OpfMeta {
    title: Option<String>,
    authors: Vec<String>,
    summary: Option<String>,
    series: Option<String>,
    number: Option<String>,
    /// The cover image's address, relative to the package document.
    cover_href: Option<String>,
}

fn parse_opf(xml: &str) -> OpfMeta {
    let Some(doc) = parse_xml(xml) else {
        return OpfMeta::default();
    };
    let Some(metadata) = doc.descendants().find(|n| n.has_tag_name_local("metadata")) else {
        return OpfMeta::default();
    };
    let text_of = |n: roxmltree::Node| {
        n.text()
            .map(|t| t.split_whitespace().collect::<Vec<_>>().join(" "))
            .filter(|t| !t.is_empty())
    };
    let dc = |name: &'static str| {
        metadata
            .children()
            .filter(move |n| n.is_element() && n.tag_name().name() == name)
    };
    let title = dc("title")
        .find_map(text_of)
        .map(|t| cut(&t, MAX_NAME_CHARS));
    let authors = tidy_names(dc("creator").filter_map(text_of).collect());
    let summary = dc("description")
        .find_map(|n| n.text().map(str::to_owned))
        .map(|s| summary_text(&s))
        .filter(|s| !s.is_empty());
    let metas: Vec<roxmltree::Node> = metadata
        .children()
        .filter(|n| n.is_element() && n.tag_name().name() == "meta")
        .collect();
    let named = |name: &str| {
        metas
            .iter()
            .find(|m| m.attribute("name") == Some(name))
            .and_then(|m| m.attribute("content"))
            .map(str::trim)
            .filter(|c| !c.is_empty())
            .map(str::to_owned)
    };
    let mut series = named("calibre:series");
    let mut number = named("calibre:series_index").map(|n| tidy_number(&n));
    if series.is_none() {
        // EPUB 3: <meta property="belongs-to-collection" id="c">Name</meta> refined by
        // <meta refines="#c" property="group-position">2</meta>.
        if let Some(collection) = metas
            .iter()
            .find(|m| m.attribute("property") == Some("belongs-to-collection"))
        {
            series = text_of(*collection);
            number = collection.attribute("id").and_then(|id| {
                let refines = format!("#{id}");
                metas
                    .iter()
                    .find(|m| {
                        m.attribute("refines") == Some(refines.as_str())
                            && m.attribute("property") == Some("group-position")
                    })
                    .and_then(|m| text_of(*m))
                    .map(|n| tidy_number(&n))
            });
        }
    }
    let series = series.map(|s| cut(&s, MAX_NAME_CHARS));
    let number = number.map(|n| cut(&n, 40));
    OpfMeta {
        title,
        authors,
        summary,
        series,
        number,
        cover_href: cover_href(&doc, &metas),
    }
}

/// The cover image's address: the manifest item whose properties say `cover-image` (EPUB 3),
/// else the one `<meta name="cover" content="ID"/>` names (EPUB 2).
fn cover_href(doc: &roxmltree::Document, metas: &[roxmltree::Node]) -> Option<String> {
    let items: Vec<roxmltree::Node> = doc
        .descendants()
        .filter(|n| n.has_tag_name_local("item"))
        .collect();
    let by_property = items.iter().find(|i| {
        i.attribute("properties")
            .is_some_and(|p| p.split_whitespace().any(|p| p == "cover-image"))
    });
    let by_meta = || {
        let id = metas
            .iter()
            .find(|m| m.attribute("name") == Some("cover"))
            .and_then(|m| m.attribute("content"))?;
        items.iter().find(|i| i.attribute("id") == Some(id))
    };
    by_property
        .or_else(by_meta)
        .and_then(|i| i.attribute("href"))
        .map(str::to_owned)
}

/// The archive entry an `href` of the package document at `opf_path` names: relative to the
/// package's folder, percent-decoded, `.` and `..` resolved inside the archive (an address
/// that climbs out of it names nothing).
fn resolve_href(opf_path: &str, href: &str) -> Option<String> {
    let href = href.split(['#', '?']).next()?;
    let decoded = percent_decode(href)?;
    let mut parts: Vec<&str> = opf_path.split('/').collect();
    parts.pop();
    for segment in decoded.split('/') {
        match segment {
            "" | "." => {}
            ".." => {
                parts.pop()?;
            }
            s => parts.push(s),
        }
    }
    Some(parts.join("/"))
}

fn percent_decode(text: &str) -> Option<String> {
    let bytes = text.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == b'%' && i + 2 < bytes.len() {
            let hex = std::str::from_utf8(&bytes[i + 1..i + 3]).ok()?;
            out.push(u8::from_str_radix(hex, 16).ok()?);
            i += 3;
        } else {
            out.push(bytes[i]);
            i += 1;
        }
    }
    String::from_utf8(out).ok()
}

/// A PDF's `/Title` from its document information, when it is written as plain text in the
/// file's first or last [`PDF_TITLE_SPAN`] bytes (a title inside a compressed object stream is
/// not looked for: the file's name stands in).
fn pdf_title(path: &Path, size: u64) -> Option<String> {
    let mut file = File::open(path).ok()?;
    let mut buf = vec![0u8; PDF_TITLE_SPAN.min(size) as usize];
    let n = read_up_to(&mut file, &mut buf).ok()?;
    if let Some(t) = title_in(&buf[..n]) {
        return Some(t);
    }
    if size > PDF_TITLE_SPAN {
        file.seek(SeekFrom::Start(size - PDF_TITLE_SPAN)).ok()?;
        let n = read_up_to(&mut file, &mut buf).ok()?;
        return title_in(&buf[..n]);
    }
    None
}

fn title_in(bytes: &[u8]) -> Option<String> {
    let mut from = 0;
    while let Some(at) = find(&bytes[from..], b"/Title") {
        let rest = &bytes[from + at + 6..];
        from += at + 6;
        let start = rest.iter().position(|b| !b" \t\r\n".contains(b))?;
        let rest = &rest[start..];
        let raw = match rest.first()? {
            b'(' => pdf_literal(&rest[1..]),
            b'<' if rest.get(1) != Some(&b'<') => pdf_hex(&rest[1..]),
            _ => None,
        };
        if let Some(title) = raw.map(|r| pdf_text(&r)) {
            let title = title.split_whitespace().collect::<Vec<_>>().join(" ");
            if !title.is_empty() {
                return Some(cut(&title, MAX_NAME_CHARS));
            }
        }
    }
    None
}

/// A PDF literal string's bytes, from after its `(` (nested brackets and escapes).
fn pdf_literal(bytes: &[u8]) -> Option<Vec<u8>> {
    let mut out = Vec::new();
    let mut depth = 0usize;
    let mut i = 0;
    while i < bytes.len() && out.len() < 4096 {
        match bytes[i] {
            b'\\' => {
                i += 1;
                match *bytes.get(i)? {
                    b'n' => out.push(b'\n'),
                    b'r' => out.push(b'\r'),
                    b't' => out.push(b'\t'),
                    b'b' | b'f' => {}
                    d @ b'0'..=b'7' => {
                        let mut value = u32::from(d - b'0');
                        let mut k = 1;
                        while k < 3 && matches!(bytes.get(i + 1), Some(b'0'..=b'7')) {
                            i += 1;
                            value = value * 8 + u32::from(bytes[i] - b'0');
                            k += 1;
                        }
                        out.push((value & 0xff) as u8);
                    }
                    b'\r' | b'\n' => {}
                    other => out.push(other),
                }
            }
            b'(' => {
                depth += 1;
                out.push(b'(');
            }
            b')' if depth == 0 => return Some(out),
            b')' => {
                depth -= 1;
                out.push(b')');
            }
            b => out.push(b),
        }
        i += 1;
    }
    None
}

/// A PDF hex string's bytes, from after its `<`.
fn pdf_hex(bytes: &[u8]) -> Option<Vec<u8>> {
    let end = bytes.iter().take(8192).position(|b| *b == b'>')?;
    let digits: Vec<u8> = bytes[..end]
        .iter()
        .copied()
        .filter(|b| !b.is_ascii_whitespace())
        .collect();
    digits
        .chunks(2)
        .map(|pair| {
            let hi = (pair[0] as char).to_digit(16)?;
            let lo = pair.get(1).map_or(Some(0), |b| (*b as char).to_digit(16))?;
            Some((hi * 16 + lo) as u8)
        })
        .collect()
}

/// A PDF text string: UTF-16BE after its byte order mark, UTF-8 after its own, else
/// PDFDocEncoding (read as Latin-1, which it matches for letters).
fn pdf_text(raw: &[u8]) -> String {
    if let Some(utf16) = raw.strip_prefix(&[0xFE, 0xFF]) {
        let units: Vec<u16> = utf16
            .chunks_exact(2)
            .map(|p| u16::from_be_bytes([p[0], p[1]]))
            .collect();
        return String::from_utf16_lossy(&units);
    }
    if let Some(utf8) = raw.strip_prefix(&[0xEF, 0xBB, 0xBF]) {
        return String::from_utf8_lossy(utf8).into_owned();
    }
    raw.iter().map(|b| *b as char).collect()
}

fn find(haystack: &[u8], needle: &[u8]) -> Option<usize> {
    haystack.windows(needle.len()).position(|w| w == needle)
}

/// A document parsed from untrusted XML: `None` when it nests too deep or is not XML.
fn parse_xml(xml: &str) -> Option<roxmltree::Document<'_>> {
    if xml.len() as u64 > MAX_XML_BYTES
        || !carrel_opds::nesting_within(xml, carrel_opds::MAX_XML_DEPTH)
    {
        return None;
    }
    roxmltree::Document::parse(xml).ok()
}

trait LocalName {
    fn has_tag_name_local(&self, name: &str) -> bool;
}

impl LocalName for roxmltree::Node<'_, '_> {
    fn has_tag_name_local(&self, name: &str) -> bool {
        self.is_element() && self.tag_name().name() == name
    }
}

/// Names trimmed, emptied ones and repeats dropped, at most [`MAX_AUTHORS`].
fn tidy_names(names: Vec<String>) -> Vec<String> {
    let mut seen = HashSet::new();
    names
        .into_iter()
        .map(|n| {
            cut(
                &n.split_whitespace().collect::<Vec<_>>().join(" "),
                MAX_NAME_CHARS,
            )
        })
        .filter(|n| !n.is_empty() && seen.insert(n.to_lowercase()))
        .take(MAX_AUTHORS)
        .collect()
}

/// "3.0" → "3", "2.50" → "2.5": a series index as a person writes it.
fn tidy_number(n: &str) -> String {
    let n = n.trim();
    match n.parse::<f64>() {
        Ok(v) if v.is_finite() && v.fract() == 0.0 && v.abs() < 1e15 => format!("{}", v as i64),
        Ok(v) if v.is_finite() => format!("{v}"),
        _ => n.to_owned(),
    }
}

fn summary_text(s: &str) -> String {
    cut(
        &carrel_opds::tidy_paragraphs(&carrel_opds::html_to_text(s)),
        MAX_SUMMARY_CHARS,
    )
}

fn cut(s: &str, max: usize) -> String {
    s.trim().chars().take(max).collect()
}

/// A series number as a sortable index ("12", "12.5"; "½" and other words: none).
fn series_index(number: Option<&str>) -> Option<f64> {
    number?.trim().parse::<f64>().ok().filter(|v| v.is_finite())
}

// ---------------------------------------------------------------------------------------------
// The store and the data folder.

#[derive(Debug, Clone)]
struct Known {
    book_id: i64,
    path: String,
    mode: ImportMode,
    size: u64,
    mtime_ms: Option<i64>,
    fingerprint: String,
    state: LocalFileState,
}

const KNOWN_COLUMNS: &str = "book_id, path, mode, size, mtime_ms, fingerprint, state";

fn known_from_row(r: &rusqlite::Row<'_>) -> rusqlite::Result<Known> {
    Ok(Known {
        book_id: r.get(0)?,
        path: r.get(1)?,
        mode: ImportMode::parse(&r.get::<_, String>(2)?),
        size: r.get::<_, i64>(3)?.max(0) as u64,
        mtime_ms: r.get(4)?,
        fingerprint: r.get(5)?,
        state: LocalFileState::parse(&r.get::<_, String>(6)?),
    })
}

fn known_by_id(store: &Store, book_id: i64) -> Result<Option<Known>, StoreError> {
    let sql = format!("SELECT {KNOWN_COLUMNS} FROM local_files WHERE book_id = ?1");
    carrel_foundation::rows::optional(store, &sql, [book_id], known_from_row)
}

fn known_by_path(store: &Store, path: &str) -> Result<Option<Known>, StoreError> {
    let sql =
        format!("SELECT {KNOWN_COLUMNS} FROM local_files WHERE path = ?1 ORDER BY book_id LIMIT 1");
    carrel_foundation::rows::optional(store, &sql, [path], known_from_row)
}

/// A known book with this content whose own file is gone from where it was: the file was
/// moved (or renamed). A book whose file is still there is another copy, not this one.
fn moved_here(store: &Store, fingerprint: &str) -> Result<Option<i64>, StoreError> {
    let candidates: Vec<Known> = carrel_foundation::rows::all(
        store,
        &format!("SELECT {KNOWN_COLUMNS} FROM local_files WHERE fingerprint = ?1 ORDER BY book_id"),
        [fingerprint],
        known_from_row,
    )?;
    Ok(candidates.into_iter().find_map(|k| {
        let still_there = file_stat(Path::new(&k.path))
            .ok()
            .and_then(|s| fingerprint_of_stat(&k.path, s))
            .is_some_and(|f| f == k.fingerprint);
        (!still_there).then_some(k.book_id)
    }))
}

fn fingerprint_of_stat(path: &str, stat: Stat) -> Option<String> {
    fingerprint(Path::new(path), stat.size).ok()
}

/// Whether the book's file (link or copy) is in the data folder and leads to a file.
/// Whether the book's file (link or copy) is in the data folder, leads to a file, and is
/// recorded as stored (a book removed from the device has neither).
fn link_in_place(store: &Store, book_id: i64) -> Result<bool, StoreError> {
    let in_place = PartFiles::new(store.data_dir().books())
        .find_book_file(book_id)
        .is_some_and(|p| p.is_file());
    if !in_place {
        return Ok(false);
    }
    carrel_foundation::rows::value(store, "SELECT EXISTS (SELECT 1 FROM tasks WHERE book_id = ?1 AND kind = 'file' AND state = 'done')", [book_id])
}

/// A new book of the device source for the file (its place made by [`place`]).
fn new_book(
    store: &Store,
    device_id: i64,
    path: &Path,
    read: &ReadBook,
    fingerprint: &str,
) -> Result<i64, ImportError> {
    let now = store.now_ms();
    // Unique among the device's books and stable: the content and where it was first seen.
    let catalog_id = format!("file:{fingerprint}:{}", path.to_string_lossy());
    let id = store.write(|tx| {
        tx.query_row(
            "INSERT INTO books (id, server_id, catalog_id, title, authors, format, pinned, created_at_ms, identity_v)
             VALUES ((SELECT last + 1 FROM id_high_water WHERE name = 'books'), ?1, ?2, ?3, ?4, ?5, 1, ?6, 1)
             ON CONFLICT (server_id, catalog_id) DO UPDATE SET title = excluded.title
             RETURNING id",
            params![
                device_id,
                catalog_id,
                read.title,
                read.authors.join(", "),
                read.format().as_str(),
                now
            ],
            |r| r.get::<_, i64>(0),
        )
        .map_err(|e| store.sql_error(e))
    })?;
    Ok(id)
}

/// Puts the file in place as book `book_id` — the link or the copy at its file path, its cover,
/// its row (title, format, file address, page count), its metadata, its `local_files` row and
/// its done `file` task — replacing whatever the book had.
#[allow(clippy::too_many_arguments)]
fn place(
    store: &Store,
    book_id: i64,
    path: &Path,
    read: &ReadBook,
    mode: ImportMode,
    stat: &Stat,
    fingerprint: &str,
    device_id: i64,
) -> Result<(), ImportError> {
    let files = PartFiles::new(store.data_dir().books());
    let dir = files.book_dir(book_id);
    fs::create_dir_all(&dir).map_err(|e| ImportError::Files(e.to_string()))?;
    let target = files.book_file_path(book_id, read.extension);
    let staged = dir.join(format!(
        "book.{}.import.tmp.{}",
        std::process::id(),
        part_files::PARTIAL_SUFFIX
    ));
    let _ = fs::remove_file(&staged);
    let staged_result = match mode {
        ImportMode::Reference => symlink(path, &staged),
        ImportMode::Copy => fs::copy(path, &staged).map(|_| ()),
    };
    if let Err(e) = staged_result {
        let _ = fs::remove_file(&staged);
        return Err(ImportError::Files(e.to_string()));
    }
    // Another extension from before (the file changed from CBR to CBZ): only one book file.
    while let Some(old) = files.find_book_file(book_id).filter(|p| *p != target) {
        if fs::remove_file(&old).is_err() {
            break;
        }
    }
    fs::rename(&staged, &target).map_err(|e| {
        let _ = fs::remove_file(&staged);
        ImportError::Files(e.to_string())
    })?;
    if let Some(cover) = &read.cover {
        if let Some(ext) = sniff_image_type(cover).and_then(image_extension) {
            while let Some(old) = files.find_cover(book_id) {
                if fs::remove_file(&old).is_err() {
                    break;
                }
            }
            part_files::write_atomically(&files.cover_path(book_id, ext), cover)
                .map_err(|e| ImportError::Files(e.to_string()))?;
        }
    }
    let file_url = file_address(path);
    let now = store.now_ms();
    let path_text = path.to_string_lossy().into_owned();
    store.write(|tx| {
        write_rows(
            tx,
            book_id,
            device_id,
            read,
            &file_url,
            &path_text,
            mode,
            stat,
            fingerprint,
            now,
        )
        .map_err(|e| store.sql_error(e))
    })?;
    book_view::remember_meta(
        store,
        book_id,
        &BookMeta {
            authors: read.authors.clone(),
            series: read.series.clone(),
            series_index: series_index(read.number.as_deref()),
            summary: read.summary.clone(),
        },
    )?;
    Ok(())
}

#[allow(clippy::too_many_arguments)]
fn write_rows(
    tx: &Transaction<'_>,
    book_id: i64,
    device_id: i64,
    read: &ReadBook,
    file_url: &str,
    path: &str,
    mode: ImportMode,
    stat: &Stat,
    fingerprint: &str,
    now: i64,
) -> rusqlite::Result<()> {
    tx.execute(
        "UPDATE books SET title = ?2, authors = ?3, format = ?4, file_url = ?5, file_type = ?6,
             file_length = ?7, page_count = ?8, stream_template = NULL, page_list = NULL, cover_url = NULL,
             pinned = 1
         WHERE id = ?1",
        params![
            book_id,
            read.title,
            read.authors.join(", "),
            read.format().as_str(),
            file_url,
            read.file_type,
            stat.size as i64,
            read.page_count
        ],
    )?;
    tx.execute(
        "INSERT INTO local_files (book_id, path, mode, size, mtime_ms, fingerprint, state, checked_at_ms)
         VALUES (?1, ?2, ?3, ?4, ?5, ?6, 'present', ?7)
         ON CONFLICT (book_id) DO UPDATE SET path = excluded.path, mode = excluded.mode,
             size = excluded.size, mtime_ms = excluded.mtime_ms, fingerprint = excluded.fingerprint,
             state = 'present', checked_at_ms = excluded.checked_at_ms",
        params![
            book_id,
            path,
            mode.as_str(),
            stat.size as i64,
            stat.mtime_ms,
            fingerprint,
            now
        ],
    )?;
    // One done `file` task, with this file's address: nothing is ever downloaded for it.
    tx.execute("DELETE FROM tasks WHERE book_id = ?1", [book_id])?;
    let seq: i64 = tx.query_row(
        "UPDATE stack_counter SET seq = seq + 1 WHERE id = 1 RETURNING seq",
        [],
        |r| r.get(0),
    )?;
    tx.execute(
        "INSERT INTO tasks (book_id, server_id, kind, position, url, prioritary, seq, state, bytes,
                            created_at_ms, updated_at_ms)
         VALUES (?1, ?2, 'file', 0, ?3, 0, ?4, 'done', ?5, ?6, ?6)",
        params![book_id, device_id, file_url, seq, stat.size as i64, now],
    )?;
    Ok(())
}

fn record_seen(
    store: &Store,
    book_id: i64,
    stat: &Stat,
    state: LocalFileState,
) -> Result<(), StoreError> {
    let now = store.now_ms();
    store.execute(
        "UPDATE local_files SET size = ?2, mtime_ms = ?3, state = ?4, checked_at_ms = ?5 WHERE book_id = ?1",
        params![book_id, stat.size as i64, stat.mtime_ms, state.as_str(), now],
    )?;
    Ok(())
}

/// Records the book's file as gone or no longer a book, and its `file` task with it: the book
/// shows as not on the device, and opening it says to import the file again (nothing is ever
/// queued for it). Its link or copy stays, to be used again when the file comes back.
fn unavailable(store: &Store, book_id: i64, state: LocalFileState) -> Result<(), StoreError> {
    let now = store.now_ms();
    store.write(|tx| {
        tx.execute(
            "UPDATE local_files SET state = ?2, checked_at_ms = ?3 WHERE book_id = ?1",
            params![book_id, state.as_str(), now],
        )
        .map_err(|e| store.sql_error(e))?;
        tx.execute(
            "DELETE FROM tasks WHERE book_id = ?1 AND kind = 'file'",
            [book_id],
        )
        .map_err(|e| store.sql_error(e))?;
        Ok(())
    })
}

/// A copy found again after it went missing: its rows made again around it, the copy left as
/// it is (its original may be gone).
fn place_copy_again(
    store: &Store,
    book_id: i64,
    original: &Path,
    read: &ReadBook,
    stat: &Stat,
    fingerprint: &str,
) -> Result<(), ImportError> {
    let device = servers::device_source(store)?;
    let file_url = file_address(original);
    let now = store.now_ms();
    let path_text = original.to_string_lossy().into_owned();
    store.write(|tx| {
        write_rows(
            tx,
            book_id,
            device.id,
            read,
            &file_url,
            &path_text,
            ImportMode::Copy,
            stat,
            fingerprint,
            now,
        )
        .map_err(|e| store.sql_error(e))
    })?;
    Ok(())
}

fn file_address(path: &Path) -> String {
    url::Url::from_file_path(path)
        .map(|u| u.to_string())
        .unwrap_or_else(|_| format!("file://{}", path.to_string_lossy()))
}

fn imported(
    store: &Store,
    book_id: i64,
    path: &str,
    already_known: bool,
) -> Result<ImportedBook, ImportError> {
    let book: Book = books::get(store, book_id)?;
    let meta = book_view::meta(store, &book)?;
    let number = meta.series_index.map(|n| tidy_number(&n.to_string()));
    Ok(ImportedBook {
        book_id,
        title: book.title,
        format: book.format,
        already_known,
        authors: meta.authors,
        series: meta.series,
        number,
        path: path.to_owned(),
    })
}

fn image_extension(media_type: &str) -> Option<&'static str> {
    match media_type {
        "image/jpeg" => Some("jpg"),
        "image/png" => Some("png"),
        "image/webp" => Some("webp"),
        "image/gif" => Some("gif"),
        "image/avif" => Some("avif"),
        "image/bmp" => Some("bmp"),
        _ => None,
    }
}

#[cfg(unix)]
fn symlink(original: &Path, link: &Path) -> std::io::Result<()> {
    std::os::unix::fs::symlink(original, link)
}

#[cfg(windows)]
fn symlink(original: &Path, link: &Path) -> std::io::Result<()> {
    // Links need a privilege many Windows accounts lack: a hard link to the same file is the
    // next best (same volume), else a copy.
    fs::hard_link(original, link).or_else(|_| fs::copy(original, link).map(|_| ()))
}

#[cfg(test)]
#[path = "local_books_tests.rs"]
mod tests;
