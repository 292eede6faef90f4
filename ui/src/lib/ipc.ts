/**
 * The one door between the web UI and Carrel's Rust side. Every backend command is called
 * from here, typed, and every failure leaves here as a {@link CommandError}, whatever shape
 * the rejection had.
 */
import { invoke, type InvokeArgs } from '@tauri-apps/api/core';

/** What kind of failure a command reported; the UI branches on this, never on messages. */
export type CommandErrorKind = 'invalid_input' | 'not_found' | 'conflict' | 'storage' | 'server' | 'auth';

/** A form field a {@link CommandError} is about. */
export type CommandErrorField = 'name' | 'url';

/** A failed command, as the Rust side reports it. */
export interface CommandError {
  kind: CommandErrorKind;
  message: string;
  field?: CommandErrorField;
}

/** Where saved passwords are kept: the system keyring, or a private file when none answered. */
export type CredentialsBackend = 'keyring' | 'file';

export interface AppStatus {
  version: string;
  data_dir: string | null;
  credentials: CredentialsBackend | null;
  /** Why the library cannot be opened; when set, nothing else can be used. */
  error: CommandError | null;
}

/** A saved library server. */
export interface Server {
  id: number;
  name: string;
  /** The catalog's root feed. */
  url: string;
  username: string | null;
  min_interval_ms: number;
  created_at_ms: number;
}

/** The fields of the "Add server" dialog. */
export interface AddServerInput {
  name: string;
  url: string;
  username?: string | null;
  password?: string | null;
}

const KINDS: readonly CommandErrorKind[] = ['invalid_input', 'not_found', 'conflict', 'storage', 'server', 'auth'];
const FIELDS: readonly CommandErrorField[] = ['name', 'url'];

/** The kind given to failures that did not come with one (a crash, a missing command). */
export const FALLBACK_KIND: CommandErrorKind = 'storage';

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null;
}

/** True when `value` already has the shape of a {@link CommandError}. */
export function isCommandError(value: unknown): value is CommandError {
  return (
    isRecord(value) &&
    typeof value.kind === 'string' &&
    (KINDS as readonly string[]).includes(value.kind) &&
    typeof value.message === 'string' &&
    (value.field === undefined || (FIELDS as readonly unknown[]).includes(value.field))
  );
}

/**
 * Turns anything a command may reject with into a {@link CommandError}: the backend's own
 * `{ kind, message, field }` objects pass through (unknown kinds and fields are dropped to
 * safe values), plain strings (as Tauri sends for a missing or forbidden command) and
 * `Error`s keep their text, and anything else gets a generic message.
 */
export function toCommandError(reason: unknown): CommandError {
  if (isCommandError(reason)) {
    const { kind, message, field } = reason;
    return field === undefined ? { kind, message } : { kind, message, field };
  }
  if (isRecord(reason)) {
    const message = typeof reason.message === 'string' && reason.message.trim() !== '' ? reason.message : null;
    const kind =
      typeof reason.kind === 'string' && (KINDS as readonly string[]).includes(reason.kind)
        ? (reason.kind as CommandErrorKind)
        : FALLBACK_KIND;
    const field = (FIELDS as readonly unknown[]).includes(reason.field) ? (reason.field as CommandErrorField) : undefined;
    if (message !== null) {
      return field === undefined ? { kind, message } : { kind, message, field };
    }
  }
  if (typeof reason === 'string' && reason.trim() !== '') {
    return { kind: FALLBACK_KIND, message: reason };
  }
  return { kind: FALLBACK_KIND, message: 'something went wrong inside Carrel' };
}

async function call<T>(command: string, args?: InvokeArgs): Promise<T> {
  try {
    return await invoke<T>(command, args);
  } catch (reason) {
    throw toCommandError(reason);
  }
}

/** What the UI needs to know before it draws anything. Never rejects. */
export async function appStatus(): Promise<AppStatus> {
  try {
    return await call<AppStatus>('app_status');
  } catch (reason) {
    return { version: '', data_dir: null, credentials: null, error: toCommandError(reason) };
  }
}

export function listServers(): Promise<Server[]> {
  return call<Server[]>('list_servers');
}

export function addServer(input: AddServerInput): Promise<Server> {
  return call<Server>('add_server', { input });
}

export async function removeServer(name: string): Promise<void> {
  await call<null>('remove_server', { name });
}
