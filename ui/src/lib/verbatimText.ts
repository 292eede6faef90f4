/**
 * A one-line text field for what is typed exactly as it is written (an address, a user name, a
 * folder's path): no capital put first, no spelling marks. Its id is also its test id.
 */
export function verbatimText(id: string) {
  return { id, 'data-testid': id, type: 'text', autocapitalize: 'off', spellcheck: 'false' } as const;
}
