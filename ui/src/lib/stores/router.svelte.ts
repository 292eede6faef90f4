/**
 * The main area's view. Each view is one variant of {@link Route}; adding a screen means adding
 * a variant here and a branch in App.svelte.
 */
export type Route =
  | { view: 'home' }
  | { view: 'server'; serverId: number }
  | { view: 'on-device' }
  | { view: 'search' }
  | { view: 'downloads' }
  | { view: 'settings' }
  | { view: 'reader'; bookId: number }
  | { view: 'epub'; bookId: number };

/** Where a window opens: a view, and maybe a book's details over it. */
export interface StartPoint {
  route: Route;
  bookId: number | null;
}

/**
 * The view a window was opened on, from its address's hash (`#/downloads`, `#/server/3`,
 * `#/book/12`, as `open_window` writes it, the reader: `#/reader/12` or `#/book/12/read`, and the
 * EPUB reader: `#/epub/12`);
 * `null` when there is none or it is not one of those.
 */
export function parseStartHash(hash: string): StartPoint | null {
  const path = hash.replace(/^#\/?/, '');
  if (path === '') return null;
  switch (path) {
    case 'library':
      return { route: { view: 'home' }, bookId: null };
    case 'downloads':
    case 'settings':
    case 'on-device':
    case 'search':
      return { route: { view: path }, bookId: null };
  }
  const reading = /^(?:reader\/([1-9][0-9]{0,15})|book\/([1-9][0-9]{0,15})\/read)$/.exec(path);
  if (reading) return { route: { view: 'reader', bookId: Number(reading[1] ?? reading[2]) }, bookId: null };
  const epub = /^epub\/([1-9][0-9]{0,15})$/.exec(path);
  if (epub) return { route: { view: 'epub', bookId: Number(epub[1]) }, bookId: null };
  const match = /^(server|book)\/([1-9][0-9]{0,15})$/.exec(path);
  if (!match) return null;
  const id = Number(match[2]);
  return match[1] === 'server' ? { route: { view: 'server', serverId: id }, bookId: null } : { route: { view: 'home' }, bookId: id };
}

class RouterState {
  route = $state<Route>({ view: 'home' });

  go(route: Route): void {
    this.route = route;
  }

  /** True when `route` is the one shown (servers compare by id). */
  isAt(route: Route): boolean {
    const current = this.route;
    if (current.view !== route.view) return false;
    if (current.view === 'server' && route.view === 'server') return current.serverId === route.serverId;
    if (current.view === 'reader' && route.view === 'reader') return current.bookId === route.bookId;
    if (current.view === 'epub' && route.view === 'epub') return current.bookId === route.bookId;
    return true;
  }

  /** The server being browsed, if any. */
  get serverId(): number | null {
    return this.route.view === 'server' ? this.route.serverId : null;
  }

  reset(): void {
    this.route = { view: 'home' };
  }
}

export const router = new RouterState();
