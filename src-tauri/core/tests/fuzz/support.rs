//! What every target runs under: the number of cases, the time and memory each case may take,
//! the watchdog that catches a case that never ends, the regression corpus, and the byte
//! mutations shared by the targets.
//!
//! A target is a property over bytes ([`Target::check`]): structured generators write their
//! documents, archives or request lines as bytes first, so any input — generated, kept in the
//! corpus, or caught hanging — replays through the same function.

use std::alloc::{GlobalAlloc, Layout, System};
use std::cell::Cell;
use std::collections::HashMap;
use std::path::PathBuf;
use std::sync::{Mutex, OnceLock};
use std::thread::ThreadId;
use std::time::{Duration, Instant};

use proptest::prelude::*;
use proptest::test_runner::{Config, FileFailurePersistence, TestCaseError, TestRunner};

/// The largest input a generator or a mutation makes. Parsers must stay proportionate to it.
pub const MAX_INPUT: usize = 256 << 10;

/// Cases per property: `CARREL_FUZZ_CASES`, else a count that keeps `cargo test` quick.
pub fn cases() -> u32 {
    std::env::var("CARREL_FUZZ_CASES")
        .ok()
        .and_then(|v| v.trim().parse().ok())
        .unwrap_or(1_000)
}

/// The most CPU time one case may take. The bound of the release build is the one that
/// matters; an unoptimised build is several times slower, so it only gets a loose one.
pub fn case_limit() -> Duration {
    if cfg!(debug_assertions) {
        Duration::from_secs(10)
    } else {
        Duration::from_secs(1)
    }
}

/// A case still running after this long (wall clock) is a hang: its input is written to the
/// corpus and the process stops, since the case will never return to be reported.
fn hang_limit() -> Duration {
    if cfg!(debug_assertions) {
        Duration::from_secs(120)
    } else {
        Duration::from_secs(20)
    }
}

/// A property of the parsers over one input.
pub struct Target {
    /// The folder of its regression inputs under `tests/fuzz/corpus/`.
    pub name: &'static str,
    /// `Err` says which promise the input broke; a panic is a failure too.
    pub check: fn(&[u8]) -> Result<(), String>,
    /// The most bytes one case may hold allocated at once on its thread (Rust allocations;
    /// libarchive's own are C allocations and not seen).
    pub memory: usize,
}

impl Target {
    pub const fn new(
        name: &'static str,
        check: fn(&[u8]) -> Result<(), String>,
        memory: usize,
    ) -> Target {
        Target {
            name,
            check,
            memory,
        }
    }
}

// ----- memory -----------------------------------------------------------------------------

/// The global allocator of the fuzz binary: the system's, counting what the thread that runs a
/// case holds while the case runs.
pub struct CountingAllocator;

thread_local! {
    static COUNTING: Cell<bool> = const { Cell::new(false) };
    static LIVE: Cell<usize> = const { Cell::new(0) };
    static PEAK: Cell<usize> = const { Cell::new(0) };
}

fn grew(n: usize) {
    if COUNTING.try_with(Cell::get).unwrap_or(false) {
        let _ = LIVE.try_with(|live| {
            let now = live.get().saturating_add(n);
            live.set(now);
            let _ = PEAK.try_with(|peak| peak.set(peak.get().max(now)));
        });
    }
}

fn shrank(n: usize) {
    if COUNTING.try_with(Cell::get).unwrap_or(false) {
        let _ = LIVE.try_with(|live| live.set(live.get().saturating_sub(n)));
    }
}

unsafe impl GlobalAlloc for CountingAllocator {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        let p = unsafe { System.alloc(layout) };
        if !p.is_null() {
            grew(layout.size());
        }
        p
    }

    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        let p = unsafe { System.alloc_zeroed(layout) };
        if !p.is_null() {
            grew(layout.size());
        }
        p
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        unsafe { System.dealloc(ptr, layout) };
        shrank(layout.size());
    }

    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        let p = unsafe { System.realloc(ptr, layout, new_size) };
        if !p.is_null() {
            shrank(layout.size());
            grew(new_size);
        }
        p
    }
}

/// The CPU time this thread has used: a case is timed by the work it does, not by how long a
/// busy machine kept it waiting.
fn thread_cpu_time() -> Duration {
    let mut ts = libc::timespec {
        tv_sec: 0,
        tv_nsec: 0,
    };
    // SAFETY: a valid clock id and a pointer to a timespec we own.
    let rc = unsafe { libc::clock_gettime(libc::CLOCK_THREAD_CPUTIME_ID, &mut ts) };
    assert_eq!(rc, 0, "the thread's CPU clock cannot be read");
    Duration::new(ts.tv_sec as u64, ts.tv_nsec as u32)
}

/// The process's peak resident memory, from `/proc/self/status` (`VmHWM`), in bytes.
pub fn peak_resident() -> Option<u64> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = status.lines().find(|l| l.starts_with("VmHWM:"))?;
    let kib: u64 = line.split_whitespace().nth(1)?.parse().ok()?;
    Some(kib * 1024)
}

// ----- the watchdog -------------------------------------------------------------------------

struct Running {
    target: &'static str,
    started: Instant,
    input: Vec<u8>,
}

fn running() -> &'static Mutex<HashMap<ThreadId, Running>> {
    static RUNNING: OnceLock<Mutex<HashMap<ThreadId, Running>>> = OnceLock::new();
    RUNNING.get_or_init(|| {
        std::thread::Builder::new()
            .name("fuzz watchdog".into())
            .spawn(watch)
            .expect("the watchdog starts");
        Mutex::default()
    })
}

fn watch() {
    loop {
        std::thread::sleep(Duration::from_millis(250));
        let table = running().lock().unwrap_or_else(|p| p.into_inner());
        if let Some(hung) = table.values().find(|r| r.started.elapsed() > hang_limit()) {
            let path = save_to_corpus(hung.target, "hang", &hung.input);
            eprintln!(
                "fuzz: a {} case has run for {:?} and is taken for a hang; its input is kept in {}",
                hung.target,
                hung.started.elapsed(),
                path.display()
            );
            std::process::abort();
        }
    }
}

/// Stops counting and leaves the watchdog's table when the case ends, returned or panicked.
struct CaseGuard;

impl Drop for CaseGuard {
    fn drop(&mut self) {
        COUNTING.with(|c| c.set(false));
        running()
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .remove(&std::thread::current().id());
    }
}

// ----- running cases ------------------------------------------------------------------------

#[derive(Default, Clone, Copy)]
struct Totals {
    cases: u64,
    cpu: Duration,
    slowest: Duration,
    peak: usize,
    largest_input: usize,
}

fn totals() -> &'static Mutex<HashMap<&'static str, Totals>> {
    static TOTALS: OnceLock<Mutex<HashMap<&'static str, Totals>>> = OnceLock::new();
    TOTALS.get_or_init(Mutex::default)
}

/// Runs one input through `target`, timed and with its allocations counted.
pub fn run_case(target: &Target, input: &[u8]) -> Result<(), String> {
    running().lock().unwrap_or_else(|p| p.into_inner()).insert(
        std::thread::current().id(),
        Running {
            target: target.name,
            started: Instant::now(),
            input: input.to_vec(),
        },
    );
    LIVE.with(|l| l.set(0));
    PEAK.with(|p| p.set(0));
    let guard = CaseGuard;
    COUNTING.with(|c| c.set(true));
    let started = thread_cpu_time();
    let outcome = (target.check)(input);
    let took = thread_cpu_time().saturating_sub(started);
    drop(guard);
    let peak = PEAK.with(Cell::get);
    {
        let mut all = totals().lock().unwrap_or_else(|p| p.into_inner());
        let t = all.entry(target.name).or_default();
        t.cases += 1;
        t.cpu += took;
        t.slowest = t.slowest.max(took);
        t.peak = t.peak.max(peak);
        t.largest_input = t.largest_input.max(input.len());
    }
    outcome?;
    if took > case_limit() {
        return Err(format!(
            "one case took {took:?} of CPU time (at most {:?})",
            case_limit()
        ));
    }
    if peak > target.memory {
        return Err(format!(
            "one case held {} MiB at once (at most {} MiB) for {} bytes of input",
            peak >> 20,
            target.memory >> 20,
            input.len()
        ));
    }
    Ok(())
}

/// The runner's settings: the case count, failures kept in `tests/fuzz/regressions/` (replayed
/// first on every run), and shrinking bounded so a failure is reported within minutes.
fn config(source_file: &'static str) -> Config {
    Config {
        cases: cases(),
        source_file: Some(source_file),
        failure_persistence: Some(Box::new(FileFailurePersistence::SourceParallel(
            "fuzz/regressions",
        ))),
        max_shrink_iters: 2_000,
        max_shrink_time: 120_000,
        ..Config::default()
    }
}

/// Runs `target` over the inputs of `inputs`, as many as [`cases`] says, and reports what they
/// cost. Fails on the first broken promise, panic, slow case or greedy case, once shrunk.
pub fn fuzz(
    target: &Target,
    source_file: &'static str,
    what: &str,
    inputs: impl Strategy<Value = Vec<u8>>,
) {
    let mut runner = TestRunner::new(config(source_file));
    let started = Instant::now();
    let cpu_started = thread_cpu_time();
    let before = totals()
        .lock()
        .unwrap()
        .get(target.name)
        .copied()
        .unwrap_or_default();
    let result = runner.run(&inputs, |input| {
        run_case(target, &input).map_err(TestCaseError::fail)
    });
    let after = totals()
        .lock()
        .unwrap()
        .get(target.name)
        .copied()
        .unwrap_or_default();
    eprintln!(
        "fuzz {}/{what}: {} cases in {:.1?} (CPU {:.1?}, of which the cases {:.1?}; slowest case \
         {:.1?}, largest input {} KiB, most held by one case {} KiB, process peak {} MiB)",
        target.name,
        after.cases - before.cases,
        started.elapsed(),
        thread_cpu_time().saturating_sub(cpu_started),
        after.cpu - before.cpu,
        after.slowest,
        after.largest_input >> 10,
        after.peak >> 10,
        peak_resident().unwrap_or(0) >> 20,
    );
    if let Err(e) = result {
        panic!("{}/{what}: {e}", target.name);
    }
}

// ----- the regression corpus ----------------------------------------------------------------

fn corpus_dir(target: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fuzz/corpus")
        .join(target)
}

/// Writes an input into the target's corpus folder, named by its kind and a hash of its bytes.
pub fn save_to_corpus(target: &str, kind: &str, input: &[u8]) -> PathBuf {
    let dir = corpus_dir(target);
    let _ = std::fs::create_dir_all(&dir);
    // FNV-1a: a stable name for the same bytes.
    let hash = input.iter().fold(0xcbf2_9ce4_8422_2325u64, |h, &b| {
        (h ^ b as u64).wrapping_mul(0x0100_0000_01b3)
    });
    let path = dir.join(format!("{kind}-{hash:016x}"));
    let _ = std::fs::write(&path, input);
    path
}

/// Replays every input kept for `target` (inputs that once failed, fixed since); each must
/// pass like any generated one.
/// A target's whole run: its kept corpus replayed (fewer than 10,000 inputs, so the replay
/// stays quick), then [`fuzz`] on `inputs`.
pub fn replay_then_fuzz(
    target: &Target,
    source_file: &'static str,
    what: &str,
    inputs: impl Strategy<Value = Vec<u8>>,
) {
    assert!(replay_corpus(target) < 10_000);
    fuzz(target, source_file, what, inputs);
}

pub fn replay_corpus(target: &Target) -> usize {
    let Ok(entries) = std::fs::read_dir(corpus_dir(target.name)) else {
        return 0;
    };
    let mut files: Vec<PathBuf> = entries.filter_map(|e| Some(e.ok()?.path())).collect();
    files.sort();
    for file in &files {
        let input = std::fs::read(file).unwrap();
        if let Err(e) = run_case(target, &input) {
            panic!("{}: {e}", file.display());
        }
    }
    files.len()
}

// ----- shared generators --------------------------------------------------------------------

/// Integers a hostile file or document puts where a size, a count or an offset goes.
pub fn wild_integer() -> impl Strategy<Value = u64> {
    prop_oneof![
        Just(0u64),
        Just(1),
        Just(0x7F),
        Just(0x80),
        Just(0xFF),
        Just(0xFFFF),
        Just(0x7FFF_FFFF),
        Just(0xFFFF_FFFF),
        Just(0x1_0000_0000),
        Just(i64::MAX as u64),
        Just(u64::MAX),
        Just(u64::MAX - 1),
        0u64..1 << 20,
        any::<u64>(),
    ]
}

/// One change to a byte string.
#[derive(Debug, Clone)]
pub enum Mutation {
    Set(prop::sample::Index, u8),
    Flip(prop::sample::Index, u8),
    /// A little-endian integer written over the bytes (width 2, 4 or 8).
    Integer(prop::sample::Index, u64, usize),
    Insert(prop::sample::Index, Vec<u8>),
    Remove(prop::sample::Index, usize),
    /// A piece of the input copied elsewhere in it.
    Repeat(prop::sample::Index, prop::sample::Index, usize),
    Truncate(prop::sample::Index),
}

pub fn mutation() -> impl Strategy<Value = Mutation> {
    let index = any::<prop::sample::Index>;
    prop_oneof![
        3 => (index(), any::<u8>()).prop_map(|(i, b)| Mutation::Set(i, b)),
        3 => (index(), 0u8..8).prop_map(|(i, bit)| Mutation::Flip(i, 1 << bit)),
        3 => (index(), wild_integer(), prop_oneof![Just(2usize), Just(4), Just(8)])
            .prop_map(|(i, v, w)| Mutation::Integer(i, v, w)),
        2 => (index(), prop::collection::vec(any::<u8>(), 1..64)).prop_map(|(i, b)| Mutation::Insert(i, b)),
        2 => (index(), 1usize..256).prop_map(|(i, n)| Mutation::Remove(i, n)),
        1 => (index(), index(), 1usize..4096).prop_map(|(a, b, n)| Mutation::Repeat(a, b, n)),
        1 => index().prop_map(Mutation::Truncate),
    ]
}

pub fn apply(bytes: &mut Vec<u8>, m: &Mutation) {
    let len = bytes.len();
    match m {
        _ if len == 0 => {
            if let Mutation::Insert(_, b) = m {
                bytes.extend_from_slice(b);
            }
        }
        Mutation::Set(i, b) => bytes[i.index(len)] = *b,
        Mutation::Flip(i, b) => bytes[i.index(len)] ^= *b,
        Mutation::Integer(i, v, w) => {
            let at = i.index(len);
            let end = (at + w).min(len);
            bytes[at..end].copy_from_slice(&v.to_le_bytes()[..end - at]);
        }
        Mutation::Insert(i, b) => {
            let at = i.index(len + 1);
            bytes.splice(at..at, b.iter().copied());
        }
        Mutation::Remove(i, n) => {
            let at = i.index(len);
            bytes.drain(at..(at + n).min(len));
        }
        Mutation::Repeat(from, to, n) => {
            let from = from.index(len);
            let piece = bytes[from..(from + n).min(len)].to_vec();
            let to = to.index(len + 1);
            bytes.splice(to..to, piece);
        }
        Mutation::Truncate(i) => bytes.truncate(i.index(len + 1)),
    }
    bytes.truncate(MAX_INPUT);
}

/// One of `seeds`, changed by a few mutations.
pub fn mutated(seeds: Vec<Vec<u8>>) -> impl Strategy<Value = Vec<u8>> {
    let count = seeds.len();
    (0..count, prop::collection::vec(mutation(), 1..10)).prop_map(move |(i, changes)| {
        let mut bytes = seeds[i].clone();
        for m in &changes {
            apply(&mut bytes, m);
        }
        bytes
    })
}

/// Bytes of no format at all, some starting with a signature the readers look for.
pub fn noise(signatures: &'static [&'static [u8]]) -> impl Strategy<Value = Vec<u8>> {
    (
        prop::option::of(prop::sample::select(signatures)),
        prop::collection::vec(any::<u8>(), 0..4096),
    )
        .prop_map(|(signature, rest)| {
            let mut bytes = signature.map(<[u8]>::to_vec).unwrap_or_default();
            bytes.extend(rest);
            bytes
        })
}
