// Runs shell command lines on a pseudo-terminal of a given width (util-linux `script`), with the
// environment of test/helpers/mcat.ts: what a person at a terminal sees.
import { execa } from 'execa';
import { binPath, cliNode, hasCommand, mcatEnv } from './mcat';

/** Whether util-linux `script` is here to run mcat in a pseudo-terminal (tests skip without it). */
export function hasScript(): boolean {
  return hasCommand('script');
}

export const q = (s: string): string => `'${s.replace(/'/g, `'\\''`)}'`;

/** The shell words that run the built CLI with these arguments (under MCAT_TEST_NODE when set). */
export function mcatLine(args: readonly string[]): string {
  return [cliNode, binPath, ...args].map(q).join(' ');
}

export interface PtyOptions {
  cols?: number;
  sandboxDir?: string;
  env?: Record<string, string | undefined>;
  timeout?: number;
}

/** Runs `line` (sh syntax) with stdin, stdout and stderr on a terminal `cols` wide; what the terminal showed. */
export async function pty(line: string, opts: PtyOptions = {}): Promise<{ out: string; exitCode: number }> {
  const cmd = `stty cols ${opts.cols ?? 120} rows 50 2>/dev/null; ${line}`;
  const r = await execa('script', ['-qec', cmd, '/dev/null'], {
    // script(1) runs the line with $SHELL: pinned, so a test sees the same shell here and in CI
    // (whose SHELL may be unset, i.e. dash), not whatever shell started the suite
    env: { ...(mcatEnv({ sandboxDir: opts.sandboxDir, env: opts.env }) as Record<string, string>), TERM: 'xterm-256color', SHELL: '/bin/sh' },
    extendEnv: true,
    reject: false,
    timeout: opts.timeout ?? 30_000,
    stdin: 'ignore',
  });
  return { out: String(r.stdout).replace(/\r\n/g, '\n'), exitCode: r.exitCode ?? -1 };
}
