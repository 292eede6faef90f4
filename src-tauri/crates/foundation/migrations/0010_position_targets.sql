-- When this device's reading position of a book was last set — by reading here, or taken from
-- the server — in unix milliseconds: a server's position wins only when it is newer. (Opening a
-- book without turning a page does not count as a newer position.)
ALTER TABLE books ADD COLUMN position_ms INTEGER;
UPDATE books SET position_ms = last_opened_ms WHERE last_page IS NOT NULL;
-- Komga's own read-progress address of the book (`…/api/v1/books/<id>/read-progress`), for
-- books from a Komga server; the position goes there when the book has no OPDS progression.
ALTER TABLE books ADD COLUMN read_progress_url TEXT;
-- EPUB positions are sent too: the CFI goes with the fraction (`progression`).
ALTER TABLE position_outbox ADD COLUMN cfi TEXT;
