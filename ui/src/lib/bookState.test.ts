import { describe, expect, it } from 'vitest';
import { bookBadge, bookPercent, isInProgress } from './bookState';
import type { ActiveDownload, BookStatus } from './ipc';

function status(state: BookStatus['state'], stored = 0, total = 40, extra: Partial<BookStatus> = {}): BookStatus {
  // A failed book's reason, when a test gives none, is empty.
  const reason = state === 'failed' ? { reason: '' } : {};
  return { state, ...reason, stored_parts: stored, total_parts: total, bytes: 0, book_id: 7, title: 'Saga', ...extra } as BookStatus;
}

function active(extra: Partial<ActiveDownload> = {}): ActiveDownload {
  // Without a status of its own: what the badge knows of the book stands.
  return { book_id: 7, title: 'Saga', kind: 'file', position: 0, bytes: 0, total: null, rate_bytes_per_s: null, eta_s: null, ...extra } as ActiveDownload;
}

describe('bookBadge', () => {
  it('says the words the window tests look for', () => {
    expect(bookBadge(status('remote')).label).toBe('Remote');
    expect(bookBadge(status('downloading', 17, 40)).label).toBe('Downloading 42 %');
    expect(bookBadge(status('stored', 40, 40)).label).toBe('On device');
    expect(bookBadge(status('failed', 0, 40, { reason: 'HTTP 404' })).label).toBe('Failed');
  });

  it('keeps the reason of a failure', () => {
    expect(bookBadge(status('failed', 3, 40, { reason: 'the server answered 404' })).reason).toBe('the server answered 404');
    expect(bookBadge(status('failed', 3, 40, { reason: '  ' })).reason).toBe('the download failed');
  });

  it('shows what a waiting book already has', () => {
    expect(bookBadge(status('queued')).label).toBe('Queued');
    expect(bookBadge(status('queued', 10, 40)).label).toBe('Queued · 25 %');
  });

  it('measures a one-file book by the bytes of its file in flight', () => {
    const file = status('downloading', 0, 1);
    expect(bookBadge(file, active({ bytes: 5_000_000, total: 10_000_000 })).label).toBe('Downloading 50 %');
    // Someone else's file says nothing about this book.
    expect(bookBadge(file, active({ book_id: 8, bytes: 5_000_000, total: 10_000_000 })).label).toBe('Downloading 0 %');
    // Unknown total: fall back on the parts.
    expect(bookPercent(file, active({ bytes: 5_000_000, total: null }))).toBe(0);
  });

  it('measures a paged book by its pages, whatever the page in flight', () => {
    expect(bookPercent(status('downloading', 20, 40), active({ kind: 'page', bytes: 1, total: 2 }))).toBe(50);
  });

  it('is complete only when stored', () => {
    expect(bookPercent(status('stored', 40, 40))).toBe(100);
    expect(bookPercent(status('downloading', 39, 40))).toBe(97);
    expect(bookPercent(status('remote', 0, 0))).toBeNull();
  });
});

describe('isInProgress', () => {
  it('is true while waiting or downloading', () => {
    expect(isInProgress('queued')).toBe(true);
    expect(isInProgress('downloading')).toBe(true);
    expect(isInProgress('stored')).toBe(false);
    expect(isInProgress('failed')).toBe(false);
    expect(isInProgress('remote')).toBe(false);
  });
});
