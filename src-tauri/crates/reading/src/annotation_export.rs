//! A book's bookmarks and highlights written out for the reader to keep elsewhere: Markdown to
//! read, JSON for other programs. Pure functions of the book's title and its annotations
//! (in the book's order, as [`crate::annotations::list_for_book`] gives them), and
//! [`export_book`], which reads both from the store.
//!
//! **Markdown**: the title as a `#` heading (the authors below it), a `##` heading where the
//! chapter changes (none for a book without chapters), each highlight as a `>` quote with its
//! note below it and the date it was made (`*2026-01-02*`, UTC; a PDF's page after it), each
//! bookmark as one line (`🔖 *2026-01-02*`). Text from the book or the reader is escaped, so
//! `*`, `#`, `[`, `<`, a leading `-` or `1.` and the like show as written; a note's line breaks
//! are kept.
//!
//! **JSON** ([`JSON_VERSION`] 1), stable for other programs:
//!
//! ```json
//! {
//!   "version": 1,
//!   "book": { "title": "Middlemarch", "authors": "George Eliot" },
//!   "annotations": [
//!     {
//!       "kind": "highlight",            // or "bookmark"
//!       "chapter": "Prelude",           // or null
//!       "quote": "Who that cares …",    // or null
//!       "note": "Saint Theresa",        // or null
//!       "colour": "yellow",             // "green", "blue", "pink"; null for a bookmark
//!       "locator": { "type": "epub", "cfi": "epubcfi(/6/4!/4/2,/1:0,/1:12)" },
//!       //   or { "type": "pdf", "page": 0, "quote"?: { "exact", "prefix"?, "suffix"? },
//!       //        "rects": [{ "x", "y", "width", "height" }] }  (page 0-based, fractions)
//!       "created": "2026-01-02T03:04:05.678Z",
//!       "updated": "2026-01-02T03:04:05.678Z"
//!     }
//!   ]
//! }
//! ```
//!
//! A later change that takes a field away or changes its meaning raises `version`; adding a
//! field does not.

use serde::{Deserialize, Serialize};

use carrel_foundation::store::Store;
use carrel_foundation::timestamps::format_rfc3339;
use carrel_library::books::{self, BookError};

use crate::annotations::{self, Annotation, AnnotationError, AnnotationKind, Colour, Locator};

/// The version of the JSON export's shape.
pub const JSON_VERSION: u32 = 1;

/// What an export is written as.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, ts_rs::TS)]
#[ts(rename = "AnnotationExportFormat")]
#[serde(rename_all = "snake_case")]
pub enum ExportFormat {
    Markdown,
    Json,
}

impl std::str::FromStr for ExportFormat {
    type Err = String;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        match s {
            "markdown" | "md" => Ok(ExportFormat::Markdown),
            "json" => Ok(ExportFormat::Json),
            _ => Err(format!("an export is markdown or json, not {s:?}")),
        }
    }
}

/// A book's annotations written as `format`.
pub fn export(format: ExportFormat, title: &str, authors: &str, list: &[Annotation]) -> String {
    match format {
        ExportFormat::Markdown => markdown(title, authors, list),
        ExportFormat::Json => json(title, authors, list),
    }
}

/// A book's annotations, read from the store and written as `format`.
pub fn export_book(
    store: &Store,
    book_id: i64,
    format: ExportFormat,
) -> Result<String, AnnotationError> {
    let book = books::get(store, book_id).map_err(|e| match e {
        BookError::NotFound(id) => AnnotationError::UnknownBook(id),
        BookError::Store(e) => AnnotationError::Store(e),
    })?;
    let list = annotations::list_for_book(store, book_id)?;
    Ok(export(format, &book.title, &book.authors, &list))
}

/// The date an annotation was made, `2026-01-02` (UTC).
fn date(ms: i64) -> String {
    format_rfc3339(ms)[..10].to_owned()
}

/// One line of text as Markdown shows it literally: its characters that mean something to
/// Markdown escaped, leading and trailing spaces dropped (four would make code, two a break).
fn escape_line(line: &str) -> String {
    let line = line.trim();
    let mut out = String::with_capacity(line.len() + 8);
    for c in line.chars() {
        if matches!(
            c,
            '\\' | '`' | '*' | '_' | '[' | ']' | '<' | '>' | '#' | '|' | '~' | '&' | '!'
        ) {
            out.push('\\');
        }
        out.push(c);
    }
    // What only means something at the start of a line: a list item (`- `, `+ `, `1. `,
    // `1) `), a setext heading's underline (`=`), a thematic break (`---`).
    if out.starts_with(['-', '+', '=']) {
        out.insert(0, '\\');
    } else {
        let digits = out.chars().take_while(char::is_ascii_digit).count();
        if digits > 0 && out[digits..].starts_with(['.', ')']) {
            out.insert(digits, '\\');
        }
    }
    out
}

/// Lines of text, blank runs folded to one empty line, none at either end; line ends of any
/// kind.
fn lines(text: &str) -> Vec<String> {
    let text = text.replace("\r\n", "\n").replace('\r', "\n");
    let mut out: Vec<String> = Vec::new();
    for line in text.split('\n') {
        let escaped = escape_line(line);
        if escaped.is_empty() && out.last().is_none_or(String::is_empty) {
            continue;
        }
        out.push(escaped);
    }
    while out.last().is_some_and(String::is_empty) {
        out.pop();
    }
    out
}

/// A heading's text: one line, escaped.
fn heading(text: &str) -> String {
    escape_line(&text.split_whitespace().collect::<Vec<_>>().join(" "))
}

/// Text as paragraphs: its line breaks kept (a backslash at a line's end), blank lines between
/// paragraphs.
fn paragraphs(text: &str) -> String {
    let lines = lines(text);
    let mut out = String::new();
    for (i, line) in lines.iter().enumerate() {
        out.push_str(line);
        let next_is_text = lines.get(i + 1).is_some_and(|l| !l.is_empty());
        if !line.is_empty() && next_is_text {
            out.push('\\');
        }
        out.push('\n');
    }
    out
}

/// Text as a block quote.
fn block_quote(text: &str) -> String {
    lines(text)
        .iter()
        .map(|l| {
            if l.is_empty() {
                ">\n".to_owned()
            } else {
                format!("> {l}\n")
            }
        })
        .collect()
}

/// The highlighted text: as the reader's window gave it, else a PDF highlight's quote.
fn quoted_text(a: &Annotation) -> Option<&str> {
    a.quote.as_deref().or(match &a.locator {
        Locator::Pdf { quote: Some(q), .. } => Some(q.exact.as_str()),
        _ => None,
    })
}

/// `*2026-01-02*`, with a PDF's page (counted from 1): `*2026-01-02, p. 4*`.
fn when_and_where(a: &Annotation) -> String {
    match &a.locator {
        Locator::Pdf { page, .. } => {
            format!("*{}, p. {}*", date(a.created_ms), u64::from(*page) + 1)
        }
        Locator::Epub { .. } => format!("*{}*", date(a.created_ms)),
    }
}

/// A book's annotations as Markdown (see the module's docs).
pub fn markdown(title: &str, authors: &str, list: &[Annotation]) -> String {
    let mut out = format!("# {}\n", heading(title));
    if !authors.trim().is_empty() {
        out.push_str(&format!("\n{}\n", heading(authors)));
    }
    let mut chapter: Option<&str> = None;
    for a in list {
        if let Some(c) = a.chapter.as_deref().filter(|c| !c.trim().is_empty()) {
            if chapter != Some(c) {
                out.push_str(&format!("\n## {}\n", heading(c)));
                chapter = Some(c);
            }
        }
        out.push('\n');
        match a.kind {
            AnnotationKind::Highlight => {
                if let Some(q) = quoted_text(a).filter(|q| !q.trim().is_empty()) {
                    out.push_str(&block_quote(q));
                    out.push('\n');
                }
                if let Some(n) = a.note.as_deref().filter(|n| !n.trim().is_empty()) {
                    out.push_str(&paragraphs(n));
                    out.push('\n');
                }
                out.push_str(&when_and_where(a));
                out.push('\n');
            }
            AnnotationKind::Bookmark => {
                out.push_str(&format!("🔖 {}\n", when_and_where(a)));
                if let Some(n) = a.note.as_deref().filter(|n| !n.trim().is_empty()) {
                    out.push('\n');
                    out.push_str(&paragraphs(n));
                }
            }
        }
    }
    out
}

#[derive(Serialize)]
struct JsonExport<'a> {
    version: u32,
    book: JsonBook<'a>,
    annotations: Vec<JsonAnnotation<'a>>,
}

#[derive(Serialize)]
struct JsonBook<'a> {
    title: &'a str,
    authors: &'a str,
}

#[derive(Serialize)]
struct JsonAnnotation<'a> {
    kind: AnnotationKind,
    chapter: Option<&'a str>,
    quote: Option<&'a str>,
    note: Option<&'a str>,
    colour: Option<Colour>,
    locator: &'a Locator,
    created: String,
    updated: String,
}

/// A book's annotations as JSON (see the module's docs for its shape).
pub fn json(title: &str, authors: &str, list: &[Annotation]) -> String {
    let export = JsonExport {
        version: JSON_VERSION,
        book: JsonBook { title, authors },
        annotations: list
            .iter()
            .map(|a| JsonAnnotation {
                kind: a.kind,
                chapter: a.chapter.as_deref(),
                quote: a.quote.as_deref(),
                note: a.note.as_deref(),
                colour: a.colour,
                locator: &a.locator,
                created: format_rfc3339(a.created_ms),
                updated: format_rfc3339(a.updated_ms),
            })
            .collect(),
    };
    let mut text = serde_json::to_string_pretty(&export).expect("an export serialises");
    text.push('\n');
    text
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::annotations::{PageRect, TextQuote};

    /// 2026-01-02T03:04:05.678Z
    const JAN_2: i64 = 1_767_323_045_678;
    const DAY: i64 = 86_400_000;

    fn highlight(id: i64, chapter: Option<&str>, quote: &str, note: Option<&str>) -> Annotation {
        Annotation {
            id,
            kind: AnnotationKind::Highlight,
            locator: Locator::Epub {
                cfi: format!("epubcfi(/6/{}!/4/2/1:0)", id * 2),
            },
            chapter: chapter.map(str::to_owned),
            quote: Some(quote.into()),
            note: note.map(str::to_owned),
            colour: Some(Colour::Yellow),
            created_ms: JAN_2 + id * DAY,
            updated_ms: JAN_2 + id * DAY,
        }
    }

    fn bookmark(id: i64, chapter: Option<&str>) -> Annotation {
        Annotation {
            id,
            kind: AnnotationKind::Bookmark,
            locator: Locator::Epub {
                cfi: format!("epubcfi(/6/{}!/4)", id * 2),
            },
            chapter: chapter.map(str::to_owned),
            quote: None,
            note: None,
            colour: None,
            created_ms: JAN_2 + id * DAY,
            updated_ms: JAN_2 + id * DAY,
        }
    }

    #[test]
    fn markdown_has_the_title_a_heading_per_chapter_quotes_notes_and_dates() {
        let list = [
            highlight(
                1,
                Some("Prelude"),
                "Who that cares much to know",
                Some("Theresa"),
            ),
            bookmark(2, Some("Prelude")),
            highlight(3, Some("Book I: Miss Brooke"), "Miss Brooke had", None),
        ];
        let md = markdown("Middlemarch", "George Eliot", &list);
        assert_eq!(
            md,
            "# Middlemarch\n\
             \n\
             George Eliot\n\
             \n\
             ## Prelude\n\
             \n\
             > Who that cares much to know\n\
             \n\
             Theresa\n\
             \n\
             *2026-01-03*\n\
             \n\
             🔖 *2026-01-04*\n\
             \n\
             ## Book I: Miss Brooke\n\
             \n\
             > Miss Brooke had\n\
             \n\
             *2026-01-05*\n"
        );
    }

    #[test]
    fn a_book_without_chapters_has_no_chapter_headings() {
        let list = [highlight(1, None, "First", None), bookmark(2, None)];
        let md = markdown("Essays", "", &list);
        assert!(!md.contains("##"), "{md}");
        assert_eq!(
            md,
            "# Essays\n\n> First\n\n*2026-01-03*\n\n🔖 *2026-01-04*\n"
        );
        // A book with nothing marked is its title alone.
        assert_eq!(markdown("Essays", "", &[]), "# Essays\n");
    }

    #[test]
    fn notes_keep_their_lines_and_show_markdown_characters_as_written() {
        let note = "  # not a heading\n- not a list\n1. not a list either\n\n\n\
                    *stars* _under_ [link](x) <b>tag</b> a|b `code` \\ & !\n---\n    four spaces  \r\nlast";
        let list = [highlight(
            1,
            Some("Ch. 1 # *one*"),
            "> quoted\n\n2) two",
            Some(note),
        )];
        let md = markdown("A *bold* # title", "", &list);
        assert!(md.starts_with("# A \\*bold\\* \\# title\n"), "{md}");
        assert!(md.contains("\n## Ch. 1 \\# \\*one\\*\n"), "{md}");
        assert!(md.contains("> \\> quoted\n>\n> 2\\) two\n"), "{md}");
        assert!(
            md.contains(
                "\\# not a heading\\\n\
                 \\- not a list\\\n\
                 1\\. not a list either\n\
                 \n\
                 \\*stars\\* \\_under\\_ \\[link\\](x) \\<b\\>tag\\</b\\> a\\|b \\`code\\` \\\\ \\& \\!\\\n\
                 \\---\\\n\
                 four spaces\\\n\
                 last\n"
            ),
            "{md}"
        );
        // No line of the note became a heading, a list, a rule or code.
        for line in md.lines().skip(1) {
            assert!(
                !line.starts_with("    ")
                    && !line.starts_with("- ")
                    && !line.starts_with("1. ")
                    && (line.starts_with("## ") || !line.starts_with('#')),
                "{line:?} in\n{md}"
            );
        }
    }

    #[test]
    fn pdf_annotations_say_their_page_and_quote_from_their_place() {
        let a = Annotation {
            id: 1,
            kind: AnnotationKind::Highlight,
            locator: Locator::Pdf {
                page: 11,
                quote: Some(TextQuote {
                    exact: "the quick fox".into(),
                    prefix: None,
                    suffix: None,
                }),
                rects: vec![PageRect {
                    x: 0.1,
                    y: 0.2,
                    width: 0.3,
                    height: 0.02,
                }],
            },
            chapter: None,
            quote: None,
            note: Some("note".into()),
            colour: Some(Colour::Blue),
            created_ms: JAN_2,
            updated_ms: JAN_2,
        };
        let mut mark = a.clone();
        mark.kind = AnnotationKind::Bookmark;
        mark.locator = Locator::Pdf {
            page: 0,
            quote: None,
            rects: Vec::new(),
        };
        mark.colour = None;
        mark.note = None;
        let md = markdown("Report", "", &[mark, a]);
        assert_eq!(
            md,
            "# Report\n\n🔖 *2026-01-02, p. 1*\n\n> the quick fox\n\nnote\n\n*2026-01-02, p. 12*\n"
        );
    }

    #[test]
    fn json_has_a_version_and_a_stable_shape() {
        let mut h = highlight(1, Some("Prelude"), "Who", Some("line one\nline \"two\""));
        h.updated_ms = JAN_2 + 5 * DAY;
        let list = [h, bookmark(2, None)];
        let text = json("Middlemarch", "George Eliot", &list);
        let v: serde_json::Value = serde_json::from_str(&text).unwrap();
        assert_eq!(
            v,
            serde_json::json!({
                "version": 1,
                "book": { "title": "Middlemarch", "authors": "George Eliot" },
                "annotations": [
                    {
                        "kind": "highlight",
                        "chapter": "Prelude",
                        "quote": "Who",
                        "note": "line one\nline \"two\"",
                        "colour": "yellow",
                        "locator": { "type": "epub", "cfi": "epubcfi(/6/2!/4/2/1:0)" },
                        "created": "2026-01-03T03:04:05.678Z",
                        "updated": "2026-01-07T03:04:05.678Z"
                    },
                    {
                        "kind": "bookmark",
                        "chapter": null,
                        "quote": null,
                        "note": null,
                        "colour": null,
                        "locator": { "type": "epub", "cfi": "epubcfi(/6/4!/4)" },
                        "created": "2026-01-04T03:04:05.678Z",
                        "updated": "2026-01-04T03:04:05.678Z"
                    }
                ]
            })
        );
        let empty: serde_json::Value = serde_json::from_str(&json("Essays", "", &[])).unwrap();
        assert_eq!(empty["version"], 1);
        assert_eq!(empty["annotations"], serde_json::json!([]));
        assert_eq!(
            "md".parse::<ExportFormat>().unwrap(),
            ExportFormat::Markdown
        );
        assert!("pdf".parse::<ExportFormat>().is_err());
    }
}
