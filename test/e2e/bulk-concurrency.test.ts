// `playlist apply --concurrency N` keeps N edits in flight: the client's connection pool grows
// with it (it used to stop at 16 whatever N was). A counting server stands in for the API and
// records the most requests it held at once.
import { afterEach, describe, expect, it } from 'vitest';
import { createServer, type Server } from 'node:http';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { tmpdir } from 'node:os';
import type { AddressInfo } from 'node:net';
import { mcat } from '../helpers/mcat';

let server: Server | undefined;
afterEach(async () => {
  await new Promise<void>((r) => (server ? server.close(() => r()) : r()));
  server = undefined;
});

/**
 * A stand-in API: every playlist replace is answered after `holdMs`; counts requests in flight.
 * With `cap`, a request that would make more than `cap` in flight is answered 429 at once.
 */
async function countingApi(holdMs: number, cap = Infinity): Promise<{ baseUrl: string; stats: { max: number; total: number; tooMany: number } }> {
  const stats = { max: 0, total: 0, tooMany: 0 };
  let now = 0;
  server = createServer((req, res) => {
    const m = /^\/1\.2\/playlists\/([0-9a-f]{24})\?/.exec(req.url ?? '');
    req.resume();
    req.on('end', () => {
      if (req.method !== 'POST' || !m) {
        res.writeHead(404, { 'content-type': 'application/json' }).end('{"status":"error","version":"1.2","error":{"code":2001,"errorMessage":"not found"}}');
        return;
      }
      if (now >= cap) {
        stats.tooMany++;
        res.writeHead(429, { 'content-type': 'text/plain', 'retry-after': '0' }).end('too many at once');
        return;
      }
      now++;
      stats.total++;
      stats.max = Math.max(stats.max, now);
      setTimeout(() => {
        now--;
        const body = { playlist: { id: m[1], name: 'n', status: 'Published', visibility: 'Private', tracks: [], lastUpdated: new Date().toISOString() } };
        res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(body));
      }, holdMs);
    });
  });
  await new Promise<void>((r) => server!.listen(0, '127.0.0.1', () => r()));
  return { baseUrl: `http://127.0.0.1:${(server!.address() as AddressInfo).port}`, stats };
}

function editsFile(n: number): string {
  const dir = mkdtempSync(join(tmpdir(), 'mcat-conc-'));
  const lines = Array.from({ length: n }, (_, i) =>
    JSON.stringify({ op: 'replace', playlistId: (i + 1).toString(16).padStart(24, '0'), name: `p${i}`, tracks: [{ trackId: '10000101' }] }),
  );
  const file = join(dir, 'edits.ndjson');
  writeFileSync(file, lines.join('\n') + '\n');
  return file;
}

const env = (baseUrl: string) => ({
  MCAT_BASE_URL: baseUrl,
  MCAT_CONSUMER_KEY: 'key',
  MCAT_CONSUMER_SECRET: 'secret',
  MCAT_TOKEN: 'token',
  MCAT_TOKEN_SECRET: 'token-secret',
  MCAT_COUNTRY: 'GB',
});

describe('playlist apply concurrency', () => {
  it('--concurrency 24 keeps 24 edits in flight, more than the default pool of 16 connections', async () => {
    const api = await countingApi(150);
    const r = await mcat(['playlist', 'apply', editsFile(120), '--concurrency', '24'], { env: env(api.baseUrl) });
    expect(r.exitCode, r.stderr).toBe(0);
    expect(api.stats.total).toBe(120);
    expect(api.stats.max).toBe(24);
  });

  it('by default 32 are in flight at first, and more while the API keeps up (never over 64)', async () => {
    const api = await countingApi(150);
    const r = await mcat(['playlist', 'apply', editsFile(40)], { env: env(api.baseUrl) });
    expect(r.exitCode, r.stderr).toBe(0);
    expect(api.stats.max).toBe(32);
    const api2 = await countingApi(20);
    const r2 = await mcat(['playlist', 'apply', editsFile(400)], { env: env(api2.baseUrl) });
    expect(r2.exitCode, r2.stderr).toBe(0);
    expect(api2.stats.total).toBe(400);
    expect(api2.stats.max).toBeGreaterThan(32);
    expect(api2.stats.max).toBeLessThanOrEqual(64);
  });

  it('by default fewer are in flight once the API answers 429: every edit is applied', async () => {
    const api = await countingApi(20, 48);
    const r = await mcat(['playlist', 'apply', editsFile(200)], { env: env(api.baseUrl) });
    expect(r.exitCode, r.stderr).toBe(0);
    expect(api.stats.total).toBe(200);
    expect(api.stats.max).toBe(48);
    // the limit was cut: most requests went through without a 429
    expect(api.stats.tooMany, `${api.stats.tooMany} answered 429`).toBeLessThan(50);
  });

  it('--concurrency 4 never has more than 4 in flight', async () => {
    const api = await countingApi(60);
    const r = await mcat(['playlist', 'apply', editsFile(40), '--concurrency', '4'], { env: env(api.baseUrl) });
    expect(r.exitCode, r.stderr).toBe(0);
    expect(api.stats.max).toBe(4);
  });
});
