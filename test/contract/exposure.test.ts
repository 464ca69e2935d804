// Issue 11: the sandbox is a server on the user's machine. Any web page the user visits can
// send it requests (a text/plain POST needs no CORS preflight; DNS rebinding makes a page's
// own host name point at 127.0.0.1); anyone who knows a consumer key can send requests naming
// it; any client can send and store as much as it likes. Each is refused here.
import { describe, expect, it } from 'vitest';
import { request } from 'node:http';
import { connect } from 'node:net';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { DEFAULT_LIMITS, parseLimits, startSandbox } from '../../src/sandbox/index';
import { sandboxPerTest } from '../helpers/sandbox';
import { runCli } from './processes';
import { call, urlOf, type Creds } from './signer';

const sandbox = sandboxPerTest();

interface Raw {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  text: string;
}

/** A request with headers fetch will not send (Host, Origin). */
function raw(baseUrl: string, method: string, path: string, headers: Record<string, string>, body?: string): Promise<Raw> {
  const u = new URL(baseUrl);
  return new Promise((resolve, reject) => {
    const req = request({ host: u.hostname, port: u.port, method, path, headers, agent: false }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (d) => (text += d));
      res.on('end', () => resolve({ status: res.statusCode!, headers: res.headers, text }));
    });
    req.on('error', reject);
    req.end(body);
  });
}

function credsOf(sb: { info: Awaited<ReturnType<typeof sandbox>>['info'] }): Creds {
  const c = sb.info.consumers.find((x) => x.countries.length > 1)!;
  const u = sb.info.users.find((x) => x.userId === sb.info.examples.lockerUser)!;
  return { consumerKey: c.key, consumerSecret: c.secret, token: u.token, tokenSecret: u.tokenSecret };
}

async function playlistNames(baseUrl: string, creds: Creds): Promise<string[]> {
  const r = await call('GET', urlOf(baseUrl, '/1.2/user/playlists', { country: 'GB', pageSize: 500 }), { creds });
  expect(r.status).toBe(200);
  const body = r.body.playlists ?? r.body;
  return (body.playlists ?? body).playlist.map((p: { name: string }) => p.name);
}

describe('Host: only the address the sandbox listens on', () => {
  it('a rebound host name is refused on every route, control routes included; nothing is revealed or reset', async () => {
    const sb = await sandbox();
    const port = new URL(sb.baseUrl).port;
    const creds = credsOf(sb);
    await call('POST', urlOf(sb.baseUrl, '/1.2/playlists', { country: 'GB' }), { creds, json: { name: 'keep me' } });
    const secret = sb.info.consumers[0].secret;
    for (const host of [`evil.example:${port}`, 'evil.example', `127.0.0.1.evil.example:${port}`, '127.0.0.1', `127.0.0.1:${Number(port) + 1}`]) {
      for (const [method, path] of [['GET', '/__sandbox/info'], ['POST', '/__sandbox/reset'], ['GET', '/__sandbox/health'], ['GET', `/1.2/release/details/batch?releaseIds=1&country=GB&usageTypes=download&oauth_consumer_key=${creds.consumerKey}`]]) {
        const r = await raw(sb.baseUrl, method, path, { host, 'content-type': 'text/plain' }, method === 'POST' ? 'x' : undefined);
        expect(r.status, `${method} ${path} Host ${host}`).toBe(421);
        expect(r.text).not.toContain(secret);
      }
    }
    expect(await playlistNames(sb.baseUrl, creds)).toContain('keep me');
  });

  it('its own address and localhost, with its port, are answered', async () => {
    const sb = await sandbox();
    const port = new URL(sb.baseUrl).port;
    for (const host of [`127.0.0.1:${port}`, `localhost:${port}`, `LOCALHOST:${port}`]) {
      const r = await raw(sb.baseUrl, 'GET', '/__sandbox/health', { host });
      expect(r.status, host).toBe(200);
    }
  });
});

describe('control routes refuse requests from web pages', () => {
  it('a text/plain POST with an Origin cannot reset; a GET with an Origin cannot read the secrets', async () => {
    const sb = await sandbox();
    const creds = credsOf(sb);
    const host = new URL(sb.baseUrl).host;
    await call('POST', urlOf(sb.baseUrl, '/1.2/playlists', { country: 'GB' }), { creds, json: { name: 'survives' } });
    for (const origin of ['http://evil.example', 'null', sb.baseUrl]) {
      const reset = await raw(sb.baseUrl, 'POST', '/__sandbox/reset', { host, origin, 'content-type': 'text/plain' }, 'x');
      expect(reset.status).toBe(403);
      const info = await raw(sb.baseUrl, 'GET', '/__sandbox/info', { host, origin });
      expect(info.status).toBe(403);
      expect(info.text).not.toContain(sb.info.consumers[0].secret);
      expect(info.text).not.toContain(sb.info.users[0].tokenSecret);
    }
    expect(await playlistNames(sb.baseUrl, creds)).toContain('survives');
    // without an Origin (a program, not a page) the control routes work
    expect((await raw(sb.baseUrl, 'GET', '/__sandbox/info', { host })).status).toBe(200);
    expect((await raw(sb.baseUrl, 'POST', '/__sandbox/reset', { host })).status).toBe(200);
    expect(await playlistNames(sb.baseUrl, creds)).not.toContain('survives');
  });
});

describe('rate limit: only authenticated requests count', () => {
  it('30 unsigned, forged or stale requests naming a key do not lock its owner out', async () => {
    const sb = await sandbox({ rateLimit: '5/min' });
    const creds = credsOf(sb);
    const locker = (o = {}) => call('GET', urlOf(sb.baseUrl, '/1.2/user/locker', { country: 'GB', pageSize: 1 }), o);
    for (let i = 0; i < 10; i++) expect((await locker({ keyOnly: creds.consumerKey })).status).toBe(401);
    for (let i = 0; i < 10; i++) expect((await locker({ creds, corrupt: true })).status).toBe(401);
    for (let i = 0; i < 5; i++) expect((await locker({ creds: { ...creds, tokenSecret: 'guess' } })).status).toBe(401);
    for (let i = 0; i < 5; i++) expect((await locker({ creds, timestamp: 1000 })).status).toBe(401);
    // signed by the key's owner, but for another user's data: refused as an authentication failure, not counted
    const other = (o = {}) => call('GET', urlOf(sb.baseUrl, '/1.2/user/locker', { country: 'GB', pageSize: 1, userId: '999999' }), o);
    for (let i = 0; i < 6; i++) {
      const r = await other({ creds });
      expect(r.status).toBe(401);
      expect(r.headers.get('x-ratelimit-current')).toBeNull();
    }
    const ok = await locker({ creds });
    expect(ok.status).toBe(200);
    expect(ok.headers.get('x-ratelimit-current')).toBe('1');
    // the owner's own requests still count: five allowed, the sixth refused
    for (let i = 2; i <= 5; i++) expect((await locker({ creds })).status).toBe(200);
    const over = await locker({ creds });
    expect(over.status).toBe(429);
    expect(Number(over.headers.get('retry-after'))).toBeGreaterThan(0);
  });
});

describe('bounds on what a caller sends and stores', () => {
  const limits = { bodyBytes: 4096, tracksPerPlaylist: 5, playlistsPerUser: 6, groupsPerUser: 2, playlistsPerGroup: 3, storedBytesPerUser: 12_000 };

  function tooLarge(r: { status: number; body: { status: string; error: { code: number; errorMessage: string } } }, what: RegExp): void {
    expect(r.status).toBe(413);
    expect(r.body.status).toBe('error');
    expect(r.body.error.code).toBe(1003);
    expect(r.body.error.errorMessage).toMatch(what);
  }

  it('a body over the bound is 413 (declared or chunked) and nothing is stored', async () => {
    const sb = await sandbox({ limits });
    const creds = credsOf(sb);
    const big = { name: 'too big', description: 'x'.repeat(5000) };
    tooLarge(await call('POST', urlOf(sb.baseUrl, '/1.2/playlists', { country: 'GB' }), { creds, json: big }), /body too large: at most 4096 bytes/);
    // chunked: no Content-Length to look at, the body is cut off as it arrives
    const chunks = new ReadableStream({
      start(c) {
        for (let i = 0; i < 64; i++) c.enqueue(new TextEncoder().encode('y'.repeat(1024)));
        c.close();
      },
    });
    const r = await fetch(urlOf(sb.baseUrl, '/1.2/playlists', { country: 'GB' }), { method: 'POST', body: chunks, duplex: 'half', headers: { 'content-type': 'application/json' } } as RequestInit);
    expect(r.status).toBe(413);
    expect(((await r.json()) as { error: { code: number } }).error.code).toBe(1003);
    expect(await playlistNames(sb.baseUrl, creds)).not.toContain('too big');
  });

  it('a declared Content-Length over the bound is answered at once, without reading the body', async () => {
    const sb = await sandbox({ limits });
    const u = new URL(sb.baseUrl);
    const t0 = Date.now();
    const answer = await new Promise<string>((resolve, reject) => {
      const s = connect(Number(u.port), u.hostname, () => {
        // 100 MB announced, a few bytes sent: the answer must not wait for the rest
        s.write(`POST /1.2/playlists?country=GB HTTP/1.1\r\nHost: ${u.host}\r\nContent-Type: application/json\r\nContent-Length: 100000000\r\n\r\n{"name":`);
      });
      let got = '';
      s.setEncoding('utf8');
      s.on('data', (d) => {
        got += d;
        if (got.includes('\r\n\r\n') && got.includes('}}')) {
          s.destroy();
          resolve(got);
        }
      });
      s.on('error', reject);
      setTimeout(() => {
        s.destroy();
        resolve(got);
      }, 3000);
    });
    expect(answer).toMatch(/^HTTP\/1\.1 413 /);
    expect(answer).toMatch(/connection: close/i);
    expect(Date.now() - t0).toBeLessThan(1500);
  });

  it('tracks per playlist, playlists per user, groups per user, playlists per group: 413 past each, nothing changed', async () => {
    const sb = await sandbox({ limits });
    const creds = credsOf(sb);
    const url = (path: string, q: Record<string, string> = {}) => urlOf(sb.baseUrl, path, { country: 'GB', ...q });
    const tracks = (n: number) => Array.from({ length: n }, (_, i) => ({ trackId: String(sb.info.examples.trackIds[i % sb.info.examples.trackIds.length] + i * 0) }));
    const pid = sb.info.examples.playlistIds[0];
    const before = await call('GET', url(`/1.2/playlists/${pid}`), { creds });
    tooLarge(await call('POST', url(`/1.2/playlists/${pid}`), { creds, json: { name: 'six', tracks: tracks(6) } }), /Too many tracks: a playlist holds at most 5/);
    tooLarge(await call('POST', url('/1.2/playlists'), { creds, json: { name: 'six', tracks: tracks(6) } }), /Too many tracks/);
    const after = await call('GET', url(`/1.2/playlists/${pid}`), { creds });
    expect(after.body).toEqual(before.body);
    expect((await call('POST', url(`/1.2/playlists/${pid}`), { creds, json: { name: 'five', tracks: tracks(5) } })).status).toBe(200);

    // the locker user owns 3 seeded playlists: 3 more are allowed, the 7th is refused
    for (let i = 0; i < 3; i++) expect((await call('POST', url('/1.2/playlists'), { creds, json: { name: `p${i}` } })).status).toBe(201);
    tooLarge(await call('POST', url('/1.2/playlists'), { creds, json: { name: 'seventh' } }), /Too many playlists: a user owns at most 6/);
    expect(await playlistNames(sb.baseUrl, creds)).not.toContain('seventh');

    // groups: the seeded one and one more; a third is refused; a group holds 3 ids
    const user = { userId: sb.info.examples.lockerUser };
    const g2 = 'a'.repeat(24);
    expect((await call('PUT', url(`/1.2/user/playlists/groups/${g2}`, user), { creds, form: [['name', 'two'], ['playlistIds', 'x,y']] })).status).toBe(200);
    tooLarge(await call('PUT', url(`/1.2/user/playlists/groups/${'b'.repeat(24)}`, user), { creds, form: [['name', 'three']] }), /Too many groups: a user owns at most 2/);
    tooLarge(await call('PUT', url(`/1.2/user/playlists/groups/${g2}`, user), { creds, form: [['name', 'two'], ['playlistIds', 'a,b,c,d']] }), /Too many playlists in the group: a group holds at most 3/);
    tooLarge(await call('POST', url(`/1.2/user/playlists/groups/${g2}`, user), { creds, form: [['playlistIds', 'z,w']] }), /at most 3, this one would hold 4/);
    const g = await call('GET', url(`/1.2/user/playlists/groups/${g2}`, user), { creds });
    const group = g.body.playlistGroup;
    expect(group.playlists.map((p: { id: string }) => p.id)).toEqual(['x', 'y']);
  });

  it("a user's total is bounded: 413 past it, other users unaffected, a change that shrinks is allowed", async () => {
    const sb = await sandbox({ limits: { ...limits, playlistsPerUser: 100 } });
    const creds = credsOf(sb);
    const url = (path: string) => urlOf(sb.baseUrl, path, { country: 'GB' });
    const desc = 'd'.repeat(450);
    let refused: Awaited<ReturnType<typeof call>> | undefined;
    for (let i = 0; i < 40 && !refused; i++) {
      const r = await call('POST', url('/1.2/playlists'), { creds, json: { name: `fill ${i}`, description: desc, annotations: { pad: 'p'.repeat(2000) } } });
      if (r.status !== 201) refused = r;
    }
    expect(refused).toBeDefined();
    tooLarge(refused!, /Storage limit reached: a user stores at most 12000 bytes/);
    // another user stores as before
    const c = sb.info.consumers.find((x) => x.countries.length > 1)!;
    const o = sb.info.users.find((x) => x.userId === sb.info.examples.emptyUser)!;
    const other: Creds = { consumerKey: c.key, consumerSecret: c.secret, token: o.token, tokenSecret: o.tokenSecret };
    expect((await call('POST', url('/1.2/playlists'), { creds: other, json: { name: 'mine', annotations: { pad: 'p'.repeat(2000) } } })).status).toBe(201);
    // a replace that would grow past the bound changes nothing, and its nonce stays used
    const pid = sb.info.examples.playlistIds[0];
    const before = (await call('GET', url(`/1.2/playlists/${pid}`), { creds })).body.playlist;
    const grow = { creds, json: { name: 'grown', annotations: { pad: 'p'.repeat(3000) } }, nonce: 'grow-once', timestamp: Math.floor(Date.now() / 1000) };
    tooLarge(await call('POST', url(`/1.2/playlists/${pid}`), grow), /Storage limit reached/);
    expect((await call('GET', url(`/1.2/playlists/${pid}`), { creds })).body.playlist).toEqual(before);
    const replay = await call('POST', url(`/1.2/playlists/${pid}`), grow);
    expect(replay.status).toBe(401);
    expect(replay.text).toMatch(/nonce already used/);
    // shrinking a playlist is always allowed
    expect((await call('POST', url(`/1.2/playlists/${pid}`), { creds, json: { name: 'small', tracks: [] } })).status).toBe(200);
  });
});

describe('the bounds: defaults, --limits, data dirs from before them', () => {
  it('parseLimits reads sizes and counts; bad specs are refused; --limits with a bad spec is a usage error', async () => {
    expect(parseLimits(undefined)).toEqual(DEFAULT_LIMITS);
    expect(parseLimits('body=512KiB,tracks=10,storage=1MiB,group-size=4')).toMatchObject({ bodyBytes: 512 * 1024, tracksPerPlaylist: 10, storedBytesPerUser: 1024 * 1024, playlistsPerGroup: 4, playlistsPerUser: DEFAULT_LIMITS.playlistsPerUser });
    for (const bad of ['tracks=0', 'tracks=x', 'body=lots', 'huge=1', 'tracks']) expect(() => parseLimits(bad), bad).toThrow(/--limits|limits item/);
    // the sizes --max-body takes (5M) are taken here too; a count past any bound is said as too large
    expect(parseLimits('storage=5M,body=64k').storedBytesPerUser).toBe(5 * 1024 * 1024);
    expect(parseLimits('storage=5M,body=64k').bodyBytes).toBe(64 * 1024);
    expect(() => parseLimits('tracks=99999999999999999999')).toThrow("--limits tracks is too large, got '99999999999999999999'");
    const dir = mkdtempSync(join(tmpdir(), 'mcat-limits-'));
    try {
      const r = await runCli(['start', '--port', '0', '--data', dir, '--limits', 'tracks=none']);
      expect(r.code).toBe(2);
      expect(r.stderr).toMatch(/^mcat: --limits tracks must be a whole number/);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }, 20_000);

  it('a data dir made before the bounds is counted when opened: its stored bytes count against the user', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'mcat-migrate-'));
    try {
      const first = await startSandbox({ dataDir: dir, port: 0 });
      await first.close();
      const db = new Database(join(dir, 'sandbox.db'));
      db.exec('DROP INDEX playlists_usage; ALTER TABLE playlists DROP COLUMN size; DROP INDEX groups_usage; ALTER TABLE groups DROP COLUMN size;');
      db.close();
      // the seeded playlists and group of the locker user take about 2 KB: a bound of 1000 bytes is already passed
      const sb = await startSandbox({ dataDir: dir, port: 0, limits: { storedBytesPerUser: 1000 } });
      try {
        const creds = credsOf(sb);
        const r = await call('POST', urlOf(sb.baseUrl, '/1.2/playlists', { country: 'GB' }), { creds, json: { name: 'one more' } });
        expect(r.status).toBe(413);
        expect(r.body.error.errorMessage).toMatch(/Storage limit reached/);
      } finally {
        await sb.close();
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
