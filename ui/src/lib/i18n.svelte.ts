/**
 * Carrel in the reader's language: the messages of every screen, in Project Fluent's format,
 * read from the message files the shell's notifications and menus use too
 * (`locales/<language>/*.ftl` at the project's top level; one folder per language, English
 * complete and the reference).
 *
 * {@link t} formats a message by id in the current language, falling back to English for a
 * message a language lacks. The language follows the system (the shell's LANGUAGE, LC_ALL,
 * LC_MESSAGES and LANG, then the webview's own languages) unless the reader chose one in
 * Settings → Language; a choice applies at once, in this window and in every other open one.
 *
 * Plurals, genders and variables live in the messages, never in code: a count is passed as a
 * variable and the message chooses its form (`{ $count -> [one] … *[other] … }`).
 *
 * `pseudo` is a language for tests only: English with accented letters and 40 % longer
 * texts, so a text cut off or overflowing shows up on the main screens.
 */
import { FluentBundle, FluentResource, type FluentVariable } from '@fluent/bundle';
import { negotiateLanguages } from '@fluent/langneg';

/** The message files, bundled: `{ '../../../locales/fr/reader.ftl': '…' }`. */
const FILES = import.meta.glob('../../../locales/*/*.ftl', {
  query: '?raw',
  import: 'default',
  eager: true,
}) as Record<string, string>;

/** The language every message exists in, and the one a missing message falls back to. */
export const REFERENCE_LANGUAGE = 'en';
/** The test language: English, accented and lengthened. */
export const PSEUDO_LANGUAGE = 'pseudo';
/** Where this window remembers the reader's choice, so the next start paints in it at once. */
const STORAGE_KEY = 'carrel.language';

/** What {@link t} takes as variables. */
export type MessageArgs = Record<string, FluentVariable | null | undefined>;

/** The message files of each language, by language tag. */
export function messageFiles(): Map<string, { file: string; source: string }[]> {
  const byLanguage = new Map<string, { file: string; source: string }[]>();
  for (const [path, source] of Object.entries(FILES)) {
    const match = /locales\/([^/]+)\/([^/]+\.ftl)$/.exec(path);
    if (!match) continue;
    const [, language, file] = match;
    const files = byLanguage.get(language) ?? [];
    files.push({ file, source });
    byLanguage.set(language, files);
  }
  return byLanguage;
}

/** The languages Carrel speaks, the reference first, then by tag. */
export const LANGUAGES: readonly string[] = [...messageFiles().keys()].sort((a, b) =>
  a === REFERENCE_LANGUAGE ? -1 : b === REFERENCE_LANGUAGE ? 1 : a.localeCompare(b),
);

const ACCENTED: Record<string, string> = {
  a: 'á', b: 'ƀ', c: 'ç', d: 'ð', e: 'é', f: 'ƒ', g: 'ĝ', h: 'ĥ', i: 'î', j: 'ĵ', k: 'ķ', l: 'ĺ', m: 'ɱ',
  n: 'ñ', o: 'ó', p: 'þ', q: 'ǫ', r: 'ŕ', s: 'š', t: 'ţ', u: 'û', v: 'ṽ', w: 'ŵ', x: 'ẋ', y: 'ý', z: 'ž',
  A: 'Á', B: 'Ɓ', C: 'Ç', D: 'Ð', E: 'É', F: 'Ƒ', G: 'Ĝ', H: 'Ĥ', I: 'Î', J: 'Ĵ', K: 'Ķ', L: 'Ĺ', M: 'Ṁ',
  N: 'Ñ', O: 'Ó', P: 'Þ', Q: 'Ǫ', R: 'Ŕ', S: 'Š', T: 'Ţ', U: 'Û', V: 'Ṽ', W: 'Ŵ', X: 'Ẋ', Y: 'Ý', Z: 'Ž',
};

/**
 * A text of the pseudo-language: every letter accented and 40 % more letters (vowels
 * doubled, in turn), so it reads, wraps and overflows like a long translation would.
 */
export function pseudoText(text: string): string {
  const letters = [...text].filter((c) => /\p{L}/u.test(c)).length;
  let extra = Math.ceil(letters * 0.4);
  let out = '';
  for (const c of text) {
    const accented = ACCENTED[c] ?? c;
    out += accented;
    if (extra > 0 && /[aeiouyAEIOUY]/.test(c)) {
      out += accented;
      extra--;
    }
  }
  // A text with few vowels is lengthened at its end.
  return extra > 0 ? out + '·'.repeat(extra) : out;
}

/** Each language's bundle, parsed once for the life of the window. */
const BUNDLES = new Map<string, FluentBundle>();

function bundleFor(language: string): FluentBundle {
  const parsed = BUNDLES.get(language);
  if (parsed) return parsed;
  const bundle = parseBundle(language);
  BUNDLES.set(language, bundle);
  return bundle;
}

function parseBundle(language: string): FluentBundle {
  const source = language === PSEUDO_LANGUAGE ? REFERENCE_LANGUAGE : language;
  const bundle = new FluentBundle(language === PSEUDO_LANGUAGE ? 'en' : language, {
    // Carrel's languages are all written left to right; isolation marks would only get in the
    // way of a screen reader and of tests.
    useIsolating: false,
    transform: language === PSEUDO_LANGUAGE ? pseudoText : (text) => text,
  });
  for (const { file, source: text } of messageFiles().get(source) ?? []) {
    const errors = bundle.addResource(new FluentResource(text));
    for (const error of errors) console.error(`locales/${source}/${file}: ${error.message}`);
  }
  return bundle;
}

/** The languages the system asks for, most wanted first. */
export function systemLanguages(): string[] {
  const fromShell = (globalThis as { __CARREL_SYSTEM_LANGUAGES__?: unknown }).__CARREL_SYSTEM_LANGUAGES__;
  const shell = Array.isArray(fromShell) ? fromShell.filter((l): l is string => typeof l === 'string') : [];
  const webview = typeof navigator !== 'undefined' ? [...(navigator.languages ?? []), navigator.language] : [];
  return [...shell, ...webview].filter(Boolean);
}

/** The language Carrel speaks for a list of wanted ones: the first it has, else English. */
export function negotiate(wanted: readonly string[]): string {
  const spoken = LANGUAGES.filter((l) => l !== PSEUDO_LANGUAGE);
  const [best] = negotiateLanguages([...wanted], spoken, {
    defaultLocale: REFERENCE_LANGUAGE,
    strategy: 'lookup',
  });
  return best ?? REFERENCE_LANGUAGE;
}

/** `system`, or a language tag Carrel has (or `pseudo`). */
export type LanguageChoice = string;

function isChoice(value: unknown): value is LanguageChoice {
  return value === 'system' || value === PSEUDO_LANGUAGE || (typeof value === 'string' && LANGUAGES.includes(value));
}

function rememberedChoice(): LanguageChoice {
  try {
    const value = localStorage.getItem(STORAGE_KEY);
    return isChoice(value) ? value : 'system';
  } catch {
    return 'system';
  }
}

class Messages {
  /** What the reader chose: `system` or a language. */
  choice = $state<LanguageChoice>('system');
  /** The language shown: the choice, or the system's when the choice is `system`. */
  language = $state<string>(REFERENCE_LANGUAGE);

  #missing = new Set<string>();

  constructor() {
    this.#apply(rememberedChoice(), false);
    if (typeof window !== 'undefined') {
      // Another window chose a language: this one follows at once.
      window.addEventListener('storage', (event) => {
        if (event.key === STORAGE_KEY && isChoice(event.newValue)) this.#apply(event.newValue, false);
      });
    }
  }

  /** Changes the language of this window and of every other open one. */
  choose(choice: LanguageChoice): void {
    if (!isChoice(choice)) return;
    this.#apply(choice, true);
  }

  #apply(choice: LanguageChoice, remember: boolean): void {
    this.choice = choice;
    this.language = choice === 'system' ? negotiate(systemLanguages()) : choice;
    if (typeof document !== 'undefined') {
      document.documentElement.lang = this.language === PSEUDO_LANGUAGE ? 'en' : this.language;
    }
    if (remember) {
      try {
        localStorage.setItem(STORAGE_KEY, choice);
      } catch {
        // Storage may be unavailable; the choice holds for this window.
      }
    }
  }

  /** The `Intl` locale of the language shown (dates, numbers, sizes). */
  get locale(): string {
    return this.language === PSEUDO_LANGUAGE ? 'en' : this.language;
  }

  format(id: string, args?: MessageArgs, attribute?: string): string {
    for (const language of [this.language, REFERENCE_LANGUAGE]) {
      const bundle = bundleFor(language);
      const message = bundle.getMessage(id);
      const pattern = attribute ? message?.attributes[attribute] : message?.value;
      if (!pattern) continue;
      const errors: Error[] = [];
      const text = bundle.formatPattern(pattern, cleanArgs(args), errors);
      if (errors.length) console.error(`message ${id}: ${errors.map((e) => e.message).join('; ')}`);
      return text;
    }
    if (!this.#missing.has(id)) {
      this.#missing.add(id);
      console.error(`no message ${id}${attribute ? `.${attribute}` : ''} in locales/${REFERENCE_LANGUAGE}`);
    }
    return id;
  }
}

function cleanArgs(args: MessageArgs | undefined): Record<string, FluentVariable> | null {
  if (!args) return null;
  const out: Record<string, FluentVariable> = {};
  for (const [key, value] of Object.entries(args)) {
    if (value !== null && value !== undefined) out[key] = value;
  }
  return out;
}

/** A language's own name ("Français"), for the list of languages to choose from. */
export function languageName(language: string): string {
  if (language === PSEUDO_LANGUAGE) return 'Pseudo';
  const bundle = bundleFor(language);
  const message = bundle.getMessage('language-name');
  return message?.value ? bundle.formatPattern(message.value) : language;
}

/** The messages of this window, and its language. */
export const i18n = new Messages();

/**
 * A message in the reader's language: `t('downloads-title')`,
 * `t('books-count', { count: 3 })`. Reactive in components: a language chosen re-renders it.
 */
export function t(id: string, args?: MessageArgs): string {
  return i18n.format(id, args);
}

/** An attribute of a message: `ta('page-slider', 'label')` for `page-slider = …` / `.label = …`. */
export function ta(id: string, attribute: string, args?: MessageArgs): string {
  return i18n.format(id, args, attribute);
}
