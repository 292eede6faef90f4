/**
 * How the comic reader's page images loaded, shared by the page view and the strip: each page
 * by its index and attempt (a retry is a new attempt, so a new image element), and what the
 * pages shown add up to. A page decoded ahead of time (kept in `decoded`, or a PDF page drawn
 * and decoded) counts as loaded from the moment it is shown: its picture is already there, so
 * it is shown at once instead of after its element's load event.
 */
import { DecodedPages } from './pageCache';
import { reader } from './stores/reader.svelte';

/** How one page's image settled; absent while it loads. */
export type PageLoad = 'loading' | 'loaded' | 'offline' | 'failed';

export class PageLoads {
  /** How each page (by index and attempt) loaded. */
  #loads = $state<Partial<Record<string, PageLoad>>>({});
  /** How many times each page was asked for again. */
  #retries = $state<Partial<Record<number, number>>>({});

  /** The key of a page's current attempt (an image element is keyed by it). */
  keyOf(page: number): string {
    return `${page}:${this.#retries[page] ?? 0}`;
  }

  /** The comic pages decoded ahead of time around the page read. */
  readonly decoded = new DecodedPages();

  /** How the current attempt of `page` settled, if it has (a page decoded ahead has). */
  of(page: number): PageLoad | undefined {
    return this.#loads[this.keyOf(page)] ?? (this.ahead(page) ? 'loaded' : undefined);
  }

  /** The size of page `page`'s picture when it was decoded ahead of time. */
  sizeOf(page: number): { width: number; height: number } | null {
    if (reader.pdf !== null) return reader.pdf.decodedSize(page);
    const kept = this.decoded.get(reader.bookId === null ? null : reader.urlOf(page));
    return kept ? { width: kept.width, height: kept.height } : null;
  }

  /** Whether page `page`'s picture was decoded ahead of time (first attempts only). */
  ahead(page: number): boolean {
    if (this.#retries[page] !== undefined) return false;
    return this.sizeOf(page) !== null;
  }

  /**
   * What the pages shown add up to: a PDF page that could not be drawn fails them (it is not a
   * download to wait for), then one offline page, then one still loading.
   */
  stateOf(shown: readonly number[]): PageLoad {
    if (shown.some((page) => reader.failureOf(page) !== null)) return 'failed';
    const states = shown.map((page) => this.of(page) ?? 'loading');
    if (states.includes('offline')) return 'offline';
    if (states.includes('loading')) return 'loading';
    return 'loaded';
  }

  /** Notes how the image element of one page (and attempt) settled, and the page's shape. */
  settled = (event: Event): void => {
    const image = event.currentTarget as HTMLImageElement;
    // An element that left the page and let go of its picture may still say so (an error):
    // the page's next element, under the same key, tells how it loaded.
    if (!image.isConnected) return;
    const at = image.dataset.key;
    if (at !== undefined) this.#loads[at] = event.type === 'load' ? 'loaded' : 'offline';
    if (event.type === 'load') reader.measured(Number(image.dataset.pageIndex), image.naturalWidth, image.naturalHeight);
  };

  /** Asks for these pages again (each gets a new attempt). */
  retry(pages: readonly number[]): void {
    const next = { ...this.#retries };
    for (const page of pages) next[page] = (next[page] ?? 0) + 1;
    this.#retries = next;
  }
}
