// How many edits are in flight, and in what order: at most `concurrency` at once (fixed, or an
// adaptive limit that follows the service's answers: adaptive.ts), edits of one
// target (a lane) one at a time in input order. Nothing here retries or slows down: each request
// of an edit goes through the client's one retry and rate policy, whose limiter paces every
// request of the process and pauses them all on a 429.

import type { AdaptiveLimit } from './adaptive';

export interface SchedulerOptions {
  /** edits in flight at most; default 8 (ignored with `adaptive`) */
  concurrency?: number;
  /** a limit that moves with the service's answers (adaptive.ts) instead of a fixed one */
  adaptive?: AdaptiveLimit;
  /** for the adaptive limit's timings (tests); default: a monotonic clock in ms */
  now?: () => number;
}

export interface Task<T> {
  item: T;
  /** tasks with the same lane run one at a time, in the order given */
  lane?: string;
}

export interface RunHooks<T, R> {
  onStart?(item: T): void;
  onDone(item: T, result: R): void;
  onFailed(item: T, error: unknown): void;
  /** before the run waits for an edit in flight: what started and finished since the last wait is
   *  known, and none of the started ones has sent a request yet (they are still in their first await) */
  beforeWait?(): void;
}

export class Scheduler {
  private readonly fixed: number;
  private readonly adaptive: AdaptiveLimit | undefined;
  private readonly now: () => number;
  private inFlightCount = 0;
  private wake: (() => void) | undefined;
  private kickQueued = false;

  constructor(opts: SchedulerOptions = {}) {
    this.fixed = Math.max(1, Math.floor(opts.concurrency ?? 8));
    this.adaptive = opts.adaptive;
    // (process.hrtime, not performance.now: the global performance loads perf_hooks, eight modules
    // compiled from source in every run after the launcher's V8 flags)
    this.now = opts.now ?? (() => Number(process.hrtime.bigint()) / 1e6);
  }

  /** edits that may be in flight now */
  get concurrency(): number {
    return this.adaptive ? this.adaptive.limit : this.fixed;
  }

  get inFlight(): number {
    return this.inFlightCount;
  }

  private kick(): void {
    const w = this.wake;
    this.wake = undefined;
    w?.();
  }

  /**
   * Wakes the run once the event loop has handled every answer that came in with this one: a
   * wait's I/O brings several answers, each in a turn of its own, and the run then starts their
   * successors and writes their journal records once for all of them (one write, not one each).
   */
  private kickSoon(): void {
    if (this.kickQueued) return;
    this.kickQueued = true;
    setImmediate(() => {
      this.kickQueued = false;
      this.kick();
    });
  }

  /**
   * Runs every task through `fn`. Resolves when all are done or failed, or, after the signal
   * aborts, when the edits in flight have finished: nothing new is started after an abort.
   * A hook that throws (the journal cannot be written) stops the run like an abort, and is rethrown.
   */
  async run<T, R>(tasks: Task<T>[], fn: (item: T) => Promise<R>, hooks: RunHooks<T, R>, signal?: AbortSignal): Promise<{ interrupted: boolean; unfinished: T[] }> {
    type Entry = { task: Task<T>; seq: number };
    // lanes: only the head of each lane may be ready
    const laneQueues = new Map<string, Entry[]>();
    const ready: Entry[] = [];
    tasks.forEach((task, seq) => {
      const e: Entry = { task, seq };
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
      // keep input order among ready entries
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

    const adaptive = this.adaptive;
    const start = (e: Entry) => {
      this.inFlightCount++;
      const t0 = adaptive ? this.now() : 0;
      adaptive?.started(this.inFlightCount);
      safely(() => hooks.onStart?.(e.task.item));
      let p: Promise<R>;
      try {
        p = fn(e.task.item);
      } catch (err) {
        p = Promise.reject(err);
      }
      p.then(
        (result) => {
          this.inFlightCount--;
          adaptive?.finished(this.now() - t0);
          advanceLane(e);
          // queued before onDone's journal record, whose own write (journal.appendSoon) then finds it written
          this.kickSoon();
          safely(() => hooks.onDone(e.task.item, result));
        },
        (err) => {
          this.inFlightCount--;
          adaptive?.finished(this.now() - t0);
          advanceLane(e);
          this.kickSoon();
          safely(() => hooks.onFailed(e.task.item, err));
        },
      );
    };

    try {
      for (;;) {
        if (!stopped() && ready.length > 0 && this.inFlightCount < this.concurrency) {
          start(ready.shift()!);
          continue;
        }
        if (hooks.beforeWait) safely(() => hooks.beforeWait!());
        if (this.inFlightCount === 0 && (stopped() || ready.length === 0)) break;
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
