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
