/**
 * Double-page spreads: which pages a comic shows side by side.
 *
 * The cover (page 0) stands alone, then pages pair up in reading order: (1, 2), (3, 4)… A wide
 * page (a spread drawn as one image) stands alone too, and the pairing starts afresh after it,
 * so the pages that follow keep facing each other as printed. A last page without a partner
 * stands alone.
 *
 * Shifted by one ({@link pairPages}'s `shifted`), the page after the cover stands alone too and
 * pairing starts at page 2: (2, 3), (4, 5)… — for books whose printed spreads start on an even
 * page.
 *
 * A spread lists its pages in reading order; in right-to-left books the first of a pair is
 * the one on the right ({@link leftToRight}).
 */

/** `ltr`: western comics; `rtl`: manga, whose next page is on the left. */
export type Direction = 'ltr' | 'rtl';

/** One or two pages shown together, in reading order. */
export type Spread = readonly number[];

/**
 * The spreads of a book of `pageCount` pages; `isWide(page)` says which pages stand alone.
 * `shifted`: page 1 stands alone as well as the cover, so pairs start on even pages.
 */
export function pairPages(pageCount: number, isWide: (page: number) => boolean, shifted = false): Spread[] {
  const spreads: Spread[] = [];
  let page = 0;
  while (page < pageCount) {
    const alone = page === 0 || (shifted && page === 1) || isWide(page) || page + 1 >= pageCount || isWide(page + 1);
    if (alone) {
      spreads.push([page]);
      page += 1;
    } else {
      spreads.push([page, page + 1]);
      page += 2;
    }
  }
  return spreads;
}

/** The position in `spreads` of the spread showing `page` (clamped to the book); -1 if none. */
export function spreadIndexOf(spreads: readonly Spread[], page: number): number {
  if (spreads.length === 0) return -1;
  let low = 0;
  let high = spreads.length - 1;
  while (low < high) {
    const middle = (low + high + 1) >> 1;
    if (spreads[middle][0] <= page) low = middle;
    else high = middle - 1;
  }
  return low;
}

/** The spread showing `page` (the nearest one for a page outside the book). */
export function spreadOf(spreads: readonly Spread[], page: number): Spread {
  const at = spreadIndexOf(spreads, page);
  return at < 0 ? [] : spreads[at];
}

/** The first page of the spread after the one showing `page`; its own first page at the end. */
export function nextSpreadStart(spreads: readonly Spread[], page: number): number {
  const at = spreadIndexOf(spreads, page);
  if (at < 0) return 0;
  return spreads[Math.min(at + 1, spreads.length - 1)][0];
}

/** The first page of the spread before the one showing `page`; its own first page at the start. */
export function previousSpreadStart(spreads: readonly Spread[], page: number): number {
  const at = spreadIndexOf(spreads, page);
  if (at < 0) return 0;
  return spreads[Math.max(at - 1, 0)][0];
}

/** The pages of `spread` from left to right on the screen. */
export function leftToRight(spread: Spread, direction: Direction): number[] {
  return direction === 'rtl' ? [...spread].reverse() : [...spread];
}
