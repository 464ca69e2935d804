// Hostile network: every kind of command against a sandbox injecting faults either succeeds or
// fails with the right one-line error and exit code — bounded in time, no partial file, no
// half-applied change.
import { existsSync, mkdtempSync, readdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { mcat } from '../helpers/mcat';
import { sandboxPerTest, sandboxProfileEnv, type startTestSandbox } from '../helpers/sandbox';

type Sandbox = Awaited<ReturnType<typeof startTestSandbox>>;
const perTest = sandboxPerTest();
const sandbox = (faults: string) => perTest({ faults });

const run = (sb: Sandbox, args: string[], timeout = 40_000) => mcat(args, { sandboxDir: sb.dataDir, timeout });

function oneLineError(stderr: string): string[] {
  const lines = stderr.split('\n').filter((l) => l && !l.startsWith('mcat: using the built-in sandbox'));
  expect(lines.length).toBeGreaterThanOrEqual(1);
  expect(lines.length).toBeLessThanOrEqual(2);
  expect(lines[0]).toMatch(/^mcat: /);
  if (lines[1]) expect(lines[1]).toMatch(/^hint: /);
  expect(stderr).not.toMatch(/\n\s+at /);
  return lines;
}

/** Reads that must come through every transient fault given enough retries. */
const READS = (sb: Sandbox) => [
  ['release', 'batch', ...sb.info.examples.releaseIds.map(String), '-o', 'json'],
  ['artist', 'releases', String(sb.info.examples.artistWithManyReleases), '--all', '-o', 'json'],
  ['release', 'tracks', String(sb.info.examples.releaseIds[0]), '-o', 'json'],
  ['track', 'metadata', String(sb.info.examples.trackIds[0]), '-o', 'json'],
  ['locker', '--all', '-o', 'json'],
  ['playlist', 'list', '-o', 'json'],
  ['playlist', 'show', sb.info.examples.playlistIds[0], '-o', 'json'],
];

describe('transient faults are retried away', () => {
  it('latency, 5xx, 429 with Retry-After and resets: every read succeeds with valid JSON', async () => {
    const sb = await sandbox('latency=20ms,error=0.15,429=0.1,retryafter=1,reset=0.05');
    for (const args of READS(sb)) {
      const r = await run(sb, ['--retries', '8', ...args]);
      expect(r.exitCode, `${args.join(' ')}: ${r.stderr}`).toBe(0);
      expect(() => JSON.parse(r.stdout)).not.toThrow();
    }
  }, 120_000);

  it('a replace, a details update and a group add survive resets before and after commit, applied once', async () => {
    const sb = await sandbox('reset=0.3,error=0.1');
    const [p1, p2] = sb.info.examples.playlistIds;
    const dir = mkdtempSync(join(tmpdir(), 'mcat-faults-'));
    const file = join(dir, 'tracks.ndjson');
    const tracks = sb.info.examples.trackIds.slice(0, 3);
    await import('node:fs').then((fs) => fs.writeFileSync(file, tracks.map((t) => JSON.stringify({ trackId: String(t) })).join('\n') + '\n'));
    const rep = await run(sb, ['--retries', '10', 'playlist', 'replace', p1, '--from', file, '--name', 'Faulty but fine', '-o', 'json']);
    expect(rep.exitCode, rep.stderr).toBe(0);
    const det = await run(sb, ['--retries', '10', 'playlist', 'details', p2, '--description', 'set under faults', '-o', 'json']);
    expect(det.exitCode, det.stderr).toBe(0);
    const add = await run(sb, ['--retries', '10', 'group', 'add', sb.info.examples.groupId, '--playlist', p1, '--playlist', p2, '-o', 'json']);
    expect(add.exitCode, add.stderr).toBe(0);

    // read back with no faults in the way: a second server on the same data dir
    const { startSandbox } = await import('../../src/sandbox/index');
    const plain = await startSandbox({ dataDir: sb.dataDir, host: '127.0.0.1', port: 0, quiet: true });
    try {
      const env = { env: sandboxProfileEnv(sb, plain.baseUrl) };
      const shown = JSON.parse((await mcat(['playlist', 'show', p1, '-o', 'json'], env)).stdout).playlist;
      expect(shown.name).toBe('Faulty but fine');
      expect(shown.tracks.map((t: { trackId: string }) => String(t.trackId))).toEqual(tracks.map(String));
      const shown2 = JSON.parse((await mcat(['playlist', 'show', p2, '-o', 'json'], env)).stdout).playlist;
      expect(shown2.description).toBe('set under faults');
      const group = JSON.parse((await mcat(['group', 'show', sb.info.examples.groupId, '-o', 'json'], env)).stdout).playlistGroup;
      const ids = group.playlists.map((p: { id: string }) => p.id);
      expect(ids.filter((i: string) => i === p1)).toHaveLength(1);
      expect(ids.filter((i: string) => i === p2)).toHaveLength(1);
    } finally {
      await plain.close();
    }
  }, 120_000);
});

describe('faults that do not go away fail cleanly', () => {
  it('a server that always fails: exit 1, one line, empty stdout, within bounds', async () => {
    const sb = await sandbox('error=1');
    const t0 = Date.now();
    const r = await run(sb, ['--retries', '2', 'release', 'batch', String(sb.info.examples.releaseIds[0]), '-o', 'json']);
    expect(r.exitCode).toBe(1);
    expect(r.stdout).toBe('');
    const [line] = oneLineError(r.stderr);
    expect(line).toMatch(/HTTP 50\d/);
    expect(Date.now() - t0).toBeLessThan(20_000);
  });

  it('a Retry-After longer than the cap: a clear message at once, not a long silent wait', async () => {
    const sb = await sandbox('429=1,retryafter=600');
    const t0 = Date.now();
    const r = await run(sb, ['release', 'batch', String(sb.info.examples.releaseIds[0]), '-o', 'json']);
    expect(r.exitCode).toBe(1);
    expect(r.stdout).toBe('');
    const [line] = oneLineError(r.stderr);
    expect(line).toMatch(/600 ?s/);
    expect(line).toMatch(/HTTP 429/);
    expect(Date.now() - t0).toBeLessThan(10_000);
  });

  it('truncated bodies: exit 1 with an unreadable-response error, stdout empty', async () => {
    const sb = await sandbox('truncate=1');
    const r = await run(sb, ['--retries', '1', 'locker', '-o', 'json']);
    expect(r.exitCode).toBe(1);
    expect(r.stdout).toBe('');
    oneLineError(r.stderr);
  });

  it('slow bodies past --timeout: exit 1 with a timeout message', async () => {
    const sb = await sandbox('slow=1');
    const t0 = Date.now();
    const r = await run(sb, ['--timeout', '300', '--retries', '0', 'artist', 'releases', String(sb.info.examples.artistWithManyReleases), '--page-size', '50', '-o', 'json']);
    expect(r.exitCode).toBe(1);
    expect(r.stdout).toBe('');
    const [line] = oneLineError(r.stderr);
    expect(line).toMatch(/did not (complete|answer) within 300 ms/);
    expect(Date.now() - t0).toBeLessThan(15_000);
  });

  it('a download cut off mid-body leaves no file, partial or whole', async () => {
    const sb = await sandbox('truncate=1');
    const dir = mkdtempSync(join(tmpdir(), 'mcat-dl-'));
    const target = join(dir, 'song.mp3');
    const track = String(sb.info.examples.trackIds[0]);
    const r = await run(sb, ['--retries', '0', 'locker', 'download', track, '-O', target]);
    expect(r.exitCode).not.toBe(0);
    oneLineError(r.stderr);
    expect(existsSync(target)).toBe(false);
    expect(readdirSync(dir)).toEqual([]);
  });

  it('a connection reset on every request: exit 1 naming the network, nothing half-applied', async () => {
    const sb = await sandbox('reset=1');
    const r = await run(sb, ['--retries', '1', 'playlist', 'details', sb.info.examples.playlistIds[0], '--name', 'never', '-o', 'json']);
    expect(r.exitCode).toBe(1);
    expect(r.stdout).toBe('');
    oneLineError(r.stderr);
  });
});
