-- Reading windows per series: "keep the next N unread of this series on the device".
CREATE TABLE series_windows (
    server_id         INTEGER NOT NULL REFERENCES servers (id) ON DELETE CASCADE,
    -- The series as the server names it (book_meta.series).
    series            TEXT    NOT NULL,
    keep_next         INTEGER NOT NULL CHECK (keep_next BETWEEN 1 AND 50),
    -- Finished books the window brought are removed this many days after they were finished.
    remove_after_days INTEGER CHECK (remove_after_days IS NULL OR remove_after_days BETWEEN 0 AND 3650),
    PRIMARY KEY (server_id, series)
);

-- Books a window queued (and pinned so "books kept" leaves them be): only these are unpinned and
-- removed once read; a book the reader pinned themselves is never in here.
CREATE TABLE series_window_books (
    book_id     INTEGER PRIMARY KEY REFERENCES books (id) ON DELETE CASCADE,
    -- When the reader finished it here (unix ms); NULL while unread.
    finished_ms INTEGER
);

CREATE INDEX book_meta_series ON book_meta (series) WHERE series IS NOT NULL;
