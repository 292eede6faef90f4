import { describe, expect, it } from 'vitest';
import { canScroll, clampZoom, distance, isDrag, midpoint, objectAlign, pictureRect, settleZoom, swipeSide, unionRect, WheelPager, wheelPixels, wheelZoom, wheelZoomFactor, zoomAnchor, zoomLabel, zoomStep } from './pageGestures';

describe('zoom limits and steps', () => {
  it.each<[string, [(zoom: number) => number, number, number][]]>([
    ['keeps zoom between the fit and five times it', [[clampZoom, 0.5, 1], [clampZoom, 1, 1], [clampZoom, 2.37, 2.37], [clampZoom, 5, 5], [clampZoom, 7, 5], [clampZoom, Number.NaN, 1], [clampZoom, Infinity, 1]]],
    ['settles a zoom all but back at the fit on the fit', [[clampZoom, 1.003, 1.003], [settleZoom, 1.049, 1], [settleZoom, 1.05, 1.05], [settleZoom, 0.7, 1], [settleZoom, 6, 5]]],
  ])('%s', (_name, zooms) => {
    for (const [settle, zoom, settled] of zooms) expect(settle(zoom), `${settle.name}(${zoom})`).toBe(settled);
  });

  it('zooms in with Ctrl+wheel by however little, and out settling on the fit', () => {
    // A trackpad's 2 px: a little in, not lost.
    expect(wheelZoom(1, -2)).toBeCloseTo(1.006956, 6);
    expect(wheelZoom(1.5, -200)).toBe(3);
    expect(wheelZoom(4, -200)).toBe(5);
    expect(wheelZoom(3, 200)).toBe(1.5);
    expect(wheelZoom(1.08, 20)).toBe(1); // 1.0077: near enough
    expect(wheelZoom(1.2, 20)).toBeCloseTo(1.2 * 2 ** -0.1, 12);
  });

  it('steps in and out through the ladder, from between steps too', () => {
    const steps: [number, 1 | -1, number][] = [[1, 1, 1.25], [1.25, 1, 1.5], [1.7, 1, 2], [4, 1, 5], [5, 1, 5], [5, -1, 4], [1.7, -1, 1.5], [1.25, -1, 1], [1, -1, 1]];
    for (const [zoom, towards, next] of steps) expect(zoomStep(zoom, towards), `from ${zoom} towards ${towards}`).toBe(next);
  });

  it('says the zoom as a whole percentage', () => {
    expect(zoomLabel(1)).toBe('100 %');
    expect(zoomLabel(1.5)).toBe('150 %');
    expect(zoomLabel(2.3456)).toBe('235 %');
  });
});

describe('the wheel', () => {
  it('counts lines and pages in px', () => {
    expect(wheelPixels(120, 0, 900)).toBe(120);
    expect(wheelPixels(3, 1, 900)).toBe(48);
    expect(wheelPixels(-1, 2, 900)).toBe(-900);
  });

  it('zooms by a factor that doubles every 200 px of Ctrl+wheel, in when wheeled up', () => {
    expect(wheelZoomFactor(-200)).toBe(2);
    expect(wheelZoomFactor(200)).toBe(0.5);
    expect(wheelZoomFactor(0)).toBe(1);
    expect(wheelZoomFactor(-100)).toBeCloseTo(Math.SQRT2, 12);
  });

  it('knows when a view has room left to scroll each way', () => {
    // 1000 px of page in a 600 px view.
    expect(canScroll(0, 600, 1000, 50)).toBe(true);
    expect(canScroll(0, 600, 1000, -50)).toBe(false);
    expect(canScroll(399, 600, 1000, 50)).toBe(true);
    expect(canScroll(399.6, 600, 1000, 50)).toBe(false);
    expect(canScroll(400, 600, 1000, 50)).toBe(false);
    expect(canScroll(400, 600, 1000, -50)).toBe(true);
    // A page that fits has nowhere to go.
    expect(canScroll(0, 600, 600, 50)).toBe(false);
    expect(canScroll(0, 600, 600, -50)).toBe(false);
    expect(canScroll(0, 600, 1000, 0)).toBe(false);
  });

  /** Gives a new pager wheel events in turn: each a delta (px), a time (ms), whether the page could still scroll that way, and what the pager should answer. */
  function feed(events: [number, number, boolean, ReturnType<WheelPager['feed']>][]): void {
    const pager = new WheelPager();
    for (const [delta, at, scrollable, answer] of events) expect(pager.feed(delta, at, scrollable), `${delta} px at ${at} ms`).toBe(answer);
  }

  it('turns one page per notch of a mouse wheel, down for the next and up for the previous', () => {
    feed([[100, 0, false, 'next'], [100, 400, false, 'next'], [-100, 800, false, 'previous']]);
  });

  it('adds small deltas up to the threshold before turning', () => {
    // 39 px wait, 40 px turn.
    feed([[15, 0, false, 'wait'], [15, 10, false, 'wait'], [9, 20, false, 'wait'], [1, 30, false, 'next']]);
  });

  it('starts counting afresh after a pause or a change of direction', () => {
    feed([
      [30, 0, false, 'wait'],
      // The first 30 px were too long ago; then up: the 30 px down are dropped.
      [30, 251, false, 'wait'], [-30, 260, false, 'wait'], [-10, 270, false, 'previous'],
    ]);
  });

  it('turns one page for a whole trackpad fling and swallows its momentum', () => {
    // Momentum every 16 ms for a second: all held, none turns.
    const momentum: [number, number, boolean, 'hold'][] = [];
    for (let at = 16; at <= 1000; at += 16) momentum.push([20, at, false, 'hold']);
    feed([
      [60, 0, false, 'next'],
      ...momentum,
      // Also when the new page could scroll: it must not scroll away under the fling.
      [20, 1010, true, 'hold'],
      // Still for 250 ms: the next notch turns again.
      [60, 1260, false, 'next'],
    ]);
  });

  it('lets a tall page scroll, and turns only with a further wheel at its edge', () => {
    feed([
      [100, 0, true, 'scroll'], [100, 50, true, 'scroll'],
      // The bottom is reached while the wheel still turns: no turn yet.
      [100, 100, false, 'wait'], [100, 300, false, 'wait'],
      // A separate notch after a pause turns the page.
      [100, 551, false, 'next'],
    ]);
  });

  it('lets horizontal wheels through', () => {
    feed([[0, 0, false, 'scroll'], [100, 10, false, 'next'], [0, 20, false, 'hold']]);
  });
});

describe('clicks, drags and swipes', () => {
  it('tells a click from a drag by 8 px of movement', () => {
    expect(isDrag(0, 0)).toBe(false);
    expect(isDrag(8, 0)).toBe(false);
    expect(isDrag(6, 6)).toBe(true); // 8.49 px
    expect(isDrag(0, -9)).toBe(true);
  });

  it('brings the page on the right with a swipe to the left, and the one on the left with a swipe to the right', () => {
    expect(swipeSide(-120, 10, 200)).toBe('right');
    expect(swipeSide(120, -10, 200)).toBe('left');
  });

  it('ignores short, slow and mostly vertical movements', () => {
    expect(swipeSide(-50, 0, 100)).toBeNull();
    expect(swipeSide(-51, 0, 100)).toBe('right');
    expect(swipeSide(-120, 0, 601)).toBeNull();
    expect(swipeSide(-120, 0, 600)).toBe('right');
    expect(swipeSide(-150, 100, 200)).toBeNull(); // exactly 1.5 times
    expect(swipeSide(-151, 100, 200)).toBe('right');
    expect(swipeSide(30, 300, 200)).toBeNull();
  });

  it('measures two fingers', () => {
    expect(distance({ x: 0, y: 0 }, { x: 30, y: 40 })).toBe(50);
    expect(midpoint({ x: 10, y: 20 }, { x: 30, y: 60 })).toEqual({ x: 20, y: 40 });
  });
});

describe('zooming about a point', () => {
  it('keeps the point under the pointer over the same spot of the page', () => {
    // The page's corner at (100, 50); the pointer at (300, 250), 200 px right and down of it.
    expect(zoomAnchor({ x: 100, y: 50 }, { x: 300, y: 250 }, 1, 2)).toEqual({ x: -100, y: -150 });
    expect(zoomAnchor({ x: -100, y: -150 }, { x: 300, y: 250 }, 2, 1)).toEqual({ x: 100, y: 50 });
    expect(zoomAnchor({ x: 0, y: 0 }, { x: 400, y: 100 }, 2, 3)).toEqual({ x: -200, y: -50 });
  });

  it('does not move a page zoomed about its own corner', () => {
    expect(zoomAnchor({ x: 20, y: 30 }, { x: 20, y: 30 }, 1, 4)).toEqual({ x: 20, y: 30 });
  });

  it('finds the picture in a box laid out as contain, at its object-position', () => {
    // A 1000×1500 page in a 1200×600 box: 400×600, centred, at the right, at the left.
    const box = { x: 0, y: 100, width: 1200, height: 600 };
    const natural = { width: 1000, height: 1500 };
    expect(pictureRect(box, natural)).toEqual({ x: 400, y: 100, width: 400, height: 600 });
    expect(pictureRect(box, natural, { x: 1, y: 0.5 })).toEqual({ x: 800, y: 100, width: 400, height: 600 });
    expect(pictureRect(box, natural, { x: 0, y: 0.5 })).toEqual({ x: 0, y: 100, width: 400, height: 600 });
    // A wide page in a tall box: letterboxed above and below.
    expect(pictureRect({ x: 0, y: 0, width: 600, height: 900 }, { width: 1200, height: 600 })).toEqual({ x: 0, y: 300, width: 600, height: 300 });
    // A box already of the picture's shape is all picture; an unknown picture too.
    expect(pictureRect({ x: 5, y: 6, width: 200, height: 300 }, { width: 400, height: 600 })).toEqual({ x: 5, y: 6, width: 200, height: 300 });
    expect(pictureRect({ x: 5, y: 6, width: 200, height: 300 }, { width: 0, height: 0 })).toEqual({ x: 5, y: 6, width: 200, height: 300 });
  });

  it('reads object-position as fractions', () => {
    expect(objectAlign('100% 50%')).toEqual({ x: 1, y: 0.5 });
    expect(objectAlign('0% 50%')).toEqual({ x: 0, y: 0.5 });
    expect(objectAlign('right center')).toEqual({ x: 1, y: 0.5 });
    expect(objectAlign('left center')).toEqual({ x: 0, y: 0.5 });
    expect(objectAlign('top left')).toEqual({ x: 0, y: 0 });
    expect(objectAlign('bottom')).toEqual({ x: 0.5, y: 1 });
    expect(objectAlign('25% 75%')).toEqual({ x: 0.25, y: 0.75 });
    expect(objectAlign('')).toEqual({ x: 0.5, y: 0.5 });
    expect(objectAlign(undefined)).toEqual({ x: 0.5, y: 0.5 });
    expect(objectAlign('calc(10px + 5%) 2em')).toEqual({ x: 0.5, y: 0.5 });
  });

  it('bounds two facing pages together', () => {
    expect(unionRect([])).toBeNull();
    expect(
      unionRect([
        { x: 400, y: 100, width: 400, height: 600 },
        { x: 800, y: 120, width: 380, height: 570 },
      ]),
    ).toEqual({ x: 400, y: 100, width: 780, height: 600 });
  });
});
