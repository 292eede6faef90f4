import { beforeEach, describe, expect, it, vi } from 'vitest';
import { render, screen, waitFor, within } from '@testing-library/svelte';
import userEvent from '@testing-library/user-event';

vi.mock('@tauri-apps/api/core', () => import('../test/tauri'));

import BookDetailsPanel from './BookDetailsPanel.svelte';
import { backend, details, downloadsView, failingUntilMended, status } from '../test/fixtures';
import { lastChannel } from '../test/tauri';
import { resetStores } from '../test/stores';
import { downloads } from '../lib/stores/downloads.svelte';
import { dialogs } from '../lib/stores/dialogs.svelte';
import { details as detailsStore } from '../lib/stores/details.svelte';
import { reader } from '../lib/stores/reader.svelte';
import { router } from '../lib/stores/router.svelte';
import { invoke } from '@tauri-apps/api/core';
import type { DownloadsView } from '../lib/ipc';

const invokeMock = vi.mocked(invoke);

const saga = details(12, {
  title: 'Saga, Volume One',
  authors: ['Brian K. Vaughan', 'Fiona Staples'],
  series: 'Saga',
  series_index: 1,
  summary: 'When two soldiers from opposite sides of a never-ending galactic war fall in love…',
  page_count: 160,
  file_length: 84_500_000,
  file_type: 'application/x-cbz',
  server_name: 'Attic',
});

function show(bookId = 12) {
  const onclose = vi.fn();
  render(BookDetailsPanel, { bookId, onclose });
  return { onclose, user: userEvent.setup() };
}

async function live(view: DownloadsView) {
  lastChannel<DownloadsView>().send(view);
  downloads.flush();
}


/** The downloads' view while Saga (book 12, 160 pages) is in flight with `stored` pages here. */
function sagaDownloading(stored: number) {
  return downloadsView({
    active: {
      book_id: 12,
      title: saga.title,
      kind: 'page',
      position: stored,
      bytes: 0,
      total: null,
      rate_bytes_per_s: null,
      status: status(12, 'downloading', { stored_parts: stored, total_parts: 160 }),
      eta_s: 40,
    },
  });
}
describe('BookDetailsPanel', () => {
  beforeEach(() => {
    invokeMock.mockReset();
    resetStores();
  });

  it('shows a skeleton while it reads, then the book', async () => {
    let answer: (d: typeof saga) => void = () => {};
    invokeMock.mockImplementation((command) =>
      command === 'book_details' ? new Promise((resolve) => (answer = resolve)) : Promise.resolve(null),
    );
    show();
    expect(screen.getByTestId('details-loading').getAttribute('aria-label')).toBe('Loading the book’s details');
    expect(screen.queryByTestId('details-title')).toBeNull();
    answer(saga);

    const panel = await screen.findByTestId('details-title');
    expect(panel.textContent).toBe('Saga, Volume One');
    const root = screen.getByTestId('book-details');
    expect(within(root).getByTestId('details-series').textContent).toBe('Saga #1');
    expect(within(root).getByTestId('details-authors').textContent).toBe('Brian K. Vaughan and Fiona Staples');
    expect(within(root).getByTestId('details-summary').textContent).toBe(
      'When two soldiers from opposite sides of a never-ending galactic war fall in love…',
    );
    expect(root.textContent).toContain('160 pages');
    expect(root.textContent).toContain('85 MB');
    expect(root.textContent).toContain('Comic (CBZ)');
    expect(root.textContent).toContain('Attic');
    expect(screen.getByTestId('book-state-badge').textContent?.trim()).toBe('Remote');
    const keep = screen.getByTestId('keep-offline') as HTMLButtonElement;
    expect([keep.textContent?.trim(), keep.disabled]).toEqual(['Keep offline', false]);
    expect(screen.queryByTestId('remove-from-device')).toBeNull();
    expect(invokeMock).toHaveBeenCalledWith('book_details', { bookId: 12 });
  });

  it('offers to try again when the book cannot be read', async () => {
    const book = failingUntilMended({ kind: 'not_found', message: 'no book 12' }, saga);
    backend({ book_details: book.answer });
    const { user } = show();
    const error = await screen.findByTestId('details-error');
    expect(error.textContent).toContain('No book 12.');
    book.mend();
    await user.click(screen.getByTestId('details-retry'));
    expect((await screen.findByTestId('details-title')).textContent).toBe('Saga, Volume One');
  });

  it('keeps a book offline and follows its download live', async () => {
    let pinned = false;
    backend({
      book_details: () => ({ ...saga, pinned }),
      store_book: () => {
        pinned = true;
        return 'queued';
      },
      watch_downloads: null,
    });
    await downloads.start();
    const { user } = show();
    await user.click(await screen.findByTestId('keep-offline'));

    expect(invokeMock).toHaveBeenCalledWith('store_book', { bookId: 12 });
    const badge = screen.getByTestId('book-state-badge');
    await waitFor(() => expect(badge.textContent?.trim()).toBe('Queued'));
    expect(screen.queryByTestId('keep-offline')).toBeNull();
    expect(screen.getByTestId('remove-from-device').textContent?.trim()).toBe('Remove from device');

    await live(sagaDownloading(67));
    await waitFor(() => expect(badge.textContent?.trim()).toBe('Downloading 41 %'));
    expect(screen.getByTestId('details-progress').getAttribute('aria-valuenow')).toBe('41');
    expect(screen.getByTestId('details-progress').getAttribute('aria-valuetext')).toBe('67 of 160 pages');
    expect(screen.getByText('67 of 160 pages').tagName).toBe('P');

    await live(sagaDownloading(68));
    await waitFor(() => expect(badge.textContent?.trim()).toBe('Downloading 42 %'));
  });

  it('says why a download failed, and retries it', async () => {
    backend({ book_details: saga, retry_book: null, watch_downloads: null });
    await downloads.start();
    await live(downloadsView({ failed: [{ book_id: 12, title: saga.title, reason: 'the server answered 404' }] }));
    const { user } = show();

    const badge = await screen.findByTestId('book-state-badge');
    expect(badge.textContent?.trim()).toBe('Failed');
    expect(screen.getByTestId('details-failure').textContent).toBe('The server answered 404.');
    await user.click(screen.getByTestId('retry-book'));
    expect(invokeMock).toHaveBeenCalledWith('retry_book', { bookId: 12 });
  });

  it('reads from the last position and says so', async () => {
    backend({ book_details: { ...saga, last_page: 41, last_opened_ms: Date.now() - 60_000 }, open_book: null });
    const { user } = show();
    const read = await screen.findByTestId('read-book');
    expect(read.textContent).toContain('Continue reading');
    await user.click(read);
    // The reader opens on that page.
    expect(router.route).toEqual({ view: 'reader', bookId: 12 });
    await waitFor(() => expect(reader.phase).toBe('ready'));
    expect(invokeMock).toHaveBeenCalledWith('open_book', { bookId: 12, page: 41 });
    expect(reader.index).toBe(41);
    expect(reader.pageCount).toBe(160);
  });

  it('says how far an EPUB is read by its percentage and chapter, not as a page', async () => {
    backend({
      book_details: {
        ...saga,
        format: 'epub',
        file_type: 'application/epub+zip',
        reader: 'epub',
        page_count: null,
        last_page: 0,
        last_opened_ms: Date.now() - 60_000,
        text_place: { fraction: 0.96, chapter: 'Chapter 4' },
      },
    });
    show();
    await screen.findByTestId('read-book');
    const facts = document.querySelector('dl.facts')?.textContent ?? '';
    expect(facts).toContain('96 % · Chapter 4');
    expect(facts.toLowerCase()).not.toContain('page 1');
  });

  it('reads a new book from its first page', async () => {
    backend({ book_details: saga, open_book: null });
    const { user } = show();
    await user.click(await screen.findByTestId('read-book'));
    expect(router.route).toEqual({ view: 'reader', bookId: 12 });
    await waitFor(() => expect(reader.phase).toBe('ready'));
    expect(invokeMock).toHaveBeenCalledWith('open_book', { bookId: 12 });
    expect(reader.index).toBe(0);
  });

  it('offers a format it cannot show to another app, and says so', async () => {
    backend({
      book_details: { ...saga, page_count: null, format: 'other', file_type: 'application/x-mobipocket-ebook', reader: 'other' },
      open_in_another_app: null,
    });
    const { user } = show();
    expect((await screen.findByTestId('other-format-note')).textContent).toContain('Carrel can’t show MOBI books');
    expect(screen.queryByTestId('read-book')).toBeNull();
    await user.click(await screen.findByTestId('open-in-another-app'));
    expect(invokeMock).toHaveBeenCalledWith('open_in_another_app', { bookId: 12 });
    expect(router.route).toEqual({ view: 'home' });
    expect(screen.queryByTestId('details-action-error')).toBeNull();
  });

  it('says why another app could not be given the book', async () => {
    backend({
      book_details: { ...saga, page_count: null, format: 'other', file_type: 'image/vnd.djvu', reader: 'other' },
      open_in_another_app: () => {
        throw { kind: 'storage', message: 'No application on this system opens this kind of file' };
      },
    });
    const { user } = show();
    await user.click(await screen.findByTestId('open-in-another-app'));
    expect((await screen.findByTestId('details-action-error')).textContent).toBe('No application on this system opens this kind of file.');
  });

  it('says why a file that could run programs is not handed to another app', async () => {
    const message =
      'Carrel does not hand this file to another app: the server says it is application/x-mobipocket-ebook, but it is a desktop launcher, which could run programs';
    backend({
      book_details: { ...saga, page_count: null, format: 'other', file_type: 'application/x-mobipocket-ebook', reader: 'other' },
      open_in_another_app: () => {
        throw { kind: 'server', message };
      },
    });
    const { user } = show();
    await user.click(await screen.findByTestId('open-in-another-app'));
    expect((await screen.findByTestId('details-action-error')).textContent).toBe(`${message}.`);
  });

  it('opens a PDF in the page reader', async () => {
    backend({ book_details: { ...saga, page_count: null, format: 'pdf', file_type: 'application/pdf', reader: 'pdf' }, open_book: null });
    const { user } = show();
    await user.click(await screen.findByTestId('read-book'));
    expect(router.route).toEqual({ view: 'reader', bookId: 12 });
    await waitFor(() => expect(invokeMock).toHaveBeenCalledWith('open_book', { bookId: 12 }));
  });

  it('asks before removing a book from the device', async () => {
    backend({ book_details: { ...saga, pinned: true, status: status(12, 'stored', { stored_parts: 160, total_parts: 160 }) } });
    const { user } = show();
    expect((await screen.findByTestId('book-state-badge')).textContent?.trim()).toBe('On device');
    expect(screen.queryByTestId('keep-offline')).toBeNull();
    await user.click(screen.getByTestId('remove-from-device'));
    expect(dialogs.current).toEqual({ kind: 'remove-book', bookId: 12, title: 'Saga, Volume One' });
    expect(invokeMock).not.toHaveBeenCalledWith('remove_book', expect.anything());
  });

  it('says what "On device" means for a book only opened, and for one kept offline', async () => {
    backend({ book_details: { ...saga, pinned: false, status: status(12, 'stored', { stored_parts: 160, total_parts: 160 }) } });
    show();
    expect((await screen.findByTestId('details-keep-note')).textContent).toMatch(/for now.*Keep offline keeps it for good/s);
    const keep = screen.getByTestId('keep-offline') as HTMLButtonElement;
    expect([keep.textContent?.trim(), keep.disabled]).toEqual(['Keep offline', false]);
  });

  it('says a book kept offline stays for good', async () => {
    backend({ book_details: { ...saga, pinned: true, status: status(12, 'stored', { stored_parts: 160, total_parts: 160 }) } });
    show();
    expect((await screen.findByTestId('details-keep-note')).textContent).toMatch(/for good/);
    expect(screen.queryByTestId('keep-offline')).toBeNull();
  });

  it('says whether the book is read', async () => {
    backend({ book_details: { ...saga, read: true } });
    show();
    expect((await screen.findByTestId('details-read')).textContent?.trim()).toBe('Read');
    expect(screen.getByTestId('mark-read').textContent?.trim()).toBe('Mark as unread');
  });

  it('marks a book read, says so at once, and tells the tiles', async () => {
    backend({ book_details: saga, mark_book_read: null });
    const { user } = show();
    expect((await screen.findByTestId('details-read')).textContent?.trim()).toBe('Not read yet');
    const button = screen.getByTestId('mark-read');
    expect(button.textContent?.trim()).toBe('Mark as read');
    await user.click(button);

    expect(invokeMock).toHaveBeenCalledWith('mark_book_read', { bookId: 12, read: true });
    await waitFor(() => expect(screen.getByTestId('details-read').textContent?.trim()).toBe('Read'));
    expect(screen.getByTestId('mark-read').textContent?.trim()).toBe('Mark as unread');
    expect(detailsStore.readOf(12, false)).toBe(true);
    expect(screen.queryByTestId('details-action-error')).toBeNull();
  });

  it('marks a read book unread', async () => {
    backend({ book_details: { ...saga, read: true }, mark_book_read: null });
    const { user } = show();
    await user.click(await screen.findByTestId('mark-read'));

    expect(invokeMock).toHaveBeenCalledWith('mark_book_read', { bookId: 12, read: false });
    await waitFor(() => expect(screen.getByTestId('details-read').textContent?.trim()).toBe('Not read yet'));
    expect(screen.getByTestId('mark-read').textContent?.trim()).toBe('Mark as read');
    expect(detailsStore.readOf(12, true)).toBe(false);
  });

  it('marks every book of its series read, then unread, and tells the tiles', async () => {
    backend({ book_details: saga, mark_series_read: { series: 'Saga', book_ids: [11, 12, 13] } });
    const { user } = show();
    await user.click(await screen.findByTestId('mark-series-read'));

    expect(invokeMock).toHaveBeenCalledWith('mark_series_read', { bookId: 12, read: true });
    await waitFor(() => expect(screen.getByTestId('details-read').textContent?.trim()).toBe('Read'));
    expect([11, 12, 13].every((id) => detailsStore.readOf(id, false))).toBe(true);
    await user.click(screen.getByTestId('mark-series-unread'));
    expect(invokeMock).toHaveBeenCalledWith('mark_series_read', { bookId: 12, read: false });
    await waitFor(() => expect(screen.getByTestId('details-read').textContent?.trim()).toBe('Not read yet'));
    expect([11, 12, 13].some((id) => detailsStore.readOf(id, true))).toBe(false);
  });

  it('offers no series marks for a book in no series', async () => {
    backend({ book_details: { ...saga, series: null, series_index: null } });
    show();
    await screen.findByTestId('mark-read');
    expect(screen.queryByTestId('mark-series-read')).toBeNull();
  });

  it('says why a book could not be marked read, and leaves it as it was', async () => {
    backend({
      book_details: saga,
      mark_book_read: () => {
        throw { kind: 'storage', message: 'the library could not be written' };
      },
    });
    const { user } = show();
    await user.click(await screen.findByTestId('mark-read'));

    expect((await screen.findByTestId('details-action-error')).textContent).toBe('The library could not be written.');
    expect(screen.getByTestId('details-read').textContent?.trim()).toBe('Not read yet');
    expect(screen.getByTestId('mark-read').textContent?.trim()).toBe('Mark as read');
    expect(detailsStore.readOf(12, false)).toBe(false);
  });

  it('closes with its button', async () => {
    backend({ book_details: saga });
    const { user, onclose } = show();
    await user.click(screen.getByTestId('close-details'));
    expect(onclose).toHaveBeenCalled();
  });
});
