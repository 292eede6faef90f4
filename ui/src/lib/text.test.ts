import { describe, expect, it } from 'vitest';
import { asSentence } from './text';

describe('asSentence', () => {
  it('capitalises and ends a clause', () => {
    expect(asSentence('give the server a name')).toBe('Give the server a name.');
    expect(asSentence('  a server named "Home" exists already ')).toBe('A server named "Home" exists already.');
  });

  it('leaves finished sentences alone', () => {
    expect(asSentence('Already done.')).toBe('Already done.');
    expect(asSentence('Really?')).toBe('Really?');
    expect(asSentence('it said “no.”')).toBe('It said “no.”');
  });

  it('never capitalises an address it starts with', () => {
    expect(asSentence('http://127.0.0.1:9810/opds: the server stopped answering')).toBe(
      'http://127.0.0.1:9810/opds: the server stopped answering.',
    );
  });

  it('keeps empty text empty', () => {
    expect(asSentence('   ')).toBe('');
  });
});
