/**
 * A whole-file PDF's pages as pictures for the page reader, so a PDF reads with everything the
 * comic reader has (fits, spreads, the strip, zoom, keys, the slider, positions saved and
 * synced as pages). The file comes by book id from the app's `carrel-book` protocol; pdf.js
 * parses it in its worker and draws each page into a canvas the size the reader shows it at (the
 * fit, the layout, the zoom and the window, in device pixels: a page fitted to the screen is
 * drawn at that size, not larger), kept as a `blob:` address; a page shown larger than it was
 * drawn (zoomed in, a wider window) is drawn again, sharper. The pages nearest the one read are
 * kept, the farthest dropped.
 *
 * The PDF is untrusted, so pdf.js runs locked down: no script in the file ever runs (pdf.js
 * runs none without its scripting sandbox, which is not loaded, and XFA forms are off); nothing
 * is compiled from the file (`isEvalSupported: false`, and the window's CSP has no
 * 'unsafe-eval' to fall back on); a picture in the file claiming more than `MAX_IMAGE_PIXELS`
 * is not decoded; fonts and images come only from the file (no standard-font,
 * CMap or WebAssembly address is given, so pdf.js fetches nothing else); links, forms and
 * other annotations are not drawn as controls — only the page's picture reaches the window.
 */
import { AnnotationMode, getDocument, GlobalWorkerOptions, type PDFDocumentProxy } from 'pdfjs-dist';
import workerUrl from 'pdfjs-dist/build/pdf.worker.min.mjs?url';

GlobalWorkerOptions.workerSrc = workerUrl;

/** How many drawn pages are kept (as compressed pictures). */
export const KEPT_PAGES = 12;
/** How many of them are also kept decoded (each a few MB), the nearest the page read. */
export const DECODED_PAGES = 4;
/** The longest side a page is drawn at, in pixels. */
export const MAX_SIDE = 4096;
/** The most pixels one drawn page may have. */
export const MAX_PIXELS = 16_000_000;
/**
 * The most pixels a picture inside the PDF may claim for pdf.js to decode it (100 million, as
 * for comic pages and covers): a few bytes claiming 50,000 × 50,000 would ask for 10 GB.
 */
export const MAX_IMAGE_PIXELS = 100_000_000;

/** One line of a PDF's outline (its table of contents), flattened. */
export interface OutlineItem {
  title: string;
  /** 0-based page, or null when its destination leads nowhere in this file. */
  page: number | null;
  depth: number;
}

/** The box (device pixels) a page is shown in; a side may be unbounded (`Infinity`). */
export interface Box {
  width: number;
  height: number;
}

/** A picture drawn at least this much smaller than needed is drawn again. */
export const REDRAW_BELOW = 0.8;

/**
 * The scale that draws a page `width`×`height` (PDF points) to fit `box`, within the limits
 * (unbounded both ways: 96 pixels an inch, as the page's own size).
 */
export function drawScale(width: number, height: number, box: Box): number {
  if (!(width > 0) || !(height > 0)) return 1;
  let scale = Math.min(box.width / width, box.height / height);
  if (!Number.isFinite(scale) || scale <= 0) scale = 96 / 72;
  scale = Math.max(scale, 128 / Math.max(width, height));
  scale = Math.min(scale, MAX_SIDE / Math.max(width, height));
  const pixels = width * height * scale * scale;
  if (pixels > MAX_PIXELS) scale *= Math.sqrt(MAX_PIXELS / pixels);
  return scale;
}

/** How soon a page is drawn: its distance from the page read, a page behind it after the page
 * ahead at the same distance. */
export function nearness(page: number, focus: number): number {
  return Math.abs(page - focus) + (page < focus ? 0.5 : 0);
}

/** The page to drop from `kept` to make room: the farthest from `focus`. */
export function farthest(kept: Iterable<number>, focus: number): number | null {
  let worst: number | null = null;
  for (const page of kept) {
    if (worst === null || Math.abs(page - focus) > Math.abs(worst - focus)) worst = page;
  }
  return worst;
}

export class PdfPages {
  /** Drawn pages' addresses by 0-based index. */
  urls = $state<Record<number, string>>({});
  /** Pages that could not be drawn, with why. */
  failures = $state<Record<number, string>>({});
  readonly pageCount: number;

  #doc: PDFDocumentProxy;
  /** The box pages are shown in now. */
  #box: Box = { width: 1600, height: 1600 };
  /** Each page's size in points, once known, and the scale its kept picture was drawn at. */
  #sizes = new Map<number, { width: number; height: number }>();
  #drawnAt = new Map<number, number>();
  /** Each kept picture, decoded once it is drawn, so turning to it only paints. */
  #decoded = new Map<number, HTMLImageElement>();
  /** The pages asked for and not drawn yet. */
  #wanted = new Set<number>();
  #drawing = false;
  #focus = 0;
  #destroyed = false;

  private constructor(doc: PDFDocumentProxy) {
    this.#doc = doc;
    this.pageCount = doc.numPages;
  }

  /** Parses a PDF's bytes (rejects on a file that is not a PDF, or a damaged one). */
  static async load(bytes: ArrayBuffer): Promise<PdfPages> {
    const task = getDocument({
      data: new Uint8Array(bytes),
      isEvalSupported: false,
      enableXfa: false,
      maxImageSize: MAX_IMAGE_PIXELS,
      stopAtErrors: false,
      useWasm: false,
      // Fonts are the file's own; a font it names but lacks is drawn with a font of this system.
      useSystemFonts: true,
    });
    return new PdfPages(await task.promise);
  }

  /**
   * The address of page `index` drawn, or null while it is drawn (it is asked for by this
   * call; the address appears in `urls` when it is ready).
   */
  url(index: number): string | null {
    const url = this.urls[index];
    if (url !== undefined) {
      // Shown larger than it was drawn: drawn again, the old picture shown meanwhile.
      const size = this.#sizes.get(index);
      const drawn = this.#drawnAt.get(index);
      if (size && drawn && drawn < REDRAW_BELOW * drawScale(size.width, size.height, this.#box)) this.#want(index);
      return url;
    }
    this.#want(index);
    return null;
  }

  #want(index: number): void {
    if (index >= 0 && index < this.pageCount && this.failures[index] === undefined && !this.#wanted.has(index)) {
      this.#wanted.add(index);
      // Drawn after the current update: never state changed while the window reads it.
      queueMicrotask(() => void this.#drawNext());
    }
  }

  /** The box (device pixels) pages are shown in now: the reader's fit, layout, zoom and window. */
  showIn(box: Box): void {
    this.#box = box;
  }

  /** The page read now: pages nearest it are drawn first and kept longest. */
  focusOn(index: number): void {
    this.#focus = index;
  }

  /** Lets a page that failed be asked for again. */
  forget(index: number): void {
    if (this.failures[index] === undefined) return;
    const { [index]: _, ...rest } = this.failures;
    this.failures = rest;
  }

  /** The file's outline, flattened in order; empty when it has none. */
  async outline(): Promise<OutlineItem[]> {
    const items: OutlineItem[] = [];
    let top;
    try {
      top = await this.#doc.getOutline();
    } catch {
      return items;
    }
    type Node = NonNullable<typeof top>[number];
    const walk = async (nodes: Node[], depth: number) => {
      for (const node of nodes) {
        if (items.length >= 2000) return;
        items.push({ title: (node.title ?? '').trim() || 'Untitled', page: await this.#pageOf(node.dest), depth });
        if (node.items?.length && depth < 8) await walk(node.items, depth + 1);
      }
    };
    await walk(top ?? [], 0);
    return items;
  }

  async #pageOf(dest: string | unknown[] | null): Promise<number | null> {
    try {
      const explicit = typeof dest === 'string' ? await this.#doc.getDestination(dest) : dest;
      if (!Array.isArray(explicit) || explicit.length === 0) return null;
      const target = explicit[0];
      const page = typeof target === 'number' ? target : await this.#doc.getPageIndex(target as never);
      return Number.isInteger(page) && page >= 0 && page < this.pageCount ? page : null;
    } catch {
      return null;
    }
  }

  /** Stops drawing and lets go of every page and of the file. */
  destroy(): void {
    this.#destroyed = true;
    this.#wanted.clear();
    this.#decoded.clear();
    for (const url of Object.values(this.urls)) URL.revokeObjectURL(url);
    this.urls = {};
    void this.#doc.destroy();
  }

  async #drawNext(): Promise<void> {
    if (this.#drawing || this.#destroyed) return;
    this.#drawing = true;
    try {
      while (this.#wanted.size > 0 && !this.#destroyed) {
        // The nearest page to the one read first, the next before the previous (pages are read
        // forwards); the others may no longer be wanted.
        const index = [...this.#wanted].reduce((a, b) => (nearness(b, this.#focus) < nearness(a, this.#focus) ? b : a));
        this.#wanted.delete(index);
        try {
          const { url, scale } = await this.#draw(index);
          if (this.#destroyed) {
            URL.revokeObjectURL(url);
            return;
          }
          this.#drawnAt.set(index, scale);
          // Decoded before it is offered: a page drawn ahead then turns to at once.
          const picture = new Image();
          picture.src = url;
          await picture.decode().catch(() => {});
          if (this.#destroyed) {
            URL.revokeObjectURL(url);
            return;
          }
          this.#decoded.set(index, picture);
          while (this.#decoded.size > DECODED_PAGES) {
            const drop = farthest(this.#decoded.keys(), this.#focus);
            if (drop === null) break;
            this.#decoded.delete(drop);
          }
          this.#keep(index, url);
        } catch (reason) {
          if (this.#destroyed) return;
          this.failures = { ...this.failures, [index]: reason instanceof Error ? reason.message : String(reason) };
        }
      }
    } finally {
      this.#drawing = false;
    }
  }

  #keep(index: number, url: string): void {
    const before = this.urls[index];
    const urls = { ...this.urls, [index]: url };
    const kept = Object.keys(urls).map(Number);
    if (kept.length > KEPT_PAGES) {
      const drop = farthest(kept, this.#focus);
      if (drop !== null && drop !== index) {
        URL.revokeObjectURL(urls[drop]);
        delete urls[drop];
        this.#drawnAt.delete(drop);
        this.#decoded.delete(drop);
      }
    }
    this.urls = urls;
    // The picture it replaces goes once the new one is in place.
    if (before !== undefined && before !== url) setTimeout(() => URL.revokeObjectURL(before), 1000);
  }

  async #draw(index: number): Promise<{ url: string; scale: number }> {
    const page = await this.#doc.getPage(index + 1);
    try {
      const base = page.getViewport({ scale: 1 });
      this.#sizes.set(index, { width: base.width, height: base.height });
      const scale = drawScale(base.width, base.height, this.#box);
      const viewport = page.getViewport({ scale });
      const canvas = document.createElement('canvas');
      canvas.width = Math.max(1, Math.floor(viewport.width));
      canvas.height = Math.max(1, Math.floor(viewport.height));
      const context = canvas.getContext('2d');
      if (context === null) throw new Error('no canvas to draw the page on');
      await page.render({ canvas, canvasContext: context, viewport, annotationMode: AnnotationMode.ENABLE, background: '#ffffff' }).promise;
      const blob = await new Promise<Blob | null>((resolve) => canvas.toBlob(resolve, 'image/png'));
      // The canvas's memory goes at once, not when it is collected.
      canvas.width = 0;
      canvas.height = 0;
      if (blob === null) throw new Error('the page could not be turned into a picture');
      return { url: URL.createObjectURL(blob), scale };
    } finally {
      page.cleanup();
    }
  }
}
