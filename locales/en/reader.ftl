# The comic, EPUB and PDF readers.

## Both readers: the top bar

reader-back = Library
reader-back-title = Back to the library (Esc)

## Page reader: comics and PDFs

reader-page = Page { $page }
reader-page-of = Page { $page } of { $total }
reader-pages-of = Pages { $first }–{ $last } of { $total }
reader-slider = Page
reader-retry = Retry
reader-page-loading = Loading page { $page }…
reader-page-failed-title = This page can’t be shown
reader-page-failed-message = Page { $page } of this PDF could not be drawn ({ $reason }).
reader-page-offline-title = Offline — this page isn’t downloaded
reader-page-offline-message = The server can’t be reached and page { $page } is not on this device yet.
reader-strip-offline = Page { $page } isn’t downloaded and the server can’t be reached.
reader-contents = Contents
reader-contents-title = The book’s contents
reader-continued-elsewhere = Continued from page { $page }, where you left off on another device
reader-pdf-only-in-app = PDFs can only be read in the app
reader-pdf-unreadable = This file could not be read as a PDF ({ $reason })
reader-pdf-empty = This PDF has no pages
reader-open-failed = The book could not be opened ({ $status })
reader-open-failed-because = The book could not be opened ({ $status }: { $reason })
reader-not-on-device = This book is not on the device and the server cannot be reached

## EPUB reader

epub-contents = Contents
epub-text-settings = Text settings
epub-layout = Layout
epub-flow-pages = Pages
epub-flow-scroll = Scroll
epub-theme = Theme
epub-theme-light = Light
epub-theme-sepia = Sepia
epub-theme-dark = Dark
epub-font = Font
epub-font-original = Book’s font
epub-font-serif = Serif
epub-font-sans-serif = Sans serif
epub-font-monospace = Monospace
epub-font-installed = Installed font
epub-font-installed-none = None (the choice above)
epub-size = Size
epub-line-height = Line height
epub-margins = Margins
epub-percent = { $percent }%
epub-error-title = Couldn’t open this book
epub-opening = Opening…
epub-previous = Previous (←)
epub-next = Next (→)
epub-position = Position in the book
epub-goto = Go to a place in the book
epub-goto-percent = Go to a place in the book, in percent
epub-untitled = Untitled
epub-continued-elsewhere = Continued at { $percent }%, where you left off on another device
epub-only-in-app = The book can only be read in the app.
epub-not-on-device = This book is not on the device and the server cannot be reached.
epub-open-failed-status = The book could not be opened ({ $status }).
