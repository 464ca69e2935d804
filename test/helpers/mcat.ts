// Runs the BUILT CLI (bin/mcat) as a user would: a fresh HOME and config dir, the sandbox
// data dir of the test's sandbox (so mcat finds that running server), no colour unless asked.
import { execa, type Options } from 'execa';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';

export const repoRoot = resolve(import.meta.dirname, '../..');
export const binPath = join(repoRoot, 'bin/mcat');

export interface McatRun {
  stdout: string;
  stderr: string;
  exitCode: number;
}

export interface McatOptions {
  /** the test sandbox's data dir: mcat's default (sandbox) profile finds the server running there */
  sandboxDir?: string;
  env?: Record<string, string | undefined>;
  input?: string | Buffer;
  home?: string;
  cwd?: string;
  timeout?: number;
}

// made per run of the suite by test/global-setup.ts (a file run alone, outside it, gets its own)
export const testCompileCacheDir =
  process.env.MCAT_TEST_COMPILE_CACHE_DIR ?? mkdtempSync(join(tmpdir(), 'mcat-test-compile-cache-'));

export function tempHome(): string {
  return mkdtempSync(join(tmpdir(), 'mcat-home-'));
}

export function mcatEnv(opts: McatOptions = {}): Record<string, string | undefined> {
  const home = opts.home ?? tempHome();
  return {
    HOME: home,
    XDG_CONFIG_HOME: join(home, '.config'),
    XDG_DATA_HOME: join(home, '.local/share'),
    XDG_STATE_HOME: join(home, '.local/state'),
    MCAT_CONFIG_DIR: join(home, '.config/mcat'),
    MCAT_SANDBOX_DIR: opts.sandboxDir,
    // one compile cache for this run of the suite (each test's HOME is new): concurrent writers included
    MCAT_CACHE_DIR: testCompileCacheDir,
    MCAT_NO_COMPILE_CACHE: undefined,
    MCAT_TRACE_LOADS: undefined,
    NO_COLOR: undefined,
    FORCE_COLOR: undefined,
    TERM: 'xterm',
    MCAT_PROFILE: undefined,
    MCAT_BASE_URL: undefined,
    MCAT_CONSUMER_KEY: undefined,
    MCAT_CONSUMER_SECRET: undefined,
    MCAT_TOKEN: undefined,
    MCAT_TOKEN_SECRET: undefined,
    MCAT_COUNTRY: undefined,
    MCAT_USER_ID: undefined,
    ...opts.env,
  };
}

function execOptions(opts: McatOptions): Options {
  return {
    reject: false,
    env: mcatEnv(opts) as Record<string, string>,
    extendEnv: true,
    cwd: opts.cwd ?? repoRoot,
    timeout: opts.timeout ?? 60_000,
    stripFinalNewline: false,
    ...(opts.input !== undefined ? { input: opts.input } : { stdin: 'ignore' as const }),
  };
}

export async function mcat(args: string[], opts: McatOptions = {}): Promise<McatRun> {
  const r = await execa(process.execPath, [binPath, ...args], execOptions(opts));
  return { stdout: String(r.stdout ?? ''), stderr: String(r.stderr ?? ''), exitCode: r.exitCode ?? -1 };
}

/** mcat started and not awaited: the test can signal it (Ctrl-C) while it runs. */
export function spawnMcat(args: string[], opts: McatOptions = {}) {
  return execa(process.execPath, [binPath, ...args], execOptions(opts));
}
