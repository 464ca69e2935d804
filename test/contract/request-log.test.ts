// What a sandbox tells someone testing a client: the requests it answered by status (in
// /__sandbox/info and `mcat sandbox info`, 429s included), and with --log FILE one NDJSON line per request
// that never holds a secret, a signature or a token.
import { afterEach, describe, expect, it } from 'vitest';
import { mkdtempSync, readFileSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startSandbox } from '../../src/sandbox/index';
import { sandboxPerTest } from '../helpers/sandbox';
import { mcat } from '../helpers/mcat';
import { runCli, startProcess } from './processes';
import { call, urlOf, type Creds } from './signer';

const sandbox = sandboxPerTest();
const made: string[] = [];
afterEach(() => {
  while (made.length) rmSync(made.pop()!, { recursive: true, force: true });
});
function scratch(): string {
  const d = mkdtempSync(join(tmpdir(), 'mcat-reqlog-'));
  made.push(d);
  return d;
}

function credsOf(info: Awaited<ReturnType<typeof sandbox>>['info']): Creds {
  const c = info.consumers.find((x) => x.countries.length > 1)!;
  const u = info.users.find((x) => x.userId === info.examples.lockerUser)!;
  return { consumerKey: c.key, consumerSecret: c.secret, token: u.token, tokenSecret: u.tokenSecret };
}

describe('requests answered, by status', () => {
  it('/__sandbox/info counts every answered request since the start by status', async () => {
    const sb = await sandbox();
    const creds = credsOf(sb.info);
    const before = await call('GET', `${sb.baseUrl}/__sandbox/info`);
    expect(before.body.requests).toEqual({ total: 0, byStatus: {} });
    await call('GET', urlOf(sb.baseUrl, '/1.2/user/locker', { country: 'GB', pageSize: 1 }), { creds });
    await call('GET', urlOf(sb.baseUrl, '/1.2/user/locker', { country: 'GB', pageSize: 1 }), { creds, transport: 'query' });
    await call('GET', urlOf(sb.baseUrl, '/1.2/user/locker', { country: 'GB' }), { creds, corrupt: true });
    await call('GET', `${sb.baseUrl}/1.2/nowhere`);
    const after = await call('GET', `${sb.baseUrl}/__sandbox/info`);
    // the first info call is counted too
    expect(after.body.requests).toEqual({ total: 5, byStatus: { '200': 3, '401': 1, '404': 1 } });
  });

  it('429s are counted (what a rate policy under test drew), and mcat sandbox info shows the counts (--json and text)', async () => {
    const sb = await sandbox({ rateLimit: '2/min' });
    const key = sb.info.consumers.find((x) => x.countries.length > 1)!.key;
    const batch = () => call('GET', urlOf(sb.baseUrl, '/1.2/release/details/batch', { releaseIds: sb.info.examples.releaseIds[0], country: 'GB', usageTypes: 'download' }), { keyOnly: key });
    const statuses = [];
    for (let i = 0; i < 3; i++) statuses.push((await batch()).status);
    expect(statuses).toEqual([200, 200, 429]);
    expect((await call('GET', `${sb.baseUrl}/__sandbox/info`)).body.requests).toEqual({ total: 3, byStatus: { '200': 2, '429': 1 } });

    const j = await mcat(['sandbox', 'info', '--json', '--data', sb.dataDir]);
    expect(j.exitCode, j.stderr).toBe(0);
    const requests = JSON.parse(j.stdout).requests;
    expect(requests.byStatus['429']).toBe(1);
    expect(requests.total).toBe(requests.byStatus['200'] + 1);
    const t = await mcat(['sandbox', 'info', '--data', sb.dataDir, '-o', 'table']);
    expect(t.stdout).toMatch(/^requests {5}\d+ answered \(200: \d+, 429: 1\)$/m);
  });
});

describe('mcat sandbox start --log FILE', () => {
  it('one NDJSON line per request: time, method, path, status, duration, masked key; no secret, token or signature', async () => {
    const dir = scratch();
    const log = join(dir, 'requests.ndjson');
    const p = await startProcess(join(dir, 'data'), ['--log', log]);
    let info;
    try {
      info = JSON.parse((await runCli(['info', '--json', '--data', join(dir, 'data')])).stdout);
      const creds = credsOf(info);
      const ok = await call('GET', urlOf(p.baseUrl, '/1.2/user/locker', { country: 'GB', pageSize: 1 }), { creds, transport: 'query' });
      expect(ok.status).toBe(200);
      const created = await call('POST', urlOf(p.baseUrl, '/1.2/playlists', { country: 'GB' }), { creds, json: { name: 'logged' } });
      expect(created.status).toBe(201);
      expect((await call('GET', urlOf(p.baseUrl, '/1.2/user/locker', { country: 'GB' }), { creds, corrupt: true })).status).toBe(401);
      const live = JSON.parse((await runCli(['info', '--json', '--data', join(dir, 'data')])).stdout);
      // the control routes' own answers (health checks, info) are counted too
      expect(live.requests.byStatus).toMatchObject({ '201': 1, '401': 1 });
      expect(live.requests.byStatus['200']).toBeGreaterThanOrEqual(1);
      const text = await runCli(['info', '--data', join(dir, 'data'), '-o', 'table']);
      expect(text.stdout).toMatch(/requests\s+\d+ answered \(200: \d+, 201: 1, 401: 1\)/);
    } finally {
      expect(await p.stop()).toBe(0);
    }
    expect(statSync(log).mode & 0o777).toBe(0o600);
    const raw = readFileSync(log, 'utf8');
    const lines = raw.trim().split('\n').map((l) => JSON.parse(l));
    const api = lines.filter((l) => !l.path.startsWith('/__sandbox/'));
    expect(api.map((l) => [l.method, l.path, l.status])).toEqual([
      ['GET', '/1.2/user/locker', 200],
      ['POST', '/1.2/playlists', 201],
      ['GET', '/1.2/user/locker', 401],
    ]);
    const c = info.consumers.find((x: { countries: string[] }) => x.countries.length > 1);
    for (const l of api) {
      expect(Object.keys(l)).toEqual(['time', 'method', 'path', 'status', 'durationMs', 'consumerKey']);
      expect(new Date(l.time).toISOString()).toBe(l.time);
      expect(l.durationMs).toBeGreaterThanOrEqual(0);
      expect(l.consumerKey).toBe('\u2026' + c.key.slice(-4));
    }
    for (const secret of [c.key, c.secret, ...info.users.flatMap((u: { token: string; tokenSecret: string }) => [u.token, u.tokenSecret])]) expect(raw).not.toContain(secret);
    expect(raw).not.toMatch(/oauth_signature|oauth_token|oauth_nonce|country=/);
  }, 30_000);

  it('appends to an existing log; a symlink at the log path is refused; --log with no name is a usage error', async () => {
    const dir = scratch();
    const log = join(dir, 'log.ndjson');
    writeFileSync(log, '{"earlier":true}\n', { mode: 0o600 });
    const sb = await startSandbox({ dataDir: join(dir, 'a'), port: 0, log });
    await call('GET', `${sb.baseUrl}/__sandbox/health`);
    await sb.close();
    const lines = readFileSync(log, 'utf8').trim().split('\n');
    expect(JSON.parse(lines[0])).toEqual({ earlier: true });
    expect(JSON.parse(lines[1])).toMatchObject({ method: 'GET', path: '/__sandbox/health', status: 200, consumerKey: null });

    const victim = join(dir, 'victim');
    writeFileSync(victim, 'precious');
    symlinkSync(victim, join(dir, 'link.ndjson'));
    await expect(startSandbox({ dataDir: join(dir, 'b'), port: 0, log: join(dir, 'link.ndjson') })).rejects.toThrow(/symbolic link/);
    expect(readFileSync(victim, 'utf8')).toBe('precious');
    const r = await runCli(['start', '--port', '0', '--data', join(dir, 'c'), '--log', '']);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/^mcat: --log must name a file/);
  }, 30_000);
});
