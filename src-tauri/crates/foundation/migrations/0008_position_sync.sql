-- Reading positions sent to the server: where a book's OPDS progression document lives, and
-- the position updates still to send (one row per book; the newest save replaces the row).
ALTER TABLE books ADD COLUMN progression_url TEXT;
-- The server's last page read as its page-stream link said (`pse:lastRead`, in the server's
-- page numbering) and when (`pse:lastReadDate`, unix milliseconds): read-only.
ALTER TABLE books ADD COLUMN pse_last_read INTEGER;
ALTER TABLE books ADD COLUMN pse_last_read_ms INTEGER;

CREATE TABLE position_outbox (
    book_id       INTEGER PRIMARY KEY REFERENCES books (id) ON DELETE CASCADE,
    page          INTEGER,
    progression   REAL,
    updated_at_ms INTEGER NOT NULL,
    attempts      INTEGER NOT NULL DEFAULT 0,
    last_error    TEXT
);
