# Explorar el catálogo de un servidor, buscar y los detalles de un libro.

## Browse: a server's catalog

browse-results-title = Resultados de «{ $query }»
browse-count =
    { $count ->
        [one] { $count } libro
       *[other] { $count } libros
    }
browse-count-more = { $count }+ libros
browse-keep-all = Guardar todo sin conexión
    .title = Guarda en este dispositivo todos los libros de esta lista, también los de las páginas siguientes
browse-keep-all-queuing = Poniendo en cola…
browse-keep-all-queued =
    { $count ->
        [one] Guardando { $count } libro de «{ $title }» sin conexión: síguelo en Descargas
       *[other] Guardando { $count } libros de «{ $title }» sin conexión: síguelos en Descargas
    }
browse-keep-all-none = Todos los libros de «{ $title }» ya están en este dispositivo
browse-keep-all-failed = No se pudieron guardar estos libros sin conexión: { $error }
browse-offline = Sin conexión: se muestra la biblioteca como se vio por última vez { $ago }.
browse-retry = Reintentar
browse-loading = Cargando { $title }
browse-auth-title = { $server } quiere que inicies sesión
browse-auth-message = Carrel necesita un nombre de usuario y una contraseña que este servidor acepte.
browse-sign-in = Iniciar sesión…
browse-certificate-title = El certificado de { $server } no es de confianza
browse-certificate-message = Carrel no puede confirmar quién es este servidor: su certificado es autofirmado o de una autoridad que este equipo no conoce. Si el servidor es tuyo, puedes elegir confiar en él.
browse-trust = Confiar en este servidor…
browse-search-failed = No se pudo buscar en este servidor
browse-open-failed = No se pudo abrir esta parte del catálogo
browse-go-back = Volver
browse-no-match-title = Ningún libro coincide con «{ $query }»
browse-no-match-message = Prueba con otras palabras, o con menos.
browse-empty-title = Aquí no hay nada
browse-empty-message = Esta parte del catálogo está vacía.
browse-sections = Secciones
browse-books = Libros
browse-loading-more = Cargando más…
browse-more-failed = No se pudo cargar más: { $error }
browse-load-more = Cargar más
browse-crumb-query = «{ $query }»

## Search box

search-box-label = Buscar en { $server }

## Search everywhere

search-title = Buscar en todas partes
search-label = Buscar en todas las bibliotecas
search-intro-title = Encuentra un libro esté donde esté
search-intro-message = Carrel pregunta a todos los servidores a la vez y encuentra los libros de este dispositivo por título, autor o serie aunque ningún servidor responda.
search-local-title = En este dispositivo
search-count =
    { $count ->
        [one] { $count } libro
       *[other] { $count } libros
    }
search-count-more =
    { $count ->
        [one] { $count } libro o más
       *[other] { $count } libros o más
    }
search-looking = Buscando…
search-local-none = Ningún libro de este dispositivo coincide con «{ $query }».
search-local-books = Libros en este dispositivo
search-searching = Buscando…
search-no-search = El catálogo de este servidor no permite buscar.
search-server-auth = Este servidor quiere que inicies sesión.
search-offline = Sin conexión: resultados guardados { $ago }.
search-server-none = Ningún libro coincide con «{ $query }».
search-server-books = Libros en { $server }
search-nothing = Nada coincide con «{ $query }» en ningún sitio. Prueba con otras palabras, o con menos.

## Book details

details-label = Detalles del libro
details-new-window = Abrir en una ventana nueva
details-new-window-failed = No se pudo abrir una ventana nueva: { $error }
details-close = Cerrar los detalles
details-loading = Cargando los detalles del libro
details-failed = No se pudieron leer los detalles de este libro
details-retry-load = Reintentar
details-read = Leído
details-not-read = Aún no leído
details-downloaded = Descargado
details-progress-pages = { $stored } de { $total } páginas
details-progress-bytes = { $stored } de { $total }
details-retry = Reintentar
details-retrying = Reintentando…
details-opening = Abriendo…
details-open-other-app = Abrir con otra app
details-continue = Seguir leyendo
details-start-reading = Leer
details-saving = Guardando…
details-mark-read = Marcar como leído
details-mark-unread = Marcar como no leído
details-mark-series-read = Marcar la serie como leída
details-mark-series-unread = Marcar la serie como no leída
details-keep = Guardar sin conexión
details-keeping = Guardando…
details-remove = Quitar del dispositivo
details-kept-note = Guardado sin conexión para siempre: se queda en este dispositivo hasta que lo quites.
details-cached-note = En este dispositivo por ahora, como uno de los últimos libros que leíste; se irá cuando otros más nuevos ocupen su lugar. «Guardar sin conexión» lo guarda para siempre.
details-other-format = Carrel no puede mostrar libros { $format }. «Abrir con otra app» lo descarga (si aún no está en este dispositivo) y lo abre en la app que este equipo usa para esos archivos.
details-about = Sobre este libro
details-fact-format = Formato
details-format-with-type = { $format } ({ $type })
details-fact-pages = Páginas
details-fact-size = Tamaño
details-fact-server = Servidor
details-fact-last-read = Última lectura
details-last-read-place = { $place }, { $ago }

## Book tile and its marks

tile-downloaded = Descargado
tile-read = Leído
badge-queued = En cola
badge-failed = Error
badge-failed-reason = Error: { $reason }
badge-remote = En el servidor
badge-stored = En el dispositivo
badge-downloading = Descargando { $percent }
badge-queued-percent = En cola · { $percent }
badge-reason-unknown = la descarga falló

## Series read-ahead, in the book details

series-title = Leyendo «{ $series }»
series-keep-label = Guardar en este dispositivo
series-keep-none = solo los libros que guardo
series-keep-next =
    { $count ->
        [one] el siguiente libro sin leer
       *[other] los { $count } siguientes libros sin leer
    }
series-remove-label = Libros leídos
series-remove-never = se quedan en este dispositivo
series-remove-once-read = se quitan al leerlos
series-remove-day = se quitan un día después
series-remove-week = se quitan una semana después
series-remove-month = se quitan un mes después
series-here =
    { $total ->
        [one] { $here } de { $total } libro de esta serie en este dispositivo.
       *[other] { $here } de { $total } libros de esta serie en este dispositivo.
    }
series-here-waiting =
    { $total ->
        [one] { $here } de { $total } libro de esta serie en este dispositivo, { $waiting } en camino.
       *[other] { $here } de { $total } libros de esta serie en este dispositivo, { $waiting } en camino.
    }
series-note-read-ahead = Los siguientes se descargan mientras lees, después del libro que estás leyendo.
series-note-server-default = Es lo que el servidor usa por defecto para las series que lees.
series-note-default-ahead =
    { $count ->
        [one] Cuando la leas, el ajuste por defecto del servidor guardará el siguiente libro sin leer.
       *[other] Cuando la leas, el ajuste por defecto del servidor guardará los { $count } siguientes libros sin leer.
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
format-page-of = Página { $page } de { $total }
format-page = Página { $page }
format-eta-seconds = quedan unos segundos
format-eta-under-minute = queda menos de un minuto
format-eta-minutes =
    { $minutes ->
        [one] queda alrededor de { $minutes } min
       *[other] quedan unos { $minutes } min
    }
format-eta-hours =
    { $hours ->
        [one] queda alrededor de { $hours } h
       *[other] quedan unas { $hours } h
    }
format-eta-hours-minutes = quedan alrededor de { $hours } h { $minutes } min
format-eta-days = quedan unos { $days } días
format-series = { $series } n.º { $index }
format-authors = { $first } y { $last }
format-pages =
    { $count ->
        [one] { $count } página
       *[other] { $count } páginas
    }
format-name-comic = Cómic
format-name-book = Libro
format-ago-now = ahora mismo
format-ago-date = el { $date }

## Errors without a message of their own

error-unknown = algo ha fallado dentro de Carrel

## Books on this device: sorting and filtering

on-device-count-filtered = { $shown } de { $total }
on-device-filter-label = Filtrar los libros de este dispositivo
on-device-filter-placeholder = Título, autor o serie
on-device-sort-label = Ordenar por
on-device-sort-title = Título
on-device-sort-series = Serie y número
on-device-sort-author = Autor
on-device-sort-added = Fecha de incorporación
on-device-sort-last-read = Última lectura
on-device-order-ascending = Ascendente
on-device-order-descending = Descendente
on-device-order-switch = Invertir el orden
on-device-format-label = Formato
on-device-format-all = Todos los formatos
on-device-format-comic = Cómics
on-device-format-epub = EPUB
on-device-format-pdf = PDF
on-device-read-label = Lectura
on-device-read-all = Todos
on-device-read-unread = Sin leer
on-device-read-in-progress = En curso
on-device-read-read = Leídos
on-device-source-label = Origen
on-device-source-all = Todos los orígenes
on-device-source-device = Este dispositivo
on-device-group-series = Agrupar por serie
on-device-no-series = Sin serie
on-device-no-match-title = Ningún libro coincide
on-device-no-match-message = Ningún libro de este dispositivo coincide con estos filtros.
on-device-clear-filters = Quitar los filtros

## A feed's facets (the server's orders and filters)

browse-facet-group = Vista
browse-facet-count = { $title } ({ $count })
browse-facet-none = Elegir…
