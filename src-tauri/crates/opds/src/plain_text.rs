//! Plain text from what catalogs write: runs of whitespace collapsed, paragraphs tidied, and
//! HTML fragments (summaries, page titles) turned into text. Knows nothing about Atom or OPDS.

/// Whether an HTML element of this name starts a new line of text.
pub(crate) fn is_block_tag(name: &str) -> bool {
    matches!(
        name.to_ascii_lowercase().as_str(),
        "br" | "p" | "div" | "li" | "tr" | "h1" | "h2" | "h3" | "h4" | "h5" | "h6" | "blockquote"
    )
}

/// Plain text from an HTML fragment: tags removed (block tags become line breaks) and the
/// common character references decoded. Not an HTML parser; summaries are simple markup.
pub fn html_to_text(html: &str) -> String {
    let mut text = String::with_capacity(html.len());
    let mut rest = html;
    while let Some(open) = rest.find('<') {
        text.push_str(&rest[..open]);
        let after = &rest[open + 1..];
        // "a < b" is text: a tag starts with a letter, "/", "!" or "?".
        if !after.starts_with(|c: char| c.is_ascii_alphabetic() || matches!(c, '/' | '!' | '?')) {
            text.push('<');
            rest = after;
            continue;
        }
        let Some(close) = after.find('>') else {
            // A lone "<" is text.
            text.push_str(&rest[open..]);
            rest = "";
            break;
        };
        let tag = after[..close].trim_start_matches('/');
        let name_end = tag
            .find(|c: char| !c.is_ascii_alphanumeric())
            .unwrap_or(tag.len());
        if is_block_tag(&tag[..name_end]) {
            text.push('\n');
        }
        rest = &after[close + 1..];
    }
    text.push_str(rest);
    decode_char_refs(&text)
}

/// Character references decoded: every HTML5 named reference (`&eacute;`, `&hellip;`, …) and
/// numeric ones; an unknown or malformed one stays as written. A no-break space is a space in
/// a summary's plain text.
fn decode_char_refs(text: &str) -> String {
    html_escape::decode_html_entities(text).replace('\u{a0}', " ")
}

/// All runs of whitespace become one space; leading and trailing whitespace goes.
pub(crate) fn collapse_whitespace(text: &str) -> String {
    text.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// Whitespace collapsed within lines; blank lines kept as single paragraph breaks.
pub fn tidy_paragraphs(text: &str) -> String {
    let mut out = String::new();
    let mut blank = false;
    for line in text.lines().map(collapse_whitespace) {
        if line.is_empty() {
            blank = !out.is_empty();
            continue;
        }
        if !out.is_empty() {
            out.push_str(if blank { "\n\n" } else { "\n" });
        }
        out.push_str(&line);
        blank = false;
    }
    out
}
