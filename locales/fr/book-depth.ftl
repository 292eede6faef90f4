## Lecteur EPUB : recherche, signets, surlignages, notes, notes de bas de page, temps restant, typographie

book-search = Rechercher dans le livre
book-search-button = Rechercher
book-search-shortcut = Rechercher dans le livre (Ctrl+F)
book-search-field = Mots à trouver
book-search-results = { $count ->
    [0] Aucun résultat
    [one] Un résultat
   *[other] { $count } résultats
}
book-search-position = { $current } sur { $count }
book-search-searching = Recherche…
book-search-previous = Résultat précédent (Maj+Entrée)
book-search-next = Résultat suivant (Entrée)
book-search-close = Fermer la recherche (Échap)

book-footnote = Note
book-footnote-close = Fermer

book-time-left = { $chapter } min restantes dans le chapitre · { $book } min dans le livre

book-typography-text = Texte
book-typography-justify = Justifier
book-typography-hyphenate = Césure
book-typography-spacing = Paragraphes
book-typography-spacing-less = Moins d’espace entre les paragraphes
book-typography-spacing-more = Plus d’espace entre les paragraphes
book-typography-spacing-original = Du livre
book-typography-spacing-em = { NUMBER($value, maximumFractionDigits: 2) } em
book-typography-default = Utiliser par défaut
book-typography-default-title = Ouvrir avec cette mise en forme les livres sans réglage propre
book-typography-made-default = Les livres sans réglage propre s’ouvrent maintenant avec cette mise en forme
