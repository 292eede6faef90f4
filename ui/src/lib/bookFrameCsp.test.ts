import { describe, expect, it } from 'vitest';
import { BOOK_FRAME_CSP, guardBookDocuments, isBookDocument, withBookFrameCsp } from './bookFrameCsp';

const CHAPTER = `<?xml version="1.0" encoding="utf-8"?>
<html xmlns="http://www.w3.org/1999/xhtml"><head><title>One</title><link rel="stylesheet" href="blob:x"/></head>
<body><img src="carrel-page://localhost/7/0"/></body></html>`;

function policyOf(markup: string, type: string): Element | null {
  const doc = new DOMParser().parseFromString(markup, type === 'text/html' ? 'text/html' : 'application/xhtml+xml');
  return doc.querySelector('head > meta[http-equiv="Content-Security-Policy"]');
}

describe('the book frame policy', () => {
  it('forbids Carrel’s protocols, the network and scripts', () => {
    for (const scheme of ['carrel-page', 'carrel-cover', 'carrel-book', 'http', 'https', 'ipc']) {
      expect(BOOK_FRAME_CSP).not.toContain(scheme);
    }
    expect(BOOK_FRAME_CSP).toContain("default-src 'none'");
    expect(BOOK_FRAME_CSP).toContain("script-src 'none'");
  });

  it('comes first in an XHTML chapter’s head', () => {
    const guarded = withBookFrameCsp(CHAPTER, 'application/xhtml+xml');
    const meta = policyOf(guarded, 'application/xhtml+xml');
    expect(meta?.getAttribute('content')).toBe(BOOK_FRAME_CSP);
    expect(meta?.parentElement?.firstElementChild).toBe(meta);
    expect(guarded).toContain('carrel-page://localhost/7/0');
  });

  it('is added to HTML without a head, and replaces a refresh', () => {
    const guarded = withBookFrameCsp('<html><body><meta http-equiv="refresh" content="0;url=carrel-book://localhost/3"><p>x</p></body></html>', 'text/html');
    expect(policyOf(guarded, 'text/html')).not.toBeNull();
    expect(guarded).not.toContain('refresh');
  });

  it('turns markup that does not parse into an empty document', () => {
    const guarded = withBookFrameCsp('<html xmlns="http://www.w3.org/1999/xhtml"><body><img src="carrel-page://localhost/1/0">', 'application/xhtml+xml');
    expect(guarded).not.toContain('carrel-page');
  });

  it('applies to documents only, through foliate-js’s data events', async () => {
    expect(isBookDocument('application/xhtml+xml')).toBe(true);
    expect(isBookDocument('text/css')).toBe(false);
    const target = new EventTarget();
    guardBookDocuments({ transformTarget: target });
    const chapter = { data: Promise.resolve(CHAPTER), type: 'application/xhtml+xml' };
    const css = { data: 'p { color: red }', type: 'text/css' };
    target.dispatchEvent(new CustomEvent('data', { detail: chapter }));
    target.dispatchEvent(new CustomEvent('data', { detail: css }));
    expect(policyOf(await chapter.data, 'application/xhtml+xml')).not.toBeNull();
    expect(css.data).toBe('p { color: red }');
  });
});
