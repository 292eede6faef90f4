/**
 * Short messages at the bottom of the window ("Opening…", "Couldn’t remove …"). They go away
 * by themselves, errors later than the rest, and can be dismissed.
 */

export type ToastKind = 'info' | 'error';

export interface Toast {
  id: number;
  kind: ToastKind;
  message: string;
}

const LIFETIME_MS: Record<ToastKind, number> = { info: 4000, error: 8000 };
/** Beyond this many, the oldest goes. */
const MAX_TOASTS = 3;

class ToastsState {
  list = $state<Toast[]>([]);
  #next = 1;
  #timers = new Map<number, ReturnType<typeof setTimeout>>();

  show(message: string, kind: ToastKind = 'info'): number {
    const id = this.#next++;
    this.list = [...this.list, { id, kind, message }].slice(-MAX_TOASTS);
    this.#timers.set(
      id,
      setTimeout(() => this.dismiss(id), LIFETIME_MS[kind]),
    );
    return id;
  }

  error(message: string): number {
    return this.show(message, 'error');
  }

  dismiss(id: number): void {
    clearTimeout(this.#timers.get(id));
    this.#timers.delete(id);
    this.list = this.list.filter((t) => t.id !== id);
  }

  reset(): void {
    for (const timer of this.#timers.values()) clearTimeout(timer);
    this.#timers.clear();
    this.list = [];
  }
}

export const toasts = new ToastsState();
