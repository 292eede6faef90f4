-- The tasks listed by state and time are the failed ones (the Downloads page) and the active
-- ones (served by tasks_active). An index over every state and its time was rewritten at each
-- claim, hold and completion of every page; one over failed tasks alone is written only when a
-- task fails, is retried or is dropped.
DROP INDEX tasks_state_recent;
CREATE INDEX tasks_failed_recent ON tasks (updated_at_ms DESC) WHERE state = 'failed';
