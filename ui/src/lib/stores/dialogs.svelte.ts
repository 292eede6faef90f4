/**
 * Which modal dialog is open. One at a time; while one is, the rest of the window is inert.
 */
import type { Server } from '../ipc';

export type Dialog =
  | { kind: 'add-server' }
  /** `focus`: start on the certificate choice (opened from a refused certificate). */
  | { kind: 'edit-server'; server: Server; focus?: 'trust-self-signed' }
  | { kind: 'remove-server'; server: Server }
  /** The server refused the saved sign-in (or there is none); `reason` says what it said. */
  | { kind: 'credentials'; server: Server; reason: string | null }
  | { kind: 'remove-book'; bookId: number; title: string };

class DialogsState {
  current = $state<Dialog | null>(null);

  get isOpen(): boolean {
    return this.current !== null;
  }

  openAddServer(): void {
    this.current = { kind: 'add-server' };
  }

  editServer(server: Server, focus?: 'trust-self-signed'): void {
    this.current = focus ? { kind: 'edit-server', server, focus } : { kind: 'edit-server', server };
  }

  confirmRemove(server: Server): void {
    this.current = { kind: 'remove-server', server };
  }

  askCredentials(server: Server, reason: string | null = null): void {
    this.current = { kind: 'credentials', server, reason };
  }

  confirmRemoveBook(bookId: number, title: string): void {
    this.current = { kind: 'remove-book', bookId, title };
  }

  close(): void {
    this.current = null;
  }
}

export const dialogs = new DialogsState();
