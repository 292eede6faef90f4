/**
 * Start-up state: what `app_status` said, and whether the library can be used at all.
 */
import { appStatus, type AppStatus, type CredentialsBackend } from '../ipc';

export type AppPhase = 'loading' | 'ready' | 'blocked';

class AppState {
  phase = $state<AppPhase>('loading');
  status = $state<AppStatus | null>(null);

  get version(): string {
    return this.status?.version ?? '';
  }

  get credentials(): CredentialsBackend | null {
    return this.status?.credentials ?? null;
  }

  /** Asks the Rust side how things stand; `blocked` when the library cannot be opened. */
  async load(): Promise<void> {
    const status = await appStatus();
    this.status = status;
    this.phase = status.error ? 'blocked' : 'ready';
  }

  reset(): void {
    this.phase = 'loading';
    this.status = null;
  }
}

export const app = new AppState();
