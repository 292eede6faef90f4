# Der Comic- und PDF-Leser, seine Werkzeuge und Bildeinstellungen; die Karte am Ende oder Anfang
# eines Buchs (beide Leser); das Menü eines Buchs im Raster.

## Der Comic- und PDF-Leser

comic-error-title = Dieses Buch kann nicht geöffnet werden
comic-retry = Erneut versuchen
comic-downloads-paused = Downloads sind pausiert: Dieses Buch öffnet sich, sobald seine Datei da ist.
comic-downloading = Buch wird heruntergeladen …
comic-downloading-percent = Buch wird heruntergeladen … { $percent } %
comic-opening = Wird geöffnet …
comic-no-pages-title = Keine Seiten zum Anzeigen
comic-no-pages-message = Dieses Buch wird nicht Seite für Seite gelesen.

## Seine Werkzeuge

comic-layout = Ansicht
comic-layout-single = Einzeln
comic-layout-single-title = Eine Seite auf einmal
comic-layout-spread = Zwei Seiten
comic-layout-spread-title = Zwei gegenüberliegende Seiten, das Cover allein
comic-layout-webtoon = Scrollen
comic-layout-webtoon-title = Alle Seiten in einem senkrechten Streifen (Webtoon)
comic-offset = Seiten versetzen
comic-offset-title = Seiten um eins versetzen: Seite 2 allein, dann 3 und 4 nebeneinander
comic-fit = Einpassen
comic-fit-width = Breite
comic-fit-width-title = An Breite anpassen
comic-fit-height = Höhe
comic-fit-height-title = An Höhe anpassen
comic-fit-screen = Bildschirm
comic-fit-screen-title = Ganze Seite zeigen
comic-fit-original = Original
comic-fit-original-title = Originalgröße
comic-zoom = Zoom
comic-zoom-out = Verkleinern
comic-zoom-out-title = Verkleinern (−)
comic-zoom-reset = Zoom { $zoom }: zurück zur Einpassung
comic-zoom-reset-title = Zurück zur Einpassung (0)
comic-zoom-in = Vergrößern
comic-zoom-in-title = Vergrößern (+)
comic-direction = Leserichtung
comic-direction-ltr = L→R
comic-direction-ltr-title = Von links nach rechts
comic-direction-rtl = R→L
comic-direction-rtl-title = Von rechts nach links (Manga)
comic-make-default = Als Standard
comic-make-default-title = Bücher ohne eigene Einstellungen mit diesen Einstellungen öffnen
comic-made-default = Bücher ohne eigene Einstellungen öffnen sich jetzt mit diesen Einstellungen
comic-fullscreen = Vollbild
comic-fullscreen-title = Vollbild (F)

## Bildeinstellungen

comic-adjust = Bild
comic-adjust-title = Helligkeit, Kontrast und Wärme der Seiten
comic-adjust-panel = Bildeinstellungen
comic-adjust-brightness = Helligkeit
comic-adjust-contrast = Kontrast
comic-adjust-warmth = Wärme
comic-adjust-percent = { $value } %
comic-adjust-reset = Zurücksetzen

## Die Karte am Ende oder Anfang eines Buchs

end-card-finished = Sie haben { $title } beendet
end-card-start-of = Der Anfang von { $title }
end-card-next = Als Nächstes:
end-card-next-in = Als Nächstes in { $series }:
end-card-before = Davor:
end-card-before-in = Davor in { $series }:
end-card-number = Nummer { $number }
end-card-on-device = Auf diesem Gerät
end-card-not-on-device = Noch nicht auf diesem Gerät
end-card-download-failed = Download fehlgeschlagen: { $reason }
end-card-read = { $title } lesen
end-card-back = Zurück
end-card-series-last = Das war das letzte Buch von { $series }
end-card-series-first = Das ist das erste Buch von { $series }
end-card-stay-page-one = Zurück zu Seite 1
end-card-stay-start = Zurück zum Anfang

## Das Menü eines Buchs im Raster

tile-menu = Aktionen für { $title }
tile-menu-mark-read = Als gelesen markieren
tile-menu-mark-unread = Als ungelesen markieren
tile-menu-mark-series-read = Serie als gelesen markieren
tile-menu-mark-series-unread = Serie als ungelesen markieren
tile-menu-details = Details anzeigen
tile-menu-failed = { $title } konnte nicht markiert werden: { $reason }
tile-menu-series-failed = Die Serie von { $title } konnte nicht markiert werden: { $reason }
