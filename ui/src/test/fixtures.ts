/**
 * Data for tests, shaped as the Rust side sends it, and a fake backend answering `invoke`.
 */
import { invoke } from './tauri';
import type {
  AppStatus,
  BookDetails,
  BookItem,
  BookState,
  BookStatus,
  CatalogItem,
  CatalogView,
  DeviceBook,
  DeviceLibrary,
  DownloadsView,
  NavigationItem,
  Server,
} from '../lib/ipc';

export const okStatus: AppStatus = {
  version: '0.1.0',
  data_dir: '/home/ada/.local/share/carrel',
  credentials: 'keyring',
  secrets_in_file: false,
  credentials_notice_dismissed: false,
  has_books: false,
  error: null,
};

export function server(id: number, name: string, url = `https://${name.toLowerCase()}.example.org/opds`, username: string | null = null): Server {
  return { id, name, url, username, min_interval_ms: 0, created_at_ms: 1_700_000_000_000, paused_reason: null, trust_self_signed: false, api_key: false };
}

export function status(bookId: number, state: BookState = 'remote', parts: Partial<BookStatus> = {}): BookStatus {
  const base = {
    stored_parts: state === 'stored' ? 10 : 0,
    total_parts: 10,
    bytes: 0,
    book_id: bookId,
    title: `Book ${bookId}`,
  };
  // A failed book always comes with its reason (none said here).
  const shaped: BookStatus = state === 'failed' ? { ...base, state, reason: '' } : { ...base, state };
  return { ...shaped, ...parts } as BookStatus;
}

export function book(id: number, overrides: Partial<BookItem> = {}): BookItem {
  const format = overrides.format ?? 'comic';
  return {
    type: 'book',
    reader: format === 'epub' ? 'epub' : format === 'pdf' ? 'pdf' : format === 'other' ? 'other' : 'comic',
    not_streamable: null,
    book_id: id,
    title: `Book ${id}`,
    authors: ['Ada Lovelace'],
    format: 'comic',
    page_count: 10,
    file_type: 'application/x-cbz',
    file_length: 12_000_000,
    series: null,
    series_index: null,
    summary: null,
    has_cover: true,
    status: status(id),
    read: false,
    ...overrides,
  };
}

export function nav(title: string, href = `/opds/${title.toLowerCase().replace(/\s+/g, '-')}`): NavigationItem {
  return { type: 'navigation', title, href, summary: null };
}

export function feed(entries: CatalogItem[], overrides: Partial<CatalogView> = {}): CatalogView {
  return {
    server_id: 1,
    title: 'Catalog',
    feed_url: '/opds',
    entries,
    next: null,
    previous: null,
    searchable: true,
    facets: [],
    offline: false,
    fetched_at_ms: Date.now(),
    ...overrides,
  };
}

/** A book of "On this device", its status `bookStatus`. */
export function deviceBook(bookStatus: BookStatus, overrides: Partial<DeviceBook> = {}): DeviceBook {
  return {
    book_id: bookStatus.book_id,
    server_id: 1,
    title: bookStatus.title,
    authors: [],
    series: null,
    series_index: null,
    format: 'comic',
    read_state: 'unread',
    added_ms: 0,
    last_read_ms: null,
    status: bookStatus,
    ...overrides,
  };
}

/** "On this device" listing `books`, all of the device's books. */
export function deviceLibrary(books: DeviceBook[], overrides: Partial<DeviceLibrary> = {}): DeviceLibrary {
  return {
    books,
    total: books.length,
    sources: books.length > 0 ? [{ server_id: 1, name: 'Attic', device: false, books: books.length }] : [],
    ...overrides,
  };
}

export function details(id: number, overrides: Partial<BookDetails> = {}): BookDetails {
  const format = overrides.format ?? 'comic';
  return {
    reader: format === 'epub' ? 'epub' : format === 'pdf' ? 'pdf' : 'comic',
    book_id: id,
    server_id: 1,
    server_name: 'Attic',
    title: `Book ${id}`,
    authors: ['Ada Lovelace'],
    series: null,
    series_index: null,
    summary: null,
    format: 'comic',
    page_count: 10,
    file_type: 'application/x-cbz',
    file_length: 12_000_000,
    pinned: false,
    last_page: null,
    text_place: null,
    last_opened_ms: null,
    read: false,
    has_cover: true,
    status: status(id),
    archive_comic: false,
    ...overrides,
  };
}

export function downloadsView(overrides: Partial<DownloadsView> = {}): DownloadsView {
  return {
    paused: false,
    executor: { holder: 'carrel-1', this_process: true, state: 'idle' },
    active: null,
    queue: [],
    failed: [],
    done: [],
    library_revision: 'r0',
    stored_lately: [],
    network_hold: null,
    metered_downloads: 'ask',
    ...overrides,
  };
}

type Args = Record<string, unknown>;
type Answer = ((args: Args) => unknown) | object | string | number | boolean | null;

/**
 * Makes `invoke` answer from `answers` (a value, or a function of the arguments; a function
 * may throw to reject). Commands not listed reject, so a test sees what it did not expect.
 */
export function backend(answers: Record<string, Answer>): void {
  invoke.mockImplementation(async (command: string, args?: Record<string, unknown>) => {
    if (!(command in answers)) throw `unexpected command ${command}`;
    const answer = answers[command];
    return typeof answer === 'function' ? await (answer as (a: Args) => unknown)(args ?? {}) : answer;
  });
}

/**
 * An answer that fails with `error` until `mend` is called, and gives `answer` after: for a
 * failure the reader then tries again.
 */
export function failingUntilMended(error: unknown, answer: unknown): { answer: () => unknown; mend: () => void } {
  let failing = true;
  return {
    answer: () => {
      if (failing) throw error;
      return answer;
    },
    mend: () => {
      failing = false;
    },
  };
}
