/**
 * The saved library servers, as last read from the Rust side.
 */
import {
  addServer,
  listServers,
  removeServer,
  resumeServer,
  toCommandError,
  updateServer,
  type AddServerInput,
  type UpdateServerInput,
  type CommandError,
  type Server,
} from '../ipc';

class ServersState {
  list = $state<Server[]>([]);
  /** True once the list has been read at least once. */
  loaded = $state(false);
  loading = $state(false);
  /** Why the last read failed, if it did. */
  error = $state<CommandError | null>(null);

  #generation = 0;

  byId(id: number): Server | undefined {
    return this.list.find((s) => s.id === id);
  }

  /**
   * Reads the list again; the list shown is replaced only when it differs. Never rejects; a
   * failure is kept in {@link error}, unless `quiet` (a reload after a change elsewhere), when
   * what is shown simply stays.
   */
  async refresh(quiet = false): Promise<void> {
    const generation = ++this.#generation;
    this.loading = true;
    try {
      const list = await listServers();
      if (generation !== this.#generation) return;
      if (JSON.stringify(list) !== JSON.stringify(this.list)) this.list = list;
      this.error = null;
    } catch (reason) {
      if (generation !== this.#generation) return;
      if (!quiet) this.error = toCommandError(reason);
    } finally {
      if (generation === this.#generation) {
        this.loading = false;
        this.loaded = true;
      }
    }
  }

  /** Saves a new server, then reads the list again. Rejects with a `CommandError`. */
  async add(input: AddServerInput): Promise<Server> {
    const server = await addServer(input);
    await this.refresh();
    if (!this.list.some((s) => s.id === server.id)) {
      // The save worked even if reading the list back did not.
      this.list = [...this.list, server];
    }
    return server;
  }

  /** Saves changes to a server, then reads the list again. Rejects with a `CommandError`. */
  async update(id: number, input: UpdateServerInput): Promise<Server> {
    const server = await updateServer(id, input);
    // Shown at once; the list read back replaces it, unless reading fails.
    this.list = this.list.map((s) => (s.id === id ? server : s));
    await this.refresh();
    return server;
  }

  /** Lets downloads from a server go on after new credentials. Rejects with a `CommandError`. */
  async resume(id: number): Promise<void> {
    await resumeServer(id);
    await this.refresh();
  }

  /** Forgets a server (and its saved password), then reads the list again. */
  async remove(id: number): Promise<void> {
    await removeServer(id);
    await this.refresh();
    if (this.error) {
      this.list = this.list.filter((s) => s.id !== id);
    }
  }

  reset(): void {
    this.#generation++;
    this.list = [];
    this.loaded = false;
    this.loading = false;
    this.error = null;
  }
}

export const servers = new ServersState();
