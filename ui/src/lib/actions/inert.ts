/**
 * Sets or clears the `inert` attribute, so the part of the window behind a modal dialog
 * cannot be focused, clicked or read out while the dialog is open.
 */
export function inert(node: HTMLElement, on: boolean) {
  function apply(value: boolean) {
    if (value) node.setAttribute('inert', '');
    else node.removeAttribute('inert');
  }
  apply(on);
  return {
    update: apply,
    destroy: () => node.removeAttribute('inert'),
  };
}
