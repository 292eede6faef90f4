import { describe, expect, it } from 'vitest';
import { BookSearch, groupByChapter, type FoliateSearchItem } from './bookSearch.svelte';

/** What foliate-js's search yields for a book of three sections, "word" in the first and last. */
async function* book(query: string): AsyncGenerator<FoliateSearchItem> {
  yield { progress: 1 / 3 };
  yield {
    label: 'One',
    subitems: [
      { cfi: 'epubcfi(/6/2!/4/2,/1:0,/1:4)', excerpt: { pre: 'a ', match: query, post: ' b' } },
      { cfi: 'epubcfi(/6/2!/4/4,/1:0,/1:4)', excerpt: { pre: '', match: query, post: ' c' } },
    ],
  };
  yield { progress: 2 / 3 };
  yield { progress: 1 };
  yield { label: 'Three', subitems: [{ cfi: 'epubcfi(/6/6!/4/2,/1:0,/1:4)', excerpt: { pre: 'd ', match: query, post: '' } }] };
  yield 'done';
}

describe('search in the book', () => {
  it('lists the places found by chapter, with the words around each', async () => {
    const search = new BookSearch();
    search.begin('epubcfi(/6/4!/4/2/1:0)');
    await search.run(' word ', book);
    expect(search.query).toBe('word');
    expect(search.done).toBe(true);
    expect(search.running).toBe(false);
    expect(search.hits).toHaveLength(3);
    expect(search.groups.map((g) => [g.chapter, g.hits.map((h) => h.index)])).toEqual([
      ['One', [0, 1]],
      ['Three', [2]],
    ]);
    expect(search.hits[0]).toMatchObject({ pre: 'a ', match: 'word', post: ' b', chapter: 'One' });
  });

  it('moves between places with wrap-around, and closes back where the reader was', async () => {
    const search = new BookSearch();
    search.begin('epubcfi(/6/4!/4/2/1:0)');
    // Opening again while open keeps the first place.
    search.begin('epubcfi(/6/8!/4/2/1:0)');
    await search.run('word', book);
    expect(search.next()).toBe('epubcfi(/6/2!/4/2,/1:0,/1:4)');
    expect(search.next()).toBe('epubcfi(/6/2!/4/4,/1:0,/1:4)');
    expect(search.next()).toBe('epubcfi(/6/6!/4/2,/1:0,/1:4)');
    expect(search.next()).toBe('epubcfi(/6/2!/4/2,/1:0,/1:4)');
    expect(search.previous()).toBe('epubcfi(/6/6!/4/2,/1:0,/1:4)');
    expect(search.select(1)).toBe('epubcfi(/6/2!/4/4,/1:0,/1:4)');
    expect(search.current).toBe(1);
    expect(search.close()).toBe('epubcfi(/6/4!/4/2/1:0)');
    expect(search.open).toBe(false);
    expect(search.hits).toEqual([]);
  });

  it('starts with Shift+Enter at the last place, and finds nothing to move to without results', async () => {
    const search = new BookSearch();
    expect(search.next()).toBeNull();
    await search.run('word', book);
    expect(search.previous()).toBe('epubcfi(/6/6!/4/2,/1:0,/1:4)');
  });

  it('lets a newer search replace a running one', async () => {
    const search = new BookSearch();
    const first = search.run('first', book);
    const second = search.run('second', book);
    await Promise.all([first, second]);
    expect(search.query).toBe('second');
    expect(search.hits.map((h) => h.match)).toEqual(['second', 'second', 'second']);
  });

  it('keeps what was found when a section cannot be read', async () => {
    const search = new BookSearch();
    await search.run('word', async function* (query) {
      yield { label: 'One', subitems: [{ cfi: 'epubcfi(/6/2!/4/2,/1:0,/1:4)', excerpt: { match: query } }] };
      throw new Error('broken section');
    });
    expect(search.hits).toHaveLength(1);
    expect(search.running).toBe(false);
    expect(search.done).toBe(false);
  });

  it('groups the same chapter met twice apart as two groups', () => {
    const hit = (chapter: string) => ({ place: chapter, chapter, pre: '', match: '', post: '' });
    expect(groupByChapter([hit('A'), hit('B'), hit('A')]).map((g) => g.chapter)).toEqual(['A', 'B', 'A']);
  });
});
