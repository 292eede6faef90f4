import { beforeEach, describe, expect, it, vi } from 'vitest';
import { flushSync } from 'svelte';
import { fireEvent, render, screen, waitFor } from '@testing-library/svelte';
import userEvent from '@testing-library/user-event';

vi.mock('@tauri-apps/api/core', () => import('../test/tauri'));

import BookTile from './BookTile.svelte';
import { invoke } from '@tauri-apps/api/core';
import { backend, status } from '../test/fixtures';
import { resetStores } from '../test/stores';
import { details } from '../lib/stores/details.svelte';
import { toasts } from '../lib/stores/toasts.svelte';

function tile(read: boolean, onopen = vi.fn()) {
  render(BookTile, { bookId: 7, title: 'Book 7', status: status(7), read, hasCover: false, onopen });
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
    expect(screen.getByTestId('tile-read-badge').textContent?.trim()).toBe('Read');
    details.noteRead(7, false);
    flushSync();
    expect(screen.queryByTestId('tile-read-badge')).toBeNull();
  });

  it('marks a stored book over its cover, unless the list is of the books on this device, where only what is not whole is marked', () => {
    const marks = (state: 'stored' | 'downloading', markStored: boolean) => {
      const view = render(BookTile, { bookId: 7, title: 'Book 7', status: status(7, state), hasCover: false, markStored });
      const mark = screen.queryByTestId('tile-state-badge')?.dataset.state ?? null;
      view.unmount();
      return mark;
    };
    expect(marks('stored', true)).toBe('stored');
    expect(marks('stored', false)).toBeNull();
    expect(marks('downloading', false)).toBe('downloading');
  });

  describe('its menu', () => {
    beforeEach(() => {
      vi.mocked(invoke).mockReset();
      backend({ mark_book_read: null });
    });

    it('opens on a right click, marks the book read, and the Read mark shows at once', async () => {
      tile(false);
      const button = screen.getByTestId('catalog-book');
      await fireEvent.contextMenu(button, { clientX: 40, clientY: 60 });
      const menu = screen.getByRole('menu', { name: 'Actions for Book 7' });
      expect(menu.style.left).toBe('40px');
      const item = screen.getByRole('menuitem', { name: 'Mark as read' });
      expect(document.activeElement).toBe(item);
      await userEvent.setup().click(item);
      expect(vi.mocked(invoke)).toHaveBeenCalledWith('mark_book_read', { bookId: 7, read: true });
      await waitFor(() => expect(screen.queryByTestId('tile-read-badge')?.textContent?.trim()).toBe('Read'));
      expect(screen.queryByRole('menu')).toBeNull();
      expect(document.activeElement).toBe(button);
    });

    it('offers Mark as unread for a read book, from the menu key, with arrows and Esc', async () => {
      const onopen = vi.fn();
      tile(true, onopen);
      const user = userEvent.setup();
      const button = screen.getByTestId('catalog-book');
      button.focus();
      await user.keyboard('{ContextMenu}');
      expect(screen.getByRole('menuitem', { name: 'Mark as unread' })).toBe(document.activeElement);
      await user.keyboard('{ArrowDown}');
      expect(document.activeElement).toBe(screen.getByRole('menuitem', { name: 'Show details' }));
      await user.keyboard('{ArrowDown}');
      expect(document.activeElement).toBe(screen.getByRole('menuitem', { name: 'Mark as unread' }));
      await user.keyboard('{End}{Escape}');
      expect(screen.queryByRole('menu')).toBeNull();
      expect(document.activeElement).toBe(button);
      expect(onopen).not.toHaveBeenCalled();
      // Shift+F10 opens it too; Enter chooses.
      await user.keyboard('{Shift>}{F10}{/Shift}');
      await user.keyboard('{Enter}');
      expect(vi.mocked(invoke)).toHaveBeenCalledWith('mark_book_read', { bookId: 7, read: false });
      await waitFor(() => expect(screen.queryByTestId('tile-read-badge')).toBeNull());
    });

    it('marks the whole series of a book in one, every tile of it following at once', async () => {
      backend({ mark_series_read: { series: 'Saga', book_ids: [6, 7, 8] } });
      render(BookTile, { bookId: 7, title: 'Book 7', status: status(7), series: 'Saga', hasCover: false, onopen: vi.fn() });
      const user = userEvent.setup();
      screen.getByTestId('catalog-book').focus();
      await user.keyboard('{Shift>}{F10}{/Shift}{ArrowDown}');
      expect(document.activeElement).toBe(screen.getByRole('menuitem', { name: 'Mark series as read' }));
      expect(screen.getByRole('menuitem', { name: 'Mark series as unread' })).toBeTruthy();
      await user.keyboard('{Enter}');
      expect(vi.mocked(invoke)).toHaveBeenCalledWith('mark_series_read', { bookId: 7, read: true });
      await waitFor(() => expect(screen.queryByTestId('tile-read-badge')?.textContent?.trim()).toBe('Read'));
      expect(details.readOf(6, false) && details.readOf(8, false)).toBe(true);
    });

    it('offers no series marks for a book in no series', async () => {
      tile(false);
      await fireEvent.contextMenu(screen.getByTestId('catalog-book'), { clientX: 40, clientY: 60 });
      expect(screen.queryByRole('menuitem', { name: 'Mark series as read' })).toBeNull();
    });

    it('says so when the mark cannot be saved, and closes on a click elsewhere', async () => {
      backend({ mark_book_read: () => Promise.reject({ kind: 'storage', message: 'The library is busy' }) });
      tile(false);
      await fireEvent.contextMenu(screen.getByTestId('catalog-book'), { clientX: 5, clientY: 5 });
      await fireEvent.click(screen.getByRole('menuitem', { name: 'Mark as read' }));
      await waitFor(() => expect(toasts.list.map((t) => t.message)).toEqual(['Book 7 could not be marked: The library is busy']));
      expect(screen.queryByTestId('tile-read-badge')).toBeNull();
      await fireEvent.contextMenu(screen.getByTestId('catalog-book'), { clientX: 5, clientY: 5 });
      await fireEvent.pointerDown(document.body);
      expect(screen.queryByRole('menu')).toBeNull();
    });
  });
});
