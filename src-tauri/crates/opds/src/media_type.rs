//! Media types as catalogs write them: the `type/subtype` essence and one parameter
//! (`profile=opds-catalog`, `kind=acquisition`), whatever the case and quoting.

pub(crate) use carrel_foundation::file_types::media_essence;

/// A parameter of a media type (`kind` in `application/atom+xml;profile=opds-catalog;kind=...`),
/// unquoted.
pub(crate) fn media_param(media_type: &str, name: &str) -> Option<String> {
    media_type.split(';').skip(1).find_map(|param| {
        let (key, value) = param.split_once('=')?;
        key.trim()
            .eq_ignore_ascii_case(name)
            .then(|| value.trim().trim_matches('"').to_owned())
    })
}
