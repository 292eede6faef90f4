-- The chapter the EPUB reader was in when it saved a position (its table of contents' label),
-- for showing where the reader is ("96 % · Chapter 4"); NULL when the book names none or the
-- position came from elsewhere (a server, another device).
ALTER TABLE epub_positions ADD COLUMN chapter TEXT;
