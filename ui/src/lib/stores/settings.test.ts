import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';

vi.mock('@tauri-apps/api/core', () => import('../../test/tauri'));

import { invoke } from '@tauri-apps/api/core';
import { settings } from './settings.svelte';
import { rememberedTheme } from '../theme';
import { i18n } from '../i18n.svelte';
import { DEFAULT_SETTINGS } from '../ipc';
import { resetSettings } from '../../test/stores';

const invokeMock = vi.mocked(invoke);

describe('settings', () => {
  beforeEach(() => {
    invokeMock.mockReset();
    resetSettings();
  });

  afterEach(() => {
    i18n.choose('system');
  });

  it('reads the settings and applies the theme', async () => {
    invokeMock.mockResolvedValueOnce({ books_kept: 10, notifications: false, theme: 'dark', metered_downloads: 'ask' as const, keep_running: false });
    await settings.load();
    // An older app's settings, without a language: the system's.
    expect(settings.value).toEqual({ books_kept: 10, notifications: false, theme: 'dark', metered_downloads: 'ask' as const, keep_running: false, language: null });
    expect(document.documentElement.dataset.theme).toBe('dark');
    expect(rememberedTheme()).toBe('dark');
  });

  it('follows the system by removing data-theme', async () => {
    document.documentElement.dataset.theme = 'light';
    invokeMock.mockResolvedValue({ books_kept: 6, notifications: true, theme: 'system', metered_downloads: 'ask' as const, keep_running: false });
    await settings.update({ theme: 'system' });
    expect(document.documentElement.hasAttribute('data-theme')).toBe(false);
  });

  it('saves a change whole, and keeps the number of books in range', async () => {
    invokeMock.mockImplementation(async (_command, args) => (args as { settings: unknown }).settings);
    await settings.update({ books_kept: 80 });
    expect(invokeMock).toHaveBeenLastCalledWith('set_settings', {
      settings: { books_kept: 50, notifications: true, theme: 'system', metered_downloads: 'ask' as const, keep_running: false, language: null },
    });
    await settings.update({ books_kept: -3 });
    expect(settings.value.books_kept).toBe(0);
  });

  it('puts the old values back when saving fails', async () => {
    invokeMock.mockRejectedValueOnce({ kind: 'storage', message: 'the disk is full' });
    await settings.update({ theme: 'dark' });
    expect(settings.value.theme).toBe('system');
    expect(document.documentElement.hasAttribute('data-theme')).toBe(false);
    expect(settings.saveError?.message).toBe('the disk is full');
  });

  /** Reads settings that hold `language`: first with `load`, again with `reload`. */
  async function readLanguage(language: string | null, read: 'load' | 'reload' = 'load') {
    invokeMock.mockResolvedValueOnce({ ...DEFAULT_SETTINGS, language });
    await settings[read]();
  }

  it('speaks the language the settings hold, chosen in another window or process', async () => {
    await readLanguage('de');
    expect(i18n.language).toBe('de');
    await readLanguage('es', 'reload');
    expect(i18n.language).toBe('es');
    expect(i18n.choice).toBe('es');
    await readLanguage(null, 'reload');
    expect(i18n.choice).toBe('system');
  });

  it('leaves the test language alone: it is never saved', async () => {
    i18n.choose('pseudo');
    await readLanguage(null);
    expect(i18n.choice).toBe('pseudo');
  });

  it('keeps the defaults when the settings cannot be read', async () => {
    invokeMock.mockRejectedValueOnce('Command get_settings not found');
    await settings.load();
    expect(settings.loaded).toBe(false);
    expect(settings.error?.message).toBe('Command get_settings not found');
    expect(settings.value.books_kept).toBe(6);
  });
});
