// Temp folders for tests that write, fsync and lock files by the hundred (the bulk engine's
// journal, killed and resumed at every call): on a memory file system where there is one
// (/dev/shm on Linux), where an fsync or a mkdir costs nothing; elsewhere the system's temp folder.
// What such tests check (records, locks, modes, what a crash leaves) is the same on either; only
// the disk's latency is left out (on a busy shared disk it made one unit test file take 10 s).
import { accessSync, constants, mkdtempSync, statSync } from 'node:fs';
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
