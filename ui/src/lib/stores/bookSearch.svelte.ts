/**
 * Search in the book open in the EPUB or the PDF reader: the words looked for, the places found (each with
 * its chapter and a few words around it), which one is shown, and where the reader was before
 * searching (gone back to when the search closes).
 *
 * The search itself is foliate-js's `view.search()`, an async generator that reads the book one
 * section at a time; {@link BookSearch.run} takes what it yields and gives the window a turn
 * between sections, so the reader stays responsive while a long book is searched. A PDF is
 * searched the same way, a page at a time (`pdfText.searchPages`).
 */

/** A place found: where it is (an EPUB CFI, or a PDF's `page:start:end`), its chapter (or
 * page) and the text around the match. */
export interface SearchHit {
  place: string;
  chapter: string;
  pre: string;
  match: string;
  post: string;
}

/** A chapter's places found, each with its index in the whole list. */
export interface SearchGroup {
  chapter: string;
  hits: { hit: SearchHit; index: number }[];
}

/** What foliate-js's `search()` yields: progress, a section's matches, or `'done'`. */
export type FoliateSearchItem =
  | 'done'
  | { progress: number }
  | {
      label?: string;
      subitems: { cfi: string; excerpt?: { pre?: string; match?: string; post?: string } }[];
    };

/** Groups consecutive places of the same chapter, in the book's order. */
export function groupByChapter(hits: readonly SearchHit[]): SearchGroup[] {
  const groups: SearchGroup[] = [];
  hits.forEach((hit, index) => {
    const last = groups[groups.length - 1];
    if (last && last.chapter === hit.chapter) last.hits.push({ hit, index });
    else groups.push({ chapter: hit.chapter, hits: [{ hit, index }] });
  });
  return groups;
}

const nextTurn = () => new Promise<void>((resolve) => setTimeout(resolve, 0));

export class BookSearch {
  /** The search field is shown. */
  open = $state(false);
  /** The words last searched for. */
  query = $state('');
  hits = $state<SearchHit[]>([]);
  /** The place shown, an index in {@link hits}; -1 before one is. */
  current = $state(-1);
  /** A search is reading the book. */
  running = $state(false);
  /** The last search read the whole book. */
  done = $state(false);
  /** How much of the book the running search has read, 0 to 1. */
  progress = $state(0);
  /** Where the reader was when the search opened. */
  from: string | null = null;
  #generation = 0;

  get groups(): SearchGroup[] {
    return groupByChapter(this.hits);
  }

  /** Opens the search field, remembering where the reader is (`from`: a CFI, or a page) unless already open. */
  begin(from: string | null): void {
    if (!this.open) this.from = from;
    this.open = true;
  }

  /**
   * Searches for `query` with `search` (the view's), replacing the last results. Resolves when
   * the book is read, or when a newer search or {@link close} stopped this one.
   */
  async run(query: string, search: (query: string) => AsyncIterable<FoliateSearchItem>): Promise<void> {
    const generation = ++this.#generation;
    this.query = query.trim();
    this.hits = [];
    this.current = -1;
    this.done = false;
    this.progress = 0;
    if (this.query === '') {
      this.running = false;
      return;
    }
    this.running = true;
    try {
      for await (const item of search(this.query)) {
        if (generation !== this.#generation) return;
        if (item === 'done') break;
        if ('progress' in item) this.progress = item.progress;
        else {
          const chapter = item.label?.trim() ?? '';
          const found = item.subitems.map(({ cfi, excerpt }) => ({
            place: cfi,
            chapter,
            pre: excerpt?.pre ?? '',
            match: excerpt?.match ?? '',
            post: excerpt?.post ?? '',
          }));
          this.hits = [...this.hits, ...found];
        }
        // The window draws and answers between sections.
        await nextTurn();
        if (generation !== this.#generation) return;
      }
      this.done = true;
      this.progress = 1;
    } catch {
      // A section that could not be read ends the search with what was found.
    } finally {
      if (generation === this.#generation) this.running = false;
    }
  }

  /** Moves to the place `index` (wrapping around), returning its place. */
  select(index: number): string | null {
    const count = this.hits.length;
    if (count === 0) return null;
    this.current = ((index % count) + count) % count;
    return this.hits[this.current]!.place;
  }

  /** The next place found (the first before any), its place. */
  next(): string | null {
    return this.select(this.current + 1);
  }

  /** The previous place found (the last before any), its place. */
  previous(): string | null {
    return this.select(this.current < 0 ? -1 : this.current - 1);
  }

  /** Closes the search, stopping it: the place to go back to. */
  close(): string | null {
    const from = this.from;
    this.#generation++;
    this.open = false;
    this.running = false;
    this.hits = [];
    this.current = -1;
    this.done = false;
    this.progress = 0;
    this.query = '';
    this.from = null;
    return from;
  }
}
