// A reader that goes away (`mcat … | head -1`) ends the run quietly: exit 0, nothing on stderr
// (no Node stack trace), and a read command stops asking the server for more.
import { spawn } from 'node:child_process';
import { execa } from 'execa';
import { closeSync, existsSync, mkdtempSync, openSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { binPath, cliNode, mcat, mcatEnv } from '../helpers/mcat';
import { sandboxProfileEnv, startTestSandbox } from '../helpers/sandbox';
import { startEvilTextServer } from '../helpers/evil-text-server';

type Sandbox = Awaited<ReturnType<typeof startTestSandbox>>;
let sb: Sandbox;
let dir: string;
let editsFile: string;

beforeAll(async () => {
  sb = await startTestSandbox();
  dir = mkdtempSync(join(tmpdir(), 'mcat-pipes-'));
  editsFile = join(dir, 'edits.ndjson');
  const [p1, p2, p3] = sb.info.examples.playlistIds;
  writeFileSync(editsFile, [p1, p2, p3, p1, p2, p3].map((id, i) => JSON.stringify({ op: 'details', playlistId: id, description: `d${i}` })).join('\n') + '\n');
});
afterAll(async () => {
  await sb?.close();
});

interface Ended {
  code: number | null;
  signal: NodeJS.Signals | null;
  stderr: string;
  firstLine: string;
}

/**
 * Runs mcat with stdout on a pipe whose reader goes away: at once (before mcat writes a byte),
 * or after the first line. The read end is closed by this process, so the timing is ours.
 */
function withGoneReader(args: string[], env: Record<string, string | undefined>, when: 'at-once' | 'after-first-line' = 'at-once'): Promise<Ended> {
  return new Promise((resolve, reject) => {
    const child = spawn(cliNode, [binPath, ...args], { env: mcatEnv({ env }) as NodeJS.ProcessEnv, stdio: ['ignore', 'pipe', 'pipe'] });
    let stderr = '';
    let out = '';
    child.stderr.on('data', (d) => (stderr += d));
    if (when === 'at-once') child.stdout.destroy();
    else {
      child.stdout.on('data', (d) => {
        out += d;
        if (out.includes('\n')) child.stdout.destroy();
      });
    }
    const timer = setTimeout(() => child.kill('SIGKILL'), 30_000);
    child.on('error', reject);
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      resolve({ code, signal, stderr, firstLine: out.split('\n')[0] });
    });
  });
}

const profile = () => sandboxProfileEnv(sb);

describe('stdout whose reader has gone', () => {
  it.each([
    ['--help', ['--help']],
    ['locker --help', ['locker', '--help']],
    ['playlist export', ['playlist', 'export']],
    ['playlist apply --dry-run (table)', ['playlist', 'apply', '__EDITS__', '--dry-run', '-o', 'table']],
    ['playlist apply --dry-run (json)', ['playlist', 'apply', '__EDITS__', '--dry-run', '-o', 'json']],
    ['locker --all -o ndjson', ['locker', '--all', '-o', 'ndjson']],
    ['locker --all -o xml', ['locker', '--all', '-o', 'xml']],
    ['release batch -o csv', ['release', 'batch', '__RELEASES__', '-o', 'csv']],
    ['auth status', ['auth', 'status', '-o', 'json']],
    ['--version', ['--version']],
  ])('%s: exit 0, nothing on stderr', async (_name, args) => {
    const a = args.flatMap((x) => (x === '__EDITS__' ? [editsFile] : x === '__RELEASES__' ? sb.info.examples.releaseIds.map(String) : [x]));
    const r = await withGoneReader(a, profile());
    expect(r.stderr).toBe('');
    expect(r.signal).toBeNull();
    expect(r.code).toBe(0);
  });

  it('locker download -o - (bytes, not text): exit 0, nothing on stderr', async () => {
    const r = await withGoneReader(['locker', 'download', String(sb.info.examples.trackIds[0]), '-o', '-'], profile());
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
  });

  it('mid-stream (after the first line of a long listing): exit 0, nothing on stderr', async () => {
    const big = sb.info.users.find((u) => u.userId === sb.info.examples.bigLockerUser)!;
    const r = await withGoneReader(['locker', '--all', '--page-size', '5', '-o', 'ndjson'], { ...profile(), MCAT_TOKEN: big.token, MCAT_TOKEN_SECRET: big.tokenSecret, MCAT_USER_ID: big.userId }, 'after-first-line');
    expect(JSON.parse(r.firstLine)).toHaveProperty('release');
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
  });

  it('`| head -1` in a shell: mcat itself exits 0 with no stack trace', async () => {
    const env = mcatEnv({ env: profile() }) as NodeJS.ProcessEnv;
    const q = (s: string) => `'${s.replace(/'/g, `'\\''`)}'`;
    const mc = `${q(cliNode)} ${q(binPath)}`;
    // (a batch with unknown ids among many: the reader's going is no partial failure)
    const ids = join(dir, 'ids.txt');
    writeFileSync(ids, [...Array.from({ length: 1500 }, (_, i) => String(100001 + i)), '999999999'].join('\n') + '\n');
    for (const cmd of [`${mc} locker --help`, `${mc} playlist export`, `${mc} playlist apply ${q(editsFile)} --dry-run -o table`, `${mc} locker --all -o ndjson`, `${mc} release batch --ids-file ${q(ids)} -o ndjson`]) {
      // (not spawnSync: the sandbox answers from this process)
      const r = await execa('bash', ['-c', `set -o pipefail; ${cmd} 2>${q(join(dir, 'err'))} | head -1 >/dev/null; echo "\${PIPESTATUS[0]}"; cat ${q(join(dir, 'err'))}`], { env, extendEnv: true, reject: false });
      const [status, ...stderr] = r.stdout.split('\n');
      expect(status, `${cmd}\n${r.stdout}`).toBe('0');
      // whether head left before the last line is a race: at most the command's own summary line
      expect(stderr.filter((l) => !/^mcat: exported \d+ playlists?$/.test(l)), cmd).toEqual([]);
    }
  });

  // (-o xml and -o json hold their document back until it is whole, so they cannot see the reader
  // go before the walk ends: see output-failures.test.ts)
  it('no more requests once the reader has gone: locker pages (ndjson) and export', async () => {
    const big = sb.info.users.find((u) => u.userId === sb.info.examples.bigLockerUser)!;
    const consumer = sb.info.consumers.find((c) => c.countries.length > 1)!;
    const proxy = await startEvilTextServer({
      upstream: { baseUrl: sb.baseUrl, creds: { consumerKey: consumer.key, consumerSecret: consumer.secret, token: big.token, tokenSecret: big.tokenSecret } },
      poisonKeys: [],
    });
    try {
      const env = { ...profile(), MCAT_BASE_URL: proxy.baseUrl, MCAT_USER_ID: big.userId };
      const total = Number(JSON.parse((await mcat(['locker', '--page-size', '1', '-o', 'json'], { env })).stdout).locker.lockerReleases.totalItems);
      expect(total).toBeGreaterThan(10);
      for (const format of ['ndjson']) {
        proxy.requests.length = 0;
        const r = await withGoneReader(['locker', '--all', '--page-size', '1', '-o', format], env);
        expect(r.code, r.stderr).toBe(0);
        expect(proxy.requests.filter((q) => q.path === '/1.2/user/locker').length, format).toBeLessThanOrEqual(2);
      }
      // playlists enough that export would read many more than the few in flight
      const creates = Array.from({ length: 12 }, (_, i) => JSON.stringify({ op: 'create', name: `P${i}`, tracks: [{ trackId: String(sb.info.examples.trackIds[0]) }] })).join('\n') + '\n';
      const file = join(dir, 'creates.ndjson');
      writeFileSync(file, creates);
      const made = await mcat(['playlist', 'apply', file], { env: { ...sandboxProfileEnv(sb), MCAT_TOKEN: big.token, MCAT_TOKEN_SECRET: big.tokenSecret, MCAT_USER_ID: big.userId } });
      expect(made.exitCode, made.stderr).toBe(0);
      proxy.requests.length = 0;
      const r = await withGoneReader(['playlist', 'export', '--concurrency', '1'], env);
      expect(r.code, r.stderr).toBe(0);
      expect(r.stderr).toBe('');
      const reads = proxy.requests.filter((q) => q.method === 'GET' && /^\/1\.2\/playlists\/[^/]+$/.test(q.path)).length;
      expect(reads).toBeGreaterThan(0);
      expect(reads).toBeLessThanOrEqual(3);
    } finally {
      await proxy.close();
    }
  });
});

describe('stderr whose reader has gone', () => {
  function withGoneStderr(args: string[]): Promise<number | null> {
    return new Promise((resolve) => {
      const child = spawn(cliNode, [binPath, ...args], { env: mcatEnv({ env: profile() }) as NodeJS.ProcessEnv, stdio: ['ignore', 'ignore', 'pipe'] });
      child.stderr.destroy();
      child.on('close', (code) => resolve(code));
    });
  }

  it('the exit code is still the command\'s own (usage 2, partial 3), not a crash', async () => {
    expect(await withGoneStderr(['no-such-command'])).toBe(2);
    expect(await withGoneStderr(['release', 'batch', String(sb.info.examples.releaseIds[0]), String(sb.info.examples.unknownReleaseId), '-o', 'json'])).toBe(3);
  });
});

// A stdout that takes no bytes (a full disk: /dev/full answers every write with ENOSPC) is not a
// reader that went away: what was asked for never arrived, so the run fails (exit 1) with one
// line that says why, and no stack trace. Help and --version included.
describe.skipIf(!existsSync('/dev/full'))('stdout on a full disk (/dev/full)', () => {
  function toFullDisk(args: string[]): Promise<{ code: number | null; stderr: string }> {
    return new Promise((resolve, reject) => {
      const full = openSync('/dev/full', 'w');
      const child = spawn(cliNode, [binPath, ...args], { env: mcatEnv({ env: profile() }) as NodeJS.ProcessEnv, stdio: ['ignore', full, 'pipe'] });
      closeSync(full);
      let stderr = '';
      child.stderr!.on('data', (d) => (stderr += d));
      child.on('error', reject);
      child.on('close', (code) => resolve({ code, stderr }));
    });
  }

  it.each([
    ['--help', ['--help']],
    ['bare mcat', []],
    ['locker --help', ['locker', '--help']],
    ['release batch --help', ['release', 'batch', '--help']],
    ['help globals', ['help', 'globals']],
    ['--version', ['--version']],
    ['release batch -o json', ['release', 'batch', '__RELEASE__', '-o', 'json']],
    ['locker --all -o ndjson', ['locker', '--all', '-o', 'ndjson']],
  ])('%s: exit 1, one line naming stdout and the reason', async (_name, args) => {
    const r = await toFullDisk(args.map((x) => (x === '__RELEASE__' ? String(sb.info.examples.releaseIds[0]) : x)));
    expect(r.stderr).toContain('mcat: cannot write to stdout: no space left on the device (ENOSPC)\n');
    expect(r.stderr).not.toMatch(/could not start|unexpected error|\n\s+at /);
    expect(r.code).toBe(1);
  });
});
