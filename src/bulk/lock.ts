// The lock that gives one run at a time its journal. Node has no flock, so the lock is a folder
// beside the journal (`<journal>.lock/`) holding numbered claims: `1`, `2`, … Each claim is a
// small JSON file naming its process, made whole in a temporary file and then hard-linked into
// place, so a claim appears with its content or not at all, and two processes cannot make the
// same number. The claim with the highest number decides: a run holds the lock while its claim
// is the highest and names it. A run that finds the highest claim free (released, or left by a
// process that is gone) makes the next number; if another run made that number first, the link
// fails and the newcomer looks again. The highest claim is never removed (only claims below the
// holder's own), so a number once judged free can never come back to life under someone else.
// This is what makes the takeover of a killed run's lock race-free: two runs that both see a
// dead holder both try to make the same next number, and exactly one of them succeeds.
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { randomBytes } from 'node:crypto';
import { InputError } from '../client/errors';
import { describeFsError, O_NOFOLLOW, removeFile } from './files';

interface Claim {
  pid?: number;
  /** the process's start time in clock ticks since boot (/proc/<pid>/stat), against pid reuse */
  start?: string;
  /** the kernel's boot id: a claim made before a reboot is free */
  boot?: string;
  host?: string;
  token?: string;
  at?: string;
  /** a released claim */
  free?: boolean;
  /** a prune's claim (prune.ts): held for a moment to remove a lock folder with no journal, never a run */
  prune?: boolean;
}

/** Tokens of the claims this process holds now (a pid alone cannot tell two runs of one process apart). */
const held = new Set<string>();

export interface LockHolder {
  pid: number;
  host?: string;
}

export interface JournalLockOptions {
  /** for tests: called after the highest claim was judged free, before the next one is made */
  beforeClaim?: (gen: number) => void;
  /** taken by a prune (prune.ts): runs wait a moment for it, and lockHolder() does not report it */
  prune?: boolean;
}

/** How long a run waits for a prune's claim to go (a prune holds a lock for milliseconds). */
const PRUNE_WAIT_MS = 2000;

function pauseSync(ms: number): void {
  Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms);
}

export class JournalLock {
  private released = false;

  private constructor(
    readonly dir: string,
    readonly gen: number,
    private readonly token: string,
    /** the process whose lock was taken over (it was no longer running) */
    readonly tookOverFrom: LockHolder | undefined,
  ) {}

  /** Takes the lock of `journal`, or throws a InputError naming the run that holds it. */
  static acquire(journal: string, opts: JournalLockOptions = {}): JournalLock {
    // the folder may vanish under a run taking it: a prune removing a lock folder with no
    // journal (prune.ts, holding that lock) moves it aside; a new folder is then made
    for (let attempt = 0; ; attempt++) {
      try {
        return JournalLock.acquireIn(journal, opts);
      } catch (err) {
        if (!(err instanceof FolderGone)) throw err;
        if (attempt >= 3) throw lockError(`${journal}.lock`, err.cause);
      }
    }
  }

  private static acquireIn(journal: string, opts: JournalLockOptions): JournalLock {
    const dir = `${journal}.lock`;
    ensureLockDir(dir);
    const token = randomBytes(8).toString('hex');
    const me: Claim = { pid: process.pid, start: startTimeOf(process.pid), boot: bootId(), host: os.hostname(), token, at: new Date().toISOString(), ...(opts.prune ? { prune: true } : {}) };
    const tmp = path.join(dir, `.tmp-${process.pid}-${token}`);
    removeLeftovers(dir);
    writeNew(tmp, JSON.stringify(me) + '\n', dir, true);
    try {
      const pruneDeadline = Date.now() + PRUNE_WAIT_MS;
      for (let round = 0; round < 50; round++) {
        const top = highest(dir);
        let stale: LockHolder | undefined;
        if (top > 0) {
          const c = readClaim(path.join(dir, String(top)));
          if (c && isLive(c)) {
            // a prune removing this folder (it found no journal): it lets go in a moment, or the
            // folder goes and a new one is made
            if (c.prune && !opts.prune && Date.now() < pruneDeadline) {
              pauseSync(5);
              round--;
              continue;
            }
            throw busy(journal, dir, c);
          }
          if (c?.pid !== undefined && !c.free) stale = { pid: c.pid, ...(c.host ? { host: c.host } : {}) };
        }
        opts.beforeClaim?.(top + 1);
        const mine = path.join(dir, String(top + 1));
        try {
          fs.linkSync(tmp, mine);
        } catch (err) {
          // another run made that number first: look again
          if ((err as NodeJS.ErrnoException).code === 'EEXIST') continue;
          if ((err as NodeJS.ErrnoException).code === 'ENOENT') throw new FolderGone(err);
          throw lockError(dir, err);
        }
        // a run that read the folder long ago may make a number below one made since:
        // only the highest claim holds
        if (highest(dir) > top + 1) {
          removeFile(mine);
          continue;
        }
        held.add(token);
        const lock = new JournalLock(dir, top + 1, token, stale);
        lock.removeBelow();
        return lock;
      }
      throw new InputError(`could not take the lock ${dir}: other runs keep taking it`, 'try again in a moment');
    } finally {
      removeFile(tmp);
    }
  }

  /** Frees the lock: the next claim says so, and the next run takes the one after. */
  release(): void {
    if (this.released) return;
    this.released = true;
    held.delete(this.token);
    try {
      const tmp = path.join(this.dir, `.tmp-${process.pid}-${this.token}-free`);
      writeNew(tmp, JSON.stringify({ free: true, at: new Date().toISOString() }) + '\n', this.dir);
      try {
        fs.linkSync(tmp, path.join(this.dir, String(this.gen + 1)));
      } finally {
        removeFile(tmp);
      }
    } catch {
      // the claim still names this process, which is about to end: the next run takes it over
    }
  }

  /**
   * Lets go of a lock whose folder the holder has moved away (prune.ts): nothing is written, for a
   * folder of that name made since is another lock, where a claim of this one must never appear.
   */
  abandon(): void {
    this.released = true;
    held.delete(this.token);
  }

  private removeBelow(): void {
    try {
      for (const name of listClaims(this.dir)) {
        if (Number(name) < this.gen) removeFile(path.join(this.dir, name));
      }
    } catch {
      // tidying only: claims below the holder's decide nothing
    }
  }
}

/**
 * The run holding the lock of `journal` now, if any (a released lock, one whose process is gone,
 * or no lock at all: undefined). Only looks: a lock folder that is a link or not a folder of
 * ours is nobody's.
 */
export function lockHolder(journal: string): LockHolder | undefined {
  const dir = `${journal}.lock`;
  try {
    const st = fs.lstatSync(dir);
    const uid = process.getuid?.();
    if (!st.isDirectory() || (uid !== undefined && st.uid !== uid)) return undefined;
    const top = highest(dir);
    if (top === 0) return undefined;
    const c = readClaim(path.join(dir, String(top)));
    // a prune's claim is not a run
    if (!c || c.prune || !isLive(c) || c.pid === undefined) return undefined;
    return { pid: c.pid, ...(c.host ? { host: c.host } : {}) };
  } catch {
    return undefined;
  }
}

/**
 * The temporary claims of runs killed between making one and linking it (`.tmp-<pid>-<token>`,
 * `…-free`): removed once their process is gone, or the lock folder would keep them for ever.
 */
function removeLeftovers(dir: string): void {
  let names: string[];
  try {
    names = fs.readdirSync(dir);
  } catch {
    return;
  }
  for (const name of names) {
    const m = /^\.tmp-([0-9]{1,10})-[0-9a-f]{16}(?:-free)?$/.exec(name);
    if (!m) continue;
    const pid = Number(m[1]);
    if (pid === process.pid) continue;
    try {
      process.kill(pid, 0);
      continue;
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'EPERM') continue;
    }
    try {
      removeFile(path.join(dir, name));
    } catch {
      // tidying only
    }
  }
}

function busy(journal: string, dir: string, c: Claim): InputError {
  const elsewhere = c.host && c.host !== os.hostname();
  return new InputError(
    `the journal ${journal} is in use by another mcat run (pid ${c.pid}${elsewhere ? ` on ${c.host}` : ''})`,
    elsewhere
      ? `wait for it to finish; if that run is gone, remove ${dir}`
      : 'wait for it to finish (a run that was killed leaves a lock the next run takes over by itself)',
  );
}

function lockError(dir: string, err: unknown): InputError {
  const d = describeFsError(err);
  return new InputError(`cannot use the lock ${dir}: ${d}`, 'check that folder, or give another --journal');
}

/** The lock folder: made 0700 if missing; refused when it is a symlink, not a folder, or someone else's. */
function ensureLockDir(dir: string): void {
  try {
    fs.mkdirSync(dir, { mode: 0o700 });
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw lockError(dir, err);
  }
  let st: fs.Stats;
  try {
    st = fs.lstatSync(dir);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') throw new FolderGone(err);
    throw lockError(dir, err);
  }
  if (st.isSymbolicLink()) throw new InputError(`the lock ${dir} is a symbolic link; refusing to use it`, 'remove it, or give another --journal');
  if (!st.isDirectory()) throw new InputError(`the lock ${dir} is not a folder`, 'remove it, or give another --journal');
  const uid = process.getuid?.();
  if (uid !== undefined && st.uid !== uid) throw new InputError(`the lock ${dir} belongs to another user; refusing to use it`, 'give another --journal');
}

/** The lock folder was moved away while this run was taking it (see acquire). */
class FolderGone extends Error {
  constructor(override readonly cause: unknown) {
    super('the lock folder was moved away');
  }
}

function writeNew(file: string, text: string, dir: string, gone = false): void {
  let fd: number;
  try {
    fd = fs.openSync(file, fs.constants.O_WRONLY | fs.constants.O_CREAT | fs.constants.O_EXCL | O_NOFOLLOW, 0o600);
  } catch (err) {
    if (gone && (err as NodeJS.ErrnoException).code === 'ENOENT') throw new FolderGone(err);
    throw lockError(dir, err);
  }
  try {
    fs.writeSync(fd, text);
  } catch (err) {
    removeFile(file);
    throw lockError(dir, err);
  } finally {
    fs.closeSync(fd);
  }
}

function listClaims(dir: string): string[] {
  try {
    return fs.readdirSync(dir).filter((n) => /^[0-9]{1,15}$/.test(n));
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') throw new FolderGone(err);
    throw lockError(dir, err);
  }
}

function highest(dir: string): number {
  return listClaims(dir).reduce((m, n) => Math.max(m, Number(n)), 0);
}

function readClaim(file: string): Claim | undefined {
  try {
    const fd = fs.openSync(file, fs.constants.O_RDONLY | O_NOFOLLOW);
    try {
      const c = JSON.parse(fs.readFileSync(fd, 'utf8')) as Claim;
      return c && typeof c === 'object' ? c : undefined;
    } finally {
      fs.closeSync(fd);
    }
  } catch {
    // unreadable (a claim left half-written by a crash of the machine): nobody holds it
    return undefined;
  }
}

/** Whether the process named by a claim still holds it. */
function isLive(c: Claim): boolean {
  if (c.free || typeof c.pid !== 'number' || !Number.isInteger(c.pid) || c.pid <= 0) return false;
  // another machine's process (a shared home folder): its liveness cannot be checked from here
  if (c.host && c.host !== os.hostname()) return true;
  const boot = bootId();
  if (c.boot && boot && c.boot !== boot) return false;
  if (c.pid === process.pid) return c.token !== undefined && held.has(c.token);
  try {
    process.kill(c.pid, 0);
  } catch (err) {
    // EPERM: it exists, as another user's process
    if ((err as NodeJS.ErrnoException).code !== 'EPERM') return false;
  }
  const stat = procStat(c.pid);
  if (stat) {
    // a killed process not yet reaped by its parent is gone for our purposes
    if (stat.state === 'Z' || stat.state === 'X') return false;
    // the pid was reused by an unrelated process
    if (c.start && stat.start !== c.start) return false;
  }
  return true;
}

function procStat(pid: number): { state: string; start: string } | undefined {
  try {
    const s = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
    // "pid (comm) state ppid …": comm may hold spaces and parentheses; fields after it are plain
    const f = s.slice(s.lastIndexOf(')') + 2).split(' ');
    return { state: f[0], start: f[19] };
  } catch {
    return undefined;
  }
}

function startTimeOf(pid: number): string | undefined {
  return procStat(pid)?.start;
}

let boot: string | undefined | null = null;
function bootId(): string | undefined {
  if (boot === null) {
    try {
      boot = fs.readFileSync('/proc/sys/kernel/random/boot_id', 'utf8').trim() || undefined;
    } catch {
      boot = undefined;
    }
  }
  return boot;
}
