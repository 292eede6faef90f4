# Carrel's own screens: start-up, the sidebar, Home, servers, downloads, settings.

## Shared by several screens

app-try-again = Try again
app-trying = Trying…

## The window while it starts

app-opening = Opening your library…

## Sidebar

sidebar-label = Sidebar
sidebar-main = Main
sidebar-home = Home
sidebar-search = Search everywhere
sidebar-servers = Servers
# A server's downloads wait; $reason is what the server said.
sidebar-server-paused = Downloads paused: { $reason }
sidebar-server-offline = Offline
sidebar-server-offline-title = Offline: showing the library as last seen
sidebar-edit-server = Edit { $name }
sidebar-remove-server = Remove { $name }
sidebar-no-servers = No servers yet.
sidebar-add-server = Add server
sidebar-device = On this device
sidebar-on-device = Books on this device
sidebar-downloads = Downloads
# Parts of the downloads' summary read by screen readers, joined by commas.
sidebar-downloads-waiting =
    { $count ->
        [one] { $count } book waiting
       *[other] { $count } books waiting
    }
sidebar-downloads-failed = { $count } failed
sidebar-downloads-paused = paused
sidebar-current-download = Current download
sidebar-settings = Settings
sidebar-version = Carrel { $version }

## Start-up error (the library cannot be opened)

startup-error-title = Carrel can't open your library
startup-error-data-folder = Data folder
startup-error-no-folder = Carrel could not find a folder to keep its data in.
startup-error-note = Nothing was changed: your servers, settings and books are as they were. Once the cause is fixed, start Carrel again.
startup-error-copy = Copy details
startup-error-copied = Copied
startup-error-copy-failed = Could not copy; select the text above instead.
# Lines of the details copied for a bug report.
startup-error-details-error = Error ({ $kind }): { $message }
startup-error-details-folder = Data folder: { $folder }
startup-error-details-unknown = unknown

## Library error (the list of servers could not be read)

library-error-title = Carrel couldn’t read your servers

## Empty library (no server yet)

empty-library-title = No library yet — add a server
empty-library-lead = Carrel reads comics and ebooks from the OPDS catalog of a library server you run or use, such as Komga, Kavita, Codex, Calibre-Web or Stump.
empty-library-add = Add server
empty-library-aside = You’ll need the catalog’s address, and a username and password if the server asks for them.
empty-library-own-files = Or read your own files: comics (CBZ, CBR, CB7, CBT), EPUB and PDF.
empty-library-open-files = Open files…
empty-library-add-folder = Add a library folder…
empty-library-folder-failed = Couldn’t add the folder: { $reason }

## Toasts, confirmations, breadcrumbs

toast-dismiss = Dismiss
confirm-cancel = Cancel
confirm-removing = Removing…
breadcrumbs-label = Breadcrumbs
# Read before a search's words in the path of feeds: "Search for dragons".
breadcrumbs-search-for = Search for

## On this device

on-device-title = On this device
on-device-count =
    { $count ->
        [one] { $count } book
       *[other] { $count } books
    }
on-device-loading = Loading the books on this device
on-device-error = Couldn’t list the books on this device
on-device-list = Books on this device
on-device-empty-title = Nothing on this device yet
on-device-empty-message = Open a book’s details and choose Keep offline to read it without the server. The books you read last are kept too.
# Under a book partly stored.
on-device-pages = { $stored } of { $total } pages

## Home

home-title = Home
home-credentials-notice = No system keyring answered, so saved passwords are kept in a file in Carrel’s data folder that only your account can read.
home-credentials-dismiss = Don’t show again
home-continue-title = Continue reading
home-continue-loading = Loading the books you are reading
home-continue-error = Couldn’t read the books you are reading
home-continue-empty = Books you open appear here, the most recent first.
home-servers-title = Servers
home-add-server-text = Add a library server, such as Komga, Kavita or Calibre-Web, to browse its catalog and download from it.
home-add-server = Add server
home-servers-count =
    { $count ->
        [one] { $count } server
       *[other] { $count } servers
    }

## A server's card on Home

server-card-paused = Downloads paused: { $reason }
server-card-offline = Offline when last browsed
server-card-url = Catalog URL
server-card-sign-in = Sign-in
server-card-signs-in-as = Signs in as { $user }
server-card-no-sign-in = No sign-in
# $date is the day the server was added.
server-card-added = Added { $date }
server-card-edit = Edit…
server-card-edit-label = Edit { $name }
server-card-remove = Remove…
server-card-remove-label = Remove { $name }

## Sign-in dialog (a server asked for a username and password)

credentials-title = Sign in to { $name }
credentials-description = The server asked for a username and password.
credentials-username = Username
credentials-username-missing = Enter your username.
credentials-password = Password
credentials-password-missing = Enter your password.
credentials-kept-in-file = The password is kept in a file in Carrel’s data folder that only your account can read.
credentials-kept-in-keyring = The password is kept in your system’s keyring.
credentials-cancel = Cancel
credentials-sign-in = Sign in
credentials-signing-in = Signing in…

## KOReader sync (in Settings)

kosync-title = KOReader sync
kosync-hint = Where you stopped in books kept on this device as files (EPUB, PDF, CBZ…) follows you to and from KOReader devices, through a KOReader sync server — KOReader’s own, your Komga or Kavita, or one you run.
kosync-loading = Loading…
kosync-account = Syncing with { $url } as { $user }.
kosync-sign-out = Sign out
kosync-server = Sync server
kosync-username = User name
kosync-password = Password
kosync-missing = Fill in the server’s address, your user name and your password.
kosync-sign-in = Sign in
kosync-signing-in = Signing in…

## Batches kept offline together (on the Downloads page)

batch-title = Kept offline together
batch-stored =
    { $stored } of { $count ->
        [one] { $count } book
       *[other] { $count } books
    } on this device
batch-done = done
batch-paused = paused
batch-waiting = { $count } waiting
batch-failed = { $count } failed
batch-dropped = { $count } cancelled or removed
batch-progress = { $title }: books on this device
batch-progress-value = { $stored } of { $count } books
batch-resume = Resume
batch-pause = Pause
batch-top = Download these first
batch-top-label = Download { $title } first
batch-forget = Forget this batch (the books stay on the device)
batch-forget-label = Forget the batch { $title }
batch-cancel = Cancel (the books already here stay)
batch-cancel-label = Cancel { $title }
# $reason is why it failed.
batch-resume-failed = Couldn’t resume “{ $title }”: { $reason }
batch-pause-failed = Couldn’t pause “{ $title }”: { $reason }
batch-top-failed = Couldn’t move “{ $title }” up: { $reason }
batch-cancel-failed = Couldn’t cancel “{ $title }”: { $reason }

## Add server and Edit server: the checks of the form

server-form-url-missing = Enter the server's address, or its OPDS catalog's.
# $example is an address such as https://books.example.org/opds
server-form-url-scheme = Start the address with https:// or http://, as in { $example }.
server-form-url-invalid = This is not a web address; it should look like { $example }.
# $protocol is the start of the address typed, such as "ftp:".
server-form-url-protocol = “{ $protocol }” addresses are not supported; use http:// or https://.
server-form-url-no-host = The address has no server name.
server-form-url-credentials = Put the username and password in their own fields, not in the address.
server-form-name-missing = Give the server a name.
server-form-name-too-long = The name is too long (at most { $max } characters).
server-form-interval-missing = Enter a number of milliseconds (0 for no pause).
server-form-interval-invalid = Enter a whole number of milliseconds, such as 500.
server-form-interval-too-long = The pause can be at most { $max } ms (one minute).
# Choices of "Keep the next unread books of each series I read".
server-form-series-off = Off
server-form-series-next =
    { $count ->
        [one] The next unread book
       *[other] The next { $count } unread books
    }
# Choices of "Finished books …".
server-form-series-stay = stay on this device
server-form-series-remove-read = are removed once read
server-form-series-remove-after =
    { $days ->
        [1] are removed a day after
        [7] are removed a week after
        [30] are removed a month after
       *[other] are removed { $days } days after
    }

## Add server and Edit server: the dialog

server-dialog-add-title = Add a server
server-dialog-add-description = Connect Carrel to the OPDS catalog of a library server you use.
server-dialog-edit-title = Edit “{ $name }”
server-dialog-edit-description = Change how Carrel reaches this server. Its books stay as they are.
server-dialog-name = Name
server-dialog-name-hint = Leave it empty to use the catalog’s own name.
server-dialog-name-placeholder = Home library
server-dialog-url = Catalog URL
server-dialog-url-hint = The server’s address or its OPDS feed: Carrel finds the catalog.
server-dialog-already-saved = You already have this server: { $name }.
# $description says what was found at the address.
server-dialog-found = Found { $description }
server-dialog-use-catalog = Use { $url }
server-dialog-sign-in = Sign-in
server-dialog-sign-in-optional = (only if the server asks for one)
server-dialog-username = Username
server-dialog-password = Password
server-dialog-password-placeholder = Unchanged
server-dialog-password-in-file = No system keyring is available, so it is kept in a file in Carrel’s data folder that only your account can read.
server-dialog-password-in-keyring = Kept in your system’s keyring, never in Carrel’s library file.
# $where is one of the two sentences above.
server-dialog-password-unchanged = Leave empty to keep the saved password. { $where }
server-dialog-api-key = The password is an API key (Komga)
server-dialog-connection = Connection
server-dialog-interval = Pause between requests
server-dialog-interval-hint = Milliseconds Carrel waits between two requests to this server, from 0 (no pause) to { $max }. A small or busy server may like a few hundred.
server-dialog-interval-unit = ms
server-dialog-trust = Trust this server’s certificate even if it is self-signed
server-dialog-trust-warning = Only for a server you run yourself: Carrel will not check who it is talking to.
server-dialog-series = Series
server-dialog-series-next = Keep the next unread books of each series I read
server-dialog-series-next-hint = Downloaded while you read a series, after the book you are reading. A series you set in a book’s details, or stopped there, keeps what you chose.
server-dialog-series-finished = Finished books
server-dialog-series-not-saved = The server was saved, but not its series setting: { $reason }
server-dialog-cancel = Cancel
server-dialog-save = Save
server-dialog-saving = Saving…

## Downloads

downloads-title = Downloads
downloads-resume-all = Resume all
downloads-pause-all = Pause all
# $reason is why it failed.
downloads-resume-all-failed = Couldn’t resume the downloads: { $reason }
downloads-pause-all-failed = Couldn’t pause the downloads: { $reason }
downloads-allow-failed = Couldn’t allow downloads: { $reason }
downloads-open-failed = Couldn’t open the book: { $reason }
downloads-error = Couldn’t follow the downloads
downloads-loading = Loading the downloads
# What the downloads are doing, beside the title.
downloads-paused = Paused
downloads-downloading = Downloading
downloads-waiting = Waiting
downloads-nothing = Nothing to download
downloads-retry-at = Trying again at { $time }
downloads-retry-soon = Trying again soon
# $when is one of the two texts above, $reason what went wrong.
downloads-retry-why = { $when } ({ $reason })
downloads-stopped = Stopped
downloads-stopped-why = Stopped: { $reason }
downloads-standby = Another Carrel is downloading
# $holder names the other program downloading.
downloads-standby-holder = Another Carrel is downloading ({ $holder })
downloads-paused-notice = Downloads are paused, here and in every other Carrel, until you resume them.
# $hold says why, such as "this connection is metered".
downloads-metered = Downloads wait: { $hold }.
downloads-metered-never = Settings say never to download on a metered connection.
downloads-allow-metered = Download anyway
# $reason is a full sentence saying what went wrong.
downloads-backoff = { $reason } Carrel will try again by itself.
downloads-sign-in-needed = Downloads from { $name } wait for a sign-in ({ $reason }).
downloads-sign-in = Sign in…
downloads-now = Now downloading
# What the request under way brings.
downloads-fetching-pages = Pages
downloads-fetching-file = The book’s file
downloads-fetching-extras = Cover and extras
downloads-fetching-ready = Getting ready
downloads-file-stored = File stored
downloads-pages-stored = { $stored } of { $total } pages stored
# $done and $total are sizes, such as "300 kB of 1.2 MB".
downloads-bytes-of = { $done } of { $total }
downloads-book-label = { $title } downloaded
# $what is one of the texts above ("Pages", "The book’s file"…).
downloads-part-label = { $what } of { $title }
# $percent is a percentage, such as "7 %".
downloads-book-percent = { $percent } of the book
downloads-cancel = Cancel (what is stored stays)
downloads-cancel-label = Cancel { $title }
downloads-cancel-failed = Couldn’t cancel “{ $title }”: { $reason }
downloads-up-next = Up next
downloads-queue = Queue
downloads-queue-count =
    { $count ->
        [one] { $count } book
       *[other] { $count } books
    }
downloads-empty = Nothing waiting. Books you keep offline or open are downloaded here, one request at a time.
downloads-empty-after-active = Nothing else waiting. Books you keep offline or open are downloaded here, one request at a time.
downloads-priority = Priority
downloads-top = Download next
downloads-top-label = Download { $title } next
downloads-top-failed = Couldn’t move “{ $title }”: { $reason }
downloads-failed = Failed
downloads-retry = Retry
downloads-retry-failed = Couldn’t retry “{ $title }”: { $reason }
downloads-give-up = Give up (what is stored stays)
downloads-give-up-label = Give up on { $title }
downloads-done = Done
downloads-clear = Clear
downloads-clear-failed = Couldn’t clear the list: { $reason }
# $ago says when, such as "2 min ago".
downloads-stored-ago = Stored { $ago }
downloads-open = Open
downloads-open-label = Open { $title }

## Settings

settings-title = Settings
settings-saving = Saving…
# $reason is a sentence saying why.
settings-save-error = Couldn’t save the change: { $reason }
settings-error = Couldn’t read your settings
settings-loading = Loading your settings
settings-reading = Reading offline
settings-books-kept = Recently read books kept on this device
settings-books-kept-hint = The books you opened last are downloaded in the background and kept, so they are there without the server. Books you keep offline yourself are kept as well, and do not count.
# Read by screen readers for the slider's value.
settings-books-kept-value =
    { $count ->
        [0] none
        [one] { $count } book
       *[other] { $count } books
    }
settings-books-kept-none = None
settings-kept-question-one = Remove “{ $title }” from this device?
settings-kept-question =
    { $count ->
        [one] Remove { $count } book from this device?
       *[other] Remove { $count } books from this device?
    }
settings-kept-description-one = It is one of the recently read books that this setting no longer keeps: their downloaded pages and files are deleted. Books you keep offline yourself stay.
# $titles lists a few books' titles.
settings-kept-description = { $titles } are recently read books that this setting no longer keeps: their downloaded pages and files are deleted. Books you keep offline yourself stay.
settings-kept-title = “{ $title }”
settings-kept-more =
    { $count ->
        [one] { $titles } and { $count } more
       *[other] { $titles } and { $count } more
    }
settings-kept-confirm = Remove from device
settings-network = Network
settings-metered = On a metered connection
settings-metered-hint = A mobile hotspot or a connection the system marks as metered (NetworkManager). “Ask” waits until you choose “Download anyway” in Downloads.
settings-metered-ask = Ask before downloading
settings-metered-never = Don’t download
settings-metered-always = Download as usual
settings-starting = Starting
settings-start-at-login = Start Carrel when you log in
settings-start-at-login-hint = So books you keep offline download without opening it yourself.
settings-keep-running = Keep running after the last window closes
settings-keep-running-hint = Carrel stays in the tray, ready to download what you keep offline. When this is off, it stays only until the books waiting are downloaded.
settings-notifications = Notifications
settings-notifications-label = Desktop notifications
settings-notifications-hint = When a book you keep offline is ready, or a download fails for good.
settings-appearance = Appearance
settings-theme = Theme
settings-theme-system = System
settings-theme-system-hint = Follows your desktop
settings-theme-light = Light
settings-theme-light-hint = Paper
settings-theme-dark = Dark
settings-theme-dark-hint = Ink
settings-language = Language
settings-language-label = Language of Carrel
settings-language-hint = Every open window changes at once.
# $language is the name of the language the system asks for, such as "English".
settings-language-system = System default ({ $language })
settings-storage = Storage
settings-storage-measuring = Measuring the space used
settings-storage-error = Couldn’t measure the space used: { $reason }
# $size is a size, such as "1.5 GB".
settings-storage-total = { $size } used by books on this device
# A server's share of the space used, in percent.
settings-storage-share = { $share } %

## Removing a server or a book
remove-server-title = Remove “{ $name }”?
remove-server-description = Carrel will forget this server’s address and any password saved for it. Nothing on the server itself changes, and you can add it again later.
remove-server-confirm = Remove server
remove-book-title = Remove “{ $title }” from this device?
remove-book-description = Its downloaded pages and files are deleted, and pending downloads dropped. The book stays in your library, and you can keep it offline again later.
remove-book-confirm = Remove from device
remove-book-done = Removed “{ $title }” from this device
