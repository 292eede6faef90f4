/**
 * What screen readers are told without the focus moving: the page a reader turned to, a book
 * that finished downloading. One polite live region says it (LiveAnnouncer.svelte, in the
 * window once); anything can call {@link announcer.say}.
 */

class Announcer {
  /** The last thing said; the live region shows it. */
  message = $state('');
  /** The same, unread by effects: saying something never makes an effect run again. */
  #last = '';

  /** Says `text` politely (after what is being read). The same text twice is said twice. */
  say(text: string): void {
    if (!text) return;
    // A live region speaks on a change: the same words again differ by a no-break space.
    this.#last = text === this.#last ? `${text}\u00a0` : text;
    this.message = this.#last;
  }

  clear(): void {
    this.#last = '';
    this.message = '';
  }
}

export const announcer = new Announcer();
