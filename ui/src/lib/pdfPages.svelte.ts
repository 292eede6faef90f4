/**
 * A whole-file PDF's pages as pictures for the page reader, so a PDF reads with everything the
 * comic reader has (fits, spreads, the strip, zoom, keys, the slider, positions saved and
 * synced as pages). The file comes by book id from the app's `carrel-book` protocol; pdf.js
 * parses it in its worker and draws each page into a canvas the size the reader shows it at (the
 * fit, the layout, the zoom and the window, in device pixels: a page fitted to the screen is
 * drawn at that size, not larger), kept as a `blob:` address; a page shown larger than it was
 * drawn (zoomed in, a wider window) is drawn again, sharper. The pages around the one read are
 * drawn ahead, in the direction the reader is going first, each decoded as soon as it is drawn
 * so that a turn to it only paints; a drawing made while a page is shown waits for the window's
 * next paint, so a turn is never held up by a page ahead. The picture is made (PNG) off the
 * window's thread, in a worker of its own on an `OffscreenCanvas` where the webview has one.
 * The pages nearest the one read are kept, within bounds in bytes, the farthest dropped first.
 *
 * The PDF is untrusted, so pdf.js runs locked down: no script in the file ever runs (pdf.js
 * runs none without its scripting sandbox, which is not loaded, and XFA forms are off); nothing
 * is compiled from the file (`isEvalSupported: false`, and the window's CSP has no
 * 'unsafe-eval' to fall back on); a picture in the file claiming more than `MAX_IMAGE_PIXELS`
 * is not decoded; fonts and images come only from the file (no standard-font,
 * CMap or WebAssembly address is given, so pdf.js fetches nothing else); links, forms and
 * other annotations are not drawn as controls — only the page's picture reaches the window, and
 * its text as plain text (`textOf`, for search and highlights; set as text, never as markup).
 */
import { AnnotationMode, getDocument, GlobalWorkerOptions, type PDFDocumentProxy } from 'pdfjs-dist';
import workerUrl from 'pdfjs-dist/build/pdf.worker.min.mjs?url';
import { afterNextPaint } from './frames';
import { decodedBytes, evictionScore, type Travel } from './pageCache';
import { pageTextOf, type PageText, type RawTextItem } from './pdfText';

GlobalWorkerOptions.workerSrc = workerUrl;

/** How many drawn pages are kept (as compressed pictures). */
export const KEPT_PAGES = 12;
/** What the compressed pictures kept may take, in bytes. */
export const KEPT_BYTES = 48 * 1024 * 1024;
/**
 * What the pictures kept decoded may take (width × height × 4 bytes each), the nearest the page
 * read: a page drawn for a large window takes the room of several drawn for a small one.
 */
export const DECODED_BYTES = 96 * 1024 * 1024;
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

/** How soon a page is drawn: its distance from the page read, a page behind the reader (as they
 * go, forwards or backwards) after the page ahead at the same distance. */
export function nearness(page: number, focus: number, travel: Travel = 1): number {
  return evictionScore(page, focus, travel);
}

/** The page to drop from `kept` to make room: the farthest from `focus`, behind the reader
 * before ahead. */
export function farthest(kept: Iterable<number>, focus: number, travel: Travel = 1): number | null {
  let worst: number | null = null;
  for (const page of kept) {
    if (worst === null || nearness(page, focus, travel) > nearness(worst, focus, travel)) worst = page;
  }
  return worst;
}

/** The worker that makes drawn pages into PNG pictures; null where the webview cannot. */
let encoder: Worker | null | undefined;
let encodings = 0;
const encoded = new Map<number, (answer: { blob?: Blob; error?: string }) => void>();

function pngWorker(): Worker | null {
  if (encoder !== undefined) return encoder;
  encoder = null;
  if (typeof Worker !== 'function' || typeof OffscreenCanvas !== 'function' || typeof createImageBitmap !== 'function') return null;
  try {
    const worker = new Worker(new URL('./pdfEncode.worker.ts', import.meta.url), { type: 'module' });
    worker.onmessage = (event: MessageEvent<{ id: number; blob?: Blob; error?: string }>) => {
      const { id, ...answer } = event.data;
      encoded.get(id)?.(answer);
      encoded.delete(id);
    };
    worker.onerror = () => {
      // The worker cannot run here: pictures are made on the window's thread from now on.
      encoder = null;
      for (const answer of encoded.values()) answer({ error: 'no worker' });
      encoded.clear();
    };
    encoder = worker;
  } catch {
    encoder = null;
  }
  return encoder;
}

/** The drawn canvas as a PNG picture: made in the worker where it can be, else here. */
async function pngOf(canvas: HTMLCanvasElement): Promise<Blob | null> {
  const worker = pngWorker();
  if (worker !== null) {
    try {
      const bitmap = await createImageBitmap(canvas);
      const answer = await new Promise<{ blob?: Blob; error?: string }>((resolve) => {
        const id = ++encodings;
        encoded.set(id, resolve);
        worker.postMessage({ id, bitmap }, [bitmap]);
      });
      if (answer.blob) return answer.blob;
    } catch {
      // Made here instead.
    }
  }
  return new Promise<Blob | null>((resolve) => canvas.toBlob(resolve, 'image/png'));
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
  /** The sizes of the compressed pictures kept. */
  #blobBytes = new Map<number, number>();
  /** The pages asked for and not drawn yet. */
  #wanted = new Set<number>();
  #drawing = false;
  #focus = 0;
  #travel: Travel = 1;
  #destroyed = false;
  /** Each page's text once read (for search and highlights), read once. */
  #texts = new Map<number, Promise<PageText>>();

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

  /**
   * The page read now, and which way the reader is going: pages nearest it are drawn first and
   * kept longest, those ahead before those as far behind.
   */
  focusOn(index: number, travel: Travel = 1): void {
    this.#focus = index;
    this.#travel = travel;
  }

  /** The size of page `index`'s picture when it is drawn and decoded, ready to be shown at once. */
  decodedSize(index: number): { width: number; height: number } | null {
    const url = this.urls[index];
    const picture = this.#decoded.get(index);
    if (url === undefined || picture === undefined || picture.src !== url || picture.naturalWidth === 0) return null;
    return { width: picture.naturalWidth, height: picture.naturalHeight };
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

  /**
   * Page `index`'s text and where each run of it is on the page, read once by pdf.js's worker
   * (off the window's thread) and kept while the book is open.
   */
  textOf(index: number): Promise<PageText> {
    let text = this.#texts.get(index);
    if (text === undefined) {
      text = (async () => {
        const page = await this.#doc.getPage(index + 1);
        try {
          const content = await page.getTextContent();
          const viewport = page.getViewport({ scale: 1 });
          return pageTextOf(content.items as RawTextItem[], { transform: viewport.transform, width: viewport.width, height: viewport.height });
        } finally {
          page.cleanup();
        }
      })();
      this.#texts.set(index, text);
      // A page that could not be read is tried again the next time.
      text.catch(() => this.#texts.delete(index));
    }
    return text;
  }

  /** Stops drawing and lets go of every page and of the file. */
  destroy(): void {
    this.#destroyed = true;
    this.#wanted.clear();
    this.#decoded.clear();
    this.#blobBytes.clear();
    this.#texts.clear();
    for (const url of Object.values(this.urls)) URL.revokeObjectURL(url);
    this.urls = {};
    void this.#doc.destroy();
  }

  async #drawNext(): Promise<void> {
    if (this.#drawing || this.#destroyed) return;
    this.#drawing = true;
    try {
      while (this.#wanted.size > 0 && !this.#destroyed) {
        // The nearest page to the one read first, ahead before behind as the reader goes; the
        // others may no longer be wanted.
        const near = (page: number) => nearness(page, this.#focus, this.#travel);
        const index = [...this.#wanted].reduce((a, b) => (near(b) < near(a) ? b : a));
        // A page ahead is drawn once the window has painted: a turn just made shows first.
        if (index !== this.#focus) {
          await afterNextPaint();
          if (this.#destroyed) return;
          if (this.#wanted.has(this.#focus)) continue;
        }
        this.#wanted.delete(index);
        try {
          const { url, scale, bytes } = await this.#draw(index);
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
          this.#blobBytes.set(index, bytes);
          this.#trimDecoded();
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

  /** Lets go of the decoded pictures farthest from the page read until the rest fit their bound. */
  #trimDecoded(): void {
    const bytesOf = (picture: HTMLImageElement) => decodedBytes(picture.naturalWidth, picture.naturalHeight);
    let total = 0;
    for (const picture of this.#decoded.values()) total += bytesOf(picture);
    while (total > DECODED_BYTES && this.#decoded.size > 1) {
      const drop = farthest(
        [...this.#decoded.keys()].filter((page) => page !== this.#focus),
        this.#focus,
        this.#travel,
      );
      if (drop === null) break;
      total -= bytesOf(this.#decoded.get(drop)!);
      this.#decoded.delete(drop);
    }
  }

  #keep(index: number, url: string): void {
    const before = this.urls[index];
    const urls = { ...this.urls, [index]: url };
    const blobBytes = () => [...this.#blobBytes.values()].reduce((sum, bytes) => sum + bytes, 0);
    for (;;) {
      const kept = Object.keys(urls).map(Number);
      if (kept.length <= KEPT_PAGES && blobBytes() <= KEPT_BYTES) break;
      const drop = farthest(
        kept.filter((page) => page !== index && page !== this.#focus),
        this.#focus,
        this.#travel,
      );
      if (drop === null) break;
      URL.revokeObjectURL(urls[drop]);
      delete urls[drop];
      this.#drawnAt.delete(drop);
      this.#decoded.delete(drop);
      this.#blobBytes.delete(drop);
    }
    this.urls = urls;
    // The picture it replaces goes once the new one is in place.
    if (before !== undefined && before !== url) setTimeout(() => URL.revokeObjectURL(before), 1000);
  }

  async #draw(index: number): Promise<{ url: string; scale: number; bytes: number }> {
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
      const blob = await pngOf(canvas);
      // The canvas's memory goes at once, not when it is collected.
      canvas.width = 0;
      canvas.height = 0;
      if (blob === null) throw new Error('the page could not be turned into a picture');
      return { url: URL.createObjectURL(blob), scale, bytes: blob.size };
    } finally {
      page.cleanup();
    }
  }
}
