/**
 * What a failure says to the reader, in the reader's language. The shell's errors carry a
 * kind (and sometimes a field) and an English detail written where the failure happened; in
 * English the detail is the sentence shown, in another language a sentence for the kind comes
 * first and the detail follows in brackets, so nothing the reader could act on is lost.
 */
import { REFERENCE_LANGUAGE, i18n, t } from './i18n.svelte';
import type { CommandError, CommandErrorKind } from './ipc';
import { asSentence } from './text';

/** The message that names each kind of failure. */
const KIND_MESSAGES: Record<CommandErrorKind, string> = {
  invalid_input: 'error-invalid-input',
  not_found: 'error-not-found',
  conflict: 'error-conflict',
  storage: 'error-storage',
  server: 'error-server',
  auth: 'error-auth',
  certificate: 'error-certificate',
  not_downloaded: 'error-not-downloaded',
};

/** What a kind of failure is, without a final stop: "The server failed or refused". */
export function kindSentence(kind: CommandErrorKind): string {
  return t(KIND_MESSAGES[kind]);
}

/** A failure as the window shows it: "Le serveur a refusé … (the server answered 503)." */
export function explain(error: Pick<CommandError, 'kind' | 'message'>): string {
  const detail = error.message.trim();
  if (i18n.language === REFERENCE_LANGUAGE) return asSentence(detail);
  const sentence = kindSentence(error.kind);
  return detail
    ? t('error-with-detail', { sentence, detail: detail.replace(/[.\s]+$/u, '') })
    : t('error-alone', { sentence });
}

/**
 * A failure inside another sentence ("Could not open the book: …"): in English the detail as
 * written, in another language the kind's sentence and the detail.
 */
export function explainInline(error: Pick<CommandError, 'kind' | 'message'>): string {
  if (i18n.language === REFERENCE_LANGUAGE) return error.message.trim();
  return explain(error);
}
