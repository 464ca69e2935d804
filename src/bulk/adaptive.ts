// How many edits may be in flight when the user did not say (--concurrency N fixes it): a limit
// that grows while the service keeps up and shrinks when it does not. Throughput is edits in
// flight over the round trip, so at 20 ms a fixed 32 caps a run at 1,600 edits/s whatever the
// service could take; too many in flight only queue at the service (or in the client's limiter).
//
// The signals, per window of `limit` finished edits:
// - a 429 (the client's one limiter counts them; it has paused every request already and paces
//   them): the limit is cut to 70 % at once, and grows again only additively;
// - the window's mean time per edit against the best window seen: within 1.5x (+ 5 ms) the
//   service is keeping up, and the limit grows (doubling at first, then by an eighth) as long as
//   the window had every slot busy; past 2x edits are queueing (at the service, or in the
//   limiter that paces to X-RateLimit-*), and the limit is cut by a tenth.
// Nothing here retries or waits: it only says how many the scheduler may start.

export interface AdaptiveLimitOptions {
  /** edits in flight at first (default 32) */
  initial?: number;
  /** never fewer (default 4) */
  min?: number;
  /** never more (default 64: 3,200 edits/s at a 20 ms round trip); the connection pool has as many
   *  connections (undici opens a new one rather than wait a turn for one that just answered, so a
   *  larger pool ends up with more connections than edits in flight) */
  max?: number;
  /** 429s answered so far in this process (the client's limiter's count) */
  rateLimited?: () => number;
}

export const ADAPTIVE_INITIAL = 32;
export const ADAPTIVE_MAX = 64;

export class AdaptiveLimit {
  private current: number;
  readonly min: number;
  readonly max: number;
  private readonly rateLimited: () => number;
  private seen429: number;
  private slowStart = true;
  /** the best (lowest) mean time per edit of a window so far, ms */
  private best = Infinity;
  private count = 0;
  private sumMs = 0;
  /** every slot was busy at some point of this window: a larger limit would have been used */
  private saturated = false;

  constructor(o: AdaptiveLimitOptions = {}) {
    this.max = Math.max(1, Math.floor(o.max ?? ADAPTIVE_MAX));
    this.min = Math.min(this.max, Math.max(1, Math.floor(o.min ?? 4)));
    this.current = clamp(Math.floor(o.initial ?? ADAPTIVE_INITIAL), this.min, this.max);
    this.rateLimited = o.rateLimited ?? (() => 0);
    this.seen429 = this.rateLimited();
  }

  /** edits that may be in flight now */
  get limit(): number {
    return this.current;
  }

  /** An edit was started with `inFlight` edits (itself included) in flight. */
  started(inFlight: number): void {
    if (inFlight >= this.current) this.saturated = true;
  }

  /** An edit finished (done or failed) after `ms`. */
  finished(ms: number): void {
    const n429 = this.rateLimited();
    if (n429 > this.seen429) {
      // the service refused requests: fewer at once, at once, and no more doubling
      this.seen429 = n429;
      this.slowStart = false;
      this.current = clamp(Math.floor(this.current * 0.7), this.min, this.max);
      this.resetWindow();
      return;
    }
    this.count++;
    this.sumMs += Math.max(0, ms);
    if (this.count < this.current) return;
    const mean = this.sumMs / this.count;
    this.best = Math.min(this.best, mean);
    if (mean > this.best * 2 + 5) {
      this.slowStart = false;
      this.current = clamp(Math.floor(this.current * 0.9), this.min, this.max);
    } else if (mean <= this.best * 1.5 + 5 && this.saturated) {
      const next = this.slowStart ? this.current * 2 : this.current + Math.max(1, Math.floor(this.current / 8));
      this.current = clamp(next, this.min, this.max);
    }
    this.resetWindow();
  }

  private resetWindow(): void {
    this.count = 0;
    this.sumMs = 0;
    this.saturated = false;
  }
}

function clamp(n: number, lo: number, hi: number): number {
  return Math.min(hi, Math.max(lo, n));
}
