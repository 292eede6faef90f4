//! Whether a book is read to its end: the books' `finished_ms` column, which
//! [`crate::position_sync`] keeps (a position saved at the end, or a mark), read here for
//! anything that needs to know.

use rusqlite::OptionalExtension;

use carrel_foundation::store::{Store, StoreError};

/// Whether a book is read to its end (finished here, or marked read); `None` for a book not on
/// the list.
pub fn is_finished(store: &Store, book_id: i64) -> std::result::Result<Option<bool>, StoreError> {
    store
        .read(|c| {
            c.prepare_cached("SELECT finished_ms IS NOT NULL FROM books WHERE id = ?1")?
                .query_row([book_id], |r| r.get(0))
                .optional()
        })
        .map_err(|e| store.sql_error(e))
}
