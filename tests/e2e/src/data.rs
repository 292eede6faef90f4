//! Looking at a data dir from outside the app, once it is closed: its database (read-only),
//! its files and their permissions.

use std::path::{Path, PathBuf};

use rusqlite::{Connection, OpenFlags};

/// `<data_dir>/carrel.db`.
pub fn database_path(data_dir: &Path) -> PathBuf {
    data_dir.join("carrel.db")
}

/// Opens the data dir's database read-only. Panics with the path when it cannot.
pub fn open_database(data_dir: &Path) -> Connection {
    let path = database_path(data_dir);
    Connection::open_with_flags(
        &path,
        OpenFlags::SQLITE_OPEN_READ_ONLY | OpenFlags::SQLITE_OPEN_NO_MUTEX,
    )
    .unwrap_or_else(|e| panic!("cannot open {} read-only: {e}", path.display()))
}

/// The number of rows of `table` in the data dir's database.
pub fn count_rows(data_dir: &Path, table: &str) -> i64 {
    let db = open_database(data_dir);
    db.query_row(&format!("SELECT count(*) FROM \"{table}\""), [], |row| {
        row.get(0)
    })
    .unwrap_or_else(|e| panic!("cannot count the rows of {table}: {e}"))
}

/// The files directly in `dir` whose name starts with `prefix`, sorted.
pub fn files_starting_with(dir: &Path, prefix: &str) -> Vec<PathBuf> {
    let entries =
        std::fs::read_dir(dir).unwrap_or_else(|e| panic!("cannot list {}: {e}", dir.display()));
    let mut found: Vec<PathBuf> = entries
        .flatten()
        .filter(|e| e.file_name().to_string_lossy().starts_with(prefix))
        .filter(|e| e.file_type().is_ok_and(|t| t.is_file()))
        .map(|e| e.path())
        .collect();
    found.sort();
    found
}

/// Whether `needle` occurs anywhere in `haystack`.
pub fn contains_bytes(haystack: &[u8], needle: &[u8]) -> bool {
    needle.is_empty() || haystack.windows(needle.len()).any(|w| w == needle)
}

/// The permission bits of `path` (e.g. `0o600`).
pub fn mode(path: &Path) -> u32 {
    use std::os::unix::fs::PermissionsExt;
    let meta =
        std::fs::metadata(path).unwrap_or_else(|e| panic!("cannot stat {}: {e}", path.display()));
    meta.permissions().mode() & 0o7777
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn finds_bytes_anywhere() {
        assert!(contains_bytes(b"abc-secret-xyz", b"secret"));
        assert!(!contains_bytes(b"abc", b"abcd"));
        assert!(!contains_bytes(b"s e c r e t", b"secret"));
    }
}
