# Réglages → Dossiers de bibliothèque : des dossiers de cet ordinateur dont les livres rejoignent
# Livres sur cet appareil, lus sur place, et suivis quand leurs fichiers changent.

library-folders-title = Dossiers de bibliothèque
library-folders-hint = Les livres de ces dossiers rejoignent Livres sur cet appareil et sont lus là où ils sont. Carrel suit les fichiers ajoutés, modifiés ou supprimés ; il ne les modifie ni ne les supprime jamais.
library-folders-loading = Chargement des dossiers de bibliothèque…
library-folders-empty = Aucun dossier de bibliothèque pour l’instant.
library-folders-add = Ajouter un dossier…
library-folders-choose-title = Choisir un dossier de bibliothèque
library-folders-path-label = Chemin du dossier
library-folders-add-path = Ajouter
library-folders-books =
    { $count ->
        [one] Un livre
       *[other] { $count } livres
    }
library-folders-scanned = parcouru { $ago }
library-folders-not-scanned = pas encore parcouru
library-folders-rescan = Parcourir à nouveau
library-folders-remove = Retirer
library-folders-rescan-label = Parcourir à nouveau { $path }
library-folders-remove-label = Retirer { $path }
library-folders-looking = Recherche de livres… { $found } trouvés
library-folders-scanning = Analyse… { $done } sur { $total }
library-folders-scan-failed = Impossible de parcourir ce dossier : { $reason }
library-folders-remove-title = Retirer ce dossier de bibliothèque ?
library-folders-remove-body =
    { $count ->
        [one] Le livre de { $path } quitte Livres sur cet appareil, avec sa position de lecture et ses notes. Les fichiers restent où ils sont.
       *[other] Les { $count } livres de { $path } quittent Livres sur cet appareil, avec leurs positions de lecture et leurs notes. Les fichiers restent où ils sont.
    }
library-folders-remove-confirm = Retirer le dossier
library-folders-removed =
    { $count ->
        [one] Dossier retiré ; un livre a quitté la bibliothèque.
       *[other] Dossier retiré ; { $count } livres ont quitté la bibliothèque.
    }
