import { beforeEach, describe, expect, it, vi } from 'vitest';
import { render, screen, waitFor } from '@testing-library/svelte';
import userEvent from '@testing-library/user-event';

vi.mock('@tauri-apps/api/core', () => import('../test/tauri'));

import { invoke } from '@tauri-apps/api/core';
import ServerDialog from './ServerDialog.svelte';
import { servers } from '../lib/stores/servers.svelte';
import type { Server, UpdateServerInput } from '../lib/ipc';

const invokeMock = vi.mocked(invoke);

const saved: Server = {
  id: 7,
  name: 'books.example.org',
  url: 'https://books.example.org/opds',
  username: 'ada',
  min_interval_ms: 0,
  created_at_ms: 1_700_000_000_000,
  paused_reason: null,
  trust_self_signed: false,
  api_key: false,
};

/** What the dialog sends for `saved` with its fields unchanged (the password kept), and `changes`. */
function savedInput(changes: Partial<UpdateServerInput> = {}): UpdateServerInput {
  return {
    name: 'books.example.org',
    url: 'https://books.example.org/opds',
    username: 'ada',
    password: null,
    minIntervalMs: 0,
    trustSelfSigned: false,
    apiKey: false,
    ...changes,
  };
}

function setup(props: Partial<{ onclose: () => void; onsaved: (s: Server) => void }> = {}) {
  const onclose = props.onclose ?? vi.fn();
  const onsaved = props.onsaved ?? vi.fn();
  const user = userEvent.setup();
  render(ServerDialog, { onclose, onsaved });
  return { user, onclose, onsaved };
}

describe('ServerDialog (add)', () => {
  beforeEach(() => {
    invokeMock.mockReset();
    servers.reset();
  });

  it('says what the typed address leads to before anything is saved', async () => {
    invokeMock.mockImplementation(async (command: string, args?: unknown) => {
      if (command === 'discover_server') {
        expect(args).toEqual({ url: 'nas.local:9810', username: null, password: null, trustSelfSigned: false, apiKey: false });
        return {
          description: 'Codex, OPDS 1.2 at http://nas.local:9810/opds/v1.2/',
          catalog_url: 'http://nas.local:9810/opds/v1.2/',
          server_kind: 'Codex',
          opds_version: '1.2',
          elsewhere: null,
          consent_question: null,
        };
      }
      throw `unexpected command ${command}`;
    });
    const { user } = setup();
    await user.type(screen.getByTestId('server-url'), 'nas.local:9810');
    expect((await screen.findByTestId('server-found', {}, { timeout: 3000 })).textContent).toBe(
      'Found Codex, OPDS 1.2 at http://nas.local:9810/opds/v1.2/',
    );
    expect(screen.queryByTestId('server-elsewhere')).toBeNull();
    // Asked once, after typing stopped; nothing saved.
    expect(invokeMock.mock.calls.filter(([c]) => c === 'discover_server')).toHaveLength(1);
    expect(invokeMock).not.toHaveBeenCalledWith('add_server', expect.anything());
    // Another address: the old finding goes at once.
    await user.type(screen.getByTestId('server-url'), 'x');
    expect(screen.queryByTestId('server-found')).toBeNull();
  });

  it('saves a catalog found on another host only after the reader says yes to its address', async () => {
    const question = 'The catalog this address leads to is on another server: http://other.example:81/opds. Your sign-in will be sent there. Use this address?';
    invokeMock.mockImplementation(async (command: string, args?: unknown) => {
      if (command === 'discover_server') {
        return {
          description: 'OPDS 1.2 at http://other.example:81/opds',
          catalog_url: 'http://other.example:81/opds',
          server_kind: null,
          opds_version: '1.2',
          elsewhere: 'other_host',
          consent_question: question,
        };
      }
      if (command === 'add_server') {
        expect((args as { input: { acceptCatalog: string | null } }).input.acceptCatalog).toBe('http://other.example:81/opds');
        return { ...saved, url: 'http://other.example:81/opds' };
      }
      if (command === 'list_servers') return [];
      throw `unexpected command ${command}`;
    });
    const { user, onsaved } = setup();
    await user.type(screen.getByTestId('server-name'), 'Home');
    await user.type(screen.getByTestId('server-url'), 'nas.local:9810');
    const warning = await screen.findByTestId('server-elsewhere', {}, { timeout: 3000 });
    expect(warning.textContent).toContain(question);
    expect(screen.getByTestId('server-found').textContent).toContain('http://other.example:81/opds');
    // Save without the yes: nothing is saved, the question is said at the field, focus on the yes.
    await user.click(screen.getByTestId('server-save'));
    expect(invokeMock).not.toHaveBeenCalledWith('add_server', expect.anything());
    expect(screen.getByTestId('server-url-error').textContent).toBe(question);
    expect(document.activeElement).toBe(screen.getByTestId('server-accept-catalog'));
    await user.click(screen.getByTestId('server-accept-catalog'));
    await user.click(screen.getByTestId('server-save'));
    await waitFor(() => expect(onsaved).toHaveBeenCalled());
  });

  const fixture = {
    description: 'Codex, OPDS 1.2 at http://127.0.0.1:9810/opds/v1.2/',
    catalog_url: 'http://127.0.0.1:9810/opds/v1.2/',
    server_kind: 'Codex',
    opds_version: '1.2',
    title: 'Home library',
    elsewhere: null,
    consent_question: null,
  };

  it('saves a host and port typed without a scheme and no name, named after the catalog', async () => {
    invokeMock.mockImplementation(async (command: string) => {
      if (command === 'discover_server') return fixture;
      if (command === 'add_server') return { ...saved, name: 'Home library', url: fixture.catalog_url };
      if (command === 'list_servers') return [];
      throw `unexpected command ${command}`;
    });
    const { user, onclose } = setup();
    await user.click(screen.getByTestId('server-url'));
    await user.keyboard('127.0.0.1:9810');
    await screen.findByTestId('server-found', {}, { timeout: 3000 });
    await user.keyboard('{Enter}');
    await waitFor(() => expect(onclose).toHaveBeenCalledTimes(1));
    expect(invokeMock).toHaveBeenCalledWith('add_server', {
      input: expect.objectContaining({ name: 'Home library', url: '127.0.0.1:9810' }),
    });
  });

  it('leaves naming to the library when Save comes before the catalog is known', async () => {
    invokeMock.mockImplementation(async (command: string) => {
      if (command === 'discover_server') return new Promise(() => {});
      if (command === 'add_server') return { ...saved, name: 'Home library' };
      if (command === 'list_servers') return [];
      throw `unexpected command ${command}`;
    });
    const { user, onclose } = setup();
    await user.click(screen.getByTestId('server-url'));
    await user.keyboard('127.0.0.1:9810{Enter}');
    await waitFor(() => expect(onclose).toHaveBeenCalledTimes(1));
    const input = (invokeMock.mock.calls.find(([c]) => c === 'add_server')?.[1] as { input: { name: string } }).input;
    expect(['', '127.0.0.1:9810']).toContain(input.name);
  });

  it('says under the address that a server is saved already, and saves nothing', async () => {
    // Saved without a sign-in, as this one is typed; another account would be a server of its own.
    const home: Server = { ...saved, id: 3, name: 'Home library', url: fixture.catalog_url, username: null };
    servers.list = [home, { ...home, id: 4, name: 'Ada on Home', username: 'ada' }];
    invokeMock.mockImplementation(async (command: string) => {
      if (command === 'discover_server') return fixture;
      throw `unexpected command ${command}`;
    });
    const { user, onclose } = setup();
    await user.type(screen.getByTestId('server-url'), '127.0.0.1:9810');
    expect((await screen.findByTestId('server-url-error', {}, { timeout: 3000 })).textContent).toBe(
      'You already have this server: Home library.',
    );
    await user.click(screen.getByTestId('server-save'));
    expect(invokeMock).not.toHaveBeenCalledWith('add_server', expect.anything());
    expect(document.activeElement).toBe(screen.getByTestId('server-url'));
    expect(onclose).not.toHaveBeenCalled();
  });

  it('is a labelled modal dialog with focus on the first field', () => {
    setup();
    const dialog = screen.getByTestId('add-server-dialog');
    expect(dialog.getAttribute('role')).toBe('dialog');
    expect(dialog.getAttribute('aria-modal')).toBe('true');
    expect(screen.getByRole('dialog', { name: 'Add a server' })).toBe(dialog);
    expect(document.activeElement).toBe(screen.getByTestId('server-name'));
    expect(screen.getByTestId('server-password').getAttribute('type')).toBe('password');
    expect(screen.getByTestId('server-save').getAttribute('type')).toBe('submit');
  });

  it('shows an inline error for a bad address and calls nothing', async () => {
    const { user, onclose } = setup();
    await user.type(screen.getByTestId('server-name'), 'Home');
    await user.type(screen.getByTestId('server-url'), 'not a url');
    await user.click(screen.getByTestId('server-save'));

    const error = screen.getByTestId('server-url-error');
    expect(error.getAttribute('role')).toBe('alert');
    expect(error.textContent).toMatch(/not a web address/i);
    const url = screen.getByTestId('server-url');
    expect(url.getAttribute('aria-invalid')).toBe('true');
    expect(url.getAttribute('aria-describedby')).toContain('server-url-error');
    expect(document.activeElement).toBe(url);
    expect(invokeMock).not.toHaveBeenCalled();
    expect(onclose).not.toHaveBeenCalled();
  });

  it('checks the address when it loses focus, and clears the error once fixed', async () => {
    const { user } = setup();
    const url = screen.getByTestId('server-url');
    await user.type(url, 'ftp://example.org/opds');
    await user.tab();
    expect(screen.getByTestId('server-url-error').textContent).toMatch(/not supported/);

    await user.clear(url);
    await user.type(url, 'https://example.org/opds');
    expect(screen.queryByTestId('server-url-error')).toBeNull();
    expect(url.getAttribute('aria-invalid')).toBeNull();
  });

  it('fills an empty name from the address host', async () => {
    const { user } = setup();
    await user.type(screen.getByTestId('server-url'), 'https://www.books.example.org/opds');
    await user.tab();
    expect((screen.getByTestId('server-name') as HTMLInputElement).value).toBe('books.example.org');
  });

  it('does not replace a name the reader typed', async () => {
    const { user } = setup();
    await user.type(screen.getByTestId('server-name'), 'Attic');
    await user.type(screen.getByTestId('server-url'), 'https://books.example.org/opds');
    await user.tab();
    expect((screen.getByTestId('server-name') as HTMLInputElement).value).toBe('Attic');
  });

  it('saves, refreshes the list and closes', async () => {
    const onsaved = vi.fn();
    const { user, onclose } = setup({ onsaved });
    invokeMock.mockImplementation(async (command) => {
      if (command === 'add_server') return saved;
      if (command === 'list_servers') return [saved];
      throw new Error(`unexpected ${command}`);
    });

    await user.type(screen.getByTestId('server-url'), ' https://books.example.org/opds ');
    await user.type(screen.getByTestId('server-username'), 'ada');
    await user.type(screen.getByTestId('server-password'), 'pa ss');
    await user.click(screen.getByTestId('server-save'));

    await waitFor(() => expect(onclose).toHaveBeenCalledTimes(1));
    expect(invokeMock).toHaveBeenCalledWith('add_server', {
      input: savedInput({ password: 'pa ss' }),
    });
    expect(invokeMock).toHaveBeenCalledWith('list_servers', undefined);
    expect(onsaved).toHaveBeenCalledWith(saved);
    expect(servers.list).toEqual([saved]);
  });

  it('disables Save with a busy label while saving', async () => {
    let finish: (value: Server) => void = () => {};
    invokeMock.mockImplementation((command) => {
      if (command === 'add_server') return new Promise<Server>((resolve) => (finish = resolve));
      return Promise.resolve([saved]);
    });
    const { user, onclose } = setup();
    await user.type(screen.getByTestId('server-name'), 'Home');
    await user.type(screen.getByTestId('server-url'), 'https://books.example.org/opds');
    await user.click(screen.getByTestId('server-save'));

    const save = screen.getByTestId('server-save') as HTMLButtonElement;
    await waitFor(() => expect(save.disabled).toBe(true));
    expect(save.textContent).toMatch(/Saving…/);

    finish(saved);
    await waitFor(() => expect(onclose).toHaveBeenCalled());
  });

  it('shows the backend’s complaint about a field under that field', async () => {
    invokeMock.mockRejectedValueOnce({ kind: 'conflict', message: 'a server named "Home" exists already', field: 'name' });
    const { user, onclose } = setup();
    await user.type(screen.getByTestId('server-name'), 'Home');
    await user.type(screen.getByTestId('server-url'), 'https://books.example.org/opds');
    await user.click(screen.getByTestId('server-save'));

    const error = await screen.findByTestId('server-name-error');
    expect(error.textContent).toBe('A server named "Home" exists already.');
    expect(screen.getByTestId('server-name').getAttribute('aria-invalid')).toBe('true');
    expect(onclose).not.toHaveBeenCalled();
    expect((screen.getByTestId('server-save') as HTMLButtonElement).disabled).toBe(false);
  });

  it('shows a backend url complaint under the address', async () => {
    invokeMock.mockRejectedValueOnce({ kind: 'invalid_input', message: 'the address has no server name', field: 'url' });
    const { user } = setup();
    await user.type(screen.getByTestId('server-name'), 'Home');
    await user.type(screen.getByTestId('server-url'), 'https://books.example.org/opds');
    await user.click(screen.getByTestId('server-save'));
    expect((await screen.findByTestId('server-url-error')).textContent).toBe('The address has no server name.');
  });

  it('shows a password the keyring could not keep under the password', async () => {
    invokeMock.mockRejectedValueOnce({ kind: 'storage', message: 'the keyring is locked', field: 'password' });
    const { user } = setup();
    await user.type(screen.getByTestId('server-name'), 'Home');
    await user.type(screen.getByTestId('server-url'), 'https://books.example.org/opds');
    await user.type(screen.getByTestId('server-username'), 'reader');
    await user.type(screen.getByTestId('server-password'), 'secret');
    await user.click(screen.getByTestId('server-save'));
    expect((await screen.findByTestId('server-password-error')).textContent).toBe('The keyring is locked.');
    expect(document.activeElement).toBe(screen.getByTestId('server-password'));
    expect(screen.queryByTestId('server-form-error')).toBeNull();
  });

  it('shows other failures in the dialog', async () => {
    invokeMock.mockRejectedValueOnce({ kind: 'storage', message: 'the disk is full' });
    const { user } = setup();
    await user.type(screen.getByTestId('server-name'), 'Home');
    await user.type(screen.getByTestId('server-url'), 'https://books.example.org/opds');
    await user.click(screen.getByTestId('server-save'));
    const error = await screen.findByTestId('server-form-error');
    expect(error.getAttribute('role')).toBe('alert');
    expect(error.textContent).toBe('The disk is full.');
  });

  it('closes on Escape and on Cancel without calling anything', async () => {
    const { user, onclose } = setup();
    await user.keyboard('{Escape}');
    expect(onclose).toHaveBeenCalledTimes(1);
    await user.click(screen.getByTestId('server-cancel'));
    expect(onclose).toHaveBeenCalledTimes(2);
    expect(invokeMock).not.toHaveBeenCalled();
  });

  it('starts with no pause and the certificate checked, with no warning', () => {
    setup();
    const interval = screen.getByTestId('server-interval') as HTMLInputElement;
    expect(interval.value).toBe('0');
    expect(interval.getAttribute('inputmode')).toBe('numeric');
    expect(screen.getByLabelText('Pause between requests')).toBe(interval);
    const trust = screen.getByTestId('server-trust-self-signed') as HTMLInputElement;
    expect(trust.type).toBe('checkbox');
    expect(trust.checked).toBe(false);
    expect(screen.getByLabelText('Trust this server’s certificate even if it is self-signed')).toBe(trust);
    expect(screen.queryByTestId('server-trust-warning')).toBeNull();
  });

  it('warns while the certificate is trusted, and stops when unticked', async () => {
    const { user } = setup();
    const trust = screen.getByTestId('server-trust-self-signed');
    await user.click(trust);
    const warning = screen.getByTestId('server-trust-warning');
    expect(warning.textContent?.trim()).toBe('Only for a server you run yourself: Carrel will not check who it is talking to.');
    expect(trust.getAttribute('aria-describedby')).toBe('server-trust-warning');
    await user.click(trust);
    expect(screen.queryByTestId('server-trust-warning')).toBeNull();
    expect(trust.getAttribute('aria-describedby')).toBeNull();
  });

  it('says at once when the pause cannot be right, and clears it once fixed', async () => {
    const { user } = setup();
    const interval = screen.getByTestId('server-interval');
    await user.clear(interval);
    expect(screen.queryByTestId('server-interval-error')).toBeNull();
    await user.type(interval, '1.5');
    const error = screen.getByTestId('server-interval-error');
    expect(error.getAttribute('role')).toBe('alert');
    expect(error.textContent).toMatch(/whole number of milliseconds/);
    expect(interval.getAttribute('aria-invalid')).toBe('true');
    expect(interval.getAttribute('aria-describedby')).toContain('server-interval-error');

    await user.clear(interval);
    await user.type(interval, '70000');
    expect(screen.getByTestId('server-interval-error').textContent).toMatch(/at most 60000 ms/);

    await user.clear(interval);
    await user.type(interval, '60000');
    expect(screen.queryByTestId('server-interval-error')).toBeNull();
    expect(interval.getAttribute('aria-invalid')).toBeNull();

    await user.clear(interval);
    await user.tab();
    expect(screen.getByTestId('server-interval-error').textContent).toMatch(/enter a number of milliseconds/i);
  });

  it('does not save a bad pause, and puts the focus on it', async () => {
    const { user, onclose } = setup();
    await user.type(screen.getByTestId('server-name'), 'Home');
    await user.type(screen.getByTestId('server-url'), 'https://books.example.org/opds');
    const interval = screen.getByTestId('server-interval');
    await user.clear(interval);
    await user.type(interval, '-5');
    await user.click(screen.getByTestId('server-save'));
    expect(screen.getByTestId('server-interval-error').textContent).toMatch(/enter a whole number of milliseconds/i);
    expect(interval.getAttribute('aria-invalid')).toBe('true');
    expect(document.activeElement).toBe(interval);
    expect(invokeMock).not.toHaveBeenCalled();
    expect(onclose).not.toHaveBeenCalled();
  });

  it('sends the pause and the certificate choice with the new server', async () => {
    const own = { ...saved, min_interval_ms: 500, trust_self_signed: true };
    invokeMock.mockImplementation(async (command) => (command === 'add_server' ? own : [own]));
    const { user, onclose, onsaved } = setup();
    await user.type(screen.getByTestId('server-url'), 'https://nas.lan/opds');
    const interval = screen.getByTestId('server-interval');
    await user.clear(interval);
    await user.type(interval, ' 500 ');
    await user.click(screen.getByTestId('server-trust-self-signed'));
    await user.click(screen.getByTestId('server-save'));

    await waitFor(() => expect(onclose).toHaveBeenCalled());
    expect(invokeMock).toHaveBeenCalledWith('add_server', {
      input: { name: 'nas.lan', url: 'https://nas.lan/opds', username: null, password: null, minIntervalMs: 500, trustSelfSigned: true, apiKey: false },
    });
    expect(onsaved).toHaveBeenCalledWith(own);
  });

  it('shows the backend’s complaint about the pause under it', async () => {
    invokeMock.mockRejectedValueOnce({
      kind: 'invalid_input',
      message: 'the interval between requests must be between 0 and 60000 ms',
      field: 'min_interval_ms',
    });
    const { user } = setup();
    await user.type(screen.getByTestId('server-name'), 'Home');
    await user.type(screen.getByTestId('server-url'), 'https://books.example.org/opds');
    await user.click(screen.getByTestId('server-save'));
    const error = await screen.findByTestId('server-interval-error');
    expect(error.textContent).toBe('The interval between requests must be between 0 and 60000 ms.');
    expect(document.activeElement).toBe(screen.getByTestId('server-interval'));
  });

  it('keeps Tab inside the dialog', async () => {
    const { user } = setup();
    const save = screen.getByTestId('server-save');
    save.focus();
    await user.tab();
    expect(document.activeElement).toBe(screen.getByTestId('server-name'));
    await user.tab({ shift: true });
    expect(document.activeElement).toBe(save);
  });
});

describe('ServerDialog (edit)', () => {
  beforeEach(() => {
    invokeMock.mockReset();
    servers.reset();
  });

  function edit(server: Server = saved) {
    const onclose = vi.fn();
    const onsaved = vi.fn();
    render(ServerDialog, { server, onclose, onsaved });
    return { user: userEvent.setup(), onclose, onsaved };
  }

  it('shows the server as saved, without its password', () => {
    edit();
    const dialog = screen.getByTestId('edit-server-dialog');
    expect(screen.getByRole('dialog', { name: 'Edit “books.example.org”' })).toBe(dialog);
    expect((screen.getByTestId('server-name') as HTMLInputElement).value).toBe('books.example.org');
    expect((screen.getByTestId('server-url') as HTMLInputElement).value).toBe('https://books.example.org/opds');
    expect((screen.getByTestId('server-username') as HTMLInputElement).value).toBe('ada');
    const password = screen.getByTestId('server-password') as HTMLInputElement;
    expect(password.value).toBe('');
    expect(password.placeholder).toBe('Unchanged');
    expect(dialog.textContent).toMatch(/Leave empty to keep the saved password/);
  });

  it('saves with update_server, keeping the password when the field is left empty', async () => {
    const renamed = { ...saved, name: 'Attic' };
    invokeMock.mockImplementation(async (command) => {
      if (command === 'update_server') return renamed;
      if (command === 'list_servers') return [renamed];
      throw new Error(`unexpected ${command}`);
    });
    const { user, onclose, onsaved } = edit();
    const name = screen.getByTestId('server-name');
    await user.clear(name);
    await user.type(name, 'Attic');
    await user.click(screen.getByTestId('server-save'));

    await waitFor(() => expect(onclose).toHaveBeenCalled());
    expect(invokeMock).toHaveBeenCalledWith('update_server', {
      id: 7,
      input: savedInput({ name: 'Attic' }),
    });
    expect(onsaved).toHaveBeenCalledWith(renamed);
    expect(servers.list).toEqual([renamed]);
  });

  it('forgets the saved password when the username is cleared', async () => {
    invokeMock.mockImplementation(async (command) => {
      if (command === 'update_server') return { ...saved, username: null };
      if (command === 'list_servers') return [];
      throw new Error(`unexpected ${command}`);
    });
    const { user, onclose } = edit();
    await user.clear(screen.getByTestId('server-username'));
    await user.click(screen.getByTestId('server-save'));
    await waitFor(() => expect(onclose).toHaveBeenCalled());
    expect(invokeMock).toHaveBeenCalledWith('update_server', {
      id: 7,
      input: savedInput({ username: null, password: '' }),
    });
  });

  it('shows the saved pause and certificate choice, and sends changes to them', async () => {
    const own = { ...saved, min_interval_ms: 1500, trust_self_signed: true };
    invokeMock.mockImplementation(async (command) => (command === 'update_server' ? { ...own, trust_self_signed: false } : [own]));
    const { user, onclose } = edit(own);
    const interval = screen.getByTestId('server-interval') as HTMLInputElement;
    const trust = screen.getByTestId('server-trust-self-signed') as HTMLInputElement;
    expect(interval.value).toBe('1500');
    expect(trust.checked).toBe(true);
    expect(screen.getByTestId('server-trust-warning').textContent).toMatch(/will not check who it is talking to/);
    expect(trust.getAttribute('aria-describedby')).toBe('server-trust-warning');

    await user.clear(interval);
    await user.type(interval, '250');
    await user.click(trust);
    await user.click(screen.getByTestId('server-save'));
    await waitFor(() => expect(onclose).toHaveBeenCalled());
    expect(invokeMock).toHaveBeenCalledWith('update_server', {
      id: 7,
      input: savedInput({ minIntervalMs: 250 }),
    });
  });

  it('starts on the certificate choice when opened to trust the server', () => {
    render(ServerDialog, { server: saved, focus: 'trust-self-signed', onclose: vi.fn() });
    expect(document.activeElement).toBe(screen.getByTestId('server-trust-self-signed'));
    expect(screen.getByTestId('server-name').hasAttribute('data-autofocus')).toBe(false);
  });

  it('sends a new password as typed', async () => {
    invokeMock.mockImplementation(async (command) => (command === 'update_server' ? saved : [saved]));
    const { user, onclose } = edit();
    await user.type(screen.getByTestId('server-password'), 'new pass');
    await user.click(screen.getByTestId('server-save'));
    await waitFor(() => expect(onclose).toHaveBeenCalled());
    expect(invokeMock).toHaveBeenCalledWith('update_server', {
      id: 7,
      input: savedInput({ password: 'new pass' }),
    });
  });
});

describe('ServerDialog (series default)', () => {
  beforeEach(() => {
    invokeMock.mockReset();
    servers.reset();
  });

  /** The edit dialog against a backend whose server has `saved` as its series default. */
  function edit(seriesDefault: { keep_next: number; remove_after_days: number | null } | null, setFails = false) {
    invokeMock.mockImplementation(async (command: string, args?: unknown) => {
      if (command === 'server_series_default') {
        expect(args).toEqual({ serverId: 7 });
        return seriesDefault;
      }
      if (command === 'update_server') return saved;
      if (command === 'list_servers') return [saved];
      if (command === 'set_server_series_default') {
        if (setFails) throw { kind: 'storage', message: 'the disk is full' };
        const { keepNext, removeAfterDays } = args as { keepNext: number; removeAfterDays: number | null };
        return keepNext === 0 ? null : { keep_next: keepNext, remove_after_days: removeAfterDays };
      }
      throw new Error(`unexpected ${command}`);
    });
    const onclose = vi.fn();
    render(ServerDialog, { server: saved, onclose, onsaved: vi.fn() });
    return { user: userEvent.setup(), onclose };
  }

  it('is off by default, and a save that leaves it off sends nothing about it', async () => {
    const { user, onclose } = edit(null);
    const next = (await screen.findByTestId('server-series-next')) as HTMLSelectElement;
    await waitFor(() => expect(invokeMock).toHaveBeenCalledWith('server_series_default', { serverId: 7 }));
    expect(next.value).toBe('0');
    expect(screen.getByLabelText('Keep the next unread books of each series I read')).toBe(next);
    expect(screen.queryByTestId('server-series-remove-after')).toBeNull();
    await user.click(screen.getByTestId('server-save'));
    await waitFor(() => expect(onclose).toHaveBeenCalled());
    expect(invokeMock).not.toHaveBeenCalledWith('set_server_series_default', expect.anything());
  });

  it('keeps the next books of each series read once set, with read books removed when asked', async () => {
    const { user, onclose } = edit(null);
    const next = (await screen.findByTestId('server-series-next')) as HTMLSelectElement;
    await user.selectOptions(next, '2');
    const removeAfter = screen.getByTestId('server-series-remove-after') as HTMLSelectElement;
    expect(removeAfter.value).toBe('');
    await user.selectOptions(removeAfter, '7');
    await user.click(screen.getByTestId('server-save'));
    await waitFor(() => expect(onclose).toHaveBeenCalled());
    expect(invokeMock).toHaveBeenCalledWith('set_server_series_default', { serverId: 7, keepNext: 2, removeAfterDays: 7 });
    // The server itself first.
    const order = invokeMock.mock.calls.map(([c]) => c);
    expect(order.indexOf('update_server')).toBeLessThan(order.indexOf('set_server_series_default'));
  });

  it('shows the saved default, including a value set elsewhere, and turns it off', async () => {
    const { user, onclose } = edit({ keep_next: 4, remove_after_days: 14 });
    const next = (await screen.findByTestId('server-series-next')) as HTMLSelectElement;
    await waitFor(() => expect(next.value).toBe('4'));
    expect(next.selectedOptions[0].textContent).toBe('The next 4 unread books');
    expect((screen.getByTestId('server-series-remove-after') as HTMLSelectElement).value).toBe('14');
    await user.selectOptions(next, '0');
    expect(screen.queryByTestId('server-series-remove-after')).toBeNull();
    await user.click(screen.getByTestId('server-save'));
    await waitFor(() => expect(onclose).toHaveBeenCalled());
    expect(invokeMock).toHaveBeenCalledWith('set_server_series_default', { serverId: 7, keepNext: 0, removeAfterDays: null });
  });

  it('says when the series setting could not be saved, and stays open', async () => {
    const { user, onclose } = edit(null, true);
    await user.selectOptions(await screen.findByTestId('server-series-next'), '3');
    await user.click(screen.getByTestId('server-save'));
    const error = await screen.findByTestId('server-form-error');
    expect(error.textContent).toBe('The server was saved, but not its series setting: The disk is full.');
    expect(onclose).not.toHaveBeenCalled();
  });

  it('is not offered while adding a server', () => {
    render(ServerDialog, { onclose: vi.fn() });
    expect(screen.queryByTestId('server-series')).toBeNull();
    expect(invokeMock).not.toHaveBeenCalled();
  });
});
