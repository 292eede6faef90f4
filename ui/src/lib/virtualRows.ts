/**
 * The rows of a virtual grid (components/VirtualGrid.svelte), laid out by number: `count` items
 * in `columns` columns, a heading row starting each group when items are grouped, each row's
 * top and height in pixels. Only arithmetic, so ten thousand items lay out in a blink and the
 * grid draws only the rows in view.
 */

export interface GridRow {
  kind: 'heading' | 'items';
  /** A heading's text (the group's name). */
  label: string | null;
  /** The first item of the row (for a heading, of its group). */
  start: number;
  /** Items on the row (0 for a heading). */
  count: number;
  top: number;
  height: number;
}

export interface GridLayout {
  rows: GridRow[];
  /** The whole grid's height. */
  height: number;
  /** The row item `index` is on. */
  rowOfItem(index: number): GridRow;
}

export function layoutRows(
  count: number,
  columns: number,
  groupOf: ((index: number) => string | null) | null,
  rowHeight: number,
  headingHeight: number,
  gap: number,
): GridLayout {
  const cols = Math.max(1, Math.floor(columns));
  const rows: GridRow[] = [];
  let top = 0;
  let index = 0;
  while (index < count) {
    let end = count;
    if (groupOf) {
      const label = groupOf(index);
      end = index + 1;
      while (end < count && groupOf(end) === label) end++;
      if (label !== null) {
        rows.push({ kind: 'heading', label, start: index, count: 0, top, height: headingHeight });
        top += headingHeight;
      }
    }
    for (let start = index; start < end; start += cols) {
      const n = Math.min(cols, end - start);
      rows.push({ kind: 'items', label: null, start, count: n, top, height: rowHeight });
      top += rowHeight + gap;
    }
    index = end;
  }
  const height = rows.length > 0 ? Math.max(0, top - (rows.at(-1)?.kind === 'items' ? gap : 0)) : 0;
  return {
    rows,
    height,
    rowOfItem(i: number): GridRow {
      // The last row starting at or before `i`: an items row wins over its group's heading.
      return rows[lastRowAtOrBefore(rows, 'start', i)];
    },
  };
}

/** The index of the row at height `y` (the last row whose top is at or above it). */
export function rowAt(rows: readonly GridRow[], y: number): number {
  return lastRowAtOrBefore(rows, 'top', y);
}

/** The index of the last row whose `key` is at most `value` (rows are in order of it; 0 if none is). */
function lastRowAtOrBefore(rows: readonly GridRow[], key: 'start' | 'top', value: number): number {
  let lo = 0;
  let hi = rows.length - 1;
  while (lo < hi) {
    const mid = (lo + hi + 1) >> 1;
    if (rows[mid][key] <= value) lo = mid;
    else hi = mid - 1;
  }
  return lo;
}
