//! `carrel-http`, layer 4 of 7 of Carrel's core: talking to library servers.
//!
//! Talking to library servers: the HTTP client with each server's authentication, sessions and
//! status triage; the one request in flight per server (and its minimum interval) across
//! processes; finding a server's catalog from the address a reader types; where a redirect
//! may take a request and its credentials.
//!
//! Does not: parse catalogs (`carrel-opds`), keep records (`carrel-library`), download books
//! (`carrel-engine`) or decide what a window shows (`carrel-catalog`). Depends on
//! `carrel-foundation`, `carrel-opds` and `carrel-library`; Cargo refuses any use of a layer
//! above.

pub mod http_fetch;
pub mod redirects;
pub mod server_discovery;
pub mod server_throttle;
