# The reader's own book files opened in Carrel: File → Open, a drop on the window, `carrel FILE`.

## Opening files

local-files-open = Open file…
# The file chooser's title.
local-files-choose-title = Open books
# The file chooser's filter: the formats Carrel reads.
local-files-filter-books = Books (EPUB, CBZ, CBR, CB7, CBT, PDF)
local-files-added =
    { $count ->
        [one] One book added to Books on this device
       *[other] { $count } books added to Books on this device
    }
# $file is the file's name, $reason why it could not be opened.
local-files-not-opened = Could not open “{ $file }”: { $reason }
local-files-not-opened-many =
    { $count ->
        [one] { $count } file could not be opened: “{ $file }”: { $reason }
       *[other] { $count } files could not be opened, among them “{ $file }”: { $reason }
    }
# Nothing was opened at all; $reason says why.
local-files-failed = Could not open the files: { $reason }

## Dragging files over the window

local-files-drop-title = Drop books to open them
local-files-drop-copy = They are copied into Carrel’s library.
local-files-drop-reference = Carrel reads them where they are.

## Settings

local-files-setting-title = Your own files
local-files-setting-copy = Copy the files you open into Carrel’s library
local-files-setting-copy-hint = Otherwise Carrel reads them where they are: nothing is copied, and a file moved or deleted leaves the library.
