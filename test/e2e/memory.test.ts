// The memory of a walk against a server whose pages are each tens of megabytes (near the body cap,
// a hostile server's): pages fetched ahead are bounded by bytes as well as by count
// (paginate's aheadBytes), so the built CLI's peak RSS stays near what one such page costs, not
// the read-ahead window times it. The peak is read by GNU time (skipped without it).
import { execa } from 'execa';
import { existsSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { binPath, cliNode, mcatEnv } from '../helpers/mcat';
import { hostileEnv, hostilePerTest, type Behaviour } from '../helpers/hostile-server';

const hostile = hostilePerTest();
const TIME = '/usr/bin/time';

/** Locker pages of ~`mb` MB each (50 releases with long titles), `pages` of them. */
function bigLockerPages(mb: number, pages: number): Behaviour {
  const title = 'x'.repeat(Math.floor((mb * 1e6) / 50));
  return (_req, res, url) => {
    const page = Number(url.searchParams.get('page') ?? 1);
    const releases = Array.from({ length: 50 }, (_, i) => {
      const id = page * 1000 + i;
      return `{"release":{"id":${id},"title":"${title}","artist":{"id":1,"name":"A"}},"available":true,"lockerTracks":{"lockerTrack":[{"track":{"id":${id},"title":"t","artist":{"id":1,"name":"A"}},"remainingDownloads":3,"downloadUrls":{"downloadUrl":[]}}]}}`;
    });
    const body = Buffer.from(
      `{"status":"ok","version":"1.2","locker":{"lockerReleases":{"page":${page},"pageSize":50,"totalItems":${pages * 50},"lockerRelease":[${releases.join(',')}]}}}`,
    );
    res.writeHead(200, { 'content-type': 'application/json', 'content-length': String(body.length) }).end(body);
  };
}

/** Runs the built CLI under GNU time: its output and its peak RSS, MB. */
async function peakOf(args: string[], env: Record<string, string>): Promise<{ exitCode: number; lines: number; stderr: string; peakMb: number }> {
  const child = execa(TIME, ['-f', 'peak %M', cliNode, binPath, ...args], {
    reject: false,
    env: mcatEnv({ env }) as Record<string, string>,
    extendEnv: true,
    stdin: 'ignore',
    timeout: 120_000,
    buffer: { stdout: false, stderr: true },
  });
  // the lines counted as they come (hundreds of MB: not kept)
  let lines = 0;
  child.stdout!.on('data', (d: Buffer) => {
    for (let i = d.indexOf(10); i >= 0; i = d.indexOf(10, i + 1)) lines++;
  });
  const r = await child;
  const err = String(r.stderr ?? '');
  const m = /peak (\d+)\s*$/.exec(err);
  expect(m, err).not.toBeNull();
  return { exitCode: r.exitCode ?? -1, lines, stderr: err.replace(/peak \d+\s*$/, ''), peakMb: Number(m![1]) / 1024 };
}

describe.runIf(existsSync(TIME))('a walk of pages near the body cap', () => {
  // 40 MB pages, 10 of them, read by a worker thread: fetched ahead by count alone (8 pages), the
  // peak was 770-840 MB; with the bytes fetched ahead bounded (one such page at a time), 490-510 MB
  // (one such page costs most of that: its bytes, its text, its objects and its NDJSON)
  it('locker --all -o ndjson completes with every release, its peak RSS under 640 MB', async () => {
    const s = await hostile();
    s.on('/1.2/user/locker', bigLockerPages(40, 10));
    const r = await peakOf(['locker', '--all', '-o', 'ndjson'], hostileEnv(s, { MCAT_LOCKER_THREADS: '1', MCAT_LOCKER_THREAD_PAGES: '1' }));
    expect(r.exitCode, r.stderr).toBe(0);
    expect(r.lines).toBe(500);
    expect(s.count('/1.2/user/locker')).toBe(10);
    expect(r.peakMb).toBeLessThan(640);
  }, 180_000);
});
