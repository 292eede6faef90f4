import { afterAll, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { fireEvent, render, screen, waitFor, within } from '@testing-library/svelte';
import userEvent from '@testing-library/user-event';
import { flushSync } from 'svelte';

vi.mock('@tauri-apps/api/core', () => import('../test/tauri'));

import ComicReader from './ComicReader.svelte';
import { invoke } from '@tauri-apps/api/core';
import { backend, details, status } from '../test/fixtures';
import { resetStores } from '../test/stores';
import { coverUrl, pageUrl, type SeriesNeighbour, type SeriesNeighbours } from '../lib/ipc';
import { reader } from '../lib/stores/reader.svelte';
import { router } from '../lib/stores/router.svelte';
import { toasts } from '../lib/stores/toasts.svelte';

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

  it('says Make default worked', async () => {
    const user = await show();
    await user.click(screen.getByTestId('direction-rtl'));
    await user.click(screen.getByTestId('reader-make-default'));
    expect(toasts.list.map((t) => t.message)).toEqual([
      'Books you have not set otherwise now open with these settings',
    ]);
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
    // A whole page on screen by default; width-fit stays a choice.
    expect(root.dataset.fit).toBe('screen');
    for (const fit of ['height', 'width', 'original', 'screen']) {
      await user.click(screen.getByTestId(`fit-${fit}`));
      expect(root.dataset.fit).toBe(fit);
      expect(screen.getByTestId(`fit-${fit}`).getAttribute('aria-pressed')).toBe('true');
    }
  });

  it('says a page is offline and not downloaded, and asks again on Retry', async () => {
    const user = await show();
    expect(screen.getByTestId('page-loading').textContent).toBe('Loading page 41…');
    await fireEvent.error(image());
    expect(screen.getByTestId('page-offline').textContent).toContain('page 41 is not on this device');
    await user.click(screen.getByTestId('page-retry'));
    expect(screen.queryByTestId('page-offline')).toBeNull();
    expect(screen.getByTestId('page-loading').textContent).toBe('Loading page 41…');
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

  it('shifts two facing pages by one from the tools, only in two-page layout', async () => {
    backend({ book_details: details(12, { title: 'Akira 1', page_count: 8, last_page: 3 }), open_book: null, save_position: null });
    const user = await show();
    expect(screen.queryByTestId('spread-offset')).toBeNull();
    await user.click(screen.getByTestId('layout-spread'));
    const shown = () => screen.getAllByTestId('page-image').map((img) => Number(img.dataset.pageIndex));
    expect(shown()).toEqual([3, 4]);
    const shift = screen.getByRole('button', { name: 'Shift pages' });
    expect(shift.getAttribute('aria-pressed')).toBe('false');
    await user.click(shift);
    expect(shift.getAttribute('aria-pressed')).toBe('true');
    expect(shown()).toEqual([2, 3]);
    expect(screen.getByTestId('comic-reader').dataset.offset).toBe('true');
    await user.keyboard('{Home}{ArrowRight}');
    expect(shown()).toEqual([1]);
  });

  it('adjusts brightness, contrast and warmth of the pages, resets them, and closes the panel on Esc', async () => {
    const user = await show();
    const root = screen.getByTestId('comic-reader');
    expect(root.style.getPropertyValue('--page-filter')).toBe('none');
    const toggle = screen.getByRole('button', { name: 'Adjust' });
    await user.click(toggle);
    expect(toggle.getAttribute('aria-expanded')).toBe('true');
    const panel = screen.getByRole('group', { name: 'Image adjustments' });
    expect(document.activeElement).toBe(screen.getByLabelText('Brightness'));
    await fireEvent.input(screen.getByLabelText('Brightness'), { target: { value: '120' } });
    await fireEvent.input(screen.getByLabelText('Contrast'), { target: { value: '90' } });
    await fireEvent.input(screen.getByLabelText('Warmth'), { target: { value: '50' } });
    expect(root.style.getPropertyValue('--page-filter')).toBe('brightness(1.2) contrast(0.9) sepia(0.3) hue-rotate(-5deg)');
    expect(panel.textContent).toContain('120 %');
    expect(toggle.getAttribute('aria-pressed')).toBe('true');
    await user.click(screen.getByRole('button', { name: 'Reset' }));
    expect(root.style.getPropertyValue('--page-filter')).toBe('none');
    (screen.getByLabelText('Warmth') as HTMLElement).focus();
    await user.keyboard('{Escape}');
    // Esc closes the panel only, not the reader.
    expect(screen.queryByTestId('adjust-panel')).toBeNull();
    expect(document.activeElement).toBe(toggle);
    expect(reader.bookId).toBe(12);
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
    screen.getByTestId('page-strip');
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

describe('ComicReader end of a book', () => {
  const neighbour = (id: number, number: number | null, parts: Partial<SeriesNeighbour> = {}): SeriesNeighbour => ({
    book_id: id,
    title: `Akira ${number ?? id}`,
    number,
    finished: false,
    on_device: false,
    status: status(id),
    ...parts,
  });

  /** Book 12 (Akira 2) of 10 pages at `lastPage`, between 11 and 13 unless told otherwise. */
  function series(lastPage: number, neighbours: Partial<SeriesNeighbours> = {}) {
    backend({
      book_details: ({ bookId }) =>
        bookId === 12
          ? details(12, { title: 'Akira 2', page_count: 10, last_page: lastPage })
          : details(bookId as number, { title: `Akira ${(bookId as number) - 10}`, page_count: 8, last_page: 3 }),
      open_book: null,
      save_position: null,
      take_server_position: null,
      series_neighbours: ({ bookId }) =>
        bookId === 12
          ? { series: 'Akira', previous: neighbour(11, 1, { on_device: true, status: status(11, 'stored') }), next: neighbour(13, 3, { status: status(13, 'downloading', { stored_parts: 4 }) }), ...neighbours }
          : { series: 'Akira', previous: null, next: null },
    });
  }

  const card = () => screen.queryByTestId('reader-end-card');

  it('shows the next book past the last page, opens it at its first page on the next turn, and closes on Esc or a turn back', async () => {
    series(9);
    const user = await show();
    await waitFor(() => expect(reader.neighbours).not.toBeNull());
    expect(card()).toBeNull();
    await user.keyboard('{ArrowRight}');
    const shown = screen.getByRole('dialog', { name: 'You finished Akira 2' });
    expect(shown.textContent).toContain('Next in Akira:');
    expect(screen.getByTestId('reader-end-book').textContent).toContain('Akira 3');
    expect(screen.getByTestId('reader-end-number').textContent).toBe('Number 3');
    expect(screen.getByTestId('reader-end-status').textContent).toBe('Downloading 40 %');
    expect(screen.getByTestId('reader-end-cover').getAttribute('src')).toBe(coverUrl(13));
    expect(document.activeElement).toBe(screen.getByRole('button', { name: 'Read Akira 3' }));
    expect(reader.index).toBe(9);
    await user.keyboard('{Escape}');
    expect(card()).toBeNull();
    expect(reader.index).toBe(9);
    expect(screen.getByTestId('page-indicator').textContent?.trim()).toBe('Page 10 of 10');
    await user.keyboard(' ');
    expect(card()).not.toBeNull();
    await user.keyboard('{ArrowLeft}');
    expect(card()).toBeNull();
    expect(reader.index).toBe(9);
    await user.keyboard('{PageDown}');
    await user.keyboard('{ArrowRight}');
    await waitFor(() => expect(reader.bookId).toBe(13));
    expect(router.route).toEqual({ view: 'reader', bookId: 13 });
    await waitFor(() => expect(reader.phase).toBe('ready'));
    expect(invokeMock).toHaveBeenCalledWith('open_book', { bookId: 13, page: 0 });
    expect(reader.index).toBe(0);
    expect(card()).toBeNull();
  });

  it('shows the end card past the last spread, and opens the next book with its button', async () => {
    series(8);
    const user = await show();
    await user.click(screen.getByTestId('layout-spread'));
    await user.keyboard('{ArrowRight}');
    expect(card()).toBeNull();
    expect(reader.shown).toContain(9);
    await user.keyboard('{ArrowRight}');
    expect(card()).not.toBeNull();
    await user.click(screen.getByRole('button', { name: 'Read Akira 3' }));
    await waitFor(() => expect(reader.bookId).toBe(13));
  });

  it('shows the previous book before the first page, and opens it at its last page', async () => {
    series(0);
    const user = await show();
    await user.keyboard('{ArrowLeft}');
    const shown = screen.getByRole('dialog', { name: 'The start of Akira 2' });
    expect(shown.textContent).toContain('Akira 1');
    expect(screen.getByTestId('reader-end-status').textContent).toBe('On this device');
    expect(document.activeElement).toBe(screen.getByRole('button', { name: 'Read Akira 1' }));
    // A turn forward closes the card, back on the first page; one more turn back opens #1.
    await user.keyboard('{ArrowRight}');
    expect(screen.queryByRole('dialog')).toBeNull();
    expect(reader.bookId).toBe(12);
    await user.keyboard('{ArrowLeft}');
    expect(screen.getByRole('dialog', { name: 'The start of Akira 2' })).toBeTruthy();
    await user.keyboard('{ArrowLeft}');
    await waitFor(() => expect(reader.bookId).toBe(11));
    await waitFor(() => expect(reader.phase).toBe('ready'));
    expect(invokeMock).toHaveBeenCalledWith('open_book', { bookId: 11, page: 7 });
    expect(reader.index).toBe(7);
  });

  it('says the series is done after its last book, and Back closes the reader', async () => {
    router.go({ view: 'on-device' });
    series(9, { next: null });
    const user = await show();
    await waitFor(() => expect(reader.neighbours).not.toBeNull());
    await user.keyboard('{End}{ArrowRight}');
    expect(screen.getByRole('dialog', { name: 'You finished Akira 2' }).textContent).toContain('That was the last book of Akira');
    expect(screen.queryByTestId('reader-end-read')).toBeNull();
    const back = screen.getByRole('button', { name: 'Back' });
    expect(document.activeElement).toBe(back);
    await user.keyboard('{ArrowRight}');
    expect(reader.bookId).toBe(12);
    await user.click(back);
    expect(router.route).toEqual({ view: 'on-device' });
  });

  it('gives the focus to the next book\'s button once its series is known', async () => {
    let answer: (value: SeriesNeighbours) => void = () => {};
    backend({
      book_details: details(12, { title: 'Akira 2', page_count: 5, last_page: 4 }),
      open_book: null,
      save_position: null,
      series_neighbours: () => new Promise((resolve) => (answer = resolve)),
    });
    const user = await show();
    await user.keyboard('{ArrowRight}');
    expect(document.activeElement).toBe(screen.getByRole('button', { name: 'Back' }));
    answer({ series: 'Akira', previous: null, next: neighbour(13, 3) });
    await waitFor(() => expect(document.activeElement).toBe(screen.getByRole('button', { name: 'Read Akira 3' })));
  });

  it('opens an EPUB offered by the card in the EPUB reader, not as pages', async () => {
    backend({
      book_details: ({ bookId }) =>
        bookId === 12
          ? details(12, { title: 'Akira 2', page_count: 5, last_page: 4 })
          : details(13, { title: 'Akira, the novel', format: 'epub', reader: 'epub' }),
      open_book: null,
      save_position: null,
      epub_position: null,
      series_neighbours: { series: 'Akira', previous: null, next: neighbour(13, 3) },
    });
    const user = await show();
    await waitFor(() => expect(reader.neighbours).not.toBeNull());
    await user.keyboard('{ArrowRight}');
    expect(card()).not.toBeNull();
    await user.keyboard('{ArrowRight}');
    await waitFor(() => expect(router.route).toEqual({ view: 'epub', bookId: 13 }));
    expect(invokeMock).not.toHaveBeenCalledWith('open_book', { bookId: 13, page: 0 });
  });

  it('shows a plain end card for a book in no known series', async () => {
    backend({ book_details: details(12, { title: 'Akira 1', page_count: 5, last_page: 4 }), open_book: null, save_position: null, series_neighbours: { series: null, previous: null, next: null } });
    const user = await show();
    await waitFor(() => expect(reader.neighbours).not.toBeNull());
    await user.keyboard('{ArrowRight}');
    const shown = screen.getByRole('dialog', { name: 'You finished Akira 1' });
    expect(shown.textContent).not.toContain('last book');
    expect(within(shown).getAllByRole('button').map((b) => b.textContent?.trim())).toEqual(['Back']);
  });
});

/** jsdom has no PointerEvent: a mouse event with the pointer's id and type. */
class TestPointerEvent extends MouseEvent {
  readonly pointerId: number;
  readonly pointerType: string;
  constructor(type: string, init: PointerEventInit = {}) {
    super(type, init);
    this.pointerId = init.pointerId ?? 1;
    this.pointerType = init.pointerType ?? 'mouse';
  }
}

function stage(): HTMLElement {
  return screen.getByTestId('page-stage');
}

function zoomShown(): string | undefined {
  return screen.getByTestId('zoom-reset').textContent?.trim();
}

/** An event on the stage at time `at` (ms); whether it was swallowed. */
function dispatchAt(event: Event, at: number, target: HTMLElement = stage()): boolean {
  Object.defineProperty(event, 'timeStamp', { value: at });
  target.dispatchEvent(event);
  return event.defaultPrevented;
}

function wheel(deltaY: number, at: number, extra: WheelEventInit = {}): boolean {
  return dispatchAt(new WheelEvent('wheel', { deltaY, bubbles: true, cancelable: true, clientX: 0, clientY: 0, ...extra }), at);
}

function pointer(type: string, pointerId: number, x: number, y: number, at: number, pointerType = 'touch'): void {
  dispatchAt(new TestPointerEvent(type, { pointerId, pointerType, clientX: x, clientY: y, button: 0, bubbles: true, cancelable: true }), at);
  flushSync();
}

/** Touch events in turn, each checking the zoom shown after it where one is given. */
function pinch(steps: [string, number, number, number, number, string?][]): void {
  for (const [type, pointerId, x, y, at, zoom] of steps) {
    pointer(type, pointerId, x, y, at);
    if (zoom !== undefined) expect(zoomShown(), `after ${type} of finger ${pointerId} at ${at} ms`).toBe(zoom);
  }
}

/** Lays the stage out 900×600 and the page image 400×600 in its middle, as a browser would. */
function layOut() {
  vi.spyOn(stage(), 'getBoundingClientRect').mockReturnValue(new DOMRect(0, 0, 900, 600));
  vi.spyOn(image(), 'getBoundingClientRect').mockReturnValue(new DOMRect(250, 0, 400, 600));
}

describe('ComicReader gestures', () => {
  const hadPointerEvent = 'PointerEvent' in window;

  beforeAll(() => {
    if (!hadPointerEvent) Object.defineProperty(window, 'PointerEvent', { value: TestPointerEvent, configurable: true, writable: true });
  });

  afterAll(() => {
    if (!hadPointerEvent) delete (window as { PointerEvent?: unknown }).PointerEvent;
  });

  async function showLoaded() {
    const user = await show();
    await fireEvent.load(image());
    return user;
  }

  it('turns one page per wheel notch when the page fits, and swallows the rest of a fling', async () => {
    await showLoaded();
    expect(wheel(100, 1000)).toBe(true);
    expect(reader.index).toBe(41);
    // The fling goes on: held, the new page stays.
    expect(wheel(40, 1100)).toBe(true);
    expect(wheel(40, 1300)).toBe(true);
    expect(reader.index).toBe(41);
    // A notch after the wheel was still: the previous page.
    expect(wheel(-100, 1600)).toBe(true);
    expect(reader.index).toBe(40);
    await waitFor(() => expect(screen.getByTestId('page-indicator').textContent?.trim()).toBe('Page 41 of 60'));
  });

  it('lets a tall page scroll with the wheel and turns it only from its bottom', async () => {
    await showLoaded();
    const view = stage();
    Object.defineProperty(view, 'clientHeight', { value: 600, configurable: true });
    Object.defineProperty(view, 'scrollHeight', { value: 1400, configurable: true });
    view.scrollTop = 0;
    expect(wheel(100, 1000)).toBe(false);
    expect(reader.index).toBe(40);
    // jsdom does not scroll by itself: the page is now at its bottom.
    view.scrollTop = 800;
    expect(wheel(100, 1050)).toBe(false); // the same gesture reached the edge
    expect(reader.index).toBe(40);
    expect(wheel(100, 1400)).toBe(true);
    expect(reader.index).toBe(41);
  });

  it('zooms with Ctrl+wheel about the pointer, shows the zoom, and lays the page out larger', async () => {
    await showLoaded();
    layOut();
    expect(zoomShown()).toBe('100 %');
    expect((screen.getByTestId('zoom-reset') as HTMLButtonElement).disabled).toBe(true);
    expect(wheel(-200, 1000, { ctrlKey: true, clientX: 450, clientY: 300 })).toBe(true);
    expect(zoomShown()).toBe('200 %');
    expect(screen.getByTestId('comic-reader').dataset.zoom).toBe('2');
    expect(stage().classList.contains('zoomed')).toBe(true);
    expect(image().style.getPropertyValue('--zoom-width')).toBe('800px');
    expect(image().style.getPropertyValue('--zoom-height')).toBe('1200px');
    // Zoomed, the wheel pans rather than turns.
    expect(wheel(100, 2000)).toBe(false);
    expect(reader.index).toBe(40);
    // Out again as far as the fit, and no further.
    wheel(400, 3000, { ctrlKey: true });
    expect(zoomShown()).toBe('100 %');
    expect(stage().classList.contains('zoomed')).toBe(false);
    expect(image().style.getPropertyValue('--zoom-width')).toBe('');
  });

  it('zooms with + = - 0 and the toolbar, and keeps the zoom on the next page', async () => {
    const user = await showLoaded();
    await user.keyboard('+');
    expect(zoomShown()).toBe('125 %');
    await user.keyboard('=');
    expect(zoomShown()).toBe('150 %');
    await user.keyboard('-');
    expect(zoomShown()).toBe('125 %');
    await user.keyboard('0');
    expect(zoomShown()).toBe('100 %');
    await user.click(screen.getByTestId('zoom-in'));
    await user.click(screen.getByTestId('zoom-in'));
    await user.click(screen.getByTestId('zoom-out'));
    expect(zoomShown()).toBe('125 %');
    for (let i = 0; i < 10; i++) await user.keyboard('+');
    expect(zoomShown()).toBe('500 %');
    expect((screen.getByTestId('zoom-in') as HTMLButtonElement).disabled).toBe(true);
    await user.click(screen.getByTestId('zoom-reset'));
    expect(zoomShown()).toBe('100 %');
    await user.keyboard('+');
    await user.keyboard('{ArrowRight}');
    expect(reader.index).toBe(41);
    expect(zoomShown()).toBe('125 %');
  });

  it('lays the next page out at the zoom the last one had, once it is here', async () => {
    const user = await showLoaded();
    layOut();
    await fireEvent.dblClick(stage(), { clientX: 450, clientY: 300 });
    expect(image().style.getPropertyValue('--zoom-width')).toBe('800px');
    await user.keyboard('{ArrowRight}');
    expect(reader.index).toBe(41);
    expect(image().getAttribute('src')).toBe(pageUrl(12, 41));
    // The new page is measured at its fit once it has loaded, then zoomed as the last one was.
    vi.spyOn(image(), 'getBoundingClientRect').mockReturnValue(new DOMRect(260, 0, 380, 600));
    await fireEvent.load(image());
    expect(zoomShown()).toBe('200 %');
    expect(stage().classList.contains('zoomed')).toBe(true);
    expect(image().style.getPropertyValue('--zoom-width')).toBe('760px');
    expect(image().style.getPropertyValue('--zoom-height')).toBe('1200px');
  });

  it('does not zoom a page still on its way, nor the vertical strip', async () => {
    const user = await show();
    await user.keyboard('+');
    expect(zoomShown()).toBe('100 %');
    expect((screen.getByTestId('zoom-in') as HTMLButtonElement).disabled).toBe(true);
    await user.click(screen.getByTestId('layout-webtoon'));
    expect(screen.queryByTestId('zoom-reset')).toBeNull();
  });

  it('toggles 2× with a double-click in the middle third, not on the sides', async () => {
    await showLoaded();
    layOut();
    await fireEvent.dblClick(stage(), { clientX: 100, clientY: 300 });
    expect(zoomShown()).toBe('100 %');
    await fireEvent.dblClick(stage(), { clientX: 450, clientY: 300 });
    expect(zoomShown()).toBe('200 %');
    await fireEvent.dblClick(stage(), { clientX: 450, clientY: 300 });
    expect(zoomShown()).toBe('100 %');
  });

  it('turns pages with a click on a side, but not with a drag', async () => {
    await showLoaded();
    layOut();
    await fireEvent.dblClick(stage(), { clientX: 450, clientY: 300 });
    expect(zoomShown()).toBe('200 %');
    // A drag of the zoomed page that ends over the right third pans; its click turns nothing.
    pointer('pointerdown', 1, 500, 300, 0, 'mouse');
    pointer('pointermove', 1, 700, 280, 50, 'mouse');
    expect(stage().classList.contains('dragging')).toBe(true);
    pointer('pointerup', 1, 700, 280, 100, 'mouse');
    await fireEvent.click(stage(), { clientX: 700, clientY: 280 });
    expect(reader.index).toBe(40);
    expect(stage().classList.contains('dragging')).toBe(false);
    // A press that barely moves is a click.
    pointer('pointerdown', 1, 700, 280, 200, 'mouse');
    pointer('pointermove', 1, 704, 283, 220, 'mouse');
    pointer('pointerup', 1, 704, 283, 240, 'mouse');
    await fireEvent.click(stage(), { clientX: 704, clientY: 283 });
    expect(reader.index).toBe(41);
    expect(zoomShown()).toBe('200 %');
  });

  it('turns towards the side a quick sideways swipe brings, in either reading direction', async () => {
    const user = await showLoaded();
    pointer('pointerdown', 7, 600, 300, 0);
    pointer('pointermove', 7, 500, 305, 60);
    pointer('pointerup', 7, 420, 310, 120);
    expect(reader.index).toBe(41);
    // The click after a swipe turns nothing more.
    await fireEvent.click(stage(), { clientX: 420, clientY: 310 });
    expect(reader.index).toBe(41);
    pointer('pointerdown', 7, 300, 300, 1000);
    pointer('pointerup', 7, 420, 300, 1100);
    expect(reader.index).toBe(40);
    await user.click(screen.getByTestId('direction-rtl'));
    pointer('pointerdown', 7, 600, 300, 2000);
    pointer('pointerup', 7, 420, 300, 2100);
    expect(reader.index).toBe(39);
  });

  it('does not take slow, short or upright strokes for swipes', async () => {
    await showLoaded();
    pointer('pointerdown', 7, 600, 300, 0);
    pointer('pointerup', 7, 420, 300, 700); // slow
    pointer('pointerdown', 7, 600, 300, 1000);
    pointer('pointerup', 7, 560, 300, 1100); // short
    pointer('pointerdown', 7, 600, 300, 2000);
    pointer('pointerup', 7, 500, 500, 2100); // mostly down
    // A mouse drawn across the page is no swipe either.
    pointer('pointerdown', 1, 600, 300, 3000, 'mouse');
    pointer('pointerup', 1, 420, 300, 3100, 'mouse');
    expect(reader.index).toBe(40);
  });

  it('zooms with a pinch, holds the zoom after, and settles on the fit when pinched back near it', async () => {
    await showLoaded();
    layOut();
    // Two fingers apart, then lifted: each step an event, its finger, where, when, and the zoom then shown (if looked at).
    pinch([['pointerdown', 1, 400, 300, 0], ['pointerdown', 2, 500, 300, 10], ['pointermove', 2, 550, 300, 20, '150 %'], ['pointermove', 1, 350, 300, 30, '200 %']]);
    pinch([['pointerup', 2, 550, 300, 40], ['pointerup', 1, 350, 300, 50, '200 %']]);
    expect(reader.index).toBe(40);
    // Back to 103 %: the fit.
    pinch([['pointerdown', 1, 300, 300, 100], ['pointerdown', 2, 500, 300, 110], ['pointermove', 2, 403, 300, 120, '103 %']]);
    pinch([['pointerup', 2, 403, 300, 130], ['pointerup', 1, 300, 300, 140, '100 %']]);
    expect(reader.index).toBe(40);
  });
});
