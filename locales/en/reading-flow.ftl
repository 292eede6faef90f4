# The comic and PDF reader, its tools and image adjustments; the card at a book's end or start
# (both readers); the menu of a book in the grid.

## The comic and PDF reader

comic-error-title = This book can’t be opened
comic-retry = Try again
comic-downloads-paused = Downloads are paused: this book opens once its file is here.
comic-downloading = Downloading the book…
comic-downloading-percent = Downloading the book… { $percent } %
comic-opening = Opening…
comic-no-pages-title = No pages to show
comic-no-pages-message = This book is not read page by page.

## Its tools

comic-layout = Layout
comic-layout-single = Single
comic-layout-single-title = One page at a time
comic-layout-spread = Two pages
comic-layout-spread-title = Two facing pages, the cover alone
comic-layout-webtoon = Scroll
comic-layout-webtoon-title = All pages in one vertical strip (webtoon)
comic-offset = Shift pages
comic-offset-title = Shift pages by one: page 2 stands alone, then 3 and 4 face each other
comic-fit = Fit
comic-fit-width = Width
comic-fit-width-title = Fit to width
comic-fit-height = Height
comic-fit-height-title = Fit to height
comic-fit-screen = Screen
comic-fit-screen-title = Fit the whole page
comic-fit-original = Original
comic-fit-original-title = Original size
comic-zoom = Zoom
comic-zoom-out = Zoom out
comic-zoom-out-title = Zoom out (−)
comic-zoom-reset = Zoom { $zoom }: back to the fit
comic-zoom-reset-title = Back to the fit (0)
comic-zoom-in = Zoom in
comic-zoom-in-title = Zoom in (+)
comic-direction = Reading direction
comic-direction-ltr = L→R
comic-direction-ltr-title = Left to right
comic-direction-rtl = R→L
comic-direction-rtl-title = Right to left (manga)
comic-make-default = Make default
comic-make-default-title = Open books not set otherwise with these settings
comic-made-default = Books you have not set otherwise now open with these settings
comic-fullscreen = Full screen
comic-fullscreen-title = Full screen (F)

## Image adjustments

comic-adjust = Adjust
comic-adjust-title = Brightness, contrast and warmth of the pages
comic-adjust-panel = Image adjustments
comic-adjust-brightness = Brightness
comic-adjust-contrast = Contrast
comic-adjust-warmth = Warmth
comic-adjust-percent = { $value } %
comic-adjust-reset = Reset

## The card at a book's end or start

end-card-finished = You finished { $title }
end-card-start-of = The start of { $title }
end-card-next = Next:
end-card-next-in = Next in { $series }:
end-card-before = Before it:
end-card-before-in = Before it in { $series }:
end-card-number = Number { $number }
end-card-on-device = On this device
end-card-not-on-device = Not on this device yet
end-card-download-failed = Download failed: { $reason }
end-card-read = Read { $title }
end-card-back = Back
end-card-series-last = That was the last book of { $series }
end-card-series-first = This is the first book of { $series }
end-card-stay-page-one = Back to page 1
end-card-stay-start = Back to the start

## The menu of a book in the grid

tile-menu = Actions for { $title }
tile-menu-mark-read = Mark as read
tile-menu-mark-unread = Mark as unread
tile-menu-mark-series-read = Mark series as read
tile-menu-mark-series-unread = Mark series as unread
tile-menu-details = Show details
tile-menu-failed = { $title } could not be marked: { $reason }
tile-menu-series-failed = The series of { $title } could not be marked: { $reason }
