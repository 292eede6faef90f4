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

impl Failure for Error {
    fn kind(&self) -> ErrorKind {
        match self {
            Error::Store(e) => e.kind(),
            Error::Server(e) => e.kind(),
            Error::Credential(e) => e.kind(),
            Error::Book(e) => e.kind(),
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

pub type Result<T, E = Error> = std::result::Result<T, E>;
