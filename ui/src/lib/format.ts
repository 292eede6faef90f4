/**
 * How numbers read in the interface: sizes, rates, percentages, times left, page counts,
 * where the reader is in a book, and series numbers. Pure functions, so every view says the same thing the same way.
 */

import type { BookReader, TextPlace } from './ipc';
import { i18n, t } from './i18n.svelte';

/** Decimal units, as `Intl` names them: written "kB", "MB"… in English, "ko", "Mo"… in French. */
const UNITS = ['kilobyte', 'megabyte', 'gigabyte', 'terabyte'] as const;

/**
 * One `Intl` formatter per locale and kind, made the first time it is needed: making one costs
 * far more than using it, and a grid scrolling through a library formats a size for every tile
 * it brings in.
 */
const formatters = new Map<string, Intl.NumberFormat | Intl.RelativeTimeFormat | Intl.DateTimeFormat>();

function formatter<F extends Intl.NumberFormat | Intl.RelativeTimeFormat | Intl.DateTimeFormat>(
  kind: string,
  make: (locale: string) => F,
): F {
  const key = `${i18n.locale} ${kind}`;
  let found = formatters.get(key) as F | undefined;
  if (!found) {
    found = make(i18n.locale);
    formatters.set(key, found);
  }
  return found;
}

function decimal(value: number, digits: number): string {
  return formatter(`decimal:${digits}`, (locale) =>
    new Intl.NumberFormat(locale, { maximumFractionDigits: digits, minimumFractionDigits: 0 }),
  ).format(value);
}

/**
 * A size in bytes as people read it in file managers (decimal units): "512 bytes", "1.4 MB",
 * "12 MB", "3.2 GB". One decimal below ten, none above. `null` or a negative size is "—".
 */
export function formatBytes(bytes: number | null | undefined): string {
  if (bytes === null || bytes === undefined || !Number.isFinite(bytes) || bytes < 0) return '—';
  if (bytes < 1000) return t('format-bytes', { count: Math.round(bytes) });
  let value = bytes;
  let unit = 0;
  value /= 1000;
  // Round first, so 999.95 kB reads "1 MB", not "1000 kB".
  while (unit < UNITS.length - 1 && Number((value < 10 ? value.toFixed(1) : value.toFixed(0))) >= 1000) {
    value /= 1000;
    unit++;
  }
  const digits = value < 10 ? 1 : 0;
  const name = UNITS[unit];
  return formatter(`unit:${name}:${digits}`, (locale) =>
    new Intl.NumberFormat(locale, {
      style: 'unit',
      unit: name,
      maximumFractionDigits: digits,
      minimumFractionDigits: 0,
    }),
  ).format(value);
}

/** A transfer rate: "1.2 MB/s". */
export function formatRate(bytesPerSecond: number | null | undefined): string {
  if (bytesPerSecond === null || bytesPerSecond === undefined || !Number.isFinite(bytesPerSecond) || bytesPerSecond < 0) {
    return '—';
  }
  return t('format-rate', { size: formatBytes(bytesPerSecond) });
}

/**
 * How much of something is done, as a whole percentage rounded down (so a task only reads
 * 100 % once it is complete). `null` when the whole is unknown.
 */
export function percentOf(done: number, total: number | null | undefined): number | null {
  if (total === null || total === undefined || !Number.isFinite(total) || total <= 0) return null;
  if (!Number.isFinite(done) || done <= 0) return 0;
  if (done >= total) return 100;
  return Math.min(99, Math.floor((done / total) * 100));
}

/** "42 %" (with a space, as the app writes percentages everywhere). */
export function formatPercent(percent: number): string {
  return t('format-percent', { percent: Math.round(percent) });
}

/** What {@link formatReadingPlace} reads of a book. */
export interface ReadingPlaceOf {
  reader: BookReader;
  last_page: number | null;
  page_count: number | null;
  text_place?: TextPlace | null;
}

/**
 * Where the reader is in a book, as a person says it: an EPUB (reflowable text, where a page
 * number means nothing) by how much is read and its chapter, "96 % · Chapter 4"; a comic or a
 * PDF by its page, "Page 8 of 24". `null` when the book was never read that far.
 */
export function formatReadingPlace(book: ReadingPlaceOf): string | null {
  if (book.reader === 'epub') {
    const place = book.text_place;
    if (!place) return null;
    const percent = formatPercent(Math.min(1, Math.max(0, place.fraction)) * 100);
    const chapter = place.chapter?.trim();
    return chapter ? t('format-place-chapter', { percent, chapter }) : percent;
  }
  if (book.last_page === null) return null;
  return book.page_count
    ? t('format-page-of', { page: book.last_page + 1, total: book.page_count })
    : t('format-page', { page: book.last_page + 1 });
}

/**
 * Time left, roughly: "a few seconds left", "less than a minute left", "about 4 min left",
 * "about 2 h 5 min left". `null`, negative or absurd values give `null` (nothing to say).
 */
export function formatEta(seconds: number | null | undefined): string | null {
  if (seconds === null || seconds === undefined || !Number.isFinite(seconds) || seconds < 0) return null;
  if (seconds < 10) return t('format-eta-seconds');
  if (seconds < 60) return t('format-eta-under-minute');
  const minutes = Math.round(seconds / 60);
  if (minutes < 60) return t('format-eta-minutes', { minutes });
  const hours = Math.floor(minutes / 60);
  const rest = minutes % 60;
  if (hours >= 48) return t('format-eta-days', { days: Math.round(hours / 24) });
  return rest === 0 ? t('format-eta-hours', { hours }) : t('format-eta-hours-minutes', { hours, minutes: rest });
}

/** A series number without needless decimals: 3 → "3", 3.5 → "3.5". */
export function formatSeriesIndex(index: number): string {
  return Number.isInteger(index) ? String(index) : decimal(index, 2);
}

/** "Saga #3", "Saga", or `null` when the book is not in a series. */
export function formatSeries(series: string | null | undefined, index: number | null | undefined): string | null {
  const name = series?.trim() ?? '';
  if (name === '') return null;
  return index === null || index === undefined || !Number.isFinite(index)
    ? name
    : t('format-series', { series: name, index: formatSeriesIndex(index) });
}

/** "Ada Lovelace", "Ada Lovelace and Charles Babbage", "A, B and C". */
export function formatAuthors(authors: readonly string[]): string {
  const names = authors.map((a) => a.trim()).filter((a) => a !== '');
  if (names.length <= 1) return names[0] ?? '';
  return t('format-authors', { first: names.slice(0, -1).join(', '), last: names[names.length - 1] });
}

/** "1 page", "240 pages", or `null` when unknown. */
export function formatPages(count: number | null | undefined): string | null {
  if (count === null || count === undefined || !Number.isFinite(count) || count <= 0) return null;
  return t('format-pages', { count });
}

/** The word shown for a book's format: "Comic", "EPUB", "PDF", "Book". */
export function formatName(format: string | null | undefined): string {
  switch (format) {
    case 'comic':
      return t('format-name-comic');
    case 'epub':
      return 'EPUB';
    case 'pdf':
      return 'PDF';
    default:
      return t('format-name-book');
  }
}

/** A file type as a short label: "application/epub+zip" → "EPUB", "image/cbz" → "CBZ". */
export function fileTypeLabel(fileType: string | null | undefined): string | null {
  if (!fileType) return null;
  const type = fileType.toLowerCase().split(';')[0].trim();
  const known: Record<string, string> = {
    'application/epub+zip': 'EPUB',
    'application/pdf': 'PDF',
    'application/x-cbz': 'CBZ',
    'application/vnd.comicbook+zip': 'CBZ',
    'application/x-cbr': 'CBR',
    'application/vnd.comicbook-rar': 'CBR',
    'application/x-cb7': 'CB7',
    'application/x-mobipocket-ebook': 'MOBI',
    'application/vnd.amazon.ebook': 'AZW',
    'application/x-mobi8-ebook': 'AZW3',
    'image/vnd.djvu': 'DJVU',
    'image/x-djvu': 'DJVU',
    'application/x-fictionbook+xml': 'FB2',
    'application/zip': 'ZIP',
  };
  if (known[type]) return known[type];
  const sub = type.split('/')[1] ?? type;
  const short = sub.replace(/^x-/, '').replace(/\+.*$/, '');
  return short === '' ? null : short.toUpperCase().slice(0, 8);
}

/**
 * How long ago something happened, for "last seen" lines: "just now", "5 minutes ago",
 * "yesterday", or a date.
 */
export function formatAgo(thenMs: number, nowMs: number = Date.now()): string {
  const seconds = Math.max(0, Math.round((nowMs - thenMs) / 1000));
  if (seconds < 60) return t('format-ago-now');
  const relative = formatter('relative', (locale) => new Intl.RelativeTimeFormat(locale, { numeric: 'auto' }));
  const minutes = Math.round(seconds / 60);
  if (minutes < 60) return relative.format(-minutes, 'minute');
  const hours = Math.round(minutes / 60);
  if (hours < 24) return relative.format(-hours, 'hour');
  const days = Math.round(hours / 24);
  if (days < 7) return relative.format(-days, 'day');
  const date = formatter('date', (locale) => new Intl.DateTimeFormat(locale, { dateStyle: 'medium' })).format(
    new Date(thenMs),
  );
  return t('format-ago-date', { date });
}

/**
 * A catalog summary, tidied for display. The core sends summaries as plain text (feeds' HTML is
 * turned into text there, once, by one set of rules), so nothing here is parsed as markup: text
 * that reads `<b>` shows `<b>`. Only whitespace is tidied: runs of spaces shrink to one and
 * runs of blank lines to one.
 */
export function plainText(summary: string | null | undefined): string {
  if (!summary) return '';
  return summary
    .replace(/\r\n?/g, '\n')
    .replace(/[ \t\f\v]+/g, ' ')
    .replace(/ *\n */g, '\n')
    .replace(/\n{3,}/g, '\n\n')
    .trim();
}
