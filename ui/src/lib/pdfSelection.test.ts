import { describe, expect, it } from 'vitest';
import { offsetIn, selectionIn } from './pdfSelection';

/** A text layer of two runs, "Page 2" at 0 and "of 6" at 7, as `PdfPageLayer` draws it. */
function layer(): HTMLElement {
  const div = document.createElement('div');
  div.innerHTML = '<span data-start="0">Page 2</span><span data-start="7">of 6</span>';
  document.body.replaceChildren(div);
  return div;
}

describe('offsetIn', () => {
  it('gives a point in a run as an offset in the page text', () => {
    const l = layer();
    const [a, b] = [...l.querySelectorAll('span')];
    expect(offsetIn(l, a!.firstChild!, 4)).toBe(4);
    expect(offsetIn(l, b!.firstChild!, 2)).toBe(9);
    // Past a run's end stays at its end; a run itself, at its start or end.
    expect(offsetIn(l, a!.firstChild!, 99)).toBe(6);
    expect(offsetIn(l, b!, 0)).toBe(7);
    expect(offsetIn(l, b!, 1)).toBe(11);
  });

  it('knows no point outside the layer', () => {
    const l = layer();
    const other = document.createElement('span');
    other.dataset.start = '3';
    other.textContent = 'elsewhere';
    document.body.append(other);
    expect(offsetIn(l, other.firstChild!, 1)).toBeNull();
  });
});

describe('selectionIn', () => {
  it('gives the text selected across runs, in order, and nothing when none is', () => {
    const l = layer();
    const [a, b] = [...l.querySelectorAll('span')];
    const range = document.createRange();
    range.setStart(a!.firstChild!, 5);
    range.setEnd(b!.firstChild!, 2);
    // jsdom lays nothing out: the popover's place is measured from an empty box.
    range.getBoundingClientRect = () => ({ left: 10, top: 0, width: 20, height: 5, bottom: 5, right: 30, x: 10, y: 0, toJSON: () => ({}) });
    const selection = document.getSelection()!;
    selection.removeAllRanges();
    expect(selectionIn(l, 1, null)).toBeNull();
    selection.addRange(range);
    expect(selectionIn(l, 1, null)).toMatchObject({ page: 1, start: 5, end: 9, x: 20, y: 13 });
  });
});
