## EPUB-Reader: Suche, Lesezeichen, Markierungen, Notizen, Fußnoten, Restzeit, Typografie

book-search = Im Buch suchen
book-search-button = Suchen
book-search-shortcut = Im Buch suchen (Strg+F)
book-search-field = Gesuchte Wörter
book-search-results = { $count ->
    [0] Keine Treffer
    [one] Ein Treffer
   *[other] { $count } Treffer
}
book-search-position = { $current } von { $count }
book-search-searching = Suche läuft…
book-search-previous = Vorheriger Treffer (Umschalt+Eingabe)
book-search-next = Nächster Treffer (Eingabe)
book-search-close = Suche schließen (Esc)
book-search-page = Seite { $page }

book-footnote = Anmerkung
book-footnote-close = Schließen

book-time-left = Noch { $chapter } Min. im Kapitel · { $book } Min. im Buch

book-typography-text = Text
book-typography-justify = Blocksatz
book-typography-hyphenate = Silbentrennung
book-typography-spacing = Absätze
book-typography-spacing-less = Weniger Abstand zwischen Absätzen
book-typography-spacing-more = Mehr Abstand zwischen Absätzen
book-typography-spacing-original = Wie im Buch
book-typography-spacing-em = { NUMBER($value, maximumFractionDigits: 2) } em
book-typography-default = Als Standard verwenden
book-typography-default-title = Bücher ohne eigene Einstellung mit diesem Textbild öffnen
book-typography-made-default = Bücher ohne eigene Einstellung öffnen sich jetzt mit diesem Textbild

book-bookmark = Lesezeichen
book-bookmark-shortcut = Lesezeichen hier setzen (Strg+D)
book-bookmark-added = Lesezeichen gesetzt
book-bookmark-removed = Lesezeichen entfernt
book-annotations = Lesezeichen und Markierungen
book-annotations-button = Notizen
book-annotations-none = Noch keine Lesezeichen oder Markierungen. Wählen Sie Text aus, um ihn zu markieren (per Tastatur: Umschalt+Pfeiltasten, dann H).
book-annotation-edit = Bearbeiten
book-annotation-delete = Löschen
book-annotation-save = Speichern
book-annotation-cancel = Abbrechen
book-annotation-page = Seite { $page }
book-highlight-new = Markieren
book-highlight-edit = Markierung bearbeiten
book-highlight-colour = Farbe
book-highlight-yellow = Gelb
book-highlight-green = Grün
book-highlight-blue = Blau
book-highlight-pink = Rosa
book-highlight-add-note = Notiz hinzufügen
book-highlight-note = Notiz
book-highlight-note-placeholder = Ihre Notiz (optional)
book-highlight-pick-colour = Wählen Sie eine Farbe zum Markieren
book-export-markdown = Als Markdown exportieren
book-export-json = Als JSON exportieren
book-export-title = Exportierte Notizen
book-export-copy = Kopieren
book-export-copied = Kopiert
book-export-copy-failed = Kopieren nicht möglich. Markieren Sie den Text und kopieren Sie ihn selbst.
book-export-download = Als Datei speichern
book-export-close = Schließen
