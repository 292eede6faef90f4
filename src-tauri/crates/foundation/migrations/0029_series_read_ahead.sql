-- A series' read-ahead ("keep the next N unread of this series on the device") under its own
-- name. SQLite's RENAME carries the rows, the primary keys and the references along; no index or
-- trigger is named after these tables.
ALTER TABLE series_windows RENAME TO series_read_ahead;
ALTER TABLE series_window_books RENAME TO series_read_ahead_books;
ALTER TABLE series_windows_stopped RENAME TO series_read_ahead_stopped;
