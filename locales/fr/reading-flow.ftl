# Le lecteur de BD et de PDF, ses outils et ses réglages d’image ; la carte de fin ou de début
# d’un livre (les deux lecteurs) ; le menu d’un livre dans la grille.

## Le lecteur de BD et de PDF

comic-error-title = Impossible d’ouvrir ce livre
comic-retry = Réessayer
comic-downloads-paused = Les téléchargements sont en pause : ce livre s’ouvrira dès que son fichier sera là.
comic-downloading = Téléchargement du livre…
comic-downloading-percent = Téléchargement du livre… { $percent } %
comic-opening = Ouverture…
comic-no-pages-title = Aucune page à afficher
comic-no-pages-message = Ce livre ne se lit pas page par page.

## Ses outils

comic-layout = Disposition
comic-layout-single = Simple
comic-layout-single-title = Une page à la fois
comic-layout-spread = Deux pages
comic-layout-spread-title = Deux pages en regard, la couverture seule
comic-layout-webtoon = Défilement
comic-layout-webtoon-title = Toutes les pages en une seule bande verticale (webtoon)
comic-offset = Décaler les pages
comic-offset-title = Décaler les pages d’une : la page 2 seule, puis 3 et 4 en regard
comic-fit = Ajustement
comic-fit-width = Largeur
comic-fit-width-title = Ajuster à la largeur
comic-fit-height = Hauteur
comic-fit-height-title = Ajuster à la hauteur
comic-fit-screen = Écran
comic-fit-screen-title = Afficher la page entière
comic-fit-original = Original
comic-fit-original-title = Taille d’origine
comic-zoom = Zoom
comic-zoom-out = Zoom arrière
comic-zoom-out-title = Zoom arrière (−)
comic-zoom-reset = Zoom { $zoom } : revenir à l’ajustement
comic-zoom-reset-title = Revenir à l’ajustement (0)
comic-zoom-in = Zoom avant
comic-zoom-in-title = Zoom avant (+)
comic-direction = Sens de lecture
comic-direction-ltr = G→D
comic-direction-ltr-title = De gauche à droite
comic-direction-rtl = D→G
comic-direction-rtl-title = De droite à gauche (manga)
comic-make-default = Par défaut
comic-make-default-title = Ouvrir avec ces réglages les livres sans réglages propres
comic-made-default = Les livres sans réglages propres s’ouvrent désormais avec ces réglages
comic-fullscreen = Plein écran
comic-fullscreen-title = Plein écran (F)

## Réglages d’image

comic-adjust = Image
comic-adjust-title = Luminosité, contraste et chaleur des pages
comic-adjust-panel = Réglages d’image
comic-adjust-brightness = Luminosité
comic-adjust-contrast = Contraste
comic-adjust-warmth = Chaleur
comic-adjust-percent = { $value } %
comic-adjust-reset = Réinitialiser

## La carte de fin ou de début d’un livre

end-card-finished = Vous avez terminé { $title }
end-card-start-of = Le début de { $title }
end-card-next = Ensuite :
end-card-next-in = Ensuite dans { $series } :
end-card-before = Avant celui-ci :
end-card-before-in = Avant celui-ci dans { $series } :
end-card-number = Numéro { $number }
end-card-on-device = Sur cet appareil
end-card-not-on-device = Pas encore sur cet appareil
end-card-download-failed = Échec du téléchargement : { $reason }
end-card-read = Lire { $title }
end-card-back = Retour
end-card-series-last = C’était le dernier livre de { $series }
end-card-series-first = C’est le premier livre de { $series }
end-card-stay-page-one = Revenir à la page 1
end-card-stay-start = Revenir au début

## Le menu d’un livre dans la grille

tile-menu = Actions pour { $title }
tile-menu-mark-read = Marquer comme lu
tile-menu-mark-unread = Marquer comme non lu
tile-menu-mark-series-read = Marquer la série comme lue
tile-menu-mark-series-unread = Marquer la série comme non lue
tile-menu-details = Afficher les détails
tile-menu-failed = Impossible de marquer { $title } : { $reason }
tile-menu-series-failed = Impossible de marquer la série de { $title } : { $reason }
