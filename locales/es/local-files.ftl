# Los archivos de libros propios abiertos en Carrel: Archivo → Abrir, soltarlos en la ventana, `carrel ARCHIVO`.

## Abrir archivos

local-files-open = Abrir archivo…
local-files-choose-title = Abrir libros
local-files-filter-books = Libros (EPUB, CBZ, CBR, CB7, CBT, PDF)
local-files-added =
    { $count ->
        [one] Un libro añadido a Libros en este dispositivo
       *[other] { $count } libros añadidos a Libros en este dispositivo
    }
local-files-not-opened = No se pudo abrir «{ $file }»: { $reason }
local-files-not-opened-many =
    { $count ->
        [one] { $count } archivo no se pudo abrir: «{ $file }»: { $reason }
       *[other] { $count } archivos no se pudieron abrir, entre ellos «{ $file }»: { $reason }
    }
local-files-failed = No se pudieron abrir los archivos: { $reason }

## Arrastrar archivos sobre la ventana

local-files-drop-title = Suelta libros para abrirlos
local-files-drop-copy = Se copian en la biblioteca de Carrel.
local-files-drop-reference = Carrel los lee donde están.

## Ajustes

local-files-setting-title = Tus propios archivos
local-files-setting-copy = Copiar los archivos que abras en la biblioteca de Carrel
local-files-setting-copy-hint = Si no, Carrel los lee donde están: no se copia nada, y un archivo movido o borrado sale de la biblioteca.
