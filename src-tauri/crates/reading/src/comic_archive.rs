//! Comic books kept as one archive file — CBZ (zip), CBR (RAR 4 and RAR 5), CB7 (7z) and CBT
//! (tar) — read page by page without unpacking the book to disk.
//!
//! The container is recognised by its first bytes, never by its name (a `.cbr` that is really
//! a zip is common). Zip files are read with the pure-Rust `zip` crate, straight to an entry
//! through the central directory; RAR, 7z and tar through libarchive (BSD licence; its RAR 4
//! and RAR 5 readers are its own code, not the UnRAR source, whose licence forbids what GPL
//! software must allow), which walks the archive to the entry asked for
//! ([`crate::archive_walk`], opened for that one container and no other format). The walk is
//! kept between pages, positioned after the last entry it read, so a page further on goes on
//! from there and only a page before it walks from the archive's start again
//! ([`kept_walk`]).
//!
//! Pages are the archive's images in natural reading order (`page 2` before `page 10`,
//! folder by folder); `__MACOSX/`, dot files, thumbnails and anything that is not an image are
//! skipped. One `ComicInfo.xml` — the one at the root, else the first — gives the title,
//! series, number, page count and reading direction (`Manga="YesAndRightToLeft"`); any others
//! are never decompressed.
//!
//! A hostile archive gets an [`ArchiveError`], never a crash, a hang or a full disk: the
//! entry count is capped ([`MAX_ENTRIES`], [`MAX_PAGES`]), one page is never decompressed past
//! [`MAX_PAGE_BYTES`] (a zip bomb stops there), a walk through a RAR, 7z or tar archive never
//! decompresses more than its [`WalkBudget`] (a run of zeros before the pages stops there),
//! entry names are only compared, never used as paths, and nothing is written to disk.
//!
//! Owns no table and no file: it reads the file it is given.

use std::cmp::Ordering;
use std::collections::{HashMap, VecDeque};
use std::fs::File;
use std::io::{BufReader, Read};
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

use serde::Serialize;

pub use crate::archive_error::{ArchiveError, Container, MAX_ENTRIES, MAX_PAGE_BYTES};
use crate::archive_walk::Walk;
use kept_walk::{KeptWalk, Wanted};

mod kept_walk;

/// The most pages a book may have.
pub const MAX_PAGES: usize = 10_000;
/// The largest `ComicInfo.xml` read.
pub(crate) const MAX_COMIC_INFO_BYTES: u64 = 1 << 20;

/// How many bytes one walk of a RAR, 7z or tar archive may decompress — the entries passed over
/// on the way and the pages taken, together — before it is refused with
/// [`ArchiveError::DecompressesTooMuch`]: the larger of `floor` and `per_archive_byte` times the
/// archive file's length. Opening the archive is a walk with the same budget.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct WalkBudget {
    pub floor: u64,
    pub per_archive_byte: u64,
}

impl WalkBudget {
    /// The budget every book gets: [`WALK_FLOOR_BYTES`], else [`WALK_BYTES_PER_ARCHIVE_BYTE`]
    /// times the file's length.
    pub const DEFAULT: WalkBudget = WalkBudget {
        floor: WALK_FLOOR_BYTES,
        per_archive_byte: WALK_BYTES_PER_ARCHIVE_BYTE,
    };

    /// The budget of a walk through an archive file `file_len` bytes long.
    pub fn bytes_for(&self, file_len: u64) -> u64 {
        self.floor
            .max(self.per_archive_byte.saturating_mul(file_len))
    }
}

impl Default for WalkBudget {
    fn default() -> Self {
        WalkBudget::DEFAULT
    }
}

/// The least a walk may decompress, whatever the file's length: four of the largest pages
/// (256 MiB) — the page asked for at its largest and three times as much passed over before it
/// (pages read ahead get what is left: a walk that runs out after the page asked for ends
/// there). A run of zeros 50 GB long packed into a few KB stops here, in well under a second,
/// instead of costing minutes at every page turn.
pub const WALK_FLOOR_BYTES: u64 = 4 * MAX_PAGE_BYTES;
/// Bytes a walk may decompress for each byte of the archive file, beyond the floor. Pages are
/// images compressed already (JPEG, PNG, WebP), so a book unpacks to about its own size, and the
/// last page of a solid archive costs a walk through all of it: eight times the file lets any
/// book of images be read to its end, while a file that unpacks to more is mostly padding.
pub const WALK_BYTES_PER_ARCHIVE_BYTE: u64 = 8;

/// What `ComicInfo.xml` says (all optional).
#[derive(Debug, Clone, Default, PartialEq, Serialize, ts_rs::TS)]
pub struct ComicInfo {
    pub title: Option<String>,
    pub series: Option<String>,
    pub number: Option<String>,
    pub page_count: Option<u32>,
    /// `Manga="YesAndRightToLeft"`.
    pub right_to_left: bool,
}

/// An opened comic archive: its pages in reading order.
#[derive(Debug, Clone)]
pub struct ComicArchive {
    path: PathBuf,
    pub container: Container,
    /// Entry names in reading order, each with its entry's index in the archive (a zip's, or
    /// its place in a walk).
    pages: Vec<(String, usize)>,
    pub info: ComicInfo,
    /// Pages decompressed by the last walks (RAR, 7z, tar: see [`READ_AHEAD`]).
    ahead: Arc<Mutex<ReadAhead>>,
    /// The walk kept between pages (RAR, 7z, tar), shared by the archive's clones and ended
    /// with the last of them.
    walk: Arc<KeptWalk>,
}

/// Pages decompressed ahead, by index, oldest first.
type ReadAhead = VecDeque<(usize, Arc<Vec<u8>>)>;

/// Pages kept decompressed after the one read, for archives read by walking them (RAR, 7z,
/// tar): reaching page N of a solid archive decompresses everything before it, so the pages
/// after it are taken in the same walk and the next turns cost nothing. The page read is kept
/// too, with the pages of the walk before: turning back to it from the next one costs no walk
/// either (it took one from the archive's start).
pub const READ_AHEAD: usize = 4;
/// The most bytes kept decompressed ahead, all pages together.
const AHEAD_BYTES: usize = 96 << 20;

impl ComicArchive {
    /// Reads the archive's table of contents (and its `ComicInfo.xml`), with the
    /// [`WalkBudget`] every book gets.
    pub fn open(path: &Path) -> Result<ComicArchive, ArchiveError> {
        Self::open_with(path, WalkBudget::DEFAULT)
    }

    /// [`ComicArchive::open`] with another budget for its walks (RAR, 7z, tar).
    pub fn open_with(path: &Path, budget: WalkBudget) -> Result<ComicArchive, ArchiveError> {
        let container = sniff(path)?;
        let walk_budget = budget.bytes_for(std::fs::metadata(path).map_err(io)?.len());
        let (names, info) = match container {
            Container::Zip => zip_entries(path)?,
            walked => walked_entries(path, walked, walk_budget)?,
        };
        let pages = pages_in_reading_order(names)?;
        let info = info.map(|xml| parse_comic_info(&xml)).unwrap_or_default();
        Ok(ComicArchive {
            path: path.to_owned(),
            container,
            pages,
            info,
            ahead: Arc::default(),
            walk: Arc::new(KeptWalk::new(path.to_owned(), container, walk_budget)),
        })
    }

    pub fn page_count(&self) -> usize {
        self.pages.len()
    }

    /// The entry names of the pages, in reading order.
    pub fn page_names(&self) -> impl Iterator<Item = &str> {
        self.pages.iter().map(|(n, _)| n.as_str())
    }

    /// Page `index`'s bytes (0-based), decompressed, at most [`MAX_PAGE_BYTES`].
    pub fn page(&self, index: usize) -> Result<Vec<u8>, ArchiveError> {
        let (name, zip_index) = self.pages.get(index).ok_or(ArchiveError::NoSuchPage {
            page: index,
            count: self.pages.len(),
        })?;
        let bytes = match self.container {
            Container::Zip => zip_read(&self.path, *zip_index, MAX_PAGE_BYTES + 1)?,
            _ => return self.walked_page(index, name),
        };
        if bytes.len() as u64 > MAX_PAGE_BYTES {
            return Err(ArchiveError::PageTooLarge { page: index });
        }
        Ok(bytes)
    }

    /// A page of an archive read by walking it: kept from an earlier walk, else read with the
    /// [`READ_AHEAD`] pages after it by the kept walk ([`kept_walk`]).
    fn walked_page(&self, index: usize, name: &str) -> Result<Vec<u8>, ArchiveError> {
        let lock = || self.ahead.lock().unwrap_or_else(|p| p.into_inner());
        if let Some((_, bytes)) = lock().iter().find(|(i, _)| *i == index) {
            return Ok(bytes.to_vec());
        }
        let wanted: Vec<Wanted> = (index..self.pages.len().min(index + 1 + READ_AHEAD))
            .map(|i| Wanted {
                page: i,
                entry: self.pages[i].1,
                name: self.pages[i].0.clone(),
            })
            .collect();
        // Out of budget once the page asked for is found, the pages ahead are left for later.
        let mut found = self.walk.read(&wanted)?;
        let asked = found
            .remove(&index)
            .ok_or_else(|| ArchiveError::Damaged(format!("the entry “{name}” is missing")))?;
        if asked.len() as u64 > MAX_PAGE_BYTES {
            return Err(ArchiveError::PageTooLarge { page: index });
        }
        let mut ahead = lock();
        ahead.retain(|(k, _)| *k != index);
        ahead.push_back((index, Arc::new(asked.clone())));
        for i in wanted[1..].iter().map(|w| w.page) {
            if let Some(bytes) = found
                .remove(&i)
                .filter(|b| b.len() as u64 <= MAX_PAGE_BYTES)
            {
                ahead.retain(|(k, _)| *k != i);
                ahead.push_back((i, Arc::new(bytes)));
            }
        }
        while ahead.len() > 2 * (READ_AHEAD + 1)
            || ahead.iter().map(|(_, b)| b.len()).sum::<usize>() > AHEAD_BYTES
        {
            ahead.pop_front();
        }
        Ok(asked)
    }
}

/// The pages among an archive's entries (name, index in the archive), in reading order:
/// images only, natural order, at most [`MAX_PAGES`].
pub fn pages_in_reading_order(
    entries: Vec<(String, usize)>,
) -> Result<Vec<(String, usize)>, ArchiveError> {
    let mut pages: Vec<(String, usize)> = entries.into_iter().filter(|(n, _)| is_page(n)).collect();
    if pages.is_empty() {
        return Err(ArchiveError::NoPages);
    }
    if pages.len() > MAX_PAGES {
        return Err(ArchiveError::TooManyEntries);
    }
    pages.sort_by(|a, b| natural_cmp(&a.0, &b.0));
    Ok(pages)
}

/// Every entry name of an archive (pages or not), as stored.
pub fn entry_names(path: &Path) -> Result<Vec<String>, ArchiveError> {
    let names = match sniff(path)? {
        Container::Zip => zip_names(&mut zip_open(path)?)?,
        walked => walked_names(path, walked, default_budget(path)?)?,
    };
    Ok(names.into_iter().map(|(n, _)| n).collect())
}

/// The [`WalkBudget::DEFAULT`] of a walk through the file at `path`.
fn default_budget(path: &Path) -> Result<u64, ArchiveError> {
    Ok(WalkBudget::DEFAULT.bytes_for(std::fs::metadata(path).map_err(io)?.len()))
}

/// One entry's bytes by its name, at most `limit` (more is [`ArchiveError::PageTooLarge`]
/// for page 0: the caller names what it read).
pub fn read_entry(path: &Path, name: &str, limit: u64) -> Result<Vec<u8>, ArchiveError> {
    let bytes = match sniff(path)? {
        Container::Zip => {
            let names = zip_names(&mut zip_open(path)?)?;
            let index = names
                .iter()
                .find(|(n, _)| n == name)
                .map(|(_, i)| *i)
                .ok_or(ArchiveError::NoSuchPage { page: 0, count: 0 })?;
            zip_read(path, index, limit + 1)?
        }
        walked => walk_read_many(path, walked, &[name], 1, limit + 1, default_budget(path)?)?
            .remove(name)
            .ok_or_else(|| ArchiveError::Damaged(format!("the entry “{name}” is missing")))?,
    };
    if bytes.len() as u64 > limit {
        return Err(ArchiveError::PageTooLarge { page: 0 });
    }
    Ok(bytes)
}

/// Which container a file is, by its first bytes.
pub fn sniff(path: &Path) -> Result<Container, ArchiveError> {
    let mut head = [0u8; 262];
    let mut f = File::open(path).map_err(io)?;
    let mut n = 0;
    while n < head.len() {
        match f.read(&mut head[n..]).map_err(io)? {
            0 => break,
            k => n += k,
        }
    }
    let head = &head[..n];
    if head.starts_with(b"PK\x03\x04") || head.starts_with(b"PK\x05\x06") {
        Ok(Container::Zip)
    } else if head.starts_with(b"Rar!\x1a\x07") {
        Ok(Container::Rar)
    } else if head.starts_with(b"7z\xbc\xaf\x27\x1c") {
        Ok(Container::SevenZip)
    } else if head.len() >= 262 && &head[257..262] == b"ustar" {
        Ok(Container::Tar)
    } else {
        Err(ArchiveError::UnknownContainer)
    }
}

fn io(e: std::io::Error) -> ArchiveError {
    ArchiveError::Io(e.to_string())
}

/// Whether an entry is a page: an image by its extension, not hidden, not macOS metadata, not
/// a thumbnail.
pub fn is_page(name: &str) -> bool {
    let name = name.replace('\\', "/");
    if name.ends_with('/') {
        return false;
    }
    // "." and ".." say where, not what: a name that climbs is still only compared, never used.
    let mut parts = name
        .split('/')
        .filter(|p| !p.is_empty() && *p != "." && *p != "..");
    if parts
        .clone()
        .any(|p| p.starts_with('.') || p.eq_ignore_ascii_case("__MACOSX"))
    {
        return false;
    }
    let Some(file) = parts.next_back() else {
        return false;
    };
    let lower = file.to_ascii_lowercase();
    if lower.starts_with("thumbs") || lower.contains("thumbnail") {
        return false;
    }
    let Some((_, ext)) = lower.rsplit_once('.') else {
        return false;
    };
    matches!(
        ext,
        "jpg" | "jpeg" | "png" | "webp" | "gif" | "avif" | "bmp" | "jxl"
    )
}

/// Natural order: digit runs compare by value (`2` before `10`), other text case-insensitively,
/// folder by folder.
pub fn natural_cmp(a: &str, b: &str) -> Ordering {
    let a = a.replace('\\', "/");
    let b = b.replace('\\', "/");
    let (mut x, mut y) = (a.chars().peekable(), b.chars().peekable());
    loop {
        match (x.peek().copied(), y.peek().copied()) {
            (None, None) => return a.cmp(&b),
            (None, Some(_)) => return Ordering::Less,
            (Some(_), None) => return Ordering::Greater,
            (Some(c), Some(d)) if c.is_ascii_digit() && d.is_ascii_digit() => {
                let take = |it: &mut std::iter::Peekable<std::str::Chars<'_>>| {
                    let mut s = String::new();
                    while let Some(c) = it.peek().copied().filter(char::is_ascii_digit) {
                        s.push(c);
                        it.next();
                    }
                    s
                };
                let (m, n) = (take(&mut x), take(&mut y));
                let (mt, nt) = (m.trim_start_matches('0'), n.trim_start_matches('0'));
                let order = mt
                    .len()
                    .cmp(&nt.len())
                    .then_with(|| mt.cmp(nt))
                    .then_with(|| m.len().cmp(&n.len()));
                if order != Ordering::Equal {
                    return order;
                }
            }
            (Some(c), Some(d)) => {
                // A folder ends before any name that goes on: "a/z" comes before "a b/".
                let rank = |c: char| {
                    if c == '/' {
                        '\0'
                    } else {
                        c.to_ascii_lowercase()
                    }
                };
                let order = rank(c).cmp(&rank(d));
                if order != Ordering::Equal {
                    return order;
                }
                x.next();
                y.next();
            }
        }
    }
}

type Entries = (Vec<(String, usize)>, Option<String>);

type ZipFile = zip::ZipArchive<BufReader<File>>;

fn zip_open(path: &Path) -> Result<ZipFile, ArchiveError> {
    let file = File::open(path).map_err(io)?;
    zip::ZipArchive::new(BufReader::new(file)).map_err(|e| ArchiveError::Damaged(e.to_string()))
}

/// A zip's entry names with their indexes, from its central directory (nothing decompressed).
fn zip_names(archive: &mut ZipFile) -> Result<Vec<(String, usize)>, ArchiveError> {
    if archive.len() > MAX_ENTRIES {
        return Err(ArchiveError::TooManyEntries);
    }
    (0..archive.len())
        .map(|i| {
            let entry = archive
                .by_index_raw(i)
                .map_err(|e| ArchiveError::Damaged(e.to_string()))?;
            Ok((entry.name().to_owned(), i))
        })
        .collect()
}

/// A zip's entry names and its one `ComicInfo.xml` ([`chosen_comic_info`]), read.
fn zip_entries(path: &Path) -> Result<Entries, ArchiveError> {
    let mut archive = zip_open(path)?;
    let names = zip_names(&mut archive)?;
    let info = match chosen_comic_info(names.iter().map(|(n, _)| n.as_str())) {
        Some(at) => {
            let mut entry = archive
                .by_index(names[at].1)
                .map_err(|e| ArchiveError::Damaged(e.to_string()))?;
            let mut xml = Vec::new();
            (&mut entry)
                .take(MAX_COMIC_INFO_BYTES)
                .read_to_end(&mut xml)
                .map_err(|e| ArchiveError::Damaged(e.to_string()))?;
            Some(String::from_utf8_lossy(&xml).into_owned())
        }
        None => None,
    };
    Ok((names, info))
}

fn zip_read(path: &Path, index: usize, limit: u64) -> Result<Vec<u8>, ArchiveError> {
    let mut archive = zip_open(path)?;
    let mut entry = archive
        .by_index(index)
        .map_err(|e| ArchiveError::Damaged(e.to_string()))?;
    let mut bytes = Vec::with_capacity(entry.size().min(limit) as usize);
    (&mut entry)
        .take(limit)
        .read_to_end(&mut bytes)
        .map_err(|e| ArchiveError::Damaged(e.to_string()))?;
    Ok(bytes)
}

pub(crate) fn is_comic_info(name: &str) -> bool {
    name.rsplit(['/', '\\'])
        .next()
        .is_some_and(|f| f.eq_ignore_ascii_case("ComicInfo.xml"))
}

/// Which of an archive's `ComicInfo.xml` is read, by its place among `names`: the one at the
/// root, else the first. Only that one is ever decompressed, however many the archive holds.
pub(crate) fn chosen_comic_info<'a>(names: impl Iterator<Item = &'a str> + Clone) -> Option<usize> {
    let at_root = |name: &str| {
        let name = name
            .trim_start_matches("./")
            .trim_start_matches(['/', '\\']);
        name.eq_ignore_ascii_case("ComicInfo.xml")
    };
    names
        .clone()
        .position(at_root)
        .or_else(|| names.into_iter().position(is_comic_info))
}

/// The entry names of an archive read by walking it, each with its place in the walk.
/// Nothing is decompressed to list a 7z or a tar; a solid RAR is decompressed to be skipped
/// through, so every RAR entry passed counts its declared size against `budget` first.
fn walked_names(
    path: &Path,
    container: Container,
    budget: u64,
) -> Result<Vec<(String, usize)>, ArchiveError> {
    let mut walk = Walk::open(path, container, budget)?;
    let mut names = Vec::new();
    while let Some(entry) = walk.next_entry()? {
        if names.len() >= MAX_ENTRIES {
            return Err(ArchiveError::TooManyEntries);
        }
        if container == Container::Rar {
            match entry.declared {
                Some(size) => walk.charge(size)?,
                None => walk.pass()?,
            }
        }
        names.push((entry.name, names.len()));
    }
    Ok(names)
}

/// The entry names of an archive read by walking it, and its one `ComicInfo.xml`
/// ([`chosen_comic_info`]), read in a second walk within `budget`.
fn walked_entries(path: &Path, container: Container, budget: u64) -> Result<Entries, ArchiveError> {
    let names = walked_names(path, container, budget)?;
    let info = match chosen_comic_info(names.iter().map(|(n, _)| n.as_str())) {
        Some(at) => {
            let name = names[at].0.as_str();
            let mut found =
                walk_read_many(path, container, &[name], 1, MAX_COMIC_INFO_BYTES, budget)?;
            found
                .remove(name)
                .map(|xml| String::from_utf8_lossy(&xml).into_owned())
        }
        None => None,
    };
    Ok((names, info))
}

/// Several entries' bytes by name in one walk of the archive, each at most `limit` (a longer
/// one is cut at `limit`, for the caller to refuse, and the walk stops there). Everything
/// before them is decompressed (a solid RAR or 7z cannot be skipped through), all of it within
/// `budget` bytes: past it, [`ArchiveError::DecompressesTooMuch`], unless the first `needed`
/// names were found by then (the walk ends with what it has). The walk stops once all are
/// found.
fn walk_read_many(
    path: &Path,
    container: Container,
    names: &[&str],
    needed: usize,
    limit: u64,
    budget: u64,
) -> Result<HashMap<String, Vec<u8>>, ArchiveError> {
    let mut walk = Walk::open(path, container, budget)?;
    let mut found: HashMap<String, Vec<u8>> = HashMap::new();
    match walk_to(&mut walk, names, limit, &mut found) {
        Err(ArchiveError::DecompressesTooMuch { .. })
            if names[..needed.min(names.len())]
                .iter()
                .all(|n| found.contains_key(*n)) =>
        {
            Ok(found)
        }
        Err(e) => Err(e),
        Ok(()) => Ok(found),
    }
}

/// The walk of [`walk_read_many`], putting what it reads into `found`.
fn walk_to(
    walk: &mut Walk,
    names: &[&str],
    limit: u64,
    found: &mut HashMap<String, Vec<u8>>,
) -> Result<(), ArchiveError> {
    let mut seen = 0usize;
    while let Some(entry) = walk.next_entry()? {
        seen += 1;
        if seen > MAX_ENTRIES {
            return Err(ArchiveError::TooManyEntries);
        }
        if !names.contains(&entry.name.as_str()) || found.contains_key(&entry.name) {
            // Passed over, but decompressed all the same: counted.
            walk.pass()?;
            continue;
        }
        let bytes = walk.read(limit)?;
        let full = bytes.len() as u64 >= limit;
        found.insert(entry.name, bytes);
        // At the limit the walk stops (a bomb is not decompressed further); the caller sees
        // more than it allows and refuses that entry.
        if full || found.len() == names.len() {
            break;
        }
    }
    Ok(())
}

/// The text of one field of a `ComicInfo.xml` document (a child of its root, its name in any
/// case), trimmed; `None` when it is missing or blank.
pub fn comic_info_field(doc: &roxmltree::Document<'_>, name: &str) -> Option<String> {
    doc.root_element()
        .children()
        .find(|n| n.is_element() && n.tag_name().name().eq_ignore_ascii_case(name))
        .and_then(|n| n.text())
        .map(str::trim)
        .filter(|t| !t.is_empty())
        .map(str::to_owned)
}

/// The fields of `ComicInfo.xml` Carrel uses; a malformed document (or one nested deeper than
/// the XML parser can descend) gives nothing.
pub fn parse_comic_info(xml: &str) -> ComicInfo {
    if !carrel_opds::nesting_within(xml, carrel_opds::MAX_XML_DEPTH) {
        return ComicInfo::default();
    }
    let Ok(doc) = roxmltree::Document::parse(xml) else {
        return ComicInfo::default();
    };
    let field = |name: &str| comic_info_field(&doc, name);
    ComicInfo {
        title: field("Title"),
        series: field("Series"),
        number: field("Number"),
        page_count: field("PageCount").and_then(|c| c.parse().ok()),
        right_to_left: field("Manga").is_some_and(|m| m.eq_ignore_ascii_case("YesAndRightToLeft")),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pages_come_in_natural_order_folder_by_folder() {
        let mut names = vec![
            "p10.jpg",
            "p2.jpg",
            "p1.jpg",
            "b/p1.png",
            "a/p3.png",
            "a/p20.png",
            "P02b.jpg",
        ];
        names.sort_by(|a, b| natural_cmp(a, b));
        assert_eq!(
            names,
            [
                "a/p3.png",
                "a/p20.png",
                "b/p1.png",
                "p1.jpg",
                "p2.jpg",
                "P02b.jpg",
                "p10.jpg"
            ]
        );
        assert_eq!(natural_cmp("page 2", "page 10"), Ordering::Less);
        assert_eq!(natural_cmp("007", "7"), Ordering::Greater);
    }

    #[test]
    fn only_real_pages_count() {
        for yes in ["001.jpg", "ch1/002.PNG", "x.webp", "a b/c.jpeg"] {
            assert!(is_page(yes), "{yes}");
        }
        for no in [
            "__MACOSX/._001.jpg",
            ".hidden.jpg",
            "dir/.x/1.png",
            "Thumbs.db",
            "cover_thumbnail.jpg",
            "ComicInfo.xml",
            "folder/",
            "notes.txt",
            "noext",
        ] {
            assert!(!is_page(no), "{no}");
        }
    }

    #[test]
    fn comic_info_gives_title_series_number_and_direction() {
        let info = parse_comic_info(
            "<?xml version=\"1.0\"?><ComicInfo><Title>Dawn</Title><Series>Saga</Series><Number>3</Number>\
             <PageCount>24</PageCount><Manga>YesAndRightToLeft</Manga></ComicInfo>",
        );
        assert_eq!(info.title.as_deref(), Some("Dawn"));
        assert_eq!(
            (
                info.series.as_deref(),
                info.number.as_deref(),
                info.page_count
            ),
            (Some("Saga"), Some("3"), Some(24))
        );
        assert!(info.right_to_left);
        assert_eq!(
            parse_comic_info("<ComicInfo><Manga>Yes</Manga>"),
            ComicInfo::default()
        );
        assert!(!parse_comic_info("<ComicInfo><Manga>Yes</Manga></ComicInfo>").right_to_left);
    }
}
