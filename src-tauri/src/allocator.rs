//! How the app's own process gives memory back. glibc's malloc maps a large block of its own
//! only while the block is larger than the largest such block freed so far (the threshold rises
//! up to 32 MiB); after that, blocks of a comic page's size come from its heaps, and memory freed
//! in a heap mostly stays with the process. Pages pass through the protocols' threads by the
//! hundred as a reader reads: about 170 MiB stayed with the app after a 200-page comic of 2 MiB
//! pages (`make bench`, the library-window group). With a fixed threshold, every block of
//! [`MAPPED_FROM`] or more is mapped on its own and returned to the system when freed.
//!
//! glibc also spreads threads over heaps of their own, up to eight per core, and what is freed
//! in one stays there. The covers of a fast scroll are read on the blocking pool, which grows
//! to dozens of threads for a moment: after scrolling 10,000 books and reading a comic twice,
//! the app held 59–75 MiB of anonymous memory, 46–48 with at most [`HEAPS`] heaps (`make
//! bench`, the library-window group; tests/bench/HISTORY.md), its turns as fast. The app's
//! threads mostly wait on the disk, the network and SQLite, not on each other's allocations.
//!
//! Owns nothing but those settings, made first thing at start, before any other thread runs.

/// Blocks this large or larger are mapped on their own (glibc's default before it adapts).
pub const MAPPED_FROM: usize = 128 * 1024;

/// The most heaps malloc keeps, all threads together.
pub const HEAPS: usize = 2;

/// Fixes malloc's threshold for mapping blocks on their own at [`MAPPED_FROM`], and its heaps
/// at [`HEAPS`] at most.
#[cfg(all(target_os = "linux", target_env = "gnu"))]
pub fn give_memory_back() {
    // SAFETY: `mallopt` only changes the allocator's settings, and runs before other threads.
    let threshold = unsafe { libc::mallopt(libc::M_MMAP_THRESHOLD, MAPPED_FROM as libc::c_int) };
    // SAFETY: as above.
    let heaps = unsafe { libc::mallopt(libc::M_ARENA_MAX, HEAPS as libc::c_int) };
    if threshold != 1 || heaps != 1 {
        eprintln!(
            "carrel: could not set the allocator's threshold or heaps; memory freed may stay with the app"
        );
    }
}

/// Other allocators give large blocks back by themselves.
#[cfg(not(all(target_os = "linux", target_env = "gnu")))]
pub fn give_memory_back() {}
