-- Offline copies of catalog documents, and what a catalog says about a book beyond what is
-- needed to download it. Times are milliseconds since the epoch, from the injected clock.

-- The last good copy of every feed (and OpenSearch description) fetched from a server, under
-- the address it was asked for. Shown, marked offline, when the server cannot be reached.
CREATE TABLE catalog_cache (
    server_id     INTEGER NOT NULL REFERENCES servers(id) ON DELETE CASCADE,
    url           TEXT    NOT NULL,
    -- Where the document was found after redirects: its relative links resolve against it.
    final_url     TEXT    NOT NULL,
    body          BLOB    NOT NULL,
    fetched_at_ms INTEGER NOT NULL,
    PRIMARY KEY (server_id, url)
);
CREATE INDEX catalog_cache_age ON catalog_cache (server_id, fetched_at_ms);

-- Descriptive fields of a book, as its catalog entry last gave them.
CREATE TABLE book_meta (
    book_id      INTEGER PRIMARY KEY REFERENCES books(id) ON DELETE CASCADE,
    -- A JSON array of names (names may contain commas).
    authors      TEXT    NOT NULL DEFAULT '[]',
    series       TEXT,
    series_index REAL,
    summary      TEXT
);
