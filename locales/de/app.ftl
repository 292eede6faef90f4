# Carrel's own screens: start-up, the sidebar, Home, servers, downloads, settings.

## Shared by several screens

app-try-again = Erneut versuchen
app-trying = Neuer Versuch…

## The window while it starts

app-opening = Ihre Bibliothek wird geöffnet…

## Sidebar

sidebar-label = Seitenleiste
sidebar-main = Hauptmenü
sidebar-home = Start
sidebar-search = Überall suchen
sidebar-servers = Server
# A server's downloads wait; $reason is what the server said.
sidebar-server-paused = Downloads pausiert: { $reason }
sidebar-server-offline = Offline
sidebar-server-offline-title = Offline: Die Bibliothek wird so gezeigt, wie sie zuletzt war
sidebar-edit-server = { $name } bearbeiten
sidebar-remove-server = { $name } entfernen
sidebar-no-servers = Noch keine Server.
sidebar-add-server = Server hinzufügen
sidebar-device = Auf diesem Gerät
sidebar-on-device = Bücher auf diesem Gerät
sidebar-downloads = Downloads
# Parts of the downloads' summary read by screen readers, joined by commas.
sidebar-downloads-waiting =
    { $count ->
        [one] { $count } Buch wartet
       *[other] { $count } Bücher warten
    }
sidebar-downloads-failed = { $count } fehlgeschlagen
sidebar-downloads-paused = pausiert
sidebar-current-download = Aktueller Download
sidebar-settings = Einstellungen
sidebar-version = Carrel { $version }

## Start-up error (the library cannot be opened)

startup-error-title = Carrel kann Ihre Bibliothek nicht öffnen
startup-error-data-folder = Datenordner
startup-error-no-folder = Carrel hat keinen Ordner für seine Daten gefunden.
startup-error-note = Es wurde nichts geändert: Ihre Server, Einstellungen und Bücher sind unverändert. Sobald die Ursache behoben ist, starten Sie Carrel neu.
startup-error-copy = Details kopieren
startup-error-copied = Kopiert
startup-error-copy-failed = Kopieren nicht möglich; markieren Sie stattdessen den Text oben.
# Lines of the details copied for a bug report.
startup-error-details-error = Fehler ({ $kind }): { $message }
startup-error-details-folder = Datenordner: { $folder }
startup-error-details-unknown = unbekannt

## Library error (the list of servers could not be read)

library-error-title = Carrel konnte Ihre Server nicht lesen

## Empty library (no server yet)

empty-library-title = Noch keine Bibliothek – fügen Sie einen Server hinzu
empty-library-lead = Carrel liest Comics und E-Books aus dem OPDS-Katalog eines Bibliotheksservers, den Sie betreiben oder nutzen, etwa Komga, Kavita, Codex, Calibre-Web oder Stump.
empty-library-add = Server hinzufügen
empty-library-aside = Sie brauchen die Adresse des Katalogs und, falls der Server danach fragt, einen Benutzernamen und ein Passwort.
empty-library-own-files = Oder lesen Sie Ihre eigenen Dateien: Comics (CBZ, CBR, CB7, CBT), EPUB und PDF.
empty-library-open-files = Dateien öffnen…
empty-library-add-folder = Bibliotheksordner hinzufügen…
empty-library-folder-failed = Der Ordner konnte nicht hinzugefügt werden: { $reason }

## Toasts, confirmations, breadcrumbs

toast-dismiss = Schließen
confirm-cancel = Abbrechen
confirm-removing = Wird entfernt…
breadcrumbs-label = Navigationspfad
# Read before a search's words in the path of feeds: "Search for dragons".
breadcrumbs-search-for = Suche nach

## On this device

on-device-title = Auf diesem Gerät
on-device-count =
    { $count ->
        [one] { $count } Buch
       *[other] { $count } Bücher
    }
on-device-loading = Bücher auf diesem Gerät werden geladen
on-device-error = Die Bücher auf diesem Gerät konnten nicht aufgelistet werden
on-device-list = Bücher auf diesem Gerät
on-device-empty-title = Noch nichts auf diesem Gerät
on-device-empty-message = Öffnen Sie die Details eines Buchs und wählen Sie „Offline behalten“, um es ohne den Server zu lesen. Die zuletzt gelesenen Bücher werden ebenfalls behalten.
# Under a book partly stored.
on-device-pages = { $stored } von { $total } Seiten

## Home

home-title = Start
home-credentials-notice = Kein Schlüsselbund des Systems hat geantwortet, daher werden gespeicherte Passwörter in einer Datei im Datenordner von Carrel aufbewahrt, die nur Ihr Konto lesen kann.
home-credentials-dismiss = Nicht mehr anzeigen
home-continue-title = Weiterlesen
home-continue-loading = Die Bücher, die Sie lesen, werden geladen
home-continue-error = Die Bücher, die Sie lesen, konnten nicht gelesen werden
home-continue-empty = Bücher, die Sie öffnen, erscheinen hier, das neueste zuerst.
home-servers-title = Server
home-add-server-text = Fügen Sie einen Bibliotheksserver wie Komga, Kavita oder Calibre-Web hinzu, um seinen Katalog zu durchsuchen und daraus herunterzuladen.
home-add-server = Server hinzufügen
home-servers-count =
    { $count ->
        [one] { $count } Server
       *[other] { $count } Server
    }

## A server's card on Home

server-card-paused = Downloads pausiert: { $reason }
server-card-offline = Beim letzten Besuch offline
server-card-url = Katalog-Adresse
server-card-sign-in = Anmeldung
server-card-signs-in-as = Angemeldet als { $user }
server-card-no-sign-in = Keine Anmeldung
# $date is the day the server was added.
server-card-added = Hinzugefügt am { $date }
server-card-edit = Bearbeiten…
server-card-edit-label = { $name } bearbeiten
server-card-remove = Entfernen…
server-card-remove-label = { $name } entfernen

## Sign-in dialog (a server asked for a username and password)

credentials-title = Bei { $name } anmelden
credentials-description = Der Server verlangt einen Benutzernamen und ein Passwort.
credentials-username = Benutzername
credentials-username-missing = Geben Sie Ihren Benutzernamen ein.
credentials-password = Passwort
credentials-password-missing = Geben Sie Ihr Passwort ein.
credentials-kept-in-file = Das Passwort wird in einer Datei im Datenordner von Carrel aufbewahrt, die nur Ihr Konto lesen kann.
credentials-kept-in-keyring = Das Passwort wird im Schlüsselbund Ihres Systems aufbewahrt.
credentials-cancel = Abbrechen
credentials-sign-in = Anmelden
credentials-signing-in = Anmeldung…

## KOReader sync (in Settings)

kosync-title = KOReader-Synchronisierung
kosync-hint = Wo Sie in Büchern aufgehört haben, die als Dateien auf diesem Gerät liegen (EPUB, PDF, CBZ…), folgt Ihnen zu und von KOReader-Geräten – über einen KOReader-Sync-Server: den von KOReader, Ihr Komga oder Kavita oder einen eigenen.
kosync-loading = Wird geladen…
kosync-account = Synchronisiert mit { $url } als { $user }.
kosync-sign-out = Abmelden
kosync-server = Sync-Server
kosync-username = Benutzername
kosync-password = Passwort
kosync-missing = Geben Sie die Adresse des Servers, Ihren Benutzernamen und Ihr Passwort ein.
kosync-sign-in = Anmelden
kosync-signing-in = Anmeldung…

## Batches kept offline together (on the Downloads page)

batch-title = Gemeinsam offline behalten
batch-stored =
    { $stored } von { $count ->
        [one] { $count } Buch
       *[other] { $count } Büchern
    } auf diesem Gerät
batch-done = fertig
batch-paused = pausiert
batch-waiting = { $count } wartend
batch-failed = { $count } fehlgeschlagen
batch-dropped = { $count } abgebrochen oder entfernt
batch-progress = { $title }: Bücher auf diesem Gerät
batch-progress-value =
    { $stored } von { $count ->
        [one] { $count } Buch
       *[other] { $count } Büchern
    }
batch-resume = Fortsetzen
batch-pause = Pausieren
batch-top = Diese zuerst herunterladen
batch-top-label = { $title } zuerst herunterladen
batch-forget = Diese Gruppe vergessen (die Bücher bleiben auf dem Gerät)
batch-forget-label = Die Gruppe { $title } vergessen
batch-cancel = Abbrechen (die Bücher, die schon hier sind, bleiben)
batch-cancel-label = { $title } abbrechen
# $reason is why it failed.
batch-resume-failed = „{ $title }“ konnte nicht fortgesetzt werden: { $reason }
batch-pause-failed = „{ $title }“ konnte nicht pausiert werden: { $reason }
batch-top-failed = „{ $title }“ konnte nicht nach oben verschoben werden: { $reason }
batch-cancel-failed = „{ $title }“ konnte nicht abgebrochen werden: { $reason }

## Add server and Edit server: the checks of the form

server-form-url-missing = Geben Sie die Adresse des Servers oder seines OPDS-Katalogs ein.
# $example is an address such as https://books.example.org/opds
server-form-url-scheme = Beginnen Sie die Adresse mit https:// oder http://, wie in { $example }.
server-form-url-invalid = Das ist keine Webadresse; sie sollte so aussehen: { $example }.
# $protocol is the start of the address typed, such as "ftp:".
server-form-url-protocol = Adressen mit „{ $protocol }“ werden nicht unterstützt; verwenden Sie http:// oder https://.
server-form-url-no-host = Die Adresse enthält keinen Servernamen.
server-form-url-credentials = Tragen Sie Benutzername und Passwort in ihre eigenen Felder ein, nicht in die Adresse.
server-form-name-missing = Geben Sie dem Server einen Namen.
server-form-name-too-long = Der Name ist zu lang (höchstens { $max } Zeichen).
server-form-interval-missing = Geben Sie eine Anzahl Millisekunden ein (0 für keine Pause).
server-form-interval-invalid = Geben Sie eine ganze Zahl von Millisekunden ein, etwa 500.
server-form-interval-too-long = Die Pause darf höchstens { $max } ms (eine Minute) betragen.
# Choices of "Keep the next unread books of each series I read".
server-form-series-off = Aus
server-form-series-next =
    { $count ->
        [one] Das nächste ungelesene Buch
       *[other] Die nächsten { $count } ungelesenen Bücher
    }
# Choices of "Finished books …".
server-form-series-stay = bleiben auf diesem Gerät
server-form-series-remove-read = werden nach dem Lesen entfernt
server-form-series-remove-after =
    { $days ->
        [1] werden einen Tag danach entfernt
        [7] werden eine Woche danach entfernt
        [30] werden einen Monat danach entfernt
       *[other] werden { $days } Tage danach entfernt
    }

## Add server and Edit server: the dialog

server-dialog-add-title = Server hinzufügen
server-dialog-add-description = Verbinden Sie Carrel mit dem OPDS-Katalog eines Bibliotheksservers, den Sie nutzen.
server-dialog-edit-title = „{ $name }“ bearbeiten
server-dialog-edit-description = Ändern Sie, wie Carrel diesen Server erreicht. Seine Bücher bleiben, wie sie sind.
server-dialog-name = Name
server-dialog-name-hint = Leer lassen, um den Namen des Katalogs zu verwenden.
server-dialog-name-placeholder = Bibliothek zu Hause
server-dialog-url = Katalog-Adresse
server-dialog-url-hint = Die Adresse des Servers oder sein OPDS-Feed: Carrel findet den Katalog.
server-dialog-already-saved = Diesen Server haben Sie schon: { $name }.
# $description says what was found at the address.
server-dialog-found = Gefunden: { $description }
server-dialog-use-catalog = { $url } verwenden
server-dialog-sign-in = Anmeldung
server-dialog-sign-in-optional = (nur wenn der Server danach fragt)
server-dialog-username = Benutzername
server-dialog-password = Passwort
server-dialog-password-placeholder = Unverändert
server-dialog-password-in-file = Es ist kein Schlüsselbund des Systems verfügbar, daher wird es in einer Datei im Datenordner von Carrel aufbewahrt, die nur Ihr Konto lesen kann.
server-dialog-password-in-keyring = Wird im Schlüsselbund Ihres Systems aufbewahrt, nie in der Bibliotheksdatei von Carrel.
# $where is one of the two sentences above.
server-dialog-password-unchanged = Leer lassen, um das gespeicherte Passwort zu behalten. { $where }
server-dialog-api-key = Das Passwort ist ein API-Schlüssel (Komga)
server-dialog-connection = Verbindung
server-dialog-interval = Pause zwischen Anfragen
server-dialog-interval-hint = Millisekunden, die Carrel zwischen zwei Anfragen an diesen Server wartet, von 0 (keine Pause) bis { $max }. Ein kleiner oder ausgelasteter Server freut sich über einige Hundert.
server-dialog-interval-unit = ms
server-dialog-trust = Dem Zertifikat dieses Servers auch dann vertrauen, wenn es selbst signiert ist
server-dialog-trust-warning = Nur für einen Server, den Sie selbst betreiben: Carrel prüft dann nicht, mit wem es spricht.
server-dialog-series = Serien
server-dialog-series-next = Die nächsten ungelesenen Bücher jeder Serie behalten, die ich lese
server-dialog-series-next-hint = Werden heruntergeladen, während Sie eine Serie lesen, nach dem aktuellen Buch. Eine Serie, die Sie in den Details eines Buchs eingestellt oder dort beendet haben, behält Ihre Wahl.
server-dialog-series-finished = Gelesene Bücher
server-dialog-series-not-saved = Der Server wurde gespeichert, seine Serien-Einstellung aber nicht: { $reason }
server-dialog-cancel = Abbrechen
server-dialog-save = Speichern
server-dialog-saving = Wird gespeichert…

## Downloads

downloads-title = Downloads
downloads-resume-all = Alle fortsetzen
downloads-pause-all = Alle pausieren
# $reason is why it failed.
downloads-resume-all-failed = Die Downloads konnten nicht fortgesetzt werden: { $reason }
downloads-pause-all-failed = Die Downloads konnten nicht pausiert werden: { $reason }
downloads-allow-failed = Downloads konnten nicht erlaubt werden: { $reason }
downloads-open-failed = Das Buch konnte nicht geöffnet werden: { $reason }
downloads-error = Die Downloads können nicht verfolgt werden
downloads-loading = Downloads werden geladen
# What the downloads are doing, beside the title.
downloads-paused = Pausiert
downloads-downloading = Wird heruntergeladen
downloads-waiting = Wartet
downloads-nothing = Nichts herunterzuladen
downloads-retry-at = Neuer Versuch um { $time }
downloads-retry-soon = Neuer Versuch in Kürze
# $when is one of the two texts above, $reason what went wrong.
downloads-retry-why = { $when } ({ $reason })
downloads-stopped = Angehalten
downloads-stopped-why = Angehalten: { $reason }
downloads-standby = Ein anderes Carrel lädt herunter
# $holder names the other program downloading.
downloads-standby-holder = Ein anderes Carrel lädt herunter ({ $holder })
downloads-paused-notice = Die Downloads sind pausiert, hier und in jedem anderen Carrel, bis Sie sie fortsetzen.
# $hold says why, such as "this connection is metered".
downloads-metered = Downloads warten: { $hold }.
downloads-metered-never = Laut Einstellungen wird über eine getaktete Verbindung nie heruntergeladen.
downloads-allow-metered = Trotzdem herunterladen
# $reason is a full sentence saying what went wrong.
downloads-backoff = { $reason } Carrel versucht es von selbst erneut.
downloads-sign-in-needed = Downloads von { $name } warten auf eine Anmeldung ({ $reason }).
downloads-sign-in = Anmelden…
downloads-now = Wird gerade heruntergeladen
# What the request under way brings.
downloads-fetching-pages = Seiten
downloads-fetching-file = Die Datei des Buchs
downloads-fetching-extras = Cover und Extras
downloads-fetching-ready = Wird vorbereitet
downloads-file-stored = Datei gespeichert
downloads-pages-stored = { $stored } von { $total } Seiten gespeichert
# $done and $total are sizes, such as "300 kB of 1.2 MB".
downloads-bytes-of = { $done } von { $total }
downloads-book-label = { $title } heruntergeladen
# $what is one of the texts above ("Pages", "The book’s file"…).
downloads-part-label = { $what } von { $title }
# $percent is a percentage, such as "7 %".
downloads-book-percent = { $percent } des Buchs
downloads-cancel = Abbrechen (was gespeichert ist, bleibt)
downloads-cancel-label = { $title } abbrechen
downloads-cancel-failed = „{ $title }“ konnte nicht abgebrochen werden: { $reason }
downloads-up-next = Als Nächstes
downloads-queue = Warteschlange
downloads-queue-count =
    { $count ->
        [one] { $count } Buch
       *[other] { $count } Bücher
    }
downloads-empty = Nichts wartet. Bücher, die Sie offline behalten oder öffnen, werden hier heruntergeladen, eine Anfrage nach der anderen.
downloads-empty-after-active = Sonst wartet nichts. Bücher, die Sie offline behalten oder öffnen, werden hier heruntergeladen, eine Anfrage nach der anderen.
downloads-priority = Vorrang
downloads-top = Als Nächstes herunterladen
downloads-top-label = { $title } als Nächstes herunterladen
downloads-top-failed = „{ $title }“ konnte nicht verschoben werden: { $reason }
downloads-failed = Fehlgeschlagen
downloads-retry = Erneut versuchen
downloads-retry-failed = „{ $title }“ konnte nicht erneut versucht werden: { $reason }
downloads-give-up = Aufgeben (was gespeichert ist, bleibt)
downloads-give-up-label = { $title } aufgeben
downloads-done = Fertig
downloads-clear = Leeren
downloads-clear-failed = Die Liste konnte nicht geleert werden: { $reason }
# $ago says when, such as "2 min ago".
downloads-stored-ago = Gespeichert { $ago }
downloads-open = Öffnen
downloads-open-label = { $title } öffnen

## Settings

settings-title = Einstellungen
settings-saving = Wird gespeichert…
# $reason is a sentence saying why.
settings-save-error = Die Änderung konnte nicht gespeichert werden: { $reason }
settings-error = Ihre Einstellungen konnten nicht gelesen werden
settings-loading = Ihre Einstellungen werden geladen
settings-reading = Offline lesen
settings-books-kept = Zuletzt gelesene Bücher, die auf diesem Gerät bleiben
settings-books-kept-hint = Die zuletzt geöffneten Bücher werden im Hintergrund heruntergeladen und behalten, damit sie auch ohne den Server da sind. Bücher, die Sie selbst offline behalten, bleiben ebenfalls und zählen nicht mit.
# Read by screen readers for the slider's value.
settings-books-kept-value =
    { $count ->
        [0] keine
        [one] { $count } Buch
       *[other] { $count } Bücher
    }
settings-books-kept-none = Keine
settings-kept-question-one = „{ $title }“ von diesem Gerät entfernen?
settings-kept-question =
    { $count ->
        [one] { $count } Buch von diesem Gerät entfernen?
       *[other] { $count } Bücher von diesem Gerät entfernen?
    }
settings-kept-description-one = Es ist eines der zuletzt gelesenen Bücher, die diese Einstellung nicht mehr behält: Seine heruntergeladenen Seiten und Dateien werden gelöscht. Bücher, die Sie selbst offline behalten, bleiben.
# $titles lists a few books' titles.
settings-kept-description = { $titles } sind zuletzt gelesene Bücher, die diese Einstellung nicht mehr behält: Ihre heruntergeladenen Seiten und Dateien werden gelöscht. Bücher, die Sie selbst offline behalten, bleiben.
settings-kept-title = „{ $title }“
settings-kept-more =
    { $count ->
        [one] { $titles } und { $count } weiteres
       *[other] { $titles } und { $count } weitere
    }
settings-kept-confirm = Vom Gerät entfernen
settings-network = Netzwerk
settings-metered = Bei getakteter Verbindung
settings-metered-hint = Ein mobiler Hotspot oder eine Verbindung, die das System als getaktet markiert (NetworkManager). „Fragen“ wartet, bis Sie unter Downloads „Trotzdem herunterladen“ wählen.
settings-metered-ask = Vor dem Herunterladen fragen
settings-metered-never = Nicht herunterladen
settings-metered-always = Normal herunterladen
settings-starting = Start
settings-start-at-login = Carrel bei der Anmeldung starten
settings-start-at-login-hint = Damit Bücher, die Sie offline behalten, heruntergeladen werden, ohne dass Sie es selbst öffnen.
settings-keep-running = Nach dem Schließen des letzten Fensters weiterlaufen
settings-keep-running-hint = Carrel bleibt im Infobereich, bereit herunterzuladen, was Sie offline behalten. Ist dies aus, bleibt es nur, bis die wartenden Bücher heruntergeladen sind.
settings-notifications = Benachrichtigungen
settings-notifications-label = Desktop-Benachrichtigungen
settings-notifications-hint = Wenn ein Buch, das Sie offline behalten, bereit ist oder ein Download endgültig fehlschlägt.
settings-appearance = Darstellung
settings-theme = Design
settings-theme-system = System
settings-theme-system-hint = Folgt Ihrem Desktop
settings-theme-light = Hell
settings-theme-light-hint = Papier
settings-theme-dark = Dunkel
settings-theme-dark-hint = Tinte
settings-language = Sprache
settings-language-label = Sprache von Carrel
settings-language-hint = Alle offenen Fenster wechseln sofort.
# $language is the name of the language the system asks for, such as "English".
settings-language-system = Systemsprache ({ $language })
settings-storage = Speicher
settings-storage-measuring = Belegter Speicher wird gemessen
settings-storage-error = Der belegte Speicher konnte nicht gemessen werden: { $reason }
# $size is a size, such as "1.5 GB".
settings-storage-total = { $size } belegt von Büchern auf diesem Gerät
# A server's share of the space used, in percent.
settings-storage-share = { $share } %

## Removing a server or a book
remove-server-title = „{ $name }“ entfernen?
remove-server-description = Carrel vergisst die Adresse dieses Servers und jedes dafür gespeicherte Passwort. Auf dem Server selbst ändert sich nichts, und Sie können ihn später wieder hinzufügen.
remove-server-confirm = Server entfernen
remove-book-title = „{ $title }“ von diesem Gerät entfernen?
remove-book-description = Die heruntergeladenen Seiten und Dateien werden gelöscht, ausstehende Downloads verworfen. Das Buch bleibt in Ihrer Bibliothek, und Sie können es später wieder offline behalten.
remove-book-confirm = Vom Gerät entfernen
remove-book-done = „{ $title }“ von diesem Gerät entfernt
