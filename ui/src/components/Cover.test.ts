import { describe, expect, it, vi } from 'vitest';
import { fireEvent, render, screen } from '@testing-library/svelte';

vi.mock('@tauri-apps/api/core', () => import('../test/tauri'));

import Cover from './Cover.svelte';

describe('Cover', () => {
  it('loads lazily from the cover protocol, over a plain board', async () => {
    render(Cover, { bookId: 7, title: 'Saga', format: 'comic' });
    const cover = screen.getByTestId('book-cover');
    const img = cover.querySelector('img')!;
    expect(img.getAttribute('src')).toBe('carrel-cover://localhost/7');
    expect(img.getAttribute('loading')).toBe('lazy');
    expect(img.getAttribute('alt')).toBe('');
    expect(cover.dataset.state).toBe('loading');
    // No title laid out only to be taken away when the picture comes.
    expect(cover.querySelector('.placeholder')).toBeNull();
    expect(cover.textContent).not.toContain('Saga');

    await fireEvent.load(img);
    expect(cover.dataset.state).toBe('loaded');
    expect(cover.textContent).not.toContain('Saga');
  });

  it('keeps the placeholder when the cover is missing', async () => {
    render(Cover, { bookId: 8, title: 'Paper Girls', format: 'epub' });
    const cover = screen.getByTestId('book-cover');
    await fireEvent.error(cover.querySelector('img')!);
    expect(cover.dataset.state).toBe('placeholder');
    expect(cover.querySelector('img')).toBeNull();
    expect(cover.textContent).toContain('Paper Girls');
    expect(cover.textContent).toContain('EPUB');
  });

  it('asks for nothing when the book has no cover', () => {
    render(Cover, { bookId: 9, title: 'Untitled', hasCover: false });
    const cover = screen.getByTestId('book-cover');
    expect(cover.querySelector('img')).toBeNull();
    expect(cover.dataset.state).toBe('placeholder');
  });
});
