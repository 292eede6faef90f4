//! What kind of image a page or cover really is, from its first bytes, and how large its
//! header says it is. Servers often declare `image/jpeg` for every page whatever the archive
//! holds, so callers trust this over the declared type; an image claiming more than
//! [`MAX_IMAGE_PIXELS`] is never handed to a window ([`image_for_window`], which every page and
//! cover passes). Does not decode images.

/// The media type of an image from its magic bytes: PNG, JPEG, GIF, WebP, AVIF, HEIF/HEIC, BMP
/// and JPEG XL. `None` when the bytes are none of these (or too short to tell).
pub fn sniff_image_type(bytes: &[u8]) -> Option<&'static str> {
    if bytes.starts_with(b"\x89PNG\r\n\x1a\n") {
        return Some("image/png");
    }
    if bytes.starts_with(&[0xFF, 0xD8, 0xFF]) {
        return Some("image/jpeg");
    }
    if bytes.starts_with(b"GIF87a") || bytes.starts_with(b"GIF89a") {
        return Some("image/gif");
    }
    if bytes.len() >= 12 && &bytes[..4] == b"RIFF" && &bytes[8..12] == b"WEBP" {
        return Some("image/webp");
    }
    if bytes.starts_with(&[0xFF, 0x0A]) || bytes.starts_with(b"\0\0\0\x0cJXL \r\n\x87\n") {
        return Some("image/jxl");
    }
    if let Some(kind) = iso_media_image(bytes) {
        return Some(kind);
    }
    if is_bmp(bytes) {
        return Some("image/bmp");
    }
    None
}

/// AVIF and HEIF: an ISO base media file whose first box is `ftyp` with an image brand.
fn iso_media_image(bytes: &[u8]) -> Option<&'static str> {
    if bytes.len() < 16 || &bytes[4..8] != b"ftyp" {
        return None;
    }
    let box_len = u32::from_be_bytes([bytes[0], bytes[1], bytes[2], bytes[3]]) as usize;
    let box_end = box_len.clamp(16, bytes.len());
    let major = &bytes[8..12];
    // Compatible brands follow the major brand and the 4-byte minor version.
    let compatible = bytes[16..box_end].chunks_exact(4);
    let brands = std::iter::once(major).chain(compatible);
    let mut heif = false;
    for brand in brands {
        match brand {
            b"avif" | b"avis" => return Some("image/avif"),
            b"heic" | b"heix" | b"heim" | b"heis" | b"hevc" | b"hevx" => heif = true,
            b"mif1" | b"msf1" => heif = true,
            _ => {}
        }
    }
    if heif {
        Some(if matches!(major, b"heic" | b"heix" | b"heim" | b"heis") {
            "image/heic"
        } else {
            "image/heif"
        })
    } else {
        None
    }
}

/// "BM", then a DIB header whose size is one of the known BMP header sizes.
fn is_bmp(bytes: &[u8]) -> bool {
    if bytes.len() < 18 || !bytes.starts_with(b"BM") {
        return false;
    }
    let dib = u32::from_le_bytes([bytes[14], bytes[15], bytes[16], bytes[17]]);
    matches!(dib, 12 | 16 | 40 | 52 | 56 | 64 | 108 | 124)
}

/// The most pixels a page or cover handed to a window may declare: 100 million (a 10,000 ×
/// 10,000 scan; a printed comic page scanned at 600 dpi is about 35 million). Decoded, that is
/// 400 MB of RGBA in the window's process, the most one picture may cost it; a 10 MB PNG that
/// claims 50,000 × 50,000 would ask for 10 GB.
pub const MAX_IMAGE_PIXELS: u64 = 100_000_000;

/// An image whose header claims more than [`MAX_IMAGE_PIXELS`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
#[error("the image is {width}×{height} pixels, more than {} million", MAX_IMAGE_PIXELS / 1_000_000)]
pub struct TooManyPixels {
    pub width: u64,
    pub height: u64,
}

/// The media type of an image that may be handed to a window (as [`sniff_image_type`]), or
/// [`TooManyPixels`] when its header claims more than [`MAX_IMAGE_PIXELS`]: the one check every
/// page and cover passes before it is served, so nothing is decoded to find out.
pub fn image_for_window(bytes: &[u8]) -> Result<Option<&'static str>, TooManyPixels> {
    if let Some((width, height)) = image_dimensions(bytes) {
        if width.saturating_mul(height) > MAX_IMAGE_PIXELS {
            return Err(TooManyPixels { width, height });
        }
    }
    Ok(sniff_image_type(bytes))
}

/// The width and height an image's header declares (PNG, JPEG, GIF — its largest frame —,
/// WebP, AVIF and HEIF, JPEG XL, BMP), read without decoding anything. `None` when the bytes
/// are none of these or their header is cut short or malformed (a decoder refuses those).
pub fn image_dimensions(bytes: &[u8]) -> Option<(u64, u64)> {
    match sniff_image_type(bytes)? {
        "image/png" => png_size(bytes),
        "image/jpeg" => jpeg_size(bytes),
        "image/gif" => gif_size(bytes),
        "image/webp" => webp_size(bytes),
        "image/avif" | "image/heic" | "image/heif" => iso_image_size(bytes),
        "image/jxl" => jxl_size(bytes),
        "image/bmp" => bmp_size(bytes),
        _ => None,
    }
}

fn be16(b: &[u8], at: usize) -> Option<u64> {
    Some(u64::from(u16::from_be_bytes(
        b.get(at..at + 2)?.try_into().ok()?,
    )))
}

fn le16(b: &[u8], at: usize) -> Option<u64> {
    Some(u64::from(u16::from_le_bytes(
        b.get(at..at + 2)?.try_into().ok()?,
    )))
}

fn be32(b: &[u8], at: usize) -> Option<u64> {
    Some(u64::from(u32::from_be_bytes(
        b.get(at..at + 4)?.try_into().ok()?,
    )))
}

fn le24(b: &[u8], at: usize) -> Option<u64> {
    let b = b.get(at..at + 3)?;
    Some(u64::from(b[0]) | u64::from(b[1]) << 8 | u64::from(b[2]) << 16)
}

/// PNG: the IHDR chunk, always first.
fn png_size(b: &[u8]) -> Option<(u64, u64)> {
    (b.get(12..16)? == b"IHDR").then_some(())?;
    Some((be32(b, 16)?, be32(b, 20)?))
}

/// JPEG: the first start-of-frame segment, found by walking the segments before it.
fn jpeg_size(b: &[u8]) -> Option<(u64, u64)> {
    let mut at = 2;
    loop {
        if *b.get(at)? != 0xFF {
            return None;
        }
        while *b.get(at)? == 0xFF {
            at += 1;
        }
        let marker = b[at];
        at += 1;
        match marker {
            // Markers without a length.
            0x01 | 0xD0..=0xD7 => continue,
            // The image data or its end, and no frame header before: nothing declared.
            0xD9 | 0xDA => return None,
            _ => {}
        }
        let len = be16(b, at)? as usize;
        if len < 2 {
            return None;
        }
        if matches!(marker, 0xC0..=0xCF) && !matches!(marker, 0xC4 | 0xC8 | 0xCC) {
            let (height, width) = (be16(b, at + 3)?, be16(b, at + 5)?);
            // A height of 0 is left to a later segment (DNL), which decoders refuse.
            return (height > 0 && width > 0).then_some((width, height));
        }
        at += len;
    }
}

/// GIF: the logical screen, or a larger frame (decoders make room for the frame).
fn gif_size(b: &[u8]) -> Option<(u64, u64)> {
    let (mut width, mut height) = (le16(b, 6)?, le16(b, 8)?);
    let colors = |flags: u8| {
        if flags & 0x80 != 0 {
            3usize << ((flags & 7) + 1)
        } else {
            0
        }
    };
    let mut at = 13 + colors(*b.get(10)?);
    // Sub-blocks (a length byte, then that many bytes) up to an empty one; where they end.
    let sub_blocks = |mut at: usize| -> Option<usize> {
        loop {
            let len = *b.get(at)? as usize;
            at += 1 + len;
            if len == 0 {
                return Some(at);
            }
        }
    };
    // The frames are looked at as far as the bytes go: the screen alone when they are cut.
    while let Some(&block) = b.get(at) {
        match block {
            0x2C => {
                let (Some(left), Some(top), Some(w), Some(h), Some(&flags)) = (
                    le16(b, at + 1),
                    le16(b, at + 3),
                    le16(b, at + 5),
                    le16(b, at + 7),
                    b.get(at + 9),
                ) else {
                    break;
                };
                width = width.max(left + w);
                height = height.max(top + h);
                // The code size byte, then the image data.
                match sub_blocks(at + 10 + colors(flags) + 1) {
                    Some(next) => at = next,
                    None => break,
                }
            }
            0x21 => match sub_blocks(at + 2) {
                Some(next) => at = next,
                None => break,
            },
            _ => break,
        }
    }
    Some((width, height))
}

/// WebP: the first chunk — lossy (`VP8 `), lossless (`VP8L`) or extended (`VP8X`, the canvas).
fn webp_size(b: &[u8]) -> Option<(u64, u64)> {
    let data = b.get(20..)?;
    match b.get(12..16)? {
        b"VP8 " => {
            (data.get(3..6)? == [0x9D, 0x01, 0x2A]).then_some(())?;
            Some((le16(data, 6)? & 0x3FFF, le16(data, 8)? & 0x3FFF))
        }
        b"VP8L" => {
            (*data.first()? == 0x2F).then_some(())?;
            let bits = u32::from_le_bytes(data.get(1..5)?.try_into().ok()?);
            Some((
                u64::from(bits & 0x3FFF) + 1,
                u64::from((bits >> 14) & 0x3FFF) + 1,
            ))
        }
        b"VP8X" => Some((le24(data, 4)? + 1, le24(data, 7)? + 1)),
        _ => None,
    }
}

/// The boxes of an ISO base media file between `from` and `to`: (type, content start, end).
fn iso_boxes(
    b: &[u8],
    from: usize,
    to: usize,
) -> impl Iterator<Item = ([u8; 4], usize, usize)> + '_ {
    let to = to.min(b.len());
    let mut at = from;
    std::iter::from_fn(move || {
        let kind: [u8; 4] = b.get(at + 4..at + 8)?.try_into().ok()?;
        let (len, header) = match be32(b, at)? {
            0 => ((to - at) as u64, 8),
            1 => (
                u64::from_be_bytes(b.get(at + 8..at + 16)?.try_into().ok()?),
                16,
            ),
            n => (n, 8),
        };
        let end = at.checked_add(usize::try_from(len).ok()?)?;
        if len < header as u64 || end > to {
            return None;
        }
        let item = (kind, at + header, end);
        at = end;
        Some(item)
    })
}

/// AVIF and HEIF: the largest `ispe` (image spatial extent) among the item properties
/// (`meta` / `iprp` / `ipco`); a grid's is its whole picture.
fn iso_image_size(b: &[u8]) -> Option<(u64, u64)> {
    let inside =
        |kind: &[u8; 4], from: usize, to: usize| iso_boxes(b, from, to).find(|(k, _, _)| k == kind);
    // `meta` is a full box: a version and flags before its boxes.
    let (_, meta, meta_end) = inside(b"meta", 0, b.len())?;
    let (_, iprp, iprp_end) = inside(b"iprp", meta + 4, meta_end)?;
    let (_, ipco, ipco_end) = inside(b"ipco", iprp, iprp_end)?;
    iso_boxes(b, ipco, ipco_end)
        .filter(|(k, _, _)| k == b"ispe")
        .filter_map(|(_, at, _)| Some((be32(b, at + 4)?, be32(b, at + 8)?)))
        .reduce(|a, c| (a.0.max(c.0), a.1.max(c.1)))
}

/// JPEG XL: the size header that opens the codestream, bare or in its container's first
/// `jxlc` or `jxlp` box.
fn jxl_size(b: &[u8]) -> Option<(u64, u64)> {
    let code = if b.starts_with(&[0xFF, 0x0A]) {
        b
    } else {
        let (kind, at, end) =
            iso_boxes(b, 0, b.len()).find(|(k, _, _)| k == b"jxlc" || k == b"jxlp")?;
        // A partial codestream box starts with its index.
        b.get(if &kind == b"jxlp" { at + 4 } else { at }..end)?
    };
    (code.get(..2)? == [0xFF, 0x0A]).then_some(())?;
    let mut bits = Bits { b: code, at: 16 };
    let small = bits.take(1)? == 1;
    let dimension = |bits: &mut Bits| -> Option<u64> {
        if small {
            Some((bits.take(5)? + 1) * 8)
        } else {
            let width = [9, 13, 18, 30][bits.take(2)? as usize];
            Some(bits.take(width)? + 1)
        }
    };
    let height = dimension(&mut bits)?;
    let width = match bits.take(3)? {
        0 => dimension(&mut bits)?,
        ratio => {
            let (num, den) =
                [(1, 1), (12, 10), (4, 3), (3, 2), (16, 9), (5, 4), (2, 1)][ratio as usize - 1];
            height * num / den
        }
    };
    Some((width, height))
}

/// Bits read lowest first, as JPEG XL packs them.
struct Bits<'a> {
    b: &'a [u8],
    at: usize,
}

impl Bits<'_> {
    fn take(&mut self, n: usize) -> Option<u64> {
        let mut value = 0;
        for i in 0..n {
            let bit = (self.b.get(self.at / 8)? >> (self.at % 8)) & 1;
            value |= u64::from(bit) << i;
            self.at += 1;
        }
        Some(value)
    }
}

/// BMP: the DIB header's width and height (a negative height is a top-down picture).
fn bmp_size(b: &[u8]) -> Option<(u64, u64)> {
    if u32::from_le_bytes(b.get(14..18)?.try_into().ok()?) == 12 {
        return Some((le16(b, 18)?, le16(b, 20)?));
    }
    let width = i32::from_le_bytes(b.get(18..22)?.try_into().ok()?);
    let height = i32::from_le_bytes(b.get(22..26)?.try_into().ok()?);
    Some((
        u64::from(width.unsigned_abs()),
        u64::from(height.unsigned_abs()),
    ))
}

/// Made-up images for the tests of this crate and of the layers above (feature `test-support`).
#[cfg(any(test, feature = "test-support"))]
pub mod test_support {
    /// A PNG's signature, IHDR (`width`×`height`, 8-bit RGB) and a small IDAT: all a decoder
    /// needs to start allocating.
    pub fn png_header(width: u32, height: u32) -> Vec<u8> {
        fn chunk(out: &mut Vec<u8>, kind: &[u8; 4], data: &[u8]) {
            out.extend_from_slice(&(data.len() as u32).to_be_bytes());
            let start = out.len();
            out.extend_from_slice(kind);
            out.extend_from_slice(data);
            let crc = crc32(&out[start..]);
            out.extend_from_slice(&crc.to_be_bytes());
        }
        fn crc32(bytes: &[u8]) -> u32 {
            let mut crc = !0u32;
            for &b in bytes {
                crc ^= u32::from(b);
                for _ in 0..8 {
                    crc = if crc & 1 == 1 {
                        (crc >> 1) ^ 0xEDB8_8320
                    } else {
                        crc >> 1
                    };
                }
            }
            !crc
        }
        let mut out = b"\x89PNG\r\n\x1a\n".to_vec();
        let mut ihdr = width.to_be_bytes().to_vec();
        ihdr.extend_from_slice(&height.to_be_bytes());
        ihdr.extend_from_slice(&[8, 2, 0, 0, 0]);
        chunk(&mut out, b"IHDR", &ihdr);
        // A zlib stream of one stored block: the first row's filter byte and 1,000 zeros.
        let row = vec![0u8; 1001];
        let mut idat = vec![0x78, 0x01, 0x01];
        idat.extend_from_slice(&(row.len() as u16).to_le_bytes());
        idat.extend_from_slice(&(!(row.len() as u16)).to_le_bytes());
        idat.extend_from_slice(&row);
        idat.extend_from_slice(&0x03e9_0001u32.to_be_bytes());
        chunk(&mut out, b"IDAT", &idat);
        out
    }
}

#[cfg(test)]
mod tests {
    use super::test_support::png_header;
    use super::*;

    fn ftyp(major: &[u8; 4], compatible: &[&[u8; 4]]) -> Vec<u8> {
        let len = 16 + 4 * compatible.len();
        let mut out = (len as u32).to_be_bytes().to_vec();
        out.extend_from_slice(b"ftyp");
        out.extend_from_slice(major);
        out.extend_from_slice(&[0, 0, 0, 0]);
        for brand in compatible {
            out.extend_from_slice(*brand);
        }
        out.extend_from_slice(b"\0\0\0\x08meta");
        out
    }

    #[test]
    fn opds_sniffs_common_page_formats() {
        assert_eq!(
            sniff_image_type(b"\x89PNG\r\n\x1a\n\0\0\0\rIHDR"),
            Some("image/png")
        );
        assert_eq!(
            sniff_image_type(&[0xFF, 0xD8, 0xFF, 0xE0, 0, 0x10]),
            Some("image/jpeg")
        );
        assert_eq!(sniff_image_type(b"GIF89a\x01\0\x01\0"), Some("image/gif"));
        assert_eq!(
            sniff_image_type(b"RIFF\x24\0\0\0WEBPVP8 "),
            Some("image/webp")
        );
        assert_eq!(sniff_image_type(&[0xFF, 0x0A, 0xFA]), Some("image/jxl"));
        let mut bmp = b"BM\x36\0\0\0\0\0\0\0\x36\0\0\0".to_vec();
        bmp.extend_from_slice(&40u32.to_le_bytes());
        assert_eq!(sniff_image_type(&bmp), Some("image/bmp"));
    }

    #[test]
    fn opds_sniffs_avif_and_heif_brands() {
        assert_eq!(
            sniff_image_type(&ftyp(b"avif", &[b"mif1", b"miaf"])),
            Some("image/avif")
        );
        assert_eq!(
            sniff_image_type(&ftyp(b"mif1", &[b"avif"])),
            Some("image/avif")
        );
        assert_eq!(
            sniff_image_type(&ftyp(b"heic", &[b"mif1"])),
            Some("image/heic")
        );
        assert_eq!(
            sniff_image_type(&ftyp(b"mif1", &[b"heic"])),
            Some("image/heif")
        );
        // An MP4 video is an ISO media file too, but not an image.
        assert_eq!(sniff_image_type(&ftyp(b"isom", &[b"mp41"])), None);
    }

    #[test]
    fn opds_sniff_rejects_text_and_short_input() {
        assert_eq!(sniff_image_type(b""), None);
        assert_eq!(sniff_image_type(b"\xFF\xD8"), None);
        assert_eq!(sniff_image_type(b"BMW owners manual, page 1"), None);
        assert_eq!(
            sniff_image_type(b"<html><body>Not found</body></html>"),
            None
        );
        // A hostile ftyp length larger than the data must not panic.
        let mut odd = ftyp(b"mif1", &[b"avif"]);
        odd[..4].copy_from_slice(&u32::MAX.to_be_bytes());
        assert_eq!(sniff_image_type(&odd), Some("image/avif"));
        let mut short = ftyp(b"mif1", &[]);
        short[..4].copy_from_slice(&3u32.to_be_bytes());
        assert_eq!(sniff_image_type(&short[..16]), Some("image/heif"));
        assert_eq!(sniff_image_type(&short[..15]), None);
    }

    #[test]
    fn header_dimensions_of_each_known_type() {
        assert_eq!(image_dimensions(&png_header(640, 480)), Some((640, 480)));
        // JPEG: an APP0 segment, then SOF0 (precision, height, width).
        let jpeg = [
            0xFF, 0xD8, 0xFF, 0xE0, 0, 4, 0, 0, 0xFF, 0xC0, 0, 11, 8, 0x01, 0x2C, 0x00, 0xC8, 3, 1,
            0x22, 0,
        ];
        assert_eq!(image_dimensions(&jpeg), Some((200, 300)));
        // GIF: the logical screen.
        assert_eq!(
            image_dimensions(b"GIF89a\x10\x27\x20\x4e\0\0\0;"),
            Some((10_000, 20_000))
        );
        // WebP, lossy (VP8), lossless (VP8L) and extended (VP8X).
        let mut vp8 = b"RIFF\0\0\0\0WEBPVP8 \0\0\0\0\0\0\0\x9d\x01\x2a".to_vec();
        vp8.extend_from_slice(&[0x80, 0x02, 0xE0, 0x01]);
        assert_eq!(image_dimensions(&vp8), Some((640, 480)));
        let mut vp8l = b"RIFF\0\0\0\0WEBPVP8L\0\0\0\0\x2f".to_vec();
        // 14 bits of width - 1 (639), 14 bits of height - 1 (479), little-endian.
        let bits: u32 = 639 | (479 << 14);
        vp8l.extend_from_slice(&bits.to_le_bytes());
        assert_eq!(image_dimensions(&vp8l), Some((640, 480)));
        let mut vp8x = b"RIFF\0\0\0\0WEBPVP8X\x0a\0\0\0\0\0\0\0".to_vec();
        vp8x.extend_from_slice(&[0x4F, 0xC3, 0x00, 0x4F, 0xC3, 0x00]);
        assert_eq!(image_dimensions(&vp8x), Some((50_000, 50_000)));
        // BMP: width and height (negative: top-down) in its DIB header.
        let mut bmp = b"BM\x36\0\0\0\0\0\0\0\x36\0\0\0".to_vec();
        bmp.extend_from_slice(&40u32.to_le_bytes());
        bmp.extend_from_slice(&300i32.to_le_bytes());
        bmp.extend_from_slice(&(-200i32).to_le_bytes());
        assert_eq!(image_dimensions(&bmp), Some((300, 200)));
        // AVIF: the image's `ispe` property, inside meta/iprp/ipco.
        let mut avif = ftyp(b"avif", &[b"mif1"]);
        avif.truncate(avif.len() - 8);
        let ispe = [
            &20u32.to_be_bytes()[..],
            b"ispe",
            &[0; 4],
            &60_000u32.to_be_bytes(),
            &40_000u32.to_be_bytes(),
        ]
        .concat();
        let ipco = [&(8 + ispe.len() as u32).to_be_bytes()[..], b"ipco", &ispe].concat();
        let iprp = [&(8 + ipco.len() as u32).to_be_bytes()[..], b"iprp", &ipco].concat();
        let meta = [
            &(12 + iprp.len() as u32).to_be_bytes()[..],
            b"meta",
            &[0; 4],
            &iprp,
        ]
        .concat();
        avif.extend_from_slice(&meta);
        assert_eq!(image_dimensions(&avif), Some((60_000, 40_000)));
        // JPEG XL codestream: not small, height 1024 (Bits(13) selector), ratio 1:1.
        // Bits, lowest first: small=0, selector=01, height-1 (13 bits), ratio=001.
        let height_minus_1: u64 = 1023;
        let bits: u64 = (1 << 1) | (height_minus_1 << 3) | (1 << 16);
        let mut jxl = vec![0xFF, 0x0A];
        jxl.extend_from_slice(&bits.to_le_bytes()[..3]);
        assert_eq!(image_dimensions(&jxl), Some((1024, 1024)));
        // Too short or damaged: nothing declared.
        assert_eq!(image_dimensions(&png_header(1, 1)[..20]), None);
        assert_eq!(
            image_dimensions(&[0xFF, 0xD8, 0xFF, 0xE0, 0xFF, 0xFF]),
            None
        );
        assert_eq!(image_dimensions(b"<html>"), None);
    }

    #[test]
    fn an_image_declaring_more_than_the_cap_is_never_handed_to_a_window() {
        // 50,000 × 50,000 pixels in a file of about a kilobyte: 10 GB once decoded.
        let huge = png_header(50_000, 50_000);
        assert!(huge.len() < 2_000);
        assert_eq!(
            image_for_window(&huge),
            Err(TooManyPixels {
                width: 50_000,
                height: 50_000
            })
        );
        assert_eq!(
            image_for_window(&huge).unwrap_err().to_string(),
            "the image is 50000×50000 pixels, more than 100 million"
        );
        // At the cap and below, and bytes that are no image, pass as before.
        assert_eq!(
            image_for_window(&png_header(10_000, 10_000)),
            Ok(Some("image/png"))
        );
        assert_eq!(
            image_for_window(&png_header(1200, 1800)),
            Ok(Some("image/png"))
        );
        assert_eq!(image_for_window(b"<html>"), Ok(None));
        // A GIF whose one frame is far larger than its screen is as large as its frame.
        let mut gif = b"GIF89a\x01\0\x01\0\0\0\0".to_vec();
        gif.extend_from_slice(&[0x2C, 0, 0, 0, 0, 0x50, 0xC3, 0x50, 0xC3, 0]);
        gif.extend_from_slice(&[2, 1, 0, 0, 0x3B]);
        assert!(image_for_window(&gif).is_err());
    }
}
