# Settings → Library folders: folders on this computer whose books join Books on this device,
# read where they are, and followed as their files are added, changed or removed.

library-folders-title = Library folders
library-folders-hint = Books in these folders join Books on this device and are read where they are. Carrel follows the files as they are added, changed or removed; it never changes or deletes them.
library-folders-loading = Loading the library folders…
library-folders-empty = No library folders yet.
# Opens the desktop's folder chooser.
library-folders-add = Add folder…
# The folder chooser's title.
library-folders-choose-title = Choose a library folder
# The field where a folder's path can be typed instead.
library-folders-path-label = Folder path
library-folders-add-path = Add
library-folders-books =
    { $count ->
        [one] One book
       *[other] { $count } books
    }
# $ago is how long ago, such as “5 minutes ago”.
library-folders-scanned = scanned { $ago }
library-folders-not-scanned = not scanned yet
library-folders-rescan = Rescan
library-folders-remove = Remove
# The buttons' names for screen readers; $path is the folder.
library-folders-rescan-label = Rescan { $path }
library-folders-remove-label = Remove { $path }
# The folder is being walked; $found book files so far.
library-folders-looking = Looking for books… { $found } found
# $done of $total new or changed files taken in.
library-folders-scanning = Scanning… { $done } of { $total }
# $reason says why, in the words of the system.
library-folders-scan-failed = Could not look through this folder: { $reason }
library-folders-remove-title = Remove this library folder?
# $path is the folder, $count its books.
library-folders-remove-body =
    { $count ->
        [one] The book of { $path } leaves Books on this device, with its reading position and notes. The files stay where they are.
       *[other] The { $count } books of { $path } leave Books on this device, with their reading positions and notes. The files stay where they are.
    }
library-folders-remove-confirm = Remove folder
library-folders-removed =
    { $count ->
        [one] Folder removed; one book left the library.
       *[other] Folder removed; { $count } books left the library.
    }
