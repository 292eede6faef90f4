/**
 * The one door between the web UI and Carrel's Rust side. Every backend command is called
 * from here, typed, and every failure leaves here as a {@link CommandError}, whatever shape
 * the rejection had.
 */
import { Channel, convertFileSrc, invoke, type InvokeArgs } from '@tauri-apps/api/core';
import { t } from './i18n.svelte';

/**
 * What kind of failure a command reported; the UI branches on this, never on messages.
 * `certificate`: the server's certificate is not trusted (self-signed?); the reader may
 * choose to trust that server.
 */
export type CommandErrorKind = 'invalid_input' | 'not_found' | 'conflict' | 'storage' | 'server' | 'auth' | 'certificate';

/** A form field a {@link CommandError} is about. */
export type CommandErrorField = 'name' | 'url' | 'password' | 'min_interval_ms' | 'books_kept';

/** A failed command, as the Rust side reports it. */
export interface CommandError {
  kind: CommandErrorKind;
  message: string;
  field?: CommandErrorField;
}

/** Where saved passwords are kept: the system keyring, or a private file when none answered. */
export type CredentialsBackend = 'keyring' | 'file';

export interface AppStatus {
  version: string;
  data_dir: string | null;
  credentials: CredentialsBackend | null;
  /** Some password is kept in the file, for want of a keyring. */
  secrets_in_file?: boolean;
  /** The reader dismissed the notice saying so, for good. */
  credentials_notice_dismissed?: boolean;
  /** Why the library cannot be opened; when set, nothing else can be used. */
  error: CommandError | null;
}

/** A saved library server. */
export interface Server {
  id: number;
  name: string;
  /** The catalog's root feed. */
  url: string;
  username: string | null;
  min_interval_ms: number;
  created_at_ms: number;
  /** Why downloads from this server are paused ("authentication needed"), if they are. */
  paused_reason?: string | null;
  /** The reader chose to accept this server's certificate even if it is self-signed. */
  trust_self_signed: boolean;
  /** Its saved secret is an API key (sent as `X-API-Key`). */
  api_key?: boolean;
}

/** The fields of the "Add server" dialog. */
export interface AddServerInput {
  name: string;
  url: string;
  username?: string | null;
  password?: string | null;
  /** Pause between two requests to the server, 0–60000 ms; absent means 0. */
  minIntervalMs?: number;
  /** Accept the server's certificate even if it is self-signed; absent means no. */
  trustSelfSigned?: boolean;
  /** The password is an API key (sent as `X-API-Key`, without a username); absent means no. */
  apiKey?: boolean;
  /**
   * The whole address of a catalog found on another host (or down to plain http) that the
   * reader said yes to; without it such a catalog is not saved.
   */
  acceptCatalog?: string | null;
}

/**
 * The fields of the "Edit server" and sign-in dialogs. `password`: `null` or absent keeps the
 * saved one, `""` forgets it. `username` is always sent: `null` means no sign-in.
 */
export interface UpdateServerInput {
  name: string;
  url: string;
  username: string | null;
  password?: string | null;
  /** Absent keeps the saved interval. */
  minIntervalMs?: number;
  /** Absent keeps the saved choice. */
  trustSelfSigned?: boolean;
  /** The password is an API key; absent keeps the saved choice. */
  apiKey?: boolean;
}

// ---- Catalog ----

export type BookFormat = 'comic' | 'epub' | 'pdf' | 'other';

export type BookState = 'remote' | 'queued' | 'downloading' | 'stored' | 'failed';

/** Where a book stands on this device, with its download progress. */
export interface BookStatus {
  state: BookState;
  /** Why it failed, when `state` is `failed`. */
  reason?: string;
  stored_parts: number;
  total_parts: number;
  bytes: number;
  book_id: number;
  title: string;
}

export interface NavigationItem {
  type: 'navigation';
  title: string;
  href: string;
  summary: string | null;
}

export interface BookItem {
  type: 'book';
  book_id: number;
  title: string;
  authors: string[];
  format: BookFormat;
  page_count: number | null;
  file_type: string | null;
  file_length: number | null;
  series: string | null;
  series_index: number | null;
  summary: string | null;
  has_cover: boolean;
  status: BookStatus;
  /** Read to its end here, or marked read. */
  read: boolean;
  /** Why the server's page stream is not used (an absurd page count). */
  not_streamable?: string | null;
}

export type CatalogItem = NavigationItem | BookItem;

/** One page of a feed (or of search results). */
export interface CatalogView {
  server_id: number;
  title: string;
  feed_url: string;
  entries: CatalogItem[];
  next: string | null;
  previous: string | null;
  searchable: boolean;
  /** The server could not be reached; this is the copy kept from {@link fetched_at_ms}. */
  offline: boolean;
  fetched_at_ms: number;
}

export interface BookDetails {
  book_id: number;
  server_id: number;
  server_name: string;
  title: string;
  authors: string[];
  series: string | null;
  series_index: number | null;
  summary: string | null;
  format: string;
  page_count: number | null;
  file_type: string | null;
  file_length: number | null;
  pinned: boolean;
  /** 0-based; says nothing for a book read as reflowable text (see {@link text_place}). */
  last_page: number | null;
  /** How far an EPUB is read: the fraction (0…1) and the chapter's title when known. */
  text_place?: TextPlace | null;
  last_opened_ms: number | null;
  /** Read to its end here, or marked read. */
  read?: boolean;
  has_cover: boolean;
  status: BookStatus;
  /** A comic downloaded as one archive file (CBZ, CBR, CB7, CBT): see {@link openComic}. */
  archive_comic?: boolean;
  /**
   * The reader the book opens in: pages (streamed, or from a comic archive), the EPUB reader,
   * the PDF reader, or none (`other`: a format Carrel does not show, offered to another app).
   */
  reader: BookReader;
}

/** Where the reader is in a book read as reflowable text (an EPUB). */
export interface TextPlace {
  fraction: number;
  chapter: string | null;
}

/** Which of the app's readers shows a book (decided by the core, once). */
export type BookReader = 'comic' | 'epub' | 'pdf' | 'other';

// ---- Downloads ----

export type ExecutorStateName = 'running' | 'idle' | 'paused' | 'backoff' | 'stopped' | 'standby';

export interface ExecutorStatus {
  /** Who holds the downloader's lease, if anyone. */
  holder: string | null;
  /** The lease is held by this app. */
  this_process: boolean;
  state: ExecutorStateName;
  reason?: string;
  retry_at_ms?: number;
}

export type TaskKind = 'book' | 'page' | 'file' | 'resource';

/** The task in flight. Its book is not listed in the queue. */
export interface ActiveDownload {
  book_id: number;
  title: string;
  kind: TaskKind;
  position: number;
  bytes: number;
  total: number | null;
  rate_bytes_per_s: number | null;
  /** The book's own status (its parts). Without it, the last one seen stands in. */
  status?: BookStatus;
  /** Seconds until the book is stored. */
  eta_s?: number | null;
}

export interface QueuedBook {
  book_id: number;
  title: string;
  status: BookStatus;
  prioritary: boolean;
  eta_s: number | null;
}

export interface FailedBook {
  book_id: number;
  title: string;
  reason: string;
}

/** A book whose download finished lately. */
export interface DoneBook {
  book_id: number;
  title: string;
  stored_at_ms: number;
}

export interface DownloadsView {
  paused: boolean;
  executor: ExecutorStatus;
  active: ActiveDownload | null;
  /** In the order the books will be downloaded; the book in flight is not listed again. */
  queue: QueuedBook[];
  failed: FailedBook[];
  /** Books finished lately (the last day, since the list was last cleared), newest first. */
  done?: DoneBook[];
  /**
   * Changes when the servers, the settings or the books kept on the device change, in this
   * window or elsewhere; only compared with the value before.
   */
  library_revision: string;
  /**
   * Books stored in the last minute by this process's downloads: a small book may be queued
   * and stored between two views, so the windows learn of it here.
   */
  stored_lately?: number[];
  /** Why downloads wait for the network (a metered link), if they do. */
  network_hold?: string | null;
  metered_downloads?: MeteredDownloads;
}

// ---- Settings ----

export type ThemeChoice = 'system' | 'light' | 'dark';

/** What downloads do on a metered link. */
export type MeteredDownloads = 'never' | 'ask' | 'always';

export interface Settings {
  /** Recently read books kept on the device, 0–50. */
  books_kept: number;
  notifications: boolean;
  theme: ThemeChoice;
  metered_downloads: MeteredDownloads;
  /** Stay in the tray after the last window closes, even with nothing to download. */
  keep_running: boolean;
  /** The language chosen in Settings → Language; `null`: the system's. */
  language: string | null;
}

export const DEFAULT_SETTINGS: Settings = {
  books_kept: 6,
  notifications: true,
  theme: 'system',
  metered_downloads: 'ask',
  keep_running: false,
  language: null,
};

export interface StorageUsage {
  total_bytes: number;
  per_server: Array<{ server_id: number; name: string; bytes: number }>;
}

const KINDS: readonly CommandErrorKind[] = ['invalid_input', 'not_found', 'conflict', 'storage', 'server', 'auth', 'certificate'];
const FIELDS: readonly CommandErrorField[] = ['name', 'url', 'password', 'min_interval_ms'];

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

async function call<T>(command: string, args?: InvokeArgs): Promise<T> {
  try {
    return await invoke<T>(command, args);
  } catch (reason) {
    throw toCommandError(reason);
  }
}

/** What the UI needs to know before it draws anything. Never rejects. */
export async function appStatus(): Promise<AppStatus> {
  try {
    return await call<AppStatus>('app_status');
  } catch (reason) {
    return { version: '', data_dir: null, credentials: null, error: toCommandError(reason) };
  }
}

/** The notice that passwords are kept in a file is not shown again. */
export async function dismissCredentialsNotice(): Promise<void> {
  await call<null>('dismiss_credentials_notice');
}

export function listServers(): Promise<Server[]> {
  return call<Server[]>('list_servers');
}

/** The catalog found from what was typed (a host, host:port, web address or the catalog). */
export interface FoundCatalog {
  /** "Codex, OPDS 1.2 at http://nas:9810/opds/v1.2/": the whole address. */
  description: string;
  catalog_url: string;
  server_kind: string | null;
  opds_version: string;
  /** The catalog's own title: the server's name when the reader gives none. */
  title?: string | null;
  /** Why it is saved only with the reader's yes; null when it is where the reader typed. */
  elsewhere: 'other_host' | 'down_to_http' | null;
  /** The question to ask before saving it, when `elsewhere` is set. */
  consent_question: string | null;
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
  return call<FoundCatalog>('discover_server', { url, username, password, trustSelfSigned, apiKey });
}

export function addServer(input: AddServerInput): Promise<Server> {
  return call<Server>('add_server', { input });
}

export async function removeServer(id: number): Promise<void> {
  await call<null>('remove_server', { id });
}

export function updateServer(id: number, input: UpdateServerInput): Promise<Server> {
  return call<Server>('update_server', { id, input });
}

/** Lets downloads from a server go on after its credentials were fixed. */
export async function resumeServer(id: number): Promise<void> {
  await call<null>('resume_server', { id });
}

// ---- Catalog ----

/**
 * One feed of a server (its root without `feedUrl`). A server that did not answer lately is
 * answered for at once by its kept copy (`offline`), unless `fresh` asks it and waits.
 */
export function browseCatalog(serverId: number, feedUrl?: string | null, fresh = false): Promise<CatalogView> {
  return call<CatalogView>('browse_catalog', {
    serverId,
    ...(feedUrl ? { feedUrl } : {}),
    ...(fresh ? { fresh } : {}),
  });
}

/** A server's search results; `fresh` as for {@link browseCatalog}. */
export function searchCatalog(serverId: number, query: string, fresh = false): Promise<CatalogView> {
  return call<CatalogView>('search_catalog', { serverId, query, ...(fresh ? { fresh } : {}) });
}

export function bookDetails(bookId: number): Promise<BookDetails> {
  return call<BookDetails>('book_details', { bookId });
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
 * with `offline-not-downloaded` when the server cannot be reached). `null` outside the app.
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
 * first (a 504 with `offline-not-downloaded` when the server cannot be reached). `null`
 * outside the app.
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
export function storeBook(bookId: number): Promise<'queued' | 'already_stored'> {
  return call<'queued' | 'already_stored'>('store_book', { bookId });
}

/** Opens a book at `page` (0-based), or where the reader left it. */
export async function openBook(bookId: number, page?: number | null): Promise<void> {
  await call<null>('open_book', page === undefined || page === null ? { bookId } : { bookId, page });
}

/** Remembers the reader's position in a book (0-based page). */
export async function savePosition(bookId: number, page: number): Promise<void> {
  await call<null>('save_position', { bookId, page });
}

/** A reading position the server holds that is newer than this device's (read elsewhere). */
export interface ServerPosition {
  /** 0-based page. */
  page: number;
  /** 0…1 of the book, when the server says. */
  progression: number | null;
  /** The exact place in an EPUB, when the server's position carries one. */
  cfi: string | null;
  modified_ms: number;
  source: 'progression' | 'page_stream' | 'read_progress';
}

/**
 * The server's position of a book when it is newer than this device's and elsewhere in the
 * book — it becomes this device's position too; `null` otherwise (or when the server is away).
 */
export async function takeServerPosition(bookId: number, waitMs?: number): Promise<ServerPosition | null> {
  return await call<ServerPosition | null>('take_server_position', waitMs === undefined ? { bookId } : { bookId, waitMs });
}

/** Where the EPUB reader left a book: an EPUB CFI and the fraction of the book read. */
export interface EpubPosition {
  cfi: string;
  fraction: number;
  updatedAtMs: number;
}

/**
 * Remembers the EPUB reader's position in a book (`cfi` exact, `fraction` 0…1 for progress,
 * `chapter` the table of contents' title of the chapter shown, when it has one).
 */
export async function saveEpubPosition(bookId: number, cfi: string, fraction: number, chapter: string | null = null): Promise<void> {
  await call<null>('save_epub_position', chapter ? { bookId, cfi, fraction, chapter } : { bookId, cfi, fraction });
}

/** Where the EPUB reader left a book, `null` when it never saved one. */
export async function epubPosition(bookId: number): Promise<EpubPosition | null> {
  return await call<EpubPosition | null>('epub_position', { bookId });
}

export async function removeBook(bookId: number): Promise<void> {
  await call<null>('remove_book', { bookId });
}

export async function retryBook(bookId: number): Promise<void> {
  await call<null>('retry_book', { bookId });
}

export function listOnDevice(): Promise<BookStatus[]> {
  return call<BookStatus[]>('list_on_device');
}

export function listContinueReading(limit?: number): Promise<BookDetails[]> {
  return call<BookDetails[]>('list_continue_reading', limit === undefined ? undefined : { limit });
}

// ---- Downloads ----

/**
 * Subscribes to the downloads: `onview` gets a view at once, then on every change. The
 * subscription lasts as long as the page; to stop listening, ignore further calls.
 */
export async function watchDownloads(onview: (view: DownloadsView) => void): Promise<void> {
  const channel = new Channel<DownloadsView>();
  channel.onmessage = onview;
  await call<null>('watch_downloads', { onEvent: channel });
}

export async function pauseDownloads(): Promise<void> {
  await call<null>('pause_downloads');
}

export async function resumeDownloads(): Promise<void> {
  await call<null>('resume_downloads');
}

/** Empties the list of finished downloads. */
export async function clearDoneDownloads(): Promise<void> {
  await call<null>('clear_done_downloads');
}

export async function moveBookToTop(bookId: number): Promise<void> {
  await call<null>('move_book_to_top', { bookId });
}

export async function cancelBook(bookId: number): Promise<void> {
  await call<null>('cancel_book', { bookId });
}

// ---- Settings ----

export function getSettings(): Promise<Settings> {
  return call<Settings>('get_settings');
}

export function setSettings(settings: Settings): Promise<Settings> {
  return call<Settings>('set_settings', { settings });
}

export function storageUsage(): Promise<StorageUsage> {
  return call<StorageUsage>('storage_usage');
}

/** A book a lower "books kept" setting would remove from the device. */
export interface BookToRemove {
  book_id: number;
  title: string;
}

/** The books a "books kept" setting of `booksKept` would remove now; nothing is changed. */
export function booksRemovedIfKept(booksKept: number): Promise<BookToRemove[]> {
  return call<BookToRemove[]>('books_removed_if_kept', { booksKept });
}

// ---- Windows ----

/**
 * Opens another library window on `view` (`library`, `downloads`, `settings`, `on-device`,
 * `server/<id>`, `book/<id>`); resolves with the new window's label.
 */
export function openWindow(view: string): Promise<string> {
  return call<string>('open_window', { view });
}

/** Closes the window that calls it; downloads left go on in the background. */
export function closeWindow(): Promise<void> {
  return call<void>('close_window');
}

/** Quits Carrel: every window closes, and downloads left wait until it runs again. */
export function quitApp(): Promise<void> {
  return call<void>('quit_app');
}

// ---- Search everywhere ----

/** One server's answer to a search across servers. */
export type ServerAnswer = { server_id: number; server_name: string } & (
  | { outcome: 'results'; view: CatalogView }
  | { outcome: 'no_search' }
  | { outcome: 'failed'; kind: CommandErrorKind; message: string }
);

/** Books known on this device whose title, authors or series match `query`; no server is asked. */
export function searchOnDevice(query: string): Promise<BookDetails[]> {
  return call<BookDetails[]>('search_on_device', { query });
}

/**
 * Asks every server's search at once: `onanswer` gets each server's answer as it comes.
 * Resolves with how many servers were asked, once all have answered.
 */
export async function searchEverywhere(query: string, onanswer: (answer: ServerAnswer) => void): Promise<number> {
  const channel = new Channel<ServerAnswer>();
  channel.onmessage = onanswer;
  return call<number>('search_everywhere', { query, onAnswer: channel });
}

// ---- Keep all offline ----

/** What making a batch found. */
export interface KeepOutcome {
  queued: number;
  already_stored: number;
  not_downloadable: number;
}

/** A series, feed or search kept offline as one batch. */
export interface BatchView {
  id: number;
  server_id: number;
  server_name: string;
  title: string;
  source_url: string;
  created_at_ms: number;
  paused: boolean;
  books: number;
  stored: number;
  waiting: number;
  failed: number;
  /** Books it still has to bring (waiting, failed, or held while paused); 0: the batch is done. */
  left: number;
  /** Books that left it: cancelled or removed by the reader, or not downloadable. */
  dropped: number;
  bytes: number;
  /** Only when the batch was just made. */
  made?: KeepOutcome;
}

/** Keeps every book of a feed (its next pages too) offline as one batch; the root when `feedUrl` is null. */
export function keepFeedOffline(serverId: number, feedUrl: string | null): Promise<BatchView> {
  return call<BatchView>('keep_feed_offline', feedUrl === null ? { serverId } : { serverId, feedUrl });
}

/** Keeps every book a search finds offline as one batch. */
export function keepSearchOffline(serverId: number, query: string): Promise<BatchView> {
  return call<BatchView>('keep_search_offline', { serverId, query });
}

export function listBatches(): Promise<BatchView[]> {
  return call<BatchView[]>('list_batches');
}

export function pauseBatch(id: number): Promise<BatchView> {
  return call<BatchView>('pause_batch', { id });
}

export function resumeBatch(id: number): Promise<BatchView> {
  return call<BatchView>('resume_batch', { id });
}

export function moveBatchToTop(id: number): Promise<BatchView> {
  return call<BatchView>('move_batch_to_top', { id });
}

export async function cancelBatch(id: number): Promise<void> {
  await call<null>('cancel_batch', { id });
}

/** "Download anyway" on this metered link, until it changes; false when it is not metered. */
export function allowMeteredDownloads(): Promise<boolean> {
  return call<boolean>('allow_metered_downloads');
}

/** Whether Carrel starts when you log in (its autostart entry). */
export function startAtLogin(): Promise<boolean> {
  return call<boolean>('start_at_login');
}

/** Starts Carrel when you log in, or not; resolves to whether it now does. */
export function setStartAtLogin(on: boolean): Promise<boolean> {
  return call<boolean>('set_start_at_login', { on });
}

// ---- Reading windows per series ----

/** A series' window: how many unread books it keeps ahead, and when finished ones go. */
export interface SeriesWindowSetting {
  keep_next: number;
  /** Days after it was finished that a book the window brought is removed; null: it stays. */
  remove_after_days: number | null;
  /** Made by the server's default (and following it), not set for this series. */
  from_server_default: boolean;
}

/**
 * A server's default window: "keep the next `keep_next` unread books of each series I read",
 * taken by a series read without a window of its own.
 */
export interface ServerSeriesDefault {
  keep_next: number;
  /** Days after it was finished that a book a window brought is removed; null: it stays. */
  remove_after_days: number | null;
}

/** One book of a series, in series order. */
export interface SeriesBook {
  book_id: number;
  title: string;
  series_index: number | null;
  /** Read to its end on this device. */
  finished: boolean;
  /** Queued by the window (removed once read, when the window says so). */
  kept_by_window: boolean;
  status: { state: BookState; reason?: string; stored_parts: number; total_parts: number; bytes: number };
}

export interface SeriesView {
  server_id: number;
  series: string;
  window: SeriesWindowSetting | null;
  /** The server's default, taken when a book of the series is read (unless it has a window or was stopped). */
  server_default: ServerSeriesDefault | null;
  /** The reader stopped this series' window: the server's default leaves it be. */
  stopped: boolean;
  books: SeriesBook[];
}

/** A book's series and its window; rejects with kind `invalid_input` when the server names no series. */
export function seriesOfBook(bookId: number): Promise<SeriesView> {
  return call<SeriesView>('series_of_book', { bookId });
}

/** Keeps the next `keepNext` unread books of the series after `bookId` on the device. */
export function keepSeries(bookId: number, keepNext: number, removeAfterDays: number | null): Promise<SeriesView> {
  return call<SeriesView>('keep_series', { bookId, keepNext, removeAfterDays });
}

/** A book next to another in its series. */
export interface SeriesNeighbour {
  book_id: number;
  title: string;
  /** Its number in the series, when the server gives one. */
  number: number | null;
  /** Read to its end (here, marked read, or on the server's page stream). */
  finished: boolean;
  /** Every part of it is on this device. */
  on_device: boolean;
  /** Its download: the state, and how many parts are stored when it is not whole. */
  status: BookStatus;
}

/** The books before and after one in its series (server's order). */
export interface SeriesNeighbours {
  /** The series, when the server names one for the book. */
  series: string | null;
  /** null for the first book, or a book in no known series. */
  previous: SeriesNeighbour | null;
  /** null for the last book, or a book in no known series. */
  next: SeriesNeighbour | null;
}

/** The previous and next books of `bookId`'s series, from what this device knows of it. */
export function seriesNeighbours(bookId: number): Promise<SeriesNeighbours> {
  return call<SeriesNeighbours>('series_neighbours', { bookId });
}

/** Marks a book read or unread; the mark is sent to its servers as a position is. */
export async function markBookRead(bookId: number, read: boolean): Promise<void> {
  await call<null>('mark_book_read', { bookId, read });
}

/** A series marked at once: its name and every book of it marked, in series order. */
export interface SeriesMarked {
  series: string;
  book_ids: number[];
}

/** Marks every book of `bookId`'s series read or unread; each mark is sent as a single one is. */
export function markSeriesRead(bookId: number, read: boolean): Promise<SeriesMarked> {
  return call<SeriesMarked>('mark_series_read', { bookId, read });
}

/** Ends the window of the book's series (what is stored stays). */
export async function stopKeepingSeries(bookId: number): Promise<void> {
  await call<null>('stop_keeping_series', { bookId });
}

/** A server's default window; null when off (as it starts). */
export function serverSeriesDefault(serverId: number): Promise<ServerSeriesDefault | null> {
  return call<ServerSeriesDefault | null>('server_series_default', { serverId });
}

/** Sets a server's default window (`keepNext` 0 turns it off); resolves to the default now in force. */
export function setServerSeriesDefault(
  serverId: number,
  keepNext: number,
  removeAfterDays: number | null,
): Promise<ServerSeriesDefault | null> {
  return call<ServerSeriesDefault | null>('set_server_series_default', { serverId, keepNext, removeAfterDays });
}

// ---- Comics kept as one archive ----

/** What `ComicInfo.xml` said. */
export interface ComicInfo {
  title: string | null;
  series: string | null;
  number: string | null;
  page_count: number | null;
  right_to_left: boolean;
}

/** A comic kept as one archive file, once its file is on the device. */
export interface ArchiveComic {
  book_id: number;
  page_count: number;
  right_to_left: boolean;
  info: ComicInfo;
}

/**
 * Opens a comic kept as one archive: its page count once its file is stored. Rejects with
 * `offline-not-downloaded` when the file did not arrive within a few seconds (ask again while
 * the download goes on).
 */
export function openComic(bookId: number): Promise<ArchiveComic> {
  return call<ArchiveComic>('open_comic', { bookId });
}

/** The KOReader sync account (its key stays in the credential store). */
export interface KosyncAccount {
  url: string;
  username: string;
}

/** The KOReader sync account, or null when none is set up. */
export function kosyncAccount(): Promise<KosyncAccount | null> {
  return call<KosyncAccount | null>('kosync_account');
}

/** Signs in to a KOReader sync server (checked with it before it is kept). */
export function kosyncSignIn(url: string, username: string, password: string): Promise<KosyncAccount> {
  return call<KosyncAccount>('kosync_sign_in', { url, username, password });
}

/** Forgets the KOReader sync account. */
export function kosyncSignOut(): Promise<void> {
  return call<void>('kosync_sign_out');
}

/** Records how many pages a whole-file PDF has, as the PDF reader counted them. */
export function recordPdfPages(bookId: number, pages: number): Promise<void> {
  return call<void>('record_pdf_pages', { bookId, pages });
}

/**
 * Opens a book's stored file in the system's default application for its kind (downloaded
 * first when it is not on the device).
 */
export function openInAnotherApp(bookId: number): Promise<void> {
  return call<void>('open_in_another_app', { bookId });
}
