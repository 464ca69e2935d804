// The adaptive in-flight limit of `playlist apply` (no --concurrency): it grows while the service
// keeps up, and shrinks on 429s (the client's limiter counts them) and on queueing.
import { describe, expect, it } from 'vitest';
import { AdaptiveLimit } from '../../../src/bulk/adaptive';
import { Scheduler } from '../../../src/bulk/scheduler';

/** One window of `limit` edits, every slot busy, each taking `ms`. */
function window(a: AdaptiveLimit, ms: number): void {
  const n = a.limit;
  for (let i = 0; i < n; i++) a.started(i + 1);
  for (let i = 0; i < n; i++) a.finished(ms);
}

describe('AdaptiveLimit', () => {
  it('grows while the time per edit stays flat: doubling from 32 up to its cap', () => {
    const a = new AdaptiveLimit();
    expect(a.limit).toBe(32);
    window(a, 20);
    expect(a.limit).toBe(64);
    window(a, 21);
    expect(a.limit).toBe(64);
    window(a, 22);
    expect(a.limit).toBe(64);
  });

  it('does not grow when the slots were not all busy (the limit was not what held the run back)', () => {
    const a = new AdaptiveLimit({ initial: 8 });
    for (let round = 0; round < 5; round++) {
      for (let i = 0; i < 8; i++) a.started(Math.min(i + 1, 5));
      for (let i = 0; i < 8; i++) a.finished(20);
    }
    expect(a.limit).toBe(8);
  });

  it('stops growing when edits take longer (queueing), and gives back a tenth past twice the best time', () => {
    const a = new AdaptiveLimit({ initial: 16 });
    window(a, 20); // best 20 ms
    expect(a.limit).toBe(32);
    window(a, 40); // within neither: no change
    expect(a.limit).toBe(32);
    window(a, 60); // past 2x + 5 ms
    expect(a.limit).toBe(28);
    window(a, 20); // keeping up again: additive now, no more doubling
    expect(a.limit).toBe(31);
  });

  it('a 429 cuts it to 70 % at once; it then grows by an eighth, not doubling', () => {
    let n429 = 0;
    const a = new AdaptiveLimit({ initial: 64, rateLimited: () => n429 });
    a.started(1);
    a.finished(20);
    n429++;
    a.finished(20);
    expect(a.limit).toBe(44);
    // the answers to the others in flight with it are counted in the same burst: one more cut per new 429 only
    a.finished(20);
    expect(a.limit).toBe(44);
    window(a, 20);
    expect(a.limit).toBe(49);
  });

  it('never goes under its floor or over its cap', () => {
    let n429 = 0;
    const a = new AdaptiveLimit({ initial: 6, min: 4, max: 10, rateLimited: () => n429 });
    for (let i = 0; i < 5; i++) {
      n429++;
      a.finished(20);
    }
    expect(a.limit).toBe(4);
    for (let i = 0; i < 20; i++) window(a, 20);
    expect(a.limit).toBe(10);
  });
});

describe('Scheduler with an adaptive limit', () => {
  const run = async (s: Scheduler, n: number, ms: () => number) => {
    let inFlight = 0;
    let peak = 0;
    await s.run(
      Array.from({ length: n }, (_, i) => ({ item: i })),
      async () => {
        inFlight++;
        peak = Math.max(peak, inFlight);
        await new Promise((r) => setTimeout(r, ms()));
        inFlight--;
      },
      { onDone: () => {}, onFailed: () => {} },
    );
    return peak;
  };

  it('lets more edits in flight than it started with while each takes as long as before', async () => {
    const s = new Scheduler({ adaptive: new AdaptiveLimit({ initial: 4, max: 32 }) });
    const peak = await run(s, 200, () => 2);
    expect(peak).toBeGreaterThan(4);
    expect(peak).toBeLessThanOrEqual(32);
    expect(s.concurrency).toBeGreaterThan(4);
  });

  it('a fixed concurrency stays fixed (--concurrency N)', async () => {
    const s = new Scheduler({ concurrency: 4 });
    expect(await run(s, 100, () => 2)).toBe(4);
    expect(s.concurrency).toBe(4);
  });
});
