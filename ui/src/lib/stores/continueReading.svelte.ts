/**
 * Continue reading: the books being read, most recent first, as Home's first row shows them.
 * Asked for at start beside the status and the servers, so that Home's first frame has its
 * books rather than a skeleton and then a second frame; asked again each time Home is shown
 * after that, quietly (the row shown stays until the new one comes).
 */
import { listContinueReading, type BookDetails } from '../ipc';
import { Resource } from './resource.svelte';

/** How many books the row shows. */
const CONTINUE_LIMIT = 12;

class ContinueReadingState {
  readonly books = new Resource<BookDetails[]>(() => listContinueReading(CONTINUE_LIMIT));
  /** Asked at start and not yet shown: Home's first showing takes this answer. */
  #early = false;

  /** At start, beside the status and the servers. Never rejects. */
  prefetch(): Promise<void> {
    this.#early = true;
    return this.books.load();
  }

  /** Home is shown: the start's answer serves its first showing; later ones ask again. */
  shown(): void {
    if (this.#early) {
      this.#early = false;
      return;
    }
    void this.books.load(this.books.value !== null);
  }

  /** The first screen is not Home: the start's answer will not serve it. */
  forgetEarly(): void {
    this.#early = false;
  }

  reset(): void {
    this.#early = false;
    this.books.reset();
  }
}

export const continueReading = new ContinueReadingState();
