//! `carrel-library`, layer 3 of 7 of Carrel's core: what the reader keeps.
//!
//! What the reader keeps, above the store: the servers added, their credentials (keyring or a
//! 0600 file) and the sessions they gave, books under local ids and what makes two entries one
//! book, the settings, and the last good copy of every catalog page. [`Error`] gathers these
//! records' errors for functions that touch several of them.
//!
//! Does not: talk to servers (`carrel-http`), download (`carrel-engine`), read books
//! (`carrel-reading`) or browse and remove servers with what they brought (`carrel-catalog`).
//! Depends on `carrel-foundation` only; Cargo refuses any use of a layer above.

pub mod book_identity;
pub mod books;
pub mod catalog_cache;
pub mod credentials;
pub mod error;
pub mod server_secrets;
pub mod server_sessions;
pub mod servers;
pub mod settings;
#[cfg(any(test, feature = "test-support"))]
pub mod test_support;

pub use error::{Error, Result};
