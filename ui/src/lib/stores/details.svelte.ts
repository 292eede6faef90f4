/**
 * The book shown in the details panel, if any. The panel reads the book itself; this only
 * says which one, and remembers what had focus so closing the panel can give it back.
 */

class DetailsState {
  bookId = $state<number | null>(null);
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

  reset(): void {
    this.bookId = null;
    this.#opener = null;
  }
}

export const details = new DetailsState();
