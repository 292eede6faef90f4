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
