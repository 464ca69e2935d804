// Temp folders for tests that write, fsync and lock files by the hundred (the bulk engine's
// journal, killed and resumed at every call): on a memory file system where there is one
// (/dev/shm on Linux), where an fsync or a mkdir costs nothing; elsewhere the system's temp folder.
// What such tests check (records, locks, modes, what a crash leaves) is the same on either; only
// the disk's latency is left out (on a busy shared disk it made one unit test file take 10 s).
import { execFileSync } from 'node:child_process';
import { accessSync, chmodSync, constants, mkdirSync, mkdtempSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const SHM = '/dev/shm';

/** The folder fastTempDir makes its folders in. */
export function fastTempRoot(): string {
  try {
    if (statSync(SHM).isDirectory()) {
      accessSync(SHM, constants.W_OK | constants.X_OK);
      return SHM;
    }
  } catch {
    // no /dev/shm here (macOS), or not ours to write
  }
  return tmpdir();
}

/** A new folder (0700) for one test's files, in fastTempRoot(). */
export function fastTempDir(prefix: string): string {
  return mkdtempSync(join(fastTempRoot(), prefix));
}

/**
 * A folder (made if missing) where nothing can be written, and how to undo that; undefined when
 * there is no way to make one here. Read-only for a user (chmod 0500); for root, who writes
 * through modes, a tmpfs mounted read-only, where the machine lets the tests mount one (Linux).
 */
export function readOnlyFolder(at: string): (() => void) | undefined {
  mkdirSync(at, { recursive: true });
  if (process.getuid?.() !== 0) {
    chmodSync(at, 0o500);
    return () => chmodSync(at, 0o700);
  }
  if (process.platform !== 'linux') return undefined;
  try {
    execFileSync('mount', ['-t', 'tmpfs', '-o', 'size=16k,ro', 'tmpfs', at], { stdio: 'ignore' });
  } catch {
    return undefined;
  }
  return () => execFileSync('umount', [at], { stdio: 'ignore' });
}
