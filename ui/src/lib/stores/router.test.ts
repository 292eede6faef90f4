import { describe, expect, it } from 'vitest';
import { parseStartHash } from './router.svelte';

describe('parseStartHash', () => {
  it('reads the views a window can be opened on', () => {
    expect(parseStartHash('#/library')).toEqual({ route: { view: 'home' }, bookId: null });
    expect(parseStartHash('#/downloads')).toEqual({ route: { view: 'downloads' }, bookId: null });
    expect(parseStartHash('#/settings')).toEqual({ route: { view: 'settings' }, bookId: null });
    expect(parseStartHash('#/on-device')).toEqual({ route: { view: 'on-device' }, bookId: null });
    expect(parseStartHash('#/server/3')).toEqual({ route: { view: 'server', serverId: 3 }, bookId: null });
    expect(parseStartHash('#/book/12')).toEqual({ route: { view: 'home' }, bookId: 12 });
  });

  it('ignores anything else', () => {
    for (const hash of ['', '#', '#/', '#/server/0', '#/server/-1', '#/book/1.5', '#/book/', '#/elsewhere', '#/server/3/x']) {
      expect(parseStartHash(hash)).toBeNull();
    }
  });
});
