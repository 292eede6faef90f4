import { beforeEach, describe, expect, it, vi } from 'vitest';
import { render, screen } from '@testing-library/svelte';
import userEvent from '@testing-library/user-event';

vi.mock('@tauri-apps/api/core', () => import('../test/tauri'));

import ReaderEndCard from './ReaderEndCard.svelte';
import { status } from '../test/fixtures';
import { resetStores } from '../test/stores';
import type { SeriesNeighbours } from '../lib/ipc';

const neighbours: SeriesNeighbours = {
  series: 'Dune',
  previous: null,
  next: { book_id: 8, title: 'Dune Messiah', number: 2, finished: false, on_device: true, status: status(8, 'stored') },
};

function card(which: 'next' | 'previous', paged: boolean) {
  const calls = { onread: vi.fn(), onstay: vi.fn(), onback: vi.fn() };
  render(ReaderEndCard, { which, title: 'Dune', neighbours, paged, ...calls });
  return calls;
}

describe('ReaderEndCard', () => {
  beforeEach(() => resetStores());

  it('offers the next book of the series with its button focused, for any reader', async () => {
    const calls = card('next', false);
    expect(screen.getByRole('dialog', { name: 'You finished Dune' }).textContent).toContain('Next in Dune:');
    const read = screen.getByRole('button', { name: 'Read Dune Messiah' });
    expect(document.activeElement).toBe(read);
    expect(screen.getByTestId('reader-end-number').textContent).toBe('Number 2');
    expect(screen.getByTestId('reader-end-status').textContent).toBe('On this device');
    await userEvent.setup().keyboard('{Enter}');
    expect(calls.onread).toHaveBeenCalledOnce();
  });

  it('before the first book of a series, goes back to the start in words that fit the reader', async () => {
    const text = card('previous', false);
    expect(screen.getByTestId('reader-end-series-done').textContent?.trim()).toBe('This is the first book of Dune');
    await userEvent.setup().click(screen.getByRole('button', { name: 'Back to the start' }));
    expect(text.onstay).toHaveBeenCalledOnce();
    document.body.innerHTML = '';
    const page = card('previous', true);
    expect(screen.queryByRole('button', { name: 'Back to the start' })).toBeNull();
    await userEvent.setup().click(screen.getByRole('button', { name: 'Back to page 1' }));
    expect(page.onstay).toHaveBeenCalledOnce();
  });
});
