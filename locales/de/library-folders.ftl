# Einstellungen → Bibliotheksordner: Ordner auf diesem Computer, deren Bücher zu „Bücher auf
# diesem Gerät“ gehören, an Ort und Stelle gelesen und verfolgt, wenn sich ihre Dateien ändern.

library-folders-title = Bibliotheksordner
library-folders-hint = Bücher in diesen Ordnern erscheinen unter „Bücher auf diesem Gerät“ und werden dort gelesen, wo sie liegen. Carrel verfolgt, wenn Dateien hinzukommen, sich ändern oder verschwinden; es ändert oder löscht sie nie.
library-folders-loading = Bibliotheksordner werden geladen …
library-folders-empty = Noch keine Bibliotheksordner.
library-folders-add = Ordner hinzufügen …
library-folders-choose-title = Bibliotheksordner wählen
library-folders-path-label = Pfad des Ordners
library-folders-add-path = Hinzufügen
library-folders-books =
    { $count ->
        [one] Ein Buch
       *[other] { $count } Bücher
    }
library-folders-scanned = durchsucht { $ago }
library-folders-not-scanned = noch nicht durchsucht
library-folders-rescan = Erneut durchsuchen
library-folders-remove = Entfernen
library-folders-rescan-label = { $path } erneut durchsuchen
library-folders-remove-label = { $path } entfernen
library-folders-looking = Suche nach Büchern … { $found } gefunden
library-folders-scanning = Durchsuchen … { $done } von { $total }
library-folders-scan-failed = Dieser Ordner konnte nicht durchsucht werden: { $reason }
library-folders-remove-title = Diesen Bibliotheksordner entfernen?
library-folders-remove-body =
    { $count ->
        [one] Das Buch aus { $path } verschwindet aus „Bücher auf diesem Gerät“, mit seiner Leseposition und seinen Notizen. Die Dateien bleiben, wo sie sind.
       *[other] Die { $count } Bücher aus { $path } verschwinden aus „Bücher auf diesem Gerät“, mit ihren Lesepositionen und Notizen. Die Dateien bleiben, wo sie sind.
    }
library-folders-remove-confirm = Ordner entfernen
library-folders-removed =
    { $count ->
        [one] Ordner entfernt; ein Buch hat die Bibliothek verlassen.
       *[other] Ordner entfernt; { $count } Bücher haben die Bibliothek verlassen.
    }
