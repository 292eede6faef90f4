/**
 * "Search everywhere": one query asked of the books on this device (answered at once, no
 * server needed) and of every server's own search at the same time, each server's answer
 * shown as soon as it comes, in the order of the sidebar's servers.
 *
 * A newer query replaces an older one: answers that arrive late for an older query are dropped.
 */
import {
  searchEverywhere,
  searchOnDevice,
  toCommandError,
  type BookDetails,
  type CommandError,
  type Server,
  type ServerAnswer,
} from '../ipc';

/** One server's part of the results. */
export type ServerResults =
  | { serverId: number; name: string; state: 'searching' }
  | { serverId: number; name: string; state: 'answered'; answer: ServerAnswer };

export type SearchPhase = 'idle' | 'searching' | 'done';

class SearchState {
  query = $state('');
  phase = $state<SearchPhase>('idle');
  /** Books on this device; `null` until they are known. */
  local = $state.raw<BookDetails[] | null>(null);
  localError = $state.raw<CommandError | null>(null);
  servers = $state.raw<ServerResults[]>([]);
  error = $state.raw<CommandError | null>(null);
  #generation = 0;

  /** Starts a search of `query` on this device and on `servers` (the saved ones, in order). */
  async run(query: string, servers: readonly Server[]): Promise<void> {
    const generation = ++this.#generation;
    const current = () => generation === this.#generation;
    this.query = query;
    this.error = null;
    this.localError = null;
    this.local = null;
    this.servers = servers.map((s) => ({ serverId: s.id, name: s.name, state: 'searching' }));
    this.phase = 'searching';
    const local = searchOnDevice(query).then(
      (books) => {
        if (current()) this.local = books;
      },
      (e: unknown) => {
        if (current()) {
          this.local = [];
          this.localError = toCommandError(e);
        }
      },
    );
    const remote = searchEverywhere(query, (answer) => {
      if (current()) this.#answered(answer);
    }).then(
      () => {},
      (e: unknown) => {
        if (!current()) return;
        this.error = toCommandError(e);
        // No answer will come for the servers still searching.
        this.servers = this.servers.filter((s) => s.state === 'answered');
      },
    );
    await Promise.all([local, remote]);
    if (current()) this.phase = 'done';
  }

  #answered(answer: ServerAnswer) {
    const known = this.servers.some((s) => s.serverId === answer.server_id);
    const entry: ServerResults = { serverId: answer.server_id, name: answer.server_name, state: 'answered', answer };
    // A server added in another window since the search began is shown after the others.
    this.servers = known ? this.servers.map((s) => (s.serverId === answer.server_id ? entry : s)) : [...this.servers, entry];
  }

  /** Forgets the results (a new library, a reset). */
  clear(): void {
    this.#generation++;
    this.query = '';
    this.phase = 'idle';
    this.local = null;
    this.localError = null;
    this.servers = [];
    this.error = null;
  }
}

export const search = new SearchState();
