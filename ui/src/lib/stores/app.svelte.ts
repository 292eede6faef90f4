/**
 * Start-up state: what `app_status` said, and whether the library can be used at all.
 */
import { appStatus, dismissCredentialsNotice, type AppStatus, type CredentialsBackend } from '../ipc';

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

  /**
   * Whether to say that passwords are kept in a file: only when one is, for want of a keyring,
   * and until the reader dismisses it for good.
   */
  get credentialsNotice(): boolean {
    const status = this.status;
    return status?.credentials === 'file' && status.secrets_in_file === true && status.credentials_notice_dismissed !== true;
  }

  /** Reads the status again (a password may have been kept since). Never rejects. */
  async refresh(): Promise<void> {
    if (this.phase !== 'ready') return;
    const status = await appStatus();
    if (!status.error && this.phase === 'ready') this.status = status;
  }

  /** The notice about passwords kept in a file is not shown again, here or after a restart. */
  async dismissCredentialsNotice(): Promise<void> {
    if (this.status) this.status = { ...this.status, credentials_notice_dismissed: true };
    try {
      await dismissCredentialsNotice();
    } catch {
      // Not kept: it shows again at the next start, nothing worse.
    }
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
