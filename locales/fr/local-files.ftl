# Les fichiers de livres du lecteur ouverts dans Carrel : Fichier → Ouvrir, un dépôt sur la fenêtre, `carrel FICHIER`.

## Ouvrir des fichiers

local-files-open = Ouvrir un fichier…
local-files-choose-title = Ouvrir des livres
local-files-filter-books = Livres (EPUB, CBZ, CBR, CB7, CBT, PDF)
local-files-added =
    { $count ->
        [one] Un livre ajouté aux livres sur cet appareil
       *[other] { $count } livres ajoutés aux livres sur cet appareil
    }
local-files-not-opened = Impossible d’ouvrir « { $file } » : { $reason }
local-files-not-opened-many =
    { $count ->
        [one] { $count } fichier n’a pas pu être ouvert : « { $file } » : { $reason }
       *[other] { $count } fichiers n’ont pas pu être ouverts, dont « { $file } » : { $reason }
    }
local-files-failed = Impossible d’ouvrir les fichiers : { $reason }

## Glisser des fichiers sur la fenêtre

local-files-drop-title = Déposez des livres pour les ouvrir
local-files-drop-copy = Ils sont copiés dans la bibliothèque de Carrel.
local-files-drop-reference = Carrel les lit là où ils sont.

## Réglages

local-files-setting-title = Vos propres fichiers
local-files-setting-copy = Copier les fichiers ouverts dans la bibliothèque de Carrel
local-files-setting-copy-hint = Sinon, Carrel les lit là où ils sont : rien n’est copié, et un fichier déplacé ou supprimé quitte la bibliothèque.
