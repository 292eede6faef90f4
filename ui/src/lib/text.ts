/**
 * Small text helpers for showing messages from the Rust side, which writes them as lower-case
 * clauses ("give the server a name") so they read well inside longer sentences.
 */

/** `message` as a sentence of its own: first letter upper-case, ending in punctuation. */
export function asSentence(message: string): string {
  const text = message.trim();
  if (text === '') return text;
  // An address keeps its own case ("http://…", never "Http://…").
  const first = /^[a-z][a-z0-9+.-]*:\/\//i.test(text) ? text.charAt(0) : text.charAt(0).toLocaleUpperCase();
  const rest = text.slice(1);
  const ends = /[.!?…]["'”’)]*$/u.test(text) ? '' : '.';
  return `${first}${rest}${ends}`;
}
