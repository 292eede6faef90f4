import { beforeEach, describe, expect, it, vi } from 'vitest';

vi.mock('@tauri-apps/api/core', () => import('../../test/tauri'));

import { invoke } from '@tauri-apps/api/core';
import { backend, details } from '../../test/fixtures';
import { resetStores } from '../../test/stores';
import { EPUB_DEFAULTS, FONT_SIZE, epubReader, flattenToc, parsePrefs, readerCss } from './epubReader.svelte';
import { toasts } from './toasts.svelte';

const book = details(7, { title: 'Dune', format: 'epub', page_count: null });
const own = { cfi: 'epubcfi(/6/4!/4/2/1:0)', fraction: 0.1, updatedAtMs: 1 };

describe('where an EPUB opens', () => {
  beforeEach(() => {
    resetStores();
    vi.mocked(invoke).mockReset();
  });

  it("starts at the server's newer CFI, read on another device", async () => {
    const theirs = { page: 0, progression: 0.62, cfi: 'epubcfi(/6/14!/4/2/1:0)', modified_ms: 2, source: 'progression' };
    backend({ book_details: book, epub_position: own, take_server_position: theirs });
    await epubReader.open(7);
    expect(await epubReader.startAt(1000)).toEqual({ cfi: 'epubcfi(/6/14!/4/2/1:0)', fraction: null });
    expect(epubReader.startCfi).toBe('epubcfi(/6/14!/4/2/1:0)');
    expect(toasts.list.map((t) => t.message)).toEqual(['Continued at 62%, where you left off on another device']);
  });

  it('goes by the fraction when the server knows no CFI', async () => {
    backend({
      book_details: book,
      epub_position: own,
      take_server_position: { page: 0, progression: 0.5, cfi: null, modified_ms: 2, source: 'progression' },
    });
    await epubReader.open(7);
    expect(await epubReader.startAt(1000)).toEqual({ cfi: null, fraction: 0.5 });
  });

  it("keeps this device's position when the server has nothing newer, fails, or is slow", async () => {
    backend({ book_details: book, epub_position: own, take_server_position: null });
    await epubReader.open(7);
    expect(await epubReader.startAt(1000)).toEqual({ cfi: own.cfi, fraction: null });

    backend({ book_details: book, epub_position: own, take_server_position: () => Promise.reject('offline') });
    await epubReader.open(7);
    expect(await epubReader.startAt(1000)).toEqual({ cfi: own.cfi, fraction: null });

    backend({ book_details: book, epub_position: own, take_server_position: () => new Promise(() => {}) });
    await epubReader.open(7);
    expect(await epubReader.startAt(20)).toEqual({ cfi: own.cfi, fraction: null });
    expect(toasts.list).toEqual([]);
  });
});

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
    expect(dark).toContain('--theme-bg-color: #16181d');
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
