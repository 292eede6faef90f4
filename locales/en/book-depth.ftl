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
book-search-page = Page { $page }

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

book-bookmark = Bookmark
book-bookmark-shortcut = Bookmark this place (Ctrl+D)
book-bookmark-added = Bookmark added
book-bookmark-removed = Bookmark removed
book-annotations = Bookmarks and highlights
book-annotations-button = Notes
book-annotations-none = No bookmarks or highlights yet. Select text to highlight it (from the keyboard: Shift+arrows, then H).
book-annotation-edit = Edit
book-annotation-delete = Delete
book-annotation-save = Save
book-annotation-cancel = Cancel
book-annotation-page = Page { $page }
book-highlight-new = Highlight
book-highlight-edit = Edit highlight
book-highlight-colour = Colour
book-highlight-yellow = Yellow
book-highlight-green = Green
book-highlight-blue = Blue
book-highlight-pink = Pink
book-highlight-add-note = Add a note
book-highlight-note = Note
book-highlight-note-placeholder = Your note (optional)
book-highlight-pick-colour = Pick a colour to highlight
book-export-markdown = Export Markdown
book-export-json = Export JSON
book-export-title = Exported notes
book-export-copy = Copy
book-export-copied = Copied
book-export-copy-failed = Couldn’t copy. Select the text and copy it yourself.
book-export-download = Save as file
book-export-close = Close
