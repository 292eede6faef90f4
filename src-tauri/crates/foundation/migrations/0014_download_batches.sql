-- "Keep all offline": a series, a feed (with its next pages) or a search kept as one batch.
-- The books keep their own tasks in the stack; a batch only remembers which books it holds, in
-- reading order, so it can show its progress and be paused, resumed, cancelled or moved up.
CREATE TABLE download_batches (
    id            INTEGER PRIMARY KEY,
    server_id     INTEGER NOT NULL REFERENCES servers(id) ON DELETE CASCADE,
    title         TEXT    NOT NULL,
    -- The feed or search results address the batch was made from.
    source_url    TEXT    NOT NULL,
    paused        INTEGER NOT NULL DEFAULT 0 CHECK (paused IN (0, 1)),
    created_at_ms INTEGER NOT NULL
);

CREATE TABLE download_batch_books (
    batch_id INTEGER NOT NULL REFERENCES download_batches(id) ON DELETE CASCADE,
    book_id  INTEGER NOT NULL REFERENCES books(id) ON DELETE CASCADE,
    ord      INTEGER NOT NULL,
    PRIMARY KEY (batch_id, book_id)
);
CREATE INDEX download_batch_books_book ON download_batch_books (book_id);
