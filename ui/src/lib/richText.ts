/**
 * Messages with emphasised values ("Signs in as **ada**"): the message is formatted whole, in the
 * reader's language, and cut around the values to emphasise, so a translation can put them
 * wherever its grammar wants them.
 */
import { t, type MessageArgs } from './i18n.svelte';

/** A piece of a message: plain text, or the value of the variable `key`. */
export interface Piece {
  text: string;
  key?: string;
}

const OPEN = '\uE000';
const CLOSE = '\uE001';

/** The message `id` in pieces, the variables named in `emphasised` apart from the text around them. */
export function pieces(id: string, args: MessageArgs, emphasised: readonly string[]): Piece[] {
  const marked: MessageArgs = { ...args };
  for (const key of emphasised) marked[key] = `${OPEN}${key}${CLOSE}`;
  const out: Piece[] = [];
  for (const part of t(id, marked).split(OPEN)) {
    const end = part.indexOf(CLOSE);
    if (end < 0) {
      if (part) out.push({ text: part });
      continue;
    }
    const key = part.slice(0, end);
    out.push({ text: String(args[key] ?? ''), key });
    const rest = part.slice(end + 1);
    if (rest) out.push({ text: rest });
  }
  return out;
}
