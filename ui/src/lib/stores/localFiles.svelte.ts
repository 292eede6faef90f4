/**
 * The reader's own book files, opened in Carrel: chosen with File → Open (the sidebar's "Open
 * file…", Ctrl+O), dropped on the window, or named on the command line (`carrel FILE`, which
 * is also a file manager's "Open with Carrel"). All three end here: the files are imported
 * (`import_files`) and one book opens in its reader, while several go to Books on this device.
 * A file that is not a book, cannot be read or is gone says so in a toast; the others are
 * imported all the same.
 *
 * Whether a file is copied into Carrel's library or read where it is, is the reader's choice,
 * kept in this window's storage (default: where it is).
 */
import { chooseBookFiles, importFiles, toCommandError, watchDesktopFiles, type DesktopFilesEvent, type ImportedFile } from '../ipc';
import { explainInline } from '../errors';
import { t } from '../i18n.svelte';
import { toasts } from './toasts.svelte';
import { router } from './router.svelte';
import { details } from './details.svelte';
import { openInItsReader } from './openBook';
import { downloads } from './downloads.svelte';
import { announcer } from './announcer.svelte';

export const COPY_KEY = 'carrel.localFiles.copy';

/** The last part of a path, as the reader knows the file. */
export function fileName(path: string): string {
  const parts = path.split('/').filter((p) => p !== '');
  return parts[parts.length - 1] ?? path;
}

function readCopy(): boolean {
  try {
    return globalThis.localStorage?.getItem(COPY_KEY) === 'true';
  } catch {
    return false;
  }
}

/** What the window does with the answers of one import: what to open, what to say. */
export interface ImportOutcome {
  /** The one book to open in its reader, when exactly one file became a book. */
  open: number | null;
  /** How many books were imported. */
  imported: number;
  /** The files that are not books, with their error. */
  failed: ImportedFile[];
}

export function outcomeOf(results: ImportedFile[]): ImportOutcome {
  const books = results.flatMap((r) => (r.book ? [r.book] : []));
  return {
    open: books.length === 1 ? books[0]!.book_id : null,
    imported: books.length,
    failed: results.filter((r) => !r.book),
  };
}

class LocalFilesState {
  /** Files are being dragged over the window. */
  dragging = $state(false);
  /** An import is under way. */
  busy = $state(false);
  /** Files opened are copied into Carrel's library (else read where they are). */
  copy = $state(readCopy());
  #watching = false;

  setCopy(on: boolean): void {
    this.copy = on;
    try {
      globalThis.localStorage?.setItem(COPY_KEY, on ? 'true' : 'false');
    } catch {
      // A window without storage keeps the choice until it closes.
    }
  }

  /** Hears of the desktop's files from now on (once per window). */
  async watch(): Promise<void> {
    if (this.#watching) return;
    this.#watching = true;
    try {
      await watchDesktopFiles((event) => this.#heard(event));
    } catch {
      // Without it, File → Open still works; a drop does nothing.
      this.#watching = false;
    }
  }

  #heard(event: DesktopFilesEvent): void {
    switch (event.kind) {
      case 'drag_enter':
        this.dragging = true;
        return;
      case 'drag_leave':
        this.dragging = false;
        return;
      case 'open':
        this.dragging = false;
        void this.open(event.paths);
        return;
    }
  }

  /** File → Open: the desktop's chooser, then the files chosen are opened. */
  async choose(): Promise<void> {
    let paths: string[];
    try {
      paths = await chooseBookFiles(t('local-files-choose-title'), t('local-files-filter-books'));
    } catch (reason) {
      toasts.error(t('local-files-failed', { reason: explainInline(toCommandError(reason)) }));
      return;
    }
    await this.open(paths);
  }

  /** Imports `paths`, then opens the one book in its reader, or shows the books imported. */
  async open(paths: string[]): Promise<void> {
    if (paths.length === 0) return;
    this.busy = true;
    let results: ImportedFile[];
    try {
      results = await importFiles(paths, this.copy);
    } catch (reason) {
      toasts.error(t('local-files-failed', { reason: explainInline(toCommandError(reason)) }));
      return;
    } finally {
      this.busy = false;
    }
    const outcome = outcomeOf(results);
    tellFailures(outcome.failed);
    if (outcome.imported === 0) return;
    // The lists of books read theirs again.
    downloads.revision++;
    if (outcome.open !== null) {
      await openInReader(outcome.open);
      return;
    }
    const message = t('local-files-added', { count: outcome.imported });
    toasts.show(message);
    announcer.say(message);
    router.go({ view: 'on-device' });
  }
}

function tellFailures(failed: ImportedFile[]): void {
  const first = failed[0];
  if (!first) return;
  const reason = explainInline(first.error ?? toCommandError(null));
  const file = fileName(first.path);
  if (failed.length === 1) toasts.error(t('local-files-not-opened', { file, reason }));
  else toasts.error(t('local-files-not-opened-many', { count: failed.length, file, reason }));
}

/** Opens a book in the reader it reads in (its details, for a format no reader shows). */
async function openInReader(bookId: number): Promise<void> {
  try {
    await openInItsReader(bookId, () => {
      router.go({ view: 'on-device' });
      details.open(bookId);
    });
  } catch (reason) {
    toasts.error(t('local-files-failed', { reason: explainInline(toCommandError(reason)) }));
  }
}

export const localFiles = new LocalFilesState();
