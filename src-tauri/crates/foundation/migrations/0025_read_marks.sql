-- Books read to their end: finished here (a position saved at the last page, or at 99 % of an
-- EPUB) or marked read by hand; when (unix ms). NULL: not read, or marked unread.
ALTER TABLE books ADD COLUMN finished_ms INTEGER;

-- What a queued position says besides where the reader is: 1 the book was read to its end, 0 it
-- was marked unread (the server forgets its position), NULL a plain position.
ALTER TABLE position_outbox ADD COLUMN finished INTEGER CHECK (finished IN (0, 1));

-- Books already read to their end here before this was kept.
UPDATE books SET finished_ms = coalesce(position_ms, last_opened_ms, created_at_ms)
WHERE format <> 'epub' AND page_count > 0 AND last_page + 1 >= page_count;
UPDATE books SET finished_ms = (SELECT updated_at_ms FROM epub_positions e WHERE e.book_id = books.id)
WHERE format = 'epub'
  AND EXISTS (SELECT 1 FROM epub_positions e WHERE e.book_id = books.id AND e.fraction >= 0.99);
