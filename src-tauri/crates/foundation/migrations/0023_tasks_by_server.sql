-- Every task's server was indexed for the one statement that reads all of a server's tasks
-- (the tasks' addresses rewritten when the server moves) and for removing a server, both rare;
-- the index cost a page of the log at every task pushed. The server's pending tasks keep their
-- own index (tasks_server_pending); the rare statements read the table.
DROP INDEX tasks_server;
