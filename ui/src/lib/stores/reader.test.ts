import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';

vi.mock('@tauri-apps/api/core', () => import('../../test/tauri'));
// pdf.js needs a real browser; these tests stop before a PDF is parsed.
vi.mock('../pdfPages.svelte', () => ({ PdfPages: { load: vi.fn() } }));

import { invoke } from '@tauri-apps/api/core';
import { backend, details, failingUntilMended, status } from '../../test/fixtures';
import { downloads } from './downloads.svelte';
import { resetStores } from '../../test/stores';
import { pageUrl } from '../ipc';
import { adjustmentFilter, reader, readerAction, readingDefaults, readingPrefs, SAVE_INTERVAL_MS, turnTowards, zoneAt } from './reader.svelte';
import { router } from './router.svelte';
import { toasts } from './toasts.svelte';

const invokeMock = vi.mocked(invoke);

const comic = details(12, { title: 'Akira 1', page_count: 60, last_page: 40 });

function saves(): unknown[] {
  return invokeMock.mock.calls.filter(([command]) => command === 'save_position').map(([, args]) => args);
}

function key(key: string, extra: Partial<KeyboardEvent> = {}) {
  return { key, shiftKey: false, ctrlKey: false, altKey: false, metaKey: false, ...extra };
}

beforeEach(() => {
  resetStores();
  invokeMock.mockReset();
  localStorage.clear();
  backend({ book_details: comic, open_book: null, save_position: null });
});

afterEach(() => {
  vi.useRealTimers();
});


/** Opens comic 12 (the backend answering `more` too) while the server's position is still on
 * its way; the returned function gives it. */
async function openedBeforeTheServerAnswers(more: Parameters<typeof backend>[0] = {}): Promise<(position: unknown) => void> {
  let answer!: (position: unknown) => void;
  backend({
    book_details: comic,
    open_book: null,
    ...more,
    take_server_position: () => new Promise((resolve) => (answer = resolve)),
  });
  await reader.open(12);
  return answer;
}
describe('opening', () => {
  it('starts at the last position, starts the download there and shows the reader', async () => {
    router.go({ view: 'server', serverId: 3 });
    await reader.open(12);
    expect(invokeMock).toHaveBeenCalledWith('book_details', { bookId: 12 });
    expect(invokeMock).toHaveBeenCalledWith('open_book', { bookId: 12, page: 40 });
    expect(router.route).toEqual({ view: 'reader', bookId: 12 });
    expect(reader.phase).toBe('ready');
    expect([reader.index, reader.pageCount, reader.title]).toEqual([40, 60, 'Akira 1']);
    expect(reader.url).toBe(pageUrl(12, 40));
    expect(reader.url).toBe(`carrel-page://localhost/${encodeURIComponent('12/40')}`);

    // Escape goes back where the reader came from.
    reader.close();
    expect(router.route).toEqual({ view: 'server', serverId: 3 });
    expect(reader.bookId).toBeNull();
  });

  it("moves to the server's newer page read on another device, and downloads from there", async () => {
    const answer = await openedBeforeTheServerAnswers();
    expect(reader.index).toBe(40); // shown at once, without waiting for the server
    answer({ page: 52, progression: 52 / 60, cfi: null, modified_ms: 1, source: 'progression' });
    await vi.waitFor(() => expect(reader.index).toBe(52));
    expect(invokeMock).toHaveBeenCalledWith('open_book', { bookId: 12, page: 52 });
    expect(toasts.list.map((t) => t.message)).toEqual(['Continued from page 53, where you left off on another device']);
  });

  it("keeps the reader's page when the reader zoomed in before the server answered", async () => {
    const answer = await openedBeforeTheServerAnswers();
    reader.setZoom(2);
    answer({ page: 52, progression: null, cfi: null, modified_ms: 1, source: 'progression' });
    await Promise.resolve();
    await Promise.resolve();
    expect([reader.index, reader.zoom]).toEqual([40, 2]);
    expect(toasts.list).toEqual([]);
  });

  it("keeps the reader's own page when a page was turned before the server answered", async () => {
    const answer = await openedBeforeTheServerAnswers({ save_position: null });
    reader.next();
    answer({ page: 52, progression: null, cfi: null, modified_ms: 1, source: 'read_progress' });
    await Promise.resolve();
    await Promise.resolve();
    expect(reader.index).toBe(41);
    expect(invokeMock).not.toHaveBeenCalledWith('open_book', { bookId: 12, page: 52 });
    expect(toasts.list).toEqual([]);
  });

  it('starts a book never opened at its first page', async () => {
    backend({ book_details: { ...comic, last_page: null }, open_book: null });
    await reader.open(12);
    expect(invokeMock).toHaveBeenCalledWith('open_book', { bookId: 12 });
    expect(reader.index).toBe(0);
  });

  it('keeps a position beyond the end inside the book', async () => {
    backend({ book_details: { ...comic, last_page: 99 }, open_book: null });
    await reader.open(12);
    expect(reader.index).toBe(59);
  });

  it('says why a book cannot be opened, and tries again', async () => {
    const book = failingUntilMended({ kind: 'not_found', message: 'no book with id 12 on this device' }, comic);
    backend({ book_details: book.answer, open_book: null });
    await reader.open(12);
    expect(reader.phase).toBe('error');
    expect(reader.error?.kind).toBe('not_found');
    book.mend();
    await reader.retry();
    expect(reader.phase).toBe('ready');
  });
});

describe('turning pages', () => {
  beforeEach(async () => {
    await reader.open(12);
  });

  it('moves within the book and never past its ends', () => {
    reader.next();
    expect(reader.index).toBe(41);
    reader.previous();
    reader.previous();
    expect(reader.index).toBe(39);
    reader.last();
    expect(reader.index).toBe(59);
    reader.next();
    expect(reader.index).toBe(59);
    expect(reader.atEnd).toBe(true);
    reader.first();
    reader.previous();
    expect(reader.index).toBe(0);
    expect(reader.atStart).toBe(true);
    reader.goTo(1000);
    expect(reader.index).toBe(59);
    reader.goTo(-5);
    expect(reader.index).toBe(0);
  });

  it('turns towards the right in left-to-right order and towards the left in manga order', () => {
    reader.turn('right');
    expect(reader.index).toBe(41);
    reader.turn('left');
    expect(reader.index).toBe(40);
    reader.setDirection('rtl');
    reader.turn('left');
    expect(reader.index).toBe(41);
    reader.turn('right');
    expect(reader.index).toBe(40);
  });

  it('fetches the next three pages ahead, nearest first, within the book', () => {
    expect(reader.preload).toEqual([41, 42, 43]);
    reader.goTo(58);
    expect(reader.preload).toEqual([59]);
    reader.last();
    expect(reader.preload).toEqual([]);
    // Manga order changes which side turns, not which pages come next.
    reader.setDirection('rtl');
    reader.first();
    expect(reader.preload).toEqual([1, 2, 3]);
    expect(reader.urlOf(1)).toBe(pageUrl(12, 1));
  });

  it('remembers fit and direction per book', async () => {
    reader.setFit('height');
    reader.setDirection('rtl');
    reader.close();
    await reader.open(12);
    expect([reader.fit, reader.direction]).toEqual(['height', 'rtl']);
    backend({ book_details: details(13, { page_count: 5 }), open_book: null });
    await reader.open(13);
    expect([reader.fit, reader.direction]).toEqual(['screen', 'ltr']);
  });
});

describe('two pages at a time', () => {
  beforeEach(async () => {
    backend({ book_details: details(12, { page_count: 8, last_page: null }), open_book: null, save_position: null });
    await reader.open(12);
    reader.setLayout('spread');
  });

  it('shows the cover alone, then turns by spread', () => {
    expect(reader.shown).toEqual([0]);
    reader.next();
    expect([reader.index, reader.shown]).toEqual([1, [1, 2]]);
    reader.next();
    expect(reader.shown).toEqual([3, 4]);
    reader.previous();
    expect(reader.shown).toEqual([1, 2]);
    reader.last();
    expect(reader.shown).toEqual([7]);
    expect(reader.preload).toEqual([]);
  });

  it('lands a page chosen on the slider on its spread, from the spread’s first page', () => {
    reader.goTo(4);
    expect([reader.index, reader.shown]).toEqual([3, [3, 4]]);
    expect(reader.preload).toEqual([5, 6, 7]);
  });

  it('shows a wide page alone once its shape is known, and pairs afresh after it', () => {
    reader.measured(3, 1200, 800);
    reader.measured(4, 800, 1200);
    reader.goTo(3);
    expect(reader.shown).toEqual([3]);
    reader.next();
    expect(reader.shown).toEqual([4, 5]);
  });

  it('turns by one page again in the other layouts', () => {
    reader.next();
    reader.setLayout('webtoon');
    reader.next();
    expect(reader.index).toBe(2);
    expect(reader.shown).toEqual([2]);
    reader.scrolledTo(6);
    expect(reader.index).toBe(6);
  });
});

describe('reading settings', () => {
  it('keeps the layout per book and starts other books with the defaults', async () => {
    await reader.open(12);
    reader.setLayout('webtoon');
    reader.close();
    await reader.open(12);
    expect(reader.layout).toBe('webtoon');
    backend({ book_details: details(13, { page_count: 5 }), open_book: null });
    await reader.open(13);
    expect([reader.fit, reader.direction, reader.layout]).toEqual(['screen', 'ltr', 'single']);
  });

  it('opens books not set otherwise as made default', async () => {
    await reader.open(12);
    reader.setLayout('spread');
    reader.setDirection('rtl');
    reader.setFit('screen');
    reader.makeDefault();
    expect(readingDefaults()).toEqual({ fit: 'screen', direction: 'rtl', layout: 'spread', offset: false, brightness: 100, contrast: 100, warmth: 0 });
    backend({ book_details: details(13, { page_count: 5 }), open_book: null });
    await reader.open(13);
    expect([reader.fit, reader.direction, reader.layout]).toEqual(['screen', 'rtl', 'spread']);
    // A book's own choice wins over the defaults, for what it chose.
    reader.setLayout('single');
    reader.close();
    await reader.open(13);
    expect([reader.fit, reader.direction, reader.layout]).toEqual(['screen', 'rtl', 'single']);
  });

  it('ignores settings that make no sense', async () => {
    localStorage.setItem('carrel.reader.defaults', JSON.stringify({ fit: 'huge', layout: 'spiral', direction: 'up' }));
    localStorage.setItem('carrel.reader.12', '{not json');
    await reader.open(12);
    expect([reader.fit, reader.direction, reader.layout]).toEqual(['screen', 'ltr', 'single']);
  });
});

describe('pages shifted by one', () => {
  const inSeries = (id: number, series: string | null) => details(id, { page_count: 8, last_page: null, series });

  beforeEach(() => {
    backend({ book_details: ({ bookId }) => inSeries(bookId as number, bookId === 30 ? null : 'Akira'), open_book: null, save_position: null });
  });

  it('pairs from page 2 with page 1 alone, and lands the page shown on its new spread', async () => {
    await reader.open(12);
    reader.setLayout('spread');
    reader.goTo(3);
    expect(reader.shown).toEqual([3, 4]);
    reader.setOffset(true);
    expect(reader.index).toBe(2);
    expect(reader.shown).toEqual([2, 3]);
    reader.first();
    reader.next();
    expect(reader.shown).toEqual([1]);
    reader.next();
    expect(reader.shown).toEqual([2, 3]);
  });

  it('is kept per book, and offered to the books of the same series without a choice of their own', async () => {
    await reader.open(12);
    reader.setOffset(true);
    reader.close();
    await reader.open(12);
    expect(reader.offset).toBe(true);
    // Another book of the series, never set: the series' choice.
    await reader.open(13);
    expect(reader.offset).toBe(true);
    expect(reader.series).toBe('Akira');
    // Its own choice wins, and becomes the series'.
    reader.setOffset(false);
    await reader.open(14);
    expect(reader.offset).toBe(false);
    await reader.open(12);
    expect(reader.offset).toBe(true);
    // A book in no series: the defaults.
    await reader.open(30);
    expect(reader.offset).toBe(false);
    expect(readingPrefs(15, 'Akira').offset).toBe(false);
    expect(readingPrefs(15, 'Other').offset).toBe(false);
  });
});

describe('image adjustments', () => {
  it('make the filter drawn over the pages, none when nothing is adjusted', () => {
    expect(adjustmentFilter({ brightness: 100, contrast: 100, warmth: 0 })).toBe('none');
    expect(adjustmentFilter({ brightness: 120, contrast: 100, warmth: 0 })).toBe('brightness(1.2)');
    expect(adjustmentFilter({ brightness: 90, contrast: 130, warmth: 50 })).toBe('brightness(0.9) contrast(1.3) sepia(0.3) hue-rotate(-5deg)');
  });

  it('stay within their ranges, are kept per book, reset, and made default with the rest', async () => {
    await reader.open(12);
    expect(reader.filter).toBe('none');
    reader.setAdjustments({ brightness: 400, warmth: -3 });
    expect(reader.adjustments).toEqual({ brightness: 150, contrast: 100, warmth: 0 });
    reader.setAdjustments({ brightness: 80, contrast: 110, warmth: 20 });
    reader.close();
    await reader.open(12);
    expect(reader.adjustments).toEqual({ brightness: 80, contrast: 110, warmth: 20 });
    expect(reader.filter).toBe('brightness(0.8) contrast(1.1) sepia(0.12) hue-rotate(-2deg)');
    reader.makeDefault();
    reader.resetAdjustments();
    expect(reader.filter).toBe('none');
    backend({ book_details: details(13, { page_count: 5 }), open_book: null });
    await reader.open(13);
    expect(reader.adjustments).toEqual({ brightness: 80, contrast: 110, warmth: 20 });
    await reader.open(12);
    expect(reader.adjustments).toEqual({ brightness: 100, contrast: 100, warmth: 0 });
  });

  it('settings stored before offsets and adjustments existed still load', async () => {
    localStorage.setItem('carrel.reader.defaults', JSON.stringify({ fit: 'width', direction: 'ltr', layout: 'spread' }));
    localStorage.setItem('carrel.reader.12', JSON.stringify({ fit: 'height', direction: 'rtl', layout: 'single' }));
    await reader.open(12);
    expect([reader.fit, reader.direction, reader.layout, reader.offset]).toEqual(['height', 'rtl', 'single', false]);
    expect(reader.adjustments).toEqual({ brightness: 100, contrast: 100, warmth: 0 });
    expect(readingDefaults()).toEqual({ fit: 'width', direction: 'ltr', layout: 'spread', offset: false, brightness: 100, contrast: 100, warmth: 0 });
    // Values out of range or of the wrong kind are left out.
    localStorage.setItem('carrel.reader.12', JSON.stringify({ offset: 'yes', brightness: 'bright', contrast: 1000 }));
    expect(readingPrefs(12)).toMatchObject({ offset: false, brightness: 100, contrast: 150 });
  });
});

describe('zoom', () => {
  beforeEach(async () => {
    await reader.open(12);
  });

  it('stays between the fit and five times it', () => {
    expect([reader.zoom, reader.zoomed]).toEqual([1, false]);
    reader.setZoom(2.5);
    expect([reader.zoom, reader.zoomed]).toEqual([2.5, true]);
    reader.setZoom(9);
    expect(reader.zoom).toBe(5);
    reader.setZoom(0.3);
    expect([reader.zoom, reader.zoomed]).toEqual([1, false]);
  });

  it('holds while pages turn, and goes back to the fit when the way pages show changes', () => {
    reader.setZoom(2);
    reader.next();
    expect([reader.index, reader.zoom]).toEqual([41, 2]);
    reader.goTo(50);
    reader.previous();
    expect([reader.index, reader.zoom]).toEqual([49, 2]);
    reader.setFit('screen');
    expect(reader.zoom).toBe(1);
    reader.setZoom(3);
    reader.setLayout('spread');
    expect(reader.zoom).toBe(1);
    reader.setZoom(3);
    reader.setDirection('rtl');
    expect(reader.zoom).toBe(1);
  });

  it('opens every book at its fit', async () => {
    reader.setZoom(4);
    reader.close();
    await reader.open(12);
    expect(reader.zoom).toBe(1);
  });
});

describe('saving the position', () => {
  it('saves at once, then at most once a second, and always the newest page', async () => {
    await reader.open(12);
    vi.useFakeTimers();
    reader.next();
    await vi.advanceTimersByTimeAsync(0);
    expect(saves()).toEqual([{ bookId: 12, page: 41 }]);
    reader.next();
    reader.next();
    reader.next();
    await vi.advanceTimersByTimeAsync(SAVE_INTERVAL_MS / 2);
    expect(saves()).toHaveLength(1);
    await vi.advanceTimersByTimeAsync(SAVE_INTERVAL_MS / 2);
    expect(saves()).toEqual([
      { bookId: 12, page: 41 },
      { bookId: 12, page: 44 },
    ]);
    // Back on a page already saved: nothing to say.
    await vi.advanceTimersByTimeAsync(SAVE_INTERVAL_MS * 3);
    expect(saves()).toHaveLength(2);
  });

  it('saves a waiting position when the reader closes', async () => {
    await reader.open(12);
    vi.useFakeTimers();
    reader.next();
    await vi.advanceTimersByTimeAsync(0);
    reader.next();
    reader.close();
    expect(saves()).toEqual([
      { bookId: 12, page: 41 },
      { bookId: 12, page: 42 },
    ]);
  });

  it('does not save the page it opened on', async () => {
    await reader.open(12);
    vi.useFakeTimers();
    reader.next();
    reader.previous();
    await vi.advanceTimersByTimeAsync(SAVE_INTERVAL_MS * 2);
    expect(saves()).toEqual([]);
  });
});

describe('keys and click zones', () => {
  it('map arrows by reading direction and the other keys the same in both', () => {
    expect(readerAction(key('ArrowRight'), 'ltr')).toBe('next');
    expect(readerAction(key('ArrowLeft'), 'ltr')).toBe('previous');
    expect(readerAction(key('ArrowRight'), 'rtl')).toBe('previous');
    expect(readerAction(key('ArrowLeft'), 'rtl')).toBe('next');
    for (const direction of ['ltr', 'rtl'] as const) {
      expect(readerAction(key(' '), direction)).toBe('next');
      expect(readerAction(key(' ', { shiftKey: true }), direction)).toBe('previous');
      expect(readerAction(key('PageDown'), direction)).toBe('next');
      expect(readerAction(key('PageUp'), direction)).toBe('previous');
      expect(readerAction(key('ArrowDown'), direction)).toBe('next');
      expect(readerAction(key('ArrowUp'), direction)).toBe('previous');
      expect(readerAction(key('Home'), direction)).toBe('first');
      expect(readerAction(key('End'), direction)).toBe('last');
      expect(readerAction(key('f'), direction)).toBe('fullscreen');
      expect(readerAction(key('F'), direction)).toBe('fullscreen');
      expect(readerAction(key('Escape'), direction)).toBe('back');
    }
    expect(readerAction(key('ArrowRight', { ctrlKey: true }), 'ltr')).toBeNull();
    expect(readerAction(key('a'), 'ltr')).toBeNull();
  });

  it('zoom in with + or =, out with -, and back to the fit with 0, without Ctrl', () => {
    expect(readerAction(key('+', { shiftKey: true }), 'ltr')).toBe('zoom-in');
    expect(readerAction(key('='), 'rtl')).toBe('zoom-in');
    expect(readerAction(key('-'), 'ltr')).toBe('zoom-out');
    expect(readerAction(key('0'), 'ltr')).toBe('zoom-reset');
    expect(readerAction(key('+', { ctrlKey: true }), 'ltr')).toBeNull();
    expect(readerAction(key('0', { metaKey: true }), 'ltr')).toBeNull();
    expect(readerAction(key('1'), 'ltr')).toBeNull();
  });

  it('turn pages from the left and right thirds only', () => {
    expect(zoneAt(10, 900)).toBe('left');
    expect(zoneAt(299, 900)).toBe('left');
    expect(zoneAt(450, 900)).toBeNull();
    expect(zoneAt(600, 900)).toBe('right');
    expect(zoneAt(899, 900)).toBe('right');
    expect(zoneAt(5, 0)).toBeNull();
    expect(turnTowards('right', 'ltr')).toBe('next');
    expect(turnTowards('left', 'rtl')).toBe('next');
  });
});

/** The backend of comic `id`, kept as one archive whose pages are not counted yet: its
 * open_comic answers as `openComic` does at each attempt (the first is 1); `asked` counts them. */
function archiveComic(id: number, openComic: (attempt: number) => unknown): { asked: number } {
  const opens = { asked: 0 };
  invokeMock.mockImplementation(async (command) => {
    if (command === 'book_details') return details(id, { page_count: null, archive_comic: true, last_page: null });
    if (command === 'open_book') return null;
    if (command === 'open_comic') return openComic(++opens.asked);
    if (command === 'take_server_position') return null;
    throw `unexpected ${command}`;
  });
  return opens;
}

/** What open_comic answers for comic `id` of `pageCount` pages, its archive saying nothing more. */
function comicOpened(id: number, pageCount: number, rightToLeft: boolean) {
  return { book_id: id, page_count: pageCount, right_to_left: rightToLeft, info: { title: null, series: null, number: null, page_count: null, right_to_left: rightToLeft } };
}

describe('comics kept as one archive', () => {
  beforeEach(() => {
    localStorage.clear();
  });

  it('wait for the file, then take their page count and direction from the archive', async () => {
    const opens = archiveComic(21, (attempt) => {
      // The kind says "not here yet", whatever the message.
      if (attempt < 3) throw { kind: 'not_downloaded', message: 'the comic is still on its way' };
      return comicOpened(21, 30, true);
    });
    await reader.open(21);
    expect(opens.asked).toBe(3);
    expect(reader.phase).toBe('ready');
    expect(reader.pageCount).toBe(30);
    expect(reader.direction).toBe('rtl');
    // Opened once: the page asked for did not move once the pages were counted.
    expect(invokeMock.mock.calls.filter(([command]) => command === 'open_book')).toHaveLength(1);
  });

  it('are opened again at their last page when asked for the end before their pages were counted', async () => {
    archiveComic(23, () => comicOpened(23, 12, false));
    await reader.open(23, 'end');
    expect(reader.index).toBe(11);
    const opened = invokeMock.mock.calls.filter(([command]) => command === 'open_book').map(([, args]) => args);
    expect(opened).toEqual([{ bookId: 23 }, { bookId: 23, page: 11 }]);
  });

  it('say why when the file cannot come', async () => {
    archiveComic(22, () => {
      throw { kind: 'server', message: 'the page could not be downloaded: 404 not found' };
    });
    await reader.open(22);
    expect(reader.phase).toBe('error');
    expect(reader.error?.message).toContain('404');
  });
});

describe('books not on the device yet', () => {
  afterEach(() => {
    vi.unstubAllGlobals();
  });

  it('does not wait for a comic archive that fails for another reason, whatever its message says', async () => {
    const opens = archiveComic(22, () => {
      throw { kind: 'server', message: 'offline-not-downloaded' };
    });
    await reader.open(22);
    expect(opens.asked).toBe(1);
    expect(reader.phase).toBe('error');
    expect(reader.error).toEqual({ kind: 'server', message: 'offline-not-downloaded' });
  });

  /** A PDF (book 31) not on the device, whose file is answered with `reply` and `httpStatus`. */
  it.each([
    ['says a PDF is not on the device when its reply is of kind not_downloaded and nothing is coming', { kind: 'not_downloaded', message: 'anything' }, 504, 'This book is not on the device and the server cannot be reached'],
    ['says why a PDF could not be opened for any other kind, even with the old offline text', { kind: 'server', message: 'offline-not-downloaded' }, 502, 'The book could not be opened (502: offline-not-downloaded)'],
  ])('%s', async (_name, reply, httpStatus, message) => {
    invokeMock.mockImplementation(async (command) => {
      if (command === 'book_details') return details(31, { format: 'pdf', reader: 'pdf', page_count: null, last_page: null });
      if (command === 'open_book') return null;
      if (command === 'take_server_position') return null;
      throw `unexpected ${command}`;
    });
    vi.stubGlobal('fetch', vi.fn(async () => new Response(JSON.stringify(reply), { status: httpStatus })));
    downloads.learn(status(31, 'remote'));
    await reader.open(31);
    expect(reader.phase).toBe('error');
    expect(reader.error?.message).toBe(message);
  });
});
