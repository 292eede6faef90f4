//! The comic archive readers: a stored CBZ, CBR, CB7 or CBT read from a file
//! ([`ComicArchive`], [`comic_archive::entry_names`], [`comic_archive::read_entry`]), and a CBZ
//! read from its tail and ranges before it is stored ([`RemoteZip`]).
//!
//! Seeds are real small archives made here — zips by the `zip` crate (stored, deflated, ZIP64
//! records), a tar written header by header, 7z archives by the `7z` tool (solid and not) — and
//! the genuine RAR 4 and RAR 5 files of `tests/data/rar`. They are mutated byte by byte and field
//! by field (the integers after each zip record's signature), ZIP64 tails are generated whole,
//! and bytes of no format come with and without a container's signature. Each input is written
//! to a file, as the reader meets it.

use std::cell::RefCell;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::OnceLock;

use carrel_core::reading::comic_archive::{
    self, ArchiveError, ComicArchive, MAX_PAGES, MAX_PAGE_BYTES,
};
use carrel_core::reading::remote_zip::{RemoteZip, TailError, MAX_DIRECTORY_BYTES};
use proptest::prelude::*;

use crate::support::{self, wild_integer, Target};

/// A page is read into memory whole, up to its cap (and one byte more, to tell it is over).
const MEMORY: usize = 2 * (MAX_PAGE_BYTES as usize + 1) + (32 << 20);

pub const COMIC_ARCHIVE: Target = Target::new("comic_archive", check_archive, MEMORY);

pub const REMOTE_ZIP: Target = Target::new("remote_zip", check_remote_zip, MEMORY);

thread_local! {
    static SCRATCH: RefCell<Option<(tempfile::TempDir, PathBuf)>> = const { RefCell::new(None) };
}

/// `bytes` written to this thread's scratch file.
fn as_file(bytes: &[u8]) -> PathBuf {
    SCRATCH.with(|s| {
        let mut s = s.borrow_mut();
        let (_, path) = s.get_or_insert_with(|| {
            let dir = tempfile::tempdir().unwrap();
            let path = dir.path().join("book.cbz");
            (dir, path)
        });
        std::fs::write(&*path, bytes).unwrap();
        path.clone()
    })
}

fn check_archive(bytes: &[u8]) -> Result<(), String> {
    let path = as_file(bytes);
    let _ = comic_archive::sniff(&path);
    if let Ok(archive) = ComicArchive::open(&path) {
        let count = archive.page_count();
        if count == 0 || count > MAX_PAGES {
            return Err(format!("an archive opened with {count} pages"));
        }
        if let Some(name) = archive.page_names().find(|n| !comic_archive::is_page(n)) {
            return Err(format!("{name:?} is listed as a page"));
        }
        let mut pages = vec![0, count / 2, count - 1, 1.min(count - 1)];
        pages.dedup();
        for page in pages {
            if let Ok(bytes) = archive.page(page) {
                if bytes.len() as u64 > MAX_PAGE_BYTES {
                    return Err(format!("page {page} gave {} bytes", bytes.len()));
                }
            }
        }
        match archive.page(count) {
            Err(ArchiveError::NoSuchPage { .. }) => {}
            other => {
                return Err(format!(
                    "page {count} of {count} gave {:?}",
                    other.map(|b| b.len())
                ))
            }
        }
    }
    if let Ok(names) = comic_archive::entry_names(&path) {
        if let Some(name) = names.iter().find(|n| comic_archive::is_page(n)) {
            if let Ok(bytes) = comic_archive::read_entry(&path, name, 1 << 20) {
                if bytes.len() > 1 << 20 {
                    return Err(format!("read_entry gave {} bytes of 1 MiB", bytes.len()));
                }
            }
        }
    }
    Ok(())
}

/// The bytes of the file `[start, end)`, when the tail (the file's last `tail.len()` bytes of
/// `len`) holds them.
fn range(tail: &[u8], len: u64, start: u64, end: u64) -> Option<&[u8]> {
    let tail_start = len.checked_sub(tail.len() as u64)?;
    let from = usize::try_from(start.checked_sub(tail_start)?).ok()?;
    let to = usize::try_from(end.checked_sub(tail_start)?).ok()?;
    tail.get(from..to)
}

fn check_remote(tail: &[u8]) -> Result<Option<RemoteZip>, String> {
    let zip = match RemoteZip::from_tail(tail.to_vec()) {
        Ok(zip) => zip,
        Err(TailError::DirectoryBefore { start, tail_start }) => {
            if start >= tail_start || tail_start - start > MAX_DIRECTORY_BYTES {
                return Err(format!(
                    "asked for the bytes from {start} before a tail at {tail_start}"
                ));
            }
            return Ok(None);
        }
        Err(_) => return Ok(None),
    };
    let count = zip.page_count();
    if count == 0 || count > MAX_PAGES {
        return Err(format!("a zip read from its tail with {count} pages"));
    }
    if (tail.len() as u64) > zip.len() {
        return Err(format!(
            "a file of {} bytes from a tail of {}",
            zip.len(),
            tail.len()
        ));
    }
    for page in [0, count - 1] {
        if let Ok((start, end)) = zip.page_range(page) {
            if start > end || end > zip.len() {
                return Err(format!(
                    "page {page} at [{start}, {end}) of a {}-byte file",
                    zip.len()
                ));
            }
            if let Some(bytes) = range(tail, zip.len(), start, end) {
                if let Ok(page_bytes) = zip.read_page(page, bytes) {
                    if page_bytes.len() as u64 > MAX_PAGE_BYTES {
                        return Err(format!("page {page} gave {} bytes", page_bytes.len()));
                    }
                }
                if !bytes.is_empty() && zip.read_page(page, &bytes[1..]).is_ok() {
                    return Err(format!("page {page} was read from a range one byte short"));
                }
            }
        }
    }
    if zip.page_range(count).is_ok() {
        return Err(format!("a range for page {count} of {count}"));
    }
    let zip = match zip.comic_info_range() {
        Some((start, end)) => match range(tail, zip.len(), start, end) {
            Some(bytes) => {
                let bytes = bytes.to_vec();
                zip.with_info(&bytes)
            }
            None => zip,
        },
        None => zip,
    };
    Ok(Some(zip))
}

fn check_remote_zip(bytes: &[u8]) -> Result<(), String> {
    let whole = check_remote(bytes)?;
    // The last kilobyte alone: the directory is asked for, or read from there.
    let _ = check_remote(&bytes[bytes.len().saturating_sub(1024)..])?;
    // What a page is before the file is stored is what it is after.
    if let Some(zip) = whole.filter(|z| z.len() == bytes.len() as u64) {
        let path = as_file(bytes);
        if let Ok(stored) = ComicArchive::open(&path) {
            if stored.page_count() != zip.page_count() {
                return Err(format!(
                    "{} pages from the tail, {} from the stored file",
                    zip.page_count(),
                    stored.page_count()
                ));
            }
            if let (Ok((start, end)), Ok(page)) = (zip.page_range(0), stored.page(0)) {
                let remote = range(bytes, zip.len(), start, end).map(|r| zip.read_page(0, r));
                if let Some(Ok(remote)) = remote {
                    if remote != page {
                        return Err("page 0 differs read from ranges and from the file".into());
                    }
                }
            }
        }
    }
    Ok(())
}

// ----- seeds ------------------------------------------------------------------------------

fn image(n: u8, len: usize) -> Vec<u8> {
    let mut b = b"\x89PNG\r\n\x1a\n".to_vec();
    b.extend((0..len).map(|i| (i as u8).wrapping_mul(n) ^ (i >> 5) as u8));
    b
}

fn files() -> Vec<(String, Vec<u8>)> {
    vec![
        ("pages/p2.png".into(), image(2, 300)),
        ("pages/p10.png".into(), image(10, 200)),
        ("pages/p1.png".into(), image(1, 400)),
        ("pages/p3.jpg".into(), vec![0u8; 2_000]),
        ("__MACOSX/._p1.png".into(), b"junk".to_vec()),
        (
            "ComicInfo.xml".into(),
            b"<?xml version=\"1.0\"?><ComicInfo><Title>Dawn</Title><PageCount>4</PageCount>\
              <Manga>YesAndRightToLeft</Manga></ComicInfo>"
                .to_vec(),
        ),
        ("notes.txt".into(), b"not a page".to_vec()),
    ]
}

fn zip_of(method: zip::CompressionMethod, large: bool) -> Vec<u8> {
    zip_with(method, large, files())
}

fn zip_with(method: zip::CompressionMethod, large: bool, files: Vec<(String, Vec<u8>)>) -> Vec<u8> {
    let mut out = std::io::Cursor::new(Vec::new());
    let mut w = zip::ZipWriter::new(&mut out);
    let options = zip::write::SimpleFileOptions::default()
        .compression_method(method)
        .large_file(large);
    w.add_directory("pages/", options).unwrap();
    for (name, bytes) in files {
        w.start_file(name, options).unwrap();
        w.write_all(&bytes).unwrap();
    }
    w.finish().unwrap();
    out.into_inner()
}

fn tar_of() -> Vec<u8> {
    fn header(name: &str, size: usize, kind: u8) -> [u8; 512] {
        let mut h = [0u8; 512];
        h[..name.len()].copy_from_slice(name.as_bytes());
        h[100..108].copy_from_slice(b"0000644\0");
        h[108..116].copy_from_slice(b"0000000\0");
        h[116..124].copy_from_slice(b"0000000\0");
        h[124..136].copy_from_slice(format!("{size:011o}\0").as_bytes());
        h[136..148].copy_from_slice(b"14000000000\0");
        h[148..156].copy_from_slice(b"        ");
        h[156] = kind;
        h[257..263].copy_from_slice(b"ustar\0");
        h[263..265].copy_from_slice(b"00");
        let sum: u32 = h.iter().map(|&b| b as u32).sum();
        h[148..156].copy_from_slice(format!("{sum:06o}\0 ").as_bytes());
        h
    }
    let mut out = Vec::new();
    out.extend_from_slice(&header("pages/", 0, b'5'));
    for (name, bytes) in files() {
        out.extend_from_slice(&header(&name, bytes.len(), b'0'));
        out.extend_from_slice(&bytes);
        out.resize(out.len().div_ceil(512) * 512, 0);
    }
    out.extend_from_slice(&[0u8; 1024]);
    out
}

/// 7z archives of the same files made by the `7z` tool; a missing tool fails the run.
fn seven_zips() -> Vec<Vec<u8>> {
    let dir = tempfile::tempdir().unwrap();
    for (name, bytes) in files() {
        let path = dir.path().join("in").join(name);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, bytes).unwrap();
    }
    let mut made = Vec::new();
    for (out, extra) in [("solid.cb7", "-ms=on"), ("plain.cb7", "-ms=off")] {
        let target = dir.path().join(out);
        let status = Command::new("7z")
            .args(["a", "-bd", "-y", "-t7z", "-mx=1", extra])
            .arg(&target)
            .arg(".")
            .current_dir(dir.path().join("in"))
            .output()
            .unwrap_or_else(|e| {
                panic!("cannot run 7z: {e} (install p7zip-full: see the Makefile)")
            });
        assert!(status.status.success(), "7z failed: {status:?}");
        made.push(std::fs::read(target).unwrap());
    }
    made
}

fn rar(name: &str) -> Vec<u8> {
    std::fs::read(
        Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("tests/data/rar")
            .join(name),
    )
    .unwrap()
}

fn zips() -> &'static Vec<Vec<u8>> {
    static ZIPS: OnceLock<Vec<Vec<u8>>> = OnceLock::new();
    ZIPS.get_or_init(|| {
        vec![
            zip_of(zip::CompressionMethod::Stored, false),
            zip_of(zip::CompressionMethod::Deflated, false),
            zip_of(zip::CompressionMethod::Deflated, true),
            // A ComicInfo.xml nested far deeper than any real one.
            zip_with(
                zip::CompressionMethod::Deflated,
                false,
                vec![
                    ("p1.png".into(), image(1, 100)),
                    (
                        "ComicInfo.xml".into(),
                        format!("<ComicInfo>{}", "<a>".repeat(30_000)).into_bytes(),
                    ),
                ],
            ),
        ]
    })
}

fn seeds() -> &'static Vec<Vec<u8>> {
    static SEEDS: OnceLock<Vec<Vec<u8>>> = OnceLock::new();
    SEEDS.get_or_init(|| {
        let mut all = zips().clone();
        all.push(tar_of());
        all.extend(seven_zips());
        for name in ["rar4-seektest.rar", "rar5-solid.rar", "rar3-solid.rar"] {
            all.push(rar(name));
        }
        all
    })
}

// ----- generators -------------------------------------------------------------------------

const ZIP_SIGNATURES: [&[u8; 4]; 5] = [
    b"PK\x01\x02",
    b"PK\x03\x04",
    b"PK\x05\x06",
    b"PK\x06\x06",
    b"PK\x06\x07",
];

/// A zip seed whose records have integers overwritten: sizes, offsets, counts, name lengths.
fn zip_fields() -> impl Strategy<Value = Vec<u8>> {
    (
        0..zips().len(),
        prop::collection::vec(
            (
                any::<prop::sample::Index>(),
                0usize..56,
                wild_integer(),
                prop_oneof![Just(2usize), Just(4), Just(8)],
            ),
            1..6,
        ),
    )
        .prop_map(|(seed, changes)| {
            let mut bytes = zips()[seed].clone();
            let records: Vec<usize> = (0..bytes.len().saturating_sub(3))
                .filter(|&i| ZIP_SIGNATURES.iter().any(|s| &bytes[i..i + 4] == *s))
                .collect();
            for (record, offset, value, width) in changes {
                let at = records[record.index(records.len())] + 4 + offset;
                let end = (at + width).min(bytes.len());
                if at < end {
                    bytes[at..end].copy_from_slice(&value.to_le_bytes()[..end - at]);
                }
            }
            bytes
        })
}

/// A tail that ends in a ZIP64 end record, its locator and the classic record, every field
/// generated.
fn zip64_tail() -> impl Strategy<Value = Vec<u8>> {
    (
        prop::collection::vec(any::<u8>(), 0..512),
        prop::array::uniform6(wild_integer()),
        prop_oneof![Just(44u64), wild_integer()],
        prop::array::uniform3(prop_oneof![Just(0xFFFF_FFFFu64), wild_integer()]),
        0..zips().len(),
        any::<bool>(),
    )
        .prop_map(|(junk, v, record_size, classic, seed, with_zip)| {
            let mut tail = if with_zip { zips()[seed].clone() } else { junk };
            let record_at = tail.len() as u64;
            tail.extend_from_slice(b"PK\x06\x06");
            tail.extend_from_slice(&record_size.to_le_bytes());
            tail.extend_from_slice(&[45, 0, 45, 0]);
            tail.extend_from_slice(&(v[0] as u32).to_le_bytes());
            tail.extend_from_slice(&(v[1] as u32).to_le_bytes());
            tail.extend_from_slice(&v[2].to_le_bytes());
            tail.extend_from_slice(&v[3].to_le_bytes());
            tail.extend_from_slice(&v[4].to_le_bytes());
            let directory = if v[5] % 2 == 0 {
                v[5]
            } else {
                v[1].wrapping_add(v[5] % (record_at + 1))
            };
            tail.extend_from_slice(&directory.to_le_bytes());
            tail.extend_from_slice(b"PK\x06\x07");
            tail.extend_from_slice(&0u32.to_le_bytes());
            // The record's offset in the file: as written, or moved by a generated amount
            // (which is then where the tail starts in the file).
            let offset = if v[0] % 2 == 0 {
                record_at
            } else {
                record_at.wrapping_add(v[1])
            };
            tail.extend_from_slice(&offset.to_le_bytes());
            tail.extend_from_slice(&1u32.to_le_bytes());
            tail.extend_from_slice(b"PK\x05\x06");
            tail.extend_from_slice(&[0, 0, 0, 0]);
            tail.extend_from_slice(&[0xFF, 0xFF]);
            tail.extend_from_slice(&(classic[0] as u16).to_le_bytes());
            tail.extend_from_slice(&(classic[1] as u32).to_le_bytes());
            tail.extend_from_slice(&(classic[2] as u32).to_le_bytes());
            tail.extend_from_slice(&[0, 0]);
            tail
        })
}

const SIGNATURES: &[&[u8]] = &[
    b"PK\x03\x04",
    b"PK\x05\x06",
    b"Rar!\x1a\x07\x00",
    b"Rar!\x1a\x07\x01\x00",
    b"7z\xbc\xaf\x27\x1c",
];

/// Random bytes with `ustar` where a tar has it.
fn tar_noise() -> impl Strategy<Value = Vec<u8>> {
    prop::collection::vec(any::<u8>(), 262..4096).prop_map(|mut b| {
        b[257..262].copy_from_slice(b"ustar");
        b
    })
}

#[test]
fn comic_archives() {
    support::replay_then_fuzz(
        &COMIC_ARCHIVE,
        file!(),
        "mutated and generated",
        prop_oneof![
            6 => support::mutated(seeds().clone()),
            3 => zip_fields(),
            1 => support::noise(SIGNATURES),
            1 => tar_noise(),
        ],
    );
}

#[test]
fn remote_zips() {
    support::replay_then_fuzz(
        &REMOTE_ZIP,
        file!(),
        "mutated and generated",
        prop_oneof![
            3 => support::mutated(zips().clone()),
            4 => zip_fields(),
            2 => zip64_tail(),
            1 => support::noise(&[b"PK\x05\x06", b"PK\x03\x04"]),
        ],
    );
}

/// Natural order is a total order whatever the names (a sort with an inconsistent comparison
/// may panic), and sorting pages never fails.
#[test]
fn natural_order_is_a_total_order() {
    let name = || {
        prop_oneof![
            "[a0-9/\\\\. _A]{0,8}",
            "\\PC{0,6}",
            "(p|P|page |0|00)[0-9]{1,25}\\.(png|jpg)",
        ]
    };
    let mut runner = proptest::test_runner::TestRunner::new(proptest::test_runner::Config {
        cases: support::cases(),
        failure_persistence: None,
        ..Default::default()
    });
    runner
        .run(
            &(name(), name(), name(), prop::collection::vec(name(), 0..30)),
            |(a, b, c, mut many)| {
                use std::cmp::Ordering::*;
                let cmp = comic_archive::natural_cmp;
                prop_assert_eq!(cmp(&a, &b), cmp(&b, &a).reverse(), "{:?} {:?}", a, b);
                prop_assert_eq!(cmp(&a, &a), Equal);
                if cmp(&a, &b) != Greater && cmp(&b, &c) != Greater {
                    prop_assert_ne!(cmp(&a, &c), Greater, "{:?} {:?} {:?}", a, b, c);
                }
                many.sort_by(|x, y| cmp(x, y));
                let entries = many.into_iter().map(|n| (n, 0)).collect();
                let _ = comic_archive::pages_in_reading_order(entries);
                Ok(())
            },
        )
        .unwrap();
}
