import { describe, expect, it, vi } from 'vitest';
import { render, screen } from '@testing-library/svelte';
import userEvent from '@testing-library/user-event';

vi.mock('@tauri-apps/api/core', () => import('../test/tauri'));

import KosyncSettings from './KosyncSettings.svelte';
import { backend } from '../test/fixtures';
import { invoke } from '@tauri-apps/api/core';

const invokeMock = vi.mocked(invoke);

/** Shows the settings and signs in to https://sync.example.org as ada with `password`. */
async function signIn(password: string) {
  const user = userEvent.setup();
  render(KosyncSettings);
  await user.type(await screen.findByTestId('kosync-url'), 'https://sync.example.org');
  await user.type(screen.getByTestId('kosync-username'), 'ada');
  await user.type(screen.getByTestId('kosync-password'), password);
  await user.click(screen.getByTestId('kosync-sign-in'));
  return user;
}

describe('KOReader sync settings', () => {
  it('signs in with what was typed, then shows the account and signs out', async () => {
    backend({
      kosync_account: null,
      kosync_sign_in: ({ url, username }) => ({ url, username }),
      kosync_sign_out: null,
    });
    const user = await signIn('secret');
    expect(invokeMock).toHaveBeenCalledWith('kosync_sign_in', { url: 'https://sync.example.org', username: 'ada', password: 'secret' });
    expect((await screen.findByTestId('kosync-account')).textContent).toContain('https://sync.example.org');
    expect(screen.queryByTestId('kosync-password')).toBeNull();
    await user.click(screen.getByTestId('kosync-sign-out'));
    expect(invokeMock).toHaveBeenCalledWith('kosync_sign_out', undefined);
    const form = await screen.findByTestId('kosync-form');
    expect(form.contains(screen.getByTestId('kosync-url'))).toBe(true);
    expect(screen.queryByTestId('kosync-account')).toBeNull();
  });

  it('says why the server refused, beside the form, and keeps what was typed', async () => {
    backend({
      kosync_account: null,
      kosync_sign_in: () => {
        throw { kind: 'auth', message: 'the sync server refused this user and password', field: 'password' };
      },
    });
    await signIn('nope');
    expect((await screen.findByTestId('kosync-error')).textContent).toBe('The sync server refused this user and password.');
    expect(screen.getByTestId('kosync-password').getAttribute('aria-invalid')).toBe('true');
    expect((screen.getByTestId('kosync-username') as HTMLInputElement).value).toBe('ada');
  });

  it('asks for every field before asking the server', async () => {
    backend({ kosync_account: null });
    const user = userEvent.setup();
    render(KosyncSettings);
    await user.click(await screen.findByTestId('kosync-sign-in'));
    expect(screen.getByTestId('kosync-error').textContent).toContain('Fill in');
    expect(invokeMock).not.toHaveBeenCalledWith('kosync_sign_in', expect.anything());
  });

  it('shows the account already set up', async () => {
    backend({ kosync_account: { url: 'https://h/koreader', username: 'ada' } });
    render(KosyncSettings);
    expect((await screen.findByTestId('kosync-account')).textContent).toContain('as ada');
  });
});
