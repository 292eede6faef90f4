/**
 * What a book's download state looks like to the reader: one of a few words, a percentage
 * while it is on its way, and the reason when it failed. Shared by every badge.
 */
import type { ActiveDownload, BookState, BookStatus } from './ipc';
import { formatPercent, percentOf } from './format';
import { t } from './i18n.svelte';

export interface BookBadge {
  state: BookState;
  /** What the badge says: "Remote", "Queued", "Downloading 42 %", "On device", "Failed". */
  label: string;
  /** How much is on the device, 0–100; `null` when there is nothing to measure. */
  percent: number | null;
  reason: string | null;
}

/**
 * How far along a book is. For a book fetched as one file (one part), the bytes of the file in
 * flight say more than its parts; for a book fetched page by page, the pages do.
 */
export function bookPercent(status: BookStatus, active: ActiveDownload | null = null): number | null {
  if (status.state === 'stored') return 100;
  const parts = percentOf(status.stored_parts, status.total_parts);
  if (active && active.book_id === status.book_id && active.kind === 'file' && status.total_parts <= 1) {
    const bytes = percentOf(active.bytes, active.total);
    if (bytes !== null) return bytes;
  }
  return parts;
}

export function bookBadge(status: BookStatus, active: ActiveDownload | null = null): BookBadge {
  const percent = bookPercent(status, active);
  switch (status.state) {
    case 'stored':
      return { state: 'stored', label: t('badge-stored'), percent: 100, reason: null };
    case 'downloading':
      return { state: 'downloading', label: t('badge-downloading', { percent: formatPercent(percent ?? 0) }), percent: percent ?? 0, reason: null };
    case 'queued':
      return {
        state: 'queued',
        label: percent ? t('badge-queued-percent', { percent: formatPercent(percent) }) : t('badge-queued'),
        percent: percent ?? 0,
        reason: null,
      };
    case 'failed':
      return { state: 'failed', label: t('badge-failed'), percent, reason: status.reason?.trim() || t('badge-reason-unknown') };
    default:
      return { state: 'remote', label: t('badge-remote'), percent: null, reason: null };
  }
}

/** True while the book has downloads waiting or running. */
export function isInProgress(state: BookState): boolean {
  return state === 'queued' || state === 'downloading';
}
