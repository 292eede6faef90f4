/**
 * A stand-in for `@tauri-apps/api/core` in unit tests. Each test file mocks the module with
 *
 *   vi.mock('@tauri-apps/api/core', () => import('../test/tauri'));
 *
 * and then drives `invoke` (a `vi.fn`) and the channels the code under test opened.
 */
import { vi } from 'vitest';

export const invoke = vi.fn();

export function convertFileSrc(path: string, protocol = 'asset'): string {
  return `${protocol}://localhost/${encodeURIComponent(path)}`;
}

/** Every channel created since the last {@link resetChannels}, oldest first. */
export const channels: Channel<unknown>[] = [];

export class Channel<T = unknown> {
  static #next = 1;
  id = Channel.#next++;
  onmessage: (message: T) => void = () => {};

  constructor(onmessage?: (message: T) => void) {
    if (onmessage) this.onmessage = onmessage;
    channels.push(this as Channel<unknown>);
  }

  /** Delivers a message as the Rust side would. */
  send(message: T): void {
    this.onmessage(message);
  }

  toJSON(): string {
    return `__CHANNEL__:${this.id}`;
  }
}

export function resetChannels(): void {
  channels.length = 0;
}

/** The newest channel, typed for the test. */
export function lastChannel<T>(): Channel<T> {
  const channel = channels.at(-1);
  if (!channel) throw new Error('no channel was opened');
  return channel as Channel<T>;
}
