/**
 * The reader's settings, read at start-up (the theme applies at once) and saved as they change.
 */
import {
  DEFAULT_SETTINGS,
  getSettings,
  setSettings,
  toCommandError,
  type CommandError,
  type Settings,
} from '../ipc';
import { applyTheme, rememberedTheme } from '../theme';
import { PSEUDO_LANGUAGE, i18n } from '../i18n.svelte';

/**
 * Shows the language the settings hold (chosen in this window, another one, or another
 * process). The test language stays while chosen: it is never saved.
 */
function followLanguage(language: string | null | undefined): void {
  if (i18n.choice === PSEUDO_LANGUAGE) return;
  const choice = language ?? 'system';
  if (choice !== i18n.choice) i18n.choose(choice);
}

export const MAX_BOOKS_KEPT = 50;

class SettingsState {
  value = $state<Settings>({ ...DEFAULT_SETTINGS, theme: rememberedTheme() });
  loaded = $state(false);
  loading = $state(false);
  /** Why reading failed, if it did. */
  error = $state.raw<CommandError | null>(null);
  saving = $state(false);
  /** Why the last save failed, if it did. */
  saveError = $state.raw<CommandError | null>(null);

  #saves = 0;

  /** Reads the settings and applies the theme. Never rejects. */
  async load(): Promise<void> {
    this.loading = true;
    try {
      const value = await getSettings();
      this.value = { ...DEFAULT_SETTINGS, ...value };
      this.error = null;
      this.loaded = true;
      applyTheme(this.value.theme);
      followLanguage(this.value.language);
    } catch (reason) {
      this.error = toCommandError(reason);
    } finally {
      this.loading = false;
    }
  }

  /**
   * Reads the settings again after they may have changed elsewhere (another window or
   * process): applied, with the theme, only when they differ from those shown, and never over
   * a change this window is saving. Never rejects; on failure what is shown stays.
   */
  async reload(): Promise<void> {
    if (this.saving) return;
    const saves = this.#saves;
    try {
      const value = { ...DEFAULT_SETTINGS, ...(await getSettings()) };
      if (saves !== this.#saves || this.saving) return;
      this.error = null;
      this.loaded = true;
      const before = this.value;
      if (
        value.books_kept === before.books_kept &&
        value.notifications === before.notifications &&
        value.theme === before.theme &&
        value.language === before.language
      ) {
        return;
      }
      this.value = value;
      if (value.theme !== before.theme) applyTheme(value.theme);
      if (value.language !== before.language) followLanguage(value.language);
    } catch {
      // What is shown stays; the next change tries again.
    }
  }

  /**
   * Changes some settings: shown (and the theme applied) at once, then saved; when saving
   * fails, the previous values come back and {@link saveError} says why. Never rejects.
   */
  async update(change: Partial<Settings>): Promise<void> {
    const before = this.value;
    const next: Settings = { ...before, ...change };
    next.books_kept = Math.max(0, Math.min(MAX_BOOKS_KEPT, Math.round(next.books_kept)));
    this.value = next;
    applyTheme(next.theme);
    const save = ++this.#saves;
    this.saving = true;
    this.saveError = null;
    try {
      const saved = await setSettings(next);
      if (save !== this.#saves) return;
      this.value = { ...DEFAULT_SETTINGS, ...saved };
      applyTheme(this.value.theme);
    } catch (reason) {
      if (save !== this.#saves) return;
      this.saveError = toCommandError(reason);
      this.value = before;
      applyTheme(before.theme);
    } finally {
      if (save === this.#saves) this.saving = false;
    }
  }

  reset(): void {
    this.#saves++;
    this.value = { ...DEFAULT_SETTINGS };
    this.loaded = false;
    this.loading = false;
    this.error = null;
    this.saving = false;
    this.saveError = null;
  }
}

export const settings = new SettingsState();
