//! The crate-wide error: one variant per module error, plus a coarse [`ErrorKind`] that front
//! ends branch on (the app's dialogs, the CLI's exit codes) without parsing messages.

use serde::Serialize;

use crate::{
    book_downloads::DownloadRequestError, books::BookError, credentials::CredentialError, servers::ServerError,
    store::StoreError,
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

impl Error {
    pub fn kind(&self) -> ErrorKind {
        match self {
            Error::Store(_) => ErrorKind::Storage,
            Error::Server(e) => e.kind(),
            Error::Credential(_) => ErrorKind::Storage,
            Error::Book(BookError::NotFound(_)) => ErrorKind::NotFound,
            Error::Book(_) => ErrorKind::Storage,
            Error::DownloadRequest(e) => e.kind(),
        }
    }
}

pub type Result<T, E = Error> = std::result::Result<T, E>;
