-- Books whose pages come as an explicit list of image URLs (an OPDS 2 reading order of images)
-- rather than a page-stream template: the list, as a JSON array of URLs.
ALTER TABLE books ADD COLUMN page_list TEXT;
