import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { createRawSnippet, flushSync, tick } from 'svelte';
import { fireEvent, render, waitFor } from '@testing-library/svelte';

import VirtualGrid from './VirtualGrid.svelte';

interface Item {
  id: number;
  name: string;
  group: string;
}

const items: Item[] = Array.from({ length: 10_000 }, (_, i) => ({
  id: i + 1,
  name: `Book ${i + 1}`,
  group: i < 7 ? 'Akira' : i < 12 ? 'Blueberry' : 'Zazie',
}));

const tile = createRawSnippet((item: () => Item) => ({
  render: () => `<button type="button" data-grid-item data-testid="cell">${item().name}</button>`,
}));

/** jsdom lays nothing out: the grid is 840 px wide (five 152 px columns), the view 768 px tall. */
function layOut() {
  vi.spyOn(HTMLElement.prototype, 'clientWidth', 'get').mockImplementation(function (this: HTMLElement) {
    return this.classList.contains('virtual-grid') ? 840 : 0;
  });
}

function mount(props: Partial<{ items: Item[]; groupOf: ((item: Item) => string | null) | null }> = {}) {
  const host = document.createElement('div');
  host.style.overflowY = 'auto';
  document.body.append(host);
  const result = render(VirtualGrid<Item>, {
    target: host,
    props: { items: props.items ?? items, key: (i: Item) => i.id, label: 'Books', tile, groupOf: props.groupOf ?? null },
  });
  flushSync();
  return { ...result, host };
}

const drawn = (container: HTMLElement) => Array.from(container.querySelectorAll<HTMLElement>('li.item'));
const focusedIndex = () => (document.activeElement as HTMLElement | null)?.closest<HTMLElement>('li')?.dataset.index;

describe('VirtualGrid', () => {
  beforeEach(() => layOut());
  afterEach(() => {
    document.body.innerHTML = '';
  });

  it('puts only the rows in view in the page, each item telling its place in the whole list', async () => {
    const { container } = mount();
    await tick();
    const lis = drawn(container);
    expect(lis.length).toBeGreaterThan(0);
    expect(lis.length).toBeLessThan(100);
    expect(lis[0].getAttribute('aria-setsize')).toBe('10000');
    expect(lis[0].getAttribute('aria-posinset')).toBe('1');
    const grid = container.querySelector<HTMLElement>('[data-testid="virtual-grid"]')!;
    expect(grid.dataset.columns).toBe('5');
    expect(grid.getAttribute('aria-label')).toBe('Books');
    // 2,000 rows of 300 px and 24 px between them.
    expect(parseFloat(grid.style.height)).toBe(2000 * 300 + 1999 * 24);
  });

  it('draws the rows scrolled to, and no others', async () => {
    const { container, host } = mount();
    const grid = container.querySelector<HTMLElement>('.virtual-grid')!;
    vi.spyOn(grid, 'getBoundingClientRect').mockReturnValue({ top: -324 * 1000 } as DOMRect);
    await fireEvent.scroll(host);
    await waitFor(() => expect(drawn(container).some((li) => li.dataset.index === '5000')).toBe(true));
    expect(drawn(container).some((li) => li.dataset.index === '0')).toBe(false);
    expect(drawn(container).length).toBeLessThan(100);
  });

  it('keeps one Tab stop and moves by arrows, rows and ends — scrolling the far end into the page', async () => {
    const { container } = mount();
    await tick();
    const buttons = () => Array.from(container.querySelectorAll<HTMLElement>('[data-grid-item]'));
    await waitFor(() => expect(buttons().filter((b) => b.tabIndex === 0)).toHaveLength(1));
    const first = buttons()[0];
    expect(first.tabIndex).toBe(0);
    first.focus();
    await fireEvent.keyDown(first, { key: 'ArrowRight' });
    await waitFor(() => expect(focusedIndex()).toBe('1'));
    await fireEvent.keyDown(document.activeElement!, { key: 'ArrowDown' });
    await waitFor(() => expect(focusedIndex()).toBe('6'));
    await fireEvent.keyDown(document.activeElement!, { key: 'End' });
    await waitFor(() => expect(focusedIndex()).toBe('9999'));
    expect(drawn(container).some((li) => li.dataset.index === '0')).toBe(false);
    await fireEvent.keyDown(document.activeElement!, { key: 'ArrowRight' });
    expect(focusedIndex()).toBe('9999');
    await fireEvent.keyDown(document.activeElement!, { key: 'Home' });
    await waitFor(() => expect(focusedIndex()).toBe('0'));
    await waitFor(() => expect(buttons().filter((b) => b.tabIndex === 0)).toEqual([document.activeElement]));
  });

  it('starts each group on a row of its own under its heading, and Down goes into the next group', async () => {
    const { container } = mount({ groupOf: (i) => i.group });
    await tick();
    const headings = Array.from(container.querySelectorAll('h2')).map((h) => h.textContent);
    expect(headings.slice(0, 3)).toEqual(['Akira', 'Blueberry', 'Zazie']);
    const lis = drawn(container);
    const top = (index: number) => lis.find((li) => li.dataset.index === String(index))!.style.top;
    expect(top(5)).not.toBe(top(4));
    expect(top(7)).not.toBe(top(6));
    const first = lis[0].querySelector<HTMLElement>('[data-grid-item]')!;
    first.focus();
    await fireEvent.keyDown(first, { key: 'ArrowDown' });
    await waitFor(() => expect(focusedIndex()).toBe('5'));
    await fireEvent.keyDown(document.activeElement!, { key: 'ArrowDown' });
    await waitFor(() => expect(focusedIndex()).toBe('7'));
    await fireEvent.keyDown(document.activeElement!, { key: 'ArrowDown' });
    await waitFor(() => expect(focusedIndex()).toBe('12'));
    await fireEvent.keyDown(document.activeElement!, { key: 'ArrowUp' });
    await waitFor(() => expect(focusedIndex()).toBe('7'));
  });
});
