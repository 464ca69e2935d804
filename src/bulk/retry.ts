// Bounded retries of one idempotent read (a listing page, a getPlaylist), on top of the
// client's own: transient failures back off, a 429 waits for Retry-After.
import { classifyError, defaultSleep, retryAfterMsOf } from './scheduler';

export interface RetryOptions {
  attempts?: number;
  baseDelayMs?: number;
  maxDelayMs?: number;
  defaultRetryAfterMs?: number;
  /** told of each 429 (e.g. AimdScheduler.noteRateLimited) */
  onRateLimited?: (retryAfterMs: number) => void;
  sleep?: (ms: number, signal?: AbortSignal) => Promise<void>;
  random?: () => number;
}

export async function withRetries<T>(fn: () => Promise<T>, o: RetryOptions = {}): Promise<T> {
  const attempts = o.attempts ?? 4;
  const sleep = o.sleep ?? defaultSleep;
  const random = o.random ?? Math.random;
  for (let attempt = 1; ; attempt++) {
    try {
      return await fn();
    } catch (err) {
      const cls = classifyError(err);
      if (cls === 'permanent' || attempt >= attempts) throw err;
      let wait = Math.floor(random() * Math.min(o.maxDelayMs ?? 10_000, (o.baseDelayMs ?? 500) * 2 ** (attempt - 1)));
      if (cls === 'rate-limited') {
        const ra = retryAfterMsOf(err) ?? o.defaultRetryAfterMs ?? 1000;
        o.onRateLimited?.(ra);
        wait = Math.max(wait, ra);
      }
      await sleep(wait);
    }
  }
}
