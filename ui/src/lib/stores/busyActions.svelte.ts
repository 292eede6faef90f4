/**
 * Actions on a page's items (a download, a batch of downloads), run once at a time for each:
 * an item is busy while its action runs (its buttons disabled meanwhile), and an action that
 * fails says why in an error toast.
 */
import { SvelteSet } from 'svelte/reactivity';
import { explainInline } from '../errors';
import { toCommandError } from '../ipc';
import { toasts } from './toasts.svelte';

export class BusyActions<Key> {
  readonly #busy = new SvelteSet<Key>();

  /** Whether an action on `key` is running. */
  has(key: Key): boolean {
    return this.#busy.has(key);
  }

  /** Runs `action` on `key` unless one already runs; a failure is told by `failure(reason)`. */
  async run(key: Key, action: () => Promise<unknown>, failure: (reason: string) => string): Promise<void> {
    if (this.#busy.has(key)) return;
    this.#busy.add(key);
    try {
      await action();
    } catch (reason) {
      toasts.error(failure(explainInline(toCommandError(reason))));
    } finally {
      this.#busy.delete(key);
    }
  }
}
