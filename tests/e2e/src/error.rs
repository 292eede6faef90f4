//! The one error type of the harness: what went wrong talking to the WebDriver server, starting
//! or stopping the processes, or waiting for the window to reach a state.
//!
//! `Debug` prints the same text as `Display`, so `.unwrap()` and `.expect()` in a test show a
//! readable sentence rather than a struct dump.

use std::fmt;
use std::time::Duration;

/// The W3C error code for "no element matches the selector".
pub const NO_SUCH_ELEMENT: &str = "no such element";
/// The W3C error code for "the element left the document since it was found".
pub const STALE_ELEMENT: &str = "stale element reference";

pub type Result<T, E = Error> = std::result::Result<T, E>;

#[derive(thiserror::Error)]
pub enum Error {
    /// The remote end answered the command with a W3C error.
    #[error("WebDriver command `{command}` failed with HTTP {status}: {code}{}", if message.is_empty() { String::new() } else { format!(": {message}") })]
    WebDriver {
        command: String,
        status: u16,
        /// The W3C error code, e.g. `no such element`.
        code: String,
        message: String,
    },

    /// The HTTP request did not get an answer (server gone, connection refused, time-out).
    #[error("WebDriver command `{command}` got no answer: {detail}")]
    Transport { command: String, detail: String },

    /// The remote end answered with something that is not what the protocol says.
    #[error("WebDriver command `{command}` got an unexpected answer: {detail}")]
    Protocol { command: String, detail: String },

    /// A wait ran out of time.
    #[error("timed out after {:.1} s waiting for {what}{}", after.as_secs_f64(), last.as_ref().map(|l| format!(" (last seen: {l})")).unwrap_or_default())]
    Timeout {
        what: String,
        after: Duration,
        /// The last thing observed while polling, to tell how far it got.
        last: Option<String>,
    },

    /// A file or process operation failed.
    #[error("{context}: {source}")]
    Io {
        context: String,
        #[source]
        source: std::io::Error,
    },

    /// tauri-driver or the app did not start, or did not stop.
    #[error("{0}")]
    Process(String),
}

impl Error {
    /// The W3C error code when this is an error answer from the remote end.
    pub fn code(&self) -> Option<&str> {
        match self {
            Error::WebDriver { code, .. } => Some(code),
            _ => None,
        }
    }

    /// Whether the error only means "not there (yet)": worth polling again.
    pub fn is_not_found(&self) -> bool {
        matches!(self.code(), Some(NO_SUCH_ELEMENT | STALE_ELEMENT))
    }

    pub(crate) fn io(context: impl Into<String>, source: std::io::Error) -> Self {
        Error::Io {
            context: context.into(),
            source,
        }
    }
}

impl fmt::Debug for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Display::fmt(self, f)
    }
}
