// End to end: the locker from the terminal, against a sandbox on 127.0.0.1.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { existsSync, mkdtempSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { tmpdir } from 'node:os';
import { XMLValidator, XMLParser } from 'fast-xml-parser';
import { startTestSandbox } from '../helpers/sandbox';
import { mcatIn as mcat } from '../helpers/mcat-in';
import { hostileEnv, hostilePerTest, jsonOf } from '../helpers/hostile-server';

type Sandbox = Awaited<ReturnType<typeof startTestSandbox>>;
let sb: Sandbox;
const run = (args: string[], opts: Parameters<typeof mcat>[1] = {}) => mcat(args, { sandboxDir: sb.dataDir, ...opts });

 
async function lockerAll(): Promise<any[]> {
  const r = await run(['locker', '--all', '-o', 'json']);
  expect(r.exitCode).toBe(0);
  return JSON.parse(r.stdout).locker.lockerReleases.lockerRelease;
}

beforeAll(async () => {
  sb = await startTestSandbox();
});
afterAll(async () => {
  await sb?.close();
});

describe('locker listing', () => {
  it('json is the API body; unavailable releases have no download fields', async () => {
    const releases = await lockerAll();
    expect(releases.length).toBeGreaterThan(1);
    const unavailable = releases.filter((r) => r.available === false);
    expect(unavailable.length).toBeGreaterThan(0);
    for (const r of unavailable) {
      expect(r.release.download).toBeUndefined();
      for (const t of r.lockerTracks.lockerTrack) {
        expect(t.remainingDownloads).toBeUndefined();
        expect(t.downloadUrls ?? null).toBeNull();
      }
    }
  });

  it('filters: --unavailable, --available, --no-downloads-left, --release, --track', async () => {
    const all = await lockerAll();
    const un = JSON.parse((await run(['locker', '--unavailable', '-o', 'json'])).stdout).locker.lockerReleases.lockerRelease;
    expect(un.length).toBe(all.filter((r) => r.available === false).length);
    const av = JSON.parse((await run(['locker', '--available', '-o', 'json'])).stdout).locker.lockerReleases.lockerRelease;
    expect(av.every((r: any) => r.available !== false)).toBe(true);
    const none = JSON.parse((await run(['locker', '--no-downloads-left', '-o', 'json'])).stdout).locker.lockerReleases.lockerRelease;
    expect(none.length).toBeGreaterThan(0);
    for (const r of none) for (const t of r.lockerTracks.lockerTrack) expect(t.remainingDownloads).toBe(0);
    const rel = all[0].release.id;
    const one = JSON.parse((await run(['locker', '--release', String(rel), '-o', 'json'])).stdout).locker.lockerReleases.lockerRelease;
    expect(one.map((r: any) => r.release.id)).toEqual([rel]);
    const trackId = all[0].lockerTracks.lockerTrack[0].track.id;
    const tr = JSON.parse((await run(['locker', '--track', String(trackId), '-o', 'json'])).stdout).locker.lockerReleases.lockerRelease;
    expect(tr).toHaveLength(1);
    expect(tr[0].lockerTracks.lockerTrack.map((t: any) => t.track.id)).toEqual([trackId]);
  });

  it('--purchased-since keeps later purchases only; a bad date is a usage error', async () => {
    const r = await run(['locker', '--purchased-since', '2999-01-01', '-o', 'json']);
    expect(r.exitCode).toBe(0);
    expect(JSON.parse(r.stdout).locker.lockerReleases.lockerRelease).toEqual([]);
    const bad = await run(['locker', '--purchased-since', 'yesterday']);
    expect(bad.exitCode).toBe(2);
    expect(bad.stderr).toMatch(/--purchased-since/);
  });

  it('--page with filters: that page of the service, filtered; totalItems is the service\'s, with or without --limit', async () => {
    const page1 = JSON.parse((await run(['locker', '--page', '1', '-o', 'json'])).stdout).locker.lockerReleases;
    const un = await run(['locker', '--unavailable', '--page', '1', '-o', 'json']);
    expect(un.exitCode, un.stderr).toBe(0);
    const got = JSON.parse(un.stdout).locker.lockerReleases;
    expect(got.lockerRelease.map((r: any) => r.release.id)).toEqual(page1.lockerRelease.filter((r: any) => r.available === false).map((r: any) => r.release.id));
    expect(got.lockerRelease.length).toBeLessThan(page1.lockerRelease.length);
    const csv = await run(['locker', '--available', '--page', '1', '-o', 'csv', '--fields', 'available']);
    expect(csv.stdout.trim().split('\r\n').slice(1)).toEqual(page1.lockerRelease.filter((r: any) => r.available !== false).map(() => 'true'));
    for (const args of [['--unavailable'], ['--unavailable', '--limit', '1'], ['--available', '--all']]) {
      const r = await run(['locker', ...args, '-o', 'json']);
      expect(r.exitCode, r.stderr).toBe(0);
      const l = JSON.parse(r.stdout).locker.lockerReleases;
      expect(l.totalItems, args.join(' ')).toBe(page1.totalItems);
      expect(l.pageSize).toBe(l.lockerRelease.length);
    }
  });

  it('--sort artistName:asc sorts by artist', async () => {
    const r = await run(['locker', '--all', '--sort', 'artistName:asc', '-o', 'ndjson']);
    expect(r.exitCode).toBe(0);
    const names = r.stdout.trim().split('\n').map((l) => JSON.parse(l).release.artist.name as string);
    const sorted = [...names].sort((a, b) => a.localeCompare(b));
    expect(names.map((n) => n.toLowerCase())).toEqual(sorted.map((n) => n.toLowerCase()));
    const bad = await run(['locker', '--sort', 'price']);
    expect(bad.exitCode).toBe(2);
  });

  it('the table through a pipe has markers, a summary, and no colour codes', async () => {
    const r = await run(['locker', '--all', '-o', 'table']);
    expect(r.exitCode).toBe(0);
    expect(r.stdout).not.toMatch(/\u001b\[/);
    expect(r.stdout).toMatch(/✗/);
    expect(r.stdout).toMatch(/UNAVAILABLE/);
    expect(r.stdout).toMatch(/0 left/);
    expect(r.stdout).toMatch(/\d+ releases?, \d+ tracks?, \d+ unavailable, \d+ with no downloads left/);
  });

  it('a release row says artist, title, type, purchase date, tracks and availability (120 columns)', async () => {
    const all = await lockerAll();
    const r = await run(['locker', '--all', '-o', 'table'], { env: { COLUMNS: '120' } });
    expect(r.exitCode, r.stderr).toBe(0);
    const lines = r.stdout.split('\n');
    expect(lines[1]).toMatch(/^\s+ID\s+Title\s+Artist\s+Type\s+Tracks\s+Time\s+Purchased\s+Status\b/);
    for (const lr of all) {
      const row = lines.find((l) => l.trim().split(/\s+/)[0] === String(lr.release.id) || l.trim().split(/\s+/)[1] === String(lr.release.id));
      expect(row, `release ${lr.release.id}`).toBeDefined();
      const n = lr.lockerTracks.lockerTrack.length;
      expect(row).toContain(lr.release.type);
      expect(row).toMatch(new RegExp(`\\b${lr.release.type}\\s+${n}\\s`));
      expect(row).toMatch(lr.available === false ? /UNAVAILABLE/ : /available/);
    }
  });

  it('the table in colour with FORCE_COLOR', async () => {
    const r = await run(['locker', '--all', '-o', 'table'], { env: { FORCE_COLOR: '1' } });
    expect(r.exitCode).toBe(0);
    expect(r.stdout).toMatch(/\u001b\[/);
    const plain = await run(['locker', '--all', '-o', 'table', '--no-color'], { env: { FORCE_COLOR: '1' } });
    expect(plain.stdout).not.toMatch(/\u001b\[/);
    expect(plain.stdout).toMatch(/✗/);
  });

  it('-o xml is the API XML: root response with status and version, ids as attributes, discNumber', async () => {
    const r = await run(['locker', '-o', 'xml']);
    expect(r.exitCode).toBe(0);
    expect(XMLValidator.validate(r.stdout)).toBe(true);
    const doc = new XMLParser({ ignoreAttributes: false, attributeNamePrefix: '@' }).parse(r.stdout);
    expect(doc.response['@status']).toBe('ok');
    expect(doc.response['@version']).toBe('1.2');
    const lr = [doc.response.locker.lockerReleases.lockerRelease].flat()[0];
    expect(lr.release['@id']).toMatch(/^\d+$/);
    const lt = [lr.lockerTracks.lockerTrack].flat()[0];
    expect(lt.track['@id']).toMatch(/^\d+$/);
    expect(lt.track.discNumber).toBeDefined();
    expect(lt.track.disc).toBeUndefined();
  });

  it('-o xml --all merges pages into one document', async () => {
    const all = await lockerAll();
    const r = await run(['locker', '-o', 'xml', '--all', '--page-size', '2']);
    expect(r.exitCode).toBe(0);
    expect(XMLValidator.validate(r.stdout)).toBe(true);
    expect((r.stdout.match(/<lockerRelease>/g) ?? []).length).toBe(all.length);
  });

  it('reads a user token from stdin (--user-token-from-stdin)', async () => {
    const big = sb.info.users.find((u) => u.userId === sb.info.examples.bigLockerUser)!;
    const r = await run(['locker', '--user-token-from-stdin', '--page-size', '3', '-o', 'json'], {
      input: `${big.token}\n${big.tokenSecret}\n`,
    });
    expect(r.exitCode).toBe(0);
    expect(JSON.parse(r.stdout).locker.lockerReleases.totalItems).toBeGreaterThanOrEqual(20000);
    expect(r.stderr).not.toContain(big.tokenSecret);
  });
});

describe('locker download and stream-check', () => {
  function pickTrack(releases: any[], pred: (t: any, r: any) => boolean): any {
    for (const r of releases) for (const t of r.lockerTracks.lockerTrack) if (pred(t, r)) return t;
    return undefined;
  }

  it('downloads a track to a file and decrements remainingDownloads by one', async () => {
    const releases = await lockerAll();
    const t = pickTrack(releases, (t, r) => r.available !== false && t.remainingDownloads > 1);
    const dir = mkdtempSync(join(tmpdir(), 'mcat-dl-'));
    const file = join(dir, 'song.mp3');
    const r = await run(['locker', 'download', String(t.track.id), '-O', file]);
    expect(r.exitCode).toBe(0);
    expect(readFileSync(file).length).toBeGreaterThan(0);
    const after = pickTrack(await lockerAll(), (x) => x.track.id === t.track.id);
    expect(after.remainingDownloads).toBe(t.remainingDownloads - 1);
  });

  it('saves to a name of 255 bytes (the most a file system takes): its temporary file beside it fits too', async () => {
    const releases = await lockerAll();
    const t = pickTrack(releases, (t, r) => r.available !== false && t.remainingDownloads > 1);
    const dir = mkdtempSync(join(tmpdir(), 'mcat-dl-'));
    const name = '音'.repeat(81) + '.mp3'; // 247 bytes of UTF-8 in 85 characters
    const r = await run(['locker', 'download', String(t.track.id), '-O', join(dir, name)]);
    expect(r.exitCode, r.stderr).toBe(0);
    expect(readdirSync(dir)).toEqual([name]);
  });

  it('stream-check never decrements', async () => {
    const releases = await lockerAll();
    const t = pickTrack(releases, (t, r) => r.available !== false && t.remainingDownloads > 0);
    const r = await run(['locker', 'stream-check', String(t.track.id), '-o', 'json']);
    expect(r.exitCode).toBe(0);
    expect(JSON.parse(r.stdout).streamable).toBe(true);
    const after = pickTrack(await lockerAll(), (x) => x.track.id === t.track.id);
    expect(after.remainingDownloads).toBe(t.remainingDownloads);
    // the table: a sheet that says whose track it is, no line wider than the terminal
    const table = await run(['locker', 'stream-check', String(t.track.id), '-o', 'table'], { env: { COLUMNS: '40' } });
    expect(table.exitCode, table.stderr).toBe(0);
    expect(table.stdout).toMatch(/^Locker of +user 10001 · sandbox$/m);
    for (const line of table.stdout.split('\n')) expect(line.length, line).toBeLessThanOrEqual(40);
    const xml = await run(['locker', 'stream-check', String(t.track.id), '-o', 'xml']);
    expect(xml.stdout).toContain('<response status="ok" version="1.2">');
    expect(xml.stdout).toContain('<status>200</status>');
  });

  it('no downloads left: a clear message, exit 1, no file written', async () => {
    const t = pickTrack(await lockerAll(), (t, r) => r.available !== false && t.remainingDownloads === 0);
    const dir = mkdtempSync(join(tmpdir(), 'mcat-dl-'));
    const r = await run(['locker', 'download', String(t.track.id), '-O', join(dir, 'x.mp3')]);
    expect(r.exitCode).toBe(1);
    expect(r.stderr).toMatch(/no downloads left/);
    expect(readdirSync(dir)).toEqual([]);
  });

  it('an unavailable release: a clear message, exit 1, no file written', async () => {
    const t = pickTrack(await lockerAll(), (_t, r) => r.available === false);
    const dir = mkdtempSync(join(tmpdir(), 'mcat-dl-'));
    const r = await run(['locker', 'download', String(t.track.id), '-O', join(dir, 'x.mp3')]);
    expect(r.exitCode).toBe(1);
    expect(r.stderr).toMatch(/no longer available/);
    expect(existsSync(join(dir, 'x.mp3'))).toBe(false);
    expect(readdirSync(dir)).toEqual([]);
    const sc = await run(['locker', 'stream-check', String(t.track.id)]);
    expect(sc.exitCode).toBe(1);
  });
});

describe('the built-in sandbox started for each run (no server running): downloads the runs share', () => {
  it('check says since when there are no downloads left after the last one was used in an earlier run (each run has another port)', async () => {
    const home = mkdtempSync(join(tmpdir(), 'mcat-home-'));
    const own = { sandboxDir: join(home, 'sandbox'), home, env: { TZ: 'UTC' } };
    const releases = JSON.parse((await mcat(['locker', '--all', '-o', 'json'], own)).stdout).locker.lockerReleases.lockerRelease;
    const t = releases.flatMap((r: any) => (r.available === false ? [] : r.lockerTracks.lockerTrack)).find((x: any) => x.remainingDownloads === 3);
    const ports = new Set<string>();
    for (let n = 0; n < 3; n++) {
      const r = await mcat(['locker', 'download', String(t.track.id), '-O', join(home, `dl-${n}.mp3`)], own);
      expect(r.exitCode, r.stderr).toBe(0);
      ports.add(/127\.0\.0\.1:(\d+)/.exec(r.stderr)![1]);
    }
    expect(ports.size, 'each run started a sandbox of its own').toBeGreaterThan(1);
    const r = await mcat(['locker', 'check', String(t.track.id), '-o', 'json'], own);
    expect(r.exitCode).toBe(3);
    const today = new Date().toISOString().slice(0, 10);
    expect(JSON.parse(r.stdout).noDownloadsLeftSince).toMatch(new RegExp(`^${today}T`));
  });
});

describe('locker find: the count on stderr', () => {
  it('agrees with its number: 1 release … matches, 2 releases … match', async () => {
    const one = await run(['locker', 'find', 'GB-55T-22-00101', '-o', 'json']);
    expect(one.exitCode, one.stderr).toBe(0);
    expect(one.stderr).toMatch(/^mcat: 1 release in user 10001's locker matches "GB-55T-22-00101" \(\d+ searched\)$/m);
    const more = await run(['locker', 'find', 'summer', '-o', 'json']);
    expect(more.stderr).toMatch(/^mcat: [2-9]\d* releases in user 10001's locker match "summer" \(\d+ searched\)$/m);
  });
});

describe('a track bought twice (two locker entries, as the real service lists them)', () => {
  const hostile = hostilePerTest();
  const entry = (purchaseId: number, remainingDownloads: number) => ({
    release: { id: 188863, title: 'AdvertisePrice', artist: { id: 304, name: 'AdvertisePricingTests' } },
    available: true,
    lockerTracks: {
      lockerTrack: [
        {
          track: { id: 2052636, title: 'Item 0' },
          remainingDownloads,
          purchaseId,
          purchaseDate: '2011-04-13T16:30:35+01:00',
          downloadUrls: { downloadUrl: [{ url: 'http://media.example/x', format: { id: 45, description: 'FLAC' } }] },
        },
      ],
    },
  });
  const locker = (entries: unknown[]) => ({ status: 'ok', version: '1.2', locker: { lockerReleases: { page: 1, pageSize: 50, totalItems: entries.length, lockerRelease: entries } } });

  it('check and download take the entry with downloads left, wherever it is; none left in either: no', async () => {
    const s = await hostile();
    s.on('/1.2/user/locker', jsonOf(() => locker([entry(1, 0), entry(2, 3)])));
    const c = await mcat(['locker', 'check', '2052636', '-o', 'json'], { env: hostileEnv(s) });
    expect(c.exitCode, c.stderr).toBe(0);
    expect(JSON.parse(c.stdout)).toMatchObject({ canDownload: true, remainingDownloads: 3 });
    const d = await mcat(['locker', 'download', '2052636', '--dry-run', '-O', join(mkdtempSync(join(tmpdir(), 'mcat-dup-')), 'x.flac')], { env: hostileEnv(s) });
    expect(d.exitCode, d.stderr).toBe(0);
    expect(d.stderr).toMatch(/3 downloads left now, 2 after/);
    s.on('/1.2/user/locker', jsonOf(() => locker([entry(1, 0), entry(2, 0)])));
    const none = await mcat(['locker', 'check', '2052636', '-o', 'json'], { env: hostileEnv(s) });
    expect(none.exitCode).toBe(3);
    expect(JSON.parse(none.stdout)).toMatchObject({ canDownload: false, remainingDownloads: 0 });
  });
});
