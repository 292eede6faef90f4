# Eigene Buchdateien in Carrel öffnen: Datei → Öffnen, Ablegen auf dem Fenster, `carrel DATEI`.

## Dateien öffnen

local-files-open = Datei öffnen…
local-files-choose-title = Bücher öffnen
local-files-filter-books = Bücher (EPUB, CBZ, CBR, CB7, CBT, PDF)
local-files-added =
    { $count ->
        [one] Ein Buch zu „Bücher auf diesem Gerät“ hinzugefügt
       *[other] { $count } Bücher zu „Bücher auf diesem Gerät“ hinzugefügt
    }
local-files-not-opened = „{ $file }“ konnte nicht geöffnet werden: { $reason }
local-files-not-opened-many =
    { $count ->
        [one] { $count } Datei konnte nicht geöffnet werden: „{ $file }“: { $reason }
       *[other] { $count } Dateien konnten nicht geöffnet werden, darunter „{ $file }“: { $reason }
    }
local-files-failed = Die Dateien konnten nicht geöffnet werden: { $reason }

## Dateien über das Fenster ziehen

local-files-drop-title = Bücher hier ablegen, um sie zu öffnen
local-files-drop-copy = Sie werden in die Bibliothek von Carrel kopiert.
local-files-drop-reference = Carrel liest sie dort, wo sie liegen.

## Einstellungen

local-files-setting-title = Eigene Dateien
local-files-setting-copy = Geöffnete Dateien in die Bibliothek von Carrel kopieren
local-files-setting-copy-hint = Sonst liest Carrel sie dort, wo sie liegen: Nichts wird kopiert, und eine verschobene oder gelöschte Datei verlässt die Bibliothek.
