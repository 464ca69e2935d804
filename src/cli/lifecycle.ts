// One mcat run: what it may touch (its CliContext: streams, environment, Ctrl-C) and the
// resources it opened (connection pools, an in-process sandbox), closed once when the command ends.
// runCli begins a run and ends it; nothing here outlives it, so runs in one process (the tests'
// in-process runner) never see each other's session, cleanups, pager or Ctrl-C state.
import type { CliContext, Env } from './run-context';

export type { CliContext, Env, Io, OutStream } from './run-context';

type Cleanup = () => Promise<void> | void;

/** The mutable state of one run: made by beginRun, dropped by endRun. */
interface RunState {
  ctx: CliContext;
  cleanups: Cleanup[];
  outputEnds: Cleanup[];
  interrupted: boolean;
  /** other modules' per-run values (the session, --quiet, the pager): see runValue */
  values: Map<symbol, unknown>;
  /** Ctrl-C listeners the run's code holds now (see interruptDefault) */
  listeners: number;
}

let current: RunState | undefined;

export function beginRun(ctx: CliContext): void {
  // the run's code listens for Ctrl-C through this context: counted, so that the default (exit
  // at once) stands aside while something that finishes its work in flight listens
  const state: RunState = { ctx, cleanups: [], outputEnds: [], interrupted: false, values: new Map(), listeners: 0 };
  state.ctx = {
    ...ctx,
    onInterrupt(fn) {
      state.listeners++;
      const off = ctx.onInterrupt(fn);
      let on = true;
      return () => {
        if (on) state.listeners--;
        on = false;
        off();
      };
    },
  };
  current = state;
}

/**
 * Ctrl-C (SIGTERM, SIGHUP) for a run whose code is not listening (a batch, a show, a check): the
 * run ends with 130 and one line once what it wrote has gone out, and writes nothing more: what is
 * on stdout is whole lines. Without it Node's default would kill the process mid-write (a pipe
 * holding part of a line), with no message and no exit code. Listens on the context as given (not
 * counted); returns how to stop listening.
 */
export function interruptDefault(ctx: CliContext, say: (line: string) => void, stopStdout: () => Promise<void>): () => void {
  let stopping = false;
  return ctx.onInterrupt(() => {
    if (current && current.listeners > 0) return;
    // a second Ctrl-C while the output drains to a reader that does not read: at once
    if (stopping) return ctx.exitNow(130);
    stopping = true;
    if (current) current.interrupted = true;
    try {
      say('mcat: interrupted\n');
    } catch {
      // stderr gone: the exit code says it
    }
    void stopStdout().then(() => ctx.exitNow(130));
  });
}

export function endRun(): void {
  current = undefined;
}

/** Whether a run is in progress (code shared with unit tests asks before it reads run state). */
export function inRun(): boolean {
  return current !== undefined;
}

function state(): RunState {
  if (!current) throw new Error('mcat: no run in progress (runCli begins one)');
  return current;
}

/** The context of the run in progress. */
export function runContext(): CliContext {
  return state().ctx;
}

/** The run's environment. */
export function runEnv(): Env {
  return state().ctx.env;
}

/** A value kept for the rest of this run only (made by `make` on first use). */
export function runValue<T>(key: symbol, make: () => T): T {
  const values = state().values;
  if (!values.has(key)) values.set(key, make());
  return values.get(key) as T;
}

export function setRunValue<T>(key: symbol, value: T): void {
  state().values.set(key, value);
}

export function onCleanup(fn: Cleanup): void {
  state().cleanups.push(fn);
}

/** Work that ends the output (a pager to close and wait for): before an error is printed, so it shows after. */
export function onOutputEnd(fn: Cleanup): void {
  state().outputEnds.push(fn);
}

export async function endOutput(): Promise<void> {
  const ends = state().outputEnds;
  while (ends.length) {
    try {
      await ends.pop()!();
    } catch {
      // the output is over either way
    }
  }
}

export async function runCleanups(): Promise<void> {
  await endOutput();
  const cleanups = state().cleanups;
  while (cleanups.length) {
    const fn = cleanups.pop()!;
    try {
      await fn();
    } catch {
      // closing is best effort: the command's outcome is already decided
    }
  }
}

export function markInterrupted(): void {
  state().interrupted = true;
}

export function interrupted(): boolean {
  return state().interrupted;
}

const SIGNAL = Symbol('interrupt signal');

/**
 * An AbortSignal that fires on the first Ctrl-C (or SIGTERM); a second Ctrl-C exits at once with 130.
 * Commands that can finish in-flight work (bulk apply, downloads, listings) use it; one per run.
 */
export function interruptSignal(): AbortSignal {
  return runValue(SIGNAL, () => {
    const ctx = runContext();
    const ac = new AbortController();
    let count = 0;
    let first = 0;
    const off = ctx.onInterrupt(() => {
      // conf's atomic writer (when-exit) re-raises every signal it sees, so one Ctrl-C arrives
      // twice within a few milliseconds: only a second press a moment later means "exit now"
      if (count > 0 && Date.now() - first < 250) return;
      count++;
      if (count === 1) first = Date.now();
      markInterrupted();
      if (count > 1) ctx.exitNow(130);
      ac.abort();
    });
    onCleanup(off);
    return ac.signal;
  });
}
