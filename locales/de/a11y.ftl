# Was Bildschirmleser ansagen, und die Namen von Bedienelementen ohne sichtbaren Text.

# Ein Buch ist fertig heruntergeladen; $title ist sein Titel.
a11y-download-ready = { $title } kann jetzt offline gelesen werden
# Der EPUB-Reader nach dem Umblättern; $percent von 0 bis 100.
a11y-epub-position = { $percent } % des Buchs
