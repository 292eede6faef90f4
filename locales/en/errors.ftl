# What a failure says, by its kind, where the window speaks another language than the
# detail the failure was written in.
error-invalid-input = This cannot be accepted as it is
error-not-found = This no longer exists
error-conflict = This exists already
error-storage = Carrel cannot use its data folder
error-server = The server failed or refused
error-auth = The server needs you to sign in again
error-certificate = The server’s certificate is not trusted
error-not-downloaded = This is not on the device yet; Carrel will try again
# A kind's sentence and the failure's own detail: "The server failed or refused (it answered 503)."
error-with-detail = { $sentence } ({ $detail }).
error-alone = { $sentence }.
