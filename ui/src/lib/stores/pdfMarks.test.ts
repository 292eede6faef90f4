import { describe, expect, it } from 'vitest';
import { PdfMarks } from './pdfMarks.svelte';
import { searchPages } from '../pdfText';

describe('PdfMarks', () => {
  it('knows the places found on each page and which one is shown', async () => {
    const marks = new PdfMarks();
    const texts = ['a word', 'no', 'word and word'];
    marks.search.begin('1');
    await marks.search.run('word', (q) => searchPages(3, q, async (p) => ({ text: texts[p]!, runs: [] }), (p) => `Page ${p + 1}`));
    expect(marks.search.hits.map((h) => h.chapter)).toEqual(['Page 1', 'Page 3', 'Page 3']);
    expect(marks.current).toBeNull();
    marks.search.next();
    marks.search.next();
    expect(marks.current).toEqual({ page: 2, start: 0, end: 4 });
    expect(marks.foundOn(2).map((f) => f.current)).toEqual([true, false]);
    expect(marks.foundOn(1)).toEqual([]);
    marks.reset();
    expect(marks.search.open).toBe(false);
    expect(marks.foundOn(2)).toEqual([]);
  });
});
