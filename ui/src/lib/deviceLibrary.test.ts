import { describe, expect, it } from 'vitest';
import { DEFAULT_DEVICE_CHOICES, DEVICE_CHOICES_KEY, loadDeviceChoices, saveDeviceChoices, toQuery } from './deviceLibrary';

function memory(initial: Record<string, string> = {}) {
  const data = { ...initial };
  return {
    data,
    getItem: (k: string) => data[k] ?? null,
    setItem: (k: string, v: string) => {
      data[k] = v;
    },
  };
}

describe('the device library choices', () => {
  it('are kept and read back', () => {
    const storage = memory();
    const choices = { ...DEFAULT_DEVICE_CHOICES, sort: 'last_read' as const, descending: true, format: 'epub' as const, source: 3 };
    saveDeviceChoices(choices, storage);
    expect(loadDeviceChoices(storage)).toEqual(choices);
  });

  it('fall back to the defaults, one by one, for anything unknown or broken', () => {
    expect(loadDeviceChoices(memory({ [DEVICE_CHOICES_KEY]: 'not json' }))).toEqual(DEFAULT_DEVICE_CHOICES);
    expect(
      loadDeviceChoices(memory({ [DEVICE_CHOICES_KEY]: JSON.stringify({ sort: 'size', readState: 'read', source: 'x' }) })),
    ).toEqual({ ...DEFAULT_DEVICE_CHOICES, readState: 'read' });
  });

  it('become the core query, "all" filtering nothing', () => {
    expect(toQuery(DEFAULT_DEVICE_CHOICES, '  ')).toEqual({
      sort: 'title',
      descending: false,
      formats: [],
      read_states: [],
      sources: [],
      text: '',
    });
    expect(
      toQuery({ ...DEFAULT_DEVICE_CHOICES, format: 'pdf', readState: 'in_progress', source: 2 }, ' Émile '),
    ).toMatchObject({ formats: ['pdf'], read_states: ['in_progress'], sources: [2], text: 'Émile' });
  });
});
