// State in SQLite: two processes on one data dir lose no update; restarts keep state; reset;
// info and discovery of a running server; the sandbox command's own behaviour.
import { afterAll, describe, expect, it } from 'vitest';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { findRunningSandbox, getSandboxInfo, resetSandbox, startSandbox, defaultSandboxDir } from '../../src/sandbox/index';
import { call, urlOf, type Creds } from './signer';
import { runCli, startProcess } from './processes';

const dirs: string[] = [];
const freshDir = () => {
  const d = mkdtempSync(join(tmpdir(), 'mcat-state-'));
  dirs.push(d);
  return d;
};
afterAll(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

type Info = Awaited<ReturnType<typeof getSandboxInfo>>;
function lockerCreds(info: Info): Creds {
  const c = info.consumers.find((x) => x.countries.length > 1)!;
  const u = info.users.find((x) => x.userId === info.examples.lockerUser)!;
  return { consumerKey: c.key, consumerSecret: c.secret, token: u.token, tokenSecret: u.tokenSecret };
}

async function pool<T>(n: number, items: T[], fn: (t: T) => Promise<void>): Promise<void> {
  let i = 0;
  await Promise.all(Array.from({ length: n }, async () => {
    while (i < items.length) await fn(items[i++]);
  }));
}

describe('two processes on one data dir', () => {
  it('each applying 200 playlist changes at once: all 400 end up applied; download counts shared', async () => {
    const dir = freshDir();
    const info = await getSandboxInfo(dir);
    const creds = lockerCreds(info);
    const [a, b] = await Promise.all([startProcess(dir), startProcess(dir)]);
    try {
      expect(a.baseUrl).not.toBe(b.baseUrl);
      const gid = info.examples.groupId;
      const q = { country: 'GB', userId: info.examples.lockerUser };
      // 200 changes per process: 150 group adds (read-modify-write of one list) and 50 playlist creates
      const work = (base: string, tag: string) =>
        Array.from({ length: 200 }, (_, i) => async () => {
          if (i % 4 === 3) {
            const r = await call('POST', urlOf(base, '/1.2/playlists', { country: 'GB' }), { creds, json: { name: `${tag}-${i}` } });
            expect(r.status).toBe(201);
          } else {
            const id = (tag === 'a' ? 'a' : 'b') + String(i).padStart(23, '0');
            const r = await call('POST', urlOf(base, `/1.2/user/playlists/groups/${gid}`, q), { creds, form: [['playlistIds', id]] });
            expect(r.status).toBe(200);
          }
        });
      const jobs = [...work(a.baseUrl, 'a'), ...work(b.baseUrl, 'b')];
      // interleave the two processes' changes
      const mixed = jobs.map((_, i) => jobs[i % 2 === 0 ? i / 2 : 200 + (i - 1) / 2]);
      await pool(32, mixed, (f) => f());
      const g = await call('GET', urlOf(a.baseUrl, `/1.2/user/playlists/groups/${gid}`, q), { creds });
      const ids: string[] = g.body.playlistGroup.playlists.map((p: { id: string }) => p.id);
      expect(ids.filter((x) => /^[ab]0/.test(x)).length).toBe(300);
      const list = await call('GET', urlOf(b.baseUrl, '/1.2/user/playlists', { country: 'GB', pageSize: 500 }), { creds });
      const names: string[] = list.body.playlists.playlist.map((p: { name: string }) => p.name);
      expect(names.filter((n) => /^[ab]-\d+$/.test(n)).length).toBe(100);
      expect(ids.length + names.length - 2 - 3).toBeGreaterThanOrEqual(400);

      // downloads of one track through both processes at once never exceed what the track allows
      const locker = await call('GET', urlOf(a.baseUrl, '/1.2/user/locker', { country: 'GB', pageSize: 50 }), { creds });
      const t = locker.body.locker.lockerReleases.lockerRelease
        .filter((r: { available: boolean }) => r.available)
        .flatMap((r: { lockerTracks: { lockerTrack: { remainingDownloads: number; track: { id: number } }[] } }) => r.lockerTracks.lockerTrack)
        .find((x: { remainingDownloads: number }) => x.remainingDownloads >= 3);
      const res = await Promise.all(
        Array.from({ length: t.remainingDownloads + 6 }, (_, i) => call('GET', `${i % 2 ? a.baseUrl : b.baseUrl}/media/download/${t.track.id}`, { creds })),
      );
      expect(res.filter((r) => r.status === 200).length).toBe(t.remainingDownloads);
    } finally {
      expect(await a.stop('SIGTERM')).toBe(0);
      expect(await b.stop('SIGINT')).toBe(0);
    }
    expect(a.stderr()).toMatch(/consumer key/);
    expect(a.stderr()).toMatch(/token/);
  }, 60_000);
});

describe('restart, reset, info', () => {
  it('first use of a fresh data dir is fast; a restart keeps playlists, groups and counters and answers at once', async () => {
    const dir = freshDir();
    let t0 = Date.now();
    const sb = await startSandbox({ dataDir: dir, port: 0 });
    const creds = lockerCreds(sb.info);
    const r0 = await call('GET', urlOf(sb.baseUrl, '/1.2/user/locker', { country: 'GB' }), { creds });
    expect(r0.status).toBe(200);
    const firstUse = Date.now() - t0;
    expect(firstUse).toBeLessThan(5000);
    const created = await call('POST', urlOf(sb.baseUrl, '/1.2/playlists', { country: 'GB' }), { creds, json: { name: 'kept', visibility: 'public' } });
    const gid = 'e5'.repeat(12);
    await call('PUT', urlOf(sb.baseUrl, `/1.2/user/playlists/groups/${gid}`, { country: 'GB', userId: sb.info.examples.lockerUser }), { creds, form: [['name', 'kept group'], ['playlistIds', created.body.playlist.id]] });
    const track = sb.info.examples.trackIds[0];
    const lockerTrack = async (base: string) => {
      const l = await call('GET', urlOf(base, '/1.2/user/locker', { country: 'GB', pageSize: 50 }), { creds });
      return l.body.locker.lockerReleases.lockerRelease.flatMap((r: { lockerTracks: { lockerTrack: unknown[] } }) => r.lockerTracks.lockerTrack)[0] as { track: { id: number }; remainingDownloads: number };
    };
    const before = await lockerTrack(sb.baseUrl);
    expect((await call('GET', `${sb.baseUrl}/media/download/${before.track.id}`, { creds })).status).toBe(200);
    await sb.close();
    expect(existsSync(join(dir, 'server.json'))).toBe(false);

    t0 = Date.now();
    const again = await startSandbox({ dataDir: dir, port: 0 });
    const first = await call('GET', urlOf(again.baseUrl, `/1.2/playlists/${created.body.playlist.id}`, { country: 'GB' }), { creds });
    const restartMs = Date.now() - t0;
    expect(restartMs).toBeLessThan(100 * 3); // 100 ms target; slack for a loaded test machine
    expect(first.body.playlist).toMatchObject({ name: 'kept', visibility: 'Public' });
    const g = await call('GET', urlOf(again.baseUrl, `/1.2/user/playlists/groups/${gid}`, { country: 'GB', userId: again.info.examples.lockerUser }), { creds });
    expect(g.body.playlistGroup.name).toBe('kept group');
    expect((await lockerTrack(again.baseUrl)).remainingDownloads).toBe(before.remainingDownloads - 1);
    expect(again.info.consumers).toEqual(sb.info.consumers);
    void track;

    // reset (while running): back to the demo state
    await resetSandbox(dir);
    expect((await call('GET', urlOf(again.baseUrl, `/1.2/playlists/${created.body.playlist.id}`, { country: 'GB' }), { creds })).status).toBe(404);
    expect((await lockerTrack(again.baseUrl)).remainingDownloads).toBe(before.remainingDownloads);
    const seeded = await call('GET', urlOf(again.baseUrl, '/1.2/user/playlists', { country: 'GB' }), { creds });
    expect(seeded.body.playlists.playlist.map((p: { id: string }) => p.id)).toEqual(again.info.examples.playlistIds);
    await again.close();
  });

  it('info names a running server; findRunningSandbox checks health; server.json removed on close', async () => {
    const dir = freshDir();
    expect(await findRunningSandbox(dir)).toBeUndefined();
    const idle = await getSandboxInfo(dir);
    expect(idle.baseUrl).toBeUndefined();
    expect(idle.dataDir).toBe(dir);
    const sb = await startSandbox({ dataDir: dir, port: 0 });
    expect(await findRunningSandbox(dir)).toBe(sb.baseUrl);
    const live = await getSandboxInfo(dir);
    expect(live.baseUrl).toBe(sb.baseUrl);
    expect(live.examples).toEqual(idle.examples);
    await sb.close();
    expect(await findRunningSandbox(dir)).toBeUndefined();
    // a sandbox that does not advertise itself is not found
    const hidden = await startSandbox({ dataDir: dir, port: 0, advertise: false });
    expect(await findRunningSandbox(dir)).toBeUndefined();
    await hidden.close();
    // a stale file pointing at nothing
    writeFileSync(join(dir, 'server.json'), JSON.stringify({ baseUrl: 'http://127.0.0.1:9', pid: 1 }));
    const t0 = Date.now();
    expect(await findRunningSandbox(dir)).toBeUndefined();
    expect(Date.now() - t0).toBeLessThan(1000);
  });

  it("info of a running server comes from its server.json (its seed), without opening the store: a CLI under another Node can use it", async () => {
    const dir = freshDir();
    const sb = await startSandbox({ dataDir: dir, port: 0, seed: 7 });
    try {
      const file = join(dir, 'server.json');
      const advertised = JSON.parse(readFileSync(file, 'utf8'));
      expect(advertised).toMatchObject({ baseUrl: sb.baseUrl, seed: 7 });
      // the store is not read: a seed in server.json that differs from the store's is the one used
      writeFileSync(file, JSON.stringify({ ...advertised, seed: 8 }));
      const viaFile = await getSandboxInfo(dir);
      expect(viaFile.baseUrl).toBe(sb.baseUrl);
      expect(viaFile.seed).toBe(8);
      // an older server.json without a seed: the store says it
      writeFileSync(file, JSON.stringify({ baseUrl: sb.baseUrl, pid: advertised.pid }));
      expect((await getSandboxInfo(dir)).seed).toBe(7);
    } finally {
      await sb.close();
    }
  });

  it('examples are what the spec asks for, deterministic per seed', async () => {
    const a = await getSandboxInfo(freshDir());
    const b = await getSandboxInfo(freshDir());
    expect(a.consumers).toEqual(b.consumers);
    expect(a.examples).toEqual(b.examples);
    const ex = a.examples;
    expect(a.consumers.some((c) => c.countries.length > 1)).toBe(true);
    expect(a.consumers.some((c) => c.countries.length === 1)).toBe(true);
    expect(ex.releaseIds.length).toBeGreaterThanOrEqual(3);
    expect(ex.trackIds.length).toBeGreaterThanOrEqual(5);
    expect(ex.playlistIds.length).toBeGreaterThanOrEqual(2);
    for (const id of [...ex.playlistIds, ex.groupId]) expect(id).toMatch(/^[0-9a-f]{24}$/);
    for (const u of [ex.lockerUser, ex.bigLockerUser, ex.emptyUser]) expect(a.users.map((x) => x.userId)).toContain(u);
    const seeded = await startSandbox({ dataDir: freshDir(), port: 0, seed: 7 });
    expect(seeded.info.seed).toBe(7);
    expect(seeded.info.consumers[0].key).not.toBe(a.consumers[0].key);
    await seeded.close();
  });

  it('default data dir: MCAT_SANDBOX_DIR, else XDG_DATA_HOME, else ~/.local/share', () => {
    expect(defaultSandboxDir({ MCAT_SANDBOX_DIR: '/x/y' })).toBe('/x/y');
    expect(defaultSandboxDir({ XDG_DATA_HOME: '/d' })).toBe('/d/mcat/sandbox');
    expect(defaultSandboxDir({ HOME: '/h' })).toBe('/h/.local/share/mcat/sandbox');
  });
});

describe('the sandbox command', () => {
  it('info --json, the readable info, reset; bad flags are usage errors', async () => {
    const dir = freshDir();
    const j = await runCli(['info', '--json', '--data', dir]);
    expect(j.code).toBe(0);
    const info = JSON.parse(j.stdout);
    expect(info.dataDir).toBe(dir);
    expect(info.baseUrl).toBeUndefined();
    const p = await startProcess(dir, ['--seed', String(info.seed)]);
    try {
      const live = JSON.parse((await runCli(['info', '--json', '--data', dir])).stdout);
      expect(live.baseUrl).toBe(p.baseUrl);
      const text = await runCli(['info', '--data', dir]);
      expect(text.stdout).toContain(p.baseUrl);
      expect(text.stdout).toContain(info.consumers[0].key);
      const env = { ...process.env, MCAT_SANDBOX_DIR: dir };
      expect(JSON.parse((await runCli(['info', '--json'], env)).stdout).baseUrl).toBe(p.baseUrl);
      const r = await runCli(['reset', '--data', dir]);
      expect(r.code).toBe(0);
      expect(r.stdout).toBe('');
    } finally {
      expect(await p.stop()).toBe(0);
    }
    for (const args of [['info', '--data', join(dir, 'missing/dir')], ['reset', '--data', join(dir, 'missing/dir')]]) {
      const r = await runCli(args);
      expect(r.code).toBe(2);
      expect(r.stderr).toMatch(/does not exist/);
    }
    for (const bad of [['--port', 'x'], ['--faults', 'boom=1'], ['--rate-limit', 'fast'], ['--seed', '-1'], ['--host', '']]) {
      const r = await runCli(['start', '--data', dir, ...bad]);
      expect(r.code, bad.join(' ')).toBe(2);
      expect(r.stderr).toMatch(/^mcat: /);
    }
  }, 30_000);
});
