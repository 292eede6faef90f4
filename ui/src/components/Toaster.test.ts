import { beforeEach, describe, expect, it } from 'vitest';
import { render, screen } from '@testing-library/svelte';
import userEvent from '@testing-library/user-event';
import { flushSync } from 'svelte';

import Toaster from './Toaster.svelte';
import { toasts } from '../lib/stores/toasts.svelte';

describe('Toaster', () => {
  beforeEach(() => toasts.reset());

  it('says errors assertively with their icon, information politely, each with a way to dismiss it', async () => {
    render(Toaster);
    toasts.show('Opening…');
    toasts.error('The book could not be removed');
    flushSync();

    const [error] = screen.getByRole('alert').querySelectorAll('[data-testid="toast"]');
    expect(error.getAttribute('data-kind')).toBe('error');
    expect(error.classList.contains('error')).toBe(true);
    expect(error.textContent).toContain('The book could not be removed');
    expect(error.querySelectorAll('svg')).toHaveLength(2);

    const [info] = screen.getByRole('status').querySelectorAll('[data-testid="toast"]');
    expect(info.getAttribute('data-kind')).toBe('info');
    expect(info.classList.contains('error')).toBe(false);
    expect(info.textContent).toContain('Opening…');
    expect(info.querySelectorAll('svg')).toHaveLength(1);

    await userEvent.click(error.querySelector('button')!);
    expect(toasts.list.map((t) => t.message)).toEqual(['Opening…']);
    expect(screen.getByRole('alert').querySelectorAll('[data-testid="toast"]')).toHaveLength(0);
  });
});
