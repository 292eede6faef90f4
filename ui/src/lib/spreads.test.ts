import { describe, expect, it } from 'vitest';
import { leftToRight, nextSpreadStart, pairPages, previousSpreadStart, spreadOf } from './spreads';

const none = () => false;
const wide =
  (...pages: number[]) =>
  (page: number) =>
    pages.includes(page);

describe('pairPages', () => {
  it('shows the cover alone, then pairs the pages, the last one alone when odd', () => {
    expect(pairPages(8, none)).toEqual([[0], [1, 2], [3, 4], [5, 6], [7]]);
    expect(pairPages(7, none)).toEqual([[0], [1, 2], [3, 4], [5, 6]]);
    expect(pairPages(1, none)).toEqual([[0]]);
    expect(pairPages(0, none)).toEqual([]);
  });

  it('shows a wide page alone and pairs afresh after it', () => {
    expect(pairPages(8, wide(3))).toEqual([[0], [1, 2], [3], [4, 5], [6, 7]]);
    // A page before a wide one has no partner left.
    expect(pairPages(8, wide(2))).toEqual([[0], [1], [2], [3, 4], [5, 6], [7]]);
    expect(pairPages(6, wide(3, 4))).toEqual([[0], [1, 2], [3], [4], [5]]);
    // A wide cover is alone anyway.
    expect(pairPages(3, wide(0))).toEqual([[0], [1, 2]]);
  });
});

describe('pairPages shifted by one', () => {
  it('shows page 1 alone after the cover, then pairs from page 2', () => {
    expect(pairPages(8, none, true)).toEqual([[0], [1], [2, 3], [4, 5], [6, 7]]);
    expect(pairPages(7, none, true)).toEqual([[0], [1], [2, 3], [4, 5], [6]]);
    expect(pairPages(2, none, true)).toEqual([[0], [1]]);
    expect(pairPages(0, none, true)).toEqual([]);
  });

  it('still shows a wide page alone and pairs afresh after it', () => {
    expect(pairPages(8, wide(4), true)).toEqual([[0], [1], [2, 3], [4], [5, 6], [7]]);
    expect(pairPages(8, wide(3), true)).toEqual([[0], [1], [2], [3], [4, 5], [6, 7]]);
  });
});

describe('the order on screen', () => {
  it('puts the first page of a pair on the left in left-to-right books and on the right in manga', () => {
    expect(leftToRight([1, 2], 'ltr')).toEqual([1, 2]);
    expect(leftToRight([1, 2], 'rtl')).toEqual([2, 1]);
    expect(leftToRight([0], 'rtl')).toEqual([0]);
  });
});

describe('turning by spread', () => {
  const spreads = pairPages(8, wide(5));
  // [0] [1,2] [3,4] [5] [6,7]

  it('moves to the next and previous spread, and stops at the ends', () => {
    expect(nextSpreadStart(spreads, 0)).toBe(1);
    expect(nextSpreadStart(spreads, 1)).toBe(3);
    expect(nextSpreadStart(spreads, 3)).toBe(5);
    expect(nextSpreadStart(spreads, 5)).toBe(6);
    expect(nextSpreadStart(spreads, 6)).toBe(6);
    expect(previousSpreadStart(spreads, 6)).toBe(5);
    expect(previousSpreadStart(spreads, 5)).toBe(3);
    expect(previousSpreadStart(spreads, 1)).toBe(0);
    expect(previousSpreadStart(spreads, 0)).toBe(0);
  });

  it('turns from the second page of a pair as from its first', () => {
    expect(nextSpreadStart(spreads, 2)).toBe(3);
    expect(previousSpreadStart(spreads, 4)).toBe(1);
  });

  it('lands any page on the spread that shows it', () => {
    expect(spreadOf(spreads, 0)).toEqual([0]);
    expect(spreadOf(spreads, 1)).toEqual([1, 2]);
    expect(spreadOf(spreads, 2)).toEqual([1, 2]);
    expect(spreadOf(spreads, 4)).toEqual([3, 4]);
    expect(spreadOf(spreads, 5)).toEqual([5]);
    expect(spreadOf(spreads, 7)).toEqual([6, 7]);
    expect(spreadOf(spreads, 99)).toEqual([6, 7]);
    expect(spreadOf([], 3)).toEqual([]);
  });
});
