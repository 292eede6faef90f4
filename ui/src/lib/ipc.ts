/**
 * The one door between the web UI and Carrel's Rust side. Every backend command is called
 * from here, typed, and every failure leaves here as a {@link CommandError}, whatever shape
 * the rejection had.
 */
import { Channel, convertFileSrc, invoke, type InvokeArgs } from '@tauri-apps/api/core';
import { open as openFileDialog } from '@tauri-apps/plugin-dialog';
import { t } from './i18n.svelte';
import type {
  AddServerInput,
  Annotation,
  AnnotationExportFormat,
  AppStatus,
  ArchiveComic,
  BatchView,
  BookDetails,
  BookStatus,
  BookToRemove,
  CatalogItem,
  CatalogView,
  CommandError,
  CommandErrorField,
  CommandErrorKind,
  Commands,
  DeviceLibrary,
  DeviceLibraryQuery,
  DesktopFilesEvent,
  DownloadsView,
  EpubPosition,
  ExecutorStatus,
  FoundCatalog,
  HighlightColour,
  ImportedFile,
  KosyncAccount,
  LibraryFolder,
  LibraryScanEvent,
  NewAnnotation,
  SeriesMarked,
  SeriesNeighbours,
  SeriesView,
  Server,
  ServerAnswer,
  ServerPosition,
  ServerSeriesDefault,
  RemovedFolder,
  Settings,
  StorageUsage,
  StoreRequest,
  UpdateServerInput,
} from './contract';

/**
 * The types of the commands' arguments and results, generated from the Rust types into
 * `./contract` (`make contract`): imported from there, never written again here.
 */
export type * from './contract';

/** Where a book stands on this device. */
export type BookState = BookStatus['state'];
/** A catalog entry that leads to another feed. */
export type NavigationItem = Extract<CatalogItem, { type: 'navigation' }>;
/** A book of a catalog feed. */
export type BookItem = Extract<CatalogItem, { type: 'book' }>;
/** What the downloader is doing. */
export type ExecutorStateName = ExecutorStatus['state'];

export const DEFAULT_SETTINGS: Settings = {
  books_kept: 6,
  notifications: true,
  theme: 'system',
  metered_downloads: 'ask',
  keep_running: false,
  language: null,
};

// Every kind and field the Rust side sends, once each: a kind or field added there fails the
// type check here until it is listed.
const KIND_SET: Record<CommandErrorKind, true> = {
  invalid_input: true,
  not_found: true,
  conflict: true,
  storage: true,
  server: true,
  auth: true,
  certificate: true,
  not_downloaded: true,
};
const FIELD_SET: Record<CommandErrorField, true> = {
  name: true,
  url: true,
  password: true,
  min_interval_ms: true,
  books_kept: true,
};
const KINDS = Object.keys(KIND_SET) as readonly CommandErrorKind[];
const FIELDS = Object.keys(FIELD_SET) as readonly CommandErrorField[];

/** The kind given to failures that did not come with one (a crash, a missing command). */
export const FALLBACK_KIND: CommandErrorKind = 'storage';

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null;
}

/** True when `value` already has the shape of a {@link CommandError}. */
export function isCommandError(value: unknown): value is CommandError {
  return (
    isRecord(value) &&
    typeof value.kind === 'string' &&
    (KINDS as readonly string[]).includes(value.kind) &&
    typeof value.message === 'string' &&
    (value.field === undefined || (FIELDS as readonly unknown[]).includes(value.field))
  );
}

/**
 * Turns anything a command may reject with into a {@link CommandError}: the backend's own
 * `{ kind, message, field }` objects pass through (unknown kinds and fields are dropped to
 * safe values), plain strings (as Tauri sends for a missing or forbidden command) and
 * `Error`s keep their text, and anything else gets a generic message.
 */
export function toCommandError(reason: unknown): CommandError {
  if (isCommandError(reason)) {
    const { kind, message, field } = reason;
    return field === undefined ? { kind, message } : { kind, message, field };
  }
  if (isRecord(reason)) {
    const message = typeof reason.message === 'string' && reason.message.trim() !== '' ? reason.message : null;
    const kind =
      typeof reason.kind === 'string' && (KINDS as readonly string[]).includes(reason.kind)
        ? (reason.kind as CommandErrorKind)
        : FALLBACK_KIND;
    const field = (FIELDS as readonly unknown[]).includes(reason.field) ? (reason.field as CommandErrorField) : undefined;
    if (message !== null) {
      return field === undefined ? { kind, message } : { kind, message, field };
    }
  }
  if (typeof reason === 'string' && reason.trim() !== '') {
    return { kind: FALLBACK_KIND, message: reason };
  }
  return { kind: FALLBACK_KIND, message: t('error-unknown') };
}

/** Calls `command` with its arguments, as the contract types them both. */
/**
 * The error a failed `carrel-page`, `carrel-book` or `carrel-cover` reply carries: its body is
 * the command error the failure is — kind `not_downloaded` when the book is not on the device
 * and did not arrive in time. A body that is not one becomes a `server` error with its text.
 */
export async function protocolError(response: Response): Promise<CommandError> {
  const text = await response.text().catch(() => '');
  let body: unknown = null;
  try {
    body = JSON.parse(text);
  } catch {
    body = null;
  }
  return isCommandError(body) ? toCommandError(body) : { kind: 'server', message: text.trim() };
}

async function call<K extends keyof Commands>(command: K, args?: Commands[K]['args']): Promise<Commands[K]['result']> {
  try {
    return await invoke<Commands[K]['result']>(command, args as InvokeArgs | undefined);
  } catch (reason) {
    throw toCommandError(reason);
  }
}

/** A channel for the core to send events on, each handed to `onmessage` as it comes. */
function channelTo<T>(onmessage: (message: T) => void): Channel<T> {
  const channel = new Channel<T>();
  channel.onmessage = onmessage;
  return channel;
}

/** What the UI needs to know before it draws anything. Never rejects. */
export async function appStatus(): Promise<AppStatus> {
  try {
    return await call('app_status');
  } catch (reason) {
    return {
      version: '',
      data_dir: null,
      credentials: null,
      secrets_in_file: false,
      credentials_notice_dismissed: false,
      has_books: false,
      error: toCommandError(reason),
    };
  }
}

/** The notice that passwords are kept in a file is not shown again. */
export async function dismissCredentialsNotice(): Promise<void> {
  await call('dismiss_credentials_notice');
}

export function listServers(): Promise<Server[]> {
  return call('list_servers');
}

/**
 * Finds a server's catalog without saving anything. The sign-in goes only to the address typed,
 * and only if it asks for one.
 */
export function discoverServer(
  url: string,
  username: string | null,
  password: string | null,
  trustSelfSigned: boolean,
  apiKey = false,
): Promise<FoundCatalog> {
  return call('discover_server', { url, username, password, trustSelfSigned, apiKey });
}

export function addServer(input: AddServerInput): Promise<Server> {
  return call('add_server', { input });
}

export async function removeServer(id: number): Promise<void> {
  await call('remove_server', { id });
}

export function updateServer(id: number, input: UpdateServerInput): Promise<Server> {
  return call('update_server', { id, input });
}

/** Lets downloads from a server go on after its credentials were fixed. */
export async function resumeServer(id: number): Promise<void> {
  await call('resume_server', { id });
}

// ---- Catalog ----

/**
 * One feed of a server (its root without `feedUrl`). A server that did not answer lately is
 * answered for at once by its kept copy (`offline`), unless `fresh` asks it and waits.
 */
export function browseCatalog(serverId: number, feedUrl?: string | null, fresh = false): Promise<CatalogView> {
  return call('browse_catalog', {
    serverId,
    ...(feedUrl ? { feedUrl } : {}),
    ...(fresh ? { fresh } : {}),
  });
}

/** A server's search results; `fresh` as for {@link browseCatalog}. */
export function searchCatalog(serverId: number, query: string, fresh = false): Promise<CatalogView> {
  return call('search_catalog', { serverId, query, ...(fresh ? { fresh } : {}) });
}

export function bookDetails(bookId: number): Promise<BookDetails> {
  return call('book_details', { bookId });
}

/**
 * The address of a book's cover, served by the app's `carrel-cover` protocol (a 404 when the
 * book has none). `null` outside the app, where there is no such protocol.
 */
export function coverUrl(bookId: number): string | null {
  try {
    return convertFileSrc(String(bookId), 'carrel-cover');
  } catch {
    return null;
  }
}

/**
 * The address of page `index` (0-based) of a book, served by the app's `carrel-page` protocol
 * (`carrel-page://localhost/<book id>/<index>`): the stored page, else fetched first (a 504
 * whose {@link protocolError} is `not_downloaded` when the server cannot be reached). `null`
 * outside the app.
 */
export function pageUrl(bookId: number, index: number): string | null {
  try {
    return convertFileSrc(`${bookId}/${index}`, 'carrel-page');
  } catch {
    return null;
  }
}

/**
 * The address of a book's whole EPUB or PDF, served by the app's `carrel-book` protocol
 * (`carrel-book://localhost/<book id>`, `application/epub+zip` or `application/pdf`): the stored file, else fetched
 * first (a 504 whose {@link protocolError} is `not_downloaded` when the server cannot be
 * reached). `null` outside the app.
 */
export function bookFileUrl(bookId: number): string | null {
  try {
    return convertFileSrc(String(bookId), 'carrel-book');
  } catch {
    return null;
  }
}

// ---- Books on this device ----

/** Keeps a book on this device (and pins it). */
export function storeBook(bookId: number): Promise<StoreRequest> {
  return call('store_book', { bookId });
}

/** Opens a book at `page` (0-based), or where the reader left it. */
export async function openBook(bookId: number, page?: number | null): Promise<void> {
  await call('open_book', page === undefined || page === null ? { bookId } : { bookId, page });
}

/** Remembers the reader's position in a book (0-based page). */
export async function savePosition(bookId: number, page: number): Promise<void> {
  await call('save_position', { bookId, page });
}

/**
 * The server's position of a book when it is newer than this device's and elsewhere in the
 * book — it becomes this device's position too; `null` otherwise (or when the server is away).
 */
export async function takeServerPosition(bookId: number, waitMs?: number): Promise<ServerPosition | null> {
  return await call('take_server_position', waitMs === undefined ? { bookId } : { bookId, waitMs });
}

/**
 * Remembers the EPUB reader's position in a book (`cfi` exact, `fraction` 0…1 for progress,
 * `chapter` the table of contents' title of the chapter shown, when it has one).
 */
export async function saveEpubPosition(bookId: number, cfi: string, fraction: number, chapter: string | null = null): Promise<void> {
  await call('save_epub_position', chapter ? { bookId, cfi, fraction, chapter } : { bookId, cfi, fraction });
}

/** Where the EPUB reader left a book, `null` when it never saved one. */
export async function epubPosition(bookId: number): Promise<EpubPosition | null> {
  return await call('epub_position', { bookId });
}

/**
 * A book's bookmarks and highlights, in the book's order (then oldest first). They belong to
 * the book, not its file: removing the book from the device keeps them.
 */
export function listAnnotations(bookId: number): Promise<Annotation[]> {
  return call('list_annotations', { bookId });
}

/**
 * Adds a bookmark (`colour` absent) or a highlight (`colour` required) to a book. Rejects with
 * `invalid_input` past the limits (note 10,000 characters, quote 4,000, locator 2,000).
 */
export function addAnnotation(bookId: number, annotation: NewAnnotation): Promise<Annotation> {
  return call('add_annotation', { bookId, annotation });
}

/**
 * Replaces an annotation's note (`null` or blank: no note) and, for a highlight, sets its
 * colour when one is given (`null`: unchanged).
 */
export function updateAnnotation(id: number, note: string | null, colour: HighlightColour | null = null): Promise<Annotation> {
  return call('update_annotation', { id, note, colour });
}

export async function deleteAnnotation(id: number): Promise<void> {
  await call('delete_annotation', { id });
}

/** A book's bookmarks and highlights as Markdown or JSON text, for the window to save. */
export function exportAnnotations(bookId: number, format: AnnotationExportFormat): Promise<string> {
  return call('export_annotations', { bookId, format });
}

export async function removeBook(bookId: number): Promise<void> {
  await call('remove_book', { bookId });
}

export async function retryBook(bookId: number): Promise<void> {
  await call('retry_book', { bookId });
}

/** The books on this device, sorted and filtered by the core as `query` says. */
export function listOnDevice(query?: DeviceLibraryQuery): Promise<DeviceLibrary> {
  return call('list_on_device', { query: query ?? null });
}

export function listContinueReading(limit?: number): Promise<BookDetails[]> {
  return call('list_continue_reading', limit === undefined ? undefined : { limit });
}

// ---- Downloads ----

/**
 * Subscribes to the downloads: `onview` gets a view at once, then on every change. The
 * subscription lasts as long as the page; to stop listening, ignore further calls.
 */
export async function watchDownloads(onview: (view: DownloadsView) => void): Promise<void> {
  await call('watch_downloads', { onEvent: channelTo(onview) });
}

export async function pauseDownloads(): Promise<void> {
  await call('pause_downloads');
}

export async function resumeDownloads(): Promise<void> {
  await call('resume_downloads');
}

/** Empties the list of finished downloads. */
export async function clearDoneDownloads(): Promise<void> {
  await call('clear_done_downloads');
}

export async function moveBookToTop(bookId: number): Promise<void> {
  await call('move_book_to_top', { bookId });
}

export async function cancelBook(bookId: number): Promise<void> {
  await call('cancel_book', { bookId });
}

// ---- Settings ----

export function getSettings(): Promise<Settings> {
  return call('get_settings');
}

export function setSettings(settings: Settings): Promise<Settings> {
  return call('set_settings', { settings });
}

export function storageUsage(): Promise<StorageUsage> {
  return call('storage_usage');
}

/** The books a "books kept" setting of `booksKept` would remove now; nothing is changed. */
export function booksRemovedIfKept(booksKept: number): Promise<BookToRemove[]> {
  return call('books_removed_if_kept', { booksKept });
}

// ---- Library folders ----

/** The library folders, with their book counts and last scans. */
export function libraryFolders(): Promise<LibraryFolder[]> {
  return call('library_folders');
}

/** Adds a folder the reader chose; its first scan starts at once (see {@link watchLibraryFolders}). */
export function addLibraryFolder(path: string): Promise<LibraryFolder> {
  return call('add_library_folder', { path });
}

/** Removes a library folder: its books leave the library, its files stay where they are. */
export function removeLibraryFolder(id: number): Promise<RemovedFolder> {
  return call('remove_library_folder', { id });
}

/** Looks through a library folder again now. */
export async function rescanLibraryFolder(id: number): Promise<void> {
  await call('rescan_library_folder', { id });
}

/** Hears every scan of the library folders: its progress and its end. */
export async function watchLibraryFolders(onevent: (event: LibraryScanEvent) => void): Promise<void> {
  await call('watch_library_folders', { onEvent: channelTo(onevent) });
}

/**
 * The desktop's folder chooser: the folder chosen, or `null` when it was cancelled. `title` is
 * the chooser's title, in the reader's language.
 */
export async function chooseFolder(title: string): Promise<string | null> {
  try {
    const chosen = await openFileDialog({ title, multiple: false, directory: true });
    if (chosen === null) return null;
    return Array.isArray(chosen) ? (chosen[0] ?? null) : chosen;
  } catch (reason) {
    throw toCommandError(reason);
  }
}

// ---- Windows ----

/**
 * Opens another library window on `view` (`library`, `downloads`, `settings`, `on-device`,
 * `server/<id>`, `book/<id>`); resolves with the new window's label.
 */
export function openWindow(view: string): Promise<string> {
  return call('open_window', { view });
}

/** Closes the window that calls it; downloads left go on in the background. */
export async function closeWindow(): Promise<void> {
  await call('close_window');
}

/** Quits Carrel: every window closes, and downloads left wait until it runs again. */
export async function quitApp(): Promise<void> {
  await call('quit_app');
}

// ---- Search everywhere ----

/** Books known on this device whose title, authors or series match `query`; no server is asked. */
export function searchOnDevice(query: string): Promise<BookDetails[]> {
  return call('search_on_device', { query });
}

/**
 * Asks every server's search at once: `onanswer` gets each server's answer as it comes.
 * Resolves with how many servers were asked, once all have answered.
 */
export async function searchEverywhere(query: string, onanswer: (answer: ServerAnswer) => void): Promise<number> {
  return call('search_everywhere', { query, onAnswer: channelTo(onanswer) });
}

// ---- Keep all offline ----

/** Keeps every book of a feed (its next pages too) offline as one batch; the root when `feedUrl` is null. */
export function keepFeedOffline(serverId: number, feedUrl: string | null): Promise<BatchView> {
  return call('keep_feed_offline', feedUrl === null ? { serverId } : { serverId, feedUrl });
}

/** Keeps every book a search finds offline as one batch. */
export function keepSearchOffline(serverId: number, query: string): Promise<BatchView> {
  return call('keep_search_offline', { serverId, query });
}

export function listBatches(): Promise<BatchView[]> {
  return call('list_batches');
}

export function pauseBatch(id: number): Promise<BatchView> {
  return call('pause_batch', { id });
}

export function resumeBatch(id: number): Promise<BatchView> {
  return call('resume_batch', { id });
}

export function moveBatchToTop(id: number): Promise<BatchView> {
  return call('move_batch_to_top', { id });
}

export async function cancelBatch(id: number): Promise<void> {
  await call('cancel_batch', { id });
}

/** "Download anyway" on this metered link, until it changes; false when it is not metered. */
export function allowMeteredDownloads(): Promise<boolean> {
  return call('allow_metered_downloads');
}

/** The font families installed on this computer (empty when they cannot be listed). */
export function systemFonts(): Promise<string[]> {
  return call('system_fonts');
}

/** Whether Carrel starts when you log in (its autostart entry). */
export function startAtLogin(): Promise<boolean> {
  return call('start_at_login');
}

/** Starts Carrel when you log in, or not; resolves to whether it now does. */
export function setStartAtLogin(on: boolean): Promise<boolean> {
  return call('set_start_at_login', { on });
}

// ---- Read-ahead per series ----

/** A book's series and its read-ahead; rejects with kind `invalid_input` when the server names no series. */
export function seriesOfBook(bookId: number): Promise<SeriesView> {
  return call('series_of_book', { bookId });
}

/** Keeps the next `keepNext` unread books of the series after `bookId` on the device. */
export function keepSeries(bookId: number, keepNext: number, removeAfterDays: number | null): Promise<SeriesView> {
  return call('keep_series', { bookId, keepNext, removeAfterDays });
}

/** The previous and next books of `bookId`'s series, from what this device knows of it. */
export function seriesNeighbours(bookId: number): Promise<SeriesNeighbours> {
  return call('series_neighbours', { bookId });
}

/** Marks a book read or unread; the mark is sent to its servers as a position is. */
export async function markBookRead(bookId: number, read: boolean): Promise<void> {
  await call('mark_book_read', { bookId, read });
}

/** Marks every book of `bookId`'s series read or unread; each mark is sent as a single one is. */
export function markSeriesRead(bookId: number, read: boolean): Promise<SeriesMarked> {
  return call('mark_series_read', { bookId, read });
}

/** Ends the read-ahead of the book's series (what is stored stays). */
export async function stopKeepingSeries(bookId: number): Promise<void> {
  await call('stop_keeping_series', { bookId });
}

/** A server's default read-ahead; null when off (as it starts). */
export function serverSeriesDefault(serverId: number): Promise<ServerSeriesDefault | null> {
  return call('server_series_default', { serverId });
}

/** Sets a server's default read-ahead (`keepNext` 0 turns it off); resolves to the default now in force. */
export function setServerSeriesDefault(
  serverId: number,
  keepNext: number,
  removeAfterDays: number | null,
): Promise<ServerSeriesDefault | null> {
  return call('set_server_series_default', { serverId, keepNext, removeAfterDays });
}

// ---- Comics kept as one archive ----

/**
 * Opens a comic kept as one archive: its page count once its file is stored. Rejects with kind
 * `not_downloaded` when the file did not arrive within a few seconds (ask again while the
 * download goes on).
 */
export function openComic(bookId: number): Promise<ArchiveComic> {
  return call('open_comic', { bookId });
}

/** The KOReader sync account, or null when none is set up. */
export function kosyncAccount(): Promise<KosyncAccount | null> {
  return call('kosync_account');
}

/** Signs in to a KOReader sync server (checked with it before it is kept). */
export function kosyncSignIn(url: string, username: string, password: string): Promise<KosyncAccount> {
  return call('kosync_sign_in', { url, username, password });
}

/** Forgets the KOReader sync account. */
export async function kosyncSignOut(): Promise<void> {
  await call('kosync_sign_out');
}

/** Records how many pages a whole-file PDF has, as the PDF reader counted them. */
export async function recordPdfPages(bookId: number, pages: number): Promise<void> {
  await call('record_pdf_pages', { bookId, pages });
}

/**
 * Opens a book's stored file in the system's default application for its kind (downloaded
 * first when it is not on the device).
 */
export async function openInAnotherApp(bookId: number): Promise<void> {
  await call('open_in_another_app', { bookId });
}

/** The extensions of the book files Carrel opens (File → Open's filter). */
export const BOOK_FILE_EXTENSIONS = ['epub', 'cbz', 'cbr', 'cb7', 'cbt', 'pdf'] as const;

/**
 * The desktop's file chooser, for book files: the paths chosen (none when it was cancelled).
 * `title` and `filter` are the chooser's words, in the reader's language.
 */
export async function chooseBookFiles(title: string, filter: string): Promise<string[]> {
  try {
    const chosen = await openFileDialog({
      title,
      multiple: true,
      directory: false,
      filters: [{ name: filter, extensions: [...BOOK_FILE_EXTENSIONS] }],
    });
    if (chosen === null) return [];
    return Array.isArray(chosen) ? chosen : [chosen];
  } catch (reason) {
    throw toCommandError(reason);
  }
}

/**
 * Makes the reader's own files books of this device (left where they are, or copied into
 * Carrel's library with `copy`): one answer per file, its book or why it is not one.
 */
export function importFiles(paths: string[], copy: boolean): Promise<ImportedFile[]> {
  return call('import_files', { paths, copy });
}

/** Hears of files dragged over, dropped on or handed to this window (`carrel FILE`). */
export async function watchDesktopFiles(onevent: (event: DesktopFilesEvent) => void): Promise<void> {
  await call('watch_desktop_files', { onEvent: channelTo(onevent) });
}
