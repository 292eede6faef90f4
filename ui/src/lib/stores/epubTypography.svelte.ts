/**
 * The EPUB reader's typography: justified text, hyphenation and the space between paragraphs.
 * Kept per book (local storage); a book never set uses the default, which "Use as default"
 * makes of the book's own.
 */

export interface Typography {
  /** Paragraphs justified; otherwise aligned as the book says. */
  justify: boolean;
  /** Words broken at the line's end, in the book's language. */
  hyphenate: boolean;
  /** The space between paragraphs in em, `null` for the book's own. */
  paragraphSpacing: number | null;
}

export const PARAGRAPH_SPACING = { min: 0, max: 2, step: 0.25 } as const;

export const TYPOGRAPHY_DEFAULTS: Typography = { justify: false, hyphenate: false, paragraphSpacing: null };

const DEFAULT_KEY = 'carrel.epub.typography';
const bookKey = (bookId: number) => `${DEFAULT_KEY}.${bookId}`;

export function parseTypography(raw: unknown, fallback: Typography = TYPOGRAPHY_DEFAULTS): Typography {
  if (typeof raw !== 'object' || raw === null) return { ...fallback };
  const v = raw as Record<string, unknown>;
  const spacing = v.paragraphSpacing;
  return {
    justify: typeof v.justify === 'boolean' ? v.justify : fallback.justify,
    hyphenate: typeof v.hyphenate === 'boolean' ? v.hyphenate : fallback.hyphenate,
    paragraphSpacing:
      spacing === null
        ? null
        : typeof spacing === 'number' && Number.isFinite(spacing)
          ? Math.min(PARAGRAPH_SPACING.max, Math.max(PARAGRAPH_SPACING.min, spacing))
          : fallback.paragraphSpacing,
  };
}

function read(key: string): unknown {
  try {
    const raw = globalThis.localStorage?.getItem(key);
    return raw ? JSON.parse(raw) : null;
  } catch {
    return null;
  }
}

function write(key: string, value: Typography): void {
  try {
    globalThis.localStorage?.setItem(key, JSON.stringify(value));
  } catch {
    // Storage full or refused: the choice holds for this session only.
  }
}

/** The default: the one made with "Use as default", else the built-in one. */
export function defaultTypography(): Typography {
  return parseTypography(read(DEFAULT_KEY));
}

/** A book's typography: its own when set, else the default. */
export function loadTypography(bookId: number): Typography {
  const fallback = defaultTypography();
  const own = read(bookKey(bookId));
  return own === null ? fallback : parseTypography(own, fallback);
}

/** The space between paragraphs one step more (`+1`) or less (`-1`); from the book's own, the first step. */
export function stepSpacing(value: number | null, way: 1 | -1): number {
  if (value === null) return way > 0 ? 0.5 : 0;
  const next = value + way * PARAGRAPH_SPACING.step;
  return Math.min(PARAGRAPH_SPACING.max, Math.max(PARAGRAPH_SPACING.min, Math.round(next * 100) / 100));
}

/** The CSS put into every section of the book, after the reader's other choices. */
export function typographyCss(typography: Typography): string {
  const blocks = 'p, li, blockquote, dd';
  return [
    typography.justify ? `${blocks} { text-align: justify !important; }` : '',
    typography.hyphenate
      ? `html, body, ${blocks} { hyphens: auto !important; -webkit-hyphens: auto !important; }`
      : `html, body, ${blocks} { hyphens: manual !important; -webkit-hyphens: manual !important; }`,
    typography.paragraphSpacing !== null ? `p { margin-block: ${typography.paragraphSpacing}em !important; }` : '',
  ]
    .filter(Boolean)
    .join('\n');
}

/** The typography of the book open in the reader. */
export class EpubTypography {
  bookId = $state<number | null>(null);
  value = $state<Typography>({ ...TYPOGRAPHY_DEFAULTS });

  /** The book `bookId` is open: its typography. */
  load(bookId: number): void {
    this.bookId = bookId;
    this.value = loadTypography(bookId);
  }

  /** Changes the open book's typography, kept for it. */
  set(change: Partial<Typography>): void {
    this.value = parseTypography({ ...this.value, ...change });
    if (this.bookId !== null) write(bookKey(this.bookId), this.value);
  }

  /** Makes the open book's typography the default of books never set. */
  makeDefault(): void {
    write(DEFAULT_KEY, this.value);
  }
}

export const epubTypography = new EpubTypography();
