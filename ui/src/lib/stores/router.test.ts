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

  it('opens the EPUB reader on a book', () => {
    expect(parseStartHash('#/epub/12')).toEqual({ route: { view: 'epub', bookId: 12 }, bookId: null });
    for (const hash of ['#/epub/0', '#/epub/', '#/epub/12/1', '#/epub/1x', '#/epub/../1']) {
      expect(parseStartHash(hash)).toBeNull();
    }
  });

  it('opens the reader on a book', () => {
    expect(parseStartHash('#/reader/12')).toEqual({ route: { view: 'reader', bookId: 12 }, bookId: null });
    expect(parseStartHash('#/book/12/read')).toEqual({ route: { view: 'reader', bookId: 12 }, bookId: null });
    for (const hash of ['#/reader/0', '#/reader/', '#/book/0/read', '#/book/12/read/1', '#/reader/1x']) {
      expect(parseStartHash(hash)).toBeNull();
    }
  });

  it('ignores anything else', () => {
    for (const hash of ['', '#', '#/', '#/server/0', '#/server/-1', '#/book/1.5', '#/book/', '#/elsewhere', '#/server/3/x']) {
      expect(parseStartHash(hash)).toBeNull();
    }
  });
});
