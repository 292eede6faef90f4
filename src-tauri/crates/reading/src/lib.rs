//! `carrel-reading`, layer 6 of 7 of Carrel's core: what the reader's windows read.
//!
//! What the reader's windows read, by book id: pages (streamed, or read from a comic archive),
//! whole EPUB and PDF files, which reader opens a book, and reading positions — saved here and
//! shared with the server (OPDS progression, Komga's API) and with KOReader devices.
//!
//! Does not: download (it asks `carrel-engine`), browse catalogs or show books in lists
//! (`carrel-catalog`). Depends on the five layers below it; Cargo refuses any use of the layer
//! above.

pub mod annotation_export;
pub mod annotations;
pub mod archive_error;
pub mod archive_pages;
mod archive_walk;
pub mod book_reader;
pub mod book_source;
pub mod comic_archive;
pub mod epub_positions;
pub mod komga;
pub mod kosync;
pub mod locator;
pub mod page_source;
pub mod position_sync;
pub mod read_state;
pub mod remote_zip;
pub mod served_page;
pub mod server_position;
