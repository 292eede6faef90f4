import { beforeEach, describe, expect, it } from 'vitest';
import { MAX_TURN_MS, PACE_MIN_MS, PACE_MIN_TURNS, PaceMeter, loadPace, minutesLeft, parsePace } from './readingPace';

describe('the reader’s pace', () => {
  beforeEach(() => localStorage.clear());

  it('says nothing before enough pages were turned', () => {
    expect(minutesLeft({ units: 2, ms: 10 * 60_000, turns: PACE_MIN_TURNS - 1 }, 10)).toBeNull();
    expect(minutesLeft({ units: 2, ms: PACE_MIN_MS - 1, turns: 20 }, 10)).toBeNull();
  });

  it('turns the pace into minutes, rounded up', () => {
    // 1 unit a minute.
    const pace = { units: 10, ms: 10 * 60_000, turns: 10 };
    expect(minutesLeft(pace, 4)).toBe(4);
    expect(minutesLeft(pace, 4.2)).toBe(5);
    expect(minutesLeft(pace, 0.01)).toBe(1);
    expect(minutesLeft(pace, 0)).toBe(0);
    // Twice as fast: half the time.
    expect(minutesLeft({ ...pace, units: 20 }, 10)).toBe(5);
  });

  it('counts pages read forward, not jumps, turns back or long pauses, and keeps them per book', () => {
    const meter = new PaceMeter(3);
    let at = 0;
    let remaining = 100;
    meter.moved(remaining, at);
    for (let i = 0; i < 6; i++) meter.moved((remaining -= 0.5), (at += 30_000));
    expect(meter.pace).toEqual({ units: 3, ms: 180_000, turns: 6 });
    meter.moved((remaining += 0.5), (at += 30_000)); // back
    meter.moved((remaining -= 40), (at += 30_000)); // a jump
    meter.moved((remaining -= 0.5), (at += MAX_TURN_MS + 1)); // after a pause
    meter.moved((remaining -= 0.5), (at += 200)); // skipped
    expect(meter.pace.turns).toBe(6);
    // One unit a minute: 10 units in the chapter, 56 in the book.
    expect(meter.left(10, 56)).toEqual({ chapter: 10, book: 56 });
    expect(loadPace(3)).toEqual(meter.pace);
    expect(new PaceMeter(3).pace).toEqual(meter.pace);
    expect(new PaceMeter(4).pace).toEqual({ units: 0, ms: 0, turns: 0 });
  });

  it('reads only a valid stored pace', () => {
    expect(parsePace({ units: 1, ms: 2, turns: 3 })).toEqual({ units: 1, ms: 2, turns: 3 });
    expect(parsePace({ units: -1, ms: 2, turns: 3 })).toEqual({ units: 0, ms: 0, turns: 0 });
    expect(parsePace('x')).toEqual({ units: 0, ms: 0, turns: 0 });
  });
});
