//! The generated library: book metadata (fixed for a seed) and the files themselves (CBZ comics
//! of PNG pages, EPUB 3 ebooks, covers and thumbnails), built on demand.

use std::collections::{BTreeMap, HashMap};
use std::io::{Cursor, Write};
use std::sync::{Arc, Mutex};

use bytes::Bytes;
use serde::{Deserialize, Serialize};

use crate::png::{encoded_len, hue_colour, Canvas};
use crate::state::lock;
use crate::util::{rfc3339, xml_escape, ymdhms, Rng};

/// What kind of file a book is.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum BookKind {
    /// A CBZ of PNG pages, streamable page by page (PSE).
    Comic,
    /// An EPUB 3.
    Epub,
}

impl BookKind {
    /// The media type of the book file.
    pub fn mime(self) -> &'static str {
        match self {
            BookKind::Comic => "application/vnd.comicbook+zip",
            BookKind::Epub => "application/epub+zip",
        }
    }

    pub(crate) fn extension(self) -> &'static str {
        match self {
            BookKind::Comic => "cbz",
            BookKind::Epub => "epub",
        }
    }
}

/// A series, the second level of the catalog's navigation.
#[derive(Clone, Debug)]
pub(crate) struct SeriesMeta {
    pub(crate) id: u32,
    pub(crate) name: String,
    pub(crate) author: String,
}

/// The fixed metadata of a book (it never changes with revisions).
#[derive(Clone, Debug)]
pub(crate) struct BookMeta {
    pub(crate) id: u32,
    pub(crate) kind: BookKind,
    pub(crate) title: String,
    pub(crate) series_id: u32,
    pub(crate) number: u32,
    pub(crate) author: String,
    pub(crate) summary: String,
    /// Page count for comics, 0 for ebooks.
    pub(crate) pages: u32,
    pub(crate) chapters: u32,
    pub(crate) issued_year: u32,
    /// Unix time of revision 0; each revision adds a day.
    pub(crate) base_time: u64,
    pub(crate) hue: u32,
}

impl BookMeta {
    pub(crate) fn modified(&self, revision: u32) -> u64 {
        self.base_time + u64::from(revision) * 86_400
    }
}

const COMIC_SERIES: [&str; 5] = [
    "Saga of the Lantern",
    "Salt & Cinder",
    "The Copper Orchard",
    "Night Tram",
    "Café Nocturne",
];
const NOVEL_SERIES: [&str; 3] = [
    "The Glass Archive",
    "Letters from Vell",
    "A Quiet Cartography",
];
const AUTHORS: [&str; 8] = [
    "Mira Okonkwo",
    "Tomás Lindqvist",
    "Aiko Brandt",
    "Rafael Duarte",
    "Ingrid Solberg",
    "Yusuf Karimi",
    "Léa Fontaine",
    "Oskar Nemeth",
];
const HOOKS: [&str; 8] = [
    "A lighthouse keeper finds a map that redraws itself every night.",
    "Two rival couriers share a single bicycle and a dangerous secret.",
    "The orchard's copper fruit starts ringing at midnight.",
    "A tram that only runs after the last stop takes on a new passenger.",
    "An archivist catalogues letters that have not been written yet.",
    "The salt flats remember every footprint, and someone is erasing them.",
    "A café opens for one customer a year; this year there are two.",
    "A cartographer is hired to map a city that keeps moving.",
];
const WORDS: [&str; 24] = [
    "lantern", "harbour", "quiet", "copper", "river", "window", "letter", "evening", "stone",
    "bridge", "winter", "garden", "signal", "paper", "tide", "hollow", "silver", "market", "echo",
    "station", "orchard", "ember", "compass", "archive",
];

/// The whole catalog's metadata.
#[derive(Clone, Debug)]
pub(crate) struct Catalog {
    pub(crate) books: Vec<BookMeta>,
    pub(crate) series: Vec<SeriesMeta>,
}

impl Catalog {
    pub(crate) fn generate(seed: u64, count: u32, comic_pages: &BTreeMap<u32, u32>) -> Catalog {
        let kind_of = |id: u32| {
            if comic_pages.contains_key(&id) || id % 3 != 0 {
                BookKind::Comic
            } else {
                BookKind::Epub
            }
        };
        let comics = (1..=count)
            .filter(|&id| kind_of(id) == BookKind::Comic)
            .count() as u32;
        let novels = count - comics;
        let comic_series = if comics == 0 {
            0
        } else {
            (comics / 3).clamp(1, COMIC_SERIES.len() as u32)
        };
        let novel_series = if novels == 0 {
            0
        } else {
            (novels / 2).clamp(1, NOVEL_SERIES.len() as u32)
        };

        let mut series = Vec::new();
        for (i, name) in COMIC_SERIES.iter().take(comic_series as usize).enumerate() {
            let mut rng = Rng::derive(&[seed, 0x5E51E5, i as u64]);
            series.push(SeriesMeta {
                id: series.len() as u32 + 1,
                name: (*name).to_string(),
                author: (*rng.pick(&AUTHORS)).to_string(),
            });
        }
        for (i, name) in NOVEL_SERIES.iter().take(novel_series as usize).enumerate() {
            let mut rng = Rng::derive(&[seed, 0x0FE1, i as u64]);
            series.push(SeriesMeta {
                id: series.len() as u32 + 1,
                name: (*name).to_string(),
                author: (*rng.pick(&AUTHORS)).to_string(),
            });
        }

        let mut numbers: BTreeMap<u32, u32> = BTreeMap::new();
        let mut books = Vec::with_capacity(count as usize);
        for id in 1..=count {
            let kind = kind_of(id);
            let mut rng = Rng::derive(&[seed, 0xB00C, u64::from(id)]);
            let series_index = match kind {
                BookKind::Comic => rng.below(u64::from(comic_series)) as u32,
                BookKind::Epub => comic_series + rng.below(u64::from(novel_series)) as u32,
            };
            let s = &series[series_index as usize];
            let number = {
                let n = numbers.entry(s.id).or_insert(0);
                *n += 1;
                *n
            };
            let pages = match kind {
                BookKind::Comic => comic_pages
                    .get(&id)
                    .copied()
                    .unwrap_or_else(|| 8 + rng.below(53) as u32)
                    .max(1),
                BookKind::Epub => 0,
            };
            let title = match kind {
                BookKind::Comic => format!("{} #{}", s.name, number),
                BookKind::Epub => format!("{}, Book {}", s.name, number),
            };
            let summary = match kind {
                BookKind::Comic => format!("Issue {} of {}. {}", number, s.name, rng.pick(&HOOKS)),
                BookKind::Epub => format!("Book {} of {}. {}", number, s.name, rng.pick(&HOOKS)),
            };
            books.push(BookMeta {
                id,
                kind,
                title,
                series_id: s.id,
                number,
                author: s.author.clone(),
                summary,
                pages,
                chapters: 3 + rng.below(3) as u32,
                issued_year: 2015 + rng.below(10) as u32,
                // 2024-01-01T00:00:00Z plus a little per book.
                base_time: 1_704_067_200 + u64::from(id) * 37 * 3600 + rng.below(3600),
                hue: rng.below(360) as u32,
            });
        }
        Catalog { books, series }
    }

    pub(crate) fn book(&self, id: u32) -> Option<&BookMeta> {
        if id == 0 {
            return None;
        }
        self.books.get(id as usize - 1)
    }

    pub(crate) fn series(&self, id: u32) -> Option<&SeriesMeta> {
        if id == 0 {
            return None;
        }
        self.series.get(id as usize - 1)
    }
}

/// The bytes of one revision of a book.
#[derive(Debug)]
pub(crate) struct BuiltBook {
    pub(crate) revision: u32,
    pub(crate) file: Bytes,
    pub(crate) pages: Vec<Bytes>,
    pub(crate) cover: Bytes,
    pub(crate) thumbnail: Bytes,
    pub(crate) etag: String,
}

/// Width and height of a page image so that its PNG is about `page_bytes` long (portrait 2:3).
fn page_dimensions(page_bytes: usize) -> (u32, u32) {
    let target = page_bytes.max(256);
    let width = (((target as f64) / 4.5).sqrt().round() as u32).max(16);
    let mut height = ((target.saturating_sub(96)) / (width as usize * 3 + 1)).max(24) as u32;
    while height > 24 && encoded_len(width, height) > target + width as usize * 3 {
        height -= 1;
    }
    (width, height)
}

pub(crate) fn page_png(
    meta: &BookMeta,
    seed: u64,
    revision: u32,
    index: u32,
    page_bytes: usize,
) -> Vec<u8> {
    let (width, base_height) = page_dimensions(page_bytes);
    // Each revision adds a pixel row so the file length changes too.
    let height = base_height + revision.min(4096);
    let bg = hue_colour(meta.hue + index * 7, 0.25, 0.95);
    let mut canvas = Canvas::new(width, height, bg);
    let bands = 3 + index % 5;
    let band_h = (height / (bands * 3)).max(1);
    for b in 0..bands {
        let colour = hue_colour(meta.hue + 40 * b + index * 13, 0.55, 0.75);
        let y = b * height / bands;
        canvas.rect(0, y, width, band_h, colour);
    }
    let ink = hue_colour(meta.hue + 180, 0.8, 0.35);
    canvas.digits_centered(&(index + 1).to_string(), height / 4, height / 2, ink);
    let mut rng = Rng::derive(&[
        seed,
        0x9A6E,
        u64::from(meta.id),
        u64::from(revision),
        u64::from(index),
    ]);
    canvas.noise(&mut rng);
    let comment = format!(
        "Carrel fixture book {} page {} of {} revision {}",
        meta.id,
        index + 1,
        meta.pages,
        revision
    );
    canvas.encode(Some(&comment))
}

fn cover_png(meta: &BookMeta, revision: u32, width: u32, height: u32) -> Vec<u8> {
    let mut canvas = Canvas::new(width, height, hue_colour(meta.hue, 0.6, 0.55));
    canvas.rect(
        0,
        height / 10,
        width,
        height / 5,
        hue_colour(meta.hue + 30, 0.3, 0.95),
    );
    canvas.rect(
        0,
        height * 8 / 10,
        width,
        height / 12,
        hue_colour(meta.hue + 200, 0.5, 0.9),
    );
    let ink = hue_colour(meta.hue + 180, 0.2, 0.98);
    canvas.digits_centered(
        &format!("#{}", meta.number),
        height * 35 / 100,
        height * 4 / 10,
        ink,
    );
    let comment = format!(
        "Carrel fixture cover of book {} revision {}",
        meta.id, revision
    );
    canvas.encode(Some(&comment))
}

fn zip_options(unix: u64) -> zip::write::SimpleFileOptions {
    let (y, mo, d, h, mi, s) = ymdhms(unix);
    let when =
        zip::DateTime::from_date_and_time(y, mo, d, h, mi, s.min(58) & !1).unwrap_or_default();
    zip::write::SimpleFileOptions::default()
        .compression_method(zip::CompressionMethod::Stored)
        .last_modified_time(when)
        .unix_permissions(0o644)
}

fn zip_files(entries: &[(String, &[u8])], unix: u64) -> Vec<u8> {
    let mut writer = zip::ZipWriter::new(Cursor::new(Vec::new()));
    let options = zip_options(unix);
    for (name, data) in entries {
        // Writing to memory cannot fail short of running out of it.
        writer
            .start_file(name.as_str(), options)
            .expect("zip entry header written to memory");
        writer.write_all(data).expect("zip entry written to memory");
    }
    writer.finish().expect("zip written to memory").into_inner()
}

fn comic_info(meta: &BookMeta, series: &SeriesMeta, pages: u32) -> String {
    format!(
        "<?xml version=\"1.0\" encoding=\"utf-8\"?>\n\
         <ComicInfo xmlns:xsd=\"http://www.w3.org/2001/XMLSchema\" xmlns:xsi=\"http://www.w3.org/2001/XMLSchema-instance\">\n\
         \x20 <Title>{}</Title>\n\
         \x20 <Series>{}</Series>\n\
         \x20 <Number>{}</Number>\n\
         \x20 <Year>{}</Year>\n\
         \x20 <Writer>{}</Writer>\n\
         \x20 <Summary>{}</Summary>\n\
         \x20 <PageCount>{}</PageCount>\n\
         </ComicInfo>\n",
        xml_escape(&meta.title),
        xml_escape(&series.name),
        meta.number,
        meta.issued_year,
        xml_escape(&meta.author),
        xml_escape(&meta.summary),
        pages
    )
}

fn paragraph(rng: &mut Rng) -> String {
    let words = 30 + rng.below(40);
    let mut text = String::new();
    let mut sentence_start = true;
    for i in 0..words {
        let word = *rng.pick(&WORDS);
        if sentence_start {
            let mut chars = word.chars();
            if let Some(first) = chars.next() {
                text.extend(first.to_uppercase());
                text.push_str(chars.as_str());
            }
            sentence_start = false;
        } else {
            text.push_str(word);
        }
        if i + 1 == words || rng.below(9) == 0 {
            text.push('.');
            sentence_start = true;
        }
        if i + 1 != words {
            text.push(' ');
        }
    }
    text
}

fn epub(meta: &BookMeta, series: &SeriesMeta, seed: u64, revision: u32, cover: &[u8]) -> Vec<u8> {
    let title = xml_escape(&meta.title);
    let modified = rfc3339(meta.modified(revision));
    let mut rng = Rng::derive(&[seed, 0xE9B, u64::from(meta.id)]);
    let mut chapters = Vec::new();
    for c in 1..=meta.chapters {
        let mut body = String::new();
        for _ in 0..4 + rng.below(4) {
            body.push_str(&format!("    <p>{}</p>\n", paragraph(&mut rng)));
        }
        if c == 1 && revision > 0 {
            for r in 1..=revision.min(64) {
                body.push_str(&format!(
                    "    <p class=\"note\">Revised text, edition {}.</p>\n",
                    r + 1
                ));
            }
        }
        chapters.push(format!(
            "<?xml version=\"1.0\" encoding=\"utf-8\"?>\n\
             <!DOCTYPE html>\n\
             <html xmlns=\"http://www.w3.org/1999/xhtml\" xmlns:epub=\"http://www.idpf.org/2007/ops\" lang=\"en\" xml:lang=\"en\">\n\
             <head><title>{title} – Chapter {c}</title></head>\n\
             <body>\n  <section epub:type=\"chapter\">\n    <h1>Chapter {c}</h1>\n{body}  </section>\n</body>\n</html>\n"
        ));
    }
    let container = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n\
        <container version=\"1.0\" xmlns=\"urn:oasis:names:tc:opendocument:xmlns:container\">\n\
        \x20 <rootfiles>\n\
        \x20   <rootfile full-path=\"OEBPS/content.opf\" media-type=\"application/oebps-package+xml\"/>\n\
        \x20 </rootfiles>\n\
        </container>\n";
    let mut manifest = String::from(
        "    <item id=\"nav\" href=\"nav.xhtml\" media-type=\"application/xhtml+xml\" properties=\"nav\"/>\n\
         \x20   <item id=\"cover\" href=\"cover.png\" media-type=\"image/png\" properties=\"cover-image\"/>\n",
    );
    let mut spine = String::new();
    let mut nav_items = String::new();
    for c in 1..=meta.chapters {
        manifest.push_str(&format!(
            "    <item id=\"chapter-{c}\" href=\"chapter-{c}.xhtml\" media-type=\"application/xhtml+xml\"/>\n"
        ));
        spine.push_str(&format!("    <itemref idref=\"chapter-{c}\"/>\n"));
        nav_items.push_str(&format!(
            "      <li><a href=\"chapter-{c}.xhtml\">Chapter {c}</a></li>\n"
        ));
    }
    let opf = format!(
        "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n\
         <package xmlns=\"http://www.idpf.org/2007/opf\" version=\"3.0\" unique-identifier=\"book-id\">\n\
         \x20 <metadata xmlns:dc=\"http://purl.org/dc/elements/1.1/\">\n\
         \x20   <dc:identifier id=\"book-id\">urn:carrel-fixture:book:{id}</dc:identifier>\n\
         \x20   <dc:title>{title}</dc:title>\n\
         \x20   <dc:creator>{author}</dc:creator>\n\
         \x20   <dc:language>en</dc:language>\n\
         \x20   <dc:date>{year}</dc:date>\n\
         \x20   <dc:description>{summary}</dc:description>\n\
         \x20   <meta property=\"dcterms:modified\">{modified}</meta>\n\
         \x20   <meta property=\"belongs-to-collection\" id=\"series\">{series}</meta>\n\
         \x20   <meta refines=\"#series\" property=\"collection-type\">series</meta>\n\
         \x20   <meta refines=\"#series\" property=\"group-position\">{number}</meta>\n\
         \x20 </metadata>\n\
         \x20 <manifest>\n{manifest}  </manifest>\n\
         \x20 <spine>\n{spine}  </spine>\n\
         </package>\n",
        id = meta.id,
        author = xml_escape(&meta.author),
        year = meta.issued_year,
        summary = xml_escape(&meta.summary),
        series = xml_escape(&series.name),
        number = meta.number,
    );
    let nav = format!(
        "<?xml version=\"1.0\" encoding=\"utf-8\"?>\n\
         <!DOCTYPE html>\n\
         <html xmlns=\"http://www.w3.org/1999/xhtml\" xmlns:epub=\"http://www.idpf.org/2007/ops\" lang=\"en\" xml:lang=\"en\">\n\
         <head><title>{title}</title></head>\n\
         <body>\n  <nav epub:type=\"toc\" id=\"toc\">\n    <h1>Contents</h1>\n    <ol>\n{nav_items}    </ol>\n  </nav>\n</body>\n</html>\n"
    );
    let mut entries: Vec<(String, &[u8])> = vec![
        ("mimetype".to_string(), b"application/epub+zip".as_slice()),
        ("META-INF/container.xml".to_string(), container.as_bytes()),
        ("OEBPS/content.opf".to_string(), opf.as_bytes()),
        ("OEBPS/nav.xhtml".to_string(), nav.as_bytes()),
        ("OEBPS/cover.png".to_string(), cover),
    ];
    for (i, chapter) in chapters.iter().enumerate() {
        entries.push((format!("OEBPS/chapter-{}.xhtml", i + 1), chapter.as_bytes()));
    }
    zip_files(&entries, meta.modified(revision))
}

/// Books already built in this process, shared by every server in it: the bytes depend only on
/// the key, and tests start many servers with the same seed.
static SHARED: Mutex<Option<SharedCache>> = Mutex::new(None);
const SHARED_LIMIT: usize = 256 * 1024 * 1024;

#[derive(Default)]
struct SharedCache {
    books: HashMap<String, Arc<BuiltBook>>,
    bytes: usize,
}

/// Builds a book, or reuses identical bytes built earlier in this process.
pub(crate) fn build_shared(
    catalog: &Catalog,
    meta: &BookMeta,
    seed: u64,
    revision: u32,
    page_bytes: usize,
) -> Arc<BuiltBook> {
    let series = catalog
        .series(meta.series_id)
        .map(|s| s.name.as_str())
        .unwrap_or("");
    let key = format!("{seed}/{page_bytes}/{revision}/{series}/{meta:?}");
    if let Some(found) = lock(&SHARED)
        .as_ref()
        .and_then(|c| c.books.get(&key).cloned())
    {
        return found;
    }
    let built = Arc::new(build(catalog, meta, seed, revision, page_bytes));
    let size = built.file.len() + built.pages.iter().map(Bytes::len).sum::<usize>();
    let mut shared = lock(&SHARED);
    let cache = shared.get_or_insert_with(SharedCache::default);
    if cache.bytes + size > SHARED_LIMIT {
        cache.books.clear();
        cache.bytes = 0;
    }
    if size <= SHARED_LIMIT / 4 {
        cache.bytes += size;
        cache.books.insert(key, built.clone());
    }
    built
}

/// A built book whose file is `file` instead (its pages, cover and revision kept).
pub(crate) fn with_file(built: &BuiltBook, file: &[u8]) -> BuiltBook {
    BuiltBook {
        revision: built.revision,
        file: Bytes::copy_from_slice(file),
        pages: Vec::new(),
        cover: built.cover.clone(),
        thumbnail: built.thumbnail.clone(),
        etag: format!("\"g-r{}-{:08x}\"", built.revision, crc32fast::hash(file)),
    }
}

pub(crate) fn build(
    catalog: &Catalog,
    meta: &BookMeta,
    seed: u64,
    revision: u32,
    page_bytes: usize,
) -> BuiltBook {
    let series = catalog
        .series(meta.series_id)
        .cloned()
        .unwrap_or_else(|| SeriesMeta {
            id: 0,
            name: String::new(),
            author: meta.author.clone(),
        });
    let cover = cover_png(meta, revision, 100, 150);
    let thumbnail = cover_png(meta, revision, 40, 60);
    let (file, pages) = match meta.kind {
        BookKind::Comic => {
            let pages: Vec<Vec<u8>> = (0..meta.pages)
                .map(|i| page_png(meta, seed, revision, i, page_bytes))
                .collect();
            let digits = meta.pages.to_string().len().max(3);
            let info = comic_info(meta, &series, meta.pages);
            let mut entries: Vec<(String, &[u8])> = pages
                .iter()
                .enumerate()
                .map(|(i, p)| (format!("{:0digits$}.png", i + 1), p.as_slice()))
                .collect();
            entries.push(("ComicInfo.xml".to_string(), info.as_bytes()));
            let file = zip_files(&entries, meta.modified(revision));
            (file, pages.into_iter().map(Bytes::from).collect())
        }
        BookKind::Epub => (epub(meta, &series, seed, revision, &cover), Vec::new()),
    };
    let etag = format!(
        "\"b{}-r{}-{:08x}\"",
        meta.id,
        revision,
        crc32fast::hash(&file)
    );
    BuiltBook {
        revision,
        file: Bytes::from(file),
        pages,
        cover: Bytes::from(cover),
        thumbnail: Bytes::from(thumbnail),
        etag,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn page_dimensions_track_the_requested_size() {
        for target in [2_000usize, 40 * 1024, 200_000] {
            let (w, h) = page_dimensions(target);
            let len = encoded_len(w, h) as f64;
            let ratio = len / target as f64;
            assert!((0.9..1.1).contains(&ratio), "{target}: {w}x{h} -> {len}");
        }
    }

    #[test]
    fn catalog_mixes_kinds_and_numbers_series() {
        let cat = Catalog::generate(7, 12, &BTreeMap::new());
        let epubs = cat
            .books
            .iter()
            .filter(|b| b.kind == BookKind::Epub)
            .count();
        assert_eq!(epubs, 4);
        for b in &cat.books {
            let s = cat.series(b.series_id).unwrap();
            assert!(b.title.starts_with(&s.name), "{} / {}", b.title, s.name);
            if b.kind == BookKind::Comic {
                assert!((8..=60).contains(&b.pages));
            }
        }
        let forced = Catalog::generate(7, 12, &BTreeMap::from([(3, 60)]));
        assert_eq!(forced.book(3).unwrap().kind, BookKind::Comic);
        assert_eq!(forced.book(3).unwrap().pages, 60);
    }
}
