//! Serde support for [`Url`] fields of this module's types (as plain strings), used with
//! `#[serde(with = ...)]` because the crate does not build `url` with its own serde support.

use serde::{de::Error as _, Deserialize, Deserializer, Serializer};
use url::Url;

pub(crate) fn serialize<S: Serializer>(url: &Url, serializer: S) -> Result<S::Ok, S::Error> {
    serializer.serialize_str(url.as_str())
}

pub(crate) fn deserialize<'de, D: Deserializer<'de>>(deserializer: D) -> Result<Url, D::Error> {
    let text = String::deserialize(deserializer)?;
    Url::parse(&text).map_err(D::Error::custom)
}

/// The same for `Option<Url>`.
pub(crate) mod option {
    use super::*;

    pub(crate) fn serialize<S: Serializer>(
        url: &Option<Url>,
        serializer: S,
    ) -> Result<S::Ok, S::Error> {
        match url {
            Some(url) => serializer.serialize_some(url.as_str()),
            None => serializer.serialize_none(),
        }
    }

    pub(crate) fn deserialize<'de, D: Deserializer<'de>>(
        deserializer: D,
    ) -> Result<Option<Url>, D::Error> {
        Option::<String>::deserialize(deserializer)?
            .map(|text| Url::parse(&text).map_err(D::Error::custom))
            .transpose()
    }
}

/// The same for `Vec<Url>`.
pub(crate) mod vec {
    use super::*;
    use serde::ser::SerializeSeq;

    pub(crate) fn serialize<S: Serializer>(urls: &[Url], serializer: S) -> Result<S::Ok, S::Error> {
        let mut seq = serializer.serialize_seq(Some(urls.len()))?;
        for url in urls {
            seq.serialize_element(url.as_str())?;
        }
        seq.end()
    }

    pub(crate) fn deserialize<'de, D: Deserializer<'de>>(
        deserializer: D,
    ) -> Result<Vec<Url>, D::Error> {
        Vec::<String>::deserialize(deserializer)?
            .iter()
            .map(|text| Url::parse(text).map_err(D::Error::custom))
            .collect()
    }
}
