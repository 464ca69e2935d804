// The one retry and rate policy of a process (the shape of octokit's retry and throttling
// plugins, in one place): which calls are retried and how often, backoff with full jitter,
// Retry-After, and one rate limiter that every request passes and that 429s and the
// X-RateLimit-* headers feed. Nothing above the request core retries: bulk runs only decide
// how many edits are in flight.
import { AbortedError, McatError, NetworkError, RateLimitError, TimeoutError } from './errors';
import { RESET_CODES, type Answer } from './transport';
import { parseRetryAfter } from './retry-after';

export { parseRetryAfter } from './retry-after';

/** Statuses that say "try again": the service is busy or a gateway lost the answer. */
export const RETRY_STATUSES = new Set([429, 502, 503, 504]);

export type Sleep = (ms: number, signal?: AbortSignal) => Promise<void>;

/** Resolves after ms, or at once when the signal fires (the caller checks it). */
export const defaultSleep: Sleep = (ms, signal) =>
  new Promise<void>((resolve) => {
    if (ms <= 0 || signal?.aborted) return resolve();
    const done = () => {
      clearTimeout(t);
      signal?.removeEventListener('abort', done);
      resolve();
    };
    const t = setTimeout(done, ms);
    signal?.addEventListener('abort', done, { once: true });
  });

export interface LimiterOptions {
  now?: () => number;
  sleep?: Sleep;
  /** how long a 429 with no Retry-After pauses everyone, ms (default 1000) */
  defaultPauseMs?: number;
  /**
   * the longest a request waits for its turn, ms (default 60000, as Retry-After's cap): a pause or
   * a pace that would hold it longer (X-RateLimit-Reset of 10^12 s) fails it with RateLimitError
   */
  maxWaitMs?: number;
}

/**
 * One per process: every request passes acquire() before it is sent, and every answer is
 * observe()d. It paces requests to the rate the X-RateLimit-* headers allow (Limit per window,
 * the window learnt from Reset), a little under it so that timing jitter does not cross the
 * limit; stops until the window resets when Current says the window is spent; and on a 429
 * pauses everyone until Retry-After has passed and lowers the pace (to 70 %, climbing back 5 %
 * of the allowed rate a second; a server that sends no X-RateLimit-* gets 70 % of the rate it
 * was sent at, until the climb is done). Until the first answer has come, one request goes
 * alone: its headers say whether (and how) to pace the others.
 */
export class RateLimiter {
  private readonly now: () => number;
  private readonly sleep: Sleep;
  private readonly defaultPauseMs: number;
  private readonly maxWaitMs: number;
  /** the HTTP status of the answer that paused everyone, or set the pace (for RateLimitError) */
  private holdStatus = 429;
  private pausedUntilMs = 0;
  /** whether an answer (or a failure) has come back: before it, one request goes alone */
  private known = false;
  private probe: Promise<void> | undefined;
  private endProbe: (() => void) | undefined;
  /** the pace: requests a second from the headers (Infinity: none known) */
  private allowed = Infinity;
  /** false: `allowed` is the rate requests were sent at when a server with no X-RateLimit-* said 429 */
  private fromHeaders = false;
  private windowS = 0;
  /**
   * The server's current window, as the answers tell: when its first request was sent, and its
   * end (0: not known), which is late by at most `windowSlack` (that request's time on the way).
   */
  private windowStartSent = 0;
  private windowEnd = 0;
  private windowSlack = 0;
  /** AIMD on 429s: the share of `allowed` used, and when it was last cut */
  private share = 1;
  private cutAt = -Infinity;
  private cutHoldMs = 0;
  /** requests started, for a pace when a 429 comes from a server that sends no X-RateLimit-* */
  private readonly starts: number[] = [];
  private nextSlot = 0;
  /** 429s seen (for progress and tests) */
  rateLimited = 0;

  constructor(o: LimiterOptions = {}) {
    this.now = o.now ?? Date.now;
    this.sleep = o.sleep ?? defaultSleep;
    this.defaultPauseMs = o.defaultPauseMs ?? 1000;
    this.maxWaitMs = o.maxWaitMs ?? 60_000;
  }

  /** A wait for a turn longer than the cap: the request fails now, as a Retry-After over the cap does. */
  private tooLong(ms: number): RateLimitError {
    return new RateLimitError(Math.ceil(ms / 1000), this.holdStatus, Math.round(this.maxWaitMs / 1000));
  }

  /** when everyone may go again after a 429 or a spent window, ms since the epoch */
  get pausedUntil(): number {
    return this.pausedUntilMs;
  }

  /** requests a second the limiter lets through now (Infinity: no pace) */
  get pace(): number {
    if (!Number.isFinite(this.allowed)) return Infinity;
    const share = this.currentShare(this.now());
    // a pace guessed from what was sent lasts until the climb back is done
    if (!this.fromHeaders && share >= 1) return Infinity;
    return this.allowed * share;
  }

  /**
   * Lets a request go at once when nothing holds it back (the first answer has come, no pause,
   * its paced slot is now): true, and it counts as sent. False: acquire() decides, and waits.
   * Most requests of a run go this way, without a promise.
   */
  tryAcquire(): boolean {
    if (!this.known) return false;
    const now = this.now();
    if (this.pausedUntilMs > now) return false;
    const pace = this.pace;
    if (Number.isFinite(pace)) {
      const slot = Math.max(now, this.nextSlot);
      if (slot - now >= 1) return false;
      this.nextSlot = slot + 1000 / pace;
    }
    this.started(now);
    return true;
  }

  /** Waits until this request may be sent: the first request alone, pauses, then the pace. */
  async acquire(signal?: AbortSignal): Promise<void> {
    while (!this.known && this.probe) {
      await raceAbort(this.probe, signal);
      if (signal?.aborted) throw new AbortedError();
    }
    if (!this.known && !this.probe) this.probe = new Promise<void>((r) => (this.endProbe = r));
    for (;;) {
      if (signal?.aborted) throw new AbortedError();
      const now = this.now();
      if (this.pausedUntilMs > now) {
        // (a second over: Reset counts whole seconds, and a window's end is known to some ms)
        if (this.pausedUntilMs - now > this.maxWaitMs + 1000) throw this.tooLong(this.pausedUntilMs - now);
        await this.sleep(this.pausedUntilMs - now, signal);
        continue;
      }
      const pace = this.pace;
      if (!Number.isFinite(pace)) break;
      // a slot of its own, 1/pace after the previous one: waiters never burst together
      const slot = Math.max(now, this.nextSlot);
      // a pace slower than one request per the cap holds a request longer than that for its turn
      // (a queue behind a pace that is not waits: it is only as long as the requests in flight)
      if (slot - now > this.maxWaitMs && 1000 / pace > this.maxWaitMs) throw this.tooLong(slot - now);
      this.nextSlot = slot + 1000 / pace;
      // less than a millisecond early is on time (a timer cannot wait less)
      if (slot - now >= 1) {
        await this.sleep(slot - now, signal);
        if (signal?.aborted) throw new AbortedError();
        // paused meanwhile (a 429): wait for the pause, then take a new slot
        if (this.pausedUntilMs > this.now()) continue;
      }
      break;
    }
    this.started(this.now());
  }

  private started(t: number): void {
    this.starts.push(t);
    while (this.starts.length && this.starts[0] < t - 2000) this.starts.shift();
  }

  /**
   * An answer came (to a request sent at `sentAt`): its X-RateLimit-* headers set the pace; a
   * 429 pauses everyone. Returns why everyone now waits, if this answer says they must.
   */
  observe(status: number, headers: Record<string, string>, sentAt = this.now()): string | undefined {
    const before = this.pausedUntilMs;
    this.settle();
    const now = this.now();
    const limit = positive(headers['x-ratelimit-limit']);
    const reset = positive(headers['x-ratelimit-reset']);
    const current = positive(headers['x-ratelimit-current']);
    if (limit !== undefined && reset !== undefined) {
      this.holdStatus = status;
      // Reset is the seconds left in the window (rounded up): the most seen is the window's length
      this.windowS = Math.max(this.windowS, reset);
      const margin = Math.max(1, Math.ceil(limit * 0.05));
      this.allowed = Math.max(limit - margin, limit / 2) / this.windowS;
      this.fromHeaders = true;
      if (current !== undefined && sentAt >= this.windowStartSent) {
        // the first request of a window: the window began as it arrived and ends a window later
        // (Reset, in whole seconds, cannot say when within the last second)
        if (current <= 1) {
          this.windowStartSent = sentAt;
          this.windowEnd = sentAt + this.windowS * 1000;
          this.windowSlack = now - sentAt + 10;
        }
        // the window is spent: nobody goes before it resets
        if (current >= limit && status !== 429) {
          const end = this.windowEnd + this.windowSlack;
          if (this.windowEnd && sentAt < end) {
            if (end > now) this.pause(end);
            // else: that window is over already
          } else this.pause(now + reset * 1000);
        }
      }
    }
    if (status === 429) {
      this.holdStatus = 429;
      this.rateLimited++;
      const ra = parseRetryAfter(headers['retry-after'], now);
      const waitMs = ra !== undefined ? ra * 1000 : this.defaultPauseMs;
      this.pause(now + waitMs);
      // one cut per burst of 429s: the answers to requests already in flight are the same signal
      if (now >= this.cutAt + this.cutHoldMs) {
        if (!this.fromHeaders && !Number.isFinite(this.pace)) {
          // no X-RateLimit-* from this server: pace from what was being sent when it said no
          this.allowed = Math.max(1, this.starts.filter((t) => t >= now - 1000).length);
          this.share = 1;
          this.cutAt = -Infinity;
        }
        this.share = Math.max(0.1, this.currentShare(now) * 0.7);
        this.cutAt = now;
        this.cutHoldMs = Math.max(1000, waitMs);
      }
    }
    if (this.pausedUntilMs <= before || this.pausedUntilMs <= now) return undefined;
    const ms = Math.round(this.pausedUntilMs - now);
    return status === 429 ? `rate limited: everyone waits ${ms} ms` : `the rate window is spent (X-RateLimit-Current ${current} of ${limit}): everyone waits ${ms} ms`;
  }

  /** The request failed without an answer: it no longer holds the others back. */
  settle(): void {
    if (this.known) return;
    this.known = true;
    this.endProbe?.();
  }

  private currentShare(now: number): number {
    return Math.min(1, this.share + (0.05 * Math.max(0, now - this.cutAt)) / 1000);
  }

  private pause(until: number): void {
    this.pausedUntilMs = Math.max(this.pausedUntilMs, until);
  }
}

function positive(v: string | undefined): number | undefined {
  if (v === undefined || !/^\s*\d+(\.\d+)?\s*$/.test(v)) return undefined;
  const n = Number(v);
  return n > 0 ? n : undefined;
}

function raceAbort(p: Promise<void>, signal: AbortSignal | undefined): Promise<void> {
  if (!signal) return p;
  return new Promise<void>((resolve) => {
    const done = () => {
      signal.removeEventListener('abort', done);
      resolve();
    };
    signal.addEventListener('abort', done, { once: true });
    p.then(done);
  });
}

export interface PolicyOptions {
  /** retries after the first attempt (default 3) */
  retries?: number;
  /** backoff: full jitter over min(maxBackoffMs, backoffBaseMs * 2^(retry-1)); defaults 300 and 8000 */
  backoffBaseMs?: number;
  maxBackoffMs?: number;
  /** the longest Retry-After honoured, seconds (default 60); longer fails at once with RateLimitError */
  maxRetryAfterSeconds?: number;
  /** the process's rate limiter, when several clients share one (default: a new one) */
  limiter?: RateLimiter;
  sleep?: Sleep;
  random?: () => number;
  now?: () => number;
}

export interface SendOptions {
  /** safe to repeat: reads, replace, details, group add (set semantics) */
  safe: boolean;
  signal?: AbortSignal;
  /**
   * For a request that is not safe to repeat: asked after an attempt whose answer was lost (a
   * reset, a 502/503/504) whether that attempt did not take effect. Only when it resolves true
   * is the request sent again (e.g. a create whose marker annotation is nowhere to be found).
   */
  confirmNotApplied?: () => Promise<boolean>;
  /** --verbose */
  trace?: (line: string) => void;
}

/** An answer to one attempt, as the policy sees it: its status line for the trace. */
export interface Attempted extends Answer {
  /** `503 GET url 12 ms (retry 1)` */
  label: string;
  /** requests sent so far for this call (set by the policy) */
  attempts?: number;
}

export class RetryPolicy {
  readonly retries: number;
  readonly maxRetryAfterSeconds: number;
  readonly limiter: RateLimiter;
  private readonly backoffBaseMs: number;
  private readonly maxBackoffMs: number;
  private readonly sleep: Sleep;
  private readonly random: () => number;
  private readonly now: () => number;

  constructor(o: PolicyOptions = {}) {
    this.retries = o.retries ?? 3;
    this.maxRetryAfterSeconds = o.maxRetryAfterSeconds ?? 60;
    this.backoffBaseMs = o.backoffBaseMs ?? 300;
    this.maxBackoffMs = o.maxBackoffMs ?? 8_000;
    this.sleep = o.sleep ?? defaultSleep;
    this.random = o.random ?? Math.random;
    this.now = o.now ?? Date.now;
    this.limiter = o.limiter ?? new RateLimiter({ now: this.now, sleep: this.sleep, maxWaitMs: this.maxRetryAfterSeconds * 1000 });
  }

  /** the wait before retry n (1, 2, ...): full jitter over an exponential ceiling */
  backoff(retry: number): number {
    const cap = Math.min(this.maxBackoffMs, this.backoffBaseMs * 2 ** (retry - 1));
    return Math.floor(this.random() * cap);
  }

  /**
   * Sends through `attempt` (called with 0, 1, 2, ...; each call signs afresh) until an answer
   * that is not to be retried, or the budget is spent: then the last answer is returned (the
   * caller reads it into an error) or the last failure thrown.
   *
   * Retried: a connection that could not be made (nothing was sent), any method; a 429 (the
   * service refused it), any method, after the pause everyone takes; a reset or a 502/503/504,
   * when the request is safe to repeat, or when confirmNotApplied says the attempt did not take
   * effect. A Retry-After over the cap fails at once with RateLimitError.
   */
  async send(attempt: (n: number) => Promise<Attempted>, o: SendOptions): Promise<Attempted> {
    const count = { sent: 0 };
    try {
      const a = await this.loop(attempt, o, count);
      a.attempts = count.sent;
      return a;
    } catch (err) {
      if (err instanceof McatError && count.sent > 0) err.attempts = count.sent;
      throw err;
    }
  }

  private async loop(attempt: (n: number) => Promise<Attempted>, o: SendOptions, count: { sent: number }): Promise<Attempted> {
    const note = o.trace ?? (() => {});
    for (let n = 0; ; n++) {
      if (o.signal?.aborted) throw new AbortedError();
      if (!this.limiter.tryAcquire()) await this.limiter.acquire(o.signal);
      const sentAt = this.now();
      let a: Attempted;
      try {
        count.sent = n + 1;
        a = await attempt(n);
      } catch (err) {
        this.limiter.settle();
        if (n >= this.retries || o.signal?.aborted) throw err;
        const unsent = err instanceof TimeoutError && err.phase === 'connect';
        const lost = err instanceof NetworkError && RESET_CODES.has(err.causeCode ?? '');
        if (!unsent && !(lost && (o.safe || (await this.confirmed(o, note))))) throw err;
        await this.wait(this.backoff(n + 1), o, note);
        continue;
      }
      const waiting = this.limiter.observe(a.status, a.headers, sentAt);
      if (waiting && a.status !== 429) note(`${a.label}; ${waiting}`);
      if (!RETRY_STATUSES.has(a.status)) return a;
      const ra = parseRetryAfter(a.headers['retry-after'], this.now());
      if (ra !== undefined && ra > this.maxRetryAfterSeconds && (a.status === 429 || o.safe)) {
        await a.discard();
        note(`${a.label}: Retry-After ${ra} s is over the ${this.maxRetryAfterSeconds} s cap`);
        throw new RateLimitError(ra, a.status, this.maxRetryAfterSeconds);
      }
      if (n >= this.retries) return a;
      if (a.status === 429) {
        // the limiter holds everyone (this request too) until Retry-After has passed
        await a.discard();
        note(`${a.label}; rate limited: everyone waits ${Math.max(0, this.limiter.pausedUntil - this.now())} ms`);
        continue;
      }
      if (!o.safe) {
        // keep the body for the error message in case it is not sent again
        await a.text().catch(() => undefined);
        if (!(await this.confirmed(o, note))) return a;
      } else await a.discard();
      await this.wait(Math.max(ra !== undefined ? ra * 1000 : 0, this.backoff(n + 1)), o, note, a.label);
    }
  }

  private async confirmed(o: SendOptions, note: (line: string) => void): Promise<boolean> {
    if (!o.confirmNotApplied) return false;
    let yes: boolean;
    try {
      yes = await o.confirmNotApplied();
    } catch {
      yes = false;
    }
    note(yes ? 'the attempt did not take effect: sending it again' : 'the attempt may have taken effect: not sent again');
    return yes;
  }

  private async wait(ms: number, o: SendOptions, note: (line: string) => void, label?: string): Promise<void> {
    note(`${label ? `${label}; ` : ''}retrying in ${ms} ms`);
    await this.sleep(ms, o.signal);
    if (o.signal?.aborted) throw new AbortedError();
  }
}
