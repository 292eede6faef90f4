# What the shell says outside the window: notifications, their buttons, the tray menu.

## Notifications of downloads
notify-downloading = Descargando
notify-downloads = Descargas
notify-ready = Listo para leer sin conexión
notify-paused = Descargas en pausa: no se puede contactar con el servidor, se reintentará
notify-in-background = Las descargas siguen en segundo plano. Abre Carrel de nuevo para recuperar su ventana.
notify-paused-until-next-run = Descargas en pausa hasta que Carrel vuelva a abrirse
notify-pages = { $title } — { $stored } de { $total } { $total ->
    [one] página
   *[other] páginas
}
notify-bytes-of = { $title } — { $done } de { $total } { $unit }
notify-bytes = { $title } — { $done } { $unit }
unit-kb = KB
unit-mb = MB
unit-gb = GB

## Notification buttons
notify-action-pause = Pausar descargas
notify-action-cancel = Cancelar
notify-action-read = Leer
notify-action-open = Abrir Carrel

## The tray icon's menu and tooltip
tray-open = Abrir Carrel
tray-pause = Pausar descargas
tray-resume = Reanudar descargas
tray-quit = Salir de Carrel
tray-nothing = Nada que descargar
tray-tooltip = Carrel — { $line }
tray-books-waiting = { $count ->
    [one] { $count } libro en espera
   *[other] { $count } libros en espera
}
tray-paused = Descargas en pausa — { $waiting }
tray-network-hold = Esperando la red ({ $why }) — { $waiting }
tray-backoff = Servidor inaccesible, se reintentará — { $waiting }
tray-downloading = Descargando «{ $title }»
tray-downloading-parts = Descargando «{ $title }» — { $stored } de { $total }
tray-and-more = { $line } · { $count ->
    [one] { $count } libro más
   *[other] { $count } libros más
}
