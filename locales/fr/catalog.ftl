# Parcourir le catalogue d’un serveur, rechercher, et les détails d’un livre.

## Browse: a server's catalog

browse-results-title = Résultats pour « { $query } »
browse-count =
    { $count ->
        [one] { $count } livre
       *[other] { $count } livres
    }
browse-count-more = { $count }+ livres
browse-keep-all = Tout garder hors ligne
    .title = Garder sur cet appareil tous les livres listés ici, pages suivantes comprises
browse-keep-all-queuing = Mise en file…
browse-keep-all-queued =
    { $count ->
        [one] { $count } livre de « { $title } » gardé hors ligne — suivez-le dans Téléchargements
       *[other] { $count } livres de « { $title } » gardés hors ligne — suivez-les dans Téléchargements
    }
browse-keep-all-none = Tous les livres de « { $title } » sont déjà sur cet appareil
browse-keep-all-failed = Impossible de garder ces livres hors ligne : { $error }
browse-offline = Hors ligne — la bibliothèque telle que vue { $ago }.
browse-retry = Réessayer
browse-loading = Chargement de { $title }
browse-auth-title = { $server } vous demande de vous connecter
browse-auth-message = Carrel a besoin d’un nom d’utilisateur et d’un mot de passe acceptés par ce serveur.
browse-sign-in = Se connecter…
browse-certificate-title = Le certificat de { $server } n’est pas reconnu
browse-certificate-message = Carrel ne peut pas confirmer l’identité de ce serveur : son certificat est auto-signé ou vient d’une autorité que cet ordinateur ne connaît pas. Si ce serveur est le vôtre, vous pouvez choisir de lui faire confiance.
browse-trust = Faire confiance à ce serveur…
browse-search-failed = Impossible de rechercher sur ce serveur
browse-open-failed = Impossible d’ouvrir cette partie du catalogue
browse-go-back = Revenir
browse-no-match-title = Aucun livre ne correspond à « { $query } »
browse-no-match-message = Essayez d’autres mots, ou moins de mots.
browse-empty-title = Rien ici
browse-empty-message = Cette partie du catalogue est vide.
browse-sections = Rubriques
browse-books = Livres
browse-loading-more = Chargement de la suite…
browse-more-failed = Impossible de charger la suite : { $error }
browse-load-more = Charger la suite
browse-crumb-query = « { $query } »

## Search box

search-box-label = Rechercher dans { $server }

## Search everywhere

search-title = Rechercher partout
search-label = Rechercher dans toutes les bibliothèques
search-intro-title = Trouvez un livre où qu’il soit
search-intro-message = Carrel interroge tous les serveurs à la fois, et trouve les livres de cet appareil par titre, auteur ou série même quand aucun serveur ne répond.
search-local-title = Sur cet appareil
search-count =
    { $count ->
        [one] { $count } livre
       *[other] { $count } livres
    }
search-count-more =
    { $count ->
        [one] { $count } livre ou plus
       *[other] { $count } livres ou plus
    }
search-looking = Recherche…
search-local-none = Aucun livre de cet appareil ne correspond à « { $query } ».
search-local-books = Livres sur cet appareil
search-searching = Recherche en cours…
search-no-search = Le catalogue de ce serveur ne permet pas de rechercher.
search-server-auth = Ce serveur vous demande de vous connecter.
search-offline = Hors ligne — résultats gardés { $ago }.
search-server-none = Aucun livre ne correspond à « { $query } ».
search-server-books = Livres sur { $server }
search-nothing = Rien ne correspond à « { $query } », nulle part. Essayez d’autres mots, ou moins de mots.

## Book details

details-label = Détails du livre
details-new-window = Ouvrir dans une nouvelle fenêtre
details-new-window-failed = Impossible d’ouvrir une nouvelle fenêtre : { $error }
details-close = Fermer les détails
details-loading = Chargement des détails du livre
details-failed = Impossible de lire les détails de ce livre
details-retry-load = Réessayer
details-read = Lu
details-not-read = Pas encore lu
details-downloaded = Téléchargé
details-progress-pages =
    { $stored ->
        [one] { $stored } page sur { $total }
       *[other] { $stored } pages sur { $total }
    }
details-progress-bytes = { $stored } sur { $total }
details-retry = Réessayer
details-retrying = Nouvel essai…
details-opening = Ouverture…
details-open-other-app = Ouvrir avec une autre app
details-continue = Reprendre la lecture
details-start-reading = Lire
details-saving = Enregistrement…
details-mark-read = Marquer comme lu
details-mark-unread = Marquer comme non lu
details-mark-series-read = Marquer la série comme lue
details-mark-series-unread = Marquer la série comme non lue
details-keep = Garder hors ligne
details-keeping = Mise de côté…
details-remove = Retirer de l’appareil
details-kept-note = Gardé hors ligne pour de bon : il reste sur cet appareil jusqu’à ce que vous le retiriez.
details-cached-note = Sur cet appareil pour l’instant, parmi les derniers livres que vous avez lus ; il partira quand de plus récents prendront sa place. « Garder hors ligne » le garde pour de bon.
details-other-format = Carrel ne sait pas afficher les livres { $format }. « Ouvrir avec une autre app » le télécharge (s’il n’est pas encore sur cet appareil) et l’ouvre dans l’app que cet ordinateur utilise pour ces fichiers.
details-about = À propos de ce livre
details-fact-format = Format
details-format-with-type = { $format } ({ $type })
details-fact-pages = Pages
details-fact-size = Taille
details-fact-server = Serveur
details-fact-last-read = Dernière lecture
details-last-read-place = { $place }, { $ago }

## Book tile and its marks

tile-downloaded = Téléchargé
tile-read = Lu
badge-queued = En attente
badge-failed = Échec
badge-failed-reason = Échec : { $reason }
badge-remote = Distant
badge-stored = Sur l’appareil
badge-downloading = Téléchargement { $percent }
badge-queued-percent = En attente · { $percent }
badge-reason-unknown = le téléchargement a échoué

## Series read-ahead, in the book details

series-title = Lire « { $series } »
series-keep-label = Garder sur cet appareil
series-keep-none = seulement les livres que je garde
series-keep-next =
    { $count ->
        [one] le prochain livre non lu
       *[other] les { $count } prochains livres non lus
    }
series-remove-label = Livres lus
series-remove-never = restent sur cet appareil
series-remove-once-read = sont retirés une fois lus
series-remove-day = sont retirés un jour après
series-remove-week = sont retirés une semaine après
series-remove-month = sont retirés un mois après
series-here =
    { $here ->
        [one] { $here } livre sur { $total } de cette série sur cet appareil.
       *[other] { $here } livres sur { $total } de cette série sur cet appareil.
    }
series-here-waiting =
    { $here ->
        [one] { $here } livre sur { $total } de cette série sur cet appareil, { $waiting } en route.
       *[other] { $here } livres sur { $total } de cette série sur cet appareil, { $waiting } en route.
    }
series-note-read-ahead = Les suivants se téléchargent au fil de votre lecture, après le livre en cours.
series-note-server-default = C’est le réglage par défaut du serveur pour les séries que vous lisez.
series-note-default-ahead =
    { $count ->
        [one] Dès que vous la lirez, le réglage par défaut du serveur gardera le prochain livre non lu.
       *[other] Dès que vous la lirez, le réglage par défaut du serveur gardera les { $count } prochains livres non lus.
    }

## Numbers, sizes and times, as every screen writes them

format-bytes =
    { $count ->
        [one] { $count } octet
       *[other] { $count } octets
    }
format-rate = { $size }/s
format-percent = { $percent } %
format-place-chapter = { $percent } · { $chapter }
format-page-of = Page { $page } sur { $total }
format-page = Page { $page }
format-eta-seconds = encore quelques secondes
format-eta-under-minute = moins d’une minute restante
format-eta-minutes =
    { $minutes ->
        [one] environ { $minutes } min restante
       *[other] environ { $minutes } min restantes
    }
format-eta-hours =
    { $hours ->
        [one] environ { $hours } h restante
       *[other] environ { $hours } h restantes
    }
format-eta-hours-minutes = environ { $hours } h { $minutes } min restantes
format-eta-days = environ { $days } jours restants
format-series = { $series } nº { $index }
format-authors = { $first } et { $last }
format-pages =
    { $count ->
        [one] { $count } page
       *[other] { $count } pages
    }
format-name-comic = BD
format-name-book = Livre
format-ago-now = à l’instant
format-ago-date = le { $date }

## Errors without a message of their own

error-unknown = un problème est survenu dans Carrel

## Books on this device: sorting and filtering

on-device-count-filtered = { $shown } sur { $total }
on-device-filter-label = Filtrer les livres de cet appareil
on-device-filter-placeholder = Titre, auteur ou série
on-device-sort-label = Trier par
on-device-sort-title = Titre
on-device-sort-series = Série et numéro
on-device-sort-author = Auteur
on-device-sort-added = Date d’ajout
on-device-sort-last-read = Dernière lecture
on-device-order-ascending = Croissant
on-device-order-descending = Décroissant
on-device-order-switch = Inverser l’ordre
on-device-format-label = Format
on-device-format-all = Tous les formats
on-device-format-comic = Bandes dessinées
on-device-format-epub = EPUB
on-device-format-pdf = PDF
on-device-read-label = Lecture
on-device-read-all = Tous
on-device-read-unread = Non lus
on-device-read-in-progress = En cours
on-device-read-read = Lus
on-device-source-label = Source
on-device-source-all = Toutes les sources
on-device-source-device = Cet appareil
on-device-group-series = Grouper par série
on-device-no-series = Sans série
on-device-no-match-title = Aucun livre ne correspond
on-device-no-match-message = Aucun livre de cet appareil ne correspond à ces filtres.
on-device-clear-filters = Effacer les filtres

## A feed's facets (the server's orders and filters)

browse-facet-group = Affichage
browse-facet-count = { $title } ({ $count })
browse-facet-none = Choisir…
