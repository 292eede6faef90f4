import { beforeEach, describe, expect, it } from 'vitest';
import {
  EpubTypography,
  PARAGRAPH_SPACING,
  TYPOGRAPHY_DEFAULTS,
  loadTypography,
  parseTypography,
  stepSpacing,
  typographyCss,
} from './epubTypography.svelte';

describe('EPUB typography', () => {
  beforeEach(() => localStorage.clear());

  it('is kept per book, books never set taking the default', () => {
    const typography = new EpubTypography();
    typography.load(1);
    expect(typography.value).toEqual(TYPOGRAPHY_DEFAULTS);
    typography.set({ justify: true, paragraphSpacing: 1 });
    expect(loadTypography(1)).toEqual({ justify: true, hyphenate: false, paragraphSpacing: 1 });
    expect(loadTypography(2)).toEqual(TYPOGRAPHY_DEFAULTS);

    typography.makeDefault();
    expect(loadTypography(2)).toEqual({ justify: true, hyphenate: false, paragraphSpacing: 1 });

    typography.load(3);
    typography.set({ hyphenate: true });
    typography.load(1);
    typography.set({ justify: false });
    typography.makeDefault();
    // A book set keeps its own; the new default reaches only the others.
    expect(loadTypography(3)).toEqual({ justify: true, hyphenate: true, paragraphSpacing: 1 });
    expect(loadTypography(4)).toEqual({ justify: false, hyphenate: false, paragraphSpacing: 1 });
  });

  it('keeps only valid stored choices', () => {
    expect(parseTypography({ justify: 'yes', hyphenate: true, paragraphSpacing: 9 })).toEqual({
      justify: false,
      hyphenate: true,
      paragraphSpacing: PARAGRAPH_SPACING.max,
    });
    expect(parseTypography(null)).toEqual(TYPOGRAPHY_DEFAULTS);
  });

  it('steps the space between paragraphs from the book’s own', () => {
    expect(stepSpacing(null, 1)).toBe(0.5);
    expect(stepSpacing(null, -1)).toBe(0);
    expect(stepSpacing(0.5, 1)).toBe(0.75);
    expect(stepSpacing(0, -1)).toBe(0);
    expect(stepSpacing(PARAGRAPH_SPACING.max, 1)).toBe(PARAGRAPH_SPACING.max);
  });

  it('puts its choices into the book as CSS', () => {
    const css = typographyCss({ justify: true, hyphenate: true, paragraphSpacing: 0.75 });
    expect(css).toContain('text-align: justify');
    expect(css).toContain('hyphens: auto');
    expect(css).toContain('margin-block: 0.75em');
    const plain = typographyCss(TYPOGRAPHY_DEFAULTS);
    expect(plain).not.toContain('justify');
    expect(plain).not.toContain('margin-block');
    expect(plain).toContain('hyphens: manual');
  });
});
