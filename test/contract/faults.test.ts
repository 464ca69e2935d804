// Rate limiting and fault injection: what clients must survive.
import { afterAll, describe, expect, it } from 'vitest';
import { request } from 'node:http';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startSandbox } from '../../src/sandbox/index';
import { startTestSandbox } from '../helpers/sandbox';
import { call, urlOf, type Creds } from './signer';

const open: { close(): Promise<void> }[] = [];
afterAll(async () => {
  for (const s of open) await s.close();
});
async function sandbox(opts: { faults?: string; rateLimit?: string; seed?: number }) {
  const sb = await startTestSandbox(opts);
  open.push(sb);
  const c = sb.info.consumers.find((x) => x.countries.length > 1)!;
  const u = sb.info.users.find((x) => x.userId === sb.info.examples.lockerUser)!;
  const creds: Creds = { consumerKey: c.key, consumerSecret: c.secret, token: u.token, tokenSecret: u.tokenSecret };
  const batch = () => call('GET', urlOf(sb.baseUrl, '/1.2/release/details/batch', { releaseIds: sb.info.examples.releaseIds[0], country: 'GB', usageTypes: 'download' }), { keyOnly: c.key });
  return { sb, creds, key: c.key, batch };
}

/** A raw GET that reports what arrived: status, declared length, bytes received, or the socket error. */
function raw(url: string): Promise<{ status?: number; declared?: number; received: number; error?: string; ms: number }> {
  const t0 = Date.now();
  return new Promise((res) => {
    const req = request(url, { agent: false }, (r) => {
      let n = 0;
      r.on('data', (d: Buffer) => (n += d.length));
      r.on('end', () => res({ status: r.statusCode, declared: Number(r.headers['content-length']), received: n, ms: Date.now() - t0 }));
      r.on('error', (e) => res({ status: r.statusCode, declared: Number(r.headers['content-length']), received: n, error: e.message, ms: Date.now() - t0 }));
      r.on('aborted', () => res({ status: r.statusCode, declared: Number(r.headers['content-length']), received: n, error: 'aborted', ms: Date.now() - t0 }));
    });
    req.on('error', (e) => res({ received: 0, error: (e as NodeJS.ErrnoException).code ?? e.message, ms: Date.now() - t0 }));
    req.end();
  });
}

describe('rate limit', () => {
  it('X-RateLimit headers on every response; past N/min a 429 with Retry-After', async () => {
    const { batch } = await sandbox({ rateLimit: '5/min' });
    for (let i = 1; i <= 5; i++) {
      const r = await batch();
      expect(r.status).toBe(200);
      expect(r.headers.get('x-ratelimit-limit')).toBe('5');
      expect(r.headers.get('x-ratelimit-current')).toBe(String(i));
      expect(Number(r.headers.get('x-ratelimit-reset'))).toBeGreaterThan(0);
    }
    const over = await batch();
    expect(over.status).toBe(429);
    expect(Number(over.headers.get('retry-after'))).toBeGreaterThan(0);
    expect(over.headers.get('x-ratelimit-limit')).toBe('5');
  });

  it('without --rate-limit the headers are still there', async () => {
    const { batch } = await sandbox({});
    const r = await batch();
    expect(r.headers.get('x-ratelimit-limit')).toMatch(/^\d+$/);
    expect(r.headers.get('x-ratelimit-current')).toBe('1');
  });
});

describe('faults', () => {
  it('error=1: 502 or 503 with a 9001 body; /__sandbox/* never faulted', async () => {
    const { sb, batch } = await sandbox({ faults: 'error=1' });
    const statuses = new Set<number>();
    for (let i = 0; i < 12; i++) {
      const r = await batch();
      statuses.add(r.status);
      expect(r.body.error.code).toBe(9001);
    }
    expect([...statuses].every((s) => s === 502 || s === 503)).toBe(true);
    expect((await call('GET', `${sb.baseUrl}/__sandbox/health`)).status).toBe(200);
  });

  it('429=1 with retryafter=2', async () => {
    const { batch } = await sandbox({ faults: '429=1,retryafter=2' });
    const r = await batch();
    expect(r.status).toBe(429);
    expect(r.headers.get('retry-after')).toBe('2');
  });

  it('latency delays each answer; slow trickles the body; truncate cuts it', async () => {
    const lat = await sandbox({ faults: 'latency=150ms' });
    const t0 = Date.now();
    expect((await lat.batch()).status).toBe(200);
    expect(Date.now() - t0).toBeGreaterThanOrEqual(140);

    const slow = await sandbox({ faults: 'slow=1' });
    const url = urlOf(slow.sb.baseUrl, '/1.2/release/details/batch', { releaseIds: slow.sb.info.examples.releaseIds.join(','), country: 'GB', usageTypes: 'download', oauth_consumer_key: slow.key });
    const s = await raw(url);
    expect(s.status).toBe(200);
    expect(s.received).toBe(s.declared);
    expect(s.ms).toBeGreaterThanOrEqual(300);

    const tr = await sandbox({ faults: 'truncate=1' });
    const turl = urlOf(tr.sb.baseUrl, '/1.2/release/details/batch', { releaseIds: tr.sb.info.examples.releaseIds.join(','), country: 'GB', usageTypes: 'download', oauth_consumer_key: tr.key });
    const t = await raw(turl);
    expect(t.status).toBe(200);
    expect(t.received).toBeLessThan(t.declared!);
    expect(t.error).toBeDefined();
  });

  it('reset: reads get a destroyed socket; mutations are lost sometimes before and sometimes after commit', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'mcat-faults-'));
    try {
      const faulty = await startSandbox({ dataDir: dir, port: 0, faults: 'reset=1' });
      const c = faulty.info.consumers[0];
      const u = faulty.info.users.find((x) => x.userId === faulty.info.examples.lockerUser)!;
      const creds: Creds = { consumerKey: c.key, consumerSecret: c.secret, token: u.token, tokenSecret: u.tokenSecret };
      const r = await raw(urlOf(faulty.baseUrl, '/1.2/release/details/batch', { releaseIds: faulty.info.examples.releaseIds[0], country: 'GB', usageTypes: 'download', oauth_consumer_key: c.key }));
      expect(r.status).toBeUndefined();
      expect(r.error).toBeDefined();
      let failed = 0;
      for (let i = 0; i < 20; i++) {
        await call('POST', urlOf(faulty.baseUrl, '/1.2/playlists', { country: 'GB' }), { creds, json: { name: `lost-${i}` } }).catch(() => failed++);
      }
      expect(failed).toBe(20);
      await faulty.close();
      const clean = await startSandbox({ dataDir: dir, port: 0 });
      const list = await call('GET', urlOf(clean.baseUrl, '/1.2/user/playlists', { country: 'GB', pageSize: 500 }), { creds });
      const committed = list.body.playlists.playlist.filter((p: { name: string }) => p.name.startsWith('lost-')).length;
      expect(committed).toBeGreaterThan(0);
      expect(committed).toBeLessThan(20);
      await clean.close();
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('mixed faults are deterministic for a seed', async () => {
    const outcome = async () => {
      const { batch } = await sandbox({ faults: 'error=0.3,429=0.2', seed: 3 });
      const out: number[] = [];
      for (let i = 0; i < 15; i++) out.push((await batch()).status);
      return out;
    };
    const a = await outcome();
    expect(await outcome()).toEqual(a);
    expect(new Set(a).size).toBeGreaterThan(1);
  });

  it('a bad spec is refused', async () => {
    await expect(startTestSandbox({ faults: 'error=2' })).rejects.toThrow(/probability/);
    await expect(startTestSandbox({ faults: 'explode=0.1' })).rejects.toThrow(/unknown/);
    await expect(startTestSandbox({ rateLimit: '10/fortnight' })).rejects.toThrow(/rate-limit/);
  });
});
