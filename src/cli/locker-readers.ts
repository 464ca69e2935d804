// Worker threads that read the pages of a long locker walk (`locker --all -o ndjson` or `-o table`):
// parsing a page's JSON and writing its NDJSON (or making its table rows) are most of the walk's CPU,
// and one thread cannot do both faster. A page's bytes are transferred (not copied) to the least busy
// thread (locker-worker.ts), which hands back its NDJSON bytes (or its packed table rows:
// output/table-rows.ts) and what the stop rules need; the main thread keeps the
// order, runs the stop rules, writes, and stops exactly as before. A page a thread cannot vouch
// for comes back as its bytes and is read on the main thread, as every page was; a thread that
// dies loses its pages, which the caller then fetches again and reads on the main thread.
//
//   MCAT_LOCKER_THREADS       threads, 0 to 16 (0: none; default: the cores less one, at most 2)
//   MCAT_LOCKER_THREAD_PAGES  pages still to read after the first for the threads to start (default 8)
import { availableParallelism } from 'node:os';
import { join } from 'node:path';
import type { Worker } from 'node:worker_threads';
import type { Later, TakenAnswer } from '../client/http';
import { getPath, Unread, type PageFetcher, type PageInfo } from '../client/paging';
import { LOCKER_PAGING_PATH } from '../client/locker-key';
import { NdjsonLines } from '../output/ndjson';
import { TableRows } from '../output/table-rows';
import { lockerView } from './views/locker';
import type { PageIn, PageOut } from './locker-worker';
import { ownBuffer } from './locker-worker';
import { intOption } from './context';

declare const __MCAT_VERSION__: string;

/**
 * A thread's young generation, MB. A page's objects (~250 kB of JSON) are garbage once its NDJSON
 * is made: V8's default young generation let each thread's heap grow by ~15 MB before collecting,
 * and the walk's peak memory pass 150 MB (big locker: 142-159 MB with one or two threads at the
 * default, 115-131 MB at 4 MB). At 4 MB a page's objects outlive more scavenges than at 16 (~150
 * collections and ~150 ms a walk instead of ~50 and ~85 ms), yet the walk's CPU was within 3 %
 * (1.50 s and 1.46 s, medians of 4) and its peak memory ~12 MB lower: the margin under the goal.
 * Under Node 24 the same walk peaked ~25-30 MB higher (149-160 MB; Node 22: 141-146; Node 20:
 * 123-131, 2026-11-28), whatever this size: not the threads' heaps (within ~5 MB of Node 20's) but
 * V8 compiling undici's parser with TurboFan on the main thread, --liftoff-only set at run time
 * notwithstanding (see the launcher, src/launcher/boot.ts), whose ~25 MB of compiler memory left
 * glibc keeping every later page buffer in its heap. Fixed there: 131-140 MB. What Node 24 still
 * adds is its own fixed cost: its larger binary's pages (RSS file-backed +10 MB) and its new V8
 * spaces (trusted, ~2 MB a heap).
 */
const THREAD_YOUNG_MB = 4;

/**
 * Pages fetched ahead while threads read them (paginate's window; 4 without threads): a page now
 * waits for its thread too, and 4 left the thread idle between pages (big locker, one thread:
 * 1.68 s → 1.45 s, medians of 4 on a busy machine).
 */
export const THREAD_WINDOW = 8;

/** A page read by a thread: its paging fields, its releases' keys (lockerReleaseKey), its NDJSON or its table rows. */
export class ReadPage {
  constructor(
    readonly paging: PageInfo,
    readonly keys: string[],
    readonly made: NdjsonLines | TableRows,
  ) {}

  /** what it holds, bytes (paginate's budget of pages fetched ahead) */
  get bytes(): number {
    const m = this.made;
    return m instanceof NdjsonLines ? m.bytes.byteLength : typeof m.packed === 'string' ? m.packed.length * 2 : m.packed.byteLength;
  }
}

/** Thrown by read() for a page whose thread died: fetch it again and read it on the main thread. */
export class ReaderLost extends Error {}

/** How many threads, and from how many pages on (see the top of this file). */
export function readerSettings(env: Record<string, string | undefined>): { threads: number; minPages: number } {
  // as the other numbers mcat reads from the environment: a bad value is a usage error (exit 2),
  // never silently the default; blank counts as unset
  const set = (v: string | undefined) => (v === undefined || v.trim() === '' ? undefined : v);
  const threads = intOption(set(env.MCAT_LOCKER_THREADS), 'MCAT_LOCKER_THREADS', { min: 0, max: 16 }) ?? defaultThreads(availableParallelism());
  const minPages = intOption(set(env.MCAT_LOCKER_THREAD_PAGES), 'MCAT_LOCKER_THREAD_PAGES', { min: 1 }) ?? 8;
  return { threads, minPages };
}

/**
 * Threads by default: one core is left to the main thread (fetching, writing) and to the server or
 * pipe it talks to, at most 2 threads. On 2 cores one thread was as fast as two (big locker, 1.45 s
 * and 1.48 s), with less CPU and memory. On one core a thread would only take turns with the main
 * thread, at the cost of its start and its own heap: none.
 */
export function defaultThreads(cores: number): number {
  return Math.max(0, Math.min(2, cores - 1));
}

/** The worker's bundle: beside the CLI's in dist/ (run from source there is none, and no threads). */
export function workerFile(): string | undefined {
  return typeof __MCAT_VERSION__ === 'string' ? join(__dirname, 'locker-worker.cjs') : undefined;
}

interface Pending {
  resolve(out: PageOut): void;
  reject(e: Error): void;
}

interface Thread {
  worker: Worker;
  pending: Map<number, Pending>;
  dead: boolean;
}

export class LockerReaders {
  private readonly threads: Thread[] = [];
  private nextId = 1;
  private closed = false;

  private constructor() {}

  /** `n` threads running `file` (node:worker_threads is loaded only here). */
  static async start(n: number, file: string): Promise<LockerReaders> {
    const { Worker } = await import('node:worker_threads');
    const r = new LockerReaders();
    for (let i = 0; i < n; i++) {
      const t: Thread = { worker: new Worker(file, { resourceLimits: { maxYoungGenerationSizeMb: THREAD_YOUNG_MB } }), pending: new Map(), dead: false };
      const lost = (why: string) => {
        t.dead = true;
        const pending = [...t.pending.values()];
        t.pending.clear();
        for (const p of pending) p.reject(new ReaderLost(why));
      };
      t.worker.on('message', (out: PageOut) => {
        const p = t.pending.get(out.id);
        t.pending.delete(out.id);
        p?.resolve(out);
      });
      t.worker.on('error', (e: Error) => lost(e.message));
      t.worker.on('exit', (code: number) => lost(`exited with code ${code}`));
      r.threads.push(t);
    }
    return r;
  }

  /** Whether a thread can take a page (else read it on the main thread, as before). */
  get alive(): boolean {
    return !this.closed && this.threads.some((t) => !t.dead);
  }

  /** The page read by a thread, or (handed back) read here by `taken.read`; ReaderLost when its thread died. */
  async read<T>(taken: TakenAnswer<T>, table?: PageIn['table']): Promise<ReadPage | T> {
    const t = this.threads.filter((x) => !x.dead).reduce<Thread | undefined>((a, b) => (a && a.pending.size <= b.pending.size ? a : b), undefined);
    if (!t || this.closed) throw new ReaderLost('no thread left');
    const id = this.nextId++;
    const bytes = ownBuffer(taken.bytes);
    const m: PageIn = { id, bytes, status: taken.status, headers: taken.headers, url: taken.url, what: taken.what, table };
    const out = await new Promise<PageOut>((resolve, reject) => {
      t.pending.set(id, { resolve, reject });
      t.worker.postMessage(m, [bytes]);
    });
    if (!out.ok) return taken.read(new Uint8Array(out.bytes));
    const made = 'rows' in out ? new TableRows(new Uint8Array(out.rows.packed), lockerView.columns.length, out.rows.itemRows, out.rows.tally) : new NdjsonLines(new Uint8Array(out.lines), out.count);
    return new ReadPage(out.paging as PageInfo, out.keys, made);
  }

  /** Ends the threads (pages still with them are not wanted). */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    await Promise.all(
      this.threads.map((t) => {
        t.dead = true;
        t.pending.clear();
        return t.worker.terminate().catch(() => undefined);
      }),
    );
  }
}

/**
 * The threads of one walk, started once its first page has said how long it is: a page fetcher
 * for paginate() that reads the first page (and every page while no thread runs) on the main
 * thread, as `plain` does, and hands the others' bytes to the threads.
 */
export class WalkThreads {
  private readers: Promise<LockerReaders | undefined> = Promise.resolve(undefined);
  private started = false;
  /** pages read by a thread, and pages read here (the first, those handed back or refetched) */
  private byThreads = 0;
  private here = 0;
  /** --verbose: one line at the end saying how the pages were read */
  trace?: (line: string) => void;

  constructor(
    private readonly threads: number,
    private readonly minPages: number,
    private readonly file: string,
    /** stop after this many releases (--limit): the pages past it are never read */
    private readonly limit?: number,
    /** table rows instead of NDJSON: the keys of the columns the table shows, once decided */
    private readonly table?: () => readonly string[] | undefined,
  ) {}

  fetcher<T>(
    plain: (page: number, signal: AbortSignal) => Promise<Unread<T>>,
    later: (page: number, signal: AbortSignal) => Promise<Later<T>>,
    startPage: number,
  ): PageFetcher<T | ReadPage> {
    return async (page, signal) => {
      if (page === startPage && !this.started) {
        const first = await plain(page, signal);
        this.here++;
        return new Unread(async () => {
          const body = await first.read();
          this.startFor(getPath(body, LOCKER_PAGING_PATH) as PageInfo | undefined, startPage);
          return body;
        }, first.bytes);
      }
      const [l, readers] = await Promise.all([later(page, signal), this.readers]);
      const taken = readers?.alive ? l.take?.() : undefined;
      if (!readers || !taken) {
        this.here++;
        return new Unread(l, l.bytes);
      }
      try {
        const got = await readers.read(taken, this.table && { shown: this.table()?.slice() });
        if (got instanceof ReadPage) this.byThreads++;
        else this.here++;
        return got;
      } catch (e) {
        if (!(e instanceof ReaderLost) || signal.aborted) throw e;
        this.here++;
        return plain(page, signal);
      }
    };
  }

  /** Starts the threads when the pages after the first are at least minPages. */
  private startFor(paging: PageInfo | undefined, startPage: number): void {
    this.started = true;
    const total = Number(paging?.totalItems);
    const size = Number(paging?.pageSize);
    if (this.threads < 1 || !(total > 0) || !(size > 0)) return;
    let end = Math.ceil(total / size);
    if (this.limit !== undefined) end = Math.min(end, startPage - 1 + Math.ceil(this.limit / size));
    if (end - startPage < this.minPages) return;
    this.readers = LockerReaders.start(this.threads, this.file).catch(() => undefined);
  }

  async close(): Promise<void> {
    const readers = await this.readers;
    if (!readers) return;
    await readers.close();
    this.trace?.(`locker: ${plural(this.byThreads, 'page')} read by ${plural(this.threads, 'worker thread')}, ${this.here} on the main thread`);
  }
}

const plural = (n: number, what: string) => `${n} ${what}${n === 1 ? '' : 's'}`;

/** The threads for a walk of the locker in this run (undefined: none, e.g. run from source or MCAT_LOCKER_THREADS=0). */
export function lockerThreads(env: Record<string, string | undefined>, limit?: number, table?: () => readonly string[] | undefined): WalkThreads | undefined {
  const { threads, minPages } = readerSettings(env);
  const file = workerFile();
  return threads > 0 && file ? new WalkThreads(threads, minPages, file, limit, table) : undefined;
}
