import { describe, expect, it } from 'vitest';
import { boxesOf, excerptOf, findAll, pageTextOf, parsePlace, placeString, quoteOf, searchPages, type PageText } from './pdfText';

/** A page 200 × 100 points, as pdf.js's viewport at scale 1 gives it (y turned down). */
const viewport = { transform: [1, 0, 0, -1, 0, 100], width: 200, height: 100 };

/** A run of `str` at (x, baseline y) in PDF points, `size` high, `width` wide. */
const item = (str: string, x: number, y: number, size: number, width: number, hasEOL = false) => ({
  str,
  transform: [size, 0, 0, size, x, y],
  width,
  height: size,
  hasEOL,
});

describe('pageTextOf', () => {
  it('joins the runs into the page text and places each run on the page in fractions', () => {
    const page = pageTextOf(
      [item('Page 1', 20, 80, 10, 60, true), { type: 'beginMarkedContent' } as never, item('of 6', 100, 30, 10, 40)],
      viewport,
    );
    expect(page.text).toBe('Page 1\nof 6');
    expect(page.runs.map((r) => r.start)).toEqual([0, 7]);
    const first = page.runs[0]!.box;
    expect(first.x).toBeCloseTo(0.1);
    // The baseline is 80 points up a 100-point page: the run's top is 30 points from the top.
    expect(first.y).toBeCloseTo(0.1);
    expect(first.width).toBeCloseTo(0.3);
    expect(first.height).toBeCloseTo(0.1);
  });

  it('keeps no run for empty text or a page without a size', () => {
    expect(pageTextOf([item('', 0, 0, 10, 0)], viewport).runs).toEqual([]);
    expect(pageTextOf([item('a', 0, 0, 10, 5)], { ...viewport, width: 0 }).runs).toEqual([]);
  });
});

describe('findAll', () => {
  it('finds every place without case, spaces matching any white space', () => {
    expect(findAll('Page one, page two; PAGE', 'page')).toEqual([
      [0, 4],
      [10, 14],
      [20, 24],
    ]);
    expect(findAll('the old\nman', 'old man')).toEqual([[4, 11]]);
    expect(findAll('a.b axb', 'a.b')).toEqual([[0, 3]]);
    expect(findAll('anything', '   ')).toEqual([]);
  });
});

describe('excerptOf', () => {
  it('gives the words around a place on one line, cut with an ellipsis', () => {
    const text = 'x'.repeat(50) + ' the\nword here ' + 'y'.repeat(50);
    const start = text.indexOf('word');
    const got = excerptOf(text, start, start + 4, 10);
    expect(got.match).toBe('word');
    expect(got.pre.startsWith('…')).toBe(true);
    expect(got.pre).not.toContain('\n');
    expect(got.post.endsWith('…')).toBe(true);
  });
});

describe('boxesOf', () => {
  const page: PageText = {
    text: 'Hello world\nNext',
    runs: [
      { start: 0, text: 'Hello ', box: { x: 0.1, y: 0.1, width: 0.3, height: 0.05 } },
      { start: 6, text: 'world', box: { x: 0.4, y: 0.1, width: 0.25, height: 0.05 } },
      { start: 12, text: 'Next', box: { x: 0.1, y: 0.2, width: 0.2, height: 0.05 } },
    ],
  };

  it('covers the share of each run a range takes, joining runs on one line', () => {
    const [box] = boxesOf(page, 6, 11);
    expect(box!.x).toBeCloseTo(0.4);
    expect(box!.width).toBeCloseTo(0.25);
    const joined = boxesOf(page, 0, 11);
    expect(joined).toHaveLength(1);
    expect(joined[0]!.width).toBeCloseTo(0.55);
    const lines = boxesOf(page, 8, 14);
    expect(lines).toHaveLength(2);
    expect(lines[1]!.y).toBeCloseTo(0.2);
  });

  it('keeps boxes within the page', () => {
    const wide: PageText = { text: 'ab', runs: [{ start: 0, text: 'ab', box: { x: 0.9, y: 0.98, width: 0.4, height: 0.1 } }] };
    const [box] = boxesOf(wide, 0, 2);
    expect(box!.x + box!.width).toBeLessThanOrEqual(1);
    expect(box!.y + box!.height).toBeLessThanOrEqual(1);
  });
});

describe('places', () => {
  it('are written page:start:end and read back; anything else is no place', () => {
    expect(parsePlace(placeString({ page: 3, start: 5, end: 9 }))).toEqual({ page: 3, start: 5, end: 9 });
    expect(parsePlace('epubcfi(/6/2)')).toBeNull();
    expect(parsePlace('1:9:2')).toBeNull();
  });

  it('a quote keeps the text with a little before and after', () => {
    expect(quoteOf('one two three', 4, 7, 3)).toEqual({ exact: 'two', prefix: 'ne ', suffix: ' th' });
    expect(quoteOf('two', 0, 3)).toEqual({ exact: 'two' });
  });
});

describe('searchPages', () => {
  it('reads the pages one at a time, yielding their places by page, skipping a page it cannot read', async () => {
    const texts = ['Page 1 of 3', 'unreadable', 'Page 3 of 3 page'];
    const read: number[] = [];
    const items = [];
    for await (const got of searchPages(
      3,
      'page',
      async (page) => {
        read.push(page);
        if (page === 1) throw new Error('damaged');
        return { text: texts[page]!, runs: [] };
      },
      (page) => `P${page + 1}`,
    ))
      items.push(got);
    expect(read).toEqual([0, 1, 2]);
    expect(items.at(-1)).toBe('done');
    const found = items.filter((i) => typeof i === 'object' && 'subitems' in i) as { label: string; subitems: { cfi: string }[] }[];
    expect(found.map((f) => f.label)).toEqual(['P1', 'P3']);
    expect(found.flatMap((f) => f.subitems.map((s) => s.cfi))).toEqual(['0:0:4', '2:0:4', '2:12:16']);
  });
});
