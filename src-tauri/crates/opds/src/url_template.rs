//! URL templates and query rules shared by page streams and search: finding `{placeholders}`
//! (also when a server sent them percent-encoded as `%7B...%7D`), resolving a relative template
//! against its document without mangling the placeholders, removing a placeholder together with
//! its query parameter, percent-encoding a value, and removing bookmark-moving parameters.
//!
//! Two placeholder dialects are understood: OpenSearch's `{name}` / `{name?}` (OPDS 1, PSE), and
//! RFC 6570 expressions with an operator or several variables (`{?query,page}`, `{&page}`,
//! `{/id}`: OPDS 2). A plain `{name}` is the same in both. OpenSearch placeholders are filled
//! with already-encoded values ([`fill_slots`]); RFC 6570 expressions are expanded from raw
//! values, variables without a value being left out ([`expand_expressions`]).
//!
//! Templates are kept as strings, not [`Url`]s: parsing would percent-encode the braces in a path
//! and could read the `?` of an optional `{param?}` or `{?param}` as the start of the query.

use url::Url;

use super::OpdsError;

/// Query parameters that make a server record reading progress when a URL is fetched.
///
/// Matching ignores case, `_` and `-`, so `saveProgress`, `save_progress` and `SAVE-PROGRESS` are
/// the same parameter. Known uses: Kavita's page images take `saveProgress` (and save progress
/// unless it is `false`), Codex's take `bookmark=1`. The rest are spellings of the same idea seen
/// across self-hosted servers and proxies.
///
/// A parameter whose value explicitly turns the behaviour off (`false`, `0`, `no`, `off`) is kept:
/// on servers where progress saving is on by default, removing it would turn saving back on.
pub const BOOKMARK_PARAMS: &[&str] = &[
    "saveProgress",
    "markRead",
    "markAsRead",
    "track",
    "trackProgress",
    "bookmark",
    "setBookmark",
    "updateProgress",
    "recordProgress",
];

/// Values of a bookmark parameter that switch bookmarking off; such parameters are kept.
const OFF_VALUES: &[&str] = &["false", "0", "no", "off"];

/// A piece of a template: literal text, a `{name}` / `{name?}` placeholder or an RFC 6570
/// expression.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Piece<'a> {
    Text(&'a str),
    Slot {
        name: &'a str,
        optional: bool,
    },
    /// `{?query,page}` and the like: an operator and the comma-separated variable list as
    /// written (names with their `:prefix` or `*` modifiers). A single variable without an
    /// operator or modifier is a [`Piece::Slot`] instead.
    Expr {
        op: Operator,
        vars: &'a str,
    },
}

/// The operator of an RFC 6570 expression, which decides how its variables expand.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Operator {
    /// `{a,b}`
    Simple,
    /// `{+a}`: reserved characters are kept.
    Reserved,
    /// `{#a}`
    Fragment,
    /// `{.a}`
    Label,
    /// `{/a}`
    Path,
    /// `{;a}`
    PathParam,
    /// `{?a,b}`: form-style query.
    Query,
    /// `{&a}`: continues a query.
    QueryContinuation,
}

impl Operator {
    fn from_byte(b: u8) -> Option<Operator> {
        Some(match b {
            b'+' => Operator::Reserved,
            b'#' => Operator::Fragment,
            b'.' => Operator::Label,
            b'/' => Operator::Path,
            b';' => Operator::PathParam,
            b'?' => Operator::Query,
            b'&' => Operator::QueryContinuation,
            _ => return None,
        })
    }

    fn symbol(self) -> &'static str {
        match self {
            Operator::Simple => "",
            Operator::Reserved => "+",
            Operator::Fragment => "#",
            Operator::Label => ".",
            Operator::Path => "/",
            Operator::PathParam => ";",
            Operator::Query => "?",
            Operator::QueryContinuation => "&",
        }
    }

    /// What precedes the first defined variable.
    fn first(self) -> &'static str {
        match self {
            Operator::Simple | Operator::Reserved => "",
            other => other.symbol(),
        }
    }

    /// What separates defined variables.
    fn separator(self) -> &'static str {
        match self {
            Operator::Simple | Operator::Reserved | Operator::Fragment => ",",
            Operator::Label => ".",
            Operator::Path => "/",
            Operator::PathParam => ";",
            Operator::Query | Operator::QueryContinuation => "&",
        }
    }

    /// Whether variables expand as `name=value`.
    fn named(self) -> bool {
        matches!(
            self,
            Operator::PathParam | Operator::Query | Operator::QueryContinuation
        )
    }

    /// What follows the name of a named variable whose value is empty.
    fn if_empty(self) -> &'static str {
        match self {
            Operator::Query | Operator::QueryContinuation => "=",
            _ => "",
        }
    }

    fn encode(self, value: &str) -> String {
        match self {
            Operator::Reserved | Operator::Fragment => encode_keeping_reserved(value),
            _ => encode_component(value),
        }
    }
}

/// One variable of an expression: its name and its `:prefix` length, if any. (The `*` explode
/// modifier changes nothing for the plain string values filled here.)
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct VarSpec<'a> {
    pub(crate) name: &'a str,
    pub(crate) prefix: Option<usize>,
    modifier: &'a str,
}

/// The variables of an expression's list, as [`scan`] accepted it.
pub(crate) fn var_specs(vars: &str) -> impl Iterator<Item = VarSpec<'_>> {
    vars.split(',').filter(|v| !v.is_empty()).map(|spec| {
        let end = spec.find([':', '*']).unwrap_or(spec.len());
        let (name, modifier) = spec.split_at(end);
        let prefix = modifier
            .strip_prefix(':')
            .and_then(|digits| digits.parse().ok());
        VarSpec {
            name,
            prefix,
            modifier,
        }
    })
}

fn expression_text(op: Operator, vars: &str) -> String {
    format!("{{{}{vars}}}", op.symbol())
}

fn slot_text(name: &str, optional: bool) -> String {
    format!("{{{name}{}}}", if optional { "?" } else { "" })
}

/// Splits a template into literal text and placeholders. Braces may be literal or
/// percent-encoded (`%7B`, `%7b`, `%7D`, `%7d`); anything that is not a well-formed placeholder
/// stays text.
pub(crate) fn scan(template: &str) -> Vec<Piece<'_>> {
    let bytes = template.as_bytes();
    let mut pieces = Vec::new();
    let mut text_start = 0;
    let mut i = 0;
    while i < bytes.len() {
        if let Some((piece, end)) = placeholder_at(template, i) {
            if text_start < i {
                pieces.push(Piece::Text(&template[text_start..i]));
            }
            pieces.push(piece);
            i = end;
            text_start = end;
        } else {
            i += 1;
        }
    }
    if text_start < bytes.len() {
        pieces.push(Piece::Text(&template[text_start..]));
    }
    pieces
}

/// A placeholder or expression starting at byte `at`, and where it ends.
fn placeholder_at(s: &str, at: usize) -> Option<(Piece<'_>, usize)> {
    let open = brace_len(s, at, b'{', "%7b")?;
    if let Some((name, optional, end)) = slot_at(s, at + open) {
        return Some((Piece::Slot { name, optional }, end));
    }
    expression_at(s, at + open)
}

/// An OpenSearch-style placeholder whose name starts at byte `name_start` (just after the
/// opening brace): its name, whether it is optional and where it ends.
fn slot_at(s: &str, name_start: usize) -> Option<(&str, bool, usize)> {
    let bytes = s.as_bytes();
    // `{.name}` is RFC 6570's label expansion, not a name.
    if bytes.get(name_start) == Some(&b'.') {
        return None;
    }
    let mut i = name_start;
    while i < bytes.len() && (bytes[i].is_ascii_alphanumeric() || b"_:.-".contains(&bytes[i])) {
        i += 1;
    }
    if i == name_start {
        return None;
    }
    let name = &s[name_start..i];
    let optional = bytes.get(i) == Some(&b'?');
    if optional {
        i += 1;
    }
    let close = brace_len(s, i, b'}', "%7d")?;
    Some((name, optional, i + close))
}

/// An RFC 6570 expression whose operator (or first variable) is at byte `start`.
fn expression_at(s: &str, start: usize) -> Option<(Piece<'_>, usize)> {
    let bytes = s.as_bytes();
    let (op, vars_start) = match bytes.get(start).and_then(|b| Operator::from_byte(*b)) {
        Some(op) => (op, start + 1),
        None => (Operator::Simple, start),
    };
    let mut i = vars_start;
    loop {
        let name_start = i;
        while i < bytes.len() && (bytes[i].is_ascii_alphanumeric() || b"_.".contains(&bytes[i])) {
            i += 1;
        }
        if i == name_start {
            return None;
        }
        match bytes.get(i) {
            Some(b'*') => i += 1,
            Some(b':') => {
                i += 1;
                let digits = i;
                while i < bytes.len() && bytes[i].is_ascii_digit() {
                    i += 1;
                }
                if i == digits || i - digits > 4 {
                    return None;
                }
            }
            _ => {}
        }
        if bytes.get(i) == Some(&b',') {
            i += 1;
        } else {
            break;
        }
    }
    let close = brace_len(s, i, b'}', "%7d")?;
    Some((
        Piece::Expr {
            op,
            vars: &s[vars_start..i],
        },
        i + close,
    ))
}

fn brace_len(s: &str, at: usize, literal: u8, encoded: &str) -> Option<usize> {
    let rest = &s.as_bytes()[at..];
    if rest.first() == Some(&literal) {
        Some(1)
    } else if rest.len() >= 3 && rest[..3].eq_ignore_ascii_case(encoded.as_bytes()) {
        Some(3)
    } else {
        None
    }
}

/// Whether `template` has a placeholder named `name` (case-insensitive), on its own or as a
/// variable of an expression.
pub(crate) fn has_slot(template: &str, name: &str) -> bool {
    scan(template).iter().any(|p| match p {
        Piece::Slot { name: n, .. } => n.eq_ignore_ascii_case(name),
        Piece::Expr { vars, .. } => var_specs(vars).any(|v| v.name.eq_ignore_ascii_case(name)),
        Piece::Text(_) => false,
    })
}

/// Whether `template` has any placeholder or expression at all.
pub(crate) fn has_placeholders(template: &str) -> bool {
    scan(template).iter().any(|p| !matches!(p, Piece::Text(_)))
}

/// Rebuilds `template` with each placeholder for which `value(name, optional)` gives a value
/// replaced by it; other placeholders stay as they are (with literal braces). Values are
/// inserted as given (encode them first). Expressions are left for [`expand_expressions`].
pub(crate) fn fill_slots(
    template: &str,
    mut value: impl FnMut(&str, bool) -> Option<String>,
) -> String {
    let mut out = String::with_capacity(template.len() + 16);
    for piece in scan(template) {
        match piece {
            Piece::Text(text) => out.push_str(text),
            Piece::Slot { name, optional } => match value(name, optional) {
                Some(v) => out.push_str(&v),
                None => out.push_str(&slot_text(name, optional)),
            },
            Piece::Expr { op, vars } => out.push_str(&expression_text(op, vars)),
        }
    }
    out
}

/// Expands the RFC 6570 expressions of `template`: `value(name)` gives a variable's raw value,
/// which is percent-encoded as the operator requires; variables without a value are left out,
/// and an expression none of whose variables has a value disappears. Other placeholders stay
/// as they are. A template without expressions comes back unchanged.
pub(crate) fn expand_expressions(
    template: &str,
    mut value: impl FnMut(&str) -> Option<String>,
) -> String {
    let pieces = scan(template);
    if !pieces.iter().any(|p| matches!(p, Piece::Expr { .. })) {
        return template.to_owned();
    }
    let mut out = String::with_capacity(template.len() + 16);
    for piece in pieces {
        match piece {
            Piece::Text(text) => out.push_str(text),
            Piece::Slot { name, optional } => out.push_str(&slot_text(name, optional)),
            Piece::Expr { op, vars } => {
                let mut first = true;
                for var in var_specs(vars) {
                    let Some(raw) = value(var.name) else { continue };
                    let raw = match var.prefix {
                        Some(len) => raw.chars().take(len).collect(),
                        None => raw,
                    };
                    out.push_str(if first { op.first() } else { op.separator() });
                    first = false;
                    if op.named() {
                        out.push_str(var.name);
                        if raw.is_empty() {
                            out.push_str(op.if_empty());
                            continue;
                        }
                        out.push('=');
                    }
                    out.push_str(&op.encode(&raw));
                }
            }
        }
    }
    out
}

/// Resolves `href` against `base` and returns an absolute template whose placeholders are
/// written with literal braces. `canonical` maps placeholder names case-insensitively to their
/// standard spelling (`{PageNumber}` → `{pageNumber}`); unknown names are kept as written.
pub(crate) fn resolve_template(
    href: &str,
    base: &Url,
    canonical: &[&str],
) -> Result<String, OpdsError> {
    let href = href.trim();
    if href.is_empty() {
        return Err(OpdsError::bad_url(href, "the link has no address"));
    }
    // Each placeholder becomes a lowercase alphanumeric token, which URL parsing never encodes,
    // case-folds or drops, so it can be turned back into the placeholder afterwards.
    const TOKEN: &str = "zqcarrelslotzq";
    if href.to_ascii_lowercase().contains(TOKEN) {
        return Err(OpdsError::bad_url(
            href,
            "the link contains a reserved word",
        ));
    }
    let mut slots = Vec::new();
    let mut masked = String::with_capacity(href.len());
    for piece in scan(href) {
        match piece {
            Piece::Text(text) => masked.push_str(text),
            Piece::Slot { name, optional } => {
                let name = canonical_name(name, canonical);
                masked.push_str(&format!("{TOKEN}{}{TOKEN}", slots.len()));
                slots.push(slot_text(name, optional));
            }
            Piece::Expr { op, vars } => {
                let vars: Vec<String> = var_specs(vars)
                    .map(|v| format!("{}{}", canonical_name(v.name, canonical), v.modifier))
                    .collect();
                masked.push_str(&format!("{TOKEN}{}{TOKEN}", slots.len()));
                slots.push(expression_text(op, &vars.join(",")));
            }
        }
    }
    let url = resolve_href(&masked, base).map_err(|e| match e {
        OpdsError::BadUrl { reason, .. } => OpdsError::bad_url(href, reason),
        other => other,
    })?;
    let mut out = url.to_string();
    // Replace from the highest index down so that token 1 does not match inside token 10.
    for (i, slot) in slots.iter().enumerate().rev() {
        let token = format!("{TOKEN}{i}{TOKEN}");
        if !out.contains(&token) {
            return Err(OpdsError::bad_url(
                href,
                "a placeholder is in a part of the URL that cannot hold one",
            ));
        }
        out = out.replace(&token, slot);
    }
    Ok(out)
}

fn canonical_name<'a>(name: &'a str, canonical: &[&'a str]) -> &'a str {
    canonical
        .iter()
        .find(|c| c.eq_ignore_ascii_case(name))
        .copied()
        .unwrap_or(name)
}

/// Resolves a link against its document's base and checks it is something Carrel may fetch.
pub(crate) fn resolve_href(href: &str, base: &Url) -> Result<Url, OpdsError> {
    let href = href.trim();
    if href.is_empty() {
        return Err(OpdsError::bad_url(href, "the link has no address"));
    }
    let url = base.join(href).map_err(|e| OpdsError::bad_url(href, e))?;
    match url.scheme() {
        "http" | "https" => Ok(url),
        other => Err(OpdsError::bad_url(
            href,
            format!("{other}: links are not followed"),
        )),
    }
}

/// Like [`resolve_href`], but also accepts `data:` URLs, which some servers use for small
/// inline cover thumbnails.
pub(crate) fn resolve_image_href(href: &str, base: &Url) -> Result<Url, OpdsError> {
    let trimmed = href.trim();
    if trimmed
        .get(..5)
        .is_some_and(|p| p.eq_ignore_ascii_case("data:"))
    {
        return Url::parse(trimmed).map_err(|e| OpdsError::bad_url(href, e));
    }
    resolve_href(href, base)
}

/// The parts of a template: everything before the query, the query (without `?`) and the
/// fragment (without `#`). `?` and `#` inside a placeholder (`{count?}`) do not count.
pub(crate) fn split_template(template: &str) -> (&str, Option<&str>, Option<&str>) {
    let (rest, fragment) = match find_outside_braces(template, b'#') {
        Some(at) => (&template[..at], Some(&template[at + 1..])),
        None => (template, None),
    };
    match find_outside_braces(rest, b'?') {
        Some(at) => (&rest[..at], Some(&rest[at + 1..]), fragment),
        None => (rest, None, fragment),
    }
}

fn find_outside_braces(s: &str, wanted: u8) -> Option<usize> {
    let mut depth = 0usize;
    for (i, &b) in s.as_bytes().iter().enumerate() {
        match b {
            b'{' => depth += 1,
            b'}' => depth = depth.saturating_sub(1),
            _ if b == wanted && depth == 0 => return Some(i),
            _ => {}
        }
    }
    None
}

fn join_template(path: &str, query: &str, fragment: Option<&str>) -> String {
    let mut out = path.to_owned();
    if !query.is_empty() {
        out.push('?');
        out.push_str(query);
    }
    if let Some(fragment) = fragment {
        out.push('#');
        out.push_str(fragment);
    }
    out
}

/// Rebuilds a query keeping only the `&`-separated segments `keep` accepts. `keep` gets the
/// decoded name and decoded value; kept segments are copied byte for byte.
pub(crate) fn filter_query(query: &str, mut keep: impl FnMut(&str, &str) -> bool) -> String {
    query
        .split('&')
        .filter(|segment| !segment.is_empty())
        .filter(|segment| {
            let (name, value) = url::form_urlencoded::parse(segment.as_bytes())
                .next()
                .unwrap_or_default();
            keep(&name, &value)
        })
        .collect::<Vec<_>>()
        .join("&")
}

/// Removes every `{name}` / `{name?}` placeholder from a template. In the query the whole
/// parameter goes (`&width={maxWidth}`); in the path just the placeholder, without leaving an
/// empty path segment behind. In an expression just the variable goes (`{?query,page}` →
/// `{?query}`), or the whole expression when it was the only one.
pub(crate) fn drop_slot(template: &str, name: &str) -> String {
    let template = drop_expression_var(template, name);
    let is_slot = |piece: &Piece<'_>| matches!(piece, Piece::Slot { name: n, .. } if n.eq_ignore_ascii_case(name));
    let (path, query, fragment) = split_template(&template);

    let mut new_path = String::with_capacity(path.len());
    let pieces = scan(path);
    for (i, piece) in pieces.iter().enumerate() {
        match *piece {
            Piece::Text(text) => new_path.push_str(text),
            Piece::Slot { name: n, optional } if !is_slot(piece) => {
                new_path.push_str(&slot_text(n, optional))
            }
            Piece::Expr { op, vars } => new_path.push_str(&expression_text(op, vars)),
            Piece::Slot { .. } => {
                // Dropping "/{x}" from ".../a/{x}/b" or ".../a/{x}" must not leave an empty
                // segment; "/{x}.jpg" keeps its slash.
                let segment_ends = match pieces.get(i + 1) {
                    None => true,
                    Some(Piece::Text(next)) => next.starts_with('/'),
                    Some(Piece::Slot { .. } | Piece::Expr { .. }) => false,
                };
                if segment_ends && new_path.ends_with('/') && !new_path.ends_with("://") {
                    new_path.pop();
                }
            }
        }
    }
    // "https://host" needs its root slash back.
    if let Some(at) = new_path.find("://") {
        if !new_path[at + 3..].contains('/') {
            new_path.push('/');
        }
    }

    let new_query = match query {
        Some(query) => query
            .split('&')
            .filter(|segment| !segment.is_empty() && !scan(segment).iter().any(is_slot))
            .collect::<Vec<_>>()
            .join("&"),
        None => String::new(),
    };
    join_template(&new_path, &new_query, fragment)
}

/// Removes the variable `name` from every expression of `template`, and expressions left
/// without variables. A template without expressions comes back unchanged.
fn drop_expression_var(template: &str, name: &str) -> String {
    let pieces = scan(template);
    if !pieces.iter().any(|p| matches!(p, Piece::Expr { .. })) {
        return template.to_owned();
    }
    let mut out = String::with_capacity(template.len());
    for piece in pieces {
        match piece {
            Piece::Text(text) => out.push_str(text),
            Piece::Slot {
                name: slot,
                optional,
            } => out.push_str(&slot_text(slot, optional)),
            Piece::Expr { op, vars } => {
                let kept: Vec<&str> = vars
                    .split(',')
                    .filter(|spec| var_specs(spec).all(|v| !v.name.eq_ignore_ascii_case(name)))
                    .collect();
                if !kept.is_empty() {
                    out.push_str(&expression_text(op, &kept.join(",")));
                }
            }
        }
    }
    out
}

/// Percent-encodes `value` for use anywhere in a URL (path segment or query value): everything
/// but the RFC 3986 unreserved characters is encoded, spaces as `%20`.
pub(crate) fn encode_component(value: &str) -> String {
    let mut out = String::with_capacity(value.len());
    for &b in value.as_bytes() {
        if b.is_ascii_alphanumeric() || b"-._~".contains(&b) {
            out.push(char::from(b));
        } else {
            out.push_str(&format!("%{b:02X}"));
        }
    }
    out
}

/// Percent-encodes `value` for RFC 6570's `{+var}` and `{#var}`: like [`encode_component`], but
/// reserved characters and existing `%XX` escapes are kept.
fn encode_keeping_reserved(value: &str) -> String {
    let bytes = value.as_bytes();
    let mut out = String::with_capacity(value.len());
    for (i, &b) in bytes.iter().enumerate() {
        let escape = b == b'%'
            && bytes.get(i + 1).is_some_and(u8::is_ascii_hexdigit)
            && bytes.get(i + 2).is_some_and(u8::is_ascii_hexdigit);
        if escape || b.is_ascii_alphanumeric() || b"-._~:/?#[]@!$&'()*+,;=".contains(&b) {
            out.push(char::from(b));
        } else {
            out.push_str(&format!("%{b:02X}"));
        }
    }
    out
}

/// Removes the query parameters that make servers move the reader's bookmark when the URL is
/// fetched (see [`BOOKMARK_PARAMS`]). Other parameters are kept exactly as they were.
pub fn strip_bookmark_params(url: &Url) -> Url {
    strip_bookmark_params_with(url, &[])
}

/// [`strip_bookmark_params`] with more parameter names, e.g. from a per-server setting. The same
/// matching rules apply (case, `_` and `-` ignored; explicit "off" values kept).
pub fn strip_bookmark_params_with(url: &Url, extra: &[&str]) -> Url {
    let mut url = url.clone();
    if let Some(query) = url.query() {
        let kept = filter_query(query, |name, value| !is_bookmark_param(name, value, extra));
        url.set_query(if kept.is_empty() { None } else { Some(&kept) });
    }
    url
}

/// [`strip_bookmark_params_with`] for a template string with placeholders.
pub(crate) fn strip_bookmark_params_in_template(template: &str, extra: &[&str]) -> String {
    let (path, query, fragment) = split_template(template);
    let kept = query
        .map(|q| filter_query(q, |name, value| !is_bookmark_param(name, value, extra)))
        .unwrap_or_default();
    join_template(path, &kept, fragment)
}

fn is_bookmark_param(name: &str, value: &str, extra: &[&str]) -> bool {
    let name = normalize_param(name);
    if name.is_empty() {
        return false;
    }
    let listed = BOOKMARK_PARAMS
        .iter()
        .chain(extra)
        .any(|p| normalize_param(p) == name);
    listed
        && !OFF_VALUES
            .iter()
            .any(|off| value.trim().eq_ignore_ascii_case(off))
}

fn normalize_param(name: &str) -> String {
    name.chars()
        .filter(|c| *c != '_' && *c != '-')
        .flat_map(char::to_lowercase)
        .collect()
}

/// Whether the query of `template` has a parameter named `name` (ASCII case-insensitive).
pub(crate) fn has_query_param(template: &str, name: &str) -> bool {
    let (_, query, _) = split_template(template);
    let mut found = false;
    if let Some(query) = query {
        filter_query(query, |n, _| {
            found |= n.eq_ignore_ascii_case(name);
            true
        });
    }
    found
}

/// The value of the query parameter `name` (ASCII case-insensitive), decoded.
pub(crate) fn query_param(template: &str, name: &str) -> Option<String> {
    let (_, query, _) = split_template(template);
    let mut value = None;
    filter_query(query?, |n, v| {
        if value.is_none() && n.eq_ignore_ascii_case(name) {
            value = Some(v.to_owned());
        }
        true
    });
    value
}

/// Appends `name=value` (already encoded) to the query of a template.
pub(crate) fn append_query_param(template: &str, name: &str, value: &str) -> String {
    let (path, query, fragment) = split_template(template);
    let mut query = query.unwrap_or("").trim_end_matches('&').to_owned();
    if !query.is_empty() {
        query.push('&');
    }
    query.push_str(name);
    query.push('=');
    query.push_str(value);
    join_template(path, &query, fragment)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn base() -> Url {
        Url::parse("https://books.example.net/opds/v1.2/series/7?page=2").unwrap()
    }

    #[test]
    fn opds_template_scan_finds_literal_and_encoded_placeholders() {
        let pieces = scan("/p/%7BpageNumber%7d?w={maxWidth}&q={count?}&x={not closed");
        assert_eq!(
            pieces,
            vec![
                Piece::Text("/p/"),
                Piece::Slot {
                    name: "pageNumber",
                    optional: false
                },
                Piece::Text("?w="),
                Piece::Slot {
                    name: "maxWidth",
                    optional: false
                },
                Piece::Text("&q="),
                Piece::Slot {
                    name: "count",
                    optional: true
                },
                Piece::Text("&x={not closed"),
            ]
        );
    }

    #[test]
    fn opds_template_resolves_relative_forms_and_keeps_braces() {
        let canon = ["pageNumber", "maxWidth"];
        assert_eq!(
            resolve_template("/opds/v1.2/books/9/pages/{pageNumber}", &base(), &canon).unwrap(),
            "https://books.example.net/opds/v1.2/books/9/pages/{pageNumber}"
        );
        assert_eq!(
            resolve_template(
                "../books/9/pages/%7Bpagenumber%7D?zero_based=true",
                &base(),
                &canon
            )
            .unwrap(),
            "https://books.example.net/opds/v1.2/books/9/pages/{pageNumber}?zero_based=true"
        );
        assert_eq!(
            resolve_template(
                "http://other.example/s?p={pageNumber}&w={MAXWIDTH}",
                &base(),
                &canon
            )
            .unwrap(),
            "http://other.example/s?p={pageNumber}&w={maxWidth}"
        );
        assert_eq!(
            resolve_template("/search/{searchTerms}/{startPage?}", &base(), &[]).unwrap(),
            "https://books.example.net/search/{searchTerms}/{startPage?}"
        );
    }

    #[test]
    fn opds_template_scan_reads_rfc6570_expressions() {
        assert_eq!(
            scan("/search{?query,page}&x={&a:3,b*}{/id}{+path}{a,b}"),
            vec![
                Piece::Text("/search"),
                Piece::Expr {
                    op: Operator::Query,
                    vars: "query,page"
                },
                Piece::Text("&x="),
                Piece::Expr {
                    op: Operator::QueryContinuation,
                    vars: "a:3,b*"
                },
                Piece::Expr {
                    op: Operator::Path,
                    vars: "id"
                },
                Piece::Expr {
                    op: Operator::Reserved,
                    vars: "path"
                },
                Piece::Expr {
                    op: Operator::Simple,
                    vars: "a,b"
                },
            ]
        );
        // Not expressions: an empty list, a trailing comma, a bad prefix, an unknown operator.
        for text in ["{?}", "{?a,}", "{?a:}", "{?a:12345}", "{!a}", "{?a b}"] {
            assert_eq!(scan(text), vec![Piece::Text(text)], "{text}");
        }
        assert!(has_slot("/s{?q,Query}", "query"));
        assert!(!has_slot("/s{?q}", "query"));
    }

    #[test]
    fn opds_template_resolves_expressions_and_keeps_braces() {
        assert_eq!(
            resolve_template("search{?QUERY,page}", &base(), &["query"]).unwrap(),
            "https://books.example.net/opds/v1.2/series/search{?query,page}"
        );
        assert_eq!(
            resolve_template("/s?x=1%7B&query%7D", &base(), &[]).unwrap(),
            "https://books.example.net/s?x=1{&query}"
        );
    }

    #[test]
    fn opds_template_expands_expressions() {
        let values = |name: &str| match name {
            "query" => Some("moss & lichen/2".to_owned()),
            "empty" => Some(String::new()),
            "id" => Some("a b".to_owned()),
            "path" => Some("x/y?%20z".to_owned()),
            _ => None,
        };
        assert_eq!(
            expand_expressions("https://h/s{?query,page}", values),
            "https://h/s?query=moss%20%26%20lichen%2F2"
        );
        assert_eq!(
            expand_expressions("https://h/s{?page}", values),
            "https://h/s"
        );
        assert_eq!(
            expand_expressions("https://h/s?a=1{&page,query}", values),
            "https://h/s?a=1&query=moss%20%26%20lichen%2F2"
        );
        assert_eq!(
            expand_expressions("https://h/s{?empty,id}", values),
            "https://h/s?empty=&id=a%20b"
        );
        assert_eq!(
            expand_expressions("https://h/b{/id,page}{;empty}", values),
            "https://h/b/a%20b;empty"
        );
        assert_eq!(
            expand_expressions("https://h/{+path}{#id}", values),
            "https://h/x/y?%20z#a%20b"
        );
        assert_eq!(
            expand_expressions("https://h/{.id}{?query:4}", values),
            "https://h/.a%20b?query=moss"
        );
        // OpenSearch placeholders are not touched.
        assert_eq!(
            expand_expressions("https://h/{p}/{q?}{?id}", values),
            "https://h/{p}/{q?}?id=a%20b"
        );
        assert_eq!(
            expand_expressions("https://h/%7Bp%7D", values),
            "https://h/%7Bp%7D"
        );
    }

    #[test]
    fn opds_template_drop_slot_removes_expression_variables() {
        assert_eq!(
            drop_slot("https://h/s{?query,page}", "page"),
            "https://h/s{?query}"
        );
        assert_eq!(drop_slot("https://h/s{?page}", "PAGE"), "https://h/s");
        assert_eq!(
            drop_slot("https://h/s?a=1{&page}&b={b}", "page"),
            "https://h/s?a=1&b={b}"
        );
        assert_eq!(
            drop_slot("https://h/s?a=1{&page}&b={b}", "b"),
            "https://h/s?a=1{&page}"
        );
    }

    #[test]
    fn opds_template_refuses_other_schemes() {
        let err = resolve_template("javascript:alert({pageNumber})", &base(), &[]).unwrap_err();
        assert!(matches!(err, OpdsError::BadUrl { .. }), "{err:?}");
        assert!(resolve_href("file:///etc/passwd", &base()).is_err());
        assert!(resolve_href("  ", &base()).is_err());
        assert!(resolve_image_href("data:image/png;base64,iVBORw0KGgo=", &base()).is_ok());
    }

    #[test]
    fn opds_template_drop_slot_removes_parameter_or_path_segment() {
        assert_eq!(
            drop_slot(
                "https://h/s/1?page={pageNumber}&width={maxWidth}",
                "maxWidth"
            ),
            "https://h/s/1?page={pageNumber}"
        );
        assert_eq!(
            drop_slot(
                "https://h/s/1?maxWidth={maxWidth}&page={pageNumber}",
                "maxwidth"
            ),
            "https://h/s/1?page={pageNumber}"
        );
        assert_eq!(
            drop_slot("https://h/s/1?w={maxWidth}", "maxWidth"),
            "https://h/s/1"
        );
        assert_eq!(
            drop_slot("https://h/p/{pageNumber}/{maxWidth}/img", "maxWidth"),
            "https://h/p/{pageNumber}/img"
        );
        assert_eq!(
            drop_slot("https://h/s/{searchTerms}/{startPage?}", "startPage"),
            "https://h/s/{searchTerms}"
        );
        assert_eq!(drop_slot("https://h/{x}", "x"), "https://h/");
    }

    /// `url` as [`strip_bookmark_params`] leaves it, as text.
    fn stripped(url: &str) -> String {
        strip_bookmark_params(&Url::parse(url).unwrap()).to_string()
    }

    #[test]
    fn opds_bookmark_params_are_stripped_case_insensitively() {
        assert_eq!(
            stripped("https://k.example/api/opds/KEY/image?chapterId=4&pageNumber=3&SaveProgress=true&a=%20b&save_progress=1&TRACK=yes"),
            "https://k.example/api/opds/KEY/image?chapterId=4&pageNumber=3&a=%20b"
        );
    }

    #[test]
    fn opds_bookmark_params_keep_explicit_off_values_and_take_extras() {
        let url = "https://c.example/c/5/0/page.jpg?saveProgress=false&bookmark=1&readerProgress=1";
        assert_eq!(
            stripped(url),
            "https://c.example/c/5/0/page.jpg?saveProgress=false&readerProgress=1"
        );
        assert_eq!(
            strip_bookmark_params_with(&Url::parse(url).unwrap(), &["reader_progress"]).as_str(),
            "https://c.example/c/5/0/page.jpg?saveProgress=false"
        );
        assert_eq!(
            stripped("https://c.example/p?bookmark=1"),
            "https://c.example/p"
        );
    }

    #[test]
    fn opds_encode_component_encodes_everything_reserved() {
        assert_eq!(
            encode_component("Astérix & Obélix/2 +?#"),
            "Ast%C3%A9rix%20%26%20Ob%C3%A9lix%2F2%20%2B%3F%23"
        );
        assert_eq!(encode_component("a-b_c.d~e"), "a-b_c.d~e");
    }
}
