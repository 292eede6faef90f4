import { beforeEach, describe, expect, it } from 'vitest';
import { BusyActions } from './busyActions.svelte';
import { toasts } from './toasts.svelte';

describe('BusyActions', () => {
  beforeEach(() => toasts.reset());

  it('runs one action at a time for a key, busy while it runs', async () => {
    const busy = new BusyActions<string>();
    let finish = () => {};
    let runs = 0;
    const first = busy.run(
      'a',
      () =>
        new Promise<void>((resolve) => {
          runs++;
          finish = resolve;
        }),
      (reason) => reason,
    );
    expect(busy.has('a')).toBe(true);
    expect(busy.has('b')).toBe(false);
    await busy.run('a', async () => void runs++, (reason) => reason);
    expect(runs).toBe(1);
    finish();
    await first;
    expect(busy.has('a')).toBe(false);
    expect(toasts.list).toEqual([]);
  });

  it('says why an action failed in an error toast, and frees its key', async () => {
    const busy = new BusyActions<number>();
    await busy.run(
      7,
      () => Promise.reject({ kind: 'server', message: 'the server said no' }),
      (reason) => `Could not pause: ${reason}`,
    );
    expect(busy.has(7)).toBe(false);
    expect(toasts.list.map((t) => [t.kind, t.message])).toEqual([['error', 'Could not pause: the server said no']]);
  });
});
