// One compile cache for this run of the suite, shared by its workers and removed at the end: two
// runs at once (two checkouts, CI and a developer) never read or prune each other's cache.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export default function setup(): () => void {
  const dir = mkdtempSync(join(tmpdir(), 'mcat-test-compile-cache-'));
  process.env.MCAT_TEST_COMPILE_CACHE_DIR = dir;
  return () => rmSync(dir, { recursive: true, force: true });
}
