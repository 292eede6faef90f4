/**
 * Window-wide keyboard shortcuts. They never fire while the reader is typing in a field or
 * while a dialog is open.
 *
 *   N or Ctrl+N   open "Add server"
 *   Ctrl+O        open book files from this computer (File → Open)
 *   /             focus the search box of the server being browsed
 *   Escape        go back: close the book's details, else one step up the breadcrumbs
 *   Ctrl+W        close this window (downloads left go on in the background)
 *   Ctrl+Q        quit Carrel (downloads left wait until it runs again)
 *
 * Ctrl+W and Ctrl+Q are the window's and the app's: they work while typing and in dialogs too.
 * Ctrl+O works in the readers too, and while typing, but not while a dialog is open.
 * Arrow keys in grids are handled by the grids themselves (see gridNav.ts).
 */

export type Shortcut = 'add-server' | 'open-file' | 'search' | 'back' | 'close-window' | 'quit';

export interface ShortcutHandlers {
  addServer: () => void;
  /** Focuses the search box; false when there is none (the key then does nothing). */
  focusSearch: () => boolean;
  /** Goes back one step; false when there is nowhere to go. */
  back: () => boolean;
  /** False while a dialog is open or the library cannot be used. */
  enabled: () => boolean;
  closeWindow: () => void;
  quit: () => void;
  /** File → Open; false when it cannot be used now (a dialog is open, the library is not). */
  openFile?: () => boolean;
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
  if (event.ctrlKey && !event.shiftKey && key === 'w') return 'close-window';
  if (event.ctrlKey && !event.shiftKey && key === 'q') return 'quit';
  if (event.ctrlKey && !event.shiftKey && key === 'o') return 'open-file';
  if (key === 'n' && !event.shiftKey) return 'add-server';
  return null;
}

/** Listens on `target` (the window) until the returned function is called. */
export function installShortcuts(target: Window, handlers: ShortcutHandlers): () => void {
  function onkeydown(event: KeyboardEvent) {
    if (event.defaultPrevented) return;
    const shortcut = shortcutFor(event);
    if (shortcut === 'close-window' || shortcut === 'quit') {
      event.preventDefault();
      if (shortcut === 'close-window') handlers.closeWindow();
      else handlers.quit();
      return;
    }
    if (shortcut === 'open-file') {
      if (handlers.openFile?.()) event.preventDefault();
      return;
    }
    if (!handlers.enabled() || isTyping(event.target)) return;
    switch (shortcut) {
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
