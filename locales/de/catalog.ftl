# Den Katalog eines Servers durchsuchen, suchen und die Details eines Buchs.

## Browse: a server's catalog

browse-results-title = Ergebnisse für „{ $query }“
browse-count =
    { $count ->
        [one] { $count } Buch
       *[other] { $count } Bücher
    }
browse-count-more = { $count }+ Bücher
browse-keep-all = Alle offline behalten
    .title = Alle hier aufgeführten Bücher auf diesem Gerät behalten, auch die der nächsten Seiten
browse-keep-all-queuing = Wird eingereiht…
browse-keep-all-queued =
    { $count ->
        [one] { $count } Buch aus „{ $title }“ wird offline behalten – den Fortschritt sehen Sie unter Downloads
       *[other] { $count } Bücher aus „{ $title }“ werden offline behalten – den Fortschritt sehen Sie unter Downloads
    }
browse-keep-all-none = Alle Bücher aus „{ $title }“ sind schon auf diesem Gerät
browse-keep-all-failed = Diese Bücher konnten nicht offline behalten werden: { $error }
browse-offline = Offline – die Bibliothek, wie sie zuletzt { $ago } zu sehen war.
browse-retry = Erneut versuchen
browse-loading = { $title } wird geladen
browse-auth-title = { $server } möchte, dass Sie sich anmelden
browse-auth-message = Carrel braucht einen Benutzernamen und ein Passwort, die dieser Server akzeptiert.
browse-sign-in = Anmelden…
browse-certificate-title = Dem Zertifikat von { $server } wird nicht vertraut
browse-certificate-message = Carrel kann nicht bestätigen, wer dieser Server ist: Sein Zertifikat ist selbst signiert oder stammt von einer Stelle, die dieser Computer nicht kennt. Wenn Sie diesen Server selbst betreiben, können Sie ihm vertrauen.
browse-trust = Diesem Server vertrauen…
browse-search-failed = Auf diesem Server konnte nicht gesucht werden
browse-open-failed = Dieser Teil des Katalogs konnte nicht geöffnet werden
browse-go-back = Zurück
browse-no-match-title = Keine Bücher passen zu „{ $query }“
browse-no-match-message = Versuchen Sie andere oder weniger Wörter.
browse-empty-title = Hier ist nichts
browse-empty-message = Dieser Teil des Katalogs ist leer.
browse-sections = Bereiche
browse-books = Bücher
browse-loading-more = Weitere werden geladen…
browse-more-failed = Weitere konnten nicht geladen werden: { $error }
browse-load-more = Weitere laden
browse-crumb-query = „{ $query }“

## Search box

search-box-label = { $server } durchsuchen

## Search everywhere

search-title = Überall suchen
search-label = Alle Bibliotheken durchsuchen
search-intro-title = Finden Sie ein Buch, wo immer es ist
search-intro-message = Carrel fragt alle Server gleichzeitig und findet die Bücher auf diesem Gerät nach Titel, Autor oder Reihe, auch wenn kein Server antwortet.
search-local-title = Auf diesem Gerät
search-count =
    { $count ->
        [one] { $count } Buch
       *[other] { $count } Bücher
    }
search-count-more =
    { $count ->
        [one] { $count } Buch oder mehr
       *[other] { $count } Bücher oder mehr
    }
search-looking = Suche…
search-local-none = Kein Buch auf diesem Gerät passt zu „{ $query }“.
search-local-books = Bücher auf diesem Gerät
search-searching = Wird gesucht…
search-no-search = Der Katalog dieses Servers bietet keine Suche.
search-server-auth = Dieser Server möchte, dass Sie sich anmelden.
search-offline = Offline – gespeicherte Ergebnisse ({ $ago }).
search-server-none = Keine Bücher passen zu „{ $query }“.
search-server-books = Bücher auf { $server }
search-nothing = Nirgends passt etwas zu „{ $query }“. Versuchen Sie andere oder weniger Wörter.

## Book details

details-label = Buchdetails
details-new-window = In neuem Fenster öffnen
details-new-window-failed = Neues Fenster konnte nicht geöffnet werden: { $error }
details-close = Details schließen
details-loading = Details des Buchs werden geladen
details-failed = Die Details dieses Buchs konnten nicht gelesen werden
details-retry-load = Erneut versuchen
details-read = Gelesen
details-not-read = Noch nicht gelesen
details-downloaded = Heruntergeladen
details-progress-pages = { $stored } von { $total } Seiten
details-progress-bytes = { $stored } von { $total }
details-retry = Wiederholen
details-retrying = Wird wiederholt…
details-opening = Wird geöffnet…
details-open-other-app = Mit anderer App öffnen
details-continue = Weiterlesen
details-start-reading = Lesen
details-saving = Wird gespeichert…
details-mark-read = Als gelesen markieren
details-mark-unread = Als ungelesen markieren
details-mark-series-read = Serie als gelesen markieren
details-mark-series-unread = Serie als ungelesen markieren
details-keep = Offline behalten
details-keeping = Wird behalten…
details-remove = Vom Gerät entfernen
details-kept-note = Dauerhaft offline behalten: Es bleibt auf diesem Gerät, bis Sie es entfernen.
details-cached-note = Vorerst auf diesem Gerät, als eines der zuletzt gelesenen Bücher; es verschwindet, wenn neuere seinen Platz einnehmen. „Offline behalten“ behält es dauerhaft.
details-other-format = Carrel kann keine { $format }-Bücher anzeigen. „Mit anderer App öffnen“ lädt es herunter (falls es noch nicht auf diesem Gerät ist) und öffnet es in der App, die dieser Computer für solche Dateien nutzt.
details-about = Über dieses Buch
details-fact-format = Format
details-format-with-type = { $format } ({ $type })
details-fact-pages = Seiten
details-fact-size = Größe
details-fact-server = Server
details-fact-last-read = Zuletzt gelesen
details-last-read-place = { $place }, { $ago }

## Book tile and its marks

tile-downloaded = Heruntergeladen
tile-read = Gelesen
badge-queued = Wartet
badge-failed = Fehlgeschlagen
badge-failed-reason = Fehlgeschlagen: { $reason }
badge-remote = Auf dem Server
badge-stored = Auf dem Gerät
badge-downloading = Wird geladen { $percent }
badge-queued-percent = Wartet · { $percent }
badge-reason-unknown = der Download ist fehlgeschlagen

## Series read-ahead, in the book details

series-title = „{ $series }“ lesen
series-keep-label = Auf diesem Gerät behalten
series-keep-none = nur die Bücher, die ich behalte
series-keep-next =
    { $count ->
        [one] das nächste ungelesene Buch
       *[other] die nächsten { $count } ungelesenen Bücher
    }
series-remove-label = Gelesene Bücher
series-remove-never = bleiben auf diesem Gerät
series-remove-once-read = werden nach dem Lesen entfernt
series-remove-day = werden einen Tag danach entfernt
series-remove-week = werden eine Woche danach entfernt
series-remove-month = werden einen Monat danach entfernt
series-here =
    { $total ->
        [one] { $here } von { $total } Buch dieser Reihe auf diesem Gerät.
       *[other] { $here } von { $total } Büchern dieser Reihe auf diesem Gerät.
    }
series-here-waiting =
    { $total ->
        [one] { $here } von { $total } Buch dieser Reihe auf diesem Gerät, { $waiting } unterwegs.
       *[other] { $here } von { $total } Büchern dieser Reihe auf diesem Gerät, { $waiting } unterwegs.
    }
series-note-read-ahead = Die nächsten werden während des Lesens heruntergeladen, nach dem Buch, das Sie gerade lesen.
series-note-server-default = Das ist die Standardeinstellung des Servers für die Reihen, die Sie lesen.
series-note-default-ahead =
    { $count ->
        [one] Sobald Sie die Reihe lesen, behält die Standardeinstellung des Servers das nächste ungelesene Buch.
       *[other] Sobald Sie die Reihe lesen, behält die Standardeinstellung des Servers die nächsten { $count } ungelesenen Bücher.
    }

## Numbers, sizes and times, as every screen writes them

format-bytes =
    { $count ->
        [one] { $count } Byte
       *[other] { $count } Bytes
    }
format-rate = { $size }/s
format-percent = { $percent } %
format-place-chapter = { $percent } · { $chapter }
format-page-of = Seite { $page } von { $total }
format-page = Seite { $page }
format-eta-seconds = noch wenige Sekunden
format-eta-under-minute = noch weniger als eine Minute
format-eta-minutes = noch etwa { $minutes } Min.
format-eta-hours = noch etwa { $hours } Std.
format-eta-hours-minutes = noch etwa { $hours } Std. { $minutes } Min.
format-eta-days = noch etwa { $days } Tage
format-series = { $series } #{ $index }
format-authors = { $first } und { $last }
format-pages =
    { $count ->
        [one] { $count } Seite
       *[other] { $count } Seiten
    }
format-name-comic = Comic
format-name-book = Buch
format-ago-now = gerade eben
format-ago-date = am { $date }

## Errors without a message of their own

error-unknown = in Carrel ist etwas schiefgelaufen

## Books on this device: sorting and filtering

on-device-count-filtered = { $shown } von { $total }
on-device-filter-label = Bücher auf diesem Gerät filtern
on-device-filter-placeholder = Titel, Autor oder Reihe
on-device-sort-label = Sortieren nach
on-device-sort-title = Titel
on-device-sort-series = Reihe und Nummer
on-device-sort-author = Autor
on-device-sort-added = Hinzugefügt am
on-device-sort-last-read = Zuletzt gelesen
on-device-order-ascending = Aufsteigend
on-device-order-descending = Absteigend
on-device-order-switch = Reihenfolge umkehren
on-device-format-label = Format
on-device-format-all = Alle Formate
on-device-format-comic = Comics
on-device-format-epub = EPUB
on-device-format-pdf = PDF
on-device-read-label = Lesestand
on-device-read-all = Alle
on-device-read-unread = Ungelesen
on-device-read-in-progress = Begonnen
on-device-read-read = Gelesen
on-device-source-label = Quelle
on-device-source-all = Alle Quellen
on-device-source-device = Dieses Gerät
on-device-group-series = Nach Reihe gruppieren
on-device-no-series = Keine Reihe
on-device-no-match-title = Kein Buch passt
on-device-no-match-message = Kein Buch auf diesem Gerät passt zu diesen Filtern.
on-device-clear-filters = Filter zurücksetzen

## A feed's facets (the server's orders and filters)

browse-facet-group = Ansicht
browse-facet-count = { $title } ({ $count })
browse-facet-none = Auswählen…
