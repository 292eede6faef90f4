/**
 * The EPUB reader: which book, the look of its text (flow, font, size, line height, margins,
 * theme — one set for every EPUB, remembered in local storage), its table of contents, where
 * the reader is (an EPUB CFI and the fraction read), and that position saved as the reader
 * moves (at most once per {@link EPUB_SAVE_INTERVAL_MS}, the latest always saved in the end).
 *
 * The book itself is rendered by foliate-js in EpubReader.svelte; this store knows nothing of it.
 */
import {
  bookDetails,
  epubPosition,
  saveEpubPosition,
  takeServerPosition,
  toCommandError,
  type CommandError,
  type ServerPosition,
} from '../ipc';
import { openOfferedBook } from './endCard';
import { BookSession } from './bookSession.svelte';
import { toasts } from './toasts.svelte';
import { t } from '../i18n.svelte';

/** How long, at most, the book waits for the server's position once its file is ready. */
export const SERVER_POSITION_WAIT_MS = 1500;

/** Where the view starts: an exact CFI, or a fraction of the book when only that is known. */
export interface StartAt {
  cfi: string | null;
  fraction: number | null;
}

export type Flow = 'paginated' | 'scrolled';
export const FLOWS: readonly Flow[] = ['paginated', 'scrolled'];

export type EpubTheme = 'light' | 'sepia' | 'dark';
export const EPUB_THEMES: readonly EpubTheme[] = ['light', 'sepia', 'dark'];

export type FontFamily = 'original' | 'serif' | 'sans-serif' | 'monospace';
export const FONT_FAMILIES: readonly FontFamily[] = ['original', 'serif', 'sans-serif', 'monospace'];

/** How the text looks. `fontSize` in percent of the book's own, `margin` in pixels. */
export interface EpubPrefs {
  flow: Flow;
  theme: EpubTheme;
  fontFamily: FontFamily;
  /** A font family installed on this computer, chosen over `fontFamily` (which stays its fallback). */
  systemFont: string | null;
  fontSize: number;
  lineHeight: number;
  margin: number;
}

export const FONT_SIZE = { min: 60, max: 240, step: 10 } as const;
export const LINE_HEIGHT = { min: 1, max: 2.4, step: 0.1 } as const;
export const MARGIN = { min: 0, max: 120, step: 8 } as const;

export const EPUB_DEFAULTS: EpubPrefs = {
  flow: 'paginated',
  theme: 'light',
  fontFamily: 'original',
  systemFont: null,
  fontSize: 100,
  lineHeight: 1.5,
  margin: 48,
};

/** Position saves are at most this often while the reader moves. */
export const EPUB_SAVE_INTERVAL_MS = 1000;

const PREFS_KEY = 'carrel.epub.prefs';

const THEME_COLOURS: Record<EpubTheme, { background: string; text: string; link: string }> = {
  light: { background: '#ffffff', text: '#1b1b1b', link: '#1d4ed8' },
  sepia: { background: '#f4ecd8', text: '#433422', link: '#8a4b0f' },
  dark: { background: '#16181d', text: '#d8d8d8', link: '#8ab4f8' },
};

export function themeColours(theme: EpubTheme): { background: string; text: string; link: string } {
  return THEME_COLOURS[theme];
}

function clamp(value: unknown, range: { min: number; max: number }, fallback: number): number {
  if (typeof value !== 'number' || !Number.isFinite(value)) return fallback;
  return Math.min(range.max, Math.max(range.min, value));
}

/**
 * Whether `name` is a font family the reader's style sheet can quote as it is (the rule the app's
 * list of installed fonts keeps to): no quote, backslash or character that ends a declaration
 * or a rule, nothing unprintable, at most 100 characters.
 */
export function isPlainFamilyName(name: unknown): name is string {
  return (
    typeof name === 'string' &&
    name.length > 0 &&
    [...name].length <= 100 &&
    !name.startsWith('.') &&
    name.trim() === name &&
    !/[\p{Cc}"'\\;{}<>]/u.test(name)
  );
}

/** Reads stored preferences, keeping only what is valid (the rest from the defaults). */
export function parsePrefs(raw: unknown): EpubPrefs {
  if (typeof raw !== 'object' || raw === null) return { ...EPUB_DEFAULTS };
  const v = raw as Record<string, unknown>;
  return {
    flow: FLOWS.includes(v.flow as Flow) ? (v.flow as Flow) : EPUB_DEFAULTS.flow,
    theme: EPUB_THEMES.includes(v.theme as EpubTheme) ? (v.theme as EpubTheme) : EPUB_DEFAULTS.theme,
    fontFamily: FONT_FAMILIES.includes(v.fontFamily as FontFamily) ? (v.fontFamily as FontFamily) : EPUB_DEFAULTS.fontFamily,
    systemFont: isPlainFamilyName(v.systemFont) ? v.systemFont : null,
    fontSize: clamp(v.fontSize, FONT_SIZE, EPUB_DEFAULTS.fontSize),
    lineHeight: clamp(v.lineHeight, LINE_HEIGHT, EPUB_DEFAULTS.lineHeight),
    margin: clamp(v.margin, MARGIN, EPUB_DEFAULTS.margin),
  };
}

function loadPrefs(): EpubPrefs {
  try {
    const raw = globalThis.localStorage?.getItem(PREFS_KEY);
    return parsePrefs(raw ? JSON.parse(raw) : null);
  } catch {
    return { ...EPUB_DEFAULTS };
  }
}

function storePrefs(prefs: EpubPrefs): void {
  try {
    globalThis.localStorage?.setItem(PREFS_KEY, JSON.stringify(prefs));
  } catch {
    // Storage full or refused: the choice holds for this session only.
  }
}

/**
 * The style sheet put into every section of the book: the theme's colours, the font, its size
 * and the line height. Only plain CSS, never anything that loads.
 */
export function readerCss(prefs: EpubPrefs): string {
  const { background, text, link } = THEME_COLOURS[prefs.theme];
  const generic = prefs.fontFamily === 'original' ? '' : prefs.fontFamily;
  const families = isPlainFamilyName(prefs.systemFont)
    ? [`"${prefs.systemFont}"`, generic].filter(Boolean).join(', ')
    : generic;
  const family = families ? `font-family: ${families} !important;` : '';
  return [
    // `--theme-bg-color` is what foliate-js paints behind the page's columns, also after a change.
    `html { color-scheme: ${prefs.theme === 'dark' ? 'dark' : 'light'}; --theme-bg-color: ${background}; }`,
    `html, body { background: ${background} !important; color: ${text} !important; }`,
    `html { font-size: ${prefs.fontSize}% !important; }`,
    `body { line-height: ${prefs.lineHeight} !important; ${family} }`,
    `p, li, blockquote, dd, div, span { line-height: inherit !important; ${family} }`,
    `a:any-link { color: ${link} !important; }`,
    `img, svg, video { max-width: 100%; height: auto; }`,
    prefs.theme === 'dark' ? `img { filter: brightness(0.85); }` : '',
  ]
    .filter(Boolean)
    .join('\n');
}

/** An entry of the table of contents, flattened with its depth. */
export interface TocEntry {
  label: string;
  href: string;
  depth: number;
}

interface FoliateTocItem {
  label?: unknown;
  href?: unknown;
  subitems?: unknown;
}

/** The book's table of contents (foliate-js's nested `toc`) as a flat list. */
export function flattenToc(toc: unknown, depth = 0, into: TocEntry[] = []): TocEntry[] {
  if (!Array.isArray(toc)) return into;
  for (const item of toc as FoliateTocItem[]) {
    if (typeof item !== 'object' || item === null) continue;
    const label = typeof item.label === 'string' ? item.label.trim() : '';
    if (typeof item.href === 'string' && item.href !== '') into.push({ label: label || t('epub-untitled'), href: item.href, depth });
    flattenToc(item.subitems, depth + 1, into);
  }
  return into;
}

export type EpubPhase = 'idle' | 'loading' | 'ready' | 'error';

class EpubReaderState extends BookSession<EpubPhase> {
  prefs = $state<EpubPrefs>(loadPrefs());
  toc = $state<TocEntry[]>([]);
  /** Where the reader is now. */
  cfi = $state<string | null>(null);
  fraction = $state(0);
  /** The chapter shown, from the table of contents. */
  chapter = $state('');
  /** The position the book opened at (saved last time), `null` for its start. */
  startCfi = $state<string | null>(null);

  #saved: string | null = null;
  #lastSaveAt = Number.NEGATIVE_INFINITY;
  #timer: ReturnType<typeof setTimeout> | null = null;
  #opened: Promise<void> = Promise.resolve();
  #server: Promise<ServerPosition | null> = Promise.resolve(null);

  /** Settles once the book's details and saved position of the last {@link open} are known. */
  get opened(): Promise<void> {
    return this.#opened;
  }

  /** Opens the EPUB reader on a book; the view loads the file and goes to {@link startCfi}. */
  open(bookId: number): Promise<void> {
    this.#opened = this.#open(bookId);
    return this.#opened;
  }

  async #open(bookId: number): Promise<void> {
    const generation = this.begin(bookId, 'epub', () => {
      this.toc = [];
      this.cfi = null;
      this.fraction = 0;
      this.chapter = '';
      this.startCfi = null;
      this.#saved = null;
      // Asked at once, while the file loads: a newer position from another device wins. The
      // server is given as long as the book waits for it, so a late answer is not taken either.
      this.#server = takeServerPosition(bookId, SERVER_POSITION_WAIT_MS).catch(() => null);
    });
    try {
      const [book, position] = await Promise.all([bookDetails(bookId), epubPosition(bookId)]);
      if (generation !== this.generation) return;
      this.title = book.title;
      this.startCfi = position?.cfi ?? null;
      this.fraction = position?.fraction ?? 0;
      this.#saved = position?.cfi ?? null;
      void this.loadNeighbours(bookId, generation);
    } catch (reason) {
      if (generation !== this.generation) return;
      this.fail(toCommandError(reason));
    }
  }

  /**
   * Where the view should start: the server's position when it is newer than this device's
   * and answers within `waitMs`, else {@link startCfi}.
   */
  async startAt(waitMs: number = SERVER_POSITION_WAIT_MS + 500): Promise<StartAt> {
    const generation = this.generation;
    let timer: ReturnType<typeof setTimeout> | undefined;
    const late = new Promise<null>((resolve) => {
      timer = setTimeout(() => resolve(null), waitMs);
    });
    const theirs = await Promise.race([this.#server, late]);
    clearTimeout(timer);
    const own: StartAt = { cfi: this.startCfi, fraction: null };
    if (theirs === null || generation !== this.generation) return own;
    if (theirs.cfi !== null) {
      this.startCfi = theirs.cfi;
      this.#saved = theirs.cfi; // already this device's position
    } else if (theirs.progression === null) {
      return own;
    }
    const percent = Math.round((theirs.progression ?? 0) * 100);
    toasts.show(t('epub-continued-elsewhere', { percent }));
    return { cfi: theirs.cfi, fraction: theirs.cfi === null ? theirs.progression : null };
  }

  /** The view has the book on screen. */
  loaded(toc: TocEntry[]): void {
    this.toc = toc;
    if (this.phase === 'loading') this.phase = 'ready';
  }

  fail(error: CommandError): void {
    this.error = error;
    this.phase = 'error';
  }

  /** The view moved to `cfi`, `fraction` of the way through the book. */
  relocated(cfi: string, fraction: number, chapter: string | null): void {
    this.cfi = cfi;
    this.fraction = Math.min(1, Math.max(0, fraction));
    this.chapter = chapter ?? '';
    this.#scheduleSave();
  }

  setPrefs(change: Partial<EpubPrefs>): void {
    this.prefs = parsePrefs({ ...this.prefs, ...change });
    storePrefs(this.prefs);
  }

  #scheduleSave(): void {
    if (this.cfi === null || this.cfi === this.#saved) return;
    const wait = this.#lastSaveAt + EPUB_SAVE_INTERVAL_MS - Date.now();
    if (wait <= 0) {
      this.flush();
      return;
    }
    if (this.#timer === null) this.#timer = setTimeout(() => this.flush(), wait);
  }

  /** Saves a waiting position at once. */
  flush(): void {
    if (this.#timer !== null) {
      clearTimeout(this.#timer);
      this.#timer = null;
    }
    const bookId = this.bookId;
    const cfi = this.cfi;
    if (bookId === null || cfi === null || cfi === this.#saved) return;
    this.#saved = cfi;
    this.#lastSaveAt = Date.now();
    saveEpubPosition(bookId, cfi, this.fraction, this.chapter || null).catch(() => {
      // Saved again on the next move; a lost save costs at most one move.
      if (this.#saved === cfi) this.#saved = null;
    });
  }

  /**
   * A turn forward (`next`) or back, `atEdge` when the view shows the book's last page (or its
   * first): whether the view should turn its page. At the edge the end card shows instead (the
   * position saved: the book is read); on the card one more turn the same way opens the book it
   * offers (the next, or the previous), a turn the other way closes it.
   */
  turn(way: 'next' | 'previous', atEdge: boolean): boolean {
    if (this.end !== null) {
      if (way !== this.end) this.closeEnd();
      else if (this.offered !== null) void this.openOffered();
      return false;
    }
    if (atEdge && this.phase === 'ready') {
      this.end = way;
      this.flush();
      return false;
    }
    return true;
  }

  /** Opens the book the card offers in the reader that fits it (`openOfferedBook`). */
  async openOffered(): Promise<void> {
    await openOfferedBook(this, {
      epub: (bookId) => void this.open(bookId),
      pages: async (bookId, at) => {
        const { reader } = await import('./reader.svelte');
        if (this.offered?.book_id !== bookId) return;
        // The comic reader goes back, on Esc, where this one would have.
        this.close();
        void reader.open(bookId, at);
      },
    });
  }
}

export const epubReader = new EpubReaderState();

/**
 * What the reader says when the book's file could not be fetched (`status`, and the error its
 * reply carries): not on the device yet, or the status.
 */
export function fileFailure(failure: CommandError, status: number): CommandError {
  return {
    kind: 'server',
    message: failure.kind === 'not_downloaded' ? t('epub-not-on-device') : t('epub-open-failed-status', { status }),
  };
}
