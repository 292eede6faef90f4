import { describe, expect, it } from 'vitest';
import { BOOK_FRAME_CSP, guardBookDocuments, guardDocument, isBookDocument, withBookFrameCsp } from './bookFrameCsp';

const CHAPTER = `<?xml version="1.0" encoding="utf-8"?>
<html xmlns="http://www.w3.org/1999/xhtml"><head><title>One</title><link rel="stylesheet" href="blob:x"/></head>
<body><img src="carrel-page://localhost/7/0"/></body></html>`;

const SVG_PAGE = `<?xml version="1.0" encoding="utf-8"?>
<svg xmlns="http://www.w3.org/2000/svg" xmlns:xlink="http://www.w3.org/1999/xlink" viewBox="0 0 10 10">
<image xlink:href="carrel-page://localhost/7/0" width="10" height="10"/>
<style>svg { background: url(carrel-cover://localhost/7); }</style></svg>`;

/** The policy a browser takes from an SVG document: the first meta of the XHTML head that is a child of the root. */
function svgPolicyOf(markup: string): Element | null {
  const doc = new DOMParser().parseFromString(markup, 'image/svg+xml');
  const root = doc.documentElement;
  const head = Array.from(root.children).find((e) => e.localName === 'head' && e.namespaceURI === 'http://www.w3.org/1999/xhtml');
  const meta = head?.firstElementChild;
  return meta?.getAttribute('http-equiv') === 'Content-Security-Policy' ? meta : null;
}

/** Dispatches one resource as foliate-js does and returns what it then makes its blob of. */
async function throughGuard(book: { sections?: { id: string }[] }, name: string, data: unknown, type: string) {
  const target = new EventTarget();
  guardBookDocuments({ transformTarget: target, ...book });
  const detail = { data, type };
  Object.defineProperty(detail, 'name', { value: name });
  target.dispatchEvent(new CustomEvent('data', { detail }));
  return { data: await detail.data, type: await detail.type };
}

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

  it('comes first in an SVG document, in the XHTML head browsers take it from', () => {
    const guarded = guardDocument(SVG_PAGE, 'image/svg+xml');
    expect(guarded.type).toBe('image/svg+xml');
    const doc = new DOMParser().parseFromString(guarded.markup, 'image/svg+xml');
    expect(doc.documentElement.localName).toBe('svg');
    expect(doc.documentElement.firstElementChild?.localName).toBe('head');
    expect(svgPolicyOf(guarded.markup)?.getAttribute('content')).toBe(BOOK_FRAME_CSP);
    expect(guarded.markup).toContain('carrel-page://localhost/7/0');
    expect(withBookFrameCsp(SVG_PAGE, 'image/svg+xml; charset=utf-8')).toBe(guarded.markup);
  });

  it('keeps an SVG’s own XHTML head, first, and drops a refresh from it', () => {
    const page = `<svg xmlns="http://www.w3.org/2000/svg"><head xmlns="http://www.w3.org/1999/xhtml"><meta http-equiv="refresh" content="0;url=carrel-book://localhost/3"/></head><rect width="1" height="1"/></svg>`;
    const guarded = guardDocument(page, 'image/svg+xml');
    expect(svgPolicyOf(guarded.markup)).not.toBeNull();
    expect(guarded.markup).not.toContain('refresh');
    expect(guarded.markup.match(/<head/g)).toHaveLength(1);
  });

  it('turns an SVG that does not parse, or is no SVG, into an empty guarded SVG', () => {
    for (const page of ['<svg xmlns="http://www.w3.org/2000/svg"><image href="carrel-page://localhost/1/0">', '<page><img src="carrel-page://localhost/1/0"/></page>']) {
      const guarded = guardDocument(page, 'image/svg+xml');
      expect(guarded.type).toBe('image/svg+xml');
      expect(guarded.markup).not.toContain('carrel-page');
      expect(svgPolicyOf(guarded.markup)).not.toBeNull();
    }
  });

  it('guards an SVG section foliate-js rewrote', async () => {
    const out = await throughGuard({ sections: [{ id: 'OEBPS/page.svg' }] }, 'OEBPS/page.svg', SVG_PAGE, 'image/svg+xml');
    expect(out.type).toBe('image/svg+xml');
    expect(svgPolicyOf(String(out.data))).not.toBeNull();
  });

  it('reads a chapter handed over as the book’s bytes and guards it', async () => {
    const blob = new Blob([CHAPTER], { type: 'application/xhtml+xml; charset=utf-8' });
    const out = await throughGuard({ sections: [{ id: 'c.xhtml' }] }, 'c.xhtml', Promise.resolve(blob), 'application/xhtml+xml; charset=utf-8');
    expect(out.type).toBe('application/xhtml+xml');
    expect(policyOf(String(out.data), 'application/xhtml+xml')?.getAttribute('content')).toBe(BOOK_FRAME_CSP);
    const svg = await throughGuard({}, 'p.svg', new Blob([SVG_PAGE]), 'IMAGE/SVG+XML');
    expect(svgPolicyOf(String(svg.data))).not.toBeNull();
    const html = await throughGuard({}, 'c.html', new Blob(['<p>x<img src="carrel-cover://localhost/2">']), 'text/html;charset=utf-8');
    expect(html.type).toBe('text/html');
    expect(policyOf(String(html.data), 'text/html')).not.toBeNull();
  });

  it('guards XML of any type, shown as what its root is', async () => {
    const out = await throughGuard({}, 'c.xml', new Blob([CHAPTER]), 'text/xml');
    expect(out.type).toBe('application/xhtml+xml');
    expect(policyOf(String(out.data), 'application/xhtml+xml')).not.toBeNull();
    const svg = await throughGuard({}, 'p.xml', SVG_PAGE, 'application/xml');
    expect(svg.type).toBe('image/svg+xml');
    expect(svgPolicyOf(String(svg.data))).not.toBeNull();
  });

  it('reads a section of an unknown type as markup and guards it', async () => {
    for (const type of ['', 'application/octet-stream', 'application/x-whatever']) {
      const out = await throughGuard({ sections: [{ id: 's' }] }, 's', new Blob(['<html><body><img src="carrel-page://localhost/1/0"></body></html>']), type);
      expect(out.type, type).toBe('text/html');
      expect(policyOf(String(out.data), 'text/html'), type).not.toBeNull();
    }
    const svg = await throughGuard({ sections: [{ id: 's' }] }, 's', new Blob([SVG_PAGE]), 'application/octet-stream');
    expect(svg.type).toBe('image/svg+xml');
  });

  it('leaves inert resources, and what is not a section, as they are', async () => {
    const png = new Blob([new Uint8Array([0x89, 0x50, 0x4e, 0x47])], { type: 'image/png' });
    const image = await throughGuard({ sections: [{ id: 'p.png' }] }, 'p.png', png, 'image/png');
    expect(image.data).toBe(png);
    expect(image.type).toBe('image/png');
    const font = new Blob([new Uint8Array([0, 1, 0, 0])]);
    const kept = await throughGuard({ sections: [{ id: 's' }] }, 'fonts/a.ttf', font, 'application/octet-stream');
    expect(kept.data).toBe(font);
  });
});
