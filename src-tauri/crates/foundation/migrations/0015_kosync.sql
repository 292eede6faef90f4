-- KOReader sync (KOSync): reading positions shared with KOReader devices and the servers that
-- speak its protocol. A book's position is queued here whenever it is saved; the sender reads
-- the book's current position when it sends, so one row per book is enough.
CREATE TABLE kosync_outbox (
    book_id       INTEGER PRIMARY KEY REFERENCES books(id) ON DELETE CASCADE,
    updated_at_ms INTEGER NOT NULL,
    attempts      INTEGER NOT NULL DEFAULT 0,
    last_error    TEXT
);

-- A stored file's KOSync document id (KOReader's partial MD5 of the file), kept with the size
-- it was computed for so a replaced file is hashed again.
CREATE TABLE kosync_documents (
    book_id   INTEGER PRIMARY KEY REFERENCES books(id) ON DELETE CASCADE,
    document  TEXT    NOT NULL,
    file_len  INTEGER NOT NULL
);
