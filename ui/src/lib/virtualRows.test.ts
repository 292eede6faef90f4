import { describe, expect, it } from 'vitest';
import { layoutRows, rowAt } from './virtualRows';

describe('layoutRows', () => {
  it('lays out full rows, a short last one, and finds each item its row', () => {
    const layout = layoutRows(11, 4, null, 100, 40, 10);
    expect(layout.rows.map((r) => [r.start, r.count, r.top])).toEqual([
      [0, 4, 0],
      [4, 4, 110],
      [8, 3, 220],
    ]);
    expect(layout.height).toBe(320);
    expect(layout.rowOfItem(7).start).toBe(4);
    expect(layout.rowOfItem(10).start).toBe(8);
    expect(rowAt(layout.rows, 0)).toBe(0);
    expect(rowAt(layout.rows, 215)).toBe(1);
    expect(rowAt(layout.rows, 5000)).toBe(2);
  });

  it('starts a group with a heading, and an item of a group is never on its heading', () => {
    const groups = ['A', 'A', 'A', 'B', null, null];
    const layout = layoutRows(6, 2, (i) => groups[i], 100, 40, 10);
    expect(layout.rows.map((r) => [r.kind, r.label, r.start, r.count])).toEqual([
      ['heading', 'A', 0, 0],
      ['items', null, 0, 2],
      ['items', null, 2, 1],
      ['heading', 'B', 3, 0],
      ['items', null, 3, 1],
      ['items', null, 4, 2],
    ]);
    expect(layout.rowOfItem(0).kind).toBe('items');
    expect(layout.rowOfItem(3)).toBe(layout.rows[4]);
  });

  it('lays out ten thousand items at once', () => {
    const started = performance.now();
    const layout = layoutRows(10_000, 6, (i) => `Series ${Math.floor(i / 7)}`, 300, 40, 24);
    const took = performance.now() - started;
    console.info(`virtual rows: 10,000 items in ${layout.rows.length} rows laid out in ${took.toFixed(1)} ms`);
    expect(layout.rowOfItem(9_999).start).toBeLessThanOrEqual(9_999);
  });
});
