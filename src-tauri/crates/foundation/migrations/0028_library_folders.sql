-- Folders on this computer whose books are part of the library (see carrel-catalog's
-- library_folders.rs): every book file under one is imported by reference, kept up to date
-- when it changes, and dropped from the library when it goes. The files are never touched.
CREATE TABLE library_folders (
    id           INTEGER PRIMARY KEY,
    -- The folder as the reader chose it, absolute.
    path         TEXT    NOT NULL UNIQUE CHECK (length(path) > 0),
    added_at_ms  INTEGER NOT NULL,
    -- When a scan last went through the whole folder; NULL until the first one has.
    last_scan_ms INTEGER
);

-- Each book file found under a folder, as it was when last looked at: its size and modification
-- time tell a changed file from an unchanged one without reading it. `book_id` is the book it
-- was imported as; NULL when it could not be imported (`failure` says why) or when its book was
-- removed from the library otherwise, so that a file is tried again only once it changes.
CREATE TABLE library_folder_files (
    folder_id INTEGER NOT NULL REFERENCES library_folders (id) ON DELETE CASCADE,
    path      TEXT    NOT NULL,
    size      INTEGER NOT NULL CHECK (size >= 0),
    mtime_ms  INTEGER NOT NULL,
    book_id   INTEGER REFERENCES books (id) ON DELETE SET NULL,
    failure   TEXT,
    PRIMARY KEY (folder_id, path)
) WITHOUT ROWID;
CREATE INDEX library_folder_files_by_book ON library_folder_files (book_id) WHERE book_id IS NOT NULL;
