//! Browsing libraries: the catalog client (polite fetches, local ids, offline copies), covers,
//! books as the windows show them, search on the device and across servers, storage usage,
//! "keep all offline" batches, reading windows per series, and removing a server with everything it brought.

pub mod book_view;
pub mod client;
pub mod cover_cache;
pub mod download_batches;
pub mod library_search;
pub mod series_feeds;
pub mod series_windows;
pub mod server_removal;
pub mod storage_usage;
