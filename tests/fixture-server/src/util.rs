//! Small helpers: a seeded pseudo-random generator, date formatting, XML escaping and URL
//! query handling.

/// One round of the SplitMix64 finaliser: a good 64-bit mixing function.
pub(crate) fn mix(x: u64) -> u64 {
    let mut z = x.wrapping_add(0x9E37_79B9_7F4A_7C15);
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

/// A tiny deterministic generator (SplitMix64). Not for cryptography.
#[derive(Clone, Debug)]
pub(crate) struct Rng(u64);

impl Rng {
    /// A generator derived from several inputs, so that streams for different purposes never
    /// overlap.
    pub(crate) fn derive(parts: &[u64]) -> Self {
        let mut h = 0x5EED_F1C7_0000_0001u64;
        for p in parts {
            h = mix(h ^ *p);
        }
        Rng(h)
    }

    pub(crate) fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// A number in `0..n` (`n` must be non-zero).
    pub(crate) fn below(&mut self, n: u64) -> u64 {
        self.next_u64() % n.max(1)
    }

    /// A number in `[0, 1)`.
    pub(crate) fn unit(&mut self) -> f64 {
        (self.next_u64() >> 11) as f64 / (1u64 << 53) as f64
    }

    pub(crate) fn pick<'a, T>(&mut self, items: &'a [T]) -> &'a T {
        &items[self.below(items.len() as u64) as usize]
    }
}

fn at(unix: u64) -> time::OffsetDateTime {
    time::OffsetDateTime::from_unix_timestamp(i64::try_from(unix).unwrap_or(i64::MAX))
        .unwrap_or(time::OffsetDateTime::UNIX_EPOCH)
}

/// `2024-01-01T00:00:00Z`
pub(crate) fn rfc3339(unix: u64) -> String {
    let t = at(unix);
    format!(
        "{:04}-{:02}-{:02}T{:02}:{:02}:{:02}Z",
        t.year(),
        u8::from(t.month()),
        t.day(),
        t.hour(),
        t.minute(),
        t.second()
    )
}

/// Unix milliseconds of an RFC 3339 date-time (`Z` or a numeric offset, any fraction); `None`
/// for anything else, an impossible date included.
pub(crate) fn parse_rfc3339_ms(text: &str) -> Option<i64> {
    let t =
        time::OffsetDateTime::parse(text.trim(), &time::format_description::well_known::Rfc3339)
            .ok()?;
    i64::try_from(t.unix_timestamp_nanos().div_euclid(1_000_000)).ok()
}

/// `Mon, 01 Jan 2024 00:00:00 GMT` (the IMF-fixdate form HTTP uses).
pub(crate) fn http_date(unix: u64) -> String {
    httpdate::fmt_http_date(std::time::UNIX_EPOCH + std::time::Duration::from_secs(unix))
}

/// (year, month, day, hour, minute, second) for zip timestamps.
pub(crate) fn ymdhms(unix: u64) -> (u16, u8, u8, u8, u8, u8) {
    let t = at(unix);
    (
        t.year().clamp(1980, 2107) as u16,
        u8::from(t.month()),
        t.day(),
        t.hour(),
        t.minute(),
        t.second(),
    )
}

pub(crate) fn now_unix() -> u64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_secs())
        .unwrap_or(0)
}

/// Escapes text for XML content and attribute values.
pub(crate) fn xml_escape(s: &str) -> String {
    let mut out = String::with_capacity(s.len() + 8);
    for ch in s.chars() {
        match ch {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&apos;"),
            _ => out.push(ch),
        }
    }
    out
}

/// Decodes one `application/x-www-form-urlencoded` component (`+` is a space); invalid UTF-8
/// is replaced.
pub(crate) fn percent_decode(s: &str) -> String {
    let spaced = s.replace('+', " ");
    percent_encoding::percent_decode_str(&spaced)
        .decode_utf8_lossy()
        .into_owned()
}

/// Everything but the unreserved characters of RFC 3986 (letters, digits, `-._~`).
const RESERVED: &percent_encoding::AsciiSet = &percent_encoding::NON_ALPHANUMERIC
    .remove(b'-')
    .remove(b'.')
    .remove(b'_')
    .remove(b'~');

/// Percent-encodes everything but unreserved characters.
pub(crate) fn percent_encode(s: &str) -> String {
    percent_encoding::utf8_percent_encode(s, RESERVED).to_string()
}

/// The decoded value of the first query parameter called `name`.
pub(crate) fn query_param(query: Option<&str>, name: &str) -> Option<String> {
    let query = query?;
    for pair in query.split('&') {
        let (k, v) = match pair.split_once('=') {
            Some((k, v)) => (k, v),
            None => (pair, ""),
        };
        if percent_decode(k) == name {
            return Some(percent_decode(v));
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dates_format_known_instants() {
        assert_eq!(rfc3339(0), "1970-01-01T00:00:00Z");
        assert_eq!(http_date(0), "Thu, 01 Jan 1970 00:00:00 GMT");
        assert_eq!(rfc3339(1_704_067_200), "2024-01-01T00:00:00Z");
        assert_eq!(http_date(1_704_067_200), "Mon, 01 Jan 2024 00:00:00 GMT");
        assert_eq!(http_date(1_709_210_096), "Thu, 29 Feb 2024 12:34:56 GMT");
    }

    #[test]
    fn query_decoding() {
        assert_eq!(
            query_param(Some("q=salt+%26+cinder&x=1"), "q").as_deref(),
            Some("salt & cinder")
        );
        assert_eq!(query_param(Some("a&b=2"), "a").as_deref(), Some(""));
        assert_eq!(query_param(Some("q=%zz%4"), "q").as_deref(), Some("%zz%4"));
        assert_eq!(query_param(None, "q"), None);
        assert_eq!(percent_encode("café & co"), "caf%C3%A9%20%26%20co");
        // An escape at the very end is an escape.
        assert_eq!(query_param(Some("q=a%41"), "q").as_deref(), Some("aA"));
    }

    #[test]
    fn impossible_dates_are_refused() {
        assert_eq!(parse_rfc3339_ms("2026-02-31T00:00:00Z"), None);
        assert_eq!(parse_rfc3339_ms("2026-01-01T24:00:00Z"), None);
        assert_eq!(
            parse_rfc3339_ms("2024-02-29T12:00:00+02:00"),
            Some(1_709_200_800_000)
        );
        assert_eq!(parse_rfc3339_ms("1970-01-01T00:00:00.250Z"), Some(250));
    }
}
