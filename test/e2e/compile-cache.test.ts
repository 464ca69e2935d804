// The launcher's code cache (src/launcher/boot.ts): written after a successful run, read by the
// next run of the same command, never in the way when it is missing, broken or unwritable.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, statSync, writeFileSync, existsSync } from 'node:fs';
import { join } from 'node:path';
import { tmpdir } from 'node:os';
import { mcat } from '../helpers/mcat';
import { sandboxProfileEnv, startTestSandbox } from '../helpers/sandbox';

/** Every cache file below dir, as paths relative to dir. */
function cacheFiles(dir: string): string[] {
  if (!existsSync(dir)) return [];
  return readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((e) => e.isFile())
    .map((e) => join(e.parentPath, e.name).slice(dir.length + 1))
    .sort();
}

describe('compile cache', () => {
  let sb: Awaited<ReturnType<typeof startTestSandbox>>;
  let env: Record<string, string>;
  let id: string;
  beforeAll(async () => {
    sb = await startTestSandbox();
    env = sandboxProfileEnv(sb);
    id = String(sb.info.examples.releaseIds[0]);
  });
  afterAll(async () => {
    await sb?.close();
  });
  const fresh = () => mkdtempSync(join(tmpdir(), 'mcat-cc-'));

  it('a successful run writes one private file for its command; the next run reads it without rewriting', async () => {
    const dir = fresh();
    const first = await mcat(['-o', 'json', 'release', 'batch', id], { env: { ...env, MCAT_CACHE_DIR: dir } });
    expect(first.exitCode).toBe(0);
    const files = cacheFiles(dir);
    expect(files).toHaveLength(1);
    expect(files[0]).toMatch(/^compile-v\d+\.\d+\.\d+-[a-z0-9]+-[0-9a-f]{8}\/[0-9a-f]{16}\/release-batch\.bin$/);
    const file = join(dir, files[0]);
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(statSync(join(dir, files[0].split('/')[0])).mode & 0o777).toBe(0o700);
    const before = statSync(file);

    const second = await mcat(['-o', 'json', 'release', 'batch', id], { env: { ...env, MCAT_CACHE_DIR: dir } });
    expect(second.exitCode).toBe(0);
    expect(second.stdout).toBe(first.stdout);
    // every bundle the run loaded was in the cache and accepted by V8: nothing to write again
    const after = statSync(file);
    expect(after.ino).toBe(before.ino);
    expect(after.mtimeMs).toBe(before.mtimeMs);
  });

  it('a failed run and a help run write no cache for the command', async () => {
    const dir = fresh();
    expect((await mcat(['release', 'batch', '12x'], { env: { ...env, MCAT_CACHE_DIR: dir } })).exitCode).toBe(2);
    expect(cacheFiles(dir)).toEqual([]);
    expect((await mcat(['release', 'batch', '999999999', '-o', 'json'], { env: { ...env, MCAT_CACHE_DIR: dir } })).exitCode).toBe(3);
    expect(cacheFiles(dir)).toEqual([]);
    expect((await mcat(['release', 'batch', '--help'], { env: { ...env, MCAT_CACHE_DIR: dir } })).exitCode).toBe(0);
    expect(cacheFiles(dir).map((f) => f.split('/').pop())).toEqual(['help.bin']);
  });

  it('a broken cache file is ignored and replaced', async () => {
    const dir = fresh();
    const good = await mcat(['release', 'batch', id, '-o', 'json'], { env: { ...env, MCAT_CACHE_DIR: dir } });
    const file = join(dir, cacheFiles(dir)[0]);
    for (const garbage of [Buffer.from('not a cache'), Buffer.alloc(0), Buffer.concat([readFileSync(file).subarray(0, 200)])]) {
      writeFileSync(file, garbage);
      const r = await mcat(['release', 'batch', id, '-o', 'json'], { env: { ...env, MCAT_CACHE_DIR: dir } });
      expect(r.exitCode).toBe(0);
      expect(r.stderr).toBe('');
      expect(r.stdout).toBe(good.stdout);
      expect(statSync(file).size).toBeGreaterThan(10_000);
    }
  });

  it('a cache corrupted inside its data is refused before V8 sees it (V8 would abort), and rewritten', async () => {
    const dir = fresh();
    const good = await mcat(['release', 'batch', id, '-o', 'json'], { env: { ...env, MCAT_CACHE_DIR: dir } });
    const file = join(dir, cacheFiles(dir)[0]);
    const original = readFileSync(file);
    for (const at of [0.1, 0.5, 0.9]) {
      const bad = Buffer.from(original);
      const from = Math.floor(bad.length * at);
      for (let i = from; i < from + 64; i++) bad[i] ^= 0xa5;
      writeFileSync(file, bad);
      const r = await mcat(['release', 'batch', id, '-o', 'json'], { env: { ...env, MCAT_CACHE_DIR: dir } });
      expect(r.exitCode, r.stderr).toBe(0);
      expect(r.stderr).toBe('');
      expect(r.stdout).toBe(good.stdout);
      expect(readFileSync(file).equals(bad)).toBe(false);
    }
  });

  it('an unwritable cache location and MCAT_NO_COMPILE_CACHE change nothing but speed', async () => {
    const base = fresh();
    const notADir = join(base, 'file');
    writeFileSync(notADir, 'x');
    const r = await mcat(['release', 'batch', id, '-o', 'json'], { env: { ...env, MCAT_CACHE_DIR: notADir } });
    expect(r.exitCode).toBe(0);
    expect(r.stderr).toBe('');
    const dir = fresh();
    const off = await mcat(['release', 'batch', id, '-o', 'json'], { env: { ...env, MCAT_CACHE_DIR: dir, MCAT_NO_COMPILE_CACHE: '1' } });
    expect(off.exitCode).toBe(0);
    expect(off.stdout).toBe(r.stdout);
    expect(cacheFiles(dir)).toEqual([]);
  });

  it('writing drops the caches of other builds', async () => {
    const dir = fresh();
    await mcat(['release', 'batch', id, '-o', 'json'], { env: { ...env, MCAT_CACHE_DIR: dir } });
    const [versionDir, buildId] = cacheFiles(dir)[0].split('/');
    const stale = join(dir, versionDir, '0123456789abcdef');
    mkdirSync(stale);
    writeFileSync(join(stale, 'release-batch.bin'), 'old');
    await mcat(['artist', 'releases', String(sb.info.examples.artistWithManyReleases), '-o', 'json'], { env: { ...env, MCAT_CACHE_DIR: dir } });
    expect(cacheFiles(dir)).toEqual([`${versionDir}/${buildId}/artist-releases.bin`, `${versionDir}/${buildId}/release-batch.bin`]);
  });

  it('defaults to $XDG_CACHE_HOME/mcat, else ~/.cache/mcat', async () => {
    const home = fresh();
    await mcat(['release', 'batch', id, '-o', 'json'], { home, env: { ...env, MCAT_CACHE_DIR: undefined as unknown as string, XDG_CACHE_HOME: undefined as unknown as string } });
    expect(cacheFiles(join(home, '.cache/mcat'))).toHaveLength(1);
    const xdg = fresh();
    await mcat(['release', 'batch', id, '-o', 'json'], { home, env: { ...env, MCAT_CACHE_DIR: undefined as unknown as string, XDG_CACHE_HOME: xdg } });
    expect(cacheFiles(join(xdg, 'mcat'))).toHaveLength(1);
  });
});
