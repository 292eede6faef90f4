/**
 * Calls `onreach` when the element (a sentinel after a list) comes near the visible part of
 * its scrolling container, to load the next page. `key` should change whenever a page was
 * appended: the sentinel is then watched afresh, so a page too short to push it out of view
 * still leads to the next one.
 *
 * Where IntersectionObserver is missing, nothing happens; the sentinel's own button remains.
 */

export interface InfiniteScrollOptions {
  onreach: () => void;
  /** False while a page is loading or there is no next page. */
  enabled: boolean;
  key?: unknown;
  /** How far ahead of the visible area to start loading. */
  margin?: string;
}

function scrollParent(node: HTMLElement): HTMLElement | null {
  for (let el = node.parentElement; el; el = el.parentElement) {
    const overflow = getComputedStyle(el).overflowY;
    if (overflow === 'auto' || overflow === 'scroll') return el;
  }
  return null;
}

export function infiniteScroll(node: HTMLElement, options: InfiniteScrollOptions) {
  let current = options;
  if (typeof IntersectionObserver === 'undefined') {
    return { update: (next: InfiniteScrollOptions) => void (current = next), destroy: () => {} };
  }

  const observer = new IntersectionObserver(
    (records) => {
      if (current.enabled && records.some((r) => r.isIntersecting)) current.onreach();
    },
    { root: scrollParent(node), rootMargin: current.margin ?? '0px 0px 600px 0px' },
  );
  observer.observe(node);

  return {
    update(next: InfiniteScrollOptions) {
      const rewatch = next.key !== current.key || next.enabled !== current.enabled;
      current = next;
      if (rewatch) {
        observer.unobserve(node);
        observer.observe(node);
      }
    },
    destroy() {
      observer.disconnect();
    },
  };
}
