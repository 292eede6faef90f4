/**
 * What the comic reader and the EPUB reader share about the end card, the card shown past a
 * book's last page (the next book of its series) or before its first (the one before): the
 * book's neighbours, the book the card offers, and the reader that book opens in.
 */
import { bookDetails, seriesNeighbours, type BookDetails, type SeriesNeighbour, type SeriesNeighbours } from '../ipc';

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
