//! Shared server state: settings, the generated books, reading positions and the accounting.

use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::Duration;

use crate::content::{self, BookKind, BuiltBook, Catalog};
use crate::util::{http_date, now_unix, rfc3339, Rng};
use crate::{
    Behavior, BookInfo, ClientStats, Config, Faults, ProgressionStats, ReadingPosition, Stats,
};

/// Locks a mutex, carrying on with the data if another thread panicked while holding it.
pub(crate) fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|poisoned| poisoned.into_inner())
}

struct Settings {
    faults: Faults,
    behavior: Behavior,
    /// How many requests the current fault set has matched, for the error-rate sequence.
    matched: u64,
}

#[derive(Clone, Copy, Debug)]
struct Position {
    index: u32,
    updated: u64,
    moves: u64,
    /// Komga read-progress PATCHes that set it.
    patches: u64,
}

struct Books {
    revisions: HashMap<u32, u32>,
    gone: BTreeSet<u32>,
    positions: BTreeMap<u32, Position>,
    progressions: BTreeMap<u32, ProgressionStats>,
    cache: HashMap<u32, Arc<BuiltBook>>,
}

#[derive(Default)]
struct Accounting {
    in_flight: u64,
    max_in_flight: u64,
    total: u64,
    clients: BTreeMap<String, ClientStats>,
    /// Every credential (or `Referer`) a request carried, as "METHOD /path: header".
    credentials_received: Vec<String>,
}

/// How a response body ends.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Ending {
    Complete,
    /// Close the connection cleanly after about half the body.
    Truncate,
    /// Reset the connection after about half the body.
    Reset,
}

/// Body faults chosen for one response.
#[derive(Clone, Copy, Debug)]
pub(crate) struct BodyPlan {
    pub(crate) bandwidth: Option<u64>,
    pub(crate) stall: Option<Duration>,
    pub(crate) ending: Ending,
}

impl BodyPlan {
    pub(crate) fn clean() -> Self {
        BodyPlan {
            bandwidth: None,
            stall: None,
            ending: Ending::Complete,
        }
    }
}

/// Faults chosen for one request.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Plan {
    pub(crate) latency: Duration,
    pub(crate) fail: bool,
    pub(crate) body: BodyPlan,
}

pub(crate) struct State {
    pub(crate) seed: u64,
    pub(crate) page_bytes: usize,
    /// Books served as a file the caller made (see [`crate::Config::files`]).
    given: BTreeMap<u32, crate::GivenFile>,
    pub(crate) feed_page_size: usize,
    pub(crate) catalog: Catalog,
    settings: Mutex<Settings>,
    books: Mutex<Books>,
    accounting: Mutex<Accounting>,
    pub(crate) sessions: crate::sessions::Sessions,
    /// The KOSync server's reading positions, by user and document id.
    pub(crate) kosync: Mutex<HashMap<(String, String), serde_json::Value>>,
    pub(crate) length_lies: crate::length_lies::LengthLies,
}

impl State {
    pub(crate) fn new(config: &Config) -> State {
        let catalog = Catalog::generate(config.seed, config.books, &config.comic_pages);
        let positions = match &config.reading_positions {
            Some(explicit) => explicit
                .iter()
                .filter(|(id, index)| {
                    catalog
                        .book(**id)
                        .is_some_and(|b| b.kind == BookKind::Comic && **index < b.pages)
                })
                .map(|(id, index)| (*id, *index))
                .collect::<Vec<_>>(),
            None => catalog
                .books
                .iter()
                .filter(|b| b.kind == BookKind::Comic && b.id % 4 == 2)
                .map(|b| (b.id, b.pages / 3))
                .collect(),
        };
        let positions = positions
            .into_iter()
            .map(|(id, index)| {
                let updated = catalog
                    .book(id)
                    .map(|b| b.base_time + 3 * 86_400)
                    .unwrap_or(0);
                (
                    id,
                    Position {
                        index,
                        updated,
                        moves: 0,
                        patches: 0,
                    },
                )
            })
            .collect();
        State {
            seed: config.seed,
            page_bytes: config.page_bytes.max(256),
            given: config.files.clone(),
            feed_page_size: config.feed_page_size.max(1),
            catalog,
            settings: Mutex::new(Settings {
                faults: config.faults.clone(),
                behavior: config.behavior.clone(),
                matched: 0,
            }),
            books: Mutex::new(Books {
                revisions: HashMap::new(),
                gone: config.gone.clone(),
                positions,
                progressions: BTreeMap::new(),
                cache: HashMap::new(),
            }),
            sessions: crate::sessions::Sessions::default(),
            kosync: Mutex::new(HashMap::new()),
            accounting: Mutex::new(Accounting::default()),
            length_lies: Default::default(),
        }
    }

    // ---- settings ----

    pub(crate) fn faults(&self) -> Faults {
        lock(&self.settings).faults.clone()
    }

    pub(crate) fn set_faults(&self, faults: Faults) {
        let mut s = lock(&self.settings);
        s.faults = faults;
        s.matched = 0;
    }

    pub(crate) fn behavior(&self) -> Behavior {
        lock(&self.settings).behavior.clone()
    }

    pub(crate) fn set_behavior(&self, behavior: Behavior) {
        lock(&self.settings).behavior = behavior;
    }

    /// Decides which faults apply to a request for `url` (path and query), consuming one of
    /// the "next K requests" if the fault set is limited.
    pub(crate) fn plan(&self, url: &str) -> Plan {
        let mut s = lock(&self.settings);
        let none = Plan {
            latency: Duration::ZERO,
            fail: false,
            body: BodyPlan::clean(),
        };
        let f = &s.faults;
        if !f.is_active() {
            return none;
        }
        if let Some(prefix) = &f.path_prefix {
            if !url.starts_with(prefix.as_str()) {
                return none;
            }
        }
        match f.next_requests {
            Some(0) => return none,
            Some(n) => s.faults.next_requests = Some(n - 1),
            None => {}
        }
        let n = s.matched;
        s.matched += 1;
        let f = &s.faults;
        let fail = f.error_rate > 0.0 && Rng::derive(&[self.seed, 0x503, n]).unit() < f.error_rate;
        let ending = if f.reset_mid_body {
            Ending::Reset
        } else if f.truncate_body {
            Ending::Truncate
        } else {
            Ending::Complete
        };
        Plan {
            latency: Duration::from_millis(f.latency_ms),
            fail,
            body: BodyPlan {
                bandwidth: f.bandwidth.filter(|b| *b > 0),
                stall: (f.stall_ms > 0).then(|| Duration::from_millis(f.stall_ms)),
                ending,
            },
        }
    }

    // ---- books ----

    pub(crate) fn revision(&self, id: u32) -> u32 {
        lock(&self.books).revisions.get(&id).copied().unwrap_or(0)
    }

    pub(crate) fn is_gone(&self, id: u32) -> bool {
        lock(&self.books).gone.contains(&id)
    }

    pub(crate) fn set_gone(&self, id: u32, gone: bool) -> bool {
        if self.catalog.book(id).is_none() {
            return false;
        }
        let mut b = lock(&self.books);
        if gone {
            b.gone.insert(id);
        } else {
            b.gone.remove(&id);
        }
        true
    }

    /// The bytes of the current revision of a book, built on first use.
    pub(crate) fn built(&self, id: u32) -> Option<Arc<BuiltBook>> {
        let meta = self.catalog.book(id)?;
        let revision = {
            let b = lock(&self.books);
            let revision = b.revisions.get(&id).copied().unwrap_or(0);
            if let Some(built) = b.cache.get(&id) {
                if built.revision == revision {
                    return Some(built.clone());
                }
            }
            revision
        };
        // Built outside the lock; two racing builders produce identical bytes.
        let mut built =
            content::build_shared(&self.catalog, meta, self.seed, revision, self.page_bytes);
        if let Some(given) = self.given.get(&id) {
            built = Arc::new(content::with_file(&built, &given.bytes));
        }
        let mut b = lock(&self.books);
        let current = b.revisions.get(&id).copied().unwrap_or(0);
        if current == revision {
            b.cache.insert(id, built.clone());
        }
        Some(built)
    }

    /// The media type and file-name extension a book's file is served with.
    pub(crate) fn file_type<'a>(&'a self, meta: &crate::content::BookMeta) -> (&'a str, &'a str) {
        match self.given.get(&meta.id) {
            Some(given) => (&given.media_type, &given.extension),
            None => (meta.kind.mime(), meta.kind.extension()),
        }
    }

    /// Whether a book's file is one the caller gave (never streamed page by page).
    pub(crate) fn is_given(&self, id: u32) -> bool {
        self.given.contains_key(&id)
    }

    pub(crate) fn revise(&self, id: u32) -> Option<BookInfo> {
        self.catalog.book(id)?;
        {
            let mut b = lock(&self.books);
            *b.revisions.entry(id).or_insert(0) += 1;
            b.cache.remove(&id);
        }
        self.book_info(id)
    }

    pub(crate) fn book_info(&self, id: u32) -> Option<BookInfo> {
        let meta = self.catalog.book(id)?;
        let built = self.built(id)?;
        let series = self
            .catalog
            .series(meta.series_id)
            .map(|s| s.name.clone())
            .unwrap_or_default();
        let modified = meta.modified(built.revision);
        Some(BookInfo {
            id,
            kind: meta.kind,
            title: meta.title.clone(),
            series,
            series_id: meta.series_id,
            number: meta.number,
            author: meta.author.clone(),
            summary: meta.summary.clone(),
            pages: meta.pages,
            mime: self.file_type(meta).0.to_string(),
            length: built.file.len() as u64,
            etag: built.etag.clone(),
            last_modified: http_date(modified),
            updated: rfc3339(modified),
            revision: built.revision,
            gone: self.is_gone(id),
        })
    }

    // ---- reading positions ----

    pub(crate) fn position(&self, id: u32) -> Option<ReadingPosition> {
        let one_based = self.behavior().one_based_pages;
        lock(&self.books)
            .positions
            .get(&id)
            .map(|p| to_public(p, one_based))
    }

    /// Zero-based index and unix time of a book's reading position.
    pub(crate) fn position_raw(&self, id: u32) -> Option<(u32, u64)> {
        lock(&self.books)
            .positions
            .get(&id)
            .map(|p| (p.index, p.updated))
    }

    /// A page request with the bookmark parameter: the position moves to `index`, counted.
    pub(crate) fn move_position(&self, id: u32, index: u32) {
        self.put_position(id, index, 1, 0);
    }

    /// A Komga read-progress PATCH: the position moves to `index`, counted.
    pub(crate) fn patch_position(&self, id: u32, index: u32) {
        self.put_position(id, index, 0, 1);
    }

    pub(crate) fn set_position(&self, id: u32, index: Option<u32>) {
        match index {
            Some(index) => self.put_position(id, index, 0, 0),
            None => {
                lock(&self.books).positions.remove(&id);
            }
        }
    }

    /// Sets a book's position to `index` as of now, adding to what moved it.
    fn put_position(&self, id: u32, index: u32, more_moves: u64, more_patches: u64) {
        let mut b = lock(&self.books);
        let (moves, patches) = b
            .positions
            .get(&id)
            .map(|p| (p.moves, p.patches))
            .unwrap_or((0, 0));
        b.positions.insert(
            id,
            Position {
                index,
                updated: now_unix(),
                moves: moves + more_moves,
                patches: patches + more_patches,
            },
        );
    }

    // ---- progression documents ----

    pub(crate) fn progression(&self, id: u32) -> Option<serde_json::Value> {
        lock(&self.books)
            .progressions
            .get(&id)
            .map(|p| p.locator.clone())
            .filter(|l| !l.is_null())
    }

    pub(crate) fn set_progression(&self, id: u32, locator: Option<serde_json::Value>) {
        let mut b = lock(&self.books);
        match locator {
            Some(locator) => b.progressions.entry(id).or_default().locator = locator,
            None => {
                b.progressions.remove(&id);
            }
        }
    }

    /// Stores `locator` unless the stored one is newer (`modified`); `Err` gives the stored
    /// document of a refused (409) update.
    pub(crate) fn put_progression(
        &self,
        id: u32,
        locator: serde_json::Value,
        modified_ms: i64,
    ) -> Result<serde_json::Value, serde_json::Value> {
        let mut b = lock(&self.books);
        let entry = b.progressions.entry(id).or_default();
        let stored_ms = entry
            .locator
            .get("modified")
            .and_then(|m| m.as_str())
            .and_then(crate::util::parse_rfc3339_ms);
        if stored_ms.is_some_and(|stored| modified_ms < stored) {
            entry.conflicts += 1;
            return Err(entry.locator.clone());
        }
        entry.locator = locator.clone();
        entry.puts += 1;
        Ok(locator)
    }

    // ---- accounting ----

    pub(crate) fn stats(&self) -> Stats {
        let one_based = self.behavior().one_based_pages;
        let reading_positions = lock(&self.books)
            .positions
            .iter()
            .map(|(id, p)| (*id, to_public(p, one_based)))
            .collect();
        let progressions = lock(&self.books).progressions.clone();
        let a = lock(&self.accounting);
        Stats {
            global_in_flight: a.in_flight,
            global_max_in_flight: a.max_in_flight,
            total_requests: a.total,
            clients: a.clients.clone(),
            reading_positions,
            progressions,
            password_checks: self.sessions.password_checks(),
            credentials_received: a.credentials_received.clone(),
        }
    }

    /// Notes the credentials (and `Referer`) a request carried.
    pub(crate) fn note_credentials(&self, method: &str, path: &str, headers: &hyper::HeaderMap) {
        const CARRY_SECRETS: [&str; 8] = [
            "authorization",
            "cookie",
            "x-api-key",
            "x-auth-token",
            "x-auth-user",
            "x-auth-key",
            "proxy-authorization",
            "referer",
        ];
        let mut a = lock(&self.accounting);
        for name in CARRY_SECRETS {
            if headers.contains_key(name) {
                a.credentials_received
                    .push(format!("{method} {path}: {name}"));
            }
        }
    }

    pub(crate) fn reset_stats(&self) {
        let mut a = lock(&self.accounting);
        a.max_in_flight = a.in_flight;
        a.total = 0;
        a.clients.retain(|_, c| c.in_flight > 0);
        for c in a.clients.values_mut() {
            c.max_in_flight = c.in_flight;
            c.requests = 0;
            c.hits.clear();
            c.rest_from.clear();
            c.bytes.clear();
        }
        drop(a);
        let mut b = lock(&self.books);
        for p in b.positions.values_mut() {
            p.moves = 0;
            p.patches = 0;
        }
        for p in b.progressions.values_mut() {
            p.puts = 0;
            p.conflicts = 0;
        }
    }
}

fn to_public(p: &Position, one_based: bool) -> ReadingPosition {
    ReadingPosition {
        page: p.index + u32::from(one_based),
        index: p.index,
        updated: rfc3339(p.updated),
        moves: p.moves,
        read_progress_patches: p.patches,
    }
}

/// Marks one counted request as in flight until dropped; the response body owns it, so the
/// count falls when the body has been handed over in full, or when it is abandoned.
pub(crate) struct InFlight {
    state: Arc<State>,
    client: String,
    url: String,
}

impl InFlight {
    pub(crate) fn begin(state: Arc<State>, client: String, url: String) -> InFlight {
        {
            let mut a = lock(&state.accounting);
            a.in_flight += 1;
            a.max_in_flight = a.max_in_flight.max(a.in_flight);
            a.total += 1;
            let c = a.clients.entry(client.clone()).or_default();
            c.in_flight += 1;
            c.max_in_flight = c.max_in_flight.max(c.in_flight);
            c.requests += 1;
            *c.hits.entry(url.clone()).or_insert(0) += 1;
        }
        InFlight { state, client, url }
    }

    /// Notes where this request asks the rest of its resource from (see
    /// [`crate::ClientStats::rest_from`]).
    pub(crate) fn asked_from(&self, start: Option<u64>) {
        let Some(start) = start else { return };
        let mut a = lock(&self.state.accounting);
        let c = a.clients.entry(self.client.clone()).or_default();
        c.rest_from.entry(self.url.clone()).or_default().push(start);
    }

    pub(crate) fn sent(&self, bytes: u64) {
        let mut a = lock(&self.state.accounting);
        let c = a.clients.entry(self.client.clone()).or_default();
        *c.bytes.entry(self.url.clone()).or_insert(0) += bytes;
    }
}

impl Drop for InFlight {
    fn drop(&mut self) {
        let mut a = lock(&self.state.accounting);
        a.in_flight = a.in_flight.saturating_sub(1);
        if let Some(c) = a.clients.get_mut(&self.client) {
            c.in_flight = c.in_flight.saturating_sub(1);
        }
    }
}
