//! A zip comic (CBZ) read from the server before its file is stored: the file's tail (which
//! holds the zip's central directory) and then only the byte ranges of the entries the reader
//! asks for, so page 150 of a 200 MB comic opens after a few hundred kilobytes instead of the
//! whole file.
//!
//! A zip ends with its central directory: one record per entry with its name and the offset of
//! its local header. [`RemoteZip::from_tail`] finds the end-of-central-directory record in the
//! tail, works out where the tail starts in the file, and reads the offsets (ZIP64 included).
//! An entry's bytes run from its local header to the next entry's (or to the directory), so a
//! page is one Range request. The pages, their order and their bytes come from the same `zip`
//! crate and the same rules ([`comic_archive::pages_in_reading_order`]) as for a stored file,
//! over a reader that holds only the fetched ranges ([`Sparse`]) — page N is the same page
//! before and after the file is stored, and a hostile archive meets the same guards.
//!
//! Owns no table and no file: the caller fetches the ranges (through the download stack) and
//! gives their bytes.

use std::io::{self, Read, Seek, SeekFrom};

use crate::comic_archive::{self, ArchiveError, ComicInfo, MAX_ENTRIES, MAX_PAGE_BYTES};

/// How much of the file's end is fetched first: the central directory of a book of about 500
/// pages with long names. A larger directory is fetched as one more part
/// ([`TailError::DirectoryBefore`]).
pub const TAIL_BYTES: u64 = 64 << 10;
/// The largest directory read before the file is stored (about 100,000 entries).
pub const MAX_DIRECTORY_BYTES: u64 = 16 << 20;

const EOCD: &[u8; 4] = b"PK\x05\x06";
const ZIP64_LOCATOR: &[u8; 4] = b"PK\x06\x07";
const ZIP64_EOCD: &[u8; 4] = b"PK\x06\x06";
const CENTRAL_ENTRY: &[u8; 4] = b"PK\x01\x02";

/// Why a zip cannot be read from its tail; the caller then waits for the whole file.
#[derive(Debug, thiserror::Error, PartialEq, Eq)]
pub enum TailError {
    #[error("the file's end holds no zip directory")]
    NotAZip,
    #[error("the zip directory cannot be found from the file's end")]
    DirectoryTooLarge,
    /// The directory starts before the tail: the bytes `[start, tail_start)` are needed too;
    /// the tail with them before it is read again.
    #[error("the zip directory starts {} bytes before the file's last part", tail_start - start)]
    DirectoryBefore { start: u64, tail_start: u64 },
    #[error("the zip directory is damaged: {0}")]
    Damaged(&'static str),
}

/// A zip known from its tail: where each entry starts, and its pages in reading order.
#[derive(Debug)]
pub struct RemoteZip {
    /// The tail's offset in the file, and the file's length.
    tail_start: u64,
    len: u64,
    directory_start: u64,
    /// Local header offsets, by entry index (the central directory's order).
    offsets: Vec<u64>,
    /// Entry indexes of the pages, in reading order.
    pages: Vec<usize>,
    /// The entry of `ComicInfo.xml`, if the archive has one.
    comic_info: Option<usize>,
    /// What `ComicInfo.xml` says, once read ([`RemoteZip::with_info`]).
    pub info: ComicInfo,
    tail: Vec<u8>,
}

fn u16_at(b: &[u8], at: usize) -> Option<u64> {
    Some(u16::from_le_bytes(b.get(at..at + 2)?.try_into().ok()?) as u64)
}

fn u32_at(b: &[u8], at: usize) -> Option<u64> {
    Some(u32::from_le_bytes(b.get(at..at + 4)?.try_into().ok()?) as u64)
}

fn u64_at(b: &[u8], at: usize) -> Option<u64> {
    Some(u64::from_le_bytes(b.get(at..at + 8)?.try_into().ok()?))
}

/// Where the directory is: (tail start in the file, directory offset, directory size, entries).
fn locate_directory(tail: &[u8]) -> Result<(u64, u64, u64, u64), TailError> {
    const EOCD_LEN: usize = 22;
    if tail.len() < EOCD_LEN {
        return Err(TailError::NotAZip);
    }
    // The record is followed only by its comment (at most 65,535 bytes).
    let lowest = tail.len().saturating_sub(EOCD_LEN + u16::MAX as usize);
    let at = (lowest..=tail.len() - EOCD_LEN)
        .rev()
        .find(|&i| {
            &tail[i..i + 4] == EOCD
                && u16_at(tail, i + 20) == Some((tail.len() - i - EOCD_LEN) as u64)
        })
        .ok_or(TailError::NotAZip)?;
    let entries = u16_at(tail, at + 10).ok_or(TailError::NotAZip)?;
    let size = u32_at(tail, at + 12).ok_or(TailError::NotAZip)?;
    let offset = u32_at(tail, at + 16).ok_or(TailError::NotAZip)?;
    if entries == 0xFFFF || size == 0xFFFF_FFFF || offset == 0xFFFF_FFFF {
        // ZIP64: the locator just before the record gives the ZIP64 record's offset in the file,
        // and the ZIP64 record (found before the locator) the directory's.
        let locator = at.checked_sub(20).ok_or(TailError::DirectoryTooLarge)?;
        if &tail[locator..locator + 4] != ZIP64_LOCATOR {
            return Err(TailError::Damaged("no ZIP64 locator"));
        }
        let record_offset = u64_at(tail, locator + 8).ok_or(TailError::NotAZip)?;
        let record = (0..locator.saturating_sub(55))
            .rev()
            .find(|&i| {
                &tail[i..i + 4] == ZIP64_EOCD
                    && u64_at(tail, i + 4).is_some_and(|n| {
                        (i as u64).saturating_add(12).saturating_add(n) == locator as u64
                    })
            })
            .ok_or(TailError::DirectoryTooLarge)?;
        let tail_start = record_offset
            .checked_sub(record as u64)
            .ok_or(TailError::Damaged(
                "the ZIP64 record is before the file's start",
            ))?;
        let entries = u64_at(tail, record + 32).ok_or(TailError::NotAZip)?;
        let size = u64_at(tail, record + 40).ok_or(TailError::NotAZip)?;
        let offset = u64_at(tail, record + 48).ok_or(TailError::NotAZip)?;
        return Ok((tail_start, offset, size, entries));
    }
    // The directory ends where the record starts.
    let tail_start = offset
        .checked_add(size)
        .and_then(|end| end.checked_sub(at as u64))
        .ok_or(TailError::Damaged(
            "the directory does not end at its record",
        ))?;
    Ok((tail_start, offset, size, entries))
}

/// The local header offset of every entry of the directory `dir`.
fn entry_offsets(dir: &[u8], entries: u64) -> Result<Vec<u64>, TailError> {
    if entries as usize > MAX_ENTRIES {
        return Err(TailError::Damaged("too many entries"));
    }
    let mut offsets = Vec::with_capacity(entries as usize);
    let mut at = 0usize;
    for _ in 0..entries {
        let head = dir
            .get(at..at + 46)
            .ok_or(TailError::Damaged("a record is cut short"))?;
        if &head[..4] != CENTRAL_ENTRY {
            return Err(TailError::Damaged("a record has no signature"));
        }
        let field = |i| u32_at(head, i).expect("46 bytes read");
        let (compressed, size, local) = (field(20), field(24), field(42));
        let name_len = u16_at(head, 28).expect("46 bytes read") as usize;
        let extra_len = u16_at(head, 30).expect("46 bytes read") as usize;
        let comment_len = u16_at(head, 32).expect("46 bytes read") as usize;
        let extra = dir
            .get(at + 46 + name_len..at + 46 + name_len + extra_len)
            .ok_or(TailError::Damaged("a record is cut short"))?;
        let mut offset = local;
        if local == 0xFFFF_FFFF {
            // The ZIP64 extra field holds, in order, the sizes that overflowed, then the offset.
            let mut e = 0;
            offset = loop {
                let (id, len) = (u16_at(extra, e), u16_at(extra, e + 2));
                let (Some(id), Some(len)) = (id, len) else {
                    return Err(TailError::Damaged("no ZIP64 offset"));
                };
                if id == 1 {
                    let skip =
                        8 * (u64::from(size == 0xFFFF_FFFF) + u64::from(compressed == 0xFFFF_FFFF));
                    break u64_at(extra, e + 4 + skip as usize)
                        .ok_or(TailError::Damaged("no ZIP64 offset"))?;
                }
                e += 4 + len as usize;
            };
        }
        offsets.push(offset);
        at += 46 + name_len + extra_len + comment_len;
    }
    Ok(offsets)
}

impl RemoteZip {
    /// Reads the zip's directory from the last bytes of the file (at most [`TAIL_BYTES`], or the
    /// whole file when it is shorter).
    pub fn from_tail(tail: Vec<u8>) -> Result<RemoteZip, TailError> {
        let (tail_start, directory_start, directory_size, entries) = locate_directory(&tail)?;
        if directory_start < tail_start {
            return Err(if tail_start - directory_start <= MAX_DIRECTORY_BYTES {
                TailError::DirectoryBefore {
                    start: directory_start,
                    tail_start,
                }
            } else {
                TailError::DirectoryTooLarge
            });
        }
        let from = (directory_start - tail_start) as usize;
        let dir = tail
            .get(from..from.saturating_add(directory_size as usize))
            .ok_or(TailError::Damaged("the directory runs past the file's end"))?;
        let offsets = entry_offsets(dir, entries)?;
        let len = tail_start
            .checked_add(tail.len() as u64)
            .ok_or(TailError::Damaged(
                "the file would end past the largest size",
            ))?;
        if offsets.iter().any(|&o| o >= directory_start) {
            return Err(TailError::Damaged("an entry starts after the directory"));
        }
        // The names, their decoding and the page order are the zip crate's, as for a stored file.
        let archive = zip::ZipArchive::new(Sparse::new(len, vec![(tail_start, &tail)]))
            .map_err(|_| TailError::Damaged("the zip crate cannot read the directory"))?;
        if archive.len() != offsets.len() {
            // Duplicate names: the crate keeps one of them; indexes would not agree.
            return Err(TailError::Damaged("entries share a name"));
        }
        let names: Vec<(String, usize)> = (0..archive.len())
            .filter_map(|i| archive.name_for_index(i).map(|n| (n.to_owned(), i)))
            .collect();
        drop(archive);
        // One ComicInfo.xml, as for a stored file: the root one, else the first.
        let comic_info = comic_archive::chosen_comic_info(names.iter().map(|(n, _)| n.as_str()))
            .map(|at| names[at].1);
        let pages = comic_archive::pages_in_reading_order(names)
            .map_err(|_| TailError::Damaged("no pages"))?
            .into_iter()
            .map(|(_, i)| i)
            .collect();
        Ok(RemoteZip {
            tail_start,
            len,
            directory_start,
            offsets,
            pages,
            comic_info,
            info: ComicInfo::default(),
            tail,
        })
    }

    /// The bytes of the file that hold `ComicInfo.xml`, when the archive has one.
    pub fn comic_info_range(&self) -> Option<(u64, u64)> {
        let (start, end) = self.entry_range(self.comic_info?);
        (end - start <= comic_archive::MAX_COMIC_INFO_BYTES + (64 << 10)).then_some((start, end))
    }

    /// This zip with what its `ComicInfo.xml` says, read from the entry's bytes (see
    /// [`RemoteZip::comic_info_range`]); a damaged one changes nothing.
    pub fn with_info(mut self, range: &[u8]) -> RemoteZip {
        if let (Some(entry), Some((start, end))) = (self.comic_info, self.comic_info_range()) {
            if range.len() as u64 == end - start {
                if let Ok(xml) =
                    self.read_entry(entry, start, range, comic_archive::MAX_COMIC_INFO_BYTES)
                {
                    self.info = comic_archive::parse_comic_info(&String::from_utf8_lossy(&xml));
                }
            }
        }
        self
    }

    /// Entry `entry`'s bytes in the file: `[start, end)`, from its local header to the next
    /// entry's (or the directory).
    fn entry_range(&self, entry: usize) -> (u64, u64) {
        let start = self.offsets[entry];
        let end = self
            .offsets
            .iter()
            .copied()
            .filter(|&o| o > start)
            .min()
            .unwrap_or(self.directory_start)
            .min(self.directory_start);
        (start, end)
    }

    /// Entry `entry` decompressed from its range's bytes, at most `limit` bytes and one more.
    fn read_entry(
        &self,
        entry: usize,
        start: u64,
        range: &[u8],
        limit: u64,
    ) -> Result<Vec<u8>, ArchiveError> {
        let reader = Sparse::new(
            self.len,
            vec![(self.tail_start, &self.tail), (start, range)],
        );
        let mut archive =
            zip::ZipArchive::new(reader).map_err(|e| ArchiveError::Damaged(e.to_string()))?;
        let mut file = archive
            .by_index(entry)
            .map_err(|e| ArchiveError::Damaged(e.to_string()))?;
        let mut bytes = Vec::with_capacity(file.size().min(limit) as usize);
        (&mut file)
            .take(limit + 1)
            .read_to_end(&mut bytes)
            .map_err(|e| ArchiveError::Damaged(e.to_string()))?;
        Ok(bytes)
    }

    pub fn page_count(&self) -> usize {
        self.pages.len()
    }

    /// The file's length.
    pub fn len(&self) -> u64 {
        self.len
    }

    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// The bytes of the file that hold page `page`: `[start, end)`, from its local header to the
    /// next entry's (or the directory).
    pub fn page_range(&self, page: usize) -> Result<(u64, u64), ArchiveError> {
        let entry = *self.pages.get(page).ok_or(ArchiveError::NoSuchPage {
            page,
            count: self.pages.len(),
        })?;
        let (start, end) = self.entry_range(entry);
        // Compressed data is never much larger than the page it holds.
        if end - start > MAX_PAGE_BYTES + (1 << 20) {
            return Err(ArchiveError::PageTooLarge { page });
        }
        Ok((start, end))
    }

    /// Page `page` (0-based), decompressed, from the bytes of its range.
    pub fn read_page(&self, page: usize, range: &[u8]) -> Result<Vec<u8>, ArchiveError> {
        let (start, end) = self.page_range(page)?;
        if range.len() as u64 != end - start {
            return Err(ArchiveError::Damaged(format!(
                "page {page}: {} bytes where {} were expected",
                range.len(),
                end - start
            )));
        }
        let bytes = self.read_entry(self.pages[page], start, range, MAX_PAGE_BYTES)?;
        if bytes.len() as u64 > MAX_PAGE_BYTES {
            return Err(ArchiveError::PageTooLarge { page });
        }
        Ok(bytes)
    }
}

/// A file of which only some ranges are known: reads inside them succeed, reads elsewhere fail
/// (they would be bytes not fetched).
struct Sparse<'a> {
    len: u64,
    pos: u64,
    pieces: Vec<(u64, &'a [u8])>,
}

impl<'a> Sparse<'a> {
    fn new(len: u64, pieces: Vec<(u64, &'a [u8])>) -> Sparse<'a> {
        Sparse {
            len,
            pos: 0,
            pieces,
        }
    }
}

impl Read for Sparse<'_> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        if self.pos >= self.len || buf.is_empty() {
            return Ok(0);
        }
        let pos = self.pos;
        let piece = self
            .pieces
            .iter()
            .find(|(start, bytes)| pos >= *start && pos < start + bytes.len() as u64);
        let Some((start, bytes)) = piece else {
            return Err(io::Error::new(
                io::ErrorKind::UnexpectedEof,
                format!("byte {pos} of the file was not fetched"),
            ));
        };
        let from = (pos - start) as usize;
        let n = buf.len().min(bytes.len() - from);
        buf[..n].copy_from_slice(&bytes[from..from + n]);
        self.pos += n as u64;
        Ok(n)
    }
}

impl Seek for Sparse<'_> {
    fn seek(&mut self, to: SeekFrom) -> io::Result<u64> {
        let next = match to {
            SeekFrom::Start(n) => Some(n),
            SeekFrom::End(d) => self.len.checked_add_signed(d),
            SeekFrom::Current(d) => self.pos.checked_add_signed(d),
        };
        self.pos = next.ok_or_else(|| {
            io::Error::new(io::ErrorKind::InvalidInput, "seek before the file's start")
        })?;
        Ok(self.pos)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Write;

    fn zip_of(entries: &[(&str, Vec<u8>)], stored: bool) -> Vec<u8> {
        let mut out = std::io::Cursor::new(Vec::new());
        let mut w = zip::ZipWriter::new(&mut out);
        let method = if stored {
            zip::CompressionMethod::Stored
        } else {
            zip::CompressionMethod::Deflated
        };
        for (name, bytes) in entries {
            w.start_file(
                *name,
                zip::write::SimpleFileOptions::default().compression_method(method),
            )
            .unwrap();
            w.write_all(bytes).unwrap();
        }
        w.finish().unwrap();
        out.into_inner()
    }

    fn png(n: u8, len: usize) -> Vec<u8> {
        let mut b = b"\x89PNG\r\n\x1a\n".to_vec();
        b.extend((0..len).map(|i| (i as u8).wrapping_mul(n)));
        b
    }

    fn tail_of(file: &[u8], n: usize) -> Vec<u8> {
        file[file.len().saturating_sub(n)..].to_vec()
    }

    #[test]
    fn pages_read_from_ranges_are_the_pages_of_the_whole_file() {
        let entries: Vec<(String, Vec<u8>)> = (1..=40u8)
            .rev()
            .map(|i| {
                (
                    format!("Book/page {i}.png"),
                    png(i, 5_000 + i as usize * 300),
                )
            })
            .chain([(
                "ComicInfo.xml".to_owned(),
                b"<ComicInfo><Manga>YesAndRightToLeft</Manga></ComicInfo>".to_vec(),
            )])
            .collect();
        let refs: Vec<(&str, Vec<u8>)> = entries
            .iter()
            .map(|(n, b)| (n.as_str(), b.clone()))
            .collect();
        for stored in [true, false] {
            let file = zip_of(&refs, stored);
            for tail_len in [file.len(), 8 * 1024] {
                let remote = RemoteZip::from_tail(tail_of(&file, tail_len)).unwrap();
                let (a, b) = remote.comic_info_range().unwrap();
                let remote = remote.with_info(&file[a as usize..b as usize]);
                assert!(
                    remote.info.right_to_left,
                    "ComicInfo.xml is read from its range"
                );
                assert_eq!(remote.len(), file.len() as u64);
                assert_eq!(remote.page_count(), 40);
                for page in [0usize, 1, 9, 39] {
                    let (a, b) = remote.page_range(page).unwrap();
                    let bytes = remote
                        .read_page(page, &file[a as usize..b as usize])
                        .unwrap();
                    assert_eq!(
                        bytes,
                        png(page as u8 + 1, 5_000 + (page + 1) * 300),
                        "page {page}"
                    );
                }
                // Bytes of another range are refused, never read as this page.
                let (a, b) = remote.page_range(3).unwrap();
                assert!(remote.read_page(2, &file[a as usize..b as usize]).is_err());
            }
        }
    }

    #[test]
    fn a_zip64_record_that_puts_the_file_past_the_largest_size_is_refused() {
        // Found by the fuzzer: the record says it lies at the last byte a file can have, so
        // the file's end overflowed.
        let mut tail = Vec::new();
        tail.extend_from_slice(ZIP64_EOCD);
        tail.extend_from_slice(&44u64.to_le_bytes());
        tail.extend_from_slice(&[45, 0, 45, 0, 0, 0, 0, 0, 0, 0, 0, 0]);
        tail.extend_from_slice(&0u64.to_le_bytes()); // entries on this disk
        tail.extend_from_slice(&0u64.to_le_bytes()); // entries
        tail.extend_from_slice(&0u64.to_le_bytes()); // directory size
        tail.extend_from_slice(&u64::MAX.to_le_bytes()); // directory offset
        tail.extend_from_slice(ZIP64_LOCATOR);
        tail.extend_from_slice(&0u32.to_le_bytes());
        tail.extend_from_slice(&u64::MAX.to_le_bytes()); // the record's offset
        tail.extend_from_slice(&1u32.to_le_bytes());
        tail.extend_from_slice(EOCD);
        // Disks, then the entry counts, size and offset left to the ZIP64 record, no comment.
        tail.extend_from_slice(&[0, 0, 0, 0, 0xFF, 0xFF, 0xFF, 0xFF]);
        tail.extend_from_slice(&[0, 0, 0, 0, 0xFF, 0xFF, 0xFF, 0xFF, 0, 0]);
        assert_eq!(
            RemoteZip::from_tail(tail).unwrap_err(),
            TailError::Damaged("the file would end past the largest size")
        );
    }

    #[test]
    fn a_tail_that_is_not_a_zip_or_misses_its_directory_is_refused() {
        assert_eq!(
            RemoteZip::from_tail(b"%PDF-1.7 not a zip".to_vec()).unwrap_err(),
            TailError::NotAZip
        );
        let entries: Vec<(String, Vec<u8>)> = (0..300)
            .map(|i| {
                (
                    format!("a rather long folder name/page {i:04}.png"),
                    png(1, 10),
                )
            })
            .collect();
        let refs: Vec<(&str, Vec<u8>)> = entries
            .iter()
            .map(|(n, b)| (n.as_str(), b.clone()))
            .collect();
        let file = zip_of(&refs, true);
        // A directory larger than the tail: the bytes before the tail are asked for, and the
        // tail with them reads.
        let TailError::DirectoryBefore { start, tail_start } =
            RemoteZip::from_tail(tail_of(&file, 4_000)).unwrap_err()
        else {
            panic!("the directory's start is told");
        };
        assert_eq!(tail_start, file.len() as u64 - 4_000);
        let remote = RemoteZip::from_tail(file[start as usize..].to_vec()).unwrap();
        assert_eq!(remote.page_count(), 300);
        // A damaged directory: an offset past the directory.
        let mut bad = file.clone();
        let dir = bad.windows(4).position(|w| w == CENTRAL_ENTRY).unwrap();
        bad[dir + 42..dir + 46].copy_from_slice(&0x7FFF_FFF0u32.to_le_bytes());
        assert!(RemoteZip::from_tail(bad).is_err());
        // Random bytes never panic.
        for seed in 0..200u32 {
            let mut noise: Vec<u8> = (0..2_000u32)
                .map(|i| (i.wrapping_mul(2_654_435_761).wrapping_add(seed) >> 13) as u8)
                .collect();
            noise.extend_from_slice(EOCD);
            noise.extend_from_slice(&[0xFF; 16]);
            noise.extend_from_slice(&[0, 0]);
            let _ = RemoteZip::from_tail(noise);
        }
    }
}
