import { beforeEach, describe, expect, it, vi } from 'vitest';

vi.mock('@tauri-apps/api/core', () => import('../../test/tauri'));
vi.mock('@tauri-apps/plugin-dialog', () => ({ open: vi.fn() }));

import { invoke } from '@tauri-apps/api/core';
import { open as openDialog } from '@tauri-apps/plugin-dialog';
import { backend, details } from '../../test/fixtures';
import { lastChannel } from '../../test/tauri';
import { resetStores } from '../../test/stores';
import { COPY_KEY, fileName, localFiles, outcomeOf } from './localFiles.svelte';
import { reader } from './reader.svelte';
import { epubReader } from './epubReader.svelte';
import { router } from './router.svelte';
import { toasts } from './toasts.svelte';
import type { DesktopFilesEvent, ImportedFile } from '../ipc';

const invokeMock = vi.mocked(invoke);

function imported(path: string, bookId: number, format: 'comic' | 'epub' | 'pdf' = 'comic'): ImportedFile {
  return {
    path,
    book: { book_id: bookId, title: fileName(path), format, already_known: false, authors: [], series: null, number: null, path },
    error: null,
  };
}

function refused(path: string, message: string): ImportedFile {
  return { path, book: null, error: { kind: 'invalid_input', message } };
}

/** The backend: `import_files` answers `results`, `book_details` a book of `reader`. */
function answering(results: ImportedFile[], readerOf: Record<number, 'comic' | 'epub' | 'pdf'> = {}) {
  backend({
    import_files: results,
    book_details: ({ bookId }: Record<string, unknown>) => details(bookId as number, { format: readerOf[bookId as number] ?? 'comic' }),
    watch_desktop_files: null,
  });
}

function importCalls() {
  return invokeMock.mock.calls.filter(([command]) => command === 'import_files');
}

describe('localFiles', () => {
  beforeEach(() => {
    invokeMock.mockReset();
    resetStores();
    localStorage.clear();
    localFiles.setCopy(false);
    localFiles.dragging = false;
    vi.restoreAllMocks();
  });

  it('names a file by the last part of its path', () => {
    expect(fileName('/home/reader/Comics/Saga 01.cbz')).toBe('Saga 01.cbz');
    expect(fileName('Saga.cbz')).toBe('Saga.cbz');
  });

  it('opens one book, or none when several files became books', () => {
    expect(outcomeOf([imported('/a.cbz', 4)]).open).toBe(4);
    expect(outcomeOf([imported('/a.cbz', 4), refused('/b.txt', 'not a book')])).toMatchObject({ open: 4, imported: 1 });
    expect(outcomeOf([imported('/a.cbz', 4), imported('/b.epub', 5)])).toMatchObject({ open: null, imported: 2 });
    expect(outcomeOf([refused('/b.txt', 'not a book')]).failed).toHaveLength(1);
  });

  it('opens one comic in the comic reader, leaving the file where it is', async () => {
    answering([imported('/home/r/Saga.cbz', 7)]);
    const opened = vi.spyOn(reader, 'open').mockResolvedValue();
    await localFiles.open(['/home/r/Saga.cbz']);
    expect(importCalls()).toEqual([['import_files', { paths: ['/home/r/Saga.cbz'], copy: false }]]);
    expect(opened).toHaveBeenCalledWith(7);
  });

  it('opens one EPUB in the EPUB reader', async () => {
    answering([imported('/home/r/Book.epub', 8, 'epub')], { 8: 'epub' });
    const opened = vi.spyOn(epubReader, 'open').mockResolvedValue();
    await localFiles.open(['/home/r/Book.epub']);
    expect(opened).toHaveBeenCalledWith(8);
  });

  it('shows several books in Books on this device', async () => {
    answering([imported('/a.cbz', 1), imported('/b.pdf', 2, 'pdf')]);
    const opened = vi.spyOn(reader, 'open').mockResolvedValue();
    await localFiles.open(['/a.cbz', '/b.pdf']);
    expect(opened).not.toHaveBeenCalled();
    expect(router.route).toEqual({ view: 'on-device' });
    expect(toasts.list.map((t) => t.message)).toEqual(['2 books added to Books on this device']);
  });

  it('says which file is not a book, and still opens the one that is', async () => {
    answering([refused('/home/r/notes.txt', 'notes.txt is not a book Carrel reads'), imported('/home/r/Saga.cbz', 7)]);
    const opened = vi.spyOn(reader, 'open').mockResolvedValue();
    await localFiles.open(['/home/r/notes.txt', '/home/r/Saga.cbz']);
    expect(opened).toHaveBeenCalledWith(7);
    expect(toasts.list).toEqual([
      expect.objectContaining({ kind: 'error', message: 'Could not open “notes.txt”: notes.txt is not a book Carrel reads' }),
    ]);
  });

  it('counts the files that could not be opened', async () => {
    answering([refused('/gone.cbz', 'the file is gone'), refused('/x.cbz', 'cannot be read')]);
    await localFiles.open(['/gone.cbz', '/x.cbz']);
    expect(toasts.list.map((t) => t.message)).toEqual(['2 files could not be opened, among them “gone.cbz”: the file is gone']);
    expect(router.route).toEqual({ view: 'home' });
  });

  it('copies the files into the library once the reader chose so, and remembers it', async () => {
    answering([imported('/a.cbz', 1)]);
    vi.spyOn(reader, 'open').mockResolvedValue();
    localFiles.setCopy(true);
    expect(localStorage.getItem(COPY_KEY)).toBe('true');
    await localFiles.open(['/a.cbz']);
    expect(importCalls()[0]?.[1]).toEqual({ paths: ['/a.cbz'], copy: true });
  });

  it('File → Open imports what the chooser gave, and nothing when it was cancelled', async () => {
    answering([imported('/a.cbz', 1)]);
    vi.spyOn(reader, 'open').mockResolvedValue();
    const chooser = vi.mocked(openDialog);
    chooser.mockResolvedValueOnce(null);
    await localFiles.choose();
    expect(importCalls()).toHaveLength(0);
    chooser.mockResolvedValueOnce(['/a.cbz']);
    await localFiles.choose();
    expect(importCalls()).toHaveLength(1);
    expect(chooser).toHaveBeenLastCalledWith(
      expect.objectContaining({
        multiple: true,
        filters: [{ name: 'Books (EPUB, CBZ, CBR, CB7, CBT, PDF)', extensions: ['epub', 'cbz', 'cbr', 'cb7', 'cbt', 'pdf'] }],
      }),
    );
  });

  it('shows the drop target while files are dragged, and opens what is dropped', async () => {
    answering([imported('/a.cbz', 1)]);
    const opened = vi.spyOn(reader, 'open').mockResolvedValue();
    await localFiles.watch();
    const channel = lastChannel<DesktopFilesEvent>();
    channel.send({ kind: 'drag_enter' });
    expect(localFiles.dragging).toBe(true);
    channel.send({ kind: 'drag_leave' });
    expect(localFiles.dragging).toBe(false);
    channel.send({ kind: 'drag_enter' });
    channel.send({ kind: 'open', paths: ['/a.cbz'] });
    expect(localFiles.dragging).toBe(false);
    await vi.waitFor(() => expect(opened).toHaveBeenCalledWith(1));
  });
});
