-- A server's default reading window: "keep the next N unread books of each series I read".
-- No row: off (the default). A series of the server without a window of its own takes these
-- values the first time one of its books is read (a series_windows row marked as the default's).
CREATE TABLE server_series_defaults (
    server_id         INTEGER PRIMARY KEY REFERENCES servers (id) ON DELETE CASCADE,
    keep_next         INTEGER NOT NULL CHECK (keep_next BETWEEN 1 AND 50),
    remove_after_days INTEGER CHECK (remove_after_days IS NULL OR remove_after_days BETWEEN 0 AND 3650)
);

-- A window the server's default made (1) follows the default: changed with it, ended with it.
-- A window the reader set (0) is the series' own and the default never touches it.
ALTER TABLE series_windows ADD COLUMN from_server_default INTEGER NOT NULL DEFAULT 0
    CHECK (from_server_default IN (0, 1));

-- Series whose window the reader stopped: the server's default does not bring it back. Setting
-- a window for the series again takes it out of here.
CREATE TABLE series_windows_stopped (
    server_id INTEGER NOT NULL REFERENCES servers (id) ON DELETE CASCADE,
    series    TEXT    NOT NULL,
    PRIMARY KEY (server_id, series)
);
