// The sandbox's files as the user gets them from bin/mcat: `sandbox start --data DIR`, the
// default data dir, and the in-process sandbox an ordinary command starts (issue 11).
import { afterEach, describe, expect, it } from 'vitest';
import { execa } from 'execa';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { readOnlyFolder } from '../helpers/temp';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { binPath, mcat, mcatEnv, NEEDS_SQLITE_IN_CLI, sqliteInCli, tempHome } from '../helpers/mcat';

const made: string[] = [];
afterEach(() => {
  while (made.length) rmSync(made.pop()!, { recursive: true, force: true });
});
const mode = (p: string) => statSync(p).mode & 0o777;

function expectPrivate(dir: string, files: string[]): void {
  expect(mode(dir), dir).toBe(0o700);
  for (const f of files) {
    expect(existsSync(join(dir, f)), f).toBe(true);
    expect(mode(join(dir, f)), f).toBe(0o600);
  }
}

/**
 * `mcat sandbox start ARGS` in the background until it listens; a playlist stored through it (so
 * the WAL and SHM exist), `check` run while it still runs (a clean stop removes them), then stopped.
 */
async function whileServing(args: string[], home: string, sandboxDir: string | undefined, check: () => void): Promise<void> {
  const child = execa(process.execPath, [binPath, 'sandbox', 'start', '--port', '0', ...args], { env: mcatEnv({ home, sandboxDir }) as Record<string, string>, reject: false, stdin: 'ignore' });
  let err = '';
  const baseUrl = await new Promise<string>((resolve, reject) => {
    child.stderr!.on('data', (d) => {
      err += d;
      const m = /listening on (http:\/\/\S+)/.exec(err);
      if (m) resolve(m[1]);
    });
    child.on('exit', () => reject(new Error(err)));
  });
  try {
    const r = await mcat(['playlist', 'create', '--name', 'private', '-o', 'json'], { home, sandboxDir });
    expect(r.exitCode, r.stderr).toBe(0);
    expect(r.stderr).toContain(baseUrl);
    check();
  } finally {
    child.kill('SIGTERM');
    await child;
  }
}

describe('sandbox files from the command line', () => {
  it('mcat sandbox start --data DIR: 0700 dir, 0600 db, WAL and SHM', async () => {
    const home = tempHome();
    made.push(home);
    const dir = join(home, 'sb');
    await whileServing(['--data', dir], home, dir, () => expectPrivate(dir, ['sandbox.db', 'sandbox.db-wal', 'sandbox.db-shm', 'server.json']));
    expectPrivate(dir, ['sandbox.db']);
  }, 30_000);

  it.skipIf(!sqliteInCli)(`the default data dir, and the in-process sandbox an ordinary command starts${sqliteInCli ? '' : ` (skipped: ${NEEDS_SQLITE_IN_CLI})`}`, async () => {
    const home = tempHome();
    made.push(home);
    const r = await mcat(['playlist', 'create', '--name', 'private', '-o', 'json'], { home });
    expect(r.exitCode, r.stderr).toBe(0);
    const dir = join(home, '.local/share/mcat/sandbox');
    expectPrivate(dir, ['sandbox.db']);
    expect(mode(join(home, '.local/share/mcat'))).toBe(0o700);
    await whileServing([], home, undefined, () => expectPrivate(dir, ['sandbox.db', 'sandbox.db-wal', 'sandbox.db-shm', 'server.json']));
  }, 30_000);

  it('a symlink planted at mcat\'s folder of the default data dir (~/.local/share/mcat): one line, exit 2, nothing made where it points', async () => {
    const home = tempHome();
    made.push(home);
    const elsewhere = mkdtempSync(join(tmpdir(), 'mcat-sbparent-'));
    made.push(elsewhere);
    mkdirSync(join(home, '.local/share'), { recursive: true });
    symlinkSync(elsewhere, join(home, '.local/share/mcat'));
    for (const args of [['sandbox', 'start', '--port', '0'], ['release', 'batch', '1']]) {
      // (a sandbox started through the link would serve until killed: the timeout ends it)
      const r = await mcat(args, { home, timeout: 10_000 });
      expect(r.exitCode, `${args.join(' ')}: ${r.stderr}`).toBe(2);
      expect(r.stdout).toBe('');
      const lines = r.stderr.trim().split('\n');
      expect(lines[0]).toBe(`mcat: the folder ${join(home, '.local/share/mcat')} is a symbolic link: the sandbox will not keep its data through it`);
      expect(lines.length).toBeLessThanOrEqual(2);
    }
    expect(readdirSync(elsewhere)).toEqual([]);
  }, 30_000);

  it('a symlink at the db path: one line, exit 2, the file it points at untouched', async () => {
    const home = tempHome();
    made.push(home);
    const dir = mkdtempSync(join(tmpdir(), 'mcat-sblink-'));
    made.push(dir);
    const victim = join(home, 'victim');
    writeFileSync(victim, 'precious', { mode: 0o644 });
    symlinkSync(victim, join(dir, 'sandbox.db'));
    for (const args of [['sandbox', 'start', '--port', '0', '--data', dir], ['release', 'batch', '1']]) {
      const r = await mcat(args, { home, sandboxDir: dir });
      expect(r.exitCode, args.join(' ')).toBe(2);
      expect(r.stdout).toBe('');
      const lines = r.stderr.trim().split('\n').filter((l) => !/using the built-in sandbox/.test(l));
      expect(lines[0]).toMatch(/^mcat: .*sandbox\.db is a symbolic link/);
      expect(lines.length).toBeLessThanOrEqual(2);
    }
    expect(readFileSync(victim, 'utf8')).toBe('precious');
    expect(mode(victim)).toBe(0o644);
  }, 30_000);

  it.skipIf(!sqliteInCli)(`a second server with another --seed on a data dir in use: refused (exit 2, one line naming the first), the data it serves untouched; once that server is killed the seed can change${sqliteInCli ? '' : ` (skipped: ${NEEDS_SQLITE_IN_CLI})`}`, async () => {
    const home = tempHome();
    made.push(home);
    const dir = join(home, 'sb');
    const env = mcatEnv({ home, sandboxDir: dir }) as Record<string, string>;
    const first = execa(process.execPath, [binPath, 'sandbox', 'start', '--port', '0', '--data', dir], { env, reject: false, stdin: 'ignore' });
    let err = '';
    const baseUrl = await new Promise<string>((resolve, reject) => {
      first.stderr!.on('data', (d) => {
        err += d;
        const m = /listening on (http:\/\/\S+)/.exec(err);
        if (m) resolve(m[1]);
      });
      first.on('exit', () => reject(new Error(err)));
    });
    const shownName = async (id: string) => {
      const shown = await mcat(['playlist', 'show', id, '-o', 'json'], { home, sandboxDir: dir });
      expect(shown.exitCode, shown.stderr).toBe(0);
      expect(shown.stderr).toContain(baseUrl);
      return JSON.parse(shown.stdout).playlist.name;
    };
    try {
      const made1 = await mcat(['playlist', 'create', '--name', 'kept', '-o', 'json'], { home, sandboxDir: dir });
      expect(made1.exitCode, made1.stderr).toBe(0);
      const id = JSON.parse(made1.stdout).playlist.id;
      expectPrivate(dir, ['server.lock']);
      // another seed would re-initialise the data under the first server (which keeps seed 1's credentials)
      const r = await mcat(['sandbox', 'start', '--port', '0', '--data', dir, '--seed', '2'], { home, sandboxDir: dir, timeout: 10_000 });
      expect(r.exitCode, r.stderr).toBe(2);
      expect(r.stdout).toBe('');
      expect(r.stderr).toBe(
        `mcat: sandbox data directory ${dir} is in use by another sandbox server at ${baseUrl} (pid ${first.pid}): seed 2 would re-initialise its data\nhint: stop that server first, or choose another sandbox data directory with --data\n`,
      );
      expect(await shownName(id)).toBe('kept');
      // the same seed: a second server shares the folder (as before)
      const second = execa(process.execPath, [binPath, 'sandbox', 'start', '--port', '0', '--data', dir, '--seed', '1'], { env, reject: false, stdin: 'ignore' });
      let err2 = '';
      await new Promise<void>((resolve, reject) => {
        second.stderr!.on('data', (d) => {
          err2 += d;
          if (/listening on/.test(err2)) resolve();
        });
        second.on('exit', () => reject(new Error(err2)));
      });
      second.kill('SIGTERM');
      await second;
    } finally {
      first.kill('SIGKILL');
      await first;
    }
    // the lock went with the process: the seed can change now
    await whileServing(['--data', dir, '--seed', '2'], home, dir, () => expectPrivate(dir, ['server.json', 'server.lock']));
  }, 60_000);

  it.skipIf(!sqliteInCli)('two servers with one seed on one folder: whichever stops first, `sandbox info` and the default sandbox profile find the other; once both stop nothing is left' + (sqliteInCli ? '' : ` (skipped: ${NEEDS_SQLITE_IN_CLI})`), async () => {
    const home = tempHome();
    made.push(home);
    const dir = join(home, 'sb');
    const env = mcatEnv({ home, sandboxDir: dir }) as Record<string, string>;
    const start = async () => {
      const child = execa(process.execPath, [binPath, 'sandbox', 'start', '--port', '0', '--data', dir, '--seed', '1'], { env, reject: false, stdin: 'ignore' });
      let err = '';
      const url = await new Promise<string>((resolve, reject) => {
        child.stderr!.on('data', (d) => {
          err += d;
          const m = /listening on (http:\/\/\S+)/.exec(err);
          if (m) resolve(m[1]);
        });
        child.on('exit', () => reject(new Error(err)));
      });
      return { child, url };
    };
    const found = async () => {
      const info = await mcat(['sandbox', 'info', '--json'], { home, sandboxDir: dir });
      expect(info.exitCode, info.stderr).toBe(0);
      const r = await mcat(['playlist', 'list', '-o', 'json'], { home, sandboxDir: dir });
      expect(r.exitCode, r.stderr).toBe(0);
      const used = /using the built-in sandbox(?: \(demo data\))? at (http:\/\/\S+)/.exec(r.stderr)?.[1];
      return { info: JSON.parse(info.stdout).baseUrl as string | undefined, used };
    };
    // the older one goes on serving when the newer one (named by server.json) stops, and the other way round
    for (const stopNewer of [true, false]) {
      const a = await start();
      const b = await start();
      try {
        expect(JSON.parse(readFileSync(join(dir, 'server.json'), 'utf8')).baseUrl).toBe(b.url);
        const [stop, keep] = stopNewer ? [b, a] : [a, b];
        stop.child.kill('SIGTERM');
        await stop.child;
        expect(await found()).toEqual({ info: keep.url, used: keep.url });
        expect(JSON.parse(readFileSync(join(dir, 'server.json'), 'utf8')).baseUrl).toBe(keep.url);
        keep.child.kill('SIGTERM');
        await keep.child;
        expect(existsSync(join(dir, 'server.json'))).toBe(false);
        expect(readdirSync(dir).filter((n) => /^server\..*json$/.test(n))).toEqual([]);
      } finally {
        a.child.kill('SIGKILL');
        b.child.kill('SIGKILL');
        await Promise.all([a.child, b.child]);
      }
    }
    // a server killed outright (its record left behind): the other is still found, and the next start tidies the record
    const a = await start();
    const b = await start();
    try {
      b.child.kill('SIGKILL');
      await b.child;
      expect(await found()).toEqual({ info: a.url, used: a.url });
      // another seed is refused naming the server still running, not the killed one server.json names
      const r = await mcat(['sandbox', 'start', '--port', '0', '--data', dir, '--seed', '2'], { home, sandboxDir: dir, timeout: 10_000 });
      expect(r.exitCode, r.stderr).toBe(2);
      expect(r.stderr.split('\n')[0]).toBe(`mcat: sandbox data directory ${dir} is in use by another sandbox server at ${a.url} (pid ${a.child.pid}): seed 2 would re-initialise its data`);
    } finally {
      a.child.kill('SIGTERM');
      await a.child;
    }
    const c = await start();
    try {
      expect(readdirSync(dir).filter((n) => /^server\.[0-9]+\.[0-9]+\.json$/.test(n))).toEqual([`server.${c.child.pid}.${new URL(c.url).port}.json`]);
    } finally {
      c.child.kill('SIGTERM');
      await c.child;
    }
  }, 90_000);

  // A place mcat cannot write in: read-only for a user (chmod), or a read-only file system for
  // root, who writes through modes (a tmpfs mounted read-only, where this machine lets the tests
  // mount one). It said 'mcat: unexpected error: ENOENT: no such file or directory, mkdir …' or
  // 'unexpected error: EROFS: read-only file system, chmod …' (Node's words, exit 1).
  it('a data dir where mcat cannot write: one line naming it and why, the data dir hint, exit 2', async () => {
    const home = tempHome();
    made.push(home);
    const ro = join(home, 'read-only');
    const undo = readOnlyFolder(ro);
    if (!undo) return; // neither a user nor a mount here: nothing to test it with
    try {
      const cases: [string, RegExp][] = [[join(ro, 'sb'), /^mcat: cannot use sandbox data directory .*read-only\/sb: (the file system is read-only \(EROFS\)|permission denied \(EACCES\))$/]];
      // root's read-only mount point itself: it exists, but its mode cannot be set nor a file made in it
      if (process.getuid?.() === 0) cases.push([ro, /^mcat: cannot use sandbox data directory .*read-only: the file system is read-only \(EROFS\)$/]);
      for (const [dir, line] of cases) {
        const r = await mcat(['sandbox', 'start', '--port', '0', '--data', dir], { home, timeout: 10_000 });
        expect(r.exitCode, r.stderr).toBe(2);
        expect(r.stdout).toBe('');
        const lines = r.stderr.trimEnd().split('\n');
        expect(lines[0]).toMatch(line);
        expect(lines.slice(1)).toEqual(['hint: choose another sandbox data directory with --data or MCAT_SANDBOX_DIR']);
      }
    } finally {
      undo();
    }
  }, 30_000);

  it('a --log that cannot be opened: the reason in words, once, and a hint to name a file that can be written', async () => {
    const home = tempHome();
    made.push(home);
    const log = join(home, 'no-such-folder', 'requests.ndjson');
    const r = await mcat(['sandbox', 'start', '--port', '0', '--data', join(home, 'sb'), '--log', log], { home, timeout: 10_000 });
    expect(r.exitCode).toBe(2);
    // it said Node's "ENOENT: no such file or directory, open '<the path again>'" and the symlink's hint
    expect(r.stderr).toBe(`mcat: cannot open log file ${log}: no such file or directory (ENOENT)\nhint: name a log file in a folder you can write, or leave out --log\n`);
  }, 30_000);

  it('a symlink at --log: one line naming it, and a hint about the log (not the data dir)', async () => {
    const home = tempHome();
    made.push(home);
    const victim = join(home, 'victim');
    writeFileSync(victim, 'precious', { mode: 0o644 });
    symlinkSync(victim, join(home, 'requests.ndjson'));
    const r = await mcat(['sandbox', 'start', '--port', '0', '--data', join(home, 'sb'), '--log', join(home, 'requests.ndjson')], { home, timeout: 10_000 });
    expect(r.exitCode).toBe(2);
    expect(r.stderr).toBe(`mcat: log file ${join(home, 'requests.ndjson')} is a symbolic link: the sandbox will not write through it\nhint: name the file itself, or another file with --log\n`);
    expect(readFileSync(victim, 'utf8')).toBe('precious');
  }, 30_000);
});
