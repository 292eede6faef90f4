-- A server's secret may be an API key (Komga's, sent as `X-API-Key`) rather than a password
-- or a bearer token. The key itself lives in the secret store like a password.
ALTER TABLE servers ADD COLUMN api_key INTEGER NOT NULL DEFAULT 0 CHECK (api_key IN (0, 1));
