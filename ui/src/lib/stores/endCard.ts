/**
 * What the comic reader and the EPUB reader share about the end card, the card shown past a
 * book's last page (the next book of its series) or before its first (the one before): the
 * book's neighbours, the book the card offers, and the reader that book opens in.
 */
import { bookDetails, seriesNeighbours, type BookDetails, type SeriesNeighbour, type SeriesNeighbours } from '../ipc';
import { details } from './details.svelte';

/** Which way the card leads: on to the next book, or back to the one before. */
export type EndWay = 'next' | 'previous';

/** A book's neighbours in its series; none when they cannot be had. */
export async function neighboursOf(bookId: number): Promise<SeriesNeighbours> {
  try {
    return await seriesNeighbours(bookId);
  } catch {
    return { series: null, previous: null, next: null };
  }
}

/** The book the card shown (`end`) offers, if there is one. */
export function offeredBook(end: EndWay | null, neighbours: SeriesNeighbours | null): SeriesNeighbour | null {
  if (end === null || neighbours === null) return null;
  return end === 'next' ? neighbours.next : neighbours.previous;
}

/** What a reader with an end card holds of it. */
export interface EndCardHolder {
  end: EndWay | null;
  readonly offered: SeriesNeighbour | null;
  /** Saves the position and goes back where the reader came from. */
  close(): void;
}

/** How a reader opens the book its card offers, in the EPUB reader or in the page reader. */
export interface OfferedOpeners {
  epub(bookId: number): void;
  /** At its first page (`'start'`, the next book) or its last (`'end'`, the one before). */
  pages(bookId: number, at: 'start' | 'end'): void | Promise<void>;
}

/**
 * Opens the book `holder`'s card offers in the reader that fits it: the EPUB reader for an EPUB
 * (where it was left, its start when never opened), the page reader for a comic or a PDF (the
 * next at its first page, the previous at its last) and for a reader not known now (where its
 * error shows), and its details — where "Open with another app" is — for a format no reader
 * shows.
 */
export async function openOfferedBook(holder: EndCardHolder, open: OfferedOpeners): Promise<void> {
  const found = await offeredToOpen(holder);
  if (found === null) return;
  const { book, at, kind } = found;
  if (kind === 'epub') {
    open.epub(book.book_id);
  } else if (kind === 'other') {
    holder.close();
    details.open(book.book_id);
  } else {
    await open.pages(book.book_id, at);
  }
}

/**
 * The book `holder`'s card offers, where it opens (its first page for the next book, its last
 * for the one before) and the reader it opens in (`null`: not known now); `null` when the card
 * offers nothing, or was closed or another book opened while the reader was asked for.
 */
export async function offeredToOpen(
  holder: EndCardHolder,
): Promise<{ book: SeriesNeighbour; at: 'start' | 'end'; kind: BookDetails['reader'] | null } | null> {
  const book = holder.offered;
  if (book === null) return null;
  const at = holder.end === 'next' ? 'start' : 'end';
  const kind = await readerOf(book.book_id);
  if (holder.offered?.book_id !== book.book_id) return null;
  return { book, at, kind };
}

/** The reader a book opens in; `null` when it cannot be known now. */
export async function readerOf(bookId: number): Promise<BookDetails['reader'] | null> {
  try {
    return (await bookDetails(bookId)).reader;
  } catch {
    return null;
  }
}
