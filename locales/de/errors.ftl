# What a failure says, by its kind, where the window speaks another language than the
# detail the failure was written in.
error-invalid-input = Das kann so nicht übernommen werden
error-not-found = Das gibt es nicht mehr
error-conflict = Das gibt es bereits
error-storage = Carrel kann seinen Datenordner nicht verwenden
error-server = Der Server ist fehlgeschlagen oder hat abgelehnt
error-auth = Der Server möchte, dass Sie sich erneut anmelden
error-certificate = Dem Zertifikat des Servers wird nicht vertraut
error-not-downloaded = Das ist noch nicht auf dem Gerät; Carrel versucht es erneut
error-with-detail = { $sentence } ({ $detail }).
error-alone = { $sentence }.
