// No SQLite connection or statement of the sandbox is ever left to the garbage collector
// (src/sandbox/sqlite.ts says why: from Node 24.19 on, better-sqlite3 12 aborts the process when
// the collector takes one outside JavaScript, exit 134). The suite runs on Node 20, where nothing
// aborts, so this file watches the objects themselves: every statement better-sqlite3 makes (its
// own for PRAGMAs and transactions included, through the native prepare) and every connection
// is registered with a FinalizationRegistry, a sandbox's whole life is run (open, migrate, seed,
// requests that read, write, count downloads and nonces, a reset, a restart under another seed,
// close), and after collections nothing of it may have been finalized.
import Database from 'better-sqlite3';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSandbox } from '../../src/sandbox/index';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { call, urlOf, type Creds } from './signer';

setFlagsFromString('--expose-gc');
const gc = runInNewContext('gc') as () => void;

type NativeDb = { prepare: (...args: unknown[]) => object };
let proto: NativeDb;
let original: NativeDb['prepare'];
const finalized: string[] = [];
const registry = new FinalizationRegistry<string>((what) => finalized.push(what));
const made: string[] = [];

beforeAll(() => {
  // the native connection behind a Database (a symbol-keyed property), whose prototype's
  // prepare makes every statement: Database#prepare, #pragma and #transaction all call it
  const probe = new Database(':memory:');
  const native = Object.getOwnPropertySymbols(probe)
    .map((s) => (probe as unknown as Record<symbol, unknown>)[s])
    .find((v): v is NativeDb => typeof (v as NativeDb | undefined)?.prepare === 'function');
  probe.close();
  expect(native).toBeDefined();
  proto = Object.getPrototypeOf(native) as NativeDb;
  original = proto.prepare;
  const seen = new WeakSet<object>();
  proto.prepare = function (this: object, ...args: unknown[]) {
    const stmt = original.apply(this, args);
    const what = `statement ${String(args[0]).slice(0, 60)}`;
    made.push(what);
    registry.register(stmt, what);
    if (!seen.has(this)) {
      seen.add(this);
      registry.register(this, 'connection');
    }
    return stmt;
  };
});

afterAll(() => {
  proto.prepare = original;
});

async function collect(): Promise<void> {
  for (let i = 0; i < 6; i++) {
    gc();
    await new Promise((r) => setTimeout(r, 20));
  }
}

describe("the sandbox's SQLite objects", () => {
  it('are never finalized by the garbage collector, over a sandbox life and a restart under another seed', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'mcat-sqlite-kept-'));
    try {
      for (const seed of [1, 2]) {
        const sb = await startSandbox({ dataDir, host: '127.0.0.1', port: 0, quiet: true, seed });
        const consumer = sb.info.consumers.find((c) => c.countries.length > 1)!;
        const u = sb.info.users.find((x) => x.userId === sb.info.examples.lockerUser)!;
        const creds: Creds = { consumerKey: consumer.key, consumerSecret: consumer.secret, token: u.token, tokenSecret: u.tokenSecret };
        const ex = sb.info.examples;
        const q = { country: consumer.countries[0] };
        const get = (path: string, query = {}) => call('GET', urlOf(sb.baseUrl, path, { ...q, ...query }), { creds });
        expect((await get('/1.2/user/locker')).status).toBe(200);
        expect((await get('/1.2/user/playlists', { userId: u.userId })).status).toBe(200);
        const created = await call('POST', urlOf(sb.baseUrl, '/1.2/playlists', q), { creds, json: { name: 'kept', tracks: [] } });
        expect(created.status).toBe(201);
        const group = await call('POST', urlOf(sb.baseUrl, `/1.2/user/playlists/groups/${ex.groupId}`, { ...q, userId: u.userId }), {
          creds,
          form: [['playlistIds', ex.playlistIds[0]]],
        });
        expect(group.status).toBe(200);
        expect((await call('POST', urlOf(sb.baseUrl, '/__sandbox/reset'))).status).toBe(200);
        await sb.close();
      }
      await collect();
      // the run made statements (the check is not vacuous), and none was collected
      expect(made.length).toBeGreaterThan(20);
      expect(finalized).toEqual([]);
    } finally {
      rmSync(dataDir, { recursive: true, force: true });
    }
  });
});
