-- A book's tasks by kind, state and position: the next page missing after the one just stored
-- and whether a page is stored are found in the index, without reading every page of the book.
DROP INDEX tasks_book;
CREATE INDEX tasks_book ON tasks (book_id, kind, state, position);
