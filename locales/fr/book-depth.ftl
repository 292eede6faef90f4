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
book-search-page = Page { $page }

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

book-bookmark = Signet
book-bookmark-shortcut = Ajouter un signet ici (Ctrl+D)
book-bookmark-added = Signet ajouté
book-bookmark-removed = Signet retiré
book-annotations = Signets et surlignages
book-annotations-button = Notes
book-annotations-none = Aucun signet ni surlignage pour l’instant. Sélectionnez du texte pour le surligner (au clavier : Maj+flèches, puis H).
book-annotation-edit = Modifier
book-annotation-delete = Supprimer
book-annotation-save = Enregistrer
book-annotation-cancel = Annuler
book-annotation-page = Page { $page }
book-highlight-new = Surligner
book-highlight-edit = Modifier le surlignage
book-highlight-colour = Couleur
book-highlight-yellow = Jaune
book-highlight-green = Vert
book-highlight-blue = Bleu
book-highlight-pink = Rose
book-highlight-add-note = Ajouter une note
book-highlight-note = Note
book-highlight-note-placeholder = Votre note (facultatif)
book-highlight-pick-colour = Choisissez une couleur pour surligner
book-export-markdown = Exporter en Markdown
book-export-json = Exporter en JSON
book-export-title = Notes exportées
book-export-copy = Copier
book-export-copied = Copié
book-export-copy-failed = Copie impossible. Sélectionnez le texte et copiez-le vous-même.
book-export-download = Enregistrer dans un fichier
book-export-close = Fermer
