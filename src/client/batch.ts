// Chunking of id lists and a bounded-concurrency map that keeps the input order.
import { AheadBytes } from './paging';

export function chunk<T>(items: readonly T[], size: number): T[][] {
  if (!(size >= 1)) throw new RangeError(`chunk size must be at least 1, got ${size}`);
  const out: T[][] = [];
  for (let i = 0; i < items.length; i += size) out.push(items.slice(i, i + size));
  return out;
}

/**
 * Runs fn over items with at most `concurrency` calls in flight; results come back in the
 * order of items. The first failure rejects the whole map, and no new call starts after it.
 */
export async function mapBounded<T, R>(
  items: readonly T[],
  concurrency: number,
  fn: (item: T, index: number) => Promise<R>,
  signal?: AbortSignal,
): Promise<R[]> {
  const limit = Math.max(1, Math.floor(concurrency || 1));
  const results = new Array<R>(items.length);
  let next = 0;
  let failed = false;
  async function worker(): Promise<void> {
    while (!failed && next < items.length) {
      if (signal?.aborted) throw signal.reason ?? new Error('aborted');
      const i = next++;
      try {
        results[i] = await fn(items[i], i);
      } catch (e) {
        failed = true;
        throw e;
      }
    }
  }
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
  return results;
}

/** mapOrdered's bound in bytes of the results waiting ahead of the consumer. */
export interface AheadByBytes<R> {
  /** a result's size in bytes once it has come (undefined: not known, nothing learnt) */
  sizeOf: (r: R) => number | undefined;
  /** the bytes results ahead may hold (default DEFAULT_AHEAD_BYTES; see paging.ts AheadBytes) */
  budget?: number;
}

/**
 * Runs fn over items with at most `concurrency` calls in flight, and yields the results in the
 * order of items, each as soon as it and all before it are in: a consumer can print the first
 * while the others are still on their way. Results not yet taken are bounded too: a call starts
 * only within 2 × concurrency of the next one to be taken, and, given `bytes`, only while the
 * results ahead (started and not yet taken: those come by their size, those in flight each as the
 * largest seen so far) fit in its budget, as a walk's pages (paginate, AheadBytes): then the first
 * call goes alone (its size learnt), results near the body cap come one at a time, and one call is
 * always in flight while nothing waits, so the map progresses whatever the sizes. A failure is
 * thrown where its result would have been yielded (the ones before it are yielded first), and no
 * new call starts after it.
 */
export async function* mapOrdered<T, R>(
  items: readonly T[],
  concurrency: number,
  fn: (item: T, index: number) => Promise<R>,
  signal?: AbortSignal,
  bytes?: AheadByBytes<R>,
): AsyncGenerator<R, void, undefined> {
  const limit = Math.max(1, Math.floor(concurrency || 1));
  const slots: (Promise<R> | undefined)[] = new Array(items.length);
  // the results started and not yet taken (their sizes once come), in item order
  const ahead: { bytes?: number }[] = [];
  const budget = bytes ? new AheadBytes(bytes.budget) : undefined;
  let arrived = false;
  let next = 0;
  let taken = 0;
  let inFlight = 0;
  let failed = false;
  // by bytes: one more only when nothing is ahead, or once one has come and all would fit
  const room = () => !budget || ahead.length === 0 || (arrived && budget.fits(ahead));
  const pump = () => {
    while (!failed && !signal?.aborted && inFlight < limit && next < items.length && next < taken + 2 * limit && room()) {
      const i = next++;
      inFlight++;
      const entry: { bytes?: number } = {};
      ahead.push(entry);
      const p = fn(items[i], i).then(
        (r) => {
          if (budget) {
            arrived = true;
            entry.bytes = budget.saw(bytes!.sizeOf(r));
          }
          inFlight--;
          pump();
          return r;
        },
        (e: unknown) => {
          inFlight--;
          failed = true;
          throw e;
        },
      );
      // seen here, so a failure waiting behind an earlier result is never an unhandled rejection
      p.catch(() => undefined);
      slots[i] = p;
    }
  };
  pump();
  try {
    for (let i = 0; i < items.length; i++) {
      const p = slots[i];
      // not started: the signal stopped the calls before it (a failure is thrown at its own slot)
      if (p === undefined) throw signal?.reason ?? new Error('aborted');
      const r = await p;
      slots[i] = undefined;
      ahead.shift();
      taken++;
      pump();
      yield r;
    }
  } finally {
    // the consumer stopped early (a reader gone) or a call failed: nothing new starts
    failed = true;
  }
}
