// The bulk scheduler decides only how many edits are in flight and in what order: it never
// retries (the client's policy does, per request) and never slows down on its own.
import { describe, expect, it } from 'vitest';
import { HttpError, NetworkError } from '../../../src/client/errors';
import { Scheduler } from '../../../src/bulk/scheduler';

const tick = () => new Promise((r) => setTimeout(r, 1));

describe('Scheduler', () => {
  it('never runs more than `concurrency` edits at once', async () => {
    const s = new Scheduler({ concurrency: 4 });
    let inFlight = 0;
    let peak = 0;
    await s.run(
      Array.from({ length: 40 }, (_, i) => ({ item: i })),
      async () => {
        inFlight++;
        peak = Math.max(peak, inFlight);
        await tick();
        inFlight--;
      },
      { onDone: () => {}, onFailed: () => {} },
    );
    expect(peak).toBe(4);
  });

  it('a failure is reported at once, never retried: a 429 or a reset included (the client has retried it already)', async () => {
    const s = new Scheduler({ concurrency: 2 });
    const calls = new Map<string, number>();
    const done: string[] = [];
    const failed: string[] = [];
    await s.run(
      ['ok', 'limited', 'reset'].map((item) => ({ item })),
      async (item) => {
        calls.set(item, (calls.get(item) ?? 0) + 1);
        if (item === 'limited') throw new HttpError(429, 'slow down');
        if (item === 'reset') throw new NetworkError('reset', 'ECONNRESET');
      },
      { onDone: (i) => done.push(i), onFailed: (i) => failed.push(i) },
    );
    expect(done).toEqual(['ok']);
    expect(failed.sort()).toEqual(['limited', 'reset']);
    expect([...calls.values()]).toEqual([1, 1, 1]);
  });

  it('keeps lanes in order and one at a time', async () => {
    const s = new Scheduler({ concurrency: 8 });
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

  it('on abort starts nothing new and lets in-flight work finish', async () => {
    const ac = new AbortController();
    const s = new Scheduler({ concurrency: 3 });
    const started: number[] = [];
    const done: number[] = [];
    const res = await s.run(
      Array.from({ length: 20 }, (_, i) => ({ item: i })),
      async (i) => {
        started.push(i);
        if (i === 4) ac.abort();
        await new Promise((r) => setTimeout(r, 10));
      },
      { onDone: (i) => done.push(i), onFailed: () => {} },
      ac.signal,
    );
    expect(res.interrupted).toBe(true);
    expect(Math.max(...started)).toBe(4);
    expect(done).toEqual(started);
    expect(res.unfinished.length + done.length).toBe(20);
  });

  it('stops and rethrows when a hook throws (the journal cannot be written)', async () => {
    const s = new Scheduler({ concurrency: 2 });
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
