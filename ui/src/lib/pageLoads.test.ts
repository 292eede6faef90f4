import { describe, expect, it } from 'vitest';
import { PageLoads } from './pageLoads.svelte';

/** The event an image element of page `page` (first attempt) gives when it settles. */
function settledEvent(type: 'load' | 'error', connected: boolean): Event {
  const image = document.createElement('img');
  image.dataset.key = '2:0';
  image.dataset.pageIndex = '2';
  if (connected) document.body.append(image);
  const event = new Event(type);
  Object.defineProperty(event, 'currentTarget', { value: image });
  return event;
}

describe('how the pages loaded', () => {
  it('takes an element on the page at its word', () => {
    const loads = new PageLoads();
    loads.settled(settledEvent('error', true));
    expect(loads.of(2)).toBe('offline');
  });

  it('pays no heed to an element that left the page and let go of its picture', () => {
    const loads = new PageLoads();
    loads.settled(settledEvent('error', false));
    expect(loads.of(2)).toBeUndefined();
  });
});
