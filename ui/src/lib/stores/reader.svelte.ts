/**
 * The comic reader: which book, which page, how pages fit and in which order they turn, and
 * the reader's position saved as pages turn (at most once per {@link SAVE_INTERVAL_MS}, the
 * latest page always saved in the end).
 *
 * Pages are 0-based here and in every command; the window shows them 1-based.
 */
import {
  bookDetails,
  openBook,
  pageUrl,
  savePosition,
  toCommandError,
  type CommandError,
} from '../ipc';
import { router, type Route } from './router.svelte';

export type Fit = 'width' | 'height' | 'screen' | 'original';
export const FITS: readonly Fit[] = ['width', 'height', 'screen', 'original'];

/** `ltr`: western comics; `rtl`: manga, whose next page is on the left. */
export type Direction = 'ltr' | 'rtl';

/** How many pages after the one shown are fetched ahead. */
export const PRELOAD_AHEAD = 3;

/** Position saves are at most this often while pages turn. */
export const SAVE_INTERVAL_MS = 1000;

/** What a key asks of the reader. */
export type ReaderAction = 'next' | 'previous' | 'first' | 'last' | 'fullscreen' | 'back';

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
    case 'Home':
      return 'first';
    case 'End':
      return 'last';
    case 'Escape':
      return 'back';
    case 'f':
    case 'F':
      return 'fullscreen';
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

interface BookPrefs {
  fit: Fit;
  direction: Direction;
}

const PREFS_PREFIX = 'carrel.reader.';

function readPrefs(bookId: number): Partial<BookPrefs> {
  try {
    const raw = globalThis.localStorage?.getItem(PREFS_PREFIX + bookId);
    if (!raw) return {};
    const value: unknown = JSON.parse(raw);
    if (typeof value !== 'object' || value === null) return {};
    const { fit, direction } = value as Record<string, unknown>;
    return {
      fit: FITS.includes(fit as Fit) ? (fit as Fit) : undefined,
      direction: direction === 'rtl' || direction === 'ltr' ? direction : undefined,
    };
  } catch {
    return {};
  }
}

function writePrefs(bookId: number, prefs: BookPrefs): void {
  try {
    globalThis.localStorage?.setItem(PREFS_PREFIX + bookId, JSON.stringify(prefs));
  } catch {
    // Storage full or refused: the choice holds for this session only.
  }
}

class ReaderState {
  bookId = $state<number | null>(null);
  title = $state('');
  pageCount = $state(0);
  /** The page shown, 0-based. */
  index = $state(0);
  fit = $state<Fit>('width');
  direction = $state<Direction>('ltr');
  phase = $state<'idle' | 'loading' | 'ready' | 'error'>('idle');
  error = $state<CommandError | null>(null);

  /** Where Escape goes back to. */
  #returnTo: Route = { view: 'home' };
  #saveTimer: ReturnType<typeof setTimeout> | null = null;
  #lastSaveAt = Number.NEGATIVE_INFINITY;
  #saved: number | null = null;
  #generation = 0;

  /** The address of the page shown. */
  get url(): string | null {
    return this.bookId === null ? null : pageUrl(this.bookId, this.index);
  }

  /** The pages fetched ahead of the one shown, nearest first. */
  get preload(): number[] {
    const pages: number[] = [];
    for (let i = this.index + 1; i < this.pageCount && pages.length < PRELOAD_AHEAD; i++) pages.push(i);
    return pages;
  }

  urlOf(index: number): string | null {
    return this.bookId === null ? null : pageUrl(this.bookId, index);
  }

  get atStart(): boolean {
    return this.index <= 0;
  }

  get atEnd(): boolean {
    return this.index >= this.pageCount - 1;
  }

  /**
   * Opens the reader on a book where the reader left it (its `last_page`, read afresh), starting
   * its download from there, and shows it.
   */
  async open(bookId: number): Promise<void> {
    this.flush();
    const generation = ++this.#generation;
    if (router.route.view !== 'reader') this.#returnTo = router.route;
    this.bookId = bookId;
    this.phase = 'loading';
    this.error = null;
    this.title = '';
    const prefs = readPrefs(bookId);
    this.fit = prefs.fit ?? 'width';
    this.direction = prefs.direction ?? 'ltr';
    if (router.route.view !== 'reader' || router.route.bookId !== bookId) router.go({ view: 'reader', bookId });
    try {
      const book = await bookDetails(bookId);
      if (generation !== this.#generation) return;
      this.title = book.title;
      this.pageCount = Math.max(0, book.page_count ?? 0);
      this.index = Math.min(Math.max(0, book.last_page ?? 0), Math.max(0, this.pageCount - 1));
      this.#saved = book.last_page;
      this.#lastSaveAt = Number.NEGATIVE_INFINITY;
      await openBook(bookId, book.last_page);
      if (generation !== this.#generation) return;
      this.phase = 'ready';
    } catch (reason) {
      if (generation !== this.#generation) return;
      this.error = toCommandError(reason);
      this.phase = 'error';
    }
  }

  retry(): Promise<void> {
    return this.bookId === null ? Promise.resolve() : this.open(this.bookId);
  }

  /** Shows page `index` (clamped to the book) and saves the position soon. */
  goTo(index: number): void {
    if (this.pageCount === 0) return;
    const page = Math.min(Math.max(0, Math.trunc(index)), this.pageCount - 1);
    if (page === this.index) return;
    this.index = page;
    this.#scheduleSave();
  }

  next(): void {
    this.goTo(this.index + 1);
  }

  previous(): void {
    this.goTo(this.index - 1);
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
    this.fit = fit;
    this.#savePrefs();
  }

  setDirection(direction: Direction): void {
    this.direction = direction;
    this.#savePrefs();
  }

  /** Saves the position now if a save is waiting, and goes back where the reader came from. */
  close(): void {
    this.flush();
    this.#generation++;
    const back = this.#returnTo;
    this.bookId = null;
    this.phase = 'idle';
    router.go(back);
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
    this.#generation++;
    this.#returnTo = { view: 'home' };
    this.#lastSaveAt = Number.NEGATIVE_INFINITY;
    this.#saved = null;
    this.bookId = null;
    this.title = '';
    this.pageCount = 0;
    this.index = 0;
    this.fit = 'width';
    this.direction = 'ltr';
    this.phase = 'idle';
    this.error = null;
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

  #savePrefs(): void {
    if (this.bookId !== null) writePrefs(this.bookId, { fit: this.fit, direction: this.direction });
  }
}

export const reader = new ReaderState();
