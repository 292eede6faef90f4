//! The font families installed on this computer, for the EPUB reader's font choice: asked of
//! fontconfig (`fc-list`, which every desktop that runs WebKitGTK has, since GTK depends on it)
//! once per process, then kept. Only family names cross to the window, each a plain name the
//! reader's style sheet can quote; a family hidden by its name (a leading dot, as fontconfig's
//! own fallbacks are) or one no style sheet could name is left out.

use std::process::Command;
use std::sync::OnceLock;

/// More than any desktop installs; a list past this is cut rather than sent whole.
const MAX_FAMILIES: usize = 2_000;
/// The longest family name kept (fontconfig's names are far shorter).
const MAX_NAME_CHARS: usize = 100;

/// The installed families, sorted without regard to case, each once. Empty when fontconfig
/// cannot be asked (the reader keeps the generic choices: serif, sans-serif, monospace).
pub fn families() -> Vec<String> {
    static FAMILIES: OnceLock<Vec<String>> = OnceLock::new();
    FAMILIES
        .get_or_init(|| match ask_fontconfig() {
            Ok(listing) => parse(&listing),
            Err(e) => {
                tracing::warn!(error = %e, "the system's fonts could not be listed");
                Vec::new()
            }
        })
        .clone()
}

fn ask_fontconfig() -> Result<String, String> {
    // The first (the family's own) name of each font, one a line.
    let out = Command::new("fc-list")
        .args(["--format", "%{family[0]}\n", ":"])
        .output()
        .map_err(|e| format!("fc-list: {e}"))?;
    if !out.status.success() {
        return Err(format!("fc-list ended with {}", out.status));
    }
    Ok(String::from_utf8_lossy(&out.stdout).into_owned())
}

/// Whether `name` can stand quoted in a style sheet as it is: no quote, backslash, or character
/// that ends a declaration or a rule, and nothing unprintable.
pub fn is_plain_family_name(name: &str) -> bool {
    !name.is_empty()
        && name.chars().count() <= MAX_NAME_CHARS
        && !name.starts_with('.')
        && name.trim() == name
        && !name
            .chars()
            .any(|c| c.is_control() || matches!(c, '"' | '\'' | '\\' | ';' | '{' | '}' | '<' | '>'))
}

/// `fc-list`'s listing made a list of families.
fn parse(listing: &str) -> Vec<String> {
    let mut families: Vec<String> = listing
        .lines()
        .map(str::trim)
        .filter(|name| is_plain_family_name(name))
        .map(str::to_string)
        .collect();
    families.sort_by_key(|name| name.to_lowercase());
    families.dedup_by(|a, b| a.eq_ignore_ascii_case(b));
    families.truncate(MAX_FAMILIES);
    families
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_listing_becomes_each_family_once_in_order() {
        let listing =
            "DejaVu Sans\nLiberation Serif\ndejavu sans\n\n  Noto Sans Mono  \nDejaVu Sans\n";
        assert_eq!(
            parse(listing),
            ["DejaVu Sans", "Liberation Serif", "Noto Sans Mono"]
        );
    }

    #[test]
    fn names_no_style_sheet_could_quote_are_left_out() {
        let listing =
            "Good Font\n.Hidden Fallback\nEvil\"; } body { display: none\nBack\\slash\nTab\tName\n";
        assert_eq!(parse(listing), ["Good Font"]);
        assert!(!is_plain_family_name(&"x".repeat(MAX_NAME_CHARS + 1)));
        assert!(is_plain_family_name("Noto Sans CJK JP"));
    }

    #[test]
    fn this_computers_fonts_are_listed() {
        // fontconfig comes with GTK, which the app needs; its fonts include at least one family.
        let families = families();
        assert!(
            !families.is_empty(),
            "fc-list listed no font family on this computer"
        );
        assert!(families.iter().all(|f| is_plain_family_name(f)));
    }
}
