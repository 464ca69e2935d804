// One compile cache for this run of the suite, shared by its workers and removed at the end: two
// runs at once (two checkouts, CI and a developer) never read or prune each other's cache.
//
// NODE_EXTRA_CA_CERTS (set on some machines and CI runners for a proxy's CA) makes every Node
// start read and parse that bundle: ~40 ms a process, and the suite starts about a thousand
// (workers, mcat, sandboxes, shells running mcat). Nothing in it speaks TLS (the sandbox and the
// test servers are plain HTTP on 127.0.0.1), so the processes it starts go without it.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

// vitest calls a global setup for the root config and again for each project that extends it
const DONE = Symbol.for('mcat.test.global-setup');

export default function setup(): () => void {
  const g = globalThis as { [DONE]?: boolean };
  if (g[DONE]) return () => {};
  g[DONE] = true;
  const dir = mkdtempSync(join(tmpdir(), 'mcat-test-compile-cache-'));
  process.env.MCAT_TEST_COMPILE_CACHE_DIR = dir;
  delete process.env.NODE_EXTRA_CA_CERTS;
  return () => rmSync(dir, { recursive: true, force: true });
}
