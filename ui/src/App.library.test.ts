import { beforeEach, describe, expect, it, vi } from 'vitest';
import { render, screen, waitFor, within } from '@testing-library/svelte';
import userEvent from '@testing-library/user-event';

vi.mock('@tauri-apps/api/core', () => import('./test/tauri'));

import { invoke } from '@tauri-apps/api/core';
import App from './App.svelte';
import { book, details, deviceBook, deviceLibrary, downloadsView, feed, nav, okStatus, server, status } from './test/fixtures';
import { lastChannel } from './test/tauri';
import { resetStores } from './test/stores';
import { downloads } from './lib/stores/downloads.svelte';
import type { BookDetails, CatalogView, DownloadsView, Server } from './lib/ipc';

const invokeMock = vi.mocked(invoke);

beforeEach(() => {
  invokeMock.mockReset();
  resetStores();
});

const attic = server(1, 'Attic', 'https://komga.home.lan/opds', 'ada');
const series = nav('Series', '/opds/series');
const saga = nav('Saga', '/opds/series/saga');

interface Library {
  servers?: Server[];
  feeds?: Record<string, CatalogView | (() => CatalogView)>;
  searches?: Record<string, CatalogView>;
  extra?: Record<string, (args: Record<string, unknown>) => unknown>;
}

/** A fake backend with a library to browse; `feeds` by address ('' is the root). */
function library({ servers = [attic], feeds = {}, searches = {}, extra = {} }: Library = {}) {
  let list = [...servers];
  invokeMock.mockImplementation(async (command: string, args?: unknown) => {
    const a = (args ?? {}) as Record<string, unknown>;
    if (command in extra) return extra[command](a);
    switch (command) {
      case 'app_status':
        return okStatus;
      case 'list_servers':
        return list;
      case 'get_settings':
        return { books_kept: 6, notifications: true, theme: 'system', metered_downloads: 'ask' as const, keep_running: false };
      case 'watch_downloads':
        return null;
      case 'list_continue_reading':
        return [];
      case 'list_on_device':
        return deviceLibrary([]);
      case 'browse_catalog': {
        const found = feeds[(a.feedUrl as string | undefined) ?? ''];
        if (!found) throw { kind: 'not_found', message: `no feed at ${a.feedUrl}` };
        return typeof found === 'function' ? found() : found;
      }
      case 'search_catalog':
        return searches[a.query as string] ?? feed([]);
      case 'book_details':
        return details(a.bookId as number);
      case 'update_server': {
        const input = a.input as { name: string; url: string; username: string | null };
        const updated = { ...list.find((s) => s.id === a.id)!, ...input };
        list = list.map((s) => (s.id === a.id ? updated : s));
        return updated;
      }
      case 'resume_server':
        return null;
      default:
        throw `unexpected command ${command}`;
    }
  });
}

async function openAttic() {
  const user = userEvent.setup();
  render(App);
  const [item] = await screen.findAllByTestId('server-item');
  await user.click(within(item).getByTestId('server-open'));
  await screen.findByTestId('browse-view');
  return user;
}

describe('browsing a server', () => {
  it('opens the root from the sidebar, follows feeds and goes back by the breadcrumbs', async () => {
    library({
      feeds: {
        '': feed([series, nav('Latest', '/opds/latest')], { title: 'Komga' }),
        '/opds/series': feed([saga], { title: 'All series' }),
        '/opds/series/saga': feed([book(1, { title: 'Saga #1' }), book(2, { title: 'Saga #2' })], { title: 'Saga' }),
      },
    });
    const user = await openAttic();
    await waitFor(() => expect(screen.getAllByTestId('catalog-nav-entry')).toHaveLength(2));
    expect(screen.getByRole('heading', { level: 1 }).textContent).toBe('Attic');
    expect(screen.getByTestId('server-item').querySelector('[aria-current="page"]')).toBeTruthy();

    await user.click(screen.getAllByTestId('catalog-nav-entry')[0]);
    await user.click(await screen.findByText('Saga'));
    await waitFor(() => expect(screen.getAllByTestId('catalog-book')).toHaveLength(2));
    const crumbs = screen.getByTestId('breadcrumbs');
    expect(within(crumbs).getAllByTestId('breadcrumb').map((c) => c.textContent?.trim())).toEqual(['Attic', 'Series', 'Saga']);
    expect(screen.getAllByTestId('catalog-book').map((b) => b.dataset.bookId)).toEqual(['1', '2']);

    await user.click(within(crumbs).getByText('Attic'));
    await waitFor(() => expect(screen.getAllByTestId('catalog-nav-entry')).toHaveLength(2));
    expect(within(screen.getByTestId('breadcrumbs')).getAllByTestId('breadcrumb')).toHaveLength(1);
  });

  it('shows a skeleton while a feed loads, and an error with Retry when it fails', async () => {
    let answer: ((view: CatalogView) => void) | null = null;
    let fail = true;
    library({
      extra: {
        browse_catalog: () => {
          if (fail) {
            fail = false;
            return Promise.reject({ kind: 'server', message: 'the server answered 502' });
          }
          return new Promise((resolve) => (answer = resolve));
        },
      },
    });
    const user = await openAttic();
    const error = await screen.findByTestId('browse-error');
    expect(error.textContent).toContain('The server answered 502.');
    await user.click(screen.getByTestId('browse-retry'));
    expect(screen.getByTestId('browse-loading').getAttribute('aria-label')).toMatch(/^Loading /);
    expect(screen.queryByTestId('browse-error')).toBeNull();
    answer!(feed([]));
    expect((await screen.findByTestId('browse-empty')).textContent).toContain('Nothing here');
  });

  it('loads the next page and appends it', async () => {
    library({
      feeds: {
        '': feed([book(1), book(2)], { next: '/opds?page=2' }),
        '/opds?page=2': feed([book(3)], { next: null }),
      },
    });
    const user = await openAttic();
    await waitFor(() => expect(screen.getAllByTestId('catalog-book')).toHaveLength(2));
    expect(screen.getByTestId('browse-count').textContent).toBe('2+ books');
    await user.click(screen.getByTestId('load-more'));
    await waitFor(() => expect(screen.getAllByTestId('catalog-book')).toHaveLength(3));
    expect(screen.queryByTestId('load-more')).toBeNull();
    expect(screen.getByTestId('browse-count').textContent).toBe('3 books');
  });

  it("shows the feed's facets as a bar, the view shown chosen, and opens another view in its place", async () => {
    const orders = (active: 'name' | 'date') => [
      {
        title: 'Order By',
        facets: [
          { title: 'Name', href: '/opds?order=name', active: active === 'name', count: null },
          { title: 'Date', href: '/opds?order=date', active: active === 'date', count: null },
        ],
      },
    ];
    library({
      feeds: {
        '': feed([book(1), book(2)], { facets: orders('name') }),
        '/opds?order=date': feed([book(2), book(1)], { facets: orders('date') }),
      },
    });
    const user = await openAttic();
    const bar = await screen.findByTestId('facet-bar');
    const pressed = () => within(screen.getByTestId('facet-bar')).getAllByTestId('facet').map((f) => f.getAttribute('aria-pressed'));
    expect(within(bar).getByRole('group', { name: 'Order By' })).toBeTruthy();
    expect(pressed()).toEqual(['true', 'false']);
    await user.click(within(bar).getByText('Date'));
    await waitFor(() => expect(pressed()).toEqual(['false', 'true']));
    expect(invokeMock).toHaveBeenCalledWith('browse_catalog', { serverId: 1, feedUrl: '/opds?order=date' });
    expect(screen.getAllByTestId('catalog-book').map((b) => b.dataset.bookId)).toEqual(['2', '1']);
    expect(screen.getAllByTestId('breadcrumb')).toHaveLength(1);
  });

  it('says when it shows the library as last seen, here and in the sidebar', async () => {
    library({ feeds: { '': feed([book(1)], { offline: true, fetched_at_ms: Date.now() - 3 * 3600_000 }) } });
    await openAttic();
    const banner = await screen.findByTestId('offline-banner');
    expect(banner.textContent).toContain('Offline — showing the library as last seen 3 hours ago.');
    expect(within(screen.getByTestId('server-item')).getByTestId('server-offline').textContent?.trim()).toBe('Offline');
  });

  it('searches the server and shows the results as a step of the path', async () => {
    library({
      feeds: { '': feed([series], { searchable: true }) },
      searches: { saga: feed([book(7, { title: 'Saga, Volume One' })]) },
    });
    const user = await openAttic();
    const input = await screen.findByTestId('search-input');
    await user.type(input, 'saga{Enter}');
    expect(invokeMock).toHaveBeenCalledWith('search_catalog', { serverId: 1, query: 'saga' });
    await waitFor(() => expect(screen.getAllByTestId('catalog-book')).toHaveLength(1));
    expect(screen.getByRole('heading', { level: 1 }).textContent).toBe('Results for “saga”');
    expect(within(screen.getByTestId('breadcrumbs')).getAllByTestId('breadcrumb').map((c) => c.textContent?.trim())).toEqual([
      'Attic',
      'Search for “saga”',
    ]);
  });

  it('asks for credentials when the server wants them, saves them, resumes and tries again', async () => {
    let signedIn = false;
    library({
      feeds: {
        '': () => {
          if (!signedIn) throw { kind: 'auth', message: 'the server answered 401' };
          return feed([book(1)]);
        },
      },
      extra: {
        update_server: ({ input }) => {
          signedIn = (input as { password: string }).password === 's3cret';
          return { ...attic, username: (input as { username: string }).username };
        },
        resume_server: () => null,
      },
    });
    const user = await openAttic();
    const dialog = await screen.findByTestId('credentials-dialog');
    expect(dialog.textContent).toContain('Sign in to Attic');
    expect((screen.getByTestId('credentials-username') as HTMLInputElement).value).toBe('ada');
    expect(document.activeElement).toBe(screen.getByTestId('credentials-password'));

    await user.type(screen.getByTestId('credentials-password'), 's3cret');
    await user.click(screen.getByTestId('credentials-save'));

    await waitFor(() => expect(screen.queryByTestId('credentials-dialog')).toBeNull());
    expect(invokeMock).toHaveBeenCalledWith('update_server', {
      id: 1,
      input: { name: 'Attic', url: 'https://komga.home.lan/opds', username: 'ada', password: 's3cret' },
    });
    expect(invokeMock).toHaveBeenCalledWith('resume_server', { id: 1 });
    const updateAt = invokeMock.mock.calls.findIndex((c) => c[0] === 'update_server');
    const resumeAt = invokeMock.mock.calls.findIndex((c) => c[0] === 'resume_server');
    expect(resumeAt).toBeGreaterThan(updateAt);
    await waitFor(() => expect(screen.getAllByTestId('catalog-book')).toHaveLength(1));
  });

  it('keeps the sign-in state when the dialog is cancelled, with a way to ask again', async () => {
    library({ feeds: { '': () => { throw { kind: 'auth', message: 'the server answered 401' }; } } });
    const user = await openAttic();
    await screen.findByTestId('credentials-dialog');
    await user.click(screen.getByTestId('credentials-cancel'));
    expect(screen.queryByTestId('credentials-dialog')).toBeNull();
    expect(screen.getByTestId('browse-auth').textContent).toContain('Attic wants you to sign in');
    await user.click(screen.getByTestId('browse-sign-in'));
    expect(screen.getByRole('dialog', { name: 'Sign in to Attic' })).toBe(screen.getByTestId('credentials-dialog'));
  });

  it('says when the certificate is not trusted, and trusts the server when asked', async () => {
    let trusted = false;
    const refused = {
      kind: 'certificate',
      message: "https://komga.home.lan/opds: the server's certificate is not trusted (self-signed?): invalid peer certificate: UnknownIssuer",
    };
    library({
      feeds: {
        '': () => {
          if (!trusted) throw refused;
          return feed([book(1)]);
        },
      },
      extra: {
        update_server: ({ input }) => {
          trusted = (input as { trustSelfSigned?: boolean }).trustSelfSigned === true;
          return { ...attic, trust_self_signed: trusted };
        },
      },
    });
    const user = await openAttic();
    const state = await screen.findByTestId('browse-certificate');
    expect(state.getAttribute('role')).toBe('alert');
    expect(state.textContent).toContain('Attic’s certificate is not trusted');
    expect(state.textContent).toMatch(/If you run this server yourself, you can choose to trust it/);
    expect(screen.getByTestId('browse-certificate-detail').textContent).toMatch(/UnknownIssuer/);
    expect(screen.queryByTestId('browse-error')).toBeNull();
    expect(screen.queryByTestId('credentials-dialog')).toBeNull();

    await user.click(screen.getByTestId('trust-certificate'));
    const dialog = await screen.findByTestId('edit-server-dialog');
    const trust = within(dialog).getByTestId('server-trust-self-signed') as HTMLInputElement;
    expect(trust.checked).toBe(false);
    expect(document.activeElement).toBe(trust);
    await user.click(trust);
    expect(within(dialog).getByTestId('server-trust-warning').textContent).toMatch(/will not check who it is talking to/);
    await user.click(within(dialog).getByTestId('server-save'));

    await waitFor(() => expect(screen.queryByTestId('edit-server-dialog')).toBeNull());
    expect(invokeMock).toHaveBeenCalledWith('update_server', {
      id: 1,
      input: {
        name: 'Attic',
        url: 'https://komga.home.lan/opds',
        username: 'ada',
        password: null,
        minIntervalMs: 0,
        trustSelfSigned: true,
        apiKey: false,
      },
    });
    await waitFor(() => expect(screen.getAllByTestId('catalog-book')).toHaveLength(1));
    expect(screen.queryByTestId('browse-certificate')).toBeNull();
  });

  it('keeps the certificate state when the dialog is cancelled, and can try again', async () => {
    let calls = 0;
    library({
      feeds: {
        '': () => {
          calls += 1;
          throw { kind: 'certificate', message: "the server's certificate is not trusted (self-signed?)" };
        },
      },
    });
    const user = await openAttic();
    await screen.findByTestId('browse-certificate');
    await user.click(screen.getByTestId('trust-certificate'));
    await user.click(await screen.findByTestId('server-cancel'));
    expect(screen.getByTestId('browse-certificate').textContent).toContain('certificate is not trusted');
    expect(invokeMock.mock.calls.some((c) => c[0] === 'update_server')).toBe(false);
    await user.click(screen.getByTestId('browse-retry'));
    await waitFor(() => expect(calls).toBe(2));
    expect((await screen.findByTestId('browse-certificate')).textContent).toContain('certificate is not trusted');
  });
});

describe('keyboard', () => {
  it('focuses search with /, without typing it', async () => {
    library({ feeds: { '': feed([book(1)], { searchable: true }) } });
    const user = await openAttic();
    await screen.findByTestId('search-input');
    (document.activeElement as HTMLElement | null)?.blur();
    await user.keyboard('/');
    const input = screen.getByTestId('search-input') as HTMLInputElement;
    expect(document.activeElement).toBe(input);
    expect(input.value).toBe('');
    await user.keyboard('/');
    expect(input.value).toBe('/');
  });

  it('moves in the grid with the arrows, opens with Enter, closes with Escape, then goes up', async () => {
    library({
      feeds: {
        '': feed([series]),
        '/opds/series': feed([book(1), book(2), book(3)]),
      },
    });
    const user = await openAttic();
    await user.click(await screen.findByTestId('catalog-nav-entry'));
    await waitFor(() => expect(screen.getAllByTestId('catalog-book')).toHaveLength(3));
    const tiles = screen.getAllByTestId('catalog-book');
    tiles[0].focus();
    // In jsdom every tile sits at the same height: one row.
    await user.keyboard('{ArrowRight}');
    expect(document.activeElement).toBe(tiles[1]);
    await user.keyboard('{Enter}');
    const panel = await screen.findByTestId('book-details');
    expect(panel.dataset.bookId).toBe('2');
    expect(tiles[1].getAttribute('aria-current')).toBe('true');

    await user.keyboard('{Escape}');
    await waitFor(() => expect(screen.queryByTestId('book-details')).toBeNull());
    await waitFor(() => expect(document.activeElement).toBe(tiles[1]));

    await user.keyboard('{Escape}');
    await waitFor(() => expect(screen.queryAllByTestId('catalog-nav-entry')).toHaveLength(1));
    expect(screen.queryAllByTestId('catalog-book')).toHaveLength(0);
    expect(within(screen.getByTestId('breadcrumbs')).getAllByTestId('breadcrumb')).toHaveLength(1);
  });
});

describe('the rest of the window', () => {
  beforeEach(() => {
    window.location.hash = '';
  });

  it('starts on the view its window was opened on', async () => {
    library({ feeds: { '': feed([book(1)]) } });
    window.location.hash = '#/server/1';
    render(App);
    await waitFor(() => expect(screen.getAllByTestId('catalog-book')).toHaveLength(1));
    expect(screen.getByTestId('browse-view').dataset.serverId).toBe('1');
  });

  it('opens a book in a new window', async () => {
    library({ extra: { open_window: () => 'library-2' } });
    window.location.hash = '#/book/7';
    render(App);
    const panel = await screen.findByTestId('book-details');
    expect(panel.dataset.bookId).toBe('7');
    await userEvent.setup().click(screen.getByTestId('open-in-new-window'));
    expect(invokeMock).toHaveBeenCalledWith('open_window', { view: 'book/7' });
  });

  it('counts the downloads in the sidebar, live', async () => {
    library();
    render(App);
    await screen.findByTestId('downloads-nav');
    await waitFor(() => expect(downloads.connection).toBe('live'));
    expect(screen.queryByTestId('downloads-count')).toBeNull();
    lastChannel<DownloadsView>().send(
      downloadsView({
        active: {
          book_id: 4,
          title: 'Book 4',
          kind: 'page',
          position: 2,
          bytes: 10,
          total: 100,
          rate_bytes_per_s: null,
          status: status(4, 'downloading', { stored_parts: 5 }),
          eta_s: 10,
        },
        queue: [{ book_id: 6, title: 'Book 6', status: status(6, 'queued'), prioritary: false, eta_s: 30 }],
      }),
    );
    await waitFor(() => expect(screen.getByTestId('downloads-count').textContent).toBe('2'));
    expect(within(screen.getByTestId('downloads-nav')).getByRole('progressbar').getAttribute('aria-valuenow')).toBe('50');
  });

  it('goes to Downloads, Settings, On this device and Home from the sidebar', async () => {
    library({ extra: { storage_usage: () => ({ total_bytes: 0, per_server: [] }) } });
    render(App);
    const user = userEvent.setup();
    const title = () => screen.getByRole('heading', { level: 1 });
    await user.click(await screen.findByTestId('downloads-nav'));
    expect(title().closest('[data-testid]')).toBe(screen.getByTestId('downloads-view'));
    expect(title().textContent).toBe('Downloads');
    await user.click(screen.getByTestId('settings-nav'));
    expect(title().closest('[data-testid]')).toBe(screen.getByTestId('settings-view'));
    expect(title().textContent).toBe('Settings');
    await user.click(screen.getByTestId('on-device-nav'));
    expect((await screen.findByTestId('on-device-empty')).textContent).toContain('Nothing on this device yet');
    await user.click(screen.getByTestId('home-nav'));
    expect(title().closest('[data-testid]')).toBe(screen.getByTestId('library-view'));
    expect(title().textContent).toBe('Home');
    expect(screen.getByTestId('continue-empty').textContent).toBe('Books you open appear here, the most recent first.');
  });

  it('shows the books being read first on Home, most recent first', async () => {
    library({
      extra: {
        list_continue_reading: ({ limit }) => {
          expect(limit).toBe(12);
          return [
            details(3, { title: 'Monstress', last_page: 11, page_count: 180, last_opened_ms: 2 }),
            details(1, { title: 'Saga', last_page: 0, page_count: 160, last_opened_ms: 1 }),
          ];
        },
      },
    });
    render(App);
    const user = userEvent.setup();
    await waitFor(() => expect(screen.getAllByTestId('continue-item')).toHaveLength(2));
    const items = screen.getAllByTestId('continue-item');
    expect(items.map((i) => i.dataset.bookId)).toEqual(['3', '1']);
    expect(items[0].textContent).toContain('Page 12 of 180');
    await user.click(items[1]);
    expect((await screen.findByTestId('book-details')).dataset.bookId).toBe('1');
  });

  it('has Home\'s books in its first frame, asked at start, and keeps the row while it asks again on a return', async () => {
    let answers = 0;
    let answerAgain: (books: BookDetails[]) => void = () => {};
    library({
      extra: {
        list_continue_reading: () => {
          answers++;
          if (answers === 1) return [details(3, { title: 'Monstress', last_page: 11, page_count: 180, last_opened_ms: 2 })];
          return new Promise<BookDetails[]>((resolve) => (answerAgain = resolve));
        },
      },
    });
    render(App);
    const user = userEvent.setup();
    // Home appears with its row: the answer was in before Home was.
    await screen.findByTestId('library-view');
    expect(screen.getAllByTestId('continue-item').map((i) => i.dataset.bookId)).toEqual(['3']);
    expect(screen.queryByTestId('continue-loading')).toBeNull();
    expect(answers).toBe(1);

    await user.click(screen.getByTestId('on-device-nav'));
    await user.click(screen.getByTestId('home-nav'));
    // Asked again; the row read before stays shown until the new one comes.
    await waitFor(() => expect(answers).toBe(2));
    expect(screen.getAllByTestId('continue-item').map((i) => i.dataset.bookId)).toEqual(['3']);
    expect(screen.queryByTestId('continue-loading')).toBeNull();
    answerAgain([
      details(1, { title: 'Saga', last_page: 2, page_count: 160, last_opened_ms: 3 }),
      details(3, { title: 'Monstress', last_page: 11, page_count: 180, last_opened_ms: 2 }),
    ]);
    await waitFor(() => expect(screen.getAllByTestId('continue-item').map((i) => i.dataset.bookId)).toEqual(['1', '3']));
  });

  it('lists the books on this device and removes one after confirmation', async () => {
    let onDevice = [status(5, 'stored', { title: 'Saga', bytes: 84_000_000 })];
    library({
      extra: {
        list_on_device: () => deviceLibrary(onDevice.map((s) => deviceBook(s))),
        book_details: () => details(5, { title: 'Saga', pinned: true, status: onDevice[0] ?? status(5) }),
        remove_book: () => {
          onDevice = [];
          return null;
        },
      },
    });
    render(App);
    const user = userEvent.setup();
    await user.click(await screen.findByTestId('on-device-nav'));
    const item = await screen.findByTestId('on-device-item');
    expect(item.textContent).toContain('84 MB');
    await user.click(item);
    await user.click(await screen.findByTestId('remove-from-device'));
    const dialog = screen.getByTestId('remove-book-dialog');
    expect(dialog.textContent).toContain('Remove “Saga” from this device?');
    expect(document.activeElement).toBe(screen.getByTestId('remove-book-cancel'));
    await user.click(screen.getByTestId('remove-book-confirm'));
    expect(invokeMock).toHaveBeenCalledWith('remove_book', { bookId: 5 });
    expect((await screen.findByTestId('on-device-empty')).textContent).toContain('Nothing on this device yet');
    await waitFor(() => expect(screen.getByTestId('book-state-badge').textContent?.trim()).toBe('Remote'));
  });

  it('asks the core for the books on this device sorted and filtered as chosen, and keeps the choice', async () => {
    localStorage.removeItem('carrel.on-device.choices');
    const books = [deviceBook(status(5, 'stored', { title: 'Saga' })), deviceBook(status(6, 'stored', { title: 'Akira' }))];
    library({ extra: { list_on_device: () => deviceLibrary(books) } });
    render(App);
    const user = userEvent.setup();
    await user.click(await screen.findByTestId('on-device-nav'));
    await waitFor(() => expect(screen.getAllByTestId('on-device-item')).toHaveLength(2));
    expect(invokeMock).toHaveBeenLastCalledWith('list_on_device', {
      query: { sort: 'title', descending: false, formats: [], read_states: [], sources: [], text: '' },
    });
    await user.selectOptions(screen.getByTestId('on-device-sort'), 'series');
    await user.selectOptions(screen.getByTestId('on-device-format'), 'epub');
    await user.click(screen.getByTestId('on-device-descending'));
    await user.type(screen.getByTestId('on-device-filter'), 'émile');
    await waitFor(() =>
      expect(invokeMock).toHaveBeenLastCalledWith('list_on_device', {
        query: { sort: 'series', descending: true, formats: ['epub'], read_states: [], sources: [], text: 'émile' },
      }),
    );
    expect(JSON.parse(localStorage.getItem('carrel.on-device.choices') ?? '{}')).toMatchObject({
      sort: 'series',
      descending: true,
      format: 'epub',
    });
    localStorage.removeItem('carrel.on-device.choices');
  });

  it('edits a server from the sidebar', async () => {
    library();
    render(App);
    const user = userEvent.setup();
    await user.click(within(await screen.findByTestId('server-item')).getByTestId('edit-server'));
    const dialog = screen.getByTestId('edit-server-dialog');
    expect((within(dialog).getByTestId('server-url') as HTMLInputElement).value).toBe('https://komga.home.lan/opds');
    const name = within(dialog).getByTestId('server-name');
    await user.clear(name);
    await user.type(name, 'Loft');
    await user.click(within(dialog).getByTestId('server-save'));
    await waitFor(() => expect(screen.getByTestId('server-item').textContent).toContain('Loft'));
  });

  it('goes home when the server being browsed is removed', async () => {
    let list = [attic, server(2, 'Club')];
    library({
      feeds: { '': feed([book(1)]) },
      extra: {
        list_servers: () => list,
        remove_server: ({ id }) => {
          list = list.filter((s) => s.id !== id);
          return null;
        },
      },
    });
    const user = await openAttic();
    await user.click(within(screen.getAllByTestId('server-item')[0]).getByTestId('remove-server'));
    await user.click(screen.getByTestId('remove-server-confirm'));
    await waitFor(() => expect(screen.queryByTestId('browse-view')).toBeNull());
    expect(screen.getByRole('heading', { level: 1 }).textContent).toBe('Home');
    screen.getByTestId('library-view');
    expect(screen.getAllByTestId('server-item')).toHaveLength(1);
  });
});
