-- Bookmarks and highlights (with their notes) the reader makes in EPUB and PDF books (see
-- carrel-reading's annotations.rs). Kept by the book's identity, not its local id or its file:
-- the server, the canonical catalog id and, when the book has one, the match key (see
-- book_identity.rs), so a book removed from the device and downloaded again, or the same book
-- reached under another id, keeps them. They go with their server.
CREATE TABLE annotations (
    id         INTEGER PRIMARY KEY AUTOINCREMENT,
    server_id  INTEGER NOT NULL REFERENCES servers (id) ON DELETE CASCADE,
    book_key   TEXT    NOT NULL,
    match_key  TEXT,
    kind       TEXT    NOT NULL CHECK (kind IN ('bookmark', 'highlight')),
    -- An EPUB CFI (`epubcfi(…)`), or a PDF place as JSON: {"page": 0-based index, "quote"?, "rects"?}.
    locator    TEXT    NOT NULL CHECK (length(locator) BETWEEN 1 AND 2000),
    -- The chapter's label in the book's table of contents, when it names one.
    chapter    TEXT,
    quote      TEXT    CHECK (quote IS NULL OR length(quote) <= 4000),
    note       TEXT    CHECK (note IS NULL OR length(note) <= 10000),
    colour     TEXT    CHECK (colour IN ('yellow', 'green', 'blue', 'pink')),
    created_ms INTEGER NOT NULL,
    updated_ms INTEGER NOT NULL,
    CHECK ((kind = 'highlight') = (colour IS NOT NULL))
);
CREATE INDEX annotations_by_book ON annotations (server_id, book_key);
CREATE INDEX annotations_by_match_key ON annotations (server_id, match_key) WHERE match_key IS NOT NULL;
