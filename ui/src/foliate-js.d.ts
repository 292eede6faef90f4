// foliate-js ships plain JavaScript without types. Its view module only registers the
// `<foliate-view>` custom element; EpubReader.svelte describes the part of it that it uses.
declare module 'foliate-js/view.js';
