import { beforeEach, describe, expect, it, vi } from 'vitest';

vi.mock('@tauri-apps/api/core', () => import('../../test/tauri'));

import { invoke } from '@tauri-apps/api/core';
import { lastChannel, resetChannels } from '../../test/tauri';
import { backend, details, downloadsView, server, status } from '../../test/fixtures';
import { resetSettings } from '../../test/stores';
import { DownloadsStore, reloadLibrary } from './downloads.svelte';
import { servers } from './servers.svelte';
import { settings } from './settings.svelte';
import { announcer } from './announcer.svelte';
import type { ActiveDownload, DownloadsView } from '../ipc';

const invokeMock = vi.mocked(invoke);

beforeEach(() => {
  invokeMock.mockReset();
  invokeMock.mockResolvedValue(null);
  resetChannels();
});

/** A store whose frames are run by the test, telling `onLibraryChange` of a library changed. */
function store(onLibraryChange?: () => void) {
  const frames: Array<() => void> = [];
  const downloads = new DownloadsStore((flush) => frames.push(flush), onLibraryChange);
  const frame = () => {
    for (const flush of frames.splice(0)) flush();
  };
  return { downloads, frame, frames };
}

/** A store started, the channel its views come by, and `show`: a view sent and its frame run. */
async function started(onLibraryChange?: () => void) {
  const made = store(onLibraryChange);
  await made.downloads.start();
  const channel = lastChannel<DownloadsView>();
  const show = (view: Partial<DownloadsView> = {}) => {
    channel.send(downloadsView(view));
    made.frame();
  };
  return { ...made, channel, show };
}

/** Every book asked about with book_details is stored; other commands answer nothing. */
function detailsSayStored() {
  invokeMock.mockImplementation(async (command, args) => {
    if (command !== 'book_details') return null;
    const id = (args as { bookId: number }).bookId;
    return details(id, { status: status(id, 'stored') });
  });
}

function queueOf(...ids: number[]): DownloadsView['queue'] {
  return ids.map((id, i) => ({
    book_id: id,
    title: `Book ${id}`,
    status: status(id, i === 0 ? 'downloading' : 'queued', { stored_parts: 2 }),
    prioritary: false,
    eta_s: 60,
  }));
}

describe('DownloadsStore', () => {
  it('subscribes once, through one channel', async () => {
    const { downloads } = store();
    await downloads.start();
    await downloads.start();
    expect(invokeMock).toHaveBeenCalledTimes(1);
    expect(invokeMock).toHaveBeenCalledWith('watch_downloads', { onEvent: lastChannel() });
    expect(downloads.connection).toBe('live');
  });

  it('keeps why subscribing failed, and can try again', async () => {
    const { downloads } = store();
    invokeMock.mockRejectedValueOnce('Command watch_downloads not found');
    await downloads.start();
    expect(downloads.connection).toBe('error');
    expect(downloads.error?.message).toBe('Command watch_downloads not found');
    await downloads.start();
    expect(downloads.connection).toBe('live');
    expect(downloads.error).toBeNull();
  });

  it('applies only the newest of the views that arrive within a frame', async () => {
    const { downloads, frame, frames } = store();
    await downloads.start();
    const channel = lastChannel<DownloadsView>();

    channel.send(downloadsView({ queue: queueOf(1) }));
    channel.send(downloadsView({ queue: queueOf(1, 2) }));
    channel.send(downloadsView({ queue: queueOf(1, 2, 3) }));
    expect(frames).toHaveLength(1);
    expect(downloads.view).toBeNull();

    frame();
    expect(downloads.applied).toBe(1);
    expect(downloads.view?.queue.map((q) => q.book_id)).toEqual([1, 2, 3]);
    expect(downloads.count).toBe(3);
  });

  it('does not apply a view equal to the one shown', async () => {
    const { downloads, show } = await started();
    show({ queue: queueOf(1) });
    const shown = downloads.view;
    // The once-a-second heartbeat, unchanged.
    show({ queue: queueOf(1) });
    expect(downloads.applied).toBe(1);
    expect(downloads.view).toBe(shown);
  });

  it('ignores views from an abandoned subscription', async () => {
    const { downloads, frame } = store();
    await downloads.start();
    const old = lastChannel<DownloadsView>();
    downloads.reset();
    await downloads.start();
    old.send(downloadsView({ queue: queueOf(9) }));
    frame();
    expect(downloads.view).toBeNull();
  });

  it('gives each book its freshest status', async () => {
    const { downloads, frame } = store();
    await downloads.start();
    const fallback = status(5, 'remote', { total_parts: 30 });
    expect(downloads.statusOf(5, fallback)).toBe(fallback);

    lastChannel<DownloadsView>().send(
      downloadsView({
        queue: [{ book_id: 5, title: 'Book 5', status: status(5, 'downloading', { stored_parts: 15, total_parts: 30 }), prioritary: true, eta_s: 30 }],
        failed: [{ book_id: 6, title: 'Book 6', reason: 'HTTP 404' }],
      }),
    );
    frame();
    expect(downloads.statusOf(5, fallback)?.state).toBe('downloading');
    expect(downloads.badgeOf(5, fallback).label).toBe('Downloading 50 %');
    const failed = downloads.statusOf(6, status(6, 'queued', { stored_parts: 3, total_parts: 12 }));
    expect(failed).toMatchObject({ state: 'failed', reason: 'HTTP 404', stored_parts: 3, total_parts: 12 });
    expect(downloads.badgeOf(6, status(6)).label).toBe('Failed');
    expect(downloads.failedCount).toBe(1);
  });

  it('asks for the standing of a book that left the queue', async () => {
    detailsSayStored();
    const { downloads, show } = await started();
    show({ queue: queueOf(1, 2) });
    show({ queue: queueOf(2) });

    expect(invokeMock).toHaveBeenCalledWith('book_details', { bookId: 1 });
    await vi.waitFor(() => expect(downloads.statusOf(1)?.state).toBe('stored'));
    expect(downloads.badgeOf(1, status(1)).label).toBe('On device');
    expect(downloads.revision).toBe(1);
    // A book still waiting is not asked about.
    expect(invokeMock).not.toHaveBeenCalledWith('book_details', { bookId: 2 });
  });

  it('says a book that left the queue stored is ready to read offline, and nothing of one never seen downloading', async () => {
    announcer.clear();
    detailsSayStored();
    const { downloads, show } = await started();
    show({ queue: queueOf(1, 2) });
    show({ queue: queueOf(2) });
    const title = status(1, 'stored').title;
    await vi.waitFor(() => expect(announcer.message).toBe(`${title} is ready to read offline`));

    announcer.clear();
    show({ queue: queueOf(2), stored_lately: [5] });
    await vi.waitFor(() => expect(downloads.statusOf(5)?.state).toBe('stored'));
    expect(announcer.message).toBe('');
  });

  it('learns of a book stored between two views, once', async () => {
    detailsSayStored();
    const { downloads, show } = await started();
    // Book 5 was queued and stored before any view mentioned it.
    show({ queue: queueOf(2), stored_lately: [5] });
    expect(invokeMock).toHaveBeenCalledWith('book_details', { bookId: 5 });
    await vi.waitFor(() => expect(downloads.statusOf(5)?.state).toBe('stored'));
    expect(downloads.badgeOf(5, status(5)).label).toBe('On device');
    // Known as stored now: the next views do not ask again.
    invokeMock.mockClear();
    show({ queue: queueOf(2, 3), stored_lately: [5] });
    expect(invokeMock).not.toHaveBeenCalledWith('book_details', { bookId: 5 });
  });

  it('follows a one-file book by the bytes in flight', async () => {
    const { downloads, show } = await started();
    show({
      executor: { holder: 'me', this_process: true, state: 'running' },
      active: {
        book_id: 3,
        title: 'Book 3',
        kind: 'file',
        position: 0,
        bytes: 4_200_000,
        total: 10_000_000,
        rate_bytes_per_s: 1e6,
        status: status(3, 'downloading', { total_parts: 1 }),
        eta_s: 6,
      },
    });
    expect(downloads.activePercent).toBe(42);
    expect(downloads.badgeOf(3, status(3)).label).toBe('Downloading 42 %');
    expect(downloads.count).toBe(1);
  });

  it('counts and badges the book in flight, which the queue does not list', async () => {
    const { downloads, show } = await started();
    const active = { book_id: 4, title: 'Book 4', kind: 'page' as const, position: 9, bytes: 0, total: null, rate_bytes_per_s: null };
    show({
      active: { ...active, status: status(4, 'downloading', { stored_parts: 9, total_parts: 20 }), eta_s: 12 },
      queue: queueOf(6).map((q) => ({ ...q, status: status(6, 'queued') })),
    });
    expect(downloads.count).toBe(2);
    expect(downloads.badgeOf(4, status(4)).label).toBe('Downloading 45 %');
    expect(downloads.activePercent).toBe(45);
  });

  it('keeps what it knew of the book in flight when the view does not say', async () => {
    const { downloads, show } = await started();
    // Waiting with 6 of 20 pages, then in flight with no status of its own.
    show({ queue: [{ book_id: 4, title: 'Book 4', status: status(4, 'queued', { stored_parts: 6, total_parts: 20 }), prioritary: false, eta_s: null }] });
    show({ active: { book_id: 4, title: 'Book 4', kind: 'page', position: 6, bytes: 0, total: null, rate_bytes_per_s: null, eta_s: null } as ActiveDownload });
    expect(downloads.badgeOf(4, status(4)).label).toBe('Downloading 30 %');
    expect(downloads.count).toBe(1);

    // Nothing known at all: the catalog's status gives the parts.
    show({ active: { book_id: 7, title: 'Book 7', kind: 'page', position: 0, bytes: 0, total: null, rate_bytes_per_s: null, eta_s: null } as ActiveDownload });
    expect(downloads.badgeOf(7, status(7, 'remote', { stored_parts: 5, total_parts: 10 })).label).toBe('Downloading 50 %');
  });

  it('asks for the standing of the book in flight once it is done', async () => {
    detailsSayStored();
    const { downloads, show } = await started();
    show({
      active: { book_id: 4, title: 'Book 4', kind: 'page', position: 9, bytes: 0, total: null, rate_bytes_per_s: null, eta_s: null, status: status(4, 'downloading', { stored_parts: 9 }) },
    });
    show();
    expect(invokeMock).toHaveBeenCalledWith('book_details', { bookId: 4 });
    await vi.waitFor(() => expect(downloads.badgeOf(4, status(4)).label).toBe('On device'));
  });

  it('asks about a kept book that no view mentioned, even when the view does not change', async () => {
    let stored = false;
    invokeMock.mockImplementation(async (command) => {
      if (command === 'store_book') return 'queued';
      if (command === 'book_details') return details(7, { status: status(7, stored ? 'stored' : 'queued', { total_parts: 10, stored_parts: stored ? 10 : 0 }) });
      return null;
    });
    const { downloads, show } = await started();
    show();
    await downloads.keep(status(7, 'remote', { total_parts: 10 }));
    expect(downloads.badgeOf(7, status(7)).label).toBe('Queued');

    // Another process downloaded it between two of the once-a-second views.
    stored = true;
    show();
    expect(invokeMock).toHaveBeenCalledWith('book_details', { bookId: 7 });
    await vi.waitFor(() => expect(downloads.badgeOf(7, status(7)).label).toBe('On device'));
    expect(downloads.applied).toBe(1);
    expect(downloads.revision).toBe(2);

    // Once it is known to be stored, it is not asked about again.
    invokeMock.mockClear();
    show();
    expect(invokeMock).not.toHaveBeenCalledWith('book_details', { bookId: 7 });
  });

  it('notes what its actions changed before the next view says so', async () => {
    const { downloads } = store();
    invokeMock.mockImplementation(async (command) => (command === 'store_book' ? 'queued' : null));
    await downloads.keep(status(4, 'remote'));
    expect(invokeMock).toHaveBeenCalledWith('store_book', { bookId: 4 });
    expect(downloads.statusOf(4)?.state).toBe('queued');

    invokeMock.mockImplementation(async (command) => (command === 'store_book' ? 'already_stored' : null));
    await downloads.keep(status(8, 'remote', { total_parts: 5, stored_parts: 5 }));
    expect(downloads.badgeOf(8, status(8)).label).toBe('On device');

    await downloads.remove(status(8, 'stored'));
    expect(invokeMock).toHaveBeenCalledWith('remove_book', { bookId: 8 });
    expect(downloads.badgeOf(8, status(8, 'stored')).label).toBe('Remote');
    expect(downloads.revision).toBe(3);
  });

  it('pauses and resumes everything', async () => {
    const { downloads, show } = await started();
    show();
    await downloads.pauseAll();
    expect(invokeMock).toHaveBeenCalledWith('pause_downloads', undefined);
    expect(downloads.paused).toBe(true);
    await downloads.resumeAll();
    expect(invokeMock).toHaveBeenCalledWith('resume_downloads', undefined);
    expect(downloads.paused).toBe(false);
  });

  it('passes queue commands on with the book id', async () => {
    const { downloads } = store();
    await downloads.moveToTop(5);
    expect(invokeMock).toHaveBeenLastCalledWith('move_book_to_top', { bookId: 5 });
    await downloads.cancel(5);
    expect(invokeMock).toHaveBeenLastCalledWith('cancel_book', { bookId: 5 });
    await downloads.retry(5);
    expect(invokeMock).toHaveBeenLastCalledWith('retry_book', { bookId: 5 });
    await downloads.open(5, 12);
    expect(invokeMock).toHaveBeenLastCalledWith('open_book', { bookId: 5, page: 12 });
  });
});

describe('a library changed elsewhere', () => {
  beforeEach(() => {
    servers.reset();
    resetSettings();
  });

  it('is reloaded when the revision changes, not on the first view nor on an equal revision', async () => {
    const reload = vi.fn();
    const { downloads, frame, channel, show } = await started(reload);

    show({ library_revision: 'a' });
    expect(reload).not.toHaveBeenCalled();
    expect(downloads.revision).toBe(0);

    // The downloads move on; the library does not.
    show({ library_revision: 'a', queue: queueOf(1) });
    show({ library_revision: 'a', queue: queueOf(1, 2) });
    expect(downloads.applied).toBe(3);
    expect(reload).not.toHaveBeenCalled();
    expect(downloads.revision).toBe(0);

    show({ library_revision: 'b', queue: queueOf(1, 2) });
    expect(reload).toHaveBeenCalledTimes(1);
    expect(downloads.revision).toBe(1);

    // Views coalesced in one frame: one reload.
    channel.send(downloadsView({ library_revision: 'c', queue: queueOf(1, 2) }));
    show({ library_revision: 'd', queue: queueOf(1, 2) });
    expect(reload).toHaveBeenCalledTimes(2);

    // After a reset, the next view is a first one again.
    downloads.reset();
    await downloads.start();
    lastChannel<DownloadsView>().send(downloadsView({ library_revision: 'e' }));
    frame();
    expect(reload).toHaveBeenCalledTimes(2);
  });

  it('reads the servers and the settings again, and applies the theme', async () => {
    backend({
      list_servers: [server(1, 'Home')],
      get_settings: { books_kept: 6, notifications: true, theme: 'system', metered_downloads: 'ask' as const, keep_running: false, language: null },
    });
    await servers.refresh();
    await settings.load();
    const shown = servers.list;

    // Nothing changed: nothing is replaced.
    await reloadLibrary();
    expect(servers.list).toBe(shown);
    expect(document.documentElement.hasAttribute('data-theme')).toBe(false);

    backend({
      list_servers: [server(1, 'Attic'), server(2, 'Office')],
      get_settings: { books_kept: 3, notifications: false, theme: 'dark', metered_downloads: 'ask' as const, keep_running: false, language: null },
    });
    await reloadLibrary();
    expect(servers.list.map((s) => s.name)).toEqual(['Attic', 'Office']);
    expect(settings.value).toEqual({ books_kept: 3, notifications: false, theme: 'dark', metered_downloads: 'ask' as const, keep_running: false, language: null });
    expect(document.documentElement.dataset.theme).toBe('dark');
  });

  it('keeps what is shown when reading again fails, and never undoes a change being saved', async () => {
    backend({
      list_servers: [server(1, 'Home')],
      get_settings: { books_kept: 6, notifications: true, theme: 'system', metered_downloads: 'ask' as const, keep_running: false },
    });
    await servers.refresh();
    await settings.load();

    let saved: (value: unknown) => void = () => {};
    backend({
      list_servers: () => {
        throw { kind: 'storage', message: 'the disk is busy' };
      },
      get_settings: { books_kept: 6, notifications: true, theme: 'light', metered_downloads: 'ask' as const, keep_running: false },
      set_settings: () => new Promise((resolve) => (saved = resolve)),
    });
    const saving = settings.update({ theme: 'dark' });
    await reloadLibrary();
    expect(servers.list.map((s) => s.name)).toEqual(['Home']);
    expect(servers.error).toBeNull();
    expect(settings.value.theme).toBe('dark');
    saved({ books_kept: 6, notifications: true, theme: 'dark', metered_downloads: 'ask' as const, keep_running: false });
    await saving;
    expect(document.documentElement.dataset.theme).toBe('dark');
  });
});

