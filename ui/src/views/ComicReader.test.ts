import { beforeEach, describe, expect, it, vi } from 'vitest';
import { fireEvent, render, screen, waitFor } from '@testing-library/svelte';
import userEvent from '@testing-library/user-event';

vi.mock('@tauri-apps/api/core', () => import('../test/tauri'));

import ComicReader from './ComicReader.svelte';
import { invoke } from '@tauri-apps/api/core';
import { backend, details } from '../test/fixtures';
import { resetStores } from '../test/stores';
import { pageUrl } from '../lib/ipc';
import { reader } from '../lib/stores/reader.svelte';
import { router } from '../lib/stores/router.svelte';

const invokeMock = vi.mocked(invoke);

async function show() {
  render(ComicReader, { bookId: 12 });
  await waitFor(() => expect(reader.phase).toBe('ready'));
  return userEvent.setup();
}

function image(): HTMLImageElement {
  return screen.getByTestId('page-image') as HTMLImageElement;
}

beforeEach(() => {
  resetStores();
  invokeMock.mockReset();
  localStorage.clear();
  backend({ book_details: details(12, { title: 'Akira 1', page_count: 60, last_page: 40 }), open_book: null, save_position: null });
});

describe('ComicReader', () => {
  it('shows the last page read, says where it is, and turns pages with keys and the slider', async () => {
    const user = await show();
    expect(invokeMock).toHaveBeenCalledWith('open_book', { bookId: 12, page: 40 });
    expect(image().getAttribute('src')).toBe(pageUrl(12, 40));
    expect(screen.getByTestId('page-indicator').textContent?.trim()).toBe('Page 41 of 60');
    await user.keyboard('{ArrowRight}');
    expect(screen.getByTestId('page-indicator').textContent?.trim()).toBe('Page 42 of 60');
    expect(image().getAttribute('src')).toBe(pageUrl(12, 41));
    await user.keyboard('{End}');
    expect(reader.index).toBe(59);
    await user.keyboard('{Home}');
    expect(reader.index).toBe(0);
    await fireEvent.input(screen.getByTestId('page-slider'), { target: { value: '30' } });
    expect(screen.getByTestId('page-indicator').textContent?.trim()).toBe('Page 31 of 60');
  });

  it('reads manga from right to left', async () => {
    const user = await show();
    await user.click(screen.getByTestId('direction-rtl'));
    await user.keyboard('{ArrowLeft}');
    expect(reader.index).toBe(41);
    expect(screen.getByTestId('page-slider').getAttribute('dir')).toBe('rtl');
  });

  it('fits pages as chosen', async () => {
    const user = await show();
    const root = screen.getByTestId('comic-reader');
    expect(root.dataset.fit).toBe('width');
    for (const fit of ['height', 'screen', 'original', 'width']) {
      await user.click(screen.getByTestId(`fit-${fit}`));
      expect(root.dataset.fit).toBe(fit);
      expect(screen.getByTestId(`fit-${fit}`).getAttribute('aria-pressed')).toBe('true');
    }
  });

  it('says a page is offline and not downloaded, and asks again on Retry', async () => {
    const user = await show();
    expect(screen.getByTestId('page-loading')).toBeTruthy();
    await fireEvent.error(image());
    expect(screen.getByTestId('page-offline').textContent).toContain('page 41 is not on this device');
    await user.click(screen.getByTestId('page-retry'));
    expect(screen.queryByTestId('page-offline')).toBeNull();
    expect(screen.getByTestId('page-loading')).toBeTruthy();
    await fireEvent.load(image());
    expect(screen.queryByTestId('page-loading')).toBeNull();
  });

  it('shows two facing pages, the first on the right in manga order, and turns by spread', async () => {
    backend({ book_details: details(12, { title: 'Akira 1', page_count: 8, last_page: 1 }), open_book: null, save_position: null });
    const user = await show();
    await user.click(screen.getByTestId('layout-spread'));
    expect(screen.getByTestId('comic-reader').dataset.layout).toBe('spread');
    const shown = () => screen.getAllByTestId('page-image').map((img) => Number(img.dataset.pageIndex));
    expect(shown()).toEqual([1, 2]);
    expect(screen.getByTestId('page-indicator').textContent?.trim()).toBe('Pages 2–3 of 8');
    expect(screen.getByTestId('page-spread').classList.contains('rtl')).toBe(false);
    await user.click(screen.getByTestId('direction-rtl'));
    expect(screen.getByTestId('page-spread').classList.contains('rtl')).toBe(true);
    await user.keyboard('{ArrowLeft}');
    expect(shown()).toEqual([3, 4]);
    await user.keyboard('{Home}');
    expect(shown()).toEqual([0]);
    expect(screen.getByTestId('page-indicator').textContent?.trim()).toBe('Page 1 of 8');
  });

  it('previews the page under the slider while it moves', async () => {
    await show();
    expect(screen.queryByTestId('slider-thumbnail')).toBeNull();
    const slider = screen.getByTestId('page-slider');
    await fireEvent.input(slider, { target: { value: '12' } });
    const thumbnail = screen.getByTestId('slider-thumbnail');
    expect(thumbnail.getAttribute('src')).toBe(pageUrl(12, 12));
    await fireEvent.change(slider);
    expect(screen.queryByTestId('slider-thumbnail')).toBeNull();
  });

  it('stacks every page in the vertical strip, the indicator following the page in view', async () => {
    backend({ book_details: details(12, { title: 'Akira 1', page_count: 6, last_page: 2 }), open_book: null, save_position: null });
    const user = await show();
    await user.click(screen.getByTestId('layout-webtoon'));
    expect(screen.getByTestId('page-strip')).toBeTruthy();
    expect(screen.queryByTestId('page-stage')).toBeNull();
    await waitFor(() => expect(screen.getAllByTestId('strip-image')).toHaveLength(6));
    expect(screen.getAllByTestId('strip-image')[4].getAttribute('src')).toBe(pageUrl(12, 4));
    reader.scrolledTo(4);
    await waitFor(() => expect(screen.getByTestId('page-indicator').textContent?.trim()).toBe('Page 5 of 6'));
  });

  it('goes back to the library on Escape', async () => {
    router.go({ view: 'on-device' });
    const user = await show();
    await user.keyboard('{Escape}');
    expect(router.route).toEqual({ view: 'on-device' });
  });
});
