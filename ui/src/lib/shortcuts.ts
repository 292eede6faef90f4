/**
 * Window-wide keyboard shortcuts. They never fire while the reader is typing in a field or
 * while a dialog is open.
 *
 *   N or Ctrl+N   open "Add server"
 *   /             reserved for search
 */

export interface ShortcutHandlers {
  addServer: () => void;
  /** False while a dialog is open or the library cannot be used. */
  enabled: () => boolean;
}

function isTyping(target: EventTarget | null): boolean {
  if (!(target instanceof HTMLElement)) return false;
  return target.isContentEditable || target.closest('input, textarea, select, [contenteditable]') !== null;
}

/** The action a key press asks for, if any. */
export function shortcutFor(event: KeyboardEvent): 'add-server' | null {
  if (event.altKey || event.metaKey || event.repeat) return null;
  const key = event.key.toLowerCase();
  if (key === 'n' && !event.shiftKey) return 'add-server';
  return null;
}

/** Listens on `target` (the window) until the returned function is called. */
export function installShortcuts(target: Window, handlers: ShortcutHandlers): () => void {
  function onkeydown(event: KeyboardEvent) {
    if (event.defaultPrevented || !handlers.enabled() || isTyping(event.target)) return;
    if (shortcutFor(event) === 'add-server') {
      event.preventDefault();
      handlers.addServer();
    }
  }
  target.addEventListener('keydown', onkeydown);
  return () => target.removeEventListener('keydown', onkeydown);
}
