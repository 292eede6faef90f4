## Lector EPUB: búsqueda, marcadores, subrayados, notas, notas al pie, tiempo restante, tipografía

book-search = Buscar en el libro
book-search-button = Buscar
book-search-shortcut = Buscar en el libro (Ctrl+F)
book-search-field = Palabras que buscar
book-search-results = { $count ->
    [0] Ningún resultado
    [one] Un resultado
   *[other] { $count } resultados
}
book-search-position = { $current } de { $count }
book-search-searching = Buscando…
book-search-previous = Resultado anterior (Mayús+Intro)
book-search-next = Resultado siguiente (Intro)
book-search-close = Cerrar la búsqueda (Esc)

book-footnote = Nota
book-footnote-close = Cerrar
