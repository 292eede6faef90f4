/**
 * The downloads, live: one `watch_downloads` subscription for the whole window, whose views
 * every badge, the sidebar and the Downloads view read from here.
 *
 * The shell sends a view on every executor event (a few a second) and at least once a second.
 * Views that arrive together are coalesced: only the newest is applied, once per frame, and a
 * view equal to the one shown is not applied at all, so nothing redraws for nothing.
 *
 * When the view stops mentioning a book (it was stored, cancelled, or given up on), its new
 * standing is asked for with `book_details`, so badges elsewhere do not keep an old state. So
 * is the standing of a book this window asked for ("Keep offline", Retry) that no view
 * mentions: it may have been done before any view showed it (a small book, or another Carrel
 * process downloading, whose progress this window sees only once a second).
 *
 * Every view also carries the library's revision, which changes when a server, a setting or
 * the books kept on the device change — in this window, another one, or another Carrel
 * process. When it differs from the one seen before (not on the first view), the servers and
 * the settings are read again and {@link DownloadsStore.revision} goes up, so the lists and
 * the details panel read their books again, quietly.
 */
import { SvelteMap } from 'svelte/reactivity';
import {
  bookDetails,
  cancelBook,
  moveBookToTop,
  openBook,
  pauseDownloads,
  removeBook,
  resumeDownloads,
  retryBook,
  storeBook,
  toCommandError,
  watchDownloads,
  type ActiveDownload,
  type BookStatus,
  type CommandError,
  type DownloadsView,
} from '../ipc';
import { bookBadge, bookPercent, isInProgress, type BookBadge } from '../bookState';
import { servers } from './servers.svelte';
import { announcer } from './announcer.svelte';
import { t } from '../i18n.svelte';
import { settings } from './settings.svelte';

export type Schedule = (flush: () => void) => void;

export type ConnectionState = 'idle' | 'connecting' | 'live' | 'error';

/**
 * Runs `flush` at the next frame, or after a quarter of a second when frames are not being
 * drawn (a hidden window), whichever comes first.
 */
export const nextFrame: Schedule = (flush) => {
  let done = false;
  const run = () => {
    if (done) return;
    done = true;
    flush();
  };
  if (typeof requestAnimationFrame === 'function') requestAnimationFrame(run);
  setTimeout(run, 250);
};

/** `status` moved to `state` (any state but failed, so without a reason). */
function inState(status: BookStatus, state: Exclude<BookStatus['state'], 'failed'>): BookStatus {
  const { book_id, title, stored_parts, total_parts, bytes } = status;
  return { state, book_id, title, stored_parts, total_parts, bytes };
}

/**
 * Every book the view mentions, with its status: the failed ones, the waiting ones, and the
 * one in flight (which the queue does not list). When the view does not say how far the book
 * in flight is, `previous` (what was known before) stands in.
 */
export function indexView(view: DownloadsView | null, previous: ReadonlyMap<number, BookStatus> = new Map()): Map<number, BookStatus> {
  const index = new Map<number, BookStatus>();
  if (!view) return index;
  for (const failed of view.failed) {
    index.set(failed.book_id, {
      state: 'failed',
      reason: failed.reason,
      stored_parts: 0,
      total_parts: 0,
      bytes: 0,
      book_id: failed.book_id,
      title: failed.title,
    });
  }
  // A book waiting again (retried) is no longer failed.
  for (const item of view.queue) index.set(item.book_id, item.status);
  const active = view.active;
  if (active) {
    const known = active.status ?? index.get(active.book_id) ?? previous.get(active.book_id);
    index.set(active.book_id, {
      state: 'downloading',
      stored_parts: known?.stored_parts ?? 0,
      total_parts: known?.total_parts ?? 0,
      bytes: known?.bytes ?? 0,
      book_id: active.book_id,
      title: active.title,
    });
  }
  return index;
}

/** The books the view has in hand: waiting, in flight, or failed. */
function mentioned(view: DownloadsView): Set<number> {
  const ids = new Set<number>([...view.queue.map((q) => q.book_id), ...view.failed.map((f) => f.book_id)]);
  if (view.active) ids.add(view.active.book_id);
  return ids;
}

export class DownloadsStore {
  /** The newest view applied; `null` until the first arrives. */
  view = $state.raw<DownloadsView | null>(null);
  connection = $state<ConnectionState>('idle');
  error = $state<CommandError | null>(null);
  /**
   * Goes up whenever a book was stored on or removed from the device, or the library changed
   * elsewhere, for lists and the details panel to read their books again.
   */
  revision = $state(0);
  /** How many views were applied (not received); for the curious and the tests. */
  applied = 0;

  #index = $state.raw<Map<number, BookStatus>>(new Map());
  /** What is known of books that are not in the view: learnt after they left it, or acted on. */
  #known = new SvelteMap<number, BookStatus>();
  #pending: DownloadsView | null = null;
  /** Books whose `book_details` is on its way. */
  #asking = new Set<number>();
  /** Books of `stored_lately` asked about already (while they stay in it). */
  #askedStored = new Set<number>();
  #scheduled = false;
  #shown = '';
  #subscription = 0;
  #schedule: Schedule;
  /** The library revision of the last view applied; `null` before the first. */
  #library: string | null = null;
  #onLibraryChange: () => void;

  constructor(schedule: Schedule = nextFrame, onLibraryChange: () => void = () => {}) {
    this.#schedule = schedule;
    this.#onLibraryChange = onLibraryChange;
  }

  /** Subscribes, unless already subscribed. Never rejects; a failure is kept in {@link error}. */
  async start(): Promise<void> {
    if (this.connection === 'live' || this.connection === 'connecting') return;
    const subscription = ++this.#subscription;
    this.connection = 'connecting';
    this.error = null;
    try {
      await watchDownloads((view) => {
        if (subscription === this.#subscription) this.receive(view);
      });
      if (subscription === this.#subscription) this.connection = 'live';
    } catch (reason) {
      if (subscription !== this.#subscription) return;
      this.connection = 'error';
      this.error = toCommandError(reason);
    }
  }

  /** Takes a view from the channel; it is applied at the next frame unless a newer one comes. */
  receive(view: DownloadsView): void {
    this.#pending = view;
    if (this.connection === 'connecting') this.connection = 'live';
    if (this.#scheduled) return;
    this.#scheduled = true;
    this.#schedule(() => this.flush());
  }

  /** Applies the newest view received, if it differs from the one shown. */
  flush(): void {
    this.#scheduled = false;
    const view = this.#pending;
    this.#pending = null;
    if (!view) return;
    this.#noteLibrary(view.library_revision);
    // Even an unchanged view may have missed a book learnt since.
    this.#recheck(view);
    this.#learnStored(view);
    const json = JSON.stringify(view);
    if (json === this.#shown) return;
    this.#shown = json;
    const before = this.view;
    const previous = new Map(this.#index);
    for (const [id, status] of this.#known) if (!previous.has(id)) previous.set(id, status);
    this.#index = indexView(view, previous);
    this.view = view;
    this.applied++;
    this.#settle(before, previous, view);
  }

  /** Tells of a library changed since the last view (not of the first one). */
  #noteLibrary(revision: string | undefined): void {
    if (revision === undefined || revision === this.#library) return;
    const first = this.#library === null;
    this.#library = revision;
    if (first) return;
    this.revision++;
    this.#onLibraryChange();
  }

  /** Asks for the standing of books the view no longer mentions: stored, cancelled or given up. */
  #settle(before: DownloadsView | null, previous: ReadonlyMap<number, BookStatus>, after: DownloadsView): void {
    if (!before) return;
    const still = mentioned(after);
    for (const id of mentioned(before)) {
      if (still.has(id)) continue;
      // Until the answer comes (a moment), the last thing seen stands.
      const last = previous.get(id);
      if (last) this.#known.set(id, last);
      this.#ask(id);
    }
  }

  /** Asks for the standing of books learnt as waiting or downloading that `view` does not mention. */
  #recheck(view: DownloadsView): void {
    const still = mentioned(view);
    for (const [id, status] of this.#known) {
      if (!still.has(id) && isInProgress(status.state)) this.#ask(id);
    }
  }

  /** Asks (once each) for the standing of books stored lately that are not known as stored. */
  #learnStored(view: DownloadsView): void {
    const lately = new Set(view.stored_lately ?? []);
    for (const id of this.#askedStored) if (!lately.has(id)) this.#askedStored.delete(id);
    for (const id of lately) {
      if (this.#askedStored.has(id) || this.#index.has(id) || this.#known.get(id)?.state === 'stored') continue;
      this.#askedStored.add(id);
      this.#ask(id);
    }
  }

  #ask(id: number): void {
    if (this.#asking.has(id)) return;
    this.#asking.add(id);
    // A book last seen waiting or downloading that is now stored has just finished.
    const last = this.#known.get(id) ?? this.#index.get(id);
    const wasDownloading = last !== undefined && isInProgress(last.state);
    bookDetails(id)
      .then((details) => {
        if (!this.#index.has(id)) this.#known.set(id, details.status);
        if (details.status.state === 'stored') {
          this.revision++;
          if (wasDownloading) announcer.say(t('a11y-download-ready', { title: details.status.title }));
        }
      })
      .catch(() => {
        // The book may be gone (its server removed); nothing more to say about it.
      })
      .finally(() => this.#asking.delete(id));
  }

  get active(): ActiveDownload | null {
    return this.view?.active ?? null;
  }

  get paused(): boolean {
    return this.view?.paused ?? false;
  }

  /** Books waiting or downloading. */
  get count(): number {
    const view = this.view;
    if (!view) return 0;
    const inQueue = view.active ? view.queue.some((q) => q.book_id === view.active?.book_id) : true;
    return view.queue.length + (inQueue ? 0 : 1);
  }

  get failedCount(): number {
    return this.view?.failed.length ?? 0;
  }

  /** How far the book being downloaded now is, for small progress marks. */
  get activePercent(): number | null {
    const active = this.active;
    if (!active) return null;
    const status = this.#index.get(active.book_id);
    return status ? bookPercent(status, active) : null;
  }

  /** The freshest status of a book: live from the downloads, else learnt, else `fallback`. */
  statusOf(bookId: number, fallback: BookStatus | null = null): BookStatus | null {
    const live = this.#index.get(bookId);
    if (live) {
      // The view named the book without its parts: the parts known otherwise still hold.
      if (live.total_parts === 0 && fallback) {
        const { book_id, title, stored_parts, total_parts, bytes } = fallback;
        return { ...live, book_id, title, stored_parts, total_parts, bytes };
      }
      return live;
    }
    return this.#known.get(bookId) ?? fallback;
  }

  /** The badge of a book, kept live. */
  badgeOf(bookId: number, fallback: BookStatus): BookBadge {
    const status = this.statusOf(bookId, fallback) ?? fallback;
    return bookBadge(status, this.active);
  }

  /** Notes what a command just told about a book, before the next view confirms it. */
  learn(status: BookStatus): void {
    this.#known.set(status.book_id, status);
  }

  // ---- Actions. Each rejects with a CommandError. ----

  async keep(status: BookStatus): Promise<'queued' | 'already_stored'> {
    const result = await storeBook(status.book_id);
    if (result === 'already_stored') {
      this.learn({ ...inState(status, 'stored'), stored_parts: status.total_parts });
    } else if (!this.#index.has(status.book_id)) {
      this.learn(inState(status, 'queued'));
    }
    this.revision++;
    return result;
  }

  async remove(status: BookStatus): Promise<void> {
    await removeBook(status.book_id);
    this.learn({ ...inState(status, 'remote'), stored_parts: 0, bytes: 0 });
    this.revision++;
  }

  async open(bookId: number, page?: number | null): Promise<void> {
    await openBook(bookId, page);
  }

  async retry(bookId: number): Promise<void> {
    await retryBook(bookId);
    const current = this.statusOf(bookId);
    if (current) this.learn(inState(current, 'queued'));
  }

  async cancel(bookId: number): Promise<void> {
    await cancelBook(bookId);
  }

  async moveToTop(bookId: number): Promise<void> {
    await moveBookToTop(bookId);
  }

  async pauseAll(): Promise<void> {
    await pauseDownloads();
    if (this.view) this.view = { ...this.view, paused: true };
  }

  async resumeAll(): Promise<void> {
    await resumeDownloads();
    if (this.view) this.view = { ...this.view, paused: false };
  }

  reset(): void {
    this.#subscription++;
    this.view = null;
    this.#index = new Map();
    this.connection = 'idle';
    this.error = null;
    this.revision = 0;
    this.applied = 0;
    this.#known.clear();
    this.#asking.clear();
    this.#pending = null;
    this.#scheduled = false;
    this.#shown = '';
    this.#library = null;
  }
}

/** Reads again what changed elsewhere: the servers and the settings (with the theme). */
export async function reloadLibrary(): Promise<void> {
  await Promise.all([servers.refresh(true), settings.reload()]);
}

export const downloads = new DownloadsStore(nextFrame, () => void reloadLibrary());
