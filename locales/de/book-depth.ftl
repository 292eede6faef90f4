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
