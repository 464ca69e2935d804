// What a run of the CLI may touch of the world outside it: types only (the launcher builds one from
// the process, src/launcher/process-context.ts; tests fake one). lifecycle.ts keeps the run's state.
import type { Readable } from 'node:stream';
import type { WritableLike } from '../output/streams';

/** A stream mcat writes to: a terminal, a pipe, a file, or a test's buffer. */
export interface OutStream extends WritableLike {
  isTTY?: boolean;
  columns?: number;
  writableLength?: number;
}

/** The streams of a run. */
export interface Io {
  readonly stdout: OutStream & NodeJS.WritableStream;
  readonly stderr: OutStream & NodeJS.WritableStream;
  readonly stdin: Readable & { isTTY?: boolean };
  /**
   * The descriptors behind stdout and stderr when they are the process's: a run that writes little
   * (the top-level help) may use them without making Node's streams (see printAtOnce).
   */
  readonly fds?: { readonly stdout: number; readonly stderr: number };
}

/** The environment of a run: a plain record (the launcher copies process.env into it). */
export type Env = Readonly<Record<string, string | undefined>>;

/** What a run may touch of the world outside it. The launcher builds it from the process; tests fake it. */
export interface CliContext {
  io: Io;
  env: Env;
  /** Ctrl-C, SIGTERM and SIGHUP: `fn` is called on each; returns the unsubscribe */
  onInterrupt(fn: () => void): () => void;
  /**
   * Runs `fn`, which holds the thread until it returns (a --jq program in WebAssembly: no listener
   * could run), with Ctrl-C, SIGTERM and SIGHUP doing what they do to a process that does not listen:
   * end it. Without it such a run could only be stopped by SIGKILL. A test's context just calls `fn`.
   */
  blocking?<T>(fn: () => T): T;
  /** ends the process at once with `code` (a second Ctrl-C); a test's context records it */
  exitNow(code: number): void;
  /** the process ends when the run does (the launcher's): what only the process holds (idle sockets) is left to its exit */
  endsWithRun?: boolean;
}
