import { afterEach, describe, expect, it, vi } from 'vitest';
import { installShortcuts, shortcutFor } from './shortcuts';

function key(init: KeyboardEventInit): KeyboardEvent {
  return new KeyboardEvent('keydown', { bubbles: true, cancelable: true, ...init });
}

describe('shortcutFor', () => {
  it('maps / to search and Escape to going back', () => {
    expect(shortcutFor(key({ key: '/' }))).toBe('search');
    expect(shortcutFor(key({ key: '/', ctrlKey: true }))).toBeNull();
    expect(shortcutFor(key({ key: 'Escape' }))).toBe('back');
    expect(shortcutFor(key({ key: 'Escape', repeat: true }))).toBe('back');
    expect(shortcutFor(key({ key: 'Escape', shiftKey: true }))).toBeNull();
  });

  it('maps N and Ctrl+N to adding a server', () => {
    expect(shortcutFor(key({ key: 'n' }))).toBe('add-server');
    expect(shortcutFor(key({ key: 'o', ctrlKey: true }))).toBe('open-file');
    expect(shortcutFor(key({ key: 'o' }))).toBeNull();
    expect(shortcutFor(key({ key: 'N', ctrlKey: true }))).toBe('add-server');
    expect(shortcutFor(key({ key: 'n', altKey: true }))).toBeNull();
    expect(shortcutFor(key({ key: 'N', shiftKey: true }))).toBeNull();
    expect(shortcutFor(key({ key: 'x' }))).toBeNull();
  });
});

let uninstall = () => {};
afterEach(() => {
  uninstall();
  document.body.innerHTML = '';
});

/** Installs the shortcuts with handlers to watch; search and back answer `found`. */
function install(found: boolean, enabled: () => boolean = () => true) {
  const handlers = {
    addServer: vi.fn(),
    focusSearch: vi.fn(() => found),
    back: vi.fn(() => found),
    enabled,
    closeWindow: vi.fn(),
    quit: vi.fn(),
  };
  uninstall = installShortcuts(window, handlers);
  return handlers;
}

describe('installShortcuts', () => {
  it('ignores keys typed into fields and keys while disabled', () => {
    let enabled = true;
    const { addServer } = install(true, () => enabled);

    const input = document.createElement('input');
    document.body.append(input);
    input.dispatchEvent(key({ key: 'n' }));
    expect(addServer).not.toHaveBeenCalled();

    document.body.dispatchEvent(key({ key: 'n' }));
    expect(addServer).toHaveBeenCalledTimes(1);

    enabled = false;
    document.body.dispatchEvent(key({ key: 'n' }));
    expect(addServer).toHaveBeenCalledTimes(1);
  });
});

describe('installShortcuts: search and back', () => {
  it('takes / and Escape only when there is something to do', () => {
    const handlers = install(true);
    const slash = key({ key: '/' });
    document.body.dispatchEvent(slash);
    expect(handlers.focusSearch).toHaveBeenCalledTimes(1);
    expect(slash.defaultPrevented).toBe(true);

    const escape = key({ key: 'Escape' });
    document.body.dispatchEvent(escape);
    expect(handlers.back).toHaveBeenCalledTimes(1);
    expect(escape.defaultPrevented).toBe(true);
  });

  it('lets the keys through when nothing handled them', () => {
    install(false);
    const slash = key({ key: '/' });
    document.body.dispatchEvent(slash);
    expect(slash.defaultPrevented).toBe(false);
  });

  it('never takes keys typed into a text field, but does from a checkbox', () => {
    const handlers = install(true);
    const search = document.createElement('input');
    search.type = 'search';
    document.body.append(search);
    search.dispatchEvent(key({ key: '/' }));
    search.dispatchEvent(key({ key: 'Escape' }));
    expect(handlers.focusSearch).not.toHaveBeenCalled();
    expect(handlers.back).not.toHaveBeenCalled();

    const box = document.createElement('input');
    box.type = 'checkbox';
    document.body.append(box);
    box.dispatchEvent(key({ key: 'Escape' }));
    expect(handlers.back).toHaveBeenCalledTimes(1);
  });

  it('ignores keys another handler already took', () => {
    const handlers = install(true);
    const escape = key({ key: 'Escape' });
    escape.preventDefault();
    document.body.dispatchEvent(escape);
    expect(handlers.back).not.toHaveBeenCalled();
  });
});

describe('installShortcuts: the window and the app', () => {
  it('closes the window with Ctrl+W and quits with Ctrl+Q, even while typing or disabled', () => {
    const handlers = install(true, () => false);
    const input = document.createElement('input');
    document.body.append(input);
    const w = key({ key: 'w', ctrlKey: true });
    input.dispatchEvent(w);
    expect(handlers.closeWindow).toHaveBeenCalledTimes(1);
    expect(w.defaultPrevented).toBe(true);
    document.body.dispatchEvent(key({ key: 'q', ctrlKey: true }));
    expect(handlers.quit).toHaveBeenCalledTimes(1);
    // Without Ctrl they are letters.
    input.dispatchEvent(key({ key: 'w' }));
    document.body.dispatchEvent(key({ key: 'q' }));
    expect(handlers.closeWindow).toHaveBeenCalledTimes(1);
    expect(handlers.quit).toHaveBeenCalledTimes(1);
    expect(handlers.addServer).not.toHaveBeenCalled();
  });
});
