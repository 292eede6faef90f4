//! The download engine's tests, as one integration-test binary against real SQLite files and
//! a real HTTP server on loopback (`fixture-server`).
//!
//! - `stack`: push-to-top dedupe, prioritary pop, the pop order's index, retry.
//! - `executor`: page-N-first order, chained parts, the failure policy, backoff, start-up
//!   reconcile, fencing of a stale holder, resume without re-download, Range resume across a
//!   changed ETag, orphan collection, one request in flight, preemption.

mod support;

mod executor;
mod stack;
