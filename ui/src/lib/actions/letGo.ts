/**
 * Lets go of a picture the window no longer shows. An image element keeps the webview's copy of
 * its picture (the bytes and, once drawn, the decoded pixels: a comic page takes megabytes)
 * until the element itself is collected, which may be many pages later; without its address
 * it holds nothing, and the webview frees the picture at once unless something else still shows
 * it.
 */
export function letGo(image: HTMLImageElement): void {
  if (typeof image.removeAttribute === 'function') image.removeAttribute('src');
}

/** The same when the element leaves the page: `<img use:letGoWhenRemoved …>`. */
export function letGoWhenRemoved(image: HTMLImageElement): { destroy: () => void } {
  return { destroy: () => letGo(image) };
}
