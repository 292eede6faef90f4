import { readFileSync, readdirSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { FluentResource } from '@fluent/bundle';
import { describe, expect, it } from 'vitest';
import { LANGUAGES, REFERENCE_LANGUAGE, i18n, languageName, messageFiles, negotiate, pseudoText, t } from './i18n.svelte';

// Tests run from ui/ (`npm run --prefix ui test`); the project's top level is one up.
const ROOT = join(process.cwd(), '..');

/** Message ids of a file, with the ids it references in other messages. */
function idsOf(source: string): { ids: string[]; references: string[] } {
  const resource = new FluentResource(source);
  const ids = resource.body.filter((m) => !m.id.startsWith('-')).map((m) => m.id);
  const references = [...source.matchAll(/\{\s*(-?[a-z][a-z0-9-]*)(?:\.[a-z-]+)?\s*\}/g)].map((m) => m[1]);
  return { ids, references };
}

function sourceFiles(dir: string, pattern: RegExp, out: string[] = []): string[] {
  for (const name of readdirSync(dir)) {
    if (name === 'node_modules' || name === 'dist' || name === 'target' || name === 'gen') continue;
    const path = join(dir, name);
    if (statSync(path).isDirectory()) sourceFiles(path, pattern, out);
    else if (pattern.test(name) && !/\.test\.ts$/.test(name)) out.push(path);
  }
  return out;
}

describe('the message files', () => {
  const files = messageFiles();

  it('come in English, French, German and Spanish', () => {
    expect(LANGUAGES[0]).toBe(REFERENCE_LANGUAGE);
    for (const language of ['en', 'fr', 'de', 'es']) expect(LANGUAGES).toContain(language);
  });

  it('parse without a single error, in every language', () => {
    for (const [language, list] of files) {
      for (const { file, source } of list) {
        // FluentResource drops what it cannot parse; a dropped entry shows as a junk-free count
        // lower than the number of ids written at the start of a line.
        const written = source.split('\n').filter((line) => /^-?[a-zA-Z][a-zA-Z0-9_-]*\s*=/.test(line)).length;
        const parsed = new FluentResource(source).body.length;
        expect(parsed, `locales/${language}/${file}`).toBe(written);
      }
    }
  });

  it('hold every English message in every language, and none English lacks', () => {
    const reference = files.get(REFERENCE_LANGUAGE)!;
    for (const [language, list] of files) {
      expect(list.map((f) => f.file).sort(), `files of locales/${language}`).toEqual(reference.map((f) => f.file).sort());
      for (const { file, source } of reference) {
        const theirs = list.find((f) => f.file === file)!;
        const want = idsOf(source).ids.sort();
        const have = idsOf(theirs.source).ids.sort();
        expect(have.filter((id) => !want.includes(id)), `extra in locales/${language}/${file}`).toEqual([]);
        expect(want.filter((id) => !have.includes(id)), `missing in locales/${language}/${file}`).toEqual([]);
      }
    }
  });

  it('leave no message unused by the window or the shell', () => {
    const sources = [
      ...sourceFiles(join(ROOT, 'ui', 'src'), /\.(ts|svelte)$/),
      ...sourceFiles(join(ROOT, 'src-tauri', 'src'), /\.rs$/),
    ].map((path) => readFileSync(path, 'utf8'));
    const text = sources.join('\n');
    const referenced = new Set<string>();
    for (const { source } of files.get(REFERENCE_LANGUAGE)!) for (const r of idsOf(source).references) referenced.add(r);
    const unused: string[] = [];
    for (const { file, source } of files.get(REFERENCE_LANGUAGE)!) {
      for (const id of idsOf(source).ids) {
        if (referenced.has(id)) continue;
        if (!text.includes(`'${id}'`) && !text.includes(`"${id}"`)) unused.push(`${file}: ${id}`);
      }
    }
    expect(unused, `unused messages (${relative(ROOT, join(ROOT, 'locales', 'en'))})`).toEqual([]);
  });
});

describe('the language shown', () => {
  it('is the first the system asks for that Carrel speaks, else English', () => {
    expect(negotiate(['fr-FR', 'en-US'])).toBe('fr');
    expect(negotiate(['de_DE'.replace('_', '-')])).toBe('de');
    expect(negotiate(['ja-JP', 'es-MX'])).toBe('es');
    expect(negotiate(['ja-JP'])).toBe('en');
    expect(negotiate([])).toBe('en');
  });

  it('changes at once when chosen, and names each language in itself', () => {
    i18n.choose('fr');
    expect(i18n.language).toBe('fr');
    expect(t('language-name')).toBe('Français');
    expect(document.documentElement.lang).toBe('fr');
    expect(localStorage.getItem('carrel.language')).toBe('fr');
    i18n.choose('en');
    expect(t('language-name')).toBe('English');
    expect(languageName('de')).toBe('Deutsch');
    expect(languageName('es')).toBe('Español');
    i18n.choose('system');
  });

  it('falls back to the id, loudly, for a message that does not exist', () => {
    const errors: unknown[] = [];
    const original = console.error;
    console.error = (...args: unknown[]) => errors.push(args);
    try {
      expect(t('no-such-message-anywhere')).toBe('no-such-message-anywhere');
    } finally {
      console.error = original;
    }
    expect(errors).toHaveLength(1);
  });
});

describe('the pseudo-language', () => {
  it('accents every letter and makes texts at least 40 % longer', () => {
    const text = 'Books on this device';
    const pseudo = pseudoText(text);
    expect(pseudo).not.toMatch(/[a-zA-Z]/);
    expect(pseudo.length).toBeGreaterThanOrEqual(Math.ceil(text.replace(/\P{L}/gu, '').length * 1.4) + 3);
  });

  it('keeps variables as they are', () => {
    i18n.choose('pseudo');
    try {
      expect(t('language-name')).toBe(pseudoText('English'));
    } finally {
      i18n.choose('system');
    }
  });
});
