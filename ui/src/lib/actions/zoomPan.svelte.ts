/**
 * Turning, zooming and panning the comic reader's paged stage with a mouse, a wheel and fingers.
 *
 * One or two pages zoom up to five times their fit, about the point under the pointer: Ctrl+wheel,
 * a pinch, a double-click in the middle third (2×, or back), and whatever calls
 * [`ZoomPan.zoomTo`] (the keys, the toolbar). Zoomed pages are laid out at their zoomed size in
 * the scrolling stage (`zoomedSize`), so they pan by scrolling — the wheel, a drag of the mouse
 * or a finger — and never leave the view. The zoom holds while pages turn: each new page is
 * measured at its fit once it has loaded (`measure`), then laid out at the zoom. A click on the
 * left or right third turns the page; a click in the middle third is a tap (the reader shows or
 * hides its bars) unless it is half of a double-click; a quick sideways swipe at the fit turns
 * the page, and so does the wheel once the page has no room left to scroll that way. The arithmetic is in `pageGestures.ts`; this file measures the stage and applies it.
 *
 * `use:zoomPan={pan}` gives the stage element to `pan` and listens on it.
 */
import { flushSync } from 'svelte';
import type { CssVars } from './cssVars';
import {
  canScroll,
  clampZoom,
  distance,
  DOUBLE_CLICK_ZOOM,
  isDrag,
  midpoint,
  MIN_ZOOM,
  objectAlign,
  pictureRect,
  settleZoom,
  swipeSide,
  unionRect,
  WheelPager,
  wheelPixels,
  wheelZoom,
  zoomAnchor,
  type Point,
  type Rect,
  type Size,
} from '../pageGestures';
import { reader, zoneAt } from '../stores/reader.svelte';

/** How long a click in the middle waits for a second click before it counts as a tap (ms). */
export const TAP_WAIT_MS = 300;

interface Press {
  id: number;
  touch: boolean;
  start: Point;
  last: Point;
  at: number;
  scrollLeft: number;
  moved: boolean;
}

export class ZoomPan {
  /** The pictures' sizes as fitted (px), measured when zooming in from the fit. */
  fitted = $state<Partial<Record<number, Size>>>({});
  /** A mouse or a finger is dragging the zoomed pages about. */
  dragging = $state(false);

  /** The stage, while `use:zoomPan` is on it. */
  #stage: HTMLElement | null = null;
  readonly #wheel = new WheelPager();
  /** The press (mouse button or one finger) under way on the stage. */
  #press: Press | null = null;
  /** The fingers on the stage. */
  readonly #touches = new Map<number, Point>();
  /** A pinch under way: the zoom and fingers' distance it started with, and their last middle. */
  #pinch: { zoom: number; distance: number; middle: Point } | null = null;
  /** The click ending a drag, swipe or pinch turns no page. */
  #swallowClick = false;
  /** A click in the middle, waiting to be sure it is not the first of a double-click. */
  #tap: ReturnType<typeof setTimeout> | null = null;

  /** The book is open. */
  readonly #ready: () => boolean;
  /** The pages shown have loaded and may zoom. */
  readonly #zoomable: () => boolean;
  /** What a click in the middle third does. */
  readonly #tapped: () => void;

  constructor(ready: () => boolean, zoomable: () => boolean, tapped: () => void = () => {}) {
    this.#ready = ready;
    this.#zoomable = zoomable;
    this.#tapped = tapped;
  }

  /**
   * A page shown while zoomed has just loaded, laid out at its fit: measured there, it is then
   * laid out at the zoom the pages before it had, from its start.
   */
  measure(image: HTMLImageElement): void {
    const page = Number(image.dataset.pageIndex);
    if (!reader.zoomed || !Number.isInteger(page) || this.fitted[page] !== undefined) return;
    const { width, height } = pictureOf(image);
    if (!(width > 0 && height > 0)) return;
    this.fitted = { ...this.fitted, [page]: { width, height } };
    flushSync();
    const view = this.#stage;
    view?.scrollTo?.({ top: 0, left: reader.direction === 'rtl' ? view.scrollWidth : 0 });
  }

  /** The pages shown are laid out at their zoomed size (each one measured at its fit). */
  isZoomed(shown: readonly number[]): boolean {
    return reader.zoomed && shown.every((page) => this.fitted[page] !== undefined);
  }

  /** The zoomed size of a page's image, for the stylesheet; nothing at the fit. */
  zoomedSize(page: number, shown: readonly number[]): CssVars {
    const size = this.fitted[page];
    if (!this.isZoomed(shown) || !size) return {};
    return { '--zoom-width': `${size.width * reader.zoom}px`, '--zoom-height': `${size.height * reader.zoom}px` };
  }

  /**
   * Zooms the pages shown to `target` (clamped) about `at` (the stage's centre if not given):
   * lays them out at the new size, then scrolls so the spot under `at` stays under it.
   */
  zoomTo(target: number, at?: Point): void {
    const view = this.#stage;
    if (!view || !this.#zoomable()) return;
    const from = reader.zoom;
    const to = clampZoom(target);
    if (to === from) return;
    const images = this.#images();
    const before = unionRect(images.map(pictureOf));
    if (!reader.zoomed) {
      this.fitted = Object.fromEntries(
        images.map((image) => {
          const { width, height } = pictureOf(image);
          return [Number(image.dataset.pageIndex), { width, height }];
        }),
      );
    }
    const rect = view.getBoundingClientRect();
    const point = at ?? { x: rect.left + rect.width / 2, y: rect.top + rect.height / 2 };
    reader.setZoom(to);
    flushSync();
    const after = unionRect(this.#images().map(pictureOf));
    if (!before || !after) return;
    const wanted = zoomAnchor(before, point, from, to);
    view.scrollLeft += after.x - wanted.x;
    view.scrollTop += after.y - wanted.y;
  }

  #images(): HTMLImageElement[] {
    return Array.from(this.#stage?.querySelectorAll<HTMLImageElement>('img.page') ?? []);
  }

  attach(stage: HTMLElement): () => void {
    this.#stage = stage;
    const listeners: Array<[string, (event: never) => void, AddEventListenerOptions?]> = [
      ['click', this.#onclick],
      ['dblclick', this.#ondblclick],
      // The wheel turns pages, so it must be able to hold the view still (not a passive listener).
      ['wheel', this.#onwheel, { passive: false }],
      ['pointerdown', this.#onpointerdown],
      ['pointermove', this.#onpointermove],
      ['pointerup', this.#onpointerup],
      ['pointercancel', this.#onpointerup],
    ];
    for (const [type, listener, options] of listeners) stage.addEventListener(type, listener as EventListener, options);
    // Zoomed sizes were measured for the stage as it was: a new window size starts at the fit.
    let observer: ResizeObserver | null = null;
    if (typeof ResizeObserver !== 'undefined') {
      let was: Size | null = null;
      observer = new ResizeObserver(() => {
        const { width, height } = stage.getBoundingClientRect();
        if (was !== null && (was.width !== width || was.height !== height) && reader.zoomed) reader.setZoom(MIN_ZOOM);
        was = { width, height };
      });
      observer.observe(stage);
    }
    return () => {
      this.#cancelTap();
      for (const [type, listener, options] of listeners) stage.removeEventListener(type, listener as EventListener, options);
      observer?.disconnect();
      if (this.#stage === stage) this.#stage = null;
      this.#press = null;
      this.#pinch = null;
      this.#touches.clear();
      this.dragging = false;
    };
  }

  #onclick = (event: MouseEvent): void => {
    const stage = this.#stage;
    if (!stage) return;
    if (this.#swallowClick) {
      this.#swallowClick = false;
      return;
    }
    const rect = stage.getBoundingClientRect();
    const side = zoneAt(event.clientX - rect.left, rect.width);
    if (side) {
      reader.turn(side);
      return;
    }
    // The middle: a tap, unless a second click makes it a double-click (which zooms).
    this.#cancelTap();
    if (event.detail > 1) return;
    this.#tap = setTimeout(() => {
      this.#tap = null;
      this.#tapped();
    }, TAP_WAIT_MS);
  };

  #cancelTap(): void {
    if (this.#tap !== null) clearTimeout(this.#tap);
    this.#tap = null;
  }

  /** A double-click in the middle third zooms to 2× there, or back to the fit. */
  #ondblclick = (event: MouseEvent): void => {
    const stage = this.#stage;
    if (!stage) return;
    const rect = stage.getBoundingClientRect();
    if (zoneAt(event.clientX - rect.left, rect.width) !== null) return;
    this.#cancelTap();
    this.zoomTo(reader.zoomed ? MIN_ZOOM : DOUBLE_CLICK_ZOOM, { x: event.clientX, y: event.clientY });
  };

  #onwheel = (event: WheelEvent): void => {
    const view = this.#stage;
    if (!view || !this.#ready()) return;
    if (event.ctrlKey) {
      // Ctrl+wheel (and a trackpad's pinch, which arrives as one) zooms; never the webview's own zoom.
      event.preventDefault();
      this.zoomTo(wheelZoom(reader.zoom, wheelPixels(event.deltaY, event.deltaMode, view.clientHeight)), { x: event.clientX, y: event.clientY });
      return;
    }
    // Zoomed pages pan with the wheel; Shift+wheel scrolls sideways.
    if (reader.zoomed || event.shiftKey) return;
    const delta = wheelPixels(event.deltaY, event.deltaMode, view.clientHeight);
    const outcome = this.#wheel.feed(delta, event.timeStamp, canScroll(view.scrollTop, view.clientHeight, view.scrollHeight, delta));
    if (outcome === 'scroll' || outcome === 'wait') return;
    event.preventDefault();
    if (outcome === 'next') reader.next();
    else if (outcome === 'previous') reader.previous();
  };

  #onpointerdown = (event: PointerEvent): void => {
    const stage = this.#stage;
    if (!stage || (event.pointerType === 'mouse' && event.button !== 0)) return;
    const at = { x: event.clientX, y: event.clientY };
    if (event.pointerType === 'touch') this.#touches.set(event.pointerId, at);
    if (this.#touches.size === 2) {
      // A second finger: a pinch, from here to both fingers lifted.
      const [a, b] = [...this.#touches.values()];
      this.#pinch = { zoom: reader.zoom, distance: distance(a, b), middle: midpoint(a, b) };
      this.#press = null;
      this.dragging = false;
      this.#swallowClick = true;
      return;
    }
    if (this.#touches.size > 2 || this.#pinch) return;
    this.#swallowClick = false;
    this.#press = {
      id: event.pointerId,
      touch: event.pointerType === 'touch',
      start: at,
      last: at,
      at: event.timeStamp,
      scrollLeft: stage.scrollLeft,
      moved: false,
    };
  };

  #onpointermove = (event: PointerEvent): void => {
    const view = this.#stage;
    if (!view) return;
    const at = { x: event.clientX, y: event.clientY };
    if (this.#touches.has(event.pointerId)) this.#touches.set(event.pointerId, at);
    const pinch = this.#pinch;
    if (pinch) {
      if (this.#touches.size < 2) return;
      const [a, b] = [...this.#touches.values()];
      const middle = midpoint(a, b);
      if (pinch.distance > 0) this.zoomTo((pinch.zoom * distance(a, b)) / pinch.distance, middle);
      // Both fingers moving together carry the page along.
      view.scrollLeft -= middle.x - pinch.middle.x;
      view.scrollTop -= middle.y - pinch.middle.y;
      pinch.middle = middle;
      return;
    }
    const press = this.#press;
    if (!press || press.id !== event.pointerId) return;
    if (!press.moved) {
      if (!isDrag(at.x - press.start.x, at.y - press.start.y)) return;
      press.moved = true;
      press.last = press.start;
      // A mouse keeps the drag even off the stage; taken only now, so a click still reaches buttons.
      if (!press.touch && reader.zoomed) {
        try {
          view.setPointerCapture(event.pointerId);
        } catch {
          // The pointer is already gone: nothing to keep.
        }
      }
    }
    // A finger always moves the page (the stage takes touch to itself); a mouse once zoomed.
    if (press.touch || reader.zoomed) {
      this.dragging = reader.zoomed;
      if (view.scrollWidth > view.clientWidth) view.scrollLeft -= at.x - press.last.x;
      view.scrollTop -= at.y - press.last.y;
    }
    press.last = at;
  };

  #onpointerup = (event: PointerEvent): void => {
    const ended = this.#press !== null && this.#press.id === event.pointerId ? this.#press : null;
    this.#touches.delete(event.pointerId);
    if (ended) {
      this.#press = null;
      this.dragging = false;
      if (ended.moved) this.#swallowClick = true;
      // A quick sideways swipe of the page at its fit turns it, unless it scrolled the page sideways.
      if (event.type === 'pointerup' && ended.touch && !reader.zoomed && this.#stage?.scrollLeft === ended.scrollLeft) {
        const side = swipeSide(event.clientX - ended.start.x, event.clientY - ended.start.y, event.timeStamp - ended.at);
        if (side) reader.turn(side);
      }
    }
    if (this.#pinch && this.#touches.size === 0) {
      this.#pinch = null;
      // A pinch let go all but back at the fit goes to the fit.
      this.zoomTo(settleZoom(reader.zoom));
    }
  };
}

/** Where the picture of a page's image is on screen (a fitted image may be letterboxed). */
function pictureOf(image: HTMLImageElement): Rect {
  const box = image.getBoundingClientRect();
  return pictureRect(
    { x: box.left, y: box.top, width: box.width, height: box.height },
    { width: image.naturalWidth, height: image.naturalHeight },
    objectAlign(getComputedStyle(image).objectPosition),
  );
}

/** `use:zoomPan={pan}`: the stage turns, zooms and pans through `pan`. */
export function zoomPan(node: HTMLElement, pan: ZoomPan) {
  return { destroy: pan.attach(node) };
}
