/**
 * The arithmetic behind the comic reader's wheel, swipe, drag and zoom: when a wheel turns the
 * page, what a swipe means, how far zoom goes and where the page must sit so the point under
 * the pointer stays put. Pure and free of the DOM; `ComicReader.svelte` measures the stage and
 * applies what these functions say.
 *
 * Zoom is relative to the fit: 1 is the page as the fit lays it out, 2 twice that size.
 */

/** The closest zoom: the fit itself. */
export const MIN_ZOOM = 1;
/** The furthest zoom: five times the fitted size. */
export const MAX_ZOOM = 5;
/** The zoom a double-click toggles to. */
export const DOUBLE_CLICK_ZOOM = 2;
/** The zooms `+` and `-` step through. */
export const ZOOM_STEPS: readonly number[] = [1, 1.25, 1.5, 2, 2.5, 3, 4, 5];

/** Wheel travel (px) that doubles (or halves) the zoom with Ctrl held. */
export const WHEEL_ZOOM_DOUBLING_PX = 200;
/** Wheel travel (px), once the page cannot scroll further, that turns it. */
export const WHEEL_TURN_PX = 40;
/** How long the wheel must be still before it can turn another page (ms). */
export const WHEEL_QUIET_MS = 250;
/** One "line" of a wheel that counts in lines, in px. */
export const WHEEL_LINE_PX = 16;

/** How far a press may move (px) and still be a click rather than a drag. */
export const DRAG_SLOP_PX = 8;
/** A swipe is longer than this (px) horizontally... */
export const SWIPE_MIN_PX = 50;
/** ...this many times longer horizontally than vertically... */
export const SWIPE_RATIO = 1.5;
/** ...and quicker than this (ms). */
export const SWIPE_MAX_MS = 600;

export interface Point {
  x: number;
  y: number;
}

export interface Size {
  width: number;
  height: number;
}

export interface Rect extends Point, Size {}

/** A zoom this close to the fit, reached by zooming out, is the fit. */
export const ZOOM_SNAP = 1.05;

/** `zoom` within {@link MIN_ZOOM}–{@link MAX_ZOOM}. */
export function clampZoom(zoom: number): number {
  if (!Number.isFinite(zoom)) return MIN_ZOOM;
  return Math.min(MAX_ZOOM, Math.max(MIN_ZOOM, zoom));
}

/**
 * The zoom after zooming out (a pinch ending, a wheel turned down) to `zoom`: the fit when
 * within {@link ZOOM_SNAP} of it, so a page all but back to its fit turns with the wheel and
 * swipes again.
 */
export function settleZoom(zoom: number): number {
  const clamped = clampZoom(zoom);
  return clamped < ZOOM_SNAP ? MIN_ZOOM : clamped;
}

/** The next zoom step in (`+1`) or out (`-1`) from `zoom`, which may lie between steps. */
export function zoomStep(zoom: number, towards: 1 | -1): number {
  const epsilon = 1e-6;
  if (towards > 0) return ZOOM_STEPS.find((step) => step > zoom + epsilon) ?? MAX_ZOOM;
  for (let i = ZOOM_STEPS.length - 1; i >= 0; i--) if (ZOOM_STEPS[i] < zoom - epsilon) return ZOOM_STEPS[i];
  return MIN_ZOOM;
}

/** The zoom as the toolbar says it: "150 %". */
export function zoomLabel(zoom: number): string {
  return `${Math.round(zoom * 100)} %`;
}

/** A wheel delta in px, whatever unit the wheel counts in (0: px, 1: lines, 2: pages). */
export function wheelPixels(delta: number, mode: number, pagePx: number): number {
  if (mode === 1) return delta * WHEEL_LINE_PX;
  if (mode === 2) return delta * pagePx;
  return delta;
}

/** What Ctrl+wheel multiplies the zoom by: wheel down (positive) zooms out. */
export function wheelZoomFactor(deltaPx: number): number {
  return 2 ** (-deltaPx / WHEEL_ZOOM_DOUBLING_PX);
}

/**
 * The zoom after Ctrl+wheel by `deltaPx` from `zoom`: in (wheel up) by as little as the wheel
 * says, out settling on the fit when near it.
 */
export function wheelZoom(zoom: number, deltaPx: number): number {
  const next = zoom * wheelZoomFactor(deltaPx);
  return deltaPx > 0 ? settleZoom(next) : clampZoom(next);
}

/**
 * Whether a view can still scroll `delta` px's way (down when positive). Half a pixel short of
 * the end counts as the end, since scaled layouts leave fractions.
 */
export function canScroll(scrollTop: number, clientHeight: number, scrollHeight: number, delta: number): boolean {
  if (delta > 0) return scrollTop + clientHeight < scrollHeight - 0.5;
  if (delta < 0) return scrollTop > 0.5;
  return false;
}

/**
 * What to do with one wheel event: `scroll` (let the view scroll), `wait` (nothing yet),
 * `hold` (swallow it: the page just turned), or turn to the `next` or `previous` page.
 */
export type WheelOutcome = 'scroll' | 'wait' | 'hold' | 'next' | 'previous';

/**
 * Turns pages with the wheel when the page has nowhere left to scroll. Wheel travel at the
 * page's edge adds up to {@link WHEEL_TURN_PX}, then the page turns and the wheel is swallowed
 * until it has been still for {@link WHEEL_QUIET_MS}, so one fling of a trackpad (and its
 * momentum) turns one page, and the new page does not scroll away. A gesture that scrolled the
 * page to its edge does not go on to turn it: a further, separate one does.
 */
export class WheelPager {
  #sum = 0;
  #lastAt = Number.NEGATIVE_INFINITY;
  #heldUntil = Number.NEGATIVE_INFINITY;
  #scrolledUntil = Number.NEGATIVE_INFINITY;

  /**
   * One wheel event: `delta` px (down positive), at time `at` (ms), `scrollable` when the view
   * can still scroll that way.
   */
  feed(delta: number, at: number, scrollable: boolean): WheelOutcome {
    if (at < this.#heldUntil) {
      this.#heldUntil = at + WHEEL_QUIET_MS;
      return 'hold';
    }
    if (delta === 0) return 'scroll';
    if (scrollable) {
      this.#sum = 0;
      this.#scrolledUntil = at + WHEEL_QUIET_MS;
      return 'scroll';
    }
    if (at < this.#scrolledUntil) {
      this.#sum = 0;
      this.#scrolledUntil = at + WHEEL_QUIET_MS;
      return 'wait';
    }
    if (at - this.#lastAt > WHEEL_QUIET_MS || Math.sign(this.#sum) !== Math.sign(delta)) this.#sum = 0;
    this.#sum += delta;
    this.#lastAt = at;
    if (Math.abs(this.#sum) < WHEEL_TURN_PX) return 'wait';
    this.#sum = 0;
    this.#heldUntil = at + WHEEL_QUIET_MS;
    return delta > 0 ? 'next' : 'previous';
  }
}

/** Whether a press that moved by (`dx`, `dy`) is a drag rather than a click. */
export function isDrag(dx: number, dy: number): boolean {
  return Math.hypot(dx, dy) > DRAG_SLOP_PX;
}

/**
 * The side of the window whose page a touch swipe brings, or `null` if the movement (`dx`,
 * `dy` px in `ms`) was not a swipe: short, slow or mostly vertical. A swipe to the left pulls
 * in the page on the right, as a paper page is turned.
 */
export function swipeSide(dx: number, dy: number, ms: number): 'left' | 'right' | null {
  if (ms > SWIPE_MAX_MS || Math.abs(dx) <= SWIPE_MIN_PX || Math.abs(dx) <= SWIPE_RATIO * Math.abs(dy)) return null;
  return dx < 0 ? 'right' : 'left';
}

export function distance(a: Point, b: Point): number {
  return Math.hypot(b.x - a.x, b.y - a.y);
}

export function midpoint(a: Point, b: Point): Point {
  return { x: (a.x + b.x) / 2, y: (a.y + b.y) / 2 };
}

/**
 * Where the page's top-left corner must be after zooming from `from` to `to` so that `point`
 * stays over the same spot of the page; `origin` is the corner before.
 */
export function zoomAnchor(origin: Point, point: Point, from: number, to: number): Point {
  const ratio = to / from;
  return {
    x: point.x - (point.x - origin.x) * ratio,
    y: point.y - (point.y - origin.y) * ratio,
  };
}

/**
 * The picture inside an image box laid out as `object-fit: contain` (or sized to the picture's
 * own shape, which comes to the same), placed at `align` (0–1 each way: `object-position` as
 * fractions). A box whose picture size is unknown is all picture.
 */
export function pictureRect(box: Rect, natural: Size, align: Point = { x: 0.5, y: 0.5 }): Rect {
  if (natural.width <= 0 || natural.height <= 0 || box.width <= 0 || box.height <= 0) return { ...box };
  const scale = Math.min(box.width / natural.width, box.height / natural.height);
  const width = natural.width * scale;
  const height = natural.height * scale;
  return {
    x: box.x + (box.width - width) * align.x,
    y: box.y + (box.height - height) * align.y,
    width,
    height,
  };
}

/**
 * A computed `object-position` ("100% 50%", "left top", "center") as fractions; what cannot be
 * read is the centre.
 */
export function objectAlign(position: string | null | undefined): Point {
  const words = (position ?? '').trim().split(/\s+/).filter(Boolean);
  const fraction = (word: string | undefined, axis: 'x' | 'y'): number => {
    if (word === undefined || word === 'center') return 0.5;
    if (word === (axis === 'x' ? 'left' : 'top')) return 0;
    if (word === (axis === 'x' ? 'right' : 'bottom')) return 1;
    const percent = /^(-?\d+(?:\.\d+)?)%$/.exec(word);
    return percent ? Number(percent[1]) / 100 : 0.5;
  };
  // Keywords may come in either order ("top left").
  if (words.length === 2 && (words[0] === 'top' || words[0] === 'bottom' || words[1] === 'left' || words[1] === 'right')) {
    return { x: fraction(words[1], 'x'), y: fraction(words[0], 'y') };
  }
  if (words.length === 1 && (words[0] === 'top' || words[0] === 'bottom')) return { x: 0.5, y: fraction(words[0], 'y') };
  return { x: fraction(words[0], 'x'), y: fraction(words[1], 'y') };
}

/** The smallest rectangle around all of `rects`, or `null` for none. */
export function unionRect(rects: readonly Rect[]): Rect | null {
  if (rects.length === 0) return null;
  let left = Infinity;
  let top = Infinity;
  let right = -Infinity;
  let bottom = -Infinity;
  for (const rect of rects) {
    left = Math.min(left, rect.x);
    top = Math.min(top, rect.y);
    right = Math.max(right, rect.x + rect.width);
    bottom = Math.max(bottom, rect.y + rect.height);
  }
  return { x: left, y: top, width: right - left, height: bottom - top };
}
