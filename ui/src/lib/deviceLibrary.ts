/**
 * The reader's choices for "On this device" — order, filters, grouping — kept in the window's
 * storage so the next visit shows the books the same way, and turned into the core's query
 * (`DeviceLibraryQuery`, sorted and filtered by `list_on_device`).
 */
import type { BookFormat, DeviceLibraryQuery, DeviceSort, ReadState } from './contract';

export interface DeviceChoices {
  sort: DeviceSort;
  descending: boolean;
  format: 'all' | Exclude<BookFormat, 'other'>;
  readState: 'all' | ReadState;
  /** A source's server id, or every source. */
  source: number | null;
  groupBySeries: boolean;
}

export const DEVICE_CHOICES_KEY = 'carrel.on-device.choices';

export const DEFAULT_DEVICE_CHOICES: DeviceChoices = {
  sort: 'title',
  descending: false,
  format: 'all',
  readState: 'all',
  source: null,
  groupBySeries: false,
};

const SORTS: readonly DeviceSort[] = ['title', 'series', 'author', 'added', 'last_read'];
const FORMATS: readonly DeviceChoices['format'][] = ['all', 'comic', 'epub', 'pdf'];
const READ_STATES: readonly DeviceChoices['readState'][] = ['all', 'unread', 'in_progress', 'read'];

/** The choices kept, each one checked (anything unknown falls back to its default). */
export function loadDeviceChoices(storage: Pick<Storage, 'getItem'> | null = safeStorage()): DeviceChoices {
  let kept: Partial<Record<keyof DeviceChoices, unknown>> = {};
  try {
    kept = JSON.parse(storage?.getItem(DEVICE_CHOICES_KEY) ?? '{}') ?? {};
  } catch {
    kept = {};
  }
  const d = DEFAULT_DEVICE_CHOICES;
  return {
    sort: SORTS.includes(kept.sort as DeviceSort) ? (kept.sort as DeviceSort) : d.sort,
    descending: typeof kept.descending === 'boolean' ? kept.descending : d.descending,
    format: FORMATS.includes(kept.format as DeviceChoices['format']) ? (kept.format as DeviceChoices['format']) : d.format,
    readState: READ_STATES.includes(kept.readState as DeviceChoices['readState'])
      ? (kept.readState as DeviceChoices['readState'])
      : d.readState,
    source: typeof kept.source === 'number' && Number.isInteger(kept.source) ? kept.source : d.source,
    groupBySeries: typeof kept.groupBySeries === 'boolean' ? kept.groupBySeries : d.groupBySeries,
  };
}

export function saveDeviceChoices(choices: DeviceChoices, storage: Pick<Storage, 'setItem'> | null = safeStorage()): void {
  try {
    storage?.setItem(DEVICE_CHOICES_KEY, JSON.stringify(choices));
  } catch {
    // A full or refused storage only loses the choices for next time.
  }
}

/** The core's query for the choices and the text typed. */
export function toQuery(choices: DeviceChoices, text: string): DeviceLibraryQuery {
  return {
    sort: choices.sort,
    descending: choices.descending,
    formats: choices.format === 'all' ? [] : [choices.format],
    read_states: choices.readState === 'all' ? [] : [choices.readState],
    sources: choices.source === null ? [] : [choices.source],
    text: text.trim(),
  };
}

function safeStorage(): Storage | null {
  try {
    return typeof localStorage === 'undefined' ? null : localStorage;
  } catch {
    return null;
  }
}
