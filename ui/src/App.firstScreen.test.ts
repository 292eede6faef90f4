import { beforeEach, describe, expect, it, vi } from 'vitest';
import { render, screen, waitFor } from '@testing-library/svelte';
import userEvent from '@testing-library/user-event';

vi.mock('@tauri-apps/api/core', () => import('./test/tauri'));
vi.mock('@tauri-apps/plugin-dialog', () => ({ open: vi.fn() }));

import { invoke } from '@tauri-apps/api/core';
import { open as openDialog } from '@tauri-apps/plugin-dialog';
import App from './App.svelte';
import { resetStores } from './test/stores';
import { backend, details, okStatus, server } from './test/fixtures';
import { downloads } from './lib/stores/downloads.svelte';
import type { AppStatus, BookDetails, Server } from './lib/ipc';

const invokeMock = vi.mocked(invoke);
const chooser = vi.mocked(openDialog);

/** A backend with `servers` saved and the device holding books or not (changed by the test). */
function library(state: { hasBooks: boolean; servers: Server[]; reading?: BookDetails[] }) {
  backend({
    app_status: (): AppStatus => ({ ...okStatus, has_books: state.hasBooks }),
    list_servers: () => state.servers,
    remove_server: ({ id }) => {
      state.servers = state.servers.filter((s) => s.id !== id);
      return null;
    },
    list_continue_reading: () => state.reading ?? [],
    get_settings: { books_kept: 6, notifications: true, theme: 'system', metered_downloads: 'ask', keep_running: false },
    watch_downloads: null,
    watch_desktop_files: null,
    add_library_folder: ({ path }) => ({ id: 1, path, book_count: 0, last_scan_ms: null }),
    library_folders: [],
    watch_library_folders: null,
  });
}

const asked = (command: string) => invokeMock.mock.calls.filter(([c]) => c === command).length;

describe('the first screen', () => {
  beforeEach(() => {
    invokeMock.mockReset();
    chooser.mockReset();
    resetStores();
  });

  it('is Home with the books being read when the device holds books and no server is saved', async () => {
    const own = details(4, { title: 'Night Watch #3', server_name: 'This device', last_opened_ms: 1_700_000_000_000 });
    library({ hasBooks: true, servers: [], reading: [own] });
    render(App);

    await screen.findByTestId('library-view');
    expect(screen.queryByTestId('empty-library')).toBeNull();
    expect(screen.queryByTestId('empty-add-server')).toBeNull();
    expect((await screen.findByTestId('continue-item')).textContent).toContain('Night Watch #3');
    expect(screen.queryAllByTestId('server-card')).toHaveLength(0);

    const invite = screen.getByTestId('home-servers-invite');
    expect(invite.textContent).toContain('Add a library server');
    await userEvent.setup().click(screen.getByTestId('home-add-server'));
    expect(screen.getByRole('dialog', { name: 'Add a server' })).toBe(screen.getByTestId('add-server-dialog'));
  });

  it('is the first-run page, with the reader’s own files offered, when there is no server and no book', async () => {
    library({ hasBooks: false, servers: [] });
    render(App);

    await screen.findByTestId('empty-library');
    expect(screen.getByTestId('empty-add-server')).toBeTruthy();
    expect(screen.queryByTestId('home-servers-invite')).toBeNull();
    expect(screen.getByTestId('empty-open-files').textContent).toContain('Open files…');

    // "Open files…" is File → Open: the book chooser, several files at once.
    chooser.mockResolvedValueOnce(null);
    await userEvent.setup().click(screen.getByTestId('empty-open-files'));
    await waitFor(() => expect(chooser).toHaveBeenCalledWith(expect.objectContaining({ multiple: true, directory: false })));
    expect(asked('import_files')).toBe(0);
  });

  it('adds a library folder from the first-run page and shows its scan in Settings', async () => {
    library({ hasBooks: false, servers: [] });
    render(App);
    await screen.findByTestId('empty-library');

    chooser.mockResolvedValueOnce('/home/ada/Comics');
    await userEvent.setup().click(screen.getByTestId('empty-add-folder'));
    await waitFor(() => expect(invokeMock).toHaveBeenCalledWith('add_library_folder', { path: '/home/ada/Comics' }));
    expect(chooser).toHaveBeenCalledWith(expect.objectContaining({ directory: true }));
    await screen.findByTestId('library-folders');
  });

  it('turns to Home once books arrive, and back to the first-run page when the last server takes its books', async () => {
    const state: { hasBooks: boolean; servers: Server[]; reading?: BookDetails[] } = { hasBooks: false, servers: [] };
    library(state);
    render(App);
    await screen.findByTestId('empty-library');
    const before = asked('app_status');

    // An import (or a folder scanned) changes the books kept: the status is asked again.
    // A book opened meanwhile is in Home's row: the row asked at start, empty, is not reused.
    state.hasBooks = true;
    state.reading = [details(4, { title: 'Night Watch #3', last_page: 2, page_count: 24, last_opened_ms: 1 })];
    downloads.revision++;
    await screen.findByTestId('home-servers-invite');
    expect(asked('app_status')).toBeGreaterThan(before);
    expect(screen.queryByTestId('empty-library')).toBeNull();
    expect((await screen.findByTestId('continue-item')).textContent).toContain('Night Watch #3');
  });

  it('shows the first-run page again when the last server is removed with its books', async () => {
    const state = { hasBooks: true, servers: [server(1, 'Attic')] };
    library(state);
    render(App);
    const user = userEvent.setup();

    await user.click(await screen.findByTestId('card-remove-server'));
    state.hasBooks = false;
    await user.click(screen.getByTestId('remove-server-confirm'));
    await screen.findByTestId('empty-library');
    expect(screen.queryByTestId('home-servers-invite')).toBeNull();
  });
});
