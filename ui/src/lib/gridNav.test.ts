import { afterEach, describe, expect, it } from 'vitest';
import { gridNav, nextIndex, type GridKey } from './gridNav';

describe('nextIndex', () => {
  // A grid of 10 items in 4 columns:
  //   0 1 2 3
  //   4 5 6 7
  //   8 9
  const cols = 4;
  const count = 10;

  /** Each test's moves: from, key, where it lands (null: nowhere), and another grid's columns and count. */
  it.each<[string, [number, GridKey, number | null, number?, number?][]]>([
    ['moves left and right in reading order, without wrapping past the ends', [[5, 'ArrowRight', 6], [3, 'ArrowRight', 4], [4, 'ArrowLeft', 3], [0, 'ArrowLeft', null], [9, 'ArrowRight', null]]],
    ['moves up and down by a row', [[1, 'ArrowDown', 5], [5, 'ArrowDown', 9], [5, 'ArrowUp', 1], [2, 'ArrowUp', null], [9, 'ArrowDown', null]]],
    ['lands on the last item when the row below is short', [[6, 'ArrowDown', 9], [7, 'ArrowDown', 9]]],
    ['goes to the ends with Home and End', [[6, 'Home', 0], [2, 'End', 9], [0, 'Home', null]]],
    ['pages by three rows, staying in the column', [[1, 'PageDown', 7, 2, 20], [7, 'PageUp', 1, 2, 20], [3, 'PageUp', 1, 2, 20], [1, 'PageDown', 9]]],
    ['treats a single row and a single column sensibly', [[2, 'ArrowDown', null, 5, 5], [2, 'ArrowRight', 3, 5, 5], [2, 'ArrowDown', 3, 1, 5], [0, 'ArrowDown', 1, 0, 5], [0, 'ArrowRight', null, 4, 0]]],
  ])('%s', (_name, moves) => {
    for (const [from, key, to, columns = cols, n = count] of moves) {
      expect(nextIndex(from, key, columns, n), `${key} from ${from} (${columns} columns, ${n} items)`).toBe(to);
    }
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
