//! What a comic archive is packed in ([`Container`]), the limits every archive is read within
//! ([`MAX_ENTRIES`], [`MAX_PAGE_BYTES`]) and what goes wrong reading one ([`ArchiveError`]):
//! shared by [`crate::comic_archive`] and the walk through RAR, 7z and tar archives it uses.

use serde::Serialize;

/// The most entries an archive may hold (pages, folders and everything else).
pub const MAX_ENTRIES: usize = 50_000;
/// The largest page, decompressed.
pub const MAX_PAGE_BYTES: u64 = 64 << 20;

#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum ArchiveError {
    #[error("this file is not a comic archive Carrel can read (CBZ, CBR, CB7 or CBT)")]
    UnknownContainer,
    #[error("the comic archive is damaged: {0}")]
    Damaged(String),
    #[error("the comic archive holds no pages")]
    NoPages,
    #[error("the comic archive holds more than {MAX_ENTRIES} entries")]
    TooManyEntries,
    #[error("page {page} is larger than {} MiB once unpacked", MAX_PAGE_BYTES >> 20)]
    PageTooLarge { page: usize },
    #[error("page {page} does not exist: the book has {count} pages")]
    NoSuchPage { page: usize, count: usize },
    #[error("cannot read the comic archive: {0}")]
    Io(String),
    #[error("this archive asks to decompress more than {} to reach a page", size_text(*budget))]
    DecompressesTooMuch { budget: u64 },
}

/// A number of bytes as a person reads it: whole MiB from 1 MiB on.
fn size_text(bytes: u64) -> String {
    if bytes >= 1 << 20 {
        format!("{} MiB", bytes >> 20)
    } else {
        format!("{bytes} bytes")
    }
}

impl carrel_foundation::error::Failure for ArchiveError {
    fn kind(&self) -> carrel_foundation::error::ErrorKind {
        match self {
            ArchiveError::Io(_) => carrel_foundation::error::ErrorKind::Storage,
            ArchiveError::NoSuchPage { .. } => carrel_foundation::error::ErrorKind::InvalidInput,
            // What the server sent is not a comic this reader can show.
            _ => carrel_foundation::error::ErrorKind::Server,
        }
    }
}

/// How the archive is packed.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Container {
    Zip,
    Rar,
    SevenZip,
    Tar,
}
