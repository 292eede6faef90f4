import { beforeEach, describe, expect, it, vi } from 'vitest';
import { fireEvent, render, screen, waitFor } from '@testing-library/svelte';
import userEvent from '@testing-library/user-event';

vi.mock('@tauri-apps/api/core', () => import('../test/tauri'));

import { invoke } from '@tauri-apps/api/core';
import SettingsView from './SettingsView.svelte';
import { backend } from '../test/fixtures';
import { resetStores } from '../test/stores';
import type { Settings } from '../lib/ipc';
import { i18n } from '../lib/i18n.svelte';

const invokeMock = vi.mocked(invoke);

describe('SettingsView', () => {
  let saved: Settings;

  beforeEach(() => {
    invokeMock.mockReset();
    resetStores();
    localStorage.clear();
    saved = { books_kept: 6, notifications: true, theme: 'system', metered_downloads: 'ask' as const, keep_running: false, language: null };
    backend({
      get_settings: () => saved,
      set_settings: ({ settings }) => (saved = settings as Settings),
      kosync_account: null,
      books_removed_if_kept: () => [],
      storage_usage: {
        total_bytes: 1_530_000_000,
        per_server: [
          { server_id: 1, name: 'Attic', bytes: 1_200_000_000 },
          { server_id: 2, name: 'Club', bytes: 330_000_000 },
        ],
      },
    });
  });

  it('shows the settings and the space used', async () => {
    render(SettingsView);
    const kept = (await screen.findByTestId('settings-books-kept')) as HTMLInputElement;
    expect(kept.value).toBe('6');
    expect(kept.min).toBe('0');
    expect(kept.max).toBe('50');
    expect((screen.getByTestId('settings-notifications') as HTMLInputElement).checked).toBe(true);
    expect((screen.getByTestId('settings-theme-system') as HTMLInputElement).checked).toBe(true);
    expect((await screen.findByTestId('storage-total')).textContent).toBe('1.5 GB');
    const rows = screen.getAllByTestId('storage-server');
    expect(rows.map((r) => r.textContent?.replace(/\s+/g, ' ').trim())).toEqual(['Attic 1.2 GB 78 %', 'Club 330 MB 22 %']);
  });

  it('applies and saves a theme at once', async () => {
    render(SettingsView);
    const user = userEvent.setup();
    await user.click(await screen.findByTestId('settings-theme-dark'));
    expect(document.documentElement.dataset.theme).toBe('dark');
    await waitFor(() => expect(saved.theme).toBe('dark'));
    await user.click(screen.getByTestId('settings-theme-light'));
    expect(document.documentElement.dataset.theme).toBe('light');
    await user.click(screen.getByTestId('settings-theme-system'));
    expect(document.documentElement.hasAttribute('data-theme')).toBe(false);
    await waitFor(() => expect(saved.theme).toBe('system'));
  });

  it('saves the number of books kept when the slider is let go', async () => {
    render(SettingsView);
    const kept = (await screen.findByTestId('settings-books-kept')) as HTMLInputElement;
    await fireEvent.input(kept, { target: { value: '20' } });
    expect(screen.getByTestId('settings-books-kept-value').textContent).toBe('20');
    expect(invokeMock).not.toHaveBeenCalledWith('set_settings', expect.anything());
    await fireEvent.change(kept, { target: { value: '20' } });
    await waitFor(() => expect(saved.books_kept).toBe(20));
    await fireEvent.change(kept, { target: { value: '0' } });
    await waitFor(() => expect(screen.getByTestId('settings-books-kept-value').textContent).toBe('None'));
  });

  it('asks before a lower number removes books, and removes nothing when cancelled', async () => {
    const doomed = ['Saga 1', 'Saga 2', 'Saga 3', 'Saga 4'].map((title, i) => ({ book_id: i + 1, title }));
    backend({
      get_settings: () => saved,
      set_settings: ({ settings }) => (saved = settings as Settings),
      kosync_account: null,
      books_removed_if_kept: ({ booksKept }) => (booksKept === 0 ? doomed : []),
      storage_usage: { total_bytes: 0, per_server: [] },
    });
    render(SettingsView);
    const user = userEvent.setup();
    const kept = (await screen.findByTestId('settings-books-kept')) as HTMLInputElement;
    await fireEvent.input(kept, { target: { value: '0' } });
    await fireEvent.change(kept, { target: { value: '0' } });
    const dialog = await screen.findByTestId('books-kept-dialog');
    expect(dialog.textContent).toContain('Remove 4 books from this device?');
    expect(dialog.textContent).toContain('“Saga 1”');
    expect(invokeMock).not.toHaveBeenCalledWith('set_settings', expect.anything());
    await user.click(screen.getByTestId('books-kept-cancel'));
    await waitFor(() => expect(screen.queryByTestId('books-kept-dialog')).toBeNull());
    expect(saved.books_kept).toBe(6);
    expect(kept.value).toBe('6');
    expect(screen.getByTestId('settings-books-kept-value').textContent).toBe('6');
    // Asked again, and confirmed: saved.
    await fireEvent.change(kept, { target: { value: '0' } });
    await user.click(await screen.findByTestId('books-kept-confirm'));
    await waitFor(() => expect(saved.books_kept).toBe(0));
    // Raising it removes nothing and asks nothing.
    await fireEvent.change(kept, { target: { value: '3' } });
    await waitFor(() => expect(saved.books_kept).toBe(3));
  });

  it('turns notifications off', async () => {
    render(SettingsView);
    await userEvent.setup().click(await screen.findByTestId('settings-notifications'));
    await waitFor(() => expect(saved.notifications).toBe(false));
  });

  it('starts Carrel at login when asked, and says why it could not', async () => {
    let on = false;
    backend({
      get_settings: () => saved,
      kosync_account: null,
      storage_usage: { total_bytes: 0, per_server: [] },
      start_at_login: () => on,
      set_start_at_login: ({ on: wanted }) => {
        if (on && !wanted) return Promise.reject({ kind: 'storage', message: 'the folder is read-only' });
        on = wanted as boolean;
        return on;
      },
    });
    render(SettingsView);
    const user = userEvent.setup();
    const toggle = (await screen.findByTestId('settings-start-at-login')) as HTMLInputElement;
    await waitFor(() => expect(toggle.disabled).toBe(false));
    expect(toggle.checked).toBe(false);
    await user.click(toggle);
    expect(invokeMock).toHaveBeenCalledWith('set_start_at_login', { on: true });
    await waitFor(() => expect(toggle.checked).toBe(true));
    // Refused: the switch shows what is on the disk, and why.
    await user.click(toggle);
    expect((await screen.findByTestId('settings-start-at-login-error')).textContent).toContain('The folder is read-only.');
    expect(toggle.checked).toBe(true);
  });

  it('says when a change could not be saved, and shows the old value again', async () => {
    backend({
      get_settings: () => saved,
      set_settings: () => Promise.reject({ kind: 'storage', message: 'the disk is full' }),
      storage_usage: { total_bytes: 0, per_server: [] },
    });
    render(SettingsView);
    await userEvent.setup().click(await screen.findByTestId('settings-theme-dark'));
    expect((await screen.findByTestId('settings-save-error')).textContent).toContain('The disk is full.');
    expect((screen.getByTestId('settings-theme-system') as HTMLInputElement).checked).toBe(true);
  });

  it('offers to try again when the settings or the usage cannot be read', async () => {
    let fail = true;
    backend({
      get_settings: () => (fail ? Promise.reject('Command get_settings not found') : saved),
      storage_usage: () => (fail ? Promise.reject({ kind: 'storage', message: 'cannot measure' }) : { total_bytes: 0, per_server: [] }),
    });
    render(SettingsView);
    expect((await screen.findByTestId('settings-error')).textContent).toContain('Command get_settings not found.');
    expect((await screen.findByTestId('storage-retry'))).toBeTruthy();
    fail = false;
    const user = userEvent.setup();
    await user.click(screen.getByTestId('settings-retry'));
    await user.click(screen.getByTestId('storage-retry'));
    await screen.findByTestId('settings-books-kept');
    expect(screen.queryByTestId('settings-retry')).toBeNull();
    expect((await screen.findByTestId('storage-total')).textContent).toBe('0 bytes');
  });

  it('changes the whole window’s language at once, and back to the system’s', async () => {
    render(SettingsView);
    const user = userEvent.setup();
    const select = (await screen.findByTestId('settings-language')) as HTMLSelectElement;
    const options = [...select.options].map((o) => o.textContent?.trim());
    expect(options).toEqual(['System default (English)', 'English', 'Deutsch', 'Español', 'Français']);
    expect(select.value).toBe('system');
    try {
      await user.selectOptions(select, 'fr');
      expect(i18n.language).toBe('fr');
      expect(screen.getByRole('heading', { level: 1 }).textContent).toBe('Paramètres');
      screen.getByRole('heading', { name: 'Langue' });
      expect(screen.queryByRole('heading', { name: 'Language' })).toBeNull();
      expect(select.value).toBe('fr');
      expect(select.options[0].textContent).toBe('Langue du système (English)');
      // Kept with the settings, so notifications, the tray and the next start speak it too.
      expect(invokeMock).toHaveBeenCalledWith('set_settings', { settings: expect.objectContaining({ language: 'fr' }) });
      await user.selectOptions(select, 'system');
      expect(invokeMock).toHaveBeenLastCalledWith('set_settings', { settings: expect.objectContaining({ language: null }) });
      expect(screen.getByRole('heading', { level: 1 }).textContent).toBe('Settings');
      expect(localStorage.getItem('carrel.language')).toBe('system');
    } finally {
      i18n.choose('system');
    }
  });
});
