import { beforeEach, describe, expect, it, vi } from 'vitest';

vi.mock('@tauri-apps/api/core', () => import('../../test/tauri'));

import { invoke } from '@tauri-apps/api/core';
import { book, feed, nav } from '../../test/fixtures';
import { REFRESH_OFFLINE_MS, browse, mergeEntries } from './browse.svelte';
import type { CatalogView } from '../ipc';

const invokeMock = vi.mocked(invoke);

/** A catalog of feeds by address (the root is ''), and searches by query. */
function catalog(feeds: Record<string, CatalogView>, searches: Record<string, CatalogView> = {}) {
  invokeMock.mockImplementation(async (command, args) => {
    const a = (args ?? {}) as { feedUrl?: string; query?: string };
    if (command === 'browse_catalog') {
      const found = feeds[a.feedUrl ?? ''];
      if (!found) throw { kind: 'not_found', message: `no feed ${a.feedUrl}` };
      return found;
    }
    if (command === 'search_catalog') return searches[a.query ?? ''] ?? feed([]);
    throw `unexpected ${command}`;
  });
}

const titles = (crumbs: { title: string }[]) => crumbs.map((c) => c.title);

describe('breadcrumbs', () => {
  beforeEach(() => {
    invokeMock.mockReset();
    browse.reset();
  });

  it('start at the root and grow as feeds are followed', async () => {
    const series = nav('Series', '/opds/series');
    const saga = nav('Saga', '/opds/series/saga');
    catalog({
      '': feed([series], { title: 'Attic' }),
      '/opds/series': feed([saga], { title: 'All series' }),
      '/opds/series/saga': feed([book(1), book(2)], { title: 'Saga' }),
    });
    const session = browse.session(1);
    await session.openRoot('Attic');
    expect(titles(session.crumbs)).toEqual(['Attic']);
    expect(invokeMock).toHaveBeenLastCalledWith('browse_catalog', { serverId: 1 });

    await session.follow(series);
    await session.follow(saga);
    expect(titles(session.crumbs)).toEqual(['Attic', 'Series', 'Saga']);
    expect(session.view?.entries).toHaveLength(2);
    expect(invokeMock).toHaveBeenLastCalledWith('browse_catalog', { serverId: 1, feedUrl: '/opds/series/saga' });
  });

  it('go back to any step, and one step up', async () => {
    const a = nav('A', '/a');
    const b = nav('B', '/b');
    catalog({ '': feed([a]), '/a': feed([b]), '/b': feed([book(1)]) });
    const session = browse.session(1);
    await session.openRoot('Attic');
    await session.follow(a);
    await session.follow(b);

    await session.goTo(1);
    expect(titles(session.crumbs)).toEqual(['Attic', 'A']);
    expect(session.view?.entries).toEqual([b]);

    expect(session.up()).toBe(true);
    await vi.waitFor(() => expect(session.phase).toBe('ready'));
    expect(titles(session.crumbs)).toEqual(['Attic']);
    expect(session.up()).toBe(false);
  });

  it('add a search as a step, replaced by the next search', async () => {
    const a = nav('A', '/a');
    catalog({ '': feed([a]), '/a': feed([]) }, { saga: feed([book(1)]), paper: feed([book(2)]) });
    const session = browse.session(1);
    await session.openRoot('Attic');
    await session.follow(a);
    await session.search('  saga ');
    expect(titles(session.crumbs)).toEqual(['Attic', 'A', '“saga”']);
    expect(session.isSearch).toBe(true);
    expect(invokeMock).toHaveBeenLastCalledWith('search_catalog', { serverId: 1, query: 'saga' });

    await session.search('paper');
    expect(titles(session.crumbs)).toEqual(['Attic', 'A', '“paper”']);
    expect(session.view?.entries).toEqual([book(2)]);

    await session.search('   ');
    expect(titles(session.crumbs)).toEqual(['Attic', 'A', '“paper”']);
  });

  it('start over at the root when the server is opened again', async () => {
    const a = nav('A', '/a');
    catalog({ '': feed([a]), '/a': feed([]) });
    const session = browse.session(1);
    await session.openRoot('Attic');
    await session.follow(a);
    browse.open(1, 'Attic');
    expect(titles(session.crumbs)).toEqual(['Attic']);
  });
});

describe('BrowseSession', () => {
  beforeEach(() => {
    invokeMock.mockReset();
    browse.reset();
  });

  it('shows only the answer to the last request', async () => {
    const answers: Record<string, (view: CatalogView) => void> = {};
    invokeMock.mockImplementation(
      (_command, args) => new Promise((resolve) => (answers[(args as { feedUrl?: string }).feedUrl ?? ''] = resolve)),
    );
    const session = browse.session(1);
    void session.openRoot('Attic');
    void session.follow(nav('A', '/a'));
    answers['/a'](feed([book(2)]));
    answers[''](feed([book(1)]));
    await vi.waitFor(() => expect(session.phase).toBe('ready'));
    await Promise.resolve();
    expect(session.view?.entries).toEqual([book(2)]);
  });

  it('appends the next page, without repeats, and knows when there is no more', async () => {
    catalog({
      '': feed([book(1), book(2)], { next: '/opds?page=2' }),
      '/opds?page=2': feed([book(2), book(3)], { next: '/opds?page=3' }),
      '/opds?page=3': feed([book(4)], { next: null }),
    });
    const session = browse.session(1);
    await session.openRoot('Attic');
    await session.loadMore();
    expect(session.view?.entries.map((e) => (e.type === 'book' ? e.book_id : 0))).toEqual([1, 2, 3]);
    expect(session.view?.next).toBe('/opds?page=3');
    await session.loadMore();
    expect(session.view?.entries).toHaveLength(4);
    expect(session.view?.next).toBeNull();
    const calls = invokeMock.mock.calls.length;
    await session.loadMore();
    expect(invokeMock.mock.calls.length).toBe(calls);
  });

  it('keeps a failed next page apart from the page shown', async () => {
    catalog({ '': feed([book(1)], { next: '/missing' }) });
    const session = browse.session(1);
    await session.openRoot('Attic');
    await session.loadMore();
    expect(session.phase).toBe('ready');
    expect(session.view?.entries).toHaveLength(1);
    expect(session.moreError?.kind).toBe('not_found');
  });

  it('keeps the error of a feed, and tries again', async () => {
    invokeMock.mockRejectedValueOnce({ kind: 'auth', message: 'the server wants a sign-in' });
    const session = browse.session(1);
    await session.openRoot('Attic');
    expect(session.phase).toBe('error');
    expect(session.error).toEqual({ kind: 'auth', message: 'the server wants a sign-in' });

    invokeMock.mockResolvedValueOnce(feed([book(1)]));
    await session.retry();
    expect(session.phase).toBe('ready');
    expect(session.error).toBeNull();
  });

  it('notes per server whether it answered from the offline copy, and whether it can be searched', async () => {
    invokeMock.mockResolvedValueOnce(feed([], { offline: true, searchable: true }));
    await browse.session(1).openRoot('Attic');
    expect(browse.offline.get(1)).toBe(true);
    expect(browse.searchable.get(1)).toBe(true);

    invokeMock.mockResolvedValueOnce(feed([], { offline: false, searchable: false }));
    await browse.session(1).retry();
    expect(browse.offline.get(1)).toBe(false);
    // A feed without a search link does not take search away from the server.
    expect(browse.searchable.get(1)).toBe(true);

    browse.forget(1);
    expect(browse.offline.has(1)).toBe(false);
  });
});

describe('a server that does not answer', () => {
  beforeEach(() => {
    invokeMock.mockReset();
    browse.reset();
  });

  it('shows the kept copy, asks again in the background, and shows the server’s page once it answers', async () => {
    vi.useFakeTimers();
    try {
      let answering = false;
      const asked: unknown[] = [];
      invokeMock.mockImplementation(async (_command, args) => {
        asked.push(args);
        return feed([book(answering ? 2 : 1)], { offline: !answering });
      });
      const session = browse.session(1);
      await session.openRoot('Attic');
      expect(session.view?.offline).toBe(true);
      expect(browse.offline.get(1)).toBe(true);

      await vi.advanceTimersByTimeAsync(REFRESH_OFFLINE_MS[0]);
      expect(asked.at(-1)).toEqual({ serverId: 1, fresh: true });
      expect(session.view?.offline, 'still away: the kept copy stays').toBe(true);
      expect(session.phase).toBe('ready');

      answering = true;
      await vi.advanceTimersByTimeAsync(REFRESH_OFFLINE_MS[1]);
      expect(session.phase).toBe('ready');
      expect(session.view?.offline).toBe(false);
      expect(session.view?.entries.map((e) => (e.type === 'book' ? e.book_id : null))).toEqual([2]);
      expect(browse.offline.get(1)).toBe(false);

      const count = asked.length;
      await vi.advanceTimersByTimeAsync(60_000);
      expect(asked.length, 'asked no more once it answered').toBe(count);
    } finally {
      vi.useRealTimers();
    }
  });

  it('asks the server itself when the reader tries again', async () => {
    invokeMock.mockResolvedValue(feed([book(1)], { offline: true }));
    const session = browse.session(1);
    await session.openRoot('Attic');
    await session.retry();
    expect(invokeMock).toHaveBeenLastCalledWith('browse_catalog', { serverId: 1, fresh: true });
    browse.reset();
  });
});

describe('mergeEntries', () => {
  it('appends what is new, keeping the order', () => {
    expect(mergeEntries([book(1), nav('A', '/a')], [nav('A', '/a'), book(1), book(2), nav('B', '/b')])).toEqual([
      book(1),
      nav('A', '/a'),
      book(2),
      nav('B', '/b'),
    ]);
  });
});
