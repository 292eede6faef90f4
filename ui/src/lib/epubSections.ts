/**
 * What the EPUB reader does with each section foliate-js lays out, besides guarding it
 * (`bookFrameCsp.ts`): the layout fix that keeps a chapter's start in the first column of a
 * spread, and where a click in a section's frame falls on the reader's page. The listening
 * itself is in `EpubReader.svelte`; nothing here reaches the IPC.
 */
import { zoneAt, type Side } from './stores/reader.svelte';

/**
 * Drops a forced break before a section's first content. Books break before each chapter
 * (`page-break-before: always`, as calibre's conversions write it); foliate-js makes that a
 * column break, and WebKit honours a column break before the first content too: the chapter
 * then starts in the second column, the first left blank, and every spread after it is shifted
 * by one column. The break is dropped from the body and its chain of first children only —
 * breaks later in the section still start a new column.
 */
export function dropLeadingBreak(doc: Document): void {
  for (let element: Element | null = doc.body; element; element = element.firstElementChild) {
    const style = (element as HTMLElement).style;
    if (!style) continue;
    for (const property of ['break-before', 'page-break-before', '-webkit-column-break-before']) {
      style.setProperty(property, 'auto', 'important');
    }
  }
}

/** What a click on the book's page asks for: a page towards a side, or the bars (the middle). */
export type PageClick = Side | 'middle';

/** Elements whose clicks are theirs: links (foliate-js follows them), controls, media. */
const OWN_CLICKS = 'a[href], button, input, select, textarea, label, summary, audio, video, [contenteditable]';

/**
 * Where a click falls on the page shown in `view`: the left or right third, or the middle —
 * `null` when it is not the reader's (a link, a control, the end of a text selection, another
 * button than the main one). The click may come from a section's frame (its coordinates are
 * then the frame's) or from the page around it.
 */
export function pageClick(event: MouseEvent, view: Element): PageClick | null {
  if (event.defaultPrevented || event.button !== 0) return null;
  const target = event.target as Element | null;
  if (target && typeof target.closest === 'function' && target.closest(OWN_CLICKS)) return null;
  const doc = (target as Node | null)?.ownerDocument ?? null;
  const selection = doc?.getSelection?.();
  if (selection && !selection.isCollapsed && selection.toString().trim() !== '') return null;
  const frame = doc?.defaultView?.frameElement ?? null;
  const offset = frame && frame.ownerDocument === view.ownerDocument ? frame.getBoundingClientRect().left : 0;
  const rect = view.getBoundingClientRect();
  return zoneAt(event.clientX + offset - rect.left, rect.width) ?? 'middle';
}
