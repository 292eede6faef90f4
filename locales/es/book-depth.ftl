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
book-search-page = Página { $page }

book-footnote = Nota
book-footnote-close = Cerrar

book-time-left = Quedan { $chapter } min en el capítulo · { $book } min en el libro

book-typography-text = Texto
book-typography-justify = Justificar
book-typography-hyphenate = Guiones
book-typography-spacing = Párrafos
book-typography-spacing-less = Menos espacio entre párrafos
book-typography-spacing-more = Más espacio entre párrafos
book-typography-spacing-original = Del libro
book-typography-spacing-em = { NUMBER($value, maximumFractionDigits: 2) } em
book-typography-default = Usar por defecto
book-typography-default-title = Abrir con este formato de texto los libros sin ajuste propio
book-typography-made-default = Los libros sin ajuste propio se abren ahora con este formato de texto

book-bookmark = Marcador
book-bookmark-shortcut = Añadir un marcador aquí (Ctrl+D)
book-bookmark-added = Marcador añadido
book-bookmark-removed = Marcador quitado
book-annotations = Marcadores y subrayados
book-annotations-button = Notas
book-annotations-none = Aún no hay marcadores ni subrayados. Selecciona texto para subrayarlo (con el teclado: Mayús+flechas y luego H).
book-annotation-edit = Editar
book-annotation-delete = Eliminar
book-annotation-save = Guardar
book-annotation-cancel = Cancelar
book-annotation-page = Página { $page }
book-highlight-new = Subrayar
book-highlight-edit = Editar el subrayado
book-highlight-colour = Color
book-highlight-yellow = Amarillo
book-highlight-green = Verde
book-highlight-blue = Azul
book-highlight-pink = Rosa
book-highlight-add-note = Añadir una nota
book-highlight-note = Nota
book-highlight-note-placeholder = Tu nota (opcional)
book-highlight-pick-colour = Elige un color para subrayar
book-export-markdown = Exportar en Markdown
book-export-json = Exportar en JSON
book-export-title = Notas exportadas
book-export-copy = Copiar
book-export-copied = Copiado
book-export-copy-failed = No se pudo copiar. Selecciona el texto y cópialo tú.
book-export-download = Guardar como archivo
book-export-close = Cerrar
