import { beforeEach, describe, expect, it, vi } from 'vitest';
import { render, screen } from '@testing-library/svelte';
import { flushSync } from 'svelte';
import userEvent from '@testing-library/user-event';

vi.mock('@tauri-apps/api/core', () => import('../test/tauri'));

import SeriesReadAhead from './SeriesReadAhead.svelte';
import { backend, status } from '../test/fixtures';
import { resetStores } from '../test/stores';
import { invoke } from '@tauri-apps/api/core';
import type { SeriesBook, SeriesView } from '../lib/ipc';
import { i18n } from '../lib/i18n.svelte';

const invokeMock = vi.mocked(invoke);

function member(id: number, state: SeriesBook['status']['state'], extra: Partial<SeriesBook> = {}): SeriesBook {
  return {
    book_id: id,
    title: `Saga #${id}`,
    series_index: id,
    finished: false,
    kept_by_read_ahead: false,
    status: status(id, state, { stored_parts: state === 'stored' ? 3 : 0, total_parts: 3, title: `Saga #${id}` }),
    ...extra,
  };
}

function saga(readAhead: SeriesView['read_ahead'], states: Array<SeriesBook['status']['state']>): SeriesView {
  return { server_id: 1, series: 'Saga', read_ahead: readAhead, server_default: null, stopped: false, books: states.map((s, i) => member(i + 1, s)) };
}

beforeEach(() => {
  resetStores();
  invokeMock.mockReset();
});

describe('SeriesReadAhead', () => {
  it('is off by default, keeps the next books ahead when asked, then removes read ones when asked', async () => {
    backend({
      series_of_book: saga(null, ['stored', 'remote', 'remote', 'remote']),
      keep_series: ({ keepNext, removeAfterDays }) =>
        saga(
          { keep_next: keepNext as number, remove_after_days: (removeAfterDays as number | null) ?? null, from_server_default: false },
          ['stored', 'queued', 'queued', 'remote'],
        ),
    });
    const user = userEvent.setup();
    render(SeriesReadAhead, { bookId: 1 });
    const ahead = (await screen.findByTestId('series-keep-next')) as HTMLSelectElement;
    expect(ahead.value).toBe('0');
    expect(screen.getByTestId('series-read-ahead-note').textContent).toContain('1 of 4 books of this series on this device');
    expect(screen.queryByTestId('series-remove-after')).toBeNull();

    await user.selectOptions(ahead, '2');
    expect(invokeMock).toHaveBeenCalledWith('keep_series', { bookId: 1, keepNext: 2, removeAfterDays: null });
    expect((await screen.findByTestId('series-read-ahead-note')).textContent).toContain('2 on the way');

    await user.selectOptions(screen.getByTestId('series-remove-after'), '7');
    expect(invokeMock).toHaveBeenCalledWith('keep_series', { bookId: 1, keepNext: 2, removeAfterDays: 7 });
  });

  it('turned off, ends the read-ahead', async () => {
    let readAhead: SeriesView['read_ahead'] = { keep_next: 3, remove_after_days: null, from_server_default: false };
    backend({
      series_of_book: () => saga(readAhead, ['stored', 'stored']),
      stop_keeping_series: () => {
        readAhead = null;
        return null;
      },
    });
    const user = userEvent.setup();
    render(SeriesReadAhead, { bookId: 1 });
    const ahead = (await screen.findByTestId('series-keep-next')) as HTMLSelectElement;
    expect(ahead.value).toBe('3');
    await user.selectOptions(ahead, '0');
    expect(invokeMock).toHaveBeenCalledWith('stop_keeping_series', { bookId: 1 });
    await vi.waitFor(() => expect(screen.queryByTestId('series-remove-after')).toBeNull());
  });

  it('says when the read-ahead is the server’s default, and a change makes it the series’ own', async () => {
    backend({
      series_of_book: saga({ keep_next: 2, remove_after_days: null, from_server_default: true }, ['stored', 'stored', 'remote']),
      keep_series: ({ keepNext }) =>
        saga({ keep_next: keepNext as number, remove_after_days: null, from_server_default: false }, ['stored', 'stored', 'queued']),
    });
    const user = userEvent.setup();
    render(SeriesReadAhead, { bookId: 1 });
    const ahead = (await screen.findByTestId('series-keep-next')) as HTMLSelectElement;
    expect(ahead.value).toBe('2');
    expect(screen.getByTestId('series-read-ahead-note').textContent).toContain('the server’s default');
    await user.selectOptions(ahead, '3');
    expect(invokeMock).toHaveBeenCalledWith('keep_series', { bookId: 1, keepNext: 3, removeAfterDays: null });
    await vi.waitFor(() => expect(screen.getByTestId('series-read-ahead-note').textContent).not.toContain('the server’s default'));
  });

  it('says the server’s default will apply to a series not read yet, but not to a stopped one', async () => {
    const view = { ...saga(null, ['remote', 'remote']), server_default: { keep_next: 3, remove_after_days: null } };
    backend({ series_of_book: view });
    const { unmount } = render(SeriesReadAhead, { bookId: 1 });
    expect((await screen.findByTestId('series-read-ahead-note')).textContent).toContain('the server’s default keeps the next 3 unread books');
    unmount();
    backend({ series_of_book: { ...view, stopped: true } });
    render(SeriesReadAhead, { bookId: 1 });
    expect((await screen.findByTestId('series-read-ahead-note')).textContent).not.toContain('server’s default');
  });

  it('speaks the language chosen, at once, with its own plurals', async () => {
    backend({ series_of_book: saga({ keep_next: 2, remove_after_days: 7, from_server_default: false }, ['stored', 'queued', 'remote']) });
    render(SeriesReadAhead, { bookId: 1 });
    const note = await screen.findByTestId('series-read-ahead-note');
    expect(note.textContent).toContain('1 of 3 books of this series on this device, 1 on the way.');
    try {
      i18n.choose('fr');
      flushSync();
      expect(screen.getByRole('heading').textContent).toBe('Lire « Saga »');
      expect(note.textContent).toContain('1 livre sur 3 de cette série sur cet appareil, 1 en route.');
      const ahead = screen.getByTestId('series-keep-next') as HTMLSelectElement;
      expect([...ahead.options].map((o) => o.textContent)).toContain('les 2 prochains livres non lus');
      const removeAfter = screen.getByTestId('series-remove-after') as HTMLSelectElement;
      expect(removeAfter.selectedOptions[0].textContent).toBe('sont retirés une semaine après');
      i18n.choose('de');
      flushSync();
      expect(note.textContent).toContain('1 von 3 Büchern dieser Reihe auf diesem Gerät, 1 unterwegs.');
    } finally {
      i18n.choose('system');
    }
    flushSync();
    expect(note.textContent).toContain('1 of 3 books of this series on this device');
  });

  it('shows nothing for a book whose server names no series', async () => {
    backend({
      series_of_book: () => {
        throw { kind: 'invalid_input', message: 'the server names no series for "One-shot": it has no read-ahead' };
      },
    });
    render(SeriesReadAhead, { bookId: 9 });
    await vi.waitFor(() => expect(invokeMock).toHaveBeenCalledWith('series_of_book', { bookId: 9 }));
    expect(screen.queryByTestId('series-read-ahead')).toBeNull();
  });
});
