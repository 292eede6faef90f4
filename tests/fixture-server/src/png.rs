//! A minimal PNG writer (8-bit RGB, no filtering, zlib "stored" blocks) and the drawings the
//! fixture books use. Stored blocks keep generation cheap and make the file size follow the image
//! size, which is what lets `page_bytes` choose how big a page download is.

use crate::util::Rng;

const SIGNATURE: [u8; 8] = [0x89, b'P', b'N', b'G', b'\r', b'\n', 0x1A, b'\n'];

fn adler32(data: &[u8]) -> u32 {
    const MOD: u32 = 65_521;
    let (mut a, mut b) = (1u32, 0u32);
    for block in data.chunks(5552) {
        for &x in block {
            a += u32::from(x);
            b += a;
        }
        a %= MOD;
        b %= MOD;
    }
    (b << 16) | a
}

fn chunk(out: &mut Vec<u8>, kind: &[u8; 4], data: &[u8]) {
    out.extend_from_slice(&(data.len() as u32).to_be_bytes());
    let mut crc = crc32fast::Hasher::new();
    crc.update(kind);
    crc.update(data);
    out.extend_from_slice(kind);
    out.extend_from_slice(data);
    out.extend_from_slice(&crc.finalize().to_be_bytes());
}

/// Wraps `raw` in a zlib stream made of stored (uncompressed) deflate blocks.
fn zlib_stored(raw: &[u8]) -> Vec<u8> {
    let blocks = raw.len().div_ceil(65_535).max(1);
    let mut out = Vec::with_capacity(raw.len() + blocks * 5 + 6);
    out.extend_from_slice(&[0x78, 0x01]);
    if raw.is_empty() {
        out.extend_from_slice(&[1, 0, 0, 0xFF, 0xFF]);
    }
    let mut pieces = raw.chunks(65_535).peekable();
    while let Some(piece) = pieces.next() {
        let last = pieces.peek().is_none();
        out.push(u8::from(last));
        let len = piece.len() as u16;
        out.extend_from_slice(&len.to_le_bytes());
        out.extend_from_slice(&(!len).to_le_bytes());
        out.extend_from_slice(piece);
    }
    out.extend_from_slice(&adler32(raw).to_be_bytes());
    out
}

/// An RGB image being drawn.
pub(crate) struct Canvas {
    pub(crate) width: u32,
    pub(crate) height: u32,
    pixels: Vec<u8>,
}

impl Canvas {
    pub(crate) fn new(width: u32, height: u32, fill: [u8; 3]) -> Self {
        let width = width.max(1);
        let height = height.max(1);
        let row: Vec<u8> = fill
            .iter()
            .copied()
            .cycle()
            .take(width as usize * 3)
            .collect();
        let mut pixels = Vec::with_capacity(row.len() * height as usize);
        for _ in 0..height {
            pixels.extend_from_slice(&row);
        }
        Canvas {
            width,
            height,
            pixels,
        }
    }

    pub(crate) fn rect(&mut self, x: u32, y: u32, w: u32, h: u32, colour: [u8; 3]) {
        let x0 = x.min(self.width) as usize;
        let x1 = x.saturating_add(w).min(self.width) as usize;
        let y1 = y.saturating_add(h).min(self.height);
        if x1 <= x0 {
            return;
        }
        let span: Vec<u8> = colour.iter().copied().cycle().take((x1 - x0) * 3).collect();
        let stride = self.width as usize * 3;
        for row in y.min(self.height)..y1 {
            let start = row as usize * stride + x0 * 3;
            self.pixels[start..start + span.len()].copy_from_slice(&span);
        }
    }

    /// Draws `text` (digits and `#` only; other characters leave a gap) with a 3x5 block font,
    /// centred, as large as fits in the box.
    pub(crate) fn digits_centered(&mut self, text: &str, top: u32, box_h: u32, colour: [u8; 3]) {
        const FONT: [u16; 11] = [
            0b111_101_101_101_111, // 0
            0b010_110_010_010_111, // 1
            0b111_001_111_100_111, // 2
            0b111_001_111_001_111, // 3
            0b101_101_111_001_001, // 4
            0b111_100_111_001_111, // 5
            0b111_100_111_101_111, // 6
            0b111_001_010_010_010, // 7
            0b111_101_111_101_111, // 8
            0b111_101_111_001_111, // 9
            0b101_111_101_111_101, // #
        ];
        let n = text.chars().count() as u32;
        if n == 0 {
            return;
        }
        let cells_w = n * 4 - 1;
        let scale = (self.width.saturating_sub(4) / cells_w)
            .min(box_h / 5)
            .max(1);
        let left = self.width.saturating_sub(cells_w * scale) / 2;
        let top = top + box_h.saturating_sub(5 * scale) / 2;
        for (i, ch) in text.chars().enumerate() {
            let glyph = match ch {
                '0'..='9' => FONT[(ch as u8 - b'0') as usize],
                '#' => FONT[10],
                _ => continue,
            };
            for gy in 0..5u32 {
                for gx in 0..3u32 {
                    let bit = 14 - (gy * 3 + gx);
                    if glyph >> bit & 1 == 1 {
                        self.rect(
                            left + (i as u32 * 4 + gx) * scale,
                            top + gy * scale,
                            scale,
                            scale,
                            colour,
                        );
                    }
                }
            }
        }
    }

    /// Adds deterministic noise: flips some of the low three bits of every channel.
    pub(crate) fn noise(&mut self, rng: &mut Rng) {
        const MASK: u64 = 0x0707_0707_0707_0707;
        let mut words = self.pixels.chunks_exact_mut(8);
        for word in &mut words {
            let mut v = [0u8; 8];
            v.copy_from_slice(word);
            let noisy = u64::from_le_bytes(v) ^ (rng.next_u64() & MASK);
            word.copy_from_slice(&noisy.to_le_bytes());
        }
        let tail = words.into_remainder();
        let bits = rng.next_u64().to_le_bytes();
        for (value, bit) in tail.iter_mut().zip(bits) {
            *value ^= bit & 7;
        }
    }

    /// Encodes the image, with an optional `tEXt` comment.
    pub(crate) fn encode(&self, comment: Option<&str>) -> Vec<u8> {
        let row_len = (self.width * 3) as usize;
        let mut raw = Vec::with_capacity((row_len + 1) * self.height as usize);
        for row in self.pixels.chunks_exact(row_len) {
            raw.push(0); // filter type: none
            raw.extend_from_slice(row);
        }
        let idat = zlib_stored(&raw);
        let mut out = Vec::with_capacity(idat.len() + 128);
        out.extend_from_slice(&SIGNATURE);
        let mut ihdr = Vec::with_capacity(13);
        ihdr.extend_from_slice(&self.width.to_be_bytes());
        ihdr.extend_from_slice(&self.height.to_be_bytes());
        ihdr.extend_from_slice(&[8, 2, 0, 0, 0]); // 8-bit, RGB, deflate, adaptive filters, no interlace
        chunk(&mut out, b"IHDR", &ihdr);
        if let Some(text) = comment {
            let mut data = b"Comment\0".to_vec();
            data.extend(text.bytes().filter(|b| b.is_ascii() && *b != 0));
            chunk(&mut out, b"tEXt", &data);
        }
        chunk(&mut out, b"IDAT", &idat);
        chunk(&mut out, b"IEND", &[]);
        out
    }
}

/// A picture of `width` × `height` coloured after `number`, with the number written across it
/// (an uncompressed PNG: its size follows its area), for callers that make book files of their
/// own.
pub fn numbered_png(width: u32, height: u32, number: u32) -> Vec<u8> {
    let hue = number.wrapping_mul(47) % 360;
    let mut canvas = Canvas::new(width, height, hue_colour(hue, 0.5, 0.6));
    canvas.rect(
        0,
        height / 8,
        width,
        height / 6,
        hue_colour(hue + 40, 0.3, 0.95),
    );
    let ink = hue_colour(hue + 180, 0.2, 0.98);
    canvas.digits_centered(&number.to_string(), height * 4 / 10, height / 4, ink);
    canvas.encode(None)
}

/// A colour from a hue (0..360) with fixed saturation and value.
pub(crate) fn hue_colour(hue: u32, saturation: f32, value: f32) -> [u8; 3] {
    let h = (hue % 360) as f32 / 60.0;
    let c = value * saturation;
    let x = c * (1.0 - ((h % 2.0) - 1.0).abs());
    let (r, g, b) = match h as u32 {
        0 => (c, x, 0.0),
        1 => (x, c, 0.0),
        2 => (0.0, c, x),
        3 => (0.0, x, c),
        4 => (x, 0.0, c),
        _ => (c, 0.0, x),
    };
    let m = value - c;
    [
        ((r + m) * 255.0).round() as u8,
        ((g + m) * 255.0).round() as u8,
        ((b + m) * 255.0).round() as u8,
    ]
}

/// Encoded size of an RGB image of these dimensions with no comment.
pub(crate) fn encoded_len(width: u32, height: u32) -> usize {
    let raw = (width as usize * 3 + 1) * height as usize;
    let blocks = raw.div_ceil(65_535).max(1);
    8 + 25 + (12 + 2 + blocks * 5 + raw + 4) + 12
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn adler_matches_reference_values() {
        assert_eq!(adler32(b""), 1);
        assert_eq!(adler32(b"Wikipedia"), 0x11E6_0398);
    }

    #[test]
    fn encoded_len_is_exact() {
        for (w, h) in [(1, 1), (20, 30), (95, 143), (200, 300)] {
            let c = Canvas::new(w, h, [1, 2, 3]);
            assert_eq!(c.encode(None).len(), encoded_len(w, h), "{w}x{h}");
        }
    }
}
