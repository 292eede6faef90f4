/** Puts every store back as it is when the app starts, between tests. */
import { app } from '../lib/stores/app.svelte';
import { servers } from '../lib/stores/servers.svelte';
import { dialogs } from '../lib/stores/dialogs.svelte';
import { router } from '../lib/stores/router.svelte';
import { browse } from '../lib/stores/browse.svelte';
import { details } from '../lib/stores/details.svelte';
import { downloads } from '../lib/stores/downloads.svelte';
import { settings } from '../lib/stores/settings.svelte';
import { toasts } from '../lib/stores/toasts.svelte';
import { reader } from '../lib/stores/reader.svelte';
import { continueReading } from '../lib/stores/continueReading.svelte';
import { resetChannels } from './tauri';

export function resetStores(): void {
  app.reset();
  servers.reset();
  dialogs.close();
  router.reset();
  browse.reset();
  details.reset();
  downloads.reset();
  settings.reset();
  toasts.reset();
  reader.reset();
  continueReading.reset();
  resetChannels();
  delete document.documentElement.dataset.theme;
}

/** The settings back to their defaults, with nothing remembered on this device. */
export function resetSettings(): void {
  settings.reset();
  localStorage.clear();
  delete document.documentElement.dataset.theme;
}
