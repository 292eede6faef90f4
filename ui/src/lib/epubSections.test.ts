import { describe, expect, it, vi } from 'vitest';
import { dropLeadingBreak, pageClick } from './epubSections';

function section(html: string): Document {
  return new DOMParser().parseFromString(`<html><head></head><body>${html}</body></html>`, 'text/html');
}

describe('dropLeadingBreak', () => {
  it('takes the break from before the first content, down its first children only', () => {
    const doc = section('<div class="chapter" style="page-break-before: always"><h1 style="break-before: column">One</h1><p style="break-before: page">x</p></div><h2>Two</h2>');
    dropLeadingBreak(doc);
    for (const element of [doc.body, doc.querySelector('div')!, doc.querySelector('h1')!]) {
      expect(element.style.getPropertyValue('break-before')).toBe('auto');
      expect(element.style.getPropertyPriority('break-before')).toBe('important');
      expect(element.style.getPropertyValue('page-break-before')).toBe('auto');
    }
    // Breaks further on still start a new column.
    expect(doc.querySelector('p')!.style.getPropertyValue('break-before')).toBe('page');
    expect(doc.querySelector('h2')!.style.getPropertyValue('break-before')).toBe('');
  });
});

describe('pageClick', () => {
  function view(): HTMLElement {
    const element = document.createElement('div');
    document.body.append(element);
    vi.spyOn(element, 'getBoundingClientRect').mockReturnValue(new DOMRect(100, 50, 900, 600));
    return element;
  }

  function click(target: Element, clientX: number, init: MouseEventInit = {}): MouseEvent {
    const event = new MouseEvent('click', { bubbles: true, cancelable: true, clientX, clientY: 300, ...init });
    Object.defineProperty(event, 'target', { value: target });
    return event;
  }

  it('turns from the outer thirds and takes the middle for the bars', () => {
    const page = view();
    const p = document.createElement('p');
    page.append(p);
    expect(pageClick(click(p, 150), page)).toBe('left');
    expect(pageClick(click(p, 550), page)).toBe('middle');
    expect(pageClick(click(p, 950), page)).toBe('right');
  });

  it('leaves links, controls and other buttons their own clicks', () => {
    const page = view();
    page.innerHTML = '<a href="#x"><span>link</span></a><button>b</button>';
    expect(pageClick(click(page.querySelector('span')!, 950), page)).toBeNull();
    expect(pageClick(click(page.querySelector('button')!, 950), page)).toBeNull();
    expect(pageClick(click(page, 950, { button: 2 }), page)).toBeNull();
    const handled = click(page, 950);
    handled.preventDefault();
    expect(pageClick(handled, page)).toBeNull();
  });
});
