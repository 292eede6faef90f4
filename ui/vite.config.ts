import { defineConfig } from 'vitest/config';
import { svelte } from '@sveltejs/vite-plugin-svelte';
import { svelteTesting } from '@testing-library/svelte/vite';

// The UI is served by the Tauri shell from ui/dist under a strict CSP
// (script-src 'self'; style-src 'self'): everything is bundled into files,
// nothing is inlined into index.html and nothing is loaded from elsewhere.
export default defineConfig(({ mode }) => ({
  plugins: [svelte(), ...(mode === 'test' ? [svelteTesting()] : [])],
  clearScreen: false,
  server: {
    port: 5173,
    strictPort: true,
    // The message files live beside ui/, at the project's top level (the shell reads them too).
    fs: { allow: ['.', '../locales'] },
  },
  build: {
    outDir: 'dist',
    emptyOutDir: true,
    target: ['es2022', 'safari15'],
    // Never turn small assets into data: URIs or inline styles.
    assetsInlineLimit: 0,
    cssCodeSplit: false,
    modulePreload: { polyfill: false },
    sourcemap: false,
    reportCompressedSize: true,
  },
  test: {
    environment: 'jsdom',
    include: ['src/**/*.test.ts'],
    setupFiles: ['src/test/setup.ts'],
    restoreMocks: true,
  },
}));
