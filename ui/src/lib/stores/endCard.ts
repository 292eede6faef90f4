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

/** The reader a book opens in; `null` when it cannot be known now. */
export async function readerOf(bookId: number): Promise<BookDetails['reader'] | null> {
  try {
    return (await bookDetails(bookId)).reader;
  } catch {
    return null;
  }
}
