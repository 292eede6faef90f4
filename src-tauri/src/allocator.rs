//! How the app's own process gives memory back. glibc's malloc maps a large block of its own
//! only while the block is larger than the largest such block freed so far (the threshold rises
//! up to 32 MiB); after that, blocks of a comic page's size come from its heaps, and memory freed
//! in a heap mostly stays with the process. Pages pass through the protocols' threads by the
//! hundred as a reader reads: about 170 MiB stayed with the app after a 200-page comic of 2 MiB
//! pages (`make bench`, the library-window group). With a fixed threshold, every block of
//! [`MAPPED_FROM`] or more is mapped on its own and returned to the system when freed.
//!
//! Owns nothing but that setting, made first thing at start, before any other thread runs.

/// Blocks this large or larger are mapped on their own (glibc's default before it adapts).
pub const MAPPED_FROM: usize = 128 * 1024;

/// Fixes malloc's threshold for mapping blocks on their own at [`MAPPED_FROM`].
#[cfg(all(target_os = "linux", target_env = "gnu"))]
pub fn return_large_blocks() {
    // SAFETY: `mallopt` only changes the allocator's settings, and runs before other threads.
    let done = unsafe { libc::mallopt(libc::M_MMAP_THRESHOLD, MAPPED_FROM as libc::c_int) };
    if done != 1 {
        eprintln!(
            "carrel: could not set the allocator's threshold; memory freed may stay with the app"
        );
    }
}

/// Other allocators give large blocks back by themselves.
#[cfg(not(all(target_os = "linux", target_env = "gnu")))]
pub fn return_large_blocks() {}
