import { afterEach, describe, expect, it, vi } from 'vitest';
import { installShortcuts, shortcutFor } from './shortcuts';

function key(init: KeyboardEventInit): KeyboardEvent {
  return new KeyboardEvent('keydown', { bubbles: true, cancelable: true, ...init });
}

describe('shortcutFor', () => {
  it('maps N and Ctrl+N to adding a server', () => {
    expect(shortcutFor(key({ key: 'n' }))).toBe('add-server');
    expect(shortcutFor(key({ key: 'N', ctrlKey: true }))).toBe('add-server');
    expect(shortcutFor(key({ key: 'n', altKey: true }))).toBeNull();
    expect(shortcutFor(key({ key: 'N', shiftKey: true }))).toBeNull();
    expect(shortcutFor(key({ key: 'x' }))).toBeNull();
  });
});

describe('installShortcuts', () => {
  let uninstall = () => {};
  afterEach(() => {
    uninstall();
    document.body.innerHTML = '';
  });

  it('ignores keys typed into fields and keys while disabled', () => {
    const addServer = vi.fn();
    let enabled = true;
    uninstall = installShortcuts(window, { addServer, enabled: () => enabled });

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
