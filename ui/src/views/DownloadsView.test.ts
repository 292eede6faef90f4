import { beforeEach, describe, expect, it, vi } from 'vitest';
import { render, screen, waitFor, within } from '@testing-library/svelte';
import userEvent from '@testing-library/user-event';

vi.mock('@tauri-apps/api/core', () => import('../test/tauri'));

import { invoke } from '@tauri-apps/api/core';
import DownloadsView from './DownloadsView.svelte';
import { backend, downloadsView, server, status } from '../test/fixtures';
import { lastChannel } from '../test/tauri';
import { resetStores } from '../test/stores';
import { downloads } from '../lib/stores/downloads.svelte';
import { toasts } from '../lib/stores/toasts.svelte';
import type { DownloadsView as View } from '../lib/ipc';

const invokeMock = vi.mocked(invoke);

const busy: View = downloadsView({
  executor: { holder: 'carrel-41', this_process: true, state: 'running' },
  active: {
    book_id: 3,
    title: 'Saga, Volume One',
    kind: 'page',
    position: 12,
    bytes: 300_000,
    total: 1_200_000,
    rate_bytes_per_s: 850_000,
    status: status(3, 'downloading', { stored_parts: 12, total_parts: 160 }),
    eta_s: 95,
  },
  // The book in flight is not listed again.
  queue: [
    { book_id: 5, title: 'Paper Girls', status: status(5, 'queued', { stored_parts: 0, total_parts: 1 }), prioritary: true, eta_s: 400 },
    { book_id: 8, title: 'Monstress', status: status(8, 'queued', { stored_parts: 4, total_parts: 180 }), prioritary: false, eta_s: null },
  ],
  failed: [{ book_id: 9, title: 'Lost Book', reason: 'the server answered 404' }],
});

async function showing(view: View | null) {
  await downloads.start();
  if (view) {
    lastChannel<View>().send(view);
    downloads.flush();
  }
  render(DownloadsView, { servers: [] });
  return userEvent.setup();
}

describe('DownloadsView', () => {
  beforeEach(() => {
    invokeMock.mockReset();
    resetStores();
    backend({
      watch_downloads: null,
      pause_downloads: null,
      resume_downloads: null,
      move_book_to_top: null,
      cancel_book: null,
      retry_book: null,
    });
  });

  it('says downloads wait on a metered link and downloads anyway when asked', async () => {
    backend({ watch_downloads: null, allow_metered_downloads: true });
    const user = await showing(
      downloadsView({ network_hold: 'this connection is metered', metered_downloads: 'ask', queue: busy.queue }),
    );
    const notice = screen.getByTestId('downloads-metered');
    expect(notice.textContent).toContain('Downloads wait: this connection is metered.');
    await user.click(within(notice).getByTestId('downloads-allow-metered'));
    expect(invokeMock).toHaveBeenCalledWith('allow_metered_downloads', undefined);
  });

  it('offers no "download anyway" when the settings say never', async () => {
    await showing(downloadsView({ network_hold: 'this connection is metered', metered_downloads: 'never' }));
    expect(screen.getByTestId('downloads-metered').textContent).toContain('never to download on a metered connection');
    expect(screen.queryByTestId('downloads-allow-metered')).toBeNull();
  });

  it('waits with a skeleton for the first view', async () => {
    await showing(null);
    const loading = screen.getByTestId('downloads-loading');
    expect([loading.getAttribute('role'), loading.getAttribute('aria-label')]).toEqual(['status', 'Loading the downloads']);
    expect(screen.queryByTestId('downloads-empty')).toBeNull();
  });

  it('offers to try again when the downloads cannot be followed', async () => {
    backend({ watch_downloads: () => Promise.reject({ kind: 'storage', message: 'no executor' }) });
    await downloads.start();
    render(DownloadsView, { servers: [] });
    expect(screen.getByTestId('downloads-error').textContent).toContain('No executor.');
    backend({ watch_downloads: null });
    await userEvent.setup().click(screen.getByTestId('downloads-retry'));
    expect(downloads.connection).toBe('live');
  });

  it('shows the task in flight, with bytes, parts and rate', async () => {
    await showing(busy);
    const active = screen.getByTestId('active-download');
    expect(active.dataset.bookId).toBe('3');
    expect(active.textContent).toContain('Saga, Volume One');
    // One measure of where the book stands: pages stored of its pages, no page number beside it.
    expect(active.textContent).not.toContain('Page 13');
    expect(within(active).getByTestId('active-bytes').textContent?.trim()).toBe('300 kB of 1.2 MB');
    expect(within(active).getByTestId('active-parts').textContent).toBe('12 of 160 pages stored');
    expect(within(active).getByTestId('active-book-percent').textContent).toBe('7 % of the book');
    expect(within(active).getByTestId('active-eta').textContent).toBe('about 2 min left');
    expect(within(active).getByTestId('active-rate').textContent).toBe('850 kB/s');
    expect(within(active).getByTestId('active-progress').getAttribute('aria-valuenow')).toBe('25');
    expect(screen.getByTestId('executor-status').textContent).toBe('Downloading');
  });

  it('shows how far the book is when the page in flight is not measured', async () => {
    await showing({
      ...busy,
      active: { ...busy.active!, bytes: 0, total: null, rate_bytes_per_s: null, status: status(3, 'downloading', { stored_parts: 40, total_parts: 160 }) },
    });
    const active = screen.getByTestId('active-download');
    const bar = within(active).getByTestId('active-progress');
    expect(bar.getAttribute('aria-valuenow')).toBe('25');
    expect(bar.getAttribute('aria-valuetext')).toBe('40 of 160 pages stored');
    expect(bar.getAttribute('aria-label')).toBe('Saga, Volume One downloaded');
    expect(within(active).queryByTestId('active-bytes')).toBeNull();
    expect(active.textContent).not.toContain('0 bytes');
    expect(within(active).getByTestId('active-book-percent').textContent).toBe('25 % of the book');
  });

  it('lists the queue in the order it will run, each with progress and time left', async () => {
    await showing(busy);
    const items = screen.getAllByTestId('download-queue-item');
    expect(items.map((i) => i.dataset.bookId)).toEqual(['5', '8']);
    expect(items[0].textContent).toContain('Priority');
    expect(within(items[0]).getByTestId('download-queue-line').textContent).toBe('Waiting · about 7 min left');
    expect(within(items[1]).getByTestId('download-queue-line').textContent).toBe('Waiting · 4 of 180 pages stored');
    // The first is next already.
    expect((within(items[0]).getByTestId('move-to-top') as HTMLButtonElement).disabled).toBe(true);
    const queue = screen.getByRole('region', { name: 'Up next' });
    expect(items.every((item) => queue.contains(item))).toBe(true);
  });

  it('moves a book to the top, cancels another, and cancels the one in flight', async () => {
    const user = await showing(busy);
    const items = screen.getAllByTestId('download-queue-item');
    await user.click(within(items[1]).getByTestId('move-to-top'));
    expect(invokeMock).toHaveBeenCalledWith('move_book_to_top', { bookId: 8 });
    await user.click(within(items[0]).getByTestId('cancel-download'));
    expect(invokeMock).toHaveBeenCalledWith('cancel_book', { bookId: 5 });
    await user.click(within(screen.getByTestId('active-download')).getByTestId('cancel-download'));
    expect(invokeMock).toHaveBeenCalledWith('cancel_book', { bookId: 3 });
  });

  it('retries a failed book', async () => {
    const user = await showing(busy);
    const failed = screen.getByTestId('download-failed-item');
    expect(failed.textContent).toContain('The server answered 404.');
    await user.click(within(failed).getByTestId('retry-download'));
    expect(invokeMock).toHaveBeenCalledWith('retry_book', { bookId: 9 });
  });

  it('pauses and resumes all downloads', async () => {
    const user = await showing(busy);
    await user.click(screen.getByTestId('pause-all'));
    expect(invokeMock).toHaveBeenCalledWith('pause_downloads', undefined);
    await waitFor(() => expect(screen.queryByTestId('resume-all')?.textContent?.trim()).toBe('Resume all'));
    expect(screen.getByTestId('downloads-paused').textContent).toContain('Downloads are paused');
    expect(screen.queryByTestId('pause-all')).toBeNull();

    await user.click(screen.getByTestId('resume-all'));
    expect(invokeMock).toHaveBeenCalledWith('resume_downloads', undefined);
    await waitFor(() => expect(screen.queryByTestId('pause-all')?.textContent?.trim()).toBe('Pause all'));
    expect(screen.queryByTestId('downloads-paused')).toBeNull();
  });

  it('tells when an action fails', async () => {
    backend({ watch_downloads: null, cancel_book: () => Promise.reject({ kind: 'not_found', message: 'no book 5' }) });
    const user = await showing(busy);
    await user.click(within(screen.getAllByTestId('download-queue-item')[0]).getByTestId('cancel-download'));
    await waitFor(() => expect(toasts.list.map((t) => t.message)).toEqual(['Couldn’t cancel “Paper Girls”: no book 5']));
  });

  it('follows new views as they come', async () => {
    await showing(busy);
    lastChannel<View>().send(downloadsView({ executor: { holder: 'carrel-41', this_process: true, state: 'idle' } }));
    downloads.flush();
    await waitFor(() => expect(screen.queryByTestId('downloads-empty')?.textContent).toMatch(/Nothing (else )?waiting\./));
    expect(screen.queryByTestId('active-download')).toBeNull();
    expect(screen.getByTestId('executor-status').textContent).toBe('Nothing to download');
  });

  it('says who downloads when another Carrel holds the lease, and names servers waiting for a sign-in', async () => {
    await downloads.start();
    lastChannel<View>().send(downloadsView({ executor: { holder: 'carrel-cli-77', this_process: false, state: 'standby' } }));
    downloads.flush();
    render(DownloadsView, { servers: [{ ...server(2, 'Club'), paused_reason: 'authentication needed' }] });
    expect(screen.getByTestId('executor-status').textContent).toBe('Another Carrel is downloading (carrel-cli-77)');
    expect(screen.getByTestId('downloads-sign-in-needed').textContent).toContain('Club');
  });
});
