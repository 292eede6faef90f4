/**
 * Browsing a server's catalog: the path of feeds followed (the breadcrumbs), the feed shown
 * with every page loaded so far, and searches. One session per server, so each remembers
 * where the reader was; the sidebar starts a server over at its root.
 *
 * Also kept per server: whether the last answer came from the offline copy, and whether the
 * server can be searched.
 *
 * A kept copy shown because the server did not answer is not the end of it: the server is asked
 * again in the background ({@link REFRESH_OFFLINE_MS}), and its own page replaces the copy as
 * soon as it answers. A server known not to answer is not waited for on every click (the Rust
 * side gives its kept copy at once); the reader's "Try again" and the background retries ask it.
 */
import { SvelteMap } from 'svelte/reactivity';
import { t } from '../i18n.svelte';
import {
  browseCatalog,
  searchCatalog,
  toCommandError,
  type CatalogItem,
  type CatalogView,
  type CommandError,
  type NavigationItem,
} from '../ipc';

/** One step of the path: a feed (the root when `feedUrl` is `null`), or a search. */
export interface Crumb {
  title: string;
  feedUrl: string | null;
  /** Set for search results. */
  query?: string;
}

export type BrowsePhase = 'idle' | 'loading' | 'ready' | 'error';

/** A stable key for an entry, for lists and for dropping repeats across pages. */
export function entryKey(item: CatalogItem): string {
  return item.type === 'book' ? `book:${item.book_id}` : `nav:${item.href}`;
}

/** `next` appended to `entries`, without the ones already there. */
export function mergeEntries(entries: readonly CatalogItem[], next: readonly CatalogItem[]): CatalogItem[] {
  const seen = new Set(entries.map(entryKey));
  const merged = [...entries];
  for (const item of next) {
    const key = entryKey(item);
    if (seen.has(key)) continue;
    seen.add(key);
    merged.push(item);
  }
  return merged;
}

type ViewListener = (serverId: number, view: CatalogView) => void;

/** After a kept copy is shown, when the server is asked again: the first wait, then the next ones. */
export const REFRESH_OFFLINE_MS = [3_000, 10_000, 30_000];

export class BrowseSession {
  readonly serverId: number;
  crumbs = $state<Crumb[]>([]);
  phase = $state<BrowsePhase>('idle');
  /** The feed shown, its `entries` holding every page loaded so far. */
  view = $state.raw<CatalogView | null>(null);
  error = $state.raw<CommandError | null>(null);
  loadingMore = $state(false);
  moreError = $state.raw<CommandError | null>(null);

  #generation = 0;
  #onview: ViewListener;
  #refreshTimer: ReturnType<typeof setTimeout> | null = null;

  constructor(serverId: number, onview: ViewListener = () => {}) {
    this.serverId = serverId;
    this.#onview = onview;
  }

  get current(): Crumb | null {
    return this.crumbs.at(-1) ?? null;
  }

  get isSearch(): boolean {
    return this.current?.query !== undefined;
  }

  get canGoUp(): boolean {
    return this.crumbs.length > 1;
  }

  /** Starts over at the server's root feed. */
  openRoot(title: string): Promise<void> {
    this.crumbs = [{ title, feedUrl: null }];
    return this.#load();
  }

  /** Follows a navigation entry of the feed shown. */
  follow(item: NavigationItem): Promise<void> {
    this.crumbs = [...this.crumbs, { title: item.title, feedUrl: item.href }];
    return this.#load();
  }

  /**
   * Opens another view of the feed shown (a facet: another order, a filter) in its place: the
   * path stays as it was, its last step now leading to `href`.
   */
  choose(href: string): Promise<void> {
    const at = this.current;
    if (!at || at.query !== undefined) return Promise.resolve();
    this.crumbs = [...this.crumbs.slice(0, -1), { ...at, feedUrl: href }];
    return this.#load();
  }

  /** Goes back to the crumb at `index`. */
  goTo(index: number): Promise<void> {
    if (index < 0 || index >= this.crumbs.length) return Promise.resolve();
    this.crumbs = this.crumbs.slice(0, index + 1);
    return this.#load();
  }

  /** One step up the path; false at the root. */
  up(): boolean {
    if (!this.canGoUp) return false;
    void this.goTo(this.crumbs.length - 2);
    return true;
  }

  /** Searches the server. A search made from search results replaces them. */
  search(query: string): Promise<void> {
    const text = query.trim();
    if (text === '') return Promise.resolve();
    const crumb: Crumb = { title: t('browse-crumb-query', { query: text }), feedUrl: null, query: text };
    const base = this.isSearch ? this.crumbs.slice(0, -1) : this.crumbs;
    this.crumbs = [...base, crumb];
    return this.#load();
  }

  /** Loads the current feed again, asking the server even if it did not answer lately. */
  retry(): Promise<void> {
    return this.#load(true);
  }

  /** Stops asking in the background (the session is forgotten). */
  dispose(): void {
    this.#generation++;
    this.#stopRefresh();
  }

  #fetch(crumb: Crumb, fresh: boolean): Promise<CatalogView> {
    return crumb.query !== undefined
      ? searchCatalog(this.serverId, crumb.query, fresh)
      : browseCatalog(this.serverId, crumb.feedUrl, fresh);
  }

  #stopRefresh(): void {
    if (this.#refreshTimer !== null) clearTimeout(this.#refreshTimer);
    this.#refreshTimer = null;
  }

  /** Asks the server again after a while, the kept copy staying on screen meanwhile. */
  #refreshLater(generation: number, attempt: number): void {
    this.#stopRefresh();
    const delay = REFRESH_OFFLINE_MS[Math.min(attempt, REFRESH_OFFLINE_MS.length - 1)];
    this.#refreshTimer = setTimeout(() => void this.#refresh(generation, attempt), delay);
  }

  async #refresh(generation: number, attempt: number): Promise<void> {
    this.#refreshTimer = null;
    const crumb = this.current;
    if (!crumb || generation !== this.#generation || this.phase !== 'ready') return;
    let view: CatalogView;
    try {
      view = await this.#fetch(crumb, true);
    } catch {
      if (generation === this.#generation) this.#refreshLater(generation, attempt + 1);
      return;
    }
    if (generation !== this.#generation) return;
    if (view.offline) {
      this.#refreshLater(generation, attempt + 1);
      return;
    }
    // The server answers again: its page replaces the kept copy (a next page on its way from
    // the copy is dropped).
    this.#generation++;
    this.view = { ...view, entries: mergeEntries([], view.entries) };
    this.moreError = null;
    this.loadingMore = false;
    this.#onview(this.serverId, view);
  }

  async #load(fresh = false): Promise<void> {
    const crumb = this.current;
    if (!crumb) return;
    this.#stopRefresh();
    const generation = ++this.#generation;
    this.phase = 'loading';
    this.view = null;
    this.error = null;
    this.moreError = null;
    this.loadingMore = false;
    try {
      const view = await this.#fetch(crumb, fresh);
      if (generation !== this.#generation) return;
      this.view = { ...view, entries: mergeEntries([], view.entries) };
      this.phase = 'ready';
      this.#onview(this.serverId, view);
      if (view.offline) this.#refreshLater(generation, 0);
    } catch (reason) {
      if (generation !== this.#generation) return;
      this.error = toCommandError(reason);
      this.phase = 'error';
    }
  }

  /** Loads the feed's next page and appends it. Does nothing when there is none. */
  async loadMore(): Promise<void> {
    const view = this.view;
    if (!view?.next || this.loadingMore || this.phase !== 'ready') return;
    const generation = this.#generation;
    this.loadingMore = true;
    this.moreError = null;
    try {
      const page = await browseCatalog(this.serverId, view.next);
      if (generation !== this.#generation) return;
      this.view = {
        ...view,
        entries: mergeEntries(view.entries, page.entries),
        next: page.next && page.next !== view.next ? page.next : null,
        offline: view.offline || page.offline,
        fetched_at_ms: page.offline ? Math.min(view.fetched_at_ms, page.fetched_at_ms) : view.fetched_at_ms,
      };
      this.#onview(this.serverId, page);
    } catch (reason) {
      if (generation !== this.#generation) return;
      this.moreError = toCommandError(reason);
    } finally {
      if (generation === this.#generation) this.loadingMore = false;
    }
  }
}

class BrowseStore {
  #sessions = new Map<number, BrowseSession>();
  /** Per server: the last answer was the offline copy. */
  offline = new SvelteMap<number, boolean>();
  /** Per server: its root feed says it can be searched. */
  searchable = new SvelteMap<number, boolean>();

  #listen: ViewListener = (serverId, view) => {
    this.offline.set(serverId, view.offline);
    if (view.searchable) this.searchable.set(serverId, true);
    else if (!this.searchable.has(serverId)) this.searchable.set(serverId, false);
  };

  session(serverId: number): BrowseSession {
    let session = this.#sessions.get(serverId);
    if (!session) {
      session = new BrowseSession(serverId, this.#listen);
      this.#sessions.set(serverId, session);
    }
    return session;
  }

  /** The server's session, started over at its root. */
  open(serverId: number, title: string): BrowseSession {
    const session = this.session(serverId);
    void session.openRoot(title);
    return session;
  }

  forget(serverId: number): void {
    this.#sessions.get(serverId)?.dispose();
    this.#sessions.delete(serverId);
    this.offline.delete(serverId);
    this.searchable.delete(serverId);
  }

  reset(): void {
    for (const session of this.#sessions.values()) session.dispose();
    this.#sessions.clear();
    this.offline.clear();
    this.searchable.clear();
  }
}

export const browse = new BrowseStore();
