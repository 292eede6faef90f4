-- One book, one local id on a server: the keys a catalog entry is matched on whichever feed,
-- sort, filter or search it was reached through (see book_identity.rs). Filled, and the
-- duplicates older versions made merged, by book_identity::merge_duplicates when the store opens.
ALTER TABLE books ADD COLUMN identity_key TEXT;
ALTER TABLE books ADD COLUMN content_key TEXT;
CREATE INDEX books_identity ON books (server_id, identity_key);
CREATE INDEX books_content ON books (server_id, content_key) WHERE content_key IS NOT NULL;
