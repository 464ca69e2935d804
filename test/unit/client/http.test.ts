// The request core against undici's MockAgent (no network): retries and backoff, Retry-After
// and its cap, idempotency, fresh signatures per attempt, timeouts, error mapping, tracing.
import { afterEach, describe, expect, it } from 'vitest';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { AbortedError, ApiError, AuthError, BodyTooLargeError, HttpError, NetworkError, RateLimitError, RedirectError, TimeoutError } from '../../../src/client/errors';
import { ApiClient } from '../../../src/client/http';
import { baseUri, oauthParams } from '../../../src/client/oauth';
import { CREDS, ORIGIN, json, mockApi, type Recorded } from './helpers';

let api: ReturnType<typeof mockApi>;
afterEach(async () => {
  await api?.agent.close().catch(() => undefined);
});

const ok = { status: 200, body: '{"status":"ok","version":"1.2","n":1}', headers: json };

function authParams(h: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const m of h.matchAll(/(\w+)="([^"]*)"/g)) out[m[1]] = decodeURIComponent(m[2]);
  return out;
}

/** Recomputes the signature the server would expect for a recorded call. */
function verify(call: Recorded, extra: Record<string, string> = {}, useToken = true): boolean {
  const url = new URL(call.path, ORIGIN);
  const params: Record<string, string> = { ...extra };
  const fromQuery: Record<string, string> = {};
  for (const [k, v] of url.searchParams) fromQuery[k] = v;
  let oauth: Record<string, string>;
  if (call.headers.authorization) {
    oauth = authParams(call.headers.authorization);
    Object.assign(params, fromQuery);
  } else {
    oauth = Object.fromEntries(Object.entries(fromQuery).filter(([k]) => k.startsWith('oauth_')));
    Object.assign(params, Object.fromEntries(Object.entries(fromQuery).filter(([k]) => !k.startsWith('oauth_'))));
  }
  const expected = oauthParams({
    method: call.method,
    url: baseUri(url),
    params,
    credentials: CREDS,
    useToken,
    nonce: oauth.oauth_nonce,
    timestamp: oauth.oauth_timestamp,
    version: oauth.oauth_version ?? null,
  }).oauth_signature;
  return expected === oauth.oauth_signature;
}

describe('signing', () => {
  it('signs in the Authorization header with realm, query params included', async () => {
    api = mockApi();
    api.on('GET', '/1.2/release/tracks', () => ok);
    await api.client.request<any>('GET', '/1.2/release/tracks', { query: { releaseId: 5, country: 'GB', note: 'a b+c' } });
    const call = api.calls[0];
    expect(call.headers.authorization).toMatch(/^OAuth realm="", oauth_consumer_key="key-consumer-1234", /);
    expect(call.headers.authorization).toContain('oauth_token="token-user-abcdef"');
    expect(call.headers.authorization).toContain('oauth_signature_method="HMAC-SHA1"');
    expect(call.path).toContain('note=a%20b%2Bc');
    expect(call.path).not.toContain('oauth_');
    expect(verify(call)).toBe(true);
  });

  it('signs as query parameters with authIn query', async () => {
    api = mockApi({ authIn: 'query' });
    api.on('GET', '/1.2/user/locker', () => ok);
    await api.client.request<any>('GET', '/1.2/user/locker', { query: { country: 'GB' } });
    const call = api.calls[0];
    expect(call.headers.authorization).toBeUndefined();
    expect(call.path).toMatch(/oauth_consumer_key=key-consumer-1234/);
    expect(call.path).toMatch(/oauth_token=token-user-abcdef/);
    expect(call.path).toMatch(/oauth_signature=/);
    expect(verify(call)).toBe(true);
  });

  it('consumer-only calls leave the token out', async () => {
    api = mockApi();
    api.on('GET', '/1.2/artist/releases', () => ok);
    await api.client.request<any>('GET', '/1.2/artist/releases', { query: { artistId: 1 }, auth: 'consumer' });
    expect(api.calls[0].headers.authorization).not.toContain('oauth_token');
    expect(verify(api.calls[0], {}, false)).toBe(true);
  });

  it('form bodies are part of the signature, JSON bodies are not', async () => {
    api = mockApi();
    api.on('PUT', /^\/g/, () => ok);
    api.on('POST', /^\/p/, () => ok);
    await api.client.request<any>('PUT', '/g', { form: { name: 'My group!', playlistIds: 'a,b' } });
    await api.client.request<any>('POST', '/p', { json: { name: 'x' } });
    const [form, jsonCall] = api.calls;
    expect(form.headers['content-type']).toBe('application/x-www-form-urlencoded');
    expect(form.body).toBe('name=My%20group%21&playlistIds=a%2Cb');
    expect(verify(form, { name: 'My group!', playlistIds: 'a,b' })).toBe(true);
    expect(verify(form)).toBe(false);
    expect(jsonCall.headers['content-type']).toBe('application/json');
    expect(jsonCall.body).toBe('{"name":"x"}');
    expect(verify(jsonCall)).toBe(true);
  });

  it('a user call with no token configured fails before sending', async () => {
    api = mockApi({ credentials: { consumerKey: 'k', consumerSecret: 's' } });
    await expect(api.client.request<any>('GET', '/1.2/user/locker', { auth: 'user' })).rejects.toBeInstanceOf(AuthError);
    expect(api.calls).toHaveLength(0);
  });

});

describe('retries', () => {
  it('retries a GET on 429, 502, 503 and 504 with a fresh nonce each time, then succeeds', async () => {
    api = mockApi();
    const seq = [429, 502, 503];
    api.on('GET', '/r', (_c, n) => (n <= seq.length ? { status: seq[n - 1], body: '' } : ok));
    const body = await api.client.request<any>('GET', '/r');
    expect(body.n).toBe(1);
    expect(api.calls).toHaveLength(4);
    const nonces = api.calls.map((c) => authParams(c.headers.authorization).oauth_nonce);
    expect(new Set(nonces).size).toBe(4);
    for (const c of api.calls) expect(verify(c)).toBe(true);
  });

  it('backs off exponentially with full jitter', async () => {
    api = mockApi({ backoffBaseMs: 100, maxBackoffMs: 350, random: () => 0.999 });
    api.on('GET', '/r', () => ({ status: 504, body: '' }));
    const err = await api.client.request<any>('GET', '/r').catch((e) => e);
    expect(err).toBeInstanceOf(HttpError);
    expect(err.httpStatus).toBe(504);
    expect(api.calls).toHaveLength(4); // 1 + retries (3)
    expect(api.sleeps).toEqual([99, 199, 349]);
    await api.agent.close();
    api = mockApi({ backoffBaseMs: 100, random: () => 0 });
    api.on('GET', '/r', () => ({ status: 503, body: '' }));
    await api.client.request<any>('GET', '/r').catch(() => undefined);
    expect(api.sleeps).toEqual([0, 0, 0]);
  });

  it('honours --retries', async () => {
    api = mockApi({ retries: 0 });
    api.on('GET', '/r', () => ({ status: 503, body: '' }));
    await expect(api.client.request<any>('GET', '/r')).rejects.toBeInstanceOf(HttpError);
    expect(api.calls).toHaveLength(1);
  });

  it('waits for Retry-After (up to the cap)', async () => {
    api = mockApi();
    api.on('GET', '/r', (_c, n) => (n === 1 ? { status: 429, body: '', headers: { 'retry-after': '7' } } : ok));
    await api.client.request<any>('GET', '/r');
    expect(api.sleeps).toEqual([7000]);
    expect(api.calls).toHaveLength(2);
  });

  it('a Retry-After over the cap fails at once with RateLimitError naming the wait', async () => {
    api = mockApi({ maxRetryAfterSeconds: 60 });
    api.on('GET', '/r', () => ({ status: 429, body: 'slow down', headers: { 'retry-after': '120' } }));
    const err = await api.client.request<any>('GET', '/r').catch((e) => e);
    expect(err).toBeInstanceOf(RateLimitError);
    expect(err.retryAfterSeconds).toBe(120);
    expect(err.message).toMatch(/120 s/);
    expect(api.calls).toHaveLength(1);
    expect(api.sleeps).toEqual([]);
  });

  it('a 429 that outlives the retries is an HttpError 429 carrying its Retry-After', async () => {
    api = mockApi({ retries: 1 });
    api.on('GET', '/r', () => ({ status: 429, body: '{"status":"error","version":"1.2","error":{"code":9001,"errorMessage":"x"}}', headers: { 'retry-after': '2', ...json } }));
    const err = await api.client.request<any>('GET', '/r').catch((e) => e);
    expect(err).toBeInstanceOf(HttpError);
    expect(err).toMatchObject({ httpStatus: 429, retryAfterSeconds: 2 });
  });

  it('does not retry 500, 400 or 401', async () => {
    for (const status of [500, 400, 401]) {
      api = mockApi();
      api.on('GET', '/r', () => ({ status, body: '' }));
      await api.client.request<any>('GET', '/r').catch(() => undefined);
      expect(api.calls, `HTTP ${status}`).toHaveLength(1);
      await api.agent.close();
    }
  });

  it('never retries a non-idempotent POST after it may have reached the server', async () => {
    api = mockApi();
    api.on('POST', '/1.2/playlists', () => ({ status: 503, body: '' }));
    await expect(api.client.request<any>('POST', '/1.2/playlists', { json: { name: 'x' } })).rejects.toMatchObject({ httpStatus: 503 });
    expect(api.calls).toHaveLength(1);
    await api.agent.close();
    api = mockApi();
    api.on('POST', '/1.2/playlists', () => {
      throw Object.assign(new Error('read ECONNRESET'), { code: 'ECONNRESET' });
    });
    await expect(api.client.request<any>('POST', '/1.2/playlists', { json: { name: 'x' } })).rejects.toBeInstanceOf(NetworkError);
    expect(api.calls).toHaveLength(1);
  });

  it('retries a POST marked idempotent (replace, details, group add)', async () => {
    api = mockApi();
    api.on('POST', '/1.2/playlists/abc', (_c, n) => (n === 1 ? { status: 502, body: '' } : ok));
    await api.client.request<any>('POST', '/1.2/playlists/abc', { json: { tracks: [] }, idempotent: true });
    expect(api.calls).toHaveLength(2);
  });

  it('retries connection resets of idempotent calls and maps what remains to NetworkError', async () => {
    api = mockApi();
    api.pool
      .intercept({ path: '/r', method: 'GET' })
      .replyWithError(Object.assign(new Error('read ECONNRESET'), { code: 'ECONNRESET' }))
      .times(2);
    api.pool.intercept({ path: '/r', method: 'GET' }).reply(200, '{"n":2}', { headers: json });
    expect((await api.client.request<any>('GET', '/r')).n).toBe(2);
    expect(api.sleeps).toHaveLength(2);
    await api.agent.close();
    api = mockApi({ retries: 1 });
    api.pool
      .intercept({ path: '/r', method: 'GET' })
      .replyWithError(Object.assign(new Error('read ECONNRESET'), { code: 'ECONNRESET' }))
      .times(2);
    const err = await api.client.request<any>('GET', '/r').catch((e) => e);
    expect(err).toBeInstanceOf(NetworkError);
    expect(err.causeCode).toBe('ECONNRESET');
  });

  it('retries a reset halfway through the body of an idempotent call (not of a create)', async () => {
    // headers and part of the body, then the connection is cut: a reset as much as one before the headers
    let n = 0;
    const server = createServer((req, res) => {
      req.resume();
      n++;
      if (req.url === '/ok' && n === 2) return void res.writeHead(200, { 'content-type': 'application/json' }).end('{"status":"ok","version":"1.2","n":2}');
      res.writeHead(200, { 'content-type': 'application/json', 'content-length': '5000' }).write('{"status":"ok",', () => res.socket?.destroy());
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
    const client = new ApiClient({ baseUrl: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, credentials: CREDS, retries: 1, backoffBaseMs: 1 });
    try {
      expect(await client.request<any>('GET', '/ok')).toMatchObject({ n: 2 });
      expect(n).toBe(2);
      n = 0;
      const err = await client.request<any>('GET', '/cut').catch((e) => e);
      expect(err).toBeInstanceOf(NetworkError);
      expect(err.message).toMatch(/was reset/);
      expect(n).toBe(2);
      n = 0;
      await expect(client.request<any>('POST', '/cut', { json: { name: 'x' } })).rejects.toBeInstanceOf(NetworkError);
      expect(n).toBe(1);
    } finally {
      await client.close().catch(() => undefined);
      server.closeAllConnections();
      await new Promise((r) => server.close(r));
    }
  });

  it('retries a connect timeout for any method (nothing was sent)', async () => {
    api = mockApi();
    api.pool
      .intercept({ path: '/1.2/playlists', method: 'POST' })
      .replyWithError(Object.assign(new Error('Connect Timeout Error'), { code: 'UND_ERR_CONNECT_TIMEOUT' }));
    api.pool.intercept({ path: '/1.2/playlists', method: 'POST' }).reply(200, '{"playlist":{"id":"a"}}', { headers: json });
    const body = await api.client.request<any>('POST', '/1.2/playlists', { json: {} });
    expect(body.playlist.id).toBe('a');
    expect(api.sleeps).toHaveLength(1);
  });
});

describe('timeouts and network errors', () => {
  it('a request slower than the timeout is a TimeoutError, not retried', async () => {
    api = mockApi({ timeoutMs: 50 });
    api.pool.intercept({ path: '/slow', method: 'GET' }).reply(200, '{}').delay(500);
    const err = await api.client.request<any>('GET', '/slow').catch((e) => e);
    expect(err).toBeInstanceOf(TimeoutError);
    expect(err).toMatchObject({ phase: 'headers', message: 'api.test did not answer within 50 ms (no response headers)' });
    expect(api.sleeps).toHaveLength(0);
  });

  it('requests started one after another each time out at their own deadline, and no timer outlives them', async () => {
    api = mockApi({ timeoutMs: 100, retries: 0 });
    for (const p of ['/a', '/b', '/c']) api.pool.intercept({ path: p, method: 'GET' }).reply(200, '{}').delay(1000);
    const timers = () => process.getActiveResourcesInfo().filter((r) => r === 'Timeout').length;
    const before = timers();
    const took = (p: string) => {
      const t0 = Date.now();
      return api.client.request('GET', p).then(
        () => -1,
        (e) => (e instanceof TimeoutError ? Date.now() - t0 : -2),
      );
    };
    const a = took('/a');
    await new Promise((r) => setTimeout(r, 30));
    const b = took('/b');
    await new Promise((r) => setTimeout(r, 30));
    const c = took('/c');
    for (const ms of await Promise.all([a, b, c])) {
      expect(ms).toBeGreaterThanOrEqual(95);
      expect(ms).toBeLessThan(400);
    }
    // the answers MockAgent still holds back have timers of their own; ours are gone
    await api.agent.close().catch(() => undefined);
    expect(timers()).toBeLessThanOrEqual(before);
    // an answer long before its deadline leaves no timer behind (it would hold the process for 60 s)
    api = mockApi({ timeoutMs: 60_000 });
    api.on('GET', '/quick', () => ok);
    const idle = timers();
    await api.client.request('GET', '/quick');
    expect(timers()).toBeLessThanOrEqual(idle);
  });

  it('each way of running out of time has its own phase and words', async () => {
    api = mockApi({ timeoutMs: 4000, retries: 0 });
    const fail = (path: string, code: string) =>
      api.pool.intercept({ path, method: 'GET' }).replyWithError(Object.assign(new Error(code), { code }));
    fail('/c', 'UND_ERR_CONNECT_TIMEOUT');
    fail('/h', 'UND_ERR_HEADERS_TIMEOUT');
    fail('/b', 'UND_ERR_BODY_TIMEOUT');
    const err = (p: string) => api.client.request<any>('GET', p).catch((e) => e);
    expect(await err('/c')).toMatchObject({ phase: 'connect', message: 'could not connect to api.test within 4000 ms' });
    expect(await err('/h')).toMatchObject({ phase: 'headers', message: 'api.test did not answer within 4000 ms (no response headers)' });
    expect(await err('/b')).toMatchObject({ phase: 'stall', message: 'the transfer from api.test stalled: nothing received for 4000 ms' });
  });

  it("the caller's signal is an AbortedError, not retried", async () => {
    api = mockApi();
    api.pool.intercept({ path: '/slow', method: 'GET' }).reply(200, '{}').delay(2000);
    const ac = new AbortController();
    setTimeout(() => ac.abort(), 20);
    const err = await api.client.request<any>('GET', '/slow', { signal: ac.signal }).catch((e) => e);
    expect(err).toBeInstanceOf(AbortedError);
    expect(api.sleeps).toHaveLength(0);
  });

  it('a signal that already fired sends nothing', async () => {
    api = mockApi();
    api.on('GET', '/x', () => ok);
    const ac = new AbortController();
    ac.abort();
    await expect(api.client.request<any>('GET', '/x', { signal: ac.signal })).rejects.toBeInstanceOf(AbortedError);
    expect(api.calls).toHaveLength(0);
  });

  it('a request waiting for a free connection stops at once on its signal, not when the connection frees', async () => {
    // one connection, held 0.6 s by the first request: the second waits in the pool for it
    const server = createServer((req, res) => {
      req.resume();
      setTimeout(() => res.writeHead(200, { 'content-type': 'application/json' }).end('{"status":"ok","version":"1.2"}'), 600);
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
    const client = new ApiClient({ baseUrl: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, credentials: CREDS, connections: 1, retries: 0 });
    try {
      const first = client.request('GET', '/hold').catch((e) => e);
      const t0 = Date.now();
      const queued = await client.request('GET', '/queued', { signal: AbortSignal.timeout(50) }).catch((e) => e);
      expect(queued).toBeInstanceOf(AbortedError);
      expect(Date.now() - t0).toBeLessThan(400);
      expect(await first).toMatchObject({ status: 'ok' });
    } finally {
      await client.close().catch(() => undefined);
      server.closeAllConnections();
      await new Promise((r) => server.close(r));
    }
  });

  it('close({ exiting }) leaves an idle pool\'s sockets to the exit of the process; busy, or without it, the pool closes them', async () => {
    const closed: string[] = [];
    const server = createServer((req, res) => {
      req.resume();
      const wait = req.url === '/slow' ? 150 : 0;
      setTimeout(() => res.writeHead(200, { 'content-type': 'application/json' }).end('{"status":"ok","version":"1.2"}'), wait);
    });
    server.on('connection', (socket) => socket.on('close', () => closed.push('socket')));
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
    const baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    const settle = () => new Promise((r) => setTimeout(r, 50));
    try {
      const idle = new ApiClient({ baseUrl, credentials: CREDS, retries: 0 });
      await idle.request('GET', '/x');
      await idle.close({ exiting: true });
      await settle();
      expect(closed).toEqual([]);
      // the pool still works: nothing was closed
      expect(await idle.request('GET', '/y')).toMatchObject({ status: 'ok' });
      await idle.close();
      await settle();
      expect(closed).toEqual(['socket']);

      const busy = new ApiClient({ baseUrl, credentials: CREDS, retries: 0 });
      const inFlight = busy.request('GET', '/slow');
      await new Promise((r) => setTimeout(r, 30));
      await busy.close({ exiting: true });
      expect(await inFlight).toMatchObject({ status: 'ok' });
      await settle();
      expect(closed).toEqual(['socket', 'socket']);
    } finally {
      server.closeAllConnections();
      await new Promise((r) => server.close(r));
    }
  });

  it('connection refused is a NetworkError naming the host', async () => {
    const client = new ApiClient({ baseUrl: 'http://127.0.0.1:9', credentials: CREDS, retries: 0 });
    const err = await client.request<any>('GET', '/x').catch((e) => e);
    await client.close();
    expect(err).toBeInstanceOf(NetworkError);
    expect(err.message).toBe('connection refused by 127.0.0.1:9'); // not '…: connect ECONNREFUSED 127.0.0.1:9' too
  });
});

describe('error mapping', () => {
  it('JSON error bodies, also with HTTP 200, are ApiErrors; 403 + 2002 keeps its code', async () => {
    api = mockApi();
    const e = (code: number) => JSON.stringify({ status: 'error', version: '1.2', error: { code, errorMessage: `m${code}` } });
    api.on('GET', '/a', () => ({ status: 200, body: e(1001), headers: json }));
    api.on('GET', '/b', () => ({ status: 403, body: e(2002), headers: json }));
    api.on('GET', '/c', () => ({ status: 400, body: e(1003), headers: json }));
    await expect(api.client.request<any>('GET', '/a')).rejects.toMatchObject({ code: 1001, apiMessage: 'm1001', httpStatus: 200 });
    const b = await api.client.request<any>('GET', '/b').catch((x) => x);
    expect(b).toBeInstanceOf(ApiError);
    expect(b).toMatchObject({ code: 2002, httpStatus: 403 });
    expect(b.url).toBe('http://api.test/b');
    await expect(api.client.request<any>('GET', '/c')).rejects.toMatchObject({ code: 1003, httpStatus: 400 });
  });

  it('401 plaintext is an AuthError with the reason', async () => {
    api = mockApi();
    api.on('GET', '/a', () => ({ status: 401, body: 'OAuth authentication error: invalid signature', headers: { 'content-type': 'text/plain' } }));
    const err = await api.client.request<any>('GET', '/a').catch((x) => x);
    expect(err).toBeInstanceOf(AuthError);
    expect(err).toMatchObject({ reason: 'invalid signature', httpStatus: 401 });
  });

  it('bad JSON and schema mismatches are ResponseErrors naming what was wrong', async () => {
    const { z } = await import('zod');
    api = mockApi();
    api.on('GET', '/bad', () => ({ status: 200, body: '{"status":"ok",', headers: json }));
    api.on('GET', '/shape', () => ({ status: 200, body: '{"items":{"releases":[{"id":"x"}]}}', headers: json }));
    await expect(api.client.request<any>('GET', '/bad', { what: 'release details' })).rejects.toThrow(/^release details: malformed JSON/);
    const schema = z.looseObject({ items: z.looseObject({ releases: z.array(z.looseObject({ id: z.number() })) }) });
    await expect(api.client.request<any>('GET', '/shape', { schema, what: 'release details' })).rejects.toThrow(/^release details: items\.releases\.0\.id: /);
  });

  it('a schema given by name (no checker of the build: run from source) is built once the request has gone out, and validates as one given built', async () => {
    const { z } = await import('zod');
    const { namedSchema } = await import('../../../src/client/schemas/named');
    api = mockApi();
    api.on('GET', '/shape', () => ({ status: 200, body: '{"items":{"releases":[{"id":"7"}]}}', headers: json }), 2);
    let sentBefore = -1;
    const lazy = (id: import('zod').ZodType) =>
      namedSchema('release.batchBody', async () => {
        sentBefore = api.calls.length;
        return z.looseObject({ items: z.looseObject({ releases: z.array(z.looseObject({ id })) }) }) as never;
      });
    const ok = await api.client.request<any>('GET', '/shape', { schema: lazy(z.string().transform(Number)), what: 'release details' });
    expect(ok.items.releases[0].id).toBe(7);
    expect(sentBefore).toBe(1);
    await expect(api.client.request('GET', '/shape', { schema: lazy(z.number()), what: 'release details' })).rejects.toThrow(/^release details: items\.releases\.0\.id: /);
    expect(sentBefore).toBe(2);
  });

  it('requestLater reads a 2xx body only when asked (parse, API error, schema), and throws any other answer at once', async () => {
    const { z } = await import('zod');
    api = mockApi();
    const e = (code: number) => JSON.stringify({ status: 'error', version: '1.2', error: { code, errorMessage: `m${code}` } });
    api.on('GET', '/ok', () => ({ status: 200, body: '{"items":{"releases":[{"id":"7"}]}}', headers: json }));
    api.on('GET', '/bad', () => ({ status: 200, body: '{"status":"ok",', headers: json }));
    api.on('GET', '/err200', () => ({ status: 200, body: e(1001), headers: json }));
    api.on('GET', '/err403', () => ({ status: 403, body: e(2002), headers: json }));
    api.on('GET', '/xml', () => ({ status: 200, body: '<response status="ok" version="1.2"><items><releases><release id="7"/></releases></items></response>', headers: { 'content-type': 'application/xml' } }));
    const schema = z.looseObject({ items: z.looseObject({ releases: z.array(z.looseObject({ id: z.string().transform(Number) })) }) });
    const read = await api.client.requestLater<any>('GET', '/ok', { schema, what: 'release details' });
    expect(typeof read).toBe('function');
    expect(read().items.releases[0].id).toBe(7);
    // a 2xx answer's faults are its reader's: thrown when it is read, not when it arrives
    const bad = await api.client.requestLater('GET', '/bad', { what: 'release details' });
    expect(() => bad()).toThrow(/^release details: malformed JSON/);
    const err200 = await api.client.requestLater('GET', '/err200');
    expect(() => err200()).toThrow(ApiError);
    const shape = await api.client.requestLater('GET', '/ok', { schema: z.looseObject({ items: z.looseObject({ releases: z.array(z.looseObject({ id: z.number() })) }) }), what: 'release details' });
    expect(() => shape()).toThrow(/^release details: items\.releases\.0\.id: /);
    // a refusal stops its caller at once, as request() would
    await expect(api.client.requestLater('GET', '/err403')).rejects.toMatchObject({ code: 2002, httpStatus: 403 });
    // an XML body: its reader is loaded before the answer is handed over, so reading it is synchronous
    const xmlRead = await api.client.requestLater<any>('GET', '/xml');
    expect(JSON.stringify(xmlRead())).toContain('"id":7');
  });

  it('requestRaw with throwOnHttpError false returns 4xx answers as they are', async () => {
    api = mockApi();
    api.on('GET', '/1.2/x', () => ({ status: 404, body: '{"status":"error"}', headers: json }));
    const res = await api.client.requestRaw({ method: 'GET', path: '/1.2/x', query: { a: '1' }, throwOnHttpError: false });
    expect(res).toMatchObject({ status: 404, body: '{"status":"error"}', text: '{"status":"error"}' });
    expect(res.headers['content-type']).toBe('application/json');
    await expect(api.client.requestRaw({ method: 'GET', path: '/1.2/x' })).rejects.toBeInstanceOf(ApiError);
  });

  it('requestLater: the body is read only when asked, to what request() gives or throws', async () => {
    const { z } = await import('zod');
    api = mockApi();
    const good = JSON.stringify({ status: 'ok', version: '1.2', items: { releases: [{ id: 7 }] } });
    api.on('GET', '/good', () => ({ status: 200, body: good, headers: json }), 2);
    api.on('GET', '/bad', () => ({ status: 200, body: '{"status":"ok",', headers: json }));
    api.on('GET', '/error', () => ({ status: 200, body: JSON.stringify({ status: 'error', version: '1.2', error: { code: 1003, errorMessage: 'm' } }), headers: json }));
    api.on('GET', '/shape', () => ({ status: 200, body: '{"items":{"releases":[{"id":"x"}]}}', headers: json }));
    api.on('GET', '/xml', () => ({ status: 200, body: '<response status="ok" version="1.2"><release id="9"><title>T</title></release></response>', headers: { 'content-type': 'application/xml' } }), 2);
    const schema = z.looseObject({ items: z.looseObject({ releases: z.array(z.looseObject({ id: z.number() })) }) });
    const o = { schema, what: 'release details' };
    const readGood = await api.client.requestLater<any>('GET', '/good', o);
    expect(readGood()).toEqual(await api.client.request<any>('GET', '/good', o));
    // fetched without a word; the faults are the reader's, each as request() would throw it
    const [bad, error, shape] = await Promise.all(['/bad', '/error', '/shape'].map((p) => api.client.requestLater<any>('GET', p, o)));
    expect(bad).toThrow(/^release details: malformed JSON/);
    expect(error).toThrow(ApiError);
    expect(shape).toThrow(/^release details: items\.releases\.0\.id: /);
    // an XML body: its reader is loaded before the answer is handed over, so reading stays synchronous
    const xml = (await api.client.requestLater<any>('GET', '/xml'))();
    expect(xml).toEqual(await api.client.request<any>('GET', '/xml'));
    expect(xml.release).toBeDefined();
  });

  it('an answer read once keeps nothing of its body: its reader and its bytes are handed over once', async () => {
    const { Transport } = await import('../../../src/client/transport');
    api = mockApi();
    const good = JSON.stringify({ status: 'ok', version: '1.2', n: 1 });
    api.on('GET', '/good', () => ({ status: 200, body: good, headers: json }), 3);
    // (a walk's promise that outlived a young collection still points at the reader, or the
    // request at its bytes: whatever they kept would live until a full collection)
    const read = await api.client.requestLater<any>('GET', '/good');
    expect(read()).toEqual(JSON.parse(good));
    expect(read).toThrow(/read twice/);
    const t = new Transport({ baseUrl: ORIGIN, timeoutMs: 1000, maxBodyBytes: 1e6, connections: 1, dispatcher: api.agent, scrub: (x) => x });
    const a = await t.sendBuffered({ method: 'GET', url: `${ORIGIN}/good`, headers: {} });
    expect((await a.bytes()).toString()).toBe(good);
    await expect(a.bytes()).rejects.toThrow(/read twice/);
    // a body read for an error message first is still handed over whole
    const b = await t.sendBuffered({ method: 'GET', url: `${ORIGIN}/good`, headers: {} });
    expect(await b.text()).toBe(good);
    expect((await b.bytes()).toString()).toBe(good);
  });
});

describe('trace', () => {
  it('one line per request and response, with signatures, tokens and secrets masked', async () => {
    for (const authIn of ['header', 'query'] as const) {
      const lines: string[] = [];
      api = mockApi({ authIn, trace: (l) => lines.push(l) });
      api.on('GET', '/1.2/user/locker', (_c, n) => (n === 1 ? { status: 503, body: '' } : ok));
      await api.client.request<any>('GET', '/1.2/user/locker', { query: { country: 'GB' } });
      const all = lines.join('\n');
      expect(all).toMatch(/GET http:\/\/api\.test\/1\.2\/user\/locker\?country=GB/);
      expect(all).toMatch(/503 GET .* \d+ ms/);
      expect(all).toMatch(/200 GET .* \d+ ms \(retry 1\)/);
      expect(all).toMatch(/oauth_signature(=|=")\*\*\*/);
      for (const secret of [CREDS.consumerSecret, CREDS.token, CREDS.tokenSecret, CREDS.consumerKey]) expect(all).not.toContain(secret);
      if (authIn === 'query') {
        const sig = new URL(api.calls[0].path, ORIGIN).searchParams.get('oauth_signature')!;
        expect(all).not.toContain(sig);
        expect(all).not.toContain(encodeURIComponent(sig));
      } else {
        const sig = authParams(api.calls[0].headers.authorization).oauth_signature;
        expect(all).not.toContain(encodeURIComponent(sig));
        expect(all).not.toContain(sig);
      }
      await api.agent.close();
    }
  });

  it('error messages carry no secrets (query transport URL masked)', async () => {
    api = mockApi({ authIn: 'query' });
    api.on('GET', '/e', () => ({ status: 400, body: '{"status":"error","version":"1.2","error":{"code":1002,"errorMessage":"bad"}}', headers: json }));
    const err = await api.client.request<any>('GET', '/e').catch((x) => x);
    expect(err.url).toMatch(/oauth_signature=\*\*\*/);
    expect(err.url).toMatch(/oauth_token=\*\*\*/);
    expect(JSON.stringify({ ...err, m: err.message })).not.toContain(CREDS.token);
  });
});

describe('body size cap', () => {
  it('a body up to the cap is read; one byte more is a BodyTooLargeError', async () => {
    api = mockApi({ maxBodyBytes: 1024 });
    const body = (n: number) => `{"p":"${'x'.repeat(n - 8)}"}`;
    api.on('GET', '/fits', () => ({ status: 200, body: body(1024), headers: json }));
    api.on('GET', '/over', () => ({ status: 200, body: body(1025), headers: json }));
    expect((await api.client.request<any>('GET', '/fits')).p).toHaveLength(1016);
    const err = await api.client.request<any>('GET', '/over').catch((e) => e);
    expect(err).toBeInstanceOf(BodyTooLargeError);
    expect(err.message).toBe('the answer from api.test is larger than the 1 KiB cap');
    expect(api.calls).toHaveLength(2);
  });

  it('a Content-Length over the cap fails before the body is read; error bodies are capped too', async () => {
    api = mockApi({ maxBodyBytes: 100 });
    api.on('GET', '/declared', () => ({ status: 200, body: 'x'.repeat(500), headers: { ...json, 'content-length': '500' } }));
    api.on('GET', '/err', () => ({ status: 500, body: 'x'.repeat(500), headers: { 'content-type': 'text/html' } }), 1);
    const err = await api.client.request<any>('GET', '/declared').catch((e) => e);
    expect(err).toMatchObject({ declaredBytes: 500, message: 'the answer from api.test says it is 500 bytes, larger than the 100 bytes cap' });
    await expect(api.client.request<any>('GET', '/err')).rejects.toBeInstanceOf(BodyTooLargeError);
  });

  it('the default cap is 64 MiB', () => {
    expect(mockApi().client.maxBodyBytes).toBe(64 * 1024 * 1024);
  });
});

describe('redirects', () => {
  it('a 3xx is a RedirectError naming the Location (resolved, secrets masked), never retried or followed', async () => {
    api = mockApi();
    api.on('GET', '/moved', () => ({ status: 302, body: '<html>moved</html>', headers: { location: '/next?oauth_signature=SECRET&a=1' } }));
    const err = await api.client.request<any>('GET', '/moved').catch((e) => e);
    expect(err).toBeInstanceOf(RedirectError);
    expect(err).toMatchObject({ httpStatus: 302, location: 'http://api.test/next?oauth_signature=***&a=1' });
    expect(err.message).toBe('the server redirected to http://api.test/next?oauth_signature=***&a=1; mcat does not follow redirects');
    expect(api.calls).toHaveLength(1);
  });

  it('a JSON body does not hide a redirect; with no Location it still says redirect', async () => {
    api = mockApi();
    api.on('GET', '/j', () => ({ status: 301, body: '{"status":"ok","version":"1.2"}', headers: { ...json, location: 'https://other.example/' } }));
    api.on('GET', '/n', () => ({ status: 303, body: '' }));
    await expect(api.client.request<any>('GET', '/j')).rejects.toMatchObject({ location: 'https://other.example/' });
    await expect(api.client.request<any>('GET', '/n')).rejects.toThrow('the server answered with a redirect but no Location; mcat does not follow redirects');
  });

  it('a media request answered with a redirect is an error, not a stream', async () => {
    api = mockApi();
    api.on('GET', '/media/download/1', () => ({ status: 307, body: '', headers: { location: 'http://cdn.example/f.mp3' } }));
    await expect(api.client.requestStream('GET', '/media/download/1', { idempotent: false })).rejects.toMatchObject({ httpStatus: 307, location: 'http://cdn.example/f.mp3' });
  });
});

describe("an answer's headers", () => {
  it('as sent, by lower-case name, repeated ones joined, bytes past ASCII read as Latin-1', async () => {
    const server = createServer((req, res) => {
      req.resume();
      res.socket!.write(
        Buffer.concat([
          Buffer.from('HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nX-Thing: a\r\nx-thing: b\r\nX-Latin: caf'),
          Buffer.from([0xe9]),
          Buffer.from('\r\n__proto__: polluted\r\nContent-Length: 31\r\n\r\n{"status":"ok","version":"1.2"}'),
        ]),
      );
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
    const client = new ApiClient({ baseUrl: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, credentials: CREDS, retries: 0 });
    try {
      const res = await client.exchange('GET', '/h');
      expect(res.data).toEqual({ status: 'ok', version: '1.2' });
      expect(res.headers['content-type']).toBe('application/json');
      expect(res.headers['x-thing']).toBe('a, b');
      expect(res.headers['x-latin']).toBe('caf\u00e9');
      expect(Object.getPrototypeOf(res.headers)).toBe(Object.prototype);
      expect(Object.prototype.hasOwnProperty.call(res.headers, '__proto__')).toBe(false);
    } finally {
      await client.close();
      server.closeAllConnections();
      await new Promise((r) => server.close(r));
    }
  });
});
