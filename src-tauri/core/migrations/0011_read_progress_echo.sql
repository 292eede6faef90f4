-- Komga stamps a position with its own clock when Carrel sends it: the stamp Komga gave the
-- position this device sent last (unix milliseconds), so that position coming back is known as
-- this device's own and never taken for another device's newer one.
ALTER TABLE books ADD COLUMN read_progress_echo_ms INTEGER;
