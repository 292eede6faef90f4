//! `carrel-foundation`, layer 1 of 7 of Carrel's core: the ground the other layers stand on.
//!
//! What every layer stands on, knowing nothing of libraries or books: the injected clock, the
//! data dir and its files, the SQLite store (one writer, one reader, migrations) and the one way its rows are read
//! (`rows`), the error
//! kinds every error reports, dates, image types from bytes, whole files' types (the extension
//! a declared type is stored under, and what may go to another app), the `books/` folder and
//! its atomic writes (`part_files`), secrets inside addresses, and the holders of rows shared
//! between processes.
//!
//! Does not: know servers, books, settings or catalogs (`carrel-library` and above), talk HTTP
//! or parse feeds. It depends on no other Carrel crate, and Cargo refuses an upward use: code
//! here cannot name `carrel_library` or `carrel_engine`, which are not its dependencies (and
//! cannot be — they depend on it). Helpers that upper layers' unit tests share are behind the
//! `test-support` feature, for `[dev-dependencies]` only.

pub mod address_secrets;
pub mod clock;
pub mod data_dir;
pub mod error;
pub mod file_types;
pub mod image_type;
pub mod part_files;
pub mod process_holders;
pub mod rows;
pub mod store;
pub mod store_changes;
#[cfg(any(test, feature = "test-support"))]
pub mod test_tools;
pub mod timestamps;
