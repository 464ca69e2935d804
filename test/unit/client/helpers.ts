// Shared by the client's unit tests: an ApiClient on an undici MockAgent that records calls.
import path from 'node:path';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { MockAgent } from 'undici';
import { ApiClient, type ApiClientOptions } from '../../../src/client/http';

export const ORIGIN = 'http://api.test';
const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../..');
export const FIXTURES = path.resolve(repoRoot, 'test/fixtures/real-api');

export const fixture = (name: string) => readFileSync(path.join(FIXTURES, name), 'utf8');

export const CREDS = {
  consumerKey: 'key-consumer-1234',
  consumerSecret: 'consumer-secret-XYZ',
  token: 'token-user-abcdef',
  tokenSecret: 'token-secret-QRS',
};

export interface Recorded {
  method: string;
  path: string;
  headers: Record<string, string>;
  body?: string;
}

export function mockApi(opts: Partial<ApiClientOptions> = {}) {
  const agent = new MockAgent();
  agent.disableNetConnect();
  const pool = agent.get(ORIGIN);
  const sleeps: number[] = [];
  const calls: Recorded[] = [];
  // sleeps take no time: they move a clock of their own, which the rate limiter reads
  const clock = { now: 1_700_000_000_000 };
  const client = new ApiClient({
    baseUrl: ORIGIN,
    credentials: CREDS,
    authIn: 'header',
    dispatcher: agent,
    sleep: async (ms) => {
      sleeps.push(ms);
      clock.now += ms;
    },
    now: () => clock.now,
    random: () => 0.5,
    ...opts,
  });
  /** answer every call to paths matching `match` with the results of `reply`, recording each call */
  function on(
    method: string,
    match: RegExp | string,
    reply: (call: Recorded, n: number) => { status: number; body?: string; headers?: Record<string, string> },
    times = 50,
  ) {
    let n = 0;
    pool
      .intercept({ method, path: (p: string) => (typeof match === 'string' ? p.split('?')[0] === match : match.test(p)) })
      .reply((o) => {
        const headers: Record<string, string> = {};
        if (o.headers) for (const [k, v] of Object.entries(o.headers as Record<string, string>)) headers[k.toLowerCase()] = String(v);
        const call: Recorded = { method: o.method, path: o.path, headers, body: typeof o.body === 'string' ? o.body : undefined };
        calls.push(call);
        const r = reply(call, ++n);
        return { statusCode: r.status, data: r.body ?? '', responseOptions: { headers: r.headers ?? {} } };
      })
      .times(times);
  }
  return { agent, pool, client, calls, sleeps, on, clock };
}

export const xml = { 'content-type': 'application/xml; charset=utf-8' };
export const json = { 'content-type': 'application/json' };
