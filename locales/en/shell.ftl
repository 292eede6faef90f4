# What the shell says outside the window: notifications, their buttons, the tray menu.

## Notifications of downloads
notify-downloading = Downloading
notify-downloads = Downloads
notify-ready = Ready to read offline
notify-paused = Downloads paused — server unreachable, retrying
notify-in-background = Downloads go on in the background. Start Carrel again to bring its window back.
notify-paused-until-next-run = Downloads paused until Carrel runs again
# A book's progress in pages: "Saga #3 — 2 of 8 pages".
notify-pages = { $title } — { $stored } of { $total } { $total ->
    [one] page
   *[other] pages
}
# A book's progress in bytes, the whole known: "The Long Read — 2.1 of 8.4 MB".
notify-bytes-of = { $title } — { $done } of { $total } { $unit }
# A book's progress in bytes, the whole unknown: "The Long Read — 450 KB".
notify-bytes = { $title } — { $done } { $unit }
unit-kb = KB
unit-mb = MB
unit-gb = GB

## Notification buttons
notify-action-pause = Pause downloads
notify-action-cancel = Cancel
notify-action-read = Read
notify-action-open = Open Carrel

## The tray icon's menu and tooltip
tray-open = Open Carrel
tray-pause = Pause downloads
tray-resume = Resume downloads
tray-quit = Quit Carrel
tray-nothing = Nothing to download
tray-tooltip = Carrel — { $line }
tray-books-waiting = { $count ->
    [one] 1 book waiting
   *[other] { $count } books waiting
}
tray-paused = Downloads paused — { $waiting }
tray-network-hold = Waiting for the network ({ $why }) — { $waiting }
tray-backoff = Server unreachable, retrying — { $waiting }
tray-downloading = Downloading “{ $title }”
tray-downloading-parts = Downloading “{ $title }” — { $stored } of { $total }
tray-and-more = { $line } · { $count ->
    [one] 1 more book
   *[other] { $count } more books
}
