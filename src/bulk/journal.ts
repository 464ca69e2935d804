// The apply journal: an append-only NDJSON file, one record per line, each written before the
// run moves on (the records of one turn of the event loop in one write: appendSoon), and forced
// to disk in groups (see append and appendDurable). It is what makes a
// killed run resumable: a record either is on disk whole or, if the process died mid-write, is a
// torn last line that is ignored. One run at a time holds it (lock.ts); it is opened O_APPEND and
// O_NOFOLLOW, created 0600 with O_EXCL.
//
// Format (one JSON object per line):
//   {"type":"header","version":1,"runId":"<16 hex>","inputHash":"<sha256 hex>","input":"<name>"[,"source":"<16 hex>"][,"shard":"K/N"][,"target":"<16 hex>"],"total":N,"createdAt":"<ISO>"}
//   {"type":"session","event":"start"|"resume","pid":N,"at":"<ISO>"}
//   {"type":"carried","key":"<edit key>","playlistId":"<id>"[,"target":"<16 hex>"],"at":"<ISO>"}
//   {"type":"started","key":"<edit key>","line":N,"op":"<op>","at":"<ISO>"[,"marker":"<runId>:<key>"]}
//   {"type":"created","key":"<edit key>","playlistId":"<new id>","adopted":bool,"at":"<ISO>"}
//   {"type":"done","key":"<edit key>","line":N,"op":"<op>","at":"<ISO>"[,"playlistId":"<id>"][,"groupId":"<id>"][,"created":true]}
//   {"type":"failed","key":"<edit key>","line":N,"op":"<op>","at":"<ISO>","error":"<class>","message":"<text>"[,"code":N][,"httpStatus":N][,"playlistId":"<id>"]}
//   {"type":"end","applied":N,"failed":N,"skipped":N,"interrupted":bool,"at":"<ISO>"}
// A "started" record with a marker is on disk before a create is sent, and the "created" record
// before the marker is removed: until then the created playlist carries the marker in its
// annotations, so a resumed run can find it, after a kill or a crash of the machine alike.
import * as fs from 'node:fs';
import * as path from 'node:path';
import { randomBytes } from 'node:crypto';
import { McatError, InputError } from '../client/errors';
import { describeFsError, ensureJournalFolder, O_NOFOLLOW, removeFile } from './files';
import { JournalLock, type JournalLockOptions } from './lock';

export const JOURNAL_VERSION = 1;
/** the longest a written record waits to be forced to disk */
export const GROUP_SYNC_MS = 20;

export interface JournalHeader {
  type: 'header';
  version: number;
  runId: string;
  inputHash: string;
  input?: string;
  /** 16 hex naming the input file by its real path (inputSource), whatever its edits: a resume finds the unfinished run of the file before it changed */
  source?: string;
  /** "K/N" when the run applies one shard of the input (--shard); `total` counts that shard's edits */
  shard?: string;
  /**
   * 16 hex naming where the edits went (the service, the user's token and the user): an earlier
   * run's playlists are carried over only to a run with the same target, and a resume with another
   * is refused
   */
  target?: string;
  total: number;
  createdAt: string;
}
export interface StartedRecord {
  type: 'started';
  key: string;
  line: number;
  op: string;
  at: string;
  marker?: string;
}
export interface CreatedRecord {
  type: 'created';
  key: string;
  playlistId: string;
  adopted?: boolean;
  at: string;
}
/**
 * A replace edit with ifMissing "create" whose playlist an earlier run of these edits created (for
 * this target): this run replaces that playlist rather than creating another. Written right after
 * the session record, before anything is sent, so a resume of this run knows it too.
 */
export interface CarriedRecord {
  type: 'carried';
  key: string;
  playlistId: string;
  /**
   * absent: this run's own. Another target's (a run of these edits for another user): kept for a
   * later run for that user, so one file applied for user A, then B, then A again finds A's
   */
  target?: string;
  at: string;
}
export interface DoneRecord {
  type: 'done';
  key: string;
  line: number;
  op: string;
  at: string;
  playlistId?: string;
  groupId?: string;
  created?: boolean;
}
export interface FailedRecord {
  type: 'failed';
  key: string;
  line: number;
  op: string;
  at: string;
  error: string;
  message: string;
  code?: number;
  httpStatus?: number;
  playlistId?: string;
}
export interface SessionRecord {
  type: 'session';
  event: 'start' | 'resume';
  pid: number;
  at: string;
}
export interface EndRecord {
  type: 'end';
  applied: number;
  failed: number;
  skipped: number;
  interrupted: boolean;
  at: string;
}
export type JournalRecord = JournalHeader | StartedRecord | CreatedRecord | CarriedRecord | DoneRecord | FailedRecord | SessionRecord | EndRecord;

export interface JournalContents {
  header?: JournalHeader;
  records: JournalRecord[];
  /** bytes of whole, readable lines; anything after is a torn tail */
  validBytes: number;
  tornTail: boolean;
  /** unreadable lines before the last one (should never happen; reported, not fatal) */
  corruptLines: number[];
}

/** What a journal says about each edit, by key. */
export interface JournalState {
  runId: string;
  done: Map<string, DoneRecord>;
  failed: Map<string, FailedRecord>;
  started: Set<string>;
  /** key -> marker of a create that was (maybe) sent */
  markers: Map<string, string>;
  /** key -> id of a playlist created for the edit, not yet done */
  created: Map<string, string>;
  /** key -> id of the playlist an earlier run of these edits created for it (CarriedRecord) */
  carried: Map<string, string>;
  /** the same for other targets (CarriedRecord.target), kept for their next runs */
  foreign: Map<string, Map<string, string>>;
  sessions: number;
}

export function readJournal(file: string): JournalContents {
  const fd = fs.openSync(file, fs.constants.O_RDONLY | O_NOFOLLOW);
  let buf: Buffer;
  try {
    buf = fs.readFileSync(fd);
  } finally {
    fs.closeSync(fd);
  }
  const records: JournalRecord[] = [];
  const corruptLines: number[] = [];
  let header: JournalHeader | undefined;
  let validBytes = 0;
  let tornTail = false;
  let start = 0;
  let lineNo = 0;
  while (start < buf.length) {
    lineNo++;
    const nl = buf.indexOf(0x0a, start);
    const end = nl < 0 ? buf.length : nl;
    const isLast = nl < 0 || nl === buf.length - 1;
    let rec: JournalRecord | undefined;
    try {
      const v = JSON.parse(buf.subarray(start, end).toString('utf8')) as JournalRecord;
      if (v && typeof v === 'object' && typeof v.type === 'string') rec = v;
    } catch {
      rec = undefined;
    }
    if (nl < 0) {
      // no newline: the write of this record never finished
      tornTail = true;
      break;
    }
    if (!rec) {
      if (isLast) {
        tornTail = true;
        break;
      }
      corruptLines.push(lineNo);
    } else if (rec.type === 'header') {
      header ??= rec;
    } else {
      records.push(rec);
    }
    validBytes = nl + 1;
    start = nl + 1;
  }
  return { header, records, validBytes, tornTail, corruptLines };
}

export function stateOf(runId: string, records: JournalRecord[]): JournalState {
  const st: JournalState = { runId, done: new Map(), failed: new Map(), started: new Set(), markers: new Map(), created: new Map(), carried: new Map(), foreign: new Map(), sessions: 0 };
  for (const r of records) {
    switch (r.type) {
      case 'started':
        st.started.add(r.key);
        if (r.marker) st.markers.set(r.key, r.marker);
        break;
      case 'created':
        st.created.set(r.key, r.playlistId);
        break;
      case 'carried':
        if (typeof r.key !== 'string' || typeof r.playlistId !== 'string') break;
        if (typeof r.target === 'string') {
          const m = st.foreign.get(r.target) ?? new Map<string, string>();
          m.set(r.key, r.playlistId);
          st.foreign.set(r.target, m);
        } else st.carried.set(r.key, r.playlistId);
        break;
      case 'done':
        st.done.set(r.key, r);
        st.failed.delete(r.key);
        break;
      case 'failed':
        if (!st.done.has(r.key)) st.failed.set(r.key, r);
        break;
      case 'session':
        st.sessions++;
        break;
    }
  }
  return st;
}


/**
 * Where each replace edit of a finished (or untouched) run went, by key: what its `done` records
 * name, and what it carried itself. A new run of the same edits for the same target replaces these
 * playlists instead of creating them again (apply.ts keeps only the ifMissing edits whose
 * playlist was not the one they named).
 */
function carriedOver(state: JournalState): Map<string, string> {
  const out = new Map(state.carried);
  for (const [key, r] of state.done) if (r.op === 'replace' && typeof r.playlistId === 'string') out.set(key, r.playlistId);
  return out;
}

/**
 * What a new run of the edits `inputHash` (of shard `shard`) may carry over from a journal it
 * replaces: where each target's replace edits went (carriedByTarget), when the journal is the
 * finished (or untouched) run of the same edits and shard; else nothing. Journal.open and the dry
 * run (apply.ts carriedForDryRun) decide by this one rule.
 */
export function carriedFrom(contents: JournalContents, state: JournalState, o: { inputHash: string; shard?: string }): Map<string, Map<string, string>> {
  const h = contents.header;
  if (!h || h.inputHash !== o.inputHash || h.shard !== o.shard) return new Map();
  if (!isComplete(contents, state) && !isUntouched(state)) return new Map();
  return carriedByTarget(h.target, state);
}

/** carriedOver by target: the journal's own target's, and the other targets' it kept (CarriedRecord.target). */
function carriedByTarget(target: string | undefined, state: JournalState): Map<string, Map<string, string>> {
  const out = new Map<string, Map<string, string>>();
  for (const [t, m] of state.foreign) out.set(t, new Map(m));
  if (target !== undefined) out.set(target, carriedOver(state));
  return out;
}

/** The run sent nothing: it stopped before its first edit, leaving nothing to finish. */
export function isUntouched(state: JournalState): boolean {
  return state.started.size === 0 && state.done.size === 0 && state.failed.size === 0;
}

/** Every edit of the journal's input done, and the last session ended without an interruption. */
export function isComplete(contents: JournalContents, state: JournalState): boolean {
  const last = contents.records[contents.records.length - 1];
  return Boolean(contents.header && last?.type === 'end' && !last.interrupted && last.failed === 0 && !contents.tornTail && state.done.size >= contents.header.total);
}

/** The file calls the journal makes on its open file: tests replace them to fail a write (ENOSPC) or to see what is on disk. */
export interface JournalIo {
  writeSync(fd: number, buffer: Buffer, offset: number, length: number): number;
  fsyncSync(fd: number): void;
  fdatasync(fd: number, callback: (err: NodeJS.ErrnoException | null) => void): void;
}

/** The journal could not be written during a run (disk full, I/O error): the run stops. */
export class JournalWriteError extends McatError {
  override name = 'JournalWriteError';
  readonly code: string | undefined;
  constructor(readonly path: string, readonly fsError: unknown) {
    super(`cannot write the journal ${path}: ${describeFsError(fsError)}`);
    this.code = (fsError as NodeJS.ErrnoException | undefined)?.code;
  }

  /** What the user can do about it, for a hint. */
  get fix(): string {
    return this.code === 'ENOSPC' || this.code === 'EDQUOT' ? 'free some space' : `fix what keeps ${this.path} from being written`;
  }
}

export interface OpenJournalOptions {
  inputHash: string;
  input?: string;
  /** the input file's inputSource (absent for stdin), recorded in the header */
  source?: string;
  /** "K/N" for one shard of the input: a journal of another shard (or of the whole input) is not resumed */
  shard?: string;
  /** where the edits go (JournalHeader.target) */
  target?: string;
  /**
   * A new run over the journal of a finished (or untouched) run of the same edits is handed, for
   * each target that journal knows (its own, and the others it kept), where that target's replace
   * edits went, by key (carriedByTarget), and names those to carry: written as CarriedRecords
   * before anything is sent (another target's with its target, kept for that target's next run),
   * and this run's own in its state.
   */
  carry?: (earlier: ReadonlyMap<string, string>) => Iterable<[key: string, playlistId: string]>;
  total: number;
  resume: boolean;
  /** decides which folders are mcat's own state folders (checked before use); default process.env */
  env?: NodeJS.ProcessEnv;
  /** for tests */
  runId?: string;
  now?: () => Date;
  io?: JournalIo;
  lock?: JournalLockOptions;
  /** checks made holding the lock, before the journal is read or written: a throw releases it */
  afterLock?: () => void;
}

export interface OpenedJournal {
  journal: Journal;
  state: JournalState;
  resumed: boolean;
  /** --resume found a journal whose run applied every edit: there is nothing to do (nothing is written) */
  complete: boolean;
  notes: string[];
}

const defaultNow = (): Date => new Date();

const APPEND = fs.constants.O_WRONLY | fs.constants.O_APPEND | O_NOFOLLOW;

export class Journal {
  private fd: number | undefined;
  private readonly now: () => Date;
  private readonly nowMs: () => number;
  private readonly io: JournalIo;
  /** records written by this handle, and how many of them are known to be on disk */
  private written = 0;
  private synced = 0;
  private syncing: Promise<void> | undefined;
  private syncTimer: NodeJS.Timeout | undefined;
  private waiters: { upTo: number; resolve: () => void; reject: (e: Error) => void }[] = [];
  private failure: JournalWriteError | undefined;
  /** records of appendSoon not yet written (whole lines), and the promise of their write */
  private pending = '';
  private pendingCount = 0;
  private batch: { promise: Promise<void>; resolve: () => void; reject: (e: Error) => void } | undefined;
  private lastStamp = { ms: NaN, text: '' };

  private constructor(readonly path: string, fd: number, readonly header: JournalHeader, private readonly lock: JournalLock, now: () => Date, io: JournalIo) {
    this.fd = fd;
    this.now = now;
    this.nowMs = now === defaultNow ? Date.now : () => now().getTime();
    this.io = io;
  }

  /**
   * Opens the journal for a run, holding its lock until close. An unfinished run's journal (an
   * edit not done, an interruption, no end) is refused without `resume`; a complete one, or one
   * whose run sent nothing, is replaced by the new run. With `resume`, a journal of other edits is refused, a missing or
   * empty one starts a fresh run, and a complete one leaves nothing to do. Every problem with the
   * path or the disk is a InputError naming the path: nothing has been sent yet.
   */
  static open(file: string, opts: OpenJournalOptions): OpenedJournal {
    const now = opts.now ?? defaultNow;
    const io = opts.io ?? fs;
    ensureJournalFolder(file, opts.env);
    // a file that is not a journal is refused before the lock is taken: a refused run leaves no
    // `<file>.lock/` beside it (the check is made again, holding the lock, below)
    refuseNotJournal(file);
    const lock = JournalLock.acquire(file, opts.lock);
    const notes: string[] = [];
    let earlier = new Map<string, Map<string, string>>();
    if (lock.tookOverFrom) notes.push(`took over the lock of an earlier run (pid ${lock.tookOverFrom.pid}), which is no longer running`);
    try {
      opts.afterLock?.();
      const exists = inspect(file);
      if (exists) {
        const contents = readOrRefuse(file);
        if (contents.header) {
          const state = stateOf(contents.header.runId, contents.records);
          const complete = isComplete(contents, state);
          const untouched = isUntouched(state);
          if (!opts.resume && !complete && !untouched) {
            // the same edits, whose stopped run made no playlist (nor may have): applying them all
            // again is what a nightly run of an unchanged file asks, and safe (replaces, details and
            // groups set what they set); one that made playlists would make them again: --resume
            if (!rerunnable(contents, state, opts)) throw unfinished(file, contents, state, opts.inputHash, opts.shard);
            const h = contents.header;
            notes.push(
              `the last run of these edits did not finish (${state.done.size} of ${h.total} done${state.failed.size ? `, ${state.failed.size} failed` : ''}) and made no playlists: this run applies every edit again (--resume would apply only what is left)`,
            );
          }
          if (!opts.resume) {
            // where its replaces went, for this run to replace the playlists its ifMissing edits
            // created rather than create them again (the same edits, the same account and user)
            if (opts.target !== undefined) earlier = carriedFrom(contents, state, opts);
            // a finished run's journal does not block the next run of the same edits (nightly)
            fs.unlinkSync(file);
          } else {
            if (contents.header.version !== JOURNAL_VERSION) {
              throw new InputError(`the journal ${file} has version ${contents.header.version}; this mcat reads version ${JOURNAL_VERSION}`);
            }
            if (contents.header.inputHash !== opts.inputHash) {
              throw new InputError(
                `the journal ${file} was written for different edits${contents.header.input ? ` (${contents.header.input})` : ''}: refusing to resume`,
                'resume with the same input file as the interrupted run, or give another --journal to start a new run',
              );
            }
            if (contents.header.target !== undefined && opts.target !== undefined && contents.header.target !== opts.target) {
              throw new InputError(
                `the journal ${file} was written by a run for another account or user: refusing to resume`,
                'resume with the profile (and --user) of the interrupted run, or give another --journal to start a new run',
              );
            }
            if (contents.header.shard !== opts.shard) {
              throw new InputError(
                `the journal ${file} was written for ${splitOf(contents.header.shard)}, not ${splitOf(opts.shard)}: refusing to resume`,
                contents.header.shard ? `resume with --shard ${contents.header.shard}` : 'resume without --shard',
              );
            }
            const j = Journal.reopen(file, contents, lock, now, io, notes);
            if (!complete) j.firstRecord({ type: 'session', event: 'resume', pid: process.pid, at: j.stamp() }, false);
            return { journal: j, state, resumed: true, complete, notes };
          }
        } else {
          // no header: a run killed before it was written (nothing happened yet) leaves an empty
          // file or the start of a header; anything else is not ours (the input named as the
          // journal by mistake, a report): never removed
          if (!cutBeforeHeader(file, contents)) {
            throw new InputError(`${file} is not an mcat journal; refusing to replace it`, 'give --journal a file of its own (a new name)');
          }
          fs.unlinkSync(file);
        }
      } else if (opts.resume) {
        notes.push(`no journal at ${file}: starting a new run`);
      }
      const header: JournalHeader = {
        type: 'header',
        version: JOURNAL_VERSION,
        runId: opts.runId ?? randomBytes(8).toString('hex'),
        inputHash: opts.inputHash,
        ...(opts.input !== undefined ? { input: opts.input } : {}),
        ...(opts.source !== undefined ? { source: opts.source } : {}),
        ...(opts.shard !== undefined ? { shard: opts.shard } : {}),
        ...(opts.target !== undefined ? { target: opts.target } : {}),
        total: opts.total,
        createdAt: now().toISOString(),
      };
      const j = Journal.create(file, header, lock, now, io);
      j.firstRecord({ type: 'session', event: 'start', pid: process.pid, at: j.stamp() }, true);
      const fresh = stateOf(header.runId, []);
      if (opts.carry && opts.target !== undefined) {
        for (const [target, m] of earlier) {
          const own = target === opts.target;
          for (const [key, playlistId] of opts.carry(m)) {
            j.firstRecord({ type: 'carried', key, playlistId, ...(own ? {} : { target }), at: j.stamp() }, true);
            if (own) fresh.carried.set(key, playlistId);
          }
        }
      }
      return { journal: j, state: fresh, resumed: false, complete: false, notes };
    } catch (err) {
      lock.release();
      if (err instanceof McatError) throw err;
      throw new InputError(`cannot open the journal ${file}: ${describeFsError(err)}`, 'give --journal a path in a folder you can write');
    }
  }

  get runId(): string {
    return this.header.runId;
  }

  /** The session record (and a new run's carried records), written while opening: a failure closes the file (and drops a journal just made). */
  private firstRecord(rec: JournalRecord, fresh: boolean): void {
    try {
      this.append(rec);
    } catch (err) {
      if (this.syncTimer) clearTimeout(this.syncTimer);
      if (this.fd !== undefined) fs.closeSync(this.fd);
      this.fd = undefined;
      if (fresh) removeFile(this.path);
      const e = err instanceof JournalWriteError ? err : new JournalWriteError(this.path, err);
      throw new InputError(`${e.message}; nothing was sent`, fresh ? `${e.fix}, or give --journal a path on another disk` : `${e.fix}, then run again with --resume`);
    }
  }

  stamp(): string {
    // two records an edit, many within one millisecond: the same text for the same time (and no
    // Date made for it)
    const ms = this.nowMs();
    if (ms !== this.lastStamp.ms) this.lastStamp = { ms, text: new Date(ms).toISOString() };
    return this.lastStamp.text;
  }

  /**
   * Writes one record before returning: once written it survives the process being killed
   * (SIGKILL included). It reaches the disk (against a crash of the machine) within
   * GROUP_SYNC_MS, or with the next durable record, and on close. Losing such a record in a
   * crash is harmless: it is the outcome of an idempotent edit, which a resume sends again.
   */
  append(rec: JournalRecord): void {
    this.writePending();
    this.writeLine(rec);
    this.syncLater();
  }

  /**
   * Adds a record to those written together, in one write, by the next writePending(): the
   * scheduler calls it before it waits, so the records of the edits that finished and started in
   * one turn of the event loop go out in one write, before any request of an edit started in that
   * turn is sent (apply.ts waits for its "started" record). Resolves once written; fails with the
   * write's error. Throws at once when the journal has failed already.
   */
  appendSoon(rec: JournalRecord): Promise<void> {
    if (this.failure) throw this.failure;
    if (this.fd === undefined) throw new Error(`journal ${this.path} is closed`);
    this.pending += JSON.stringify(rec) + '\n';
    this.pendingCount++;
    if (!this.batch) {
      let resolve!: () => void;
      let reject!: (e: Error) => void;
      const promise = new Promise<void>((res, rej) => {
        resolve = res;
        reject = rej;
      });
      // a caller that does not wait for it learns of a failure from writePending or the next append
      promise.catch(() => {});
      const batch = { promise, resolve, reject };
      this.batch = batch;
      // whoever else appends soon: written at the latest once the event loop has handled this
      // turn's I/O (the scheduler, woken then too, writes them first with its edits' "started");
      // a batch written already is not this one's to write (a later batch waits for its own)
      setImmediate(() => {
        if (this.batch !== batch) return;
        try {
          this.writePending();
        } catch {
          // kept as this.failure: the next append or close throws it
        }
      });
    }
    return this.batch.promise;
  }

  /** Writes the records of appendSoon, all in one write (throws JournalWriteError). */
  writePending(): void {
    const batch = this.batch;
    if (!batch) return;
    this.batch = undefined;
    const text = this.pending;
    const n = this.pendingCount;
    this.pending = '';
    this.pendingCount = 0;
    try {
      this.writeText(text, n);
    } catch (err) {
      batch.reject(err as Error);
      throw err;
    }
    this.syncLater();
    batch.resolve();
  }

  /** Written records reach the disk within GROUP_SYNC_MS. */
  private syncLater(): void {
    this.syncTimer ??= setTimeout(() => {
      this.syncTimer = undefined;
      this.flush().catch(() => {});
    }, GROUP_SYNC_MS);
    this.syncTimer.unref?.();
  }

  /**
   * Writes one record and resolves once it is on disk (fdatasync). The records of a create rest
   * on it: its marker's "started" record before the create is sent, its "created" record before
   * the marker is removed. Records made durable together share one fdatasync (group commit).
   */
  appendDurable(rec: JournalRecord): Promise<void> {
    this.writePending();
    this.writeLine(rec);
    const upTo = this.written;
    return new Promise<void>((resolve, reject) => {
      this.waiters.push({ upTo, resolve, reject });
      void this.flush().catch(() => {});
    });
  }

  private writeLine(rec: object): void {
    this.writeText(JSON.stringify(rec) + '\n', 1);
  }

  /** Whole lines, `records` of them, in one write. */
  private writeText(text: string, records: number): void {
    if (this.failure) throw this.failure;
    if (this.fd === undefined) throw new Error(`journal ${this.path} is closed`);
    const data = Buffer.from(text, 'utf8');
    try {
      let off = 0;
      while (off < data.length) off += this.io.writeSync(this.fd, data, off, data.length - off);
    } catch (err) {
      throw this.fail(err);
    }
    this.written += records;
  }

  private fail(err: unknown): JournalWriteError {
    this.failure ??= err instanceof JournalWriteError ? err : new JournalWriteError(this.path, err);
    for (const w of this.waiters.splice(0)) w.reject(this.failure);
    const batch = this.batch;
    this.batch = undefined;
    this.pending = '';
    this.pendingCount = 0;
    batch?.reject(this.failure);
    return this.failure;
  }

  /** One fdatasync at a time, covering every record written when it starts. */
  private flush(): Promise<void> {
    if (this.syncing) return this.syncing;
    if (this.failure) return Promise.reject(this.failure);
    const fd = this.fd;
    const upTo = this.written;
    if (fd === undefined || this.synced >= upTo) return Promise.resolve();
    this.syncing = new Promise<void>((resolve, reject) => {
      this.io.fdatasync(fd, (err) => {
        this.syncing = undefined;
        if (err) return reject(this.fail(err));
        this.synced = Math.max(this.synced, upTo);
        this.waiters = this.waiters.filter((w) => (w.upTo <= this.synced ? (w.resolve(), false) : true));
        // records written while this one ran wait for the next
        if (this.waiters.length) void this.flush().catch(() => {});
        resolve();
      });
    });
    return this.syncing;
  }

  private static create(file: string, header: JournalHeader, lock: JournalLock, now: () => Date, io: JournalIo): Journal {
    const fd = fs.openSync(file, APPEND | fs.constants.O_CREAT | fs.constants.O_EXCL, 0o600);
    const j = new Journal(file, fd, header, lock, now, io);
    try {
      // the header on disk before anything is sent: a journal without one is discarded as empty
      j.writeLine(header);
      io.fsyncSync(fd);
    } catch (err) {
      fs.closeSync(fd);
      removeFile(file);
      const e = err instanceof JournalWriteError ? err : new JournalWriteError(file, err);
      throw new InputError(`${e.message}; nothing was sent`, `${e.fix}, or give --journal a path on another disk`);
    }
    syncDir(path.dirname(path.resolve(file)));
    return j;
  }

  private static reopen(file: string, contents: JournalContents, lock: JournalLock, now: () => Date, io: JournalIo, notes: string[]): Journal {
    if (contents.corruptLines.length) notes.push(`journal ${file}: unreadable line${contents.corruptLines.length === 1 ? '' : 's'} ${contents.corruptLines.join(', ')} ignored`);
    if (contents.tornTail) notes.push(`journal ${file}: an incomplete last record (the run was killed while writing it) was dropped`);
    const fd = fs.openSync(file, APPEND);
    try {
      // drop a torn tail so the next record starts on a line of its own
      if (contents.tornTail) {
        fs.ftruncateSync(fd, contents.validBytes);
        fs.fsyncSync(fd);
      }
      // an older mcat made journals with the umask's mode
      if (fs.fstatSync(fd).mode & 0o077) fs.fchmodSync(fd, 0o600);
    } catch (err) {
      fs.closeSync(fd);
      throw err;
    }
    return new Journal(file, fd, contents.header!, lock, now, io);
  }

  /** Forces every record to disk, closes the file and frees the lock. */
  async close(): Promise<void> {
    if (this.fd === undefined) return;
    if (this.syncTimer) clearTimeout(this.syncTimer);
    this.syncTimer = undefined;
    const fd = this.fd;
    try {
      this.writePending();
      // an fdatasync in flight must finish before its fd is closed
      await this.syncing?.catch(() => {});
      if (this.failure) throw this.failure;
      try {
        this.io.fsyncSync(fd);
      } catch (err) {
        throw this.fail(err);
      }
    } finally {
      this.fd = undefined;
      fs.closeSync(fd);
      this.lock.release();
    }
  }
}

/** Whether a journal file is there; refuses anything but a regular file (a symlink above all). */
function inspect(file: string): boolean {
  let st: fs.Stats;
  try {
    st = fs.lstatSync(file);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return false;
    throw err;
  }
  if (st.isSymbolicLink()) throw new InputError(`the journal ${file} is a symbolic link; refusing to write through it`, 'remove it, or give another --journal');
  if (!st.isFile()) throw new InputError(`the journal ${file} is not a regular file`, 'remove it, or give another --journal');
  return true;
}

const HEADER_START = '{"type":"header"';

/** Whether a journal without a header is what a run killed while writing it leaves: nothing, or a header cut short. */
function cutBeforeHeader(file: string, contents: JournalContents): boolean {
  if (contents.records.length || contents.corruptLines.length || contents.validBytes) return false;
  const fd = fs.openSync(file, fs.constants.O_RDONLY | O_NOFOLLOW);
  try {
    const buf = Buffer.alloc(HEADER_START.length + 1);
    const n = fs.readSync(fd, buf, 0, buf.length, 0);
    const head = buf.subarray(0, n).toString('utf8');
    return n === 0 || (n > HEADER_START.length ? head.startsWith(HEADER_START) : HEADER_START.startsWith(head));
  } finally {
    fs.closeSync(fd);
  }
}

/**
 * Refuses, without the lock, a path that can never be this run's journal: a link, not a regular
 * file, or a file of something else. A journal (it starts with its header) is not read here.
 * Other failures (a folder that cannot be read) are left to the checks made holding the lock.
 */
function refuseNotJournal(file: string): void {
  try {
    if (!inspect(file)) return;
    const fd = fs.openSync(file, fs.constants.O_RDONLY | O_NOFOLLOW);
    let head: string;
    try {
      const buf = Buffer.alloc(HEADER_START.length);
      head = buf.subarray(0, fs.readSync(fd, buf, 0, buf.length, 0)).toString('utf8');
    } finally {
      fs.closeSync(fd);
    }
    if (head === HEADER_START) return;
    const contents = readJournal(file);
    if (!contents.header && !cutBeforeHeader(file, contents)) {
      throw new InputError(`${file} is not an mcat journal; refusing to replace it`, 'give --journal a file of its own (a new name)');
    }
  } catch (err) {
    if (err instanceof McatError) throw err;
  }
}

function readOrRefuse(file: string): JournalContents {
  try {
    return readJournal(file);
  } catch (err) {
    throw new InputError(`cannot read the journal ${file}: ${describeFsError(err)}`, 'check its permissions, or give another --journal');
  }
}

/**
 * Playlists a run made, or may have (a create sent, its answer not recorded): its done creates and
 * ifMissing replaces that created, and the creates it began and did not finish.
 */
export function playlistsMade(st: JournalState): number {
  let n = 0;
  for (const r of st.done.values()) if (r.created || r.op === 'create') n++;
  for (const key of new Set([...st.created.keys(), ...st.markers.keys()])) if (!st.done.has(key)) n++;
  return n;
}

/** Whether an unfinished run may be run again whole: the same edits, shard and target, no playlist made (see Journal.open). */
function rerunnable(contents: JournalContents, state: JournalState, o: OpenJournalOptions): boolean {
  const h = contents.header!;
  if (h.inputHash !== o.inputHash || h.shard !== o.shard || h.version !== JOURNAL_VERSION) return false;
  if (h.target !== undefined && o.target !== undefined && h.target !== o.target) return false;
  return playlistsMade(state) === 0;
}

function splitOf(shard: string | undefined): string {
  return shard ? `shard ${shard}` : 'the whole input';
}

function unfinished(file: string, contents: JournalContents, state: JournalState, inputHash: string, shard: string | undefined): InputError {
  const h = contents.header!;
  const other = h.inputHash !== inputHash;
  const otherShard = !other && h.shard !== shard;
  const what = other
    ? `an unfinished run of other edits${h.input ? ` (${h.input})` : ''}`
    : `an unfinished run of these edits${otherShard ? `, ${splitOf(h.shard)},` : ''} (${state.done.size} of ${h.total} done${state.failed.size ? `, ${state.failed.size} failed` : ''})`;
  return new InputError(
    `the journal ${file} holds ${what}`,
    other
      ? 'give another --journal, or remove that journal if its run is abandoned'
      : otherShard
        ? `finish that run (${h.shard ? `--shard ${h.shard} ` : ''}--resume), or give this one another --journal`
        : 'add --resume to finish that run, or remove the journal (or give another --journal) to start over',
  );
}

function syncDir(dir: string): void {
  try {
    const fd = fs.openSync(dir, 'r');
    try {
      fs.fsyncSync(fd);
    } finally {
      fs.closeSync(fd);
    }
  } catch {
    // some file systems refuse fsync on a directory; the file's own fsync still holds
  }
}
