//! What every layer stands on, knowing nothing of libraries or books: the injected clock, the
//! data dir and its files, the SQLite store (one writer, one reader, migrations), the error
//! kinds every error reports, dates, image types from bytes, whole files' types (the extension
//! a declared type is stored under, and what may go to another app), secrets inside addresses,
//! and the holders of rows shared between processes.

pub mod address_secrets;
pub mod clock;
pub mod data_dir;
pub mod error;
pub mod file_types;
pub mod image_type;
pub mod part_files;
pub mod process_holders;
pub mod store;
pub mod timestamps;
