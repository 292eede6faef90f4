# What a failure says, by its kind, where the window speaks another language than the
# detail the failure was written in.
error-invalid-input = Ceci ne peut pas être accepté tel quel
error-not-found = Ceci n’existe plus
error-conflict = Ceci existe déjà
error-storage = Carrel ne peut pas utiliser son dossier de données
error-server = Le serveur a échoué ou refusé
error-auth = Le serveur vous demande de vous reconnecter
error-certificate = Le certificat du serveur n’est pas reconnu
error-not-downloaded = Ceci n’est pas encore sur l’appareil ; Carrel réessaiera
error-with-detail = { $sentence } ({ $detail }).
error-alone = { $sentence }.
