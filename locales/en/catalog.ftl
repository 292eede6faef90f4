# Browsing a server's catalog, searching, and a book's details.

## Browse: a server's catalog

browse-results-title = Results for “{ $query }”
browse-count =
    { $count ->
        [one] { $count } book
       *[other] { $count } books
    }
browse-count-more = { $count }+ books
browse-keep-all = Keep all offline
    .title = Keep every book listed here on this device, the next pages too
browse-keep-all-queuing = Queuing…
browse-keep-all-queued =
    { $count ->
        [one] Keeping { $count } book of “{ $title }” offline — follow it in Downloads
       *[other] Keeping { $count } books of “{ $title }” offline — follow them in Downloads
    }
browse-keep-all-none = Every book of “{ $title }” is already on this device
browse-keep-all-failed = Couldn’t keep these books offline: { $error }
browse-offline = Offline — showing the library as last seen { $ago }.
browse-retry = Try again
browse-loading = Loading { $title }
browse-auth-title = { $server } wants you to sign in
browse-auth-message = Carrel needs a username and password that this server accepts.
browse-sign-in = Sign in…
browse-certificate-title = { $server }’s certificate is not trusted
browse-certificate-message = Carrel can’t confirm who this server is: its certificate is self-signed or from an authority this computer doesn’t know. If you run this server yourself, you can choose to trust it.
browse-trust = Trust this server…
browse-search-failed = Couldn’t search this server
browse-open-failed = Couldn’t open this part of the catalog
browse-go-back = Go back
browse-no-match-title = No books match “{ $query }”
browse-no-match-message = Try other words, or fewer of them.
browse-empty-title = Nothing here
browse-empty-message = This part of the catalog is empty.
browse-sections = Sections
browse-books = Books
browse-loading-more = Loading more…
browse-more-failed = Couldn’t load more: { $error }
browse-load-more = Load more
browse-crumb-query = “{ $query }”

## Search box

search-box-label = Search { $server }

## Search everywhere

search-title = Search everywhere
search-label = Search every library
search-intro-title = Find a book wherever it is
search-intro-message = Carrel asks every server at once, and finds the books on this device by title, author or series even when no server answers.
search-local-title = On this device
search-count =
    { $count ->
        [one] { $count } book
       *[other] { $count } books
    }
search-count-more =
    { $count ->
        [one] { $count } book or more
       *[other] { $count } books or more
    }
search-looking = Looking…
search-local-none = No book on this device matches “{ $query }”.
search-local-books = Books on this device
search-searching = Searching…
search-no-search = This server’s catalog offers no search.
search-server-auth = This server wants you to sign in.
search-offline = Offline — results kept from { $ago }.
search-server-none = No books match “{ $query }”.
search-server-books = Books on { $server }
search-nothing = Nothing matches “{ $query }” anywhere. Try other words, or fewer of them.

## Book details

details-label = Book details
details-new-window = Open in a new window
details-new-window-failed = Couldn’t open a new window: { $error }
details-close = Close details
details-loading = Loading the book’s details
details-failed = Couldn’t read this book’s details
details-retry-load = Try again
details-read = Read
details-not-read = Not read yet
details-downloaded = Downloaded
details-progress-pages = { $stored } of { $total } pages
details-progress-bytes = { $stored } of { $total }
details-retry = Retry
details-retrying = Retrying…
details-opening = Opening…
details-open-other-app = Open with another app
details-continue = Continue reading
details-start-reading = Read
details-saving = Saving…
details-mark-read = Mark as read
details-mark-unread = Mark as unread
details-mark-series-read = Mark series as read
details-mark-series-unread = Mark series as unread
details-keep = Keep offline
details-keeping = Keeping…
details-remove = Remove from device
details-kept-note = Kept offline for good: it stays on this device until you remove it.
details-cached-note = On this device for now, as one of the books you read last; it goes when newer ones take its place. Keep offline keeps it for good.
details-other-format = Carrel can’t show { $format } books. “Open with another app” downloads it (if it isn’t on this device yet) and opens it in the app this computer uses for such files.
details-about = About this book
details-fact-format = Format
details-format-with-type = { $format } ({ $type })
details-fact-pages = Pages
details-fact-size = Size
details-fact-server = Server
details-fact-last-read = Last read
details-last-read-place = { $place }, { $ago }

## Book tile and its marks

tile-downloaded = Downloaded
tile-read = Read
badge-queued = Queued
badge-failed = Failed
badge-failed-reason = Failed: { $reason }
badge-remote = Remote
badge-stored = On device
badge-downloading = Downloading { $percent }
badge-queued-percent = Queued · { $percent }
badge-reason-unknown = the download failed

## Series read-ahead, in the book details

series-title = Reading “{ $series }”
series-keep-label = Keep on this device
series-keep-none = only the books I keep
series-keep-next =
    { $count ->
        [one] the next unread book
       *[other] the next { $count } unread books
    }
series-remove-label = Books read
series-remove-never = stay on this device
series-remove-once-read = are removed once read
series-remove-day = are removed a day after
series-remove-week = are removed a week after
series-remove-month = are removed a month after
series-here =
    { $total ->
        [one] { $here } of { $total } book of this series on this device.
       *[other] { $here } of { $total } books of this series on this device.
    }
series-here-waiting =
    { $total ->
        [one] { $here } of { $total } book of this series on this device, { $waiting } on the way.
       *[other] { $here } of { $total } books of this series on this device, { $waiting } on the way.
    }
series-note-read-ahead = The next ones download as you read, after the book you are reading.
series-note-server-default = This is the server’s default for the series you read.
series-note-default-ahead =
    { $count ->
        [one] Once you read it, the server’s default keeps the next unread book.
       *[other] Once you read it, the server’s default keeps the next { $count } unread books.
    }

## Numbers, sizes and times, as every screen writes them

format-bytes =
    { $count ->
        [one] { $count } byte
       *[other] { $count } bytes
    }
format-rate = { $size }/s
format-percent = { $percent } %
format-place-chapter = { $percent } · { $chapter }
format-page-of = Page { $page } of { $total }
format-page = Page { $page }
format-eta-seconds = a few seconds left
format-eta-under-minute = less than a minute left
format-eta-minutes = about { $minutes } min left
format-eta-hours = about { $hours } h left
format-eta-hours-minutes = about { $hours } h { $minutes } min left
format-eta-days = about { $days } days left
format-series = { $series } #{ $index }
format-authors = { $first } and { $last }
format-pages =
    { $count ->
        [one] { $count } page
       *[other] { $count } pages
    }
format-name-comic = Comic
format-name-book = Book
format-ago-now = just now
format-ago-date = on { $date }

## Errors without a message of their own

error-unknown = something went wrong inside Carrel

## Books on this device: sorting and filtering

on-device-count-filtered = { $shown } of { $total }
on-device-filter-label = Filter the books on this device
on-device-filter-placeholder = Title, author or series
on-device-sort-label = Sort by
on-device-sort-title = Title
on-device-sort-series = Series and number
on-device-sort-author = Author
on-device-sort-added = Date added
on-device-sort-last-read = Last read
on-device-order-ascending = Ascending
on-device-order-descending = Descending
on-device-order-switch = Reverse the order
on-device-format-label = Format
on-device-format-all = All formats
on-device-format-comic = Comics
on-device-format-epub = EPUB
on-device-format-pdf = PDF
on-device-read-label = Reading
on-device-read-all = All
on-device-read-unread = Unread
on-device-read-in-progress = In progress
on-device-read-read = Read
on-device-source-label = Source
on-device-source-all = All sources
on-device-source-device = This device
on-device-group-series = Group by series
on-device-no-series = No series
on-device-no-match-title = No book matches
on-device-no-match-message = No book on this device matches these filters.
on-device-clear-filters = Clear the filters

## A feed's facets (the server's orders and filters)

browse-facet-group = View
browse-facet-count = { $title } ({ $count })
browse-facet-none = Choose…
