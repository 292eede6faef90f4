/**
 * The bookmarks and highlights (with their notes) of the book open in the EPUB or PDF reader: read
 * when it opens, changed through the Rust side, listed by chapter in the book's order.
 *
 * The readers draw the highlights on the page (foliate-js's overlayer, or boxes over a PDF's
 * page); this store only knows them as data.
 */
import {
  addAnnotation,
  deleteAnnotation,
  exportAnnotations,
  listAnnotations,
  toCommandError,
  updateAnnotation,
  type Annotation,
  type AnnotationExportFormat,
  type CommandError,
  type HighlightColour,
  type NewAnnotation,
  type PageRect,
  type TextQuote,
} from '../ipc';
import { t } from '../i18n.svelte';

export type { Annotation, AnnotationExportFormat, HighlightColour };

/** The longest quote kept with a highlight, in characters. */
export const MAX_QUOTE_CHARS = 4000;

export const HIGHLIGHT_COLOURS: readonly HighlightColour[] = ['yellow', 'green', 'blue', 'pink'];

/** The message that names each highlight colour. */
const COLOUR_MESSAGES: Record<HighlightColour, string> = {
  yellow: 'book-highlight-yellow',
  green: 'book-highlight-green',
  blue: 'book-highlight-blue',
  pink: 'book-highlight-pink',
};

/** A highlight colour's name, as a reader reads it (a colour swatch's label and tooltip). */
export function highlightColourLabel(value: HighlightColour): string {
  return t(COLOUR_MESSAGES[value]);
}

/** The colour a highlight is drawn in on the page (under the text, see-through). */
export const HIGHLIGHT_CSS: Record<HighlightColour, string> = {
  yellow: '#facc15',
  green: '#4ade80',
  blue: '#60a5fa',
  pink: '#f472b6',
};

/** The commands this store uses (replaced in tests). */
export interface AnnotationsApi {
  list(bookId: number): Promise<Annotation[]>;
  add(bookId: number, annotation: NewAnnotation): Promise<Annotation>;
  update(id: number, note: string | null, colour: HighlightColour | null): Promise<Annotation>;
  remove(id: number): Promise<void>;
  export(bookId: number, format: AnnotationExportFormat): Promise<string>;
}

export const ipcAnnotations: AnnotationsApi = {
  list: listAnnotations,
  add: addAnnotation,
  update: updateAnnotation,
  remove: deleteAnnotation,
  export: exportAnnotations,
};

/** A chapter's bookmarks and highlights. */
export interface AnnotationGroup {
  /** The chapter's label; `null` when the book names none there. */
  chapter: string | null;
  items: Annotation[];
}

/** An annotation's CFI, `null` for a PDF place. */
export function cfiOf(annotation: Annotation): string | null {
  return annotation.locator.type === 'epub' ? annotation.locator.cfi : null;
}

/** Groups consecutive annotations of the same chapter, keeping the book's order. */
export function groupByChapter(list: readonly Annotation[]): AnnotationGroup[] {
  const groups: AnnotationGroup[] = [];
  for (const item of list) {
    const chapter = item.chapter?.trim() || null;
    const last = groups[groups.length - 1];
    if (last && last.chapter === chapter) last.items.push(item);
    else groups.push({ chapter, items: [item] });
  }
  return groups;
}

export class BookAnnotations {
  bookId = $state<number | null>(null);
  /** In the book's order, as the Rust side lists them. */
  list = $state<Annotation[]>([]);
  error = $state<CommandError | null>(null);
  #api: AnnotationsApi;
  #generation = 0;

  constructor(api: AnnotationsApi = ipcAnnotations) {
    this.#api = api;
  }

  get groups(): AnnotationGroup[] {
    return groupByChapter(this.list);
  }

  get highlights(): Annotation[] {
    return this.list.filter((a) => a.kind === 'highlight');
  }

  /** The bookmark at exactly `cfi`, if there is one. */
  bookmarkAt(cfi: string | null): Annotation | null {
    if (cfi === null) return null;
    return this.list.find((a) => a.kind === 'bookmark' && cfiOf(a) === cfi) ?? null;
  }

  /** The bookmark on PDF page `page` (0-based), if there is one. */
  bookmarkOnPage(page: number): Annotation | null {
    return this.list.find((a) => a.kind === 'bookmark' && a.locator.type === 'pdf' && a.locator.page === page) ?? null;
  }

  /** The highlights drawn on PDF page `page`. */
  highlightsOnPage(page: number): Annotation[] {
    return this.list.filter((a) => a.kind === 'highlight' && a.locator.type === 'pdf' && a.locator.page === page);
  }

  /** Reads the book's annotations. */
  async load(bookId: number): Promise<void> {
    const generation = ++this.#generation;
    this.bookId = bookId;
    this.list = [];
    this.error = null;
    try {
      const list = await this.#api.list(bookId);
      if (generation === this.#generation) this.list = list;
    } catch (reason) {
      if (generation === this.#generation) this.error = toCommandError(reason);
    }
  }

  /** Reads the list again (after an addition: the Rust side knows the book's order). */
  async #reload(): Promise<void> {
    if (this.bookId === null) return;
    const generation = this.#generation;
    const list = await this.#api.list(this.bookId);
    if (generation === this.#generation) this.list = list;
  }

  /** Bookmarks `cfi` (in `chapter`), or removes the bookmark already there: the bookmark added, or null. */
  async toggleBookmark(cfi: string, chapter: string | null): Promise<Annotation | null> {
    const existing = this.bookmarkAt(cfi);
    if (existing) {
      await this.remove(existing.id);
      return null;
    }
    return await this.#add({ kind: 'bookmark', locator: { type: 'epub', cfi }, ...(chapter ? { chapter } : {}) });
  }

  /** Bookmarks PDF page `page`, or removes the bookmark already there: the bookmark added, or null. */
  async togglePageBookmark(page: number, chapter: string | null): Promise<Annotation | null> {
    const existing = this.bookmarkOnPage(page);
    if (existing) {
      await this.remove(existing.id);
      return null;
    }
    return await this.#add({ kind: 'bookmark', locator: { type: 'pdf', page, rects: [] }, ...(chapter ? { chapter } : {}) });
  }

  /** Highlights text on PDF page `page` (`quote`, drawn as `rects`) in `colour`, with a note if one is written. */
  async highlightOnPage(
    page: number,
    quote: TextQuote,
    rects: PageRect[],
    colour: HighlightColour,
    note: string,
    chapter: string | null,
  ): Promise<Annotation> {
    const text = note.trim();
    const exact = quote.exact.slice(0, MAX_QUOTE_CHARS);
    return await this.#add({
      kind: 'highlight',
      locator: { type: 'pdf', page, quote: { ...quote, exact }, rects },
      quote: exact,
      colour,
      ...(text ? { note: text } : {}),
      ...(chapter ? { chapter } : {}),
    });
  }

  /** Highlights the passage `cfi` (its text `quote`) in `colour`, with a note if one is written. */
  async highlight(cfi: string, quote: string, colour: HighlightColour, note: string, chapter: string | null): Promise<Annotation> {
    const text = note.trim();
    return await this.#add({
      kind: 'highlight',
      locator: { type: 'epub', cfi },
      // The Rust side keeps at most 4,000 characters of a quote.
      quote: quote.slice(0, MAX_QUOTE_CHARS),
      colour,
      ...(text ? { note: text } : {}),
      ...(chapter ? { chapter } : {}),
    });
  }

  async #add(annotation: NewAnnotation): Promise<Annotation> {
    const bookId = this.bookId;
    if (bookId === null) throw { kind: 'invalid_input', message: 'no book' } satisfies CommandError;
    const added = await this.#api.add(bookId, annotation);
    this.list = [...this.list, added];
    await this.#reload().catch(() => {});
    return added;
  }

  /** Changes an annotation's note (blank: none) and a highlight's colour. */
  async update(id: number, note: string, colour: HighlightColour | null = null): Promise<Annotation> {
    const text = note.trim();
    const updated = await this.#api.update(id, text === '' ? null : text, colour);
    this.list = this.list.map((a) => (a.id === id ? updated : a));
    return updated;
  }

  async remove(id: number): Promise<void> {
    await this.#api.remove(id);
    this.list = this.list.filter((a) => a.id !== id);
  }

  /** The book's annotations as Markdown or JSON text. */
  async export(format: AnnotationExportFormat): Promise<string> {
    if (this.bookId === null) return '';
    return await this.#api.export(this.bookId, format);
  }

  reset(): void {
    this.#generation++;
    this.bookId = null;
    this.list = [];
    this.error = null;
  }
}

export const bookAnnotations = new BookAnnotations();
