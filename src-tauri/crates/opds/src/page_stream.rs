//! The OPDS Page Streaming Extension (PSE): reading a stream link off an entry (an Atom
//! `<link>`, or the parts of an OPDS 2 JSON link) and building the URL of one page. Owns the
//! page URL rules (page base, `{maxWidth}`, bookmark-free URLs for background downloads); does
//! not fetch pages or decide which base a server uses.

use roxmltree::Node;
use serde::{Deserialize, Serialize};
use url::Url;

use super::url_template::{
    append_query_param, drop_slot, expand_expressions, fill_slots, has_query_param, has_slot,
    query_param, resolve_template, split_template, strip_bookmark_params_in_template,
};
use super::{ns, OpdsError};

/// The link relation of a page stream.
pub(crate) const STREAM_REL: &str = "http://vaemendis.net/opds-pse/stream";

const PAGE_NUMBER: &str = "pageNumber";
const MAX_WIDTH: &str = "maxWidth";

/// How a server numbers the pages in `{pageNumber}`. The PSE specification says from 0; some
/// servers (Komga without `zero_based=true`, others) count from 1. The reader's own page index
/// is always 0-based.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum PageBase {
    /// The first page is `0`, as the specification says.
    #[default]
    ZeroBased,
    /// The first page is `1`.
    OneBased,
}

/// The most pages a streamed book may have. Real books stay far below; a count above this is a
/// server's mistake (or hostile), and windows that lay pages out side by side would build
/// arrays of that length.
pub const MAX_PAGE_COUNT: u32 = 10_000;

/// The parts of a stream link, read from whatever document carried it.
#[derive(Debug, Clone, Copy, Default)]
pub(crate) struct StreamLink<'a> {
    /// As written; may be relative.
    pub(crate) href: &'a str,
    pub(crate) count: Option<u32>,
    pub(crate) declared_type: Option<&'a str>,
    pub(crate) last_read: Option<u32>,
    pub(crate) last_read_date: Option<&'a str>,
}

/// A book's page stream: every page fetched on its own, as an image.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct PageStream {
    /// Absolute URL template with a literal `{pageNumber}` and perhaps a `{maxWidth}` (braces
    /// that arrived percent-encoded are decoded); from OPDS 2 they may also come as RFC 6570
    /// expressions (`{?pageNumber}`). Use [`PageStream::page_url`] to fill it.
    pub template: String,
    /// Number of pages, at least 1.
    pub count: u32,
    /// The image type the server declares. Often wrong; see [`carrel_foundation::image_type::sniff_image_type`].
    pub declared_type: Option<String>,
    /// The server's last page read (`pse:lastRead`), as sent: 1-based per PSE 1.2, though some
    /// servers send 0 for "not started".
    pub last_read: Option<u32>,
    /// When `last_read` was last changed (`pse:lastReadDate`, or `pse:lastReadUpdate` as the
    /// 1.2 text spells it), as sent.
    pub last_read_date: Option<String>,
}

impl StreamLink<'_> {
    /// Why this link cannot be streamed though it has a count: the count is absurd.
    pub(crate) fn count_refusal(&self) -> Option<String> {
        self.count
            .filter(|c| *c > MAX_PAGE_COUNT)
            .map(|c| format!("not streamable: the server says it has {c} pages, and at most {MAX_PAGE_COUNT} are read page by page"))
    }
}

impl PageStream {
    /// Why the stream link `link` is refused for its page count, if it is.
    pub(crate) fn refusal_of_link(link: Node<'_, '_>) -> Option<String> {
        StreamLink {
            count: pse_attribute(link, "count").and_then(parse_number),
            ..Default::default()
        }
        .count_refusal()
    }

    /// Reads a stream link. `None` when the link is not usable: no `{pageNumber}` in its href,
    /// an href that cannot be resolved, or no positive `pse:count`.
    pub(crate) fn from_link(link: Node<'_, '_>, base: &Url) -> Option<PageStream> {
        // `pse:count` is required; servers that forget the namespace still mean it.
        let parts = StreamLink {
            href: link.attribute("href")?,
            count: pse_attribute(link, "count").and_then(parse_number),
            declared_type: link.attribute("type"),
            last_read: pse_attribute(link, "lastRead").and_then(parse_number),
            last_read_date: pse_attribute(link, "lastReadDate")
                .or_else(|| pse_attribute(link, "lastReadUpdate")),
        };
        PageStream::from_parts(&parts, base)
    }

    /// A stream from the parts of a link, however the document spells them, resolved against
    /// `base`. `None` under the same conditions as [`PageStream::from_link`].
    pub(crate) fn from_parts(link: &StreamLink<'_>, base: &Url) -> Option<PageStream> {
        let href = link.href;
        let template = match resolve_template(href, base, &[PAGE_NUMBER, MAX_WIDTH]) {
            Ok(template) => template,
            Err(err) => {
                tracing::debug!(%err, "ignoring a page stream link");
                return None;
            }
        };
        if !has_slot(&template, PAGE_NUMBER) {
            tracing::debug!(href, "ignoring a page stream link without {{pageNumber}}");
            return None;
        }
        let Some(count) = link.count.filter(|c| *c > 0) else {
            tracing::debug!(href, "ignoring a page stream link without a page count");
            return None;
        };
        if let Some(reason) = link.count_refusal() {
            tracing::debug!(href, %reason, "ignoring a page stream link");
            return None;
        }
        let text = |value: Option<&str>| {
            value
                .map(str::trim)
                .filter(|t| !t.is_empty())
                .map(str::to_owned)
        };
        Some(PageStream {
            template,
            count,
            declared_type: text(link.declared_type),
            last_read: link.last_read,
            last_read_date: text(link.last_read_date),
        })
    }

    /// The URL of the page the reader calls `page` (0-based, below [`PageStream::count`]).
    /// `first_page` is how this server numbers pages; `max_width` fills `{maxWidth}`, and with
    /// `None` the placeholder and its parameter are removed.
    pub fn page_url(
        &self,
        page: u32,
        first_page: PageBase,
        max_width: Option<u32>,
    ) -> Result<Url, OpdsError> {
        fill_page(&self.template, self.count, page, first_page, max_width)
    }

    /// [`PageStream::page_url`] built from [`PageStream::background_template`]: for prefetching
    /// and downloads that must not move the reader's bookmark on the server.
    pub fn background_page_url(
        &self,
        page: u32,
        first_page: PageBase,
        max_width: Option<u32>,
    ) -> Result<Url, OpdsError> {
        fill_page(
            &self.background_template(),
            self.count,
            page,
            first_page,
            max_width,
        )
    }

    /// The template without bookmark-moving parameters (see [`super::BOOKMARK_PARAMS`]). For
    /// Kavita-style page endpoints, which save progress unless told otherwise, it also asks for
    /// `saveProgress=false`.
    pub fn background_template(&self) -> String {
        self.background_template_with(&[])
    }

    /// [`PageStream::background_template`] with more parameter names to remove.
    pub fn background_template_with(&self, extra: &[&str]) -> String {
        let stripped = strip_bookmark_params_in_template(&self.template, extra);
        if saves_progress_by_default(&stripped) && !has_query_param(&stripped, "saveProgress") {
            append_query_param(&stripped, "saveProgress", "false")
        } else {
            stripped
        }
    }

    /// The page base the template itself reveals, if any: Komga's `zero_based=true`, or Kavita's
    /// page endpoint (0-based). `None` means the caller's per-server setting decides.
    pub fn page_base_hint(&self) -> Option<PageBase> {
        if let Some(value) = query_param(&self.template, "zero_based") {
            return Some(
                if matches!(value.trim().to_ascii_lowercase().as_str(), "true" | "1") {
                    PageBase::ZeroBased
                } else {
                    PageBase::OneBased
                },
            );
        }
        saves_progress_by_default(&self.template).then_some(PageBase::ZeroBased)
    }

    /// Whether the server can scale pages down (`{maxWidth}` in the template).
    pub fn supports_max_width(&self) -> bool {
        has_slot(&self.template, MAX_WIDTH)
    }
}

fn fill_page(
    template: &str,
    count: u32,
    page: u32,
    first_page: PageBase,
    max_width: Option<u32>,
) -> Result<Url, OpdsError> {
    if page >= count {
        return Err(OpdsError::PageOutOfRange { page, count });
    }
    let number = match first_page {
        PageBase::ZeroBased => page,
        // page < count <= u32::MAX, so page + 1 fits.
        PageBase::OneBased => page + 1,
    };
    let sized = match max_width.filter(|w| *w > 0) {
        Some(width) => fill_slots(template, |name, _| {
            name.eq_ignore_ascii_case(MAX_WIDTH)
                .then(|| width.to_string())
        }),
        None => drop_slot(template, MAX_WIDTH),
    };
    let filled = fill_slots(&sized, |name, _| {
        name.eq_ignore_ascii_case(PAGE_NUMBER)
            .then(|| number.to_string())
    });
    // OPDS 2 templates may use RFC 6570 expressions (`{?pageNumber}`); `{maxWidth}` inside one
    // is already gone when no width is wanted.
    let filled = expand_expressions(&filled, |name| {
        if name.eq_ignore_ascii_case(PAGE_NUMBER) {
            Some(number.to_string())
        } else if name.eq_ignore_ascii_case(MAX_WIDTH) {
            max_width.map(|w| w.to_string())
        } else {
            None
        }
    });
    Url::parse(&filled).map_err(|e| OpdsError::bad_url(&filled, e))
}

/// Kavita's OPDS page endpoint (`.../api/opds/{key}/image?...&pageNumber=...`) saves the
/// reader's progress on every fetch unless `saveProgress=false` is passed.
fn saves_progress_by_default(template: &str) -> bool {
    let (path, _, _) = split_template(template);
    let path = path.to_ascii_lowercase();
    path.contains("/api/opds/")
        && path.ends_with("/image")
        && has_query_param(template, PAGE_NUMBER)
}

fn pse_attribute<'a>(link: Node<'a, '_>, name: &str) -> Option<&'a str> {
    link.attribute((ns::PSE, name))
        .or_else(|| link.attribute(name))
}

pub(crate) fn parse_number(text: &str) -> Option<u32> {
    let text = text.trim();
    text.parse::<u32>().ok().or_else(|| {
        // "12.0" from servers that serialise numbers as floats.
        text.parse::<f64>()
            .ok()
            .filter(|f| f.is_finite() && *f >= 0.0 && f.fract() == 0.0 && *f <= f64::from(u32::MAX))
            .map(|f| f as u32)
    })
}

/// The addresses of pages as text, as the tests compare them.
#[cfg(test)]
impl PageStream {
    pub(crate) fn page_text(
        &self,
        page: u32,
        first_page: PageBase,
        max_width: Option<u32>,
    ) -> String {
        self.page_url(page, first_page, max_width)
            .unwrap()
            .to_string()
    }

    pub(crate) fn background_page_text(
        &self,
        page: u32,
        first_page: PageBase,
        max_width: Option<u32>,
    ) -> String {
        self.background_page_url(page, first_page, max_width)
            .unwrap()
            .to_string()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn stream(template: &str, count: u32) -> PageStream {
        PageStream {
            template: template.into(),
            count,
            declared_type: Some("image/jpeg".into()),
            last_read: None,
            last_read_date: None,
        }
    }

    /// The addresses `s` gives for the pages asked, each `(page, base, max width)`.
    fn pages(s: &PageStream, asked: &[(u32, PageBase, Option<u32>)]) -> Vec<String> {
        asked
            .iter()
            .map(|&(page, base, max_width)| s.page_text(page, base, max_width))
            .collect()
    }

    #[test]
    fn opds_page_url_applies_the_page_base() {
        let s = stream(
            "https://komga.example/opds/v1.2/books/0A1/pages/{pageNumber}?zero_based=true",
            24,
        );
        assert_eq!(
            pages(
                &s,
                &[
                    (0, PageBase::ZeroBased, None),
                    (23, PageBase::OneBased, None)
                ]
            ),
            [
                "https://komga.example/opds/v1.2/books/0A1/pages/0?zero_based=true",
                "https://komga.example/opds/v1.2/books/0A1/pages/24?zero_based=true"
            ]
        );
        assert_eq!(
            s.page_url(24, PageBase::ZeroBased, None).unwrap_err(),
            OpdsError::PageOutOfRange {
                page: 24,
                count: 24
            }
        );
    }

    #[test]
    fn opds_page_url_fills_or_removes_max_width() {
        let s = stream(
            "https://ubooquity.example/opds-comics/stream/1217?page={pageNumber}&width={maxWidth}",
            35,
        );
        assert!(s.supports_max_width());
        assert_eq!(
            pages(
                &s,
                &[
                    (4, PageBase::ZeroBased, Some(1600)),
                    (4, PageBase::ZeroBased, None),
                    (4, PageBase::ZeroBased, Some(0))
                ]
            ),
            [
                "https://ubooquity.example/opds-comics/stream/1217?page=4&width=1600",
                "https://ubooquity.example/opds-comics/stream/1217?page=4",
                "https://ubooquity.example/opds-comics/stream/1217?page=4"
            ]
        );
        let first = stream("https://h.example/s?maxWidth={maxWidth}&p={pageNumber}", 3);
        assert_eq!(
            first.page_text(2, PageBase::OneBased, None),
            "https://h.example/s?p=3"
        );
        let in_path = stream("https://h.example/w/{maxWidth}/p/{pageNumber}.jpg", 3);
        assert_eq!(
            in_path.page_text(1, PageBase::ZeroBased, None),
            "https://h.example/w/p/1.jpg"
        );
    }

    #[test]
    fn opds_page_url_expands_rfc6570_expressions() {
        let s = stream(
            "https://stump.example/api/v2/books/7/page{?pageNumber,maxWidth}",
            12,
        );
        assert!(s.supports_max_width());
        assert_eq!(
            pages(
                &s,
                &[
                    (3, PageBase::OneBased, None),
                    (3, PageBase::ZeroBased, Some(800))
                ]
            ),
            [
                "https://stump.example/api/v2/books/7/page?pageNumber=4",
                "https://stump.example/api/v2/books/7/page?pageNumber=3&maxWidth=800"
            ]
        );
        assert_eq!(
            s.page_url(12, PageBase::ZeroBased, None).unwrap_err(),
            OpdsError::PageOutOfRange {
                page: 12,
                count: 12
            }
        );
    }

    #[test]
    fn opds_stream_from_parts_resolves_and_requires_a_count() {
        let base = Url::parse("https://codex.example/opds/v2.0/s/3/1").unwrap();
        let parts = StreamLink {
            href: "/opds/v1.2/c/88/%7BpageNumber%7D/page.jpg",
            count: Some(30),
            declared_type: Some(" image/jpeg "),
            last_read: Some(2),
            last_read_date: Some(" "),
        };
        let s = PageStream::from_parts(&parts, &base).unwrap();
        assert_eq!(
            s.template,
            "https://codex.example/opds/v1.2/c/88/{pageNumber}/page.jpg"
        );
        assert_eq!(s.declared_type.as_deref(), Some("image/jpeg"));
        assert_eq!(s.last_read_date, None);
        assert!(PageStream::from_parts(
            &StreamLink {
                count: Some(0),
                ..parts
            },
            &base
        )
        .is_none());
        assert!(PageStream::from_parts(
            &StreamLink {
                count: None,
                ..parts
            },
            &base
        )
        .is_none());
        assert!(PageStream::from_parts(
            &StreamLink {
                href: "/p/1.jpg",
                ..parts
            },
            &base
        )
        .is_none());
    }

    #[test]
    fn opds_background_template_strips_bookmark_params() {
        let codex = stream(
            "https://codex.example/opds/v1.2/c/88/{pageNumber}/page.jpg?bookmark=1",
            30,
        );
        assert_eq!(
            codex.background_template(),
            "https://codex.example/opds/v1.2/c/88/{pageNumber}/page.jpg"
        );
        assert_eq!(
            codex.page_text(2, PageBase::ZeroBased, None),
            "https://codex.example/opds/v1.2/c/88/2/page.jpg?bookmark=1"
        );
        assert_eq!(
            codex.background_page_text(2, PageBase::ZeroBased, None),
            "https://codex.example/opds/v1.2/c/88/2/page.jpg"
        );
        let custom = stream("https://h.example/p/{pageNumber}?readingSession=9&q=1", 5);
        assert_eq!(
            custom.background_template_with(&["reading_session"]),
            "https://h.example/p/{pageNumber}?q=1"
        );
    }

    #[test]
    fn opds_background_template_turns_kavita_saving_off() {
        let kavita = stream(
            "https://kavita.example/api/opds/KEY/image?libraryId=1&seriesId=2&volumeId=3&chapterId=4&pageNumber={pageNumber}",
            10,
        );
        assert_eq!(
            kavita.background_template(),
            "https://kavita.example/api/opds/KEY/image?libraryId=1&seriesId=2&volumeId=3&chapterId=4&pageNumber={pageNumber}&saveProgress=false"
        );
        assert_eq!(kavita.page_base_hint(), Some(PageBase::ZeroBased));
        let explicit = stream(
            "https://kavita.example/api/opds/KEY/image?chapterId=4&pageNumber={pageNumber}&saveProgress=True",
            10,
        );
        assert_eq!(
            explicit.background_template(),
            "https://kavita.example/api/opds/KEY/image?chapterId=4&pageNumber={pageNumber}&saveProgress=false"
        );
    }

    #[test]
    fn opds_page_base_hint_reads_komga_zero_based() {
        assert_eq!(
            stream("https://k/p/{pageNumber}?zero_based=true", 2).page_base_hint(),
            Some(PageBase::ZeroBased)
        );
        assert_eq!(
            stream("https://k/p/{pageNumber}?zero_based=false", 2).page_base_hint(),
            Some(PageBase::OneBased)
        );
        assert_eq!(stream("https://k/p/{pageNumber}", 2).page_base_hint(), None);
    }

    #[test]
    fn opds_parse_number_accepts_float_spellings_only_when_whole() {
        assert_eq!(parse_number(" 12 "), Some(12));
        assert_eq!(parse_number("12.0"), Some(12));
        for refused in ["12.5", "-1", "NaN", "1e12"] {
            assert_eq!(parse_number(refused), None, "{refused:?}");
        }
    }
}
