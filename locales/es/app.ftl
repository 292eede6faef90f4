# Carrel's own screens: start-up, the sidebar, Home, servers, downloads, settings.

## Shared by several screens

app-try-again = Reintentar
app-trying = Reintentando…

## The window while it starts

app-opening = Abriendo tu biblioteca…

## Sidebar

sidebar-label = Barra lateral
sidebar-main = Principal
sidebar-home = Inicio
sidebar-search = Buscar en todo
sidebar-servers = Servidores
# A server's downloads wait; $reason is what the server said.
sidebar-server-paused = Descargas en pausa: { $reason }
sidebar-server-offline = Sin conexión
sidebar-server-offline-title = Sin conexión: se muestra la biblioteca tal como se vio por última vez
sidebar-edit-server = Editar { $name }
sidebar-remove-server = Quitar { $name }
sidebar-no-servers = Aún no hay servidores.
sidebar-add-server = Añadir servidor
sidebar-device = En este dispositivo
sidebar-on-device = Libros en este dispositivo
sidebar-downloads = Descargas
# Parts of the downloads' summary read by screen readers, joined by commas.
sidebar-downloads-waiting =
    { $count ->
        [one] { $count } libro en espera
       *[other] { $count } libros en espera
    }
sidebar-downloads-failed =
    { $count ->
        [one] { $count } fallido
       *[other] { $count } fallidos
    }
sidebar-downloads-paused = en pausa
sidebar-current-download = Descarga actual
sidebar-settings = Ajustes
sidebar-version = Carrel { $version }

## Start-up error (the library cannot be opened)

startup-error-title = Carrel no puede abrir tu biblioteca
startup-error-data-folder = Carpeta de datos
startup-error-no-folder = Carrel no encontró ninguna carpeta donde guardar sus datos.
startup-error-note = No se cambió nada: tus servidores, ajustes y libros siguen igual. Cuando se resuelva la causa, vuelve a abrir Carrel.
startup-error-copy = Copiar detalles
startup-error-copied = Copiado
startup-error-copy-failed = No se pudo copiar; selecciona el texto de arriba.
# Lines of the details copied for a bug report.
startup-error-details-error = Error ({ $kind }): { $message }
startup-error-details-folder = Carpeta de datos: { $folder }
startup-error-details-unknown = desconocida

## Library error (the list of servers could not be read)

library-error-title = Carrel no pudo leer tus servidores

## Empty library (no server yet)

empty-library-title = Aún no hay biblioteca: añade un servidor
empty-library-lead = Carrel lee cómics y libros electrónicos del catálogo OPDS de un servidor de biblioteca que gestionas o usas, como Komga, Kavita, Codex, Calibre-Web o Stump.
empty-library-add = Añadir servidor
empty-library-aside = Necesitarás la dirección del catálogo y, si el servidor los pide, un nombre de usuario y una contraseña.
empty-library-own-files = O lee tus propios archivos: cómics (CBZ, CBR, CB7, CBT), EPUB y PDF.
empty-library-open-files = Abrir archivos…
empty-library-add-folder = Añadir una carpeta de biblioteca…
empty-library-folder-failed = No se pudo añadir la carpeta: { $reason }

## Toasts, confirmations, breadcrumbs

toast-dismiss = Cerrar
confirm-cancel = Cancelar
confirm-removing = Quitando…
breadcrumbs-label = Ruta de navegación
# Read before a search's words in the path of feeds: "Search for dragons".
breadcrumbs-search-for = Búsqueda de

## On this device

on-device-title = En este dispositivo
on-device-count =
    { $count ->
        [one] { $count } libro
       *[other] { $count } libros
    }
on-device-loading = Cargando los libros de este dispositivo
on-device-error = No se pudieron listar los libros de este dispositivo
on-device-list = Libros en este dispositivo
on-device-empty-title = Aún no hay nada en este dispositivo
on-device-empty-message = Abre los detalles de un libro y elige Guardar sin conexión para leerlo sin el servidor. Los últimos libros que leíste también se guardan.
# Under a book partly stored.
on-device-pages = { $stored } de { $total } páginas

## Home

home-title = Inicio
home-credentials-notice = No respondió ningún llavero del sistema, así que las contraseñas guardadas se conservan en un archivo de la carpeta de datos de Carrel que solo tu cuenta puede leer.
home-credentials-dismiss = No volver a mostrar
home-continue-title = Seguir leyendo
home-continue-loading = Cargando los libros que estás leyendo
home-continue-error = No se pudieron leer los libros que estás leyendo
home-continue-empty = Los libros que abras aparecen aquí, el más reciente primero.
home-servers-title = Servidores
home-add-server-text = Añade un servidor de biblioteca, como Komga, Kavita o Calibre-Web, para explorar su catálogo y descargar de él.
home-add-server = Añadir servidor
home-servers-count =
    { $count ->
        [one] { $count } servidor
       *[other] { $count } servidores
    }

## A server's card on Home

server-card-paused = Descargas en pausa: { $reason }
server-card-offline = Sin conexión en la última visita
server-card-url = Dirección del catálogo
server-card-sign-in = Inicio de sesión
server-card-signs-in-as = Inicia sesión como { $user }
server-card-no-sign-in = Sin inicio de sesión
# $date is the day the server was added.
server-card-added = Añadido el { $date }
server-card-edit = Editar…
server-card-edit-label = Editar { $name }
server-card-remove = Quitar…
server-card-remove-label = Quitar { $name }

## Sign-in dialog (a server asked for a username and password)

credentials-title = Iniciar sesión en { $name }
credentials-description = El servidor pide un nombre de usuario y una contraseña.
credentials-username = Nombre de usuario
credentials-username-missing = Escribe tu nombre de usuario.
credentials-password = Contraseña
credentials-password-missing = Escribe tu contraseña.
credentials-kept-in-file = La contraseña se guarda en un archivo de la carpeta de datos de Carrel que solo tu cuenta puede leer.
credentials-kept-in-keyring = La contraseña se guarda en el llavero de tu sistema.
credentials-cancel = Cancelar
credentials-sign-in = Iniciar sesión
credentials-signing-in = Iniciando sesión…

## KOReader sync (in Settings)

kosync-title = Sincronización con KOReader
kosync-hint = Dónde te quedaste en los libros guardados como archivos en este dispositivo (EPUB, PDF, CBZ…) te acompaña desde y hacia tus dispositivos KOReader, a través de un servidor de sincronización de KOReader: el de KOReader, tu Komga o Kavita, o uno propio.
kosync-loading = Cargando…
kosync-account = Sincronizando con { $url } como { $user }.
kosync-sign-out = Cerrar sesión
kosync-server = Servidor de sincronización
kosync-username = Nombre de usuario
kosync-password = Contraseña
kosync-missing = Escribe la dirección del servidor, tu nombre de usuario y tu contraseña.
kosync-sign-in = Iniciar sesión
kosync-signing-in = Iniciando sesión…

## Batches kept offline together (on the Downloads page)

batch-title = Guardados sin conexión juntos
batch-stored =
    { $stored } de { $count ->
        [one] { $count } libro
       *[other] { $count } libros
    } en este dispositivo
batch-done = terminado
batch-paused = en pausa
batch-waiting = { $count } en espera
batch-failed =
    { $count ->
        [one] { $count } fallido
       *[other] { $count } fallidos
    }
batch-dropped =
    { $count ->
        [one] { $count } cancelado o quitado
       *[other] { $count } cancelados o quitados
    }
batch-progress = { $title }: libros en este dispositivo
batch-progress-value =
    { $stored } de { $count ->
        [one] { $count } libro
       *[other] { $count } libros
    }
batch-resume = Reanudar
batch-pause = Pausar
batch-top = Descargar estos primero
batch-top-label = Descargar { $title } primero
batch-forget = Olvidar este lote (los libros se quedan en el dispositivo)
batch-forget-label = Olvidar el lote { $title }
batch-cancel = Cancelar (los libros que ya están aquí se quedan)
batch-cancel-label = Cancelar { $title }
# $reason is why it failed.
batch-resume-failed = No se pudo reanudar «{ $title }»: { $reason }
batch-pause-failed = No se pudo pausar «{ $title }»: { $reason }
batch-top-failed = No se pudo subir «{ $title }»: { $reason }
batch-cancel-failed = No se pudo cancelar «{ $title }»: { $reason }

## Add server and Edit server: the checks of the form

server-form-url-missing = Escribe la dirección del servidor o la de su catálogo OPDS.
# $example is an address such as https://books.example.org/opds
server-form-url-scheme = Empieza la dirección con https:// o http://, como en { $example }.
server-form-url-invalid = Esto no es una dirección web; debería parecerse a { $example }.
# $protocol is the start of the address typed, such as "ftp:".
server-form-url-protocol = Las direcciones «{ $protocol }» no se admiten; usa http:// o https://.
server-form-url-no-host = La dirección no tiene nombre de servidor.
server-form-url-credentials = Pon el nombre de usuario y la contraseña en sus propios campos, no en la dirección.
server-form-name-missing = Ponle un nombre al servidor.
server-form-name-too-long = El nombre es demasiado largo (como máximo { $max } caracteres).
server-form-interval-missing = Escribe un número de milisegundos (0 para ninguna pausa).
server-form-interval-invalid = Escribe un número entero de milisegundos, como 500.
server-form-interval-too-long = La pausa puede ser como máximo de { $max } ms (un minuto).
# Choices of "Keep the next unread books of each series I read".
server-form-series-off = No
server-form-series-next =
    { $count ->
        [one] El siguiente libro sin leer
       *[other] Los { $count } siguientes libros sin leer
    }
# Choices of "Finished books …".
server-form-series-stay = se quedan en este dispositivo
server-form-series-remove-read = se quitan al leerlos
server-form-series-remove-after =
    { $days ->
        [1] se quitan un día después
        [7] se quitan una semana después
        [30] se quitan un mes después
       *[other] se quitan { $days } días después
    }

## Add server and Edit server: the dialog

server-dialog-add-title = Añadir un servidor
server-dialog-add-description = Conecta Carrel al catálogo OPDS de un servidor de biblioteca que uses.
server-dialog-edit-title = Editar «{ $name }»
server-dialog-edit-description = Cambia cómo llega Carrel a este servidor. Sus libros se quedan como están.
server-dialog-name = Nombre
server-dialog-name-hint = Déjalo vacío para usar el nombre del propio catálogo.
server-dialog-name-placeholder = Biblioteca de casa
server-dialog-url = Dirección del catálogo
server-dialog-url-hint = La dirección del servidor o su fuente OPDS: Carrel encuentra el catálogo.
server-dialog-already-saved = Ya tienes este servidor: { $name }.
# $description says what was found at the address.
server-dialog-found = Encontrado: { $description }
server-dialog-use-catalog = Usar { $url }
server-dialog-sign-in = Inicio de sesión
server-dialog-sign-in-optional = (solo si el servidor lo pide)
server-dialog-username = Nombre de usuario
server-dialog-password = Contraseña
server-dialog-password-placeholder = Sin cambios
server-dialog-password-in-file = No hay ningún llavero del sistema disponible, así que se guarda en un archivo de la carpeta de datos de Carrel que solo tu cuenta puede leer.
server-dialog-password-in-keyring = Se guarda en el llavero de tu sistema, nunca en el archivo de la biblioteca de Carrel.
# $where is one of the two sentences above.
server-dialog-password-unchanged = Déjalo vacío para conservar la contraseña guardada. { $where }
server-dialog-api-key = La contraseña es una clave de API (Komga)
server-dialog-connection = Conexión
server-dialog-interval = Pausa entre peticiones
server-dialog-interval-hint = Milisegundos que Carrel espera entre dos peticiones a este servidor, de 0 (ninguna pausa) a { $max }. A un servidor pequeño o muy ocupado le pueden venir bien unos cientos.
server-dialog-interval-unit = ms
server-dialog-trust = Confiar en el certificado de este servidor aunque esté autofirmado
server-dialog-trust-warning = Solo para un servidor que gestionas tú: Carrel no comprobará con quién está hablando.
server-dialog-series = Series
server-dialog-series-next = Guardar los siguientes libros sin leer de cada serie que leo
server-dialog-series-next-hint = Se descargan mientras lees una serie, después del libro que estás leyendo. Una serie que configuraste en los detalles de un libro, o que dejaste allí, conserva lo que elegiste.
server-dialog-series-finished = Libros terminados
server-dialog-series-not-saved = El servidor se guardó, pero no su ajuste de series: { $reason }
server-dialog-cancel = Cancelar
server-dialog-save = Guardar
server-dialog-saving = Guardando…

## Downloads

downloads-title = Descargas
downloads-resume-all = Reanudar todo
downloads-pause-all = Pausar todo
# $reason is why it failed.
downloads-resume-all-failed = No se pudieron reanudar las descargas: { $reason }
downloads-pause-all-failed = No se pudieron pausar las descargas: { $reason }
downloads-allow-failed = No se pudieron permitir las descargas: { $reason }
downloads-open-failed = No se pudo abrir el libro: { $reason }
downloads-error = No se pueden seguir las descargas
downloads-loading = Cargando las descargas
# What the downloads are doing, beside the title.
downloads-paused = En pausa
downloads-downloading = Descargando
downloads-waiting = En espera
downloads-nothing = Nada que descargar
downloads-retry-at = Nuevo intento a las { $time }
downloads-retry-soon = Nuevo intento en breve
# $when is one of the two texts above, $reason what went wrong.
downloads-retry-why = { $when } ({ $reason })
downloads-stopped = Detenido
downloads-stopped-why = Detenido: { $reason }
downloads-standby = Otro Carrel está descargando
# $holder names the other program downloading.
downloads-standby-holder = Otro Carrel está descargando ({ $holder })
downloads-paused-notice = Las descargas están en pausa, aquí y en cualquier otro Carrel, hasta que las reanudes.
# $hold says why, such as "this connection is metered".
downloads-metered = Las descargas esperan: { $hold }.
downloads-metered-never = Según tus ajustes, nunca se descarga con una conexión medida.
downloads-allow-metered = Descargar de todos modos
# $reason is a full sentence saying what went wrong.
downloads-backoff = { $reason } Carrel volverá a intentarlo por sí solo.
downloads-sign-in-needed = Las descargas de { $name } esperan un inicio de sesión ({ $reason }).
downloads-sign-in = Iniciar sesión…
downloads-now = Descargando ahora
# What the request under way brings.
downloads-fetching-pages = Páginas
downloads-fetching-file = El archivo del libro
downloads-fetching-extras = Portada y extras
downloads-fetching-ready = Preparando
downloads-file-stored = Archivo guardado
downloads-pages-stored = { $stored } de { $total } páginas guardadas
# $done and $total are sizes, such as "300 kB of 1.2 MB".
downloads-bytes-of = { $done } de { $total }
downloads-book-label = { $title } descargado
# $what is one of the texts above ("Pages", "The book’s file"…).
downloads-part-label = { $what } de { $title }
# $percent is a percentage, such as "7 %".
downloads-book-percent = { $percent } del libro
downloads-cancel = Cancelar (lo guardado se queda)
downloads-cancel-label = Cancelar { $title }
downloads-cancel-failed = No se pudo cancelar «{ $title }»: { $reason }
downloads-up-next = A continuación
downloads-queue = Cola
downloads-queue-count =
    { $count ->
        [one] { $count } libro
       *[other] { $count } libros
    }
downloads-empty = Nada en espera. Los libros que guardas sin conexión o abres se descargan aquí, una petición cada vez.
downloads-empty-after-active = Nada más en espera. Los libros que guardas sin conexión o abres se descargan aquí, una petición cada vez.
downloads-priority = Prioridad
downloads-top = Descargar a continuación
downloads-top-label = Descargar { $title } a continuación
downloads-top-failed = No se pudo mover «{ $title }»: { $reason }
downloads-failed = Fallidas
downloads-retry = Reintentar
downloads-retry-failed = No se pudo reintentar «{ $title }»: { $reason }
downloads-give-up = Abandonar (lo guardado se queda)
downloads-give-up-label = Abandonar { $title }
downloads-done = Terminadas
downloads-clear = Vaciar
downloads-clear-failed = No se pudo vaciar la lista: { $reason }
# $ago says when, such as "2 min ago".
downloads-stored-ago = Guardado { $ago }
downloads-open = Abrir
downloads-open-label = Abrir { $title }

## Settings

settings-title = Ajustes
settings-saving = Guardando…
# $reason is a sentence saying why.
settings-save-error = No se pudo guardar el cambio: { $reason }
settings-error = No se pudieron leer tus ajustes
settings-loading = Cargando tus ajustes
settings-reading = Lectura sin conexión
settings-books-kept = Libros leídos hace poco que se guardan en este dispositivo
settings-books-kept-hint = Los últimos libros que abriste se descargan en segundo plano y se guardan, para que estén disponibles sin el servidor. Los libros que guardas tú sin conexión también se conservan y no cuentan.
# Read by screen readers for the slider's value.
settings-books-kept-value =
    { $count ->
        [0] ninguno
        [one] { $count } libro
       *[other] { $count } libros
    }
settings-books-kept-none = Ninguno
settings-kept-question-one = ¿Quitar «{ $title }» de este dispositivo?
settings-kept-question =
    { $count ->
        [one] ¿Quitar { $count } libro de este dispositivo?
       *[other] ¿Quitar { $count } libros de este dispositivo?
    }
settings-kept-description-one = Es uno de los libros leídos hace poco que este ajuste ya no guarda: se borran sus páginas y archivos descargados. Los libros que guardas tú sin conexión se quedan.
# $titles lists a few books' titles.
settings-kept-description = { $titles } son libros leídos hace poco que este ajuste ya no guarda: se borran sus páginas y archivos descargados. Los libros que guardas tú sin conexión se quedan.
settings-kept-title = «{ $title }»
settings-kept-more =
    { $count ->
        [one] { $titles } y { $count } más
       *[other] { $titles } y { $count } más
    }
settings-kept-confirm = Quitar del dispositivo
settings-network = Red
settings-metered = Con una conexión medida
settings-metered-hint = Un punto de acceso móvil o una conexión que el sistema marca como medida (NetworkManager). «Preguntar» espera hasta que elijas «Descargar de todos modos» en Descargas.
settings-metered-ask = Preguntar antes de descargar
settings-metered-never = No descargar
settings-metered-always = Descargar como siempre
settings-starting = Inicio
settings-start-at-login = Abrir Carrel al iniciar sesión
settings-start-at-login-hint = Así los libros que guardas sin conexión se descargan sin que tengas que abrirlo.
settings-keep-running = Seguir en marcha al cerrar la última ventana
settings-keep-running-hint = Carrel se queda en la bandeja, listo para descargar lo que guardas sin conexión. Si está desactivado, solo se queda hasta que se descarguen los libros en espera.
settings-notifications = Notificaciones
settings-notifications-label = Notificaciones del escritorio
settings-notifications-hint = Cuando un libro que guardas sin conexión está listo, o una descarga falla definitivamente.
settings-appearance = Apariencia
settings-theme = Tema
settings-theme-system = Sistema
settings-theme-system-hint = Sigue a tu escritorio
settings-theme-light = Claro
settings-theme-light-hint = Papel
settings-theme-dark = Oscuro
settings-theme-dark-hint = Tinta
settings-language = Idioma
settings-language-label = Idioma de Carrel
settings-language-hint = Todas las ventanas abiertas cambian al momento.
# $language is the name of the language the system asks for, such as "English".
settings-language-system = Idioma del sistema ({ $language })
settings-storage = Almacenamiento
settings-storage-measuring = Midiendo el espacio usado
settings-storage-error = No se pudo medir el espacio usado: { $reason }
# $size is a size, such as "1.5 GB".
settings-storage-total = { $size } usados por los libros de este dispositivo
# A server's share of the space used, in percent.
settings-storage-share = { $share } %

## Removing a server or a book
remove-server-title = ¿Quitar «{ $name }»?
remove-server-description = Carrel olvidará la dirección de este servidor y cualquier contraseña guardada para él. En el servidor no cambia nada, y puedes volver a añadirlo más tarde.
remove-server-confirm = Quitar servidor
remove-book-title = ¿Quitar «{ $title }» de este dispositivo?
remove-book-description = Se borran sus páginas y archivos descargados, y se descartan las descargas pendientes. El libro sigue en tu biblioteca y puedes volver a guardarlo sin conexión más tarde.
remove-book-confirm = Quitar del dispositivo
remove-book-done = «{ $title }» quitado de este dispositivo
