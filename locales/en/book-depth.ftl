## EPUB reader: search, bookmarks, highlights, notes, footnotes, time left, typography

book-search = Search in the book
book-search-button = Search
book-search-shortcut = Search in the book (Ctrl+F)
book-search-field = Words to find
book-search-results = { $count ->
    [0] No results
    [one] One result
   *[other] { $count } results
}
book-search-position = { $current } of { $count }
book-search-searching = Searching…
book-search-previous = Previous result (Shift+Enter)
book-search-next = Next result (Enter)
book-search-close = Close search (Esc)

book-footnote = Note
book-footnote-close = Close
