//! Talking to library servers: the HTTP client with each server's authentication, sessions and
//! status triage; the one request in flight per server (and its minimum interval) across
//! processes; finding a server's catalog from the address a reader types; where a redirect
//! may take a request and its credentials.

pub mod http_fetch;
pub mod redirects;
pub mod server_discovery;
pub mod server_throttle;
