// The pager a long table goes through on a terminal, as git and gh do: MCAT_PAGER, then PAGER,
// else less with LESS=FRX unless LESS is set (quit if one screen, keep colour, leave the text
// on screen). An empty value or `cat` means no pager. The pager reads our output on its stdin
// and draws on the terminal itself.
import { spawn } from 'node:child_process';
import { accessSync, constants, statSync } from 'node:fs';
import { delimiter, isAbsolute, join } from 'node:path';
import type { Writable } from 'node:stream';

type Env = NodeJS.ProcessEnv | Record<string, string | undefined>;

export interface PagerSpec {
  command: string;
  env: Record<string, string | undefined>;
}

function executable(file: string): boolean {
  try {
    accessSync(file, constants.X_OK);
    return statSync(file).isFile();
  } catch {
    return false;
  }
}

/** Whether the program a shell command starts exists (a path, or a name on PATH). */
export function commandExists(command: string, env: Env): boolean {
  const word = command.trim().split(/\s+/)[0] ?? '';
  if (!word) return false;
  if (word.includes('/')) return executable(isAbsolute(word) ? word : join(process.cwd(), word));
  return (env.PATH ?? '').split(delimiter).some((dir) => dir !== '' && executable(join(dir, word)));
}

/**
 * The pager to use, or undefined for none (unset, empty, `cat`). Without one named, less, but not
 * on a terminal that says it cannot move the cursor (TERM dumb or unset, as in Emacs' shell): less
 * stops there at 'WARNING: terminal is not fully functional - Press RETURN' and then draws the
 * table with stray escape codes (systemd's pager stays off there too). A pager named is used.
 */
export function pagerSpec(env: Env): PagerSpec | { missing: string } | undefined {
  const chosen = env.MCAT_PAGER !== undefined ? env.MCAT_PAGER : env.PAGER;
  if (chosen === undefined && (env.TERM === undefined || env.TERM === '' || env.TERM === 'dumb')) return undefined;
  const command = chosen === undefined ? 'less' : chosen.trim();
  if (command === '' || command === 'cat') return undefined;
  if (!commandExists(command, env)) return chosen === undefined ? undefined : { missing: command };
  const childEnv: Record<string, string | undefined> = { ...env, LESS: env.LESS ?? 'FRX', LV: env.LV ?? '-c' };
  // the pager shows text: it has no use for the credentials mcat was given in its environment, and
  // a pager named by MCAT_PAGER or PAGER may be any program (or a script that logs its environment)
  for (const k of PAGER_HIDDEN) delete childEnv[k];
  return { command, env: childEnv };
}

/** The credentials of the environment (CONVENTIONS.md) a pager is started without. */
const PAGER_HIDDEN = ['MCAT_CONSUMER_SECRET', 'MCAT_TOKEN_SECRET', 'MCAT_TOKEN'] as const;

export interface Pager {
  /** what the pager reads */
  input: Writable;
  /** stop feeding it (Ctrl-C): it shows what it has */
  stop(): void;
  /** end its input and wait until the person quits it */
  finish(): Promise<void>;
}

export function startPager(spec: PagerSpec): Pager {
  const child = spawn(spec.command, { shell: true, stdio: ['pipe', 'inherit', 'inherit'], env: spec.env as NodeJS.ProcessEnv });
  const exited = new Promise<void>((resolve) => {
    child.once('close', () => resolve());
    child.once('error', () => resolve());
  });
  const input = child.stdin!;
  input.on('error', () => undefined); // a pager that quits early: the writer sees EPIPE and stops
  return {
    input,
    stop() {
      input.destroy();
    },
    async finish() {
      if (!input.destroyed) input.end();
      await exited;
    },
  };
}
