/**
 * Something read from the Rust side for one view (a list, a summary): its value, whether it
 * is loading, and why it failed. Answers to an older `load` never overwrite a newer one.
 */
import { toCommandError, type CommandError } from '../ipc';

export class Resource<T> {
  value = $state.raw<T | null>(null);
  error = $state.raw<CommandError | null>(null);
  loading = $state(false);
  /** True once a load has finished (well or not). */
  settled = $state(false);

  #fetch: () => Promise<T>;
  #generation = 0;

  constructor(fetch: () => Promise<T>) {
    this.#fetch = fetch;
  }

  /**
   * Reads the value. `quiet` keeps what is shown (and any error stays hidden) until the answer
   * comes, for refreshes the reader did not ask for. Never rejects.
   */
  async load(quiet = false): Promise<void> {
    const generation = ++this.#generation;
    this.loading = true;
    if (!quiet) this.error = null;
    try {
      const value = await this.#fetch();
      if (generation !== this.#generation) return;
      this.value = value;
      this.error = null;
    } catch (reason) {
      if (generation !== this.#generation) return;
      if (!quiet || this.value === null) this.error = toCommandError(reason);
    } finally {
      if (generation === this.#generation) {
        this.loading = false;
        this.settled = true;
      }
    }
  }

  /** Back to before any load; an answer still on its way is dropped. */
  reset(): void {
    this.#generation++;
    this.value = null;
    this.error = null;
    this.loading = false;
    this.settled = false;
  }

  /** Waiting for a first answer: show a skeleton. */
  get pending(): boolean {
    return this.value === null && this.error === null;
  }
}
