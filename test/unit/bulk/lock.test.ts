import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { spawn, spawnSync } from 'node:child_process';
import { build } from 'esbuild';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { JournalLock, lockHolder } from '../../../src/bulk/lock';

let dir: string;
beforeEach(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'mcat-lock-'));
});
afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

/** The pid of a process that has ended (and been reaped). */
function deadPid(): number {
  const r = spawnSync(process.execPath, ['-e', '']);
  return r.pid!;
}

function procStart(pid: number): string {
  const s = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
  return s.slice(s.lastIndexOf(')') + 2).split(' ')[19];
}

function bootId(): string {
  return fs.readFileSync('/proc/sys/kernel/random/boot_id', 'utf8').trim();
}

/** A claim as another process would leave it. */
function plant(journal: string, gen: number, claim: object): void {
  fs.mkdirSync(`${journal}.lock`, { recursive: true, mode: 0o700 });
  fs.writeFileSync(path.join(`${journal}.lock`, String(gen)), JSON.stringify(claim) + '\n', { mode: 0o600 });
}

const hasProc = fs.existsSync('/proc/self/stat');

describe('journal lock', () => {
  it('one holder at a time: a second is refused naming the holder; after release the next one takes it', () => {
    const j = path.join(dir, 'j');
    const a = JournalLock.acquire(j);
    expect(a.tookOverFrom).toBeUndefined();
    expect(() => JournalLock.acquire(j)).toThrow(`the journal ${j} is in use by another mcat run (pid ${process.pid})`);
    a.release();
    const b = JournalLock.acquire(j);
    expect(b.gen).toBeGreaterThan(a.gen);
    // only the holder's claim is left (older ones are removed by the holder)
    expect(fs.readdirSync(`${j}.lock`)).toEqual([String(b.gen)]);
    b.release();
  });

  it('takes over the claim of a process that has ended, and says whose', () => {
    const j = path.join(dir, 'j');
    const pid = deadPid();
    plant(j, 1, { pid, host: os.hostname(), token: 'x' });
    const l = JournalLock.acquire(j);
    expect(l.tookOverFrom).toEqual({ pid, host: os.hostname() });
    expect(l.gen).toBe(2);
    l.release();
  });

  it.runIf(hasProc)('a live pid with another start time is a reused pid: taken over; with its own start time: refused', () => {
    const j = path.join(dir, 'j');
    const pid = process.ppid;
    plant(j, 1, { pid, start: '1', boot: bootId(), host: os.hostname(), token: 'x' });
    JournalLock.acquire(j).release();
    const k = path.join(dir, 'k');
    plant(k, 1, { pid, start: procStart(pid), boot: bootId(), host: os.hostname(), token: 'x' });
    expect(() => JournalLock.acquire(k)).toThrow(`(pid ${pid})`);
  });

  it.runIf(hasProc)('a claim made before a reboot is free', () => {
    const j = path.join(dir, 'j');
    plant(j, 1, { pid: process.ppid, start: procStart(process.ppid), boot: 'another-boot', host: os.hostname(), token: 'x' });
    JournalLock.acquire(j).release();
  });

  it('a claim from another host cannot be checked: refused, with how to clear it', () => {
    const j = path.join(dir, 'j');
    plant(j, 1, { pid: 4242, host: 'elsewhere.example', token: 'x' });
    let err: (Error & { hint?: string }) | undefined;
    try {
      JournalLock.acquire(j);
    } catch (e) {
      err = e as Error;
    }
    expect(err?.message).toBe(`the journal ${j} is in use by another mcat run (pid 4242 on elsewhere.example)`);
    expect(err?.hint).toBe(`wait for it to finish; if that run is gone, remove ${j}.lock`);
  });

  it('two takeovers of one stale claim: the one that makes the next claim first wins, the other is refused', () => {
    const j = path.join(dir, 'j');
    plant(j, 1, { pid: deadPid(), host: os.hostname(), token: 'x' });
    let inner: JournalLock | undefined;
    // between judging claim 1 stale and making claim 2, another run does the same and wins
    expect(() =>
      JournalLock.acquire(j, {
        beforeClaim: () => {
          inner ??= JournalLock.acquire(j);
        },
      }),
    ).toThrow(`(pid ${process.pid})`);
    expect(inner?.gen).toBe(2);
    expect(fs.readdirSync(`${j}.lock`).sort()).toEqual(['2']);
    inner!.release();
  });

  it('a run with an old view of the folder that makes a claim below the highest backs off', () => {
    const j = path.join(dir, 'j');
    plant(j, 1, { pid: deadPid(), host: os.hostname(), token: 'x' });
    let holder: JournalLock | undefined;
    expect(() =>
      JournalLock.acquire(j, {
        beforeClaim: (gen) => {
          if (holder) return;
          // meanwhile: claim 2 freed by its run, claim 3 taken by another, claim 2 removed by it
          holder = JournalLock.acquire(j);
          holder.release();
          holder = JournalLock.acquire(j);
          expect(gen).toBe(2);
          expect(fs.existsSync(path.join(`${j}.lock`, '2'))).toBe(false);
        },
      }),
    ).toThrow(`(pid ${process.pid})`);
    // the late claim 2 was taken back: the holder's is the only one
    expect(fs.readdirSync(`${j}.lock`)).toEqual([String(holder!.gen)]);
    holder!.release();
  });

  it('temporary claims of runs killed before they linked them are removed; a live process\'s are kept', () => {
    const j = path.join(dir, 'j');
    const dead = deadPid();
    const left = [`.tmp-${dead}-0123456789abcdef`, `.tmp-${dead}-0123456789abcdef-free`];
    const kept = [`.tmp-1-0123456789abcdef`, '.tmp-x', 'notes'];
    fs.mkdirSync(`${j}.lock`, { mode: 0o700 });
    for (const n of [...left, ...kept]) fs.writeFileSync(path.join(`${j}.lock`, n), '{}', { mode: 0o600 });
    const lock = JournalLock.acquire(j);
    lock.release();
    const names = fs.readdirSync(`${j}.lock`);
    for (const n of left) expect(names).not.toContain(n);
    for (const n of kept) expect(names).toContain(n);
  });

  it('refuses a lock folder that is a symlink or not a folder', () => {
    const j = path.join(dir, 'j');
    fs.symlinkSync(dir, `${j}.lock`);
    expect(() => JournalLock.acquire(j)).toThrow(`the lock ${j}.lock is a symbolic link; refusing to use it`);
    const k = path.join(dir, 'k');
    fs.writeFileSync(`${k}.lock`, '');
    expect(() => JournalLock.acquire(k)).toThrow(`the lock ${k}.lock is not a folder`);
  });

  it('processes racing to take over a killed run\'s lock: exactly one wins, every other names it', async () => {
    const bundle = path.join(dir, 'lock.cjs');
    await build({ entryPoints: [path.resolve(__dirname, '../../../src/bulk/lock.ts')], bundle: true, platform: 'node', format: 'cjs', outfile: bundle, logLevel: 'silent' });
    const j = path.join(dir, 'j');
    plant(j, 1, { pid: deadPid(), host: os.hostname(), token: 'x' });
    // each waits for a common moment, tries once, and a winner holds until told to end
    const script = `
      const { JournalLock } = require(${JSON.stringify(bundle)});
      const at = Number(process.argv[1]);
      while (Date.now() < at) {}
      try {
        JournalLock.acquire(${JSON.stringify(j)});
        process.stdout.write('won ' + process.pid + '\\n');
        process.stdin.resume();
        process.stdin.on('end', () => process.exit(0));
      } catch (e) {
        process.stdout.write('refused ' + e.message + '\\n');
      }`;
    const n = 6;
    const at = Date.now() + 600;
    const lines: string[] = [];
    const kids = Array.from({ length: n }, () => spawn(process.execPath, ['-e', script, String(at)], { stdio: ['pipe', 'pipe', 'inherit'] }));
    await new Promise<void>((resolve, reject) => {
      const t = setTimeout(() => reject(new Error(`only ${lines.length} of ${n} answered: ${lines.join('; ')}`)), 15_000);
      for (const k of kids) {
        k.stdout.on('data', (d: Buffer) => {
          lines.push(...d.toString().trim().split('\n'));
          if (lines.length >= n) {
            clearTimeout(t);
            resolve();
          }
        });
      }
    });
    for (const k of kids) k.stdin.end();
    await Promise.all(kids.map((k) => new Promise((r) => (k.exitCode !== null ? r(null) : k.on('exit', r)))));
    const won = lines.filter((l) => l.startsWith('won '));
    expect(won, lines.join('\n')).toHaveLength(1);
    const winner = won[0].slice(4);
    for (const l of lines.filter((x) => !x.startsWith('won '))) expect(l).toBe(`refused the journal ${j} is in use by another mcat run (pid ${winner})`);
  }, 30_000);
});

describe('journal lock: its folder moved away while it is being taken (a prune removing a lock with no journal)', () => {
  it('a new folder is made and the lock taken there; nothing is written into the moved one', () => {
    const j = path.join(dir, 'j');
    plant(j, 1, { free: true });
    const aside = path.join(dir, 'aside');
    let moves = 0;
    const l = JournalLock.acquire(j, {
      beforeClaim: () => {
        if (moves++ === 0) fs.renameSync(`${j}.lock`, aside);
      },
    });
    expect(moves).toBe(2);
    expect(fs.readdirSync(`${j}.lock`)).toEqual([String(l.gen)]);
    expect(l.gen).toBe(1);
    expect(fs.readdirSync(aside).filter((n) => !n.startsWith('.tmp-'))).toEqual(['1']);
    l.release();
  });

  it('abandon lets go without writing: a folder of that name made since is left as it is', () => {
    const j = path.join(dir, 'j');
    const l = JournalLock.acquire(j);
    fs.renameSync(`${j}.lock`, path.join(dir, 'gone'));
    l.abandon();
    expect(fs.existsSync(`${j}.lock`)).toBe(false);
    // this process no longer holds it: a new lock is taken at once
    const m = JournalLock.acquire(j);
    expect(m.gen).toBe(1);
    m.release();
  });
});

describe.skipIf(!hasProc)('journal lock: a prune\'s claim (held for a moment to remove a lock folder with no journal)', () => {
  it('is not reported as a run holding the lock, and a run waits for it to go instead of being refused', () => {
    const j = path.join(dir, 'j');
    // a prune process that ends by itself in 300 ms
    const child = spawn(process.execPath, ['-e', 'setTimeout(() => {}, 300)'], { stdio: 'ignore' });
    try {
      plant(j, 1, { pid: child.pid, start: procStart(child.pid!), boot: bootId(), host: os.hostname(), token: 'p', prune: true });
      expect(lockHolder(j)).toBeUndefined();
      const t0 = Date.now();
      const l = JournalLock.acquire(j);
      expect(Date.now() - t0).toBeGreaterThan(100);
      expect(l.tookOverFrom).toEqual({ pid: child.pid, host: os.hostname() });
      l.release();
    } finally {
      child.kill('SIGKILL');
    }
  });

  it('a prune never waits for another prune, and its own claim says it is one', () => {
    const j = path.join(dir, 'j');
    plant(j, 1, { pid: process.ppid, host: os.hostname(), token: 'p', prune: true });
    const t0 = Date.now();
    expect(() => JournalLock.acquire(j, { prune: true })).toThrow(/is in use by another mcat run/);
    expect(Date.now() - t0).toBeLessThan(500);
    const k = path.join(dir, 'k');
    const l = JournalLock.acquire(k, { prune: true });
    expect(JSON.parse(fs.readFileSync(path.join(`${k}.lock`, String(l.gen)), 'utf8')).prune).toBe(true);
    expect(lockHolder(k)).toBeUndefined();
    l.release();
  });
});
