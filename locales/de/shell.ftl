# What the shell says outside the window: notifications, their buttons, the tray menu.

## Notifications of downloads
notify-downloading = Wird heruntergeladen
notify-downloads = Downloads
notify-ready = Bereit zum Offline-Lesen
notify-paused = Downloads pausiert – Server nicht erreichbar, neuer Versuch folgt
notify-in-background = Downloads laufen im Hintergrund weiter. Starten Sie Carrel erneut, um das Fenster zurückzuholen.
notify-paused-until-next-run = Downloads pausiert, bis Carrel wieder läuft
notify-pages = { $title } – { $stored } von { $total } { $total ->
    [one] Seite
   *[other] Seiten
}
notify-bytes-of = { $title } – { $done } von { $total } { $unit }
notify-bytes = { $title } – { $done } { $unit }
unit-kb = KB
unit-mb = MB
unit-gb = GB

## Notification buttons
notify-action-pause = Downloads pausieren
notify-action-cancel = Abbrechen
notify-action-read = Lesen
notify-action-open = Carrel öffnen

## The tray icon's menu and tooltip
tray-open = Carrel öffnen
tray-pause = Downloads pausieren
tray-resume = Downloads fortsetzen
tray-quit = Carrel beenden
tray-nothing = Nichts herunterzuladen
tray-tooltip = Carrel – { $line }
tray-books-waiting = { $count ->
    [one] { $count } Buch wartet
   *[other] { $count } Bücher warten
}
tray-paused = Downloads pausiert – { $waiting }
tray-network-hold = Warten auf das Netzwerk ({ $why }) – { $waiting }
tray-backoff = Server nicht erreichbar, neuer Versuch folgt – { $waiting }
tray-downloading = „{ $title }“ wird heruntergeladen
tray-downloading-parts = „{ $title }“ wird heruntergeladen – { $stored } von { $total }
tray-and-more = { $line } · { $count ->
    [one] { $count } weiteres Buch
   *[other] { $count } weitere Bücher
}
