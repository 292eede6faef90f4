import { beforeEach, describe, expect, it, vi } from 'vitest';

vi.mock('@tauri-apps/api/core', () => import('../test/tauri'));

import { invoke } from '@tauri-apps/api/core';
import { lastChannel, resetChannels } from '../test/tauri';
import {
  FALLBACK_KIND,
  addAnnotation,
  addServer,
  deleteAnnotation,
  exportAnnotations,
  listAnnotations,
  updateAnnotation,
  bookDetails,
  browseCatalog,
  cancelBook,
  coverUrl,
  getSettings,
  listContinueReading,
  listOnDevice,
  moveBookToTop,
  openBook,
  openWindow,
  pauseDownloads,
  removeBook,
  resumeDownloads,
  resumeServer,
  retryBook,
  searchCatalog,
  setSettings,
  storageUsage,
  storeBook,
  updateServer,
  watchDownloads,
  type DownloadsView,
  appStatus,
  protocolError,
  isCommandError,
  listServers,
  removeServer,
  toCommandError,
  type Server,
} from './ipc';

const invokeMock = vi.mocked(invoke);

const home: Server = {
  id: 1,
  name: 'Home',
  url: 'https://books.example.org/opds',
  username: null,
  min_interval_ms: 0,
  created_at_ms: 1_700_000_000_000,
  paused_reason: null,
  trust_self_signed: false,
  api_key: false,
};

describe('toCommandError', () => {
  it('passes the backend’s errors through', () => {
    expect(toCommandError({ kind: 'conflict', message: 'a server named "Home" exists already', field: 'name' })).toEqual(
      { kind: 'conflict', message: 'a server named "Home" exists already', field: 'name' },
    );
    expect(toCommandError({ kind: 'storage', message: 'disk full' })).toEqual({ kind: 'storage', message: 'disk full' });
  });

  it('knows a refused certificate and a complaint about the interval', () => {
    const certificate = { kind: 'certificate', message: "the server's certificate is not trusted (self-signed?)" };
    expect(toCommandError(certificate)).toEqual(certificate);
    expect(isCommandError(certificate)).toBe(true);
    const interval = { kind: 'invalid_input', message: 'the interval between requests must be between 0 and 60000 ms', field: 'min_interval_ms' };
    expect(toCommandError(interval)).toEqual(interval);
  });

  it('drops fields it does not know and keeps the rest', () => {
    expect(toCommandError({ kind: 'invalid_input', message: 'bad', field: 'colour' })).toEqual({
      kind: 'invalid_input',
      message: 'bad',
    });
    expect(toCommandError({ kind: 'invalid_input', message: 'bad', field: null })).toEqual({
      kind: 'invalid_input',
      message: 'bad',
    });
  });

  it('gives unknown kinds the fallback kind', () => {
    expect(toCommandError({ kind: 'network', message: 'timed out', field: 'url' })).toEqual({
      kind: FALLBACK_KIND,
      message: 'timed out',
      field: 'url',
    });
  });

  it('keeps the text of strings and Errors', () => {
    expect(toCommandError('Command add_server not allowed by ACL')).toEqual({
      kind: FALLBACK_KIND,
      message: 'Command add_server not allowed by ACL',
    });
    expect(toCommandError(new TypeError('window.__TAURI_INTERNALS__ is undefined'))).toEqual({
      kind: FALLBACK_KIND,
      message: 'window.__TAURI_INTERNALS__ is undefined',
    });
  });

  it('has a message for anything else', () => {
    for (const odd of [undefined, null, 42, '', '   ', {}, { message: '' }, []]) {
      const error = toCommandError(odd);
      expect(error.kind).toBe(FALLBACK_KIND);
      expect(error.message).not.toBe('');
      expect(isCommandError(error)).toBe(true);
    }
  });

  it('is idempotent', () => {
    const once = toCommandError(new Error('boom'));
    expect(toCommandError(once)).toEqual(once);
  });
});

describe('commands', () => {
  beforeEach(() => {
    invokeMock.mockReset();
  });

  it('calls the backend by its command names and argument shapes', async () => {
    invokeMock.mockResolvedValueOnce([home]);
    await expect(listServers()).resolves.toEqual([home]);
    expect(invokeMock).toHaveBeenLastCalledWith('list_servers', undefined);

    const input = { name: 'Home', url: home.url, username: null, password: null };
    invokeMock.mockResolvedValueOnce(home);
    await expect(addServer(input)).resolves.toEqual(home);
    expect(invokeMock).toHaveBeenLastCalledWith('add_server', { input });

    invokeMock.mockResolvedValueOnce(null);
    await expect(removeServer(4)).resolves.toBeUndefined();
    expect(invokeMock).toHaveBeenLastCalledWith('remove_server', { id: 4 });
  });

  it('rejects with a CommandError whatever the backend threw', async () => {
    invokeMock.mockRejectedValueOnce('Command list_servers not found');
    await expect(listServers()).rejects.toEqual({ kind: FALLBACK_KIND, message: 'Command list_servers not found' });

    invokeMock.mockRejectedValueOnce({ kind: 'not_found', message: 'no server #9' });
    await expect(removeServer(9)).rejects.toEqual({ kind: 'not_found', message: 'no server #9' });
  });

  it('turns a failing app_status into a status that carries the error', async () => {
    invokeMock.mockRejectedValueOnce(new Error('no backend'));
    const error = { kind: FALLBACK_KIND, message: 'no backend' };
    await expect(appStatus()).resolves.toEqual({ version: '', data_dir: null, credentials: null, secrets_in_file: false, credentials_notice_dismissed: false, has_books: false, error });
  });
});

describe('library commands', () => {
  beforeEach(() => {
    invokeMock.mockReset();
    invokeMock.mockResolvedValue(null);
    resetChannels();
  });

  it('passes ids and arguments in camelCase, as the contract says', async () => {
    await updateServer(3, { name: 'Attic', url: 'https://a.example.org/opds', username: 'ada', password: null });
    expect(invokeMock).toHaveBeenLastCalledWith('update_server', {
      id: 3,
      input: { name: 'Attic', url: 'https://a.example.org/opds', username: 'ada', password: null },
    });
    await resumeServer(3);
    expect(invokeMock).toHaveBeenLastCalledWith('resume_server', { id: 3 });

    await browseCatalog(3);
    expect(invokeMock).toHaveBeenLastCalledWith('browse_catalog', { serverId: 3 });
    await browseCatalog(3, null);
    expect(invokeMock).toHaveBeenLastCalledWith('browse_catalog', { serverId: 3 });
    await browseCatalog(3, '/opds/series?page=2');
    expect(invokeMock).toHaveBeenLastCalledWith('browse_catalog', { serverId: 3, feedUrl: '/opds/series?page=2' });
    await searchCatalog(3, 'saga');
    expect(invokeMock).toHaveBeenLastCalledWith('search_catalog', { serverId: 3, query: 'saga' });
    await bookDetails(12);
    expect(invokeMock).toHaveBeenLastCalledWith('book_details', { bookId: 12 });

    await storeBook(12);
    expect(invokeMock).toHaveBeenLastCalledWith('store_book', { bookId: 12 });
    await openBook(12);
    expect(invokeMock).toHaveBeenLastCalledWith('open_book', { bookId: 12 });
    await openBook(12, 0);
    expect(invokeMock).toHaveBeenLastCalledWith('open_book', { bookId: 12, page: 0 });
    await openBook(12, null);
    expect(invokeMock).toHaveBeenLastCalledWith('open_book', { bookId: 12 });
    await removeBook(12);
    expect(invokeMock).toHaveBeenLastCalledWith('remove_book', { bookId: 12 });
    await retryBook(12);
    expect(invokeMock).toHaveBeenLastCalledWith('retry_book', { bookId: 12 });
    await listOnDevice();
    expect(invokeMock).toHaveBeenLastCalledWith('list_on_device', { query: null });
    const query = { sort: 'series', descending: true, formats: ['epub'], read_states: ['read'], sources: [2], text: 'émile' } as const;
    await listOnDevice({ ...query, formats: [...query.formats], read_states: [...query.read_states], sources: [...query.sources] });
    expect(invokeMock).toHaveBeenLastCalledWith('list_on_device', {
      query: { sort: 'series', descending: true, formats: ['epub'], read_states: ['read'], sources: [2], text: 'émile' },
    });
    await listContinueReading(12);
    expect(invokeMock).toHaveBeenLastCalledWith('list_continue_reading', { limit: 12 });

    await pauseDownloads();
    expect(invokeMock).toHaveBeenLastCalledWith('pause_downloads', undefined);
    await resumeDownloads();
    expect(invokeMock).toHaveBeenLastCalledWith('resume_downloads', undefined);
    await moveBookToTop(12);
    expect(invokeMock).toHaveBeenLastCalledWith('move_book_to_top', { bookId: 12 });
    await cancelBook(12);
    expect(invokeMock).toHaveBeenLastCalledWith('cancel_book', { bookId: 12 });

    await getSettings();
    expect(invokeMock).toHaveBeenLastCalledWith('get_settings', undefined);
    const settings = { books_kept: 6, notifications: true, theme: 'dark' as const, metered_downloads: 'ask' as const, keep_running: false, language: null };
    await setSettings(settings);
    expect(invokeMock).toHaveBeenLastCalledWith('set_settings', { settings });
    await storageUsage();
    expect(invokeMock).toHaveBeenLastCalledWith('storage_usage', undefined);
    await openWindow('server/3');
    expect(invokeMock).toHaveBeenLastCalledWith('open_window', { view: 'server/3' });
  });

  it('passes bookmarks and highlights as the contract says', async () => {
    await listAnnotations(12);
    expect(invokeMock).toHaveBeenLastCalledWith('list_annotations', { bookId: 12 });
    const annotation = {
      kind: 'highlight' as const,
      locator: { type: 'pdf' as const, page: 3, rects: [{ x: 0.1, y: 0.2, width: 0.5, height: 0.02 }] },
      quote: 'the quick fox',
      note: 'a note',
      colour: 'green' as const,
    };
    await addAnnotation(12, annotation);
    expect(invokeMock).toHaveBeenLastCalledWith('add_annotation', { bookId: 12, annotation });
    await updateAnnotation(7, 'changed');
    expect(invokeMock).toHaveBeenLastCalledWith('update_annotation', { id: 7, note: 'changed', colour: null });
    await updateAnnotation(7, null, 'pink');
    expect(invokeMock).toHaveBeenLastCalledWith('update_annotation', { id: 7, note: null, colour: 'pink' });
    await deleteAnnotation(7);
    expect(invokeMock).toHaveBeenLastCalledWith('delete_annotation', { id: 7 });
    invokeMock.mockResolvedValueOnce('# Middlemarch\n');
    await expect(exportAnnotations(12, 'markdown')).resolves.toBe('# Middlemarch\n');
    expect(invokeMock).toHaveBeenLastCalledWith('export_annotations', { bookId: 12, format: 'markdown' });
  });

  it('hands watch_downloads a channel whose messages reach the callback', async () => {
    const views: DownloadsView[] = [];
    await watchDownloads((view) => views.push(view));
    const channel = lastChannel<DownloadsView>();
    expect(invokeMock).toHaveBeenLastCalledWith('watch_downloads', { onEvent: channel });
    const view: DownloadsView = {
      paused: false,
      executor: { holder: null, this_process: false, state: 'idle' },
      active: null,
      queue: [],
      failed: [],
      done: [],
      library_revision: '5f0c3a9e21d4b786',
      stored_lately: [],
      network_hold: null,
      metered_downloads: 'ask',
    };
    channel.send(view);
    expect(views).toEqual([view]);
  });

  it('builds cover addresses on the carrel-cover protocol', () => {
    expect(coverUrl(42)).toBe('carrel-cover://localhost/42');
  });
});

describe('protocolError', () => {
  it('reads the error a protocol reply carries, its kind first', async () => {
    const offline = new Response(JSON.stringify({ kind: 'not_downloaded', message: 'offline-not-downloaded' }), { status: 504 });
    expect(await protocolError(offline)).toEqual({ kind: 'not_downloaded', message: 'offline-not-downloaded' });
  });

  it('makes a server error of a reply that carries none', async () => {
    expect(await protocolError(new Response('offline-not-downloaded', { status: 504 }))).toEqual({
      kind: 'server',
      message: 'offline-not-downloaded',
    });
    expect(await protocolError(new Response(null, { status: 500 }))).toEqual({ kind: 'server', message: '' });
  });
});
