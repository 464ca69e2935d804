// Runs mcat IN this vitest worker: runCli from src/ with a fake io (buffers, stdin from a string,
// no terminal) and the environment mcat() would give the binary. Same options and result as
// mcat() in ./mcat.ts, so a test file switches with its import; what only the real binary shows
// (the launcher, exit through the process, signals, a pty, start-up, --version, Node 24) stays there.
//
// Runs are independent: each gets a context of its own, and runCli keeps every piece of run
// state (session, cleanups, Ctrl-C, pager, --quiet) in that run. Call it sequentially (await each);
// files that start several mcat at once keep the real binary. `timeout` is not enforced here (a
// process can be killed, a promise cannot): vitest's test timeout bounds a run that hangs.
import { Readable, Writable } from 'node:stream';
import { runCli } from '../../src/cli/main';
import type { CliContext } from '../../src/cli/lifecycle';
import { mcatEnv, repoRoot, type McatOptions, type McatRun } from './mcat';

export type { McatOptions, McatRun } from './mcat';

/** A stream that keeps what is written to it. */
class Sink extends Writable {
  readonly chunks: Buffer[] = [];
  readonly isTTY = false;
  override _write(chunk: Buffer | string, _enc: BufferEncoding, cb: (err?: Error | null) => void): void {
    this.chunks.push(typeof chunk === 'string' ? Buffer.from(chunk) : chunk);
    cb();
  }
  text(): string {
    return Buffer.concat(this.chunks).toString('utf8');
  }
}

export interface McatInRun extends McatRun {
  /** codes the run asked the process to exit with at once (a second Ctrl-C); the run went on */
  exitRequests: number[];
}

export interface McatInOptions extends McatOptions {
  /**
   * called as the run starts with the context's Ctrl-C (a press returns how many in the run were
   * listening) and how many listen now (the run's default listens from its start)
   */
  onStart?: (interrupt: () => number, listening: () => number) => void;
}

let running = false;

function setTz(tz: string | undefined): void {
  if (tz === undefined) delete process.env.TZ;
  else process.env.TZ = tz;
}

export async function mcatIn(args: string[], opts: McatInOptions = {}): Promise<McatInRun> {
  if (running) throw new Error('mcatIn: runs in one worker are sequential: await the previous one');
  running = true;
  const stdout = new Sink();
  const stderr = new Sink();
  const input = opts.input;
  const stdin = Readable.from(input === undefined ? [] : [typeof input === 'string' ? Buffer.from(input) : input]) as Readable & { isTTY?: boolean };
  // the binary's environment: this process's, with mcatEnv's values on top (undefined removes one)
  const env: Record<string, string> = {};
  for (const [k, v] of Object.entries({ ...process.env, ...mcatEnv(opts) })) if (v !== undefined) env[k] = v;
  const listeners = new Set<() => void>();
  const exitRequests: number[] = [];
  const ctx: CliContext = {
    io: { stdout, stderr, stdin },
    env,
    onInterrupt(fn) {
      listeners.add(fn);
      return () => listeners.delete(fn);
    },
    exitNow: (code) => void exitRequests.push(code),
  };
  opts.onStart?.(
    () => {
      const now = [...listeners];
      for (const fn of now) fn();
      return now.length;
    },
    () => listeners.size,
  );
  // relative paths are read from the run's folder (the process's, as for the binary: mcat resolves
  // them as the OS does), and local times are in the run's time zone (JavaScript has one a process:
  // Node follows process.env.TZ as it changes)
  const cwd = opts.cwd ?? repoRoot;
  const before = process.cwd();
  if (cwd !== before) process.chdir(cwd);
  const tz = process.env.TZ;
  setTz(env.TZ);
  try {
    const exitCode = await runCli(args, ctx);
    // what the streams were handed is written synchronously by Sink: nothing is left to flush
    return { stdout: stdout.text(), stderr: stderr.text(), exitCode, exitRequests };
  } finally {
    setTz(tz);
    if (process.cwd() !== before) process.chdir(before);
    running = false;
  }
}
