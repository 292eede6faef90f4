/**
 * The comic reader's pages decoded ahead of time, so that a turn to one only paints it: the
 * pages around the one read, in the direction the reader is going, each fetched and decoded
 * (`HTMLImageElement.decode()`) before it is shown. The decoded pictures are kept within a
 * bound in bytes (width × height × 4, what a decoded picture takes), not a count of pages —
 * a large scan takes the room of several small pages. When the bound is passed, the page
 * farthest from the one read goes first, and of two as far, the one behind the reader. A page
 * the reader has left [`KEEP_WITHIN`] turns behind goes whatever the room left: after a long
 * comic the cache holds the pages around the one read, not the bound's worth of pages read.
 */

import { letGo } from './actions/letGo';

/**
 * What the decoded pages may take, in bytes: about 22 pages of 0.7 megapixels, four of a
 * 6-megapixel scan — the pages decoded ahead and behind with room to spare, while the window's
 * processes stay within 300 MiB after a long comic (`make bench`'s memory row).
 */
export const DECODED_BYTES = 96 * 1024 * 1024;
/** How many pages (or two-page spreads) are decoded ahead in the direction of reading. */
export const DECODE_AHEAD = 3;
/** How many are decoded behind, for a reader who turns back once. */
export const DECODE_BEHIND = 1;
/**
 * How far from the page read (in turns, as [`evictionScore`] counts them) a decoded page is
 * kept at all: the pages decoded each way, and a few turns back the reader may go again.
 */
export const KEEP_WITHIN = DECODE_AHEAD + DECODE_BEHIND + 1;

/** Forwards (+1) or backwards (−1) through the book. */
export type Travel = 1 | -1;

/** The bytes a decoded picture of `width` × `height` takes. */
export function decodedBytes(width: number, height: number): number {
  return Math.max(1, Math.round(width)) * Math.max(1, Math.round(height)) * 4;
}

/**
 * The pages to decode around those shown, in the order to ask for them: the pages ahead in the
 * direction of travel, nearest first, then those behind. With two pages shown at a time
 * (`perTurn` 2), each turn shows two, so twice as many pages are taken each way.
 */
export function pagesAround(
  shown: readonly number[],
  pageCount: number,
  travel: Travel,
  perTurn = Math.max(1, shown.length),
  ahead = DECODE_AHEAD,
  behind = DECODE_BEHIND,
): number[] {
  if (shown.length === 0 || pageCount <= 0) return [];
  const first = Math.min(...shown);
  const last = Math.max(...shown);
  const forwards: number[] = [];
  const backwards: number[] = [];
  const [nForward, nBackward] = travel === 1 ? [ahead, behind] : [behind, ahead];
  for (let page = last + 1; page < pageCount && forwards.length < nForward * perTurn; page++) forwards.push(page);
  for (let page = first - 1; page >= 0 && backwards.length < nBackward * perTurn; page--) backwards.push(page);
  return travel === 1 ? [...forwards, ...backwards] : [...backwards, ...forwards];
}

/**
 * How soon a page should go: its distance from `focus`, and a half more for a page behind the
 * reader (against the direction of travel) — the larger, the sooner.
 */
export function evictionScore(page: number, focus: number, travel: Travel): number {
  const distance = Math.abs(page - focus);
  const behind = Math.sign(page - focus) === -travel;
  return distance + (behind ? 0.5 : 0);
}

/** One decoded page. */
export interface DecodedPage {
  page: number;
  url: string;
  image: HTMLImageElement;
  width: number;
  height: number;
  bytes: number;
}

/** Fetches and decodes the picture at `url`; rejects when it cannot be had. */
export type Decoder = (url: string) => Promise<HTMLImageElement>;

/** The webview's decoder: an image element, decoded (or only loaded, where decoding is not offered). */
export const decodeImage: Decoder = (url) => {
  const image = new Image();
  image.src = url;
  if (typeof image.decode === 'function') return image.decode().then(() => image);
  return new Promise((resolve, reject) => {
    image.onload = () => resolve(image);
    image.onerror = () => reject(new Error('the page could not be loaded'));
  });
};

export class DecodedPages {
  readonly limit: number;
  #decode: Decoder;
  #entries = new Map<string, DecodedPage>();
  #pending = new Map<string, Promise<DecodedPage | null>>();
  #bytes = 0;
  #focus = 0;
  #travel: Travel = 1;
  /** The pages shown: never dropped. */
  #shown = new Set<number>();

  constructor(limit = DECODED_BYTES, decode: Decoder = decodeImage) {
    this.limit = limit;
    this.#decode = decode;
  }

  /** The bytes the decoded pages take now. */
  get bytes(): number {
    return this.#bytes;
  }

  /** The pages kept, in no particular order. */
  get pages(): number[] {
    return [...this.#entries.values()].map((entry) => entry.page);
  }

  /** The decoded page at `url`, if kept. */
  get(url: string | null): DecodedPage | undefined {
    return url === null ? undefined : this.#entries.get(url);
  }

  /** Whether the picture at `url` is kept decoded. */
  has(url: string | null): boolean {
    return url !== null && this.#entries.has(url);
  }

  /**
   * The pages read now and the direction the reader is going: pages are kept by their
   * distance from them, and the pages shown are never dropped.
   */
  focusOn(shown: readonly number[], travel: Travel): void {
    this.#shown = new Set(shown);
    this.#focus = shown.length > 0 ? shown[0] : this.#focus;
    this.#travel = travel;
    this.#trim();
  }

  /**
   * Page `page`'s picture at `url`, fetched and decoded (at once when kept, shared when already
   * asked for); null when it cannot be had.
   */
  load(page: number, url: string): Promise<DecodedPage | null> {
    const kept = this.#entries.get(url);
    if (kept) return Promise.resolve(kept);
    const pending = this.#pending.get(url);
    if (pending) return pending;
    const loading = this.#decode(url).then(
      (image) => {
        this.#pending.delete(url);
        const width = image.naturalWidth;
        const height = image.naturalHeight;
        const entry: DecodedPage = { page, url, image, width, height, bytes: decodedBytes(width, height) };
        this.#add(entry);
        return entry;
      },
      () => {
        this.#pending.delete(url);
        return null;
      },
    );
    this.#pending.set(url, loading);
    return loading;
  }

  /** Lets go of every page. */
  clear(): void {
    for (const entry of this.#entries.values()) letGo(entry.image);
    this.#entries.clear();
    this.#pending.clear();
    this.#bytes = 0;
  }

  #add(entry: DecodedPage): void {
    const before = this.#entries.get(entry.url);
    if (before) this.#bytes -= before.bytes;
    this.#entries.set(entry.url, entry);
    this.#bytes += entry.bytes;
    this.#trim();
  }

  /**
   * Drops the pages farther than [`KEEP_WITHIN`] turns, then the farthest (never those shown)
   * until the rest fit the bound.
   */
  #trim(): void {
    const reach = KEEP_WITHIN * Math.max(1, this.#shown.size);
    const score = (entry: DecodedPage) => evictionScore(entry.page, this.#focus, this.#travel);
    const order = [...this.#entries.values()].filter((entry) => !this.#shown.has(entry.page)).sort((a, b) => score(b) - score(a));
    for (const entry of order) {
      if (score(entry) <= reach && this.#bytes <= this.limit) break;
      this.#entries.delete(entry.url);
      this.#bytes -= entry.bytes;
      letGo(entry.image);
    }
  }
}
