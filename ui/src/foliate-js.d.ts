// foliate-js ships plain JavaScript without types. Its view module only registers the
// `<foliate-view>` custom element; EpubReader.svelte describes the part of it that it uses.
declare module 'foliate-js/view.js';
// Its footnotes module tells a note reference from a plain link and shows the note in a view of
// its own.
declare module 'foliate-js/footnotes.js' {
  export class FootnoteHandler extends EventTarget {
    detectFootnotes: boolean;
    handle(book: unknown, event: Event): Promise<void> | undefined;
  }
}
// Its overlayer draws on a section's page; a highlight is drawn by its `highlight` function.
declare module 'foliate-js/overlayer.js' {
  export class Overlayer {
    static highlight: (rects: unknown, options?: { color?: string }) => Element;
  }
}
