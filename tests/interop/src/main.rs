//! Carrel against real library servers on loopback: each module starts its server with a library
//! made at test time, drives the real `carrel-cli` on a temp data dir, and stops the server on
//! drop. A server that is not installed fails the test (run scripts/ensure-interop-servers, or
//! `make test-interop`), it is never skipped.
//!
//! - `calibre_server`: calibre's content server (Debian's calibre);
//! - `calibre_web`: Calibre-Web (PyPI) over a calibre library;
//! - `codex`: Codex (PyPI), OPDS 1.2 and 2.0 with page streaming, bookmarks;
//! - `codex_server_behaviours`: adding Codex by its plain address, one identity per comic across
//!   all its views, a signed-in download that checks the password a bounded number of times,
//!   and series known from its series feeds (OPDS 1.2 and 2.0) kept by a read-ahead;
//! - `codex_bench` (ignored; `make bench` runs it): a signed-in download against an anonymous
//!   one on a real Codex, and the identity count of a walked Codex catalog;
//! - `korrosync`: korrosync (crates.io), a KOReader sync server: an EPUB's position sent under
//!   KOReader's document id, another device's newer one taken, a wrong password and the server
//!   down said as the README says;
//! - `reading_window`: a CBZ and a PDF from calibre's content server and from Calibre-Web read
//!   through the real window (page 1 and the last page painted), Codex's series read past
//!   #1's end: the end card names #2 and one more turn opens it at page 1, and calibre's own
//!   Quick Start Guide searched in the window's EPUB reader.

mod calibre_server;
mod calibre_web;
mod codex;
mod codex_bench;
mod codex_server_behaviours;
mod korrosync;
mod reading_window;
mod support;
