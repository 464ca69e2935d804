// Runs the BUILT CLI (bin/mcat) as a user would: a fresh HOME and config dir, the sandbox
// data dir of the test's sandbox (so mcat finds that running server), no colour unless asked.
//
// MCAT_TEST_NODE=/path/to/node runs the CLI under that Node (CI: Node 24) while vitest and the
// sandboxes it starts stay on this one (the sandbox's native SQLite module is built for it).
import { execa, type Options } from 'execa';
import { execFileSync } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';

export const repoRoot = resolve(import.meta.dirname, '../..');
export const binPath = join(repoRoot, 'bin/mcat');

/** The Node binary that runs the CLI in tests. */
export const cliNode = process.env.MCAT_TEST_NODE || process.execPath;

/** Its version, [major, minor], and its native-module ABI. */
const [cliVersion, cliAbi] = (
  cliNode === process.execPath
    ? `${process.version} ${process.versions.modules}`
    : execFileSync(cliNode, ['-p', "process.version + ' ' + process.versions.modules"], { encoding: 'utf8' }).trim()
).split(' ');
export const cliNodeVersion: [number, number] = (() => {
  const m = /^v(\d+)\.(\d+)\./.exec(cliVersion);
  if (!m) throw new Error(`MCAT_TEST_NODE=${cliNode}: not a Node binary (${cliVersion})`);
  return [Number(m[1]), Number(m[2])];
})();

/** The sandbox's SQLite module (built for the tests' Node) loads in the CLI's Node too. */
export const sqliteInCli = cliAbi === process.versions.modules;

/** The launcher uses Node's own compile cache (22.1 and later) instead of its own. */
export const nodeCompileCache = cliNodeVersion[0] > 22 || (cliNodeVersion[0] === 22 && cliNodeVersion[1] >= 1);

/** Why a test is skipped when the CLI runs under another Node (CI's Node 24 pass). */
export const NEEDS_SQLITE_IN_CLI =
  "the CLI itself opens the sandbox's SQLite store, whose native module is built for the tests' Node only";

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
    // no pager unless a test asks for one (less on a pseudo-terminal would wait for a key)
    MCAT_PAGER: 'cat',
    // tables fit COLUMNS first: a test's width is its own, not the shell's that started the suite
    COLUMNS: undefined,
    PAGER: undefined,
    LESS: undefined,
    MCAT_PROFILE: undefined,
    MCAT_BASE_URL: undefined,
    MCAT_CONSUMER_KEY: undefined,
    MCAT_CONSUMER_SECRET: undefined,
    MCAT_TOKEN: undefined,
    MCAT_TOKEN_SECRET: undefined,
    MCAT_COUNTRY: undefined,
    MCAT_USER_ID: undefined,
    // every Node start would read this CA bundle (~40 ms); the sandbox and the test servers are
    // plain HTTP (test/global-setup.ts removes it from the whole run: workers, shells, sandboxes)
    NODE_EXTRA_CA_CERTS: undefined,
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
  const r = await execa(cliNode, [binPath, ...args], execOptions(opts));
  return { stdout: String(r.stdout ?? ''), stderr: String(r.stderr ?? ''), exitCode: r.exitCode ?? -1 };
}

/** mcat started and not awaited: the test can signal it (Ctrl-C) while it runs. */
export function spawnMcat(args: string[], opts: McatOptions = {}) {
  return execa(cliNode, [binPath, ...args], execOptions(opts));
}

/** Whether a program is installed (`script`, `jq`): tests that need one skip without it. */
export function hasCommand(cmd: string): boolean {
  try {
    execFileSync(cmd, ['--version'], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
}
