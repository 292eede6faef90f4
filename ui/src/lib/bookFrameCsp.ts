/**
 * The content security policy of a book's own documents. An EPUB's chapters are shown in blob:
 * frames that inherit the window's policy, which lets Carrel's protocols through (covers, pages,
 * books) — so a chapter could name another book's page and have Carrel download it. Each
 * chapter gets this stricter policy too (policies add up: both must allow a request): its own
 * resources (blob:, data:) and inline styles, nothing else — no Carrel protocol, no network, no
 * script, no frame.
 */
export const BOOK_FRAME_CSP = [
  "default-src 'none'",
  'img-src blob: data:',
  "style-src blob: 'unsafe-inline'",
  'font-src blob: data:',
  'media-src blob: data:',
  "script-src 'none'",
  "connect-src 'none'",
  "frame-src 'none'",
  "object-src 'none'",
  "form-action 'none'",
  "base-uri 'none'",
].join('; ');

const XHTML_NS = 'http://www.w3.org/1999/xhtml';
const DOCUMENT_TYPES = ['application/xhtml+xml', 'text/html'];

/** Whether a resource of this type is a document that gets the policy. */
export function isBookDocument(type: string): boolean {
  return DOCUMENT_TYPES.includes(type.split(';')[0]?.trim().toLowerCase() ?? '');
}

/**
 * The document with {@link BOOK_FRAME_CSP} as the first element of its head (so it covers every
 * resource the head names). Markup that does not parse as the type says is returned as an empty
 * document of that type rather than unguarded.
 */
export function withBookFrameCsp(markup: string, type: string): string {
  const essence = type.split(';')[0]?.trim().toLowerCase() ?? '';
  const html = essence === 'text/html';
  const doc = new DOMParser().parseFromString(markup, html ? 'text/html' : 'application/xhtml+xml');
  const root = doc.documentElement;
  if (!root || doc.querySelector('parsererror') || root.localName !== 'html') {
    return html ? '<!DOCTYPE html><html><head></head><body></body></html>' : `<html xmlns="${XHTML_NS}"><head/><body/></html>`;
  }
  let head = Array.from(root.children).find((e) => e.localName === 'head');
  if (!head) {
    head = doc.createElementNS(XHTML_NS, 'head');
    root.prepend(head);
  }
  for (const old of Array.from(doc.getElementsByTagName('meta'))) {
    // A book's own policy can only add restrictions, but an http-equiv refresh could navigate.
    if (old.getAttribute('http-equiv')?.toLowerCase() === 'refresh') old.remove();
  }
  const meta = doc.createElementNS(XHTML_NS, 'meta');
  meta.setAttribute('http-equiv', 'Content-Security-Policy');
  meta.setAttribute('content', BOOK_FRAME_CSP);
  head.prepend(meta);
  return html ? `<!DOCTYPE html>${root.outerHTML}` : new XMLSerializer().serializeToString(doc);
}

/** The part of foliate-js's book loader this module needs. */
export interface ResourceEvents {
  transformTarget?: EventTarget;
}

/** Gives every document foliate-js loads from the book the policy, before it reaches a frame. */
export function guardBookDocuments(book: ResourceEvents): void {
  book.transformTarget?.addEventListener('data', (event) => {
    const detail = (event as CustomEvent<{ data: unknown; type: string }>).detail;
    if (!isBookDocument(String(detail.type))) return;
    const type = String(detail.type);
    detail.data = Promise.resolve(detail.data).then((data) => (typeof data === 'string' ? withBookFrameCsp(data, type) : data));
  });
}
