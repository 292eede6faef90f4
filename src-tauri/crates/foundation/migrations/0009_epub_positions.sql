-- Where the reader left each EPUB: an EPUB CFI (exact) and the fraction of the book read
-- (for showing progress). One row per book; a new save replaces it.
CREATE TABLE epub_positions (
    book_id       INTEGER PRIMARY KEY REFERENCES books (id) ON DELETE CASCADE,
    cfi           TEXT    NOT NULL,
    fraction      REAL    NOT NULL,
    updated_at_ms INTEGER NOT NULL
);
