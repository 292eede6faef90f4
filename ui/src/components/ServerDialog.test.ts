import { beforeEach, describe, expect, it, vi } from 'vitest';
import { render, screen, waitFor } from '@testing-library/svelte';
import userEvent from '@testing-library/user-event';

vi.mock('@tauri-apps/api/core', () => import('../test/tauri'));

import { invoke } from '@tauri-apps/api/core';
import ServerDialog from './ServerDialog.svelte';
import { servers } from '../lib/stores/servers.svelte';
import type { Server } from '../lib/ipc';

const invokeMock = vi.mocked(invoke);

const saved: Server = {
  id: 7,
  name: 'books.example.org',
  url: 'https://books.example.org/opds',
  username: 'ada',
  min_interval_ms: 0,
  created_at_ms: 1_700_000_000_000,
  paused_reason: null,
};

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
      input: { name: 'books.example.org', url: 'https://books.example.org/opds', username: 'ada', password: 'pa ss' },
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
      input: { name: 'Attic', url: 'https://books.example.org/opds', username: 'ada', password: null },
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
      input: { name: 'books.example.org', url: 'https://books.example.org/opds', username: null, password: '' },
    });
  });

  it('sends a new password as typed', async () => {
    invokeMock.mockImplementation(async (command) => (command === 'update_server' ? saved : [saved]));
    const { user, onclose } = edit();
    await user.type(screen.getByTestId('server-password'), 'new pass');
    await user.click(screen.getByTestId('server-save'));
    await waitFor(() => expect(onclose).toHaveBeenCalled());
    expect(invokeMock).toHaveBeenCalledWith('update_server', {
      id: 7,
      input: { name: 'books.example.org', url: 'https://books.example.org/opds', username: 'ada', password: 'new pass' },
    });
  });
});
