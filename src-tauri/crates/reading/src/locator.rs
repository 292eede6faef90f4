//! Readium progression documents (`application/vnd.readium.progression+json`), as OPDS
//! servers keep reading positions: written from a position, read back into one.

use serde_json::{json, Value};

use crate::epub_positions;
use crate::server_position::{PositionSource, ServerPosition};
use carrel_foundation::timestamps::{format_rfc3339, parse_rfc3339};

/// The media type of a progression document.
pub const PROGRESSION_TYPE: &str = "application/vnd.readium.progression+json";

/// The progression document of a position: the page (0-based; written 1-based as
/// `locations.position`), the fraction read, an EPUB CFI as a fragment of the publication, the
/// time it was saved and this device.
pub fn document(
    page: Option<i64>,
    progression: Option<f64>,
    cfi: Option<&str>,
    updated_at_ms: i64,
    device_id: &str,
) -> Vec<u8> {
    let mut locations = serde_json::Map::new();
    if let Some(page) = page {
        locations.insert("position".into(), json!(page + 1));
    }
    if let Some(progression) = progression {
        locations.insert("totalProgression".into(), json!(progression));
    }
    if let Some(cfi) = cfi {
        // An EPUB CFI is a fragment identifier of the publication (`book.epub#epubcfi(…)`).
        locations.insert("fragments".into(), json!([cfi]));
    }
    let document = json!({
        "modified": format_rfc3339(updated_at_ms),
        "device": { "id": device_id, "name": "Carrel" },
        "locator": { "locations": locations },
    });
    serde_json::to_vec(&document).expect("a JSON value serialises")
}

/// Reads a progression document: `locations.position` (1-based) gives the page, else
/// `totalProgression` with the book's page count; an EPUB CFI in `locations.fragments` is kept.
/// A document without any of these holds no position.
pub fn parse(bytes: &[u8], page_count: Option<i64>) -> Option<ServerPosition> {
    let doc: Value = serde_json::from_slice(bytes).ok()?;
    let modified_ms = parse_rfc3339(doc.get("modified")?.as_str()?)?;
    let locations = doc.get("locator")?.get("locations")?;
    let progression = locations
        .get("totalProgression")
        .and_then(Value::as_f64)
        .filter(|p| (0.0..=1.0).contains(p));
    let cfi = locations
        .get("fragments")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .filter_map(Value::as_str)
        .map(|f| f.trim_start_matches('#'))
        // A CFI of the whole publication (with its `!` step into a spine item); one relative to
        // a single chapter file would land in the wrong place: the fraction stands then.
        .find(|f| epub_positions::valid_cfi(f) && f.contains('!'))
        .map(str::to_owned);
    let count = page_count.filter(|c| *c > 0);
    let page = match (
        locations.get("position").and_then(Value::as_i64),
        progression,
        count,
    ) {
        (Some(position), _, _) => position.saturating_sub(1),
        (None, Some(p), Some(c)) => (p * c as f64).floor() as i64,
        (None, _, _) if cfi.is_some() || (progression.is_some() && page_count.is_none()) => 0,
        (None, _, _) => return None,
    };
    let page = match count {
        Some(c) => page.clamp(0, c - 1),
        None => page.max(0),
    };
    Some(ServerPosition {
        page,
        progression,
        cfi,
        modified_ms,
        source: PositionSource::Progression,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn locators_give_pages() {
        let doc = br#"{"modified":"2025-01-01T00:00:00Z","locator":{"locations":{"position":5,"totalProgression":0.2}}}"#;
        let p = parse(doc, Some(20)).unwrap();
        assert_eq!((p.page, p.progression), (4, Some(0.2)));
        let by_fraction = br#"{"modified":"2025-01-01T00:00:00Z","locator":{"locations":{"totalProgression":0.5}}}"#;
        assert_eq!(parse(by_fraction, Some(20)).unwrap().page, 10);
        let epub = parse(by_fraction, None).unwrap();
        assert_eq!(
            (epub.page, epub.progression, epub.cfi),
            (0, Some(0.5), None)
        );
        let with_cfi = br##"{"modified":"2025-01-01T00:00:00Z","locator":{"locations":{"totalProgression":0.25,"fragments":["t=1","#epubcfi(/6/8!/4/2/1:10)"]}}}"##;
        assert_eq!(
            parse(with_cfi, None).unwrap().cfi.as_deref(),
            Some("epubcfi(/6/8!/4/2/1:10)")
        );
        let hostile = br#"{"modified":"2025-01-01T00:00:00Z","locator":{"locations":{"fragments":["epubcfi(/6/8\n)"]}}}"#;
        assert_eq!(parse(hostile, None), None);
        assert_eq!(parse(b"{}", Some(3)), None);
    }
}
