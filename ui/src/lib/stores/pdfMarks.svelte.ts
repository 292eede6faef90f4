/**
 * What the PDF reader marks on its pages beyond the picture: the search (its places found, the
 * current one), and the text selected to be highlighted. The page layers draw from here; the
 * reader's bars and panels change it.
 */
import { BookSearch } from './bookSearch.svelte';
import { parsePlace, type PdfPlace } from '../pdfText';
import type { Annotation } from './bookAnnotations.svelte';

/**
 * Text selected on a page (its offsets in the page's text), or a highlight clicked on it, and
 * where the popover goes.
 */
export interface PdfSelection {
  page: number;
  start: number;
  end: number;
  /** Under the selection, in pixels from the reader's top left corner. */
  x: number;
  y: number;
  /** The highlight clicked, to change or delete. */
  existing?: Annotation;
}

export class PdfMarks {
  readonly search = new BookSearch();
  selection = $state<PdfSelection | null>(null);

  /** The place found shown now, if any. */
  get current(): PdfPlace | null {
    const hit = this.search.hits[this.search.current];
    return hit ? parsePlace(hit.place) : null;
  }

  /** The places found on page `page`, each with whether it is the one shown. */
  foundOn(page: number): { place: PdfPlace; current: boolean }[] {
    const found: { place: PdfPlace; current: boolean }[] = [];
    this.search.hits.forEach((hit, index) => {
      const place = parsePlace(hit.place);
      if (place !== null && place.page === page) found.push({ place, current: index === this.search.current });
    });
    return found;
  }

  reset(): void {
    this.search.close();
    this.selection = null;
  }
}

export const pdfMarks = new PdfMarks();
