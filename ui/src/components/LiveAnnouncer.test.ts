import { afterEach, describe, expect, it } from 'vitest';
import { render, screen } from '@testing-library/svelte';
import { flushSync } from 'svelte';

import LiveAnnouncer from './LiveAnnouncer.svelte';
import { announcer } from '../lib/stores/announcer.svelte';

describe('LiveAnnouncer', () => {
  afterEach(() => announcer.clear());

  it('is one polite status region, unseen, saying what it is given', () => {
    render(LiveAnnouncer);
    const region = screen.getByRole('status');
    expect(region.getAttribute('aria-live')).toBe('polite');
    expect(region.getAttribute('aria-atomic')).toBe('true');
    expect(region.classList.contains('sr-only')).toBe(true);
    expect(region.textContent).toBe('');

    announcer.say('Page 4 of 24');
    flushSync();
    expect(region.textContent).toBe('Page 4 of 24');
  });

  it('says the same words twice as a change, and ignores nothing to say', () => {
    render(LiveAnnouncer);
    const region = screen.getByTestId('live-announcer');
    announcer.say('Page 2 of 4');
    flushSync();
    const first = region.textContent;
    announcer.say('Page 2 of 4');
    flushSync();
    expect(region.textContent).not.toBe(first);
    expect(region.textContent?.trim()).toBe('Page 2 of 4');
    announcer.say('');
    flushSync();
    expect(region.textContent?.trim()).toBe('Page 2 of 4');
  });
});
