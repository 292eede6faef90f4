//! Rows read from the store as every module of the core reads them: the statement prepared once
//! (cached by the connection), each row mapped, any SQL failure the store's error: a list, one
//! row if there is any, the one value a query answers. A change made by one statement in a write
//! of its own is [`Store::execute`].
//!
//! [`Store::execute`]: crate::store::Store::execute

use rusqlite::{types::FromSql, OptionalExtension, Params, Row};

use crate::store::{Store, StoreError};

/// Every row `sql` answers for `params`, in its order, each read by `map`, gathered in a list
/// (or any collection: a map from rows of pairs).
pub fn all<T, C: FromIterator<T>>(
    store: &Store,
    sql: &str,
    params: impl Params,
    map: impl FnMut(&Row<'_>) -> rusqlite::Result<T>,
) -> Result<C, StoreError> {
    store
        .read(|c| {
            let mut stmt = c.prepare_cached(sql)?;
            let rows = stmt.query_map(params, map)?;
            rows.collect::<rusqlite::Result<C>>()
        })
        .map_err(|e| store.sql_error(e))
}

/// The first row `sql` answers for `params`, read by `map`; `None` when it answers none.
pub fn optional<T>(
    store: &Store,
    sql: &str,
    params: impl Params,
    map: impl FnOnce(&Row<'_>) -> rusqlite::Result<T>,
) -> Result<Option<T>, StoreError> {
    store
        .read(|c| c.prepare_cached(sql)?.query_row(params, map).optional())
        .map_err(|e| store.sql_error(e))
}

/// The one value `sql` answers for `params` (the first column of its first row: a count, an
/// `EXISTS`); an error when it answers no row.
pub fn value<T: FromSql>(store: &Store, sql: &str, params: impl Params) -> Result<T, StoreError> {
    optional(store, sql, params, |r| r.get(0))?
        .ok_or_else(|| store.sql_error(rusqlite::Error::QueryReturnedNoRows))
}
