/**
 * Arrow keys in a grid of covers or tiles: Left/Right move by one, Up/Down by a row, Home/End
 * to the first and last, PageUp/PageDown by a few rows. The grid is one Tab stop (a "roving"
 * tabindex): Tab enters it at the item last focused, and leaves it with the next Tab.
 *
 * The columns are measured from the layout, so the keys follow what the reader sees whatever
 * the window's width.
 */

export const GRID_ITEM = '[data-grid-item]';

const KEYS = ['ArrowLeft', 'ArrowRight', 'ArrowUp', 'ArrowDown', 'Home', 'End', 'PageUp', 'PageDown'] as const;
export type GridKey = (typeof KEYS)[number];

export function isGridKey(key: string): key is GridKey {
  return (KEYS as readonly string[]).includes(key);
}

/** Rows moved by PageUp and PageDown. */
export const PAGE_ROWS = 3;

/**
 * Where focus goes from `current` on `key` in a grid of `count` items laid out in `columns`
 * columns, or `null` when it stays (at an edge). Moves never wrap: Right at the end of a row
 * goes on to the next row's first item, as reading does, but not past the last item.
 */
export function nextIndex(current: number, key: GridKey, columns: number, count: number): number | null {
  if (count <= 0) return null;
  const cols = Math.max(1, Math.floor(columns));
  const from = Math.min(Math.max(current, 0), count - 1);
  let to: number;
  switch (key) {
    case 'ArrowLeft':
      to = from - 1;
      break;
    case 'ArrowRight':
      to = from + 1;
      break;
    case 'ArrowUp':
      to = from - cols;
      break;
    case 'ArrowDown':
      // From the row above a short last row, Down lands on its last item.
      to = from + cols < count ? from + cols : Math.floor(from / cols) < Math.floor((count - 1) / cols) ? count - 1 : from;
      break;
    case 'Home':
      to = 0;
      break;
    case 'End':
      to = count - 1;
      break;
    case 'PageUp':
      to = Math.max(from % cols, from - cols * PAGE_ROWS);
      break;
    case 'PageDown': {
      const target = from + cols * PAGE_ROWS;
      to = target < count ? target : Math.floor(from / cols) < Math.floor((count - 1) / cols) ? count - 1 : from;
      break;
    }
  }
  if (to < 0 || to >= count || to === from) return null;
  return to;
}

/** How many items sit on the first row, from their positions on screen. */
export function columnsOf(items: readonly HTMLElement[]): number {
  if (items.length === 0) return 1;
  const top = items[0].getBoundingClientRect().top;
  let columns = 0;
  for (const item of items) {
    if (Math.abs(item.getBoundingClientRect().top - top) > 2) break;
    columns++;
  }
  return Math.max(1, columns);
}

export interface GridNavOptions {
  /** Fixed columns, instead of measuring (a single row: `Infinity`; a list: 1). */
  columns?: number;
}

/**
 * Makes the items (`[data-grid-item]`) inside `node` a grid for the arrow keys, with one Tab
 * stop. Items may come and go (pages appended): the Tab stop stays on the item that had it, or
 * the first one.
 */
export function gridNav(node: HTMLElement, options: GridNavOptions = {}) {
  let current = options;
  let stop: HTMLElement | null = null;

  const items = () => Array.from(node.querySelectorAll<HTMLElement>(GRID_ITEM));

  function setStop(target: HTMLElement | null, list = items()) {
    stop = target && list.includes(target) ? target : (list[0] ?? null);
    for (const item of list) item.tabIndex = item === stop ? 0 : -1;
  }

  function onkeydown(event: KeyboardEvent) {
    if (event.altKey || event.ctrlKey || event.metaKey || event.shiftKey || !isGridKey(event.key)) return;
    const list = items();
    const from = list.findIndex((item) => item === event.target || item.contains(event.target as Node));
    if (from < 0) return;
    const columns = current.columns ?? columnsOf(list);
    const to = nextIndex(from, event.key, Number.isFinite(columns) ? columns : list.length, list.length);
    // Keys that would leave the grid are still the grid's: the page must not scroll instead.
    event.preventDefault();
    if (to === null) return;
    setStop(list[to], list);
    list[to].focus();
    list[to].scrollIntoView?.({ block: 'nearest', inline: 'nearest' });
  }

  function onfocusin(event: FocusEvent) {
    const list = items();
    const item = list.find((i) => i === event.target || i.contains(event.target as Node));
    if (item && item !== stop) setStop(item, list);
  }

  const observer = new MutationObserver(() => setStop(stop));
  observer.observe(node, { childList: true, subtree: true });
  setStop(null);

  node.addEventListener('keydown', onkeydown);
  node.addEventListener('focusin', onfocusin);

  return {
    update(next: GridNavOptions = {}) {
      current = next;
    },
    destroy() {
      observer.disconnect();
      node.removeEventListener('keydown', onkeydown);
      node.removeEventListener('focusin', onfocusin);
    },
  };
}
