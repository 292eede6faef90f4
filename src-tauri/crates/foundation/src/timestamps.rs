//! Dates as servers write them: RFC 3339 date-times (`2026-01-02T03:04:05.678Z`, or with a
//! numeric offset) to and from unix milliseconds, through the `time` crate, so that a date that
//! does not exist (`2026-02-31`, hour 24) is refused rather than counted.

use time::format_description::well_known::Rfc3339;
use time::OffsetDateTime;

/// `2026-01-02T03:04:05.678Z` for unix milliseconds (always UTC, always milliseconds).
pub fn format_rfc3339(ms: i64) -> String {
    let at = OffsetDateTime::from_unix_timestamp_nanos(i128::from(ms) * 1_000_000)
        .unwrap_or(OffsetDateTime::UNIX_EPOCH);
    format!(
        "{:04}-{:02}-{:02}T{:02}:{:02}:{:02}.{:03}Z",
        at.year(),
        u8::from(at.month()),
        at.day(),
        at.hour(),
        at.minute(),
        at.second(),
        at.millisecond()
    )
}

/// Unix milliseconds of an RFC 3339 date-time (`Z` or a numeric offset, any fraction, `T` or a
/// space between date and time); `None` for anything else, an impossible date included.
pub fn parse_rfc3339(text: &str) -> Option<i64> {
    let t = text.trim();
    // RFC 3339 lets a space stand for the `T` (section 5.6's note); the parser wants the `T`.
    let owned;
    let t = match t.as_bytes().get(10) {
        Some(b' ') => {
            owned = format!("{}T{}", &t[..10], &t[11..]);
            owned.as_str()
        }
        _ => t,
    };
    let at = OffsetDateTime::parse(t, &Rfc3339).ok()?;
    i64::try_from(at.unix_timestamp_nanos().div_euclid(1_000_000)).ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dates_round_trip_and_offsets_count() {
        let ms = 1_763_700_000_123;
        assert_eq!(parse_rfc3339(&format_rfc3339(ms)), Some(ms));
        assert_eq!(format_rfc3339(0), "1970-01-01T00:00:00.000Z");
        assert_eq!(format_rfc3339(-1), "1969-12-31T23:59:59.999Z");
        assert_eq!(
            parse_rfc3339("2024-02-29T12:00:00+02:00"),
            parse_rfc3339("2024-02-29T10:00:00Z")
        );
        assert_eq!(
            parse_rfc3339("2026-01-02 03:04:05.5Z"),
            parse_rfc3339("2026-01-02T03:04:05.500Z")
        );
        assert_eq!(
            parse_rfc3339("2026-01-02t03:04:05z"),
            parse_rfc3339("2026-01-02T03:04:05Z")
        );
        assert_eq!(
            parse_rfc3339("2026-01-02T03:04:05.123456789Z"),
            Some(parse_rfc3339("2026-01-02T03:04:05Z").unwrap() + 123)
        );
    }

    #[test]
    fn impossible_and_malformed_dates_are_refused() {
        for bad in [
            "2026-02-31T00:00:00Z",
            "2025-02-29T00:00:00Z",
            "2026-04-31T00:00:00Z",
            "2026-13-01T00:00:00Z",
            "2026-01-01T24:00:00Z",
            "2026-01-01T00:60:00Z",
            "2026-01-01T00:00:00",
            "2026-01-01",
            "2026-01-01T00:00:00+25:00",
            "",
            "yesterday",
            "2026-01-01T00:00:00Zjunk",
        ] {
            assert_eq!(parse_rfc3339(bad), None, "{bad}");
        }
    }
}
