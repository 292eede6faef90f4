//! Which of the app's readers opens a book: the comic reader (pages streamed by the server, or
//! a whole CBZ/CBR/CB7/CBT file), the EPUB reader, the PDF reader (a whole PDF file), or none
//! (`other`: MOBI, AZW3, DJVU, … — the window says it cannot show them and offers another app).
//!
//! Decided here once, from what the catalog said about the book (page stream, media type, the
//! file's address), so every window routes a book the same way. Owns no table and reads no
//! file; the bytes' own type is checked when they are served ([`crate::book_source`]).

use serde::Serialize;

use crate::archive_pages;
use carrel_library::books::{Book, BookFormat};

/// The reader a book opens in.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, ts_rs::TS)]
#[serde(rename_all = "snake_case")]
pub enum BookReader {
    Comic,
    Epub,
    Pdf,
    Other,
}

impl BookReader {
    pub fn as_str(self) -> &'static str {
        match self {
            BookReader::Comic => "comic",
            BookReader::Epub => "epub",
            BookReader::Pdf => "pdf",
            BookReader::Other => "other",
        }
    }
}

/// The reader for a book (see [`reader_for`]), from its parts. `archive_comic` is
/// [`archive_pages::is_archive_comic`]'s answer: one rule for what a comic archive is.
pub fn reader_of(
    streams_pages: bool,
    archive_comic: bool,
    format: BookFormat,
    file_type: Option<&str>,
    file_url: Option<&str>,
) -> BookReader {
    // A book the server streams page by page is read as pages, whatever its file is (Komga and
    // Kavita stream PDFs so).
    if streams_pages || archive_comic {
        return BookReader::Comic;
    }
    if file_url.is_none() {
        // Neither pages nor a file: there is nothing to show.
        return BookReader::Other;
    }
    if let Some(reader) = file_type.and_then(by_media_type) {
        return reader;
    }
    if let Some(reader) = file_url.and_then(by_extension) {
        return reader;
    }
    match format {
        BookFormat::Epub => BookReader::Epub,
        BookFormat::Pdf => BookReader::Pdf,
        BookFormat::Comic | BookFormat::Other => BookReader::Other,
    }
}

/// The reader a book opens in.
pub fn reader_for(book: &Book) -> BookReader {
    reader_of(
        book.streams_pages(),
        archive_pages::is_archive_comic(book),
        book.format,
        book.file_type.as_deref(),
        book.file_url.as_deref(),
    )
}

fn by_media_type(media_type: &str) -> Option<BookReader> {
    let t = media_type
        .split(';')
        .next()
        .unwrap_or("")
        .trim()
        .to_ascii_lowercase();
    match t.as_str() {
        "application/epub+zip" => Some(BookReader::Epub),
        "application/pdf" | "application/x-pdf" => Some(BookReader::Pdf),
        // A generic type says nothing: the address may.
        ""
        | "application/octet-stream"
        | "application/zip"
        | "application/x-zip-compressed"
        | "binary/octet-stream" => None,
        _ => Some(BookReader::Other),
    }
}

fn by_extension(url: &str) -> Option<BookReader> {
    let path = url.split(['?', '#']).next().unwrap_or("");
    let name = path.rsplit('/').next().unwrap_or("");
    let (_, ext) = name.rsplit_once('.')?;
    match ext.to_ascii_lowercase().as_str() {
        "epub" => Some(BookReader::Epub),
        "pdf" => Some(BookReader::Pdf),
        "mobi" | "azw" | "azw3" | "kf8" | "djvu" | "djv" | "fb2" | "lit" | "txt" | "rtf"
        | "doc" | "docx" => Some(BookReader::Other),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const URL: Option<&str> = Some("http://127.0.0.1:9/opds/books/1/file");

    fn file(format: BookFormat, file_type: Option<&str>, url: Option<&str>) -> BookReader {
        reader_of(false, false, format, file_type, url)
    }

    #[test]
    fn streamed_pages_and_comic_archives_are_read_as_comics() {
        assert_eq!(
            reader_of(true, false, BookFormat::Pdf, Some("application/pdf"), URL),
            BookReader::Comic
        );
        assert_eq!(
            reader_of(true, false, BookFormat::Comic, None, None),
            BookReader::Comic
        );
        assert_eq!(
            reader_of(
                false,
                true,
                BookFormat::Other,
                Some("application/x-cbr"),
                URL
            ),
            BookReader::Comic
        );
    }

    #[test]
    fn whole_files_go_by_media_type() {
        assert_eq!(
            file(BookFormat::Pdf, Some("application/pdf"), URL),
            BookReader::Pdf
        );
        assert_eq!(
            file(BookFormat::Other, Some("Application/PDF; name=x"), URL),
            BookReader::Pdf
        );
        assert_eq!(
            file(BookFormat::Epub, Some("application/epub+zip"), URL),
            BookReader::Epub
        );
        for other in [
            "application/x-mobipocket-ebook",
            "application/vnd.amazon.ebook",
            "image/vnd.djvu",
            "application/x-mobi8-ebook",
        ] {
            assert_eq!(
                file(BookFormat::Other, Some(other), URL),
                BookReader::Other,
                "{other}"
            );
        }
    }

    #[test]
    fn without_a_telling_type_the_files_name_decides() {
        assert_eq!(
            file(BookFormat::Other, None, Some("http://h/b/Book.PDF")),
            BookReader::Pdf
        );
        assert_eq!(
            file(
                BookFormat::Other,
                Some("application/octet-stream"),
                Some("http://h/b/x.pdf?t=1")
            ),
            BookReader::Pdf
        );
        assert_eq!(
            file(BookFormat::Other, None, Some("http://h/b/x.epub#f")),
            BookReader::Epub
        );
        assert_eq!(
            file(BookFormat::Epub, None, Some("http://h/b/x.azw3")),
            BookReader::Other
        );
        assert_eq!(
            file(BookFormat::Other, None, Some("http://h/x.pdf/download")),
            BookReader::Other
        );
    }

    #[test]
    fn last_the_catalogs_format_decides() {
        assert_eq!(file(BookFormat::Epub, None, URL), BookReader::Epub);
        assert_eq!(file(BookFormat::Pdf, None, URL), BookReader::Pdf);
        assert_eq!(
            file(BookFormat::Comic, None, URL),
            BookReader::Other,
            "a comic file of no known kind"
        );
        assert_eq!(
            file(BookFormat::Epub, None, None),
            BookReader::Other,
            "no pages and no file"
        );
        assert_eq!(file(BookFormat::Other, None, URL), BookReader::Other);
        assert_eq!(serde_json::to_string(&BookReader::Pdf).unwrap(), "\"pdf\"");
    }
}
