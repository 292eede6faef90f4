-- Library servers the reader has added, and app-wide settings.
-- Secrets are never stored here: see credentials.rs.
CREATE TABLE servers (
    id              INTEGER PRIMARY KEY,
    name            TEXT    NOT NULL UNIQUE CHECK (length(trim(name)) > 0),
    url             TEXT    NOT NULL CHECK (url LIKE 'http://%' OR url LIKE 'https://%'),
    username        TEXT,
    min_interval_ms INTEGER NOT NULL DEFAULT 0 CHECK (min_interval_ms >= 0),
    created_at_ms   INTEGER NOT NULL
);

CREATE TABLE settings (
    key   TEXT PRIMARY KEY,
    value TEXT NOT NULL
);
