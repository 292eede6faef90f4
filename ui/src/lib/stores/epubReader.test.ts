import { describe, expect, it } from 'vitest';
import { EPUB_DEFAULTS, FONT_SIZE, flattenToc, parsePrefs, readerCss } from './epubReader.svelte';

describe('EPUB reader preferences', () => {
  it('keeps only valid stored choices', () => {
    expect(parsePrefs(null)).toEqual(EPUB_DEFAULTS);
    expect(parsePrefs({ flow: 'scrolled', theme: 'sepia', fontFamily: 'serif', fontSize: 120, lineHeight: 1.8, margin: 16 })).toEqual({
      flow: 'scrolled',
      theme: 'sepia',
      fontFamily: 'serif',
      fontSize: 120,
      lineHeight: 1.8,
      margin: 16,
    });
    const odd = parsePrefs({ flow: 'sideways', theme: 'neon', fontFamily: 'url(x)', fontSize: 9999, lineHeight: 'x', margin: -4 });
    expect(odd.flow).toBe('paginated');
    expect(odd.theme).toBe('light');
    expect(odd.fontFamily).toBe('original');
    expect(odd.fontSize).toBe(FONT_SIZE.max);
    expect(odd.lineHeight).toBe(EPUB_DEFAULTS.lineHeight);
    expect(odd.margin).toBe(0);
  });

  it('styles the book in the chosen theme, size and line height, loading nothing', () => {
    const dark = readerCss({ ...EPUB_DEFAULTS, theme: 'dark', fontSize: 130, lineHeight: 1.7, fontFamily: 'serif' });
    expect(dark).toContain('#16181d');
    expect(dark).toContain('font-size: 130%');
    expect(dark).toContain('line-height: 1.7');
    expect(dark).toContain('font-family: serif');
    expect(dark).not.toMatch(/url\(|@import/);
    expect(readerCss(EPUB_DEFAULTS)).not.toContain('font-family');
    expect(readerCss({ ...EPUB_DEFAULTS, theme: 'sepia' })).toContain('#f4ecd8');
  });
});

describe('the table of contents', () => {
  it('is flattened with depths, entries without a link skipped', () => {
    const toc = [
      { label: 'Part 1', href: 'p1.xhtml', subitems: [{ label: ' Chapter 1 ', href: 'c1.xhtml' }, { label: 'No link' }] },
      { label: '', href: 'c2.xhtml#x' },
      'junk',
    ];
    expect(flattenToc(toc)).toEqual([
      { label: 'Part 1', href: 'p1.xhtml', depth: 0 },
      { label: 'Chapter 1', href: 'c1.xhtml', depth: 1 },
      { label: 'Untitled', href: 'c2.xhtml#x', depth: 0 },
    ]);
    expect(flattenToc(undefined)).toEqual([]);
  });
});
