//! What the reader keeps, above the store: the servers added, their credentials (keyring or a
//! 0600 file) and the sessions they gave, books under local ids and what makes two entries one
//! book, the settings, and the last good copy of every catalog page. [`Error`] gathers these
//! records' errors for functions that touch several of them.

pub mod book_identity;
pub mod books;
pub mod catalog_cache;
pub mod credentials;
pub mod error;
pub mod server_sessions;
pub mod servers;
pub mod settings;

pub use error::{Error, Result};
