// Old journals of finished runs, removed from mcat's own journal folder. Each input file and
// content has its own journal there, so a nightly job whose file changes adds one every night, and
// nothing else ever removes them. A journal is removed only when all of this holds:
// - it is in the default folder ($XDG_STATE_HOME/mcat/journals): a journal named by --journal is
//   the user's file, never touched;
// - it is a regular file of this user (lstat: never a link), named `*.journal`;
// - it was last written more than JOURNAL_KEEP_DAYS ago;
// - it is complete, as a run opening it would judge (journal.ts isComplete): its last record ends
//   a run with no failure and no interruption, and every edit is done. A journal a run could
//   still resume (an unfinished, interrupted or failed run) is kept, however old: it is the only
//   record of what was done.
// Its lock folder (`<journal>.lock/`, holding released claims) goes with it. A run that starts on
// the same input at that moment finds no journal and starts afresh, as it would have done on the
// finished one (a finished journal never blocks a new run of its input).
//
// A lock folder with no journal (a prune killed between the two removals, a run killed before it
// made its journal) is removed too, once it is provably nobody's: the prune takes that lock itself
// (its claim marked as a prune's: a run waits a moment for it, and no split check takes it for a run)
// (lock.ts: it succeeds only when the highest claim is released or its process is gone, never
// from a live run or one on another host), checks again that no journal is there, moves the folder
// aside (a run taking the lock at that moment finds it gone and makes a new one) and removes it.
// What a prune killed after the move leaves (`.<name>.pruned-<pid>-<hex>`) goes once its pid is gone.
import * as fs from 'node:fs';
import * as path from 'node:path';
import { randomBytes } from 'node:crypto';
import { isComplete, readJournal, stateOf } from './journal';
import { JournalLock } from './lock';

export const JOURNAL_KEEP_DAYS = 30;
const DAY_MS = 24 * 60 * 60 * 1000;
/** enough of a file's end for its last record (an `end` record is ~120 bytes) */
const TAIL_BYTES = 4096;
/** at most this many journals looked at in one run: a huge folder is pruned over several runs */
const MOST_PER_RUN = 2000;

/** Whether the journal's last record says its run applied every edit. */
export function endedClean(tail: string): boolean {
  const text = tail.endsWith('\n') ? tail.slice(0, -1) : tail;
  const last = text.slice(text.lastIndexOf('\n') + 1);
  if (!last.startsWith('{"type":"end"')) return false;
  try {
    const r = JSON.parse(last) as { type?: unknown; failed?: unknown; interrupted?: unknown };
    return r.type === 'end' && r.failed === 0 && r.interrupted === false;
  } catch {
    return false;
  }
}

function tailOf(file: string): string | undefined {
  let fd: number;
  try {
    fd = fs.openSync(file, fs.constants.O_RDONLY | fs.constants.O_NOFOLLOW);
  } catch {
    return undefined;
  }
  try {
    const st = fs.fstatSync(fd);
    if (!st.isFile()) return undefined;
    const n = Math.min(st.size, TAIL_BYTES);
    const buf = Buffer.alloc(n);
    fs.readSync(fd, buf, 0, n, st.size - n);
    return buf.toString('utf8');
  } catch {
    return undefined;
  } finally {
    fs.closeSync(fd);
  }
}

/**
 * Removes the finished journals in `dir` last written more than `keepDays` before `now`; returns
 * the names removed. Never throws: pruning is housekeeping, never a reason for a run to fail.
 */
export function pruneJournals(dir: string, opts: { now?: number; keepDays?: number; keep?: string } = {}): string[] {
  const before = (opts.now ?? Date.now()) - (opts.keepDays ?? JOURNAL_KEEP_DAYS) * DAY_MS;
  const uid = process.getuid?.();
  const removed: string[] = [];
  let all: string[];
  try {
    all = fs.readdirSync(dir);
  } catch {
    return removed;
  }
  const names = all.filter((n) => n.endsWith('.journal'));
  removeOrphanLocks(dir, all, opts.keep, uid);
  for (const name of names.slice(0, MOST_PER_RUN)) {
    const file = path.join(dir, name);
    if (opts.keep !== undefined && path.resolve(file) === path.resolve(opts.keep)) continue;
    try {
      const st = fs.lstatSync(file);
      if (!st.isFile() || (uid !== undefined && st.uid !== uid) || st.mtimeMs >= before) continue;
      const tail = tailOf(file);
      // the last record first (a few kB), then the whole journal of a candidate
      if (tail === undefined || !endedClean(tail)) continue;
      const contents = readJournal(file);
      if (!contents.header || !isComplete(contents, stateOf(contents.header.runId, contents.records))) continue;
      fs.unlinkSync(file);
      removed.push(name);
      const lock = `${file}.lock`;
      const lst = fs.lstatSync(lock, { throwIfNoEntry: false });
      if (lst?.isDirectory()) fs.rmSync(lock, { recursive: true, force: true });
    } catch {
      // gone already, or not ours to remove: the next run looks again
    }
  }
  return removed;
}

const ASIDE = /^\..+\.journal\.lock\.pruned-([0-9]{1,10})-[0-9a-f]{16}$/;

/** Whether a process is running (another user's counts). */
function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** A folder of this user's (never a link). */
function ownFolder(p: string, uid: number | undefined): boolean {
  const st = fs.lstatSync(p, { throwIfNoEntry: false });
  return !!st && st.isDirectory() && (uid === undefined || st.uid === uid);
}

/** The lock folders in `dir` with no journal whose lock nobody holds: see the top of this file. */
function removeOrphanLocks(dir: string, names: string[], keep: string | undefined, uid: number | undefined): void {
  let looked = 0;
  for (const name of names) {
    if (looked >= MOST_PER_RUN) break;
    try {
      const aside = ASIDE.exec(name);
      if (aside) {
        looked++;
        const p = path.join(dir, name);
        if (!alive(Number(aside[1])) && ownFolder(p, uid)) fs.rmSync(p, { recursive: true, force: true });
        continue;
      }
      if (!name.endsWith('.journal.lock')) continue;
      const journal = path.join(dir, name.slice(0, -'.lock'.length));
      if (keep !== undefined && path.resolve(journal) === path.resolve(keep)) continue;
      if (fs.lstatSync(journal, { throwIfNoEntry: false })) continue;
      const lockDir = path.join(dir, name);
      if (!ownFolder(lockDir, uid)) continue;
      looked++;
      let lock: JournalLock;
      try {
        lock = JournalLock.acquire(journal, { prune: true });
      } catch {
        // held by a live run (or not a lock of ours): kept
        continue;
      }
      let movedAway = false;
      try {
        // a journal is only made holding the lock: none now means none while the folder is moved
        if (fs.lstatSync(journal, { throwIfNoEntry: false })) continue;
        const moved = path.join(dir, `.${name}.pruned-${process.pid}-${randomBytes(8).toString('hex')}`);
        fs.renameSync(lockDir, moved);
        movedAway = true;
        fs.rmSync(moved, { recursive: true, force: true });
      } finally {
        // once moved, a folder of that name is another lock: the release is not written there
        if (movedAway) lock.abandon();
        else lock.release();
      }
    } catch {
      // tidying only: the next run looks again
    }
  }
}
