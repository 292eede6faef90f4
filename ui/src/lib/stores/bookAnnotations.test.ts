import { describe, expect, it } from 'vitest';
import { BookAnnotations, groupByChapter, type Annotation, type AnnotationsApi } from './bookAnnotations.svelte';

function note(id: number, chapter: string | null, change: Partial<Annotation> = {}): Annotation {
  return {
    id,
    kind: 'highlight',
    locator: { type: 'epub', cfi: `epubcfi(/6/${id * 2}!/4/2,/1:0,/1:4)` },
    chapter,
    quote: `quote ${id}`,
    note: null,
    colour: 'yellow',
    createdMs: id,
    updatedMs: id,
    ...change,
  };
}

/** The Rust side, in memory: keeps the list in the book's order (here: by id). */
function memoryApi(start: Annotation[] = []): AnnotationsApi & { rows: Annotation[] } {
  let next = 100;
  const rows = [...start];
  return {
    rows,
    list: async () => [...rows].sort((a, b) => a.id - b.id),
    add: async (_bookId, a) => {
      const row: Annotation = {
        id: next++,
        kind: a.kind,
        locator: a.locator,
        chapter: a.chapter ?? null,
        quote: a.quote ?? null,
        note: a.note ?? null,
        colour: a.colour ?? null,
        createdMs: 0,
        updatedMs: 0,
      };
      rows.push(row);
      return row;
    },
    update: async (id, text, colour) => {
      const row = rows.find((r) => r.id === id)!;
      row.note = text;
      if (colour) row.colour = colour;
      return { ...row };
    },
    remove: async (id) => {
      rows.splice(
        rows.findIndex((r) => r.id === id),
        1,
      );
    },
    export: async (bookId, format) => `${format} of ${bookId}`,
  };
}

describe('a book’s bookmarks and highlights', () => {
  it('are listed by chapter, in the book’s order, a chapter met again apart', () => {
    const groups = groupByChapter([note(1, 'One'), note(2, 'One'), note(3, ' '), note(4, 'Two'), note(5, 'One')]);
    expect(groups.map((g) => [g.chapter, g.items.map((a) => a.id)])).toEqual([
      ['One', [1, 2]],
      [null, [3]],
      ['Two', [4]],
      ['One', [5]],
    ]);
  });

  it('are read when the book opens', async () => {
    const annotations = new BookAnnotations(memoryApi([note(2, 'B'), note(1, 'A')]));
    await annotations.load(7);
    expect(annotations.list.map((a) => a.id)).toEqual([1, 2]);
    expect(annotations.groups.map((g) => g.chapter)).toEqual(['A', 'B']);
  });

  it('say why when they cannot be read', async () => {
    const annotations = new BookAnnotations({ ...memoryApi(), list: () => Promise.reject({ kind: 'storage', message: 'disk' }) });
    await annotations.load(7);
    expect(annotations.error).toEqual({ kind: 'storage', message: 'disk' });
  });

  it('bookmark a place once; the same place again removes the bookmark', async () => {
    const api = memoryApi();
    const annotations = new BookAnnotations(api);
    await annotations.load(7);
    const added = await annotations.toggleBookmark('epubcfi(/6/4!/4/2/1:0)', 'One');
    expect(added).toMatchObject({ kind: 'bookmark', chapter: 'One', locator: { type: 'epub', cfi: 'epubcfi(/6/4!/4/2/1:0)' } });
    expect(annotations.bookmarkAt('epubcfi(/6/4!/4/2/1:0)')?.id).toBe(added!.id);
    expect(await annotations.toggleBookmark('epubcfi(/6/4!/4/2/1:0)', 'One')).toBeNull();
    expect(annotations.list).toEqual([]);
    expect(api.rows).toEqual([]);
  });

  it('highlight a passage with a note, change its note and colour, delete it', async () => {
    const annotations = new BookAnnotations(memoryApi([note(1, 'One')]));
    await annotations.load(7);
    const added = await annotations.highlight('epubcfi(/6/4!/4/2,/1:0,/1:5)', 'Hello', 'green', '  mine  ', 'One');
    expect(added).toMatchObject({ kind: 'highlight', quote: 'Hello', colour: 'green', note: 'mine' });
    expect(annotations.highlights.map((a) => a.id)).toEqual([1, added.id]);
    await annotations.update(added.id, 'changed', 'pink');
    expect(annotations.list.find((a) => a.id === added.id)).toMatchObject({ note: 'changed', colour: 'pink' });
    await annotations.update(added.id, '   ');
    expect(annotations.list.find((a) => a.id === added.id)?.note).toBeNull();
    await annotations.remove(added.id);
    expect(annotations.list.map((a) => a.id)).toEqual([1]);
  });

  it('are exported as the Rust side writes them', async () => {
    const annotations = new BookAnnotations(memoryApi());
    await annotations.load(7);
    expect(await annotations.export('markdown')).toBe('markdown of 7');
  });
});

describe('PDF annotations', () => {
  it('bookmarks a page and takes the bookmark away again; highlights keep their place on the page', async () => {
    const api = memoryApi();
    const store = new BookAnnotations(api);
    await store.load(7);
    const mark = await store.togglePageBookmark(2, 'Chapter 2');
    expect(mark?.locator).toEqual({ type: 'pdf', page: 2, rects: [] });
    expect(store.bookmarkOnPage(2)?.id).toBe(mark?.id);
    expect(store.bookmarkOnPage(3)).toBeNull();
    const rects = [{ x: 0.1, y: 0.2, width: 0.3, height: 0.05 }];
    const added = await store.highlightOnPage(2, { exact: 'Page 3', suffix: ' of 6' }, rects, 'green', '  a note ', null);
    expect(added.locator).toEqual({ type: 'pdf', page: 2, quote: { exact: 'Page 3', suffix: ' of 6' }, rects });
    expect([added.quote, added.note, added.colour]).toEqual(['Page 3', 'a note', 'green']);
    expect(store.highlightsOnPage(2).map((a) => a.id)).toEqual([added.id]);
    expect(store.highlightsOnPage(1)).toEqual([]);
    expect(await store.togglePageBookmark(2, null)).toBeNull();
    expect(store.bookmarkOnPage(2)).toBeNull();
    expect(api.rows.map((r) => r.kind)).toEqual(['highlight']);
  });
});
