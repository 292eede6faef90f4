# El lector de cómics y PDF, sus herramientas y ajustes de imagen; la tarjeta al final o al
# principio de un libro (ambos lectores); el menú de un libro en la cuadrícula.

## El lector de cómics y PDF

comic-error-title = No se puede abrir este libro
comic-retry = Reintentar
comic-downloads-paused = Las descargas están en pausa: este libro se abrirá cuando llegue su archivo.
comic-downloading = Descargando el libro…
comic-downloading-percent = Descargando el libro… { $percent } %
comic-opening = Abriendo…
comic-no-pages-title = No hay páginas que mostrar
comic-no-pages-message = Este libro no se lee página a página.

## Sus herramientas

comic-layout = Disposición
comic-layout-single = Una
comic-layout-single-title = Una página cada vez
comic-layout-spread = Dos páginas
comic-layout-spread-title = Dos páginas enfrentadas, la portada sola
comic-layout-webtoon = Desplazar
comic-layout-webtoon-title = Todas las páginas en una tira vertical (webtoon)
comic-offset = Desplazar páginas
comic-offset-title = Desplazar las páginas una: la página 2 sola, luego 3 y 4 enfrentadas
comic-fit = Ajuste
comic-fit-width = Ancho
comic-fit-width-title = Ajustar al ancho
comic-fit-height = Alto
comic-fit-height-title = Ajustar al alto
comic-fit-screen = Pantalla
comic-fit-screen-title = Mostrar la página entera
comic-fit-original = Original
comic-fit-original-title = Tamaño original
comic-zoom = Zoom
comic-zoom-out = Alejar
comic-zoom-out-title = Alejar (−)
comic-zoom-reset = Zoom { $zoom }: volver al ajuste
comic-zoom-reset-title = Volver al ajuste (0)
comic-zoom-in = Acercar
comic-zoom-in-title = Acercar (+)
comic-direction = Sentido de lectura
comic-direction-ltr = I→D
comic-direction-ltr-title = De izquierda a derecha
comic-direction-rtl = D→I
comic-direction-rtl-title = De derecha a izquierda (manga)
comic-make-default = Predeterminar
comic-make-default-title = Abrir con estos ajustes los libros sin ajustes propios
comic-made-default = Los libros sin ajustes propios se abren ahora con estos ajustes
comic-fullscreen = Pantalla completa
comic-fullscreen-title = Pantalla completa (F)

## Ajustes de imagen

comic-adjust = Imagen
comic-adjust-title = Brillo, contraste y calidez de las páginas
comic-adjust-panel = Ajustes de imagen
comic-adjust-brightness = Brillo
comic-adjust-contrast = Contraste
comic-adjust-warmth = Calidez
comic-adjust-percent = { $value } %
comic-adjust-reset = Restablecer

## La tarjeta al final o al principio de un libro

end-card-finished = Terminaste { $title }
end-card-start-of = El principio de { $title }
end-card-next = A continuación:
end-card-next-in = A continuación en { $series }:
end-card-before = Antes:
end-card-before-in = Antes en { $series }:
end-card-number = Número { $number }
end-card-on-device = En este dispositivo
end-card-not-on-device = Aún no está en este dispositivo
end-card-download-failed = Falló la descarga: { $reason }
end-card-read = Leer { $title }
end-card-back = Volver
end-card-series-last = Era el último libro de { $series }
end-card-series-first = Este es el primer libro de { $series }
end-card-stay-page-one = Volver a la página 1
end-card-stay-start = Volver al principio

## El menú de un libro en la cuadrícula

tile-menu = Acciones de { $title }
tile-menu-mark-read = Marcar como leído
tile-menu-mark-unread = Marcar como no leído
tile-menu-mark-series-read = Marcar la serie como leída
tile-menu-mark-series-unread = Marcar la serie como no leída
tile-menu-details = Ver detalles
tile-menu-failed = No se pudo marcar { $title }: { $reason }
tile-menu-series-failed = No se pudo marcar la serie de { $title }: { $reason }
