// Fault injection and rate limiting for testing clients: --faults and --rate-limit.

export interface Faults {
  latencyMs: number;
  error: number;
  tooMany: number;
  retryAfter: number;
  reset: number;
  truncate: number;
  slow: number;
}

export const NO_FAULTS: Faults = { latencyMs: 0, error: 0, tooMany: 0, retryAfter: 1, reset: 0, truncate: 0, slow: 0 };

function duration(v: string): number {
  const m = /^(\d+(?:\.\d+)?)(ms|s)?$/.exec(v.trim());
  if (!m) throw new Error(`invalid duration '${v}' (use e.g. 200ms or 1s)`);
  return Math.round(Number(m[1]) * (m[2] === 's' ? 1000 : 1));
}

function probability(name: string, v: string): number {
  const n = Number(v);
  if (!/^\d*\.?\d+$/.test(v.trim()) || !(n >= 0 && n <= 1)) throw new Error(`--faults ${name} must be a probability between 0 and 1, got '${v}'`);
  return n;
}

/** Parses `latency=200ms,error=0.1,429=0.05,retryafter=2,reset=0.02,truncate=0.02,slow=0.02`. */
export function parseFaults(spec: string | undefined): Faults {
  const f = { ...NO_FAULTS };
  if (!spec || !spec.trim()) return f;
  for (const part of spec.split(',')) {
    if (!part.trim()) continue;
    const eq = part.indexOf('=');
    if (eq < 0) throw new Error(`invalid --faults item '${part}' (expected name=value)`);
    const name = part.slice(0, eq).trim().toLowerCase();
    const value = part.slice(eq + 1).trim();
    switch (name) {
      case 'latency':
        f.latencyMs = duration(value);
        break;
      case 'error':
        f.error = probability(name, value);
        break;
      case '429':
        f.tooMany = probability(name, value);
        break;
      case 'retryafter':
      case 'retry-after':
        f.retryAfter = Math.max(0, Math.ceil(duration(value.replace(/^(\d+(?:\.\d+)?)$/, '$1s')) / 1000));
        break;
      case 'reset':
        f.reset = probability(name, value);
        break;
      case 'truncate':
        f.truncate = probability(name, value);
        break;
      case 'slow':
        f.slow = probability(name, value);
        break;
      default:
        throw new Error(`unknown --faults item '${name}' (known: latency, error, 429, retryafter, reset, truncate, slow)`);
    }
  }
  return f;
}

export interface RateLimit {
  limit: number;
  windowMs: number;
}

/** The default when --rate-limit is not given: generous, never in a test's way. */
export const DEFAULT_RATE_LIMIT: RateLimit = { limit: 1_000_000, windowMs: 60_000 };

/** Parses `N/min` (also `N/s`, `N/h`, or a bare N per minute). */
export function parseRateLimit(spec: string | undefined): RateLimit {
  if (!spec || !spec.trim()) return DEFAULT_RATE_LIMIT;
  const m = /^\s*(\d+)\s*(?:\/\s*(s|sec|second|m|min|minute|h|hour))?\s*$/i.exec(spec);
  if (!m || Number(m[1]) < 1) throw new Error(`invalid --rate-limit '${spec}' (expected N/min, e.g. 60/min)`);
  const unit = (m[2] ?? 'min').toLowerCase();
  const windowMs = unit.startsWith('s') ? 1000 : unit.startsWith('h') ? 3_600_000 : 60_000;
  return { limit: Number(m[1]), windowMs };
}

/** Fixed-window counter per consumer key. */
export class RateLimiter {
  private windows = new Map<string, { start: number; count: number }>();
  constructor(readonly cfg: RateLimit) {}

  hit(key: string, now = Date.now()): { allowed: boolean; limit: number; current: number; resetS: number } {
    let w = this.windows.get(key);
    if (!w || now - w.start >= this.cfg.windowMs) {
      w = { start: now, count: 0 };
      this.windows.set(key, w);
    }
    w.count++;
    const resetS = Math.max(1, Math.ceil((w.start + this.cfg.windowMs - now) / 1000));
    return { allowed: w.count <= this.cfg.limit, limit: this.cfg.limit, current: Math.min(w.count, this.cfg.limit), resetS };
  }

  /** Takes back a hit of this window: the request turned out to fail authentication (another user's data). */
  undo(key: string, now = Date.now()): void {
    const w = this.windows.get(key);
    if (w && now - w.start < this.cfg.windowMs && w.count > 0) w.count--;
  }
}
