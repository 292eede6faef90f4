/**
 * Makes a drawn PDF page into a PNG picture off the window's thread: the page comes as an
 * `ImageBitmap` (moved here, not copied), is put on an `OffscreenCanvas` and compressed there,
 * so the window keeps turning pages while it is made. Answers `{ id, blob }`, or `{ id, error }`.
 */
interface WorkerScope {
  onmessage: ((event: MessageEvent<{ id: number; bitmap: ImageBitmap }>) => void) | null;
  postMessage(message: unknown): void;
}
const scope = self as unknown as WorkerScope;

scope.onmessage = async (event: MessageEvent<{ id: number; bitmap: ImageBitmap }>) => {
  const { id, bitmap } = event.data;
  try {
    const canvas = new OffscreenCanvas(bitmap.width, bitmap.height);
    const context = canvas.getContext('2d');
    if (context === null) throw new Error('no canvas to make the picture on');
    context.drawImage(bitmap, 0, 0);
    bitmap.close();
    const blob = await canvas.convertToBlob({ type: 'image/png' });
    scope.postMessage({ id, blob });
  } catch (reason) {
    scope.postMessage({ id, error: reason instanceof Error ? reason.message : String(reason) });
  }
};
