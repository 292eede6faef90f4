//! [`Error`]: the errors of the library's records — the store, servers, their credentials and
//! books — gathered for functions that touch several of them.

use crate::{books::BookError, credentials::CredentialError, servers::ServerError};
use carrel_foundation::{
    error::{ErrorField, ErrorKind, Failure},
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
}

impl Error {
    /// The error of the record it is about, which says its kind and field.
    fn record_error(&self) -> &dyn Failure {
        match self {
            Error::Store(e) => e,
            Error::Server(e) => e,
            Error::Credential(e) => e,
            Error::Book(e) => e,
        }
    }
}

impl Failure for Error {
    fn kind(&self) -> ErrorKind {
        self.record_error().kind()
    }

    fn field(&self) -> Option<ErrorField> {
        self.record_error().field()
    }
}

pub type Result<T, E = Error> = std::result::Result<T, E>;
