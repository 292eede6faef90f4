//! What kind of file a whole book file is, for storing it and for handing it to another app:
//! the extension a declared media type is stored under (a table of ebook and comic types), and
//! whether a file may go to the system's opener at all.
//!
//! The system's opener picks a program from the file's name and, when the name says nothing,
//! from its content — so a file stored under a neutral name lets the server choose the program
//! (a JAR, a desktop launcher, a web page, a shell script). Here a file goes to another app only
//! under the extension of a book type from the table, and only when neither the type the server
//! declared nor the file's own bytes (ELF, PE, Mach-O, `#!` scripts, desktop entries, JARs,
//! web pages and SVG or XML with script) say it is something that runs. Knows types, names and
//! bytes; not which book a file belongs to, nor where it is kept
//! ([`crate::part_files`]).

use std::fs::File;
use std::io::Read;
use std::path::Path;

/// The extension a file is stored under when no type or address says what it is.
pub const UNKNOWN_EXTENSION: &str = "bin";

/// Ebook and comic media types, and the extension a file of each is stored under.
const BOOK_TYPES: &[(&str, &str)] = &[
    ("application/epub+zip", "epub"),
    ("application/pdf", "pdf"),
    ("application/x-pdf", "pdf"),
    ("application/x-mobipocket-ebook", "mobi"),
    ("application/x-mobi8-ebook", "azw3"),
    ("application/vnd.amazon.mobi8-ebook", "azw3"),
    ("application/vnd.amazon.ebook", "azw"),
    ("image/vnd.djvu", "djvu"),
    ("image/x-djvu", "djvu"),
    ("application/x-fictionbook+xml", "fb2"),
    ("application/x-fictionbook", "fb2"),
    ("text/fb2+xml", "fb2"),
    ("application/x-ms-reader", "lit"),
    ("application/vnd.palm", "pdb"),
    ("application/x-palm-database", "pdb"),
    ("application/vnd.comicbook+zip", "cbz"),
    ("application/x-cbz", "cbz"),
    ("application/vnd.comicbook-rar", "cbr"),
    ("application/x-cbr", "cbr"),
    ("application/x-cb7", "cb7"),
    ("application/x-cbt", "cbt"),
    ("text/plain", "txt"),
    ("application/rtf", "rtf"),
    ("text/rtf", "rtf"),
    ("application/msword", "doc"),
    (
        "application/vnd.openxmlformats-officedocument.wordprocessingml.document",
        "docx",
    ),
    ("application/vnd.oasis.opendocument.text", "odt"),
];

/// Types of files that run, or that open in a program that runs what they hold. A file the
/// server declares so never goes to another app, whatever its bytes.
const ACTIVE_TYPES: &[&str] = &[
    "application/x-executable",
    "application/x-elf",
    "application/x-sharedlib",
    "application/x-pie-executable",
    "application/x-msdownload",
    "application/x-msdos-program",
    "application/x-ms-dos-executable",
    "application/x-dosexec",
    "application/vnd.microsoft.portable-executable",
    "application/x-msi",
    "application/x-ms-installer",
    "application/x-ms-shortcut",
    "application/x-ms-application",
    "application/hta",
    "application/x-bat",
    "application/x-mach-binary",
    "application/x-apple-diskimage",
    "application/x-appimage",
    "application/vnd.flatpak",
    "application/vnd.flatpak.ref",
    "application/vnd.debian.binary-package",
    "application/x-deb",
    "application/x-rpm",
    "application/vnd.android.package-archive",
    "application/java-archive",
    "application/x-java-archive",
    "application/x-jar",
    "application/x-java-jnlp-file",
    "application/java-vm",
    "application/x-desktop",
    "application/x-sh",
    "application/x-shellscript",
    "text/x-shellscript",
    "text/x-sh",
    "application/x-csh",
    "application/x-powershell",
    "text/x-python",
    "application/x-python",
    "application/x-python-code",
    "text/x-perl",
    "application/x-perl",
    "application/x-ruby",
    "application/x-php",
    "application/javascript",
    "application/x-javascript",
    "application/ecmascript",
    "text/javascript",
    "application/x-shockwave-flash",
    "text/html",
    "application/xhtml+xml",
    "image/svg+xml",
    // Compiled HTML help: web pages with their scripts, opened by a help viewer.
    "application/vnd.ms-htmlhelp",
    "application/x-chm",
];

/// How much of a file's beginning is looked at for what it really is.
const HEAD_BYTES: u64 = 8 * 1024;

/// Why a file is not handed to another app.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum HandoverError {
    /// The server declares a type of file that runs programs.
    #[error(
        "Carrel does not hand this file to another app: the server says it is {0}, which could run programs"
    )]
    ActiveType(String),
    /// The file's bytes are a program, a script or a page with scripts, whatever was declared.
    #[error(
        "Carrel does not hand this file to another app: the server says it is {declared}, but it is {found}, which could run programs"
    )]
    ActiveContent {
        declared: String,
        found: &'static str,
    },
    /// Neither the declared type nor the address names a book type, so the system would pick
    /// a program from the file's content.
    #[error(
        "Carrel does not hand this file to another app: the server does not say which kind of book it is ({0})"
    )]
    UnknownType(String),
    #[error("cannot read the stored file: {0}")]
    Io(String),
}

impl crate::error::Failure for HandoverError {
    fn kind(&self) -> crate::error::ErrorKind {
        use crate::error::ErrorKind;
        match self {
            HandoverError::Io(_) => ErrorKind::Storage,
            _ => ErrorKind::Server,
        }
    }
}

/// The essence of a media type: the lowercase `type/subtype`, without parameters.
pub fn media_essence(media_type: &str) -> String {
    media_type
        .split(';')
        .next()
        .unwrap_or("")
        .trim()
        .to_ascii_lowercase()
}

/// The extension a book file of this declared media type is stored under, when it is one of
/// the ebook or comic types Carrel knows.
pub fn extension_for_type(media_type: &str) -> Option<&'static str> {
    let essence = media_essence(media_type);
    BOOK_TYPES
        .iter()
        .find(|(t, _)| *t == essence)
        .map(|(_, ext)| *ext)
}

/// The address's extension when it is one of the table's (`.../Book.MOBI?x=1` → `mobi`).
pub fn extension_of_address(url: &str) -> Option<&'static str> {
    let path = url.split(['?', '#']).next().unwrap_or("");
    let name = path.rsplit('/').next().unwrap_or("");
    let (_, ext) = name.rsplit_once('.')?;
    let ext = ext.to_ascii_lowercase();
    BOOK_TYPES
        .iter()
        .map(|(_, e)| *e)
        .chain(["azw3", "kf8", "djv"])
        .find(|e| *e == ext)
        .map(|e| match e {
            "kf8" => "azw3",
            "djv" => "djvu",
            e => e,
        })
}

/// The extension a downloaded whole file is stored under: the declared type's, else the
/// address's when it is a book extension, else [`UNKNOWN_EXTENSION`].
pub fn stored_extension(media_type: Option<&str>, url: &str) -> &'static str {
    media_type
        .and_then(extension_for_type)
        .or_else(|| extension_of_address(url))
        .unwrap_or(UNKNOWN_EXTENSION)
}

/// Whether the declared type is one of a file that runs programs.
pub fn is_active_type(media_type: &str) -> bool {
    ACTIVE_TYPES.contains(&media_essence(media_type).as_str())
}

/// The extension under which the file at `path`, declared as `media_type` and fetched from
/// `url`, may be handed to another app — or why it may not. Reads the file's beginning and,
/// for a ZIP, its list of entries.
pub fn vet_for_another_app(
    media_type: Option<&str>,
    url: &str,
    path: &Path,
) -> Result<&'static str, HandoverError> {
    let declared = media_type.map(media_essence).filter(|t| !t.is_empty());
    if let Some(t) = declared.as_deref().filter(|t| is_active_type(t)) {
        return Err(HandoverError::ActiveType(t.to_string()));
    }
    let ext = declared
        .as_deref()
        .and_then(extension_for_type)
        .or_else(|| extension_of_address(url))
        .ok_or_else(|| {
            HandoverError::UnknownType(match &declared {
                Some(t) => format!("it says only {t}"),
                None => "it declares no type".to_string(),
            })
        })?;
    let io = |e: std::io::Error| HandoverError::Io(e.to_string());
    let mut head = Vec::new();
    File::open(path)
        .map_err(io)?
        .take(HEAD_BYTES)
        .read_to_end(&mut head)
        .map_err(io)?;
    let found = active_content(&head).or_else(|| {
        if head.starts_with(b"PK\x03\x04") || head.starts_with(b"PK\x05\x06") {
            active_zip(path)
        } else {
            None
        }
    });
    match found {
        Some(found) => Err(HandoverError::ActiveContent {
            declared: declared.unwrap_or_else(|| format!("a .{ext} file")),
            found,
        }),
        None => Ok(ext),
    }
}

/// What a file's first bytes show it to be when that is something that runs.
pub fn active_content(head: &[u8]) -> Option<&'static str> {
    if head.starts_with(b"\x7fELF") {
        return Some("a Linux program");
    }
    if head.starts_with(b"MZ") {
        return Some("a Windows program");
    }
    if [
        [0xFE, 0xED, 0xFA, 0xCE],
        [0xCE, 0xFA, 0xED, 0xFE],
        [0xFE, 0xED, 0xFA, 0xCF],
        [0xCF, 0xFA, 0xED, 0xFE],
        [0xCA, 0xFE, 0xBA, 0xBE],
    ]
    .iter()
    .any(|m| head.starts_with(m))
    {
        return Some("a macOS or Java program");
    }
    if head.starts_with(b"L\0\0\0\x01\x14\x02\0") {
        return Some("a Windows shortcut");
    }
    let text = head.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(head);
    if text.starts_with(b"#!") {
        return Some("a script");
    }
    let lower = String::from_utf8_lossy(text).to_ascii_lowercase();
    if lower.lines().any(|l| l.trim() == "[desktop entry]") {
        return Some("a desktop launcher");
    }
    let markup = lower.trim_start();
    if markup.starts_with('<') {
        if markup.starts_with("<!doctype html")
            || markup.contains("<html")
            || markup.contains("<iframe")
        {
            return Some("a web page");
        }
        if markup.contains("<svg") {
            return Some("an SVG image, which may hold scripts");
        }
        if markup.contains("<script") || markup.contains("javascript:") {
            return Some("markup with scripts");
        }
    }
    None
}

/// What a ZIP's entries show it to be when that is something that runs: a Java archive (its
/// `META-INF/MANIFEST.MF`) or one holding a desktop launcher. `None` for a ZIP that cannot be
/// read as one (the other app will say so).
fn active_zip(path: &Path) -> Option<&'static str> {
    let file = File::open(path).ok()?;
    let archive = zip::ZipArchive::new(file).ok()?;
    for name in archive.file_names() {
        let lower = name.to_ascii_lowercase();
        if lower == "meta-inf/manifest.mf" || lower.ends_with(".class") {
            return Some("a Java program");
        }
        if lower.ends_with(".desktop") {
            return Some("an archive holding a desktop launcher");
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Write;

    fn stored(bytes: &[u8]) -> tempfile::NamedTempFile {
        let mut file = tempfile::NamedTempFile::new().unwrap();
        file.write_all(bytes).unwrap();
        file
    }

    fn zip_of(names: &[&str]) -> Vec<u8> {
        let mut writer = zip::ZipWriter::new(std::io::Cursor::new(Vec::new()));
        for name in names {
            writer
                .start_file(*name, zip::write::SimpleFileOptions::default())
                .unwrap();
            writer.write_all(b"x").unwrap();
        }
        writer.finish().unwrap().into_inner()
    }

    fn mobi() -> Vec<u8> {
        let mut bytes = vec![0u8; 78];
        bytes[60..68].copy_from_slice(b"BOOKMOBI");
        bytes
    }

    const URL: &str = "http://127.0.0.1:9/opds/books/1/file";

    #[test]
    fn book_types_are_stored_under_their_extension() {
        for (media_type, ext) in [
            ("application/x-mobipocket-ebook", "mobi"),
            ("application/vnd.amazon.mobi8-ebook", "azw3"),
            ("application/x-mobi8-ebook", "azw3"),
            ("application/vnd.amazon.ebook", "azw"),
            ("image/vnd.djvu", "djvu"),
            ("Image/X-DjVu", "djvu"),
            ("application/x-fictionbook+xml", "fb2"),
            ("application/x-ms-reader", "lit"),
            ("application/vnd.palm", "pdb"),
            ("application/vnd.comicbook+zip", "cbz"),
            ("application/vnd.comicbook-rar", "cbr"),
            ("application/x-cb7", "cb7"),
            ("application/x-cbt", "cbt"),
            ("application/epub+zip; charset=binary", "epub"),
            ("application/pdf", "pdf"),
            ("text/plain; charset=utf-8", "txt"),
            ("text/rtf", "rtf"),
            ("application/msword", "doc"),
            (
                "application/vnd.openxmlformats-officedocument.wordprocessingml.document",
                "docx",
            ),
            ("application/vnd.oasis.opendocument.text", "odt"),
        ] {
            assert_eq!(extension_for_type(media_type), Some(ext), "{media_type}");
            assert_eq!(stored_extension(Some(media_type), URL), ext, "{media_type}");
        }
    }

    #[test]
    fn only_a_book_extension_of_the_address_stands_in_for_a_generic_type() {
        assert_eq!(
            stored_extension(Some("application/octet-stream"), "/b/1/Dune.AZW3?x=.sh"),
            "azw3"
        );
        assert_eq!(stored_extension(None, "/books/1/file.CBZ?x=1"), "cbz");
        assert_eq!(stored_extension(None, "/b/1/book.kf8"), "azw3");
        for url in ["/b/1/run.desktop", "/b/1/app.jar", "/b/1/x.sh", "/b/1/file"] {
            assert_eq!(
                stored_extension(Some("application/octet-stream"), url),
                UNKNOWN_EXTENSION,
                "{url}"
            );
        }
        assert_eq!(
            stored_extension(Some("application/x-desktop"), "/b/1/x.desktop"),
            UNKNOWN_EXTENSION
        );
    }

    #[test]
    fn a_book_goes_to_another_app_under_its_types_extension() {
        let file = stored(&mobi());
        assert_eq!(
            vet_for_another_app(Some("application/x-mobipocket-ebook"), URL, file.path()).unwrap(),
            "mobi"
        );
        let djvu = stored(b"AT&TFORM\0\0\0\x10DJVU");
        assert_eq!(
            vet_for_another_app(Some("image/vnd.djvu"), URL, djvu.path()).unwrap(),
            "djvu"
        );
        let fb2 =
            stored(b"<?xml version=\"1.0\"?><FictionBook><body><p>Hi</p></body></FictionBook>");
        assert_eq!(
            vet_for_another_app(Some("application/x-fictionbook+xml"), URL, fb2.path()).unwrap(),
            "fb2"
        );
        let odt = stored(&zip_of(&[
            "mimetype",
            "META-INF/manifest.xml",
            "content.xml",
        ]));
        assert_eq!(
            vet_for_another_app(
                Some("application/vnd.oasis.opendocument.text"),
                URL,
                odt.path()
            )
            .unwrap(),
            "odt"
        );
        let cbz = stored(&zip_of(&["001.jpg", "002.jpg"]));
        assert_eq!(
            vet_for_another_app(None, "/b/1/Saga.cbz", cbz.path()).unwrap(),
            "cbz"
        );
    }

    #[test]
    fn a_declared_type_that_runs_programs_is_refused_and_says_so() {
        let file = stored(&mobi());
        for media_type in [
            "application/x-desktop",
            "application/java-archive",
            "application/x-sh",
            "text/html; charset=utf-8",
            "image/svg+xml",
            "application/x-msdownload",
            "application/vnd.ms-htmlhelp",
        ] {
            let err = vet_for_another_app(Some(media_type), URL, file.path()).unwrap_err();
            let essence = media_type.split(';').next().unwrap();
            assert!(
                matches!(&err, HandoverError::ActiveType(t) if t == essence),
                "{media_type}: {err:?}"
            );
            assert_eq!(
                err.to_string(),
                format!(
                    "Carrel does not hand this file to another app: the server says it is {essence}, which could run programs"
                )
            );
        }
    }

    #[test]
    fn content_that_runs_is_refused_whatever_the_server_declares() {
        let declared = Some("application/x-mobipocket-ebook");
        for (bytes, found) in [
            (b"\x7fELF\x02\x01\x01\0".to_vec(), "a Linux program"),
            (b"MZ\x90\0\x03\0\0\0".to_vec(), "a Windows program"),
            (b"#!/bin/sh\nrm -rf ~\n".to_vec(), "a script"),
            (b"\xEF\xBB\xBF#!/usr/bin/env python3\n".to_vec(), "a script"),
            (
                b"# made here\n[Desktop Entry]\nType=Application\nExec=sh -c x\n".to_vec(),
                "a desktop launcher",
            ),
            (
                b"  <!DOCTYPE html><html><body><script>x()</script>".to_vec(),
                "a web page",
            ),
            (
                b"<?xml version=\"1.0\"?><svg xmlns=\"http://www.w3.org/2000/svg\"><script>x()</script></svg>".to_vec(),
                "an SVG image, which may hold scripts",
            ),
            (
                b"<?xml version=\"1.0\"?><doc><script>x()</script></doc>".to_vec(),
                "markup with scripts",
            ),
            (
                zip_of(&["META-INF/MANIFEST.MF", "Main.class"]),
                "a Java program",
            ),
            (
                zip_of(&["cover.jpg", "run.desktop"]),
                "an archive holding a desktop launcher",
            ),
        ] {
            let file = stored(&bytes);
            let err = vet_for_another_app(declared, URL, file.path()).unwrap_err();
            assert!(
                matches!(&err, HandoverError::ActiveContent { found: f, .. } if *f == found),
                "{found}: {err:?}"
            );
            assert!(
                err.to_string().starts_with(
                    "Carrel does not hand this file to another app: the server says it is application/x-mobipocket-ebook, but it is "
                ),
                "{err}"
            );
        }
    }

    #[test]
    fn a_file_of_no_book_type_is_refused_rather_than_guessed_from_its_content() {
        let file = stored(&mobi());
        for (media_type, url) in [
            (Some("application/octet-stream"), URL),
            (None, URL),
            (Some("application/x-foo"), "/b/1/run.desktop"),
        ] {
            let err = vet_for_another_app(media_type, url, file.path()).unwrap_err();
            assert!(matches!(err, HandoverError::UnknownType(_)), "{err:?}");
            assert!(err
                .to_string()
                .starts_with("Carrel does not hand this file to another app: the server does not say which kind of book it is"));
        }
    }
}
