/**
 * The content security policy of a book's own documents. An EPUB's sections are shown in blob:
 * frames that inherit the window's policy, which lets Carrel's protocols through (covers, pages,
 * books) — so a section could name another book's page and have Carrel download it. Every
 * document a frame can show gets this stricter policy too (policies add up: both must allow a
 * request): its own resources (blob:, data:) and inline styles, nothing else — no Carrel
 * protocol, no network, no script, no frame.
 *
 * Whatever form foliate-js hands a resource over in (markup it rewrote, or the book's bytes as a
 * Blob when it did not recognise the type) and whatever the book says the type is (XHTML, HTML,
 * SVG, any XML, something unknown), a document that reaches a frame carries the policy: markup
 * of any kind gets it, and a section of any other type that is not plainly inert (an image, a
 * sound, a font, a style sheet, plain text) is read as markup and gets it too.
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
const SVG_NS = 'http://www.w3.org/2000/svg';

const HTML = 'text/html';
const XHTML = 'application/xhtml+xml';
const SVG = 'image/svg+xml';

/** A type's essence: lowercase, without parameters. */
function essence(type: string): string {
  return type.split(';')[0]?.trim().toLowerCase() ?? '';
}

/** Whether a resource of this type is markup a frame would show as a document: HTML, XHTML, SVG or any XML. */
export function isBookDocument(type: string): boolean {
  const t = essence(type);
  return t === HTML || t === 'text/xml' || t === 'application/xml' || t.endsWith('+xml');
}

/** Whether a frame shows a resource of this type as something that loads nothing and runs nothing. */
function isInert(type: string): boolean {
  const t = essence(type);
  if (t === SVG || t.endsWith('+xml')) return false;
  return /^(image|audio|video|font)\//.test(t) || t === 'text/css' || t === 'text/plain';
}

/** A guarded document and the type it is shown as. */
export interface GuardedDocument {
  markup: string;
  type: string;
}

function emptyDocument(type: string): GuardedDocument {
  const meta = `<meta http-equiv="Content-Security-Policy" content="${BOOK_FRAME_CSP}"/>`;
  if (type === HTML) return { markup: `<!DOCTYPE html><html><head>${meta}</head><body></body></html>`, type };
  if (type === SVG) return { markup: `<svg xmlns="${SVG_NS}"><head xmlns="${XHTML_NS}">${meta}</head></svg>`, type };
  return { markup: `<html xmlns="${XHTML_NS}"><head>${meta}</head><body/></html>`, type: XHTML };
}

/** Puts the policy first in the document's head, making a head where there is none. */
function addPolicy(doc: Document, root: Element): void {
  for (const old of Array.from(doc.getElementsByTagNameNS(XHTML_NS, 'meta'))) {
    // A book's own policy can only add restrictions, but an http-equiv refresh could navigate.
    if (old.getAttribute('http-equiv')?.toLowerCase() === 'refresh') old.remove();
  }
  let head = Array.from(root.children).find((e) => e.localName === 'head' && e.namespaceURI === XHTML_NS);
  if (!head) {
    // In an SVG document too: browsers take a policy from an XHTML head that is a child of the
    // root element, and SVG does not draw it.
    head = doc.createElementNS(XHTML_NS, 'head');
    root.prepend(head);
  }
  const meta = doc.createElementNS(XHTML_NS, 'meta');
  meta.setAttribute('http-equiv', 'Content-Security-Policy');
  meta.setAttribute('content', BOOK_FRAME_CSP);
  head.prepend(meta);
}

/**
 * The document with {@link BOOK_FRAME_CSP} as the first element of its head (so it covers every
 * resource the head names), and the type it is shown as. `text/html` is parsed as HTML; any
 * other type is parsed as XML and shown as what its root is (XHTML or SVG); markup that does
 * not parse, or whose root is neither, is an empty document rather than an unguarded one.
 */
export function guardDocument(markup: string, type: string): GuardedDocument {
  const t = essence(type);
  if (t === HTML) {
    const doc = new DOMParser().parseFromString(markup, HTML);
    addPolicy(doc, doc.documentElement);
    return { markup: `<!DOCTYPE html>${doc.documentElement.outerHTML}`, type: HTML };
  }
  const wanted = t === SVG ? SVG : XHTML;
  // Parsed as the XML type the browser reads it as (XHTML knows HTML's named entities).
  const doc = new DOMParser().parseFromString(markup, wanted);
  const root = doc.documentElement;
  if (!root || doc.getElementsByTagName('parsererror').length > 0) return emptyDocument(wanted);
  const shownAs = root.localName === 'html' && root.namespaceURI === XHTML_NS ? XHTML : root.localName === 'svg' && root.namespaceURI === SVG_NS ? SVG : null;
  if (shownAs === null) return emptyDocument(wanted);
  addPolicy(doc, root);
  return { markup: new XMLSerializer().serializeToString(doc), type: shownAs };
}

/** {@link guardDocument}'s markup, for a document of this type. */
export function withBookFrameCsp(markup: string, type: string): string {
  return guardDocument(markup, type).markup;
}

/**
 * What a section of a type that is neither markup nor inert is shown as: read as XML when it
 * parses to XHTML or SVG, else as HTML (which shows plain text as text) — guarded either way.
 */
export function guardUnknownSection(text: string): GuardedDocument {
  const doc = new DOMParser().parseFromString(text, XHTML);
  const root = doc.documentElement;
  if (root && doc.getElementsByTagName('parsererror').length === 0) {
    if (root.namespaceURI === SVG_NS && root.localName === 'svg') return guardDocument(text, SVG);
    if (root.namespaceURI === XHTML_NS && root.localName === 'html') return guardDocument(text, XHTML);
  }
  return guardDocument(text, HTML);
}

/** The text of a resource as foliate-js hands it over: a string, or the book's bytes. */
async function textOf(data: unknown): Promise<string> {
  if (typeof data === 'string') return data;
  if (data instanceof Blob) {
    if (typeof data.text === 'function') return data.text();
    return new Promise((resolve, reject) => {
      const reader = new FileReader();
      reader.onload = () => resolve(String(reader.result ?? ''));
      reader.onerror = () => reject(reader.error);
      reader.readAsText(data);
    });
  }
  if (data instanceof ArrayBuffer || ArrayBuffer.isView(data)) return new TextDecoder().decode(data);
  return String(data ?? '');
}

/** The part of foliate-js's book loader this module needs. */
export interface ResourceEvents {
  transformTarget?: EventTarget;
  /** The spine's sections: the documents a frame is given (`id` is the resource's name). */
  sections?: { id?: unknown }[];
}

interface ResourceDetail {
  data: unknown;
  type: unknown;
  readonly name?: unknown;
}

/**
 * Gives every document foliate-js loads from the book the policy, before it reaches a frame:
 * markup of any type, and any section that is not plainly inert.
 */
export function guardBookDocuments(book: ResourceEvents): void {
  const sections = new Set((book.sections ?? []).map((s) => String(s.id)));
  book.transformTarget?.addEventListener('data', (event) => {
    const detail = (event as CustomEvent<ResourceDetail>).detail;
    const type = String(detail.type ?? '');
    const markup = isBookDocument(type);
    if (!markup && !(sections.has(String(detail.name)) && !isInert(type))) return;
    const guarded = Promise.resolve(detail.data)
      .then(textOf)
      .then((text) => (markup ? guardDocument(text, type) : guardUnknownSection(text)));
    detail.data = guarded.then((g) => g.markup);
    // When the data fails, foliate-js reports that failure; the type follows quietly.
    detail.type = guarded.then(
      (g) => g.type,
      () => type,
    );
  });
}
