import { bookDetails } from '../ipc';
import { reader } from './reader.svelte';
import { epubReader } from './epubReader.svelte';

/**
 * Opens a book in the reader it reads in: an EPUB as text, a comic or a PDF page by page;
 * `otherwise` runs for a format no reader shows. Throws when the book's details cannot be read.
 */
export async function openInItsReader(bookId: number, otherwise: () => void): Promise<void> {
  const book = await bookDetails(bookId);
  switch (book.reader) {
    case 'epub':
      void epubReader.open(bookId);
      return;
    case 'comic':
    case 'pdf':
      void reader.open(bookId);
      return;
    default:
      otherwise();
  }
}
