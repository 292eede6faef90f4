-- Books from the reader's own files: a source of kind 'device' ("This device") beside the OPDS
-- servers, and where each such book's file is.
--
-- The servers table is rebuilt to relax its address check for the device source (SQLite
-- cannot change a CHECK in place). The migration runner turns foreign keys off around the
-- migrations and checks them before it commits, so dropping the old table deletes no book,
-- task or setting that references a server.
CREATE TABLE servers_new (
    id                INTEGER PRIMARY KEY,
    -- 'opds': a catalog server the reader added; 'device': the one source of the reader's own
    -- files, created when the first file is imported and never listed among the servers.
    kind              TEXT    NOT NULL DEFAULT 'opds' CHECK (kind IN ('opds', 'device')),
    name              TEXT    NOT NULL CHECK (length(trim(name)) > 0),
    url               TEXT    NOT NULL CHECK (
                          (kind = 'opds' AND (url LIKE 'http://%' OR url LIKE 'https://%'))
                          OR (kind = 'device' AND url = 'device:')),
    username          TEXT,
    min_interval_ms   INTEGER NOT NULL DEFAULT 0 CHECK (min_interval_ms >= 0),
    created_at_ms     INTEGER NOT NULL,
    paused_reason     TEXT,
    trust_self_signed INTEGER NOT NULL DEFAULT 0 CHECK (trust_self_signed IN (0, 1)),
    api_key           INTEGER NOT NULL DEFAULT 0 CHECK (api_key IN (0, 1))
);
INSERT INTO servers_new (id, kind, name, url, username, min_interval_ms, created_at_ms,
                         paused_reason, trust_self_signed, api_key)
    SELECT id, 'opds', name, url, username, min_interval_ms, created_at_ms,
           paused_reason, trust_self_signed, api_key
    FROM servers;
DROP TABLE servers;
ALTER TABLE servers_new RENAME TO servers;

-- Server names are unique among servers; the device source's name is its own.
CREATE UNIQUE INDEX servers_name ON servers (name) WHERE kind = 'opds';
-- At most one device source.
CREATE UNIQUE INDEX servers_device ON servers (kind) WHERE kind = 'device';

CREATE TRIGGER servers_high_water AFTER INSERT ON servers BEGIN
    UPDATE id_high_water SET last = max(last, NEW.id) WHERE name = 'servers';
END;

-- Where the file of a book imported from the device is, and what it was when last seen, so a
-- file moved, changed or gone is noticed.
CREATE TABLE local_files (
    book_id     INTEGER PRIMARY KEY REFERENCES books (id) ON DELETE CASCADE,
    -- The file's absolute path as imported (or last re-linked).
    path        TEXT    NOT NULL,
    -- 'reference': the book's file is a link to `path`; 'copy': a copy kept in the data dir.
    mode        TEXT    NOT NULL CHECK (mode IN ('reference', 'copy')),
    size        INTEGER NOT NULL CHECK (size >= 0),
    mtime_ms    INTEGER,
    -- The content's fingerprint: its size and a digest of its first and last bytes.
    fingerprint TEXT    NOT NULL,
    -- 'present': as imported; 'missing': nothing at `path`; 'changed': other content there.
    state       TEXT    NOT NULL DEFAULT 'present' CHECK (state IN ('present', 'missing', 'changed')),
    checked_at_ms INTEGER NOT NULL
);
CREATE INDEX local_files_path ON local_files (path);
CREATE INDEX local_files_fingerprint ON local_files (fingerprint);
