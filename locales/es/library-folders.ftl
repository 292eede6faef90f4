# Ajustes → Carpetas de la biblioteca: carpetas de este ordenador cuyos libros se suman a Libros
# en este dispositivo, leídos donde están y seguidos cuando sus archivos cambian.

library-folders-title = Carpetas de la biblioteca
library-folders-hint = Los libros de estas carpetas se suman a Libros en este dispositivo y se leen donde están. Carrel sigue los archivos que se añaden, cambian o eliminan; nunca los modifica ni los borra.
library-folders-loading = Cargando las carpetas de la biblioteca…
library-folders-empty = Aún no hay carpetas de la biblioteca.
library-folders-add = Añadir carpeta…
library-folders-choose-title = Elegir una carpeta de la biblioteca
library-folders-path-label = Ruta de la carpeta
library-folders-add-path = Añadir
library-folders-books =
    { $count ->
        [one] Un libro
       *[other] { $count } libros
    }
library-folders-scanned = revisada { $ago }
library-folders-not-scanned = aún no revisada
library-folders-rescan = Revisar de nuevo
library-folders-remove = Quitar
library-folders-rescan-label = Revisar de nuevo { $path }
library-folders-remove-label = Quitar { $path }
library-folders-looking = Buscando libros… { $found } encontrados
library-folders-scanning = Revisando… { $done } de { $total }
library-folders-scan-failed = No se pudo revisar esta carpeta: { $reason }
library-folders-remove-title = ¿Quitar esta carpeta de la biblioteca?
library-folders-remove-body =
    { $count ->
        [one] El libro de { $path } sale de Libros en este dispositivo, con su posición de lectura y sus notas. Los archivos se quedan donde están.
       *[other] Los { $count } libros de { $path } salen de Libros en este dispositivo, con sus posiciones de lectura y sus notas. Los archivos se quedan donde están.
    }
library-folders-remove-confirm = Quitar carpeta
library-folders-removed =
    { $count ->
        [one] Carpeta quitada; un libro salió de la biblioteca.
       *[other] Carpeta quitada; { $count } libros salieron de la biblioteca.
    }
