-- Where a book's series came from: its own catalog entry ('entry'), or the feed of the series
-- on a server that lists a series' books there without naming the series in each entry
-- ('feed': Codex, Komga's OPDS 1.2). An entry that names a series replaces what a feed said;
-- an entry that names none leaves a feed's series be.
ALTER TABLE book_meta ADD COLUMN series_source TEXT NOT NULL DEFAULT 'entry'
    CHECK (series_source IN ('entry', 'feed'));
-- The book's place in its series feed (page by page), which orders the series where the
-- entries give no numbers; NULL when the feed was sorted otherwise.
ALTER TABLE book_meta ADD COLUMN series_order REAL;
