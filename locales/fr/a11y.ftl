# Ce que les lecteurs d’écran annoncent, et les noms des commandes sans texte visible.

# Un livre a fini de se télécharger ; $title est son titre.
a11y-download-ready = { $title } peut être lu hors ligne
# La liseuse EPUB après un changement de page ; $percent va de 0 à 100.
a11y-epub-position = { $percent } % du livre
