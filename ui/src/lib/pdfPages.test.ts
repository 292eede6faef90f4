import { describe, expect, it, vi } from 'vitest';

// pdf.js itself is not loaded: what matters here is what it is asked to do.
const getDocument = vi.fn();
vi.mock('pdfjs-dist', () => ({
  AnnotationMode: { DISABLE: 0 },
  GlobalWorkerOptions: {},
  getDocument: (options: unknown) => getDocument(options),
}));
vi.mock('pdfjs-dist/build/pdf.worker.min.mjs?url', () => ({ default: '/pdf.worker.js' }));

import { farthest, MAX_IMAGE_PIXELS, nearness, PdfPages } from './pdfPages.svelte';

describe('PdfPages.load', () => {
  it('hands pdf.js the bytes locked down: no eval, no XFA, no fetches, images capped', async () => {
    getDocument.mockReturnValue({ promise: Promise.resolve({ numPages: 3, destroy: vi.fn() }) });
    const pages = await PdfPages.load(new Uint8Array([37, 80, 68, 70]).buffer);
    expect(pages.pageCount).toBe(3);
    expect(getDocument).toHaveBeenCalledTimes(1);
    const options = getDocument.mock.calls[0][0] as Record<string, unknown>;
    expect(options).toMatchObject({ isEvalSupported: false, enableXfa: false, maxImageSize: MAX_IMAGE_PIXELS });
    // 100 million pixels: a picture in the file that claims more is not drawn.
    expect(MAX_IMAGE_PIXELS).toBe(100_000_000);
    for (const address of ['url', 'cMapUrl', 'standardFontDataUrl', 'wasmUrl', 'iccUrl']) {
      expect(options[address], address).toBeUndefined();
    }
  });
});

describe('which PDF pages are drawn first and kept longest', () => {
  it('draws the nearest page first, ahead of the reader before as far behind', () => {
    expect(nearness(11, 10)).toBeLessThan(nearness(9, 10));
    expect(nearness(9, 10, -1)).toBeLessThan(nearness(11, 10, -1));
    expect(nearness(12, 10, -1)).toBeGreaterThan(nearness(8, 10, -1));
  });

  it('drops the farthest page, behind the reader before as far ahead', () => {
    expect(farthest([8, 9, 11, 12], 10)).toBe(8);
    expect(farthest([8, 9, 11, 12], 10, -1)).toBe(12);
    expect(farthest([9, 11, 15], 10, -1)).toBe(15);
    expect(farthest([], 10)).toBeNull();
  });
});
