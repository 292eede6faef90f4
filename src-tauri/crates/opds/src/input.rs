//! From raw response bytes to a parsed XML tree: the size cap, text decoding (UTF-8, UTF-16 and
//! the Latin-1 family), recognising what came instead of XML (a web page, JSON, plain text) and
//! the XML parse itself with DTDs refused and nesting bounded, and the base URL `xml:base` sets
//! at a node. Knows nothing about Atom or OPDS.

use std::borrow::Cow;

use roxmltree::{Document, Node, ParsingOptions};
use url::Url;

use super::plain_text::{collapse_whitespace, html_to_text};
use super::{ns, OpdsError};

/// More nodes than any real catalog page has; a guard against pathological documents that are
/// small in bytes but huge in nodes.
const MAX_XML_NODES: u32 = 4_000_000;

/// The deepest element nesting accepted. Real catalogs nest a dozen levels; the XML parser
/// descends one call per level, so a document of a few kilobytes nested thousands deep would
/// exhaust the thread's stack (an abort, not an error) before any other limit is reached.
pub const MAX_XML_DEPTH: usize = 256;

/// Checks the size and decodes `bytes` into text, refusing anything that is clearly not XML.
pub(crate) fn decode(bytes: &[u8], limit: usize) -> Result<Cow<'_, str>, OpdsError> {
    if bytes.len() > limit {
        return Err(OpdsError::TooLarge {
            size: bytes.len(),
            limit,
        });
    }
    let text = to_text(bytes)?;
    let body = text.trim_start_matches('\u{feff}').trim();
    if body.is_empty() {
        return Err(OpdsError::Empty);
    }
    if looks_like_html(body) {
        return Err(OpdsError::HtmlPage {
            title: html_title(body),
        });
    }
    if body.starts_with('{') || body.starts_with('[') {
        return Err(OpdsError::NotAFeed(
            "a JSON document (an OPDS 2 catalog or a server error message)".into(),
        ));
    }
    if !body.starts_with('<') {
        return Err(OpdsError::NotAFeed(format!(
            "plain text: \u{201c}{}\u{201d}",
            snippet(body)
        )));
    }
    Ok(match text {
        Cow::Borrowed(t) => Cow::Borrowed(t.trim_start_matches('\u{feff}')),
        Cow::Owned(t) => Cow::Owned(t.trim_start_matches('\u{feff}').to_owned()),
    })
}

/// Parses decoded text as XML. DTDs are refused (roxmltree's default), so no entity expansion.
pub(crate) fn parse_xml(text: &str) -> Result<Document<'_>, OpdsError> {
    if !nesting_within(text, MAX_XML_DEPTH) {
        return Err(OpdsError::MalformedXml(format!(
            "it nests elements more than {MAX_XML_DEPTH} deep"
        )));
    }
    let options = ParsingOptions {
        allow_dtd: false,
        nodes_limit: MAX_XML_NODES,
    };
    Document::parse_with_options(text, options).map_err(|e| {
        // An HTML page that slipped past the first look (a comment or blank lines before it).
        let head = &text[..floor_char_boundary(text, 2048)];
        if head.to_ascii_lowercase().contains("<html") {
            return OpdsError::HtmlPage {
                title: html_title(text),
            };
        }
        match e {
            roxmltree::Error::DtdDetected => OpdsError::MalformedXml(
                "it declares a document type (DTD), which is refused".into(),
            ),
            roxmltree::Error::NodesLimitReached => {
                OpdsError::MalformedXml("it has too many XML nodes".into())
            }
            other => OpdsError::MalformedXml(other.to_string()),
        }
    })
}

/// Whether no element of `text` is nested deeper than `limit`: tags are read as the XML parser
/// reads them (comments, CDATA sections, processing instructions, declarations and quoted
/// attribute values passed over), so what this finds is what the parser would descend. A
/// document that stops being well-formed ends the scan, as it ends the parse.
pub fn nesting_within(text: &str, limit: usize) -> bool {
    let b = text.as_bytes();
    let past = |from: usize, end: &[u8]| {
        b[from..]
            .windows(end.len())
            .position(|w| w == end)
            .map(|at| from + at + end.len())
    };
    let mut depth = 0usize;
    let mut i = 0;
    while let Some(at) = b[i..].iter().position(|&c| c == b'<').map(|p| i + p) {
        let rest = &b[at..];
        let next = if rest.starts_with(b"<!--") {
            past(at + 4, b"-->")
        } else if rest.starts_with(b"<![CDATA[") {
            past(at + 9, b"]]>")
        } else if rest.starts_with(b"<?") {
            past(at + 2, b"?>")
        } else if rest.starts_with(b"<!") {
            past(at + 2, b">")
        } else if rest.starts_with(b"</") {
            depth = depth.saturating_sub(1);
            past(at + 2, b">")
        } else {
            let mut quote = None;
            let end = (at + 1..b.len()).find(|&j| match (quote, b[j]) {
                (Some(q), c) if c == q => {
                    quote = None;
                    false
                }
                (Some(_), _) => false,
                (None, c @ (b'"' | b'\'')) => {
                    quote = Some(c);
                    false
                }
                (None, c) => c == b'>',
            });
            if let Some(end) = end {
                if b[end - 1] != b'/' {
                    depth += 1;
                    if depth > limit {
                        return false;
                    }
                }
            }
            end.map(|end| end + 1)
        };
        match next {
            Some(next) => i = next,
            None => return true,
        }
    }
    true
}

/// Reads an XML document of at most `limit` bytes: decoded and parsed as above, a web page
/// refused, then `read` given its root element.
pub(crate) fn read_xml<T>(
    bytes: &[u8],
    limit: usize,
    read: impl FnOnce(Node<'_, '_>) -> Result<T, OpdsError>,
) -> Result<T, OpdsError> {
    let text = decode(bytes, limit)?;
    let doc = parse_xml(&text)?;
    if let Some(err) = html_root_error(&doc) {
        return Err(err);
    }
    read(doc.root_element())
}

/// The root element of a parsed document that turned out to be XHTML.
pub(crate) fn html_root_error(doc: &Document<'_>) -> Option<OpdsError> {
    let root = doc.root_element();
    if !root.tag_name().name().eq_ignore_ascii_case("html") {
        return None;
    }
    let title = root
        .descendants()
        .find(|n| n.is_element() && n.tag_name().name().eq_ignore_ascii_case("title"))
        .map(|n| n.descendants().filter_map(|d| d.text()).collect::<String>())
        .map(|t| collapse_whitespace(&t))
        .filter(|t| !t.is_empty());
    Some(OpdsError::HtmlPage { title })
}

fn to_text(bytes: &[u8]) -> Result<Cow<'_, str>, OpdsError> {
    match bytes {
        [0xEF, 0xBB, 0xBF, rest @ ..] => utf8(rest),
        [0xFF, 0xFE, rest @ ..] => utf16(rest, u16::from_le_bytes).map(Cow::Owned),
        [0xFE, 0xFF, rest @ ..] => utf16(rest, u16::from_be_bytes).map(Cow::Owned),
        // UTF-16 without a byte order mark: "<" followed or preceded by a zero byte.
        [b'<', 0, ..] => utf16(bytes, u16::from_le_bytes).map(Cow::Owned),
        [0, b'<', ..] => utf16(bytes, u16::from_be_bytes).map(Cow::Owned),
        _ => match std::str::from_utf8(bytes) {
            Ok(text) => Ok(Cow::Borrowed(text)),
            Err(err) => match declared_encoding(bytes).as_deref() {
                Some(
                    "iso-8859-1" | "latin1" | "latin-1" | "iso8859-1" | "windows-1252" | "cp1252"
                    | "us-ascii" | "ascii",
                ) => Ok(Cow::Owned(windows_1252(bytes))),
                Some(other) => Err(OpdsError::Encoding(format!(
                    "the declared encoding {other:?} is not supported"
                ))),
                None => Err(OpdsError::Encoding(format!(
                    "invalid UTF-8 at byte {}",
                    err.valid_up_to()
                ))),
            },
        },
    }
}

fn utf8(bytes: &[u8]) -> Result<Cow<'_, str>, OpdsError> {
    std::str::from_utf8(bytes)
        .map(Cow::Borrowed)
        .map_err(|e| OpdsError::Encoding(format!("invalid UTF-8 at byte {}", e.valid_up_to() + 3)))
}

fn utf16(bytes: &[u8], unit: fn([u8; 2]) -> u16) -> Result<String, OpdsError> {
    if bytes.len() % 2 != 0 {
        return Err(OpdsError::Encoding(
            "UTF-16 text with an odd number of bytes".into(),
        ));
    }
    let units = bytes.chunks_exact(2).map(|pair| unit([pair[0], pair[1]]));
    char::decode_utf16(units)
        .collect::<Result<String, _>>()
        .map_err(|_| OpdsError::Encoding("invalid UTF-16".into()))
}

/// The `encoding` of an `<?xml ...?>` declaration at the very start, lowercased.
fn declared_encoding(bytes: &[u8]) -> Option<String> {
    let head = &bytes[..bytes.len().min(200)];
    let head: String = head
        .iter()
        .map(|&b| if b.is_ascii() { b as char } else { ' ' })
        .collect();
    let decl = head.strip_prefix("<?xml")?;
    let decl = &decl[..decl.find("?>")?];
    let at = decl.find("encoding")?;
    let rest = decl[at + "encoding".len()..]
        .trim_start()
        .strip_prefix('=')?
        .trim_start();
    let quote = rest.chars().next().filter(|c| *c == '"' || *c == '\'')?;
    let value = &rest[1..];
    Some(value[..value.find(quote)?].trim().to_ascii_lowercase())
}

/// Decodes windows-1252, which is what servers that say "ISO-8859-1" actually send.
fn windows_1252(bytes: &[u8]) -> String {
    const HIGH: [char; 32] = [
        '€', '\u{81}', '‚', 'ƒ', '„', '…', '†', '‡', 'ˆ', '‰', 'Š', '‹', 'Œ', '\u{8d}', 'Ž',
        '\u{8f}', '\u{90}', '‘', '’', '“', '”', '•', '–', '—', '˜', '™', 'š', '›', 'œ', '\u{9d}',
        'ž', 'Ÿ',
    ];
    bytes
        .iter()
        .map(|&b| match b {
            0x80..=0x9F => HIGH[usize::from(b - 0x80)],
            _ => char::from(b),
        })
        .collect()
}

/// Whether the document starts (after an XML declaration, comments and blanks) like HTML.
fn looks_like_html(body: &str) -> bool {
    let mut rest = body;
    loop {
        rest = rest.trim_start();
        if rest.starts_with("<?") {
            match rest.find("?>") {
                Some(end) => rest = &rest[end + 2..],
                None => return false,
            }
        } else if rest.starts_with("<!--") {
            match rest.find("-->") {
                Some(end) => rest = &rest[end + 3..],
                None => return false,
            }
        } else {
            break;
        }
    }
    let head = rest[..floor_char_boundary(rest, 64)].to_ascii_lowercase();
    head.starts_with("<!doctype html")
        || ["<html", "<head", "<body"].iter().any(|tag| {
            head.strip_prefix(tag).is_some_and(|after| {
                after.starts_with(|c: char| c == '>' || c.is_ascii_whitespace())
            })
        })
}

/// The `<title>` of an HTML page, found without parsing it.
fn html_title(text: &str) -> Option<String> {
    let head = &text[..floor_char_boundary(text, 64 * 1024)];
    let lower = head.to_ascii_lowercase();
    let open = lower.find("<title")?;
    let start = open + lower[open..].find('>')? + 1;
    let end = start + lower[start..].find("</title")?;
    let title = html_to_text(&head[start..end]);
    let title = collapse_whitespace(&title);
    (!title.is_empty()).then(|| snippet(&title).into_owned())
}

/// At most 80 characters of `text`, for error messages.
fn snippet(text: &str) -> Cow<'_, str> {
    let line = text.lines().next().unwrap_or("").trim();
    match line.char_indices().nth(80) {
        Some((cut, _)) => Cow::Owned(format!("{}…", &line[..cut])),
        None => Cow::Borrowed(line),
    }
}

fn floor_char_boundary(text: &str, max: usize) -> usize {
    if max >= text.len() {
        return text.len();
    }
    let mut cut = max;
    while !text.is_char_boundary(cut) {
        cut -= 1;
    }
    cut
}

/// The base URL in effect at `node`: the document's URL with every `xml:base` from the root
/// down applied in turn. A broken `xml:base` is ignored.
pub(crate) fn base_of(node: Node<'_, '_>, doc_url: &Url) -> Url {
    let bases: Vec<&str> = node
        .ancestors()
        .filter_map(|n| n.attribute((ns::XML, "base")))
        .collect();
    let mut base = doc_url.clone();
    for xml_base in bases.into_iter().rev() {
        match base.join(xml_base.trim()) {
            Ok(joined) if matches!(joined.scheme(), "http" | "https") => base = joined,
            _ => tracing::debug!(xml_base, "ignoring an unusable xml:base"),
        }
    }
    base
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn opds_input_decodes_byte_order_marks_and_utf16() {
        let xml = "<feed xmlns=\"http://www.w3.org/2005/Atom\"><title>Été</title></feed>";
        let mut with_bom = vec![0xEF, 0xBB, 0xBF];
        with_bom.extend_from_slice(xml.as_bytes());
        assert_eq!(decode(&with_bom, 1000).unwrap(), xml);

        let mut le = vec![0xFF, 0xFE];
        le.extend(xml.encode_utf16().flat_map(u16::to_le_bytes));
        assert_eq!(decode(&le, 1000).unwrap(), xml);

        let be: Vec<u8> = xml.encode_utf16().flat_map(u16::to_be_bytes).collect();
        assert_eq!(decode(&be, 1000).unwrap(), xml);
    }

    #[test]
    fn opds_input_decodes_declared_latin1() {
        let mut bytes = b"<?xml version=\"1.0\" encoding=\"ISO-8859-1\"?><feed><title>".to_vec();
        bytes.extend_from_slice(&[0x45, 0x74, 0xE9, 0x80]);
        bytes.extend_from_slice(b"</title></feed>");
        let text = decode(&bytes, 1000).unwrap();
        assert!(text.contains("Eté€"), "{text}");
    }

    #[test]
    fn opds_input_refuses_undeclared_invalid_utf8() {
        let err = decode(b"<feed>\xff\xfe\xfd</feed>", 1000).unwrap_err();
        assert!(matches!(err, OpdsError::Encoding(_)), "{err:?}");
    }

    #[test]
    fn opds_input_recognises_json_and_plain_text() {
        assert!(matches!(
            decode(b"  {\"status\":401}", 100),
            Err(OpdsError::NotAFeed(_))
        ));
        let err = decode(b"Unauthorized\n", 100).unwrap_err();
        assert_eq!(
            err,
            OpdsError::NotAFeed("plain text: \u{201c}Unauthorized\u{201d}".into())
        );
    }

    #[test]
    fn opds_input_refuses_dtds_and_entity_bombs() {
        let bomb = r#"<?xml version="1.0"?>
<!DOCTYPE lolz [<!ENTITY lol "lol"><!ENTITY lol2 "&lol;&lol;&lol;&lol;&lol;&lol;">]>
<feed xmlns="http://www.w3.org/2005/Atom"><title>&lol2;</title></feed>"#;
        let text = decode(bomb.as_bytes(), 10_000).unwrap();
        let err = parse_xml(&text).unwrap_err();
        assert!(
            matches!(err, OpdsError::MalformedXml(ref m) if m.contains("DTD")),
            "{err:?}"
        );
    }

    #[test]
    fn opds_input_refuses_documents_nested_deeper_than_the_parser_can_descend() {
        // Found by the fuzzer: 20,000 nested entries overflowed the parser's stack.
        let deep = |n: usize| {
            format!(
                "<feed>{}{}</feed>",
                "<entry>".repeat(n),
                "</entry>".repeat(n)
            )
        };
        assert!(matches!(
            parse_xml(&deep(20_000)),
            Err(OpdsError::MalformedXml(m)) if m.contains("deep")
        ));
        assert!(parse_xml(&deep(MAX_XML_DEPTH - 1)).is_ok());
        assert!(parse_xml(&deep(MAX_XML_DEPTH)).is_err());
        // Markup that is not an element opens nothing; an element closed at once neither.
        let flat = format!(
            "<feed>{}<!-- <a> --><![CDATA[<b>]]><?pi <c>?><x a=\"<\" b='>'/></feed>",
            "<e/><f></f>".repeat(10_000)
        );
        assert!(nesting_within(&flat, 2));
        assert!(nesting_within("<a><b a=\"/>\"></b></a>", 2));
        assert!(!nesting_within("<a><b a=\"/>\"><c></c></b></a>", 2));
    }

    #[test]
    fn opds_input_finds_html_behind_comments() {
        let page = "<!-- proxy -->\n<HTML><head><title>Sign in &amp; go</title></head></HTML>";
        assert_eq!(
            decode(page.as_bytes(), 1000).unwrap_err(),
            OpdsError::HtmlPage {
                title: Some("Sign in & go".into())
            }
        );
    }
}
