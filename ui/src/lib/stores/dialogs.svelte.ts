/**
 * Which modal dialog is open. One at a time; while one is, the rest of the window is inert.
 */
import type { Server } from '../ipc';

export type Dialog = { kind: 'add-server' } | { kind: 'remove-server'; server: Server };

class DialogsState {
  current = $state<Dialog | null>(null);

  get isOpen(): boolean {
    return this.current !== null;
  }

  openAddServer(): void {
    this.current = { kind: 'add-server' };
  }

  confirmRemove(server: Server): void {
    this.current = { kind: 'remove-server', server };
  }

  close(): void {
    this.current = null;
  }
}

export const dialogs = new DialogsState();
