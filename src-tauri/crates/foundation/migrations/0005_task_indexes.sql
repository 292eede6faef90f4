-- Listing tasks by state (the downloads page: the active task, failed books) and deleting a
-- server's tasks without scanning the table.
CREATE INDEX tasks_state_recent ON tasks (state, updated_at_ms DESC);
CREATE INDEX tasks_server ON tasks (server_id);
