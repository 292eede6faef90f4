-- Komga stamps a position with its own clock when Carrel sends it: the stamp Komga gave the
-- position this device sent last (unix milliseconds), so that position coming back is known as
-- this device's own and never taken for another device's newer one.
ALTER TABLE books ADD COLUMN read_progress_echo_ms INTEGER;
-- The executor asks whether the reader pushed something for a server it backs off from.
CREATE INDEX tasks_server_pending ON tasks (server_id, prioritary, seq) WHERE state = 'pending';
