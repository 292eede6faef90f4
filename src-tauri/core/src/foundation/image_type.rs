//! What kind of image a page or cover really is, from its first bytes. Servers often declare
//! `image/jpeg` for every page whatever the archive holds, so callers trust this over the
//! declared type. Does not decode images.

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

#[cfg(test)]
mod tests {
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
}
