# What screen readers are told: the live region's announcements, and names of controls that
# show no words.

# A book finished downloading; $title is the book's title.
a11y-download-ready = { $title } is ready to read offline
# The EPUB reader after a page turn; $percent is how far into the book, 0 to 100.
a11y-epub-position = { $percent }% through the book
