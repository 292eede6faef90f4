# What a failure says, by its kind, where the window speaks another language than the
# detail the failure was written in.
error-invalid-input = Esto no se puede aceptar tal como está
error-not-found = Esto ya no existe
error-conflict = Esto ya existe
error-storage = Carrel no puede usar su carpeta de datos
error-server = El servidor falló o se negó
error-auth = El servidor necesita que vuelvas a iniciar sesión
error-certificate = El certificado del servidor no es de confianza
error-not-downloaded = Esto aún no está en el dispositivo; Carrel lo volverá a intentar
error-with-detail = { $sentence } ({ $detail }).
error-alone = { $sentence }.
