//! Lying lengths: file answers whose announced size is not what the server will send, so a
//! client's caps on whole-file downloads can be tested against a real socket.
//!
//! A lie applies to library requests whose path and query start with its prefix (checked after
//! authentication, before routing). The body is zeros, sent until the client hangs up; it is
//! counted in the stats like any other body. Owns only the lie and its answer; the other faults
//! live in [`crate::Faults`].

use std::sync::Mutex;

use hyper::header::{self, HeaderValue};
use hyper::{Response, StatusCode};
use serde::{Deserialize, Serialize};

use crate::http::FixtureBody;
use crate::state::InFlight;

/// One terabyte and one byte short of it: what a hostile server claims a book is.
pub const CLAIMED_TOTAL: u64 = 1 << 40;

/// How an answer lies about its length.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum LengthLie {
    /// `206` with `Content-Range: bytes 0-1099511627775/1099511627776` (and that
    /// `Content-Length`) whatever range was asked for, then zeros without end.
    EndlessPartial,
    /// `200` without a `Content-Length` (chunked) and without `Accept-Ranges`, then zeros
    /// without end.
    EndlessWhole,
}

/// The lie in force, if any, and the requests it applies to.
#[derive(Default)]
pub(crate) struct LengthLies {
    current: Mutex<Option<(String, LengthLie)>>,
}

impl LengthLies {
    pub(crate) fn set(&self, lie: Option<(String, LengthLie)>) {
        *self.current.lock().unwrap_or_else(|p| p.into_inner()) = lie;
    }

    pub(crate) fn matching(&self, url: &str) -> Option<LengthLie> {
        let current = self.current.lock().unwrap_or_else(|p| p.into_inner());
        current
            .as_ref()
            .filter(|(prefix, _)| url.starts_with(prefix.as_str()))
            .map(|(_, lie)| *lie)
    }
}

/// The lying answer.
pub(crate) fn respond(lie: LengthLie, guard: InFlight) -> Response<FixtureBody> {
    let mut response = Response::new(FixtureBody::endless_zeros(guard));
    *response.status_mut() = match lie {
        LengthLie::EndlessPartial => StatusCode::PARTIAL_CONTENT,
        LengthLie::EndlessWhole => StatusCode::OK,
    };
    let headers = response.headers_mut();
    headers.insert(
        header::CONTENT_TYPE,
        HeaderValue::from_static("application/epub+zip"),
    );
    headers.insert(header::SERVER, HeaderValue::from_static("carrel-fixture"));
    match lie {
        LengthLie::EndlessPartial => {
            headers.insert(header::ACCEPT_RANGES, HeaderValue::from_static("bytes"));
            headers.insert(header::ETAG, HeaderValue::from_static("\"endless\""));
            let range = format!("bytes 0-{}/{}", CLAIMED_TOTAL - 1, CLAIMED_TOTAL);
            headers.insert(
                header::CONTENT_RANGE,
                HeaderValue::from_str(&range).expect("ASCII"),
            );
            headers.insert(header::CONTENT_LENGTH, HeaderValue::from(CLAIMED_TOTAL));
        }
        LengthLie::EndlessWhole => {}
    }
    response
}
