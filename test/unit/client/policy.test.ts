// The one retry and rate policy: the shared limiter (first request alone, pauses on 429, pacing
// from X-RateLimit-*), and the policy through a real client on undici's MockAgent (what is
// retried, how often, signed afresh; a create only when its attempt is known not to have taken effect).
import { afterEach, describe, expect, it } from 'vitest';
import { HttpError, NetworkError, RateLimitError } from '../../../src/client/errors';
import { RateLimiter } from '../../../src/client/policy';
import { json, mockApi } from './helpers';

/** A clock that only sleeps move, and a log of the sleeps. */
function fakeTime() {
  const t = { now: 1_000_000, sleeps: [] as number[] };
  return {
    t,
    now: () => t.now,
    sleep: async (ms: number) => {
      t.sleeps.push(Math.round(ms));
      t.now += ms;
    },
  };
}

const rl = (limit: number, current: number, reset: number) => ({
  'x-ratelimit-limit': String(limit),
  'x-ratelimit-current': String(current),
  'x-ratelimit-reset': String(reset),
});

describe('RateLimiter', () => {
  it('lets the first request go alone: the others wait for its answer (or its failure)', async () => {
    const ft = fakeTime();
    const l = new RateLimiter(ft);
    await l.acquire();
    const order: string[] = [];
    const second = l.acquire().then(() => order.push('second'));
    const third = l.acquire().then(() => order.push('third'));
    await new Promise((r) => setTimeout(r, 5));
    expect(order).toEqual([]);
    l.observe(200, {});
    await Promise.all([second, third]);
    expect(order).toEqual(['second', 'third']);

    const l2 = new RateLimiter(fakeTime());
    await l2.acquire();
    const waiting = l2.acquire();
    l2.settle(); // the first request failed without an answer
    await waiting;
  });

  it('tryAcquire lets a request go at once only when acquire() would not wait, keeping the same pace', async () => {
    const ft = fakeTime();
    const l = new RateLimiter(ft);
    // before the first answer: acquire() decides (the first request goes alone)
    expect(l.tryAcquire()).toBe(false);
    await l.acquire();
    expect(l.tryAcquire()).toBe(false);
    l.observe(200, rl(20, 1, 1));
    // paced at 19 a second: the first slot is now, the next one 1000/19 ms later
    expect(l.tryAcquire()).toBe(true);
    expect(l.tryAcquire()).toBe(false);
    await l.acquire();
    expect(ft.t.sleeps).toEqual([53]);
    ft.t.now += 60;
    expect(l.tryAcquire()).toBe(true);
    // a 429 pauses everyone: nobody goes at once until it has passed
    l.observe(429, { 'retry-after': '2' });
    ft.t.now += 1000;
    expect(l.tryAcquire()).toBe(false);
    ft.t.now += 1001;
    const free = new RateLimiter(ft);
    await free.acquire();
    free.observe(200, {});
    for (let i = 0; i < 5; i++) expect(free.tryAcquire()).toBe(true);
  });

  it('paces to the rate X-RateLimit-Limit and -Reset allow, a little under it', async () => {
    const ft = fakeTime();
    const l = new RateLimiter(ft);
    await l.acquire();
    l.observe(200, rl(20, 1, 1));
    expect(l.pace).toBe(19); // 20 a 1-s window, one left as margin for timing jitter
    const starts: number[] = [];
    for (let i = 0; i < 20; i++) {
      await l.acquire();
      starts.push(ft.t.now);
    }
    const gaps = starts.slice(1).map((s, i) => s - starts[i]);
    for (const g of gaps) expect(g).toBeCloseTo(1000 / 19, 6);
    // a window of a minute: the longest Reset seen is its length
    l.observe(200, rl(600, 5, 60));
    expect(l.pace).toBeCloseTo(570 / 60, 6);
  });

  it('a spent window (Current = Limit) stops everyone until it resets', async () => {
    const ft = fakeTime();
    const l = new RateLimiter(ft);
    await l.acquire();
    l.observe(200, rl(1000, 1000, 3));
    expect(l.pausedUntil).toBe(ft.t.now + 3000);
    await l.acquire();
    expect(ft.t.sleeps).toEqual([3000]);
  });

  it('a wait for a turn past the cap fails with RateLimitError at once: a spent window of 10^12 s, a pace under one request per cap', async () => {
    const ft = fakeTime();
    const l = new RateLimiter({ ...ft, maxWaitMs: 60_000 });
    await l.acquire();
    l.observe(200, rl(1, 5, 1e12));
    const err = await l.acquire().catch((e: unknown) => e);
    expect(err).toBeInstanceOf(RateLimitError);
    expect((err as RateLimitError).httpStatus).toBe(200);
    expect((err as Error).message).toBe('rate limited: the service asks to wait more than a year, more than the 60 s mcat waits');
    expect(ft.t.sleeps).toEqual([]);

    // a spent window of 60 s (the cap), its end known to some ms: waited
    const minute = fakeTime();
    const w = new RateLimiter({ ...minute, maxWaitMs: 60_000 });
    const t0 = minute.t.now;
    await w.acquire();
    minute.t.now += 2;
    w.observe(200, rl(1000, 1, 60), t0);
    w.observe(200, rl(1000, 1000, 60), t0 + 1);
    await w.acquire();
    expect(minute.t.sleeps).toEqual([60_010]);

    // not spent, but paced at 0.5 requests an hour: the second request would wait two hours
    const slow = new RateLimiter({ ...fakeTime(), maxWaitMs: 60_000 });
    await slow.acquire();
    slow.observe(200, rl(2, 1, 7200));
    await slow.acquire();
    await expect(slow.acquire()).rejects.toThrow(/asks to wait 2 h, more than the 60 s/);

    // a pace the cap allows (1.9 a second): 150 at once, the last one's turn 79 s away, all wait their turns
    const ok = fakeTime();
    const paced = new RateLimiter({ ...ok, maxWaitMs: 60_000 });
    await paced.acquire();
    paced.observe(200, rl(40, 1, 20));
    const start = ok.t.now;
    await Promise.all(Array.from({ length: 150 }, () => paced.acquire()));
    expect(ok.t.now - start).toBeGreaterThan(60_000);
  });

  it('a window whose start it saw: a spent window waits only until that window ends, not a whole Reset', async () => {
    const ft = fakeTime();
    const l = new RateLimiter(ft);
    const t0 = ft.t.now;
    await l.acquire();
    ft.t.now += 2; // the first request of a window took 2 ms there and back
    l.observe(200, rl(20, 1, 1), t0);
    ft.t.now = t0 + 990;
    l.observe(200, rl(20, 20, 1), t0 + 985);
    // the window began when the first request arrived (between t0 and t0 + 2): it ends by t0 + 1000 + 2 (+10 of margin)
    expect(l.pausedUntil).toBe(t0 + 1000 + 12);
    // an answer from before that window (answers can cross) says nothing about it
    const l2 = new RateLimiter(ft);
    await l2.acquire();
    l2.observe(200, rl(20, 1, 1), ft.t.now);
    l2.observe(200, rl(20, 20, 1), ft.t.now - 500);
    expect(l2.pausedUntil).toBe(0);
  });

  it('a 429 pauses everyone until Retry-After, once per burst lowers the pace to 70 %, which climbs back 5 % a second', async () => {
    const ft = fakeTime();
    const l = new RateLimiter(ft);
    await l.acquire();
    l.observe(200, rl(100, 1, 1));
    expect(l.pace).toBe(95);
    l.observe(429, { ...rl(100, 100, 1), 'retry-after': '2' });
    l.observe(429, { ...rl(100, 100, 1), 'retry-after': '2' }); // the same burst: no second cut
    expect(l.rateLimited).toBe(2);
    expect(l.pausedUntil).toBe(ft.t.now + 2000);
    expect(l.pace).toBeCloseTo(95 * 0.7, 6);
    // three requests waiting: each waits for the pause, then they go one slot apart
    const starts: number[] = [];
    for (let i = 0; i < 3; i++) {
      await l.acquire();
      starts.push(ft.t.now);
    }
    expect(ft.t.sleeps[0]).toBe(2000);
    expect(starts[0]).toBe(1_000_000 + 2000);
    ft.t.now += 4000; // 6 s after the cut: back to the full pace
    expect(l.pace).toBe(95);
  });

  it('a 429 with no Retry-After pauses for a second; a server with no X-RateLimit-* gets the pace it was sent at, lowered', async () => {
    const ft = fakeTime();
    const l = new RateLimiter(ft);
    await l.acquire();
    l.observe(200, {});
    for (let i = 0; i < 9; i++) await l.acquire(); // 10 started within the last second
    expect(l.pace).toBe(Infinity);
    l.observe(429, {});
    expect(l.pausedUntil).toBe(ft.t.now + 1000);
    expect(l.pace).toBeCloseTo(7, 6);
    ft.t.now += 6000; // climbed back: no pace any more (the server never said what it allows)
    expect(l.pace).toBe(Infinity);
  });

  it('an abort while waiting throws AbortedError and sends nothing', async () => {
    const l = new RateLimiter();
    await l.acquire();
    l.observe(429, { 'retry-after': '30' });
    const ac = new AbortController();
    const p = l.acquire(ac.signal);
    setTimeout(() => ac.abort(), 5);
    await expect(p).rejects.toMatchObject({ name: 'AbortedError' });
  });
});

describe('the policy in the request core', () => {
  let api: ReturnType<typeof mockApi>;
  afterEach(async () => {
    await api?.agent.close().catch(() => undefined);
  });
  const ok = { status: 200, body: '{"status":"ok","version":"1.2"}', headers: json };
  const created = { status: 200, body: '{"playlist":{"id":"p1"}}', headers: json };
  const nonceOf = (h: string) => /oauth_nonce="([^"]+)"/.exec(h)?.[1];

  it('a 429 feeds the shared limiter: a request of another client on it waits out the pause before it is sent', async () => {
    const limiterTime = fakeTime();
    const limiter = new RateLimiter(limiterTime);
    api = mockApi({ limiter });
    api.on('GET', '/a', (_c, n) => (n === 1 ? { status: 429, body: '', headers: { 'retry-after': '4' } } : ok));
    api.on('GET', '/b', () => ok);
    await api.client.request<any>('GET', '/a');
    expect(limiter.rateLimited).toBe(1);
    expect(limiterTime.t.sleeps).toEqual([4000]);
    const other = mockApi({ limiter, dispatcher: api.agent });
    limiter.observe(429, { 'retry-after': '3' });
    await other.client.request<any>('GET', '/b');
    expect(limiterTime.t.sleeps).toEqual([4000, 3000]);
    expect(api.calls.map((c) => c.path.split('?')[0])).toEqual(['/a', '/a', '/b']);
  });

  it('a 429 is retried for any method (it was refused); with a fresh signature each time', async () => {
    api = mockApi();
    api.on('POST', '/1.2/playlists', (_c, n) => (n <= 2 ? { status: 429, body: 'slow down', headers: { 'retry-after': '1' } } : created));
    const body = await api.client.request<any>('POST', '/1.2/playlists', { json: { name: 'x' }, idempotent: false });
    expect(body.playlist.id).toBe('p1');
    expect(api.calls).toHaveLength(3);
    expect(new Set(api.calls.map((c) => nonceOf(c.headers.authorization))).size).toBe(3);
    // two pauses of a second (no Retry-After); what else was waited is the lowered pace
    expect(api.sleeps.filter((s) => s === 1000)).toHaveLength(2);
  });

  it('a create whose answer was lost is sent again only when confirmNotApplied says it did not take effect', async () => {
    const reset = () => {
      throw Object.assign(new Error('read ECONNRESET'), { code: 'ECONNRESET' });
    };
    // not applied: sent again
    api = mockApi();
    api.on('POST', '/1.2/playlists', (_c, n) => (n === 1 ? reset() : created));
    let asked = 0;
    const body = await api.client.request<any>('POST', '/1.2/playlists', { json: {}, idempotent: false, confirmNotApplied: async () => (asked++, true) });
    expect(body.playlist.id).toBe('p1');
    expect(asked).toBe(1);
    expect(api.calls).toHaveLength(2);
    await api.agent.close();

    // it may have been applied: not sent again, the failure is the caller's
    api = mockApi();
    api.on('POST', '/1.2/playlists', () => reset());
    const err = await api.client.request<any>('POST', '/1.2/playlists', { json: {}, idempotent: false, confirmNotApplied: async () => false }).catch((e) => e);
    expect(err).toBeInstanceOf(NetworkError);
    expect(api.calls).toHaveLength(1);
    await api.agent.close();

    // a 503 from a gateway: the same question; a check that fails counts as "may have been applied"
    api = mockApi();
    api.on('POST', '/1.2/playlists', () => ({ status: 503, body: '<html><title>Gateway busy</title></html>' }));
    const err2 = await api.client
      .request<any>('POST', '/1.2/playlists', {
        json: {},
        idempotent: false,
        confirmNotApplied: async () => {
          throw new Error('cannot list');
        },
      })
      .catch((e) => e);
    expect(err2).toBeInstanceOf(HttpError);
    expect(err2.message).toMatch(/Gateway busy/);
    expect(api.calls).toHaveLength(1);
  });

  it('one budget: --retries bounds every kind of retry, 429s included', async () => {
    api = mockApi({ retries: 2 });
    const seq = [503, 429, 429];
    api.on('GET', '/r', (_c, n) => ({ status: seq[n - 1] ?? 200, body: '', headers: seq[n - 1] === 429 ? { 'retry-after': '1' } : ({} as Record<string, string>) }));
    const err = await api.client.request<any>('GET', '/r').catch((e) => e);
    expect(err).toMatchObject({ httpStatus: 429, retryAfterSeconds: 1 });
    expect(api.calls).toHaveLength(3);
  });

  it('X-RateLimit-* headers pace the requests that follow, before any 429', async () => {
    api = mockApi();
    let n = 0;
    api.on('GET', '/r', () => ({ ...ok, headers: { ...json, ...rl(10, ++n, 1) } }));
    for (let i = 0; i < 5; i++) await api.client.request<any>('GET', '/r');
    // 9 a second: the third request on are spaced 1000/9 ms apart
    expect(api.sleeps.map((s) => Math.round(s))).toEqual([111, 111, 111]);
  });

  it('--verbose says when everyone waits for a 429', async () => {
    const lines: string[] = [];
    api = mockApi({ trace: (l) => lines.push(l) });
    api.on('GET', '/r', (_c, n) => (n === 1 ? { status: 429, body: '', headers: { 'retry-after': '2' } } : ok));
    await api.client.request<any>('GET', '/r');
    expect(lines.join('\n')).toMatch(/429 GET http:\/\/api\.test\/r \d+ ms; rate limited: everyone waits 2000 ms/);
    expect(lines.join('\n')).toMatch(/200 GET http:\/\/api\.test\/r \d+ ms \(retry 1\)/);
  });
});
