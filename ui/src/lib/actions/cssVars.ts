/**
 * Sets CSS custom properties on an element through the CSSOM. The app's CSP allows no inline
 * `style` attributes, so sizes that depend on data (a progress bar's width) are passed this
 * way and used by the stylesheet: `use:cssVars={{ '--value': '42%' }}`.
 */

export type CssVars = Record<`--${string}`, string | number | null | undefined>;

export function cssVars(node: HTMLElement, vars: CssVars) {
  let previous: CssVars = {};

  function apply(next: CssVars) {
    for (const name of Object.keys(previous) as Array<keyof CssVars>) {
      if (!(name in next)) node.style.removeProperty(name);
    }
    for (const [name, value] of Object.entries(next)) {
      if (value === null || value === undefined) node.style.removeProperty(name);
      else node.style.setProperty(name, String(value));
    }
    previous = next;
  }

  apply(vars);
  return { update: apply };
}
