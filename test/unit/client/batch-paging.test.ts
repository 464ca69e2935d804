import { afterEach, describe, expect, it } from 'vitest';
import { chunk, mapBounded, mapOrdered } from '../../../src/client/batch';
import { releaseDetailsBatch, releaseDetailsBatchParts, type BatchResult } from '../../../src/client/catalogue';
import type { ApiClient } from '../../../src/client/http';
import { ApiError } from '../../../src/client/errors';
import { PageGuard, paginate, paginateItems, Unread } from '../../../src/client/paging';
import { AbortedError, PagingError } from '../../../src/client/errors';
import { json, mockApi } from './helpers';
import { lockerReleaseKey } from '../../../src/client/locker';

let api: ReturnType<typeof mockApi>;
afterEach(async () => {
  await api?.agent.close().catch(() => undefined);
});

describe('batch helpers', () => {
  it('chunk splits in order', () => {
    expect(chunk([1, 2, 3, 4, 5], 2)).toEqual([[1, 2], [3, 4], [5]]);
    expect(chunk([], 500)).toEqual([]);
    expect(() => chunk([1], 0)).toThrow();
  });

  it('mapBounded keeps order and bounds concurrency', async () => {
    let inFlight = 0;
    let max = 0;
    const out = await mapBounded([5, 1, 4, 2, 3, 0], 2, async (x) => {
      inFlight++;
      max = Math.max(max, inFlight);
      await new Promise((r) => setTimeout(r, x * 3));
      inFlight--;
      return x * 10;
    });
    expect(out).toEqual([50, 10, 40, 20, 30, 0]);
    expect(max).toBe(2);
  });

  it('mapBounded stops starting calls after a failure', async () => {
    const started: number[] = [];
    await expect(
      mapBounded([1, 2, 3, 4, 5], 1, async (x) => {
        started.push(x);
        if (x === 2) throw new Error('boom');
        return x;
      }),
    ).rejects.toThrow('boom');
    expect(started).toEqual([1, 2]);
  });
});

/** A promise settled from outside. */
function later<T>() {
  let resolve!: (v: T) => void;
  let reject!: (e: unknown) => void;
  const promise = new Promise<T>((res, rej) => {
    resolve = res;
    reject = rej;
  });
  return { promise, resolve, reject };
}

const tick = () => new Promise((r) => setImmediate(r));

describe('mapOrdered', () => {
  it('yields in the order of the items, each as soon as it and those before it are in, with the calls in flight bounded', async () => {
    const calls = Array.from({ length: 6 }, () => later<number>());
    const started: number[] = [];
    const got: number[] = [];
    const it = mapOrdered([0, 1, 2, 3, 4, 5], 2, (x) => {
      started.push(x);
      return calls[x].promise;
    });
    const consumer = (async () => {
      for await (const v of it) got.push(v);
    })();
    await tick();
    expect(started).toEqual([0, 1]);
    calls[1].resolve(10);
    await tick();
    // 1 is in, but 0 is not: nothing yielded yet; 2 started in 1's place
    expect(got).toEqual([]);
    expect(started).toEqual([0, 1, 2]);
    calls[0].resolve(0);
    await tick();
    expect(got).toEqual([0, 10]);
    for (const x of [2, 3, 4, 5]) {
      await tick();
      calls[x].resolve(x * 10);
    }
    await consumer;
    expect(got).toEqual([0, 10, 20, 30, 40, 50]);
  });

  it('starts no call more than 2 × concurrency past the first result not yet taken', async () => {
    const calls = Array.from({ length: 10 }, () => later<number>());
    const started: number[] = [];
    const it = mapOrdered(Array.from({ length: 10 }, (_, i) => i), 2, (x) => {
      started.push(x);
      return calls[x].promise;
    });
    const first = it.next();
    // every call but the first answers: the window stops the others from starting
    for (let i = 1; i < 10; i++) {
      calls[i].resolve(i);
      await tick();
    }
    expect(started).toEqual([0, 1, 2, 3]);
    calls[0].resolve(0);
    expect((await first).value).toBe(0);
    await tick();
    expect(started).toEqual([0, 1, 2, 3, 4]);
    await it.return(undefined);
  });

  it('a failure is thrown where its result would be, after those before it; nothing new starts after it', async () => {
    const calls = Array.from({ length: 6 }, () => later<number>());
    const started: number[] = [];
    const got: number[] = [];
    const consumer = (async () => {
      for await (const v of mapOrdered([0, 1, 2, 3, 4, 5], 2, (x) => {
        started.push(x);
        return calls[x].promise;
      }))
        got.push(v);
    })().catch((e: Error) => e);
    await tick();
    calls[1].resolve(1);
    await tick();
    expect(started).toEqual([0, 1, 2]);
    // 2 fails while 0 is still out: nothing new starts, and 0 and 1 are yielded before the failure
    calls[2].reject(new Error('boom 2'));
    await tick();
    calls[0].resolve(0);
    const err = await consumer;
    expect((err as Error).message).toBe('boom 2');
    expect(got).toEqual([0, 1]);
    expect(started).toEqual([0, 1, 2]);
  });

  it('a consumer that stops early stops the calls', async () => {
    const started: number[] = [];
    for await (const v of mapOrdered([1, 2, 3, 4, 5, 6, 7, 8], 2, async (x) => {
      started.push(x);
      await tick();
      return x;
    })) {
      if (v === 2) break;
    }
    await new Promise((r) => setTimeout(r, 10));
    expect(started.length).toBeLessThanOrEqual(4);
  });

  it('a signal that fires stops the calls and is thrown', async () => {
    const ac = new AbortController();
    const started: number[] = [];
    const err = await (async () => {
      for await (const v of mapOrdered([1, 2, 3, 4], 1, async (x) => {
        started.push(x);
        if (x === 1) ac.abort(new Error('stopped'));
        return x;
      }, ac.signal))
        void v;
    })().catch((e) => e);
    expect(err.message).toBe('stopped');
    expect(started).toEqual([1]);
  });
});

describe('mapOrdered bounded by bytes', () => {
  it('the first call goes alone; then calls start while the results ahead (in flight: the largest seen) fit the budget', async () => {
    const calls = Array.from({ length: 10 }, () => later<number>());
    const started: number[] = [];
    const it = mapOrdered(Array.from({ length: 10 }, (_, i) => i), 8, (x) => {
      started.push(x);
      return calls[x].promise;
    }, undefined, { sizeOf: (r) => r, budget: 100 });
    const first = it.next();
    await tick();
    expect(started).toEqual([0]);
    // 30 bytes come and are taken: three more in flight (30 each, the largest seen) fit in 100, a
    // fourth would not (count alone would start eight)
    calls[0].resolve(30);
    expect((await first).value).toBe(30);
    await tick();
    expect(started).toEqual([0, 1, 2, 3]);
    for (const x of [1, 2, 3]) calls[x].resolve(30);
    await tick();
    expect(started).toEqual([0, 1, 2, 3]);
    // one taken: two wait (60), one more in flight (30) fits
    expect((await it.next()).value).toBe(30);
    await tick();
    expect(started).toEqual([0, 1, 2, 3, 4]);
    await it.return(undefined);
  });

  it('results larger than the budget come one at a time, each started once the one before is taken, all in order', async () => {
    let open = 0;
    let most = 0;
    const got: number[] = [];
    for await (const v of mapOrdered(Array.from({ length: 6 }, (_, i) => i), 8, async (x) => {
      most = Math.max(most, ++open);
      await tick();
      open--;
      return 1000 + x;
    }, undefined, { sizeOf: (r) => r, budget: 100 })) {
      await tick();
      got.push(v);
    }
    expect(got).toEqual([1000, 1001, 1002, 1003, 1004, 1005]);
    expect(most).toBe(1);
  });

  it('sizes not known: bounded by count alone once the first has come', async () => {
    const calls = Array.from({ length: 6 }, () => later<number>());
    const started: number[] = [];
    const it = mapOrdered(Array.from({ length: 6 }, (_, i) => i), 3, (x) => {
      started.push(x);
      return calls[x].promise;
    }, undefined, { sizeOf: () => undefined, budget: 1 });
    const first = it.next();
    await tick();
    expect(started).toEqual([0]);
    calls[0].resolve(0);
    await tick();
    expect(started).toEqual([0, 1, 2, 3]);
    expect((await first).value).toBe(0);
    await it.return(undefined);
  });
});

describe('releaseDetailsBatchParts', () => {
  /**
   * A client whose batch calls answer when the test says: each call's ids, its answer to give, and
   * whether its body has been read (the reader requestLater hands over).
   */
  function fakeClient() {
    const calls: { ids: number[]; answer: ReturnType<typeof later<() => unknown>>; read: boolean }[] = [];
    const client = {
      requestLater(_method: string, _path: string, opts: { query: { releaseIds: string } }) {
        const answer = later<() => unknown>();
        calls.push({ ids: opts.query.releaseIds.split(',').map(Number), answer, read: false });
        return answer.promise;
      },
    } as unknown as ApiClient;
    /** call k answers with these releases and errors */
    const answer = (k: number, releases: number[], errors: number[] = []) => {
      const call = calls[k];
      call.answer.resolve(() => {
        call.read = true;
        return { items: { releases: releases.map((id) => ({ id })), errors: errors.map((itemId) => ({ itemId, code: 2001 })) } };
      });
    };
    return { client, calls, answer };
  }

  const ids = (part: BatchResult) => ({ releases: part.releases.map((r) => r.id), errors: part.errors.map((e) => e.itemId) });

  it("yields each call's releases in request order once the calls before it are in, and reads each body only then", async () => {
    const f = fakeClient();
    const parts = releaseDetailsBatchParts(f.client, { ids: [1, 2, 3, 4, 5, 6], country: 'GB', chunkSize: 2, concurrency: 3 });
    const first = parts.next();
    await tick();
    // the first call goes alone (the size of an answer is learnt before more are asked for)
    expect(f.calls.map((c) => c.ids)).toEqual([[1, 2]]);
    f.answer(0, [1], [2]);
    expect(ids((await first).value as BatchResult)).toEqual({ releases: [1], errors: [2] });
    await tick();
    expect(f.calls.map((c) => c.ids)).toEqual([[1, 2], [3, 4], [5, 6]]);
    // the last call answers first: its body waits, unread
    f.answer(2, [5, 6]);
    await tick();
    expect(f.calls[2].read).toBe(false);
    const second = parts.next();
    f.answer(1, [4, 3]);
    expect(ids((await second).value as BatchResult)).toEqual({ releases: [3, 4], errors: [] });
    expect(ids((await parts.next()).value as BatchResult)).toEqual({ releases: [5, 6], errors: [] });
    expect(f.calls[2].read).toBe(true);
    expect((await parts.next()).done).toBe(true);
  });

  it('repeated ids are answered at each position, also after their call has gone by; strays and late errors come last', async () => {
    const f = fakeClient();
    const collect = (async () => {
      const out: BatchResult[] = [];
      for await (const p of releaseDetailsBatchParts(f.client, { ids: [1, 2, 3, 1, 4, 2, 9], country: 'GB', chunkSize: 2, concurrency: 4 })) out.push(p);
      return out;
    })();
    await tick();
    // call 0 leaves 2 out; call 1 answers 2's error (late) and a release no one asked it for (77)
    f.answer(0, [1]);
    await tick();
    expect(f.calls.map((c) => c.ids)).toEqual([[1, 2], [3, 4], [9]]);
    f.answer(1, [3, 4, 77], [2]);
    f.answer(2, [], [9]);
    const parts = (await collect).map(ids);
    expect(parts).toEqual([
      { releases: [1], errors: [] },
      { releases: [3, 1, 4], errors: [2] },
      { releases: [], errors: [9] },
      { releases: [77], errors: [2] },
    ]);
  });
});

describe('releaseDetailsBatch', () => {
  /** A fake batch endpoint: ids divisible by 7 are unknown; answers in the order asked. */
  function batchServer() {
    const asked: number[][] = [];
    const inFlight = 0;
    const maxInFlight = 0;
    api.on('GET', '/1.2/release/details/batch', (call) => {
      const u = new URL(call.path, 'http://x');
      const ids = u.searchParams.get('releaseIds')!.split(',').map(Number);
      asked.push(ids);
      expect(u.searchParams.get('showErrors')).toBe('true');
      expect(u.searchParams.get('country')).toBe('GB');
      expect(u.searchParams.get('usageTypes')).toBe('download,subscriptionstreaming');
      expect(u.searchParams.get('packageIds')).toBe('2,4');
      expect(u.searchParams.get('type')).toBe('Album');
      expect(u.searchParams.get('imageSize')).toBe('350');
      const releases = ids.filter((id) => id % 7 !== 0).map((id) => ({ id, title: `R${id}`, year: 2000 }));
      const errors = ids.filter((id) => id % 7 === 0).map((id) => ({ itemId: id, code: 2001, errorMessage: `no release ${id}` }));
      return { status: 200, body: JSON.stringify({ status: 'ok', version: '1.2', items: { releases, errors } }), headers: json };
    });
    return { asked, stats: () => ({ inFlight, maxInFlight }) };
  }

  it('1,200 ids with duplicates: chunks of at most 500 unique ids, results and errors in request order', async () => {
    api = mockApi();
    const server = batchServer();
    const ids: number[] = [];
    for (let i = 0; i < 1200; i++) ids.push(i % 3 === 2 ? ids[i - 2] : 1000 + ((i * 37) % 900));
    const unique = [...new Set(ids)];
    const result = await releaseDetailsBatch(api.client, {
      ids,
      country: 'GB',
      usageTypes: ['download', 'subscriptionstreaming'],
      type: 'Album',
      packageIds: [2, 4],
      imageSize: 350,
      concurrency: 2,
    });
    expect(server.asked.every((c) => c.length <= 500)).toBe(true);
    expect(server.asked.flat().sort()).toEqual([...unique].sort());
    expect(server.asked.length).toBe(Math.ceil(unique.length / 500));
    const valid = ids.filter((id) => id % 7 !== 0);
    const invalid = ids.filter((id) => id % 7 === 0);
    expect(result.releases.map((r) => r.id)).toEqual(valid);
    expect(result.errors.map((e) => e.itemId)).toEqual(invalid);
    expect(result.errors[0]).toMatchObject({ code: 2001, errorMessage: `no release ${invalid[0]}` });
    expect(invalid.length).toBeGreaterThan(0);
    expect(new Set(valid).size).toBeLessThan(valid.length); // duplicates kept
  });

  it('more than 500 distinct ids are split into several calls', async () => {
    api = mockApi();
    const server = batchServer();
    const ids = Array.from({ length: 1200 }, (_, i) => i + 1);
    const result = await releaseDetailsBatch(api.client, { ids, country: 'GB', usageTypes: ['download', 'subscriptionstreaming'], type: 'Album', packageIds: [2, 4], imageSize: 350 });
    expect(server.asked.map((c) => c.length)).toEqual([500, 500, 200]);
    expect(result.releases.length + result.errors.length).toBe(1200);
    expect(result.releases.map((r) => r.id)).toEqual(ids.filter((i) => i % 7 !== 0));
  });

  it('a request error of one chunk fails the whole batch', async () => {
    api = mockApi();
    api.on('GET', '/1.2/release/details/batch', () => ({
      status: 403,
      body: JSON.stringify({ status: 'error', version: '1.2', error: { code: 2002, errorMessage: 'not here' } }),
      headers: json,
    }));
    const err = await releaseDetailsBatch(api.client, { ids: [1, 2], country: 'XX' }).catch((e) => e);
    expect(err).toBeInstanceOf(ApiError);
    expect(err.code).toBe(2002);
  });
});

/** Page `page` of a listing of `total` items `size` a page (ids 1, 2, …). */
const pageOf = (page: number, size: number, total: number) => ({
  releases: {
    page,
    pageSize: size,
    totalItems: total,
    releases: Array.from({ length: Math.max(0, Math.min(size, total - (page - 1) * size)) }, (_, i) => ({ id: (page - 1) * size + i + 1 })),
  },
});
const opts = { listPath: 'releases.releases', pagingPath: 'releases' };

describe('paginate', () => {

  it('walks every page and stops at the last one', async () => {
    const asked: number[] = [];
    const pages = [];
    for await (const p of paginate(async (n) => (asked.push(n), pageOf(n, 10, 25)), opts)) pages.push(p);
    expect(asked).toEqual([1, 2, 3]);
    expect(pages.map((p) => p.releases.releases.length)).toEqual([10, 10, 5]);
  });

  it('a limit cuts the last page and asks for no more', async () => {
    const asked: number[] = [];
    const ids: number[] = [];
    for await (const id of paginateItems<{ id: number }>(async (n) => (asked.push(n), pageOf(n, 10, 100)), { ...opts, limit: 15 })) ids.push(id.id);
    expect(ids).toEqual(Array.from({ length: 15 }, (_, i) => i + 1));
    expect(asked).toEqual([1, 2]);
  });

  it('stops when the caller breaks out, and starts from the given page', async () => {
    const asked: number[] = [];
    for await (const p of paginate(async (n) => (asked.push(n), pageOf(n, 10, 100)), { ...opts, startPage: 3, concurrency: 1 })) {
      if (p.releases.page === 4) break;
    }
    expect(asked).toEqual([3, 4]);
  });

  it('an empty first page ends the walk', async () => {
    const asked: number[] = [];
    const pages = [];
    for await (const p of paginate(async (n) => (asked.push(n), pageOf(n, 10, 0)), opts)) pages.push(p);
    expect(asked).toEqual([1]);
    expect(pages).toHaveLength(1);
  });

  it('an abort signal stops before the next page: the walk throws AbortedError', async () => {
    const ac = new AbortController();
    const asked: number[] = [];
    const err = await (async () => {
      for await (const _ of paginate(async (n) => (asked.push(n), pageOf(n, 10, 100)), { ...opts, signal: ac.signal, concurrency: 1 })) {
        if (asked.length === 2) ac.abort();
      }
    })().catch((e) => e);
    expect(err).toBeInstanceOf(AbortedError);
    expect(asked).toEqual([1, 2]);
  });

  describe('pages fetched ahead once the total is known', () => {
    /** a page server whose answers come back in a shuffled order, recording what was in flight */
    function server(total: number, size = 10) {
      const asked: number[] = [];
      const cancelled: number[] = [];
      let inFlight = 0;
      let maxInFlight = 0;
      const fetch = (n: number, signal: AbortSignal) => {
        asked.push(n);
        inFlight++;
        maxInFlight = Math.max(maxInFlight, inFlight);
        return new Promise<ReturnType<typeof pageOf>>((resolve, reject) => {
          // later pages answer sooner: order comes from the iterator, not from the network
          const onAbort = () => (clearTimeout(t), inFlight--, cancelled.push(n), reject(new AbortedError()));
          const t = setTimeout(() => (signal.removeEventListener('abort', onAbort), inFlight--, resolve(pageOf(n, size, total))), 2 + ((7 * n) % 5));
          signal.addEventListener('abort', onAbort, { once: true });
        });
      };
      return { fetch, asked, cancelled, stats: () => ({ maxInFlight }) };
    }

    it('yields every page in order, with at most `concurrency` in flight', async () => {
      const s = server(205);
      const ids: number[] = [];
      for await (const id of paginateItems<{ id: number }>(s.fetch, { ...opts, concurrency: 4 })) ids.push(id.id);
      expect(ids).toEqual(Array.from({ length: 205 }, (_, i) => i + 1));
      expect([...s.asked].sort((a, b) => a - b)).toEqual(Array.from({ length: 21 }, (_, i) => i + 1));
      expect(s.stats().maxInFlight).toBe(4);
    });

    it('one more page after the first, then twice as many after each good page (so broken paging costs two requests)', async () => {
      const s = server(1000);
      const inFlightAtYield: number[] = [];
      let n = 0;
      for await (const _ of paginate(s.fetch, { ...opts, concurrency: 8 })) {
        inFlightAtYield.push(s.asked.length - ++n);
        if (n === 6) break;
      }
      expect(inFlightAtYield).toEqual([1, 2, 4, 8, 8, 8]);
    });

    it('memory is bounded by the pages in flight however slowly the caller reads', async () => {
      const s = server(500);
      let n = 0;
      for await (const _ of paginate(s.fetch, { ...opts, concurrency: 3 })) {
        await new Promise((r) => setTimeout(r, 5));
        n++;
        // fetched but not yet read: never more than the window
        expect(s.asked.length - n).toBeLessThanOrEqual(3);
      }
      expect(n).toBe(50);
    });

    describe('bounded by bytes as well as by count', () => {
      /** pages as Unread with a size (bytes(n)), recording the bytes fetched and not yet yielded */
      function sized(total: number, bytes: (n: number) => number) {
        const asked: number[] = [];
        let held = 0;
        let maxHeld = 0;
        const fetch = async (n: number) => {
          asked.push(n);
          held += bytes(n);
          maxHeld = Math.max(maxHeld, held);
          await new Promise((r) => setTimeout(r, 1));
          const page = pageOf(n, 10, total);
          return new Unread(() => page, bytes(n));
        };
        return { fetch, asked, taken: (n: number) => (held -= bytes(n)), maxHeld: () => maxHeld };
      }
      const MB = 1024 * 1024;

      it('pages near the body cap are read one at a time: the bytes held never pass one page and the budget', async () => {
        const s = sized(200, () => 60 * MB);
        let n = 0;
        for await (const p of paginate(s.fetch, { ...opts, concurrency: 8, aheadBytes: 16 * MB })) {
          n++;
          // the page yielded and every page fetched ahead of it
          expect((s.asked.length - n) * 60 * MB).toBeLessThanOrEqual(16 * MB);
          s.taken(p.releases.page);
        }
        expect(n).toBe(20);
        expect(s.maxHeld()).toBe(60 * MB);
      });

      it('small pages still read ahead up to `concurrency`; pages fetched ahead stop when their bytes reach the budget', async () => {
        const small = sized(1000, () => 250_000);
        const ahead: number[] = [];
        let n = 0;
        for await (const _ of paginate(small.fetch, { ...opts, concurrency: 8 })) {
          ahead.push(small.asked.length - ++n);
          if (n === 6) break;
        }
        expect(ahead).toEqual([1, 2, 4, 8, 8, 8]);

        // 3 MB pages in a 10 MB budget: at most two waiting beside the one yielded (3 × 3 ≤ 10)
        const mid = sized(1000, () => 3 * MB);
        let m = 0;
        let most = 0;
        for await (const _ of paginate(mid.fetch, { ...opts, concurrency: 8, aheadBytes: 10 * MB })) {
          most = Math.max(most, mid.asked.length - ++m);
          await new Promise((r) => setTimeout(r, 2));
        }
        expect(m).toBe(100);
        expect(most).toBe(3);
      });

      it('a page that grows mid-walk stops the fetching ahead until the bytes waiting fit again', async () => {
        const s = sized(1000, (n) => (n >= 5 ? 40 * MB : 100_000));
        let n = 0;
        const after: number[] = [];
        for await (const _ of paginate(s.fetch, { ...opts, concurrency: 4, aheadBytes: 16 * MB })) {
          n++;
          await new Promise((r) => setTimeout(r, 5));
          if (n >= 12) after.push(s.asked.length - n);
          if (n === 20) break;
        }
        // once the big pages have come, nothing is fetched ahead (one page at a time)
        expect(Math.max(...after)).toBeLessThanOrEqual(1);
      });
    });

    it('a limit asks for no page past the one that completes it', async () => {
      const s = server(1000);
      const ids: number[] = [];
      for await (const r of paginateItems<{ id: number }>(s.fetch, { ...opts, limit: 45, concurrency: 8 })) ids.push(r.id);
      expect(ids).toHaveLength(45);
      expect(Math.max(...s.asked)).toBe(5);
    });

    it('breaking out or aborting cancels the pages in flight (their signal fires)', async () => {
      const s = server(1000);
      let n = 0;
      for await (const _ of paginate(s.fetch, { ...opts, concurrency: 4 })) if (++n === 5) break;
      await new Promise((r) => setTimeout(r, 0));
      expect(s.cancelled.length).toBeGreaterThan(0);
      expect(s.cancelled.every((p) => p > 5)).toBe(true);

      const t = server(1000);
      const ac = new AbortController();
      let m = 0;
      const err = await (async () => {
        for await (const _ of paginate(t.fetch, { ...opts, concurrency: 4, signal: ac.signal })) if (++m === 4) ac.abort();
      })().catch((e) => e);
      expect(err).toBeInstanceOf(AbortedError);
      expect(t.cancelled.length).toBeGreaterThan(0);
    });

    it('a list that shrinks while read ends at its new last page; pages fetched past it are dropped', async () => {
      const asked: number[] = [];
      const ids: number[] = [];
      const fetch = async (n: number) => (asked.push(n), pageOf(n, 10, n >= 3 ? 35 : 100));
      for await (const r of paginateItems<{ id: number }>(fetch, { ...opts, concurrency: 4 })) ids.push(r.id);
      expect(ids).toEqual(Array.from({ length: 35 }, (_, i) => i + 1));
    });

    it('a page that fails fails the walk in its turn, after the pages before it', async () => {
      const got: number[] = [];
      const fetch = async (n: number) => {
        if (n === 4) throw new ApiError(9001, 'boom', 500);
        return pageOf(n, 10, 100);
      };
      const err = await (async () => {
        for await (const p of paginate(fetch, { ...opts, concurrency: 4 })) got.push(p.releases.page);
      })().catch((e) => e);
      expect(got).toEqual([1, 2, 3]);
      expect(err).toBeInstanceOf(ApiError);
    });
  });

  it('pages fetched ahead unread are read at their turn, in order; a read that fails fails the walk in its turn', async () => {
    const read: number[] = [];
    const yielded: number[] = [];
    const fetch = async (n: number) =>
      new Unread(() => {
        read.push(n);
        if (n === 5) throw new ApiError(1003, 'bad page', 200);
        return pageOf(n, 10, 100);
      });
    const err = await (async () => {
      for await (const p of paginate(fetch, { ...opts, concurrency: 4 })) {
        // fetched ahead, yet not one page read before its turn
        expect(read).toEqual(yielded.concat(p.releases.page));
        yielded.push(p.releases.page);
        await new Promise((r) => setTimeout(r, 2));
      }
    })().catch((e) => e);
    expect(yielded).toEqual([1, 2, 3, 4]);
    expect(read).toEqual([1, 2, 3, 4, 5]);
    expect(err).toBeInstanceOf(ApiError);
  });

  it('a page once read is not held by the walk while it waits for the next (its text would outlive it)', async () => {
    const { setFlagsFromString } = await import('node:v8');
    const { runInNewContext } = await import('node:vm');
    setFlagsFromString('--expose-gc');
    const gc = runInNewContext('gc') as () => void;
    let first: WeakRef<object> | undefined;
    let letSecondCome: () => void = () => undefined;
    const secondMayCome = new Promise<void>((r) => (letSecondCome = r));
    let heldWhileWaiting: boolean | undefined;
    const fetch = async (n: number) => {
      if (n === 2) await secondMayCome;
      const unread = new Unread(() => pageOf(n, 10, 20));
      if (n === 1) first = new WeakRef(unread);
      return unread;
    };
    for await (const p of paginate(fetch, { ...opts, concurrency: 1 })) {
      if (p.releases.page !== 1) continue;
      // once the walk waits for page 2: is page 1's Unread still reachable?
      setTimeout(() => {
        gc();
        heldWhileWaiting = first!.deref() !== undefined;
        letSecondCome();
      }, 5);
    }
    expect(heldWhileWaiting).toBe(false);
  });

  it("a locker release's key: the same for the same release, tracks and purchases; short whatever the tracks", () => {
    const entry = (id: unknown, tracks: [unknown, unknown][]) => ({
      release: { id, title: 't' },
      lockerTracks: { lockerTrack: tracks.map(([t, p]) => ({ track: { id: t, title: 'x' }, ...(typeof p === 'string' ? { purchaseDate: p } : { purchaseId: p }) })) },
    });
    const many = Array.from({ length: 40 }, (_, i): [unknown, unknown] => [10000101 + i, 8000000]);
    const keys = [
      entry(100001, many),
      entry(100002, many),
      entry(100001, many.slice(1)),
      entry(100001, [...many.slice(0, 39), [10000199, 8000000]]),
      entry(100001, [...many.slice(0, 39), [10000140, 8000001]]),
      entry(100001, [...many.slice(0, 39), [10000140, '2024-01-01T00:00:00Z']]),
      entry(100001, [...many.slice(0, 39), [-5, 2 ** 40]]),
      entry(100001, [...many.slice(0, 39), ['10000140', 8000000]]),
      entry(undefined, []),
    ].map(lockerReleaseKey);
    expect(new Set(keys).size).toBe(keys.length);
    // nothing to tell them apart: one key, as before
    expect(lockerReleaseKey({})).toBe(keys[keys.length - 1]);
    expect(lockerReleaseKey(null)).toBe(keys[keys.length - 1]);
    expect(lockerReleaseKey(entry(100001, many))).toBe(keys[0]);
    expect(lockerReleaseKey(JSON.parse(JSON.stringify(entry(100001, many))))).toBe(keys[0]);
    expect(Math.max(...keys.map((k) => k.length))).toBeLessThan(40);
    // the repeat rule with it: a page of releases already seen stops the walk
    const guard = new PageGuard({ key: lockerReleaseKey, what: 'the locker' });
    const page = [entry(1, [[101, 7]]), entry(2, [[201, 7]])];
    guard.check(1, 1, page);
    expect(() => guard.check(2, 2, JSON.parse(JSON.stringify(page)))).toThrow(PagingError);
  });

  describe('stop rules for servers that misbehave', () => {
    const collect = async (fetch: (n: number) => Promise<unknown>, o: Parameters<typeof paginate>[1]) => {
      const asked: number[] = [];
      const got: unknown[] = [];
      const err = await (async () => {
        for await (const p of paginate(async (n) => (asked.push(n), fetch(n)), o)) got.push(p);
      })().catch((e) => e);
      return { asked, got, err };
    };

    it('a page number that does not advance stops the walk after that page, unprinted', async () => {
      const { asked, got, err } = await collect(async () => pageOf(1, 10, 1_000_000), opts);
      expect(asked).toEqual([1, 2]);
      expect(got).toHaveLength(1);
      expect(err).toBeInstanceOf(PagingError);
      expect(err).toMatchObject({ reason: 'stuck', message: 'paging stopped: asked for page 2 of the listing, the server answered page 1' });
    });

    it('a page of items already seen stops the walk, whatever page number it claims', async () => {
      const { asked, err } = await collect(async (n) => ({ releases: { ...pageOf(1, 10, 1000).releases, page: n } }), { ...opts, what: 'artist releases' });
      expect(asked).toEqual([1, 2]);
      expect(err).toMatchObject({ reason: 'repeat', message: 'paging stopped: page 2 of artist releases repeats items already seen' });
    });

    it('a page that overlaps the last one (a list shifting while read) goes on', async () => {
      // page 2 starts with the last item of page 1
      const { asked, err } = await collect(async (n) => {
        const p = pageOf(n, 10, 30);
        if (n > 1) p.releases.releases = [{ id: (n - 1) * 10 }, ...p.releases.releases.slice(1)];
        return p;
      }, opts);
      expect(err).toBeUndefined();
      expect(asked).toEqual([1, 2, 3]);
    });

    it('bodies without a page number are judged by their items alone', async () => {
      const { asked, err } = await collect(async (n) => {
        const p = pageOf(n, 10, 25) as { releases: Record<string, unknown> };
        delete p.releases.page;
        return p;
      }, opts);
      expect(err).toBeUndefined();
      expect(asked).toEqual([1, 2, 3]);
    });

    it('fresh items forever stop at maxPages (default 10000)', async () => {
      const { asked, got, err } = await collect(async (n) => pageOf(n, 10, 1_000_000), { ...opts, maxPages: 4, what: 'the locker' });
      expect(asked).toEqual([1, 2, 3, 4]);
      expect(got).toHaveLength(4);
      expect(err).toMatchObject({ reason: 'cap', message: 'paging stopped after 4 pages of the locker: the server still says there is more' });
      const guard = new PageGuard();
      for (let i = 0; i < 10_000; i++) guard.next();
      expect(() => guard.next()).toThrow(/after 10000 pages/);
    });

    it('items and pageInfo read bodies that are not JSON (XML text), items without ids by content', async () => {
      const xml = (n: number) => `<page>${n}</page><totalItems>100</totalItems><item>a</item><item>b</item>`;
      const o = { pageSize: 2, items: (x: string) => x.match(/<item>.*?<\/item>/g) ?? [], pageInfo: (x: string) => ({ page: Number(/<page>(\d+)/.exec(x)![1]), totalItems: 100 }) };
      const { asked, err } = await collect(async (n) => xml(n), o as Parameters<typeof paginate>[1]);
      expect(asked).toEqual([1, 2]);
      expect(err).toMatchObject({ reason: 'repeat' });
    });
  });
});

// once paginateConcurrent (the locker walk's own reader), now paginate's fetch-ahead: the same promises
describe('paginate reading ahead, as the locker walk uses it', () => {

  /** A fake service whose pages answer in scrambled time, counting what is in flight. */
  function service(total: number, size = 10) {
    const s = { asked: [] as number[], inFlight: 0, max: 0, aborted: [] as number[] };
    const fetch = (n: number, signal: AbortSignal) =>
      new Promise<ReturnType<typeof pageOf>>((resolve, reject) => {
        s.asked.push(n);
        s.inFlight++;
        s.max = Math.max(s.max, s.inFlight);
        let settled = false;
        const t = setTimeout(() => {
          settled = true;
          s.inFlight--;
          resolve(pageOf(n, size, total));
        }, (n * 7) % 5);
        signal.addEventListener('abort', () => {
          if (settled) return;
          settled = true;
          clearTimeout(t);
          s.inFlight--;
          s.aborted.push(n);
          reject(new Error('aborted'));
        });
      });
    return { s, fetch };
  }

  it('reads ahead once the first page gives the total, never more than `concurrency` at once, and yields in order', async () => {
    const { s, fetch } = service(95);
    const pages: number[] = [];
    for await (const p of paginate(fetch, { ...opts, concurrency: 3 })) pages.push(p.releases.page);
    expect(pages).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9, 10]);
    expect(s.asked[0]).toBe(1);
    expect([...s.asked].sort((a, b) => a - b)).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9, 10]); // each page once, none past the last
    expect(s.max).toBe(3);
  });

  it('leaving the loop early aborts the pages read ahead; a limit asks for no page beyond it', async () => {
    const { s, fetch } = service(1000);
    for await (const p of paginate(fetch, { ...opts, concurrency: 4 })) if (p.releases.page === 2) break;
    expect(s.inFlight).toBe(0);
    expect(Math.max(...s.asked)).toBeLessThanOrEqual(5);

    const lim = service(1000);
    const ids: number[] = [];
    for await (const p of paginate(lim.fetch, { ...opts, concurrency: 8, limit: 25 })) ids.push(...p.releases.releases.map((r) => r.id));
    expect(ids).toHaveLength(25);
    expect([...lim.s.asked].sort((a, b) => a - b)).toEqual([1, 2, 3]);
  });

  it('a failed page is reported when its turn comes, after the pages before it', async () => {
    const pages: number[] = [];
    const fetch = async (n: number) => {
      if (n === 3) throw new Error('page 3 failed');
      return pageOf(n, 10, 50);
    };
    await expect(
      (async () => {
        for await (const p of paginate(fetch, { ...opts, concurrency: 4 })) pages.push(p.releases.page);
      })(),
    ).rejects.toThrow('page 3 failed');
    expect(pages).toEqual([1, 2]);
  });

  it('without a total it reads page by page, as paginate does', async () => {
    const asked: number[] = [];
    const fetch = async (n: number) => {
      asked.push(n);
      return { releases: { releases: n < 3 ? [{ id: n }, { id: n + 100 }] : [{ id: n }] } };
    };
    const pages = [];
    for await (const p of paginate(fetch, { ...opts, pageSize: 2, concurrency: 4 })) pages.push(p);
    expect(asked).toEqual([1, 2, 3]);
    expect(pages).toHaveLength(3);
  });
});
