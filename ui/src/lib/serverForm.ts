/**
 * The rules of the "Add server" form, kept free of the DOM so they can be tested alone.
 * They mirror the checks the Rust side makes again when the server is saved.
 */
import type { AddServerInput, Server, UpdateServerInput } from './ipc';
import { t } from './i18n.svelte';

/** The longest name the library accepts, in characters. */
export const MAX_NAME_CHARS = 80;

/** The longest pause between two requests to a server the library accepts, in milliseconds. */
export const MAX_INTERVAL_MS = 60_000;

/** The example address shown in the form and in error messages. */
export const EXAMPLE_URL = 'https://books.example.org/opds';

/** `host[:port][/path]` typed without a scheme. */
const LOOKS_LIKE_BARE_HOST = /^(?:[a-z0-9-]+\.)*[a-z0-9-]+(?::\d+)?(?:[/?#]|$)/i;

/**
 * Checks a server's address as typed. Returns a message for the reader, or `null` when the
 * address is usable: a catalog's URL, a web address, or just a host or host:port (Carrel finds
 * the catalog from there when saving) — http or https, naming a host, with no username or
 * password (those have their own fields).
 */
export function validateCatalogUrl(raw: string): string | null {
  const text = raw.trim();
  if (text === '') {
    return t('server-form-url-missing');
  }
  const missingScheme = !text.includes('://') && LOOKS_LIKE_BARE_HOST.test(text);
  let url: URL;
  try {
    // A bare host (`nas:9810`, `books.example.org/opds`) is checked as the http address
    // Carrel tries first.
    url = new URL(missingScheme ? `http://${text}` : text);
  } catch {
    return missingScheme
      ? t('server-form-url-scheme', { example: EXAMPLE_URL })
      : t('server-form-url-invalid', { example: EXAMPLE_URL });
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    return missingScheme
      ? t('server-form-url-scheme', { example: EXAMPLE_URL })
      : t('server-form-url-protocol', { protocol: url.protocol });
  }
  if (url.hostname === '') {
    return t('server-form-url-no-host');
  }
  if (url.username !== '' || url.password !== '') {
    return t('server-form-url-credentials');
  }
  return null;
}

/**
 * Checks a server's name. Returns a message for the reader, or `null` when it is fine. A new
 * server may go without one (`optional`): it takes its catalog's title, else its host.
 */
export function validateName(raw: string, { optional = false }: { optional?: boolean } = {}): string | null {
  const name = raw.trim();
  if (name === '') return optional ? null : t('server-form-name-missing');
  if ([...name].length > MAX_NAME_CHARS) return t('server-form-name-too-long', { max: MAX_NAME_CHARS });
  return null;
}

/**
 * Checks the pause between requests as typed (milliseconds). Returns a message for the
 * reader, or `null` when it is a whole number from 0 to {@link MAX_INTERVAL_MS}.
 */
export function validateInterval(raw: string): string | null {
  const text = raw.trim();
  if (text === '') return t('server-form-interval-missing');
  if (!/^\d+$/.test(text)) return t('server-form-interval-invalid');
  if (Number(text) > MAX_INTERVAL_MS) return t('server-form-interval-too-long', { max: String(MAX_INTERVAL_MS) });
  return null;
}

/** The pause as a number, for a value {@link validateInterval} accepted (else 0). */
export function parseInterval(raw: string): number {
  const text = raw.trim();
  return /^\d+$/.test(text) ? Math.min(Number(text), MAX_INTERVAL_MS) : 0;
}

function isIpOrLocal(hostname: string): boolean {
  return hostname === 'localhost' || hostname.startsWith('[') || /^\d{1,3}(?:\.\d{1,3}){3}$/.test(hostname);
}

/**
 * A name to offer for a server from its address: the host without a leading `www.`, with the
 * port when the host is only an IP address or `localhost`. Empty when the address is unusable.
 */
export function suggestName(raw: string): string {
  if (validateCatalogUrl(raw) !== null) return '';
  const text = raw.trim();
  let url: URL;
  try {
    // A bare host (`nas:9810`) is read as the http address Carrel tries first.
    url = new URL(!text.includes('://') && LOOKS_LIKE_BARE_HOST.test(text) ? `http://${text}` : text);
  } catch {
    return '';
  }
  const host = url.hostname.replace(/^www\./i, '');
  if (isIpOrLocal(url.hostname) && url.port !== '') return `${host}:${url.port}`;
  return host;
}

/** Whether two catalog addresses are the same catalog (a trailing slash aside). */
export function sameCatalog(a: string, b: string): boolean {
  const strip = (u: string) => u.trim().replace(/\/+$/, '');
  return strip(a) === strip(b);
}

/** The host (and port, if any) of a saved server's address, for compact listings. */
export function displayHost(raw: string): string {
  try {
    return new URL(raw).host || raw;
  } catch {
    return raw;
  }
}

/** What the form holds. */
export interface ServerFormValues {
  name: string;
  url: string;
  username: string;
  password: string;
  /** The pause between requests as typed, in milliseconds. */
  interval: string;
  trustSelfSigned: boolean;
  /** The password field holds an API key (Komga's; sent as `X-API-Key`, no username). */
  apiKey: boolean;
}

/** A new server's form: no pause between requests, certificates checked. */
export function emptyServerForm(): ServerFormValues {
  return { name: '', url: '', username: '', password: '', interval: '0', trustSelfSigned: false, apiKey: false };
}

/** The command input for the form's values: trimmed, with empty optional fields as `null`. */
export function toAddServerInput(values: ServerFormValues): Required<Omit<AddServerInput, 'acceptCatalog'>> {
  // An API key signs in alone.
  const username = values.apiKey ? '' : values.username.trim();
  return {
    name: values.name.trim(),
    url: values.url.trim(),
    username: username === '' ? null : username,
    // A password is taken as typed: spaces may be part of it.
    password: values.password === '' ? null : values.password,
    minIntervalMs: parseInterval(values.interval),
    trustSelfSigned: values.trustSelfSigned,
    apiKey: values.apiKey,
  };
}

/** The form's values for a saved server; the password is never read back, so it starts empty. */
export function serverFormValues(server: Server): ServerFormValues {
  return {
    name: server.name,
    url: server.url,
    username: server.username ?? '',
    password: '',
    interval: String(server.min_interval_ms),
    trustSelfSigned: server.trust_self_signed,
    apiKey: server.api_key ?? false,
  };
}

/**
 * The command input for the "Edit server" form: an empty password keeps the saved one; no
 * username means no sign-in, and then the saved password is forgotten too.
 */
export function toUpdateServerInput(values: ServerFormValues): UpdateServerInput {
  const { name, url, username, password, minIntervalMs, trustSelfSigned, apiKey } = toAddServerInput(values);
  return {
    name,
    url,
    username,
    password: username === null && !apiKey ? '' : password,
    minIntervalMs,
    trustSelfSigned,
    apiKey,
  };
}

/** How many unread books of each series read a server's default keeps ahead; 0 is "off". */
export const SERIES_AHEAD = [0, 1, 2, 3, 5, 10];

/** Days after a book is finished that it is removed; `null` keeps it. */
export const SERIES_REMOVE_AFTER: Array<number | null> = [null, 0, 1, 7, 30];

/** The words for keeping `n` books ahead in the server's "Series" field. */
export function seriesAheadLabel(n: number): string {
  if (n === 0) return t('server-form-series-off');
  return t('server-form-series-next', { count: n });
}

/** The words for removing finished books `days` after (`null`: never) in the "Series" field. */
export function seriesRemoveAfterLabel(days: number | null): string {
  switch (days) {
    case null:
      return t('server-form-series-stay');
    case 0:
      return t('server-form-series-remove-read');
    default:
      return t('server-form-series-remove-after', { days });
  }
}

/**
 * The choices of the "Series" field: the usual ones, and the saved value too when it is not one
 * of them (set elsewhere, as `carrel-cli series default` may), so it is shown as it is.
 */
export function seriesAheadChoices(saved: number): number[] {
  return SERIES_AHEAD.includes(saved) ? SERIES_AHEAD : [...SERIES_AHEAD, saved].sort((a, b) => a - b);
}

/** As {@link seriesAheadChoices}, for the days after which finished books are removed. */
export function seriesRemoveAfterChoices(saved: number | null): Array<number | null> {
  if (SERIES_REMOVE_AFTER.includes(saved)) return SERIES_REMOVE_AFTER;
  return [...SERIES_REMOVE_AFTER, saved];
}
