# Los lectores de cómics, EPUB y PDF.

## Both readers: the top bar

reader-back = Biblioteca
reader-back-title = Volver a la biblioteca (Esc)

## Page reader: comics and PDFs

reader-page = Página { $page }
reader-page-of = Página { $page } de { $total }
reader-pages-of = Páginas { $first }–{ $last } de { $total }
reader-slider = Página
reader-retry = Reintentar
reader-page-loading = Cargando la página { $page }…
reader-page-failed-title = Esta página no se puede mostrar
reader-page-failed-message = No se pudo dibujar la página { $page } de este PDF ({ $reason }).
reader-page-offline-title = Sin conexión: esta página no está descargada
reader-page-offline-message = No se puede contactar con el servidor y la página { $page } aún no está en este dispositivo.
reader-strip-offline = La página { $page } no está descargada y no se puede contactar con el servidor.
reader-contents = Índice
reader-contents-title = El índice del libro
reader-continued-elsewhere = Sigues en la página { $page }, donde lo dejaste en otro dispositivo
reader-pdf-only-in-app = Los PDF solo se pueden leer en la app
reader-pdf-unreadable = Este archivo no se pudo leer como PDF ({ $reason })
reader-pdf-empty = Este PDF no tiene páginas
reader-open-failed = No se pudo abrir el libro ({ $status })
reader-open-failed-because = No se pudo abrir el libro ({ $status }: { $reason })
reader-not-on-device = Este libro no está en el dispositivo y no se puede contactar con el servidor

## EPUB reader

epub-contents = Índice
epub-text-settings = Ajustes del texto
epub-layout = Diseño
epub-flow-pages = Páginas
epub-flow-scroll = Desplazamiento
epub-theme = Tema
epub-theme-light = Claro
epub-theme-sepia = Sepia
epub-theme-dark = Oscuro
epub-font = Letra
epub-font-original = Letra del libro
epub-font-serif = Serif
epub-font-sans-serif = Sans serif
epub-font-monospace = Monoespaciada
epub-font-installed = Fuente instalada
epub-font-installed-none = Ninguna (la elección de arriba)
epub-size = Tamaño
epub-line-height = Interlineado
epub-margins = Márgenes
epub-percent = { $percent } %
epub-error-title = No se pudo abrir este libro
epub-opening = Abriendo…
epub-previous = Anterior (←)
epub-next = Siguiente (→)
epub-position = Posición en el libro
epub-goto = Ir a un punto del libro
epub-goto-percent = Ir a un punto del libro, en porcentaje
epub-untitled = Sin título
epub-continued-elsewhere = Sigues en el { $percent } %, donde lo dejaste en otro dispositivo
epub-only-in-app = El libro solo se puede leer en la app.
epub-not-on-device = Este libro no está en el dispositivo y no se puede contactar con el servidor.
epub-open-failed-status = No se pudo abrir el libro ({ $status }).
