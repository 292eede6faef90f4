import { describe, expect, it } from 'vitest';
import { explain, explainInline, kindSentence } from './errors';
import { i18n } from './i18n.svelte';

describe('a failure as the window says it', () => {
  const failure = { kind: 'server' as const, message: 'the server answered 503 ' };

  it('is the detail as a sentence in English', () => {
    expect(explain(failure)).toBe('The server answered 503.');
    expect(explainInline(failure)).toBe('the server answered 503');
  });

  it('is the kind’s sentence with the detail in brackets in another language', () => {
    i18n.choose('fr');
    try {
      expect(explain(failure)).toBe('Le serveur a échoué ou refusé (the server answered 503).');
      expect(explainInline({ kind: 'not_downloaded', message: '' })).toBe(`${kindSentence('not_downloaded')}.`);
      expect(kindSentence('auth')).toBe('Le serveur vous demande de vous reconnecter');
    } finally {
      i18n.choose('system');
    }
  });

  it('has a sentence for every kind, in every language', () => {
    const kinds = ['invalid_input', 'not_found', 'conflict', 'storage', 'server', 'auth', 'certificate', 'not_downloaded'] as const;
    for (const language of ['en', 'fr', 'de', 'es']) {
      i18n.choose(language);
      try {
        for (const kind of kinds) expect(kindSentence(kind), `${language} ${kind}`).toMatch(/^\p{Lu}.*[^.]$/u);
      } finally {
        i18n.choose('system');
      }
    }
  });
});
