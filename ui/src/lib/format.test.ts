import { describe, expect, it } from 'vitest';
import {
  fileTypeLabel,
  formatAgo,
  formatAuthors,
  formatBytes,
  formatEta,
  formatName,
  formatPages,
  formatPercent,
  formatRate,
  formatReadingPlace,
  formatSeries,
  percentOf,
  plainText,
} from './format';
import { i18n } from './i18n.svelte';

describe('formatBytes', () => {
  it('uses decimal units, one decimal below ten', () => {
    expect(formatBytes(0)).toBe('0 bytes');
    expect(formatBytes(1)).toBe('1 byte');
    expect(formatBytes(999)).toBe('999 bytes');
    expect(formatBytes(1000)).toBe('1 kB');
    expect(formatBytes(1500)).toBe('1.5 kB');
    expect(formatBytes(12_345)).toBe('12 kB');
    expect(formatBytes(1_400_000)).toBe('1.4 MB');
    expect(formatBytes(12_000_000)).toBe('12 MB');
    expect(formatBytes(3_210_000_000)).toBe('3.2 GB');
    expect(formatBytes(5e15)).toBe('5,000 TB');
  });

  it('rounds up into the next unit instead of showing 1000', () => {
    expect(formatBytes(999_950)).toBe('1 MB');
    expect(formatBytes(999_499)).toBe('999 kB');
  });

  it('has a dash for unknown sizes', () => {
    expect(formatBytes(null)).toBe('—');
    expect(formatBytes(undefined)).toBe('—');
    expect(formatBytes(-1)).toBe('—');
    expect(formatBytes(Number.NaN)).toBe('—');
  });
});

describe('formatRate', () => {
  it('is a size per second', () => {
    expect(formatRate(1_250_000)).toBe('1.3 MB/s');
    expect(formatRate(800)).toBe('800 bytes/s');
    expect(formatRate(null)).toBe('—');
  });
});

describe('percentOf and formatPercent', () => {
  it('rounds down so only a finished task reads 100', () => {
    expect(percentOf(0, 10)).toBe(0);
    expect(percentOf(42, 100)).toBe(42);
    expect(percentOf(1, 3)).toBe(33);
    expect(percentOf(999, 1000)).toBe(99);
    expect(percentOf(9_999_999, 10_000_000)).toBe(99);
    expect(percentOf(10, 10)).toBe(100);
    expect(percentOf(12, 10)).toBe(100);
  });

  it('says nothing when the whole is unknown', () => {
    expect(percentOf(5, null)).toBeNull();
    expect(percentOf(5, 0)).toBeNull();
    expect(percentOf(5, undefined)).toBeNull();
  });

  it('writes a space before the sign', () => {
    expect(formatPercent(42)).toBe('42 %');
    expect(formatPercent(0)).toBe('0 %');
  });
});

describe('formatEta', () => {
  it('is rough, as a time left should be', () => {
    expect(formatEta(3)).toBe('a few seconds left');
    expect(formatEta(45)).toBe('less than a minute left');
    expect(formatEta(60)).toBe('about 1 min left');
    expect(formatEta(4 * 60 + 20)).toBe('about 4 min left');
    expect(formatEta(59 * 60)).toBe('about 59 min left');
    expect(formatEta(3600)).toBe('about 1 h left');
    expect(formatEta(2 * 3600 + 5 * 60)).toBe('about 2 h 5 min left');
    expect(formatEta(3 * 24 * 3600)).toBe('about 3 days left');
  });

  it('has nothing to say without an estimate', () => {
    expect(formatEta(null)).toBeNull();
    expect(formatEta(undefined)).toBeNull();
    expect(formatEta(-5)).toBeNull();
    expect(formatEta(Number.POSITIVE_INFINITY)).toBeNull();
  });
});

describe('book facts', () => {
  it('writes series with their number', () => {
    expect(formatSeries('Saga', 3)).toBe('Saga #3');
    expect(formatSeries('Saga', 3.5)).toBe('Saga #3.5');
    expect(formatSeries('Saga', null)).toBe('Saga');
    expect(formatSeries('  ', 2)).toBeNull();
    expect(formatSeries(null, 2)).toBeNull();
  });

  it('joins authors', () => {
    expect(formatAuthors([])).toBe('');
    expect(formatAuthors(['Ada'])).toBe('Ada');
    expect(formatAuthors(['Ada', 'Charles'])).toBe('Ada and Charles');
    expect(formatAuthors(['A', ' ', 'B', 'C'])).toBe('A, B and C');
  });

  it('counts pages', () => {
    expect(formatPages(1)).toBe('1 page');
    expect(formatPages(240)).toBe('240 pages');
    expect(formatPages(null)).toBeNull();
    expect(formatPages(0)).toBeNull();
  });

  it('names formats and file types', () => {
    expect(formatName('comic')).toBe('Comic');
    expect(formatName('epub')).toBe('EPUB');
    expect(formatName('unknown')).toBe('Book');
    expect(fileTypeLabel('application/epub+zip')).toBe('EPUB');
    expect(fileTypeLabel('application/x-cbz')).toBe('CBZ');
    expect(fileTypeLabel('application/vnd.comicbook-rar; charset=binary')).toBe('CBR');
    expect(fileTypeLabel('application/x-foo')).toBe('FOO');
    expect(fileTypeLabel(null)).toBeNull();
  });
});

describe('formatAgo', () => {
  const now = Date.UTC(2026, 0, 10, 12);
  it('says how long ago, roughly', () => {
    expect(formatAgo(now - 20_000, now)).toBe('just now');
    expect(formatAgo(now - 60_000, now)).toBe('1 minute ago');
    expect(formatAgo(now - 5 * 60_000, now)).toBe('5 minutes ago');
    expect(formatAgo(now - 3 * 3600_000, now)).toBe('3 hours ago');
    expect(formatAgo(now - 26 * 3600_000, now)).toBe('yesterday');
    expect(formatAgo(now - 3 * 86_400_000, now)).toBe('3 days ago');
    expect(formatAgo(now - 30 * 86_400_000, now)).toMatch(/^on /);
    expect(formatAgo(now + 5000, now)).toBe('just now');
  });
});

describe('plainText', () => {
  it('keeps plain text as it is, tidied', () => {
    expect(plainText('  A quiet   book.\r\n\r\n\r\n\r\nSecond part. ')).toBe('A quiet book.\n\nSecond part.');
    expect(plainText(null)).toBe('');
  });

  it('shows text that reads like markup as it is: the core already made it plain text', () => {
    expect(plainText('a <b>bold</b> claim &amp; more')).toBe('a <b>bold</b> claim &amp; more');
    expect(plainText('<img src=x onerror="window.__pwned = 1">')).toBe('<img src=x onerror="window.__pwned = 1">');
    expect((window as unknown as { __pwned?: number }).__pwned).toBeUndefined();
  });
});

describe('formatReadingPlace', () => {
  const comic = { reader: 'comic' as const, last_page: 7, page_count: 24, text_place: null };
  it('gives an EPUB its percentage and chapter, never a page', () => {
    const epub = { reader: 'epub' as const, last_page: 0, page_count: null };
    expect(formatReadingPlace({ ...epub, text_place: { fraction: 0.96, chapter: 'Chapter 4' } })).toBe('96 % · Chapter 4');
    expect(formatReadingPlace({ ...epub, text_place: { fraction: 1, chapter: null } })).toBe('100 %');
    expect(formatReadingPlace({ ...epub, text_place: { fraction: 0.004, chapter: '  ' } })).toBe('0 %');
    expect(formatReadingPlace({ ...epub, text_place: null })).toBeNull();
  });
  it('keeps pages for comics and PDFs', () => {
    expect(formatReadingPlace(comic)).toBe('Page 8 of 24');
    expect(formatReadingPlace({ ...comic, reader: 'pdf', page_count: null })).toBe('Page 8');
    expect(formatReadingPlace({ ...comic, last_page: null })).toBeNull();
  });
});

describe('in French', () => {
  /** French writes a narrow no-break space in numbers and before units; compared as plain spaces. */
  function spaced(text: string | null): string | null {
    return text === null ? null : text.replace(/[\u00a0\u202f]/g, ' ');
  }

  it('writes the same facts in French words and numbers', () => {
    i18n.choose('fr');
    try {
      expect(formatBytes(1)).toBe('1 octet');
      expect(formatBytes(999)).toBe('999 octets');
      expect(spaced(formatBytes(1500))).toBe('1,5 ko');
      expect(spaced(formatBytes(3_210_000_000))).toBe('3,2 Go');
      expect(spaced(formatBytes(5e15))).toBe('5 000 To');
      expect(spaced(formatRate(1_250_000))).toBe('1,3 Mo/s');
      expect(formatPercent(42)).toBe('42 %');
      expect(formatEta(45)).toBe('moins d’une minute restante');
      expect(formatEta(2 * 3600 + 5 * 60)).toBe('environ 2 h 5 min restantes');
      expect(formatEta(3 * 24 * 3600)).toBe('environ 3 jours restants');
      expect(formatPages(240)).toBe('240 pages');
      expect(formatAuthors(['A', 'B', 'C'])).toBe('A, B et C');
      expect(formatName('comic')).toBe('BD');
      expect(formatSeries('Saga', 3.5)).toBe('Saga nº 3,5');
      expect(formatReadingPlace({ reader: 'comic', last_page: 7, page_count: 24, text_place: null })).toBe('Page 8 sur 24');
      const now = Date.UTC(2026, 0, 10, 12);
      expect(formatAgo(now - 20_000, now)).toBe('à l’instant');
      expect(formatAgo(now - 5 * 60_000, now)).toBe('il y a 5 minutes');
      expect(formatAgo(now - 26 * 3600_000, now)).toBe('hier');
      expect(formatAgo(now - 30 * 86_400_000, now)).toMatch(/^le .*2025$/);
    } finally {
      i18n.choose('system');
    }
  });

  it('goes back to English with the system’s language', () => {
    expect(formatBytes(1500)).toBe('1.5 kB');
    expect(formatAuthors(['A', 'B'])).toBe('A and B');
  });
});
