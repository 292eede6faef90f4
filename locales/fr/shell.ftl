# What the shell says outside the window: notifications, their buttons, the tray menu.

## Notifications of downloads
notify-downloading = Téléchargement
notify-downloads = Téléchargements
notify-ready = Prêt à lire hors ligne
notify-paused = Téléchargements en pause — serveur injoignable, nouvel essai bientôt
notify-in-background = Les téléchargements continuent en arrière-plan. Relancez Carrel pour retrouver sa fenêtre.
notify-paused-until-next-run = Téléchargements en pause jusqu’au prochain lancement de Carrel
notify-pages = { $title } — { $stored } sur { $total } { $total ->
    [one] page
   *[other] pages
}
notify-bytes-of = { $title } — { $done } sur { $total } { $unit }
notify-bytes = { $title } — { $done } { $unit }
unit-kb = Ko
unit-mb = Mo
unit-gb = Go

## Notification buttons
notify-action-pause = Suspendre les téléchargements
notify-action-cancel = Annuler
notify-action-read = Lire
notify-action-open = Ouvrir Carrel

## The tray icon's menu and tooltip
tray-open = Ouvrir Carrel
tray-pause = Suspendre les téléchargements
tray-resume = Reprendre les téléchargements
tray-quit = Quitter Carrel
tray-nothing = Rien à télécharger
tray-tooltip = Carrel — { $line }
tray-books-waiting = { $count ->
    [one] { $count } livre en attente
   *[other] { $count } livres en attente
}
tray-paused = Téléchargements en pause — { $waiting }
tray-network-hold = En attente du réseau ({ $why }) — { $waiting }
tray-backoff = Serveur injoignable, nouvel essai bientôt — { $waiting }
tray-downloading = Téléchargement de « { $title } »
tray-downloading-parts = Téléchargement de « { $title } » — { $stored } sur { $total }
tray-and-more = { $line } · { $count ->
    [one] encore { $count } livre
   *[other] encore { $count } livres
}
