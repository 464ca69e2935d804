// Retry-After, read apart from the policy: interpret() reads it too, in code that loads no transport
// (the locker walk's worker threads, src/cli/locker-worker.ts).

/** Retry-After in seconds: delta-seconds or an HTTP date. */
export function parseRetryAfter(v: string | undefined, now = Date.now()): number | undefined {
  if (v === undefined) return undefined;
  const s = v.trim();
  if (/^\d+(\.\d+)?$/.test(s)) return Math.ceil(Number(s));
  const at = Date.parse(s);
  if (Number.isFinite(at)) return Math.max(0, Math.ceil((at - now) / 1000));
  return undefined;
}
