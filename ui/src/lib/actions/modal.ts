/**
 * Makes an element behave as a modal dialog's panel: focus moves into it when it appears
 * (to the element marked `data-autofocus`, else the first focusable one), Tab and Shift+Tab
 * cycle inside it, Escape asks to close, and when it goes away focus returns to whatever had
 * it before (or to the main area, when that element is gone).
 */

export interface ModalOptions {
  /** Called on Escape. Leave out to make Escape do nothing. */
  onescape?: () => void;
}

const FOCUSABLE = [
  'a[href]',
  'button:not([disabled])',
  'input:not([disabled]):not([type="hidden"])',
  'select:not([disabled])',
  'textarea:not([disabled])',
  '[tabindex]:not([tabindex="-1"])',
].join(',');

/** The elements Tab can reach inside `root`, in order. */
export function focusableWithin(root: HTMLElement): HTMLElement[] {
  return Array.from(root.querySelectorAll<HTMLElement>(FOCUSABLE)).filter(
    (el) => !el.closest('[hidden], [inert]') && el.tabIndex >= 0,
  );
}

/** Where focus goes when the element that opened a dialog is no longer there. */
function fallbackFocus(): HTMLElement | null {
  return document.getElementById('main');
}

export function modal(node: HTMLElement, options: ModalOptions = {}) {
  let current = options;
  const opener = document.activeElement instanceof HTMLElement ? document.activeElement : null;

  const initial = node.querySelector<HTMLElement>('[data-autofocus]') ?? focusableWithin(node)[0] ?? node;
  if (initial === node && !node.hasAttribute('tabindex')) node.tabIndex = -1;
  initial.focus();

  function onkeydown(event: KeyboardEvent) {
    if (event.key === 'Escape') {
      if (current.onescape) {
        event.preventDefault();
        event.stopPropagation();
        current.onescape();
      }
      return;
    }
    if (event.key !== 'Tab') return;
    const items = focusableWithin(node);
    if (items.length === 0) {
      event.preventDefault();
      node.focus();
      return;
    }
    const first = items[0];
    const last = items[items.length - 1];
    const active = document.activeElement;
    if (event.shiftKey && (active === first || !node.contains(active))) {
      event.preventDefault();
      last.focus();
    } else if (!event.shiftKey && (active === last || !node.contains(active))) {
      event.preventDefault();
      first.focus();
    }
  }

  // Focus that lands outside (a click on the backdrop, a stray programmatic focus) comes back.
  function onfocusin(event: FocusEvent) {
    if (event.target instanceof Node && !node.contains(event.target)) {
      (focusableWithin(node)[0] ?? node).focus();
    }
  }

  node.addEventListener('keydown', onkeydown);
  document.addEventListener('focusin', onfocusin);

  return {
    update(next: ModalOptions = {}) {
      current = next;
    },
    destroy() {
      node.removeEventListener('keydown', onkeydown);
      document.removeEventListener('focusin', onfocusin);
      // Wait for the rest of this update to land: the opener may be removed by it.
      queueMicrotask(() => {
        const target = opener && opener.isConnected && opener !== document.body ? opener : fallbackFocus();
        target?.focus();
      });
    },
  };
}
