/**
 * The comic reader: which book, which page, how pages fit (and how far they are zoomed beyond
 * the fit) and in which order they turn, and
 * the reader's position saved as pages turn (at most once per {@link SAVE_INTERVAL_MS}, the
 * latest page always saved in the end).
 *
 * Past its last page (or spread, or the end of the strip) a turn forward shows the end card
 * ({@link ReaderState.end} `'next'`: the book is finished, the next of its series offered); before
 * its first page a turn back shows the card of the previous book. On a card one more turn the
 * same way opens the book offered (the next at its first page, the previous at its last), a turn
 * the other way closes it.
 *
 * Pages are 0-based here and in every command; the window shows them 1-based.
 */
import {
  bookDetails,
  bookFileUrl,
  openBook,
  openComic,
  pageUrl,
  protocolError,
  recordPdfPages,
  savePosition,
  takeServerPosition,
  toCommandError,
  type ArchiveComic,
  type CommandError,
} from '../ipc';
import { downloads } from './downloads.svelte';
import { epubReader } from './epubReader.svelte';
import { openOfferedBook, type EndWay } from './endCard';
import { BookSession } from './bookSession.svelte';
import { toasts } from './toasts.svelte';
import { t } from '../i18n.svelte';
import { nextSpreadStart, pairPages, previousSpreadStart, spreadOf, type Direction, type Spread } from '../spreads';
import { clampZoom, MIN_ZOOM } from '../pageGestures';
import type { OutlineItem, PdfPages } from '../pdfPages.svelte';
import { pagesAround, type Travel } from '../pageCache';

export type { Direction } from '../spreads';

export type Fit = 'width' | 'height' | 'screen' | 'original';
export const FITS: readonly Fit[] = ['width', 'height', 'screen', 'original'];

/**
 * `single`: one page at a time; `spread`: two facing pages (see `spreads.ts`); `webtoon`: every
 * page stacked in one strip, scrolled.
 */
export type Layout = 'single' | 'spread' | 'webtoon';
export const LAYOUTS: readonly Layout[] = ['single', 'spread', 'webtoon'];

/** How many pages after the one shown are fetched ahead. */
export const PRELOAD_AHEAD = 3;

/** Position saves are at most this often while pages turn. */
export const SAVE_INTERVAL_MS = 1000;

/** What a key asks of the reader. */
export type ReaderAction = 'next' | 'previous' | 'first' | 'last' | 'fullscreen' | 'back' | 'zoom-in' | 'zoom-out' | 'zoom-reset';

/** The side of the window a key or click points at. */
export type Side = 'left' | 'right';

/** Turning towards `side`: the next page is on the right in `ltr`, on the left in `rtl`. */
export function turnTowards(side: Side, direction: Direction): 'next' | 'previous' {
  return (side === 'right') === (direction === 'ltr') ? 'next' : 'previous';
}

/** The action of a key press, if it is one of the reader's keys. */
export function readerAction(event: Pick<KeyboardEvent, 'key' | 'shiftKey' | 'ctrlKey' | 'altKey' | 'metaKey'>, direction: Direction): ReaderAction | null {
  if (event.altKey || event.metaKey || event.ctrlKey) return null;
  switch (event.key) {
    case 'ArrowRight':
      return turnTowards('right', direction);
    case 'ArrowLeft':
      return turnTowards('left', direction);
    case ' ':
    case 'Spacebar':
      return event.shiftKey ? 'previous' : 'next';
    case 'PageDown':
      return 'next';
    case 'PageUp':
      return 'previous';
    case 'ArrowDown':
      return 'next';
    case 'ArrowUp':
      return 'previous';
    case 'Home':
      return 'first';
    case 'End':
      return 'last';
    case 'Escape':
      return 'back';
    case 'f':
    case 'F':
      return 'fullscreen';
    case '+':
    case '=':
      return 'zoom-in';
    case '-':
      return 'zoom-out';
    case '0':
      return 'zoom-reset';
    default:
      return null;
  }
}

/** The click zone under `x` in a view `width` wide: the left and right thirds turn pages. */
export function zoneAt(x: number, width: number): Side | null {
  if (width <= 0) return null;
  if (x < width / 3) return 'left';
  if (x >= (width * 2) / 3) return 'right';
  return null;
}

/** Brightness and contrast in percent of the page's own (100: as scanned), from 50 to 150. */
export const BRIGHTNESS = { min: 50, max: 150, step: 5 } as const;
export const CONTRAST = { min: 50, max: 150, step: 5 } as const;
/** Warmth in percent (0: as scanned): a warm, paper-like tone laid over the pages. */
export const WARMTH = { min: 0, max: 100, step: 5 } as const;

/** How the pages' images are corrected: brightness, contrast and warmth, in percent. */
export interface Adjustments {
  brightness: number;
  contrast: number;
  warmth: number;
}

export const NEUTRAL_ADJUSTMENTS: Readonly<Adjustments> = { brightness: 100, contrast: 100, warmth: 0 };

/**
 * The CSS `filter` that shows the pages as adjusted (drawn by the GPU, the images not decoded
 * again): `none` when nothing is adjusted. Warmth is a light sepia with its hue drawn back
 * towards yellow, so whites turn to old paper rather than brown.
 */
export function adjustmentFilter(adjustments: Adjustments): string {
  const parts: string[] = [];
  if (adjustments.brightness !== 100) parts.push(`brightness(${round(adjustments.brightness / 100)})`);
  if (adjustments.contrast !== 100) parts.push(`contrast(${round(adjustments.contrast / 100)})`);
  if (adjustments.warmth > 0) {
    parts.push(`sepia(${round((adjustments.warmth / 100) * 0.6)})`);
    parts.push(`hue-rotate(${round((-adjustments.warmth / 100) * 10)}deg)`);
  }
  return parts.length === 0 ? 'none' : parts.join(' ');
}

function round(value: number): number {
  return Math.round(value * 1000) / 1000;
}

/** Whether the pages are shown as scanned. */
export function isNeutral(adjustments: Adjustments): boolean {
  return (
    adjustments.brightness === NEUTRAL_ADJUSTMENTS.brightness &&
    adjustments.contrast === NEUTRAL_ADJUSTMENTS.contrast &&
    adjustments.warmth === NEUTRAL_ADJUSTMENTS.warmth
  );
}

/**
 * How a book is read: kept per book, and once as the default for books not set otherwise.
 * `offset`: in two-page layout, pages are shifted by one (see `spreads.ts`); a book without a
 * choice of its own takes the one last made for a book of its series.
 */
export interface ReadingPrefs extends Adjustments {
  fit: Fit;
  direction: Direction;
  layout: Layout;
  offset: boolean;
}

export const BUILTIN_PREFS: Readonly<ReadingPrefs> = {
  fit: 'screen',
  direction: 'ltr',
  layout: 'single',
  offset: false,
  ...NEUTRAL_ADJUSTMENTS,
};

const PREFS_PREFIX = 'carrel.reader.';
const DEFAULTS_KEY = 'carrel.reader.defaults';
const SERIES_PREFIX = 'carrel.reader.series.';

function seriesKey(series: string): string {
  return SERIES_PREFIX + encodeURIComponent(series);
}

function inRange(value: unknown, range: { min: number; max: number }): number | undefined {
  if (typeof value !== 'number' || !Number.isFinite(value)) return undefined;
  return Math.min(range.max, Math.max(range.min, Math.round(value)));
}

/** What is stored under `key`, the valid fields only (older entries lack the newer ones). */
function readStored(key: string): Partial<ReadingPrefs> {
  try {
    const raw = globalThis.localStorage?.getItem(key);
    if (!raw) return {};
    const value: unknown = JSON.parse(raw);
    if (typeof value !== 'object' || value === null) return {};
    const { fit, direction, layout, offset, brightness, contrast, warmth } = value as Record<string, unknown>;
    return {
      fit: FITS.includes(fit as Fit) ? (fit as Fit) : undefined,
      direction: direction === 'rtl' || direction === 'ltr' ? direction : undefined,
      layout: LAYOUTS.includes(layout as Layout) ? (layout as Layout) : undefined,
      offset: typeof offset === 'boolean' ? offset : undefined,
      brightness: inRange(brightness, BRIGHTNESS),
      contrast: inRange(contrast, CONTRAST),
      warmth: inRange(warmth, WARMTH),
    };
  } catch {
    return {};
  }
}

function writeStored(key: string, prefs: Partial<ReadingPrefs>): void {
  try {
    globalThis.localStorage?.setItem(key, JSON.stringify(prefs));
  } catch {
    // Storage full or refused: the choice holds for this session only.
  }
}

/** Each field from the first of `layers` that has it, else the built-in one. */
function merge(...layers: Partial<ReadingPrefs>[]): ReadingPrefs {
  const out = { ...BUILTIN_PREFS };
  for (const field of Object.keys(BUILTIN_PREFS) as (keyof ReadingPrefs)[]) {
    const layer = layers.find((l) => l[field] !== undefined);
    if (layer) (out as Record<string, unknown>)[field] = layer[field];
  }
  return out;
}

/** The settings books start with until the reader changes them for one book. */
export function readingDefaults(): ReadingPrefs {
  return merge(readStored(DEFAULTS_KEY));
}

/**
 * The settings a book opens with: its own where chosen; for the page offset, else the one last
 * chosen in its `series`; the defaults for the rest.
 */
export function readingPrefs(bookId: number, series: string | null = null): ReadingPrefs {
  const own = readStored(PREFS_PREFIX + bookId);
  const ofSeries: Partial<ReadingPrefs> = series ? { offset: readStored(seriesKey(series)).offset } : {};
  return merge(own, ofSeries, readStored(DEFAULTS_KEY));
}

class ReaderState extends BookSession<'downloading' | 'ready' | 'error'> {
  pageCount = $state(0);
  /** The page shown, 0-based. */
  index = $state(0);
  /** Which way the reader went last: forwards (+1) or backwards (−1) through the book. */
  travel = $state<Travel>(1);
  fit = $state<Fit>('width');
  direction = $state<Direction>('ltr');
  layout = $state<Layout>('single');
  /** In two-page layout, the pages are shifted by one: page 1 stands alone, pairs start at 2. */
  offset = $state(false);
  /** Brightness, contrast and warmth of the pages, in percent. */
  adjustments = $state<Adjustments>({ ...NEUTRAL_ADJUSTMENTS });
  /** The book's series, once its details are known. */
  series = $state<string | null>(null);
  /**
   * How far the pages shown are zoomed, relative to the fit (1: as fitted, up to 5). It holds
   * while pages turn; back to 1 whenever the fit, layout or direction changes.
   */
  zoom = $state(MIN_ZOOM);
  /** The pages known to be wide (landscape), each shown alone in spreads. */
  wide = $state<Record<number, true>>({});
  /** How the book's pages pair up when shown two at a time. */
  spreads: Spread[] = $derived(pairPages(this.pageCount, (page) => this.wide[page] === true, this.offset));
  /** A whole-file PDF's pages, drawn as they are needed; null for other books. */
  pdf = $state<PdfPages | null>(null);
  /** The PDF's outline (its contents), once read; empty when it has none. */
  outline = $state<OutlineItem[]>([]);

  #saveTimer: ReturnType<typeof setTimeout> | null = null;
  #lastSaveAt = Number.NEGATIVE_INFINITY;
  #saved: number | null = null;

  /** The address of the page shown. */
  get url(): string | null {
    return this.bookId === null ? null : pageUrl(this.bookId, this.index);
  }

  /** The pages shown together, in reading order: the spread of the page in spreads, else that page. */
  get shown(): readonly number[] {
    if (this.pageCount === 0) return [];
    return this.layout === 'spread' ? spreadOf(this.spreads, this.index) : [this.index];
  }

  /** The pages fetched ahead of those shown, nearest first. */
  get preload(): number[] {
    const pages: number[] = [];
    const shown = this.shown;
    const after = shown.length > 0 ? shown[shown.length - 1] : this.index;
    for (let i = after + 1; i < this.pageCount && pages.length < PRELOAD_AHEAD; i++) pages.push(i);
    return pages;
  }

  /**
   * The pages decoded ahead of time around those shown, in the order to ask for them: the
   * pages ahead in the direction the reader is going first, nearest first, then those behind.
   */
  get nearby(): number[] {
    return pagesAround(this.shown, this.pageCount, this.travel, this.layout === 'spread' ? 2 : 1);
  }

  /** Notes the shape of a page once its image is here: a wide page stands alone in spreads. */
  measured(index: number, width: number, height: number): void {
    if (width > height && this.wide[index] !== true) this.wide = { ...this.wide, [index]: true };
  }

  urlOf(index: number): string | null {
    if (this.bookId === null) return null;
    if (this.pdf === null) return pageUrl(this.bookId, index);
    this.pdf.showIn(this.#pdfBox());
    return this.pdf.url(index);
  }

  /**
   * The box (device pixels) one page of a PDF is shown in: the window as the fit and the layout
   * share it, times the zoom — so a page is drawn no larger than it is shown.
   */
  #pdfBox(): { width: number; height: number } {
    const dpr = Math.max(1, window.devicePixelRatio || 1);
    const width = ((this.layout === 'spread' ? window.innerWidth / 2 : window.innerWidth) || 1280) * dpr * this.zoom;
    const height = (window.innerHeight || 900) * dpr * this.zoom;
    if (this.layout === 'webtoon') return { width, height: Infinity };
    switch (this.fit) {
      case 'screen':
        return { width, height };
      case 'width':
        return { width, height: Infinity };
      case 'height':
        return { width: Infinity, height };
      case 'original':
        return { width: Infinity, height: Infinity };
    }
  }

  /** Why page `index` of a PDF could not be drawn, if it could not. */
  failureOf(index: number): string | null {
    return this.pdf?.failures[index] ?? null;
  }

  /** The first page (or the spread that holds it) is shown. */
  get atStart(): boolean {
    const shown = this.shown;
    return (shown.length > 0 ? Math.min(...shown) : this.index) <= 0;
  }

  /** The last page (or the spread that holds it) is shown. */
  get atEnd(): boolean {
    const shown = this.shown;
    return (shown.length > 0 ? Math.max(...shown) : this.index) >= this.pageCount - 1;
  }

  /** Opens the book the card offers in the reader that fits it (`openOfferedBook`). */
  async openOffered(): Promise<void> {
    await openOfferedBook(this, {
      epub: (bookId) => {
        this.flush();
        this.generation++;
        this.end = null;
        void epubReader.open(bookId);
      },
      pages: (bookId, at) => void this.open(bookId, at),
    });
  }

  /**
   * Opens the reader on a book where the reader left it (its `last_page`, read afresh) — or at
   * its first page (`at` `'start'`) or its last (`'end'`) — starting its download from there,
   * and shows it.
   */
  async open(bookId: number, at: 'start' | 'end' | null = null): Promise<void> {
    const generation = this.begin(bookId, 'reader', () => {
      this.series = null;
      this.#applyPrefs(readingPrefs(bookId));
      this.zoom = MIN_ZOOM;
      this.wide = {};
      this.#dropPdf();
    });
    try {
      const book = await bookDetails(bookId);
      if (generation !== this.generation) return;
      this.title = book.title;
      this.series = book.series;
      // A book without an offset of its own takes its series'.
      this.offset = readingPrefs(bookId, book.series).offset;
      // Where it opens: the last position, or the start or the end asked for.
      let page = at === 'start' ? 0 : at === 'end' && book.page_count ? book.page_count - 1 : book.last_page;
      // The page the book was opened at, once it is (an archive or a PDF is opened before its
      // pages are counted, which may move the page asked for: then it is opened there again).
      let openedAt: number | null | undefined;
      if (book.archive_comic) {
        // A comic kept as one archive: its pages (and their count) come from the file, which
        // is downloaded first; the download's progress shows meanwhile.
        await openBook(bookId, page);
        openedAt = page;
        const comic = await this.#waitForArchive(bookId, generation);
        if (comic === null) return;
        book.page_count = comic.page_count;
        if (comic.right_to_left && readStored(PREFS_PREFIX + bookId).direction === undefined) this.direction = 'rtl';
      } else if (book.reader === 'pdf') {
        // A PDF: the file is downloaded first (its progress shows meanwhile), then its pages
        // are drawn here as they are needed; their count is the file's, kept on the book.
        await openBook(bookId, page);
        openedAt = page;
        const pdf = await this.#waitForPdf(bookId, generation);
        if (pdf === null) return;
        this.pdf = pdf;
        book.page_count = pdf.pageCount;
        await recordPdfPages(bookId, pdf.pageCount);
        void pdf.outline().then((items) => {
          if (generation === this.generation) this.outline = items;
        });
      }
      this.pageCount = Math.max(0, book.page_count ?? 0);
      if (at === 'end') page = Math.max(0, this.pageCount - 1);
      this.index = Math.min(Math.max(0, page ?? 0), Math.max(0, this.pageCount - 1));
      this.#saved = page;
      this.#lastSaveAt = Number.NEGATIVE_INFINITY;
      this.pdf?.focusOn(this.index);
      if (openedAt === undefined || openedAt !== page) await openBook(bookId, page);
      if (generation !== this.generation) return;
      this.phase = 'ready';
      void this.loadNeighbours(bookId, generation);
      // Opened at a place asked for: the server's position does not move it.
      if (at === null) void this.#followServer(bookId, generation, this.index);
    } catch (reason) {
      if (generation !== this.generation) return;
      this.error = toCommandError(reason);
      this.phase = 'error';
    }
  }

  /**
   * Asks for an archive comic's pages until its file is on the device: while the download goes
   * on the phase is `downloading` (its progress is the downloads' own); a download that failed
   * or stopped ends in the error with its reason. `null` when another book was opened meanwhile.
   */
  async #waitForArchive(bookId: number, generation: number): Promise<ArchiveComic | null> {
    for (;;) {
      try {
        return await openComic(bookId);
      } catch (reason) {
        const error = toCommandError(reason);
        if (generation !== this.generation) return null;
        if (error.kind !== 'not_downloaded') throw error;
        const status = downloads.statusOf(bookId);
        // Still coming: wait on. Nothing under way (the server is away, downloads paused): say so.
        if (status && status.state !== 'queued' && status.state !== 'downloading') throw error;
        this.phase = 'downloading';
      }
    }
  }

  /**
   * Fetches a PDF's file until it is on the device and parses it: while the download goes on
   * the phase is `downloading`; a download that failed or stopped, or a file that is not a
   * PDF, ends in the error with its reason. `null` when another book was opened meanwhile.
   */
  async #waitForPdf(bookId: number, generation: number): Promise<PdfPages | null> {
    const url = bookFileUrl(bookId);
    if (url === null) throw { kind: 'storage', message: t('reader-pdf-only-in-app') } satisfies CommandError;
    const { PdfPages } = await import('../pdfPages.svelte');
    for (;;) {
      const response = await fetch(url);
      if (generation !== this.generation) return null;
      if (response.ok) {
        const bytes = await response.arrayBuffer();
        if (generation !== this.generation) return null;
        let pdf: PdfPages;
        try {
          pdf = await PdfPages.load(bytes);
        } catch (reason) {
          const why = reason instanceof Error ? reason.message : String(reason);
          throw { kind: 'invalid_input', message: t('reader-pdf-unreadable', { reason: why }) } satisfies CommandError;
        }
        if (generation !== this.generation) {
          pdf.destroy();
          return null;
        }
        if (pdf.pageCount < 1) {
          pdf.destroy();
          throw { kind: 'invalid_input', message: t('reader-pdf-empty') } satisfies CommandError;
        }
        return pdf;
      }
      const failure = await protocolError(response);
      if (generation !== this.generation) return null;
      if (failure.kind !== 'not_downloaded') {
        const message = failure.message
          ? t('reader-open-failed-because', { status: response.status, reason: failure.message })
          : t('reader-open-failed', { status: response.status });
        throw { kind: 'server', message } satisfies CommandError;
      }
      const status = downloads.statusOf(bookId);
      // Still coming: wait on. Nothing under way (the server is away, downloads paused): say so.
      if (status && status.state !== 'queued' && status.state !== 'downloading') {
        throw { kind: 'server', message: t('reader-not-on-device') } satisfies CommandError;
      }
      this.phase = 'downloading';
    }
  }

  #dropPdf(): void {
    this.pdf?.destroy();
    this.pdf = null;
    this.outline = [];
  }

  /**
   * Moves to the server's position when it is newer than this device's (the book was read on
   * another device) — unless the reader has turned a page since opening. The download then
   * starts there too. The server's answer is never waited for before showing the book.
   */
  async #followServer(bookId: number, generation: number, openedAt: number): Promise<void> {
    let theirs;
    try {
      theirs = await takeServerPosition(bookId);
    } catch {
      return; // This device's position stands.
    }
    // Not once the reader turned a page or zoomed: the reader's own doing wins.
    if (theirs === null || generation !== this.generation || this.index !== openedAt || this.zoomed) return;
    const page = Math.min(Math.max(0, theirs.page), Math.max(0, this.pageCount - 1));
    if (page === this.index) return;
    this.index = this.layout === 'spread' ? (spreadOf(this.spreads, page)[0] ?? page) : page;
    this.pdf?.focusOn(this.index);
    this.#saved = page; // already this device's position
    toasts.show(t('reader-continued-elsewhere', { page: page + 1 }));
    openBook(bookId, page).catch(() => {
      // The page protocol asks for the page anyway.
    });
  }

  retry(): Promise<void> {
    return this.bookId === null ? Promise.resolve() : this.open(this.bookId);
  }

  /**
   * Shows page `index` (clamped to the book) — in spreads, the spread that holds it, from its
   * first page — and saves the position soon.
   */
  goTo(index: number): void {
    this.end = null;
    if (this.pageCount === 0) return;
    let page = Math.min(Math.max(0, Math.trunc(index)), this.pageCount - 1);
    if (this.layout === 'spread') page = spreadOf(this.spreads, page)[0] ?? page;
    this.#show(page);
  }

  /** Notes the page scrolled into view in the strip, without moving the strip. */
  scrolledTo(index: number): void {
    if (this.pageCount === 0 || index < 0 || index >= this.pageCount) return;
    this.#show(Math.trunc(index));
  }

  #show(page: number): void {
    if (page === this.index) return;
    this.travel = page < this.index ? -1 : 1;
    this.index = page;
    this.pdf?.focusOn(page, this.travel);
    this.#scheduleSave();
  }

  /**
   * Turns forward: the next page (or spread); past the last, the end card; on that card, the
   * book it offers (the next, at its first page); on the card before the start, closes it.
   */
  next(): void {
    if (this.#turnAtCard('next', this.atEnd)) return;
    if (this.layout === 'spread') this.goTo(nextSpreadStart(this.spreads, this.index));
    else this.goTo(this.index + 1);
  }

  /**
   * Turns back: the previous page (or spread); before the first, the previous book's card; on
   * that card, the book it offers (at its last page); on the card past the end, closes it.
   */
  previous(): void {
    if (this.#turnAtCard('previous', this.atStart)) return;
    if (this.layout === 'spread') this.goTo(previousSpreadStart(this.spreads, this.index));
    else this.goTo(this.index - 1);
  }

  /**
   * A turn `way` that an end card takes: on the card that way, the book it offers; on the card
   * the other way, closes it; at the book's edge that way (`atEdge`), shows the card. Whether the
   * card took the turn (else the pages turn).
   */
  #turnAtCard(way: EndWay, atEdge: boolean): boolean {
    if (this.end === way) {
      if (this.offered !== null) void this.openOffered();
      return true;
    }
    if (this.end !== null) {
      this.closeEnd();
      return true;
    }
    if (this.pageCount > 0 && atEdge) {
      this.#showEnd(way);
      return true;
    }
    return false;
  }

  #showEnd(which: 'next' | 'previous'): void {
    this.end = which;
    // The last page's position is saved now: the book is read.
    this.flush();
  }

  first(): void {
    this.goTo(0);
  }

  last(): void {
    this.goTo(this.pageCount - 1);
  }

  /** Turns the page towards `side` of the window, as the reading direction says. */
  turn(side: Side): void {
    if (turnTowards(side, this.direction) === 'next') this.next();
    else this.previous();
  }

  setFit(fit: Fit): void {
    this.#setView(() => (this.fit = fit));
  }

  setDirection(direction: Direction): void {
    this.#setView(() => (this.direction = direction));
  }

  setLayout(layout: Layout): void {
    this.#setView(() => (this.layout = layout));
  }

  /** A change of how pages are laid out: back to the fit, and kept for the book. */
  #setView(change: () => void): void {
    change();
    this.zoom = MIN_ZOOM;
    this.#savePrefs();
  }

  /** Shifts two-page spreads by one page (or back), for this book and as its series' choice. */
  setOffset(offset: boolean): void {
    this.offset = offset;
    if (this.layout === 'spread' && this.pageCount > 0) this.index = spreadOf(this.spreads, this.index)[0] ?? this.index;
    this.#savePrefs();
    if (this.series) writeStored(seriesKey(this.series), { offset });
  }

  /** Changes the brightness, contrast or warmth of the pages (kept within their ranges). */
  setAdjustments(change: Partial<Adjustments>): void {
    const next = { ...this.adjustments, ...change };
    this.adjustments = {
      brightness: inRange(next.brightness, BRIGHTNESS) ?? this.adjustments.brightness,
      contrast: inRange(next.contrast, CONTRAST) ?? this.adjustments.contrast,
      warmth: inRange(next.warmth, WARMTH) ?? this.adjustments.warmth,
    };
    this.#savePrefs();
  }

  /** Shows the pages as scanned again. */
  resetAdjustments(): void {
    this.setAdjustments(NEUTRAL_ADJUSTMENTS);
  }

  /** The CSS filter of the pages shown: their adjustments. */
  get filter(): string {
    return adjustmentFilter(this.adjustments);
  }

  /** Zooms the pages shown to `zoom` times their fitted size, kept within 1–5. */
  setZoom(zoom: number): void {
    this.zoom = clampZoom(zoom);
  }

  /** Whether the pages are zoomed beyond their fit. */
  get zoomed(): boolean {
    return this.zoom > MIN_ZOOM;
  }

  /**
   * Makes this book's fit, direction, layout, page offset and adjustments those of every book
   * not set otherwise.
   */
  makeDefault(): void {
    writeStored(DEFAULTS_KEY, this.#prefs());
  }

  /** On closing, the PDF's pages are let go of. */
  protected override letGo(): void {
    this.#dropPdf();
  }

  /** Saves a waiting position at once. */
  flush(): void {
    if (this.#saveTimer === null) return;
    clearTimeout(this.#saveTimer);
    this.#saveTimer = null;
    this.#save();
  }

  reset(): void {
    if (this.#saveTimer !== null) clearTimeout(this.#saveTimer);
    this.#saveTimer = null;
    this.generation++;
    this.returnTo = { view: 'home' };
    this.#lastSaveAt = Number.NEGATIVE_INFINITY;
    this.#saved = null;
    this.bookId = null;
    this.title = '';
    this.pageCount = 0;
    this.index = 0;
    this.fit = 'width';
    this.direction = 'ltr';
    this.layout = 'single';
    this.offset = false;
    this.adjustments = { ...NEUTRAL_ADJUSTMENTS };
    this.series = null;
    this.zoom = MIN_ZOOM;
    this.wide = {};
    this.phase = 'idle';
    this.error = null;
    this.end = null;
    this.neighbours = null;
    this.#dropPdf();
  }

  #scheduleSave(): void {
    if (this.#saveTimer !== null) return; // the waiting save takes the newest page
    const wait = Math.max(0, this.#lastSaveAt + SAVE_INTERVAL_MS - Date.now());
    this.#saveTimer = setTimeout(() => {
      this.#saveTimer = null;
      this.#save();
    }, wait);
  }

  #save(): void {
    const bookId = this.bookId;
    const page = this.index;
    if (bookId === null || page === this.#saved) return;
    this.#saved = page;
    this.#lastSaveAt = Date.now();
    savePosition(bookId, page).catch(() => {
      // Not saved (the library is busy): the next turn tries again.
      if (this.#saved === page) this.#saved = null;
    });
  }

  #prefs(): ReadingPrefs {
    return { fit: this.fit, direction: this.direction, layout: this.layout, offset: this.offset, ...this.adjustments };
  }

  #applyPrefs(prefs: ReadingPrefs): void {
    this.fit = prefs.fit;
    this.direction = prefs.direction;
    this.layout = prefs.layout;
    this.offset = prefs.offset;
    this.adjustments = { brightness: prefs.brightness, contrast: prefs.contrast, warmth: prefs.warmth };
  }

  #savePrefs(): void {
    if (this.bookId !== null) writeStored(PREFS_PREFIX + this.bookId, this.#prefs());
  }
}

export const reader = new ReaderState();
