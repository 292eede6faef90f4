# Lo que anuncian los lectores de pantalla, y los nombres de controles sin texto visible.

# Un libro terminó de descargarse; $title es su título.
a11y-download-ready = { $title } ya se puede leer sin conexión
# El lector EPUB al pasar página; $percent va de 0 a 100.
a11y-epub-position = { $percent } % del libro
