-- A request waiting for a server's slot marks it as wanted, so the holder's next request lets
-- it go first instead of taking the slot again the moment it is free: waiters are seen first.
ALTER TABLE server_slots ADD COLUMN wanted_by TEXT;
ALTER TABLE server_slots ADD COLUMN wanted_at_ms INTEGER NOT NULL DEFAULT 0;
