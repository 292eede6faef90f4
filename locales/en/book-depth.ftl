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

book-time-left = { $chapter } min left in chapter · { $book } min in book

book-typography-text = Text
book-typography-justify = Justify
book-typography-hyphenate = Hyphenate
book-typography-spacing = Paragraphs
book-typography-spacing-less = Less space between paragraphs
book-typography-spacing-more = More space between paragraphs
book-typography-spacing-original = Book’s
book-typography-spacing-em = { NUMBER($value, maximumFractionDigits: 2) } em
book-typography-default = Use as default
book-typography-default-title = Open books not set otherwise with this text layout
book-typography-made-default = Books you have not set otherwise now open with this text layout
