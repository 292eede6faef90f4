import { beforeEach, describe, expect, it, vi } from 'vitest';

vi.mock('@tauri-apps/api/core', () => import('../../test/tauri'));

import { invoke } from '@tauri-apps/api/core';
import { lastChannel, resetChannels } from '../../test/tauri';
import { book, details, feed, server } from '../../test/fixtures';
import { search } from './search.svelte';
import type { ServerAnswer } from '../ipc';

const invokeMock = vi.mocked(invoke);

/** A backend whose `search_everywhere` waits until the test calls `finish`. */
function backend(local = [details(7)]) {
  let finish: (asked: number) => void = () => {};
  invokeMock.mockImplementation(async (command) => {
    if (command === 'search_on_device') return local;
    if (command === 'search_everywhere') return new Promise<number>((resolve) => (finish = resolve));
    throw `unexpected ${command}`;
  });
  return { finish: (asked: number) => finish(asked) };
}

const results = (serverId: number, name: string, ids: number[]): ServerAnswer => ({
  server_id: serverId,
  server_name: name,
  outcome: 'results',
  view: feed(ids.map((id) => book(id))),
});

describe('search everywhere', () => {
  beforeEach(() => {
    invokeMock.mockReset();
    resetChannels();
    search.clear();
  });

  it('lists every server as searching, then each answer as it comes, in the sidebar order', async () => {
    const b = backend();
    const done = search.run('saga', [server(1, 'Attic'), server(2, 'Cellar')]);
    await Promise.resolve();
    expect(search.servers.map((s) => s.state)).toEqual(['searching', 'searching']);
    expect(invokeMock).toHaveBeenCalledWith('search_everywhere', expect.objectContaining({ query: 'saga' }));
    const channel = lastChannel<ServerAnswer>();
    channel.send(results(2, 'Cellar', [3]));
    expect(search.servers.map((s) => [s.name, s.state])).toEqual([
      ['Attic', 'searching'],
      ['Cellar', 'answered'],
    ]);
    channel.send({ server_id: 1, server_name: 'Attic', outcome: 'failed', kind: 'server', message: 'connection refused' });
    b.finish(2);
    await done;
    expect(search.phase).toBe('done');
    expect(search.servers.map((s) => s.state)).toEqual(['answered', 'answered']);
    expect(search.local?.map((d) => d.book_id)).toEqual([7]);
  });

  it('drops answers that come late for an older query', async () => {
    const first = backend();
    const older = search.run('sag', [server(1, 'Attic')]);
    await Promise.resolve();
    const olderChannel = lastChannel<ServerAnswer>();
    const second = backend([]);
    const newer = search.run('saga', [server(1, 'Attic')]);
    await Promise.resolve();
    olderChannel.send(results(1, 'Attic', [1, 2, 3]));
    expect(search.servers[0].state).toBe('searching');
    lastChannel<ServerAnswer>().send(results(1, 'Attic', [9]));
    first.finish(1);
    second.finish(1);
    await Promise.all([older, newer]);
    const attic = search.servers[0];
    expect(attic.state === 'answered' && attic.answer.outcome === 'results' ? attic.answer.view.entries.length : -1).toBe(1);
    expect(search.query).toBe('saga');
    expect(search.local).toEqual([]);
  });

  it('says why when the search could not start, and keeps the device’s books', async () => {
    invokeMock.mockImplementation(async (command) => {
      if (command === 'search_on_device') return [details(4)];
      throw { kind: 'invalid_input', message: 'a search is at most 200 characters' };
    });
    await search.run('x'.repeat(201), [server(1, 'Attic')]);
    expect(search.error?.message).toBe('a search is at most 200 characters');
    expect(search.servers).toEqual([]);
    expect(search.local?.map((d) => d.book_id)).toEqual([4]);
  });
});
