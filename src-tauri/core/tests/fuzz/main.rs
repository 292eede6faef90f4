//! The parsers under fuzzing: generated and mutated input at scale, in one test binary of its
//! own (its global allocator counts what each case holds, which no other test should pay for).
//!
//! Every target promises no panic, no case over a second of CPU in a release build (ten in a
//! debug one) and none that runs on (a watchdog keeps its input and stops the run), memory held
//! by a case within the target's cap, and what the parser gives within its limits. A failing
//! input is shrunk and its seed kept in `regressions/` (replayed first on every run); inputs kept
//! by hand or by the watchdog live in `corpus/<target>/` and are replayed before each target.
//!
//! `CARREL_FUZZ_CASES` sets the cases per property (1,000 by default, so `cargo test` stays
//! quick); `make fuzz` runs the release build with 100,000.
//!
//! - `feeds`: OPDS 1.2 Atom feeds and entries, OPDS 2.0 feeds and publications, OpenSearch
//!   descriptions.
//! - `templates`: page streaming templates and search templates, in the documents that carry
//!   them and alone; bookmark parameters stripped.
//! - `archives`: comic archives (zip, RAR, 7z, tar) read from a file, CBZ read from its tail and
//!   ranges, natural page order.
//! - `support`: cases, time, memory, the watchdog, the corpus and the shared byte mutations.

mod archives;
mod feeds;
mod support;
mod templates;

#[global_allocator]
static ALLOCATOR: support::CountingAllocator = support::CountingAllocator;
