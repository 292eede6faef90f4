//! One error story for every module: each module's error implements [`Failure`] — its coarse
//! [`ErrorKind`], which front ends branch on (the app's dialogs, the CLI's exit codes) without
//! parsing messages, and the form field it is about, if any ([`ErrorField`]). The shell turns any
//! `Failure` into its command error with one `From`; the CLI derives its exit code from the
//! kind alone. [`Error`] gathers the errors of the library's records for functions that touch
//! several of them.

use serde::Serialize;

use crate::{
    book_downloads::DownloadRequestError, books::BookError, credentials::CredentialError,
    servers::ServerError, store::StoreError,
};

#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    #[error(transparent)]
    Store(#[from] StoreError),
    #[error(transparent)]
    Server(#[from] ServerError),
    #[error(transparent)]
    Credential(#[from] CredentialError),
    #[error(transparent)]
    Book(#[from] BookError),
    #[error(transparent)]
    DownloadRequest(#[from] DownloadRequestError),
}

/// What kind of failure an [`Error`] is, for the UI and exit codes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
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
}

/// A form field an error is about, so a dialog can show the message beside it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
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

impl Failure for Error {
    fn kind(&self) -> ErrorKind {
        match self {
            Error::Store(e) => e.kind(),
            Error::Server(e) => e.kind(),
            Error::Credential(e) => e.kind(),
            Error::Book(e) => e.kind(),
            Error::DownloadRequest(e) => e.kind(),
        }
    }

    fn field(&self) -> Option<ErrorField> {
        match self {
            Error::Server(e) => e.field(),
            Error::Credential(e) => e.field(),
            _ => None,
        }
    }
}

impl Failure for StoreError {
    fn kind(&self) -> ErrorKind {
        ErrorKind::Storage
    }
}

impl Failure for BookError {
    fn kind(&self) -> ErrorKind {
        match self {
            BookError::NotFound(_) => ErrorKind::NotFound,
            BookError::Store(_) => ErrorKind::Storage,
        }
    }
}

impl Failure for CredentialError {
    fn kind(&self) -> ErrorKind {
        ErrorKind::Storage
    }

    fn field(&self) -> Option<ErrorField> {
        Some(ErrorField::Password)
    }
}

pub type Result<T, E = Error> = std::result::Result<T, E>;
