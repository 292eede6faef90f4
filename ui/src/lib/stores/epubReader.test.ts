import { beforeEach, describe, expect, it, vi } from 'vitest';

vi.mock('@tauri-apps/api/core', () => import('../../test/tauri'));

import { invoke } from '@tauri-apps/api/core';
import { backend, details, status } from '../../test/fixtures';
import type { BookFormat } from '../ipc';
import { resetStores } from '../../test/stores';
import { EPUB_DEFAULTS, FONT_SIZE, epubReader, fileFailure, flattenToc, parsePrefs, readerCss } from './epubReader.svelte';
import { toasts } from './toasts.svelte';
import { reader } from './reader.svelte';
import { router } from './router.svelte';
import { details as detailsPanel } from './details.svelte';

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
      systemFont: null,
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

  it('sets an installed font first, the generic choice after it, and keeps no name a style sheet cannot quote', () => {
    expect(parsePrefs({ systemFont: 'DejaVu Serif' }).systemFont).toBe('DejaVu Serif');
    for (const hostile of ['Evil"; } body { display: none', "Quote's", 'Back\\slash', '.Hidden', ' Padded', 'Tab\tName', 'x'.repeat(101), 42, '']) {
      expect(parsePrefs({ systemFont: hostile }).systemFont).toBeNull();
    }
    const withGeneric = readerCss({ ...EPUB_DEFAULTS, fontFamily: 'serif', systemFont: 'DejaVu Serif' });
    expect(withGeneric).toContain('font-family: "DejaVu Serif", serif !important;');
    const alone = readerCss({ ...EPUB_DEFAULTS, systemFont: 'Liberation Sans' });
    expect(alone).toContain('font-family: "Liberation Sans" !important;');
    // A name that reached the preferences some other way is never written into the sheet.
    expect(readerCss({ ...EPUB_DEFAULTS, systemFont: 'x"; } * { color: red' })).not.toContain('font-family');
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

describe('the end of an EPUB', () => {
  /** At the book's end: a turn forward onto the card, and one more past it. */
  function turnPastTheEnd() {
    epubReader.turn('next', true);
    epubReader.turn('next', true);
  }

  const neighbour = (id: number, title: string) => ({ book_id: id, title, number: id - 6, finished: false, on_device: true, status: status(id, 'stored') });

  /** Dune (7) between 6 and 8; 8 is `nextFormat`, 6 an EPUB. */
  function series(nextFormat: BookFormat, neighbours: Record<string, unknown> = {}) {
    backend({
      book_details: ({ bookId }) =>
        bookId === 7 ? book : details(bookId as number, { title: `Dune ${(bookId as number) - 6}`, format: bookId === 8 ? nextFormat : 'epub', page_count: 12 }),
      epub_position: ({ bookId }) => (bookId === 7 ? own : null),
      take_server_position: null,
      save_epub_position: null,
      open_book: null,
      series_neighbours: { series: 'Dune', previous: neighbour(6, 'Dune 0'), next: neighbour(8, 'Dune 2'), ...neighbours },
    });
  }

  async function openAtReady() {
    router.go({ view: 'server', serverId: 1 });
    await epubReader.open(7);
    epubReader.loaded([]);
    await vi.waitFor(() => expect(epubReader.neighbours).not.toBeNull());
  }

  beforeEach(() => {
    resetStores();
    vi.mocked(invoke).mockReset();
  });

  it('turns pages inside the book, and past its end shows the card offering the next book, saving the position', async () => {
    series('epub');
    await openAtReady();
    expect(epubReader.turn('next', false)).toBe(true);
    expect(epubReader.end).toBeNull();
    epubReader.relocated('epubcfi(/6/40!/4/2/1:0)', 1, 'The end');
    expect(epubReader.turn('next', true)).toBe(false);
    expect(epubReader.end).toBe('next');
    expect(epubReader.offered?.book_id).toBe(8);
    expect(vi.mocked(invoke)).toHaveBeenCalledWith('save_epub_position', expect.objectContaining({ bookId: 7, cfi: 'epubcfi(/6/40!/4/2/1:0)' }));
    // A turn back closes the card, the book where it was.
    expect(epubReader.turn('previous', false)).toBe(false);
    expect(epubReader.end).toBeNull();
  });

  it('opens the next EPUB in the EPUB reader on one more turn forward', async () => {
    series('epub');
    await openAtReady();
    turnPastTheEnd();
    await vi.waitFor(() => expect(epubReader.bookId).toBe(8));
    expect(epubReader.end).toBeNull();
    expect(router.route).toEqual({ view: 'epub', bookId: 8 });
  });

  it('opens a comic offered in the comic reader, the previous one at its last page', async () => {
    backend({
      book_details: ({ bookId }) => (bookId === 7 ? book : details(bookId as number, { title: 'Dune comic', page_count: 12, last_page: 2 })),
      epub_position: own,
      take_server_position: null,
      save_epub_position: null,
      open_book: null,
      save_position: null,
      series_neighbours: { series: 'Dune', previous: neighbour(6, 'Dune comic'), next: null },
    });
    await openAtReady();
    expect(epubReader.turn('previous', true)).toBe(false);
    expect(epubReader.end).toBe('previous');
    // One more turn back opens the book before.
    epubReader.turn('previous', false);
    await vi.waitFor(() => expect(reader.phase).toBe('ready'));
    expect(reader.bookId).toBe(6);
    expect(reader.index).toBe(11);
    expect(epubReader.bookId).toBeNull();
    // Esc in the comic reader goes back where the EPUB was opened from.
    reader.close();
    expect(router.route).toEqual({ view: 'server', serverId: 1 });
  });

  it('shows a book no reader shows in its details, and closes a card with nothing to offer', async () => {
    series('other', { previous: null });
    backend({
      book_details: ({ bookId }) => (bookId === 7 ? book : { ...details(bookId as number), reader: 'other' }),
      epub_position: own,
      take_server_position: null,
      save_epub_position: null,
      series_neighbours: { series: 'Dune', previous: null, next: neighbour(8, 'Dune 2') },
    });
    await openAtReady();
    epubReader.turn('previous', true);
    expect(epubReader.offered).toBeNull();
    epubReader.turn('next', false);
    expect(epubReader.end).toBeNull();
    turnPastTheEnd();
    await vi.waitFor(() => expect(detailsPanel.bookId).toBe(8));
    expect(epubReader.bookId).toBeNull();
    expect(router.route).toEqual({ view: 'server', serverId: 1 });
  });

  it('shows no card before the book is on screen', async () => {
    series('epub');
    await epubReader.open(7);
    expect(epubReader.turn('next', true)).toBe(true);
    expect(epubReader.end).toBeNull();
  });
});

describe('a book file that could not be fetched', () => {
  it('is not on the device when its reply is of kind not_downloaded, whatever the message', () => {
    expect(fileFailure({ kind: 'not_downloaded', message: 'anything' }, 504).message).toBe(
      'This book is not on the device and the server cannot be reached.',
    );
  });

  it('says the status for any other kind, even with the old offline text', () => {
    expect(fileFailure({ kind: 'server', message: 'offline-not-downloaded' }, 504).message).toBe('The book could not be opened (504).');
  });
});
