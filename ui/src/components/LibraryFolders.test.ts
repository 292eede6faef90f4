import { beforeEach, describe, expect, it, vi } from 'vitest';
import { render, screen, waitFor, within } from '@testing-library/svelte';
import userEvent from '@testing-library/user-event';

vi.mock('@tauri-apps/api/core', () => import('../test/tauri'));
vi.mock('@tauri-apps/plugin-dialog', () => ({ open: vi.fn() }));

import LibraryFolders from './LibraryFolders.svelte';
import { backend } from '../test/fixtures';
import { lastChannel, resetChannels } from '../test/tauri';
import { invoke } from '@tauri-apps/api/core';
import { open as openDialog } from '@tauri-apps/plugin-dialog';
import type { LibraryFolder, LibraryScanEvent } from '../lib/ipc';

const invokeMock = vi.mocked(invoke);

function folder(over: Partial<LibraryFolder> = {}): LibraryFolder {
  return { id: 1, path: '/home/ada/Comics', added_at_ms: 0, last_scan_ms: Date.now() - 5 * 60_000, book_count: 12, ...over };
}

describe('Settings → Library folders', () => {
  beforeEach(() => {
    resetChannels();
    vi.mocked(openDialog).mockReset();
  });

  it('lists each folder with its book count and last scan, and follows a scan to its end', async () => {
    let folders = [folder(), folder({ id: 2, path: '/media/books', last_scan_ms: null, book_count: 0 })];
    backend({ library_folders: () => folders, watch_library_folders: null });
    render(LibraryFolders);
    const rows = await screen.findAllByTestId('library-folder');
    expect(rows).toHaveLength(2);
    expect(within(rows[0]).getByTestId('library-folder-count').textContent).toMatch(/12 books · scanned 5 minutes ago/);
    expect(within(rows[1]).getByTestId('library-folder-count').textContent).toMatch(/0 books · not scanned yet/);

    const channel = lastChannel<LibraryScanEvent>();
    channel.send({ kind: 'walking', folder_id: 2, found: 1234 });
    expect((await within(rows[1]).findByTestId('library-folder-progress')).textContent).toContain('Looking for books… 1,234 found');
    channel.send({ kind: 'importing', folder_id: 2, done: 1234, total: 10000, current: 'Saga/Saga 01.cbz' });
    await waitFor(() =>
      expect(within(rows[1]).getByTestId('library-folder-progress').textContent).toContain('Scanning… 1,234 of 10,000'),
    );
    expect(within(rows[1]).getByTestId('library-folder-rescan')).toHaveProperty('disabled', true);

    folders = [folders[0], { ...folders[1], book_count: 10000, last_scan_ms: Date.now() }];
    channel.send({
      kind: 'finished',
      summary: { folder_id: 2, found: 10000, imported: 10000, updated: 0, dropped: 0, failed: 0, cancelled: false },
    });
    await waitFor(() => expect(screen.queryByTestId('library-folder-progress')).toBeNull());
    const row = screen.getAllByTestId('library-folder')[1];
    expect(within(row).getByTestId('library-folder-count').textContent).toMatch(/10,000 books · scanned just now/);
  });

  it('adds the folder chosen in the desktop chooser, or one typed, and says why one is refused', async () => {
    const folders: LibraryFolder[] = [];
    backend({
      library_folders: () => folders,
      watch_library_folders: null,
      add_library_folder: ({ path }) => {
        if (path === '/etc/passwd') throw { kind: 'invalid_input', message: '/etc/passwd is not a folder' };
        const added = folder({ id: folders.length + 1, path: path as string, last_scan_ms: null, book_count: 0 });
        folders.push(added);
        return added;
      },
    });
    vi.mocked(openDialog).mockResolvedValue('/home/ada/Books');
    const user = userEvent.setup();
    render(LibraryFolders);
    expect(await screen.findByTestId('library-folders-empty')).toBeTruthy();

    await user.click(screen.getByTestId('library-folders-choose'));
    expect(openDialog).toHaveBeenCalledWith(expect.objectContaining({ directory: true, multiple: false }));
    expect(invokeMock).toHaveBeenCalledWith('add_library_folder', { path: '/home/ada/Books' });
    const row = await screen.findByTestId('library-folder');
    expect(row.textContent).toContain('/home/ada/Books');
    // Its first scan has started.
    expect(within(row).getByTestId('library-folder-progress').textContent).toContain('Looking for books');

    await user.type(screen.getByTestId('library-folders-path'), '/etc/passwd');
    await user.click(screen.getByTestId('library-folders-add-path'));
    expect((await screen.findByTestId('library-folders-error')).textContent).toContain('/etc/passwd is not a folder');
    expect(screen.getAllByTestId('library-folder')).toHaveLength(1);

    // A cancelled chooser adds nothing.
    vi.mocked(openDialog).mockResolvedValue(null);
    invokeMock.mockClear();
    await user.click(screen.getByTestId('library-folders-choose'));
    expect(invokeMock).not.toHaveBeenCalledWith('add_library_folder', expect.anything());
  });

  it('rescans a folder and removes one after asking, saying how many books left', async () => {
    let folders = [folder()];
    backend({
      library_folders: () => folders,
      watch_library_folders: null,
      rescan_library_folder: null,
      remove_library_folder: ({ id }) => {
        const removed = folders.find((f) => f.id === id)!;
        folders = folders.filter((f) => f.id !== id);
        return { folder: removed, books_dropped: removed.book_count };
      },
    });
    const user = userEvent.setup();
    render(LibraryFolders);
    const row = await screen.findByTestId('library-folder');

    await user.click(within(row).getByTestId('library-folder-rescan'));
    expect(invokeMock).toHaveBeenCalledWith('rescan_library_folder', { id: 1 });

    await user.click(within(row).getByTestId('library-folder-remove'));
    const dialog = await screen.findByTestId('library-folder-remove-dialog');
    expect(dialog.textContent).toContain('The 12 books of /home/ada/Comics leave Books on this device');
    expect(dialog.textContent).toContain('The files stay where they are.');
    await user.click(screen.getByTestId('library-folder-remove-confirm'));
    expect(invokeMock).toHaveBeenCalledWith('remove_library_folder', { id: 1 });
    expect(await screen.findByTestId('library-folders-empty')).toBeTruthy();
  });
});
