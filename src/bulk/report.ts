// What a bulk run tells people and scripts at the end: the NDJSON report of failures, the
// stderr summary, the exit code, and the progress line shown while it runs (TTY only).
import * as fs from 'node:fs';
import * as path from 'node:path';
import { describeFsError, McatError, InputError } from '../client/errors';
import type { ApplyProgress, ApplyResult } from './apply';
import { canonicalEdit } from './edits';
import { removeFile } from './files';

export interface ReportLine {
  edit: unknown;
  line: number;
  key: string;
  outcome: 'failed' | 'interrupted';
  error?: string;
  code?: number;
  httpStatus?: number;
  message: string;
  attempts?: number;
  playlistId?: string;
}

/** One line per failed edit (and per edit left undone by an interruption), in input order. */
export function reportLines(result: ApplyResult): ReportLine[] {
  const lines: ReportLine[] = result.failed.map((f) => ({
    edit: canonicalEdit(f.edit),
    line: f.line,
    key: f.key,
    outcome: 'failed' as const,
    error: f.error,
    ...(f.code !== undefined ? { code: f.code } : {}),
    ...(f.httpStatus !== undefined ? { httpStatus: f.httpStatus } : {}),
    message: f.message,
    attempts: f.attempts,
    ...(f.playlistId ? { playlistId: f.playlistId } : {}),
  }));
  for (const p of result.pending) {
    lines.push({ edit: canonicalEdit(p.edit), line: p.line, key: p.key, outcome: 'interrupted', message: 'not applied: the run was interrupted (apply again with --resume)' });
  }
  return lines.sort((a, b) => a.line - b.line);
}

function writeAll(fd: number, text: string): void {
  try {
    fs.writeFileSync(fd, text);
  } finally {
    fs.closeSync(fd);
  }
}

function linkRefused(file: string): InputError {
  return new InputError(`--report ${file} is a symbolic link: mcat does not write through one`, 'name the file itself, or a new one');
}

/**
 * Checks `--report FILE` before anything is sent: a symbolic link, a folder or a missing folder
 * is refused (a regular file is replaced at the end, as asked).
 */
export function checkReportPath(file: string): void {
  let st: fs.Stats | undefined;
  try {
    st = fs.lstatSync(file, { throwIfNoEntry: false });
  } catch (e) {
    throw new InputError(`--report ${file}: ${(e as NodeJS.ErrnoException).code === 'ENOTDIR' ? 'a part of the path is not a folder' : (e as Error).message}`);
  }
  if (st?.isSymbolicLink()) throw linkRefused(file);
  if (st?.isDirectory()) throw new InputError(`--report ${file} is a folder`, 'name a file to write the report to');
  const dir = path.dirname(path.resolve(file));
  if (!st && !fs.statSync(dir, { throwIfNoEntry: false })?.isDirectory()) {
    throw new InputError(`--report ${file}: no such folder ${path.dirname(file)}`);
  }
  // a new file, or a regular file replaced by renaming one into its folder: the folder must take
  // it, or the run would be applied and its report lost at the end (a device is written as such)
  if (!st || st.isFile()) {
    try {
      fs.accessSync(dir, fs.constants.W_OK);
    } catch (e) {
      throw new InputError(`--report ${file}: cannot write in the folder: ${describeFsError(e)}`, 'name a report in a folder you can write');
    }
  }
}

/** Whether two paths name one file: the same inode when both exist, else the same absolute path. */
function sameFile(a: string, b: string): boolean {
  try {
    const x = fs.statSync(a, { throwIfNoEntry: false });
    const y = fs.statSync(b, { throwIfNoEntry: false });
    if (x && y) return x.dev === y.dev && x.ino === y.ino;
  } catch {
    // compared by name below
  }
  return path.resolve(a) === path.resolve(b);
}

/**
 * Refuses (exit 2, before anything is sent) a report that would replace the input or the run's
 * journal: the report is written over its path at the end, and the edits (or the record of what
 * was applied, which --resume needs) would be lost.
 */
export function checkReportClash(file: string, others: { input?: string; journal: string }): void {
  if (others.input !== undefined && sameFile(file, others.input)) {
    throw new InputError(`--report ${file} is the input file: the report would replace the edits`, 'name another file for the report');
  }
  if (sameFile(file, others.journal)) {
    throw new InputError(`--report ${file} is this run's journal: the report would replace it`, 'name another file for the report, or give --journal another path');
  }
}

/** The longest start of `s` that is at most `max` bytes of UTF-8, cut between characters. */
function firstBytes(s: string, max: number): string {
  if (Buffer.byteLength(s) <= max) return s;
  let bytes = 0;
  let end = 0;
  for (const ch of s) {
    bytes += Buffer.byteLength(ch);
    if (bytes > max) break;
    end += ch.length;
  }
  return s.slice(0, end);
}

/**
 * The temporary files of report writes killed before their rename (`.<name>.<pid>-<id>.tmp`):
 * regular files of this user whose process is gone. Never a link, nor another name's.
 */
function removeLeftovers(dir: string, stem: string): void {
  const prefix = `.${stem}.`;
  let names: string[];
  try {
    names = fs.readdirSync(dir);
  } catch {
    return;
  }
  const uid = process.getuid?.();
  for (const n of names) {
    if (!n.startsWith(prefix)) continue;
    const m = /^([0-9]{1,10})-[0-9a-z]{1,6}\.tmp$/.exec(n.slice(prefix.length));
    if (!m || Number(m[1]) === process.pid) continue;
    try {
      process.kill(Number(m[1]), 0);
      continue;
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'EPERM') continue;
    }
    try {
      const st = fs.lstatSync(path.join(dir, n));
      if (st.isFile() && (uid === undefined || st.uid === uid)) fs.unlinkSync(path.join(dir, n));
    } catch {
      // tidying only
    }
  }
}

/**
 * Writes the NDJSON report (`--report FILE`); an empty file when nothing failed. Written 0600
 * to a new file beside it, then renamed into place: never through a symbolic link (nor a hard
 * link), and a reader never sees half a report. A device or pipe (/dev/null) is written as such.
 * `line`: a record as its line (the CLI's escapes the C1 characters JSON.stringify leaves raw).
 */
export function runReport(file: string, result: ApplyResult, line: (record: unknown) => string = (r) => JSON.stringify(r)): void {
  const text = reportLines(result).map((l) => line(l) + '\n').join('');
  try {
    const st = fs.lstatSync(file, { throwIfNoEntry: false });
    if (st?.isSymbolicLink()) throw linkRefused(file);
    if (st && !st.isFile()) {
      writeAll(fs.openSync(file, fs.constants.O_WRONLY | fs.constants.O_NOFOLLOW), text);
      return;
    }
    // (the name's first 100 bytes: a report named to the file system's 255-byte limit still gets one)
    const stem = firstBytes(path.basename(file), 100);
    const tmp = path.join(path.dirname(file), `.${stem}.${process.pid}-${Math.random().toString(36).slice(2, 8)}.tmp`);
    removeLeftovers(path.dirname(file), stem);
    let done = false;
    try {
      writeAll(fs.openSync(tmp, 'wx', 0o600), text);
      fs.renameSync(tmp, file);
      done = true;
    } finally {
      if (!done) removeFile(tmp);
    }
  } catch (e) {
    if (e instanceof McatError) throw e;
    const err = new McatError(`cannot write the report ${file}: ${describeFsError(e)}`);
    const full = ['ENOSPC', 'EDQUOT'].includes((e as NodeJS.ErrnoException | undefined)?.code ?? '');
    err.hint = `the summary above says what the run did; ${full ? 'free some space, or name another --report' : 'name a --report you can write'}`;
    throw err;
  }
}

/** 0 all applied, 3 some failed, 1 none could be applied, 130 interrupted. */
export function applyExitCode(result: ApplyResult): 0 | 1 | 3 | 130 {
  if (result.interrupted) return 130;
  if (result.failed.length === 0) return 0;
  if (result.applied === 0 && result.skipped === 0) return 1;
  return 3;
}

function secs(ms: number): string {
  return ms < 10_000 ? `${(ms / 1000).toFixed(1)} s` : `${Math.round(ms / 1000)} s`;
}

/** The summary for stderr: one line of counts, then each failure (at most `maxFailures`). */
export function summaryLines(result: ApplyResult, opts: { fileName?: string; reportPath?: string; maxFailures?: number; shard?: string } = {}): string[] {
  const out: string[] = [];
  const parts = [`${result.applied} applied`];
  if (result.skipped) parts.push(`${result.skipped} already done`);
  parts.push(`${result.failed.length} failed`);
  if (result.pending.length) parts.push(`${result.pending.length} not applied (interrupted)`);
  const n = result.created.length;
  const c = result.carried?.length ?? 0;
  const created = (n ? `, ${n} playlist${n === 1 ? '' : 's'} created` : '') + (c ? `, ${c} replaced where an earlier run created ${c === 1 ? 'it' : 'them'}` : '');
  out.push(`mcat: ${opts.shard ? `shard ${opts.shard}: ` : ''}${parts.join(', ')} of ${result.total} edit${result.total === 1 ? '' : 's'} in ${secs(result.elapsedMs)}${created}`);
  const max = opts.maxFailures ?? 20;
  const name = opts.fileName ?? 'input';
  for (const f of result.failed.slice(0, max)) {
    const tag = [f.code !== undefined ? String(f.code) : undefined, f.httpStatus ? `HTTP ${f.httpStatus}` : undefined].filter(Boolean).join(', ');
    out.push(`  ${name}:${f.line}: ${f.edit.op} failed: ${f.message}${tag ? ` (${tag})` : ''}`);
  }
  if (result.failed.length > max) out.push(`  … and ${result.failed.length - max} more`);
  if (result.orphans.length) out.push(`  duplicate playlist${result.orphans.length === 1 ? '' : 's'} left by lost create answers: ${result.orphans.join(', ')}`);
  if (result.interrupted) out.push(`mcat: interrupted; run again with --resume to apply the rest (journal: ${result.journalPath})`);
  if (opts.reportPath && (result.failed.length || result.pending.length)) out.push(`mcat: report of failures written to ${opts.reportPath}`);
  return out;
}

function clock(sec: number): string {
  const s = Math.max(0, Math.round(sec));
  const h = Math.floor(s / 3600);
  const m = Math.floor((s % 3600) / 60);
  const r = s % 60;
  return h ? `${h}:${String(m).padStart(2, '0')}:${String(r).padStart(2, '0')}` : `${m}:${String(r).padStart(2, '0')}`;
}

/** One progress line: `312/1000 done, 2 failed, 14.2/s, 0:48 left` (`0 failed` too: the line's shape never changes). */
export function formatProgress(p: ApplyProgress): string {
  const finished = p.done + p.failed + p.skipped;
  const parts = [`${finished}/${p.total} done`, `${p.failed} failed`];
  parts.push(`${p.ratePerSec.toFixed(1)}/s`);
  parts.push(p.etaSec === undefined ? '--:-- left' : `${clock(p.etaSec)} left`);
  if (p.paused) parts.push('rate-limited, waiting');
  return parts.join(', ');
}

/** Where the progress line is drawn: a line redrawn in place (the CLI's stderr status line). */
export interface ProgressLine {
  /** false when nothing should be drawn (stderr is not a terminal) */
  readonly active: boolean;
  show(text: string): void;
  end(): void;
}

/**
 * A progress callback for applyEdits that redraws one line (at most every `intervalMs`) when
 * the line is active, and does nothing otherwise. Call end() before printing the summary.
 */
export function progressRenderer(line: ProgressLine, opts: { intervalMs?: number; now?: () => number } = {}): {
  /** undefined when nothing is shown (not a terminal, --quiet): the run then keeps no figures for it */
  onProgress: ((p: ApplyProgress) => void) | undefined;
  end: () => void;
} {
  if (!line.active) return { onProgress: undefined, end: () => {} };
  const interval = opts.intervalMs ?? 200;
  const now = opts.now ?? Date.now;
  let last = -Infinity;
  let shown = false;
  let latest: ApplyProgress | undefined;
  const draw = (p: ApplyProgress) => {
    line.show(formatProgress(p));
    shown = true;
  };
  return {
    onProgress: (p) => {
      latest = p;
      const t = now();
      if (t - last < interval && p.done + p.failed + p.skipped < p.total) return;
      last = t;
      draw(p);
    },
    end: () => {
      if (latest && shown) draw(latest);
      if (shown) line.end();
      shown = false;
    },
  };
}
