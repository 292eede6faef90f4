/**
 * What the comic reader and the EPUB reader keep alike of the book they show: which book, its
 * title, whether it is shown yet (or why not), the card over it at its end, the books before and
 * after it in its series, and where Escape goes back to. Each opening is a new generation: an
 * answer that comes back for an older one is dropped.
 */
import type { CommandError, SeriesNeighbour, SeriesNeighbours } from '../ipc';
import { router, type Route } from './router.svelte';
import { neighboursOf, offeredBook, type EndWay } from './endCard';

export abstract class BookSession<Phase extends string> {
  bookId = $state<number | null>(null);
  title = $state('');
  phase = $state<Phase | 'idle' | 'loading'>('idle');
  error = $state<CommandError | null>(null);
  /**
   * The card shown over the book: `'next'` past its end, `'previous'` before its start; null
   * when the book is shown.
   */
  end = $state<EndWay | null>(null);
  /** The books before and after this one in its series, once known. */
  neighbours = $state<SeriesNeighbours | null>(null);

  /** Where Escape goes back to. */
  protected returnTo: Route = { view: 'home' };
  /** Counts the openings (and closings): an answer for an older one is dropped. */
  protected generation = 0;

  /** Saves a waiting position at once. */
  abstract flush(): void;

  /** Lets go of what the book shown holds beyond this (on closing). */
  protected letGo(): void {}

  /**
   * Starts showing `bookId` in the reader of route `view`, as a new generation: the position
   * of the book before saved, the reader's place to go back to kept (unless it came from this
   * reader), what was known of the book before forgotten — by `forgetOwn` too, for what only this
   * reader keeps — and the route moved to the book. Returns the generation.
   */
  protected begin(bookId: number, view: 'reader' | 'epub', forgetOwn: () => void): number {
    this.flush();
    const generation = ++this.generation;
    if (router.route.view !== view) this.returnTo = router.route;
    this.bookId = bookId;
    this.phase = 'loading';
    this.error = null;
    this.title = '';
    this.end = null;
    this.neighbours = null;
    forgetOwn();
    if (router.route.view !== view || router.route.bookId !== bookId) router.go({ view, bookId });
    return generation;
  }

  /** Asks for the book's neighbours in its series; none known when that fails. */
  protected async loadNeighbours(bookId: number, generation: number): Promise<void> {
    const neighbours = await neighboursOf(bookId);
    if (generation === this.generation) this.neighbours = neighbours;
  }

  /** The book the card shown offers, if there is one. */
  get offered(): SeriesNeighbour | null {
    return offeredBook(this.end, this.neighbours);
  }

  /** Closes the end card: the book is shown again where it was. */
  closeEnd(): void {
    this.end = null;
  }

  /** Saves the position now if a save is waiting, and goes back where the reader came from. */
  close(): void {
    this.flush();
    this.generation++;
    const back = this.returnTo;
    this.bookId = null;
    this.phase = 'idle';
    this.end = null;
    this.letGo();
    router.go(back);
  }
}
