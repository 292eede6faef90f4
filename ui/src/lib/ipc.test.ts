import { beforeEach, describe, expect, it, vi } from 'vitest';

vi.mock('@tauri-apps/api/core', () => ({ invoke: vi.fn() }));

import { invoke } from '@tauri-apps/api/core';
import {
  FALLBACK_KIND,
  addServer,
  appStatus,
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
};

describe('toCommandError', () => {
  it('passes the backend’s errors through', () => {
    expect(toCommandError({ kind: 'conflict', message: 'a server named "Home" exists already', field: 'name' })).toEqual(
      { kind: 'conflict', message: 'a server named "Home" exists already', field: 'name' },
    );
    expect(toCommandError({ kind: 'storage', message: 'disk full' })).toEqual({ kind: 'storage', message: 'disk full' });
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
    await expect(removeServer('Home')).resolves.toBeUndefined();
    expect(invokeMock).toHaveBeenLastCalledWith('remove_server', { name: 'Home' });
  });

  it('rejects with a CommandError whatever the backend threw', async () => {
    invokeMock.mockRejectedValueOnce('Command list_servers not found');
    await expect(listServers()).rejects.toEqual({ kind: FALLBACK_KIND, message: 'Command list_servers not found' });

    invokeMock.mockRejectedValueOnce({ kind: 'not_found', message: 'no server named "x"' });
    await expect(removeServer('x')).rejects.toEqual({ kind: 'not_found', message: 'no server named "x"' });
  });

  it('turns a failing app_status into a status that carries the error', async () => {
    invokeMock.mockRejectedValueOnce(new Error('no backend'));
    await expect(appStatus()).resolves.toEqual({
      version: '',
      data_dir: null,
      credentials: null,
      error: { kind: FALLBACK_KIND, message: 'no backend' },
    });
  });
});
