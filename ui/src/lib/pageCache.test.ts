import { describe, expect, it } from 'vitest';
import { DecodedPages, KEEP_WITHIN, decodedBytes, evictionScore, pagesAround, type Decoder } from './pageCache';

/** A decoder that answers at once with a picture of the size the address says (`w×h/page`). */
function fakeDecoder(): { decode: Decoder; asked: string[] } {
  const asked: string[] = [];
  const decode: Decoder = (url) => {
    asked.push(url);
    if (url.startsWith('missing')) return Promise.reject(new Error('not here'));
    const [size] = url.split('/');
    const [width, height] = size.split('x').map(Number);
    return Promise.resolve({ naturalWidth: width, naturalHeight: height } as HTMLImageElement);
  };
  return { decode, asked };
}

/** 100 × 100 pictures: 40,000 bytes each. */
const PAGE = decodedBytes(100, 100);
const url = (page: number, size = '100x100') => `${size}/${page}`;

describe('the pages decoded around the page read', () => {
  it('takes the pages ahead first, nearest first, then one behind', () => {
    expect(pagesAround([10], 100, 1)).toEqual([11, 12, 13, 9]);
  });

  it('turns the order round when the reader goes backwards', () => {
    expect(pagesAround([10], 100, -1)).toEqual([9, 8, 7, 11]);
  });

  it('takes whole spreads each way when two pages are shown', () => {
    expect(pagesAround([3, 4], 100, 1)).toEqual([5, 6, 7, 8, 9, 10, 2, 1]);
    expect(pagesAround([3, 4], 100, -1)).toEqual([2, 1, 0, 5, 6]);
  });

  it('stays within the book', () => {
    expect(pagesAround([0], 3, -1)).toEqual([1]);
    expect(pagesAround([2], 3, 1)).toEqual([1]);
    expect(pagesAround([], 3, 1)).toEqual([]);
  });
});

describe('how soon a decoded page goes', () => {
  it('goes by distance, a page behind the reader before one as far ahead', () => {
    expect(evictionScore(14, 10, 1)).toBeLessThan(evictionScore(5, 10, 1));
    expect(evictionScore(8, 10, 1)).toBeGreaterThan(evictionScore(12, 10, 1));
    expect(evictionScore(12, 10, -1)).toBeGreaterThan(evictionScore(8, 10, -1));
  });
});

describe('DecodedPages', () => {
  it('keeps within its bound in bytes, not in pages', async () => {
    const { decode } = fakeDecoder();
    const cache = new DecodedPages(3 * PAGE, decode);
    cache.focusOn([0], 1);
    for (const page of [1, 2, 3, 4]) await cache.load(page, url(page));
    expect(cache.bytes).toBeLessThanOrEqual(3 * PAGE);
    expect(cache.pages.sort()).toEqual([1, 2, 3]);
    // A page twice as large in both directions takes the room of four.
    await cache.load(5, url(5, '200x200'));
    expect(cache.bytes).toBeLessThanOrEqual(3 * PAGE);
  });

  it('counts a picture as width × height × 4 bytes', async () => {
    const { decode } = fakeDecoder();
    const cache = new DecodedPages(Infinity, decode);
    await cache.load(1, url(1, '800x1200'));
    expect(cache.bytes).toBe(800 * 1200 * 4);
    expect(cache.get(url(1, '800x1200'))).toMatchObject({ page: 1, width: 800, height: 1200 });
  });

  it('drops the farthest page first, behind the reader before as far ahead', async () => {
    const { decode } = fakeDecoder();
    const cache = new DecodedPages(3 * PAGE, decode);
    cache.focusOn([10], 1);
    for (const page of [9, 11, 12]) await cache.load(page, url(page));
    // Full: page 8 (two behind) goes rather than 12 (two ahead).
    await cache.load(8, url(8));
    expect(cache.pages.sort((a, b) => a - b)).toEqual([9, 11, 12]);
    // The reader moves on to 12: page 9, now the farthest, goes for 13.
    cache.focusOn([12], 1);
    await cache.load(13, url(13));
    expect(cache.pages.sort((a, b) => a - b)).toEqual([11, 12, 13]);
  });

  it('follows the direction of reading', async () => {
    for (const [travel, kept] of [[-1, 9], [1, 11]] as const) {
      const { decode } = fakeDecoder();
      const cache = new DecodedPages(PAGE, decode);
      cache.focusOn([10], travel);
      await cache.load(11, url(11));
      await cache.load(9, url(9));
      // Of the two pages next to the one read, the one behind the reader goes.
      expect(cache.pages).toEqual([kept]);
    }
  });

  it('lets the pages the reader has left far behind go, with room to spare', async () => {
    const { decode } = fakeDecoder();
    const cache = new DecodedPages(Infinity, decode);
    for (let page = 0; page < 20; page++) {
      cache.focusOn([page], 1);
      await cache.load(page + 1, url(page + 1));
    }
    // Reading on to page 19: what is kept is the pages around it, not every page read.
    const kept = cache.pages.sort((a, b) => a - b);
    expect(kept).toContain(20);
    expect(kept).toContain(19 - (KEEP_WITHIN - 1));
    expect(kept).not.toContain(19 - KEEP_WITHIN);
    expect(kept.every((page) => evictionScore(page, 19, 1) <= KEEP_WITHIN)).toBe(true);
    // Two pages shown at a time: twice as far each way.
    cache.focusOn([18, 19], 1);
    expect(cache.pages).toContain(19 - (KEEP_WITHIN - 1));
  });

  it('never drops the pages shown, even past its bound', async () => {
    const { decode } = fakeDecoder();
    const cache = new DecodedPages(PAGE, decode);
    cache.focusOn([4, 5], 1);
    await cache.load(4, url(4));
    await cache.load(5, url(5));
    await cache.load(6, url(6));
    expect(cache.pages.sort((a, b) => a - b)).toEqual([4, 5]);
    // Once the reader moves on, the farthest page left behind goes.
    cache.focusOn([6], 1);
    expect(cache.pages).toEqual([5]);
  });

  it('decodes a page once, even when asked for twice at the same time', async () => {
    const { decode, asked } = fakeDecoder();
    const cache = new DecodedPages(Infinity, decode);
    const [a, b] = await Promise.all([cache.load(1, url(1)), cache.load(1, url(1))]);
    expect(a).toBe(b);
    await cache.load(1, url(1));
    expect(asked).toEqual([url(1)]);
  });

  it('answers null for a page that cannot be had, and asks again next time', async () => {
    const { decode, asked } = fakeDecoder();
    const cache = new DecodedPages(Infinity, decode);
    expect(await cache.load(1, 'missing/1')).toBeNull();
    expect(await cache.load(1, 'missing/1')).toBeNull();
    expect(asked).toEqual(['missing/1', 'missing/1']);
    expect(cache.has('missing/1')).toBe(false);
  });

  it('lets go of the picture of every page it drops, and of all of them when cleared', async () => {
    const images = new Map<string, HTMLImageElement>();
    const decode: Decoder = (at) => {
      const image = document.createElement('img');
      image.src = `https://pages.test/${at}`;
      Object.defineProperty(image, 'naturalWidth', { value: 100 });
      Object.defineProperty(image, 'naturalHeight', { value: 100 });
      images.set(at, image);
      return Promise.resolve(image);
    };
    const cache = new DecodedPages(2 * PAGE, decode);
    cache.focusOn([0], 1);
    for (const page of [1, 2, 3]) await cache.load(page, url(page));
    expect(cache.pages.sort()).toEqual([1, 2]);
    expect(images.get(url(3))?.hasAttribute('src')).toBe(false);
    expect(images.get(url(1))?.getAttribute('src')).toBe(`https://pages.test/${url(1)}`);
    cache.clear();
    expect([...images.values()].filter((image) => image.hasAttribute('src'))).toEqual([]);
  });
});
