/**
 * A PDF page's text as the PDF reader searches and highlights it: pdf.js's text items (each a
 * run of text with the matrix that places it) made into one string for the page, with where
 * each item sits on the page in fractions of its width and height (from its top left corner),
 * so a place in the text gives rectangles on the page at any zoom.
 *
 * A place in a PDF is written as `page:start:end` (0-based page, offsets in its text), so the
 * search panel shared with the EPUB reader keeps places as strings.
 */

/** A rectangle on a page, in fractions of its width and height, from its top left corner. */
export interface PageBox {
  x: number;
  y: number;
  width: number;
  height: number;
}

/** One run of text on the page: where it starts in the page's text, and its box. */
export interface TextRun {
  start: number;
  text: string;
  box: PageBox;
}

export interface PageText {
  /** The page's text: its runs one after the other, a space (or line break) where pdf.js marks one. */
  text: string;
  runs: TextRun[];
}

/** What pdf.js's `getTextContent` gives for one item (marked-content items have no `str`). */
export interface RawTextItem {
  str?: string;
  transform?: number[];
  width?: number;
  height?: number;
  hasEOL?: boolean;
}

/** `a × b` for PDF matrices `[a b c d e f]`. */
function times(m: readonly number[], n: readonly number[]): number[] {
  return [
    m[0]! * n[0]! + m[2]! * n[1]!,
    m[1]! * n[0]! + m[3]! * n[1]!,
    m[0]! * n[2]! + m[2]! * n[3]!,
    m[1]! * n[2]! + m[3]! * n[3]!,
    m[0]! * n[4]! + m[2]! * n[5]! + m[4]!,
    m[1]! * n[4]! + m[3]! * n[5]! + m[5]!,
  ];
}

/**
 * The page's text from pdf.js's items, with `viewport` (its `transform` at scale 1, and the
 * page's `width` and `height` in points) placing each run on the page.
 */
export function pageTextOf(items: readonly RawTextItem[], viewport: { transform: number[]; width: number; height: number }): PageText {
  const runs: TextRun[] = [];
  let text = '';
  const { width: pageWidth, height: pageHeight } = viewport;
  for (const item of items) {
    if (typeof item.str !== 'string') continue;
    if (item.str !== '' && Array.isArray(item.transform) && item.transform.length === 6 && pageWidth > 0 && pageHeight > 0) {
      const m = times(viewport.transform, item.transform);
      // The run's baseline starts at (e, f) on the page; its height is the font's.
      const fontHeight = Math.hypot(m[2]!, m[3]!) || Math.abs(item.height ?? 0);
      const angle = Math.atan2(m[1]!, m[0]!);
      const length = (item.width ?? 0) * (Math.hypot(viewport.transform[0]!, viewport.transform[1]!) || 1);
      // Text turned by a right angle keeps a box the right way round; other angles, the box
      // around the run's start.
      const cos = Math.cos(angle);
      const sin = Math.sin(angle);
      const x0 = m[4]!;
      const y0 = m[5]!;
      const corners = [
        [x0, y0],
        [x0 + length * cos, y0 + length * sin],
        [x0 + fontHeight * sin, y0 - fontHeight * cos],
        [x0 + length * cos + fontHeight * sin, y0 + length * sin - fontHeight * cos],
      ];
      const xs = corners.map((c) => c[0]!);
      const ys = corners.map((c) => c[1]!);
      const left = Math.min(...xs);
      const top = Math.min(...ys);
      runs.push({
        start: text.length,
        text: item.str,
        box: {
          x: left / pageWidth,
          y: top / pageHeight,
          width: (Math.max(...xs) - left) / pageWidth,
          height: (Math.max(...ys) - top) / pageHeight,
        },
      });
    }
    text += item.str;
    if (item.hasEOL) text += '\n';
  }
  return { text, runs };
}

/** Text compared without case; each character keeps its place (one for one). */
function folded(text: string): string {
  let out = '';
  for (const ch of text) {
    const lower = ch.toLocaleLowerCase();
    // A character whose lower case is longer (rare) stays as it is, keeping the offsets.
    out += lower.length === ch.length ? lower : ch;
  }
  return out;
}

/** The places of `query` in `text` (without case, spaces as any white space), as [start, end). */
export function findAll(text: string, query: string): [number, number][] {
  const words = query.trim();
  if (words === '') return [];
  const escaped = folded(words)
    .split(/\s+/)
    .map((w) => w.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'))
    .join('\\s+');
  const pattern = new RegExp(escaped, 'g');
  const found: [number, number][] = [];
  const haystack = folded(text);
  for (let m = pattern.exec(haystack); m !== null; m = pattern.exec(haystack)) {
    if (m[0].length === 0) {
      pattern.lastIndex++;
      continue;
    }
    found.push([m.index, m.index + m[0].length]);
  }
  return found;
}

/** The words around `[start, end)`: up to `around` characters each side, on one line. */
export function excerptOf(text: string, start: number, end: number, around = 40): { pre: string; match: string; post: string } {
  const line = (s: string) => s.replace(/\s+/g, ' ');
  const from = Math.max(0, start - around);
  const to = Math.min(text.length, end + around);
  return {
    pre: (from > 0 ? '…' : '') + line(text.slice(from, start)).trimStart(),
    match: line(text.slice(start, end)),
    post: line(text.slice(end, to)).trimEnd() + (to < text.length ? '…' : ''),
  };
}

/**
 * The rectangles `[start, end)` of the page's text covers: a part of each run it touches (as a
 * share of the run's characters), runs on the same line joined.
 */
export function boxesOf(page: PageText, start: number, end: number): PageBox[] {
  const boxes: PageBox[] = [];
  for (const run of page.runs) {
    const runEnd = run.start + run.text.length;
    if (runEnd <= start || run.start >= end || run.text.length === 0) continue;
    const from = Math.max(start, run.start) - run.start;
    const to = Math.min(end, runEnd) - run.start;
    const share = run.box.width / run.text.length;
    const box = { x: run.box.x + from * share, y: run.box.y, width: (to - from) * share, height: run.box.height };
    const last = boxes[boxes.length - 1];
    const sameLine = last && Math.abs(last.y - box.y) < box.height / 2 && Math.abs(last.height - box.height) < box.height / 2;
    if (last && sameLine && box.x >= last.x - 1e-6 && box.x <= last.x + last.width + box.height) {
      const right = Math.max(last.x + last.width, box.x + box.width);
      const top = Math.min(last.y, box.y);
      const bottom = Math.max(last.y + last.height, box.y + box.height);
      boxes[boxes.length - 1] = { x: last.x, y: top, width: right - last.x, height: bottom - top };
    } else boxes.push(box);
  }
  // Kept within the page (fractions from 0 to 1).
  return boxes.map((b) => {
    const x = Math.min(1, Math.max(0, b.x));
    const y = Math.min(1, Math.max(0, b.y));
    return { x, y, width: Math.min(1 - x, Math.max(0, b.width)), height: Math.min(1 - y, Math.max(0, b.height)) };
  });
}

/** A place in a PDF: its page and an offset range in the page's text. */
export interface PdfPlace {
  page: number;
  start: number;
  end: number;
}

export function placeString(place: PdfPlace): string {
  return `${place.page}:${place.start}:${place.end}`;
}

export function parsePlace(text: string): PdfPlace | null {
  const m = /^(\d+):(\d+):(\d+)$/.exec(text);
  if (!m) return null;
  const [page, start, end] = [Number(m[1]), Number(m[2]), Number(m[3])];
  return end >= start ? { page, start, end } : null;
}

/** The search's items for pages `0..count` read by `textOf`, one page at a time: as foliate-js
 * yields them for an EPUB (`label` the page's name, `cfi` the place), so one panel shows both. */
export async function* searchPages(
  count: number,
  query: string,
  textOf: (page: number) => Promise<PageText>,
  labelOf: (page: number) => string,
): AsyncGenerator<
  { progress: number } | { label: string; subitems: { cfi: string; excerpt: { pre: string; match: string; post: string } }[] } | 'done'
> {
  for (let page = 0; page < count; page++) {
    let text: PageText;
    try {
      text = await textOf(page);
    } catch {
      // A page whose text cannot be read is skipped; the others are still searched.
      continue;
    }
    const found = findAll(text.text, query);
    if (found.length > 0) {
      yield {
        label: labelOf(page),
        subitems: found.map(([start, end]) => ({ cfi: placeString({ page, start, end }), excerpt: excerptOf(text.text, start, end) })),
      };
    }
    yield { progress: (page + 1) / count };
  }
  yield 'done';
}

/** The text of `[start, end)` with a few characters before and after, as a highlight keeps it. */
export function quoteOf(text: string, start: number, end: number, around = 32): { exact: string; prefix?: string; suffix?: string } {
  const exact = text.slice(start, end);
  const prefix = text.slice(Math.max(0, start - around), start);
  const suffix = text.slice(end, end + around);
  return { exact, ...(prefix ? { prefix } : {}), ...(suffix ? { suffix } : {}) };
}
