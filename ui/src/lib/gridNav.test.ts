import { afterEach, describe, expect, it } from 'vitest';
import { gridNav, nextIndex } from './gridNav';

describe('nextIndex', () => {
  // A grid of 10 items in 4 columns:
  //   0 1 2 3
  //   4 5 6 7
  //   8 9
  const cols = 4;
  const count = 10;

  it('moves left and right in reading order, without wrapping past the ends', () => {
    expect(nextIndex(5, 'ArrowRight', cols, count)).toBe(6);
    expect(nextIndex(3, 'ArrowRight', cols, count)).toBe(4);
    expect(nextIndex(4, 'ArrowLeft', cols, count)).toBe(3);
    expect(nextIndex(0, 'ArrowLeft', cols, count)).toBeNull();
    expect(nextIndex(9, 'ArrowRight', cols, count)).toBeNull();
  });

  it('moves up and down by a row', () => {
    expect(nextIndex(1, 'ArrowDown', cols, count)).toBe(5);
    expect(nextIndex(5, 'ArrowDown', cols, count)).toBe(9);
    expect(nextIndex(5, 'ArrowUp', cols, count)).toBe(1);
    expect(nextIndex(2, 'ArrowUp', cols, count)).toBeNull();
    expect(nextIndex(9, 'ArrowDown', cols, count)).toBeNull();
  });

  it('lands on the last item when the row below is short', () => {
    expect(nextIndex(6, 'ArrowDown', cols, count)).toBe(9);
    expect(nextIndex(7, 'ArrowDown', cols, count)).toBe(9);
  });

  it('goes to the ends with Home and End', () => {
    expect(nextIndex(6, 'Home', cols, count)).toBe(0);
    expect(nextIndex(2, 'End', cols, count)).toBe(9);
    expect(nextIndex(0, 'Home', cols, count)).toBeNull();
  });

  it('pages by three rows, staying in the column', () => {
    expect(nextIndex(1, 'PageDown', 2, 20)).toBe(7);
    expect(nextIndex(7, 'PageUp', 2, 20)).toBe(1);
    expect(nextIndex(3, 'PageUp', 2, 20)).toBe(1);
    expect(nextIndex(1, 'PageDown', cols, count)).toBe(9);
  });

  it('treats a single row and a single column sensibly', () => {
    expect(nextIndex(2, 'ArrowDown', 5, 5)).toBeNull();
    expect(nextIndex(2, 'ArrowRight', 5, 5)).toBe(3);
    expect(nextIndex(2, 'ArrowDown', 1, 5)).toBe(3);
    expect(nextIndex(0, 'ArrowDown', 0, 5)).toBe(1);
    expect(nextIndex(0, 'ArrowRight', 4, 0)).toBeNull();
  });
});

describe('gridNav', () => {
  let destroy = () => {};
  afterEach(() => {
    destroy();
    document.body.innerHTML = '';
  });

  function grid(count: number) {
    const list = document.createElement('ul');
    for (let i = 0; i < count; i++) {
      const li = document.createElement('li');
      const button = document.createElement('button');
      button.dataset.gridItem = '';
      button.textContent = `Item ${i}`;
      li.append(button);
      list.append(li);
    }
    document.body.append(list);
    destroy = gridNav(list, { columns: 3 }).destroy;
    return { list, items: () => Array.from(list.querySelectorAll('button')) };
  }

  function press(target: Element, key: string) {
    const event = new KeyboardEvent('keydown', { key, bubbles: true, cancelable: true });
    target.dispatchEvent(event);
    return event;
  }

  it('is one Tab stop, and the arrows move focus and the stop', () => {
    const { items } = grid(7);
    expect(items().map((b) => b.tabIndex)).toEqual([0, -1, -1, -1, -1, -1, -1]);

    items()[0].focus();
    expect(press(items()[0], 'ArrowDown').defaultPrevented).toBe(true);
    expect(document.activeElement).toBe(items()[3]);
    press(items()[3], 'ArrowRight');
    expect(document.activeElement).toBe(items()[4]);
    expect(items().map((b) => b.tabIndex)).toEqual([-1, -1, -1, -1, 0, -1, -1]);
    press(items()[4], 'End');
    expect(document.activeElement).toBe(items()[6]);
  });

  it('keeps the stop where it was when items are added', async () => {
    const { list, items } = grid(3);
    items()[2].focus();
    const li = document.createElement('li');
    const more = document.createElement('button');
    more.dataset.gridItem = '';
    li.append(more);
    list.append(li);
    await Promise.resolve();
    expect(items().map((b) => b.tabIndex)).toEqual([-1, -1, 0, -1]);
  });

  it('leaves other keys alone', () => {
    const { items } = grid(3);
    items()[0].focus();
    expect(press(items()[0], 'Enter').defaultPrevented).toBe(false);
    expect(press(items()[0], 'a').defaultPrevented).toBe(false);
    expect(document.activeElement).toBe(items()[0]);
  });
});
