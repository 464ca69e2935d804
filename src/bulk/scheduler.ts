// Runs bulk edits with bounded concurrency and AIMD rate control: a 429 pauses every worker
// until Retry-After has passed and halves the concurrency; steady successes raise it again, one
// step per `increaseEvery` successes, up to the maximum. Transient failures are retried with
// backoff (after the client's own retries); permanent ones are handed back at once.
import { ApiError, AuthError, HttpError, NetworkError, RateLimitError, ResponseError, TimeoutError } from '../client/errors';

export type ErrorClass = 'transient' | 'rate-limited' | 'permanent';

/** How the run treats an error thrown by one attempt of an edit. */
export function classifyError(err: unknown): ErrorClass {
  if (err instanceof HttpError) {
    if (err.httpStatus === 429) return 'rate-limited';
    return err.httpStatus >= 500 ? 'transient' : 'permanent';
  }
  if (err instanceof NetworkError || err instanceof TimeoutError) return 'transient';
  if (err instanceof ApiError) return err.code === 9001 || err.httpStatus >= 500 ? 'transient' : 'permanent';
  if (err instanceof ResponseError) return err.httpStatus === undefined || err.httpStatus >= 500 || err.httpStatus < 300 ? 'transient' : 'permanent';
  // A wait longer than mcat accepts, credentials refused, a bug: retrying will not help.
  if (err instanceof RateLimitError || err instanceof AuthError) return 'permanent';
  return 'permanent';
}

/** Retry-After carried by an error, in ms, if any. */
export function retryAfterMsOf(err: unknown): number | undefined {
  const e = err as { retryAfterSeconds?: unknown; retryAfterMs?: unknown } | undefined;
  if (e && typeof e.retryAfterMs === 'number') return e.retryAfterMs;
  if (e && typeof e.retryAfterSeconds === 'number') return e.retryAfterSeconds * 1000;
  return undefined;
}

export interface SchedulerOptions {
  /** maximum (and starting) number of edits in flight; default 8 */
  concurrency?: number;
  /** successes needed to raise the concurrency by one; default 4 */
  increaseEvery?: number;
  /** attempts per edit, the first included; default 6 */
  maxAttempts?: number;
  /** backoff: full jitter over min(maxDelayMs, baseDelayMs * 2^(attempt-1)); defaults 500 and 20000 */
  baseDelayMs?: number;
  maxDelayMs?: number;
  /** pause after a 429 that names no Retry-After; default 1000 */
  defaultRetryAfterMs?: number;
  signal?: AbortSignal;
  /** injectable for tests */
  sleep?: (ms: number, signal?: AbortSignal) => Promise<void>;
  random?: () => number;
  now?: () => number;
}

export interface Task<T> {
  item: T;
  /** tasks with the same lane run one at a time, in the order given */
  lane?: string;
}

export interface RunHooks<T, R> {
  onStart?(item: T, attempt: number): void;
  onDone(item: T, result: R, attempts: number): void;
  onFailed(item: T, error: unknown, attempts: number): void;
  onRetry?(item: T, error: unknown, attempt: number, delayMs: number): void;
}

export function defaultSleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (ms <= 0 || signal?.aborted) return resolve();
    const t = setTimeout(done, ms);
    function done() {
      clearTimeout(t);
      signal?.removeEventListener('abort', done);
      resolve();
    }
    signal?.addEventListener('abort', done, { once: true });
  });
}

export class AimdScheduler {
  readonly max: number;
  private limitValue: number;
  private successes = 0;
  private pausedUntilMs = 0;
  private lastDecreaseAt = -Infinity;
  private decreaseHoldMs = 0;
  private inFlightCount = 0;
  private wake: (() => void) | undefined;
  readonly opts: Required<Omit<SchedulerOptions, 'signal'>> & { signal?: AbortSignal };
  /** count of 429 signals seen (for progress and tests) */
  rateLimitedCount = 0;

  constructor(opts: SchedulerOptions = {}) {
    this.opts = {
      concurrency: Math.max(1, Math.floor(opts.concurrency ?? 8)),
      increaseEvery: Math.max(1, opts.increaseEvery ?? 4),
      maxAttempts: Math.max(1, opts.maxAttempts ?? 6),
      baseDelayMs: opts.baseDelayMs ?? 500,
      maxDelayMs: opts.maxDelayMs ?? 20_000,
      defaultRetryAfterMs: opts.defaultRetryAfterMs ?? 1000,
      sleep: opts.sleep ?? defaultSleep,
      random: opts.random ?? Math.random,
      now: opts.now ?? Date.now,
      signal: opts.signal,
    };
    this.max = this.opts.concurrency;
    this.limitValue = this.max;
  }

  /** current effective concurrency */
  get limit(): number {
    return this.limitValue;
  }
  get inFlight(): number {
    return this.inFlightCount;
  }
  get pausedUntil(): number {
    return this.pausedUntilMs;
  }

  /**
   * A 429 was seen (by the run, or by the client's retry hook): every worker waits until
   * Retry-After has passed, and the concurrency is halved once per burst of 429s (the answers
   * to requests that were already in flight count as the same signal).
   */
  noteRateLimited(retryAfterMs?: number): void {
    const now = this.opts.now();
    const wait = Math.max(0, retryAfterMs ?? this.opts.defaultRetryAfterMs);
    this.rateLimitedCount++;
    if (now >= this.lastDecreaseAt + this.decreaseHoldMs) {
      this.limitValue = Math.max(1, Math.floor(this.limitValue / 2));
      this.lastDecreaseAt = now;
      this.decreaseHoldMs = Math.max(1000, wait);
      this.successes = 0;
    }
    this.pausedUntilMs = Math.max(this.pausedUntilMs, now + wait);
    this.kick();
  }

  /** One request went through: additive increase. */
  noteSuccess(): void {
    if (this.limitValue >= this.max) return;
    this.successes++;
    if (this.successes >= this.opts.increaseEvery) {
      this.successes = 0;
      this.limitValue++;
      this.kick();
    }
  }

  private kick(): void {
    const w = this.wake;
    this.wake = undefined;
    w?.();
  }

  backoffMs(attempt: number): number {
    const ceiling = Math.min(this.opts.maxDelayMs, this.opts.baseDelayMs * 2 ** (attempt - 1));
    return Math.floor(this.opts.random() * ceiling);
  }

  /**
   * Runs every task through `fn` (attempt numbers start at 1). Resolves when all are done or
   * failed, or, after the signal aborts, when the edits in flight have finished: nothing new is
   * started after an abort, and edits waiting for a retry are left undone.
   */
  async run<T, R>(
    tasks: Task<T>[],
    fn: (item: T, attempt: number) => Promise<R>,
    hooks: RunHooks<T, R>,
    signal: AbortSignal | undefined = this.opts.signal,
  ): Promise<{ interrupted: boolean; unfinished: T[] }> {
    type Entry = { task: Task<T>; attempt: number; seq: number };
    // lanes: only the head of each lane may be ready
    const laneQueues = new Map<string, Entry[]>();
    const ready: Entry[] = [];
    tasks.forEach((task, seq) => {
      const e: Entry = { task, attempt: 1, seq };
      if (task.lane === undefined) ready.push(e);
      else {
        const q = laneQueues.get(task.lane);
        if (q) q.push(e);
        else {
          laneQueues.set(task.lane, [e]);
          ready.push(e);
        }
      }
    });
    const insertReady = (e: Entry) => {
      // keep input order among ready entries (retries go back to their place)
      let i = ready.length;
      while (i > 0 && ready[i - 1].seq > e.seq) i--;
      ready.splice(i, 0, e);
    };
    const finished = new Set<number>();
    const advanceLane = (e: Entry) => {
      finished.add(e.seq);
      if (e.task.lane === undefined) return;
      const q = laneQueues.get(e.task.lane)!;
      q.shift();
      if (q.length) insertReady(q[0]);
    };
    let delayed = 0;
    // a hook that throws (the journal cannot be written) stops the run like an abort, then is rethrown
    let fatal: { error: unknown } | undefined;
    const safely = (f: () => void) => {
      try {
        f();
      } catch (error) {
        fatal ??= { error };
      }
    };
    const stopped = () => Boolean(signal?.aborted || fatal);
    const onAbort = () => this.kick();
    signal?.addEventListener('abort', onAbort);

    const start = (e: Entry) => {
      this.inFlightCount++;
      safely(() => hooks.onStart?.(e.task.item, e.attempt));
      let p: Promise<R>;
      try {
        p = fn(e.task.item, e.attempt);
      } catch (err) {
        p = Promise.reject(err);
      }
      p.then(
        (result) => {
          this.inFlightCount--;
          this.noteSuccess();
          advanceLane(e);
          safely(() => hooks.onDone(e.task.item, result, e.attempt));
          this.kick();
        },
        (err) => {
          this.inFlightCount--;
          const cls = classifyError(err);
          let wait = 0;
          if (cls === 'rate-limited') {
            const ra = retryAfterMsOf(err) ?? this.opts.defaultRetryAfterMs;
            this.noteRateLimited(ra);
            wait = ra;
          }
          if (cls !== 'permanent' && e.attempt < this.opts.maxAttempts && !stopped()) {
            const delay = Math.max(wait, this.backoffMs(e.attempt));
            safely(() => hooks.onRetry?.(e.task.item, err, e.attempt, delay));
            delayed++;
            this.opts.sleep(delay, signal).then(() => {
              delayed--;
              if (!stopped()) insertReady({ task: e.task, attempt: e.attempt + 1, seq: e.seq });
              this.kick();
            });
          } else if (cls !== 'permanent' && stopped()) {
            // interrupted between attempts: leave it undone (the journal shows it started)
            this.kick();
          } else {
            advanceLane(e);
            safely(() => hooks.onFailed(e.task.item, err, e.attempt));
            this.kick();
          }
        },
      );
    };

    try {
      for (;;) {
        const aborted = stopped();
        if (!aborted && ready.length > 0 && this.inFlightCount < this.limitValue) {
          const waitMs = this.pausedUntilMs - this.opts.now();
          if (waitMs > 0) {
            const woke = new Promise<void>((r) => (this.wake = r));
            await Promise.race([this.opts.sleep(waitMs, signal), woke]);
            continue;
          }
          start(ready.shift()!);
          continue;
        }
        if (this.inFlightCount === 0 && delayed === 0 && (aborted || ready.length === 0)) break;
        await new Promise<void>((r) => (this.wake = r));
      }
    } finally {
      signal?.removeEventListener('abort', onAbort);
    }
    if (fatal) throw fatal.error;
    const interrupted = signal?.aborted ?? false;
    const unfinished = tasks.filter((_, i) => !finished.has(i)).map((t) => t.item);
    return { interrupted, unfinished };
  }
}
