import { beforeEach, describe, expect, it, vi } from 'vitest';
import { render, screen } from '@testing-library/svelte';
import { flushSync } from 'svelte';

vi.mock('@tauri-apps/api/core', () => import('../test/tauri'));

import DropOverlay from './DropOverlay.svelte';
import { localFiles } from '../lib/stores/localFiles.svelte';

describe('DropOverlay', () => {
  beforeEach(() => {
    localFiles.dragging = false;
    localFiles.setCopy(false);
  });

  it('shows where to drop only while files are dragged, and what becomes of them', () => {
    render(DropOverlay);
    expect(screen.queryByTestId('drop-overlay')).toBeNull();
    localFiles.dragging = true;
    flushSync();
    const overlay = screen.getByTestId('drop-overlay');
    expect(overlay.textContent).toContain('Drop books to open them');
    expect(overlay.textContent).toContain('Carrel reads them where they are.');
    localFiles.setCopy(true);
    flushSync();
    expect(overlay.textContent).toContain('They are copied into Carrel’s library.');
    localFiles.dragging = false;
    flushSync();
    expect(screen.queryByTestId('drop-overlay')).toBeNull();
  });
});
