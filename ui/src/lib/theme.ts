/**
 * The window's theme: `system` follows the desktop's light or dark preference, `light` and
 * `dark` override it. Applied as `data-theme` on the root element (theme.css has the colours),
 * and remembered in local storage so the next start draws in the right colours at once,
 * before the settings are read.
 */
import type { ThemeChoice } from './ipc';

const STORAGE_KEY = 'carrel.theme';

export function isThemeChoice(value: unknown): value is ThemeChoice {
  return value === 'system' || value === 'light' || value === 'dark';
}

export function applyTheme(choice: ThemeChoice, root: HTMLElement = document.documentElement): void {
  if (choice === 'system') delete root.dataset.theme;
  else root.dataset.theme = choice;
  try {
    localStorage.setItem(STORAGE_KEY, choice);
  } catch {
    // Storage may be unavailable; the settings still hold the choice.
  }
}

/** The theme chosen last time, as remembered by this window. */
export function rememberedTheme(): ThemeChoice {
  try {
    const value = localStorage.getItem(STORAGE_KEY);
    return isThemeChoice(value) ? value : 'system';
  } catch {
    return 'system';
  }
}
