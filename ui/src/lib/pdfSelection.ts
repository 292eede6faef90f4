/**
 * Text selected on a PDF page's text layer (`PdfPageLayer`): where it is in the page's text, and
 * the keyboard's way to select it (Shift+→ / Shift+←, from the first word of the page shown).
 * Each run of the layer is a `<span data-start>` holding its text, `data-start` its offset in
 * the page's text.
 */
import type { PdfSelection } from './stores/pdfMarks.svelte';

/** The offset in the page's text of a point in `layer`'s text (a node and an offset in it). */
export function offsetIn(layer: HTMLElement, node: Node, offset: number): number | null {
  const span = (node instanceof Element ? node : node.parentElement)?.closest<HTMLElement>('[data-start]');
  if (!span || !layer.contains(span)) return null;
  const start = Number(span.dataset.start);
  if (!Number.isFinite(start)) return null;
  const length = span.textContent?.length ?? 0;
  return start + (node.nodeType === Node.TEXT_NODE ? Math.min(offset, length) : offset > 0 ? length : 0);
}

/**
 * The text selected in `layer` (page `page`), with the popover's place under it in pixels from
 * `origin`'s top left corner; null when nothing there is selected.
 */
export function selectionIn(layer: HTMLElement, page: number, origin: Element | null): PdfSelection | null {
  const selection = layer.ownerDocument.getSelection();
  if (!selection || selection.isCollapsed || selection.rangeCount === 0) return null;
  const range = selection.getRangeAt(0);
  if (!layer.contains(range.commonAncestorContainer)) return null;
  const a = offsetIn(layer, range.startContainer, range.startOffset);
  const b = offsetIn(layer, range.endContainer, range.endOffset);
  if (a === null || b === null || a === b) return null;
  const where = range.getBoundingClientRect();
  const from = origin?.getBoundingClientRect() ?? { left: 0, top: 0 };
  return { page, start: Math.min(a, b), end: Math.max(a, b), x: where.left + where.width / 2 - from.left, y: where.bottom - from.top + 8 };
}

/**
 * Selects text from the keyboard in `layers` (the pages shown, in order): the selection in one
 * of them grows or shrinks by `unit` towards `direction`; with none yet, it starts at the first
 * word of the first. False when there is no text to select.
 */
export function extendSelection(layers: readonly HTMLElement[], direction: 'forward' | 'backward', unit: 'character' | 'word'): boolean {
  const first = layers[0];
  if (!first) return false;
  const selection = first.ownerDocument.getSelection();
  if (!selection) return false;
  if (selection.rangeCount > 0 && !selection.isCollapsed && layers.some((l) => l.contains(selection.getRangeAt(0).commonAncestorContainer))) {
    selection.modify('extend', direction, unit);
    return true;
  }
  const text = first.querySelector('[data-start]')?.firstChild;
  if (!text) return false;
  selection.removeAllRanges();
  const caret = first.ownerDocument.createRange();
  caret.setStart(text, 0);
  caret.collapse(true);
  selection.addRange(caret);
  selection.modify('extend', 'forward', unit);
  return !selection.isCollapsed;
}
