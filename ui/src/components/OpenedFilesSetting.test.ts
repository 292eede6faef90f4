import { beforeEach, describe, expect, it, vi } from 'vitest';
import { render, screen } from '@testing-library/svelte';
import userEvent from '@testing-library/user-event';

vi.mock('@tauri-apps/api/core', () => import('../test/tauri'));

import OpenedFilesSetting from './OpenedFilesSetting.svelte';
import { COPY_KEY, localFiles } from '../lib/stores/localFiles.svelte';

describe('OpenedFilesSetting', () => {
  beforeEach(() => {
    localStorage.clear();
    localFiles.setCopy(false);
  });

  it('leaves files where they are until the reader asks for copies, and remembers the choice', async () => {
    const user = userEvent.setup();
    render(OpenedFilesSetting);
    const copy = screen.getByRole('switch', { name: 'Copy the files you open into Carrel’s library' });
    expect((copy as HTMLInputElement).checked).toBe(false);
    expect(copy.getAttribute('aria-describedby')).toBe('settings-copy-opened-files-hint');
    await user.click(copy);
    expect(localFiles.copy).toBe(true);
    expect(localStorage.getItem(COPY_KEY)).toBe('true');
    await user.click(copy);
    expect(localFiles.copy).toBe(false);
    expect(localStorage.getItem(COPY_KEY)).toBe('false');
  });
});
