-- One book, one local id (see book_identity.rs): the address of what is downloaded, used to
-- recognise a book reached through another view, and whether a row was checked by those rules
-- (books remembered before them are merged once, then marked).
ALTER TABLE books ADD COLUMN match_key TEXT;
ALTER TABLE books ADD COLUMN identity_v INTEGER NOT NULL DEFAULT 0;
CREATE INDEX books_match_key ON books (server_id, match_key) WHERE match_key IS NOT NULL;
CREATE INDEX books_identity_unchecked ON books (id) WHERE identity_v = 0;
