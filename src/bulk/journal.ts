// The apply journal: an append-only NDJSON file, one record per line, each written before the
// run moves on (and forced to disk in groups, see append). It is what makes a killed run resumable: a record either
// is on disk whole or, if the process died mid-write, is a torn last line that is ignored.
//
// Format (one JSON object per line):
//   {"type":"header","version":1,"runId":"<16 hex>","inputHash":"<sha256 hex>","input":"<name>","total":N,"createdAt":"<ISO>"}
//   {"type":"session","event":"start"|"resume","pid":N,"at":"<ISO>"}
//   {"type":"started","key":"<edit key>","line":N,"op":"<op>","at":"<ISO>"[,"marker":"<runId>:<key>"]}
//   {"type":"created","key":"<edit key>","playlistId":"<new id>","adopted":bool,"at":"<ISO>"}
//   {"type":"done","key":"<edit key>","line":N,"op":"<op>","at":"<ISO>"[,"playlistId":"<id>"][,"groupId":"<id>"][,"created":true]}
//   {"type":"failed","key":"<edit key>","line":N,"op":"<op>","at":"<ISO>","error":"<class>","message":"<text>"[,"code":N][,"httpStatus":N][,"playlistId":"<id>"]}
//   {"type":"end","applied":N,"failed":N,"skipped":N,"interrupted":bool,"at":"<ISO>"}
// A "started" record with a marker is written before a create is sent: the created playlist
// carries the marker in its annotations until the edit is done, so a resumed run can find it.
import * as fs from 'node:fs';
import * as path from 'node:path';
import { randomBytes } from 'node:crypto';
import { UsageError } from '../client/errors';

export const JOURNAL_VERSION = 1;
/** the longest a written record waits to be forced to disk */
export const GROUP_SYNC_MS = 20;

export interface JournalHeader {
  type: 'header';
  version: number;
  runId: string;
  inputHash: string;
  input?: string;
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
export type JournalRecord = JournalHeader | StartedRecord | CreatedRecord | DoneRecord | FailedRecord | SessionRecord | EndRecord;

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
  sessions: number;
}

export function readJournal(file: string): JournalContents {
  const buf = fs.readFileSync(file);
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
  const st: JournalState = { runId, done: new Map(), failed: new Map(), started: new Set(), markers: new Map(), created: new Map(), sessions: 0 };
  for (const r of records) {
    switch (r.type) {
      case 'started':
        st.started.add(r.key);
        if (r.marker) st.markers.set(r.key, r.marker);
        break;
      case 'created':
        st.created.set(r.key, r.playlistId);
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
 * The default journal path: `<input>.journal` beside a named input; for stdin (`-`), a file in
 * the current directory named by the hash of the edits (`mcat-apply-<12 hex>.journal`), so that
 * piping the same edits again with --resume finds it.
 */
export function defaultJournalPath(input: string, inputHash: string, cwd = process.cwd()): string {
  if (input === '-' || input === '') return path.join(cwd, `mcat-apply-${inputHash.slice(0, 12)}.journal`);
  return `${input}.journal`;
}

export interface OpenJournalOptions {
  inputHash: string;
  input?: string;
  total: number;
  resume: boolean;
  /** for tests */
  runId?: string;
  now?: () => Date;
}

export class Journal {
  private fd: number | undefined;
  private readonly now: () => Date;

  private constructor(readonly path: string, fd: number, readonly header: JournalHeader, now: () => Date) {
    this.fd = fd;
    this.now = now;
  }

  /**
   * Opens the journal for a run. Without `resume`, an existing journal is refused (it belongs to
   * a run that may be unfinished). With `resume`, a journal of another input is refused; a missing
   * or empty one starts a fresh run.
   */
  static open(file: string, opts: OpenJournalOptions): { journal: Journal; state: JournalState; resumed: boolean; notes: string[] } {
    const now = opts.now ?? (() => new Date());
    const notes: string[] = [];
    const exists = fs.existsSync(file);
    if (exists && !opts.resume) {
      throw new UsageError(
        `the journal ${file} already exists (an earlier run of these edits)`,
        'add --resume to continue that run, or remove the journal (or give another --journal) to start over',
      );
    }
    if (exists) {
      const contents = readJournal(file);
      if (contents.header) {
        if (contents.header.version !== JOURNAL_VERSION) {
          throw new UsageError(`the journal ${file} has version ${contents.header.version}; this mcat reads version ${JOURNAL_VERSION}`);
        }
        if (contents.header.inputHash !== opts.inputHash) {
          throw new UsageError(
            `the journal ${file} was written for different edits${contents.header.input ? ` (${contents.header.input})` : ''}: refusing to resume`,
            'resume with the same input file as the interrupted run, or give another --journal to start a new run',
          );
        }
        if (contents.corruptLines.length) notes.push(`journal ${file}: unreadable line(s) ${contents.corruptLines.join(', ')} ignored`);
        if (contents.tornTail) notes.push(`journal ${file}: an incomplete last record (the run was killed while writing it) was dropped`);
        const fd = fs.openSync(file, 'r+');
        // drop a torn tail so the next record starts on a line of its own
        if (contents.tornTail) {
          fs.ftruncateSync(fd, contents.validBytes);
          fs.fsyncSync(fd);
        }
        fs.closeSync(fd);
        const afd = fs.openSync(file, 'a');
        const j = new Journal(file, afd, contents.header, now);
        j.append({ type: 'session', event: 'resume', pid: process.pid, at: j.stamp() });
        return { journal: j, state: stateOf(contents.header.runId, contents.records), resumed: true, notes };
      }
      // no header: killed before it was written; nothing happened yet
      fs.rmSync(file);
    } else if (opts.resume) {
      notes.push(`no journal at ${file}: starting a new run`);
    }
    const header: JournalHeader = {
      type: 'header',
      version: JOURNAL_VERSION,
      runId: opts.runId ?? randomBytes(8).toString('hex'),
      inputHash: opts.inputHash,
      ...(opts.input !== undefined ? { input: opts.input } : {}),
      total: opts.total,
      createdAt: now().toISOString(),
    };
    fs.mkdirSync(path.dirname(path.resolve(file)), { recursive: true });
    const fd = fs.openSync(file, 'wx');
    const j = new Journal(file, fd, header, now);
    j.writeLine(header);
    syncDir(path.dirname(path.resolve(file)));
    j.append({ type: 'session', event: 'start', pid: process.pid, at: j.stamp() });
    return { journal: j, state: stateOf(header.runId, []), resumed: false, notes };
  }

  get runId(): string {
    return this.header.runId;
  }

  stamp(): string {
    return this.now().toISOString();
  }

  /**
   * Writes one record before returning: once written it survives the process being killed
   * (SIGKILL included). Forcing it to disk (against an OS crash or power cut) is grouped: a
   * marker record of a create is synced at once, as the exactly-once protocol for creates
   * rests on it; every other record within at most GROUP_SYNC_MS, and all of them on close.
   * Replays of those others are harmless (replace, details and group edits are idempotent).
   */
  append(rec: JournalRecord): void {
    this.writeLine(rec, rec.type === 'started' && 'marker' in rec && Boolean((rec as { marker?: string }).marker));
  }

  private syncTimer: NodeJS.Timeout | undefined;
  private syncError: Error | undefined;

  private writeLine(rec: object, syncNow = true): void {
    if (this.fd === undefined) throw new Error(`journal ${this.path} is closed`);
    if (this.syncError) throw this.syncError;
    const data = Buffer.from(JSON.stringify(rec) + '\n', 'utf8');
    let off = 0;
    while (off < data.length) off += fs.writeSync(this.fd, data, off, data.length - off);
    if (syncNow) {
      fs.fsyncSync(this.fd);
      return;
    }
    this.syncTimer ??= setTimeout(() => {
      this.syncTimer = undefined;
      const fd = this.fd;
      if (fd === undefined) return;
      fs.fdatasync(fd, (err) => {
        if (err && this.fd !== undefined) this.syncError = err;
      });
    }, GROUP_SYNC_MS);
    this.syncTimer.unref?.();
  }

  close(): void {
    if (this.fd === undefined) return;
    if (this.syncTimer) clearTimeout(this.syncTimer);
    this.syncTimer = undefined;
    fs.fsyncSync(this.fd);
    fs.closeSync(this.fd);
    this.fd = undefined;
  }
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
