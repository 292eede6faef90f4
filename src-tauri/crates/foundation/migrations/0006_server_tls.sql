-- Whether Carrel accepts a server's certificate even when no authority vouches for it (a
-- self-signed certificate on a server the reader runs). Off until the reader turns it on for
-- that one server.
ALTER TABLE servers ADD COLUMN trust_self_signed INTEGER NOT NULL DEFAULT 0 CHECK (trust_self_signed IN (0, 1));
