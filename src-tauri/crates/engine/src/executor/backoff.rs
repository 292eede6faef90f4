//! Backoff: the servers the executor waits for after a failure, and how long it waits.

use super::*;

/// A server the executor backs off from.
#[derive(Debug, Clone)]
pub(super) struct ServerBackoff {
    /// Failures in a row.
    pub(super) failures: u32,
    pub(super) retry_at: Instant,
    pub(super) reason: String,
    /// The push counter when it failed: a prioritary push after it retries at once.
    pub(super) since_push: i64,
}

/// The servers in backoff: a server that cannot be reached does not hold up the others.
#[derive(Debug, Default)]
pub(super) struct Backoffs(HashMap<i64, ServerBackoff>);

impl Backoffs {
    /// Notes a failure of `server` (`pushes`: the push counter then); returns how long its
    /// tasks now wait.
    pub(super) fn failed(
        &mut self,
        server: i64,
        reason: &str,
        pushes: i64,
        config: &ExecutorConfig,
    ) -> Duration {
        let failures = self.0.get(&server).map_or(0, |b| b.failures) + 1;
        let delay = backoff_delay(config.backoff_min, config.backoff_max, failures);
        self.0.insert(
            server,
            ServerBackoff {
                failures,
                retry_at: Instant::now() + delay,
                reason: reason.to_owned(),
                since_push: pushes,
            },
        );
        delay
    }

    /// The servers still waiting, with the push counter from when they last failed.
    pub(super) fn waiting_since(&self) -> Vec<(i64, i64)> {
        let now = Instant::now();
        self.0
            .iter()
            .filter(|(_, b)| b.retry_at > now)
            .map(|(id, b)| (*id, b.since_push))
            .collect()
    }

    /// The reader asked for something of `server`: it is tried again now (a failure then backs
    /// off for longer, as the failures in a row are kept).
    pub(super) fn retry_server_now(&mut self, server: i64, pushes: i64) {
        if let Some(b) = self.0.get_mut(&server) {
            b.retry_at = Instant::now();
            b.since_push = pushes;
        }
    }

    pub(super) fn succeeded(&mut self, server: i64) {
        self.0.remove(&server);
    }

    /// The servers whose tasks must still wait.
    pub(super) fn waiting(&self) -> Vec<i64> {
        let now = Instant::now();
        let mut ids: Vec<i64> = self
            .0
            .iter()
            .filter(|(_, b)| b.retry_at > now)
            .map(|(id, _)| *id)
            .collect();
        ids.sort_unstable();
        ids
    }

    /// The server retried soonest among `servers` (its time may have come already).
    pub(super) fn next_retry_among(&self, servers: &[i64]) -> Option<&ServerBackoff> {
        servers
            .iter()
            .filter_map(|id| self.0.get(id))
            .min_by_key(|b| b.retry_at)
    }

    pub(super) fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    /// Something new was asked for: every server is tried again at once (a failure then backs
    /// off for longer, as the failures in a row are kept).
    pub(super) fn retry_now(&mut self) {
        let now = Instant::now();
        for b in self.0.values_mut() {
            b.retry_at = b.retry_at.min(now);
        }
    }
}

pub(super) fn backoff_delay(min: Duration, max: Duration, failures: u32) -> Duration {
    let exp = min.saturating_mul(1u32 << failures.saturating_sub(1).min(16));
    let capped = exp.min(max);
    // Full jitter in the upper half: never hammer, never synchronise with other clients.
    let half = capped / 2;
    half + half.mul_f64(rand::random::<f64>())
}
