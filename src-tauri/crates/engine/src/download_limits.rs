//! What a whole-file download may take: the largest book accepted (a setting, 4 GiB by
//! default), the cap for one book from the length its catalog declared, and whether the data
//! dir's filesystem has room for it (`statvfs`).
//!
//! Owns the numbers and the free-space question; does not download, write or delete anything
//! (the executor applies these limits to its partial files).

use std::io;
use std::path::Path;

use serde::{Deserialize, Serialize};

use carrel_library::settings::Setting;

/// The largest book a download may bring when the reader did not choose otherwise.
pub const DEFAULT_MAX_BOOK_BYTES: u64 = 4 << 30;

/// The largest whole file (EPUB, PDF, comic archive) a download may bring, in bytes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct MaxBookSize(pub u64);

impl Default for MaxBookSize {
    fn default() -> Self {
        MaxBookSize(DEFAULT_MAX_BOOK_BYTES)
    }
}

impl Setting for MaxBookSize {
    const KEY: &'static str = "downloads.max_book_bytes";
}

/// How far a file may exceed the length its catalog declared (catalogs lag behind an edited
/// book): an eighth more, and at least 1 MiB.
pub fn slack(declared: u64) -> u64 {
    (declared / 8).max(1 << 20)
}

/// The most bytes one file may have, and why.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ByteCap {
    pub bytes: u64,
    /// The catalog's declared length, when it set the cap (else the largest book allowed did).
    pub declared: Option<u64>,
}

impl ByteCap {
    /// The cap for a file whose catalog declared `declared` bytes (if it said), under the
    /// largest book allowed.
    pub fn new(declared: Option<u64>, max_book: u64) -> ByteCap {
        match declared.filter(|d| *d > 0) {
            Some(d) if d.saturating_add(slack(d)) < max_book => ByteCap {
                bytes: d.saturating_add(slack(d)),
                declared: Some(d),
            },
            _ => ByteCap {
                bytes: max_book,
                declared: None,
            },
        }
    }

    /// Why a file of `length` bytes (announced by the server) is refused, if it is.
    pub fn refuse_announced(&self, length: u64) -> Option<String> {
        (length > self.bytes).then(|| match self.declared {
            Some(d) => format!(
                "the server announced {} where the catalog declared {}",
                human_bytes(length),
                human_bytes(d)
            ),
            None => format!(
                "the book is {}, more than the {} allowed for one book",
                human_bytes(length),
                human_bytes(self.bytes)
            ),
        })
    }

    /// Why a body that went past the cap is refused.
    pub fn overflow_reason(&self) -> String {
        match self.declared {
            Some(d) => format!(
                "the server sent more than {} where the catalog declared {}",
                human_bytes(self.bytes),
                human_bytes(d)
            ),
            None => format!(
                "the server sent more than the {} allowed for one book",
                human_bytes(self.bytes)
            ),
        }
    }
}

/// Bytes an unprivileged writer may still put on the filesystem holding `path`.
pub fn free_bytes(path: &Path) -> io::Result<u64> {
    #[cfg(unix)]
    {
        let stat = rustix::fs::statvfs(path).map_err(io::Error::from)?;
        Ok(stat.f_bavail.saturating_mul(stat.f_frsize))
    }
    #[cfg(not(unix))]
    {
        let _ = path;
        Ok(u64::MAX)
    }
}

/// Why `needed` more bytes cannot be written under `dir`, if they cannot: "needs 178.0 MB,
/// 29.0 MB free on /path". The nearest existing ancestor of `dir` is asked.
pub fn refuse_without_room(dir: &Path, needed: u64) -> io::Result<Option<String>> {
    let mut probe = dir;
    while !probe.exists() {
        match probe.parent() {
            Some(p) => probe = p,
            None => break,
        }
    }
    let free = free_bytes(probe)?;
    Ok((needed > free).then(|| {
        format!(
            "needs {}, {} free on {}",
            human_bytes(needed),
            human_bytes(free),
            probe.display()
        )
    }))
}

/// A size as people read it, in decimal units with one decimal: "4.3 GB", "100.0 kB".
pub fn human_bytes(n: u64) -> String {
    const UNITS: [&str; 6] = ["kB", "MB", "GB", "TB", "PB", "EB"];
    if n < 1000 {
        return format!("{n} bytes");
    }
    let mut value = n as f64 / 1000.0;
    let mut unit = 0;
    while value >= 999.95 && unit + 1 < UNITS.len() {
        value /= 1000.0;
        unit += 1;
    }
    format!("{value:.1} {}", UNITS[unit])
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sizes_read_like_a_file_manager() {
        assert_eq!(human_bytes(999), "999 bytes");
        assert_eq!(human_bytes(100_000), "100.0 kB");
        assert_eq!(human_bytes(2 << 20), "2.1 MB");
        assert_eq!(human_bytes(DEFAULT_MAX_BOOK_BYTES), "4.3 GB");
        assert_eq!(human_bytes(1 << 40), "1.1 TB");
        assert_eq!(human_bytes(u64::MAX), "18.4 EB");
    }

    #[test]
    fn the_cap_follows_the_catalog_within_the_largest_book() {
        assert_eq!(
            ByteCap::new(Some(100_000), 4 << 30).bytes,
            100_000 + (1 << 20)
        );
        assert_eq!(ByteCap::new(Some(80 << 20), 4 << 30).bytes, 90 << 20);
        assert_eq!(
            ByteCap::new(Some(5 << 30), 4 << 30),
            ByteCap {
                bytes: 4 << 30,
                declared: None
            }
        );
        assert_eq!(
            ByteCap::new(None, 7),
            ByteCap {
                bytes: 7,
                declared: None
            }
        );
        assert_eq!(ByteCap::new(Some(u64::MAX), u64::MAX).bytes, u64::MAX);
        assert!(ByteCap::new(None, 10).refuse_announced(10).is_none());
        assert!(ByteCap::new(None, 10).refuse_announced(11).is_some());
    }
}
