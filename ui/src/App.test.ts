import { beforeEach, describe, expect, it, vi } from 'vitest';
import { render, screen, waitFor, within } from '@testing-library/svelte';
import userEvent from '@testing-library/user-event';

vi.mock('@tauri-apps/api/core', () => import('./test/tauri'));

import { invoke } from '@tauri-apps/api/core';
import App from './App.svelte';
import { resetStores } from './test/stores';
import type { AppStatus, Server } from './lib/ipc';

const invokeMock = vi.mocked(invoke);

const okStatus: AppStatus = { version: '0.1.0', data_dir: '/home/ada/.local/share/carrel', credentials: 'keyring', secrets_in_file: false, credentials_notice_dismissed: false, has_books: false, error: null };

function server(id: number, name: string, url: string, username: string | null = null): Server {
  return { id, name, url, username, min_interval_ms: 0, created_at_ms: 1_700_000_000_000, paused_reason: null, trust_self_signed: false, api_key: false };
}

/** A fake backend holding a list of servers. */
function backend(status: AppStatus, initial: Server[] = []) {
  let list = [...initial];
  invokeMock.mockImplementation(async (command, args) => {
    switch (command) {
      case 'app_status':
        return status;
      case 'list_servers':
        return list;
      case 'remove_server': {
        const { id } = args as { id: number };
        list = list.filter((s) => s.id !== id);
        return null;
      }
      case 'get_settings':
        return { books_kept: 6, notifications: true, theme: 'system', metered_downloads: 'ask' as const, keep_running: false };
      case 'watch_downloads':
      case 'list_continue_reading':
        return command === 'watch_downloads' ? null : [];
      default:
        throw `unexpected command ${command}`;
    }
  });
}

describe('App', () => {
  beforeEach(() => {
    invokeMock.mockReset();
    resetStores();
  });

  it('blocks everything when the library cannot be opened', async () => {
    backend({
      version: '0.1.0',
      data_dir: '/home/ada/.local/share/carrel',
      credentials: null,
      secrets_in_file: false,
      credentials_notice_dismissed: false,
      has_books: false,
      error: { kind: 'storage', message: 'the library was written by a newer Carrel (schema 9)' },
    });
    render(App);

    const dialog = await screen.findByTestId('startup-error');
    expect(dialog.getAttribute('role')).toBe('alertdialog');
    expect(dialog.getAttribute('aria-modal')).toBe('true');
    expect(screen.getByRole('alertdialog', { name: "Carrel can't open your library" })).toBe(dialog);
    expect(dialog.textContent).toContain('The library was written by a newer Carrel (schema 9).');
    expect(dialog.textContent).toContain('/home/ada/.local/share/carrel');
    expect(dialog.textContent).toMatch(/nothing was changed/i);
    expect(screen.queryByTestId('add-server-button')).toBeNull();
    expect(screen.queryByTestId('empty-library')).toBeNull();
    // Only the reads asked at start: nothing else is asked of a library that cannot be opened.
    expect(invokeMock.mock.calls.map(([command]) => command).sort()).toEqual(['app_status', 'list_continue_reading', 'list_servers']);
  });

  it('asks for the servers and Home\'s books beside the status, and the rest only once they are in', async () => {
    let answerStatus: (status: AppStatus) => void = () => {};
    invokeMock.mockImplementation(async (command) => {
      switch (command) {
        case 'app_status':
          return new Promise<AppStatus>((resolve) => (answerStatus = resolve));
        case 'list_servers':
          return [];
        case 'list_continue_reading':
          return [];
        case 'get_settings':
          return { books_kept: 6, notifications: true, theme: 'system', metered_downloads: 'ask' as const, keep_running: false };
        case 'watch_downloads':
          return null;
        default:
          throw `unexpected command ${command}`;
      }
    });
    render(App);

    // One round trip before the first screen: the lists are asked before the status has answered.
    await waitFor(() => expect(invokeMock).toHaveBeenCalledWith('list_servers', undefined));
    const asked = () => invokeMock.mock.calls.map(([command]) => command);
    expect(asked().sort()).toEqual(['app_status', 'list_continue_reading', 'list_servers']);

    answerStatus(okStatus);
    await screen.findByTestId('empty-library');
    await waitFor(() => expect(asked()).toContain('watch_downloads'));
    expect(asked()).toContain('get_settings');
  });

  it('blocks everything when the backend cannot be reached', async () => {
    invokeMock.mockRejectedValue(new TypeError('no IPC'));
    render(App);
    const dialog = await screen.findByTestId('startup-error');
    expect(dialog.textContent).toContain('No IPC.');
  });

  it('invites the reader to add a server when there is none', async () => {
    backend(okStatus, []);
    render(App);

    const empty = await screen.findByTestId('empty-library');
    expect(within(empty).getByRole('heading', { level: 1 }).textContent).toBe('No library yet — add a server');
    expect(empty.textContent).toMatch(/Komga/);
    expect(screen.queryAllByTestId('server-item')).toHaveLength(0);
    expect(screen.getByTestId('on-device-nav').textContent).toContain('Books on this device');

    const user = userEvent.setup();
    const button = screen.getByTestId('empty-add-server');
    await user.click(button);
    expect(screen.getByRole('dialog', { name: 'Add a server' })).toBe(screen.getByTestId('add-server-dialog'));
    expect(document.querySelector('.shell')?.hasAttribute('inert')).toBe(true);

    await user.keyboard('{Escape}');
    expect(screen.queryByTestId('add-server-dialog')).toBeNull();
    await waitFor(() => expect(document.activeElement).toBe(button));
  });

  it('lists servers in the sidebar and as cards', async () => {
    backend(okStatus, [
      server(1, 'Attic', 'https://komga.home.lan:25600/opds/v1.2/catalog', 'ada'),
      server(2, 'Club', 'https://books.example.org/opds'),
    ]);
    render(App);

    await waitFor(() => expect(screen.getAllByTestId('server-item')).toHaveLength(2));
    const [attic, club] = screen.getAllByTestId('server-item');
    expect(attic.textContent).toContain('Attic');
    expect(attic.textContent).toContain('komga.home.lan:25600');
    expect(club.textContent).toContain('Club');
    expect(screen.queryByTestId('empty-library')).toBeNull();

    const cards = screen.getAllByTestId('server-card');
    expect(cards).toHaveLength(2);
    expect(cards[0].textContent).toContain('https://komga.home.lan:25600/opds/v1.2/catalog');
    expect(cards[0].textContent).toContain('ada');
    expect(cards[1].textContent).toMatch(/No sign-in/);
  });

  it('removes a server only after confirmation', async () => {
    backend(okStatus, [server(1, 'Attic', 'https://a.example.org/opds'), server(2, 'Club', 'https://b.example.org/opds')]);
    render(App);
    const user = userEvent.setup();

    await waitFor(() => expect(screen.getAllByTestId('server-item')).toHaveLength(2));
    const remove = within(screen.getAllByTestId('server-item')[0]).getByTestId('remove-server');
    expect(remove.getAttribute('aria-label')).toBe('Remove Attic');

    // Cancelling removes nothing.
    await user.click(remove);
    const dialog = screen.getByTestId('remove-server-dialog');
    expect(dialog.getAttribute('role')).toBe('alertdialog');
    expect(document.activeElement).toBe(screen.getByTestId('remove-server-cancel'));
    await user.click(screen.getByTestId('remove-server-cancel'));
    expect(screen.queryByTestId('remove-server-dialog')).toBeNull();
    expect(invokeMock).not.toHaveBeenCalledWith('remove_server', expect.anything());

    await user.click(remove);
    await user.click(screen.getByTestId('remove-server-confirm'));
    await waitFor(() => expect(screen.getAllByTestId('server-item')).toHaveLength(1));
    expect(invokeMock).toHaveBeenCalledWith('remove_server', { id: 1 });
    expect(screen.queryByTestId('remove-server-dialog')).toBeNull();
    expect(screen.getByTestId('server-item').textContent).toContain('Club');
    // The button that opened the dialog is gone; focus lands on the main area.
    await waitFor(() => expect(document.activeElement?.id).toBe('main'));
  });

  it('shows the empty state again after the last server is removed', async () => {
    backend(okStatus, [server(1, 'Attic', 'https://a.example.org/opds')]);
    render(App);
    const user = userEvent.setup();

    await user.click(await screen.findByTestId('card-remove-server'));
    await user.click(screen.getByTestId('remove-server-confirm'));
    expect((await screen.findByTestId('empty-library')).textContent).toContain('No library yet — add a server');
  });

  it('opens Add server with N', async () => {
    backend(okStatus, []);
    render(App);
    await screen.findByTestId('empty-library');
    const user = userEvent.setup();
    await user.keyboard('n');
    expect(screen.getByRole('dialog', { name: 'Add a server' })).toBe(screen.getByTestId('add-server-dialog'));
    // Typing an "n" into the dialog does not open another one or lose the letter.
    await user.keyboard('n');
    expect((screen.getByTestId('server-name') as HTMLInputElement).value).toBe('n');
  });

  it('mentions where passwords are kept when one is kept in the file for want of a keyring', async () => {
    backend({ ...okStatus, credentials: 'file', secrets_in_file: true }, [server(1, 'Attic', 'https://a.example.org/opds')]);
    render(App);
    expect((await screen.findByTestId('credentials-notice')).textContent).toMatch(/keyring/);
  });

  it('says nothing of the keyring while no password is kept', async () => {
    backend({ ...okStatus, credentials: 'file', secrets_in_file: false }, [server(1, 'Attic', 'https://a.example.org/opds')]);
    render(App);
    await screen.findByTestId('library-view');
    await waitFor(() => expect(invokeMock).toHaveBeenCalledWith('list_continue_reading', expect.anything()));
    expect(screen.queryByTestId('credentials-notice')).toBeNull();
  });

  it('lets the keyring notice be dismissed for good', async () => {
    const status: AppStatus = { ...okStatus, credentials: 'file', secrets_in_file: true, credentials_notice_dismissed: false };
    backend(status, [server(1, 'Attic', 'https://a.example.org/opds')]);
    const dismissed = vi.fn();
    const answer = invokeMock.getMockImplementation()!;
    invokeMock.mockImplementation(async (command, args) => {
      if (command === 'dismiss_credentials_notice') {
        dismissed();
        status.credentials_notice_dismissed = true;
        return null;
      }
      return answer(command, args);
    });
    const user = userEvent.setup();
    render(App);
    await user.click(await screen.findByTestId('credentials-notice-dismiss'));
    expect(dismissed).toHaveBeenCalledTimes(1);
    await waitFor(() => expect(screen.queryByTestId('credentials-notice')).toBeNull());
  });

  it('offers to try again when the list cannot be read', async () => {
    let fail = true;
    invokeMock.mockImplementation(async (command) => {
      if (command === 'app_status') return okStatus;
      if (command === 'list_servers') {
        if (fail) throw { kind: 'storage', message: 'database is locked' };
        return [];
      }
      throw 'unexpected';
    });
    render(App);
    const problem = await screen.findByTestId('library-error');
    expect(problem.textContent).toContain('Database is locked.');
    fail = false;
    await userEvent.setup().click(screen.getByTestId('library-retry'));
    expect((await screen.findByTestId('empty-library')).textContent).toContain('No library yet — add a server');
    expect(screen.queryByTestId('library-error')).toBeNull();
  });
});
