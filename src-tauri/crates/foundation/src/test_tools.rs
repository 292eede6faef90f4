//! The command-line tools tests build their inputs with (`7z`, `tar`, Python), run the same way
//! by every layer's tests: a tool missing or failing fails the test, never skips it. Behind the
//! `test-support` feature, for `[dev-dependencies]` only.

use std::ffi::OsStr;
use std::path::Path;
use std::process::Command;

/// Runs a tool and gives what it wrote to its standard output; a missing tool or a failure
/// fails the test (never skips it).
pub fn run_tool(cmd: &mut Command) -> Vec<u8> {
    let out = cmd
        .output()
        .unwrap_or_else(|e| panic!("cannot run {cmd:?}: {e} (install it: see the Makefile)"));
    assert!(
        out.status.success(),
        "{cmd:?} failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    out.stdout
}

/// Packs `entries` of `dir`, in that order, into the 7z archive `archive`, with 7-Zip's
/// `options` (`-ms=on` for a solid archive, `-mx=1` for the fastest compression, …).
pub fn pack_7z(archive: &Path, dir: &Path, options: &[&str], entries: &[impl AsRef<OsStr>]) {
    run_tool(
        Command::new("7z")
            .args(["a", "-bd", "-t7z"])
            .args(options)
            .arg(archive)
            .args(entries)
            .current_dir(dir),
    );
}

/// Packs `entries` of `dir`, in that order, into the tar archive `archive`.
pub fn pack_tar(archive: &Path, dir: &Path, entries: &[impl AsRef<OsStr>]) {
    run_tool(
        Command::new("tar")
            .arg("cf")
            .arg(archive)
            .arg("-C")
            .arg(dir)
            .args(entries),
    );
}
