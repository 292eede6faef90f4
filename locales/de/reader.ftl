# Die Leseansichten für Comics, EPUB und PDF.

## Both readers: the top bar

reader-back = Bibliothek
reader-back-title = Zurück zur Bibliothek (Esc)

## Page reader: comics and PDFs

reader-page = Seite { $page }
reader-page-of = Seite { $page } von { $total }
reader-pages-of = Seiten { $first }–{ $last } von { $total }
reader-slider = Seite
reader-retry = Wiederholen
reader-page-loading = Seite { $page } wird geladen…
reader-page-failed-title = Diese Seite kann nicht angezeigt werden
reader-page-failed-message = Seite { $page } dieses PDFs konnte nicht gezeichnet werden ({ $reason }).
reader-page-offline-title = Offline – diese Seite ist nicht heruntergeladen
reader-page-offline-message = Der Server ist nicht erreichbar und Seite { $page } ist noch nicht auf diesem Gerät.
reader-strip-offline = Seite { $page } ist nicht heruntergeladen und der Server ist nicht erreichbar.
reader-contents = Inhalt
reader-contents-title = Das Inhaltsverzeichnis des Buchs
reader-continued-elsewhere = Weiter ab Seite { $page }, wo Sie auf einem anderen Gerät aufgehört haben
reader-pdf-only-in-app = PDFs können nur in der App gelesen werden
reader-pdf-unreadable = Diese Datei konnte nicht als PDF gelesen werden ({ $reason })
reader-pdf-empty = Dieses PDF hat keine Seiten
reader-open-failed = Das Buch konnte nicht geöffnet werden ({ $status })
reader-open-failed-because = Das Buch konnte nicht geöffnet werden ({ $status }: { $reason })
reader-not-on-device = Dieses Buch ist nicht auf dem Gerät und der Server ist nicht erreichbar

## EPUB reader

epub-contents = Inhalt
epub-text-settings = Texteinstellungen
epub-layout = Darstellung
epub-flow-pages = Seiten
epub-flow-scroll = Scrollen
epub-theme = Farbschema
epub-theme-light = Hell
epub-theme-sepia = Sepia
epub-theme-dark = Dunkel
epub-font = Schrift
epub-font-original = Schrift des Buchs
epub-font-serif = Serif
epub-font-sans-serif = Serifenlos
epub-font-monospace = Festbreite
epub-font-installed = Installierte Schrift
epub-font-installed-none = Keine (die Auswahl oben)
epub-size = Größe
epub-line-height = Zeilenabstand
epub-margins = Ränder
epub-percent = { $percent } %
epub-error-title = Dieses Buch konnte nicht geöffnet werden
epub-opening = Wird geöffnet…
epub-previous = Zurück (←)
epub-next = Weiter (→)
epub-position = Position im Buch
epub-goto = Zu einer Stelle im Buch springen
epub-goto-percent = Zu einer Stelle im Buch springen, in Prozent
epub-untitled = Ohne Titel
epub-continued-elsewhere = Weiter bei { $percent } %, wo Sie auf einem anderen Gerät aufgehört haben
epub-only-in-app = Das Buch kann nur in der App gelesen werden.
epub-not-on-device = Dieses Buch ist nicht auf dem Gerät und der Server ist nicht erreichbar.
epub-open-failed-status = Das Buch konnte nicht geöffnet werden ({ $status }).
