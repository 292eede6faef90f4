/**
 * The reader's own pace in a book, to say how long the chapter and the book have left: how much
 * of the book's text passed per minute as the reader turned pages, summed over every time the
 * book was read on this device (kept per book in local storage).
 *
 * Text is counted in foliate-js's units of the book's size (what its `time.section` and
 * `time.total` say is left), so a page of a small font counts for more than one of a large font.
 * A turn back, a jump (the table of contents, search, the slider: more than
 * {@link MAX_UNITS_PER_TURN} at once) or a long pause (more than {@link MAX_TURN_MS} on one page)
 * says nothing of the pace and is not counted.
 */

/** How the reader read a book: text units passed, over how long, in how many page turns. */
export interface Pace {
  units: number;
  ms: number;
  turns: number;
}

/** No time is said before this many page turns over at least {@link PACE_MIN_MS}. */
export const PACE_MIN_TURNS = 5;
export const PACE_MIN_MS = 60_000;
/** A page shown longer than this was not being read the whole time. */
export const MAX_TURN_MS = 5 * 60_000;
/** A turn shorter than this was a page skipped, not read. */
export const MIN_TURN_MS = 1_000;
/** More text than this at once is a jump, not a page. */
export const MAX_UNITS_PER_TURN = 5;

const KEY = 'carrel.epub.pace.';

const EMPTY: Pace = { units: 0, ms: 0, turns: 0 };

export function parsePace(raw: unknown): Pace {
  if (typeof raw !== 'object' || raw === null) return { ...EMPTY };
  const v = raw as Record<string, unknown>;
  const ok = (n: unknown) => typeof n === 'number' && Number.isFinite(n) && n >= 0;
  if (!ok(v.units) || !ok(v.ms) || !ok(v.turns)) return { ...EMPTY };
  return { units: v.units as number, ms: v.ms as number, turns: v.turns as number };
}

export function loadPace(bookId: number): Pace {
  try {
    const raw = globalThis.localStorage?.getItem(KEY + bookId);
    return parsePace(raw ? JSON.parse(raw) : null);
  } catch {
    return { ...EMPTY };
  }
}

function storePace(bookId: number, pace: Pace): void {
  try {
    globalThis.localStorage?.setItem(KEY + bookId, JSON.stringify(pace));
  } catch {
    // Storage full or refused: the pace holds for this session only.
  }
}

/**
 * The minutes reading `remaining` units takes at `pace` (rounded up; at least one while there is
 * text left), or `null` while too little is known of the pace.
 */
export function minutesLeft(pace: Pace, remaining: number): number | null {
  if (pace.turns < PACE_MIN_TURNS || pace.ms < PACE_MIN_MS || pace.units <= 0) return null;
  if (!(remaining > 0)) return 0;
  const perMinute = pace.units / (pace.ms / 60_000);
  return Math.max(1, Math.ceil(remaining / perMinute));
}

/** Measures the pace in one book as its pages turn. */
export class PaceMeter {
  pace: Pace;
  #bookId: number;
  #last: { remaining: number; at: number } | null = null;

  constructor(bookId: number) {
    this.#bookId = bookId;
    this.pace = loadPace(bookId);
  }

  /**
   * The view shows a new place, `remaining` units before the book's end, at `at` (ms): the page
   * left is counted when it was a page read forward.
   */
  moved(remaining: number, at: number = Date.now()): void {
    const last = this.#last;
    this.#last = { remaining, at };
    if (last === null || !Number.isFinite(remaining)) return;
    const units = last.remaining - remaining;
    const ms = at - last.at;
    if (units <= 0 || units > MAX_UNITS_PER_TURN || ms < MIN_TURN_MS || ms > MAX_TURN_MS) return;
    this.pace = { units: this.pace.units + units, ms: this.pace.ms + ms, turns: this.pace.turns + 1 };
    storePace(this.#bookId, this.pace);
  }

  /** Minutes left for the chapter and for the book, or `null` while too little is known. */
  left(chapter: number, book: number): { chapter: number; book: number } | null {
    const inChapter = minutesLeft(this.pace, chapter);
    const inBook = minutesLeft(this.pace, book);
    return inChapter === null || inBook === null ? null : { chapter: inChapter, book: inBook };
  }
}
