import { beforeEach, describe, expect, it, vi } from 'vitest';
import { flushSync } from 'svelte';
import { render, screen } from '@testing-library/svelte';

vi.mock('@tauri-apps/api/core', () => import('../test/tauri'));

import BookTile from './BookTile.svelte';
import { status } from '../test/fixtures';
import { resetStores } from '../test/stores';
import { details } from '../lib/stores/details.svelte';

function tile(read: boolean) {
  render(BookTile, { bookId: 7, title: 'Book 7', status: status(7), read, hasCover: false, onopen: vi.fn() });
}

describe('BookTile', () => {
  beforeEach(() => resetStores());

  it('marks a read book "Read", in words a screen reader says with the tile', () => {
    tile(true);
    const badge = screen.getByTestId('tile-read-badge');
    expect(badge.textContent?.trim()).toBe('Read');
    expect(screen.getByTestId('catalog-book').textContent).toContain('Read');
  });

  it('has no mark for a book not read', () => {
    tile(false);
    expect(screen.queryByTestId('tile-read-badge')).toBeNull();
  });

  it('follows a mark set in the details panel at once', () => {
    tile(false);
    details.noteRead(7, true);
    flushSync();
    expect(screen.getByTestId('tile-read-badge')).toBeTruthy();
    details.noteRead(7, false);
    flushSync();
    expect(screen.queryByTestId('tile-read-badge')).toBeNull();
  });
});
