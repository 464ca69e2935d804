// The suite's own environment: what test/global-setup.ts and the helpers give every process the
// tests start.
import { describe, expect, it } from 'vitest';
import { accessSync, constants, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname } from 'node:path';
import { mcatEnv } from '../helpers/mcat';
import { mapLimit } from '../helpers/pool';
import { fastTempDir } from '../helpers/temp';

describe('the processes the suite starts', () => {
  it('go without NODE_EXTRA_CA_CERTS (no TLS in the suite; reading the bundle costs every Node start ~40 ms)', () => {
    expect(process.env.NODE_EXTRA_CA_CERTS).toBeUndefined();
    const env = mcatEnv({ env: {} });
    expect(Object.keys(env)).toContain('NODE_EXTRA_CA_CERTS');
    expect(env.NODE_EXTRA_CA_CERTS).toBeUndefined();
  });
});

describe('fastTempDir', () => {
  it('makes a 0700 folder on /dev/shm where that is a memory file system the tests may write, else in the temp folder', () => {
    const d = fastTempDir('mcat-suite-env-');
    try {
      expect(statSync(d).mode & 0o777).toBe(0o700);
      let shm = false;
      try {
        accessSync('/dev/shm', constants.W_OK);
        shm = statSync('/dev/shm').isDirectory();
      } catch {
        shm = false;
      }
      expect(dirname(d)).toBe(shm ? '/dev/shm' : tmpdir());
    } finally {
      rmSync(d, { recursive: true, force: true });
    }
  });
});

describe('vitest.config.ts', () => {
  it('runs files side by side, the in-process ones in reused workers, and the files timed against a rate after the rest, one at a time', async () => {
    const { default: config } = await import('../../vitest.config');
    const test = config.test!;
    if (process.env.MCAT_TEST_WORKERS) expect(test.maxWorkers).toBe(process.env.MCAT_TEST_WORKERS);
    else expect(test.maxWorkers).toBeGreaterThanOrEqual(2);
    type Project = { test: { name: string; include: string[]; exclude?: string[]; isolate?: boolean; fileParallelism?: boolean; sequence?: { groupOrder?: number } } };
    const projects = test.projects as Project[];
    const named = (name: string) => projects.find((p) => p.test.name === name)!.test;
    const [inProcess, main, timed] = [named('in-process'), named('e2e'), named('timed')];
    expect(inProcess.include).toEqual(['test/{unit,contract,property}/**/*.test.ts']);
    expect(inProcess.isolate).toBe(false);
    expect(main.include).toEqual(['test/e2e/**/*.test.ts']);
    expect(timed.include).toContain('test/e2e/bulk-rate.test.ts');
    expect(main.exclude).toEqual(timed.include);
    expect(timed.fileParallelism).toBe(false);
    expect(timed.sequence!.groupOrder!).toBeGreaterThan(main.sequence?.groupOrder ?? 0);
    expect(timed.sequence!.groupOrder!).toBeGreaterThan(inProcess.sequence?.groupOrder ?? 0);
  });
});

describe('mapLimit', () => {
  it('keeps the order of the items, never more than the limit at once, and rejects with the first failure', async () => {
    let now = 0;
    let most = 0;
    const out = await mapLimit([5, 1, 4, 2, 3], 2, async (ms, i) => {
      most = Math.max(most, ++now);
      await new Promise((r) => setTimeout(r, ms));
      now--;
      return `${i}:${ms}`;
    });
    expect(out).toEqual(['0:5', '1:1', '2:4', '3:2', '4:3']);
    expect(most).toBe(2);
    await expect(mapLimit([1, 2, 3], 3, async (n) => (n === 2 ? Promise.reject(new Error('two')) : n))).rejects.toThrow('two');
    expect(await mapLimit([], 4, async () => 1)).toEqual([]);
  });
});
