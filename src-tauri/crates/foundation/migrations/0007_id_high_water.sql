-- Server and book ids are never given twice, even after the newest ones were deleted: files,
-- covers and keyring entries named after an id can never be mistaken for a newcomer's.
CREATE TABLE id_high_water (
    name TEXT PRIMARY KEY CHECK (name IN ('servers', 'books')),
    last INTEGER NOT NULL
);
INSERT INTO id_high_water (name, last) VALUES
    ('servers', (SELECT coalesce(max(id), 0) FROM servers)),
    ('books', (SELECT coalesce(max(id), 0) FROM books));

CREATE TRIGGER servers_high_water AFTER INSERT ON servers BEGIN
    UPDATE id_high_water SET last = max(last, NEW.id) WHERE name = 'servers';
END;
CREATE TRIGGER books_high_water AFTER INSERT ON books BEGIN
    UPDATE id_high_water SET last = max(last, NEW.id) WHERE name = 'books';
END;
