# Les lecteurs de BD, d’EPUB et de PDF.

## Both readers: the top bar

reader-back = Bibliothèque
reader-back-title = Retour à la bibliothèque (Échap)

## Page reader: comics and PDFs

reader-page = Page { $page }
reader-page-of = Page { $page } sur { $total }
reader-pages-of = Pages { $first }–{ $last } sur { $total }
reader-slider = Page
reader-retry = Réessayer
reader-page-loading = Chargement de la page { $page }…
reader-page-failed-title = Cette page ne peut pas être affichée
reader-page-failed-message = La page { $page } de ce PDF n’a pas pu être dessinée ({ $reason }).
reader-page-offline-title = Hors ligne — cette page n’est pas téléchargée
reader-page-offline-message = Le serveur est injoignable et la page { $page } n’est pas encore sur cet appareil.
reader-strip-offline = La page { $page } n’est pas téléchargée et le serveur est injoignable.
reader-contents = Sommaire
reader-contents-title = Le sommaire du livre
reader-continued-elsewhere = Reprise à la page { $page }, là où vous vous étiez arrêté sur un autre appareil
reader-pdf-only-in-app = Les PDF ne peuvent être lus que dans l’app
reader-pdf-unreadable = Ce fichier n’a pas pu être lu comme un PDF ({ $reason })
reader-pdf-empty = Ce PDF n’a aucune page
reader-open-failed = Le livre n’a pas pu être ouvert ({ $status })
reader-open-failed-because = Le livre n’a pas pu être ouvert ({ $status } : { $reason })
reader-not-on-device = Ce livre n’est pas sur l’appareil et le serveur est injoignable

## EPUB reader

epub-contents = Sommaire
epub-text-settings = Réglages du texte
epub-layout = Mise en page
epub-flow-pages = Pages
epub-flow-scroll = Défilement
epub-theme = Thème
epub-theme-light = Clair
epub-theme-sepia = Sépia
epub-theme-dark = Sombre
epub-font = Police
epub-font-original = Police du livre
epub-font-serif = Serif
epub-font-sans-serif = Sans serif
epub-font-monospace = Chasse fixe
epub-font-installed = Police installée
epub-font-installed-none = Aucune (le choix ci-dessus)
epub-size = Taille
epub-line-height = Interligne
epub-margins = Marges
epub-percent = { $percent } %
epub-error-title = Impossible d’ouvrir ce livre
epub-opening = Ouverture…
epub-previous = Précédent (←)
epub-next = Suivant (→)
epub-position = Position dans le livre
epub-goto = Aller à un endroit du livre
epub-goto-percent = Aller à un endroit du livre, en pourcentage
epub-untitled = Sans titre
epub-continued-elsewhere = Reprise à { $percent } %, là où vous vous étiez arrêté sur un autre appareil
epub-only-in-app = Ce livre ne peut être lu que dans l’app.
epub-not-on-device = Ce livre n’est pas sur l’appareil et le serveur est injoignable.
epub-open-failed-status = Le livre n’a pas pu être ouvert ({ $status }).
