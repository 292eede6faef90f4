/**
 * The book shown in the details panel, if any. The panel reads the book itself; this only
 * says which one, and remembers what had focus so closing the panel can give it back. It also
 * keeps the books marked read or unread in the panel, so the tiles already listed say so at once.
 */

class DetailsState {
  bookId = $state<number | null>(null);
  /** Read marks set in the panel since the views listed their books, by book id. */
  readMarks = $state<Record<number, boolean>>({});
  #opener: HTMLElement | null = null;

  get isOpen(): boolean {
    return this.bookId !== null;
  }

  open(bookId: number): void {
    if (this.bookId === null) {
      const active = typeof document === 'undefined' ? null : document.activeElement;
      this.#opener = active instanceof HTMLElement && active !== document.body ? active : null;
    }
    this.bookId = bookId;
  }

  /** Closes the panel and puts focus back where it was before it opened. */
  close(): void {
    if (this.bookId === null) return;
    this.bookId = null;
    const opener = this.#opener;
    this.#opener = null;
    queueMicrotask(() => {
      if (opener?.isConnected) opener.focus();
      else document.getElementById('main')?.focus();
    });
  }

  /** Whether a listed book is read: its mark set in the panel, else what the listing said. */
  readOf(bookId: number, listed: boolean | undefined): boolean {
    return this.readMarks[bookId] ?? listed ?? false;
  }

  /** A book was marked read or unread. */
  noteRead(bookId: number, read: boolean): void {
    this.readMarks = { ...this.readMarks, [bookId]: read };
  }

  reset(): void {
    this.bookId = null;
    this.readMarks = {};
    this.#opener = null;
  }
}

export const details = new DetailsState();
