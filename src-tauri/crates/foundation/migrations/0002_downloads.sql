-- Books known on this device, the download stack, the executor lease and the per-server
-- request slot. Times are milliseconds since the epoch, from the injected clock.

ALTER TABLE servers ADD COLUMN paused_reason TEXT;

-- A catalog entry the reader browsed, opened or stored, under a local id of our own.
CREATE TABLE books (
    id              INTEGER PRIMARY KEY,
    server_id       INTEGER NOT NULL REFERENCES servers(id) ON DELETE CASCADE,
    catalog_id      TEXT    NOT NULL,
    title           TEXT    NOT NULL,
    authors         TEXT    NOT NULL DEFAULT '',
    format          TEXT    NOT NULL CHECK (format IN ('comic', 'epub', 'pdf', 'other')),
    -- Page streaming: the template with bookmark-moving parameters removed, the page count,
    -- and whether the server numbers pages from 0 or 1.
    stream_template TEXT,
    page_count      INTEGER CHECK (page_count IS NULL OR page_count >= 0),
    page_base       INTEGER NOT NULL DEFAULT 0 CHECK (page_base IN (0, 1)),
    -- The whole-book acquisition.
    file_url        TEXT,
    file_type       TEXT,
    file_length     INTEGER,
    cover_url       TEXT,
    -- The reader asked to keep it offline.
    pinned          INTEGER NOT NULL DEFAULT 0 CHECK (pinned IN (0, 1)),
    last_opened_ms  INTEGER,
    last_page       INTEGER,
    created_at_ms   INTEGER NOT NULL,
    UNIQUE (server_id, catalog_id)
);
CREATE INDEX books_recent ON books (last_opened_ms DESC) WHERE last_opened_ms IS NOT NULL;

-- The download stack. `seq` orders it: the highest pending seq is the top. A task keeps its
-- id for life; pushing an equal task moves it (a new seq) instead of adding a row.
CREATE TABLE tasks (
    id             INTEGER PRIMARY KEY,
    book_id        INTEGER NOT NULL REFERENCES books(id) ON DELETE CASCADE,
    server_id      INTEGER NOT NULL REFERENCES servers(id) ON DELETE CASCADE,
    kind           TEXT    NOT NULL CHECK (kind IN ('book', 'page', 'file', 'resource')),
    position       INTEGER NOT NULL DEFAULT 0,
    url            TEXT    NOT NULL DEFAULT '',
    prioritary     INTEGER NOT NULL DEFAULT 0 CHECK (prioritary IN (0, 1)),
    seq            INTEGER NOT NULL,
    state          TEXT    NOT NULL DEFAULT 'pending' CHECK (state IN ('pending', 'active', 'done', 'failed')),
    -- The lease epoch under which the task was claimed; an older epoch means a dead holder.
    claimed_epoch  INTEGER,
    attempts       INTEGER NOT NULL DEFAULT 0,
    failure        TEXT,
    -- Bytes stored, once done.
    bytes          INTEGER,
    created_at_ms  INTEGER NOT NULL,
    updated_at_ms  INTEGER NOT NULL,
    UNIQUE (book_id, kind, position, url)
);
-- Pop: top prioritary first, then top. Only pending rows are indexed, so the index is the stack.
CREATE INDEX tasks_stack ON tasks (prioritary DESC, seq DESC) WHERE state = 'pending';
CREATE INDEX tasks_active ON tasks (claimed_epoch) WHERE state = 'active';
CREATE INDEX tasks_book ON tasks (book_id, kind, state);

-- Where an interrupted whole-file download stands, kept apart from the hot stack.
CREATE TABLE file_checkpoints (
    task_id     INTEGER PRIMARY KEY REFERENCES tasks(id) ON DELETE CASCADE,
    offset      INTEGER NOT NULL CHECK (offset >= 0),
    total       INTEGER,
    validator   TEXT,
    updated_at_ms INTEGER NOT NULL
);

-- The one row that says which process consumes the stack.
CREATE TABLE executor_lease (
    id             INTEGER PRIMARY KEY CHECK (id = 1),
    holder         TEXT,
    epoch          INTEGER NOT NULL DEFAULT 0,
    expires_at_ms  INTEGER NOT NULL DEFAULT 0
);
INSERT INTO executor_lease (id, holder, epoch, expires_at_ms) VALUES (1, NULL, 0, 0);

-- One request at a time per server from this data dir, across processes.
CREATE TABLE server_slots (
    server_id      INTEGER PRIMARY KEY REFERENCES servers(id) ON DELETE CASCADE,
    holder         TEXT,
    expires_at_ms  INTEGER NOT NULL DEFAULT 0,
    last_start_ms  INTEGER NOT NULL DEFAULT 0
);

-- Monotonic counter for stack positions.
CREATE TABLE stack_counter (
    id   INTEGER PRIMARY KEY CHECK (id = 1),
    seq  INTEGER NOT NULL
);
INSERT INTO stack_counter (id, seq) VALUES (1, 0);
