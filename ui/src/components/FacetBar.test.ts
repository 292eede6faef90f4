import { describe, expect, it, vi } from 'vitest';
import { fireEvent, render, screen, within } from '@testing-library/svelte';

import FacetBar from './FacetBar.svelte';
import type { FacetGroup } from '../lib/ipc';

const groups: FacetGroup[] = [
  {
    title: 'Order By',
    facets: [
      { title: 'Name', href: 'http://h/f', active: true, count: null },
      { title: 'Date', href: 'http://h/f?orderBy=date', active: false, count: null },
    ],
  },
  {
    title: 'Publisher',
    facets: ['Marvel', 'DC', 'Image', 'Dark Horse'].map((title, i) => ({
      title,
      href: `http://h/f?p=${i}`,
      active: i === 2,
      count: i === 0 ? 12 : null,
    })),
  },
  { title: null, facets: [{ title: 'Everything', href: 'http://h/all', active: false, count: null }] },
];

describe('FacetBar', () => {
  it('shows each group labelled with its choices, the view shown chosen', () => {
    render(FacetBar, { groups, onchoose: vi.fn() });
    const shown = screen.getAllByTestId('facet-group');
    expect(shown).toHaveLength(3);
    const order = within(shown[0]).getAllByTestId('facet');
    expect(shown[0].getAttribute('aria-label')).toBe('Order By');
    expect(order.map((b) => [b.textContent, b.getAttribute('aria-pressed')])).toEqual([
      ['Name', 'true'],
      ['Date', 'false'],
    ]);
    const select = within(shown[1]).getByTestId('facet-select') as HTMLSelectElement;
    expect(shown[1].textContent).toContain('Publisher');
    expect(select.selectedOptions[0].textContent).toBe('Image');
    expect(Array.from(select.options).map((o) => o.textContent)).toEqual(['Marvel (12)', 'DC', 'Image', 'Dark Horse']);
    expect(shown[2].getAttribute('aria-label')).toBe('View');
  });

  it('opens the feed of the choice made, and nothing for the one already shown', async () => {
    const onchoose = vi.fn();
    render(FacetBar, { groups, onchoose });
    const [order, publisher] = screen.getAllByTestId('facet-group');
    await fireEvent.click(within(order).getByText('Name'));
    expect(onchoose).not.toHaveBeenCalled();
    await fireEvent.click(within(order).getByText('Date'));
    expect(onchoose).toHaveBeenLastCalledWith('http://h/f?orderBy=date');
    const select = within(publisher).getByTestId('facet-select') as HTMLSelectElement;
    select.value = '1';
    await fireEvent.change(select);
    expect(onchoose).toHaveBeenLastCalledWith('http://h/f?p=1');
  });

  it('offers a choice to make when the server marks none active', () => {
    const many: FacetGroup = { title: 'Genre', facets: groups[1].facets.map((f) => ({ ...f, active: false })) };
    render(FacetBar, { groups: [many], onchoose: vi.fn() });
    const select = screen.getByTestId('facet-select') as HTMLSelectElement;
    expect(select.selectedOptions[0].textContent).toBe('Choose…');
    expect(select.selectedOptions[0].disabled).toBe(true);
  });
});
