import { describe, expect, it } from 'vitest';
import { AimdScheduler, classifyError } from '../../../src/bulk/scheduler';
import { ApiError, AuthError, HttpError, NetworkError, RateLimitError, ResponseError, TimeoutError } from '../../../src/client/errors';

const tick = () => new Promise((r) => setTimeout(r, 1));

describe('classifyError', () => {
  it('separates transient, rate-limited and permanent failures', () => {
    expect(classifyError(new NetworkError('reset'))).toBe('transient');
    expect(classifyError(new TimeoutError(100))).toBe('transient');
    expect(classifyError(new HttpError(503, 'x'))).toBe('transient');
    expect(classifyError(new HttpError(429, 'x'))).toBe('rate-limited');
    expect(classifyError(new ApiError(9001, 'x', 500))).toBe('transient');
    expect(classifyError(new ResponseError('bad body', 200))).toBe('transient');
    expect(classifyError(new ApiError(1002, 'x', 400))).toBe('permanent');
    expect(classifyError(new ApiError(2001, 'x', 404))).toBe('permanent');
    expect(classifyError(new AuthError('access to resource denied', 401))).toBe('permanent');
    expect(classifyError(new RateLimitError(600))).toBe('permanent');
    expect(classifyError(new HttpError(404, 'x'))).toBe('permanent');
    expect(classifyError(new TypeError('bug'))).toBe('permanent');
  });
});

describe('AimdScheduler', () => {
  it('halves once per burst of 429s, pauses everyone, then climbs back one step per K successes', () => {
    let t = 0;
    const s = new AimdScheduler({ concurrency: 8, increaseEvery: 2, now: () => t });
    s.noteRateLimited(3000);
    expect(s.limit).toBe(4);
    expect(s.pausedUntil).toBe(3000);
    t = 100;
    s.noteRateLimited(3000); // same burst: answers to requests already in flight
    expect(s.limit).toBe(4);
    expect(s.pausedUntil).toBe(3100);
    t = 5000;
    s.noteRateLimited(1000);
    expect(s.limit).toBe(2);
    s.noteRateLimited(undefined);
    expect(s.limit).toBe(2);
    for (let i = 0; i < 2; i++) s.noteSuccess();
    expect(s.limit).toBe(3);
    for (let i = 0; i < 100; i++) s.noteSuccess();
    expect(s.limit).toBe(8);
    t = 20_000;
    for (let i = 0; i < 10; i++) {
      s.noteRateLimited(0);
      t += 1000;
    }
    expect(s.limit).toBe(1);
  });

  it('never runs more than the current limit, and honours the pause before starting anything', async () => {
    const s = new AimdScheduler({ concurrency: 4, increaseEvery: 1000, baseDelayMs: 1, maxDelayMs: 2 });
    let inFlight = 0;
    let peak = 0;
    const peaks: number[] = [];
    let firstAfterPause = 0;
    let rateLimitedAt = 0;
    let hit = false;
    await s.run(
      Array.from({ length: 40 }, (_, i) => ({ item: i })),
      async (i) => {
        if (rateLimitedAt && !firstAfterPause) firstAfterPause = Date.now();
        inFlight++;
        peak = Math.max(peak, inFlight);
        await tick();
        inFlight--;
        if (i === 10 && !hit) {
          hit = true;
          rateLimitedAt = Date.now();
          throw Object.assign(new HttpError(429, 'slow down'), { retryAfterSeconds: 0.05 });
        }
        peaks.push(peak);
        if (i === 10) peak = 0; // measure again after the halving
      },
      { onDone: () => {}, onFailed: () => {} },
    );
    expect(peaks[0]).toBeLessThanOrEqual(4);
    expect(s.limit).toBe(2);
    expect(peak).toBeLessThanOrEqual(2);
    expect(firstAfterPause - rateLimitedAt).toBeGreaterThanOrEqual(45);
  });

  it('retries transient failures with backoff up to maxAttempts, reports permanent ones at once', async () => {
    const s = new AimdScheduler({ concurrency: 2, maxAttempts: 4, baseDelayMs: 1, maxDelayMs: 2 });
    const attempts = new Map<string, number>();
    const done: string[] = [];
    const failed: [string, number][] = [];
    await s.run(
      ['ok', 'flaky', 'dead', 'bad'].map((item) => ({ item })),
      async (item, attempt) => {
        attempts.set(item, attempt);
        if (item === 'flaky' && attempt < 3) throw new NetworkError('reset');
        if (item === 'dead') throw new TimeoutError(5);
        if (item === 'bad') throw new ApiError(1002, 'no', 400);
      },
      { onDone: (i) => done.push(i), onFailed: (i, _e, n) => failed.push([i, n]) },
    );
    expect(done.sort()).toEqual(['flaky', 'ok']);
    expect(failed.sort()).toEqual([
      ['bad', 1],
      ['dead', 4],
    ]);
    expect(attempts.get('flaky')).toBe(3);
  });

  it('keeps lanes in order and one at a time', async () => {
    const s = new AimdScheduler({ concurrency: 8 });
    const order: number[] = [];
    const busy = new Set<string>();
    await s.run(
      Array.from({ length: 20 }, (_, i) => ({ item: i, lane: i % 3 === 0 ? 'A' : undefined })),
      async (i) => {
        const lane = i % 3 === 0 ? 'A' : `free${i}`;
        expect(busy.has(lane)).toBe(false);
        busy.add(lane);
        await tick();
        busy.delete(lane);
        if (i % 3 === 0) order.push(i);
      },
      { onDone: () => {}, onFailed: () => {} },
    );
    expect(order).toEqual([0, 3, 6, 9, 12, 15, 18]);
  });

  it('on abort starts nothing new, lets in-flight work finish, and drops pending retries', async () => {
    const ac = new AbortController();
    const s = new AimdScheduler({ concurrency: 3, baseDelayMs: 50, maxDelayMs: 50, random: () => 0.99 });
    const started: number[] = [];
    const done: number[] = [];
    const res = await s.run(
      Array.from({ length: 20 }, (_, i) => ({ item: i })),
      async (i, attempt) => {
        started.push(i);
        if (i === 1 && attempt === 1) throw new NetworkError('reset');
        if (i === 4) ac.abort();
        await new Promise((r) => setTimeout(r, 10));
      },
      { onDone: (i) => done.push(i), onFailed: () => {} },
      ac.signal,
    );
    expect(res.interrupted).toBe(true);
    expect(Math.max(...started)).toBeLessThanOrEqual(6);
    expect(done).toContain(4);
    expect(done).not.toContain(1);
    expect(res.unfinished).toContain(1);
    expect(res.unfinished.length + done.length).toBe(20);
  });

  it('stops and rethrows when a hook throws (the journal cannot be written)', async () => {
    const s = new AimdScheduler({ concurrency: 2 });
    let calls = 0;
    await expect(
      s.run(
        Array.from({ length: 10 }, (_, i) => ({ item: i })),
        async () => {
          calls++;
          await tick();
        },
        {
          onDone: (i) => {
            if (i === 2) throw new Error('ENOSPC');
          },
          onFailed: () => {},
        },
      ),
    ).rejects.toThrow('ENOSPC');
    expect(calls).toBeLessThan(10);
  });
});
