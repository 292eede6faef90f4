import { describe, expect, it } from 'vitest';
import { asSentence } from './text';

describe('asSentence', () => {
  it.each<[string, [string, string][]]>([
    ['capitalises and ends a clause', [['give the server a name', 'Give the server a name.'], ['  a server named "Home" exists already ', 'A server named "Home" exists already.']]],
    ['leaves finished sentences alone', [['Already done.', 'Already done.'], ['Really?', 'Really?'], ['it said “no.”', 'It said “no.”']]],
    ['never capitalises an address it starts with', [['http://127.0.0.1:9810/opds: the server stopped answering', 'http://127.0.0.1:9810/opds: the server stopped answering.']]],
    ['keeps empty text empty', [['   ', '']]],
  ])('%s', (_name, texts) => {
    for (const [text, sentence] of texts) expect(asSentence(text), text).toBe(sentence);
  });
});
