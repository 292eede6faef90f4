//! One error story for every module: each module's error implements [`Failure`] — its coarse
//! [`ErrorKind`], which front ends branch on (the app's dialogs, the CLI's exit codes) without
//! parsing messages, and the form field it is about, if any ([`ErrorField`]). The shell turns any
//! `Failure` into its command error with one `From`; the CLI derives its exit code from the
//! kind alone.

use serde::Serialize;

use crate::store::StoreError;

/// What kind of failure an error is, for the UI and exit codes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, ts_rs::TS)]
#[ts(rename = "CommandErrorKind")]
#[serde(rename_all = "snake_case")]
#[non_exhaustive]
pub enum ErrorKind {
    /// The reader's input is not acceptable (a bad URL, an empty name).
    InvalidInput,
    /// The thing asked for does not exist.
    NotFound,
    /// It exists already.
    Conflict,
    /// The data dir or database cannot be used (unwritable, corrupt, newer schema, disk full).
    Storage,
    /// A library server failed or refused us.
    Server,
    /// Credentials are missing or were refused.
    Auth,
    /// A library server whose certificate is not trusted (self-signed, or signed by an
    /// authority this machine does not know): a server failure the reader can act on, by
    /// choosing to trust that server.
    Certificate,
    /// Offline and not on the device yet: a page or book the window asked for is not stored
    /// and did not arrive in time (the server is away, or downloads are paused). The window
    /// says so and asks again later; nothing is wrong with the book.
    NotDownloaded,
}

/// A form field an error is about, so a dialog can show the message beside it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, ts_rs::TS)]
#[ts(rename = "CommandErrorField")]
#[serde(rename_all = "snake_case")]
#[non_exhaustive]
pub enum ErrorField {
    Name,
    Url,
    Password,
    MinIntervalMs,
    BooksKept,
}

impl ErrorField {
    pub fn as_str(self) -> &'static str {
        match self {
            ErrorField::Name => "name",
            ErrorField::Url => "url",
            ErrorField::Password => "password",
            ErrorField::MinIntervalMs => "min_interval_ms",
            ErrorField::BooksKept => "books_kept",
        }
    }
}

/// What every error of the core tells a front end besides its message.
pub trait Failure: std::error::Error + Send + Sync + 'static {
    /// What kind of failure it is.
    fn kind(&self) -> ErrorKind;
    /// The form field it is about, when it is about one.
    fn field(&self) -> Option<ErrorField> {
        None
    }
}

impl Failure for StoreError {
    fn kind(&self) -> ErrorKind {
        ErrorKind::Storage
    }
}
