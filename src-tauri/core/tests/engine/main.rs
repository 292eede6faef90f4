//! The download engine's tests, as one integration-test binary against real SQLite files and
//! a real HTTP server on loopback (`fixture-server`).
//!
//! - `archives`: CBZ, CB7 and CBT made by real tools and genuine RAR 4 and RAR 5 files read
//!   page by page; hostile archives refused with clear errors.
//! - `batches`: "Keep all offline" on a feed of several pages or a search, in reading
//!   order, paused, resumed, cancelled, moved up, and kept across a new store handle.
//! - `covers`: covers kept with books kept offline, each address fetched once, a cover that is
//!   a book's first page too.
//! - `credentials`: a reader's secrets reach the origin typed and no other host — discovery,
//!   the first probe, redirects of every client — checked by a second host on 127.0.0.2.
//! - `identity`: one book per book whichever view listed it (ids carrying the feed's view),
//!   and copies remembered before merged once, keeping files, position, pins and the outbox.
//! - `stack`: push-to-top dedupe, prioritary pop, the pop order's index, retry.
//! - `executor`: page-N-first order, chained parts, the failure policy, backoff, start-up
//!   reconcile, fencing of a stale holder, resume without re-download, Range resume across a
//!   changed ETag, orphan collection, one request in flight, preemption.
//! - `next_book`: a book's neighbours in its series (numbers, a Komga series feed's order), on
//!   the device or not; books read to their end or marked read or unread, the marks sent to
//!   progression documents and Komga; "continue reading" without read books.
//! - `offline`: catalog pages and covers kept for offline use, with the server stopped.
//! - `pages`: pages for the reader's window — stored, pushed and waited for, offline, out of
//!   range.
//! - `epub`: whole EPUBs for the EPUB reader's window — stored (byte-identical), queued and
//!   waited for, offline; the reader's CFI per book.
//! - `library`: moving a book to the top, cancelling, evicting, the downloads page, storage
//!   usage.
//! - `positions`: reading positions sent to the server's progression documents, kept while it
//!   is away, conflicts (the newer wins), never moved by downloads, offered when opening.
//! - `limits`: hostile lengths (a 206 claiming a terabyte, a 200 without end, more than the
//!   catalog declared) stopped at a cap with the partial file deleted; a book larger than the
//!   free space refused before a byte is written, on a real small filesystem.
//! - `series`: read-ahead per series — the next unread books queued while one is read,
//!   finished ones removed after their days, and a server's default read-ahead taken by a
//!   series read without one (never over a series' own read-ahead or a series the reader
//!   stopped).
//! - `sessions`: signing in once against a server with sessions; an expired session.
//! - `tls`: a self-signed certificate on a real TLS server, refused unless the reader trusts
//!   that server.

mod support;

mod api_keys;
mod archives;
mod batches;
mod covers;
mod credentials;
mod epub;
mod executor;
mod identity;
mod kosync;
mod library;
mod limits;
mod network;
mod next_book;
mod offline;
mod pages;
mod pdf;
mod positions;
mod series;
mod sessions;
mod stack;
mod tls;
