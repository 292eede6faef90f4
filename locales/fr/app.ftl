# Carrel's own screens: start-up, the sidebar, Home, servers, downloads, settings.

## Shared by several screens

app-try-again = Réessayer
app-trying = Nouvel essai…

## The window while it starts

app-opening = Ouverture de votre bibliothèque…

## Sidebar

sidebar-label = Barre latérale
sidebar-main = Principal
sidebar-home = Accueil
sidebar-search = Rechercher partout
sidebar-servers = Serveurs
# A server's downloads wait; $reason is what the server said.
sidebar-server-paused = Téléchargements en pause : { $reason }
sidebar-server-offline = Hors ligne
sidebar-server-offline-title = Hors ligne : la bibliothèque telle que vue la dernière fois
sidebar-edit-server = Modifier { $name }
sidebar-remove-server = Retirer { $name }
sidebar-no-servers = Aucun serveur pour l’instant.
sidebar-add-server = Ajouter un serveur
sidebar-device = Sur cet appareil
sidebar-on-device = Livres sur cet appareil
sidebar-downloads = Téléchargements
# Parts of the downloads' summary read by screen readers, joined by commas.
sidebar-downloads-waiting =
    { $count ->
        [one] { $count } livre en attente
       *[other] { $count } livres en attente
    }
sidebar-downloads-failed =
    { $count ->
        [one] { $count } en échec
       *[other] { $count } en échec
    }
sidebar-downloads-paused = en pause
sidebar-current-download = Téléchargement en cours
sidebar-settings = Paramètres
sidebar-version = Carrel { $version }

## Start-up error (the library cannot be opened)

startup-error-title = Carrel ne peut pas ouvrir votre bibliothèque
startup-error-data-folder = Dossier de données
startup-error-no-folder = Carrel n’a trouvé aucun dossier où garder ses données.
startup-error-note = Rien n’a été modifié : vos serveurs, vos paramètres et vos livres sont intacts. Une fois la cause corrigée, relancez Carrel.
startup-error-copy = Copier les détails
startup-error-copied = Copié
startup-error-copy-failed = Copie impossible ; sélectionnez plutôt le texte ci-dessus.
# Lines of the details copied for a bug report.
startup-error-details-error = Erreur ({ $kind }) : { $message }
startup-error-details-folder = Dossier de données : { $folder }
startup-error-details-unknown = inconnu

## Library error (the list of servers could not be read)

library-error-title = Carrel n’a pas pu lire vos serveurs

## Empty library (no server yet)

empty-library-title = Pas encore de bibliothèque — ajoutez un serveur
empty-library-lead = Carrel lit les bandes dessinées et les livres numériques du catalogue OPDS d’un serveur de bibliothèque que vous gérez ou utilisez, comme Komga, Kavita, Codex, Calibre-Web ou Stump.
empty-library-add = Ajouter un serveur
empty-library-aside = Il vous faudra l’adresse du catalogue, ainsi qu’un nom d’utilisateur et un mot de passe si le serveur en demande.
empty-library-own-files = Ou lisez vos propres fichiers : bandes dessinées (CBZ, CBR, CB7, CBT), EPUB et PDF.
empty-library-open-files = Ouvrir des fichiers…
empty-library-add-folder = Ajouter un dossier de bibliothèque…
empty-library-folder-failed = Impossible d’ajouter le dossier : { $reason }

## Toasts, confirmations, breadcrumbs

toast-dismiss = Fermer
confirm-cancel = Annuler
confirm-removing = Suppression…
breadcrumbs-label = Fil d’Ariane
# Read before a search's words in the path of feeds: "Search for dragons".
breadcrumbs-search-for = Recherche de

## On this device

on-device-title = Sur cet appareil
on-device-count =
    { $count ->
        [one] { $count } livre
       *[other] { $count } livres
    }
on-device-loading = Chargement des livres de cet appareil
on-device-error = Impossible de lister les livres de cet appareil
on-device-list = Livres sur cet appareil
on-device-empty-title = Rien sur cet appareil pour l’instant
on-device-empty-message = Ouvrez les détails d’un livre et choisissez Garder hors ligne pour le lire sans le serveur. Les derniers livres lus sont gardés aussi.
# Under a book partly stored.
on-device-pages = { $stored } pages sur { $total }

## Home

home-title = Accueil
home-credentials-notice = Aucun trousseau système n’a répondu : les mots de passe enregistrés sont gardés dans un fichier du dossier de données de Carrel que seul votre compte peut lire.
home-credentials-dismiss = Ne plus afficher
home-continue-title = Reprendre la lecture
home-continue-loading = Chargement des livres en cours de lecture
home-continue-error = Impossible de lire les livres en cours de lecture
home-continue-empty = Les livres que vous ouvrez apparaissent ici, le plus récent en premier.
home-servers-title = Serveurs
home-add-server-text = Ajoutez un serveur de bibliothèque, comme Komga, Kavita ou Calibre-Web, pour parcourir son catalogue et en télécharger des livres.
home-add-server = Ajouter un serveur
home-servers-count =
    { $count ->
        [one] { $count } serveur
       *[other] { $count } serveurs
    }

## A server's card on Home

server-card-paused = Téléchargements en pause : { $reason }
server-card-offline = Hors ligne lors de la dernière visite
server-card-url = Adresse du catalogue
server-card-sign-in = Connexion
server-card-signs-in-as = Connexion en tant que { $user }
server-card-no-sign-in = Sans connexion
# $date is the day the server was added.
server-card-added = Ajouté le { $date }
server-card-edit = Modifier…
server-card-edit-label = Modifier { $name }
server-card-remove = Retirer…
server-card-remove-label = Retirer { $name }

## Sign-in dialog (a server asked for a username and password)

credentials-title = Se connecter à { $name }
credentials-description = Le serveur demande un nom d’utilisateur et un mot de passe.
credentials-username = Nom d’utilisateur
credentials-username-missing = Saisissez votre nom d’utilisateur.
credentials-password = Mot de passe
credentials-password-missing = Saisissez votre mot de passe.
credentials-kept-in-file = Le mot de passe est gardé dans un fichier du dossier de données de Carrel que seul votre compte peut lire.
credentials-kept-in-keyring = Le mot de passe est gardé dans le trousseau de votre système.
credentials-cancel = Annuler
credentials-sign-in = Se connecter
credentials-signing-in = Connexion…

## KOReader sync (in Settings)

kosync-title = Synchronisation KOReader
kosync-hint = L’endroit où vous vous êtes arrêté dans les livres gardés sur cet appareil en tant que fichiers (EPUB, PDF, CBZ…) vous suit vers et depuis vos appareils KOReader, via un serveur de synchronisation KOReader — celui de KOReader, votre Komga ou Kavita, ou le vôtre.
kosync-loading = Chargement…
kosync-account = Synchronisé avec { $url } en tant que { $user }.
kosync-sign-out = Se déconnecter
kosync-server = Serveur de synchronisation
kosync-username = Nom d’utilisateur
kosync-password = Mot de passe
kosync-missing = Indiquez l’adresse du serveur, votre nom d’utilisateur et votre mot de passe.
kosync-sign-in = Se connecter
kosync-signing-in = Connexion…

## Batches kept offline together (on the Downloads page)

batch-title = Gardés hors ligne ensemble
batch-stored =
    { $stored } sur { $count ->
        [one] { $count } livre
       *[other] { $count } livres
    } sur cet appareil
batch-done = terminé
batch-paused = en pause
batch-waiting = { $count } en attente
batch-failed = { $count } en échec
batch-dropped =
    { $count ->
        [one] { $count } annulé ou retiré
       *[other] { $count } annulés ou retirés
    }
batch-progress = { $title } : livres sur cet appareil
batch-progress-value =
    { $stored } sur { $count ->
        [one] { $count } livre
       *[other] { $count } livres
    }
batch-resume = Reprendre
batch-pause = Pause
batch-top = Télécharger ceux-ci en premier
batch-top-label = Télécharger { $title } en premier
batch-forget = Oublier ce lot (les livres restent sur l’appareil)
batch-forget-label = Oublier le lot { $title }
batch-cancel = Annuler (les livres déjà ici restent)
batch-cancel-label = Annuler { $title }
# $reason is why it failed.
batch-resume-failed = Impossible de reprendre « { $title } » : { $reason }
batch-pause-failed = Impossible de mettre en pause « { $title } » : { $reason }
batch-top-failed = Impossible de faire passer « { $title } » en premier : { $reason }
batch-cancel-failed = Impossible d’annuler « { $title } » : { $reason }

## Add server and Edit server: the checks of the form

server-form-url-missing = Saisissez l’adresse du serveur ou celle de son catalogue OPDS.
# $example is an address such as https://books.example.org/opds
server-form-url-scheme = Commencez l’adresse par https:// ou http://, comme dans { $example }.
server-form-url-invalid = Ce n’est pas une adresse web ; elle devrait ressembler à { $example }.
# $protocol is the start of the address typed, such as "ftp:".
server-form-url-protocol = Les adresses « { $protocol } » ne sont pas prises en charge ; utilisez http:// ou https://.
server-form-url-no-host = L’adresse ne contient pas de nom de serveur.
server-form-url-credentials = Mettez le nom d’utilisateur et le mot de passe dans leurs propres champs, pas dans l’adresse.
server-form-name-missing = Donnez un nom au serveur.
server-form-name-too-long = Le nom est trop long ({ $max } caractères au plus).
server-form-interval-missing = Saisissez un nombre de millisecondes (0 pour aucune pause).
server-form-interval-invalid = Saisissez un nombre entier de millisecondes, par exemple 500.
server-form-interval-too-long = La pause ne peut pas dépasser { $max } ms (une minute).
# Choices of "Keep the next unread books of each series I read".
server-form-series-off = Non
server-form-series-next =
    { $count ->
        [one] Le prochain livre non lu
       *[other] Les { $count } prochains livres non lus
    }
# Choices of "Finished books …".
server-form-series-stay = restent sur cet appareil
server-form-series-remove-read = sont retirés une fois lus
server-form-series-remove-after =
    { $days ->
        [1] sont retirés un jour après
        [7] sont retirés une semaine après
        [30] sont retirés un mois après
       *[other] sont retirés { $days } jours après
    }

## Add server and Edit server: the dialog

server-dialog-add-title = Ajouter un serveur
server-dialog-add-description = Reliez Carrel au catalogue OPDS d’un serveur de bibliothèque que vous utilisez.
server-dialog-edit-title = Modifier « { $name } »
server-dialog-edit-description = Changez la façon dont Carrel joint ce serveur. Ses livres restent tels quels.
server-dialog-name = Nom
server-dialog-name-hint = Laissez vide pour reprendre le nom du catalogue.
server-dialog-name-placeholder = Bibliothèque de la maison
server-dialog-url = Adresse du catalogue
server-dialog-url-hint = L’adresse du serveur ou son flux OPDS : Carrel trouve le catalogue.
server-dialog-already-saved = Vous avez déjà ce serveur : { $name }.
# $description says what was found at the address.
server-dialog-found = Trouvé : { $description }
server-dialog-use-catalog = Utiliser { $url }
server-dialog-sign-in = Connexion
server-dialog-sign-in-optional = (seulement si le serveur en demande une)
server-dialog-username = Nom d’utilisateur
server-dialog-password = Mot de passe
server-dialog-password-placeholder = Inchangé
server-dialog-password-in-file = Aucun trousseau système n’est disponible : il est gardé dans un fichier du dossier de données de Carrel que seul votre compte peut lire.
server-dialog-password-in-keyring = Gardé dans le trousseau de votre système, jamais dans le fichier de la bibliothèque de Carrel.
# $where is one of the two sentences above.
server-dialog-password-unchanged = Laissez vide pour garder le mot de passe enregistré. { $where }
server-dialog-api-key = Le mot de passe est une clé d’API (Komga)
server-dialog-connection = Connexion réseau
server-dialog-interval = Pause entre les requêtes
server-dialog-interval-hint = Millisecondes d’attente de Carrel entre deux requêtes à ce serveur, de 0 (aucune pause) à { $max }. Un serveur modeste ou chargé appréciera quelques centaines.
server-dialog-interval-unit = ms
server-dialog-trust = Faire confiance au certificat de ce serveur même s’il est auto-signé
server-dialog-trust-warning = Uniquement pour un serveur que vous gérez vous-même : Carrel ne vérifiera pas à qui il parle.
server-dialog-series = Séries
server-dialog-series-next = Garder les prochains livres non lus de chaque série que je lis
server-dialog-series-next-hint = Téléchargés pendant que vous lisez une série, après le livre en cours. Une série réglée dans les détails d’un livre, ou arrêtée là, garde ce que vous avez choisi.
server-dialog-series-finished = Livres terminés
server-dialog-series-not-saved = Le serveur est enregistré, mais pas son réglage des séries : { $reason }
server-dialog-cancel = Annuler
server-dialog-save = Enregistrer
server-dialog-saving = Enregistrement…

## Downloads

downloads-title = Téléchargements
downloads-resume-all = Tout reprendre
downloads-pause-all = Tout mettre en pause
# $reason is why it failed.
downloads-resume-all-failed = Impossible de reprendre les téléchargements : { $reason }
downloads-pause-all-failed = Impossible de mettre les téléchargements en pause : { $reason }
downloads-allow-failed = Impossible d’autoriser les téléchargements : { $reason }
downloads-open-failed = Impossible d’ouvrir le livre : { $reason }
downloads-error = Impossible de suivre les téléchargements
downloads-loading = Chargement des téléchargements
# What the downloads are doing, beside the title.
downloads-paused = En pause
downloads-downloading = Téléchargement
downloads-waiting = En attente
downloads-nothing = Rien à télécharger
downloads-retry-at = Nouvel essai à { $time }
downloads-retry-soon = Nouvel essai bientôt
# $when is one of the two texts above, $reason what went wrong.
downloads-retry-why = { $when } ({ $reason })
downloads-stopped = Arrêté
downloads-stopped-why = Arrêté : { $reason }
downloads-standby = Un autre Carrel télécharge
# $holder names the other program downloading.
downloads-standby-holder = Un autre Carrel télécharge ({ $holder })
downloads-paused-notice = Les téléchargements sont en pause, ici et dans tout autre Carrel, jusqu’à ce que vous les repreniez.
# $hold says why, such as "this connection is metered".
downloads-metered = Les téléchargements attendent : { $hold }.
downloads-metered-never = D’après vos paramètres, rien n’est téléchargé sur une connexion limitée.
downloads-allow-metered = Télécharger quand même
# $reason is a full sentence saying what went wrong.
downloads-backoff = { $reason } Carrel réessaiera de lui-même.
downloads-sign-in-needed = Les téléchargements depuis { $name } attendent une connexion ({ $reason }).
downloads-sign-in = Se connecter…
downloads-now = En cours de téléchargement
# What the request under way brings.
downloads-fetching-pages = Pages
downloads-fetching-file = Le fichier du livre
downloads-fetching-extras = Couverture et compléments
downloads-fetching-ready = Préparation
downloads-file-stored = Fichier enregistré
downloads-pages-stored = { $stored } pages enregistrées sur { $total }
# $done and $total are sizes, such as "300 kB of 1.2 MB".
downloads-bytes-of = { $done } sur { $total }
downloads-book-label = { $title } téléchargé
# $what is one of the texts above ("Pages", "The book’s file"…).
downloads-part-label = { $what } de { $title }
# $percent is a percentage, such as "7 %".
downloads-book-percent = { $percent } du livre
downloads-cancel = Annuler (ce qui est enregistré reste)
downloads-cancel-label = Annuler { $title }
downloads-cancel-failed = Impossible d’annuler « { $title } » : { $reason }
downloads-up-next = À suivre
downloads-queue = File d’attente
downloads-queue-count =
    { $count ->
        [one] { $count } livre
       *[other] { $count } livres
    }
downloads-empty = Rien en attente. Les livres que vous gardez hors ligne ou ouvrez sont téléchargés ici, une requête à la fois.
downloads-empty-after-active = Rien d’autre en attente. Les livres que vous gardez hors ligne ou ouvrez sont téléchargés ici, une requête à la fois.
downloads-priority = Prioritaire
downloads-top = Télécharger ensuite
downloads-top-label = Télécharger { $title } ensuite
downloads-top-failed = Impossible de déplacer « { $title } » : { $reason }
downloads-failed = Échecs
downloads-retry = Réessayer
downloads-retry-failed = Impossible de réessayer « { $title } » : { $reason }
downloads-give-up = Abandonner (ce qui est enregistré reste)
downloads-give-up-label = Abandonner { $title }
downloads-done = Terminés
downloads-clear = Effacer
downloads-clear-failed = Impossible d’effacer la liste : { $reason }
# $ago says when, such as "2 min ago".
downloads-stored-ago = Enregistré { $ago }
downloads-open = Ouvrir
downloads-open-label = Ouvrir { $title }

## Settings

settings-title = Paramètres
settings-saving = Enregistrement…
# $reason is a sentence saying why.
settings-save-error = Impossible d’enregistrer la modification : { $reason }
settings-error = Impossible de lire vos paramètres
settings-loading = Chargement de vos paramètres
settings-reading = Lecture hors ligne
settings-books-kept = Livres lus récemment gardés sur cet appareil
settings-books-kept-hint = Les derniers livres ouverts sont téléchargés en arrière-plan et gardés, pour être là sans le serveur. Les livres que vous gardez vous-même hors ligne sont gardés aussi et ne comptent pas.
# Read by screen readers for the slider's value.
settings-books-kept-value =
    { $count ->
        [0] aucun
        [one] { $count } livre
       *[other] { $count } livres
    }
settings-books-kept-none = Aucun
settings-kept-question-one = Retirer « { $title } » de cet appareil ?
settings-kept-question =
    { $count ->
        [one] Retirer { $count } livre de cet appareil ?
       *[other] Retirer { $count } livres de cet appareil ?
    }
settings-kept-description-one = C’est l’un des livres lus récemment que ce réglage ne garde plus : ses pages et fichiers téléchargés sont supprimés. Les livres que vous gardez vous-même hors ligne restent.
# $titles lists a few books' titles.
settings-kept-description = { $titles } sont des livres lus récemment que ce réglage ne garde plus : leurs pages et fichiers téléchargés sont supprimés. Les livres que vous gardez vous-même hors ligne restent.
settings-kept-title = « { $title } »
settings-kept-more =
    { $count ->
        [one] { $titles } et { $count } autre
       *[other] { $titles } et { $count } autres
    }
settings-kept-confirm = Retirer de l’appareil
settings-network = Réseau
settings-metered = Sur une connexion limitée
settings-metered-hint = Un partage de connexion mobile ou une connexion que le système marque comme limitée (NetworkManager). « Demander » attend que vous choisissiez « Télécharger quand même » dans Téléchargements.
settings-metered-ask = Demander avant de télécharger
settings-metered-never = Ne pas télécharger
settings-metered-always = Télécharger normalement
settings-starting = Démarrage
settings-start-at-login = Lancer Carrel à l’ouverture de session
settings-start-at-login-hint = Pour que les livres gardés hors ligne se téléchargent sans que vous l’ouvriez.
settings-keep-running = Continuer après la fermeture de la dernière fenêtre
settings-keep-running-hint = Carrel reste dans la zone de notification, prêt à télécharger ce que vous gardez hors ligne. Sinon, il reste seulement jusqu’à la fin des téléchargements en attente.
settings-notifications = Notifications
settings-notifications-label = Notifications du bureau
settings-notifications-hint = Quand un livre gardé hors ligne est prêt, ou qu’un téléchargement échoue définitivement.
settings-appearance = Apparence
settings-theme = Thème
settings-theme-system = Système
settings-theme-system-hint = Suit votre bureau
settings-theme-light = Clair
settings-theme-light-hint = Papier
settings-theme-dark = Sombre
settings-theme-dark-hint = Encre
settings-language = Langue
settings-language-label = Langue de Carrel
settings-language-hint = Toutes les fenêtres ouvertes changent aussitôt.
# $language is the name of the language the system asks for, such as "English".
settings-language-system = Langue du système ({ $language })
settings-storage = Stockage
settings-storage-measuring = Mesure de l’espace utilisé
settings-storage-error = Impossible de mesurer l’espace utilisé : { $reason }
# $size is a size, such as "1.5 GB".
settings-storage-total = { $size } utilisés par les livres de cet appareil
# A server's share of the space used, in percent.
settings-storage-share = { $share } %

## Removing a server or a book
remove-server-title = Retirer « { $name } » ?
remove-server-description = Carrel oubliera l’adresse de ce serveur et tout mot de passe enregistré pour lui. Rien ne change sur le serveur lui-même, et vous pourrez l’ajouter de nouveau plus tard.
remove-server-confirm = Retirer le serveur
remove-book-title = Retirer « { $title } » de cet appareil ?
remove-book-description = Ses pages et fichiers téléchargés sont supprimés, et les téléchargements en attente abandonnés. Le livre reste dans votre bibliothèque, et vous pourrez le garder hors ligne de nouveau plus tard.
remove-book-confirm = Retirer de l’appareil
remove-book-done = « { $title } » retiré de cet appareil
