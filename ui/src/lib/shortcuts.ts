/**
 * Window-wide keyboard shortcuts. They never fire while the reader is typing in a field or
 * while a dialog is open.
 *
 *   N or Ctrl+N   open "Add server"
 *   /             focus the search box of the server being browsed
 *   Escape        go back: close the book's details, else one step up the breadcrumbs
 *
 * Arrow keys in grids are handled by the grids themselves (see gridNav.ts).
 */

export type Shortcut = 'add-server' | 'search' | 'back';

export interface ShortcutHandlers {
  addServer: () => void;
  /** Focuses the search box; false when there is none (the key then does nothing). */
  focusSearch: () => boolean;
  /** Goes back one step; false when there is nowhere to go. */
  back: () => boolean;
  /** False while a dialog is open or the library cannot be used. */
  enabled: () => boolean;
}

/** True when keys pressed in `target` are text being typed. */
export function isTyping(target: EventTarget | null): boolean {
  if (!(target instanceof HTMLElement)) return false;
  if (target.isContentEditable) return true;
  const field = target.closest('input, textarea, select, [contenteditable]');
  if (!field) return false;
  // Buttons-as-inputs (checkboxes, radios, ranges) take no text: the keys are still the window's,
  // except the ones those controls use themselves.
  return !(field instanceof HTMLInputElement && ['checkbox', 'radio', 'range', 'button', 'submit', 'reset'].includes(field.type));
}

/** The action a key press asks for, if any. */
export function shortcutFor(event: KeyboardEvent): Shortcut | null {
  if (event.altKey || event.metaKey) return null;
  if (event.key === 'Escape' && !event.ctrlKey && !event.shiftKey) return 'back';
  if (event.repeat) return null;
  if (event.key === '/' && !event.ctrlKey) return 'search';
  const key = event.key.toLowerCase();
  if (key === 'n' && !event.shiftKey) return 'add-server';
  return null;
}

/** Listens on `target` (the window) until the returned function is called. */
export function installShortcuts(target: Window, handlers: ShortcutHandlers): () => void {
  function onkeydown(event: KeyboardEvent) {
    if (event.defaultPrevented || !handlers.enabled() || isTyping(event.target)) return;
    switch (shortcutFor(event)) {
      case 'add-server':
        event.preventDefault();
        handlers.addServer();
        break;
      case 'search':
        if (handlers.focusSearch()) event.preventDefault();
        break;
      case 'back':
        if (handlers.back()) event.preventDefault();
        break;
    }
  }
  target.addEventListener('keydown', onkeydown);
  return () => target.removeEventListener('keydown', onkeydown);
}
